// File: bench/scale_bench.cc
//
// Scale: does the embedded engine stay as fast with 10M items as with 10k?
//
// For each size N (default 10k, 100k, 1M, 10M) a fresh on-disk database
// (default Options: 32 MiB block cache, 64 MiB write buffers, WAL on, no
// fsync; --block-cache-mb changes the cache) is
//
//   1. loaded   CreateTable (pk S hash, sk S range), then N items of 200 bytes
//               (DynamoDB size; ~240 bytes encoded) as partitions of 20 items,
//               through DB::BatchWriteItem, 25 puts a request (the embedded
//               API's batch path; there is no other public bulk path), from
//               --load-threads threads (default one per core). Reported:
//               items/s from the first request to the last response, and the
//               process's CPU seconds meanwhile (all threads, RocksDB's flushes
//               and compactions included). Progress on stderr every 10%.
//   2. sized    The DB is closed and the directory's file bytes summed ("as
//               loaded": table files + write-ahead log). The DB has no public
//               compaction call, so it is opened again and every column family
//               compacted to its last level through the engine's internal hook
//               (engine/storage_env.h: CompactRange, bottommost level forced,
//               the files written with the engine's Bloom and prefix filters,
//               as its own compactions write them); then summed again. Reported next to the items' DynamoDB size per item
//               (DescribeTable's TableSizeBytes / ItemCount).
//
// Then the operations are measured in --rounds (5) rounds; each round runs
// every size in turn, each in a fresh process of its own (this program again,
// in child mode: its own heap, nothing of the other sizes' databases), which
// opens the DB (cold block cache) and, per operation, warms up and then times
// --blocks (2) blocks of calls (--get-ops etc. spread over all the blocks).
// On a shared machine a slow stretch then falls on all sizes alike. Each
// figure is the median over the blocks of the block's mean; a ratio to the
// smallest size is the median of the per-block ratios (block i of a size
// over block i of the smallest, same round); p50/p99 are over all timed
// calls. Wall-clock time and the measuring thread's CPU time are both kept.
//
//   GetItem       random existing keys (Items, and encoded_items as the
//                 endpoint asks for them)
//   Query20       `pk = :p` of a random partition: its 20 items (Items, encoded)
//   Scan          pages of Limit 1000 chained by ExclusiveStartKey over the
//                 first min(N, --scan-items) items of the table, round and
//                 round (Items, encoded); items/s
//   PutItem       overwrite of a random existing item ("seq" changed), and
//                 insert of a new item (a new partition; deleted again
//                 afterwards, untimed, so the table keeps N items)
//
//   build/bench/scale_bench                              # 10k,100k,1M,10M
//   build/bench/scale_bench --sizes 10k,1M
//   SCALE_BENCH_SIZES=10k,100k build/bench/scale_bench --dir /tmp/scale --keep
//   build/bench/scale_bench --dir /tmp/scale --reuse --block-cache-mb 4096
//
// Options: --sizes LIST (also $SCALE_BENCH_SIZES; k and M suffixes; rounded
// up to whole partitions), --dir DIR (a subdirectory nN per size; default a new
// /tmp/dynarock-scale-XXXXXX), --keep (keep the databases), --reuse (measure
// the databases an earlier --keep left in DIR instead of loading), --load-only,
// --no-compact, --load-threads N, --pin CPU (the measuring thread), --rounds N,
// --blocks N, --get-ops N (20000), --query-ops N (5000), --put-ops N (20000),
// --scan-items N (200000), --block-cache-mb N, --ops get,query,scan,put,
// --prefill (each measuring process first Scans the whole table, so that a
// block cache large enough to hold it starts full), --raw-load (the load's
// baseline: each size also loaded into RocksDB alone, the same keys, values
// and statistics merges in WriteBatches of 25, without and with a Get per
// item as BatchWriteItem makes; printed after the tables), --random-values
// (every text attribute random, so that compression gains nothing: the disk's
// worst case).

#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/merge_operator.h>
#include <rocksdb/metadata.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>
#include <sched.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "dynarock/db.h"
#include "dynarock/item_size.h"
#include "engine/item_codec.h"
#include "engine/storage_env.h"
#include "index/maintainer.h"

namespace {

using dynarock::AttributeValue;
using dynarock::Item;
using Clock = std::chrono::steady_clock;

constexpr int kPartitionItems = 20;
constexpr int kBatchItems = 25;  // BatchWriteItem's maximum
constexpr int kScanPage = 1000;
const char* const kTable = "scale";

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "scale_bench: %s\n", what.c_str());
  std::exit(1);
}
void Check(const dynarock::Status& s, const char* what) {
  if (!s.ok()) Die(std::string(what) + ": " + s.ToString());
}
void Check(const rocksdb::Status& s, const char* what) {
  if (!s.ok()) Die(std::string(what) + ": " + s.ToString());
}

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// CPU seconds (user + system) used by the whole process so far, every thread
// (RocksDB's flushes and compactions included).
double ProcessCpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// ---------------------------------------------------------------- the items

