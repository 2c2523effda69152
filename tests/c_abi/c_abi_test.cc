// File: tests/c_abi/c_abi_test.cc
//
// The C ABI (include/dynarock/dynarock.h) through the shared library itself:
// this binary links libdynarock.so only, so it sees what any embedder sees.
// Operations, errors with DynamoDB's types, bad input of every kind (NULL
// pointers, invalid JSON, unknown operations, closed handles, bad options), the
// graph operations, stream subscriptions, the in-process endpoint, the "in
// use" refusal, and a seeded random-JSON run that must never crash.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "dynarock/dynarock.h"

namespace {

struct Result {
  dynarock_code code = DYNAROCK_OK;
  std::string body;   // response, or the error's JSON
  std::string type;   // error type
  std::string message;
  int http = 0;
};

Result Exec(dynarock_db* db, const char* op, const char* json, bool graph = false) {
  Result r;
  char* out = nullptr;
  dynarock_error* err = nullptr;
  r.code = graph ? dynarock_graph_execute(db, op, json, &out, &err)
                 : dynarock_execute(db, op, json, &out, &err);
  if (r.code == DYNAROCK_OK) {
    EXPECT_NE(out, nullptr);
    if (out) r.body = out;
    dynarock_free(out);
    EXPECT_EQ(err, nullptr);
  } else {
    EXPECT_EQ(out, nullptr);
    EXPECT_NE(err, nullptr);
    if (err) {
      r.type = dynarock_error_type(err);
      r.message = dynarock_error_message(err);
      r.body = dynarock_error_json(err);
      r.http = dynarock_error_http_status(err);
      dynarock_error_free(err);
    }
  }
  return r;
}

dynarock_db* OpenMemory() {
  dynarock_db* db = nullptr;
  dynarock_error* err = nullptr;
  EXPECT_EQ(dynarock_open(nullptr, nullptr, &db, &err), DYNAROCK_OK);
  EXPECT_EQ(err, nullptr);
  return db;
}

const char* kCreate =
    R"({"TableName":"things","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],)"
    R"("AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],)"
    R"("BillingMode":"PAY_PER_REQUEST","StreamSpecification":{"StreamEnabled":true,)"
    R"("StreamViewType":"NEW_AND_OLD_IMAGES"}})";

TEST(CAbi, VersionMatchesHeaders) {
  EXPECT_STREQ(dynarock_version(), DYNAROCK_VERSION_STRING);
  EXPECT_GE(DYNAROCK_VERSION_NUMBER, 1300);
}

TEST(CAbi, OperationsAndDynamoDbErrors) {
  dynarock_db* db = OpenMemory();
  ASSERT_NE(db, nullptr);
  EXPECT_EQ(Exec(db, "CreateTable", kCreate).code, DYNAROCK_OK);
  EXPECT_EQ(Exec(db, "PutItem", R"({"TableName":"things","Item":{"pk":{"S":"a"},"n":{"N":"1"}}})")
                .code,
            DYNAROCK_OK);
  Result got = Exec(db, "GetItem", R"({"TableName":"things","Key":{"pk":{"S":"a"}}})");
  EXPECT_EQ(got.body, R"({"Item":{"n":{"N":"1"},"pk":{"S":"a"}}})");

  Result cond = Exec(db, "PutItem",
                     R"({"TableName":"things","Item":{"pk":{"S":"a"}},)"
                     R"j("ConditionExpression":"attribute_not_exists(pk)"})j");
  EXPECT_EQ(cond.code, DYNAROCK_ERROR);
  EXPECT_EQ(cond.type, "ConditionalCheckFailedException");
  EXPECT_EQ(cond.message, "The conditional request failed");
  EXPECT_EQ(cond.http, 400);
  EXPECT_NE(cond.body.find("ConditionalCheckFailedException"), std::string::npos);

  Result missing = Exec(db, "DescribeTable", R"({"TableName":"nope"})");
  EXPECT_EQ(missing.type, "ResourceNotFoundException");
  Result unknown = Exec(db, "NoSuchOperation", "{}");
  EXPECT_EQ(unknown.code, DYNAROCK_ERROR);
  EXPECT_EQ(unknown.type, "UnknownOperationException");
  Result bad_json = Exec(db, "PutItem", "{not json");
  EXPECT_EQ(bad_json.type, "SerializationException");
  Result not_object = Exec(db, "ListTables", "[1,2]");
  EXPECT_EQ(not_object.code, DYNAROCK_ERROR);
  dynarock_close(db);
}

