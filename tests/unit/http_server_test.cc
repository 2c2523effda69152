// HttpServer over real loopback sockets, with a stub request handler and a
// plain-socket client: framing, keep-alive and pipelining, the DynamoDB headers
// (x-amzn-RequestId, x-amz-crc32), target and auth errors, the body limit,
// malformed input, concurrency and graceful Stop(); the limits and timeouts
// (header timeout, keep-alive idle, connections, requests in flight, header size).

#include "tools/server/http_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace dynarock::server {
namespace {

struct Response {
  int status = 0;
  std::map<std::string, std::string> headers;  // lowercase names
  std::string body;
  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
  }
};

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(tolower(static_cast<unsigned char>(c)));
  return s;
}

// A blocking HTTP/1.1 client on one TCP connection.
class Conn {
 public:
  explicit Conn(uint16_t port) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
      throw std::runtime_error("connect failed");
    }
    timeval tv{10, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    int one = 1;
    setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  }
  ~Conn() {
    if (fd_ >= 0) close(fd_);
  }

  bool Send(std::string_view data) {
    while (!data.empty()) {
      ssize_t n = send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      data.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }

  // Next response; nullopt when the server closed the connection (or timeout).
  std::optional<Response> Read() {
    size_t end;
    while ((end = buf_.find("\r\n\r\n")) == std::string::npos) {
      if (!Fill()) return std::nullopt;
    }
    Response r;
    std::string head = buf_.substr(0, end);
    buf_.erase(0, end + 4);
    size_t line_end = head.find("\r\n");
    std::string status_line = head.substr(0, line_end);
    r.status = std::stoi(status_line.substr(9, 3));
    size_t pos = line_end == std::string::npos ? head.size() : line_end + 2;
    while (pos < head.size()) {
      size_t e = head.find("\r\n", pos);
      if (e == std::string::npos) e = head.size();
      std::string line = head.substr(pos, e - pos);
      size_t colon = line.find(':');
      std::string value = line.substr(colon + 1);
      while (!value.empty() && value.front() == ' ') value.erase(0, 1);
      r.headers[Lower(line.substr(0, colon))] = value;
      pos = e + 2;
    }
    if (r.status == 100) return r;
    size_t len = std::stoul(r.header("content-length"));
    while (buf_.size() < len) {
      if (!Fill()) return std::nullopt;
    }
    r.body = buf_.substr(0, len);
    buf_.erase(0, len);
    return r;
  }

  // True when the server closed the connection (EOF or reset) within the timeout.
  bool ClosedByPeer() {
    char c;
    ssize_t n = recv(fd_, &c, 1, 0);
    return n == 0 || (n < 0 && errno == ECONNRESET);
  }

  int fd() const { return fd_; }

 private:
  bool Fill() {
    char tmp[65536];
    ssize_t n = recv(fd_, tmp, sizeof(tmp), 0);
    if (n <= 0) return false;
    buf_.append(tmp, static_cast<size_t>(n));
    return true;
  }
  int fd_ = -1;
  std::string buf_;
};

std::string Post(std::string_view op, std::string_view body, std::string extra_headers = "") {
  std::string r = "POST / HTTP/1.1\r\nHost: localhost\r\n";
  r += "Content-Type: application/x-amz-json-1.0\r\n";
  if (!op.empty()) r += "X-Amz-Target: DynamoDB_20120810." + std::string(op) + "\r\n";
  r += extra_headers;
  r += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  r += body;
  return r;
}

std::string Crc32(const std::string& s) {
  uLong c = crc32(0L, Z_NULL, 0);
  c = crc32(c, reinterpret_cast<const Bytef*>(s.data()), static_cast<uInt>(s.size()));
  return std::to_string(c);
}

