// File: graph/http_client.cc
//
// Boost.Beast synchronous HTTP/1.1 over plain TCP sockets. Connections are pooled:
// a call takes an idle connection (or opens one), sends one request, reads one
// response and gives the connection back unless the server asked to close it.
// Sync socket operations ignore Beast's tcp_stream timers, so the timeout is set
// on the socket itself (SO_RCVTIMEO / SO_SNDTIMEO).

#include "graph/http_client.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <algorithm>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

#include "engine/api/json_decode.h"
#include "engine/api/json_encode.h"

namespace dynarock::graph {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

struct Connection {
  explicit Connection(asio::io_context& ioc) : socket(ioc) {}
  tcp::socket socket;
  beast::flat_buffer buffer;
};

bool ParseEndpoint(const std::string& url, std::string* host, std::string* port,
                   std::string* error) {
  std::string_view u = url;
  if (u.substr(0, 8) == "https://") {
    *error = "https endpoints are not supported by this build (no TLS library is linked); use "
             "the http:// form of the endpoint (AWS DynamoDB accepts "
             "http://dynamodb.<region>.amazonaws.com) or a local TLS-terminating proxy";
    return false;
  }
  if (u.substr(0, 7) != "http://") {
    *error = "endpoint must start with http://, not '" + url + "'";
    return false;
  }
  u.remove_prefix(7);
  size_t slash = u.find('/');
  if (slash != std::string_view::npos) u = u.substr(0, slash);
  if (u.empty()) {
    *error = "endpoint '" + url + "' has no host";
    return false;
  }
  if (u.front() == '[') {  // [v6]:port
    size_t close = u.find(']');
    if (close == std::string_view::npos) {
      *error = "bad IPv6 endpoint '" + url + "'";
      return false;
    }
    *host = std::string(u.substr(1, close - 1));
    std::string_view rest = u.substr(close + 1);
    *port = rest.size() > 1 && rest[0] == ':' ? std::string(rest.substr(1)) : "80";
    return true;
  }
  size_t colon = u.rfind(':');
  if (colon == std::string_view::npos) {
    *host = std::string(u);
    *port = "80";
  } else {
    *host = std::string(u.substr(0, colon));
    *port = std::string(u.substr(colon + 1));
  }
  return true;
}

bool Retryable(const Status& s, int http_status) {
  if (http_status >= 500) return true;
  switch (s.type()) {
    case ErrorType::kProvisionedThroughputExceeded:
    case ErrorType::kRequestLimitExceeded:
    case ErrorType::kInternalServerError:
      return true;
    default:
      break;
  }
  // Types Dynarock does not model arrive as ValidationException naming the type.
  return s.message().find("ThrottlingException") != std::string::npos;
}

std::string RandomToken() {
  thread_local std::mt19937_64 rng(std::random_device{}());
  static const char* kHex = "0123456789abcdef";
  std::string out(36, '-');
  for (size_t i = 0; i < out.size(); ++i) {
    if (i == 8 || i == 13 || i == 18 || i == 23) continue;
    out[i] = kHex[rng() & 15];
  }
  out[14] = '4';
  return out;
}

}  // namespace

struct HttpClient::Impl {
  HttpClientOptions options;
  std::string host;
  std::string port;
  std::string host_header;
  tcp::resolver::results_type endpoints;
  asio::io_context ioc;
  SigV4Signer signer{{}, "us-east-1"};

  std::mutex mu;
  std::vector<std::unique_ptr<Connection>> idle;

  std::atomic<int64_t> requests{0}, attempts{0}, retries{0}, sent{0}, received{0};

