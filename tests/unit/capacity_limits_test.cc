// Pins capacity enforcement (engine/api/capacity_limits.h) as api::Handler
// applies it, on a database clock the test moves: token buckets at the
// provisioned units with burst earned since creation (at most 300 s), debt
// from a large read, GSI back-pressure on table writes, partial batches,
// cancelled transactions, on-demand maxima, per-partition limits, the reply's
// ConsumedCapacity as the client asked for it, and enforcement switched off.

#include "engine/api/capacity_limits.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>

#include "engine/api/handler.h"

namespace dynarock::api {
namespace {

class CapacityLimitsTest : public ::testing::Test {
 protected:
  void SetUp() override { Open(false); }

  void Open(bool partition_limits) {
    handler_.reset();
    db_.reset();
    Options options;
    options.in_memory = true;
    options.clock = [this] { return now_.load(); };
    db_ = std::move(DB::Open(options, "").value());
    handler_ = std::make_unique<Handler>(db_.get());
    CapacityLimitOptions limits;
    limits.partition_limits = partition_limits;
    limits.clock = [this] { return now_.load(); };
    limits_ = std::make_shared<CapacityLimits>(limits);
    handler_->SetCapacityLimits(limits_);
  }

  ApiReply Call(const std::string& op, const std::string& body) { return handler_->Handle(op, body); }
  void Ok(const std::string& op, const std::string& body) {
    ApiReply r = Call(op, body);
    ASSERT_EQ(r.http_status, 200) << op << ": " << r.body;
  }
  // `rcu`/`wcu` 0: on demand.
  void Table(const std::string& name, int rcu, int wcu, const std::string& gsi = "") {
    std::string body = R"({"TableName":")" + name +
                       R"(","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],)"
                       R"("AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"})";
    if (!gsi.empty()) body += R"(,{"AttributeName":"g","AttributeType":"S"})";
    body += "]";
    if (rcu > 0) {
      body += R"(,"ProvisionedThroughput":{"ReadCapacityUnits":)" + std::to_string(rcu) +
              R"(,"WriteCapacityUnits":)" + std::to_string(wcu) + "}";
    } else {
      body += R"(,"BillingMode":"PAY_PER_REQUEST")";
    }
    if (!gsi.empty()) body += R"(,"GlobalSecondaryIndexes":[)" + gsi + "]";
    Ok("CreateTable", body + "}");
  }
  std::string PutBody(const std::string& table, const std::string& pk, const std::string& more = "") {
    return R"({"TableName":")" + table + R"(","Item":{"pk":{"S":")" + pk + "\"}" + more + "}}";
  }

  // From the system's time: tables are stamped with it (CreationDateTime).
  std::atomic<double> now_{std::chrono::duration<double>(
                               std::chrono::system_clock::now().time_since_epoch()).count()};
  std::unique_ptr<DB> db_;
  std::unique_ptr<Handler> handler_;
  std::shared_ptr<CapacityLimits> limits_;
};