void ExpectDynamoHeaders(const Response& r) {
  const std::string id = r.header("x-amzn-requestid");
  EXPECT_EQ(id.size(), 52u) << id;
  for (char c : id) EXPECT_TRUE((c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z')) << id;
  EXPECT_EQ(r.header("x-amz-crc32"), Crc32(r.body));
  EXPECT_EQ(r.header("content-length"), std::to_string(r.body.size()));
  EXPECT_FALSE(r.header("content-type").empty());
}

// Echoes the operation and body; a few operations misbehave on purpose.
api::ApiReply StubHandler(std::string_view op, std::string_view body) {
  if (op == "Throw") throw std::runtime_error("boom");
  if (op == "Slow") std::this_thread::sleep_for(std::chrono::milliseconds(300));
  std::string out = "{\"op\":\"" + std::string(op) + "\",\"len\":" + std::to_string(body.size()) +
                    ",\"body\":" + (body.empty() ? std::string("null") : std::string(body)) + "}";
  api::ApiReply reply;
  reply.body = out;
  return reply;
}

class HttpServerTest : public ::testing::Test {
 protected:
  void StartServer(HttpServerOptions opts = {}) {
    opts.host = "127.0.0.1";
    opts.port = 0;
    if (opts.threads == 0) opts.threads = 2;
    server_ = std::make_unique<HttpServer>(opts, &StubHandler);
    uint16_t port = 0;
    Status s = server_->Start(&port);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_NE(port, 0);
    ASSERT_EQ(port, server_->port());
    port_ = port;
  }
  void TearDown() override {
    if (server_) server_->Stop();
  }
  std::unique_ptr<HttpServer> server_;
  uint16_t port_ = 0;
};

TEST_F(HttpServerTest, KeepAliveServesTwoRequestsOnOneConnection) {
  StartServer();
  Conn c(port_);
  ASSERT_TRUE(c.Send(Post("PutItem", R"({"TableName":"t"})")));
  auto r1 = c.Read();
  ASSERT_TRUE(r1.has_value());
  EXPECT_EQ(r1->status, 200);
  EXPECT_EQ(r1->body, R"({"op":"PutItem","len":17,"body":{"TableName":"t"}})");
  EXPECT_EQ(r1->header("content-type"), "application/x-amz-json-1.0");
  EXPECT_EQ(r1->header("connection"), "");
  ExpectDynamoHeaders(*r1);

  ASSERT_TRUE(c.Send(Post("GetItem", "{}")));
  auto r2 = c.Read();
  ASSERT_TRUE(r2.has_value());
  EXPECT_EQ(r2->status, 200);
  EXPECT_EQ(r2->body, R"({"op":"GetItem","len":2,"body":{}})");
  ExpectDynamoHeaders(*r2);
  EXPECT_NE(r1->header("x-amzn-requestid"), r2->header("x-amzn-requestid"));
}

TEST_F(HttpServerTest, PipelinedRequestsAreAnsweredInOrder) {
  StartServer();
  Conn c(port_);
  std::string all;
  for (int i = 0; i < 5; ++i) all += Post("Op" + std::to_string(i), "{\"i\":" + std::to_string(i) + "}");
  ASSERT_TRUE(c.Send(all));
  for (int i = 0; i < 5; ++i) {
    auto r = c.Read();
    ASSERT_TRUE(r.has_value()) << i;
    EXPECT_EQ(r->body, "{\"op\":\"Op" + std::to_string(i) + "\",\"len\":7,\"body\":{\"i\":" +
                           std::to_string(i) + "}}");
  }
}

TEST_F(HttpServerTest, Crc32MatchesZlib) {
  StartServer();
  Conn c(port_);
  std::string body = "{\"k\":\"" + std::string(10000, 'x') + "\"}";
  ASSERT_TRUE(c.Send(Post("Scan", body)));
  auto r = c.Read();
  ASSERT_TRUE(r.has_value());
  ExpectDynamoHeaders(*r);
  // A fixed value computed independently (python: zlib.crc32(b"{}")).
  ASSERT_TRUE(c.Send("GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
  r = c.Read();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(Crc32("{}"), "2745614147");
}

TEST_F(HttpServerTest, ChunkedRequestBody) {
  StartServer();
  Conn c(port_);
  ASSERT_TRUE(c.Send(
      "POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.Query\r\n"
      "Transfer-Encoding: chunked\r\n\r\n3\r\n{\"a\r\n4\r\n\":1}\r\n0\r\n\r\n"));
  auto r = c.Read();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->body, R"({"op":"Query","len":7,"body":{"a":1}})");
}

TEST_F(HttpServerTest, MissingOrForeignTargetIsUnknownOperation) {
  StartServer();
  Conn c(port_);
  ASSERT_TRUE(c.Send(Post("", "{}")));
  auto r = c.Read();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 400);
  EXPECT_NE(r->body.find("UnknownOperationException"), std::string::npos) << r->body;
  ExpectDynamoHeaders(*r);

  for (const char* target : {"whatever", "Kinesis_20131202.ListStreams", "DynamoDB_20120810."}) {
    ASSERT_TRUE(c.Send("POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: " + std::string(target) +
                       "\r\nContent-Length: 2\r\n\r\n{}"));
    r = c.Read();
    ASSERT_TRUE(r.has_value()) << target;
    EXPECT_EQ(r->status, 400) << target;
    EXPECT_NE(r->body.find("UnknownOperationException"), std::string::npos) << r->body;
  }
}

TEST_F(HttpServerTest, ContentTypeDialects) {
  StartServer();
  Conn c(port_);
  ASSERT_TRUE(c.Send("POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\n"
                     "Content-Type: application/x-amz-json-1.1\r\nContent-Length: 2\r\n\r\n{}"));
  auto r = c.Read();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->header("content-type"), "application/x-amz-json-1.1");
}

TEST_F(HttpServerTest, HealthCheckAndOtherMethods) {
  StartServer();
  Conn c(port_);
  ASSERT_TRUE(c.Send("GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
  auto r = c.Read();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "healthy: dynamodb.us-east-1.amazonaws.com ");
  ExpectDynamoHeaders(*r);

  ASSERT_TRUE(c.Send("PUT / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"));
  r = c.Read();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 404);
  ExpectDynamoHeaders(*r);
}

TEST_F(HttpServerTest, HandlerExceptionIsInternalServerError) {
  StartServer();
  Conn c(port_);
  ASSERT_TRUE(c.Send(Post("Throw", "{}")));
  auto r = c.Read();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 500);
  EXPECT_NE(r->body.find("InternalServerError"), std::string::npos) << r->body;
  // The connection still works.
  ASSERT_TRUE(c.Send(Post("GetItem", "{}")));
  r = c.Read();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200);
}

