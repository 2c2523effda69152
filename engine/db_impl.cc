#include "engine/db_impl.h"

#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/listener.h>
#include <rocksdb/write_buffer_manager.h>
#include <rocksdb/env.h>
#include <rocksdb/merge_operator.h>
#include <rocksdb/metadata.h>
#include <rocksdb/options.h>
#include <rocksdb/sst_file_reader.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>

#include "engine/fresh_directory.h"
#include "engine/item_codec.h"
#include "engine/key_codec.h"
#include "engine/rocksdb_status.h"
#include "engine/storage_env.h"
#include "engine/table_validation.h"
#include "index/maintainer.h"

namespace dynarock {
namespace {

constexpr char kTablePrefix[] = "t/";
constexpr char kNextIdKey[] = "m/next_id";
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

// Statistics values (index/maintainer.h StatsDelta): two little-endian int64
// (item count, bytes), summed by the merge operator so that concurrent writers
// never read-modify-write them. Format: fixed64 count | fixed64 bytes. Never change.
void DecodeStats(const rocksdb::Slice& s, int64_t* count, int64_t* bytes) {
  *count = *bytes = 0;
  if (s.size() != 16) return;
  memcpy(count, s.data(), 8);
  memcpy(bytes, s.data() + 8, 8);
}

class StatsMergeOperator : public rocksdb::AssociativeMergeOperator {
 public:
  bool Merge(const rocksdb::Slice& key, const rocksdb::Slice* existing, const rocksdb::Slice& value,
             std::string* new_value, rocksdb::Logger*) const override {
    int64_t c0 = 0, b0 = 0, c1 = 0, b1 = 0;
    if (existing) DecodeStats(*existing, &c0, &b0);
    DecodeStats(value, &c1, &b1);
    *new_value = StatsDelta(c0 + c1, b0 + b1);
    return true;
  }
  const char* Name() const override { return "dynarock.StatsMergeOperator"; }
};


}  // namespace

std::string NewUuid() {
  static std::mutex mu;
  static std::mt19937_64 rng(std::random_device{}());
  std::lock_guard<std::mutex> lock(mu);
  uint64_t a = rng(), b = rng();
  char buf[40];
  snprintf(buf, sizeof buf, "%08x-%04x-4%03x-%04x-%012llx", static_cast<unsigned>(a >> 32),
           static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0xfff),
           static_cast<unsigned>(0x8000 | ((b >> 48) & 0x3fff)),
           static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return buf;
}


double NowEpochSeconds() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count() / 1000.0;
}

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
  // A new directory made durable before anyone writes to it; or one whose
  // creation finished but not its marker's removal.
  if (impl->creation_fs_) impl->creation_fs_->EndDeferral();
  if (impl->creation_fs_ || (writable_disk && internal::CreationInterrupted(dir))) {
    DR_RETURN_IF_ERROR(internal::FinishCreation(dir));
  }
  return std::unique_ptr<DB>(std::move(impl));
}

DBImpl::~DBImpl() {
  shutting_down_ = true;
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
  if (!write_failing_.load()) db_->FlushWAL(true).PermitUncheckedError();
  for (auto* h : handles_) db_->DestroyColumnFamilyHandle(h).PermitUncheckedError();
  db_->Close().PermitUncheckedError();
  delete db_;
}

Status DBImpl::LoadCatalog() {
  tables_.clear();
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), catalog_cf_));
  for (it->Seek(kTablePrefix); it->Valid() && it->key().starts_with(kTablePrefix); it->Next()) {
    Item item;
    TableInfo info;
    if (!DecodeItem(std::string_view(it->value().data(), it->value().size()), &item) ||
        !TableInfoFromItem(item, &info)) {
      return InternalError("Corrupt catalog entry " + it->key().ToString());
    }
    std::string name = info.name;
    tables_[name] = std::make_shared<TableInfo>(std::move(info));
  }
  DR_RETURN_IF_ERROR(FromRocksDB(it->status()));
  CatalogChanged();
  std::string next;
  rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), catalog_cf_, kNextIdKey, &next);
  if (s.ok() && next.size() == 4) {
    uint32_t id = 0;
    memcpy(&id, next.data(), 4);
    next_id_ = std::max(next_id_, id);
  }
  return Status();
}

