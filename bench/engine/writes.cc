// File: bench/engine/writes.cc
//
// The write benchmarks: PutItem (0, 1 or 5 GSIs; copying and taking its item;
// with a stream), BatchWriteItem, TransactWriteItems; and GetRecords.

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

// The timed loop of the PutItem benchmarks: the prebuilt write items in
// turn into `table`.
void PutLoop(benchmark::State& state, dynarock::DB* db, const std::string& table) {
  dynarock::PutItemRequest req;
  req.table_name = table;
  size_t counter = 0;
  for (auto _ : state) {
    Item& item = NextWriteItem(&counter);
    req.item.swap(item);
    auto r = db->PutItem(req);
    req.item.swap(item);
    if (!r.ok()) {
      state.SkipWithError(r.status().ToString().c_str());
      break;
    }
  }
  state.SetItemsProcessed(state.iterations());
}

void PutItemBench(benchmark::State& state, int gsis) {
  PutLoop(state, GetEngine().db.get(), "put" + std::to_string(gsis));
  state.counters["item_bytes"] = static_cast<double>(dynarock::EncodeItem(WriteItem(0, 0)).size());
}

void BM_PutItem_0Gsi(benchmark::State& state) { PutItemBench(state, 0); }
// The same PutItem taking its request's item (DB::PutItem(PutItemRequest&&),
// as the endpoint calls it): the loop copies the next item into the request,
// the engine moves it into the write instead of copying it again.
void PutItemMovedBench(benchmark::State& state, int gsis) {
  dynarock::DB* db = GetEngine().db.get();
  dynarock::PutItemRequest req;
  req.table_name = "put" + std::to_string(gsis);
  size_t counter = 0;
  for (auto _ : state) {
    req.item = NextWriteItem(&counter);
    auto r = db->PutItem(std::move(req));
    if (!r.ok()) {
      state.SkipWithError(r.status().ToString().c_str());
      break;
    }
  }
  state.SetItemsProcessed(state.iterations());
}
void BM_PutItemMoved_0Gsi(benchmark::State& state) { PutItemMovedBench(state, 0); }
void BM_PutItem_1Gsi(benchmark::State& state) { PutItemBench(state, 1); }
void BM_PutItem_5Gsi(benchmark::State& state) { PutItemBench(state, 5); }
// PutItem with and without a stream, each on a fresh database of its own (so
// neither inherits the other's memtables and compactions): /0 a table
// without a stream, /1 the same table with a NEW_AND_OLD_IMAGES stream, whose
// writes also record their change (both images) in the same commit.
void BM_PutItemStream(benchmark::State& state) {
  dynarock::Options options;
  const char* dir = std::getenv("DYNAROCK_BENCH_DIR");
  options.in_memory = dir == nullptr || *dir == '\0';
  const std::string path = options.in_memory ? "" : std::string(dir) + "-stream";
  if (!options.in_memory) std::filesystem::remove_all(path);
  auto opened = dynarock::DB::Open(options, path);
  Check(opened.status(), "DB::Open");
  std::unique_ptr<dynarock::DB> db = std::move(*opened);
  auto table = TableRequest("puts", 0);
  if (state.range(0)) {
    table.stream_specification = dynarock::StreamSpecification{true, "NEW_AND_OLD_IMAGES"};
  }
  Check(db->CreateTable(table).status(), "CreateTable");
  PutLoop(state, db.get(), "puts");
}

// GetRecords: pages of 1000 records read from the start of a stream of
// kStreamRecords records (iterator from GetShardIterator, then the pages'
// NextShardIterator), decoded into StreamRecord structs.
void BM_GetRecords1000(benchmark::State& state) {
  dynarock::DB* db = GetEngine().db.get();
  dynarock::DescribeTableRequest dt;
  dt.table_name = "records";
  auto table = db->DescribeTable(dt);
  Check(table.status(), "DescribeTable");
  dynarock::DescribeStreamRequest ds;
  ds.stream_arn = *table->table.latest_stream_arn;
  auto stream = db->DescribeStream(ds);
  Check(stream.status(), "DescribeStream");
  dynarock::GetShardIteratorRequest gi;
  gi.stream_arn = ds.stream_arn;
  gi.shard_id = stream->stream_description.shards.at(0).shard_id;
  std::string iterator;
  int64_t records = 0;
  for (auto _ : state) {
    if (iterator.empty()) {
      auto it = db->GetShardIterator(gi);
      Check(it.status(), "GetShardIterator");
      iterator = *it->shard_iterator;
    }
    dynarock::GetRecordsRequest req;
    req.shard_iterator = iterator;
    auto r = db->GetRecords(req);
    if (!r.ok()) {
      state.SkipWithError(r.status().ToString().c_str());
      break;
    }
    records += static_cast<int64_t>(r->records.size());
    iterator = r->records.empty() ? std::string() : r->next_shard_iterator.value_or("");
  }
  state.SetItemsProcessed(records);
}

// BatchWriteItem of 25 Puts into the table without indexes, the prebuilt
// write items swapped in and out as PutLoop does (the load's request:
// bench/scale/scale_bench.cc).
void BM_BatchWriteItem25(benchmark::State& state) {
  dynarock::DB* db = GetEngine().db.get();
  dynarock::BatchWriteItemRequest req;
  std::vector<dynarock::WriteRequest>& writes = req.request_items["put0"];
  writes.resize(25);
  for (auto& w : writes) w.put_item.emplace();
  size_t counter = 0;
  Item* items[25];
  for (auto _ : state) {
    for (int j = 0; j < 25; ++j) {
      items[j] = &NextWriteItem(&counter);
      writes[j].put_item->swap(*items[j]);
    }
    auto r = db->BatchWriteItem(req);
    for (int j = 0; j < 25; ++j) writes[j].put_item->swap(*items[j]);
    if (!r.ok()) {
      state.SkipWithError(r.status().ToString().c_str());
      break;
    }
  }
  state.SetItemsProcessed(state.iterations() * 25);
}

void BM_TransactWriteItems10(benchmark::State& state) {
  dynarock::DB* db = GetEngine().db.get();
  dynarock::TransactWriteItemsRequest req;
  req.transact_items.resize(10);
  for (auto& t : req.transact_items) {
    t.kind = dynarock::TransactWriteItem::Kind::kPut;
    t.table_name = "txn";
  }
  size_t counter = 0;
  Item* items[10];
  for (auto _ : state) {
    for (int j = 0; j < 10; ++j) {
      items[j] = &NextWriteItem(&counter);
      req.transact_items[j].item.swap(*items[j]);
    }
    auto r = db->TransactWriteItems(req);
    for (int j = 0; j < 10; ++j) req.transact_items[j].item.swap(*items[j]);
    if (!r.ok()) {
      state.SkipWithError(r.status().ToString().c_str());
      break;
    }
  }
  state.SetItemsProcessed(state.iterations() * 10);
}

}  // namespace engine_bench
