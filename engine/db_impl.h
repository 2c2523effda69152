// File: engine/db_impl.h
//
// DBImpl: the DB interface over one RocksDB database.
//
// Column families:
//   default  the catalog: "t/<table name>" -> TableInfo as an Item (item codec),
//            "s/<table id fixed32>" -> item count and byte total (merge operator),
//            "m/next_id" -> the next table/index id,
//            "k/<token>" -> a succeeded transaction's ClientRequestToken record
//            (request fingerprint and completion time; engine/transact_ops.cc).
//   items    key_codec item keys -> item_codec items (the whole item).
//   indexes  secondary-index entries (index/).
//
// Concurrency: every write to an item holds that item's lock stripe while it reads
// the old item, checks its condition and commits one WriteBatch (item, index
// entries, statistics), so conditional writes are atomic per item. Multi-item
// operations take their stripes in ascending order, so they cannot deadlock.
// Reads take no locks: a WriteBatch is applied atomically.

#ifndef DYNAROCK_ENGINE_DB_IMPL_H_
#define DYNAROCK_ENGINE_DB_IMPL_H_

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <set>
#include <thread>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include "dynarock/db.h"
#include "engine/capacity.h"
#include "engine/change_log.h"
#include "engine/expr/expression.h"
#include "engine/consistency.h"
#include "engine/group_commit.h"
#include "engine/table_info.h"

#include <rocksdb/slice.h>

namespace rocksdb {
class Cache;
class Iterator;
class DB;
class ColumnFamilyHandle;
class Env;
class FileSystem;
class Snapshot;
class Status;
struct ReadOptions;
class WriteBatch;
}  // namespace rocksdb

namespace dynarock {

// An iterator over a column family in key order, across partitions. The items
// and indexes families have a prefix extractor (a key's table and partition
// hash, engine/db_open.cc); an iterator over them made without
// ReadOptions::total_order_seek runs in prefix mode, where a Seek skips the
// table files whose prefix filter lacks the sought key's partition and what
// follows that partition is missing or out of order. So every iterator over
// them is made here, except Query's within one partition (DBImpl::RunRead,
// engine/query_scan.cc), which uses prefix mode on purpose.
std::unique_ptr<rocksdb::Iterator> NewKeyOrderIterator(rocksdb::DB* db,
                                                       const rocksdb::ReadOptions& options,
                                                       rocksdb::ColumnFamilyHandle* cf);
namespace internal {
class DeferredSyncFileSystem;  // engine/fresh_directory.h
}  // namespace internal

// A random UUID (version 4), as DynamoDB's TableId.
std::string NewUuid();

// Where table `info`'s point-in-time recovery window starts now.
double PitrWindowStart(const TableInfo& info, double now);

// The wall clock in seconds since the Unix epoch, to the millisecond: creation
// times, TTL, PITR, stream labels and idempotency records all read this one.
double NowEpochSeconds();

// ClientRequestTokens of TransactWriteItems, per database (transact_ops.cc). A
// token is claimed when its request starts; it is remembered for ten minutes
// after the request succeeds, and forgotten at once when it fails. A succeeded
// token is also stored in the catalog ("k/<token>", written in the
// transaction's own commit) so that a retry after a restart is still a retry.
class IdempotencyCache {
 public:
  enum class Claim { kRun, kAlreadyDone, kRefuse };
  // Deletes the catalog records of expired tokens.
  using DropRecords = std::function<void(const std::vector<std::string>& tokens)>;
  // Claims `token`. Tokens past their ten minutes are forgotten first, once
  // `drop` has deleted their records, under the cache's lock: a token reused at
  // that moment cannot have its new record deleted. kRefuse sets *error:
  // IdempotentParameterMismatch (other parameters) or TransactionInProgress (the
  // first request is still running).
  Claim Begin(const std::string& token, uint64_t fingerprint, const DropRecords& drop,
              Status* error);
  void Finish(const std::string& token, bool succeeded);
  // Tokens completed before the database was last opened, each with the part
  // of its ten minutes that is left.
  struct Completed {
    std::string token;
    uint64_t fingerprint = 0;
    std::chrono::steady_clock::duration remaining{};
  };
  void Load(std::vector<Completed> tokens);
  // Forgets every token (a snapshot restored; Load follows).
  void Clear();