StatusOr<TableInfoPtr> DBImpl::FindTable(std::string_view name_or_arn) const {
  DR_ASSIGN_OR_RETURN(TableInfoPtr table, FindAnyTable(name_or_arn));
  // A table still being restored or loaded, or still CREATING, has no items
  // to read or write yet.
  if (!table->loading.empty() ||
      (table->settling == "CREATING" && change_log_->Now() < table->settles_at)) {
    return ResourceNotFound("Requested resource not found");
  }
  return table;
}

StatusOr<TableInfoPtr> DBImpl::FindAnyTable(std::string_view name_or_arn) const {
  const std::string_view name = TableNameOf(name_or_arn);
  // An ARN names a table of this database only if it has its region and account.
  const size_t name_at = static_cast<size_t>(name.data() - name_or_arn.data());
  if (name_at != 0 && name_or_arn.substr(0, name_at) != "arn:aws:dynamodb:" + options_.region +
                                                            ":" + options_.account_id + ":table/") {
    return ResourceNotFound("Requested resource not found");
  }
  std::shared_lock lock(catalog_mu_);
  auto it = tables_.find(name);
  if (it == tables_.end()) {
    return ResourceNotFound("Requested resource not found");
  }
  return it->second;
}

Status DBImpl::AdmitNewTable(TableInfo* info, rocksdb::WriteBatch* batch, Status exists) {
  if (tables_.count(info->name)) return exists;
  if (tables_.size() >= static_cast<size_t>(kTablesPerAccountMax)) {
    return Status(ErrorType::kLimitExceeded,
                  "Subscriber limit exceeded: Only " + std::to_string(kTablesPerAccountMax) +
                      " tables can be created");
  }
  info->id = AllocateId(batch);
  for (auto& ix : info->indexes) ix.id = AllocateId(batch);
  return Status();
}

DBImpl::TableScan::TableScan(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf, uint32_t table_id,
                             const rocksdb::Snapshot* snapshot)
    : lower_(EncodeTablePrefix(table_id)),
      upper_(EncodeTablePrefix(table_id + 1)),
      upper_slice_(upper_) {
  rocksdb::ReadOptions ro;
  ro.snapshot = snapshot;
  ro.fill_cache = false;
  ro.total_order_seek = true;  // across partitions (keyed column families)
  ro.iterate_upper_bound = &upper_slice_;
  it_.reset(db->NewIterator(ro, cf));
  it_->Seek(lower_);
}

DBImpl::TableScan::~TableScan() = default;

uint32_t DBImpl::AllocateId(rocksdb::WriteBatch* batch) {
  uint32_t id = next_id_++;
  std::string v(4, '\0');
  memcpy(&v[0], &next_id_, 4);
  batch->Put(catalog_cf_, kNextIdKey, v).PermitUncheckedError();
  return id;
}

Status DBImpl::PersistTable(const TableInfo& info, rocksdb::WriteBatch* batch) {
  std::string value;
  EncodeItemTo(TableInfoToItem(info), &value);
  return FromRocksDB(batch->Put(catalog_cf_, kTablePrefix + info.name, value));
}

Status DBImpl::Commit(rocksdb::WriteBatch* batch) {
  if (options_.read_only) {
    return InternalError("The database was opened read-only; writes are refused");
  }
  if (write_failing_.load(std::memory_order_relaxed)) TryResume();
  rocksdb::WriteOptions wo;
  wo.sync = sync_;
  // In memory, a write-ahead log could recover nothing: a process that ends
  // takes the data with it. Without it each write copies its bytes once less.
  wo.disableWAL = options_.in_memory;
  const rocksdb::Status s = db_->Write(wo, batch);
  if (!s.ok() && !s.IsBusy() && !s.IsTryAgain() && !s.IsTimedOut()) {
    NoteWriteError(s);
    // A write that began before the episode did not try to resume: this one
    // tries now (whatever the rate limit, until the log has said why writes
    // still fail), so that the log says at once whether writes can resume.
    TryResume(/*force=*/!resume_failure_logged_.load(std::memory_order_relaxed));
  }
  return FromRocksDB(s);
}

void DBImpl::NoteWriteError(const rocksdb::Status& s) { ReportStorageError("a write", s); }

