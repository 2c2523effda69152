// Pins Query and Scan on the embedded API: every sort-key operator, numeric and
// byte order, direction, Limit and LastEvaluatedKey paging, Select COUNT, filters
// counted after Limit, the 1 MB page, and parallel scan segments.

#include <set>

#include "tests/unit/testutil.h"

namespace dynarock::testing {
namespace {

class QueryTest : public DBTest {
 protected:
  void SetUp() override {
    DBTest::SetUp();
    CreateTable("qtab", "pk", AttrType::kS, "sk", AttrType::kN);
    for (const char* n : {"-10", "-1.5", "0", "0.25", "1", "2", "10", "100", "1E+3"}) {
      Put("qtab", MakeItem({{"pk", S("p")}, {"sk", N(n)}, {"even", AttributeValue::Bool(std::string(n) == "2" || std::string(n) == "10")}}));
    }
    Put("qtab", MakeItem({{"pk", S("other")}, {"sk", N("5")}}));
  }
  QueryResponse Run(const std::string& condition, Item values, bool forward = true,
                    std::optional<int64_t> limit = std::nullopt) {
    QueryRequest req;
    req.table_name = "qtab";
    req.key_condition_expression = condition;
    req.expression_attribute_values = std::move(values);
    req.has_expression_attribute_values = true;
    req.scan_index_forward = forward;
    req.limit = limit;
    auto r = db_->Query(req);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : QueryResponse();
  }
  static std::vector<std::string> SortKeys(const QueryResponse& r) {
    std::vector<std::string> out;
    for (const auto& item : r.items) out.push_back(item.at("sk").scalar());
    return out;
  }
};

TEST_F(QueryTest, SortKeyOperators) {
  Item p = MakeItem({{":p", S("p")}});
  auto with = [&](std::initializer_list<std::pair<const std::string, AttributeValue>> extra) {
    Item v = p;
    for (const auto& e : extra) v.insert(e);
    return v;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(SortKeys(Run("pk = :p", p)), (V{"-10", "-1.5", "0", "0.25", "1", "2", "10", "100", "1000"}));
  EXPECT_EQ(SortKeys(Run("pk = :p AND sk = :v", with({{":v", N("10.0")}}))), (V{"10"}));
  EXPECT_EQ(SortKeys(Run("pk = :p AND sk < :v", with({{":v", N("0")}}))), (V{"-10", "-1.5"}));
  EXPECT_EQ(SortKeys(Run("pk = :p AND sk <= :v", with({{":v", N("0")}}))), (V{"-10", "-1.5", "0"}));
  EXPECT_EQ(SortKeys(Run("pk = :p AND sk > :v", with({{":v", N("10")}}))), (V{"100", "1000"}));
  EXPECT_EQ(SortKeys(Run("pk = :p AND sk >= :v", with({{":v", N("10")}}))), (V{"10", "100", "1000"}));
  EXPECT_EQ(SortKeys(Run("pk = :p AND sk BETWEEN :a AND :b", with({{":a", N("-1.5")}, {":b", N("1")}}))),
            (V{"-1.5", "0", "0.25", "1"}));
  EXPECT_EQ(SortKeys(Run("pk = :p AND sk > :v", with({{":v", N("0")}}), /*forward=*/false)),
            (V{"1000", "100", "10", "2", "1", "0.25"}));
}

TEST_F(QueryTest, StringSortKeysUseByteOrderAndBeginsWith) {
  CreateTable("stab", "pk", AttrType::kS, "sk", AttrType::kS);
  for (const char* s : {"a", "a#1", "a#2", "ab", "b", "B", "\xc3\xa9", "a\x7f"}) {
    Put("stab", MakeItem({{"pk", S("x")}, {"sk", S(s)}}));
  }
  QueryRequest req;
  req.table_name = "stab";
  req.key_condition_expression = "#k = :p AND begins_with(#s, :pre)";
  req.expression_attribute_names = {{"#k", "pk"}, {"#s", "sk"}};
  req.has_expression_attribute_names = true;
  req.expression_attribute_values = MakeItem({{":p", S("x")}, {":pre", S("a#")}});
  req.has_expression_attribute_values = true;
  auto r = db_->Query(req);
  ASSERT_OK(r);
  ASSERT_EQ(r->items.size(), 2u);
  EXPECT_EQ(r->items[0].at("sk"), S("a#1"));
  EXPECT_EQ(r->items[1].at("sk"), S("a#2"));

  req.key_condition_expression = "#k = :p";
  req.expression_attribute_names.erase("#s");
  req.expression_attribute_values.erase(":pre");
  r = db_->Query(req);
  ASSERT_OK(r);
  std::vector<std::string> got;
  for (const auto& item : r->items) got.push_back(item.at("sk").scalar());
  EXPECT_EQ(got, (std::vector<std::string>{"B", "a", "a#1", "a#2", "ab", "a\x7f", "b", "\xc3\xa9"}));
}

TEST_F(QueryTest, LimitPagingAndCount) {
  Item p = MakeItem({{":p", S("p")}});
  std::vector<std::string> all;
  QueryRequest req;
  req.table_name = "qtab";
  req.key_condition_expression = "pk = :p";
  req.expression_attribute_values = p;
  req.has_expression_attribute_values = true;
  req.limit = 4;
  int pages = 0;
  do {
    auto r = db_->Query(req);
    ASSERT_OK(r);
    ++pages;
    for (const auto& item : r->items) all.push_back(item.at("sk").scalar());
    req.exclusive_start_key = r->last_evaluated_key;
  } while (req.exclusive_start_key && pages < 10);
  // 9 items in pages of 4: 4, 4, 1 (DynamoDB returns a key only when it stopped at Limit).
  EXPECT_EQ(pages, 3);
  EXPECT_EQ(all.size(), 9u);

  req.limit.reset();
  req.exclusive_start_key.reset();
  req.select = Select::kCount;
  auto count = db_->Query(req);
  ASSERT_OK(count);
  EXPECT_EQ(count->count, 9);
  EXPECT_TRUE(count->items.empty());

  // Filters apply after Limit: Count counts matches, ScannedCount what was read.
  req.select.reset();
  req.filter_expression = "even = :t";
  req.expression_attribute_values[":t"] = AttributeValue::Bool(true);
  req.limit = 5;
  auto filtered = db_->Query(req);
  ASSERT_OK(filtered);
  EXPECT_EQ(filtered->scanned_count, 5);
  EXPECT_EQ(filtered->count, 0);
  EXPECT_TRUE(filtered->last_evaluated_key.has_value());

  req.filter_expression = "sk <> :t";
  EXPECT_ERROR(db_->Query(req), ErrorType::kValidation,
               "Filter Expression can only contain non-primary key attributes: Primary key attribute: sk");
}

TEST_F(QueryTest, KeyConditionErrors) {
  QueryRequest req;
  req.table_name = "qtab";
  req.expression_attribute_values = MakeItem({{":p", S("p")}, {":v", N("1")}});
  req.has_expression_attribute_values = true;
  req.key_condition_expression = "sk = :v";
  req.expression_attribute_values.erase(":p");
  EXPECT_ERROR(db_->Query(req), ErrorType::kValidation, "Query condition missed key schema element: pk");
  req.expression_attribute_values[":p"] = S("p");
  req.key_condition_expression = "pk > :p";
  req.expression_attribute_values.erase(":v");
  EXPECT_ERROR(db_->Query(req), ErrorType::kValidation, "Query key condition not supported");
  req.key_condition_expression = "pk = :v";
  req.expression_attribute_values = MakeItem({{":v", N("1")}});
  EXPECT_ERROR(db_->Query(req), ErrorType::kValidation, "Condition parameter type does not match schema type");
  req.key_condition_expression.reset();
  req.has_expression_attribute_values = false;
  req.expression_attribute_values.clear();
  EXPECT_ERROR(db_->Query(req), ErrorType::kValidation,
               "Either the KeyConditions or KeyConditionExpression parameter must be specified");
  req.key_condition_expression = "pk = :p AND sk BETWEEN :a AND :b";
  req.expression_attribute_values = MakeItem({{":p", S("p")}, {":a", N("5")}, {":b", N("1")}});
  req.has_expression_attribute_values = true;
  EXPECT_ERROR(db_->Query(req), ErrorType::kValidation,
               "The BETWEEN operator requires upper bound to be greater than or equal to lower bound");
}

TEST_F(QueryTest, OneMegabytePageLimit) {
  CreateTable("big", "pk", AttrType::kS, "sk", AttrType::kN);
  const std::string blob(100 * 1024, 'x');
  for (int i = 0; i < 25; ++i) {
    Put("big", MakeItem({{"pk", S("p")}, {"sk", N(std::to_string(i))}, {"blob", S(blob)}}));
  }
  QueryRequest req;
  req.table_name = "big";
  req.key_condition_expression = "pk = :p";
  req.expression_attribute_values = MakeItem({{":p", S("p")}});
  req.has_expression_attribute_values = true;
  auto r = db_->Query(req);
  ASSERT_OK(r);
  EXPECT_LT(r->count, 25);
  EXPECT_GE(r->count, 10);
  ASSERT_TRUE(r->last_evaluated_key.has_value());
}

TEST_F(QueryTest, ScanSegmentsAreDisjointAndComplete) {
  CreateTable("many", "id", AttrType::kN);
  for (int i = 0; i < 300; ++i) Put("many", MakeItem({{"id", N(std::to_string(i))}}));
  std::multiset<std::string> seen;
  for (int segment = 0; segment < 4; ++segment) {
    ScanRequest req;
    req.table_name = "many";
    req.segment = segment;
    req.total_segments = 4;
    req.limit = 37;
    int guard = 0;
    do {
      auto r = db_->Scan(req);
      ASSERT_OK(r);
      for (const auto& item : r->items) seen.insert(item.at("id").scalar());
      req.exclusive_start_key = r->last_evaluated_key;
    } while (req.exclusive_start_key && ++guard < 100);
  }
  EXPECT_EQ(seen.size(), 300u);
  EXPECT_EQ(std::set<std::string>(seen.begin(), seen.end()).size(), 300u);

  ScanRequest bad;
  bad.table_name = "many";
  bad.segment = 4;
  bad.total_segments = 4;
  EXPECT_ERROR(db_->Scan(bad), ErrorType::kValidation,
               "The Segment parameter is zero-based and must be less than parameter TotalSegments");
  bad.total_segments.reset();
  EXPECT_ERROR(db_->Scan(bad), ErrorType::kValidation, "TotalSegments parameter is required");
}

}  // namespace
}  // namespace dynarock::testing