// Fault rules through the C ABI: errors surface as DynamoDB's, a drop is an
// InternalServerError whose write happened or not as the rule says, a bad rule
// set changes nothing, and the counters are readable.
TEST(CAbi, FaultInjection) {
  dynarock_db* db = OpenMemory();
  ASSERT_NE(db, nullptr);
  ASSERT_EQ(Exec(db, "CreateTable", kCreate).code, DYNAROCK_OK);
  char* state = nullptr;
  dynarock_error* err = nullptr;
  ASSERT_EQ(dynarock_set_faults(db,
                                R"({"seed":9,"rules":[{"name":"slow-down","operation":"GetItem",)"
                                R"("first_n":1,"error":"ThrottlingException"},)"
                                R"({"name":"lost","key_prefix":"after","action":"drop_after_apply"}]})",
                                &state, &err),
            DYNAROCK_OK);
  ASSERT_NE(state, nullptr);
  EXPECT_NE(std::string(state).find(R"("seed":9)"), std::string::npos) << state;
  dynarock_free(state);
  Result throttled = Exec(db, "GetItem", R"({"TableName":"things","Key":{"pk":{"S":"a"}}})");
  EXPECT_EQ(throttled.type, "ThrottlingException");
  EXPECT_EQ(Exec(db, "GetItem", R"({"TableName":"things","Key":{"pk":{"S":"a"}}})").code, DYNAROCK_OK);
  Result dropped = Exec(db, "PutItem", R"({"TableName":"things","Item":{"pk":{"S":"after"}}})");
  EXPECT_EQ(dropped.type, "InternalServerError");
  EXPECT_EQ(dropped.http, 500);
  EXPECT_NE(dropped.message.find("after the request was applied"), std::string::npos);

  EXPECT_EQ(dynarock_set_faults(db, R"({"rules":[{"action":"nope"}]})", nullptr, &err), DYNAROCK_ERROR);
  ASSERT_NE(err, nullptr);
  EXPECT_STREQ(dynarock_error_type(err), "ValidationException");
  dynarock_error_free(err);
  err = nullptr;
  ASSERT_EQ(dynarock_get_faults(db, &state, &err), DYNAROCK_OK);
  const std::string counters = state;
  dynarock_free(state);
  EXPECT_NE(counters.find(R"("name":"slow-down")"), std::string::npos) << counters;
  EXPECT_NE(counters.find(R"("matched":2,"fired":1)"), std::string::npos) << counters;
  ASSERT_EQ(dynarock_set_faults(db, nullptr, nullptr, &err), DYNAROCK_OK);
  Result applied = Exec(db, "GetItem", R"({"TableName":"things","Key":{"pk":{"S":"after"}}})");
  EXPECT_NE(applied.body.find("after"), std::string::npos) << applied.body;
  dynarock_close(db);
}

