// File: client/http_client.cc
//
// Boost.Beast HTTP/1.1 over beast::tcp_stream (http://) or
// beast::ssl_stream<beast::tcp_stream> (https://, OpenSSL). Connections are
// pooled: a call takes an idle connection (or opens one), sends one request,
// reads one response and gives the connection back unless the server asked to
// close it or the attempt failed.
//
// Deadlines: every connection owns an io_context, and every step of an attempt
// (connect, TLS handshake, write, read) is an asynchronous operation started
// under the stream's expiry (tcp_stream::expires_at = the attempt's deadline)
// and run to completion on the calling thread with io_context::run(). When the
// deadline passes, Beast cancels the operation with beast::error::timeout.
// (Synchronous socket calls ignore that expiry, and SO_RCVTIMEO only makes
// Asio's synchronous read poll forever.)
//
// Host names are resolved when a connection is opened (not at Create), cached,
// and resolved again after a failed connect.

#include "client/http_client.h"

#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <random>
#include <thread>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <boost/crc.hpp>

#include "engine/api/json_decode.h"
#include "engine/api/json_encode.h"

namespace dynarock::client {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;
using TlsStream = beast::ssl_stream<beast::tcp_stream>;

namespace {

struct Endpoint {
  bool tls = false;
  std::string host;  // without brackets for IPv6
  std::string port;
};

bool ParseEndpoint(const std::string& url, Endpoint* out, std::string* error) {
  std::string_view u = url;
  if (u.substr(0, 8) == "https://") {
    out->tls = true;
    u.remove_prefix(8);
  } else if (u.substr(0, 7) == "http://") {
    out->tls = false;
    u.remove_prefix(7);
  } else {
    *error = "endpoint must start with http:// or https://, not '" + url + "'";
    return false;
  }
  const std::string default_port = out->tls ? "443" : "80";
  size_t slash = u.find('/');
  if (slash != std::string_view::npos) u = u.substr(0, slash);
  if (u.empty()) {
    *error = "endpoint '" + url + "' has no host";
    return false;
  }
  std::string_view port;
  if (u.front() == '[') {  // [v6]:port
    size_t close = u.find(']');
    if (close == std::string_view::npos || close == 1) {
      *error = "bad IPv6 endpoint '" + url + "'";
      return false;
    }
    out->host = std::string(u.substr(1, close - 1));
    std::string_view rest = u.substr(close + 1);
    if (!rest.empty()) {
      if (rest[0] != ':') {
        *error = "bad IPv6 endpoint '" + url + "'";
        return false;
      }
      port = rest.substr(1);
    }
  } else {
    size_t colon = u.rfind(':');
    if (colon == std::string_view::npos) {
      out->host = std::string(u);
    } else {
      out->host = std::string(u.substr(0, colon));
      port = u.substr(colon + 1);
    }
  }
  if (out->host.empty()) {
    *error = "endpoint '" + url + "' has no host";
    return false;
  }
  if (port.empty()) {
    out->port = default_port;
  } else {
    unsigned value = 0;
    auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (ec != std::errc() || end != port.data() + port.size() || value == 0 || value > 65535) {
      *error = "endpoint '" + url + "' has a bad port";
      return false;
    }
    out->port = std::string(port);
  }
  return true;
}

bool IsIpLiteral(const std::string& host) {
  boost::system::error_code ec;
  asio::ip::make_address(host, ec);
  return !ec;
}

bool Retryable(const Status& s, int http_status) {
  if (http_status >= 500) return true;
  switch (s.type()) {
    case ErrorType::kProvisionedThroughputExceeded:
    case ErrorType::kRequestLimitExceeded:
    case ErrorType::kThrottling:
    case ErrorType::kInternalServerError:
      return true;
    default:
      return false;
  }
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

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string EnvOrEmpty(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::string(v) : std::string();
}

struct Connection {
  explicit Connection(ssl::context* tls_context) {
    if (tls_context != nullptr) {
      tls = std::make_unique<TlsStream>(ioc, *tls_context);
    } else {
      tcp = std::make_unique<beast::tcp_stream>(ioc);
    }
  }
  beast::tcp_stream& Lowest() { return tls ? beast::get_lowest_layer(*tls) : *tcp; }
  // Runs the pending operation to completion (bounded by the stream's expiry).
  void Run() {
    ioc.restart();
    ioc.run();
  }

  asio::io_context ioc;  // first: outlives the streams
  std::unique_ptr<beast::tcp_stream> tcp;
  std::unique_ptr<TlsStream> tls;
  beast::flat_buffer buffer;
};

// How an attempt failed.
struct AttemptInfo {
  bool reused = false;     // on a pooled connection that had served a request before
  bool retryable = true;
  bool timed_out = false;
};

}  // namespace

std::string RegionFromEndpoint(std::string_view endpoint) {
  Endpoint ep;
  std::string error;
  if (!ParseEndpoint(std::string(endpoint), &ep, &error)) return "";
  std::string host = Lower(ep.host);
  if (!host.empty() && host.back() == '.') host.pop_back();
  std::vector<std::string> labels;
  size_t start = 0;
  while (start <= host.size()) {
    size_t dot = host.find('.', start);
    if (dot == std::string::npos) dot = host.size();
    labels.push_back(host.substr(start, dot - start));
    start = dot + 1;
  }
  auto ends_with = [&](std::initializer_list<const char*> suffix) {
    if (labels.size() < suffix.size()) return false;
    size_t i = labels.size() - suffix.size();
    for (const char* s : suffix) {
      if (labels[i++] != s) return false;
    }
    return true;
  };
  size_t suffix = 0;
  if (ends_with({"amazonaws", "com", "cn"})) {
    suffix = 3;
  } else if (ends_with({"amazonaws", "com"})) {
    suffix = 2;
  } else if (ends_with({"api", "aws"})) {
    suffix = 2;
  } else {
    return "";
  }
  labels.resize(labels.size() - suffix);
  if (!labels.empty() && labels.back() == "vpce") labels.pop_back();  // VPC endpoints
  if (labels.size() < 2) return "";
  const std::string& region = labels.back();
  const std::string& service = labels[labels.size() - 2];
  if (service != "dynamodb" && service != "dynamodb-fips") return "";
  if (region.empty() || !std::all_of(region.begin(), region.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
      })) {
    return "";
  }
  return region;
}

struct HttpClient::Impl {
  HttpClientOptions options;
  Endpoint ep;
  std::string host_header;
  std::unique_ptr<ssl::context> tls_context;  // https only
  SigV4Signer signer{{}, "us-east-1"};