 private:
  struct Entry {
    uint64_t fingerprint = 0;
    bool done = false;
  };
  std::mutex mu_;
  std::map<std::string, Entry> entries_;  // GUARDED_BY(mu_)
  // (expiry time, token) in expiry order, so expiring is amortised O(1).
  std::deque<std::pair<std::chrono::steady_clock::time_point, std::string>> expiry_;
};

struct SubscriptionRegistry;  // stream_ops.cc: the running subscriptions

class DBImpl final : public DB {
 public:
  struct BackupRecord;  // a backup's catalog record (backups.cc)
  // `env`: every RocksDB file through it (engine/storage_env.h); null: the
  // disk's (or, in memory, a memory Env).
  // `recreating`: a creation cut short was just set aside (fresh_directory.h);
  // not to be set aside twice. `creation_base`: the FileSystem a new
  // directory is created through (null: the disk's; tests count its syncs).
  static StatusOr<std::unique_ptr<DB>> OpenImpl(
      const Options& options, std::string_view path, std::shared_ptr<rocksdb::Env> env = nullptr,
      bool recreating = false, std::shared_ptr<rocksdb::FileSystem> creation_base = nullptr);
  // Every column family compacted to its last level (engine/storage_env.h).
  Status CompactAll(uint64_t* items_bytes);
  // Returns once a new directory's creation is durable (at once for any
  // other database); its error, if making it durable failed.
  Status WaitForCreation();
  ~DBImpl() override;

  StatusOr<CreateTableResponse> CreateTable(const CreateTableRequest& req) override;
  StatusOr<DescribeTableResponse> DescribeTable(const DescribeTableRequest& req) override;
  StatusOr<TableDescription> DescribeKeys(const std::string& table) override;
  uint64_t CatalogVersion() const override {
    return catalog_version_.load(std::memory_order_acquire);
  }
  MemoryUse MemoryInUse() const override;
  StatusOr<DeleteTableResponse> DeleteTable(const DeleteTableRequest& req) override;
  StatusOr<ListTablesResponse> ListTables(const ListTablesRequest& req) override;
  StatusOr<UpdateTableResponse> UpdateTable(const UpdateTableRequest& req) override;

  StatusOr<PutItemResponse> PutItem(const PutItemRequest& req) override;
  StatusOr<PutItemResponse> PutItem(PutItemRequest&& req) override;
  StatusOr<GetItemResponse> GetItem(const GetItemRequest& req) override;
  StatusOr<DeleteItemResponse> DeleteItem(const DeleteItemRequest& req) override;
  StatusOr<UpdateItemResponse> UpdateItem(const UpdateItemRequest& req) override;

  StatusOr<QueryResponse> Query(const QueryRequest& req) override;
  StatusOr<ScanResponse> Scan(const ScanRequest& req) override;

  StatusOr<BatchGetItemResponse> BatchGetItem(const BatchGetItemRequest& req) override;
  StatusOr<BatchWriteItemResponse> BatchWriteItem(const BatchWriteItemRequest& req) override;
  StatusOr<TransactGetItemsResponse> TransactGetItems(const TransactGetItemsRequest& req) override;
  StatusOr<TransactWriteItemsResponse> TransactWriteItems(
      const TransactWriteItemsRequest& req) override;

