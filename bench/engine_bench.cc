// File: bench/engine_bench.cc
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
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/env.h>
#include <rocksdb/merge_operator.h>
#include <rocksdb/options.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "dynarock/db.h"
#include "engine/api/json_encode.h"
#include "engine/expr/expression.h"
#include "engine/item_codec.h"
#include "engine/key_codec.h"
#include "engine/storage_env.h"
#include "index/maintainer.h"

namespace {

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

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "engine_bench: %s\n", what.c_str());
  std::abort();
}

void Check(const dynarock::Status& s, const char* what) {
  if (!s.ok()) Die(std::string(what) + ": " + s.ToString());
}
void Check(const rocksdb::Status& s, const char* what) {
  if (!s.ok()) Die(std::string(what) + ": " + s.ToString());
}

std::string Numbered(const char* prefix, int i) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s%06d", prefix, i);
  return buf;
}

// The write benchmarks' item, about 200 bytes (ItemSize): the table key
// (pk, sk), the key attributes of all five GSIs (gsiNpk, gsiNsk) and a few
// ordinary attributes. Every table gets the same item; only the number of
// GSIs differs.
Item WriteItem(int i, int64_t seq) {
  Item item;
  item["pk"] = AttributeValue::S(Numbered("user#", i));
  item["sk"] = AttributeValue::S("profile");
  for (int g = 1; g <= kMaxGsis; ++g) {
    const std::string n = std::to_string(g);
    item["gsi" + n + "pk"] = AttributeValue::S(Numbered(("g" + n + "#").c_str(), i % 1000));
    item["gsi" + n + "sk"] = AttributeValue::S(Numbered("t#", i));
  }
  item["email"] = AttributeValue::S(Numbered("user", i) + "@example.com");
  item["status"] = AttributeValue::S("active");
  item["seq"] = AttributeValue::N(std::to_string(seq));
  return item;
}

// The read benchmarks' item (~200 bytes): key pk (hash) + sk (range).
Item ReadItem(const std::string& pk, const std::string& sk, bool active) {
  Item item;
  item["pk"] = AttributeValue::S(pk);
  item["sk"] = AttributeValue::S(sk);
  item["status"] = AttributeValue::S(active ? "active" : "idle");
  item["name"] = AttributeValue::S("Frodo Baggins");
  item["email"] = AttributeValue::S("frodo@example.com");
  item["age"] = AttributeValue::N("51");
  item["score"] = AttributeValue::N("1234.5");
  item["verified"] = AttributeValue::Bool(true);
  item["tags"] = AttributeValue::SS({"hobbit", "ring-bearer", "shire"});
  item["bio"] = AttributeValue::S(std::string(80, 'b'));
  return item;
}

// A typical ~10-attribute item for the expression benchmarks.
Item ExpressionItem() {
  Item item = ReadItem("USER#Frodo", "profile", true);
  item["version"] = AttributeValue::N("3");
  item["counter"] = AttributeValue::N("41");
  item["tmp"] = AttributeValue::S("scratch");
  return item;
}

// A 20-attribute item of every type for the codec benchmarks.
Item CodecItem() {
  Item item = ReadItem("USER#Frodo", "profile", true);  // 10 attributes
  item["version"] = AttributeValue::N("3");
  item["balance"] = AttributeValue::N("-12.75");
  item["avatar"] = AttributeValue::B(std::string(48, '\x7f'));
  item["deleted"] = AttributeValue::Bool(false);
  item["manager"] = AttributeValue::Null();
  item["history"] = AttributeValue::L({AttributeValue::N("1"), AttributeValue::S("two"),
                                       AttributeValue::Bool(true)});
  item["address"] = AttributeValue::M({{"street", AttributeValue::S("Bagshot Row")},
                                       {"number", AttributeValue::N("3")},
                                       {"city", AttributeValue::S("Hobbiton")}});
  item["scores"] = AttributeValue::NS({"1", "2", "3", "5", "8"});
  item["keys"] = AttributeValue::BS({"\x01\x02", "\x03\x04"});
  item["lastSeen"] = AttributeValue::N("1700000000");
  return item;
}

