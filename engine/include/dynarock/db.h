// File: dynarock/db.h
//
// The embedded DynamoDB: one method per DynamoDB operation, each taking and
// returning the plain structs of requests.h. Results and errors are exactly those
// DynamoDB gives (the error's type() names the DynamoDB exception).
//
//   auto db = dynarock::DB::Open(options, "./data");
//   if (!db.ok()) { ... db.status().message() ... }
//   dynarock::PutItemRequest put;
//   put.table_name = "people";
//   put.item["pk"] = dynarock::AttributeValue::S("USER#Frodo");
//   auto r = (*db)->PutItem(put);
//
// A DB is safe for concurrent use from many threads. Copying is disabled.

#ifndef DYNAROCK_DB_H_
#define DYNAROCK_DB_H_

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "dynarock/backups.h"
#include "dynarock/group_commit.h"
#include "dynarock/requests.h"
#include "dynarock/status.h"
#include "dynarock/streams.h"

namespace dynarock {

struct Options {
  // Create the data directory when it does not exist.
  bool create_if_missing = true;
  // Keep everything in memory (no files); for tests and throw-away endpoints.
  bool in_memory = false;
  // fsync the write-ahead log before acknowledging each write. With it, an
  // acknowledged write survives power loss; without it (the default), it survives
  // a process crash but may be lost if the machine loses power: the writes since
  // the last memtable switch (docs/durability.md has the bound).
  bool sync_writes = false;
  // Group commit (dynarock/group_commit.h), for a server answering many
  // clients from a thread (`dynarock serve` turns it on): a write made where
  // a GroupCommit is open leaves its log record in memory until that
  // GroupCommit's Flush(), which hands all the records it holds to the
  // operating system in one write; any other write hands its record over
  // before returning, as without the option. Nothing on disk changes.
  // No effect in memory (no log) or with sync_writes (each write is synced).
  bool group_commit = false;
  // The region and account put into ARNs.
  std::string region = "us-east-1";
  std::string account_id = "000000000000";
  // RocksDB block cache size in bytes.
  size_t block_cache_bytes = 32u << 20;
  // RocksDB's memtable (write buffer) size per column family in bytes; 0 keeps
  // RocksDB's default (64 MiB; 8 MiB in memory, see below). Smaller saves
  // memory, costs more compactions.
  //
  // In memory (in_memory, with neither a memory budget nor write_buffer_bytes)
  // the table files are memory already, so the defaults are smaller: write
  // buffers of 8 MiB (32 MiB for all column families together) and a block
  // cache of at most 8 MiB, which keeps the process near its data's size under
  // a write load instead of several times it.
  size_t write_buffer_bytes = 0;
  // Table files kept open; -1 = unlimited.
  int max_open_files = -1;
  // RocksDB's flush and compaction threads.
  int background_jobs = 2;
  // One bound for RocksDB's memory, in bytes; 0 = none (block_cache_bytes and
  // write_buffer_bytes apply). With a budget the block cache has that size and
  // the memtables are charged to it (at most half of it), index and filter
  // blocks included, so that the three together stay within the budget. (In
  // memory, the table files themselves are memory too: not bounded by it.)
  size_t memory_budget_bytes = 0;
  // How often expired items of tables with TimeToLive enabled are looked for and
  // deleted, in seconds; 0 turns expiry off. (DynamoDB deletes within days; a
  // local database can afford to be prompt.)
  double ttl_sweep_seconds = 5;
  // Open without writing anything (no recovery writes, no background work): for
  // `dynarock check` and other inspections. Every write operation fails.
  bool read_only = false;
  // DynamoDB Streams: how long stream records are kept (DynamoDB: 24 hours),
  // and how often a stream's open shard is closed and succeeded by a child
  // (DynamoDB: about every 4 hours). Shorter values serve tests.
  double stream_retention_seconds = 24 * 3600;
  double stream_shard_seconds = 4 * 3600;
  // DynamoDB's transient statuses: a new table (and a new index) is CREATING,
  // an updated one UPDATING, for this many seconds before it is ACTIVE, and a
  // deleted one is DELETING that long before it is gone (DescribeTable shows
  // it; its name stays taken), as DynamoDB Local's -delayTransientStatuses
  // does, so that SDK waiters are exercised. A CREATING table's items can be
  // neither read nor written (ResourceNotFoundException). 0: settled at once.
  double transient_status_seconds = 0;

