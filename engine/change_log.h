// File: engine/change_log.h
//
// The change log: one ordered record of every change to the items of a table
// with a stream, written in the same RocksDB write batch as the item and its
// index entries, so that a record exists exactly when its write is durable.
// DynamoDB Streams (stream_ops.cc), embedded subscriptions and `replicate` read
// it; see docs/architecture.md ("The change log").
//
// Streams. Enabling a table's stream creates a stream (a new id, label and
// ARN); disabling it, or deleting the table, closes it: it stays readable until
// its records age out, then it is deleted. A stream is a sequence of shards,
// one open at a time; the open shard is closed and succeeded by a child every
// Options::stream_shard_seconds (DynamoDB rolls shards about every four hours).
//
// Sequence numbers come from one counter per database, so they increase within
// a table, a stream and a shard. A number is taken when a write commits, under
// a mutex, and the write is "in flight" until its commit returns. Readers see
// records only up to the horizon (the number below the oldest one in flight),
// so a reader never passes over a record that commits after it looked.
// At open the counter starts above both the last record kept and the clock in
// microseconds, so numbers never repeat even after every record was trimmed.
//
// Storage (column family "streams" for records, the catalog for the rest):
//   streams:  fixed32be(stream id) fixed64be(seq) -> record (below)
//   catalog:  "r/" fixed32be(id)                   -> the stream (an Item, item codec)
//             "r/" fixed32be(id) "s" fixed32be(i)  -> shard i: fixed64 start seq,
//                                                     fixed64 creation ms
//             "r/" fixed32be(id) "t"               -> fixed64: records <= it trimmed
//   record := 0x01 event(1: INSERT 2: MODIFY 3: REMOVE) flags(bit0 by TTL,
//             bit1 old image, bit2 new image, bit3 keys in the image)
//             fixed64(creation ms) varint64(SizeBytes) [lp(keys)]
//             [lp(old image)] [lp(new image)]
//             (images and keys in the item codec; the keys are stored apart
//             only when the record keeps no image, KEYS_ONLY, and are otherwise
//             taken from the image by the stream's key schema)

#ifndef DYNAROCK_ENGINE_CHANGE_LOG_H_
#define DYNAROCK_ENGINE_CHANGE_LOG_H_

#include <rocksdb/options.h>
#include <rocksdb/write_batch.h>

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "dynarock/streams.h"
#include "dynarock/status.h"
#include "engine/table_info.h"
#include "index/maintainer.h"

namespace rocksdb {
class DB;
class ColumnFamilyHandle;
}  // namespace rocksdb

namespace dynarock {

// Who made a change: an application's request, or time to live.
enum class ChangeOrigin : uint8_t { kUser, kTimeToLive };

// A staged record, waiting for its sequence number at commit.
struct PendingChange {
  uint32_t stream_id = 0;  // or the history's id (`history`)
  bool history = false;
  std::string value;  // the record, its creation time still to be filled in
};

// The writes of one atomic commit: the RocksDB batch and the records it makes.
struct WriteSet {
  WriteSet() = default;
  // `batch_bytes`: what the batch is expected to hold, allocated up front (a
  // batch otherwise grows by copying as each write is added).
  explicit WriteSet(size_t batch_bytes) : batch(batch_bytes) {}

  rocksdb::WriteBatch batch;
  std::vector<PendingChange> changes;
  // Options::gsi_lag_*: the global secondary index entries of the writes,
  // applied a while after `batch` commits (engine/consistency.cc).
  rocksdb::WriteBatch lagged;
  // Options::stale_read_seconds: each written item's key and image before
  // the write (none: it did not exist), remembered once the write commits.
  std::vector<std::pair<std::string, std::optional<std::string>>> previous;
  // The statistics deltas of the writes (tables' and indexes'): one Merge an
  // id when the set commits (DBImpl::StageStats), not one an item.
  StatsDeltas stats;
};

struct ShardInfo {
  uint64_t start_seq = 0;
  double created = 0;  // seconds since the epoch
};

struct StreamInfo {
  uint32_t id = 0;
  std::string table_name;
  uint32_t table_id = 0;
  std::string label;
  std::string arn;
  std::string view_type;
  std::vector<KeySchemaElement> key_schema;
  double created = 0;
  // Once disabled (the stream turned off, or its table deleted): when, and the
  // last sequence number of its last shard.
  std::optional<double> disabled_at;
  uint64_t end_seq = 0;
  std::vector<ShardInfo> shards;  // shard i's parent is shard i-1
  uint64_t trimmed_through = 0;   // every record numbered <= this is gone
  // A log of the table's own, not a DynamoDB stream (never listed or found by
  // ARN): the records its Kinesis streaming destinations are delivered from
  // (engine/kinesis_destinations.cc), with both images.
  bool internal = false;
  std::string destination;  // its Kinesis stream's ARN

