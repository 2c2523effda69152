// Pins UpdateExpression semantics: SET (with + - if_not_exists list_append,
// nested paths, list appends), REMOVE (attributes and list elements, original
// indexes), ADD (numbers from 0, set union), DELETE (set difference, empty set
// removed), evaluation against the pre-update item, exact decimal arithmetic,
// and the runtime errors DynamoDB gives.

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/expr/ast.h"
#include "engine/expr/expression.h"

namespace dynarock::expr {
namespace {

using AV = AttributeValue;

ValueMap Values() {
  return {{":one", AV::N("1")},
          {":two", AV::N("2")},
          {":p1", AV::N("0.1")},
          {":p2", AV::N("0.2")},
          {":s", AV::S("str")},
          {":l", AV::L({AV::S("x"), AV::S("y")})},
          {":l0", AV::L({AV::S("w")})},
          {":m", AV::M({{"k", AV::S("v")}})},
          {":ss", AV::SS({"b", "c"})},
          {":ss_all", AV::SS({"a", "b", "c"})},
          {":ns", AV::NS({"1", "5"})},
          {":big", AV::N("99999999999999999999999999999999999999")}};
}

Item BaseItem() {
  return {{"pk", AV::S("k")},
          {"n", AV::N("10")},
          {"s", AV::S("text")},
          {"l", AV::L({AV::S("e0"), AV::S("e1"), AV::S("e2"), AV::S("e3"), AV::S("e4")})},
          {"m", AV::M({{"x", AV::N("1")}, {"deep", AV::M({{"y", AV::N("2")}})}})},
          {"ss", AV::SS({"a", "b"})},
          {"ns", AV::NS({"1", "2"})}};
}

// Applies `text` to `item`; returns "" or the error message.
std::string Apply(std::string_view text, Item* item, NameMap names = {}) {
  ValueMap values = Values();
  ExpressionContext ctx(names.empty() ? nullptr : &names, &values, !names.empty(), true);
  auto plan = ParseUpdate(text, &ctx);
  if (!plan.ok()) return plan.status().message();
  Status s = ApplyUpdate(**plan, item);
  return s.ok() ? "" : s.message();
}

struct Case {
  std::string update;
  std::string attribute;  // compared after the update ("" = check error only)
  std::string expected;   // DebugString of the attribute, "<absent>", or the error
};

const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = {
      // SET.
      {"SET a = :s", "a", R"({"S":"str"})"},
      {"SET n = n + :one", "n", R"({"N":"11"})"},
      {"SET n = :one - n", "n", R"({"N":"-9"})"},
      {"SET a = :p1 + :p2", "a", R"({"N":"0.3"})"},
      {"SET a = :big + :one", "a", R"({"N":"100000000000000000000000000000000000000"})"},
      {"SET n = if_not_exists(n, :one)", "n", R"({"N":"10"})"},
      {"SET a = if_not_exists(a, :one)", "a", R"({"N":"1"})"},
      {"SET l = list_append(l, :l)", "l",
       R"({"L":[{"S":"e0"},{"S":"e1"},{"S":"e2"},{"S":"e3"},{"S":"e4"},{"S":"x"},{"S":"y"}]})"},
      {"SET a = list_append(:l0, :l)", "a", R"({"L":[{"S":"w"},{"S":"x"},{"S":"y"}]})"},
      {"SET a = list_append(if_not_exists(a, :l0), :l)", "a",
       R"({"L":[{"S":"w"},{"S":"x"},{"S":"y"}]})"},
      {"SET m.x = :s", "m", R"({"M":{"deep":{"M":{"y":{"N":"2"}}},"x":{"S":"str"}}})"},
      {"SET m.deep.z = :one", "m",
       R"({"M":{"deep":{"M":{"y":{"N":"2"},"z":{"N":"1"}}},"x":{"N":"1"}}})"},
      {"SET l[1] = :s", "l",
       R"({"L":[{"S":"e0"},{"S":"str"},{"S":"e2"},{"S":"e3"},{"S":"e4"}]})"},
      {"SET l[10] = :s", "l",
       R"({"L":[{"S":"e0"},{"S":"e1"},{"S":"e2"},{"S":"e3"},{"S":"e4"},{"S":"str"}]})"},
      {"SET l[20] = :two, l[10] = :one", "l",
       R"({"L":[{"S":"e0"},{"S":"e1"},{"S":"e2"},{"S":"e3"},{"S":"e4"},{"N":"1"},{"N":"2"}]})"},
      {"SET a = n, n = :one", "a", R"({"N":"10"})"},  // right side sees the old item
      {"SET n = :one, a = n", "a", R"({"N":"10"})"},
      {"SET a = m.deep.y", "a", R"({"N":"2"})"},
      {"SET a = l[4]", "a", R"({"S":"e4"})"},
      // REMOVE.
      {"REMOVE s, nope", "s", "<absent>"},
      {"REMOVE l[1], l[2]", "l", R"({"L":[{"S":"e0"},{"S":"e3"},{"S":"e4"}]})"},
      {"REMOVE l[2], l[1]", "l", R"({"L":[{"S":"e0"},{"S":"e3"},{"S":"e4"}]})"},
      {"REMOVE l[9]", "l",
       R"({"L":[{"S":"e0"},{"S":"e1"},{"S":"e2"},{"S":"e3"},{"S":"e4"}]})"},
      {"REMOVE m.x, m.nope", "m", R"({"M":{"deep":{"M":{"y":{"N":"2"}}}}})"},
      {"SET l[3] = :s REMOVE l[1]", "l",
       R"({"L":[{"S":"e0"},{"S":"e2"},{"S":"str"},{"S":"e4"}]})"},
      // ADD.
      {"ADD n :two", "n", R"({"N":"12"})"},
      {"ADD a :two", "a", R"({"N":"2"})"},
      {"ADD ss :ss", "ss", R"({"SS":["a","b","c"]})"},
      {"ADD a :ss", "a", R"({"SS":["b","c"]})"},
      {"ADD ns :ns", "ns", R"({"NS":["1","2","5"]})"},
      {"ADD m.x :one", "m", R"({"M":{"deep":{"M":{"y":{"N":"2"}}},"x":{"N":"2"}}})"},
      // DELETE.
      {"DELETE ss :ss", "ss", R"({"SS":["a"]})"},
      {"DELETE ss :ss_all", "ss", "<absent>"},
      {"DELETE nope :ss", "nope", "<absent>"},
      {"DELETE ns :ns", "ns", R"({"NS":["2"]})"},
      // Several clauses, any order, keywords in any case.
      {"add n :one set a = :s remove s delete ss :ss", "n", R"({"N":"11"})"},
      // Runtime errors.
      {"SET a = nope", "",
       "The provided expression refers to an attribute that does not exist in the item"},
      {"SET a = nope + :one", "",
       "The provided expression refers to an attribute that does not exist in the item"},
      {"SET a = s + :one", "", "An operand in the update expression has an incorrect data type"},
      {"SET a = list_append(s, :l)", "",
       "An operand in the update expression has an incorrect data type"},
      {"SET nope.x = :one", "",
       "The document path provided in the update expression is invalid for update"},
      {"SET s.x = :one", "",
       "The document path provided in the update expression is invalid for update"},
      {"SET m[0] = :one", "",
       "The document path provided in the update expression is invalid for update"},
      {"SET l[9].x = :one", "",
       "The document path provided in the update expression is invalid for update"},
      {"REMOVE nope.x", "",
       "The document path provided in the update expression is invalid for update"},
      {"ADD s :one", "", "An operand in the update expression has an incorrect data type"},
      {"ADD ns :ss", "", "An operand in the update expression has an incorrect data type"},
      {"DELETE ss :ns", "", "An operand in the update expression has an incorrect data type"},
      {"DELETE n :ns", "", "An operand in the update expression has an incorrect data type"},
      {"SET a = :big + :p1", "",
       "Attempting to store more than 38 significant digits in a Number"},
  };
  return cases;
}

TEST(ExprUpdate, Table) {
  for (const Case& c : Cases()) {
    Item item = BaseItem();
    const std::string err = Apply(c.update, &item);
    if (c.attribute.empty()) {
      EXPECT_EQ(err, c.expected) << c.update;
      continue;
    }
    ASSERT_EQ(err, "") << c.update;
    auto it = item.find(c.attribute);
    const std::string got = it == item.end() ? "<absent>" : it->second.DebugString();
    EXPECT_EQ(got, c.expected) << c.update;
  }
}

TEST(ExprUpdate, OtherAttributesUntouched) {
  Item item = BaseItem();
  ASSERT_EQ(Apply("SET a = :s", &item), "");
  Item expected = BaseItem();
  expected["a"] = AV::S("str");
  EXPECT_EQ(DebugString(item), DebugString(expected));
}

TEST(ExprUpdate, NewItem) {
  Item item = {{"pk", AV::S("k")}};
  ASSERT_EQ(Apply("SET #c = if_not_exists(#c, :one) ADD tot :two", &item, {{"#c", "count"}}),
            "");
  EXPECT_EQ(DebugString(item), R"({"count":{"N":"1"},"pk":{"S":"k"},"tot":{"N":"2"}})");
}

TEST(ExprUpdate, UpdatedPaths) {
  ValueMap values = Values();
  ExpressionContext ctx(nullptr, &values, false, true);
  auto plan = ParseUpdate("SET a.b = :one, c[2] = :two REMOVE d ADD e :one", &ctx);
  ASSERT_TRUE(plan.ok());
  std::vector<std::string> paths;
  for (const Path& p : UpdatedPaths(**plan)) paths.push_back(PathToString(p));
  EXPECT_EQ(paths, (std::vector<std::string>{"a.b", "c[2]", "d", "e"}));
}

TEST(ExprUpdate, ManySetsToOneList) {
  Item item = {{"l", AV::L({})}};
  std::string text = "SET ";
  for (int i = 0; i < 50; ++i) {
    if (i > 0) text += ", ";
    text += "l[" + std::to_string(100 - i) + "] = :one";
  }
  ASSERT_EQ(Apply(text, &item), "");
  EXPECT_EQ(item["l"].list().size(), 50u);
}

}  // namespace
}  // namespace dynarock::expr
