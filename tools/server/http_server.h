// File: tools/server/http_server.h
//
// The HTTP/1.1 endpoint of `dynarock serve`: DynamoDB's JSON protocol over
// asynchronous keep-alive connections (Boost.Beast on Asio; none of it leaks into
// this header).
//
//   POST /  X-Amz-Target: DynamoDB_20120810.<Operation>   -> handler(op, body)
//   POST /  X-Amz-Target: DynamoDBStreams_20120810.<Op>    -> handler(target, body)
//   GET  /                                                 -> 200 "healthy: ..."
//   OPTIONS (CORS preflight)                               -> 200, any origin
//
// Encodings (compression.h): a body sent with Content-Encoding gzip or deflate
// is inflated after the signature check (SigV4 signs the bytes as sent), up to
// max_body_bytes inflated (413 past it; corrupt data or another coding: 400
// SerializationException); a response of 1 KB or more is compressed for a
// client whose Accept-Encoding takes gzip or deflate, and its x-amz-crc32 is
// then of the compressed bytes, as DynamoDB's. A request with an Origin header
// gets Access-Control-Allow-Origin: * and the AWS headers exposed.
//
// Every response carries x-amzn-RequestId (fresh, 52 chars of [0-9A-Z]),
// x-amz-crc32 (the CRC-32 of the body, decimal; botocore checks it),
// Content-Type and Content-Length. What DynamoDB does, the server does too:
//   - no X-Amz-Target, or one not starting with "DynamoDB_20120810."
//       -> 400 com.amazon.coral.service#UnknownOperationException
//       (an unknown operation name is the handler's to refuse);
//   - with auth required, SigV4 errors (MissingAuthenticationToken,
//     UnrecognizedClient, InvalidSignature, IncompleteSignature), checked after
//     the target and before the handler;
//   - a body over max_body_bytes -> 413 with a ValidationException body, and the
//     connection is closed (the rest of the upload is drained first so the client
//     reads the reply);
//   - other methods -> 404 "<UnknownOperationException/>";
//   - malformed HTTP -> 400 SerializationException, and the connection is closed;
//   - a request header over max_header_bytes -> 431 with a ValidationException
//     body, and the connection is closed (after draining, as for the body);
//   - a POST beyond max_in_flight requests -> 400 ThrottlingException (the
//     SDKs retry it with backoff); a body with a Content-Length is read and
//     discarded (not kept) so the connection stays usable, any other closes it;
//   - a connection beyond max_connections -> accepted and reset at once.
// The handler runs on the io thread that read the request (or a thread of its
// own, see thread_per_request), concurrently on several threads: it must be
// thread-safe (api::Handler is).
//
// Timeouts, each a deadline for the whole step rather than for progress (a
// client trickling bytes gains nothing): a new connection's TLS handshake and
// first request header, header_timeout_seconds each; a keep-alive
// connection's wait for its next request, idle_timeout_seconds until the
// first byte, then header_timeout_seconds for the header; the body, and
// writing the response, io_timeout_seconds each.
//
// With tls_cert_file and tls_key_file the endpoint speaks HTTPS only (TLS 1.2
// or later, OpenSSL through Boost.Asio's ssl::stream).
//
//   HttpServer server(options, [&](std::string_view op, std::string_view body) {
//     return handler.Handle(op, body);
//   });
//   uint16_t port;
//   Status s = server.Start(&port);  // or Bind(&port) first, then Start()
//   ...
//   server.Stop();  // stop accepting, finish in-flight requests, close idle connections

#ifndef DYNAROCK_TOOLS_SERVER_HTTP_SERVER_H_
#define DYNAROCK_TOOLS_SERVER_HTTP_SERVER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "dynarock/status.h"
#include "engine/api/handler.h"
#include "engine/api/sigv4.h"

