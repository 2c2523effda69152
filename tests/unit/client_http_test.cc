// File: tests/unit/client_http_test.cc
//
// client/'s HttpClient and SigV4 signer on their own: the AWS SigV4 test
// suite's vector, the server's verifier accepting what the signer signs, bad
// endpoints, regions from endpoints and the environment, bounded retries and
// timeouts (an endpoint that stops answering, a connect that hangs), the
// response CRC32, and TLS with trusted, untrusted and misnamed certificates --
// against FakeServer, a loopback server in this file; the certificates are
// made at test time with OpenSSL.

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <boost/asio/ip/address.hpp>

#include "client/http_client.h"
#include "client/sigv4_signer.h"
#include "engine/api/sigv4.h"

namespace dynarock::client {
namespace {

// A loopback HTTP/1.1 server for the client's failure modes: kSilent accepts,
// reads the request and never answers (closing the connection after
// `hold_for`); kReply answers every request with `reply` and records the
// request heads. With `tls` (an SSL_CTX holding a certificate) it speaks HTTPS
// and records the SNI names clients sent.
struct FakeReply {
  int status = 200;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
};

class FakeServer {
 public:
  enum class Mode { kSilent, kReply };
  using Reply = FakeReply;

  FakeServer(Mode mode, Reply reply = {},
             std::chrono::milliseconds hold_for = std::chrono::seconds(5), SSL_CTX* tls = nullptr)
      : mode_(mode), reply_(std::move(reply)), hold_for_(hold_for), tls_(tls) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    listen(fd_, 16);
    socklen_t len = sizeof(addr);
    getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    acceptor_ = std::thread([this] { AcceptLoop(); });
  }

  ~FakeServer() {
    stop_ = true;
    acceptor_.join();
    for (auto& t : handlers_) t.join();
    close(fd_);
  }

  int port() const { return port_; }
  std::string endpoint(const std::string& scheme = "http") const {
    return scheme + "://127.0.0.1:" + std::to_string(port_);
  }
  std::vector<std::string> requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }
  int connections() const { return connections_.load(); }
  std::vector<std::string> server_names() {
    std::lock_guard<std::mutex> lock(mu_);
    return server_names_;
  }

 private:
  struct Conn {
    int fd = -1;
    SSL* ssl = nullptr;
  };

  // >0 bytes, 0 at the end of the stream, <0 for "nothing yet" (a 50 ms timeout).
  static ssize_t Recv(const Conn& c, char* buf, size_t size) {
    if (c.ssl == nullptr) {
      ssize_t n = recv(c.fd, buf, size, 0);
      if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return 0;
      return n;
    }
    int n = SSL_read(c.ssl, buf, static_cast<int>(size));
    if (n > 0) return n;
    int err = SSL_get_error(c.ssl, n);
    return err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE ? -1 : 0;
  }