uint64_t SplitMix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::string PartitionKey(uint64_t p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "part#%08" PRIu64, p);
  return buf;
}
std::string SortKey(int s) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "item#%02d", s);
  return buf;
}

// --random-values: every text attribute random, not only "bio".
bool g_random_values = false;

// `len` characters drawn at random (from `*r`) from 64.
std::string RandomText(size_t len, uint64_t* r) {
  static const char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string s(len, ' ');
  for (size_t i = 0; i < len; ++i) {
    if (i % 10 == 0) *r = SplitMix(*r + i);
    s[i] = kAlphabet[(*r >> (6 * (i % 10))) & 63];
  }
  return s;
}

// Item s of partition p, 200 bytes by DynamoDB's rules: the key, a few short
// attributes that repeat from item to item (as real items' do) and a 72-char
// text drawn at random from 64 characters, which block compression (Snappy,
// RocksDB's default) cannot shrink. With --random-values the short texts are
// random too (same lengths): the worst case for the disk. `version` goes into
// "seq" (overwrites change it).
void MakeItem(uint64_t p, const std::string& sk, uint64_t version, Item* out) {
  const uint64_t id = p * 64 + std::hash<std::string>()(sk);
  Item& item = *out;
  char buf[64];
  item["pk"] = AttributeValue::S(PartitionKey(p));
  item["sk"] = AttributeValue::S(sk);
  const uint64_t h = SplitMix(id);
  uint64_t r = h;
  if (g_random_values) {
    item["status"] = AttributeValue::S(RandomText(6, &r));
    item["name"] = AttributeValue::S(RandomText(13, &r));
    item["email"] = AttributeValue::S(RandomText(24, &r));
    item["tags"] = AttributeValue::SS(
        {"a" + RandomText(4, &r), "b" + RandomText(3, &r), "c" + RandomText(4, &r)});
  } else {
    item["status"] = AttributeValue::S((h & 3) == 0 ? "idle" : "active");
    std::snprintf(buf, sizeof buf, "User %08" PRIu64, p);
    item["name"] = AttributeValue::S(buf);
    std::snprintf(buf, sizeof buf, "user%08" PRIu64 "@example.com", p);
    item["email"] = AttributeValue::S(buf);
    item["tags"] = AttributeValue::SS({"alpha", "beta", "gamma"});
  }
  item["age"] = AttributeValue::N(std::to_string(18 + h % 70));
  std::snprintf(buf, sizeof buf, "%" PRIu64 ".5", 1000 + (h >> 8) % 9000);
  item["score"] = AttributeValue::N(buf);
  item["verified"] = AttributeValue::Bool(((h >> 20) & 1) != 0);
  item["bio"] = AttributeValue::S(RandomText(72, &r));
  item["seq"] = AttributeValue::N(std::to_string(version));
}

// ---------------------------------------------------------------- the DB

void CreateTable(dynarock::DB* db) {
  dynarock::CreateTableRequest req;
  req.table_name = kTable;
  req.billing_mode = "PAY_PER_REQUEST";
  req.key_schema = {{"pk", dynarock::KeyType::kHash}, {"sk", dynarock::KeyType::kRange}};
  req.attribute_definitions = {{"pk", dynarock::AttrType::kS}, {"sk", dynarock::AttrType::kS}};
  Check(db->CreateTable(req).status(), "CreateTable");
}

void TableStats(dynarock::DB* db, int64_t* items, int64_t* bytes) {
  dynarock::DescribeTableRequest req;
  req.table_name = kTable;
  auto r = db->DescribeTable(req);
  Check(r.status(), "DescribeTable");
  *items = r->table.item_count;
  *bytes = r->table.table_size_bytes;
}

// The bytes of the files in `dir`; with `suffix`, only of the files so named.
uint64_t DirBytes(const std::string& dir, const std::string& suffix = "") {
  uint64_t total = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (!suffix.empty() &&
        (name.size() < suffix.size() ||
         name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)) {
      continue;
    }
    if (e.is_regular_file()) total += e.file_size();
  }
  return total;
}

// The catalog column family's merge operator, as engine/db_open.cc defines it
// (index/maintainer.h's statistics deltas, summed), so that RocksDB can flush
// and compact the catalog when this bench opens the files directly.
class StatsMerge : public rocksdb::AssociativeMergeOperator {
 public:
  bool Merge(const rocksdb::Slice&, const rocksdb::Slice* existing, const rocksdb::Slice& value,
             std::string* new_value, rocksdb::Logger*) const override {
    int64_t c0 = 0, b0 = 0, c1 = 0, b1 = 0;
    if (existing) dynarock::DecodeStatsDelta(existing->ToStringView(), &c0, &b0);
    dynarock::DecodeStatsDelta(value.ToStringView(), &c1, &b1);
    *new_value = dynarock::StatsDelta(c0 + c1, b0 + b1);
    return true;
  }
  const char* Name() const override { return "dynarock.StatsMergeOperator"; }
};

