// Pins fault injection (engine/api/faults.h) and the request log
// (engine/api/request_log.h) as the Handler applies them: rule parsing and its
// errors (a bad rule set changes nothing), matching by operation, table and
// key prefix, first_n / every_nth / max_fires / probability, determinism
// under a seed, exact counters under concurrency, each action (errors with
// DynamoDB's type and status, a transaction's cancellation reasons, drops
// before and after the write, partial batches), and the log's lines.

#include "engine/api/faults.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "engine/api/handler.h"
#include "engine/api/request_log.h"

namespace dynarock::api {
namespace {

class FaultsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Options options;
    options.in_memory = true;
    db_ = std::move(DB::Open(options, "").value());
    handler_ = std::make_unique<Handler>(db_.get());
    for (const char* t : {"Music", "Other"}) {
      ASSERT_EQ(Call("CreateTable", std::string(R"({"TableName":")") + t +
                                        R"(","BillingMode":"PAY_PER_REQUEST",)"
                                        R"("AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},)"
                                        R"({"AttributeName":"sk","AttributeType":"S"}],)"
                                        R"("KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},)"
                                        R"({"AttributeName":"sk","KeyType":"RANGE"}]})")
                    .http_status,
                200);
    }
    faults_ = std::make_shared<FaultInjector>();
    handler_->SetFaults(faults_);
  }
  ApiReply Call(std::string_view op, std::string_view body) { return handler_->Handle(op, body); }
  ApiReply Put(std::string_view table, std::string_view pk) {
    return Call("PutItem", R"({"TableName":")" + std::string(table) + R"(","Item":{"pk":{"S":")" +
                               std::string(pk) + R"("},"sk":{"S":"x"}}})");
  }
  bool Exists(std::string_view table, std::string_view pk) {
    handler_->SetFaults(nullptr);
    ApiReply r = Call("GetItem", R"({"TableName":")" + std::string(table) + R"(","Key":{"pk":{"S":")" +
                                     std::string(pk) + R"("},"sk":{"S":"x"}}})");
    handler_->SetFaults(faults_);
    return r.body.find("\"Item\"") != std::string::npos;
  }

  std::unique_ptr<DB> db_;
  std::unique_ptr<Handler> handler_;
  std::shared_ptr<FaultInjector> faults_;
};

TEST(FaultRules, BadRulesAreValidationErrorsAndChangeNothing) {
  FaultInjector f;
  ASSERT_TRUE(f.SetRulesJson(R"({"seed":1,"rules":[{"name":"keep","first_n":1}]})").ok());
  struct Case {
    const char* json;
    const char* phrase;
  } cases[] = {
      {"not json", "not valid JSON"},
      {R"({"rules":[{"action":"explode"}]})", "action must be one of"},
      {R"({"rules":[{"error":"NoSuchError"}]})", "error must be one of"},
      {R"({"rules":[{"probability":1.5}]})", "probability must be a number from 0 to 1"},
      {R"({"rules":[{"first_n":0}]})", "first_n must be a whole number from 1"},
      {R"({"rules":[{"latency_ms":40000}]})", "latency_ms must be a whole number from 0 to 30000"},
      {R"({"rules":[{"action":"latency"}]})", "needs latency_ms"},
      {R"({"rules":[{"operation":"PutItem","action":"unprocessed"}]})", "only for BatchWriteItem"},
      {R"({"rules":[{"fraction":0.5}]})", "only for action unprocessed"},
      {R"({"rules":[{"bogus":1}]})", "unknown field 'bogus'"},
      {R"({"rules":[{"operation":"Putitem"}]})", "operation 'Putitem' is not an operation"},
      {R"({"rules":[{"operation":[]}]})", "must not be an empty list"},
      {R"({"rules":[{"name":"a"},{"name":"a"}]})", "used twice"},
      {R"({"seed":-1,"rules":[]})", "seed must be"},
      {R"({"seed":1})", "rules is missing"},
      {R"([1])", "Fault rule 1: must be a JSON object"},
  };
  for (const Case& c : cases) {
    Status s = f.SetRulesJson(c.json);
    EXPECT_EQ(s.type(), ErrorType::kValidation) << c.json;
    EXPECT_NE(s.message().find(c.phrase), std::string::npos) << c.json << " -> " << s.message();
  }
  ASSERT_EQ(f.Counters().size(), 1u);
  EXPECT_EQ(f.Counters()[0].name, "keep");
  EXPECT_EQ(f.seed(), 1u);
}

