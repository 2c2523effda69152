// File: bench/engine/engine_bench.cc
//
// Micro-benchmarks of the embedded engine (dynarock::DB in memory), each next to
// a baseline doing the raw RocksDB work the operation implies, so that the gap
// is the engine's own cost (validation, key and item codecs, expressions, index
// maintenance, locking):
//
//   BM_PutItem_0Gsi / _1Gsi / _5Gsi    PutItem of a ~200-byte item into a table
//                                      with 0, 1 or 5 GSIs (projection ALL)
//   BM_PutItemMoved_0Gsi               the same, the request's item moved into the engine
//   BM_RawRocksDBPut/N                 what PutItem does in RocksDB: Get of the old
//                                      item, then one WriteBatch with 1 + N Puts
//                                      (item, index entries) and 1 + N statistics
//                                      Merges
//   BM_TransactWriteItems10            TransactWriteItems of 10 Puts
//   BM_RawRocksDBWriteBatch10          10 Gets + one WriteBatch of 10 Puts and
//                                      10 Merges
//   BM_BatchWriteItem25                BatchWriteItem of 25 Puts (a load's request)
//   BM_RawRocksDBMultiGetWrite25       a MultiGet of the 25 keys + one WriteBatch of
//                                      25 Puts and one statistics Merge
//   BM_BatchGetItem100                 BatchGetItem of 100 existing keys
//   BM_RawRocksDBMultiGet100           MultiGet of the same 100 keys
//   BM_GetItem / BM_RawRocksDBGet      one existing item
//   BM_Query100 / BM_RawRocksDBIterate100
//                                      Query of a 100-item partition (every item
//                                      returned) / an iterator over its keys
//   BM_Scan1000 / BM_RawRocksDBScan1000
//                                      one Scan page of Limit 1,000 / an iterator
//                                      over the same 1,000 entries of the table
//   BM_QueryFilter1000                 Query of a 1,000-item partition with a
//                                      FilterExpression matching 10%
//   BM_RawRocksDBIterate1000           an iterator over the same 1,000 keys
//   BM_ConditionParseEvaluate          expr::ParseCondition + EvaluateCondition
//   BM_UpdateParseApply                expr::ParseUpdate + ApplyUpdate (on a copy)
//   BM_ItemEncode / BM_ItemDecode      the item codec, 20 attributes
//
// Both databases keep their files in a RocksDB MemEnv (Options.in_memory for the
// engine), with the engine's column families, block cache, write buffer sizes
// (64 MiB, stated) and write options
// (in memory the engine writes no WAL, so neither does the baseline), so the
// comparison is like for like. DYNAROCK_BENCH_DIR=DIR
// puts the engine's files on disk in DIR instead (the engine-only comparisons,
// such as PutItemStream/1 over /0, as an embedding app runs).
//
// After the usual table, the run prints each engine operation's CPU time as a
// ratio of its raw RocksDB baseline's ("ratio GetItem / RawRocksDBGet: 1.32x").
//
//   ./build/bench/engine_bench --benchmark_min_time=0.2
//   ./build/bench/engine_bench --benchmark_filter='PutItem|RawRocksDBPut'

#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "bench/engine/engine_bench.h"