// ---------------------------------------------------------------- measuring

struct Config {
  std::vector<uint64_t> sizes = {10000, 100000, 1000000, 10000000};
  std::string dir;
  bool keep = false;
  bool reuse = false;
  bool compact = true;
  bool load_only = false;
  int load_threads = 0;
  int pin = -1;
  int rounds = 5;           // measuring processes per size, interleaved across sizes
  int blocks = 2;           // timed blocks per operation per round
  uint64_t child_size = 0;  // internal: run as a measuring child for this size
  int child_round = 0;
  int get_ops = 20000;
  int query_ops = 5000;
  int put_ops = 20000;
  uint64_t scan_items = 200000;
  size_t block_cache_mb = 0;  // 0: Options' default
  bool raw_load = false;      // also load each size into RocksDB alone (the load's baseline)
  bool prefill = false;  // a whole-table Scan first, to fill a block cache that holds the table
  std::string ops = "get,query,scan,put";
  bool Runs(const char* op) const { return ops.find(op) != std::string::npos; }
};

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

std::string Count(uint64_t n);

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
  catalog.merge_operator = std::make_shared<StatsMerge>();
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

Item KeyOf(uint64_t p, const std::string& sk) {
  return Item{{"pk", AttributeValue::S(PartitionKey(p))}, {"sk", AttributeValue::S(sk)}};
}

// ---------------------------------------------------------------- measuring

// The calling thread's CPU time (it still counts what a busy machine's shared
// caches cost, but not the time other processes hold the core).
double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

struct Rng {
  uint64_t state;
  explicit Rng(uint64_t seed) : state(seed) {}
  uint64_t Next() { return state = SplitMix(state); }
  uint64_t Below(uint64_t n) { return Next() % n; }
};

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

// One operation on one DB, run in blocks. Requests are built beforehand, so
// only the calls are timed.
class Runner {
 public:
  virtual ~Runner() = default;
  virtual void Warmup() = 0;
  // Runs one block; appends each call's wall time (us) to `calls` when it
  // times calls; returns the units done (calls, or items for Scan).
  virtual uint64_t Block(std::vector<double>* calls) = 0;
};

template <typename F>
void Timed(std::vector<double>* calls, F f) {
  const auto t0 = Clock::now();
  f();
  calls->push_back(Seconds(Clock::now() - t0) * 1e6);
}

class GetRunner : public Runner {
 public:
  GetRunner(dynarock::DB* db, uint64_t partitions, bool encoded, int warmup, int block, int blocks,
            uint64_t seed)
      : db_(db), encoded_(encoded), warmup_(warmup), block_(block) {
    Rng rng(seed);
    for (int i = 0; i < warmup + block * blocks; ++i) {
      keys_.push_back(
          KeyOf(rng.Below(partitions), SortKey(static_cast<int>(rng.Below(kPartitionItems)))));
    }
    req_.table_name = kTable;
    req_.encoded_items = encoded;
  }
  void Warmup() override {
    for (int i = 0; i < warmup_; ++i) Call();
  }
  uint64_t Block(std::vector<double>* calls) override {
    for (int i = 0; i < block_; ++i) Timed(calls, [&] { Call(); });
    return static_cast<uint64_t>(block_);
  }

 private:
  void Call() {
    req_.key.swap(keys_[next_++]);
    auto r = db_->GetItem(req_);
    if (!r.ok() || !(encoded_ ? r->encoded_item.has_value() : r->item.has_value())) {
      Die("GetItem: " + (r.ok() ? std::string("item not found") : r.status().ToString()));
    }
  }
  dynarock::DB* db_;
  bool encoded_;
  int warmup_, block_;
  std::vector<Item> keys_;
  size_t next_ = 0;
  dynarock::GetItemRequest req_;
};

class QueryRunner : public Runner {
 public:
  QueryRunner(dynarock::DB* db, uint64_t partitions, bool encoded, int warmup, int block,
              int blocks, uint64_t seed)
      : db_(db), encoded_(encoded), warmup_(warmup), block_(block) {
    Rng rng(seed);
    for (int i = 0; i < warmup + block * blocks; ++i) {
      pks_.push_back(AttributeValue::S(PartitionKey(rng.Below(partitions))));
    }
    req_.table_name = kTable;
    req_.key_condition_expression = "pk = :p";
    req_.has_expression_attribute_values = true;
    req_.expression_attribute_values = {{":p", AttributeValue::S("")}};
    req_.encoded_items = encoded;
  }
  void Warmup() override {
    for (int i = 0; i < warmup_; ++i) Call();
  }
  uint64_t Block(std::vector<double>* calls) override {
    for (int i = 0; i < block_; ++i) Timed(calls, [&] { Call(); });
    return static_cast<uint64_t>(block_);
  }

