// File: bench/scale/scale_bench.cc
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

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "bench/scale/scale.h"
#include "dynarock/item_size.h"
#include "engine/item_codec.h"

namespace scale {
namespace {

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

int Main(int argc, char** argv) {
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

}  // namespace scale

int main(int argc, char** argv) { return scale::Main(argc, argv); }
