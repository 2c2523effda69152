// File: bench/engine/raw.cc
//
// The raw RocksDB baselines: the RocksDB calls each engine operation makes,
// on precomputed keys and values.

#include <benchmark/benchmark.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <type_traits>
#include <vector>

#include "bench/engine/engine_bench.h"
#include "engine/api/json_encode.h"
#include "engine/expr/expression.h"
#include "engine/item_codec.h"
#include "engine/key_codec.h"
#include "engine/storage_env.h"
#include "index/maintainer.h"

namespace engine_bench {

using dynarock::StatsDelta;
using dynarock::StatsKey;

// Get of the old item, then 1 + N Puts and 1 + N stats Merges in one batch.
void BM_RawRocksDBPut(benchmark::State& state) {
  Raw& raw = GetRaw();
  const int gsis = static_cast<int>(state.range(0));
  const std::string delta = StatsDelta(0, 0);
  std::vector<std::string> stats_keys;
  for (int g = 0; g <= gsis; ++g) stats_keys.push_back(StatsKey(Raw::kWriteTable + g));
  rocksdb::PinnableSlice old;
  rocksdb::WriteBatch batch;
  size_t i = 0;
  for (auto _ : state) {
    const size_t k = i++ % raw.write_keys.size();
    old.Reset();
    rocksdb::Status s = raw.db->Get(rocksdb::ReadOptions(), raw.items, raw.write_keys[k], &old);
    if (!s.ok() && !s.IsNotFound()) Die(s.ToString());
    batch.Clear();
    batch.Put(raw.items, raw.write_keys[k], raw.write_value);
    batch.Merge(raw.catalog, stats_keys[0], delta);
    for (int g = 0; g < gsis; ++g) {
      batch.Put(raw.indexes, raw.index_keys[g][k], raw.write_value);
      batch.Merge(raw.catalog, stats_keys[g + 1], delta);
    }
    Check(raw.db->Write(raw.wo, &batch), "Write");
  }
  state.SetItemsProcessed(state.iterations());
}

// TransactWriteItems' RocksDB work: 10 Gets, then one batch of 10 Puts and
// 10 Merges.
void BM_RawRocksDBWriteBatch10(benchmark::State& state) {
  Raw& raw = GetRaw();
  const std::string delta = StatsDelta(0, 0);
  const std::string stats_key = StatsKey(Raw::kWriteTable + 100);
  rocksdb::PinnableSlice old;
  rocksdb::WriteBatch batch;
  size_t i = 0;
  for (auto _ : state) {
    batch.Clear();
    for (int j = 0; j < 10; ++j) {
      const size_t k = i++ % raw.write_keys.size();
      old.Reset();
      rocksdb::Status s = raw.db->Get(rocksdb::ReadOptions(), raw.items, raw.write_keys[k], &old);
      if (!s.ok() && !s.IsNotFound()) Die(s.ToString());
      batch.Put(raw.items, raw.write_keys[k], raw.write_value);
      batch.Merge(raw.catalog, stats_key, delta);
    }
    Check(raw.db->Write(raw.wo, &batch), "Write");
  }
  state.SetItemsProcessed(state.iterations() * 10);
}

// BatchWriteItem's RocksDB work for 25 Puts into one table: one MultiGet of
// the old versions, then one batch of 25 Puts and the table's statistics
// Merge.
void BM_RawRocksDBMultiGetWrite25(benchmark::State& state) {
  Raw& raw = GetRaw();
  const std::string delta = StatsDelta(0, 0);
  const std::string stats_key = StatsKey(Raw::kWriteTable + 200);
  std::vector<rocksdb::Slice> keys(25);
  std::vector<rocksdb::PinnableSlice> old(25);
  std::vector<rocksdb::Status> found(25);
  rocksdb::WriteBatch batch;
  size_t i = 0;
  for (auto _ : state) {
    for (auto& k : keys) k = raw.write_keys[i++ % raw.write_keys.size()];
    for (auto& o : old) o.Reset();
    raw.db->MultiGet(rocksdb::ReadOptions(), raw.items, keys.size(), keys.data(), old.data(),
                     found.data());
    for (const auto& s : found) {
      if (!s.ok() && !s.IsNotFound()) Die(s.ToString());
    }
    batch.Clear();
    for (const auto& k : keys) batch.Put(raw.items, k, raw.write_value);
    batch.Merge(raw.catalog, stats_key, delta);
    Check(raw.db->Write(raw.wo, &batch), "Write");
  }
  state.SetItemsProcessed(state.iterations() * 25);
}

void BM_RawRocksDBGet(benchmark::State& state) {
  Raw& raw = GetRaw();
  rocksdb::PinnableSlice value;
  size_t i = 0;
  for (auto _ : state) {
    value.Reset();
    Check(raw.db->Get(rocksdb::ReadOptions(), raw.items, raw.read_keys[i++ % raw.read_keys.size()],
                      &value),
          "Get");
    benchmark::DoNotOptimize(value.size());
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_RawRocksDBMultiGet100(benchmark::State& state) {
  Raw& raw = GetRaw();
  std::vector<rocksdb::Slice> keys(100);
  std::vector<rocksdb::PinnableSlice> values(100);
  std::vector<rocksdb::Status> statuses(100);
  size_t b = 0;
  for (auto _ : state) {
    const size_t base = (b++ % (raw.read_keys.size() / 100)) * 100;
    for (size_t j = 0; j < 100; ++j) {
      keys[j] = raw.read_keys[base + j];
      values[j].Reset();
    }
    raw.db->MultiGet(rocksdb::ReadOptions(), raw.items, 100, keys.data(), values.data(),
                     statuses.data());
    for (const auto& s : statuses) Check(s, "MultiGet");
  }
  state.SetItemsProcessed(state.iterations() * 100);
}

// Query's RocksDB work: one prefix iteration over the partition (no decoding).
void IteratePartition(benchmark::State& state, const std::string& partition_prefix, int items) {
  Raw& raw = GetRaw();
  const rocksdb::Slice prefix(partition_prefix);
  rocksdb::ReadOptions ro;
  ro.prefix_same_as_start = true;  // as the engine's Query (one partition)
  for (auto _ : state) {
    std::unique_ptr<rocksdb::Iterator> it(raw.db->NewIterator(ro, raw.items));
    int n = 0;
    size_t bytes = 0;
    for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
      bytes += it->value().size();
      ++n;
    }
    if (n != items) {
      state.SkipWithError("wrong partition size");
      break;
    }
    benchmark::DoNotOptimize(bytes);
  }
  state.SetItemsProcessed(state.iterations() * items);
}

void BM_RawRocksDBIterate1000(benchmark::State& state) {
  IteratePartition(state, GetRaw().partition_prefix, kPartitionItems);
}

void BM_RawRocksDBIterate100(benchmark::State& state) {
  IteratePartition(state, GetRaw().small_partition_prefix, kSmallPartitionItems);
}

// Scan's RocksDB work: the first 1,000 entries of the table's key range.
void BM_RawRocksDBScan1000(benchmark::State& state) {
  Raw& raw = GetRaw();
  const std::string lower = dynarock::EncodeTablePrefix(Raw::kReadTable);
  rocksdb::ReadOptions ro;
  ro.total_order_seek = true;  // across partitions, as the engine's Scan
  for (auto _ : state) {
    std::unique_ptr<rocksdb::Iterator> it(raw.db->NewIterator(ro, raw.items));
    int n = 0;
    size_t bytes = 0;
    for (it->Seek(lower); it->Valid() && n < kScanPage; it->Next()) {
      bytes += it->value().size();
      ++n;
    }
    benchmark::DoNotOptimize(bytes);
  }
  state.SetItemsProcessed(state.iterations() * kScanPage);
}

}  // namespace engine_bench