  // Consistency simulation (a test double's; off by default). A write's
  // entries in global secondary indexes are applied a lag after the write,
  // drawn from [gsi_lag_min_seconds, gsi_lag_max_seconds] by a generator
  // seeded with consistency_seed (a fixed lag when both bounds are equal), in
  // the order of the writes: a Query on a GSI right after a write may see the
  // index as it was, as on DynamoDB, whose GSIs are eventually consistent.
  // Tables and local secondary indexes do not lag (but see stale reads).
  // Pending entries are applied at close; a crash loses them (the index then
  // differs from its table: `dynarock check`).
  double gsi_lag_min_seconds = 0;
  double gsi_lag_max_seconds = 0;
  uint64_t consistency_seed = 0;
  // An eventually consistent read of a table (ConsistentRead false, the
  // default: GetItem, BatchGetItem's keys, and Query and Scan of the table
  // itself) of an item written less than stale_read_seconds ago returns,
  // with stale_read_probability (drawn for each such item a read meets from
  // the generator seeded with consistency_seed), the item as it was before
  // that write (before the first of writes less than stale_read_seconds
  // apart): the previous image of an updated item, no item for one the write
  // created (a Query or Scan passes over it), and still the old item for one
  // it deleted, as DynamoDB may. Query and Scan page, filter, count and bill
  // on what they read so. ConsistentRead=true, transactions, writes'
  // conditions and index reads (GSIs lag through gsi_lag_*) always see the
  // latest. 0: off, at no cost to reads.
  double stale_read_seconds = 0;
  double stale_read_probability = 1.0;
  // The clock of stream records, shard rollover, retention and iterator
  // expiry, of point-in-time recovery's history and window, of time to live
  // and of transient statuses, in seconds since the epoch; the system clock when empty. Tests
  // inject one to move time.
  std::function<double()> clock;

  // Settings for a small device (docs/embedding.md): a 1 MiB block cache,
  // 1 MiB write buffers, 64 open files, one background job.
  static Options SmallDevice() {
    Options o;
    o.block_cache_bytes = 1u << 20;
    o.write_buffer_bytes = 1u << 20;
    o.max_open_files = 64;
    o.background_jobs = 1;
    return o;
  }
};

// What DB::CheckConsistency found.
struct ConsistencyReport {
  int64_t tables = 0;
  int64_t items = 0;
  int64_t index_entries = 0;
  // One line per difference, e.g. "table t index g: missing entry for item {...}".
  std::vector<std::string> differences;
  bool ok() const { return differences.empty(); }
};

// What DB::VerifyChecksums found.
struct ChecksumReport {
  int64_t files = 0;  // table files read
  int64_t bytes = 0;  // their size
  // One line per table file that failed to verify: its path, then RocksDB's
  // reason (e.g. "Corruption: block checksum mismatch: ...").
  std::vector<std::string> corrupt;
  bool ok() const { return corrupt.empty(); }
};

class DB {
 public:
  // Opens (or creates) the database in directory `path` (ignored with in_memory).
  static StatusOr<std::unique_ptr<DB>> Open(const Options& options, std::string_view path);

  DB() = default;
  DB(const DB&) = delete;
  DB& operator=(const DB&) = delete;
  virtual ~DB() = default;

  // Tables. Errors: ValidationException (bad definitions), ResourceInUseException
  // (CreateTable of an existing name), ResourceNotFoundException (unknown table),
  // LimitExceededException.
  virtual StatusOr<CreateTableResponse> CreateTable(const CreateTableRequest& req) = 0;
  virtual StatusOr<DescribeTableResponse> DescribeTable(const DescribeTableRequest& req) = 0;
  virtual StatusOr<DeleteTableResponse> DeleteTable(const DeleteTableRequest& req) = 0;
  virtual StatusOr<ListTablesResponse> ListTables(const ListTablesRequest& req) = 0;
  virtual StatusOr<UpdateTableResponse> UpdateTable(const UpdateTableRequest& req) = 0;
  // A table's description without its statistics (ItemCount, sizes): its key
  // schema, attribute definitions and indexes, cheaply, for planners (PartiQL).
  // By default DescribeTable's.
  virtual StatusOr<TableDescription> DescribeKeys(const std::string& table) {
    DescribeTableRequest req;
    req.table_name = table;
    DR_ASSIGN_OR_RETURN(DescribeTableResponse r, DescribeTable(req));
    return std::move(r.table);
  }
  // A number that changes whenever a table is created, changed or deleted,
  // never the same for two DBs of a process: planners keep what they learnt
  // of a schema under it (PartiQL's statement cache). 0: not tracked.
  virtual uint64_t CatalogVersion() const { return 0; }

