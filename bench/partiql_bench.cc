// PartiQL's cost over the operations it plans into: ExecuteStatement SELECT by
// full key beside GetItem, and by partition beside Query, on one in-memory
// table (10,000 single items, one 100-item partition). The issue's budget:
// parsing and planning add at most 20% to the embedded operation
// (bench/README.md has the figures).
//
//   build/bench/partiql_bench

#include <benchmark/benchmark.h>

#include <memory>
#include <string>

#include "dynarock/db.h"
#include "dynarock/partiql.h"
#include "engine/partiql/parser.h"
#include "engine/partiql/prepare.h"

namespace {

using dynarock::AttributeValue;
using dynarock::Item;

constexpr int kItems = 10000;
constexpr int kPartition = 100;

dynarock::DB* Db() {
  static std::unique_ptr<dynarock::DB> db = [] {
    dynarock::Options o;
    o.in_memory = true;
    auto opened = dynarock::DB::Open(o, "");
    if (!opened.ok()) std::abort();
    std::unique_ptr<dynarock::DB> d = std::move(*opened);
    dynarock::CreateTableRequest c;
    c.table_name = "bench";
    c.key_schema = {{"pk", dynarock::KeyType::kHash}, {"sk", dynarock::KeyType::kRange}};
    c.attribute_definitions = {{"pk", dynarock::AttrType::kS}, {"sk", dynarock::AttrType::kN}};
    c.billing_mode = "PAY_PER_REQUEST";
    if (!d->CreateTable(c).ok()) std::abort();
    auto put = [&](const std::string& pk, int sk) {
      dynarock::PutItemRequest p;
      p.table_name = "bench";
      p.item = {{"pk", AttributeValue::S(pk)}, {"sk", AttributeValue::N(std::to_string(sk))},
                {"name", AttributeValue::S("user " + pk)}, {"score", AttributeValue::N("42")}};
      if (!d->PutItem(p).ok()) std::abort();
    };
    for (int i = 0; i < kItems; ++i) put("user#" + std::to_string(i), 0);
    for (int i = 0; i < kPartition; ++i) put("BIG", i);
    return d;
  }();
  return db.get();
}

void BM_GetItem(benchmark::State& state) {
  dynarock::DB* db = Db();
  dynarock::GetItemRequest req;
  req.table_name = "bench";
  int i = 0;
  for (auto _ : state) {
    req.key = {{"pk", AttributeValue::S("user#" + std::to_string(i++ % kItems))},
               {"sk", AttributeValue::N("0")}};
    auto r = db->GetItem(req);
    if (!r.ok() || !r->item) state.SkipWithError("GetItem failed");
  }
}

void BM_SelectByKey(benchmark::State& state) {
  dynarock::DB* db = Db();
  dynarock::ExecuteStatementRequest req;
  req.statement = "SELECT * FROM bench WHERE pk = ? AND sk = ?";
  int i = 0;
  for (auto _ : state) {
    req.parameters = {AttributeValue::S("user#" + std::to_string(i++ % kItems)),
                      AttributeValue::N("0")};
    auto r = dynarock::ExecuteStatement(*db, req);
    if (!r.ok() || r->items.size() != 1) state.SkipWithError("SELECT failed");
  }
}

void BM_Query100(benchmark::State& state) {
  dynarock::DB* db = Db();
  dynarock::QueryRequest req;
  req.table_name = "bench";
  req.key_condition_expression = "pk = :p";
  req.expression_attribute_values = {{":p", AttributeValue::S("BIG")}};
  req.has_expression_attribute_values = true;
  for (auto _ : state) {
    auto r = db->Query(req);
    if (!r.ok() || r->items.size() != kPartition) state.SkipWithError("Query failed");
  }
}

void BM_SelectPartition100(benchmark::State& state) {
  dynarock::DB* db = Db();
  dynarock::ExecuteStatementRequest req;
  req.statement = "SELECT * FROM bench WHERE pk = ?";
  req.parameters = {AttributeValue::S("BIG")};
  for (auto _ : state) {
    auto r = dynarock::ExecuteStatement(*db, req);
    if (!r.ok() || r->items.size() != kPartition) state.SkipWithError("SELECT failed");
  }
}

// The parser alone (tokenising and parsing a by-key SELECT).
void BM_ParseOnly(benchmark::State& state) {
  std::vector<AttributeValue> params = {AttributeValue::S("user#1"), AttributeValue::N("0")};
  for (auto _ : state) {
    auto st = dynarock::partiql::ParseStatement("SELECT * FROM bench WHERE pk = ? AND sk = ?", params);
    benchmark::DoNotOptimize(st);
  }
}

// A cached statement's lookup (the statement cache) and its table plan (the
// template's memo), without the operation.
void BM_PrepareCached(benchmark::State& state) {
  dynarock::DB* db = Db();
  std::vector<AttributeValue> params = {AttributeValue::S("user#1"), AttributeValue::N("0")};
  const std::string text = "SELECT * FROM bench WHERE pk = ? AND sk = ?";
  for (auto _ : state) {
    auto p = dynarock::partiql::Prepare(text, params);
    auto plan = dynarock::partiql::PlanTable(*db, *p);
    benchmark::DoNotOptimize(plan);
  }
}

// The schema lookup alone.
void BM_DescribeKeys(benchmark::State& state) {
  dynarock::DB* db = Db();
  for (auto _ : state) {
    auto d = db->DescribeKeys("bench");
    benchmark::DoNotOptimize(d);
  }
}

BENCHMARK(BM_ParseOnly);
BENCHMARK(BM_DescribeKeys);
BENCHMARK(BM_PrepareCached);
BENCHMARK(BM_GetItem);
BENCHMARK(BM_SelectByKey);
BENCHMARK(BM_Query100);
BENCHMARK(BM_SelectPartition100);

}  // namespace
