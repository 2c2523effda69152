// Tests of `dynarock serve --metrics-port`: the registry's Prometheus text output
// (exactly), its thread safety, the /metrics listener, and the api::Handler
// observer that feeds it (capacity computed even when the client did not ask for
// it, and then left out of the reply).

#include "tools/server/metrics.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>
#include <vector>

#include "dynarock/db.h"
#include "engine/api/handler.h"

namespace dynarock::server {
namespace {

ConsumedCapacity Capacity(std::string table, double units, std::optional<double> read = std::nullopt,
                          std::optional<double> write = std::nullopt) {
  ConsumedCapacity c;
  c.table_name = std::move(table);
  c.capacity_units = units;
  c.read_capacity_units = read;
  c.write_capacity_units = write;
  return c;
}

const char* const kLe[] = {"0.00001", "0.000025", "0.00005", "0.0001", "0.00025", "0.0005",
                           "0.001",   "0.0025",   "0.005",   "0.01",   "0.025",   "0.05",
                           "0.1",     "0.25",     "0.5",     "1",      "+Inf"};

// The lines of one operation's histogram: `cumulative` has 17 counts (the 16
// bounds and +Inf).
std::string Histogram(const std::string& op, const std::vector<int>& cumulative,
                      const std::string& sum) {
  std::string out;
  for (size_t b = 0; b < 17; ++b) {
    out += "dynarock_request_duration_seconds_bucket{operation=\"" + op + "\",le=\"" + kLe[b] +
           "\"} " + std::to_string(cumulative[b]) + "\n";
  }
  out += "dynarock_request_duration_seconds_sum{operation=\"" + op + "\"} " + sum + "\n";
  out += "dynarock_request_duration_seconds_count{operation=\"" + op + "\"} " +
         std::to_string(cumulative[16]) + "\n";
  return out;
}

const char kRequestsHeader[] =
    "# HELP dynarock_requests_total DynamoDB API requests handled, by operation.\n"
    "# TYPE dynarock_requests_total counter\n";
const char kErrorsHeader[] =
    "# HELP dynarock_errors_total DynamoDB API requests that failed, by operation and error type.\n"
    "# TYPE dynarock_errors_total counter\n";
const char kDurationHeader[] =
    "# HELP dynarock_request_duration_seconds Time to handle a DynamoDB API request (decode, "
    "execute, encode), by operation.\n"
    "# TYPE dynarock_request_duration_seconds histogram\n";
const char kCapacityHeader[] =
    "# HELP dynarock_consumed_capacity_units_total Capacity units consumed as DynamoDB bills "
    "them, by table and kind (read or write).\n"
    "# TYPE dynarock_consumed_capacity_units_total counter\n";

TEST(MetricsRegistryTest, EmptyRegistryHasOnlyMetadata) {
  MetricsRegistry m;
  EXPECT_EQ(m.Render(), std::string(kRequestsHeader) + kErrorsHeader + kDurationHeader +
                            kCapacityHeader);
}

TEST(MetricsRegistryTest, RendersPrometheusTextExactly) {
  MetricsRegistry m;
  m.Record("GetItem", Status::Ok(), 0.00002, {Capacity("Music", 0.5, 0.5)});
  m.Record("GetItem", Status::Ok(), 0.003, {});
  m.Record("PutItem", ValidationError("bad"), 0.3, {});
  m.Record("Frobnicate", Status(ErrorType::kUnknownOperation, "no"), 2.0, {});
  // Capacity without a read/write split counts by the operation's kind; ARNs
  // count under the table's name.
  m.Record("BatchWriteItem", Status::Ok(), 0.00001,
           {Capacity("arn:aws:dynamodb:us-east-1:000000000000:table/Music", 2),
            Capacity("Other", 1, std::nullopt, 1)});
  m.Record("TransactWriteItems", Status::Ok(), 0.0001,
           {Capacity("Other", 3, 1, 2)});  // split given: read 1, write 2

  std::string expected = kRequestsHeader;
  expected +=
      "dynarock_requests_total{operation=\"BatchWriteItem\"} 1\n"
      "dynarock_requests_total{operation=\"GetItem\"} 2\n"
      "dynarock_requests_total{operation=\"PutItem\"} 1\n"
      "dynarock_requests_total{operation=\"TransactWriteItems\"} 1\n"
      "dynarock_requests_total{operation=\"other\"} 1\n";
  expected += kErrorsHeader;
  expected +=
      "dynarock_errors_total{operation=\"PutItem\",type=\"ValidationException\"} 1\n"
      "dynarock_errors_total{operation=\"other\",type=\"UnknownOperationException\"} 1\n";
  expected += kDurationHeader;
  expected += Histogram("BatchWriteItem", {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
                        "1e-05");
  expected += Histogram("GetItem", {0, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2}, "0.00302");
  expected += Histogram("PutItem", {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1}, "0.3");
  expected += Histogram("TransactWriteItems",
                        {0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, "0.0001");
  expected += Histogram("other", {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, "2");
  expected += kCapacityHeader;
  expected +=
      "dynarock_consumed_capacity_units_total{table=\"Music\",kind=\"read\"} 0.5\n"
      "dynarock_consumed_capacity_units_total{table=\"Music\",kind=\"write\"} 2\n"
      "dynarock_consumed_capacity_units_total{table=\"Other\",kind=\"read\"} 1\n"
      "dynarock_consumed_capacity_units_total{table=\"Other\",kind=\"write\"} 3\n";
  EXPECT_EQ(m.Render(), expected);
}

TEST(MetricsRegistryTest, EscapesLabelValues) {
  MetricsRegistry m;
  m.Record("Scan", Status::Ok(), 0, {Capacity("we\"ird\\na\nme", 1)});
  std::string out = m.Render();
  EXPECT_NE(out.find("{table=\"we\\\"ird\\\\na\\nme\",kind=\"read\"} 1\n"), std::string::npos)
      << out;
}

TEST(MetricsRegistryTest, OperationLabels) {
  EXPECT_EQ(MetricsRegistry::OperationLabel("Query"), "Query");
  EXPECT_EQ(MetricsRegistry::OperationLabel("DescribeTimeToLive"), "DescribeTimeToLive");
  EXPECT_EQ(MetricsRegistry::OperationLabel("query"), "other");
  EXPECT_EQ(MetricsRegistry::OperationLabel(""), "other");
}

TEST(MetricsRegistryTest, CountsExactlyUnderConcurrency) {
  MetricsRegistry m;
  constexpr int kThreads = 4, kPerThread = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&m, t] {
      for (int i = 0; i < kPerThread; ++i) {
        m.Record(i % 2 ? "GetItem" : "PutItem", i % 10 == 0 ? ValidationError("x") : Status::Ok(),
                 0.0002, {Capacity("t" + std::to_string((t + i) % 3), 0.5)});
      }
    });
  }
  for (auto& th : threads) th.join();
  std::string out = m.Render();
  EXPECT_NE(out.find("dynarock_requests_total{operation=\"GetItem\"} 40000\n"), std::string::npos);
  EXPECT_NE(out.find("dynarock_requests_total{operation=\"PutItem\"} 40000\n"), std::string::npos);
  EXPECT_NE(out.find("dynarock_errors_total{operation=\"PutItem\",type=\"ValidationException\"} 8000\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("dynarock_request_duration_seconds_count{operation=\"GetItem\"} 40000\n"),
            std::string::npos);
  // 80000 requests * 0.5 units over three tables, half of them reads.
  double read = 0, write = 0;
  for (int t = 0; t < 3; ++t) {
    for (const char* kind : {"read", "write"}) {
      std::string key = "{table=\"t" + std::to_string(t) + "\",kind=\"" + kind + "\"} ";
      size_t pos = out.find(key);
      ASSERT_NE(pos, std::string::npos) << key;
      (kind[0] == 'r' ? read : write) += std::stod(out.substr(pos + key.size()));
    }
  }
  EXPECT_EQ(read, 20000);
  EXPECT_EQ(write, 20000);
}

// ---------------------------------------------------------------- the listener

std::string HttpGet(uint16_t port, const std::string& request) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(fd);
    return "connect failed";
  }
  ::send(fd, request.data(), request.size(), 0);
  std::string reply;
  char buf[4096];
  ssize_t n;
  while ((n = ::recv(fd, buf, sizeof(buf), 0)) > 0) reply.append(buf, static_cast<size_t>(n));
  ::close(fd);
  return reply;
}

TEST(MetricsServerTest, ServesMetrics) {
  MetricsRegistry m;
  m.Record("GetItem", Status::Ok(), 0.001, {Capacity("Music", 1, 1)});
  MetricsServer server(&m);
  uint16_t port = 0;
  Status s = server.Start("127.0.0.1", 0, &port);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_NE(port, 0);

  std::string reply = HttpGet(port, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
  ASSERT_EQ(reply.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << reply;
  EXPECT_NE(reply.find("Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"),
            std::string::npos);
  const std::string body = m.Render();
  EXPECT_NE(reply.find("Content-Length: " + std::to_string(body.size()) + "\r\n"),
            std::string::npos);
  EXPECT_EQ(reply.substr(reply.find("\r\n\r\n") + 4), body);

  EXPECT_EQ(HttpGet(port, "GET /metrics?x=1 HTTP/1.0\r\n\r\n").rfind("HTTP/1.1 200", 0), 0u);
  EXPECT_EQ(HttpGet(port, "GET /other HTTP/1.1\r\n\r\n").rfind("HTTP/1.1 404", 0), 0u);
  EXPECT_EQ(HttpGet(port, "POST /metrics HTTP/1.1\r\n\r\n").rfind("HTTP/1.1 405", 0), 0u);
  std::string head = HttpGet(port, "HEAD /metrics HTTP/1.1\r\n\r\n");
  EXPECT_EQ(head.rfind("HTTP/1.1 200", 0), 0u);
  EXPECT_EQ(head.substr(head.find("\r\n\r\n") + 4), "");
  server.Stop();
  server.Stop();  // idempotent
}

TEST(MetricsServerTest, PortInUseIsAnError) {
  MetricsRegistry m;
  MetricsServer a(&m), b(&m);
  uint16_t port = 0;
  ASSERT_TRUE(a.Start("127.0.0.1", 0, &port).ok());
  Status s = b.Start("127.0.0.1", port);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("cannot listen"), std::string::npos) << s.message();
}

// ---------------------------------------------------------------- the handler observer

struct Observed {
  std::string op;
  Status status;
  double seconds = -1;
  std::vector<ConsumedCapacity> consumed;
};

class ObserverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Options o;
    o.in_memory = true;
    auto db = DB::Open(o, "");
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(db).value();
    handler_ = std::make_unique<api::Handler>(db_.get());
    api::ApiReply r = handler_->Handle(
        "CreateTable",
        R"({"TableName":"Music","BillingMode":"PAY_PER_REQUEST",)"
        R"("AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],)"
        R"("KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]})");
    ASSERT_EQ(r.http_status, 200) << r.body;
    handler_->SetObserver([this](std::string_view op, const Status& s, double secs,
                                 const std::vector<ConsumedCapacity>& c) {
      calls_.push_back({std::string(op), s, secs, c});
    });
  }

  std::unique_ptr<DB> db_;
  std::unique_ptr<api::Handler> handler_;
  std::vector<Observed> calls_;
};

