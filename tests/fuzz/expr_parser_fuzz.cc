// libFuzzer target for the expression language: every input is parsed as a
// condition, a key condition, a projection and an update expression against a
// small fixed set of #names and :values; whatever parses is also evaluated,
// projected or applied on a fixed item. Finds crashes, sanitizer reports and
// unbounded recursion (the parser must reject deep nesting, not overflow).
//
// Build (see the file's directory for the seed corpus):
//   clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -Iengine/include -I. \
//     tests/fuzz/expr_parser_fuzz.cc engine/expr/*.cc engine/status.cc \
//     engine/attribute_value.cc engine/number.cc -o expr_parser_fuzz
//   ./expr_parser_fuzz tests/fuzz/corpus/expr -max_total_time=30

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "engine/expr/expression.h"

namespace {

using dynarock::AttributeValue;
using dynarock::Item;
using dynarock::NameMap;
using dynarock::ValueMap;
namespace expr = dynarock::expr;

const NameMap& Names() {
  static const NameMap names = {{"#a", "a"}, {"#n", "name"}, {"#l", "l"}, {"#m", "m"}};
  return names;
}

const ValueMap& Values() {
  static const ValueMap values = {
      {":s", AttributeValue::S("abc")},
      {":n", AttributeValue::N("1.5")},
      {":b", AttributeValue::B("\x01\x02")},
      {":l", AttributeValue::L({AttributeValue::N("1"), AttributeValue::S("x")})},
      {":m", AttributeValue::M({{"k", AttributeValue::S("v")}})},
      {":ss", AttributeValue::SS({"a", "b"})},
      {":ns", AttributeValue::NS({"1", "2"})},
      {":t", AttributeValue::S("N")},
      {":bool", AttributeValue::Bool(true)},
      {":null", AttributeValue::Null()},
  };
  return values;
}

const Item& TestItem() {
  static const Item item = {
      {"a", AttributeValue::N("3")},
      {"s", AttributeValue::S("abcdef")},
      {"l", AttributeValue::L({AttributeValue::S("x"),
                               AttributeValue::M({{"k", AttributeValue::N("2")}}),
                               AttributeValue::L({AttributeValue::N("9")})})},
      {"m", AttributeValue::M({{"k", AttributeValue::S("v")},
                               {"deep", AttributeValue::M({{"x", AttributeValue::N("1")}})}})},
      {"ss", AttributeValue::SS({"a", "c"})},
      {"ns", AttributeValue::NS({"2", "3"})},
  };
  return item;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const NameMap& names = Names();
  const ValueMap& values = Values();
  {
    expr::ExpressionContext ctx(&names, &values, true, true);
    auto cond = expr::ParseCondition(text, expr::ExpressionKind::kCondition, &ctx);
    if (cond.ok()) {
      (void)expr::EvaluateCondition(**cond, TestItem());
      (void)expr::EvaluateCondition(**cond, Item{});
      (void)expr::ConditionAttributeNames(**cond);
    }
    (void)ctx.CheckAllUsed();
  }
  {
    expr::ExpressionContext ctx(&names, &values, true, true);
    (void)expr::ParseKeyCondition(text, &ctx);
  }
  {
    expr::ExpressionContext ctx(&names, nullptr, true, false);
    auto projection = expr::ParseProjection(text, &ctx);
    if (projection.ok()) (void)expr::Project(*projection, TestItem());
  }
  {
    expr::ExpressionContext ctx(&names, &values, true, true);
    auto plan = expr::ParseUpdate(text, &ctx);
    if (plan.ok()) {
      Item item = TestItem();
      dynarock::Status s = expr::ApplyUpdate(**plan, &item);
      (void)s;
      Item empty;
      dynarock::Status s2 = expr::ApplyUpdate(**plan, &empty);
      (void)s2;
      (void)expr::UpdatedPaths(**plan);
    }
  }
  return 0;
}