  StatusOr<UpdateTimeToLiveResponse> UpdateTimeToLive(const UpdateTimeToLiveRequest& req) override;
  StatusOr<DescribeTimeToLiveResponse> DescribeTimeToLive(
      const DescribeTimeToLiveRequest& req) override;
  StatusOr<DescribeContinuousBackupsResponse> DescribeContinuousBackups(
      const DescribeContinuousBackupsRequest& req) override;
  StatusOr<UpdateContinuousBackupsResponse> UpdateContinuousBackups(
      const UpdateContinuousBackupsRequest& req) override;
  StatusOr<CreateBackupResponse> CreateBackup(const CreateBackupRequest& req) override;
  StatusOr<DescribeBackupResponse> DescribeBackup(const DescribeBackupRequest& req) override;
  StatusOr<DeleteBackupResponse> DeleteBackup(const DeleteBackupRequest& req) override;
  StatusOr<ListBackupsResponse> ListBackups(const ListBackupsRequest& req) override;
  StatusOr<RestoreTableFromBackupResponse> RestoreTableFromBackup(
      const RestoreTableFromBackupRequest& req) override;
  StatusOr<RestoreTableToPointInTimeResponse> RestoreTableToPointInTime(
      const RestoreTableToPointInTimeRequest& req) override;
  Status ReadTableAt(std::string_view table, std::optional<double> time,
                     const std::function<Status(std::string_view item)>& visit) override;
  Status ReadTableChanges(std::string_view table, double from, double to,
                          const std::function<Status(const TableChange&)>& visit) override;
  StatusOr<TableDescription> LoadTable(const CreateTableRequest& req,
                                       const std::function<Status(TableLoader&)>& fill) override;

  Status Reset() override;
  Status SaveSnapshot(std::string_view name) override;
  Status RestoreSnapshot(std::string_view name) override;
  StatusOr<std::vector<SnapshotInfo>> ListSnapshots() override;
  Status DeleteSnapshot(std::string_view name) override;

  StatusOr<TagResourceResponse> TagResource(const TagResourceRequest& req) override;
  StatusOr<UntagResourceResponse> UntagResource(const UntagResourceRequest& req) override;
  StatusOr<ListTagsOfResourceResponse> ListTagsOfResource(
      const ListTagsOfResourceRequest& req) override;
  StatusOr<PutResourcePolicyResponse> PutResourcePolicy(const PutResourcePolicyRequest& req) override;
  StatusOr<GetResourcePolicyResponse> GetResourcePolicy(const GetResourcePolicyRequest& req) override;
  StatusOr<DeleteResourcePolicyResponse> DeleteResourcePolicy(
      const DeleteResourcePolicyRequest& req) override;
  StatusOr<DescribeContributorInsightsResponse> DescribeContributorInsights(
      const DescribeContributorInsightsRequest& req) override;
  StatusOr<KinesisStreamingDestinationResponse> EnableKinesisStreamingDestination(
      const KinesisStreamingDestinationRequest& req) override;
  StatusOr<KinesisStreamingDestinationResponse> DisableKinesisStreamingDestination(
      const KinesisStreamingDestinationRequest& req) override;
  StatusOr<KinesisStreamingDestinationResponse> UpdateKinesisStreamingDestination(
      const KinesisStreamingDestinationRequest& req) override;
  Status SetGlobalTable(std::string_view table, const GlobalTableMembers& members) override;
  StatusOr<DescribeKinesisStreamingDestinationResponse> DescribeKinesisStreamingDestination(
      const DescribeKinesisStreamingDestinationRequest& req) override;
  Status DeliverKinesisRecords(const std::function<Status(const KinesisRecords&)>& deliver,
                               int64_t* delivered) override;
  StatusOr<ListContributorInsightsResponse> ListContributorInsights(
      const ListContributorInsightsRequest& req) override;
  StatusOr<UpdateContributorInsightsResponse> UpdateContributorInsights(
      const UpdateContributorInsightsRequest& req) override;

  StatusOr<ListStreamsResponse> ListStreams(const ListStreamsRequest& req) override;
  StatusOr<DescribeStreamResponse> DescribeStream(const DescribeStreamRequest& req) override;
  StatusOr<GetShardIteratorResponse> GetShardIterator(const GetShardIteratorRequest& req) override;
  StatusOr<GetRecordsResponse> GetRecords(const GetRecordsRequest& req) override;
  StatusOr<std::unique_ptr<Subscription>> Subscribe(std::string_view table,
                                                    const SubscribeOptions& options,
                                                    StreamHandler handler) override;
  Status SaveCheckpoint(std::string_view name, std::string_view value) override;
  StatusOr<std::optional<std::string>> LoadCheckpoint(std::string_view name) override;
  StatusOr<size_t> DeleteCheckpoints(std::string_view prefix) override;