 private:
  void Call() {
    std::swap(req_.expression_attribute_values.begin()->second, pks_[next_++]);
    auto r = db_->Query(req_);
    const size_t n = !r.ok() ? 0 : encoded_ ? r->encoded_items.size() : r->items.size();
    if (n != kPartitionItems) {
      Die("Query: " + (r.ok() ? "got " + std::to_string(n) + " items" : r.status().ToString()));
    }
  }
  dynarock::DB* db_;
  bool encoded_;
  int warmup_, block_;
  std::vector<AttributeValue> pks_;
  size_t next_ = 0;
  dynarock::QueryRequest req_;
};

// Pages of kScanPage over the first `range` items, from the start again when
// the range is done. A block reads `block` items; the warm-up, the range once.
class ScanRunner : public Runner {
 public:
  ScanRunner(dynarock::DB* db, uint64_t range, bool encoded, uint64_t block)
      : db_(db), range_(range), block_(block) {
    req_.table_name = kTable;
    req_.encoded_items = encoded;
  }
  void Warmup() override {
    uint64_t read = 0;
    while (read < range_) read += Page();
  }
  uint64_t Block(std::vector<double>*) override {
    uint64_t read = 0;
    while (read < block_) read += Page();
    return read;
  }

 private:
  uint64_t Page() {
    req_.limit = static_cast<int64_t>(std::min<uint64_t>(kScanPage, range_ - pos_));
    auto r = db_->Scan(req_);
    if (!r.ok()) Die("Scan: " + r.status().ToString());
    const uint64_t n = req_.encoded_items ? r->encoded_items.size() : r->items.size();
    if (n != static_cast<uint64_t>(*req_.limit)) Die("Scan: short page");
    pos_ += n;
    if (pos_ >= range_ || !r->last_evaluated_key) {
      pos_ = 0;
      req_.exclusive_start_key.reset();
    } else {
      req_.exclusive_start_key = std::move(r->last_evaluated_key);
    }
    return n;
  }
  dynarock::DB* db_;
  uint64_t range_, block_;
  uint64_t pos_ = 0;
  dynarock::ScanRequest req_;
};

// Overwrites of random existing items ("seq" changed), or (`fresh`) inserts
// of new items, each the first of a new partition (the key hash puts it
// anywhere in the table's key range), deleted again, untimed, by Finish().
class PutRunner : public Runner {
 public:
  PutRunner(dynarock::DB* db, uint64_t partitions, bool fresh, int warmup, int block, int blocks,
            uint64_t seed)
      : db_(db), warmup_(warmup), block_(block) {
    // New partition keys unique to this process, so that --reuse runs insert too.
    static const uint64_t run =
        static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
    static uint64_t serial = 0;
    Rng rng(seed);
    char key[64];
    items_.resize(static_cast<size_t>(warmup + block * blocks));
    for (auto& item : items_) {
      std::snprintf(key, sizeof key, "item#%02d", static_cast<int>(rng.Below(kPartitionItems)));
      MakeItem(rng.Below(partitions), key, 1 + rng.Below(1000), &item);
      if (fresh) {
        std::snprintf(key, sizeof key, "new#%016" PRIx64 "#%08" PRIu64, run, serial++);
        item["pk"] = AttributeValue::S(key);
        new_keys_.push_back(Item{{"pk", item.at("pk")}, {"sk", item.at("sk")}});
      }
    }
    req_.table_name = kTable;
  }
  void Warmup() override {
    for (int i = 0; i < warmup_; ++i) Call();
  }
  uint64_t Block(std::vector<double>* calls) override {
    for (int i = 0; i < block_; ++i) Timed(calls, [&] { Call(); });
    return static_cast<uint64_t>(block_);
  }
  void Finish() {
    dynarock::DeleteItemRequest del;
    del.table_name = kTable;
    for (size_t i = 0; i < next_ && i < new_keys_.size(); ++i) {
      del.key.swap(new_keys_[i]);
      Check(db_->DeleteItem(del).status(), "DeleteItem");
    }
  }

 private:
  void Call() {
    req_.item.swap(items_[next_++]);
    Check(db_->PutItem(req_).status(), "PutItem");
  }
  dynarock::DB* db_;
  int warmup_, block_;
  std::vector<Item> items_;
  std::vector<Item> new_keys_;
  size_t next_ = 0;
  dynarock::PutItemRequest req_;
};

enum Op { kGet, kGetEnc, kQuery, kQueryEnc, kScan, kScanEnc, kPut, kPutNew, kOps };
const char* const kOpNames[kOps] = {"GetItem", "GetItem enc", "Query20", "Query20 enc",
                                    "Scan",    "Scan enc",    "PutItem", "PutItem new"};
bool IsScan(int op) { return op == kScan || op == kScanEnc; }

// One operation's measurements on one DB.
struct Series {
  std::vector<double> wall;   // per block: wall us per unit (call, or item for Scan)
  std::vector<double> cpu;    // per block: thread CPU us per unit
  std::vector<double> calls;  // every timed call's wall us (not Scan)
  double Wall() const { return Median(wall); }
  double Cpu() const { return Median(cpu); }
  double Pct(double p) const {
    if (calls.empty()) return 0;
    std::vector<double> v = calls;
    const size_t i = std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())));
    std::nth_element(v.begin(), v.begin() + static_cast<long>(i), v.end());
    return v[i];
  }
};