  bool enabled() const { return !disabled_at.has_value(); }
  // The last number shard i may hold (UINT64_MAX while it is open).
  uint64_t ShardEnd(size_t i) const;
  std::string ShardId(size_t i) const;
  // The shard of that id, or -1.
  int FindShard(std::string_view shard_id) const;
};

// Sequence numbers as DynamoDB prints them: decimal, at least 21 digits.
std::string FormatSequenceNumber(uint64_t seq);
// False unless `text` is 21..40 decimal digits naming a number that fits.
bool ParseSequenceNumber(std::string_view text, uint64_t* seq);

class ChangeLog {
 public:
  struct Config {
    std::string region;
    std::string account_id;
    double retention_seconds = 86400;
    double shard_seconds = 4 * 3600;
    bool sync = false;              // fsync the catalog writes of its own
    bool disable_wal = false;       // in memory: no write-ahead log
    bool flush_wal = false;         // group commit: RocksDB's log buffer flushed by hand
    std::function<double()> clock;  // seconds since the epoch
  };
  ChangeLog(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* catalog,
            rocksdb::ColumnFamilyHandle* records, Config config);
  ~ChangeLog();  // stops the trimming thread

  // Loads the streams (at open) and starts the counter; `background` starts
  // the thread that trims old records.
  Status Load(bool background);
  // Forgets every stream and history and loads the streams again from the
  // catalog (after a snapshot of the database is restored). Numbers go on
  // from where they were. PRE: no write in flight.
  Status Reload();
  double Now() const { return config_.clock(); }

  // ---- writing (under the item's lock stripe)
  // One side of a change: the item (null: none), its size, and its encoding
  // when the caller has it already.
  struct Image {
    const Item* item = nullptr;
    size_t size = 0;
    std::string_view encoded;
  };
  // Stages the records of a change to `table`'s item: for its stream, if
  // enabled, and its Kinesis delivery log, if any; none if the write changes
  // nothing.
  void Stage(const TableInfo& table, const Image& old_image, const Image& new_image,
             ChangeOrigin origin, WriteSet* writes) const;
  // Numbers the staged records, adds them to the batch, calls `write` (which
  // commits the batch) and releases the numbers.
  Status Commit(WriteSet* writes, const std::function<Status(rocksdb::WriteBatch*)>& write);

  // ---- lifecycle (the caller holds the catalog's lock and commits `batch`)
  // A new stream for `table` (whose stream_label and stream_id it sets);
  // `id` comes from the catalog's id counter.
  // `internal`: the table's Kinesis delivery log instead (kinesis_log_id).
  void CreateStream(TableInfo* table, uint32_t id, rocksdb::WriteBatch* batch,
                    bool internal = false, std::string destination = "");
  void DisableStream(uint32_t id, rocksdb::WriteBatch* batch);
  // After the batch committed (or not: the in-memory state then is dropped).
  void Publish(bool committed);

  // ---- reading
  std::optional<StreamInfo> Find(uint32_t id) const;
  std::optional<StreamInfo> FindByArn(std::string_view arn) const;
  std::vector<StreamInfo> List() const;  // by id
  std::vector<StreamInfo> ListInternal() const;  // the internal logs, by id
  // Every number <= Horizon() that will ever be used is committed or abandoned.
  uint64_t Horizon() const;
  // Records of stream `id` numbered [from, to] in order: at most `limit`, and
  // stopping after the record that reaches `max_bytes`. *next: the number to
  // read from next time.
  Status Read(const StreamInfo& stream, uint64_t from, uint64_t to, size_t limit,
              size_t max_bytes, std::vector<StreamRecord>* out, uint64_t* next) const;
  // Waits until Horizon() > `seq`, `timeout` passes or `stop` says so.
  void WaitBeyond(uint64_t seq, double timeout_seconds, const std::function<bool()>& stop) const;
  void WakeWaiters() const;