  StatusOr<ConsistencyReport> CheckConsistency() override;
  StatusOr<ChecksumReport> VerifyChecksums() override;

  // Deletes stream records past their retention now (a background thread
  // does it periodically). Returns how many.
  int64_t TrimStreams() { return change_log_->Trim(); }

  // Deletes the items whose time to live has passed, now (the background
  // sweeper calls it every Options::ttl_sweep_seconds). Returns how many.
  int64_t SweepExpiredItems();

 private:
  DBImpl() = default;

  // ---- catalog (db_impl.cc)
  // Reads the tables and the id counter from the catalog (at open, and after
  // a snapshot is restored). PRE: catalog_mu_ held exclusively, or at open.
  Status LoadCatalog();
  // By name, or by an ARN of this database's region and account (ResourceNotFound otherwise).
  // Tables still being restored or loaded are not found (ResourceNotFound).
  StatusOr<TableInfoPtr> FindTable(std::string_view name_or_arn) const;
  // Those too (DescribeTable).
  StatusOr<TableInfoPtr> FindAnyTable(std::string_view name_or_arn) const;
  Status PersistTable(const TableInfo& info, rocksdb::WriteBatch* batch);
  // Adds the deletion of the table's items, index entries, statistics and
  // history (and catalog entry and stream, unless `keep_catalog_entry`).
  void StageDropTable(const TableInfo& info, rocksdb::WriteBatch* batch,
                      bool keep_catalog_entry = false);
  uint32_t AllocateId(rocksdb::WriteBatch* batch);  // PRE: catalog_mu_ held exclusively
  // A new table's admission (PRE: catalog_mu_ held exclusively): `exists`
  // when the name is taken, LimitExceeded past the account's tables, else
  // ids for the table and its indexes.
  Status AdmitNewTable(TableInfo* info, rocksdb::WriteBatch* batch, Status exists);
  // The items of one table, in key order, on a snapshot (null: now),
  // positioned at the first: `for (TableScan s(...); s.Valid(); s.Next())`.
  class TableScan {
   public:
    TableScan(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf, uint32_t table_id,
              const rocksdb::Snapshot* snapshot);
    ~TableScan();
    rocksdb::Iterator* operator->() const { return it_.get(); }
    size_t prefix_size() const { return lower_.size(); }

   private:
    std::string lower_, upper_;
    rocksdb::Slice upper_slice_;
    std::unique_ptr<rocksdb::Iterator> it_;
  };
  TableDescription Describe(const TableInfo& info, std::string_view status) const;
  void ReadStats(uint32_t table_id, int64_t* count, int64_t* bytes) const;

  // The catalog's current version of `table` (same id), or null once dropped.
  TableInfoPtr CurrentTable(const TableInfo& table) const;

  // ---- online index creation (index_backfill.cc)
  // Starts a thread that fills index `index_id` of table `table_name` from the
  // table's items, then marks it ACTIVE. Writes made meanwhile maintain the
  // index themselves (every write path reads the current catalog under the
  // item's lock: CurrentTable in StageItemWrite, ModifyItem, BatchWriteItem),
  // so nothing is missed.
  void StartBackfill(const std::string& table_name, uint32_t index_id);
  void Backfill(const std::string& table_name, uint32_t index_id);

  // ---- time to live and tags (table_metadata.cc)
  void StartTtlSweeper();
  void TtlLoop();
  // Applies `change` to a copy of table `name`'s catalog entry and, when it
  // succeeds, persists and publishes it (the new entry in *updated if given).
  // `not_found` is returned when there is no such table.
  Status AlterTable(std::string_view name, Status not_found,
                    const std::function<Status(TableInfo*)>& change,
                    TableInfoPtr* updated = nullptr);
  // The same, `change` adding writes of its own to the catalog entry's batch.
  Status AlterTable(std::string_view name, Status not_found,
                    const std::function<Status(TableInfo*, rocksdb::WriteBatch*)>& change,
                    TableInfoPtr* updated = nullptr);
  // The table a tagging request's ARN names, or DynamoDB's refusal (table_metadata.cc).
  // The table a ResourceArn names; with `stream_label`, a stream ARN is taken
  // too (its label there; empty for a table's ARN).
  StatusOr<std::string> TableOfArn(std::string_view arn, std::string_view operation,
                                   std::string* stream_label = nullptr) const;