  // What RocksDB holds in memory now: the block cache's contents (with
  // Options::memory_budget_bytes, the memtables' charge too) and the
  // memtables, in bytes. Zeros when not known.
  struct MemoryUse {
    size_t block_cache_bytes = 0;
    size_t block_cache_capacity = 0;
    size_t memtable_bytes = 0;
  };
  virtual MemoryUse MemoryInUse() const { return {}; }

  // Single items. Errors: ValidationException, ResourceNotFoundException,
  // ConditionalCheckFailedException (carrying the old item with
  // ReturnValuesOnConditionCheckFailure=ALL_OLD), TransactionConflictException.
  virtual StatusOr<PutItemResponse> PutItem(const PutItemRequest& req) = 0;
  // The same, allowed to take the request's item rather than copy it: the
  // engine's DB leaves req.item empty (or as it was, when the table name or
  // the request's parameters are refused before the item is taken); this
  // default, for other implementations, copies it and leaves it as it was.
  virtual StatusOr<PutItemResponse> PutItem(PutItemRequest&& req) {
    return PutItem(static_cast<const PutItemRequest&>(req));
  }
  virtual StatusOr<GetItemResponse> GetItem(const GetItemRequest& req) = 0;
  virtual StatusOr<DeleteItemResponse> DeleteItem(const DeleteItemRequest& req) = 0;
  virtual StatusOr<UpdateItemResponse> UpdateItem(const UpdateItemRequest& req) = 0;

  // Reads of many items. Pages stop at Limit items evaluated or 1 MB read.
  virtual StatusOr<QueryResponse> Query(const QueryRequest& req) = 0;
  virtual StatusOr<ScanResponse> Scan(const ScanRequest& req) = 0;

  virtual StatusOr<BatchGetItemResponse> BatchGetItem(const BatchGetItemRequest& req) = 0;
  virtual StatusOr<BatchWriteItemResponse> BatchWriteItem(const BatchWriteItemRequest& req) = 0;
  virtual StatusOr<TransactGetItemsResponse> TransactGetItems(
      const TransactGetItemsRequest& req) = 0;
  virtual StatusOr<TransactWriteItemsResponse> TransactWriteItems(
      const TransactWriteItemsRequest& req) = 0;

  // Time to live. With it enabled, items whose TTL attribute (a number of
  // seconds since the epoch) lies in the past, by at most five years, are deleted
  // in the background, through the normal write path (their indexes follow), as
  // DynamoDB does. Errors: ValidationException ("TimeToLive is already enabled",
  // ...), ResourceNotFoundException.
  virtual StatusOr<UpdateTimeToLiveResponse> UpdateTimeToLive(const UpdateTimeToLiveRequest& req) = 0;
  virtual StatusOr<DescribeTimeToLiveResponse> DescribeTimeToLive(
      const DescribeTimeToLiveRequest& req) = 0;

  // Point-in-time recovery. While it is enabled every change to the table's
  // items is kept, with its old image, for RecoveryPeriodInDays (1..35), and
  // RestoreTableToPointInTime gives a new table with the items as they were
  // at any second of that window (dynarock/backups.h). Errors:
  // ValidationException, TableNotFoundException.
  virtual StatusOr<DescribeContinuousBackupsResponse> DescribeContinuousBackups(
      const DescribeContinuousBackupsRequest& req) = 0;
  virtual StatusOr<UpdateContinuousBackupsResponse> UpdateContinuousBackups(
      const UpdateContinuousBackupsRequest& req) = 0;

  // On-demand backups (dynarock/backups.h): a consistent copy of one table's
  // items and settings, independent of later writes and of the table's
  // deletion, kept in the data directory. Errors: ValidationException,
  // TableNotFoundException, BackupNotFoundException, BackupInUseException,
  // TableAlreadyExistsException, InvalidRestoreTimeException,
  // PointInTimeRecoveryUnavailableException.
  virtual StatusOr<CreateBackupResponse> CreateBackup(const CreateBackupRequest& req) = 0;
  virtual StatusOr<DescribeBackupResponse> DescribeBackup(const DescribeBackupRequest& req) = 0;
  virtual StatusOr<DeleteBackupResponse> DeleteBackup(const DeleteBackupRequest& req) = 0;
  virtual StatusOr<ListBackupsResponse> ListBackups(const ListBackupsRequest& req) = 0;
  // The new table is CREATING, its items invisible, until the restore is
  // whole; a restore cut short (a crash) is restarted at the next open.
  virtual StatusOr<RestoreTableFromBackupResponse> RestoreTableFromBackup(
      const RestoreTableFromBackupRequest& req) = 0;
  virtual StatusOr<RestoreTableToPointInTimeResponse> RestoreTableToPointInTime(
      const RestoreTableToPointInTimeRequest& req) = 0;