TEST_F(HttpServerTest, DefaultLimitRefusesBodyOver16MiBAndKeepsServing) {
  StartServer();
  const size_t limit = size_t{16} << 20;
  EXPECT_EQ(server_->options().max_body_bytes, limit);
  {
    Conn c(port_);
    std::string body(limit + 1, 'a');
    // The server answers after the header and drains the rest of the upload, so
    // the whole body can be sent before reading the reply (as botocore does).
    ASSERT_TRUE(c.Send(Post("PutItem", body)));
    auto r = c.Read();
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->status, 413);
    EXPECT_EQ(r->header("connection"), "close");
    EXPECT_NE(r->body.find("ValidationException"), std::string::npos) << r->body;
    ExpectDynamoHeaders(*r);
    EXPECT_TRUE(c.ClosedByPeer());
  }
  Conn c2(port_);
  ASSERT_TRUE(c2.Send(Post("GetItem", "{}")));
  auto r = c2.Read();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200);
}

TEST_F(HttpServerTest, BodyLimitBoundaryAndChunkedOverflow) {
  HttpServerOptions opts;
  opts.max_body_bytes = 1000;
  StartServer(opts);
  {
    Conn c(port_);
    std::string body = "\"" + std::string(998, 'x') + "\"";  // exactly 1000 bytes
    ASSERT_TRUE(c.Send(Post("PutItem", body)));
    auto r = c.Read();
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->status, 200);
  }
  {
    Conn c(port_);
    std::string chunk(600, 'x');
    std::string req =
        "POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.PutItem\r\n"
        "Transfer-Encoding: chunked\r\n\r\n258\r\n" + chunk + "\r\n258\r\n" + chunk +
        "\r\n0\r\n\r\n";
    ASSERT_TRUE(c.Send(req));
    auto r = c.Read();
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->status, 413);
    EXPECT_TRUE(c.ClosedByPeer());
  }
}

