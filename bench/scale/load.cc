// File: bench/scale/load.cc
//
// Loading a size's database through BatchWriteItem (and, as its baseline,
// into RocksDB alone), sizing it, and compacting it through the engine.

#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/merge_operator.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>

#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <thread>

#include "bench/scale/scale.h"
#include "dynarock/item_size.h"
#include "engine/item_codec.h"
#include "engine/storage_env.h"
#include "index/maintainer.h"

namespace scale {

dynarock::Options DbOptions(const Config& cfg) {
  dynarock::Options o;
  if (cfg.block_cache_mb > 0) o.block_cache_bytes = cfg.block_cache_mb << 20;
  return o;
}

std::unique_ptr<dynarock::DB> OpenDb(const Config& cfg, const std::string& dir) {
  auto opened = dynarock::DB::Open(DbOptions(cfg), dir);
  Check(opened.status(), "DB::Open");
  return std::move(*opened);
}

// Compacts every column family of the database in `dir` to its last level,
// through the engine (internal::CompactAll), so that the files it writes have
// the engine's filters, as its own compactions would. Returns the items
// column family's table-file bytes.
uint64_t CompactToLastLevel(const Config& cfg, const std::string& dir) {
  auto db = OpenDb(cfg, dir);
  uint64_t items_bytes = 0;
  Check(dynarock::internal::CompactAll(db.get(), &items_bytes), "CompactAll");
  return items_bytes;
}

double Load(dynarock::DB* db, uint64_t n, int threads) {
  const uint64_t batches = (n + kBatchItems - 1) / kBatchItems;
  std::atomic<uint64_t> done{0};
  std::atomic<bool> failed{false};
  std::string error;
  std::mutex error_mu;
  constexpr size_t kPool = 4096;
  std::vector<std::vector<Item>> pools(static_cast<size_t>(threads));
  for (int t = 0; t < threads; ++t) {
    for (size_t i = 0; i < kPool; ++i) {
      pools[static_cast<size_t>(t)].emplace_back();
      MakeItem(static_cast<uint64_t>(t) * kPool + i, SortKey(0), 0,
               &pools[static_cast<size_t>(t)].back());
    }
  }
  auto worker = [&](int t) {
    // The items are built before the clock starts, as engine_bench's write
    // benchmarks do: kPool of them per thread, swapped into the request and
    // back (O(1)), only their key set for each write. So the load measures
    // BatchWriteItem, not the building of std::map items. (Their other
    // attributes repeat every kPool items, too far apart for a 4 KiB block's
    // compression to see.)
    std::vector<Item>& pool = pools[static_cast<size_t>(t)];
    dynarock::BatchWriteItemRequest req;
    std::vector<dynarock::WriteRequest>& writes = req.request_items[kTable];
    std::vector<AttributeValue> sks;
    for (int s = 0; s < kPartitionItems; ++s) sks.push_back(AttributeValue::S(SortKey(s)));
    size_t next = 0;
    std::vector<size_t> used;
    for (uint64_t b = static_cast<uint64_t>(t); b < batches && !failed;
         b += static_cast<uint64_t>(threads)) {
      const uint64_t begin = b * kBatchItems, end = std::min(n, begin + kBatchItems);
      writes.resize(end - begin);
      used.clear();
      for (uint64_t j = begin; j < end; ++j) {
        auto& w = writes[j - begin];
        if (!w.put_item) w.put_item.emplace();
        const size_t k = next++ % pool.size();
        used.push_back(k);
        Item& item = pool[k];
        item.find("pk")->second = AttributeValue::S(PartitionKey(j / kPartitionItems));
        item.find("sk")->second = sks[j % kPartitionItems];
        w.put_item->swap(item);
      }
      auto r = db->BatchWriteItem(req);
      for (size_t i = 0; i < used.size(); ++i) writes[i].put_item->swap(pool[used[i]]);
      if (!r.ok() || !r->unprocessed_items.empty()) {
        std::lock_guard<std::mutex> lock(error_mu);
        error = r.ok() ? "unprocessed items" : r.status().ToString();
        failed = true;
        return;
      }
      done.fetch_add(end - begin, std::memory_order_relaxed);
    }
  };
  const auto start = Clock::now();
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) workers.emplace_back(worker, t);
  // Progress on stderr every 10%.
  uint64_t next_report = n / 10;
  while (true) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const uint64_t d = done.load();
    if (d >= n || failed) break;
    if (d >= next_report && n >= 1000000) {
      const double s = Seconds(Clock::now() - start);
      std::fprintf(stderr, "  loaded %3d%%  %11" PRIu64 " items  %6.1f s  %9.0f items/s\n",
                   static_cast<int>(100 * d / n), d, s, static_cast<double>(d) / s);
      while (next_report <= d) next_report += n / 10;
    }
  }
  for (auto& w : workers) w.join();
  if (failed) Die("BatchWriteItem: " + error);
  return Seconds(Clock::now() - start);
}

