// File: engine/db_impl.cc's opening and closing: DB::Open (RocksDB's
// options, the column families, a new directory's creation, the catalog and
// the on-disk format's version) and ~DBImpl.

#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/listener.h>
#include <rocksdb/merge_operator.h>
#include <rocksdb/metadata.h>
#include <rocksdb/options.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>
#include <rocksdb/write_buffer_manager.h>

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "engine/db_impl.h"
#include "engine/fresh_directory.h"
#include "engine/key_codec.h"
#include "engine/rocksdb_status.h"
#include "engine/storage_env.h"
#include "index/maintainer.h"

namespace dynarock {
namespace {

constexpr char kIteratorKey[] = "m/iterator_key";
// The on-disk format's version (decimal text); a directory without the key was
// written before it existed, in version 1. Raise kDiskFormat when a change makes
// older builds misread the data: they then refuse the directory instead of
// misreading it, and this build upgrades (or refuses) older versions here.
//   1: items in item_codec's V1.
//   2: items written in V2 (their DynamoDB size in the header); V1 items are
//      still read, so a version-1 directory is upgraded by marking it 2 on
//      its first writable open.
constexpr char kFormatKey[] = "m/format";
constexpr int kDiskFormat = 2;

// Sums the catalog's statistics deltas (index/maintainer.h StatsDelta).
class StatsMergeOperator : public rocksdb::AssociativeMergeOperator {
 public:
  bool Merge(const rocksdb::Slice& key, const rocksdb::Slice* existing, const rocksdb::Slice& value,
             std::string* new_value, rocksdb::Logger*) const override {
    int64_t c0 = 0, b0 = 0, c1 = 0, b1 = 0;
    if (existing) DecodeStatsDelta(existing->ToStringView(), &c0, &b0);
    DecodeStatsDelta(value.ToStringView(), &c1, &b1);
    *new_value = StatsDelta(c0 + c1, b0 + b1);
    return true;
  }
  const char* Name() const override { return "dynarock.StatsMergeOperator"; }
};

}  // namespace

// RocksDB's reports of background errors and of its recoveries.
class DBImpl::StorageListener : public rocksdb::EventListener {
 public:
  explicit StorageListener(DBImpl* db) : db_(db) {}
  const char* Name() const override { return "dynarock.StorageListener"; }

  void OnBackgroundError(rocksdb::BackgroundErrorReason reason, rocksdb::Status* error) override {
    using R = rocksdb::BackgroundErrorReason;
    const char* where = reason == R::kFlush || reason == R::kFlushNoWAL ? "a flush"
                        : reason == R::kCompaction                     ? "a compaction"
                        : reason == R::kWriteCallback                  ? "a write"
                        : reason == R::kMemTable                       ? "a memtable insert"
                                                                       : "a MANIFEST write";
    if (error->severity() >= rocksdb::Status::Severity::kHardError) {
      db_->ReportStorageError(where, *error);
      return;
    }
    // A soft error (ENOSPC in a compaction): writes go on; said once a minute.
    const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                            std::chrono::steady_clock::now().time_since_epoch())
                            .count();
    int64_t last = last_soft_log_.load();
    if (now - last < 60 || !last_soft_log_.compare_exchange_strong(last, now)) return;
    std::fprintf(stderr,
                 "dynarock: storage error in %s (%s): %s. Writes go on; RocksDB retries\n",
                 db_->dir_.c_str(), where, error->ToString().c_str());
  }
  void OnErrorRecoveryEnd(const rocksdb::BackgroundErrorRecoveryInfo& info) override {
    if (info.new_bg_error.ok()) db_->ReportStorageRecovered("RocksDB recovered by itself");
  }

 private:
  DBImpl* const db_;  // outlives the RocksDB database, whose threads call this
  std::atomic<int64_t> last_soft_log_{-3600};  // steady seconds
};