TEST_F(HttpServerTest, MalformedRequestIsAnsweredThenClosed) {
  StartServer();
  for (const char* junk : {"GARBAGE\r\n\r\n", "POST / HTTP/9.9\r\n\r\n",
                           "POST / HTTP/1.1\r\nContent-Length: abc\r\n\r\n",
                           "POST / HTTP/1.1\r\nBad Header Line\r\n\r\n",
                           "POST / HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
                           "\x01\x02\x03\xff\xfe\r\n\r\n"}) {
    Conn c(port_);
    ASSERT_TRUE(c.Send(junk));
    auto r = c.Read();
    ASSERT_TRUE(r.has_value()) << junk;
    EXPECT_EQ(r->status, 400) << junk;
    EXPECT_NE(r->body.find("SerializationException"), std::string::npos) << r->body;
    EXPECT_TRUE(c.ClosedByPeer()) << junk;
  }
  {
    // Half a request, then the client goes away.
    Conn c(port_);
    ASSERT_TRUE(c.Send("POST / HTTP/1.1\r\nContent-Length: 100\r\n\r\n{\"a\""));
  }
  Conn c(port_);
  ASSERT_TRUE(c.Send(Post("GetItem", "{}")));
  auto r = c.Read();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200);
}

TEST_F(HttpServerTest, ExpectContinue) {
  StartServer();
  Conn c(port_);
  ASSERT_TRUE(c.Send("POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.PutItem\r\n"
                     "Expect: 100-continue\r\nContent-Length: 2\r\n\r\n"));
  auto cont = c.Read();
  ASSERT_TRUE(cont.has_value());
  EXPECT_EQ(cont->status, 100);
  ASSERT_TRUE(c.Send("{}"));
  auto r = c.Read();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, R"({"op":"PutItem","len":2,"body":{}})");
}

TEST_F(HttpServerTest, Http10AndConnectionClose) {
  StartServer();
  {
    Conn c(port_);
    ASSERT_TRUE(c.Send("POST / HTTP/1.0\r\nX-Amz-Target: DynamoDB_20120810.A\r\n"
                       "Content-Length: 2\r\n\r\n{}"));
    auto r = c.Read();
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->header("connection"), "close");
    EXPECT_TRUE(c.ClosedByPeer());
  }
  {
    Conn c(port_);
    ASSERT_TRUE(c.Send("POST / HTTP/1.0\r\nConnection: keep-alive\r\n"
                       "X-Amz-Target: DynamoDB_20120810.A\r\nContent-Length: 2\r\n\r\n{}"));
    auto r = c.Read();
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->header("connection"), "keep-alive");
    ASSERT_TRUE(c.Send(Post("B", "{}")));
    ASSERT_TRUE(c.Read().has_value());
  }
  {
    Conn c(port_);
    ASSERT_TRUE(c.Send(Post("A", "{}", "Connection: close\r\n")));
    auto r = c.Read();
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->header("connection"), "close");
    EXPECT_TRUE(c.ClosedByPeer());
  }
}

TEST_F(HttpServerTest, ConcurrentClientsGetUniqueRequestIds) {
  StartServer();
  constexpr int kClients = 6, kRequests = 150;
  std::vector<std::vector<std::string>> ids(kClients);
  std::atomic<int> failures{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < kClients; ++t) {
    clients.emplace_back([&, t] {
      Conn c(port_);
      for (int i = 0; i < kRequests; ++i) {
        std::string body = "{\"t\":" + std::to_string(t) + ",\"i\":" + std::to_string(i) + "}";
        if (!c.Send(Post("PutItem", body))) {
          ++failures;
          return;
        }
        auto r = c.Read();
        if (!r || r->status != 200 || r->body.find(body) == std::string::npos ||
            r->header("x-amz-crc32") != Crc32(r->body)) {
          ++failures;
          return;
        }
        ids[t].push_back(r->header("x-amzn-requestid"));
      }
    });
  }
  for (auto& th : clients) th.join();
  EXPECT_EQ(failures.load(), 0);
  std::set<std::string> unique;
  for (auto& v : ids) unique.insert(v.begin(), v.end());
  EXPECT_EQ(unique.size(), size_t{kClients * kRequests});
}