  static bool Send(const Conn& c, const std::string& data) {
    if (c.ssl == nullptr) {
      return send(c.fd, data.data(), data.size(), MSG_NOSIGNAL) ==
             static_cast<ssize_t>(data.size());
    }
    return SSL_write(c.ssl, data.data(), static_cast<int>(data.size())) ==
           static_cast<int>(data.size());
  }
  void AcceptLoop() {
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, 20) <= 0) continue;
      int c = accept(fd_, nullptr, nullptr);
      if (c < 0) continue;
      ++connections_;
      timeval tv{0, 50 * 1000};
      setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
      handlers_.emplace_back([this, c] { Serve(c); });
    }
  }

  // Reads one request (head and Content-Length body); false on EOF/stop/deadline.
  bool ReadRequest(const Conn& c, std::string* buf, std::string* head,
                   std::chrono::steady_clock::time_point deadline) {
    while (!stop_ && std::chrono::steady_clock::now() < deadline) {
      size_t end = buf->find("\r\n\r\n");
      if (end != std::string::npos) {
        size_t length = 0;
        std::string h = buf->substr(0, end + 4);
        std::string lower = h;
        std::transform(lower.begin(), lower.end(), lower.begin(),
                       [](unsigned char ch) { return std::tolower(ch); });
        size_t cl = lower.find("content-length:");
        if (cl != std::string::npos) length = std::stoul(h.substr(cl + 15));
        if (buf->size() >= end + 4 + length) {
          *head = h;
          buf->erase(0, end + 4 + length);
          return true;
        }
      }
      char tmp[4096];
      ssize_t n = Recv(c, tmp, sizeof(tmp));
      if (n == 0) return false;
      if (n > 0) buf->append(tmp, static_cast<size_t>(n));
    }
    return false;
  }

  void Serve(int fd) {
    Conn c{fd, nullptr};
    if (tls_ != nullptr) {
      c.ssl = SSL_new(tls_);
      SSL_set_fd(c.ssl, fd);
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
      int r = 0;
      while (!stop_ && std::chrono::steady_clock::now() < until) {
        r = SSL_accept(c.ssl);
        if (r == 1) break;
        int err = SSL_get_error(c.ssl, r);
        if (err != SSL_ERROR_WANT_READ && err != SSL_ERROR_WANT_WRITE) break;
      }
      if (r != 1) {  // e.g. the client refused the certificate
        SSL_free(c.ssl);
        close(fd);
        return;
      }
      const char* sni = SSL_get_servername(c.ssl, TLSEXT_NAMETYPE_host_name);
      std::lock_guard<std::mutex> lock(mu_);
      server_names_.push_back(sni != nullptr ? sni : "");
    }
    Serve(c);
    if (c.ssl != nullptr) SSL_free(c.ssl);
    close(fd);
  }

  void Serve(const Conn& c) {
    std::string buf, head;
    if (mode_ == Mode::kSilent) {
      const auto until = std::chrono::steady_clock::now() + hold_for_;
      if (ReadRequest(c, &buf, &head, until)) {
        std::lock_guard<std::mutex> lock(mu_);
        requests_.push_back(head);
      }
      while (!stop_ && std::chrono::steady_clock::now() < until) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      return;
    }
    const auto far = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (ReadRequest(c, &buf, &head, far)) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        requests_.push_back(head);
      }
      std::string out = "HTTP/1.1 " + std::to_string(reply_.status) + " X\r\n";
      for (const auto& [k, v] : reply_.headers) out += k + ": " + v + "\r\n";
      out += "Content-Type: application/x-amz-json-1.0\r\nContent-Length: " +
             std::to_string(reply_.body.size()) + "\r\n\r\n" + reply_.body;
      if (!Send(c, out)) break;
    }
  }

  Mode mode_;
  Reply reply_;
  std::chrono::milliseconds hold_for_;
  SSL_CTX* tls_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> connections_{0};
  std::thread acceptor_;
  std::vector<std::thread> handlers_;
  std::mutex mu_;
  std::vector<std::string> requests_;
  std::vector<std::string> server_names_;
};

// A self-signed certificate (EC P-256) for `names` (DNS names or IP addresses;
// the first is the CN), written to `dir` as cert.pem; `ctx` serves it.
struct TestCertificate {
  std::string cert_file;
  SSL_CTX* ctx = nullptr;
  ~TestCertificate() {
    if (ctx != nullptr) SSL_CTX_free(ctx);
  }
};