struct Row {
  uint64_t items = 0;
  double load_items_per_s = 0;  // 0: not loaded by this run (--reuse)
  double load_s = 0;
  double load_cpu_s = 0;  // process CPU seconds during the load
  uint64_t disk_loaded = 0;
  uint64_t wal_loaded = 0;  // of which write-ahead log (*.log)
  uint64_t disk_compacted = 0;
  uint64_t items_cf_bytes = 0;
  double compact_s = 0;
  double ddb_bytes_per_item = 0;
  Series ops[kOps];
};

void Pin(int cpu) {
  if (cpu < 0) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0) std::perror("sched_setaffinity");
}

// Measures `op` on `db` (of `n` items): a warm-up, then cfg.blocks blocks,
// appended to `s`. Runs in a child process of its own (see main()).
void MeasureOp(const Config& cfg, int op, dynarock::DB* db, uint64_t n, int round, Series* s) {
  const int blocks = cfg.blocks;
  const int per_round = cfg.rounds * blocks;
  auto per_block = [&](int total) { return std::max(1, total / per_round); };
  const uint64_t partitions = n / kPartitionItems;
  const uint64_t seed = 1000 * static_cast<uint64_t>(op) + 17 * static_cast<uint64_t>(round) + 1;
  std::unique_ptr<Runner> r;
  switch (op) {
    case kGet:
    case kGetEnc:
      // Warm-up: enough calls to fill the block cache (or to read every
      // block of the smaller tables into it).
      r = std::make_unique<GetRunner>(db, partitions, op == kGetEnc, 20000, per_block(cfg.get_ops),
                                      blocks, seed);
      break;
    case kQuery:
    case kQueryEnc:
      r = std::make_unique<QueryRunner>(db, partitions, op == kQueryEnc, 5000,
                                        per_block(cfg.query_ops), blocks, seed);
      break;
    case kScan:
    case kScanEnc:
      r = std::make_unique<ScanRunner>(
          db, std::min(n, cfg.scan_items), op == kScanEnc,
          std::max<uint64_t>(kScanPage, cfg.scan_items / static_cast<uint64_t>(per_round)));
      break;
    default:
      r = std::make_unique<PutRunner>(db, partitions, op == kPutNew, 2000, per_block(cfg.put_ops),
                                      blocks, seed);
  }
  r->Warmup();
  for (int c = 0; c < blocks; ++c) {
    const double cpu0 = ThreadCpuSeconds();
    const auto t0 = Clock::now();
    const uint64_t units = r->Block(&s->calls);
    const double wall = Seconds(Clock::now() - t0), cpu = ThreadCpuSeconds() - cpu0;
    s->wall.push_back(wall * 1e6 / static_cast<double>(units));
    s->cpu.push_back(cpu * 1e6 / static_cast<double>(units));
  }
  if (auto* put = dynamic_cast<PutRunner*>(r.get())) put->Finish();
}

const char* const kOpGroups[kOps] = {"get", "get", "query", "query", "scan", "scan", "put", "put"};

// The child process's part: one round on one size's database, every
// operation, the results written to stdout as text lines
//   S <op> <blocks> <wall> <cpu> ...     per block, us per unit
//   C <op> <calls> <us> ...              every timed call
int ChildMain(const Config& cfg, uint64_t n, int round) {
  auto opened = dynarock::DB::Open(DbOptions(cfg), cfg.dir + "/n" + std::to_string(n));
  Check(opened.status(), "DB::Open");
  std::unique_ptr<dynarock::DB> db = std::move(*opened);
  Pin(cfg.pin);
  if (cfg.prefill) {
    ScanRunner whole(db.get(), n, true, n);
    whole.Warmup();
  }
  for (int op = 0; op < kOps; ++op) {
    if (!cfg.Runs(kOpGroups[op])) continue;
    Series s;
    MeasureOp(cfg, op, db.get(), n, round, &s);
    std::printf("S %d %zu", op, s.wall.size());
    for (size_t i = 0; i < s.wall.size(); ++i) std::printf(" %.6g %.6g", s.wall[i], s.cpu[i]);
    std::printf("\nC %d %zu", op, s.calls.size());
    for (double v : s.calls) std::printf(" %.4g", v);
    std::printf("\n");
  }
  std::fflush(stdout);
  return 0;
}

