// File: bench/engine/engine_bench.h
//
// engine_bench's parts (bench/engine/engine_bench.cc says what each benchmark
// measures): the shared engine and raw RocksDB databases with their items
// (fixtures.cc), and the benchmarks, by kind: writes.cc, reads.cc, raw.cc
// (the baselines), codec_expr.cc.

#ifndef DYNAROCK_BENCH_ENGINE_ENGINE_BENCH_H_
#define DYNAROCK_BENCH_ENGINE_ENGINE_BENCH_H_

#include <benchmark/benchmark.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/status.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dynarock/db.h"

namespace engine_bench {

using dynarock::AttributeValue;
using dynarock::Item;

// Keys a write benchmark cycles over (each write overwrites an existing item
// after the first pass, so the old item is read, decoded and its index entries
// replaced, as in a steady-state workload).
constexpr int kWriteKeys = 10000;
// Items preloaded for the read benchmarks.
constexpr int kReadKeys = 10000;
// Items in the queried partition, and one in kFilterEvery matches the filter.
constexpr int kPartitionItems = 1000;
constexpr int kSmallPartitionItems = 100;
constexpr int kStreamRecords = 20000;
constexpr int kScanPage = 1000;
constexpr int kFilterEvery = 10;
constexpr int kMaxGsis = 5;

[[noreturn]] void Die(const std::string& what);
void Check(const dynarock::Status& s, const char* what);
void Check(const rocksdb::Status& s, const char* what);

// The items: "prefix" + i zero-padded; the write benchmarks' ~200-byte item i
// (seq = `seq`); the read benchmarks' items; an item for the expression
// benchmarks; a 20-attribute item for the codec's.
std::string Numbered(const char* prefix, int i);
Item WriteItem(int i, int64_t seq);
Item ReadItem(const std::string& pk, const std::string& sk, bool active);
Item ExpressionItem();
Item CodecItem();

// A pk/sk table with `gsis` GSIs projecting everything.
dynarock::CreateTableRequest TableRequest(const std::string& name, int gsis);

// One in-memory DB for the whole run, its tables created and preloaded once.
struct Engine {
  std::unique_ptr<dynarock::DB> db;
  Engine();
};
Engine& GetEngine();
// 2 x kWriteKeys prebuilt write items, built with the engine.
std::vector<Item>& WriteItems();
// The next write item in turn (`*counter` counts the calls).
Item& NextWriteItem(size_t* counter);

// A bare RocksDB set up like the engine's (MemEnv, same column families, block
// cache and write options), with the same keys and values precomputed.
struct Raw {
  std::unique_ptr<rocksdb::Env> env;
  rocksdb::DB* db = nullptr;
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::ColumnFamilyHandle* catalog = nullptr;
  rocksdb::ColumnFamilyHandle* items = nullptr;
  rocksdb::ColumnFamilyHandle* indexes = nullptr;
  rocksdb::WriteOptions wo;

  // Write benchmarks: item keys and, per GSI, index entry keys of kWriteKeys items.
  std::vector<std::string> write_keys;
  std::vector<std::string> index_keys[kMaxGsis];
  std::string write_value;  // the encoded write item
  // Read benchmarks.
  std::vector<std::string> read_keys;
  std::string partition_prefix;
  std::string small_partition_prefix;

  // In the engine's order of creation: "records" sorts before "reads".
  static constexpr uint32_t kWriteTable = 1, kRecordsTable = 2, kReadTable = 3, kQueryTable = 4,
                            kIndexBase = 10;
  Raw();
};
Raw& GetRaw();

// The benchmarks (registered in pairs in engine_bench.cc).
void BM_PutItem_0Gsi(benchmark::State& state);
void BM_PutItemMoved_0Gsi(benchmark::State& state);
void BM_PutItem_1Gsi(benchmark::State& state);
void BM_PutItem_5Gsi(benchmark::State& state);
void BM_PutItemStream(benchmark::State& state);
void BM_GetRecords1000(benchmark::State& state);
void BM_RawRocksDBPut(benchmark::State& state);
void BM_TransactWriteItems10(benchmark::State& state);
void BM_BatchWriteItem25(benchmark::State& state);
void BM_RawRocksDBMultiGetWrite25(benchmark::State& state);
void BM_RawRocksDBWriteBatch10(benchmark::State& state);
void BM_GetItem(benchmark::State& state);
void BM_GetItemEncoded(benchmark::State& state);
void BM_RawRocksDBGet(benchmark::State& state);
void BM_BatchGetItem100(benchmark::State& state);
void BM_BatchGetItem100Encoded(benchmark::State& state);
void BM_RawRocksDBMultiGet100(benchmark::State& state);
void BM_Query100(benchmark::State& state);
void BM_Query100Encoded(benchmark::State& state);
void BM_QueryJson100(benchmark::State& state);
void BM_QueryJson100Encoded(benchmark::State& state);
void BM_RawRocksDBIterate100(benchmark::State& state);
void BM_Scan1000(benchmark::State& state);
void BM_Scan1000Encoded(benchmark::State& state);
void BM_RawRocksDBScan1000(benchmark::State& state);
void BM_QueryFilter1000(benchmark::State& state);
void BM_QueryFilter1000Encoded(benchmark::State& state);
void BM_RawRocksDBIterate1000(benchmark::State& state);
void BM_ConditionParseEvaluate(benchmark::State& state);
void BM_UpdateParseApply(benchmark::State& state);
void BM_ItemEncode(benchmark::State& state);
void BM_ItemDecode(benchmark::State& state);

}  // namespace engine_bench

#endif  // DYNAROCK_BENCH_ENGINE_ENGINE_BENCH_H_