void DBImpl::ReportStorageError(const char* where, const rocksdb::Status& s) {
  if (write_failing_.exchange(true)) return;
  std::fprintf(stderr,
               "dynarock: storage error in %s (%s): %s. Writes fail with InternalServerError "
               "until the storage works again (reads go on)\n",
               dir_.c_str(), where, s.ToString().c_str());
}

void DBImpl::ReportStorageRecovered(const char* how) {
  if (!write_failing_.exchange(false)) return;
  std::fprintf(stderr, "dynarock: storage works again, writes to %s resumed (%s)\n", dir_.c_str(),
               how);
}

void DBImpl::TryResume(bool force) {
  std::unique_lock<std::mutex> lock(resume_mu_, std::defer_lock);
  if (force) {
    lock.lock();  // a failed write waits for the attempt in progress, then tries
  } else if (!lock.try_lock()) {
    return;  // another write is trying
  }
  const auto now = std::chrono::steady_clock::now();
  if (!force && now < next_resume_) return;
  next_resume_ = now + kResumeInterval;
  // RocksDB 7.8's Resume(): OK at once unless writes are stopped; Busy while
  // its own recovery runs (ENOSPC: the SstFileManager's); for a hard error
  // it flushes every column family (the log may have a torn tail) and clears
  // the error; for a fatal or unrecoverable one it returns that error.
  const rocksdb::Status s = db_->Resume();
  if (s.ok()) {
    resume_failure_logged_ = false;
    ReportStorageRecovered("DB::Resume");
    return;
  }
  if (resume_failure_logged_ || s.IsBusy()) return;
  resume_failure_logged_ = true;
  if (s.severity() >= rocksdb::Status::Severity::kFatalError) {
    std::fprintf(stderr,
                 "dynarock: RocksDB cannot resume writes to %s after this error (%s): writes "
                 "fail until the database is reopened (restart the process)\n",
                 dir_.c_str(), s.ToString().c_str());
  } else {
    std::fprintf(stderr, "dynarock: writes to %s still fail (%s); retrying every %lld ms\n",
                 dir_.c_str(), s.ToString().c_str(),
                 static_cast<long long>(kResumeInterval.count()));
  }
}

StatusOr<ChecksumReport> DBImpl::VerifyChecksums() {
  ChecksumReport report;
  // Compactions may delete files meanwhile: keep them (read-only: nothing is
  // deleted anyway).
  const bool hold = !options_.read_only && db_->DisableFileDeletions().ok();
  std::vector<rocksdb::LiveFileMetaData> files;
  db_->GetLiveFilesMetaData(&files);
  rocksdb::ReadOptions ro;
  ro.verify_checksums = true;
  ro.fill_cache = false;
  for (const rocksdb::LiveFileMetaData& f : files) {
    rocksdb::ColumnFamilyHandle* cf = nullptr;
    for (auto* h : handles_)
      if (h->GetName() == f.column_family_name) cf = h;
    if (cf == nullptr) continue;
    const std::string path = f.directory + "/" + f.relative_filename;
    rocksdb::SstFileReader reader(rocksdb::Options(db_->GetDBOptions(), db_->GetOptions(cf)));
    rocksdb::Status s = reader.Open(path);
    if (s.ok()) s = reader.VerifyChecksum(ro);
    ++report.files;
    report.bytes += static_cast<int64_t>(f.size);
    if (!s.ok()) report.corrupt.push_back(path + ": " + s.ToString());
  }
  if (hold) db_->EnableFileDeletions(/*force=*/false).PermitUncheckedError();
  return report;
}

void DBImpl::WaitForWritesInProgress() {
  for (auto& stripe : locks_) {
    stripe.lock();
    stripe.unlock();
  }
}

Status DBImpl::StageStats(WriteSet* writes) { return MergeStats(catalog_cf_, &writes->stats, &writes->batch); }

Status DBImpl::Commit(WriteSet* writes) {
  DR_RETURN_IF_ERROR(StageStats(writes));
  DR_RETURN_IF_ERROR(
      change_log_->Commit(writes, [this](rocksdb::WriteBatch* batch) { return Commit(batch); }));
  // Still under the items' locks: an item's lagged entries queue in the
  // order of its writes.
  if (writes->lagged.Count() > 0) index_lag_->Enqueue(std::move(writes->lagged));
  if (!writes->previous.empty()) stale_reads_->Remember(&writes->previous, change_log_->Now());
  return Status();
}

