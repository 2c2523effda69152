// File: bench/engine/reads.cc
//
// The read benchmarks: GetItem, BatchGetItem, Query (with a filter, and to
// JSON), Scan; Items and stored bytes.

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

}  // namespace engine_bench