StatusOr<std::unique_ptr<DB>> DB::Open(const Options& options, std::string_view path) {
  return DBImpl::OpenImpl(options, path);
}

StatusOr<std::unique_ptr<DB>> internal::OpenWithEnv(const Options& options, std::string_view path,
                                                    std::shared_ptr<rocksdb::Env> env) {
  return DBImpl::OpenImpl(options, path, std::move(env));
}

StatusOr<std::unique_ptr<DB>> internal::OpenCreatingThrough(
    const Options& options, std::string_view path, std::shared_ptr<rocksdb::FileSystem> base) {
  return DBImpl::OpenImpl(options, path, nullptr, false, std::move(base));
}

std::shared_ptr<rocksdb::MergeOperator> internal::NewStatsMergeOperator() {
  return std::make_shared<StatsMergeOperator>();
}

Status internal::CompactAll(DB* db, uint64_t* items_bytes) {
  return static_cast<DBImpl*>(db)->CompactAll(items_bytes);
}

Status internal::WaitForCreation(DB* db) { return static_cast<DBImpl*>(db)->WaitForCreation(); }

Status DBImpl::CompactAll(uint64_t* items_bytes) {
  for (auto* h : handles_) {
    rocksdb::CompactRangeOptions cro;
    cro.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForceOptimized;
    DR_RETURN_IF_ERROR(FromRocksDB(db_->CompactRange(cro, h, nullptr, nullptr)));
  }
  if (items_bytes) {
    rocksdb::ColumnFamilyMetaData meta;
    db_->GetColumnFamilyMetaData(items_cf_, &meta);
    *items_bytes = meta.size;
  }
  return Status();
}