bool MakeCertificate(const std::vector<std::string>& names, const std::string& dir,
                     TestCertificate* out) {
  EVP_PKEY* key = EVP_EC_gen("P-256");
  if (key == nullptr) return false;
  X509* x = X509_new();
  X509_set_version(x, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(x), static_cast<long>(std::time(nullptr)));
  X509_gmtime_adj(X509_getm_notBefore(x), -3600);
  X509_gmtime_adj(X509_getm_notAfter(x), 86400);
  X509_set_pubkey(x, key);
  X509_NAME* name = X509_get_subject_name(x);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(names[0].c_str()), -1, -1, 0);
  X509_set_issuer_name(x, name);
  std::string san;
  for (const std::string& n : names) {
    boost::system::error_code ec;
    boost::asio::ip::make_address(n, ec);
    san += (san.empty() ? "" : ",") + std::string(ec ? "DNS:" : "IP:") + n;
  }
  X509V3_CTX v3;
  X509V3_set_ctx_nodb(&v3);
  X509V3_set_ctx(&v3, x, x, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &v3, NID_subject_alt_name, san.c_str());
  X509_add_ext(x, ext, -1);
  X509_EXTENSION_free(ext);
  X509_sign(x, key, EVP_sha256());
  out->cert_file = dir + "/cert.pem";
  FILE* f = std::fopen(out->cert_file.c_str(), "w");
  bool ok = f != nullptr && PEM_write_X509(f, x) == 1;
  if (f != nullptr) std::fclose(f);
  out->ctx = SSL_CTX_new(TLS_server_method());
  ok = ok && SSL_CTX_use_certificate(out->ctx, x) == 1 && SSL_CTX_use_PrivateKey(out->ctx, key) == 1;
  X509_free(x);
  EVP_PKEY_free(key);
  return ok;
}


// ---------------------------------------------------------------- SigV4 signing

TEST(SigV4SignerTest, GetVanillaFromTheAwsTestSuite) {
  SigV4Signer signer({"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", ""}, "us-east-1",
                     "service");
  SigV4Signer::Headers h = {{"Host", "example.amazonaws.com"}};
  signer.Sign("GET", "/", "", std::chrono::system_clock::from_time_t(1440938160), &h);
  ASSERT_EQ(h.size(), 3u);
  EXPECT_EQ(h[1].second, "20150830T123600Z");
  EXPECT_EQ(h[2].second,
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
            "SignedHeaders=host;x-amz-date, "
            "Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
}

TEST(SigV4SignerTest, TheServerVerifierAcceptsWhatTheSignerSigns) {
  SigV4Signer signer({"AKID", "secret", "session-token"}, "eu-west-1");
  SigV4Signer::Headers h = {{"host", "127.0.0.1:8000"},
                            {"content-type", "application/x-amz-json-1.0"},
                            {"x-amz-target", "DynamoDB_20120810.GetItem"}};
  const std::string body = R"({"TableName":"t","Key":{"PK":{"S":"a"}}})";
  signer.Sign("POST", "/", body, std::chrono::system_clock::now(), &h);
  api::AuthConfig config;
  config.keys.push_back({"AKID", "secret"});
  api::SigV4Verifier verifier(config);
  api::SigV4Request req{"POST", "/", {}};
  for (const auto& [k, v] : h) req.headers.emplace_back(k, v);
  Status ok = verifier.Verify(req, body);
  EXPECT_TRUE(ok.ok()) << ok.ToString();
  Status tampered = verifier.Verify(req, body + " ");
  EXPECT_EQ(tampered.type(), ErrorType::kInvalidSignature);
}

TEST(HttpClientTest, RefusesBadEndpoints) {
  HttpClientOptions o;
  for (const char* bad : {"ftp://x", "http://", "https://host:99999", "http://[::1", "dynamodb"}) {
    o.endpoint = bad;
    auto c = HttpClient::Create(o);
    EXPECT_FALSE(c.ok()) << bad;
    if (!c.ok()) {
      EXPECT_EQ(c.status().type(), ErrorType::kValidation) << bad;
    }
  }
  o.endpoint = "http://127.0.0.1:8000";
  o.ca_file = "/nonexistent/ca.pem";  // a CA file only makes sense for https
  EXPECT_FALSE(HttpClient::Create(o).ok());
  o.endpoint = "https://127.0.0.1:8443";
  auto c = HttpClient::Create(o);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("/nonexistent/ca.pem"), std::string::npos);
}

