// The document API's overhead over the raw dynarock::DB calls, embedded
// (issue 22, point 8: at most 1.2x): GetItem, PutItem and a Query of 100
// items, each as a raw request and through document::Table over
// client::EmbeddedClient, on one in-memory table (pk S, sk N, three more
// attributes). Compare the pairs of one run: bench/README.md, section
// "The document API's overhead".
//
//   build/bench/document_bench

#include <benchmark/benchmark.h>

#include <cstdio>
#include <memory>
#include <string>

#include "client/embedded_client.h"
#include "document/table.h"
#include "dynarock/db.h"

namespace dynarock::document {
namespace {

struct World {
  std::unique_ptr<DB> db;
  std::unique_ptr<client::EmbeddedClient> client;
  std::unique_ptr<Table> table;
};

World* Get() {
  static World* w = [] {
    auto* w = new World();
    Options o;
    o.in_memory = true;
    w->db = std::move(DB::Open(o, "").value());
    CreateTableRequest c;
    c.table_name = "things";
    c.billing_mode = "PAY_PER_REQUEST";
    c.attribute_definitions = {{"pk", AttrType::kS}, {"sk", AttrType::kN}};
    c.key_schema = {{"pk", KeyType::kHash}, {"sk", KeyType::kRange}};
    if (!w->db->CreateTable(c).ok()) std::abort();
    w->client = std::make_unique<client::EmbeddedClient>(w->db.get());
    w->table = std::make_unique<Table>(w->client.get(), "things");
    for (int i = 0; i < 100; ++i) {
      Status s = w->table->Put(Map{{"pk", "p"}, {"sk", i}, {"name", "thing " + std::to_string(i)},
                                   {"score", i * 3}, {"done", i % 2 == 0}});
      if (!s.ok()) std::abort();
    }
    return w;
  }();
  return w;
}

void BM_RawGet(benchmark::State& state) {
  World* w = Get();
  GetItemRequest r;
  r.table_name = "things";
  r.key = {{"pk", AttributeValue::S("p")}, {"sk", AttributeValue::N("42")}};
  for (auto _ : state) {
    auto got = w->db->GetItem(r);
    if (!got.ok() || !got->item) state.SkipWithError("get");
    benchmark::DoNotOptimize(got);
  }
}
BENCHMARK(BM_RawGet);

void BM_DocGet(benchmark::State& state) {
  World* w = Get();
  for (auto _ : state) {
    auto got = w->table->Get(Map{{"pk", "p"}, {"sk", 42}});
    if (!got.ok() || !got->has_value()) state.SkipWithError("get");
    benchmark::DoNotOptimize(got);
  }
}
BENCHMARK(BM_DocGet);

void BM_RawPut(benchmark::State& state) {
  World* w = Get();
  PutItemRequest r;
  r.table_name = "things";
  int64_t i = 0;
  for (auto _ : state) {
    r.item = {{"pk", AttributeValue::S("q")}, {"sk", AttributeValue::N(std::to_string(i++ % 1000))},
              {"name", AttributeValue::S("a thing")}, {"score", AttributeValue::N("7")},
              {"done", AttributeValue::Bool(true)}};
    if (!w->db->PutItem(r).ok()) state.SkipWithError("put");
  }
}
BENCHMARK(BM_RawPut);

void BM_DocPut(benchmark::State& state) {
  World* w = Get();
  int64_t i = 0;
  for (auto _ : state) {
    Status s = w->table->Put(
        Map{{"pk", "q"}, {"sk", i++ % 1000}, {"name", "a thing"}, {"score", 7}, {"done", true}});
    if (!s.ok()) state.SkipWithError("put");
  }
}
BENCHMARK(BM_DocPut);

void BM_RawQuery100(benchmark::State& state) {
  World* w = Get();
  QueryRequest q;
  q.table_name = "things";
  q.key_condition_expression = "pk = :p";
  q.expression_attribute_values[":p"] = AttributeValue::S("p");
  q.has_expression_attribute_values = true;
  for (auto _ : state) {
    auto r = w->db->Query(q);
    if (!r.ok() || r->items.size() != 100) state.SkipWithError("query");
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_RawQuery100);

void BM_DocQuery100(benchmark::State& state) {
  World* w = Get();
  for (auto _ : state) {
    auto r = w->table->QueryAll(Key("pk").Eq("p"));
    if (!r.ok() || r->size() != 100) state.SkipWithError("query");
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_DocQuery100);

}  // namespace
}  // namespace dynarock::document
