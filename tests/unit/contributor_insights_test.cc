// Contributor Insights' counting in api::Handler
// (engine/api/contributor_insights.h): only while on, per rule, and bounded:
// past 10,000 keys a rule forgets its smaller half and keeps the top keys.

#include "engine/api/contributor_insights.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <memory>
#include <string>

#include "engine/api/handler.h"

namespace dynarock::api {
namespace {

class ContributorInsightsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Options options;
    options.in_memory = true;
    db_ = std::move(DB::Open(options, "").value());
    handler_ = std::make_unique<Handler>(db_.get());
    Ok("CreateTable", R"({"TableName":"hot","BillingMode":"PAY_PER_REQUEST",)"
                      R"("KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],)"
                      R"("AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}]})");
  }
  std::string Ok(const std::string& op, const std::string& body) {
    ApiReply r = handler_->Handle(op, body);
    EXPECT_EQ(r.http_status, 200) << op << ": " << r.body;
    return r.body;
  }
  void Put(const std::string& pk) {
    Ok("PutItem", R"({"TableName":"hot","Item":{"pk":{"S":")" + pk + R"("}}})");
  }
  // The PKC rule's contributors: (key, value), top first.
  std::vector<std::pair<std::string, double>> Top() {
    const std::string body = Ok("DescribeContributorInsights", R"({"TableName":"hot"})");
    simdjson::dom::parser parser;
    std::vector<std::pair<std::string, double>> out;
    simdjson::dom::element doc = parser.parse(body);
    simdjson::dom::array rules;
    if (doc["DynarockTopContributors"].get_array().get(rules) != simdjson::SUCCESS) return out;
    for (simdjson::dom::element rule : rules) {
      std::string_view name = rule["RuleName"].get_string().value();
      if (name.find("-PKC-") == std::string_view::npos) continue;
      for (simdjson::dom::element c : rule["Contributors"].get_array()) {
        out.emplace_back(std::string(c["Keys"].at(0).get_string().value()),
                         c["ApproximateAggregateValue"].get_double().value());
      }
    }
    return out;
  }

  std::unique_ptr<DB> db_;
  std::unique_ptr<Handler> handler_;
};

TEST_F(ContributorInsightsTest, CountsOnlyWhileOnAndKeepsTheTopKeysPastItsBound) {
  Put("before");  // not counted: insights are off
  Ok("UpdateContributorInsights", R"({"TableName":"hot","ContributorInsightsAction":"ENABLE"})");
  for (int i = 0; i < 5; ++i) Put("hot");
  for (int i = 0; i < 3; ++i) Put("warm");
  for (int i = 0; i < 12000; ++i) Put("k" + std::to_string(i));  // past 10,000 keys
  auto top = Top();
  ASSERT_EQ(top.size(), 10u);
  EXPECT_EQ(top[0], (std::pair<std::string, double>{"hot", 15}));
  EXPECT_EQ(top[1], (std::pair<std::string, double>{"warm", 9}));
  for (const auto& [key, value] : top) EXPECT_NE(key, "before");
  // Off: the next requests are not counted, and the top keys are not shown.
  Ok("UpdateContributorInsights", R"({"TableName":"hot","ContributorInsightsAction":"DISABLE"})");
  Put("hot");
  EXPECT_TRUE(Top().empty());
  const std::string list = Ok("ListContributorInsights", "{}");
  EXPECT_EQ(list, R"({"ContributorInsightsSummaries":[]})");
}

}  // namespace
}  // namespace dynarock::api