TEST(HttpClientTest, RegionFromTheEndpoint) {
  EXPECT_EQ(RegionFromEndpoint("https://dynamodb.eu-west-1.amazonaws.com"), "eu-west-1");
  EXPECT_EQ(RegionFromEndpoint("http://dynamodb.us-west-2.amazonaws.com/"), "us-west-2");
  EXPECT_EQ(RegionFromEndpoint("https://dynamodb-fips.us-gov-west-1.amazonaws.com"),
            "us-gov-west-1");
  EXPECT_EQ(RegionFromEndpoint("https://dynamodb.ap-southeast-2.api.aws"), "ap-southeast-2");
  EXPECT_EQ(RegionFromEndpoint("https://dynamodb.cn-north-1.amazonaws.com.cn"), "cn-north-1");
  EXPECT_EQ(RegionFromEndpoint("https://DynamoDB.EU-Central-1.AmazonAWS.com:443"), "eu-central-1");
  EXPECT_EQ(RegionFromEndpoint("https://vpce-1a2b-3c4d.dynamodb.us-east-2.vpce.amazonaws.com"),
            "us-east-2");
  EXPECT_EQ(RegionFromEndpoint("http://127.0.0.1:8000"), "");
  EXPECT_EQ(RegionFromEndpoint("http://localhost:8000"), "");
  EXPECT_EQ(RegionFromEndpoint("https://s3.eu-west-1.amazonaws.com"), "");
  EXPECT_EQ(RegionFromEndpoint("https://amazonaws.com"), "");

  // Create derives it (no connection is made before the first call); an
  // explicit region wins.
  HttpClientOptions o;
  o.endpoint = "https://dynamodb.eu-west-1.amazonaws.com";
  auto c = HttpClient::Create(o);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ((*c)->region(), "eu-west-1");
  o.region = "eu-west-3";
  c = HttpClient::Create(o);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ((*c)->region(), "eu-west-3");
}

TEST(HttpClientTest, UnreachableEndpointFailsAfterBoundedRetries) {
  HttpClientOptions o;
  o.endpoint = "http://127.0.0.1:1";  // nothing listens on port 1
  o.max_attempts = 3;
  o.base_backoff = std::chrono::milliseconds(1);
  auto c = HttpClient::Create(o);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  DescribeTableRequest d;
  d.table_name = "t";
  auto r = (*c)->DescribeTable(d);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ((*c)->stats().attempts, 3);
}

TEST(HttpClientTest, AnEndpointThatStopsAnsweringTimesOut) {
  FakeServer silent(FakeServer::Mode::kSilent, {}, std::chrono::seconds(5));
  HttpClientOptions o;
  o.endpoint = silent.endpoint();
  o.timeout = std::chrono::milliseconds(300);
  o.max_attempts = 1;
  auto c = HttpClient::Create(o);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  DescribeTableRequest d;
  d.table_name = "t";
  const auto start = std::chrono::steady_clock::now();
  auto r = (*c)->DescribeTable(d);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("timed out after 300 ms waiting for the response"),
            std::string::npos)
      << r.status().ToString();
  EXPECT_GE(elapsed, std::chrono::milliseconds(290));
  EXPECT_LT(elapsed, std::chrono::milliseconds(1500));
  EXPECT_EQ((*c)->stats().timeouts, 1);

  // A timeout is retryable: two attempts, two deadlines, bounded.
  o.max_attempts = 2;
  o.base_backoff = std::chrono::milliseconds(1);
  auto c2 = HttpClient::Create(o);
  ASSERT_TRUE(c2.ok());
  const auto start2 = std::chrono::steady_clock::now();
  auto r2 = (*c2)->DescribeTable(d);
  const auto elapsed2 = std::chrono::steady_clock::now() - start2;
  ASSERT_FALSE(r2.ok());
  EXPECT_EQ((*c2)->stats().attempts, 2);
  EXPECT_EQ((*c2)->stats().timeouts, 2);
  EXPECT_LT(elapsed2, std::chrono::milliseconds(2500));
  EXPECT_NE(r2.status().message().find("gave up after 2 attempts"), std::string::npos)
      << r2.status().ToString();
}