StatusOr<std::unique_ptr<DB>> DBImpl::OpenImpl(const Options& options, std::string_view path,
                                               std::shared_ptr<rocksdb::Env> env, bool recreating,
                                               std::shared_ptr<rocksdb::FileSystem> creation_base) {
  std::unique_ptr<DBImpl> impl(new DBImpl());
  impl->options_ = options;
  // A sweep period that is not a sane number of seconds turns expiry off, and
  // one under 50 ms would only spin.
  double& sweep = impl->options_.ttl_sweep_seconds;
  if (!(sweep > 0)) sweep = 0;  // also NaN
  if (sweep > 0) sweep = std::clamp(sweep, 0.05, 365.0 * 86400);
  impl->sync_ = options.sync_writes;
  impl->dir_ = options.in_memory ? std::string("/dynarock-in-memory") : std::string(path);

  rocksdb::DBOptions db_options;
  db_options.create_if_missing = options.create_if_missing;
  db_options.create_missing_column_families = true;
  db_options.max_background_jobs = std::max(1, options.background_jobs);
  // Compactions run at a lower CPU priority than requests: on a machine whose
  // cores are busy serving, a compaction then waits for idle time instead of
  // taking a request thread's core (the long tail of a write load). Flushes
  // (the high-priority pool) keep theirs, so memtables never back up behind
  // them. The pools are the process's default Env's, shared by every DB.
  rocksdb::Env::Default()->LowerThreadPoolCPUPriority(rocksdb::Env::Priority::LOW);
  db_options.max_open_files = options.max_open_files;
  db_options.keep_log_file_num = 2;
  db_options.info_log_level = rocksdb::InfoLogLevel::WARN_LEVEL;
  std::string dir(path);
  // RocksDB opens a column family's table files on max_file_opening_threads
  // threads (16 by default), started and joined for each of the four even when
  // there is nothing to open: ~60 threads, a third of an empty start's time.
  // Files already there still open on a few; a new or in-memory database has
  // none to open.
  std::error_code exists_error;
  const bool fresh = options.in_memory || !std::filesystem::exists(
                                              std::filesystem::path(dir) / "CURRENT", exists_error);
  db_options.max_file_opening_threads = fresh ? 1 : 4;
  // A data directory on the disk's own files, which this open may create.
  const bool writable_disk = !options.in_memory && !options.read_only && !env;
  const bool own_disk = writable_disk && options.create_if_missing;
  if (options.in_memory) {
    impl->mem_env_.reset(rocksdb::NewMemEnv(rocksdb::Env::Default()));
    db_options.env = impl->mem_env_.get();
    dir = "/dynarock-in-memory";  // the path is ignored in memory
  } else if (env) {
    impl->env_ = std::move(env);
    db_options.env = impl->env_.get();
  } else if (own_disk && fresh && internal::BeginCreation(dir).ok()) {
    // A new directory: created with its syncs held until it is complete
    // (engine/fresh_directory.h). Were the marker not writable, RocksDB
    // creates it the usual way and reports what it finds.
    impl->creation_fs_ = std::make_shared<internal::DeferredSyncFileSystem>(
        creation_base ? creation_base : rocksdb::FileSystem::Default());
    impl->creation_env_ = rocksdb::NewCompositeEnv(impl->creation_fs_);
    db_options.env = impl->creation_env_.get();
  }

  db_options.listeners.push_back(std::make_shared<StorageListener>(impl.get()));

  rocksdb::BlockBasedTableOptions table_options;
  const size_t budget = options.memory_budget_bytes;
  // In memory the table files are memory themselves: a small cache and small
  // write buffers (db.h), unless a budget or explicit write buffers say otherwise.
  const bool small_in_memory = options.in_memory && budget == 0 && options.write_buffer_bytes == 0;
  size_t cache_bytes = options.block_cache_bytes;
  if (small_in_memory) cache_bytes = std::min<size_t>(cache_bytes, 8u << 20);
  table_options.block_cache =
      rocksdb::NewLRUCache(budget > 0 ? std::max<size_t>(budget, 1u << 20) : cache_bytes);
  impl->block_cache_ = table_options.block_cache;
  // Bloom filters (10 bits a key, ~1% false positives): a point read of a key
  // that is not there, as every write of a new item does for its old version,
  // skips the table files instead of searching each one. Files written before
  // have none and are searched as before.
  table_options.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  rocksdb::ColumnFamilyOptions cf_options;
  if (budget > 0) {
    // Memtables charged to the cache, together at most half of it; each
    // column family's write buffer an eighth of the budget (64 KiB to 64 MiB).
    db_options.write_buffer_manager = std::make_shared<rocksdb::WriteBufferManager>(
        std::max<size_t>(budget / 2, 512u << 10), table_options.block_cache);
    const size_t buffer = std::clamp<size_t>(budget / 8, 64u << 10, 64u << 20);
    cf_options.write_buffer_size = buffer;
    cf_options.max_write_buffer_number = 2;
    cf_options.arena_block_size = std::max<size_t>(buffer / 8, 16u << 10);
    table_options.cache_index_and_filter_blocks = true;
    table_options.pin_l0_filter_and_index_blocks_in_cache = false;
  } else if (options.write_buffer_bytes > 0) {
    // Small write buffers: all column families' memtables together stay within
    // two buffers' worth, and index and filter blocks live in the (bounded)
    // block cache instead of beside it.
    const size_t buffer = std::max<size_t>(options.write_buffer_bytes, 64u << 10);
    cf_options.write_buffer_size = buffer;
    cf_options.max_write_buffer_number = 2;
    cf_options.arena_block_size = std::max<size_t>(buffer / 8, 16u << 10);
    db_options.db_write_buffer_size = 2 * buffer;
    table_options.cache_index_and_filter_blocks = true;
    db_options.stats_dump_period_sec = 0;
    db_options.stats_persist_period_sec = 0;
  } else if (small_in_memory) {
    cf_options.write_buffer_size = 8u << 20;
    cf_options.max_write_buffer_number = 2;
    db_options.db_write_buffer_size = 32u << 20;
  }
  // Group commit (dynarock/group_commit.h): records wait in RocksDB's log
  // buffer until DBImpl::Commit or the thread's GroupCommit flushes them.
  const bool group_commit = options.group_commit && !options.in_memory && !options.sync_writes &&
                            !options.read_only;
  db_options.manual_wal_flush = group_commit;
  // Write-ahead log files live until every column family with data in them
  // has flushed, and the catalog's memtable (statistics merges, a few bytes a
  // write) takes hours to fill: without a bound every log since its last
  // flush stays (the soak, tests/soak: ~100 MB of logs a minute under mixed
  // load, kept until RocksDB's default bound of 4x all write buffers, 2 GB).
  // Past this total RocksDB flushes the column families that hold the oldest
  // log, so the logs stay within a few memtables' worth.
  db_options.max_total_wal_size =
      std::max<uint64_t>(4 * cf_options.write_buffer_size, 16u << 20);
  cf_options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table_options));
  rocksdb::ColumnFamilyOptions catalog_options = cf_options;
  catalog_options.merge_operator = std::make_shared<StatsMergeOperator>();

  // Items and index entries: their table files also get a Bloom filter of
  // each key's first kPartitionHashPrefixBytes (its table and partition
  // hash), so that a Query (in one partition) seeks only the files that
  // may hold the partition; every other iterator over them reads in total
  // order (ReadOptions::total_order_seek), as without the extractor.
  rocksdb::ColumnFamilyOptions keyed_options = cf_options;
  keyed_options.prefix_extractor.reset(rocksdb::NewFixedPrefixTransform(kPartitionHashPrefixBytes));
  // Their point reads (GetItem, a write's read of the old version) find a
  // key within its data block through a hash of the block's keys instead of
  // a binary search (bench/README.md, "Hash indexes in the table files"), for
  // 0.8% more disk; files written before keep their blocks as they are. (A
  // hash of the prefixes in each file's index too, kHashSearch, needs every
  // key the files hold in the extractor's domain: RocksDB's index builder
  // asserted on a shorter one in the backup tests.)
  {
    rocksdb::BlockBasedTableOptions keyed_table = table_options;
    keyed_table.data_block_index_type = rocksdb::BlockBasedTableOptions::kDataBlockBinaryAndHash;
    keyed_options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(keyed_table));
  }
  // The memtables too: a Bloom filter of whole keys and prefixes, 0.5% of
  // the write buffer (~12 bits a key at ~250-byte items; 2% cost a new data
  // directory's start 1 ms and its idle memory 2.7 MB, allocated and zeroed
  // with each memtable), so that the read of a new key's old version, which
  // every insert makes, and a Query of a partition the memtable lacks, skip
  // the skiplist search.
  keyed_options.memtable_prefix_bloom_size_ratio = 0.005;
  keyed_options.memtable_whole_key_filtering = true;
  std::vector<rocksdb::ColumnFamilyDescriptor> families = {
      {rocksdb::kDefaultColumnFamilyName, catalog_options},
      {"items", keyed_options},
      {"indexes", keyed_options},
      {"streams", cf_options},
  };
  rocksdb::DB* raw = nullptr;
  // A new data directory is its owner's alone (0700, not RocksDB's 0755): it
  // holds every item in clear. An existing one keeps its mode.
  if (!options.in_memory && !options.read_only && options.create_if_missing && !impl->env_) {
    ::mkdir(dir.c_str(), 0700);  // failures (EEXIST...) are RocksDB's open's to report
  }
  // A new database is opened with its first column family and given the
  // others in one CreateColumnFamilies: RocksDB writes its options file (and
  // parses it back to check it) once for that call, where creating them while
  // opening writes it once per family, most of an in-memory start's time.
  const bool create_families = fresh && !options.read_only;
  rocksdb::Status s =
      options.read_only
          ? rocksdb::DB::OpenForReadOnly(db_options, dir, families, &impl->handles_, &raw)
          : rocksdb::DB::Open(db_options, dir,
                              create_families ? std::vector<rocksdb::ColumnFamilyDescriptor>(
                                                    families.begin(), families.begin() + 1)
                                              : families,
                              &impl->handles_, &raw);
  if (s.ok() && create_families) {
    std::vector<rocksdb::ColumnFamilyHandle*> created;
    s = raw->CreateColumnFamilies(
        std::vector<rocksdb::ColumnFamilyDescriptor>(families.begin() + 1, families.end()),
        &created);
    impl->handles_.insert(impl->handles_.end(), created.begin(), created.end());
    if (!s.ok()) {
      for (auto* h : impl->handles_) raw->DestroyColumnFamilyHandle(h).PermitUncheckedError();
      impl->handles_.clear();
      delete raw;
      raw = nullptr;
    }
  }
  if (!s.ok() && own_disk && !fresh && !recreating &&
      s.ToString().find("While lock file") == std::string::npos &&
      s.ToString().find("lock hold by current process") == std::string::npos &&
      internal::RecoverInterruptedCreation(dir)) {
    // A creation cut short by a crash, its files never synced: nothing was
    // ever written to it, so its files are set aside and it is created again.
    return OpenImpl(options, path, nullptr, /*recreating=*/true, std::move(creation_base));
  }
  if (!s.ok()) {
    // RocksDB's LOCK file (flock): held by another process ("While lock
    // file"), or by another DB of this one ("lock hold by current process").
    const std::string why = s.ToString();
    if (s.IsIOError() && why.find("lock hold by current process") != std::string::npos) {
      return InternalError("The data directory " + dir +
                           " is in use: this process already has it open (" + why + ")");
    }
    if (s.IsIOError() && why.find("While lock file") != std::string::npos) {
      return InternalError("The data directory " + dir +
                           " is in use by another process, which has it open (" + why + ")");
    }
    return InternalError("Cannot open the database at " + dir + ": " + s.ToString());
  }
  impl->db_ = raw;
  if (group_commit) {
    DBImpl* self = impl.get();
    impl->log_flush_ = std::make_shared<internal::LogFlush>(
        raw, [self](const rocksdb::Status& s) { self->NoteWriteError(s); });
  }
  impl->catalog_cf_ = impl->handles_[0];
  impl->items_cf_ = impl->handles_[1];
  impl->indexes_cf_ = impl->handles_[2];
  impl->streams_cf_ = impl->handles_[3];
  ChangeLog::Config log_config;
  log_config.region = options.region;
  log_config.account_id = options.account_id;
  // Periods that are not sane numbers of seconds (NaN too) get the defaults.
  auto period = [](double v, double dflt) { return v > 0 && v < 1e10 ? std::max(v, 0.001) : dflt; };
  log_config.retention_seconds = period(options.stream_retention_seconds, 24 * 3600);
  log_config.shard_seconds = period(options.stream_shard_seconds, 4 * 3600);
  log_config.sync = options.sync_writes;
  log_config.disable_wal = options.in_memory;
  log_config.flush_wal = group_commit;
  log_config.clock = options.clock;
  impl->change_log_ =
      std::make_unique<ChangeLog>(raw, impl->catalog_cf_, impl->streams_cf_, log_config);
  {
    DBImpl* self = impl.get();
    impl->index_lag_ = std::make_unique<IndexLag>(
        options.gsi_lag_min_seconds, options.gsi_lag_max_seconds, options.consistency_seed,
        [self](rocksdb::WriteBatch* b) { return self->Commit(b); },
        [self] { return self->change_log_->Now(); });
    impl->stale_reads_ = std::make_unique<StaleReads>(
        options.stale_read_seconds, options.stale_read_probability, options.consistency_seed);
  }

  // The format first: a newer one is refused before anything is read.
  std::string format;
  s = raw->Get(rocksdb::ReadOptions(), impl->catalog_cf_, kFormatKey, &format);
  if (s.ok()) {
    int version = 0;
    for (char c : format) version = c >= '0' && c <= '9' && version < 1000000 ? version * 10 + (c - '0') : -1;
    if (version < 1) {
      return InternalError("The data directory " + dir + " has an unreadable format marker (" +
                           format + ")");
    }
    if (version > kDiskFormat) {
      return InternalError("The data directory " + dir + " was written by a newer Dynarock (on-disk "
                           "format " + std::to_string(version) + "; this build reads format " +
                           std::to_string(kDiskFormat) + " and older): open it with that version");
    }
    if (version < kDiskFormat && !options.read_only) {
      s = raw->Put(rocksdb::WriteOptions(), impl->catalog_cf_, kFormatKey,
                   std::to_string(kDiskFormat));
      if (!s.ok()) return InternalError("Cannot write the format marker: " + s.ToString());
    }
  } else if (s.IsNotFound()) {
    if (!options.read_only) {
      s = raw->Put(rocksdb::WriteOptions(), impl->catalog_cf_, kFormatKey,
                   std::to_string(kDiskFormat));
      if (!s.ok()) return InternalError("Cannot write the format marker: " + s.ToString());
    }
  } else {
    return InternalError("Cannot read the format marker: " + s.ToString());
  }

  DR_RETURN_IF_ERROR(impl->LoadCatalog());
  // Indexes whose backfill a previous run did not finish start over.
  std::vector<std::pair<std::string, uint32_t>> unfinished;
  for (const auto& [name, table] : impl->tables_) {
    for (const auto& ix : table->indexes)
      if (ix.status == "CREATING") unfinished.emplace_back(name, ix.id);
  }
  DR_RETURN_IF_ERROR(impl->LoadIdempotencyTokens());
  DR_RETURN_IF_ERROR(impl->change_log_->Load(/*background=*/!options.read_only));
  // The key that signs shard iterators, so that they outlive a restart.
  s = raw->Get(rocksdb::ReadOptions(), impl->catalog_cf_, kIteratorKey, &impl->iterator_secret_);
  if (s.IsNotFound() && !options.read_only) {
    impl->iterator_secret_ = NewUuid() + NewUuid();
    rocksdb::WriteBatch batch;
    batch.Put(impl->catalog_cf_, kIteratorKey, impl->iterator_secret_).PermitUncheckedError();
    DR_RETURN_IF_ERROR(impl->Commit(&batch));
  }
  if (!options.read_only) {
    // Tables whose stream was enabled before the change log existed get one.
    for (auto& [name, table] : impl->tables_) {
      if (table->stream_id != 0 || !table->stream_specification ||
          !table->stream_specification->stream_enabled) {
        continue;
      }
      TableInfo info = *table;
      rocksdb::WriteBatch batch;
      impl->change_log_->CreateStream(&info, impl->AllocateId(&batch), &batch);
      Status committed = impl->PersistTable(info, &batch);
      if (committed.ok()) committed = impl->Commit(&batch);
      impl->change_log_->Publish(committed.ok());
      DR_RETURN_IF_ERROR(committed);
      table = std::make_shared<TableInfo>(std::move(info));
    }
    for (const auto& [name, id] : unfinished) impl->StartBackfill(name, id);
    for (const auto& [name, table] : impl->tables_) {
      if (table->pitr_history_id != 0) {
        impl->change_log_->KeepHistory(table->pitr_history_id,
                                       static_cast<double>(table->pitr_days) * 86400);
      }
    }
    impl->ResumeLoads();
    for (const auto& [name, table] : impl->tables_) {
      if (table->ttl_attribute) {
        impl->StartTtlSweeper();
        break;
      }
    }
  }
  // What the open wrote (the format marker...) goes to the operating system
  // before the database is handed out, as without group commit.
  if (impl->log_flush_) DR_RETURN_IF_ERROR(impl->log_flush_->Flush());
  // A new directory made durable, on a thread of its own, before a write
  // that must survive power loss is acknowledged; or one whose creation
  // finished but not its marker's removal, now.
  if (impl->creation_fs_) {
    impl->creation_fs_->EndDeferral();
    impl->FinishCreationInBackground();
  } else if (writable_disk && internal::CreationInterrupted(dir)) {
    DR_RETURN_IF_ERROR(internal::FinishCreation(dir));
  }
  return std::unique_ptr<DB>(std::move(impl));
}