TEST_F(ObserverTest, CapacityIsComputedButNotReturnedUnlessAsked) {
  api::ApiReply r =
      handler_->Handle("PutItem", R"({"TableName":"Music","Item":{"pk":{"S":"a"}}})");
  ASSERT_EQ(r.http_status, 200) << r.body;
  EXPECT_EQ(r.body, "{}");
  ASSERT_EQ(calls_.size(), 1u);
  EXPECT_EQ(calls_[0].op, "PutItem");
  EXPECT_TRUE(calls_[0].status.ok());
  EXPECT_GE(calls_[0].seconds, 0);
  ASSERT_EQ(calls_[0].consumed.size(), 1u);
  EXPECT_EQ(calls_[0].consumed[0].table_name, "Music");
  EXPECT_EQ(calls_[0].consumed[0].capacity_units, 1);

  r = handler_->Handle("GetItem", R"({"TableName":"Music","Key":{"pk":{"S":"a"}}})");
  ASSERT_EQ(r.http_status, 200) << r.body;
  EXPECT_EQ(r.body.find("ConsumedCapacity"), std::string::npos) << r.body;
  ASSERT_EQ(calls_.size(), 2u);
  ASSERT_EQ(calls_[1].consumed.size(), 1u);
  EXPECT_EQ(calls_[1].consumed[0].capacity_units, 0.5);

  r = handler_->Handle("BatchGetItem",
                       R"({"RequestItems":{"Music":{"Keys":[{"pk":{"S":"a"}},{"pk":{"S":"b"}}]}}})");
  ASSERT_EQ(r.http_status, 200) << r.body;
  EXPECT_EQ(r.body.find("ConsumedCapacity"), std::string::npos) << r.body;
  ASSERT_EQ(calls_.size(), 3u);
  ASSERT_EQ(calls_[2].consumed.size(), 1u);
  EXPECT_EQ(calls_[2].consumed[0].capacity_units, 1);  // 0.5 per key, found or not
}