  // Not DynamoDB operations: what exports and imports are built on.
  //
  // Calls `visit` with every item of `table` (a name or ARN) as it was at
  // `time` (nullopt: now, one snapshot), each in the item codec's encoding;
  // a time in the past needs point-in-time recovery enabled then
  // (PointInTimeRecoveryUnavailableException, InvalidRestoreTimeException).
  // An error from `visit` stops the walk and is returned.
  virtual Status ReadTableAt(std::string_view table, std::optional<double> time,
                             const std::function<Status(std::string_view item)>& visit) = 0;
  // Calls `visit` with the net change of every item written in (from, to],
  // in key order; needs PITR enabled over that span.
  virtual Status ReadTableChanges(std::string_view table, double from, double to,
                                  const std::function<Status(const TableChange&)>& visit) = 0;
  // Creates table `req` and calls `fill` to add its items; the table is
  // CREATING and its items unreadable until `fill` returns OK, then ACTIVE
  // with its indexes built. When `fill` fails the table is deleted and its
  // error returned; a load cut short by a crash is deleted at the next open.
  // TableAlreadyExistsException when the name is taken.
  virtual StatusOr<TableDescription> LoadTable(const CreateTableRequest& req,
                                               const std::function<Status(TableLoader&)>& fill) = 0;

  // Tags of a table, named by its ARN; kept in the catalog. Errors:
  // ValidationException (a malformed ARN, tag rules, more than 50 tags),
  // ResourceNotFoundException.
  virtual StatusOr<TagResourceResponse> TagResource(const TagResourceRequest& req) = 0;
  virtual StatusOr<UntagResourceResponse> UntagResource(const UntagResourceRequest& req) = 0;
  virtual StatusOr<ListTagsOfResourceResponse> ListTagsOfResource(
      const ListTagsOfResourceRequest& req) = 0;

  // Resource-based policies of a table or its stream (PolicyNotFoundException
  // for none, or another revision than the one expected).
  virtual StatusOr<PutResourcePolicyResponse> PutResourcePolicy(const PutResourcePolicyRequest& req) = 0;
  virtual StatusOr<GetResourcePolicyResponse> GetResourcePolicy(const GetResourcePolicyRequest& req) = 0;
  virtual StatusOr<DeleteResourcePolicyResponse> DeleteResourcePolicy(
      const DeleteResourcePolicyRequest& req) = 0;

  // Contributor Insights: whether DynamoDB's rules (most accessed and most
  // throttled keys) are on for a table or GSI, and their names. An endpoint
  // (api::Handler) counts the keys of the requests it serves while they are.
  virtual StatusOr<DescribeContributorInsightsResponse> DescribeContributorInsights(
      const DescribeContributorInsightsRequest& req) = 0;
  virtual StatusOr<ListContributorInsightsResponse> ListContributorInsights(
      const ListContributorInsightsRequest& req) = 0;
  virtual StatusOr<UpdateContributorInsightsResponse> UpdateContributorInsights(
      const UpdateContributorInsightsRequest& req) = 0;

  // Kinesis streaming destinations: while one is ACTIVE every change to the
  // table's items is kept, in order, for DeliverKinesisRecords
  // (engine/kinesis_destinations.cc; api::KinesisSink writes them out).
  virtual StatusOr<KinesisStreamingDestinationResponse> EnableKinesisStreamingDestination(
      const KinesisStreamingDestinationRequest& req) = 0;
  virtual StatusOr<KinesisStreamingDestinationResponse> DisableKinesisStreamingDestination(
      const KinesisStreamingDestinationRequest& req) = 0;
  virtual StatusOr<KinesisStreamingDestinationResponse> UpdateKinesisStreamingDestination(
      const KinesisStreamingDestinationRequest& req) = 0;
  virtual StatusOr<DescribeKinesisStreamingDestinationResponse> DescribeKinesisStreamingDestination(
      const DescribeKinesisStreamingDestinationRequest& req) = 0;

  // Not a DynamoDB operation: the global table this table is a replica of,
  // as DescribeTable reports it (Replicas with their settings,
  // GlobalTableWitnesses, GlobalTableVersion 2019.11.21,
  // MultiRegionConsistency STRONG or EVENTUAL); no replicas: a table of its
  // own again. `dynarock serve`, which holds every region's tables, keeps it
  // (tools/server/global_tables.h).
  virtual Status SetGlobalTable(std::string_view table, const GlobalTableMembers& members) = 0;
  // One pass over the Kinesis destinations' records not yet delivered: each
  // batch (of one destination, in order) goes to `deliver`, and once it
  // returns OK the batch counts as delivered (a checkpoint in the database);
  // on an error that batch is offered again next time. Sets *delivered to the
  // number of records handed over. Records wait at most 24 hours.
  struct KinesisRecords {
    std::string stream_arn;  // the destination
    std::string table_name;
    bool microseconds = false;  // its ApproximateCreationDateTimePrecision
    std::vector<StreamRecord> records;
  };
  virtual Status DeliverKinesisRecords(const std::function<Status(const KinesisRecords&)>& deliver,
                                       int64_t* delivered) = 0;