// Mutated rule documents never crash the parser, and a rejected one never
// changes the rules.
TEST(FaultRules, MutatedDocumentsNeverCrash) {
  const std::string valid =
      R"({"seed":7,"rules":[{"name":"a","operation":["BatchGetItem","BatchWriteItem"],"table":"t",)"
      R"("key_prefix":"u#","probability":0.5,"every_nth":2,"first_n":3,"max_fires":4,)"
      R"("action":"unprocessed","fraction":0.5},{"error":"ThrottlingException","latency_ms":5}]})";
  FaultInjector f;
  ASSERT_TRUE(f.SetRulesJson(valid).ok());
  std::mt19937 rng(1234);
  const char kBytes[] = "{}[]\":,0123456789.-eE truefalsnul\\xA";
  for (int i = 0; i < 3000; ++i) {
    std::string doc = valid;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !doc.empty(); ++e) {
      const size_t at = rng() % doc.size();
      switch (rng() % 3) {
        case 0: doc[at] = kBytes[rng() % (sizeof(kBytes) - 1)]; break;
        case 1: doc.erase(at, 1 + rng() % 8); break;
        default: doc.insert(at, 1, kBytes[rng() % (sizeof(kBytes) - 1)]); break;
      }
    }
    const std::string before = f.ToJson();
    Status s = f.SetRulesJson(doc);
    if (!s.ok()) {
      EXPECT_EQ(s.type(), ErrorType::kValidation);
      EXPECT_EQ(f.ToJson(), before);
    } else {
      ASSERT_TRUE(f.SetRulesJson(valid).ok());
    }
  }
}

TEST(FaultRules, DrawIsAPureFunctionOfSeedRuleAndCount) {
  int fires = 0;
  for (uint64_t n = 1; n <= 10000; ++n) {
    EXPECT_EQ(FaultDraw(42, 0, n, 0.3), FaultDraw(42, 0, n, 0.3));
    fires += FaultDraw(42, 0, n, 0.3);
  }
  EXPECT_NEAR(fires, 3000, 200);
  int differ = 0;
  for (uint64_t n = 1; n <= 100; ++n) differ += FaultDraw(42, 0, n, 0.5) != FaultDraw(43, 0, n, 0.5);
  EXPECT_GT(differ, 10);
}

TEST_F(FaultsTest, FirstNThrottlesThenLetsThrough) {
  ASSERT_TRUE(faults_->SetRulesJson(R"({"rules":[{"name":"t","operation":"PutItem","table":"Music",)"
                                    R"("first_n":2,"error":"ProvisionedThroughputExceededException"}]})")
                  .ok());
  for (int i = 0; i < 2; ++i) {
    ApiReply r = Put("Music", "a");
    EXPECT_EQ(r.http_status, 400);
    EXPECT_NE(r.body.find("#ProvisionedThroughputExceededException"), std::string::npos) << r.body;
  }
  EXPECT_EQ(Put("Other", "a").http_status, 200);  // another table: no match
  EXPECT_EQ(Put("Music", "a").http_status, 200);
  auto c = faults_->Counters();
  EXPECT_EQ(c[0].matched, 3u);
  EXPECT_EQ(c[0].fired, 2u);
}