void DBImpl::FinishCreationInBackground() {
  creation_pending_.store(true, std::memory_order_release);
  // On RocksDB's own background threads (the low-priority pool, which the
  // compactions use), not a thread of its own: one more thread's stack and
  // allocator arena would stay in the idle process's memory.
  rocksdb::Env::Default()->Schedule(
      [](void* arg) {
        auto* self = static_cast<DBImpl*>(arg);
        Status s = internal::FinishCreation(self->dir_);
        if (!s.ok()) {
          // The marker stays: the next writable open finishes the creation.
          std::fprintf(stderr,
                       "dynarock: the new data directory %s could not be made durable: %s. "
                       "Writes with sync_writes fail until it is reopened\n",
                       self->dir_.c_str(), s.message().c_str());
        }
        std::lock_guard<std::mutex> lock(self->creation_mu_);
        self->creation_status_ = std::move(s);
        self->creation_pending_.store(false, std::memory_order_release);
        self->creation_cv_.notify_all();
      },
      this, rocksdb::Env::Priority::LOW);
}

Status DBImpl::WaitForCreation() {
  std::unique_lock<std::mutex> lock(creation_mu_);
  creation_cv_.wait(lock, [this] { return !creation_pending_.load(std::memory_order_acquire); });
  if (creation_status_.ok()) return Status();
  return InternalError("The new data directory could not be made durable: " +
                       creation_status_.message());
}