TEST_F(HttpServerTest, StopFinishesInFlightRequestAndClosesIdleConnections) {
  StartServer();
  Conn idle(port_);
  ASSERT_TRUE(idle.Send(Post("GetItem", "{}")));
  ASSERT_TRUE(idle.Read().has_value());  // now idle in keep-alive

  Conn busy(port_);
  ASSERT_TRUE(busy.Send(Post("Slow", "{}")));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // handler is running
  auto t0 = std::chrono::steady_clock::now();
  server_->Stop();
  auto took = std::chrono::steady_clock::now() - t0;
  EXPECT_LT(took, std::chrono::seconds(3));

  auto r = busy.Read();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, R"({"op":"Slow","len":2,"body":{}})");
  EXPECT_EQ(r->header("connection"), "close");
  EXPECT_TRUE(busy.ClosedByPeer());
  EXPECT_TRUE(idle.ClosedByPeer());

  // No longer accepting.
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port_);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_NE(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  close(fd);
  server_->Stop();  // idempotent
}

TEST(HttpServerBindTest, BindThenStartServesConnectionsFromTheBacklog) {
  HttpServerOptions opts;
  opts.threads = 1;
  HttpServer server(opts, &StubHandler);
  uint16_t port = 0;
  Status s = server.Bind(&port);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_NE(port, 0);
  Conn c(port);  // accepted by the kernel, served once started
  ASSERT_TRUE(c.Send(Post("GetItem", "{}")));
  uint16_t again = 0;
  ASSERT_TRUE(server.Start(&again).ok());
  EXPECT_EQ(again, port);
  auto r = c.Read();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200);
  server.Stop();
  EXPECT_FALSE(server.Start().ok());
}

TEST(HttpServerBindTest, StopWithoutStartReleasesThePort) {
  uint16_t port = 0;
  {
    HttpServer server(HttpServerOptions{}, &StubHandler);
    ASSERT_TRUE(server.Bind(&port).ok());
    server.Stop();
  }
  HttpServerOptions opts;
  opts.port = port;
  opts.threads = 1;
  HttpServer again(opts, &StubHandler);
  Status s = again.Start();
  EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST_F(HttpServerTest, PortInUseIsAnError) {
  StartServer();
  HttpServerOptions opts;
  opts.port = port_;
  opts.threads = 1;
  HttpServer second(opts, &StubHandler);
  Status s = second.Start();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("cannot listen"), std::string::npos) << s.message();
}

// ---- SigV4 through the server ----

// The botocore-signed GetItem of sigv4_test.cc, sent verbatim.
constexpr char kSignedBody[] = R"({"TableName":"people","Key":{"pk":{"S":"USER#Frodo"}}})";
std::string SignedRequest(std::string_view body = kSignedBody) {
  return "POST / HTTP/1.1\r\n"
         "Host: 127.0.0.1:8000\r\n"
         "Content-Type: application/x-amz-json-1.0\r\n"
         "X-Amz-Target: DynamoDB_20120810.GetItem\r\n"
         "User-Agent: Boto3/1.43.11 md/Botocore#1.43.11\r\n"
         "X-Amz-Date: 20240517T130130Z\r\n"
         "Authorization: AWS4-HMAC-SHA256 "
         "Credential=AKIDDYNAROCKTEST/20240517/us-west-2/dynamodb/aws4_request, "
         "SignedHeaders=content-type;host;x-amz-date;x-amz-target, "
         "Signature=bcfd4c4b625644c2d5ea94c92e91ab7ce5d796d919bd5055c630c3977594ccd2\r\n"
         "Content-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + std::string(body);
}

