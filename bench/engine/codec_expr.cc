// File: bench/engine/codec_expr.cc
//
// Expressions (parse and evaluate a condition, parse and apply an update)
// and the item codec.

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

}  // namespace engine_bench