TEST(CAbi, NullPointersClosedHandlesAndBadOptions) {
  char* out = nullptr;
  dynarock_error* err = nullptr;
  EXPECT_EQ(dynarock_open(nullptr, nullptr, nullptr, nullptr), DYNAROCK_INVALID_ARGUMENT);
  EXPECT_EQ(dynarock_execute(nullptr, "ListTables", "{}", &out, &err), DYNAROCK_INVALID_ARGUMENT);
  ASSERT_NE(err, nullptr);
  EXPECT_STREQ(dynarock_error_type(err), "InvalidArgument");
  dynarock_error_free(err);
  err = nullptr;

  dynarock_db* db = OpenMemory();
  EXPECT_EQ(dynarock_execute(db, nullptr, "{}", &out, nullptr), DYNAROCK_INVALID_ARGUMENT);
  EXPECT_EQ(dynarock_execute(db, "ListTables", nullptr, &out, nullptr), DYNAROCK_INVALID_ARGUMENT);
  EXPECT_EQ(dynarock_execute(db, "ListTables", "{}", nullptr, nullptr), DYNAROCK_INVALID_ARGUMENT);
  dynarock_close(db);
  dynarock_close(db);  // twice: harmless
  EXPECT_EQ(dynarock_execute(db, "ListTables", "{}", &out, &err), DYNAROCK_CLOSED);
  ASSERT_NE(err, nullptr);
  EXPECT_STREQ(dynarock_error_type(err), "ClosedHandle");
  dynarock_error_free(err);
  err = nullptr;
  // A pointer this library never returned.
  int junk = 0;
  EXPECT_EQ(dynarock_execute(reinterpret_cast<dynarock_db*>(&junk), "ListTables", "{}", &out,
                             nullptr),
            DYNAROCK_CLOSED);

  dynarock_db* other = nullptr;
  EXPECT_EQ(dynarock_open(nullptr, R"({"sync_writes":"yes"})", &other, &err),
            DYNAROCK_INVALID_ARGUMENT);
  ASSERT_NE(err, nullptr);
  EXPECT_NE(std::string(dynarock_error_message(err)).find("sync_writes"), std::string::npos);
  dynarock_error_free(err);
  err = nullptr;
  EXPECT_EQ(dynarock_open(nullptr, R"({"colour":1})", &other, nullptr), DYNAROCK_INVALID_ARGUMENT);
  EXPECT_EQ(dynarock_open(nullptr, "[", &other, nullptr), DYNAROCK_INVALID_ARGUMENT);
  EXPECT_EQ(dynarock_open(nullptr, R"({"background_jobs":0})", &other, nullptr),
            DYNAROCK_INVALID_ARGUMENT);
  EXPECT_EQ(dynarock_open(nullptr, R"({"block_cache_bytes":-1})", &other, nullptr),
            DYNAROCK_INVALID_ARGUMENT);
  EXPECT_EQ(dynarock_open(nullptr, R"({"memory_budget_bytes":"8M"})", &other, nullptr),
            DYNAROCK_INVALID_ARGUMENT);
  EXPECT_EQ(other, nullptr);
  EXPECT_EQ(dynarock_open(nullptr,
                          R"({"small_device":true,"in_memory":true,"background_jobs":2,)"
                          R"("write_buffer_bytes":65536,"max_open_files":32,)"
                          R"("memory_budget_bytes":8388608})",
                          &other, nullptr),
            DYNAROCK_OK);
  dynarock_close(other);
  dynarock_free(nullptr);
  dynarock_error_free(nullptr);
  dynarock_serve_stop(nullptr);
  dynarock_unsubscribe(nullptr);
}