TEST_F(HttpServerTest, RequireAuth) {
  HttpServerOptions opts;
  opts.auth.keys.push_back({"AKIDDYNAROCKTEST", "dynarock/Secret+Key/EXAMPLE"});
  opts.auth.now_seconds = [] { return int64_t{1715950890}; };  // 20240517T130130Z, when signed
  StartServer(opts);
  Conn c(port_);

  ASSERT_TRUE(c.Send(SignedRequest()));
  auto r = c.Read();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200) << r->body;

  ASSERT_TRUE(c.Send(Post("GetItem", "{}")));  // unsigned
  r = c.Read();
  ASSERT_TRUE(r.has_value());
  EXPECT_NE(r->status, 200);
  EXPECT_NE(r->body.find("MissingAuthenticationTokenException"), std::string::npos) << r->body;

  // Same signature, different body.
  ASSERT_TRUE(c.Send(SignedRequest(R"({"TableName":"people","Key":{"pk":{"S":"USER#Samwi"}}})")));
  r = c.Read();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 400);
  EXPECT_NE(r->body.find("InvalidSignatureException"), std::string::npos) << r->body;

  ASSERT_TRUE(c.Send(Post("GetItem", "{}",
                          "X-Amz-Date: 20240517T130130Z\r\nAuthorization: AWS4-HMAC-SHA256 "
                          "Credential=NOBODY/20240517/us-west-2/dynamodb/aws4_request, "
                          "SignedHeaders=host, Signature=00\r\n")));
  r = c.Read();
  ASSERT_TRUE(r.has_value());
  EXPECT_NE(r->body.find("UnrecognizedClientException"), std::string::npos) << r->body;

  ASSERT_TRUE(c.Send(Post("GetItem", "{}", "Authorization: AWS4-HMAC-SHA256 Credential=x\r\n")));
  r = c.Read();
  ASSERT_TRUE(r.has_value());
  EXPECT_NE(r->body.find("IncompleteSignatureException"), std::string::npos) << r->body;

  // The target is checked before the signature.
  ASSERT_TRUE(c.Send(Post("", "{}")));
  r = c.Read();
  ASSERT_TRUE(r.has_value());
  EXPECT_NE(r->body.find("UnknownOperationException"), std::string::npos) << r->body;
}

TEST_F(HttpServerTest, WithoutRequireAuthAnyCredentialsAreAccepted) {
  StartServer();
  Conn c(port_);
  ASSERT_TRUE(c.Send(Post("GetItem", "{}", "Authorization: AWS4-HMAC-SHA256 Credential=x\r\n")));
  auto r = c.Read();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200);
}

// ---- Limits and timeouts ----

// A header trickled a byte at a time (slowloris) is cut at the header
// timeout, while another client on the same io thread is served meanwhile.
TEST_F(HttpServerTest, HeaderTimeoutCutsATrickledHeader) {
  HttpServerOptions opts;
  opts.threads = 1;
  opts.header_timeout_seconds = 1;
  StartServer(opts);
  Conn slow(port_);
  const auto start = std::chrono::steady_clock::now();
  const std::string head = "POST / HTTP/1.1\r\nHost: localhost\r\nX-Padding: ";
  bool cut = false;
  for (int i = 0; i < 60 && !cut; ++i) {
    cut = !slow.Send(std::string(1, i < static_cast<int>(head.size()) ? head[i] : 'x'));
    if (i % 5 == 0) {  // the other client, meanwhile
      Conn other(port_);
      ASSERT_TRUE(other.Send(Post("GetItem", "{}")));
      auto r = other.Read();
      ASSERT_TRUE(r.has_value());
      EXPECT_EQ(r->status, 200);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (std::chrono::steady_clock::now() - start > std::chrono::milliseconds(1500)) break;
  }
  EXPECT_TRUE(slow.ClosedByPeer());
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GE(took, 0.9);
  EXPECT_LT(took, 4.0);
}

// Between keep-alive requests the idle timeout applies, not the header one.
TEST_F(HttpServerTest, KeepAliveWaitsForTheIdleTimeoutNotTheHeaderTimeout) {
  HttpServerOptions opts;
  opts.header_timeout_seconds = 1;
  opts.idle_timeout_seconds = 30;
  StartServer(opts);
  Conn c(port_);
  ASSERT_TRUE(c.Send(Post("GetItem", "{}")));
  ASSERT_TRUE(c.Read().has_value());
  std::this_thread::sleep_for(std::chrono::milliseconds(1600));
  ASSERT_TRUE(c.Send(Post("GetItem", "{}")));
  auto r = c.Read();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200);
}

