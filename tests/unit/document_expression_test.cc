// Expression builders (document/expression.h): golden expression strings
// with generated placeholders, shared across a request's expressions, and the
// refusals of invalid combinations.

#include "document/expression.h"

#include <gtest/gtest.h>

#include "dynarock/db.h"

namespace dynarock::document {
namespace {

TEST(DocumentExpressionTest, KeyConditionFilterAndProjectionShareTheirPlaceholders) {
  auto e = Expressions::Build()
               .KeyCondition(Key("user").Eq("ann").And(Key("due").Between(10, 20)))
               .Filter(Name("done").Eq(false).And(Name("tags").Contains("home").Or(Name("user").Ne("bob"))))
               .Projection({"user", "due", "tags[0]", "meta.owner"})
               .Done();
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(*e->key_condition, "#n0 = :v0 AND #n1 BETWEEN :v1 AND :v2");
  EXPECT_EQ(*e->filter, "(#n2 = :v3) AND ((contains(#n3, :v4)) OR (#n0 <> :v5))");
  EXPECT_EQ(*e->projection, "#n0, #n1, #n3[0], #n4.#n5");
  EXPECT_EQ(e->names, (std::map<std::string, std::string>{
                          {"#n0", "user"}, {"#n1", "due"}, {"#n2", "done"}, {"#n3", "tags"},
                          {"#n4", "meta"}, {"#n5", "owner"}}));
  EXPECT_EQ(e->values.at(":v0"), AttributeValue::S("ann"));
  EXPECT_EQ(e->values.at(":v1"), AttributeValue::N("10"));
  EXPECT_EQ(e->values.at(":v3"), AttributeValue::Bool(false));
  EXPECT_EQ(e->values.size(), 6u);
  EXPECT_FALSE(e->update.has_value());
}

TEST(DocumentExpressionTest, UpdatesAndConditions) {
  auto e = Expressions::Build()
               .Update(Update()
                           .Set("count", Name("count") + 1)
                           .Set("seen", IfNotExists("seen", 0))
                           .Set("log", ListAppend(Name("log"), List{"x"}))
                           .Remove("draft")
                           .Add("tags", Value::StringSet({"new"}))
                           .Delete("old", Value::StringSet({"gone"})))
               .Condition(Name("version").Eq(3).And(Name("draft").AttributeExists()).And(
                   Name("kind").In({"a", "b"}).Not()))
               .Done();
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(*e->condition,
            "((#n0 = :v0) AND (attribute_exists(#n1))) AND (NOT (#n2 IN (:v1, :v2)))");
  EXPECT_EQ(*e->update,
            "SET #n3 = #n3 + :v3, #n4 = if_not_exists(#n4, :v4), #n5 = list_append(#n5, :v5) "
            "REMOVE #n1 ADD #n6 :v6 DELETE #n7 :v7");
  EXPECT_EQ(e->values.at(":v3"), AttributeValue::N("1"));
  EXPECT_EQ(e->values.at(":v4"), AttributeValue::N("0"));
  EXPECT_TRUE(e->values.at(":v6").is(AttrType::kSS));
  // A value given twice is one placeholder; user text never reaches the expression.
  auto twice = Expressions::Build().Filter(Name("a").Eq("x) OR (1=1").Or(Name("b").Eq("x) OR (1=1"))).Done();
  ASSERT_TRUE(twice.ok());
  EXPECT_EQ(*twice->filter, "(#n0 = :v0) OR (#n1 = :v0)");
  auto sized = Expressions::Build().Filter(Name("tags").Size().Gt(2).And(Name("t").AttributeType("SS"))).Done();
  ASSERT_TRUE(sized.ok());
  EXPECT_EQ(*sized->filter, "(size(#n0) > :v0) AND (attribute_type(#n1, :v1))");
}

TEST(DocumentExpressionTest, RefusesInvalidCombinations) {
  auto range_on_pk = Expressions::Build().KeyCondition(Key("user").Gt("a")).Done();
  EXPECT_EQ(range_on_pk.status().type(), ErrorType::kValidation);
  EXPECT_NE(range_on_pk.status().message().find("must be an equality"), std::string::npos);
  // A multi-attribute key: equalities left to right, a range only last.
  auto three = Expressions::Build()
                   .KeyCondition(Key("a").Eq(1).And(Key("b").Eq(2)).And(Key("c").Gt(3)))
                   .Done();
  ASSERT_TRUE(three.ok()) << three.status().ToString();
  EXPECT_EQ(*three->key_condition, "#n0 = :v0 AND #n1 = :v1 AND #n2 > :v2");
  auto range_inside = Expressions::Build()
                          .KeyCondition(Key("a").Eq(1).And(Key("b").Lt(2)).And(Key("c").Eq(3)))
                          .Done();
  EXPECT_NE(range_inside.status().message().find("the key condition on b must be an equality"), std::string::npos)
      << range_inside.status().message();
  KeyCondition nine = Key("k0").Eq(0);
  for (int i = 1; i < 9; ++i) nine = nine.And(Key("k" + std::to_string(i)).Eq(i));
  EXPECT_NE(Expressions::Build().KeyCondition(nine).Done().status().message().find("it has 9 parts"),
            std::string::npos);
  auto same = Expressions::Build().KeyCondition(Key("a").Eq(1).And(Key("a").Lt(2))).Done();
  EXPECT_NE(same.status().message().find("twice"), std::string::npos);
  EXPECT_EQ(Expressions::Build().Update(Update()).Done().status().type(), ErrorType::kValidation);
  EXPECT_NE(Expressions::Build().Update(Update().Add("n", "text")).Done().status().message().find(
                "takes a number or a set"),
            std::string::npos);
  EXPECT_NE(Expressions::Build().Update(Update().Delete("n", 1)).Done().status().message().find("takes a set"),
            std::string::npos);
  EXPECT_EQ(Expressions::Build().Projection({"a..b"}).Done().status().type(), ErrorType::kValidation);
  EXPECT_EQ(Expressions::Build().Projection({"a[x]"}).Done().status().type(), ErrorType::kValidation);
  EXPECT_EQ(Expressions::Build().Filter(Name("t").AttributeType("STRING")).Done().status().type(),
            ErrorType::kValidation);
  EXPECT_NE(Expressions::Build().Filter(Operand("x").AttributeExists()).Done().status().message().find(
                "takes an attribute path"),
            std::string::npos);
}


// The built expressions are what DynamoDB takes: run through the engine, a
// query, a conditional update and a failed condition behave as written.
TEST(DocumentExpressionTest, TheEngineRunsWhatIsBuilt) {
  Options options;
  options.in_memory = true;
  auto db = std::move(DB::Open(options, "").value());
  CreateTableRequest create;
  create.table_name = "todos";
  create.billing_mode = "PAY_PER_REQUEST";
  create.attribute_definitions = {{"user", AttrType::kS}, {"due", AttrType::kN}};
  create.key_schema = {{"user", KeyType::kHash}, {"due", KeyType::kRange}};
  ASSERT_TRUE(db->CreateTable(create).ok());
  for (int due = 1; due <= 30; ++due) {
    PutItemRequest put;
    put.table_name = "todos";
    put.item = Value(Map{{"user", "ann"}, {"due", due}, {"done", due % 2 == 0},
                         {"tags", List{due % 3 == 0 ? "home" : "work"}}, {"count", 0}})
                   .ToItem()
                   .value();
    ASSERT_TRUE(db->PutItem(put).ok());
  }
  auto e = Expressions::Build()
               .KeyCondition(Key("user").Eq("ann").And(Key("due").Between(10, 20)))
               .Filter(Name("done").Eq(false).And(Name("tags[0]").Eq("home")))
               .Projection({"due", "tags[0]"})
               .Done()
               .value();
  QueryRequest q;
  q.table_name = "todos";
  q.key_condition_expression = *e.key_condition;
  q.filter_expression = *e.filter;
  q.projection_expression = *e.projection;
  for (const auto& [k, v] : e.names) q.expression_attribute_names[k] = v;
  q.has_expression_attribute_names = true;
  for (const auto& [k, v] : e.values) q.expression_attribute_values[k] = v;
  q.has_expression_attribute_values = true;
  auto r = db->Query(q);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::vector<int64_t> dues;
  for (const Item& item : r->items) dues.push_back(Value::From(item)["due"].AsInt().value());
  EXPECT_EQ(dues, (std::vector<int64_t>{15}));  // odd, a multiple of 3, in 10..20

  auto u = Expressions::Build()
               .Update(Update().Set("count", Name("count") + 1).Set("seen", IfNotExists("seen", 7)).Remove("done"))
               .Condition(Name("count").Eq(0))
               .Done()
               .value();
  UpdateItemRequest up;
  up.table_name = "todos";
  up.key = Value(Map{{"user", "ann"}, {"due", 15}}).ToItem().value();
  up.update_expression = *u.update;
  up.condition_expression = *u.condition;
  for (const auto& [k, v] : u.names) up.expression_attribute_names[k] = v;
  up.has_expression_attribute_names = true;
  for (const auto& [k, v] : u.values) up.expression_attribute_values[k] = v;
  up.has_expression_attribute_values = true;
  up.return_values = ReturnValue::kAllNew;
  auto done = db->UpdateItem(up);
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  const Value after = Value::From(*done->attributes);
  EXPECT_EQ(after["count"].AsInt().value(), 1);
  EXPECT_EQ(after["seen"].AsInt().value(), 7);
  EXPECT_TRUE(after["done"].is_absent());
  EXPECT_EQ(db->UpdateItem(up).status().type(), ErrorType::kConditionalCheckFailed);  // count is 1 now
}

}  // namespace
}  // namespace dynarock::document