// ---------------------------------------------------------------- the engine

dynarock::CreateTableRequest TableRequest(const std::string& name, int gsis) {
  dynarock::CreateTableRequest req;
  req.table_name = name;
  req.billing_mode = "PAY_PER_REQUEST";
  req.key_schema = {{"pk", dynarock::KeyType::kHash}, {"sk", dynarock::KeyType::kRange}};
  req.attribute_definitions = {{"pk", dynarock::AttrType::kS}, {"sk", dynarock::AttrType::kS}};
  for (int g = 1; g <= gsis; ++g) {
    const std::string n = std::to_string(g);
    dynarock::GlobalSecondaryIndex gsi;
    gsi.index_name = "gsi" + n;
    gsi.key_schema = {{"gsi" + n + "pk", dynarock::KeyType::kHash},
                      {"gsi" + n + "sk", dynarock::KeyType::kRange}};
    gsi.projection.projection_type = dynarock::ProjectionType::kAll;
    req.global_secondary_indexes.push_back(std::move(gsi));
    req.attribute_definitions.push_back({"gsi" + n + "pk", dynarock::AttrType::kS});
    req.attribute_definitions.push_back({"gsi" + n + "sk", dynarock::AttrType::kS});
  }
  return req;
}

// One in-memory DB for the whole run, its tables created and preloaded once.
std::vector<Item>& WriteItems();

struct Engine {
  std::unique_ptr<dynarock::DB> db;

  Engine() {
    dynarock::Options options;
    // DYNAROCK_BENCH_DIR: the engine's files on disk there (emptied first)
    // instead of in memory, as an embedding app keeps them.
    const char* dir = std::getenv("DYNAROCK_BENCH_DIR");
    options.in_memory = dir == nullptr || *dir == '\0';
    // RocksDB's own write buffer size (64 MiB), stated, so that the engine keeps
    // the 32 MiB block cache too (in memory it would otherwise use its small
    // sizes, db.h) and the raw baseline below can mirror it exactly.
    options.write_buffer_bytes = 64u << 20;
    if (!options.in_memory) std::filesystem::remove_all(dir);
    auto opened = dynarock::DB::Open(options, options.in_memory ? "" : dir);
    Check(opened.status(), "DB::Open");
    db = std::move(*opened);
    for (int gsis : {0, 1, 5}) {
      Check(db->CreateTable(TableRequest("put" + std::to_string(gsis), gsis)).status(),
            "CreateTable");
    }
    auto streamed = TableRequest("records", 0);
    streamed.stream_specification = dynarock::StreamSpecification{true, "NEW_AND_OLD_IMAGES"};
    Check(db->CreateTable(streamed).status(), "CreateTable");
    Check(db->CreateTable(TableRequest("txn", 0)).status(), "CreateTable");
    Check(db->CreateTable(TableRequest("reads", 0)).status(), "CreateTable");
    Check(db->CreateTable(TableRequest("query", 0)).status(), "CreateTable");

    dynarock::PutItemRequest put;
    put.table_name = "reads";
    for (int i = 0; i < kReadKeys; ++i) {
      put.item = ReadItem(Numbered("user#", i), "profile", true);
      Check(db->PutItem(put).status(), "PutItem");
    }
    put.table_name = "query";
    for (int i = 0; i < kPartitionItems; ++i) {
      put.item = ReadItem("PARTITION", Numbered("item#", i), i % kFilterEvery == 0);
      Check(db->PutItem(put).status(), "PutItem");
    }
    for (int i = 0; i < kSmallPartitionItems; ++i) {
      put.item = ReadItem("SMALL", Numbered("item#", i), true);
      Check(db->PutItem(put).status(), "PutItem");
    }
    // A stream of kStreamRecords records (inserts of read-sized items).
    put.table_name = "records";
    for (int i = 0; i < kStreamRecords; ++i) {
      put.item = ReadItem(Numbered("user#", i), "profile", true);
      Check(db->PutItem(put).status(), "PutItem");
    }
    // The write benchmarks' items, built here rather than in a benchmark's
    // first iteration (which would skew its iteration count, and cgpair's).
    WriteItems();
  }
};