TEST_F(CapacityLimitsTest, ProvisionedWritesAreThrottledUntilTheClockRefills) {
  Table("tab", 1, 2);
  Ok("PutItem", PutBody("tab", "a"));
  Ok("PutItem", PutBody("tab", "b"));  // a new table holds one second: 2 units
  ApiReply r = Call("PutItem", PutBody("tab", "c"));
  EXPECT_EQ(r.http_status, 400);
  EXPECT_NE(r.body.find("ProvisionedThroughputExceededException"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find(R"("reason":"TableWriteProvisionedThroughputExceeded")"), std::string::npos);
  EXPECT_NE(r.body.find(R"("resource":"arn:aws:dynamodb:)"), std::string::npos) << r.body;
  ApiReply got = Call("GetItem", R"({"TableName":"tab","Key":{"pk":{"S":"c"}},"ConsistentRead":true})");
  EXPECT_EQ(got.body, "{}");  // the throttled write was not applied
  now_ = now_ + 0.5;  // one unit earned
  Ok("PutItem", PutBody("tab", "c"));
  EXPECT_EQ(Call("PutItem", PutBody("tab", "d")).http_status, 400);
}

TEST_F(CapacityLimitsTest, BurstIsWhatWasLeftUnusedAtMostThreeHundredSeconds) {
  Table("tab", 1, 1);
  now_ = now_ + 10'000;
  int done = 0;
  while (done < 400 && Call("PutItem", PutBody("tab", "k" + std::to_string(done))).http_status == 200) {
    ++done;
  }
  EXPECT_EQ(done, 300);
}

TEST_F(CapacityLimitsTest, ALargeReadGoesIntoDebtThatLaterReadsWaitOut) {
  Table("tab", 1, 1000);
  const std::string pad(7000, 'x');
  for (int i = 0; i < 5; ++i) {
    Ok("PutItem", PutBody("tab", "k" + std::to_string(i), R"(,"pad":{"S":")" + pad + "\"}"));
  }
  now_ = now_ + 2;  // 2 read units unused since creation (and the moments the puts took)
  // Strongly consistent Scan of 5 * 7 KB: 9 units; the reply has TOTAL only.
  ApiReply scan = Call("Scan", R"({"TableName":"tab","ConsistentRead":true,"ReturnConsumedCapacity":"TOTAL"})");
  ASSERT_EQ(scan.http_status, 200);
  EXPECT_NE(scan.body.find(R"("ConsumedCapacity":{"TableName":"tab","CapacityUnits":9})"),
            std::string::npos) << scan.body;
  EXPECT_EQ(scan.body.find(R"("Table":)"), std::string::npos);
  const std::string get = R"({"TableName":"tab","Key":{"pk":{"S":"k0"}}})";
  EXPECT_EQ(Call("GetItem", get).http_status, 400);
  now_ = now_ + 6;  // at most 2.1 - 9 + 6 < 1
  EXPECT_EQ(Call("GetItem", get).http_status, 400);
  now_ = now_ + 3;  // at least 2 - 9 + 9
  Ok("GetItem", get);
}

TEST_F(CapacityLimitsTest, AGsiShortOfWriteCapacityThrottlesTheTablesWrites) {
  Table("tab", 10, 100,
        R"({"IndexName":"by_g","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],)"
        R"("Projection":{"ProjectionType":"ALL"},)"
        R"("ProvisionedThroughput":{"ReadCapacityUnits":1,"WriteCapacityUnits":1}})");
  Ok("PutItem", PutBody("tab", "a", R"(,"g":{"S":"x"})"));
  ApiReply r = Call("PutItem", PutBody("tab", "b", R"(,"g":{"S":"y"})"));
  EXPECT_EQ(r.http_status, 400);
  EXPECT_NE(r.body.find("IndexWriteProvisionedThroughputExceeded"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("/index/by_g"), std::string::npos) << r.body;
  const std::string query = R"({"TableName":"tab","IndexName":"by_g","KeyConditionExpression":"g = :g",)"
                            R"("ExpressionAttributeValues":{":g":{"S":"x"}}})";
  Ok("Query", query);  // half of the index's one unit
  r = Call("Query", query);
  EXPECT_NE(r.body.find("IndexReadProvisionedThroughputExceeded"), std::string::npos) << r.body;
  Ok("GetItem", R"({"TableName":"tab","Key":{"pk":{"S":"a"}}})");  // the table's own reads
}

TEST_F(CapacityLimitsTest, BatchesReturnThrottledRequestsUnprocessed) {
  Table("slow", 1, 1);
  Table("fast", 1, 100);
  Ok("PutItem", PutBody("slow", "drain"));
  ApiReply r = Call("BatchWriteItem", R"({"RequestItems":{)"
                    R"("slow":[{"PutRequest":{"Item":{"pk":{"S":"s1"}}}}],)"
                    R"("fast":[{"PutRequest":{"Item":{"pk":{"S":"f1"}}}},{"PutRequest":{"Item":{"pk":{"S":"f2"}}}}]}})");
  ASSERT_EQ(r.http_status, 200) << r.body;
  EXPECT_EQ(r.body, R"({"UnprocessedItems":{"slow":[{"PutRequest":{"Item":{"pk":{"S":"s1"}}}}]}})");
  Ok("GetItem", R"({"TableName":"fast","Key":{"pk":{"S":"f2"}}})");
  // Every request throttled: the exception.
  r = Call("BatchWriteItem", R"({"RequestItems":{"slow":[{"PutRequest":{"Item":{"pk":{"S":"s1"}}}}]}})");
  EXPECT_NE(r.body.find("ProvisionedThroughputExceededException"), std::string::npos) << r.body;
  // BatchGetItem: the same with UnprocessedKeys (the slow table's reads are fine).
  r = Call("BatchGetItem", R"({"RequestItems":{"slow":{"Keys":[{"pk":{"S":"drain"}}]}}})");
  EXPECT_EQ(r.http_status, 200) << r.body;
}