TEST_F(HttpServerTest, ConnectionsOverTheMaximumAreResetAtOnce) {
  HttpServerOptions opts;
  opts.max_connections = 2;
  StartServer(opts);
  Conn a(port_), b(port_);
  for (Conn* c : {&a, &b}) {
    ASSERT_TRUE(c->Send(Post("GetItem", "{}")));
    ASSERT_TRUE(c->Read().has_value());
  }
  {
    Conn extra(port_);
    EXPECT_TRUE(extra.ClosedByPeer());
  }
  EXPECT_GE(server_->stats().connections_refused, 1u);
  EXPECT_EQ(server_->stats().connections, 2u);
  // The open ones keep being served; once one closes, a new one is let in.
  ASSERT_TRUE(a.Send(Post("GetItem", "{}")));
  ASSERT_TRUE(a.Read().has_value());
  shutdown(b.fd(), SHUT_RDWR);
  bool served = false;
  for (int i = 0; i < 50 && !served; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    Conn c(port_);
    if (!c.Send(Post("GetItem", "{}"))) continue;
    auto r = c.Read();
    served = r.has_value() && r->status == 200;
  }
  EXPECT_TRUE(served);
}

// Requests in flight beyond the maximum get DynamoDB's ThrottlingException;
// a throttled body is skipped, so the connection stays usable.
TEST_F(HttpServerTest, RequestsOverTheInFlightMaximumAreThrottled) {
  HttpServerOptions opts;
  opts.max_in_flight = 1;
  StartServer(opts);
  Conn holder(port_);  // its body half sent: one request in flight
  std::string held = Post("PutItem", "{\"k\":\"0123456789\"}");
  ASSERT_TRUE(holder.Send(held.substr(0, held.size() - 5)));
  for (int i = 0; i < 100 && server_->stats().in_flight == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(server_->stats().in_flight, 1u);

  Conn c(port_);
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(c.Send(Post("GetItem", "{\"n\":" + std::to_string(i) + "}")));
    auto r = c.Read();
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->status, 400);
    EXPECT_NE(r->body.find("ThrottlingException"), std::string::npos) << r->body;
    EXPECT_NE(r->body.find("Rate of requests exceeds the allowed throughput"), std::string::npos);
    EXPECT_EQ(r->header("connection"), "");
  }
  // A health check is not counted.
  ASSERT_TRUE(c.Send("GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
  auto health = c.Read();
  ASSERT_TRUE(health.has_value());
  EXPECT_EQ(health->status, 200);
  EXPECT_EQ(server_->stats().requests_throttled, 2u);

  ASSERT_TRUE(holder.Send(held.substr(held.size() - 5)));
  auto r = holder.Read();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200);
  EXPECT_NE(r->body.find("0123456789"), std::string::npos);
  // The slot is given back once the server's write completes, which may be
  // just after the client has read the response.
  auto settled = [&] {
    for (int i = 0; i < 100 && server_->stats().in_flight != 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return server_->stats().in_flight;
  };
  ASSERT_EQ(settled(), 0u);
  ASSERT_TRUE(c.Send(Post("GetItem", "{}")));
  r = c.Read();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(settled(), 0u);
}

TEST_F(HttpServerTest, HeaderOverTheMaximumIs431) {
  HttpServerOptions opts;
  opts.max_header_bytes = 1024;
  StartServer(opts);
  {
    Conn c(port_);
    ASSERT_TRUE(c.Send(Post("GetItem", "{}", "X-Big: " + std::string(900, 'a') + "\r\n")));
    auto r = c.Read();
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->status, 200);
  }
  Conn c(port_);
  ASSERT_TRUE(c.Send(Post("GetItem", "{}", "X-Big: " + std::string(2000, 'a') + "\r\n")));
  auto r = c.Read();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 431);
  EXPECT_NE(r->body.find("larger than the maximum of 1024 bytes"), std::string::npos) << r->body;
  EXPECT_EQ(r->header("connection"), "close");
}

TEST(HttpServerTlsTest, AnUnusableCertificateFailsBind) {
  HttpServerOptions opts;
  opts.tls_cert_file = "/nonexistent/cert.pem";
  opts.tls_key_file = "/nonexistent/key.pem";
  HttpServer server(opts, &StubHandler);
  Status s = server.Bind();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("cannot use the TLS certificate /nonexistent/cert.pem"),
            std::string::npos)
      << s.message();
  opts.tls_key_file.clear();
  HttpServer half(opts, &StubHandler);
  EXPECT_FALSE(half.Bind().ok());
}

}  // namespace
}  // namespace dynarock::server