TEST_F(ObserverTest, CapacityStaysInTheReplyWhenAsked) {
  api::ApiReply r = handler_->Handle(
      "PutItem",
      R"({"TableName":"Music","Item":{"pk":{"S":"a"}},"ReturnConsumedCapacity":"TOTAL"})");
  ASSERT_EQ(r.http_status, 200) << r.body;
  EXPECT_NE(r.body.find("\"ConsumedCapacity\""), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("\"TableName\":\"Music\""), std::string::npos) << r.body;
  ASSERT_EQ(calls_.size(), 1u);
  ASSERT_EQ(calls_[0].consumed.size(), 1u);

  r = handler_->Handle(
      "Query",
      R"({"TableName":"Music","KeyConditionExpression":"pk = :a",)"
      R"("ExpressionAttributeValues":{":a":{"S":"a"}},"ReturnConsumedCapacity":"INDEXES"})");
  ASSERT_EQ(r.http_status, 200) << r.body;
  EXPECT_NE(r.body.find("\"ConsumedCapacity\""), std::string::npos) << r.body;
  ASSERT_EQ(calls_.size(), 2u);
  ASSERT_EQ(calls_[1].consumed.size(), 1u);
  EXPECT_EQ(calls_[1].consumed[0].capacity_units, 0.5);
}