  // Deletes records past their retention, and streams disabled longer than
  // that, and history records older than their table's recovery period.
  // Returns how many records went.
  int64_t Trim();

  // ---- point-in-time history (engine/table_history.cc reads it)
  // A table with point-in-time recovery keeps a history: one record per
  // change to an item, numbered like stream records (same counter, same
  // column family, under the table's history id), holding the item's key
  // attributes and its image before the change (none: it did not exist).
  // The state after a change is the next record's old image, or the item
  // now; so the table at time T is the items now with, for each item changed
  // after T, the old image of its first change after T.
  //   history record := 0x01 event flags(bit0 by TTL, bit1 old image)
  //                     fixed64(creation ms) varint64(0) lp(keys) [lp(old image)]
  void StageHistory(const TableInfo& table, const Image& old_image, const Item& any_image,
                    ChangeOrigin origin, WriteSet* writes) const;
  // Keeps history `id`'s records for `seconds` (Trim drops older ones).
  void KeepHistory(uint32_t id, double seconds);
  // Forgets history `id` and adds the deletion of its records to `batch`.
  void DropHistory(uint32_t id, rocksdb::WriteBatch* batch);
  struct HistoryRecord {
    uint64_t seq = 0;
    uint64_t ms = 0;  // commit time
    std::string_view keys;  // encoded item of the key attributes
    std::optional<std::string_view> old_image;
  };
  static bool ParseHistoryRecord(std::string_view key, std::string_view value, HistoryRecord* r);
  // The records column family key of record `seq` of log `id`.
  static std::string RecordKeyOf(uint32_t id, uint64_t seq);
  rocksdb::ColumnFamilyHandle* records() const { return records_; }

 private:
  void StageRecord(const TableInfo& table, uint32_t stream_id, const std::string& view,
                   const Image& old_image, const Image& new_image, ChangeOrigin origin,
                   WriteSet* writes) const;
  void StartTrimmer();
  // How many records of log `id` from number `from` on were made before
  // `cutoff_ms`, in a row from the first; *last: the last of them.
  int64_t CountOlder(uint32_t id, uint64_t from, uint64_t cutoff_ms, uint64_t* last) const;
  void PersistStream(const StreamInfo& s, rocksdb::WriteBatch* batch) const;
  // The write options of the change log's own writes.
  rocksdb::WriteOptions WriteOptions() const;
  // The log's own writes (trimming): written, and with Config::flush_wal
  // handed to the operating system at once.
  rocksdb::Status WriteNow(rocksdb::WriteBatch* batch);

  rocksdb::DB* db_;
  rocksdb::ColumnFamilyHandle* catalog_;
  rocksdb::ColumnFamilyHandle* records_;
  Config config_;

  mutable std::mutex mu_;
  std::map<uint32_t, StreamInfo> streams_;      // GUARDED_BY(mu_)
  std::vector<StreamInfo> unpublished_;         // GUARDED_BY(mu_)
  std::vector<uint32_t> unpublished_disables_;  // GUARDED_BY(mu_)
  uint64_t next_seq_ = 1;                       // GUARDED_BY(mu_)
  std::multiset<uint64_t> in_flight_;           // GUARDED_BY(mu_)
  std::map<uint32_t, double> histories_;        // GUARDED_BY(mu_): id -> seconds kept
  mutable std::condition_variable committed_cv_;
  std::mutex trim_mu_;  // one Trim at a time

  std::mutex thread_mu_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;  // GUARDED_BY(thread_mu_)
  std::thread trimmer_;
};

}  // namespace dynarock

#endif  // DYNAROCK_ENGINE_CHANGE_LOG_H_