namespace dynarock::server {

struct HttpServerOptions {
  // Address to listen on: an IPv4/IPv6 literal or a resolvable name.
  std::string host = "127.0.0.1";
  // 0 picks a free port (read it back from Start() or port()).
  uint16_t port = 0;
  // io threads; 0 = one per core.
  int threads = 0;
  // Largest request body accepted (DynamoDB's limit is 16 MiB).
  size_t max_body_bytes = size_t{16} << 20;
  // Largest request header (request line and fields) accepted; the SDKs send
  // about 1 KB, signed. 16 KiB, as Node.js's default.
  size_t max_header_bytes = size_t{16} << 10;
  // Connections open at once; one more is reset as soon as it is accepted.
  // 0 = no limit (the open-file limit then decides). serve lowers it to half
  // the process's open-file limit, so that RocksDB keeps descriptors.
  size_t max_connections = 1024;
  // Requests in flight at once (from a complete header to the response's
  // last byte written; GET, HEAD and OPTIONS are not counted), each holding
  // up to max_body_bytes of body; past it a request gets a ThrottlingException.
  // 0 = no limit.
  size_t max_in_flight = 256;
  // SigV4 verification; no keys = accept any credentials (as DynamoDB Local).
  api::AuthConfig auth;
  // Named in the health reply: "healthy: dynamodb.<region>.amazonaws.com ".
  std::string region = "us-east-1";
  // A new connection must complete its TLS handshake, and then send its first
  // request header, within this long each; a keep-alive connection the rest of
  // a header once its first byte came (slowloris).
  int header_timeout_seconds = 10;
  // An idle keep-alive connection is closed after this long.
  int idle_timeout_seconds = 120;
  // A request body must arrive, and a response be written, within this long.
  int io_timeout_seconds = 60;
  // How long Stop() waits for in-flight requests before cutting connections.
  int stop_grace_seconds = 10;
  // PEM files of the certificate (chain) and its private key: HTTPS instead of
  // HTTP when both are set. Read by Bind(), which fails on an unusable pair.
  std::string tls_cert_file;
  std::string tls_key_file;
  // When set and true as a request arrives, the request runs on a thread of
  // its own instead of its connection's io thread, and its reply goes back
  // through the io thread: true while a fault rule has a latency, whose sleep
  // then holds up that request alone. Called on the io thread. Unset, the
  // constructor taking an api::Handler sets it from the handler's fault
  // injector (FaultInjector::delays); `serve`, whose namespaces share one
  // injector, sets it from that.
  std::function<bool()> thread_per_request;
};

// Serves one DynamoDB operation: (operation after "DynamoDB_20120810.", JSON body).
using RequestHandler =
    std::function<api::ApiReply(std::string_view operation, std::string_view body)>;

// Who sent a request, from its SigV4 Authorization header's credential scope
// (empty when unsigned): DynamoDB Local keeps each access key's and region's
// tables apart, and so does `serve` without --shared-db.
struct RequestContext {
  std::string_view access_key;
  std::string_view region;
  // The request asked for the request log's facts about it (header
  // X-Dynarock-Explain); the reply's ApiReply::explain goes back in the
  // X-Dynarock-Explain header, percent-encoded.
  bool explain = false;
};
using ContextHandler = std::function<api::ApiReply(
    std::string_view operation, std::string_view body, const RequestContext& context)>;

class ControlApi;

class HttpServer {
 public:
  using Options = HttpServerOptions;

  HttpServer(Options options, RequestHandler handler);
  HttpServer(Options options, ContextHandler handler);
  // Serves through `handler` (not owned; must outlive the server).
  HttpServer(Options options, api::Handler* handler);
  ~HttpServer();  // Stop()s

  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Resolves the host, binds and listens, without serving yet: connections wait
  // in the backlog until Start(). Lets the caller learn the port (port 0) before
  // the first request. Returns an error when the TLS certificate or key cannot
  // be used, or the address cannot be resolved or bound (e.g. the port is in
  // use). The bound port goes to *bound_port when given, and to port().
  Status Bind(uint16_t* bound_port = nullptr);

  // Starts accepting and the io threads (Bind()s first when not done yet).
  Status Start(uint16_t* bound_port = nullptr);

  // Graceful shutdown: stops accepting, lets requests being read, handled or
  // written finish (up to stop_grace_seconds), closes idle connections, joins the
  // io threads. Idempotent. Must not be called from the handler.
  void Stop();

  // Serves /_dynarock/... (any method) through `control` (not owned; must
  // outlive the server). Call before Start(); without it those paths are 404s.
  void SetControl(const ControlApi* control);

  uint16_t port() const;
  const Options& options() const;

  // Counters since Start(), safe to read from any thread.
  struct Stats {
    size_t connections = 0;          // open now
    size_t in_flight = 0;            // requests in flight now
    uint64_t connections_refused = 0;  // over max_connections
    uint64_t requests_throttled = 0;   // over max_in_flight
  };
  Stats stats() const;

  struct Impl;  // implementation detail (http_server.cc)

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace dynarock::server

#endif  // DYNAROCK_TOOLS_SERVER_HTTP_SERVER_H_