TEST_F(ObserverTest, ErrorsCarryTheirStatus) {
  api::ApiReply r = handler_->Handle("GetItem", R"({"TableName":"Nope","Key":{"pk":{"S":"a"}}})");
  EXPECT_EQ(r.http_status, 400);
  r = handler_->Handle("GetItem", "not json");
  EXPECT_EQ(r.http_status, 400);
  r = handler_->Handle("Frobnicate", "{}");
  EXPECT_EQ(r.http_status, 400);
  r = handler_->Handle("DescribeTimeToLive", R"({"TableName":"Nope"})");
  EXPECT_EQ(r.http_status, 400);
  r = handler_->Handle("ListTables", "{}");
  EXPECT_EQ(r.http_status, 200);
  ASSERT_EQ(calls_.size(), 5u);
  EXPECT_EQ(calls_[0].status.type(), ErrorType::kResourceNotFound);
  EXPECT_TRUE(calls_[0].consumed.empty());
  EXPECT_EQ(calls_[1].status.type(), ErrorType::kSerialization);
  EXPECT_EQ(calls_[2].op, "Frobnicate");
  EXPECT_EQ(calls_[2].status.type(), ErrorType::kUnknownOperation);
  EXPECT_EQ(calls_[3].status.type(), ErrorType::kResourceNotFound);
  EXPECT_TRUE(calls_[4].status.ok());
  EXPECT_TRUE(calls_[4].consumed.empty());
}

TEST_F(ObserverTest, FeedsTheRegistry) {
  MetricsRegistry m;
  handler_->SetObserver([&m](std::string_view op, const Status& s, double secs,
                             const std::vector<ConsumedCapacity>& c) { m.Record(op, s, secs, c); });
  ASSERT_EQ(handler_->Handle("PutItem", R"({"TableName":"Music","Item":{"pk":{"S":"a"}}})")
                .http_status,
            200);
  ASSERT_EQ(handler_->Handle("GetItem", R"({"TableName":"Music","Key":{"pk":{"S":"a"}}})")
                .http_status,
            200);
  EXPECT_EQ(handler_->Handle("GetItem", R"({"TableName":"Music"})").http_status, 400);
  std::string out = m.Render();
  EXPECT_NE(out.find("dynarock_requests_total{operation=\"GetItem\"} 2\n"), std::string::npos) << out;
  EXPECT_NE(out.find("dynarock_errors_total{operation=\"GetItem\",type=\"ValidationException\"} 1\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("{table=\"Music\",kind=\"write\"} 1\n"), std::string::npos) << out;
  EXPECT_NE(out.find("{table=\"Music\",kind=\"read\"} 0.5\n"), std::string::npos) << out;
}

TEST_F(ObserverTest, RemovingTheObserverRestoresPlainHandling) {
  handler_->SetObserver(nullptr);
  api::ApiReply r = handler_->Handle("GetItem", R"({"TableName":"Music","Key":{"pk":{"S":"a"}}})");
  EXPECT_EQ(r.http_status, 200);
  EXPECT_TRUE(calls_.empty());
}

}  // namespace
}  // namespace dynarock::server