  std::mutex mu;
  std::vector<std::unique_ptr<Connection>> idle;
  std::optional<tcp::resolver::results_type> resolved;

  std::atomic<int64_t> requests{0}, attempts{0}, retries{0}, timeouts{0}, sent{0}, received{0};

  std::string Millis() const { return std::to_string(options.timeout.count()) + " ms"; }

  Status TransportError(const std::string& phase, const beast::error_code& ec,
                        AttemptInfo* info) {
    if (ec == beast::error::timeout) {
      info->timed_out = true;
      ++timeouts;
      return Status(ErrorType::kInternalServerError,
                    "timed out after " + Millis() + " " + phase + " " + options.endpoint +
                        " (HttpClientOptions::timeout)");
    }
    return Status(ErrorType::kInternalServerError,
                  phase + " " + options.endpoint + ": " + ec.message());
  }

  StatusOr<tcp::resolver::results_type> Resolve(AttemptInfo* info) {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (resolved) return *resolved;
    }
    asio::io_context ioc;
    tcp::resolver resolver(ioc);
    beast::error_code ec;
    auto results = resolver.resolve(ep.host, ep.port, ec);
    if (ec) {
      // A name that does not exist will not start to exist on a retry.
      info->retryable = ec != asio::error::host_not_found;
      return Status(ErrorType::kInternalServerError,
                    "cannot resolve " + ep.host + " (" + options.endpoint + "): " + ec.message());
    }
    std::lock_guard<std::mutex> lock(mu);
    resolved = results;
    return results;
  }

  void ForgetResolution() {
    std::lock_guard<std::mutex> lock(mu);
    resolved.reset();
  }

  std::unique_ptr<Connection> TakeIdle() {
    std::lock_guard<std::mutex> lock(mu);
    if (idle.empty()) return nullptr;
    auto c = std::move(idle.back());
    idle.pop_back();
    return c;
  }

  void Give(std::unique_ptr<Connection> c) {
    std::lock_guard<std::mutex> lock(mu);
    idle.push_back(std::move(c));
  }