// The baseline for the load: RocksDB alone, opened with the engine's column
// families and default options (32 MiB block cache, WAL on, no fsync), fed
// what BatchWriteItem commits for the same items: per WriteBatch of 25, 25
// item Puts (keys laid out as engine/key_codec.h's: table id, partition hash,
// pk, sk; values the items' encodings) and 25 statistics Merges. With
// `with_gets`, each item's key is first read (Get), as BatchWriteItem reads
// the old item. Returns the load's seconds; *cpu_s the process CPU seconds.
double RawLoad(const std::string& dir, uint64_t n, int threads, bool with_gets, double* cpu_s) {
  std::filesystem::remove_all(dir);
  rocksdb::DBOptions options;
  options.create_if_missing = true;
  options.create_missing_column_families = true;
  options.max_background_jobs = 2;
  options.keep_log_file_num = 2;
  options.info_log_level = rocksdb::InfoLogLevel::WARN_LEVEL;
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = rocksdb::NewLRUCache(32u << 20);
  rocksdb::ColumnFamilyOptions cf;
  cf.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  rocksdb::ColumnFamilyOptions catalog = cf;
  catalog.merge_operator = dynarock::internal::NewStatsMergeOperator();
  std::vector<rocksdb::ColumnFamilyDescriptor> families = {
      {rocksdb::kDefaultColumnFamilyName, catalog},
      {"items", cf},
      {"indexes", cf},
      {"streams", cf}};
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  Check(rocksdb::DB::Open(options, dir, families, &handles, &raw), "rocksdb::DB::Open");
  constexpr size_t kPool = 4096;
  std::vector<std::string> values;
  for (size_t i = 0; i < kPool; ++i) {
    Item item;
    MakeItem(i, SortKey(0), 0, &item);
    values.push_back(dynarock::EncodeItem(item));
  }
  std::string stats_key = "s/";
  stats_key.append("\0\0\0\1", 4);
  const std::string delta = dynarock::StatsDelta(1, 200);
  const uint64_t batches = (n + kBatchItems - 1) / kBatchItems;
  std::atomic<uint64_t> done{0};
  auto worker = [&](int t) {
    rocksdb::WriteBatch batch;
    std::string key, old;
    size_t next = 0;
    for (uint64_t b = static_cast<uint64_t>(t); b < batches; b += static_cast<uint64_t>(threads)) {
      const uint64_t begin = b * kBatchItems, end = std::min(n, begin + kBatchItems);
      batch.Clear();
      for (uint64_t j = begin; j < end; ++j) {
        const std::string pk = PartitionKey(j / kPartitionItems);
        const std::string sk = SortKey(static_cast<int>(j % kPartitionItems));
        key.assign("\0\0\0\1", 4);
        const uint64_t h = SplitMix(std::hash<std::string>()(pk));
        for (int i = 7; i >= 0; --i) key.push_back(static_cast<char>(h >> (8 * i)));
        key.push_back('\1');
        key.push_back(static_cast<char>(pk.size()));
        key += pk;
        key += sk;
        if (with_gets) {
          rocksdb::Status st = raw->Get(rocksdb::ReadOptions(), handles[1], key, &old);
          if (!st.ok() && !st.IsNotFound()) Check(st, "Get");
        }
        Check(batch.Put(handles[1], key, values[next++ % kPool]), "Put");
        Check(batch.Merge(handles[0], stats_key, delta), "Merge");
      }
      Check(raw->Write(rocksdb::WriteOptions(), &batch), "Write");
      done.fetch_add(end - begin, std::memory_order_relaxed);
    }
  };
  const double cpu0 = ProcessCpuSeconds();
  const auto start = Clock::now();
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) workers.emplace_back(worker, t);
  for (auto& w : workers) w.join();
  const double seconds = Seconds(Clock::now() - start);
  *cpu_s = ProcessCpuSeconds() - cpu0;
  for (auto* h : handles) Check(raw->DestroyColumnFamilyHandle(h), "DestroyColumnFamilyHandle");
  Check(raw->Close(), "Close");
  delete raw;
  std::filesystem::remove_all(dir);
  return seconds;
}