// Runs `command` (this program in child mode) and adds what it reports to `row`.
void RunChild(const std::string& command, Row* row) {
  FILE* f = popen(command.c_str(), "r");
  if (f == nullptr) Die("popen failed");
  char kind = 0;
  int op = 0;
  size_t count = 0;
  while (std::fscanf(f, " %c %d %zu", &kind, &op, &count) == 3) {
    if (op < 0 || op >= kOps) Die("bad child output");
    Series& s = row->ops[op];
    for (size_t i = 0; i < count; ++i) {
      double a = 0, b = 0;
      if (kind == 'S') {
        if (std::fscanf(f, "%lf %lf", &a, &b) != 2) Die("bad child output");
        s.wall.push_back(a);
        s.cpu.push_back(b);
      } else {
        if (std::fscanf(f, "%lf", &a) != 1) Die("bad child output");
        s.calls.push_back(a);
      }
    }
  }
  const int status = pclose(f);
  if (status != 0) Die("measuring child failed: " + command);
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

// One round of reads and writes on the database of `row->items` items in

// ---------------------------------------------------------------- output

std::string Count(uint64_t n) {
  char buf[32];
  if (n >= 1000000 && n % 1000000 == 0) {
    std::snprintf(buf, sizeof buf, "%" PRIu64 "M", n / 1000000);
  } else if (n >= 1000 && n % 1000 == 0) {
    std::snprintf(buf, sizeof buf, "%" PRIu64 "k", n / 1000);
  } else {
    std::snprintf(buf, sizeof buf, "%" PRIu64, n);
  }
  return buf;
}

std::string Num(double v, const char* fmt) {
  if (!(v > 0)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

// A figure for the tables: us per call, or items/s for Scan.
double Figure(const Series& s, int op, bool cpu) {
  const double v = cpu ? s.Cpu() : s.Wall();
  if (!(v > 0)) return 0;
  return IsScan(op) ? 1e6 / v : v;
}

void PrintTables(const std::vector<Row>& rows, bool measured) {
  std::printf("\nScale (wall clock; per call in us, Scan in items/s)\n\n");
  std::printf("| items | load items/s | disk B/item | DynamoDB B/item | disk / DynamoDB |");
  if (measured) {
    for (int op = 0; op < kOps; ++op) std::printf(" %s |", kOpNames[op]);
  }
  std::printf("\n|---|---|---|---|---|");
  if (measured) {
    for (int op = 0; op < kOps; ++op) std::printf("---|");
  }
  std::printf("\n");
  for (const Row& r : rows) {
    const double disk = static_cast<double>(r.disk_compacted) / static_cast<double>(r.items);
    std::printf("| %s | %s | %.1f | %.1f | %.2fx |", Count(r.items).c_str(),
                Num(r.load_items_per_s, "%.0f").c_str(), disk, r.ddb_bytes_per_item,
                disk / r.ddb_bytes_per_item);
    if (measured) {
      for (int op = 0; op < kOps; ++op) {
        std::printf(IsScan(op) ? " %.0f |" : " %.2f |", Figure(r.ops[op], op, false));
      }
    }
    std::printf("\n");
  }

  std::printf("\nLoad and disk\n\n");
  std::printf(
      "| items | load s | load CPU s (all threads) | items per CPU s | "
      "disk as loaded B/item | of which WAL | compacted B/item | items CF B/item | "
      "compaction s |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|\n");
  for (const Row& r : rows) {
    const double n = static_cast<double>(r.items);
    std::printf("| %s | %s | %s | %s | %s | %s | %.1f | %s | %s |\n", Count(r.items).c_str(),
                Num(r.load_s, "%.1f").c_str(), Num(r.load_cpu_s, "%.1f").c_str(),
                Num(n / r.load_cpu_s, "%.0f").c_str(),
                Num(static_cast<double>(r.disk_loaded) / n, "%.1f").c_str(),
                Num(static_cast<double>(r.wal_loaded) / n, "%.1f").c_str(),
                static_cast<double>(r.disk_compacted) / n,
                Num(static_cast<double>(r.items_cf_bytes) / n, "%.1f").c_str(),
                Num(r.compact_s, "%.1f").c_str());
  }
  if (!measured) return;

  std::printf("\nWall-clock p50 / p99 per call, us\n\n|items|");
  for (int op = 0; op < kOps; ++op) {
    if (!IsScan(op)) std::printf(" %s |", kOpNames[op]);
  }
  std::printf("\n|---|");
  for (int op = 0; op < kOps; ++op) {
    if (!IsScan(op)) std::printf("---|");
  }
  std::printf("\n");
  for (const Row& r : rows) {
    std::printf("| %s |", Count(r.items).c_str());
    for (int op = 0; op < kOps; ++op) {
      if (!IsScan(op)) std::printf(" %.1f / %.1f |", r.ops[op].Pct(0.5), r.ops[op].Pct(0.99));
    }
    std::printf("\n");
  }

  std::printf(
      "\nThe measuring thread's CPU time: per call in us, Scan in items per CPU second\n\n");
  std::printf("| items |");
  for (int op = 0; op < kOps; ++op) std::printf(" %s |", kOpNames[op]);
  std::printf("\n|---|");
  for (int op = 0; op < kOps; ++op) std::printf("---|");
  std::printf("\n");
  for (const Row& r : rows) {
    std::printf("| %s |", Count(r.items).c_str());
    for (int op = 0; op < kOps; ++op) {
      std::printf(IsScan(op) ? " %.0f |" : " %.2f |", Figure(r.ops[op], op, true));
    }
    std::printf("\n");
  }

  if (rows.size() < 2) return;
  const Row& b = rows.front();
  auto ratios = [&](const char* title, bool cpu) {
    std::printf("\n%s\n\n| items |", title);
    for (int op = 0; op < kOps; ++op) std::printf(" %s |", kOpNames[op]);
    std::printf("\n|---|");
    for (int op = 0; op < kOps; ++op) std::printf("---|");
    std::printf("\n");
    for (const Row& r : rows) {
      std::printf("| %s |", Count(r.items).c_str());
      for (int op = 0; op < kOps; ++op) {
        // Time per unit (call or scanned item) over the base's, cycle by cycle.
        const auto& mine = cpu ? r.ops[op].cpu : r.ops[op].wall;
        const auto& base = cpu ? b.ops[op].cpu : b.ops[op].wall;
        std::vector<double> q;
        for (size_t c = 0; c < mine.size() && c < base.size(); ++c) q.push_back(mine[c] / base[c]);
        std::printf(" %.2fx |", Median(q));
      }
      std::printf("\n");
    }
  };
  const std::string base = Count(b.items);
  ratios(("Ratio to the " + base +
          " row, wall clock: time per call (Scan: per item), the "
          "median of the per-block ratios; > 1 is slower")
             .c_str(),
         false);
  ratios(("Ratio to the " + base + " row, the measuring thread's CPU time").c_str(), true);
}

// ---------------------------------------------------------------- arguments

uint64_t ParseCount(const std::string& s) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  double mult = 1;
  if (end && (*end == 'k' || *end == 'K')) mult = 1e3;
  if (end && (*end == 'm' || *end == 'M')) mult = 1e6;
  if (!(v > 0)) Die("bad count '" + s + "'");
  return static_cast<uint64_t>(v * mult + 0.5);
}

std::vector<uint64_t> ParseSizes(const std::string& list) {
  std::vector<uint64_t> sizes;
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = list.find(',', start);
    const std::string part = list.substr(start, comma == std::string::npos ? comma : comma - start);
    if (!part.empty()) {
      uint64_t n = ParseCount(part);
      // Whole partitions of 20 items.
      n = std::max<uint64_t>(kPartitionItems,
                             (n + kPartitionItems - 1) / kPartitionItems * kPartitionItems);
      sizes.push_back(n);
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (sizes.empty()) Die("no sizes in '" + list + "'");
  return sizes;
}

Config ParseArgs(int argc, char** argv) {
  Config cfg;
  if (const char* env = std::getenv("SCALE_BENCH_SIZES"); env && *env) cfg.sizes = ParseSizes(env);
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      const size_t eq = a.find('=');
      if (eq != std::string::npos) return a.substr(eq + 1);
      if (i + 1 >= argc) Die("missing value for " + a);
      return argv[++i];
    };
    auto is = [&](const char* name) {
      return a == name || a.rfind(std::string(name) + "=", 0) == 0;
    };
    if (is("--sizes"))
      cfg.sizes = ParseSizes(value());
    else if (is("--dir"))
      cfg.dir = value();
    else if (a == "--keep")
      cfg.keep = true;
    else if (a == "--no-compact")
      cfg.compact = false;
    else if (a == "--reuse")
      cfg.reuse = true;
    else if (a == "--prefill")
      cfg.prefill = true;
    else if (a == "--raw-load")
      cfg.raw_load = true;
    else if (a == "--random-values")
      g_random_values = true;
    else if (is("--rounds"))
      cfg.rounds = std::max(1, std::stoi(value()));
    else if (is("--blocks"))
      cfg.blocks = std::max(1, std::stoi(value()));
    else if (is("--child-size"))
      cfg.child_size = std::stoull(value());
    else if (is("--child-round"))
      cfg.child_round = std::stoi(value());
    else if (is("--ops"))
      cfg.ops = value();
    else if (is("--block-cache-mb"))
      cfg.block_cache_mb = ParseCount(value());
    else if (a == "--load-only")
      cfg.load_only = true;
    else if (is("--load-threads"))
      cfg.load_threads = std::stoi(value());
    else if (is("--pin"))
      cfg.pin = std::stoi(value());
    else if (is("--get-ops"))
      cfg.get_ops = static_cast<int>(ParseCount(value()));
    else if (is("--query-ops"))
      cfg.query_ops = static_cast<int>(ParseCount(value()));
    else if (is("--put-ops"))
      cfg.put_ops = static_cast<int>(ParseCount(value()));
    else if (is("--scan-items"))
      cfg.scan_items = ParseCount(value());
    else if (a == "--help" || a == "-h") {
      std::printf(
          "scale_bench [--sizes 10k,100k,1M,10M] [--dir DIR] [--keep] [--reuse] [--no-compact]\n"
          "            [--load-only] [--load-threads N] [--pin CPU] [--get-ops N]\n"
          "            [--query-ops N] [--put-ops N] [--scan-items N] [--block-cache-mb N]\n"
          "            [--rounds N] [--blocks N] [--ops get,query,scan,put] [--prefill]\n"
          "            [--raw-load] [--random-values]\n");
      std::exit(0);
    } else {
      Die("unknown argument '" + a + "' (--help)");
    }
  }
  if (cfg.load_threads <= 0) {
    cfg.load_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  }
  return cfg;
}

}  // namespace