TEST_F(FaultsTest, ErrorsHaveDynamoDbsStatuses) {
  struct Case {
    const char* error;
    int status;
    const char* type;
  } cases[] = {{"ThrottlingException", 400, "ThrottlingException"},
               {"RequestLimitExceeded", 400, "#RequestLimitExceeded"},
               {"InternalServerError", 500, "#InternalServerError"},
               {"ServiceUnavailable", 503, "#ServiceUnavailable"},
               {"TransactionConflict", 400, "#TransactionConflictException"},
               {"ItemCollectionSizeLimitExceededException", 400, "#ItemCollectionSizeLimitExceededException"}};
  for (const Case& c : cases) {
    ASSERT_TRUE(faults_->SetRulesJson(std::string(R"({"rules":[{"error":")") + c.error + R"("}]})").ok());
    ApiReply r = Put("Music", "a");
    EXPECT_EQ(r.http_status, c.status) << c.error;
    EXPECT_NE(r.body.find(c.type), std::string::npos) << r.body;
  }
}

TEST_F(FaultsTest, KeyPrefixAndEveryNth) {
  ASSERT_TRUE(faults_->SetRulesJson(R"({"rules":[{"key_prefix":"user#","every_nth":2,"error":"ThrottlingException"}]})").ok());
  EXPECT_EQ(Put("Music", "user#1").http_status, 200);  // match 1
  EXPECT_EQ(Put("Music", "order#1").http_status, 200);  // no match
  EXPECT_EQ(Put("Music", "user#2").http_status, 400);  // match 2
  EXPECT_EQ(Put("Music", "user#3").http_status, 200);  // match 3
  EXPECT_TRUE(Exists("Music", "user#1"));
  EXPECT_FALSE(Exists("Music", "user#2"));
  EXPECT_EQ(faults_->Counters()[0].matched, 3u);
}

TEST_F(FaultsTest, DropBeforeApplyDoesNotWriteAndDropAfterApplyDoes) {
  ASSERT_TRUE(faults_->SetRulesJson(R"({"rules":[{"key_prefix":"before","action":"drop_before_apply"},)"
                                    R"({"key_prefix":"after","action":"drop_after_apply"}]})")
                  .ok());
  ApiReply before = Put("Music", "before");
  EXPECT_EQ(before.drop, ApiReply::Drop::kBeforeReply);
  EXPECT_EQ(before.http_status, 500);
  EXPECT_NE(before.body.find("dropped before"), std::string::npos);
  ApiReply after = Put("Music", "after");
  EXPECT_EQ(after.drop, ApiReply::Drop::kBeforeReply);
  EXPECT_FALSE(Exists("Music", "before"));
  EXPECT_TRUE(Exists("Music", "after"));
  EXPECT_EQ(Put("Music", "other").drop, ApiReply::Drop::kNone);
}

TEST_F(FaultsTest, TransactionConflictNamesTheMatchedItems) {
  ASSERT_TRUE(faults_->SetRulesJson(R"({"rules":[{"key_prefix":"hot","error":"TransactionConflict"}]})").ok());
  ApiReply r = Call("TransactWriteItems",
                    R"({"TransactItems":[{"Put":{"TableName":"Music","Item":{"pk":{"S":"cold"},"sk":{"S":"x"}}}},)"
                    R"({"Put":{"TableName":"Music","Item":{"pk":{"S":"hot"},"sk":{"S":"x"}}}}]})");
  EXPECT_EQ(r.http_status, 400);
  EXPECT_NE(r.body.find("TransactionCanceledException"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("[None, TransactionConflict]"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find(R"("Code":"TransactionConflict")"), std::string::npos) << r.body;
  EXPECT_FALSE(Exists("Music", "cold"));
}

TEST_F(FaultsTest, PartiqlTransactionConflictHasAReasonPerStatement) {
  ASSERT_TRUE(faults_->SetRulesJson(R"({"rules":[{"operation":"ExecuteTransaction","error":"TransactionConflict"}]})").ok());
  ApiReply r = Call("ExecuteTransaction",
                    R"({"TransactStatements":[{"Statement":"INSERT INTO Music VALUE {'pk':'p1','sk':'x'}"},)"
                    R"({"Statement":"INSERT INTO Music VALUE {'pk':'p2','sk':'x'}"}]})");
  EXPECT_EQ(r.http_status, 400);
  EXPECT_NE(r.body.find("[TransactionConflict, TransactionConflict]"), std::string::npos) << r.body;
  EXPECT_FALSE(Exists("Music", "p1"));
}

TEST_F(FaultsTest, PartialBatchWriteLeavesItemsUnprocessedAndUnwritten) {
  ASSERT_TRUE(faults_->SetRulesJson(R"({"rules":[{"operation":"BatchWriteItem","action":"unprocessed","keep":1}]})").ok());
  ApiReply r = Call("BatchWriteItem",
                    R"({"RequestItems":{"Music":[)"
                    R"({"PutRequest":{"Item":{"pk":{"S":"b1"},"sk":{"S":"x"}}}},)"
                    R"({"PutRequest":{"Item":{"pk":{"S":"b2"},"sk":{"S":"x"}}}},)"
                    R"({"PutRequest":{"Item":{"pk":{"S":"b3"},"sk":{"S":"x"}}}}]}})");
  ASSERT_EQ(r.http_status, 200) << r.body;
  EXPECT_NE(r.body.find(R"("UnprocessedItems":{"Music":[)"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("b2"), std::string::npos);
  EXPECT_NE(r.body.find("b3"), std::string::npos);
  EXPECT_EQ(r.body.find("b1"), std::string::npos);
  EXPECT_TRUE(Exists("Music", "b1"));
  EXPECT_FALSE(Exists("Music", "b2"));
  EXPECT_FALSE(Exists("Music", "b3"));
}

TEST_F(FaultsTest, PartialBatchGetCanHoldBackEverything) {
  ASSERT_EQ(Put("Music", "g1").http_status, 200);
  ASSERT_TRUE(faults_->SetRulesJson(R"({"rules":[{"action":"unprocessed","fraction":1}]})").ok());
  ApiReply r = Call("BatchGetItem", R"({"RequestItems":{"Music":{"Keys":[{"pk":{"S":"g1"},"sk":{"S":"x"}}],)"
                                    R"("ConsistentRead":true}}})");
  ASSERT_EQ(r.http_status, 200) << r.body;
  EXPECT_NE(r.body.find(R"("Responses":{"Music":[]})"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find(R"("UnprocessedKeys":{"Music":{"Keys":[{)"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find(R"("ConsistentRead":true)"), std::string::npos) << r.body;
}

TEST_F(FaultsTest, SameSeedSameFires) {
  auto run = [&](uint64_t seed) {
    EXPECT_TRUE(faults_->SetRulesJson(R"({"seed":)" + std::to_string(seed) +
                                      R"(,"rules":[{"probability":0.5,"error":"ThrottlingException"}]})")
                    .ok());
    std::string pattern;
    for (int i = 0; i < 64; ++i) pattern += Put("Music", "s" + std::to_string(i)).http_status == 200 ? '.' : 'X';
    return pattern;
  };
  const std::string a = run(7), b = run(7), c = run(8);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_NE(a.find('X'), std::string::npos);
  EXPECT_NE(a.find('.'), std::string::npos);
}

TEST_F(FaultsTest, CountersAreExactUnderConcurrency) {
  ASSERT_TRUE(faults_->SetRulesJson(R"({"seed":3,"rules":[{"operation":"GetItem","every_nth":3,"max_fires":50,)"
                                    R"("error":"ThrottlingException"}]})")
                  .ok());
  std::atomic<int> throttled{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 100; ++i) {
        ApiReply r = Call("GetItem", R"({"TableName":"Music","Key":{"pk":{"S":"a"},"sk":{"S":"x"}}})");
        if (r.http_status == 400) ++throttled;
      }
    });
  }
  for (auto& t : threads) t.join();
  auto c = faults_->Counters();
  EXPECT_EQ(c[0].matched, 800u);
  EXPECT_EQ(c[0].fired, 50u);
  EXPECT_EQ(throttled.load(), 50);
}

TEST_F(FaultsTest, LatencyRulesDelayAndLetLaterRulesDecide) {
  ASSERT_TRUE(faults_->SetRulesJson(R"({"rules":[{"name":"slow","latency_ms":50},)"
                                    R"({"name":"fail","error":"InternalServerError"}]})")
                  .ok());
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(Put("Music", "a").http_status, 500);
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(50));
  std::string json = faults_->ToJson();
  EXPECT_NE(json.find(R"("name":"slow")"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("action":"latency")"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("fired":2)"), std::string::npos) << json;  // the total
}

// delays() tells `serve` to run requests on threads of their own: true while
// any rule has a latency, a delayed action's included.
TEST(FaultRules, DelaysWhileAnyRuleHasALatency) {
  FaultInjector f;
  EXPECT_FALSE(f.delays());
  ASSERT_TRUE(f.SetRulesJson(R"({"rules":[{"error":"InternalServerError"}]})").ok());
  EXPECT_TRUE(f.active());
  EXPECT_FALSE(f.delays());
  ASSERT_TRUE(f.SetRulesJson(R"({"rules":[{"error":"InternalServerError"},)"
                             R"({"name":"late","error":"ThrottlingException","latency_ms":5}]})")
                  .ok());
  EXPECT_TRUE(f.delays());
  ASSERT_TRUE(f.SetRulesJson(R"({"rules":[{"latency_ms":5}]})").ok());
  EXPECT_TRUE(f.delays());
  // A refused rule set changes nothing, this flag included.
  EXPECT_FALSE(f.SetRulesJson(R"({"rules":[{"latency_ms":-1}]})").ok());
  EXPECT_TRUE(f.delays());
  ASSERT_TRUE(f.SetRulesJson(R"({"rules":[]})").ok());
  EXPECT_FALSE(f.delays());
  ASSERT_TRUE(f.SetRulesJson(R"({"rules":[{"latency_ms":5}]})").ok());
  f.Clear();
  EXPECT_FALSE(f.delays());
}

TEST_F(FaultsTest, OperationsWithoutARequestStructMatchByName) {
  ASSERT_TRUE(faults_->SetRulesJson(R"({"rules":[{"operation":"DescribeLimits","error":"ServiceUnavailable"}]})").ok());
  EXPECT_EQ(Call("DescribeLimits", "{}").http_status, 503);
}

TEST_F(FaultsTest, RequestLogLines) {
  const std::string path = ::testing::TempDir() + "/faults_test_request_log.jsonl";
  std::remove(path.c_str());
  {
    auto log = RequestLog::Open(path);
    ASSERT_TRUE(log.ok());
    handler_->SetRequestLog(std::shared_ptr<RequestLog>(std::move(*log)));
    ASSERT_TRUE(faults_->SetRulesJson(R"({"rules":[{"name":"thr","first_n":1,"operation":"PutItem",)"
                                      R"("error":"ProvisionedThroughputExceededException"}]})")
                    .ok());
    EXPECT_EQ(Put("Music", "k1").http_status, 400);
    EXPECT_EQ(Put("Music", "k1").http_status, 200);
    for (int i = 0; i < 5; ++i) ASSERT_EQ(Put("Music", "q").http_status, 200);
    EXPECT_EQ(Call("Scan", R"({"TableName":"Music","Limit":2})").http_status, 200);
    EXPECT_EQ(Call("Scan", R"({"TableName":"Music","FilterExpression":"pk = :v",)"
                           R"("ExpressionAttributeValues":{":v":{"S":"k1"}}})")
                  .http_status,
              200);
    handler_->SetRequestLog(nullptr);  // the last reference: flushed and closed
  }
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  ASSERT_EQ(lines.size(), 9u);
  auto has = [&](size_t i, const std::string& s) {
    EXPECT_NE(lines[i].find(s), std::string::npos) << "line " << i << " lacks " << s << ": " << lines[i];
  };
  has(0, R"("operation":"PutItem","table":"Music","partition_key":"k1","key")");
  has(0, R"("status":400,"error":"ProvisionedThroughputExceededException")");
  has(0, R"("faults":["thr"])");
  has(1, R"("status":200)");
  has(1, R"("consumed":[{"table":"Music","units":1,"read":0,"write":1)");
  has(1, R"("item_bytes":)");
  has(7, R"("operation":"Scan")");
  has(7, R"("items_scanned":2,"items_returned":2,"page_end":"limit")");
  has(8, R"("items_scanned":2,"items_returned":1,"page_end":"end","filtered":true)");
  // The same body again: the same hash (how a reader sees a retry).
  auto hash = [&](size_t i) { return lines[i].substr(lines[i].find("\"body_hash\"")); };
  EXPECT_EQ(hash(0), hash(1));
  EXPECT_NE(hash(1), hash(2));
}

}  // namespace
}  // namespace dynarock::api