void DBImpl::ReadStats(uint32_t table_id, int64_t* count, int64_t* bytes) const {
  std::string v;
  *count = *bytes = 0;
  if (db_->Get(rocksdb::ReadOptions(), catalog_cf_, StatsKey(table_id), &v).ok())
    DecodeStats(v, count, bytes);
}

TableDescription DBImpl::Describe(const TableInfo& info, std::string_view status) const {
  TableDescription d;
  d.table_name = info.name;
  d.table_status = std::string(status);
  d.attribute_definitions = info.attribute_definitions;
  d.key_schema = info.key_schema;
  d.creation_date_time = info.creation_time;
  d.provisioned_throughput.read_capacity_units = info.throughput.read_capacity_units;
  d.provisioned_throughput.write_capacity_units = info.throughput.write_capacity_units;
  if (info.billing_mode == "PAY_PER_REQUEST") {
    d.billing_mode = info.billing_mode;
    d.last_update_to_pay_per_request_date_time =
        info.pay_per_request_since.value_or(info.creation_time);
  } else {
    d.billing_mode = info.billing_mode;
  }
  d.on_demand_throughput = info.on_demand_throughput;
  ReadStats(info.id, &d.item_count, &d.table_size_bytes);
  d.table_arn = "arn:aws:dynamodb:" + options_.region + ":" + options_.account_id +
                ":table/" + info.name;
  d.table_id = info.uuid;
  for (const auto& ix : info.indexes) {
    IndexDescription id;
    id.index_name = ix.name;
    id.key_schema = ix.key_schema;
    id.projection = ix.projection;
    id.index_arn = d.table_arn + "/index/" + ix.name;
    ReadStats(ix.id, &id.item_count, &id.index_size_bytes);
    if (ix.global) {
      id.index_status = ix.status;
      if (ix.status == "CREATING") id.backfilling = true;
      ProvisionedThroughputDescription pt;
      if (ix.throughput) {
        pt.read_capacity_units = ix.throughput->read_capacity_units;
        pt.write_capacity_units = ix.throughput->write_capacity_units;
      }
      id.provisioned_throughput = pt;
      id.on_demand_throughput = ix.on_demand_throughput;
      id.warm_throughput = DescribeWarmThroughput(ix.warm_read, ix.warm_write, ix.throughput);
      d.global_secondary_indexes.push_back(std::move(id));
    } else {
      d.local_secondary_indexes.push_back(std::move(id));
    }
  }
  d.stream_specification = info.stream_specification;
  if (info.stream_label) {
    d.latest_stream_label = info.stream_label;
    d.latest_stream_arn = d.table_arn + "/stream/" + *info.stream_label;
  }
  d.table_class = info.table_class;
  d.table_class_last_update = info.table_class_updated;
  d.deletion_protection_enabled = info.deletion_protection;
  d.warm_throughput = DescribeWarmThroughput(
      info.warm_read, info.warm_write,
      info.billing_mode == "PROVISIONED" ? std::optional<ProvisionedThroughput>(info.throughput)
                                         : std::nullopt);
  if (info.restore_time) {
    TableDescription::RestoreSummary r;
    r.source_backup_arn = info.restore_backup_arn;
    r.source_table_arn = info.restore_source_arn;
    r.restore_date_time = *info.restore_time;
    r.restore_in_progress = !info.loading.empty();
    d.restore_summary = r;
  }
  d.sse_type = info.sse_type;
  d.kms_master_key_arn = info.kms_key_arn;
  if (!info.global.replicas.empty()) {
    d.replicas = info.global.replicas;
    d.global_table_witnesses = info.global.witnesses;
    d.global_table_version = "2019.11.21";
    d.multi_region_consistency = info.global.strong ? "STRONG" : "EVENTUAL";
  }
  if (!info.loading.empty()) d.table_status = "CREATING";
  if (!info.settling.empty() && d.table_status == "ACTIVE" && change_log_->Now() < info.settles_at) {
    d.table_status = info.settling;
    if (info.settling == "CREATING") {
      for (auto& ix : d.global_secondary_indexes) ix.index_status = "CREATING";
    }
  }
  return d;
}

// ---------------------------------------------------------------- table operations

