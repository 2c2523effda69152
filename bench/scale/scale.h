// File: bench/scale/scale.h
//
// scale_bench's parts (bench/scale/scale_bench.cc says what it measures):
// the items and helpers (items.cc), loading and compacting a size's
// database (load.cc), the measuring children (measure.cc) and the tables
// printed (report.cc).

#ifndef DYNAROCK_BENCH_SCALE_SCALE_H_
#define DYNAROCK_BENCH_SCALE_SCALE_H_

#include <rocksdb/status.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dynarock/db.h"

namespace scale {

using dynarock::AttributeValue;
using dynarock::Item;
using Clock = std::chrono::steady_clock;

constexpr int kPartitionItems = 20;
constexpr int kBatchItems = 25;  // BatchWriteItem's maximum
constexpr int kScanPage = 1000;
inline const char* const kTable = "scale";

// ---- items.cc: helpers, the items, the table
[[noreturn]] void Die(const std::string& what);
void Check(const dynarock::Status& s, const char* what);
void Check(const rocksdb::Status& s, const char* what);
double Seconds(Clock::duration d);
// CPU seconds (user + system) used by the whole process so far, every thread.
double ProcessCpuSeconds();
// The calling thread's CPU time.
double ThreadCpuSeconds();
double Median(std::vector<double> v);
uint64_t SplitMix(uint64_t x);
struct Rng {
  uint64_t state;
  explicit Rng(uint64_t seed) : state(seed) {}
  uint64_t Next() { return state = SplitMix(state); }
  uint64_t Below(uint64_t n) { return Next() % n; }
};
std::string PartitionKey(uint64_t p);
std::string SortKey(int s);
// --random-values: every text attribute random, not only "bio".
extern bool g_random_values;
// Item `sk` of partition p (200 bytes by DynamoDB's rules), "seq" = version.
void MakeItem(uint64_t p, const std::string& sk, uint64_t version, Item* out);
Item KeyOf(uint64_t p, const std::string& sk);
void CreateTable(dynarock::DB* db);
void TableStats(dynarock::DB* db, int64_t* items, int64_t* bytes);
// The bytes of the files in `dir`; with `suffix`, only of the files so named.
uint64_t DirBytes(const std::string& dir, const std::string& suffix = "");

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

enum Op { kGet, kGetEnc, kQuery, kQueryEnc, kScan, kScanEnc, kPut, kPutNew, kOps };
inline const char* const kOpNames[kOps] = {"GetItem", "GetItem enc", "Query20", "Query20 enc",
                                           "Scan",    "Scan enc",    "PutItem", "PutItem new"};
inline bool IsScan(int op) { return op == kScan || op == kScanEnc; }

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

// ---- load.cc: a size's database
dynarock::Options DbOptions(const Config& cfg);
std::unique_ptr<dynarock::DB> OpenDb(const Config& cfg, const std::string& dir);
// Every column family compacted to its last level through the engine;
// returns the items column family's table-file bytes.
uint64_t CompactToLastLevel(const Config& cfg, const std::string& dir);
// Loads n items through BatchWriteItem from `threads` threads; returns seconds.
double Load(dynarock::DB* db, uint64_t n, int threads);
// The load's baseline in RocksDB alone; returns seconds, *cpu_s CPU seconds.
double RawLoad(const std::string& dir, uint64_t n, int threads, bool with_gets, double* cpu_s);
// Loads (or reuses), sizes and compacts the database of n items in `dir`.
Row Prepare(const Config& cfg, uint64_t n, const std::string& dir);

// ---- measure.cc: the measuring children
void Pin(int cpu);
// The child process's part: one round on one size's database.
int ChildMain(const Config& cfg, uint64_t n, int round);
// Runs `command` (this program in child mode) and adds what it reports to `row`.
void RunChild(const std::string& command, Row* row);

// ---- report.cc: the tables
std::string Count(uint64_t n);
// `v` formatted with `fmt` ("-" when not measured).
std::string Num(double v, const char* fmt);
void PrintTables(const std::vector<Row>& rows, bool measured);

}  // namespace scale

#endif  // DYNAROCK_BENCH_SCALE_SCALE_H_