  // A new connection: connect and, for https, the TLS handshake with SNI and
  // certificate + host name verification, all before `deadline`.
  StatusOr<std::unique_ptr<Connection>> Open(std::chrono::steady_clock::time_point deadline,
                                             AttemptInfo* info) {
    DR_ASSIGN_OR_RETURN(tcp::resolver::results_type endpoints, Resolve(info));
    auto c = std::make_unique<Connection>(tls_context.get());
    beast::error_code ec;
    c->Lowest().expires_at(deadline);
    c->Lowest().async_connect(endpoints,
                              [&ec](const beast::error_code& e, const tcp::endpoint&) { ec = e; });
    c->Run();
    if (ec) {
      ForgetResolution();
      return TransportError("connecting to", ec, info);
    }
    beast::error_code ignored;
    c->Lowest().socket().set_option(tcp::no_delay(true), ignored);
    if (!c->tls) return c;

    SSL* ssl_handle = c->tls->native_handle();
    X509_VERIFY_PARAM* param = SSL_get0_param(ssl_handle);
    if (IsIpLiteral(ep.host)) {
      X509_VERIFY_PARAM_set1_ip_asc(param, ep.host.c_str());  // no SNI for addresses
    } else {
      SSL_set_tlsext_host_name(ssl_handle, ep.host.c_str());
      X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
      X509_VERIFY_PARAM_set1_host(param, ep.host.c_str(), 0);
    }
    c->tls->async_handshake(ssl::stream_base::client,
                            [&ec](const beast::error_code& e) { ec = e; });
    c->Run();
    if (ec) {
      const long verify = SSL_get_verify_result(ssl_handle);
      if (ec != beast::error::timeout && verify != X509_V_OK) {
        info->retryable = false;  // the same certificate will fail again
        return Status(ErrorType::kInternalServerError,
                      "TLS: the certificate of " + options.endpoint + " failed verification: " +
                          X509_verify_cert_error_string(verify) +
                          " (the client trusts the system's CA certificates" +
                          (options.ca_file.empty() ? std::string()
                                                   : " and those of " + options.ca_file) +
                          "; set HttpClientOptions::ca_file for a private CA)");
      }
      return TransportError("in the TLS handshake with", ec, info);
    }
    return c;
  }

  template <class Stream>
  void Write(Stream& stream, http::request<http::string_body>& req, beast::error_code* ec) {
    http::async_write(stream, req,
                      [ec](const beast::error_code& e, std::size_t) { *ec = e; });
  }

  template <class Stream>
  void Read(Stream& stream, beast::flat_buffer& buffer,
            http::response_parser<http::string_body>& parser, beast::error_code* ec) {
    http::async_read(stream, buffer, parser,
                     [ec](const beast::error_code& e, std::size_t) { *ec = e; });
  }