TEST(HttpClientTest, AConnectThatHangsTimesOut) {
  // A listener whose accept queue is full drops further SYNs: connect() hangs.
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(listen(fd, 0), 0);
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  std::vector<int> fillers;
  for (int i = 0; i < 5; ++i) {
    int f = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    connect(f, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    fillers.push_back(f);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  HttpClientOptions o;
  o.endpoint = "http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
  o.timeout = std::chrono::milliseconds(300);
  o.max_attempts = 1;
  auto c = HttpClient::Create(o);
  ASSERT_TRUE(c.ok());
  const auto start = std::chrono::steady_clock::now();
  auto r = (*c)->Call("ListTables", "{}");
  const auto elapsed = std::chrono::steady_clock::now() - start;
  for (int f : fillers) close(f);
  close(fd);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("timed out after 300 ms connecting to"), std::string::npos)
      << r.status().ToString();
  EXPECT_LT(elapsed, std::chrono::milliseconds(1500));
}

class HttpsClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/client_tls_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::string dir_;
};

TEST_F(HttpsClientTest, TrustedCertificateWithSniAndHostNameCheck) {
  TestCertificate cert;
  ASSERT_TRUE(MakeCertificate({"localhost", "127.0.0.1"}, dir_, &cert));
  FakeServer::Reply reply;
  reply.body = R"({"TableNames":[]})";
  reply.headers = {{"x-amz-crc32", "1315925753"}};
  FakeServer server(FakeServer::Mode::kReply, reply, std::chrono::seconds(5), cert.ctx);

  HttpClientOptions o;
  o.ca_file = cert.cert_file;
  o.max_attempts = 1;
  o.timeout = std::chrono::seconds(5);
  o.endpoint = "https://localhost:" + std::to_string(server.port());
  auto c = HttpClient::Create(o);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  for (int i = 0; i < 3; ++i) {  // the connection is kept alive and reused
    auto r = (*c)->Call("ListTables", "{}");
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(*r, reply.body);
  }
  EXPECT_EQ(server.connections(), 1);
  EXPECT_EQ(server.server_names(), (std::vector<std::string>{"localhost"}));
  ASSERT_FALSE(server.requests().empty());
  EXPECT_NE(server.requests()[0].find("host: localhost:" + std::to_string(server.port())),
            std::string::npos)
      << server.requests()[0];

  // An IP address is checked against the certificate's IP names (and sent no SNI).
  o.endpoint = "https://127.0.0.1:" + std::to_string(server.port());
  auto ip = HttpClient::Create(o);
  ASSERT_TRUE(ip.ok());
  auto r = (*ip)->Call("ListTables", "{}");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(server.server_names().back(), "");
}

TEST_F(HttpsClientTest, UntrustedCertificateFailsClearlyAndQuickly) {
  TestCertificate cert;
  ASSERT_TRUE(MakeCertificate({"localhost"}, dir_, &cert));
  FakeServer server(FakeServer::Mode::kReply, {}, std::chrono::seconds(5), cert.ctx);
  HttpClientOptions o;
  o.endpoint = "https://localhost:" + std::to_string(server.port());
  o.timeout = std::chrono::seconds(5);
  o.base_backoff = std::chrono::milliseconds(1);
  auto c = HttpClient::Create(o);  // the system's CAs only
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  const auto start = std::chrono::steady_clock::now();
  auto r = (*c)->Call("ListTables", "{}");
  const auto elapsed = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("failed verification: self-signed certificate"),
            std::string::npos)
      << r.status().ToString();
  EXPECT_NE(r.status().message().find("ca_file"), std::string::npos);
  EXPECT_EQ((*c)->stats().attempts, 1);  // not retried: the same certificate fails again
  EXPECT_LT(elapsed, std::chrono::seconds(2));
}

TEST_F(HttpsClientTest, CertificateForAnotherHostIsRefused) {
  TestCertificate cert;
  ASSERT_TRUE(MakeCertificate({"other.example"}, dir_, &cert));
  FakeServer server(FakeServer::Mode::kReply, {}, std::chrono::seconds(5), cert.ctx);
  HttpClientOptions o;
  o.endpoint = "https://localhost:" + std::to_string(server.port());
  o.ca_file = cert.cert_file;  // trusted, but not for this name
  auto c = HttpClient::Create(o);
  ASSERT_TRUE(c.ok());
  auto r = (*c)->Call("ListTables", "{}");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("hostname mismatch"), std::string::npos)
      << r.status().ToString();
}