Row Prepare(const Config& cfg, uint64_t n, const std::string& dir) {
  Row row;
  row.items = n;
  const uint64_t partitions = n / kPartitionItems;
  const bool reuse = cfg.reuse && std::filesystem::exists(dir + "/CURRENT");
  std::fprintf(stderr, "== %" PRIu64 " items (%" PRIu64 " partitions) in %s%s\n", n, partitions,
               dir.c_str(), reuse ? " (reused)" : "");
  if (!reuse) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    {
      auto db = OpenDb(cfg, dir);
      CreateTable(db.get());
      const double cpu0 = ProcessCpuSeconds();
      row.load_s = Load(db.get(), n, cfg.load_threads);
      row.load_cpu_s = ProcessCpuSeconds() - cpu0;
      row.load_items_per_s = static_cast<double>(n) / row.load_s;
      std::fprintf(stderr,
                   "  load: %.2f s, %.0f items/s (%d threads); %.2f CPU s, %.0f items per CPU s\n",
                   row.load_s, row.load_items_per_s, cfg.load_threads, row.load_cpu_s,
                   static_cast<double>(n) / row.load_cpu_s);
    }  // closed
    row.disk_loaded = DirBytes(dir);
    row.wal_loaded = DirBytes(dir, ".log");
  }
  // A reused database is compacted too: earlier runs' writes (and the
  // tombstones of their deleted new items) would otherwise stay in its
  // memtable and upper levels, in the way of Scan.
  if (cfg.compact && !cfg.load_only) {
    const auto t0 = Clock::now();
    row.items_cf_bytes = CompactToLastLevel(cfg, dir);
    row.compact_s = Seconds(Clock::now() - t0);
  }
  row.disk_compacted = DirBytes(dir);
  {
    auto db = OpenDb(cfg, dir);
    int64_t count = 0, bytes = 0;
    TableStats(db.get(), &count, &bytes);
    if (count != static_cast<int64_t>(n)) {
      Die("ItemCount " + std::to_string(count));
    }
    row.ddb_bytes_per_item = static_cast<double>(bytes) / static_cast<double>(count);
  }
  std::fprintf(stderr,
               "  disk: %.1f B/item as loaded (WAL %.1f), %.1f B/item compacted (%.1f s; items CF "
               "%.1f B/item); DynamoDB size %.1f B/item\n",
               static_cast<double>(row.disk_loaded) / n, static_cast<double>(row.wal_loaded) / n,
               static_cast<double>(row.disk_compacted) / n, row.compact_s,
               static_cast<double>(row.items_cf_bytes) / n, row.ddb_bytes_per_item);
  return row;
}

}  // namespace scale
