// Pins condition evaluation (DynamoDB's comparison, function and nope-
// attribute rules) and projection of items onto document paths.

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/expr/ast.h"
#include "engine/expr/expression.h"

namespace dynarock::expr {
namespace {

using AV = AttributeValue;

Item TestItem() {
  Item inner;
  inner["x"] = AV::N("10");
  inner["tags"] = AV::SS({"red", "blue"});
  Item item;
  item["s"] = AV::S("hello world");
  item["n"] = AV::N("42");
  item["neg"] = AV::N("-1.5");
  item["b"] = AV::B(std::string("\x01\x02\xff", 3));
  item["t"] = AV::Bool(true);
  item["z"] = AV::Null();
  item["ss"] = AV::SS({"a", "b", "c"});
  item["ns"] = AV::NS({"1", "2.5"});
  item["bs"] = AV::BS({std::string("\x01", 1)});
  item["l"] = AV::L({AV::S("a"), AV::N("2"), AV::M(inner)});
  item["m"] = AV::M(inner);
  item["u"] = AV::S("\xc3\xa9\xf0\x9d\x84\x9e");  // "é𝄞": 2 + 4 bytes, 3 UTF-16 units
  item["e"] = AV::S("");
  return item;
}

ValueMap TestValues() {
  return {
      {":hello", AV::S("hello")},     {":world", AV::S("world")},
      {":hw", AV::S("hello world")},  {":a", AV::S("a")},
      {":zzz", AV::S("zzz")},         {":n42", AV::N("42")},
      {":n41", AV::N("41")},          {":n100", AV::N("100")},
      {":n9", AV::N("9")},            {":n3", AV::N("3")},
      {":n0", AV::N("0")},            {":n2", AV::N("2")},
      {":n11", AV::N("11")},          {":n13", AV::N("13")},
      {":n6", AV::N("6")},            {":n1", AV::N("1")},
      {":n25", AV::N("2.5")},         {":m2", AV::N("-2")},
      {":str42", AV::S("42")},        {":true", AV::Bool(true)},
      {":null", AV::Null()},          {":b12", AV::B(std::string("\x01\x02", 2))},
      {":b2", AV::B(std::string("\x02", 1))},
      {":bff", AV::B(std::string("\xff", 1))},
      {":ss", AV::SS({"c", "b", "a"})}, {":ss2", AV::SS({"a"})},
      {":tS", AV::S("S")},            {":tN", AV::S("N")},
      {":tSS", AV::S("SS")},          {":tM", AV::S("M")},
      {":tL", AV::S("L")},            {":tNULL", AV::S("NULL")},
      {":tBOOL", AV::S("BOOL")},      {":red", AV::S("red")},
      {":empty", AV::S("")},
  };
}

struct Case {
  std::string condition;
  bool expected;
};

const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = {
      // Equality and inequality, including across types and nope attributes.
      {"s = :hw", true},
      {"s = :hello", false},
      {"s <> :hello", true},
      {"n = :n42", true},
      {"n = :str42", false},
      {"n <> :str42", true},
      {"nope = :n42", false},
      {"nope <> :n42", true},
      {"ss = :ss", true},  // sets compare as sets
      {"ss = :ss2", false},
      {"t = :true", true},
      {"z = :null", true},
      {"m.x = :n11", false},
      {"m.x = l[2].x", true},
      // Ordering: numbers numerically, strings and binaries bytewise.
      {"n > :n9", true},
      {"n < :n100", true},
      {"n >= :n42 AND n <= :n42", true},
      {"neg < :n0", true},
      {"neg > :m2", true},
      {"s > :hello", true},
      {"s < :zzz", true},
      {"b > :b12", true},
      {"b < :b2", true},
      {"b < :bff", true},
      {"n < :str42", false},
      {"t < n", false},  // a BOOL attribute never orders (a BOOL literal is refused)
      {"nope < :n42", false},
      {"nope >= :n42", false},
      // BETWEEN and IN.
      {"n BETWEEN :n41 AND :n42", true},
      {"n BETWEEN :n0 AND :n9", false},
      {"s BETWEEN :a AND :zzz", true},
      {"n BETWEEN :a AND :zzz", false},
      {"nope BETWEEN :n0 AND :n9", false},
      {"n IN (:n1, :n42)", true},
      {"n IN (:n1, :str42)", false},
      {"nope IN (:n1)", false},
      {"ss IN (:ss2, :ss)", true},
      // Logic and precedence: NOT > AND > OR.
      {"n = :n42 OR n = :n1 AND n = :n0", true},
      {"(n = :n42 OR n = :n1) AND n = :n0", false},
      {"NOT n = :n1", true},
      {"NOT n = :n1 AND n = :n0", false},
      {"NOT (n = :n1 OR n = :n42)", false},
      {"NOT NOT n = :n42", true},
      // attribute_exists / attribute_not_exists on nested paths.
      {"attribute_exists(s)", true},
      {"attribute_exists(nope)", false},
      {"attribute_exists(m.x)", true},
      {"attribute_exists(m.y)", false},
      {"attribute_exists(l[2].tags)", true},
      {"attribute_exists(l[3])", false},
      {"attribute_exists(s.x)", false},
      {"attribute_exists(m[0])", false},
      {"attribute_not_exists(nope.x)", true},
      {"attribute_not_exists(l[0])", false},
      // attribute_type.
      {"attribute_type(s, :tS)", true},
      {"attribute_type(n, :tN)", true},
      {"attribute_type(n, :tS)", false},
      {"attribute_type(ss, :tSS)", true},
      {"attribute_type(m, :tM)", true},
      {"attribute_type(l, :tL)", true},
      {"attribute_type(z, :tNULL)", true},
      {"attribute_type(t, :tBOOL)", true},
      {"attribute_type(nope, :tS)", false},
      // begins_with on S and B.
      {"begins_with(s, :hello)", true},
      {"begins_with(s, :world)", false},
      {"begins_with(s, :empty)", true},
      {"begins_with(b, :b12)", true},
      {"begins_with(b, :b2)", false},
      {"begins_with(n, :hello)", false},
      {"begins_with(nope, :hello)", false},
      // contains on strings, sets and lists.
      {"contains(s, :world)", true},
      {"contains(s, :zzz)", false},
      {"contains(ss, :a)", true},
      {"contains(ss, :zzz)", false},
      {"contains(ns, :n25)", true},
      {"contains(ns, :n3)", false},
      {"contains(ns, :a)", false},
      {"contains(l, :a)", true},
      {"contains(l, :n2)", true},
      {"contains(l, :n3)", false},
      {"contains(m.tags, :red)", true},
      {"contains(b, :b2)", true},
      {"contains(n, :n42)", false},
      {"contains(nope, :a)", false},
      // size: UTF-16 length of S, bytes of B, elements of sets, lists and maps.
      {"size(s) = :n11", true},
      {"size(u) = :n3", true},
      {"size(e) = :n0", true},
      {"size(b) = :n3", true},
      {"size(ss) = :n3", true},
      {"size(l) = :n3", true},
      {"size(m) = :n2", true},
      {"size(l[2].tags) = :n2", true},
      {"size(n) = :n2", false},
      {"size(nope) = :n0", false},
      {"size(nope) <> :n0", true},
      {"size(s) BETWEEN :n9 AND :n13", true},
      {"size(s) > size(ss)", true},
      {"size(s) IN (:n6, :n11)", true},
  };
  return cases;
}

TEST(ExprEvaluate, Table) {
  const Item item = TestItem();
  ValueMap values = TestValues();
  for (const Case& c : Cases()) {
    ExpressionContext ctx(nullptr, &values, false, true);
    auto cond = ParseCondition(c.condition, ExpressionKind::kCondition, &ctx);
    ASSERT_TRUE(cond.ok()) << c.condition << ": " << cond.status().ToString();
    auto result = EvaluateCondition(**cond, item);
    ASSERT_TRUE(result.ok()) << c.condition;
    EXPECT_EQ(*result, c.expected) << c.condition;
  }
}

TEST(ExprEvaluate, EmptyItem) {
  ValueMap values = TestValues();
  ExpressionContext ctx(nullptr, &values, false, true);
  auto cond = ParseCondition("attribute_not_exists(pk)", ExpressionKind::kCondition, &ctx);
  ASSERT_TRUE(cond.ok());
  EXPECT_TRUE(*EvaluateCondition(**cond, Item{}));
  auto eq = ParseCondition("pk = :a", ExpressionKind::kCondition, &ctx);
  ASSERT_TRUE(eq.ok());
  EXPECT_FALSE(*EvaluateCondition(**eq, Item{}));
}

TEST(ExprEvaluate, NumbersCompareNumerically) {
  Item item;
  item["x"] = AV::N("0.3");
  // Normalised text ("10" is "1E+1" on the wire); "9" > "10" bytewise but not numerically.
  ValueMap values = {{":a", AV::N("0.25")}, {":b", AV::N("10")}, {":c", AV::N("0.3")},
                     {":d", AV::N("9")}};
  ExpressionContext ctx(nullptr, &values, false, true);
  auto cond = ParseCondition("x > :a AND x < :b AND x = :c AND :d < :b",
                             ExpressionKind::kCondition, &ctx);
  ASSERT_TRUE(cond.ok());
  EXPECT_TRUE(*EvaluateCondition(**cond, item));
}

// ---------------------------------------------------------------- projection

Item ProjectText(std::string_view text, const Item& item, NameMap names = {}) {
  ExpressionContext ctx(names.empty() ? nullptr : &names, nullptr, !names.empty(), false);
  auto spec = ParseProjection(text, &ctx);
  EXPECT_TRUE(spec.ok()) << spec.status().ToString();
  return spec.ok() ? Project(*spec, item) : Item{};
}

TEST(ExprProject, TopLevel) {
  const Item item = TestItem();
  Item out = ProjectText("s, n, nope", item);
  Item expected = {{"s", item.at("s")}, {"n", item.at("n")}};
  EXPECT_EQ(DebugString(out), DebugString(expected));
}

TEST(ExprProject, NestedKeepsStructure) {
  Item inner = {{"x", AV::N("1")}, {"y", AV::N("2")}};
  Item item = {{"a", AV::M({{"b", AV::L({AV::S("e0"), AV::S("e1"), AV::S("e2"), AV::S("e3")})},
                            {"c", AV::M(inner)}})},
               {"k", AV::S("key")}};
  Item out = ProjectText("a.b[1], a.c.y, k, a.b[3], a.b[9], a.zz", item);
  Item expected = {
      {"a", AV::M({{"b", AV::L({AV::S("e1"), AV::S("e3")})}, {"c", AV::M({{"y", AV::N("2")}})}})},
      {"k", AV::S("key")}};
  EXPECT_EQ(DebugString(out), DebugString(expected));
}

TEST(ExprProject, ListOfMaps) {
  Item item = {{"l", AV::L({AV::M({{"p", AV::N("1")}, {"q", AV::N("2")}}),
                            AV::M({{"p", AV::N("3")}})})}};
  Item out = ProjectText("l[0].q, l[1].p", item);
  Item expected = {{"l", AV::L({AV::M({{"q", AV::N("2")}}), AV::M({{"p", AV::N("3")}})})}};
  EXPECT_EQ(DebugString(out), DebugString(expected));
}

TEST(ExprProject, NamesAndAttributesToGet) {
  const Item item = TestItem();
  Item out = ProjectText("#x.x", item, {{"#x", "m"}});
  EXPECT_EQ(DebugString(out), DebugString(Item{{"m", AV::M({{"x", AV::N("10")}})}}));
  Item legacy = Project(*ProjectionFromAttributesToGet({"s", "nope"}), item);
  EXPECT_EQ(DebugString(legacy), DebugString(Item{{"s", item.at("s")}}));
}

}  // namespace
}  // namespace dynarock::expr