TEST_F(CapacityLimitsTest, ATransactionOnAThrottledTableIsCancelled) {
  Table("slow", 1, 1);
  Table("fast", 1, 100);
  Ok("PutItem", PutBody("slow", "drain"));
  ApiReply r = Call("TransactWriteItems", R"({"TransactItems":[)"
                    R"({"Put":{"TableName":"fast","Item":{"pk":{"S":"tab"}}}},)"
                    R"({"Put":{"TableName":"slow","Item":{"pk":{"S":"t2"}}}}]})");
  EXPECT_EQ(r.http_status, 400);
  EXPECT_NE(r.body.find(R"("CancellationReasons":[{"Code":"None"},{"Code":"ProvisionedThroughputExceeded")"),
            std::string::npos) << r.body;
  EXPECT_EQ(Call("GetItem", R"({"TableName":"fast","Key":{"pk":{"S":"tab"}},"ConsistentRead":true})").body, "{}");
}

TEST_F(CapacityLimitsTest, OnDemandTablesAreLimitedOnlyByTheirMaximum) {
  Table("free", 0, 0);
  for (int i = 0; i < 50; ++i) Ok("PutItem", PutBody("free", "k" + std::to_string(i)));
  Ok("CreateTable", R"({"TableName":"capped","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],)"
                    R"("AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],)"
                    R"("BillingMode":"PAY_PER_REQUEST","OnDemandThroughput":{"MaxWriteRequestUnits":1}})");
  Ok("PutItem", PutBody("capped", "a"));
  ApiReply r = Call("PutItem", PutBody("capped", "b"));
  EXPECT_NE(r.body.find("ThrottlingException"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("TableWriteMaxOnDemandThroughputExceeded"), std::string::npos) << r.body;
  now_ = now_ + 600;  // on demand keeps no burst: one second's
  Ok("PutItem", PutBody("capped", "b"));
  EXPECT_EQ(Call("PutItem", PutBody("capped", "c")).http_status, 400);
}

TEST_F(CapacityLimitsTest, PartitionLimitsThrottleAHotKeyOnly) {
  Open(true);
  Table("tab", 0, 0);
  const std::string big = R"(,"v":{"S":")" + std::string(200 * 1024, 'x') + "\"}";  // 201 units
  int done = 0;
  while (done < 20 && Call("PutItem", PutBody("tab", "hot", big)).http_status == 200) ++done;
  EXPECT_EQ(done, 5);  // 1,000 units: 4 whole puts, the fifth on the last 196
  ApiReply r = Call("PutItem", PutBody("tab", "hot", big));
  EXPECT_NE(r.body.find("TableWriteKeyRangeThroughputExceeded"), std::string::npos) << r.body;
  Ok("PutItem", PutBody("tab", "cold", big));
  // A Query of the hot key reads within its own partition's 3,000 units.
  Ok("Query", R"({"TableName":"tab","KeyConditionExpression":"pk = :p",)"
              R"("ExpressionAttributeValues":{":p":{"S":"hot"}}})");
}

TEST_F(CapacityLimitsTest, EnforcementCanBeTurnedOff) {
  Table("tab", 1, 1);
  Ok("PutItem", PutBody("tab", "a"));
  limits_->Enforce(false, false);
  for (int i = 0; i < 10; ++i) Ok("PutItem", PutBody("tab", "k" + std::to_string(i)));
  limits_->Enforce(true, false);
  EXPECT_EQ(Call("PutItem", PutBody("tab", "z")).http_status, 400);
  limits_->Clear();  // every bucket as its table's unused time allows: one second
  Ok("PutItem", PutBody("tab", "z"));
}

TEST_F(CapacityLimitsTest, BadSettingsAreRefusedAndChangeNothing) {
  Status s = limits_->EnforceJson(R"({"enforce":"yes"})");
  EXPECT_EQ(s.type(), ErrorType::kValidation);
  EXPECT_NE(s.message().find(R"(not "enforce" as given)"), std::string::npos) << s.message();
  s = limits_->EnforceJson(R"({"enforce":false,"burst":1})");  // one bad member: nothing applied
  EXPECT_EQ(s.type(), ErrorType::kValidation);
  EXPECT_TRUE(limits_->enforced());
  EXPECT_EQ(limits_->EnforceJson("[true]").type(), ErrorType::kSerialization);
  ASSERT_TRUE(limits_->EnforceJson(R"({"partitionLimits":true})").ok());
  EXPECT_TRUE(limits_->enforced());  // an absent member keeps its value
  EXPECT_TRUE(limits_->partition_limits());
}

}  // namespace
}  // namespace dynarock::api