  StatusOr<std::unique_ptr<Connection>> Take() {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (!idle.empty()) {
        auto c = std::move(idle.back());
        idle.pop_back();
        return c;
      }
    }
    auto c = std::make_unique<Connection>(ioc);
    beast::error_code ec;
    asio::connect(c->socket, endpoints, ec);
    if (ec) {
      return Status(ErrorType::kInternalServerError,
                    "cannot connect to " + options.endpoint + ": " + ec.message());
    }
    c->socket.set_option(tcp::no_delay(true), ec);
    timeval tv{};
    tv.tv_sec = static_cast<long>(options.timeout.count());
    ::setsockopt(c->socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    ::setsockopt(c->socket.native_handle(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    return c;
  }

  void Give(std::unique_ptr<Connection> c) {
    std::lock_guard<std::mutex> lock(mu);
    idle.push_back(std::move(c));
  }

  // One attempt. Returns the HTTP status and body, or a transport error
  // (kInternalServerError, `*transport_error` set). `*reused` says whether the
  // connection had served a request before (a failure then is most likely the
  // server having closed an idle keep-alive connection).
  StatusOr<std::pair<int, std::string>> Attempt(std::string_view operation,
                                                const std::string& body, bool* reused) {
    bool fresh_needed = false;
    {
      std::lock_guard<std::mutex> lock(mu);
      fresh_needed = idle.empty();
    }
    *reused = !fresh_needed;
    DR_ASSIGN_OR_RETURN(std::unique_ptr<Connection> conn, Take());

    SigV4Signer::Headers headers = {
        {"host", host_header},
        {"content-type", "application/x-amz-json-1.0"},
        {"x-amz-target", "DynamoDB_20120810." + std::string(operation)},
    };
    signer.Sign("POST", "/", body, std::chrono::system_clock::now(), &headers);

    http::request<http::string_body> req{http::verb::post, "/", 11};
    for (const auto& [name, value] : headers) req.set(name, value);
    req.set(http::field::user_agent, "dynarock-graph/1");
    req.keep_alive(true);
    req.body() = body;
    req.prepare_payload();

    beast::error_code ec;
    http::write(conn->socket, req, ec);
    if (ec) {
      return Status(ErrorType::kInternalServerError,
                    "sending to " + options.endpoint + ": " + ec.message());
    }
    sent += static_cast<int64_t>(body.size());
    http::response_parser<http::string_body> parser;
    parser.body_limit(size_t{256} << 20);
    parser.header_limit(64 * 1024);
    http::read(conn->socket, conn->buffer, parser, ec);
    if (ec) {
      return Status(ErrorType::kInternalServerError,
                    "reading from " + options.endpoint + ": " + ec.message());
    }
    auto res = parser.release();
    received += static_cast<int64_t>(res.body().size());
    const bool keep = res.keep_alive();
    int status = static_cast<int>(res.result_int());
    std::string out = std::move(res.body());
    if (keep) Give(std::move(conn));
    return std::make_pair(status, std::move(out));
  }
};

StatusOr<std::unique_ptr<HttpClient>> HttpClient::Create(HttpClientOptions options) {
  auto impl = std::make_unique<Impl>();
  std::string error;
  if (!ParseEndpoint(options.endpoint, &impl->host, &impl->port, &error)) {
    return ValidationError(error);
  }
  impl->host_header = impl->host.find(':') != std::string::npos ? "[" + impl->host + "]"
                                                                  : impl->host;
  if (impl->port != "80") impl->host_header += ":" + impl->port;
  if (options.credentials.access_key_id.empty() &&
      !AwsCredentials::FromEnvironment(&options.credentials)) {
    options.credentials = {"dynarock", "dynarock", ""};
  }
  if (options.max_attempts < 1) options.max_attempts = 1;
  impl->signer = SigV4Signer(options.credentials, options.region, "dynamodb");
  tcp::resolver resolver(impl->ioc);
  beast::error_code ec;
  impl->endpoints = resolver.resolve(impl->host, impl->port, ec);
  if (ec) {
    return ValidationError("cannot resolve " + options.endpoint + ": " + ec.message());
  }
  impl->options = std::move(options);
  return std::unique_ptr<HttpClient>(new HttpClient(std::move(impl)));
}

HttpClient::HttpClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpClient::~HttpClient() = default;

std::string HttpClient::Describe() const { return impl_->options.endpoint; }

HttpClientStats HttpClient::stats() const {
  HttpClientStats s;
  s.requests = impl_->requests.load();
  s.attempts = impl_->attempts.load();
  s.retries = impl_->retries.load();
  s.bytes_sent = impl_->sent.load();
  s.bytes_received = impl_->received.load();
  return s;
}

StatusOr<std::string> HttpClient::Call(std::string_view operation, const std::string& body) {
  Impl& im = *impl_;
  ++im.requests;
  thread_local std::mt19937_64 rng(std::random_device{}());
  Status last;
  bool stale_retry_used = false;
  for (int attempt = 0; attempt < im.options.max_attempts; ++attempt) {
    ++im.attempts;
    bool reused = false;
    auto r = im.Attempt(operation, body, &reused);
    int http_status = 0;
    if (r.ok()) {
      http_status = r->first;
      if (http_status == 200) return std::move(r->second);
      last = api::DecodeErrorResponse(http_status, r->second);
      if (!Retryable(last, http_status)) return last;
    } else {
      last = r.status();
      // A reused keep-alive connection the server closed: retry at once, once.
      if (reused && !stale_retry_used) {
        stale_retry_used = true;
        --attempt;
        ++im.retries;
        continue;
      }
    }
    if (attempt + 1 >= im.options.max_attempts) break;
    ++im.retries;
    int64_t cap = std::min<int64_t>(im.options.max_backoff.count(),
                                    im.options.base_backoff.count() << std::min(attempt, 20));
    std::uniform_int_distribution<int64_t> jitter(0, std::max<int64_t>(cap, 1));
    std::this_thread::sleep_for(std::chrono::milliseconds(jitter(rng)));
  }
  return last;
}

#define DR_HTTP_OP(Name)                                                                 \
  StatusOr<Name##Response> HttpClient::Name(const Name##Request& req) {                  \
    DR_ASSIGN_OR_RETURN(std::string body, Call(#Name, api::Encode##Name##Request(req))); \
    return api::Decode##Name##Response(body);                                           \
  }

DR_HTTP_OP(CreateTable)
DR_HTTP_OP(DescribeTable)
DR_HTTP_OP(DeleteTable)
DR_HTTP_OP(PutItem)
DR_HTTP_OP(GetItem)
DR_HTTP_OP(UpdateItem)
DR_HTTP_OP(DeleteItem)
DR_HTTP_OP(Query)
DR_HTTP_OP(BatchGetItem)
DR_HTTP_OP(BatchWriteItem)

#undef DR_HTTP_OP

StatusOr<TransactWriteItemsResponse> HttpClient::TransactWriteItems(
    const TransactWriteItemsRequest& req) {
  // As the AWS SDKs do: an idempotency token, so that a retried transaction is
  // applied once.
  std::string encoded;
  if (req.client_request_token) {
    encoded = api::EncodeTransactWriteItemsRequest(req);
  } else {
    TransactWriteItemsRequest copy = req;
    copy.client_request_token = RandomToken();
    encoded = api::EncodeTransactWriteItemsRequest(copy);
  }
  DR_ASSIGN_OR_RETURN(std::string body, Call("TransactWriteItems", encoded));
  return api::DecodeTransactWriteItemsResponse(body);
}

}  // namespace dynarock::graph