  // ---- items (item_ops.cc)
  // The item's key, validated against the table's key schema. `for_put` selects
  // PutItem's messages ("Missing the key pk in the item") over the key-only ones
  // ("The provided key element does not match the schema").
  StatusOr<std::string> ItemKey(const TableInfo& table, const Item& item, bool for_put) const;
  // Reads the item stored under `key` (nullopt when there is none).
  // A stored item as a read returns it (GetItem, BatchGetItem): its DynamoDB
  // size, and the item, projected (decoding only what the projection keeps),
  // as an Item or, with `encoded`, as stored bytes.
  struct ReadResult {
    size_t size = 0;
    std::optional<Item> item;
    std::optional<std::string> encoded;
    bool found() const { return item.has_value() || encoded.has_value(); }
  };
  StatusOr<ReadResult> ReadForResponse(const std::string& key, const rocksdb::Snapshot* snapshot,
                                       const std::optional<expr::ProjectionSpec>& projection,
                                       bool encoded) const;
  // The response's form of a stored item: its size, and the item (projected
  // when asked) or, with `encoded`, its bytes.
  static Status ShapeForResponse(std::string_view stored,
                                 const std::optional<expr::ProjectionSpec>& projection,
                                 bool encoded, ReadResult* r);
  StatusOr<std::optional<Item>> ReadItem(const std::string& key,
                                         const rocksdb::Snapshot* snapshot = nullptr) const;
  // Adds the item's new state (nullopt = deleted) to `batch`, with its statistics
  // and index entries.
  // Adds the write's units (table and indexes) to `cost` when given.
  // The write's change record (tables with a stream) is staged with it.
  Status StageItemWrite(const TableInfo& table, const std::string& key,
                        const std::optional<Item>& old_item, const std::optional<Item>& new_item,
                        WriteSet* writes, CapacityCounter* cost = nullptr,
                        ChangeOrigin origin = ChangeOrigin::kUser);
  // The old version a write read, as it needs it: its size (for the
  // statistics and the units) and, with `decode`, the item, in one walk of
  // `stored`. InternalError "Corrupt item record" when the bytes are not one.
  static Status ReadOldVersion(std::string_view stored, bool decode, size_t* size,
                               std::optional<Item>* item);
  // The same on the catalog's current `info`, the old item known by its
  // existence and size (decoded in `old_item` when WriteNeedsOldItem(info)),
  // the new one (null: deleted) with its size, ItemSize(*new_item).
  Status StageWrite(const TableInfo& info, const std::string& key, bool old_exists,
                    size_t old_size, const Item* old_item, const Item* new_item,
                    size_t new_size, WriteSet* writes, CapacityCounter* cost,
                    ChangeOrigin origin);
  // Whether a write to the table reads the old item: for its index entries or
  // its stream record.
  bool WriteNeedsOldItem(const TableInfo& info) const;
  Status Commit(rocksdb::WriteBatch* batch);
  // ---- storage errors (db_impl.cc; docs/durability.md)
  // An I/O error (EIO, ENOSPC, ...) on a write, a flush, a compaction or the
  // MANIFEST makes RocksDB stop writes (its "background error"): every write
  // then fails with InternalServerError, reads go on. The first failure of
  // an episode is logged on stderr, from the failed write (NoteWriteError) or
  // from RocksDB's report (StorageListener::OnBackgroundError), whichever
  // comes first. RocksDB 7.8 recovers from ENOSPC itself (its default
  // SstFileManager looks for free space every 5 s); otherwise, while writes
  // fail, a write first tries DB::Resume() (at most once every
  // kResumeInterval, one thread at a time), which works for errors RocksDB
  // deems recoverable. Either recovery is logged. Errors RocksDB deems fatal
  // (EIO on the write-ahead log, a flush or the MANIFEST) cannot be resumed:
  // writes fail until the database is reopened, which the log says.
  class StorageListener;
  void NoteWriteError(const rocksdb::Status& s);
  void ReportStorageError(const char* where, const rocksdb::Status& s);
  void ReportStorageRecovered(const char* how);
  void TryResume(bool force = false);
  static constexpr std::chrono::milliseconds kResumeInterval{1000};
  std::atomic<bool> write_failing_{false};  // an episode is on: set, logged, cleared once each
  std::mutex resume_mu_;
  std::chrono::steady_clock::time_point next_resume_{};  // GUARDED_BY(resume_mu_)
  std::atomic<bool> resume_failure_logged_{false};       // written under resume_mu_
  // Commits item writes with their change records (sequence numbers are
  // taken here, under the items' locks).
  // The write set's statistics deltas into its batch (one Merge a table).
  Status StageStats(WriteSet* writes);
  Status Commit(WriteSet* writes);