Engine& GetEngine() {
  static Engine* engine = new Engine();  // never destroyed: no teardown order issues
  return *engine;
}

// 2 x kWriteKeys prebuilt write items: pass p over the keys uses variant p % 2,
// which differs from the stored item in "seq", so every overwrite really
// changes the item and its index entries. Benchmarks swap items in and out of
// their requests (O(1)), so building and copying items is not measured.
std::vector<Item>& WriteItems() {
  static auto* items = [] {
    auto* v = new std::vector<Item>();
    for (int variant = 0; variant < 2; ++variant) {
      for (int i = 0; i < kWriteKeys; ++i) v->push_back(WriteItem(i, variant));
    }
    return v;
  }();
  return *items;
}

Item& NextWriteItem(size_t* counter) {
  std::vector<Item>& items = WriteItems();
  const size_t n = (*counter)++;
  return items[(n / kWriteKeys) % 2 * kWriteKeys + n % kWriteKeys];
}

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

// GetItem, returning an Item or (`encoded`, QueryRequest::encoded_items'
// kind) the item's stored bytes, as the endpoint asks for them.
void GetItemBench(benchmark::State& state, bool encoded) {
  dynarock::DB* db = GetEngine().db.get();
  dynarock::GetItemRequest req;
  req.table_name = "reads";
  req.key["sk"] = AttributeValue::S("profile");
  req.encoded_items = encoded;
  std::vector<AttributeValue> pks;
  for (int i = 0; i < kReadKeys; ++i) pks.push_back(AttributeValue::S(Numbered("user#", i)));
  size_t i = 0;
  for (auto _ : state) {
    req.key["pk"] = pks[i++ % pks.size()];
    auto r = db->GetItem(req);
    if (!r.ok() || !(encoded ? r->encoded_item.has_value() : r->item.has_value())) {
      state.SkipWithError(r.ok() ? "item not found" : r.status().ToString().c_str());
      break;
    }
    benchmark::DoNotOptimize(encoded ? r->encoded_item->size() : r->item->size());
  }
  state.SetItemsProcessed(state.iterations());
}
void BM_GetItem(benchmark::State& state) { GetItemBench(state, false); }
void BM_GetItemEncoded(benchmark::State& state) { GetItemBench(state, true); }

void BatchGetItem100(benchmark::State& state, bool encoded) {
  dynarock::DB* db = GetEngine().db.get();
  // kReadKeys / 100 requests of 100 consecutive keys each, used in turn.
  std::vector<dynarock::BatchGetItemRequest> reqs(kReadKeys / 100);
  for (int b = 0; b < kReadKeys / 100; ++b) {
    auto& keys = reqs[b].request_items["reads"].keys;
    for (int j = 0; j < 100; ++j) {
      keys.push_back(Item{{"pk", AttributeValue::S(Numbered("user#", b * 100 + j))},
                          {"sk", AttributeValue::S("profile")}});
    }
    reqs[b].encoded_items = encoded;
  }
  size_t i = 0;
  for (auto _ : state) {
    auto r = db->BatchGetItem(reqs[i++ % reqs.size()]);
    const size_t got = !r.ok() ? 0
                       : encoded ? r->encoded_responses["reads"].size()
                                 : r->responses["reads"].size();
    if (got != 100) {
      state.SkipWithError(r.ok() ? "missing items" : r.status().ToString().c_str());
      break;
    }
  }
  state.SetItemsProcessed(state.iterations() * 100);
}
void BM_BatchGetItem100(benchmark::State& state) { BatchGetItem100(state, false); }
void BM_BatchGetItem100Encoded(benchmark::State& state) { BatchGetItem100(state, true); }