TEST(CAbi, DataDirectoryInUse) {
  auto dir = std::filesystem::temp_directory_path() /
             ("dynarock_c_abi_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  dynarock_db* first = nullptr;
  ASSERT_EQ(dynarock_open(dir.c_str(), nullptr, &first, nullptr), DYNAROCK_OK);
  dynarock_db* second = nullptr;
  dynarock_error* err = nullptr;
  EXPECT_EQ(dynarock_open(dir.c_str(), nullptr, &second, &err), DYNAROCK_ERROR);
  ASSERT_NE(err, nullptr);
  EXPECT_NE(std::string(dynarock_error_message(err)).find("in use"), std::string::npos)
      << dynarock_error_message(err);
  dynarock_error_free(err);
  ASSERT_EQ(Exec(first, "CreateTable", kCreate).code, DYNAROCK_OK);
  dynarock_close(first);
  // Reopened, the data is there.
  ASSERT_EQ(dynarock_open(dir.c_str(), nullptr, &second, nullptr), DYNAROCK_OK);
  EXPECT_NE(Exec(second, "ListTables", "{}").body.find("things"), std::string::npos);
  dynarock_close(second);
  std::filesystem::remove_all(dir);
}

TEST(CAbi, GraphOperations) {
  dynarock_db* db = OpenMemory();
  EXPECT_EQ(Exec(db, "PutNode", R"({"Id":"USER#Frodo","Attributes":{"age":{"N":"50"}}})", true)
                .code,
            DYNAROCK_OK);
  EXPECT_EQ(Exec(db, "PutNode", R"({"Id":"RING#One"})", true).code, DYNAROCK_OK);
  EXPECT_EQ(Exec(db, "AddEdge", R"({"Source":"USER#Frodo","Type":"CARRIES","Target":"RING#One"})",
                 true)
                .code,
            DYNAROCK_OK);
  Result node = Exec(db, "GetNode", R"({"Id":"USER#Frodo"})", true);
  EXPECT_NE(node.body.find(R"("Type":"USER")"), std::string::npos) << node.body;
  EXPECT_NE(node.body.find(R"("age":{"N":"50"})"), std::string::npos) << node.body;
  Result out = Exec(db, "OutEdges", R"({"Node":"USER#Frodo","Type":"CARRIES"})", true);
  EXPECT_NE(out.body.find(R"("Target":"RING#One")"), std::string::npos) << out.body;
  Result in = Exec(db, "InEdges", R"({"Node":"RING#One","Type":"CARRIES"})", true);
  EXPECT_NE(in.body.find(R"("Source":"USER#Frodo")"), std::string::npos) << in.body;
  EXPECT_EQ(Exec(db, "GetNode", R"({"Id":"USER#Sam"})", true).body, "{}");
  Result missing = Exec(db, "PutNode", R"({"Attributes":{}})", true);
  EXPECT_EQ(missing.type, "ValidationException");
  EXPECT_EQ(Exec(db, "Fly", "{}", true).type, "UnknownOperationException");
  EXPECT_EQ(Exec(db, "GetNode", "nope", true).type, "SerializationException");

  // A traversal composed of steps, with a node filter, its plan and cost, and
  // pages through a cursor.
  EXPECT_EQ(Exec(db, "PutNode", R"({"Id":"USER#Sam","Attributes":{"age":{"N":"38"}}})", true).code,
            DYNAROCK_OK);
  EXPECT_EQ(Exec(db, "AddEdge", R"({"Source":"USER#Sam","Type":"CARRIES","Target":"RING#One"})", true)
                .code,
            DYNAROCK_OK);
  const char* bearers =
      R"({"Start":["USER#Frodo"],"Steps":[{"Direction":"OUT","Types":["CARRIES"]},)"
      R"({"Direction":"IN","Types":["CARRIES"],"NodeFilter":{"Expression":"age < :a",)"
      R"("Values":{":a":{"N":"45"}}}}]})";
  Result t = Exec(db, "Traverse", bearers, true);
  ASSERT_EQ(t.code, DYNAROCK_OK) << t.message;
  EXPECT_NE(t.body.find(R"("Results":["USER#Sam"])"), std::string::npos) << t.body;
  EXPECT_NE(t.body.find(R"("Levels":[["USER#Frodo"],["RING#One"],["USER#Sam"]])"), std::string::npos)
      << t.body;
  EXPECT_NE(t.body.find(R"("Plan":"Query graph index inverted per node and type)"), std::string::npos)
      << t.body;
  EXPECT_NE(t.body.find(R"("ReadUnits":)"), std::string::npos) << t.body;
  Result page = Exec(db, "Traverse",
                     R"({"Start":["RING#One"],"Steps":[{"Direction":"IN","Types":["CARRIES"]}],"Limit":1})",
                     true);
  const size_t at = page.body.find(R"("NextCursor":")");
  ASSERT_NE(at, std::string::npos) << page.body;
  const std::string cursor = page.body.substr(at + 14, page.body.find('"', at + 14) - at - 14);
  Result second = Exec(
      db, "Traverse",
      (R"({"Start":["RING#One"],"Steps":[{"Direction":"IN","Types":["CARRIES"]}],"Limit":1,"Cursor":")" +
       cursor + R"("})")
          .c_str(),
      true);
  EXPECT_EQ(second.code, DYNAROCK_OK) << second.message;
  EXPECT_NE(second.body.find(R"("Results":["USER#Sam"])"), std::string::npos) << second.body;
  EXPECT_EQ(second.body.find("NextCursor"), std::string::npos) << second.body;
  EXPECT_EQ(Exec(db, "Traverse", R"({"Start":["USER#Nobody"],"Steps":[{"Types":["CARRIES"]}]})", true).type,
            "ResourceNotFoundException");
  EXPECT_EQ(Exec(db, "Traverse", R"({"Start":["USER#Frodo"],"Steps":[{"Direction":"SIDEWAYS"}]})", true)
                .type,
            "ValidationException");
  EXPECT_EQ(Exec(db, "Traverse", R"({"Start":"USER#Frodo","Steps":[]})", true).type, "ValidationException");
  // A member of the wrong type is refused, not ignored.
  for (const char* mistyped :
       {R"({"Start":["USER#Frodo"],"Steps":[{"Types":"CARRIES"}]})",
        R"({"Start":["USER#Frodo"],"Steps":[{"Types":["CARRIES"],"EdgeFilter":"a = :v"}]})",
        R"({"Start":["USER#Frodo"],"Steps":[{"Types":["CARRIES"],"NodeFilter":[]}]})",
        R"({"Start":["USER#Frodo"],"Steps":[{"Types":["CARRIES"],"ValidAt":1.5}]})",
        R"({"Start":["USER#Frodo"],"Steps":[{"Types":["CARRIES"]}],"Limit":"10"})",
        R"({"Start":["USER#Frodo"],"Steps":[{"Types":["CARRIES"]}],"MaxVisited":0})"}) {
    EXPECT_EQ(Exec(db, "Traverse", mistyped, true).type, "ValidationException") << mistyped;
  }
  Result bad_filter = Exec(
      db, "Traverse",
      R"({"Start":["USER#Frodo"],"Steps":[{"Types":["CARRIES"],"EdgeFilter":{"Expression":"a = "}}]})",
      true);
  EXPECT_EQ(bad_filter.type, "ValidationException");
  EXPECT_NE(bad_filter.message.find("the edge filter is not valid"), std::string::npos) << bad_filter.message;
  dynarock_close(db);
}

struct Collected {
  std::atomic<int> records{0};
  std::string first;
};

int OnRecord(void* context, const char* json) {
  auto* c = static_cast<Collected*>(context);
  if (c->records.fetch_add(1) == 0) c->first = json;
  return 0;
}

TEST(CAbi, StreamSubscription) {
  dynarock_db* db = OpenMemory();
  ASSERT_EQ(Exec(db, "CreateTable", kCreate).code, DYNAROCK_OK);
  Collected collected;
  dynarock_subscription* sub = nullptr;
  ASSERT_EQ(dynarock_subscribe(db, "things", OnRecord, &collected, &sub, nullptr), DYNAROCK_OK);
  ASSERT_EQ(Exec(db, "PutItem", R"({"TableName":"things","Item":{"pk":{"S":"s1"}}})").code,
            DYNAROCK_OK);
  ASSERT_EQ(Exec(db, "DeleteItem", R"({"TableName":"things","Key":{"pk":{"S":"s1"}}})").code,
            DYNAROCK_OK);
  for (int i = 0; i < 400 && collected.records.load() < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  dynarock_unsubscribe(sub);
  EXPECT_EQ(collected.records.load(), 2);
  EXPECT_NE(collected.first.find(R"("eventName":"INSERT")"), std::string::npos) << collected.first;
  dynarock_error* err = nullptr;
  EXPECT_EQ(dynarock_subscribe(db, "nope", OnRecord, &collected, &sub, &err), DYNAROCK_ERROR);
  dynarock_error_free(err);
  dynarock_close(db);
}

// One HTTP request over a raw socket; returns the whole answer.
std::string HttpPost(uint16_t port, const std::string& target, const std::string& body) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return "";
  }
  std::string req = "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-amz-json-1.0\r\n"
                    "X-Amz-Target: DynamoDB_20120810." + target +
                    "\r\nConnection: close\r\nContent-Length: " + std::to_string(body.size()) +
                    "\r\n\r\n" + body;
  ::send(fd, req.data(), req.size(), 0);
  std::string answer;
  char buf[4096];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) answer.append(buf, n);
  ::close(fd);
  return answer;
}

// The table "things" in `db`, served on a free loopback port: the server, or
// nullptr (after a failed expectation).
dynarock_server* ServeThings(dynarock_db* db, uint16_t* port) {
  EXPECT_EQ(Exec(db, "CreateTable", kCreate).code, DYNAROCK_OK);
  dynarock_server* server = nullptr;
  EXPECT_EQ(dynarock_serve_start(db, "127.0.0.1:0", port, &server, nullptr), DYNAROCK_OK);
  EXPECT_GT(*port, 0);
  return server;
}

TEST(CAbi, EndpointInsideTheProcess) {
  dynarock_db* db = OpenMemory();
  uint16_t port = 0;
  dynarock_server* server = ServeThings(db, &port);
  ASSERT_NE(server, nullptr);
  // The database may be closed by its owner; the endpoint keeps it until stopped.
  dynarock_close(db);
  std::string answer = HttpPost(port, "ListTables", "{}");
  EXPECT_NE(answer.find("200 OK"), std::string::npos) << answer;
  EXPECT_NE(answer.find(R"({"TableNames":["things"]})"), std::string::npos) << answer;
  dynarock_serve_stop(server);
  EXPECT_EQ(HttpPost(port, "ListTables", "{}"), "");

  dynarock_db* again = OpenMemory();
  EXPECT_EQ(dynarock_serve_start(again, "no-port", &port, &server, nullptr),
            DYNAROCK_INVALID_ARGUMENT);
  EXPECT_EQ(dynarock_serve_start(again, "127.0.0.1:99999", &port, &server, nullptr),
            DYNAROCK_INVALID_ARGUMENT);
  dynarock_close(again);
}

// A request a fault rule delays sleeps on a thread of its own: requests on
// other connections, one on each of the endpoint's io threads at least, are
// answered while it sleeps, and it still takes its latency.
TEST(CAbi, EndpointAnswersOthersWhileADelayedRequestSleeps) {
  dynarock_db* db = OpenMemory();
  uint16_t port = 0;
  dynarock_server* server = ServeThings(db, &port);
  ASSERT_NE(server, nullptr);
  ASSERT_EQ(dynarock_set_faults(db, R"({"rules":[{"name":"slow","operation":"GetItem",)"
                                    R"("latency_ms":3000,"first_n":1}]})",
                                nullptr, nullptr),
            DYNAROCK_OK);
  std::atomic<bool> slow_done{false};
  std::string slow_answer;
  const auto start = std::chrono::steady_clock::now();
  std::thread slow([&] {
    slow_answer = HttpPost(port, "GetItem", R"({"TableName":"things","Key":{"pk":{"S":"a"}}})");
    slow_done = true;
  });
  // Until the rule fired: the GetItem sleeps now. (No ASSERT while the
  // thread runs: it must be joined.)
  bool fired = false;
  while (!fired && std::chrono::steady_clock::now() - start < std::chrono::seconds(2)) {
    char* state = nullptr;
    if (dynarock_get_faults(db, &state, nullptr) != DYNAROCK_OK) break;
    fired = std::string(state).find(R"("fired":1)") != std::string::npos;
    dynarock_free(state);
    if (!fired) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_TRUE(fired);
  // Connections are dealt to the io threads in turn: one more than there are
  // threads puts one beside the sleeping request.
  const unsigned connections = std::max(1u, std::thread::hardware_concurrency()) + 1;
  for (unsigned i = 0; i < connections; ++i) {
    std::string answer = HttpPost(port, "ListTables", "{}");
    EXPECT_NE(answer.find("200 OK"), std::string::npos) << answer;
  }
  EXPECT_FALSE(slow_done.load()) << "the delayed GetItem ended before the others were answered";
  slow.join();
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(3000));
  EXPECT_NE(slow_answer.find("200 OK"), std::string::npos) << slow_answer;
  dynarock_serve_stop(server);
  dynarock_close(db);
}

// Random JSON, mutated from valid requests, into every entry point taking JSON:
// every call must return a code (and free cleanly), never crash.
TEST(CAbi, RandomJsonNeverCrashes) {
  dynarock_db* db = OpenMemory();
  ASSERT_EQ(Exec(db, "CreateTable", kCreate).code, DYNAROCK_OK);
  const std::vector<std::string> seeds = {
      kCreate,
      R"({"TableName":"things","Item":{"pk":{"S":"a"},"l":{"L":[{"N":"1"},{"M":{"x":{"B":"AA=="}}}]}}})",
      R"({"TableName":"things","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"a"}}})",
      R"({"TransactItems":[{"Put":{"TableName":"things","Item":{"pk":{"S":"t"}}}}]})",
      R"({"RequestItems":{"things":[{"PutRequest":{"Item":{"pk":{"S":"b"}}}}]}})",
      R"({"Id":"USER#x","Attributes":{"a":{"SS":["1","2"]}}})",
      R"({"Source":"A#1","Type":"T","Target":"B#2","Properties":{"w":{"N":"1e5"}}})",
  };
  const std::vector<const char*> ops = {"PutItem", "GetItem", "Query", "Scan", "UpdateItem",
                                        "TransactWriteItems", "BatchWriteItem", "CreateTable",
                                        "DeleteItem", "UpdateTable"};
  const std::vector<const char*> graph_ops = {"PutNode", "GetNode", "AddEdge", "OutEdges",
                                              "InEdges", "DeleteNode", "RemoveEdge"};
  const std::string alphabet = "{}[]\":,0123456789.eE-+ abcSNBLMx\\u\x01\xff";
  std::mt19937 rng(20261125);
  int ok = 0;
  for (int i = 0; i < 4000; ++i) {
    std::string s = seeds[rng() % seeds.size()];
    int edits = 1 + rng() % 4;
    for (int e = 0; e < edits && !s.empty(); ++e) {
      size_t at = rng() % s.size();
      switch (rng() % 3) {
        case 0: s.erase(at, 1 + rng() % 3); break;
        case 1: s.insert(at, 1, alphabet[rng() % alphabet.size()]); break;
        default: s[at] = alphabet[rng() % alphabet.size()]; break;
      }
    }
    bool graph = rng() % 4 == 0;
    const char* op = graph ? graph_ops[rng() % graph_ops.size()] : ops[rng() % ops.size()];
    Result r = Exec(db, op, s.c_str(), graph);
    ok += r.code == DYNAROCK_OK;
    if (i % 500 == 0) {
      dynarock_db* other = nullptr;
      if (dynarock_open(nullptr, s.c_str(), &other, nullptr) == DYNAROCK_OK) dynarock_close(other);
    }
  }
  EXPECT_GT(ok, 0);  // some mutations stay valid
  // The database still works.
  EXPECT_EQ(Exec(db, "DescribeTable", R"({"TableName":"things"})").code, DYNAROCK_OK);
  dynarock_close(db);
}

}  // namespace