  // Lock stripes (ascending order for several keys).
  static constexpr size_t kLockStripes = 4096;
  // Takes and releases every lock stripe once: returns when every item write
  // that read the catalog before the call has committed.
  void WaitForWritesInProgress();
  size_t StripeOf(const std::string& key) const;
  std::mutex& Stripe(size_t i) { return locks_[i]; }

  // Item keys held by in-flight transactions. A single-item write that meets one
  // fails with TransactionConflictException, and a transaction that meets one is
  // cancelled with reason TransactionConflict, as in DynamoDB; a write that only
  // shares a lock stripe with a transaction waits instead.
  bool HeldByTransaction(const std::string& key) const;
  // Locks `key`'s stripe for a single-item write, or returns TransactionConflict.
  StatusOr<std::unique_lock<std::mutex>> LockForWrite(const std::string& key);

  // PutItem's work; `take`: the request's item, moved from (else read where it
  // is, and copied only when its numbers need their normal form).
  StatusOr<PutItemResponse> PutItemImpl(const PutItemRequest& req, Item* take);
  // Read-modify-write of one item under its lock. `compute` gets the old item and
  // returns the new one with its size (a null item: delete), which its caller
  // keeps alive until ModifyItem returns, or an error, which aborts the write.
  struct NewVersion {
    const Item* item = nullptr;
    size_t size = 0;  // ItemSize(*item)
  };
  using ComputeFn = std::function<StatusOr<NewVersion>(const std::optional<Item>& old)>;
  // A failed condition carries its billed write under `billed_as` (the table as
  // the request named it; the table's name when empty).
  // `compute_reads_old` false: `compute` ignores the old item, which is then
  // decoded only when the write needs it (indexes, a stream, `old_out`).
  Status ModifyItem(const TableInfo& table, const std::string& key, const ComputeFn& compute,
                    std::optional<Item>* old_out, CapacityCounter* cost = nullptr,
                    std::string_view billed_as = {},
                    ChangeOrigin origin = ChangeOrigin::kUser, bool compute_reads_old = true);

  // ItemCollectionMetrics of the item collection (partition) `item` belongs to,
  // for tables with local secondary indexes; nullopt otherwise or unless asked.
  std::optional<ItemCollectionMetrics> CollectionMetrics(const TableInfo& table, const Item& item,
                                                         bool asked) const;

  // ---- transactions (transact_ops.cc)
  // `token_record` (catalog key and value) is committed with the transaction.
  StatusOr<TransactWriteItemsResponse> RunTransactWriteItems(
      const TransactWriteItemsRequest& req,
      const std::pair<std::string, std::string>* token_record = nullptr);
  TransactWriteItemsResponse ReplayedTransaction(const TransactWriteItemsRequest& req);
  // Loads the tokens of transactions that completed less than ten minutes ago
  // and deletes the records of older ones (at open).
  Status LoadIdempotencyTokens();
  IdempotencyCache tokens_;

  // ---- query and scan (query_scan.cc)
  struct ReadPlan;
  StatusOr<QueryResponse> RunRead(const TableInfo& table, const ReadPlan& plan);
  StatusOr<std::string> StartKey(const TableInfo& table, const IndexInfo* index,
                                 const Item& exclusive_start_key) const;