// One page of a Query or Scan, as Items or (`encoded`) as the items' stored
// bytes (encoded_items: what the endpoint asks for, and what an embedder
// reading without mutating can).
template <typename Req>
void ReadPageBench(benchmark::State& state, Req req, size_t expected, bool encoded) {
  dynarock::DB* db = GetEngine().db.get();
  req.encoded_items = encoded;
  for (auto _ : state) {
    auto r = [&] {
      if constexpr (std::is_same_v<Req, dynarock::QueryRequest>) {
        return db->Query(req);
      } else {
        return db->Scan(req);
      }
    }();
    const size_t n = r.ok() ? (encoded ? r->encoded_items.size() : r->items.size()) : 0;
    if (!r.ok() || n != expected) {
      state.SkipWithError(r.ok() ? "unexpected Count" : r.status().ToString().c_str());
      break;
    }
    benchmark::DoNotOptimize(n);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(expected));
}

dynarock::QueryRequest SmallPartitionQuery() {
  dynarock::QueryRequest req;
  req.table_name = "query";
  req.key_condition_expression = "pk = :p";
  req.expression_attribute_values = {{":p", AttributeValue::S("SMALL")}};
  req.has_expression_attribute_values = true;
  return req;
}

dynarock::ScanRequest FirstScanPage() {
  dynarock::ScanRequest req;
  req.table_name = "reads";
  req.limit = kScanPage;
  return req;
}

void BM_Query100(benchmark::State& state) {
  ReadPageBench(state, SmallPartitionQuery(), kSmallPartitionItems, false);
}
void BM_Query100Encoded(benchmark::State& state) {
  ReadPageBench(state, SmallPartitionQuery(), kSmallPartitionItems, true);
}
void BM_Scan1000(benchmark::State& state) { ReadPageBench(state, FirstScanPage(), kScanPage, false); }

// The endpoint's work for a Query of 100 items, HTTP aside: the read and the
// JSON reply, from Items or (as the endpoint does) from the stored bytes.
void QueryJsonBench(benchmark::State& state, bool encoded) {
  dynarock::DB* db = GetEngine().db.get();
  dynarock::QueryRequest req = SmallPartitionQuery();
  req.encoded_items = encoded;
  size_t bytes = 0;
  for (auto _ : state) {
    auto r = db->Query(req);
    if (!r.ok() || r->count != kSmallPartitionItems) {
      state.SkipWithError(r.ok() ? "unexpected Count" : r.status().ToString().c_str());
      break;
    }
    std::string json = dynarock::api::EncodeQueryResponse(*r);
    bytes = json.size();
    benchmark::DoNotOptimize(json.data());
  }
  state.counters["json_bytes"] = static_cast<double>(bytes);
  state.SetItemsProcessed(state.iterations() * kSmallPartitionItems);
}
void BM_QueryJson100(benchmark::State& state) { QueryJsonBench(state, false); }
void BM_QueryJson100Encoded(benchmark::State& state) { QueryJsonBench(state, true); }
void BM_Scan1000Encoded(benchmark::State& state) {
  ReadPageBench(state, FirstScanPage(), kScanPage, true);
}

void QueryFilter1000(benchmark::State& state, bool encoded) {
  dynarock::DB* db = GetEngine().db.get();
  dynarock::QueryRequest req;
  req.table_name = "query";
  req.key_condition_expression = "pk = :p";
  req.filter_expression = "#s = :active";
  req.expression_attribute_names = {{"#s", "status"}};
  req.expression_attribute_values = {{":p", AttributeValue::S("PARTITION")},
                                     {":active", AttributeValue::S("active")}};
  req.has_expression_attribute_names = true;
  req.has_expression_attribute_values = true;
  req.encoded_items = encoded;
  for (auto _ : state) {
    auto r = db->Query(req);
    if (!r.ok() || r->count != kPartitionItems / kFilterEvery ||
        r->scanned_count != kPartitionItems || r->last_evaluated_key) {
      state.SkipWithError(r.ok() ? "unexpected Count/ScannedCount" : r.status().ToString().c_str());
      break;
    }
  }
  state.SetItemsProcessed(state.iterations() * kPartitionItems);  // items scanned
}
void BM_QueryFilter1000(benchmark::State& state) { QueryFilter1000(state, false); }
void BM_QueryFilter1000Encoded(benchmark::State& state) { QueryFilter1000(state, true); }

// ---------------------------------------------------------------- raw RocksDB