TEST_F(HttpsClientTest, PlainHttpServerBehindAnHttpsEndpointFailsWithinTheTimeout) {
  FakeServer silent(FakeServer::Mode::kSilent, {}, std::chrono::seconds(5));
  HttpClientOptions o;
  o.endpoint = "https://127.0.0.1:" + std::to_string(silent.port());
  o.timeout = std::chrono::milliseconds(300);
  o.max_attempts = 1;
  auto c = HttpClient::Create(o);
  ASSERT_TRUE(c.ok());
  const auto start = std::chrono::steady_clock::now();
  auto r = (*c)->Call("ListTables", "{}");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("timed out after 300 ms in the TLS handshake"),
            std::string::npos)
      << r.status().ToString();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(1500));
}

TEST(HttpClientTest, ChecksTheResponseCrc32) {
  const std::string body = R"({"TableNames":[]})";
  FakeServer::Reply bad;
  bad.body = body;
  bad.headers = {{"x-amz-crc32", "12345"}};
  FakeServer server(FakeServer::Mode::kReply, bad);
  HttpClientOptions o;
  o.endpoint = server.endpoint();
  o.max_attempts = 3;
  o.base_backoff = std::chrono::milliseconds(1);
  auto c = HttpClient::Create(o);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  auto r = (*c)->Call("ListTables", "{}");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("x-amz-crc32"), std::string::npos) << r.status().ToString();
  EXPECT_EQ((*c)->stats().attempts, 3);  // a mismatch is retried

  // The right checksum (CRC-32 of the body, decimal) is accepted.
  FakeServer::Reply good = bad;
  good.headers = {{"x-amz-crc32", "1315925753"}};
  FakeServer ok_server(FakeServer::Mode::kReply, good);
  o.endpoint = ok_server.endpoint();
  auto c2 = HttpClient::Create(o);
  ASSERT_TRUE(c2.ok());
  auto r2 = (*c2)->Call("ListTables", "{}");
  ASSERT_TRUE(r2.ok()) << r2.status().ToString();
  EXPECT_EQ(*r2, body);
}

TEST(HttpClientTest, RegionComesFromTheEnvironmentWhenNotGiven) {
  FakeServer::Reply reply;
  reply.body = R"({"TableNames":[]})";
  FakeServer server(FakeServer::Mode::kReply, reply);
  const char* saved_region = std::getenv("AWS_REGION");
  const char* saved_default = std::getenv("AWS_DEFAULT_REGION");
  std::string keep_region = saved_region ? saved_region : "";
  std::string keep_default = saved_default ? saved_default : "";
  auto scope_of = [&](const char* region, const char* default_region) -> std::string {
    if (region) setenv("AWS_REGION", region, 1); else unsetenv("AWS_REGION");
    if (default_region) setenv("AWS_DEFAULT_REGION", default_region, 1);
    else unsetenv("AWS_DEFAULT_REGION");
    HttpClientOptions o;
    o.endpoint = server.endpoint();
    o.region = "";
    o.credentials = {"AKID", "secret", ""};
    auto c = HttpClient::Create(o);
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    if (!c.ok()) return "";
    EXPECT_TRUE((*c)->Call("ListTables", "{}").ok());
    std::string head = server.requests().back();
    size_t p = head.find("Credential=AKID/");
    if (p == std::string::npos) return "";
    size_t end = head.find(',', p);
    return head.substr(p, end - p);
  };
  EXPECT_NE(scope_of("ap-south-1", "eu-north-1").find("/ap-south-1/dynamodb/"), std::string::npos);
  EXPECT_NE(scope_of(nullptr, "eu-north-1").find("/eu-north-1/dynamodb/"), std::string::npos);
  EXPECT_NE(scope_of(nullptr, nullptr).find("/us-east-1/dynamodb/"), std::string::npos);
  if (saved_region) setenv("AWS_REGION", keep_region.c_str(), 1); else unsetenv("AWS_REGION");
  if (saved_default) setenv("AWS_DEFAULT_REGION", keep_default.c_str(), 1);
  else unsetenv("AWS_DEFAULT_REGION");
}


}  // namespace
}  // namespace dynarock::client