  // One attempt: the HTTP status and body, or a transport error (described by
  // *info).
  StatusOr<std::pair<int, std::string>> Attempt(std::string_view operation,
                                                const std::string& body, AttemptInfo* info) {
    const auto deadline = std::chrono::steady_clock::now() + options.timeout;
    std::unique_ptr<Connection> conn = TakeIdle();
    info->reused = conn != nullptr;
    if (!conn) {
      DR_ASSIGN_OR_RETURN(conn, Open(deadline, info));
    }

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
    conn->Lowest().expires_at(deadline);
    if (conn->tls) {
      Write(*conn->tls, req, &ec);
    } else {
      Write(*conn->tcp, req, &ec);
    }
    conn->Run();
    if (ec) return TransportError("sending the request to", ec, info);
    sent += static_cast<int64_t>(body.size());

    http::response_parser<http::string_body> parser;
    parser.body_limit(size_t{256} << 20);
    parser.header_limit(64 * 1024);
    if (conn->tls) {
      Read(*conn->tls, conn->buffer, parser, &ec);
    } else {
      Read(*conn->tcp, conn->buffer, parser, &ec);
    }
    conn->Run();
    if (ec) return TransportError("waiting for the response from", ec, info);
    conn->Lowest().expires_never();

    auto res = parser.release();
    received += static_cast<int64_t>(res.body().size());
    // DynamoDB's integrity check: CRC-32 of the body, in decimal.
    auto crc_header = res.find("x-amz-crc32");
    if (crc_header != res.end()) {
      std::string_view text(crc_header->value().data(), crc_header->value().size());
      uint64_t want = 0;
      auto [end, perr] = std::from_chars(text.data(), text.data() + text.size(), want);
      boost::crc_32_type crc;
      crc.process_bytes(res.body().data(), res.body().size());
      if (perr != std::errc() || end != text.data() + text.size() || want != crc.checksum()) {
        return Status(ErrorType::kInternalServerError,
                      "the response from " + options.endpoint +
                          " does not match its x-amz-crc32 header (" + std::string(text) +
                          ", body CRC-32 " + std::to_string(crc.checksum()) +
                          "): corrupted in transit");
      }
    }
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
  if (!ParseEndpoint(options.endpoint, &impl->ep, &error)) return ValidationError(error);
  const Endpoint& ep = impl->ep;
  impl->host_header = ep.host.find(':') != std::string::npos ? "[" + ep.host + "]" : ep.host;
  if (ep.port != (ep.tls ? "443" : "80")) impl->host_header += ":" + ep.port;
  if (ep.tls) {
    impl->tls_context = std::make_unique<ssl::context>(ssl::context::tls_client);
    ssl::context& ctx = *impl->tls_context;
    SSL_CTX_set_min_proto_version(ctx.native_handle(), TLS1_2_VERSION);
    beast::error_code ec;
    ctx.set_default_verify_paths(ec);
    if (ec) return InternalError("TLS: cannot load the system's CA certificates: " + ec.message());
    if (!options.ca_file.empty()) {
      ctx.load_verify_file(options.ca_file, ec);
      if (ec) {
        return ValidationError("TLS: cannot load CA certificates from " + options.ca_file + ": " +
                               ec.message());
      }
    }
    ctx.set_verify_mode(ssl::verify_peer);
  } else if (!options.ca_file.empty()) {
    return ValidationError("ca_file is set but the endpoint " + options.endpoint +
                           " is not https://");
  }
  if (options.credentials.access_key_id.empty() &&
      !AwsCredentials::FromEnvironment(&options.credentials) &&
      !AwsCredentials::FromProfile(&options.credentials)) {
    options.credentials = {"dynarock", "dynarock", ""};
  }
  if (options.region.empty()) options.region = RegionFromEndpoint(options.endpoint);
  if (options.region.empty()) options.region = EnvOrEmpty("AWS_REGION");
  if (options.region.empty()) options.region = EnvOrEmpty("AWS_DEFAULT_REGION");
  if (options.region.empty()) options.region = "us-east-1";
  if (options.max_attempts < 1) options.max_attempts = 1;
  if (options.timeout.count() < 1) options.timeout = std::chrono::milliseconds(1);
  impl->signer = SigV4Signer(options.credentials, options.region, "dynamodb");
  impl->options = std::move(options);
  return std::unique_ptr<HttpClient>(new HttpClient(std::move(impl)));
}

HttpClient::HttpClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpClient::~HttpClient() = default;

std::string HttpClient::Describe() const { return impl_->options.endpoint; }

const std::string& HttpClient::region() const { return impl_->options.region; }

HttpClientStats HttpClient::stats() const {
  HttpClientStats s;
  s.requests = impl_->requests.load();
  s.attempts = impl_->attempts.load();
  s.retries = impl_->retries.load();
  s.timeouts = impl_->timeouts.load();
  s.bytes_sent = impl_->sent.load();
  s.bytes_received = impl_->received.load();
  return s;
}

StatusOr<std::string> HttpClient::Call(std::string_view operation, const std::string& body) {
  Impl& im = *impl_;
  ++im.requests;
  thread_local std::mt19937_64 rng(std::random_device{}());
  Status last;
  bool transport_failure = false;
  bool stale_retry_used = false;
  int attempts = 0;
  for (int attempt = 0; attempt < im.options.max_attempts; ++attempt) {
    ++im.attempts;
    ++attempts;
    AttemptInfo info;
    auto r = im.Attempt(operation, body, &info);
    if (r.ok()) {
      const int http_status = r->first;
      if (http_status == 200) return std::move(r->second);
      last = api::DecodeErrorResponse(http_status, r->second);
      transport_failure = false;
      if (!Retryable(last, http_status)) return last;
    } else {
      last = r.status();
      transport_failure = true;
      if (!info.retryable) return last;
      // A reused keep-alive connection the server closed: retry at once, once.
      // (A timeout is not that: it waited the whole deadline.)
      if (info.reused && !info.timed_out && !stale_retry_used) {
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
  if (transport_failure && attempts > 1) {
    return Status(last.type(),
                  last.message() + " (gave up after " + std::to_string(attempts) + " attempts)");
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
DR_HTTP_OP(Scan)
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

}  // namespace dynarock::client