  // ---- point-in-time history (table_history.cc)
  // PointInTimeRecoveryUnavailable, or `invalid` when `time` is outside the
  // table's restorable window.
  Status CheckRestorableTime(const TableInfo& table, double time, ErrorType invalid) const;
  // The history records of (after, ...] by item key: those after `to` as
  // each item's image at `to` (after_end), those in (after, to] as the
  // item's image at `after`, its keys and last write time (in_span).
  struct HistoryWalk {
    struct Change {
      std::string keys;
      std::optional<std::string> old_image;
      int64_t write_micros = 0;
    };
    std::map<std::string, std::optional<std::string>> after_end;
    std::map<std::string, Change> in_span;
  };
  Status CollectHistory(const TableInfo& table, double after, double to,
                        const rocksdb::Snapshot* snapshot, HistoryWalk* walk) const;

  // ---- backups, restores and loads (backups.cc)
  class Loader;
  // A new table, CREATING and hidden from item operations until FinishLoading.
  StatusOr<TableInfoPtr> CreateLoadingTable(const CreateTableRequest& req, TableInfo restore_fields,
                                            const std::string& kind);
  // `checkpoints` (DB::SaveCheckpoint's) are written by the same write.
  static Status CheckCheckpointName(std::string_view name);
  static std::string CheckpointKey(std::string_view name);  // in the catalog
  Status FinishLoading(const TableInfo& table,
                       const std::map<std::string, std::string, std::less<>>& checkpoints = {});
  // Deletes a table whose load failed or was cut short, data and all.
  void DropLoadingTable(const TableInfo& table);
  // Starts the background fill of restored table `table` (its restore_*
  // fields say from where).
  void StartRestore(TableInfoPtr table);
  Status RunRestore(const TableInfo& table);
  // After open: restores cut short start again; loads cut short go.
  void ResumeLoads();
  std::string BackupFile(std::string_view backup_id) const;
  std::string BackupArn(std::string_view table, std::string_view backup_id) const;
  StatusOr<BackupRecord> FindBackup(std::string_view arn) const;
  Status PersistBackup(const BackupRecord& b);
  void WriteBackup(std::string backup_id, TableInfoPtr table, const rocksdb::Snapshot* snapshot);
  std::mutex jobs_mu_;
  std::condition_variable jobs_cv_;
  std::vector<std::thread> jobs_;  // GUARDED_BY(jobs_mu_): backups and restores being written
  // GUARDED_BY(jobs_mu_): ids being written or read, once per job (two
  // restores of one backup hold it twice).
  std::multiset<std::string> backups_in_use_;
  std::string dir_;  // the data directory (in memory: the memory env's)

  // ---- reset and snapshots (snapshots.cc)
  struct SavedSnapshot;
  // Replaces every column family's contents with `saved` (empty: nothing)
  // and reloads what the process holds of them. PRE: Quiesce()d.
  Status ReplaceContents(const SavedSnapshot* saved);
  std::mutex snapshots_mu_;
  std::map<std::string, std::shared_ptr<const SavedSnapshot>, std::less<>> snapshots_;

  // ---- DynamoDB Streams (stream_ops.cc)
  // The stream a Streams API ARN names (ResourceNotFound otherwise).
  StatusOr<StreamInfo> FindStream(std::string_view arn) const;
  // Stops every running subscription (at close).
  void StopSubscriptions();
  std::mutex subscriptions_mu_;
  std::shared_ptr<SubscriptionRegistry> subscriptions_;  // GUARDED_BY(subscriptions_mu_)