StatusOr<CreateTableResponse> DBImpl::CreateTable(const CreateTableRequest& req) {
  const double now = change_log_->Now();  // the database's clock, which tests may move
  DR_ASSIGN_OR_RETURN(TableInfo info, ValidateCreateTable(req, now));
  DR_RETURN_IF_ERROR(ApplyCreateTableSettings(
      req, "arn:aws:kms:" + options_.region + ":" + options_.account_id + ":", &info));
  if (req.resource_policy) {
    DR_RETURN_IF_ERROR(CheckResourcePolicy(*req.resource_policy));
    info.policy = *req.resource_policy;
    info.policy_revision = std::to_string(static_cast<int64_t>(std::llround(now * 1000)));
  }
  info.uuid = NewUuid();
  info.creation_time = now;
  if (info.billing_mode == "PAY_PER_REQUEST") info.pay_per_request_since = info.creation_time;

  if (options_.transient_status_seconds > 0) {
    info.settling = "CREATING";
    info.settles_at = change_log_->Now() + options_.transient_status_seconds;
  }
  std::unique_lock lock(catalog_mu_);
  if (Deleting(info.name)) {
    return ResourceInUse("Attempt to change a resource which is still in use: Table is being "
                         "deleted: " + info.name);
  }
  rocksdb::WriteBatch batch;
  DR_RETURN_IF_ERROR(
      AdmitNewTable(&info, &batch, ResourceInUse("Table already exists: " + info.name)));
  if (info.stream_specification && info.stream_specification->stream_enabled) {
    change_log_->CreateStream(&info, AllocateId(&batch), &batch);
  }
  Status committed = PersistTable(info, &batch);
  if (committed.ok()) committed = Commit(&batch);
  change_log_->Publish(committed.ok());
  DR_RETURN_IF_ERROR(committed);
  auto ptr = std::make_shared<TableInfo>(std::move(info));
  tables_[ptr->name] = ptr;
  CatalogChanged();
  CreateTableResponse resp;
  resp.table_description = Describe(*ptr, "CREATING");
  for (auto& ix : resp.table_description.global_secondary_indexes) ix.index_status = "CREATING";
  return resp;
}

StatusOr<DescribeTableResponse> DBImpl::DescribeTable(const DescribeTableRequest& req) {
  DR_RETURN_IF_ERROR(ValidateTableName(req.table_name, "tableName"));
  auto table = FindAnyTable(req.table_name);
  if (!table.ok()) {
    std::shared_lock lock(catalog_mu_);
    if (const TableDescription* gone = Deleting(TableNameOf(req.table_name))) {
      DescribeTableResponse resp;
      resp.table = *gone;
      return resp;
    }
    return TableNotFound(req.table_name);
  }
  DescribeTableResponse resp;
  resp.table = Describe(**table, "ACTIVE");
  return resp;
}

DB::MemoryUse DBImpl::MemoryInUse() const {
  MemoryUse use;
  if (block_cache_) {
    use.block_cache_bytes = block_cache_->GetUsage();
    use.block_cache_capacity = block_cache_->GetCapacity();
  }
  for (auto* cf : {catalog_cf_, items_cf_, indexes_cf_, streams_cf_}) {
    uint64_t bytes = 0;
    if (cf != nullptr && db_->GetIntProperty(cf, "rocksdb.cur-size-all-mem-tables", &bytes)) {
      use.memtable_bytes += bytes;
    }
  }
  return use;
}

void DBImpl::CatalogChanged() {
  static std::atomic<uint64_t> process_versions{0};
  catalog_version_.store(process_versions.fetch_add(1) + 1, std::memory_order_release);
}

StatusOr<TableDescription> DBImpl::DescribeKeys(const std::string& table) {
  auto info = FindTable(table);
  if (!info.ok()) {
    return TableNotFound(table);
  }
  // Only what a planner reads: names, key schemas, attribute definitions.
  const TableInfo& t = **info;
  TableDescription d;
  d.table_name = t.name;
  d.table_status = "ACTIVE";
  d.key_schema = t.key_schema;
  d.attribute_definitions = t.attribute_definitions;
  for (const auto& ix : t.indexes) {
    IndexDescription id;
    id.index_name = ix.name;
    id.key_schema = ix.key_schema;
    (ix.global ? d.global_secondary_indexes : d.local_secondary_indexes).push_back(std::move(id));
  }
  return d;
}