namespace engine_bench {
namespace {

// Registered in pairs (engine operation, then its raw RocksDB baseline) so that
// each pair runs under the same background conditions.
BENCHMARK(BM_PutItem_0Gsi);
BENCHMARK(BM_PutItemMoved_0Gsi);
BENCHMARK(BM_PutItem_1Gsi);
BENCHMARK(BM_PutItem_5Gsi);
BENCHMARK(BM_PutItemStream)->Arg(0)->Arg(1);
BENCHMARK(BM_GetRecords1000);
BENCHMARK(BM_RawRocksDBPut)->Arg(0)->Arg(1)->Arg(5);
BENCHMARK(BM_TransactWriteItems10);
BENCHMARK(BM_BatchWriteItem25);
BENCHMARK(BM_RawRocksDBMultiGetWrite25);
BENCHMARK(BM_RawRocksDBWriteBatch10);
BENCHMARK(BM_GetItem);
BENCHMARK(BM_GetItemEncoded);
BENCHMARK(BM_RawRocksDBGet);
BENCHMARK(BM_BatchGetItem100);
BENCHMARK(BM_BatchGetItem100Encoded);
BENCHMARK(BM_RawRocksDBMultiGet100);
BENCHMARK(BM_Query100);
BENCHMARK(BM_Query100Encoded);
BENCHMARK(BM_QueryJson100);
BENCHMARK(BM_QueryJson100Encoded);
BENCHMARK(BM_RawRocksDBIterate100);
BENCHMARK(BM_Scan1000);
BENCHMARK(BM_Scan1000Encoded);
BENCHMARK(BM_RawRocksDBScan1000);
BENCHMARK(BM_QueryFilter1000);
BENCHMARK(BM_QueryFilter1000Encoded);
BENCHMARK(BM_RawRocksDBIterate1000);
BENCHMARK(BM_ConditionParseEvaluate);
BENCHMARK(BM_UpdateParseApply);
BENCHMARK(BM_ItemEncode);
BENCHMARK(BM_ItemDecode);

// The console output, then one line per (operation, baseline) pair: the
// operation's CPU time per item over the baseline's.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.error_occurred || run.iterations == 0) continue;
      cpu_ns_[run.benchmark_name()] = run.GetAdjustedCPUTime();
    }
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    static constexpr std::pair<const char*, const char*> kPairs[] = {
        {"BM_GetItem", "BM_RawRocksDBGet"},
        {"BM_PutItem_0Gsi", "BM_RawRocksDBPut/0"},
        {"BM_PutItemMoved_0Gsi", "BM_RawRocksDBPut/0"},
        {"BM_PutItem_1Gsi", "BM_RawRocksDBPut/1"},
        {"BM_PutItem_5Gsi", "BM_RawRocksDBPut/5"},
        {"BM_PutItemStream/1", "BM_PutItemStream/0"},
        {"BM_TransactWriteItems10", "BM_RawRocksDBWriteBatch10"},
        {"BM_BatchWriteItem25", "BM_RawRocksDBMultiGetWrite25"},
        {"BM_GetItemEncoded", "BM_RawRocksDBGet"},
        {"BM_BatchGetItem100", "BM_RawRocksDBMultiGet100"},
        {"BM_BatchGetItem100Encoded", "BM_RawRocksDBMultiGet100"},
        {"BM_Query100", "BM_RawRocksDBIterate100"},
        {"BM_Query100Encoded", "BM_RawRocksDBIterate100"},
        {"BM_Scan1000", "BM_RawRocksDBScan1000"},
        {"BM_Scan1000Encoded", "BM_RawRocksDBScan1000"},
        {"BM_QueryFilter1000", "BM_RawRocksDBIterate1000"},
        {"BM_QueryFilter1000Encoded", "BM_RawRocksDBIterate1000"},
    };
    bool header = false;
    for (const auto& [op, base] : kPairs) {
      auto a = cpu_ns_.find(op), b = cpu_ns_.find(base);
      if (a == cpu_ns_.end() || b == cpu_ns_.end() || b->second <= 0) continue;
      if (!header) {
        std::printf("\nCPU time of each operation over its baseline (raw RocksDB; for\n"
                    "PutItemStream/1, the same PutItem without a stream):\n");
        header = true;
      }
      std::printf("  ratio %-24s / %-26s %6.2fx\n", op + 3, base + 3, a->second / b->second);
    }
    std::fflush(stdout);
  }

 private:
  std::map<std::string, double> cpu_ns_;
};

}  // namespace
}  // namespace engine_bench

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  engine_bench::RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