  Options options_;
  std::unique_ptr<rocksdb::Env> mem_env_;
  std::shared_ptr<rocksdb::Env> env_;  // OpenWithEnv's; outlives db_
  // A new data directory's (engine/fresh_directory.h): its syncs wait until
  // the creation is over. Both outlive db_.
  std::shared_ptr<internal::DeferredSyncFileSystem> creation_fs_;
  std::unique_ptr<rocksdb::Env> creation_env_;
  // The new directory made durable (FinishCreation: its files and the
  // directory synced, the marker removed) in the background once the
  // database is handed out, so that a start does not wait for the disk.
  // A write that must survive power loss (sync_writes) waits for it first
  // (WaitForCreation), and so does the close.
  void FinishCreationInBackground();
  std::atomic<bool> creation_pending_{false};
  std::mutex creation_mu_;
  std::condition_variable creation_cv_;
  Status creation_status_;  // GUARDED_BY(creation_mu_): FinishCreation's
  rocksdb::DB* db_ = nullptr;
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
  std::shared_ptr<rocksdb::Cache> block_cache_;  // the tables' (MemoryInUse)
  rocksdb::ColumnFamilyHandle* catalog_cf_ = nullptr;
  rocksdb::ColumnFamilyHandle* items_cf_ = nullptr;
  rocksdb::ColumnFamilyHandle* indexes_cf_ = nullptr;
  rocksdb::ColumnFamilyHandle* streams_cf_ = nullptr;
  std::unique_ptr<ChangeLog> change_log_;
  // Options::gsi_lag_*: always there; queues only when the lag is on.
  std::unique_ptr<IndexLag> index_lag_;
  std::unique_ptr<StaleReads> stale_reads_;  // Options::stale_read_seconds
  std::string iterator_secret_;  // signs shard iterators; kept in the catalog
  bool sync_ = false;
  // Options::group_commit on a database with a log: RocksDB's log buffer,
  // flushed by the thread's GroupCommit or after each write (Commit).
  std::shared_ptr<internal::LogFlush> log_flush_;

  mutable std::shared_mutex catalog_mu_;
  // CatalogVersion(): a new process-wide number after each change to tables_.
  std::atomic<uint64_t> catalog_version_{0};
  void CatalogChanged();
  std::map<std::string, TableInfoPtr, std::less<>> tables_;  // GUARDED_BY(catalog_mu_)
  // Deleted tables still DELETING (Options::transient_status_seconds): their
  // last description, until when (the change log's clock).
  struct DeletingTable {
    TableDescription description;
    double until = 0;
  };
  mutable std::map<std::string, DeletingTable, std::less<>> deleting_;  // GUARDED_BY(catalog_mu_)
  // The description of `name` while it is DELETING, else null. PRE: catalog_mu_ held.
  const TableDescription* Deleting(std::string_view name) const;
  uint32_t next_id_ = 1;                                      // GUARDED_BY(catalog_mu_)

  std::array<std::mutex, kLockStripes> locks_;
  mutable std::mutex held_mu_;
  std::set<std::string> transaction_held_;  // GUARDED_BY(held_mu_)

  std::mutex backfill_mu_;
  std::vector<std::thread> backfills_;  // GUARDED_BY(backfill_mu_)
  std::atomic<bool> shutting_down_{false};

  std::mutex ttl_mu_;
  std::condition_variable ttl_cv_;
  std::thread ttl_thread_;  // GUARDED_BY(ttl_mu_); started with the first TTL table

  // ---- Kinesis streaming destinations' delivery (kinesis_destinations.cc)
  // Hands log `log`'s next records, from its checkpoint on, to `deliver`;
  // *done once a disabled log has all gone.
  Status DeliverKinesisLog(const StreamInfo& log,
                           const std::function<Status(const KinesisRecords&)>& deliver,
                           int64_t* delivered, bool* done);
  std::mutex kinesis_mu_;  // one delivery pass at a time
  std::set<uint32_t> kinesis_done_;  // GUARDED_BY(kinesis_mu_): logs delivered to their end
};

// Refuses a key attribute value DynamoDB does not store: an empty S or B, a
// partition key over 2048 bytes, a sort key over 1024 bytes.
Status CheckKeyValue(const std::string& name, const AttributeValue& v, bool is_hash);

// The attributes of `item` that form `key` (hash, and range when the key has one).
Item KeyAttributes(const KeyDef& key, const Item& item);

}  // namespace dynarock

#endif  // DYNAROCK_ENGINE_DB_IMPL_H_