StatusOr<DeleteTableResponse> DBImpl::DeleteTable(const DeleteTableRequest& req) {
  DR_RETURN_IF_ERROR(ValidateTableName(req.table_name, "tableName"));
  std::unique_lock lock(catalog_mu_);
  auto it = tables_.find(TableNameOf(req.table_name));
  if (it == tables_.end()) {
    return TableNotFound(req.table_name);
  }
  TableInfoPtr info = it->second;
  if (!info->loading.empty()) {
    return ResourceInUse("Attempt to change a resource which is still in use: Table is being "
                         "created: " + info->name);
  }
  if (info->deletion_protection) {
    return ValidationError("Resource cannot be deleted as it is currently protected against "
                           "deletion. Disable deletion protection first.");
  }
  DeleteTableResponse resp;
  resp.table_description = Describe(*info, "DELETING");

  // One atomic batch: the catalog entry, the statistics and every key of the table
  // and its indexes (range deletions, not item by item).
  rocksdb::WriteBatch batch;
  StageDropTable(*info, &batch);
  Status committed = Commit(&batch);
  change_log_->Publish(committed.ok());
  DR_RETURN_IF_ERROR(committed);
  tables_.erase(it);
  CatalogChanged();
  if (options_.transient_status_seconds > 0) {
    deleting_[resp.table_description.table_name] = {
        resp.table_description, change_log_->Now() + options_.transient_status_seconds};
  }
  return resp;
}

void DBImpl::StageDropTable(const TableInfo& info, rocksdb::WriteBatch* batch,
                            bool keep_catalog_entry) {
  if (!keep_catalog_entry) batch->Delete(catalog_cf_, kTablePrefix + info.name).PermitUncheckedError();
  batch->Delete(catalog_cf_, StatsKey(info.id)).PermitUncheckedError();
  auto delete_prefix = [&](rocksdb::ColumnFamilyHandle* cf, uint32_t id) {
    batch->DeleteRange(cf, EncodeTablePrefix(id), EncodeTablePrefix(id + 1)).PermitUncheckedError();
  };
  delete_prefix(items_cf_, info.id);
  if (info.pitr_history_id) change_log_->DropHistory(info.pitr_history_id, batch);
  for (const auto& ix : info.indexes) {
    delete_prefix(indexes_cf_, ix.id);
    batch->Delete(catalog_cf_, StatsKey(ix.id)).PermitUncheckedError();
  }
  // The stream stays readable, disabled, until its records age out.
  if (info.stream_id && !keep_catalog_entry) change_log_->DisableStream(info.stream_id, batch);
  if (info.kinesis_log_id && !keep_catalog_entry) change_log_->DisableStream(info.kinesis_log_id, batch);
}

const TableDescription* DBImpl::Deleting(std::string_view name) const {
  auto it = deleting_.find(name);
  if (it == deleting_.end() || change_log_->Now() >= it->second.until) return nullptr;
  return &it->second.description;
}

StatusOr<ListTablesResponse> DBImpl::ListTables(const ListTablesRequest& req) {
  int64_t limit = req.limit.value_or(100);
  if (limit < 1 || limit > 100) {
    return ValidationError("1 validation error detected: Value '" + std::to_string(limit) +
                           "' at 'limit' failed to satisfy constraint: Member must have value " +
                           (limit < 1 ? "greater than or equal to 1" : "less than or equal to 100"));
  }
  if (req.exclusive_start_table_name) {
    DR_RETURN_IF_ERROR(ValidateTableName(*req.exclusive_start_table_name, "exclusiveStartTableName"));
  }
  ListTablesResponse resp;
  std::shared_lock lock(catalog_mu_);
  // Tables still DELETING are listed too, as DynamoDB lists them.
  std::set<std::string, std::less<>> names;
  for (const auto& [name, table] : tables_) names.insert(name);
  for (const auto& [name, gone] : deleting_)
    if (Deleting(name)) names.insert(name);
  auto it = req.exclusive_start_table_name ? names.upper_bound(*req.exclusive_start_table_name)
                                           : names.begin();
  for (; it != names.end() && static_cast<int64_t>(resp.table_names.size()) < limit; ++it) {
    resp.table_names.push_back(*it);
  }
  if (it != names.end() && !resp.table_names.empty()) {
    resp.last_evaluated_table_name = resp.table_names.back();
  }
  return resp;
}