using dynarock::StatsDelta;
using dynarock::StatsKey;

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

  Raw() {
    wo.disableWAL = true;  // as the engine writes in memory
    env.reset(rocksdb::NewMemEnv(rocksdb::Env::Default()));
    rocksdb::DBOptions db_options;
    db_options.create_if_missing = true;
    db_options.create_missing_column_families = true;
    db_options.max_background_jobs = 2;
    db_options.info_log_level = rocksdb::InfoLogLevel::WARN_LEVEL;
    db_options.env = env.get();
    // The engine's sizes for the Options above (engine/db_impl.cc: explicit
    // write buffers, index and filter blocks in the 32 MiB block cache).
    rocksdb::BlockBasedTableOptions table_options;
    table_options.block_cache = rocksdb::NewLRUCache(32u << 20);
    table_options.cache_index_and_filter_blocks = true;
    table_options.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
    rocksdb::ColumnFamilyOptions cf_options;
    cf_options.write_buffer_size = 64u << 20;
    cf_options.max_write_buffer_number = 2;
    cf_options.arena_block_size = 8u << 20;
    db_options.db_write_buffer_size = 128u << 20;
    db_options.stats_dump_period_sec = 0;
    db_options.stats_persist_period_sec = 0;
    cf_options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table_options));
    rocksdb::ColumnFamilyOptions catalog_options = cf_options;
    catalog_options.merge_operator = dynarock::internal::NewStatsMergeOperator();
    rocksdb::ColumnFamilyOptions keyed_options = cf_options;  // with the partition-hash prefix
    keyed_options.prefix_extractor.reset(
        rocksdb::NewFixedPrefixTransform(dynarock::kPartitionHashPrefixBytes));
    rocksdb::BlockBasedTableOptions keyed_table = table_options;  // and its data blocks hashed
    keyed_table.data_block_index_type = rocksdb::BlockBasedTableOptions::kDataBlockBinaryAndHash;
    keyed_options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(keyed_table));
    std::vector<rocksdb::ColumnFamilyDescriptor> families = {
        {rocksdb::kDefaultColumnFamilyName, catalog_options},
        {"items", keyed_options},
        {"indexes", keyed_options},
    };
    Check(rocksdb::DB::Open(db_options, "/engine-bench-raw", families, &handles, &db),
          "rocksdb::DB::Open");
    catalog = handles[0];
    items = handles[1];
    indexes = handles[2];

    const AttributeValue profile = AttributeValue::S("profile");
    write_value = dynarock::EncodeItem(WriteItem(0, 0));
    for (int i = 0; i < kWriteKeys; ++i) {
      Item item = WriteItem(i, 0);
      std::string item_key = dynarock::EncodeItemKey(kWriteTable, item["pk"], &item["sk"]);
      for (int g = 0; g < kMaxGsis; ++g) {
        const std::string n = std::to_string(g + 1);
        std::string key = dynarock::EncodePartitionPrefix(kIndexBase + g, item["gsi" + n + "pk"]);
        dynarock::AppendEscapedSortKey(item["gsi" + n + "sk"], &key);
        key += item_key;
        index_keys[g].push_back(std::move(key));
      }
      write_keys.push_back(std::move(item_key));
    }

    rocksdb::WriteBatch batch;
    for (int i = 0; i < kReadKeys; ++i) {
      Item item = ReadItem(Numbered("user#", i), "profile", true);
      read_keys.push_back(dynarock::EncodeItemKey(kReadTable, item["pk"], &profile));
      Check(batch.Put(items, read_keys.back(), dynarock::EncodeItem(item)), "Put");
    }
    partition_prefix = dynarock::EncodePartitionPrefix(kQueryTable, AttributeValue::S("PARTITION"));
    for (int i = 0; i < kPartitionItems; ++i) {
      Item item = ReadItem("PARTITION", Numbered("item#", i), i % kFilterEvery == 0);
      const AttributeValue sk = AttributeValue::S(Numbered("item#", i));
      Check(batch.Put(items, dynarock::EncodeItemKey(kQueryTable, item["pk"], &sk),
                      dynarock::EncodeItem(item)),
            "Put");
    }
    small_partition_prefix =
        dynarock::EncodePartitionPrefix(kQueryTable, AttributeValue::S("SMALL"));
    for (int i = 0; i < kSmallPartitionItems; ++i) {
      Item item = ReadItem("SMALL", Numbered("item#", i), true);
      const AttributeValue sk = AttributeValue::S(Numbered("item#", i));
      Check(batch.Put(items, dynarock::EncodeItemKey(kQueryTable, item["pk"], &sk),
                      dynarock::EncodeItem(item)),
            "Put");
    }
    // The engine's "records" table holds kStreamRecords more items in the same
    // column family: the same memtable size makes every search like for like.
    for (int i = 0; i < kStreamRecords; ++i) {
      Item item = ReadItem(Numbered("user#", i), "profile", true);
      Check(batch.Put(items, dynarock::EncodeItemKey(kRecordsTable, item["pk"], &profile),
                      dynarock::EncodeItem(item)),
            "Put");
    }
    Check(db->Write(wo, &batch), "Write");
  }
};