  // DynamoDB Streams (dynarock/streams.h). Errors: ValidationException,
  // ResourceNotFoundException (unknown stream or shard),
  // ExpiredIteratorException (an iterator older than 15 minutes),
  // TrimmedDataAccessException (records past their retention).
  virtual StatusOr<ListStreamsResponse> ListStreams(const ListStreamsRequest& req) = 0;
  virtual StatusOr<DescribeStreamResponse> DescribeStream(const DescribeStreamRequest& req) = 0;
  virtual StatusOr<GetShardIteratorResponse> GetShardIterator(
      const GetShardIteratorRequest& req) = 0;
  virtual StatusOr<GetRecordsResponse> GetRecords(const GetRecordsRequest& req) = 0;

  // Not a DynamoDB operation: delivers the records of `table`'s stream to
  // `handler`, in order, on a thread of the subscription's own, from where
  // `options` says; it follows the table's stream across shards, and to the
  // next stream when the stream is disabled and enabled again. Errors:
  // ResourceNotFoundException, ValidationException (no stream enabled, a
  // malformed sequence number), TrimmedDataAccessException (resuming from a
  // record past its retention).
  virtual StatusOr<std::unique_ptr<Subscription>> Subscribe(std::string_view table,
                                                            const SubscribeOptions& options,
                                                            StreamHandler handler) = 0;

  // Not DynamoDB operations: a small durable store of named positions for
  // consumers of the change log (`dynarock replicate` keeps its checkpoint
  // here). A value is written in one atomic commit.
  virtual Status SaveCheckpoint(std::string_view name, std::string_view value) = 0;
  virtual StatusOr<std::optional<std::string>> LoadCheckpoint(std::string_view name) = 0;
  // Deletes every checkpoint whose name starts with `prefix` (not empty), in
  // one commit; how many.
  virtual StatusOr<size_t> DeleteCheckpoints(std::string_view prefix) = 0;

  // Not DynamoDB operations: the test double's controls. Reset deletes every
  // table (items, indexes, streams, history), backup and checkpoint, as if
  // the database were new. SaveSnapshot keeps the whole database under
  // `name` (1 to 255 of [A-Za-z0-9_.-]; the same name again replaces it), in
  // this process's memory; RestoreSnapshot puts it back as it was (tables,
  // items, indexes, streams, settings), in milliseconds for thousands of
  // items. Both wait for writes in progress and hold new ones back while
  // they run. Errors: ValidationException (a bad name),
  // ResourceNotFoundException (no such snapshot).
  struct SnapshotInfo {
    std::string name;
    double created = 0;  // seconds since the epoch
    int64_t tables = 0;
    int64_t items = 0;
    int64_t bytes = 0;  // of the stored entries
  };
  virtual Status Reset() = 0;
  virtual Status SaveSnapshot(std::string_view name) = 0;
  virtual Status RestoreSnapshot(std::string_view name) = 0;
  virtual StatusOr<std::vector<SnapshotInfo>> ListSnapshots() = 0;
  virtual Status DeleteSnapshot(std::string_view name) = 0;

  // Not a DynamoDB operation: verifies, on one snapshot, that every secondary
  // index holds exactly the entries its table's items imply (keys and projected
  // values) and that the item counts and sizes DescribeTable reports match the
  // data. Indexes still being backfilled are skipped. Errors only for storage
  // failures; inconsistencies are listed in the report.
  virtual StatusOr<ConsistencyReport> CheckConsistency() = 0;

  // Not a DynamoDB operation: reads every block of every table file and
  // verifies its checksum (`dynarock check`). A file that fails is listed in
  // the report, not returned as an error. Ordinary reads verify the blocks
  // they read too (a corrupt block is never returned as data:
  // InternalServerError instead); this finds corruption nothing has read yet.
  // The write-ahead log is not covered: its records are checked when it is
  // replayed at open. By default an empty report.
  virtual StatusOr<ChecksumReport> VerifyChecksums() { return ChecksumReport{}; }
};

}  // namespace dynarock

#endif  // DYNAROCK_DB_H_