Status DBImpl::SetGlobalTable(std::string_view table, const GlobalTableMembers& members) {
  return AlterTable(table, TableNotFound(table), [&](TableInfo* t) {
    t->global = members;
    if (members.replicas.empty()) t->global = GlobalTableMembers();
    return Status();
  });
}

StatusOr<UpdateTableResponse> DBImpl::UpdateTable(const UpdateTableRequest& req) {
  DR_RETURN_IF_ERROR(ValidateTableName(req.table_name, "tableName"));
  DR_RETURN_IF_ERROR(CheckUpdateTableRequest(req));
  std::unique_lock lock(catalog_mu_);
  auto it = tables_.find(TableNameOf(req.table_name));
  if (it == tables_.end()) {
    return TableNotFound(req.table_name);
  }
  if (req.global()) {
    // A replica is a table in another region: `dynarock serve` holds each
    // region's tables and makes them (tools/server/global_tables.h).
    return ValidationError("Replicas are tables in other regions, and this database holds one region: "
                           "create them through dynarock serve, which holds a namespace per region");
  }
  if (!it->second->loading.empty()) {
    return ResourceInUse("Attempt to change a resource which is still in use: Table is being "
                         "created: " + it->second->name);
  }
  if (req.stream_specification && !it->second->global.replicas.empty()) {
    // Replication reads the stream (NEW_AND_OLD_IMAGES), as DynamoDB's does.
    return ValidationError("Table " + it->second->name + " is a replica of a global table: its stream "
                           "(NEW_AND_OLD_IMAGES) carries the replication and cannot change while it has replicas");
  }
  TableInfo info = *it->second;
  DR_RETURN_IF_ERROR(ValidateUpdateTable(req, &info, change_log_->Now()));
  if (req.sse_specification) {
    DR_RETURN_IF_ERROR(ApplySseSpecification(
        *req.sse_specification, "sSESpecification",
        "arn:aws:kms:" + options_.region + ":" + options_.account_id + ":", &info));
  }
  rocksdb::WriteBatch batch;
  std::optional<uint32_t> created;
  for (auto& ix : info.indexes) {
    if (ix.id == 0) {
      ix.id = AllocateId(&batch);
      created = ix.id;
    }
  }
  // A deleted index's entries go with one range deletion. The response still
  // lists it, DELETING, as DynamoDB's does; later descriptions no longer do.
  std::vector<IndexInfo> deleted;
  for (const auto& old_index : it->second->indexes) {
    bool kept = false;
    for (const auto& ix : info.indexes) kept |= ix.id == old_index.id;
    if (kept) continue;
    deleted.push_back(old_index);
    deleted.back().status = "DELETING";
    batch.DeleteRange(indexes_cf_, EncodeTablePrefix(old_index.id),
                      EncodeTablePrefix(old_index.id + 1)).PermitUncheckedError();
    batch.Delete(catalog_cf_, StatsKey(old_index.id)).PermitUncheckedError();
  }
  const bool stream_enabled =
      req.stream_specification && req.stream_specification->stream_enabled;
  if (req.stream_specification) {
    // Disabling closes the stream; enabling makes a new one.
    if (it->second->stream_id) change_log_->DisableStream(it->second->stream_id, &batch);
    if (stream_enabled) change_log_->CreateStream(&info, AllocateId(&batch), &batch);
  }
  if (options_.transient_status_seconds > 0) {
    info.settling = "UPDATING";
    info.settles_at = change_log_->Now() + options_.transient_status_seconds;
  }
  Status committed = PersistTable(info, &batch);
  if (committed.ok()) committed = Commit(&batch);
  change_log_->Publish(committed.ok());
  DR_RETURN_IF_ERROR(committed);
  auto ptr = std::make_shared<TableInfo>(std::move(info));
  it->second = ptr;
  CatalogChanged();
  UpdateTableResponse resp;
  TableInfo shown = *ptr;
  for (auto& ix : deleted) shown.indexes.push_back(std::move(ix));
  resp.table_description = Describe(shown, "UPDATING");
  lock.unlock();
  // A write that read the catalog before the stream was enabled has no
  // record: wait until every such write has committed, so that each write
  // committing after UpdateTable returns is in the new stream.
  if (stream_enabled) WaitForWritesInProgress();
  if (created) StartBackfill(ptr->name, *created);
  return resp;
}

}  // namespace dynarock