Raw& GetRaw() {
  static Raw* raw = new Raw();
  return *raw;
}

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

// ---------------------------------------------------------------- expressions

void BM_ConditionParseEvaluate(benchmark::State& state) {
  const Item item = ExpressionItem();
  const dynarock::NameMap names = {{"#s", "status"}};
  const dynarock::ValueMap values = {{":active", AttributeValue::S("active")},
                                     {":v", AttributeValue::N("10")}};
  const std::string text = "attribute_exists(pk) AND #s = :active AND version < :v";
  for (auto _ : state) {
    dynarock::expr::ExpressionContext ctx(&names, &values, true, true);
    auto cond = dynarock::expr::ParseCondition(text, dynarock::expr::ExpressionKind::kCondition, &ctx);
    if (!cond.ok()) {
      state.SkipWithError(cond.status().ToString().c_str());
      break;
    }
    auto result = dynarock::expr::EvaluateCondition(**cond, item);
    if (!result.ok() || !*result) {
      state.SkipWithError(result.ok() ? "condition is false" : result.status().ToString().c_str());
      break;
    }
  }
}

void BM_UpdateParseApply(benchmark::State& state) {
  const Item item = ExpressionItem();
  const dynarock::NameMap names = {{"#c", "counter"}};
  const dynarock::ValueMap values = {{":one", AttributeValue::N("1")},
                                     {":now", AttributeValue::N("1700000000")},
                                     {":t", AttributeValue::SS({"fellowship"})}};
  const std::string text = "SET #c = #c + :one, lastSeen = :now REMOVE tmp ADD tags :t";
  for (auto _ : state) {
    dynarock::expr::ExpressionContext ctx(&names, &values, true, true);
    auto plan = dynarock::expr::ParseUpdate(text, &ctx);
    if (!plan.ok()) {
      state.SkipWithError(plan.status().ToString().c_str());
      break;
    }
    Item updated = item;  // the engine applies updates to a copy of the old item
    dynarock::Status s = dynarock::expr::ApplyUpdate(**plan, &updated);
    if (!s.ok() || updated.count("tmp") != 0 || updated["counter"].scalar() != "42") {
      state.SkipWithError(s.ok() ? "wrong update result" : s.ToString().c_str());
      break;
    }
  }
}

// ---------------------------------------------------------------- item codec

void BM_ItemEncode(benchmark::State& state) {
  const Item item = CodecItem();
  std::string out;
  for (auto _ : state) {
    out.clear();
    dynarock::EncodeItemTo(item, &out);
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["attributes"] = static_cast<double>(item.size());
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(out.size()));
}

void BM_ItemDecode(benchmark::State& state) {
  const std::string bytes = dynarock::EncodeItem(CodecItem());
  Item item;
  for (auto _ : state) {
    if (!dynarock::DecodeItem(bytes, &item)) {
      state.SkipWithError("DecodeItem failed");
      break;
    }
    benchmark::DoNotOptimize(item.size());
  }
  state.counters["attributes"] = static_cast<double>(item.size());
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(bytes.size()));
}

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

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