DBImpl::~DBImpl() {
  shutting_down_ = true;
  (void)WaitForCreation();  // the background job holds `this`
  {
    // Their files are in the memory Env, which goes before this map would.
    std::lock_guard<std::mutex> lock(snapshots_mu_);
    snapshots_.clear();
  }
  StopSubscriptions();
  {
    std::lock_guard<std::mutex> lock(ttl_mu_);
    ttl_cv_.notify_all();
  }
  if (ttl_thread_.joinable()) ttl_thread_.join();
  {
    std::lock_guard<std::mutex> lock(backfill_mu_);
    for (auto& t : backfills_) t.join();
  }
  {
    // Backups and restores being written stop early: a backup is then
    // dropped, a restore starts again at the next open.
    std::unique_lock<std::mutex> lock(jobs_mu_);
    std::vector<std::thread> jobs = std::move(jobs_);
    lock.unlock();
    for (auto& t : jobs) t.join();
  }
  index_lag_.reset();  // pending index entries applied
  change_log_.reset();  // after every writer; stops its trimming thread
  if (db_ == nullptr) return;
  // The log is synced at close, so that a clean close loses nothing even
  // without sync_writes, unless a write or a flush failed on the storage:
  // a log whose write or sync failed keeps the error, and syncing it again
  // aborts the process in a RocksDB built with assertions, as Debian's 7.8
  // is ("Assertion `sync_without_flush_called_' failed", WritableFileWriter).
  // A flush under way may still fail (it syncs the closed logs first): wait
  // for it, up to 10 s, so that its error is reported.
  for (int i = 0; i < 200; ++i) {
    uint64_t running = 0;
    if (!db_->GetIntProperty("rocksdb.num-running-flushes", &running) || running == 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (log_flush_) log_flush_->Detach();  // a GroupCommit still holding it flushes nothing
  if (!write_failing_.load()) db_->FlushWAL(true).PermitUncheckedError();
  for (auto* h : handles_) db_->DestroyColumnFamilyHandle(h).PermitUncheckedError();
  db_->Close().PermitUncheckedError();
  delete db_;
}

}  // namespace dynarock