int main(int argc, char** argv) {
  Config cfg = ParseArgs(argc, argv);
  if (cfg.child_size > 0) return ChildMain(cfg, cfg.child_size, cfg.child_round);
  bool made_dir = false;
  if (cfg.dir.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/dynarock-scale-XXXXXX";
    if (mkdtemp(templ.data()) == nullptr) Die("mkdtemp failed");
    cfg.dir = templ;
    made_dir = true;
  }
  {
    Item sample;
    MakeItem(0, SortKey(0), 0, &sample);
    const dynarock::Options o = DbOptions(cfg);
    std::fprintf(stderr, "scale_bench: sizes");
    for (uint64_t n : cfg.sizes) std::fprintf(stderr, " %s", Count(n).c_str());
    std::fprintf(stderr,
                 "; item %zu bytes (DynamoDB size), %zu encoded; BatchWriteItem x25 from %d "
                 "thread(s); block cache %zu MiB; %d rounds x %d blocks\n",
                 dynarock::ItemSize(sample), dynarock::EncodeItem(sample).size(), cfg.load_threads,
                 o.block_cache_bytes >> 20, cfg.rounds, cfg.blocks);
  }
  auto dir_of = [&](uint64_t n) { return cfg.dir + "/n" + std::to_string(n); };
  std::vector<Row> rows;
  for (uint64_t n : cfg.sizes) rows.push_back(Prepare(cfg, n, dir_of(n)));
  if (!cfg.load_only) {
    // Each round measures every size in turn, each in a process of its own
    // (this program again, in child mode): a fresh heap and nothing of the
    // other sizes' databases, while a slow stretch of a shared machine falls
    // on all sizes alike.
    // /proc/<pid>/exe: this very binary, even if a build replaces the file
    // meanwhile (in popen's shell /proc/self/exe would name the shell).
    std::string base = "/proc/" + std::to_string(getpid()) + "/exe";
    for (int i = 1; i < argc; ++i) {
      std::string a = argv[i];
      std::string q = "'";
      for (char c : a) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
      base += " " + q + "'";
    }
    base += " --dir '" + cfg.dir + "'";
    std::fprintf(stderr, "measuring: %d rounds over the sizes\n", cfg.rounds);
    for (int round = 0; round < cfg.rounds; ++round) {
      for (Row& row : rows) {
        RunChild(base + " --child-size " + std::to_string(row.items) + " --child-round " +
                     std::to_string(round),
                 &row);
      }
      std::fprintf(stderr, "  round %d:", round + 1);
      for (const Row& row : rows) {
        const Series& g = row.ops[kGet];
        if (!g.wall.empty())
          std::fprintf(stderr, "  %s GetItem %.2f us", Count(row.items).c_str(), g.wall.back());
      }
      std::fprintf(stderr, "\n");
    }
  }
  if (!cfg.keep && !cfg.reuse) {
    for (uint64_t n : cfg.sizes) std::filesystem::remove_all(dir_of(n));
  }
  PrintTables(rows, !cfg.load_only);
  if (cfg.raw_load) {
    std::printf(
        "\nThe load's baseline: RocksDB alone, WriteBatches of 25 Puts + 25 Merges, %d "
        "thread(s)\n\n| items | BatchWriteItem items/s | RocksDB items/s | RocksDB with a "
        "Get per item, items/s | items per CPU s: BatchWriteItem / RocksDB / with Gets |\n"
        "|---|---|---|---|---|\n",
        cfg.load_threads);
    for (const Row& r : rows) {
      double cpu = 0, cpu_gets = 0;
      const std::string dir = cfg.dir + "/raw" + std::to_string(r.items);
      const double s = RawLoad(dir, r.items, cfg.load_threads, false, &cpu);
      const double s_gets = RawLoad(dir, r.items, cfg.load_threads, true, &cpu_gets);
      const double n = static_cast<double>(r.items);
      std::fprintf(stderr, "  raw RocksDB %s: %.0f items/s, with Gets %.0f items/s\n",
                   Count(r.items).c_str(), n / s, n / s_gets);
      std::printf("| %s | %s | %.0f | %.0f | %s / %.0f / %.0f |\n", Count(r.items).c_str(),
                  Num(r.load_items_per_s, "%.0f").c_str(), n / s, n / s_gets,
                  Num(n / r.load_cpu_s, "%.0f").c_str(), n / cpu, n / cpu_gets);
    }
  }
  if (made_dir && !cfg.keep && !cfg.reuse) std::filesystem::remove_all(cfg.dir);
  return 0;
}
