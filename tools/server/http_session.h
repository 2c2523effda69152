// File: tools/server/http_session.h
//
// Internal to http_server.cc (included there only): one connection's work,
// Session<AsyncStream>: read a request, answer it (the DynamoDB API, the
// control API and the console, CORS, compression, the explain header), write
// the response (after the io thread's group commit, reply_round.h, when
// writes wait for it), keep the connection or close it. The server's shared
// state is in http_server_state.h. http_server.cc has the accepting,
// binding, starting and stopping around it; the file comment there
// describes the whole design.

#ifndef DYNAROCK_TOOLS_SERVER_HTTP_SESSION_H_
#define DYNAROCK_TOOLS_SERVER_HTTP_SESSION_H_

#include "tools/server/http_server_state.h"

#include "tools/server/compression.h"
#include "tools/server/control_api.h"
#include "tools/server/http_wire.h"
#include "tools/server/reply_round.h"

#include <time.h>
#include <libdeflate.h>

#include <array>
#include <atomic>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <limits>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <thread>
#include <type_traits>
#include <vector>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/bind_handler.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <openssl/err.h>
#include <openssl/ssl.h>

namespace dynarock::server {

namespace http = boost::beast::http;
using namespace wire;  // NOLINT: the wire helpers, used throughout

namespace {

constexpr std::string_view kTargetPrefix = "DynamoDB_20120810.";
constexpr std::string_view kJson10 = "application/x-amz-json-1.0";
constexpr std::string_view kJson11 = "application/x-amz-json-1.1";
constexpr std::string_view kJson = "application/json";
constexpr std::string_view kNotFoundBody = "<UnknownOperationException/>\n";

// Responses smaller than this go uncompressed even to a client that accepts
// gzip (DynamoDB does not compress small responses either).
constexpr size_t kCompressMinBytes = 1024;
// CORS: what a page on another origin may read of a response.
constexpr std::string_view kCorsExposed =
    "x-amzn-RequestId, x-amzn-ErrorType, x-amzn-ErrorMessage, x-amz-crc32, Date, "
    "X-Dynarock-Explain";

std::string_view SV(beast::string_view s) { return std::string_view(s.data(), s.size()); }

}  // namespace


// One connection, over TcpStream (HTTP) or TlsStream (HTTPS).
template <class AsyncStream>
class Session : public SessionBase, public std::enable_shared_from_this<Session<AsyncStream>> {
 public:
  static constexpr bool kTls = !std::is_same_v<AsyncStream, TcpStream>;

  template <class... Args>
  Session(HttpServer::Impl* srv, Args&&... args)
      : SessionBase(srv), stream_(std::forward<Args>(args)...) {
    out_head_.reserve(512);
  }
  ~Session() override { ReleaseSlot(); }

  void Start() override {
    net::dispatch(Tcp().get_executor(), beast::bind_front_handler(&Session::Begin, Self()));
  }

  void RequestStop() override {
    net::post(Tcp().get_executor(), [self = Self()] {
      self->stop_requested_ = true;
      if (self->idle_) self->Tcp().cancel();
    });
  }

 private:
  using Parser = http::request_parser<http::string_body>;
  // Read at once while waiting for a keep-alive connection's next request.
  static constexpr size_t kFirstReadBytes = 4096;
  // Read at once while discarding a throttled request's body.
  static constexpr size_t kSkipReadBytes = 64 * 1024;
  // The response header's buffer is reused up to this size (over TLS it holds
  // the body too).
  static constexpr size_t kKeptHeadBytes = 4096;

  std::shared_ptr<Session> Self() { return this->shared_from_this(); }
  TcpStream& Tcp() { return beast::get_lowest_layer(stream_); }
  std::chrono::seconds Seconds(int s) const { return std::chrono::seconds(std::max(s, 1)); }

  bool ShouldStop() const {
    return stop_requested_ || srv_->stopping.load(std::memory_order_relaxed);
  }

  void ReleaseSlot() {
    if (holds_slot_) {
      holds_slot_ = false;
      srv_->ReleaseSlot();
    }
  }

  void Begin() {
    if constexpr (kTls) {
      // The handshake counts as the connection's first header (a client that
      // stalls in it is a slowloris too); Stop() may cut it.
      idle_ = true;
      Tcp().expires_after(Seconds(srv_->opts.header_timeout_seconds));
      stream_.async_handshake(net::ssl::stream_base::server,
                              [self = Self()](beast::error_code ec) {
                                self->idle_ = false;
                                if (ec) return self->Close();
                                self->DoRead();
                              });
    } else {
      DoRead();
    }
  }

  void DoRead() {
    if (ShouldStop()) return Close();
    idle_ = true;
    parser_.emplace();
    parser_->body_limit(srv_->opts.max_body_bytes);
    parser_->header_limit(static_cast<std::uint32_t>(
        std::min<size_t>(srv_->opts.max_header_bytes, std::numeric_limits<std::uint32_t>::max())));
    // A new connection, or one whose next request is already buffered
    // (pipelined): the header must come within the header timeout.
    if (!served_one_ || buffer_.size() > 0) return ReadHeader();
    // Keep-alive: the next request may come any time within the idle timeout;
    // from its first byte on, its header has the header timeout.
    Tcp().expires_after(Seconds(srv_->opts.idle_timeout_seconds));
    stream_.async_read_some(buffer_.prepare(kFirstReadBytes),
                            [self = Self()](beast::error_code ec, std::size_t n) {
                              if (ec) return self->Close();  // closed, timeout, Stop()
                              self->buffer_.commit(n);
                              self->ReadHeader();
                            });
  }

  void ReadHeader() {
    Tcp().expires_after(Seconds(srv_->opts.header_timeout_seconds));
    http::async_read_header(stream_, buffer_, *parser_,
                            beast::bind_front_handler(&Session::OnHeader, Self()));
  }

  void OnHeader(beast::error_code ec, std::size_t) {
    idle_ = false;
    if (ec == http::error::body_limit) return RefuseTooLarge();
    if (ec == http::error::header_limit) return RefuseHeaderTooLarge();
    if (IsMalformed(ec)) return RefuseMalformed(ec);
    if (ec) return Close();  // end of stream, timeout, Stop()
    auto& req = parser_->get();
    const http::verb method = req.method();
    if (method != http::verb::get && method != http::verb::head &&
        method != http::verb::options) {
      if (!srv_->AcquireSlot()) return Throttle();
      holds_slot_ = true;
    }
    if (parser_->is_done()) return HandleRequest();
    auto expect = req.find(http::field::expect);
    if (expect != req.end() && IEqualsAscii(SV(expect->value()), "100-continue")) {
      static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
      Tcp().expires_after(Seconds(srv_->opts.io_timeout_seconds));
      net::async_write(stream_, net::buffer(kContinue.data(), kContinue.size()),
                       [self = Self()](beast::error_code ec, std::size_t) {
                         if (ec) return self->Close();
                         self->ReadBody();
                       });
      return;
    }
    // The body usually arrived with the header: parse what is buffered now,
    // and only go back to the socket for the rest.
    beast::error_code pec;
    while (!parser_->is_done() && buffer_.size() > 0) {
      size_t used = parser_->put(buffer_.data(), pec);
      buffer_.consume(used);
      if (pec == http::error::need_more) {
        pec = {};
        break;
      }
      if (pec || used == 0) break;
    }
    if (pec == http::error::body_limit) return RefuseTooLarge();
    if (IsMalformed(pec)) return RefuseMalformed(pec);
    if (pec) return Close();
    if (parser_->is_done()) return HandleRequest();
    ReadBody();
  }

  void ReadBody() {
    Tcp().expires_after(Seconds(srv_->opts.io_timeout_seconds));
    http::async_read(stream_, buffer_, *parser_,
                     beast::bind_front_handler(&Session::OnBody, Self()));
  }

  void OnBody(beast::error_code ec, std::size_t) {
    if (ec == http::error::body_limit) return RefuseTooLarge();
    if (IsMalformed(ec)) return RefuseMalformed(ec);
    if (ec) return Close();
    HandleRequest();
  }

  // Past max_in_flight: DynamoDB's answer to too many requests, which the SDKs
  // retry with backoff (botocore's legacy and standard modes both retry a
  // ThrottlingException; only the standard mode retries RequestLimitExceeded).
  // The body is read and dropped, never stored, so that the connection stays
  // in step; one of unknown length (chunked), or one the client waits to be
  // asked for (Expect: 100-continue), ends the connection instead.
  void Throttle() {
    auto& req = parser_->get();
    http10_keep_alive_ = req.keep_alive() && req.version() == 10;
    head_only_ = false;
    std::string msg =
        "Rate of requests exceeds the allowed throughput: the server's maximum of ";
    AppendNumber(&msg, srv_->opts.max_in_flight);
    msg += " requests in flight is reached";
    out_throttled_ = api::Handler::ErrorReply(Status(ErrorType::kThrottling, std::move(msg))).body;
    throttled_close_ = !req.keep_alive();
    AllowOrigin(req);  // so that a browser's SDK reads the error and retries
    if (parser_->is_done()) return RespondThrottled();
    const auto length = parser_->content_length();
    const auto expect = req.find(http::field::expect);
    if (!length || expect != req.end()) {
      drain_after_write_ = true;
      throttled_close_ = true;
      return RespondThrottled();
    }
    skip_left_ = *length;
    const size_t here = static_cast<size_t>(std::min<uint64_t>(buffer_.size(), skip_left_));
    buffer_.consume(here);
    skip_left_ -= here;
    Tcp().expires_after(Seconds(srv_->opts.io_timeout_seconds));
    SkipBody();
  }

  void SkipBody() {
    if (skip_left_ == 0) return RespondThrottled();
    const size_t want = static_cast<size_t>(std::min<uint64_t>(skip_left_, kSkipReadBytes));
    stream_.async_read_some(buffer_.prepare(want),
                            [self = Self()](beast::error_code ec, std::size_t n) {
                              if (ec) return self->Close();
                              self->buffer_.commit(n);
                              self->buffer_.consume(n);
                              self->skip_left_ -= n;
                              self->SkipBody();
                            });
  }

  // A page on another origin (the AWS SDK in a browser): say what it may read,
  // on every answer.
  void AllowOrigin(const http::request<http::string_body>& req) {
    if (req.find(http::field::origin) != req.end()) {
      extra_headers_ = "\r\nAccess-Control-Allow-Origin: *\r\nAccess-Control-Expose-Headers: ";
      extra_headers_.append(kCorsExposed);
    }
  }

  void RespondThrottled() {
    Respond(400, kJson10, std::move(out_throttled_), throttled_close_);
  }

  // The control API and the console under /_dynarock/ (serve --no-control-api
  // and --no-console turn their routes off: then they are not found). Under
  // --require-auth every route but the console's own files takes a SigV4
  // signature. Pages on other origins get no CORS grant here, and may not
  // change anything: a POST from any web page the user visits must not reset
  // their data.
  void HandleControl(bool keep_alive) {
    auto& req = parser_->get();
    extra_headers_.clear();
    const std::string_view target = SV(req.target());
    auto reply_error = [&](const Status& st, int http_status) {
      ControlReply r = ControlApi::Error(st);
      if (http_status != 0) r.http_status = http_status;
      return Respond(r.http_status, r.content_type, std::move(r.body), !keep_alive);
    };
    if (srv_->control == nullptr) {
      ControlReply r = ControlApi::NotFound("The control API is turned off");
      return Respond(r.http_status, r.content_type, std::move(r.body), !keep_alive);
    }
    const bool reads = req.method() == http::verb::get || req.method() == http::verb::head;
    if (auto origin = req.find(http::field::origin); origin != req.end() && !reads) {
      auto host = req.find(http::field::host);
      const std::string_view o = SV(origin->value());
      const size_t scheme = o.find("://");
      if (host == req.end() || scheme == std::string_view::npos ||
          o.substr(scheme + 3) != SV(host->value())) {
        return reply_error(Status(ErrorType::kAccessDenied,
                                  "The control API takes no requests from pages of another "
                                  "origin (" + SafeHeaderValue(o) + ")"),
                           403);
      }
    }
    RequestContext context;
    if (auto auth = req.find(http::field::authorization); auth != req.end()) {
      context = ContextOf(SV(auth->value()));
    }
    if (srv_->verifier.enabled() && !srv_->control->IsPublic(target)) {
      api::SigV4Request sreq;
      sreq.method = SV(req.method_string());
      sreq.target = target;
      sreq.headers.reserve(16);
      for (const auto& f : req) sreq.headers.emplace_back(SV(f.name_string()), SV(f.value()));
      if (Status st = srv_->verifier.Verify(sreq, req.body()); !st.ok()) {
        return reply_error(st, 0);
      }
    }
    if (auto ae = req.find(http::field::accept_encoding); ae != req.end()) {
      response_coding_ = PreferredCoding(SV(ae->value()));
    }
    head_only_ = req.method() == http::verb::head;
    ControlRequest creq;
    creq.method = head_only_ ? std::string_view("GET") : SV(req.method_string());
    creq.body = req.body();
    creq.access_key = context.access_key;
    creq.region = context.region;
    if (auto inm = req.find(http::field::if_none_match); inm != req.end()) {
      creq.if_none_match = SV(inm->value());
    }
    ControlReply r;
    const uint64_t holds = ReplyRound::Holds();
    try {
      r = srv_->control->Handle(target, creq);
    } catch (const std::exception& e) {
      r = ControlApi::Error(InternalError(std::string("internal error: ") + e.what()));
    }
    wrote_ = ReplyRound::Holds() != holds;
    extra_headers_ = std::move(r.headers);
    Respond(r.http_status, r.content_type, std::move(r.body), !keep_alive);
  }

  void HandleRequest() {
    auto& req = parser_->get();
    const bool keep_alive = req.keep_alive();
    http10_keep_alive_ = keep_alive && req.version() == 10;
    head_only_ = false;
    AllowOrigin(req);
    if (SV(req.target()).substr(0, kControlPathPrefix.size()) == kControlPathPrefix) {
      return HandleControl(keep_alive);
    }
    switch (req.method()) {
      case http::verb::post:
        break;
      case http::verb::head:
        head_only_ = true;
        [[fallthrough]];
      case http::verb::get:
        return Respond(200, kJson10, srv_->health_body, !keep_alive);
      case http::verb::options: {
        // CORS preflight: any origin may POST the JSON API with the headers
        // the SDKs send (echoed from the request).
        extra_headers_ =
            "\r\nAccess-Control-Allow-Origin: *\r\nAccess-Control-Allow-Methods: GET, POST, "
            "OPTIONS\r\nAccess-Control-Max-Age: 172800";
        auto asked = req.find(http::field::access_control_request_headers);
        if (asked != req.end()) {
          extra_headers_.append("\r\nAccess-Control-Allow-Headers: ");
          extra_headers_.append(SafeHeaderValue(SV(asked->value())));
        }
        return Respond(200, kJson10, std::string(), !keep_alive);
      }
      default:
        return Respond(404, kJson10, std::string(kNotFoundBody), !keep_alive);
    }

    // Reply in the dialect asked for. DynamoDB answers a body of any other media
    // type with a 404 UnknownOperationException (a request without a
    // Content-Type, as curl sends it, is taken as JSON).
    std::string_view content_type = kJson10;
    auto ct = req.find(http::field::content_type);
    if (ct != req.end()) {
      std::string_view media = MediaType(SV(ct->value()));
      if (IEqualsAscii(media, kJson11)) {
        content_type = kJson11;
      } else if (IEqualsAscii(media, kJson)) {
        content_type = kJson;
      } else if (!IEqualsAscii(media, kJson10)) {
        return Respond(404, kJson10, std::string(kNotFoundBody), !keep_alive);
      }
    }

    api::ApiReply reply;
    auto target = req.find("X-Amz-Target");
    std::string_view op;
    if (target != req.end()) {
      std::string_view t = SV(target->value());
      if (t.substr(0, kTargetPrefix.size()) == kTargetPrefix) {
        op = t.substr(kTargetPrefix.size());
      } else if (t.substr(0, api::kStreamsTargetPrefix.size()) == api::kStreamsTargetPrefix) {
        op = t;  // the Streams operations go by their whole target
      }
    }
    if (op.empty()) {
      reply = api::Handler::ErrorReply(Status(ErrorType::kUnknownOperation, ""));
      return Respond(reply.http_status, content_type, std::move(reply.body), !keep_alive);
    }

    std::string_view body = req.body();
    if (srv_->verifier.enabled()) {
      api::SigV4Request sreq;
      sreq.method = SV(req.method_string());
      sreq.target = SV(req.target());
      sreq.headers.reserve(16);
      for (const auto& f : req) sreq.headers.emplace_back(SV(f.name_string()), SV(f.value()));
      Status s = srv_->verifier.Verify(sreq, body);
      if (!s.ok()) {
        reply = api::Handler::ErrorReply(s);
        return Respond(reply.http_status, content_type, std::move(reply.body), !keep_alive);
      }
    }

    // A compressed body (the signature above covers the bytes as sent).
    std::string inflated;
    if (auto ce = req.find(http::field::content_encoding); ce != req.end()) {
      const ContentCoding coding = ParseContentEncoding(SV(ce->value()));
      if (coding == ContentCoding::kUnsupported) {
        reply = api::Handler::ErrorReply(Status(
            ErrorType::kSerialization,
            "Unsupported Content-Encoding: " + SafeHeaderValue(SV(ce->value()))));
        return Respond(reply.http_status, content_type, std::move(reply.body), !keep_alive);
      }
      if (coding != ContentCoding::kIdentity) {
        switch (Inflate(body, coding, srv_->opts.max_body_bytes, &inflated)) {
          case InflateResult::kOk:
            body = inflated;
            break;
          case InflateResult::kTooLarge: {
            std::string msg = "Request body is larger than the maximum of ";
            AppendNumber(&msg, srv_->opts.max_body_bytes);
            msg += " bytes once decompressed";
            reply = api::Handler::ErrorReply(Status(ErrorType::kValidation, std::move(msg)));
            return Respond(413, content_type, std::move(reply.body), /*close=*/true);
          }
          case InflateResult::kCorrupt:
            reply = api::Handler::ErrorReply(Status(
                ErrorType::kSerialization, "The request body is not valid " +
                                               std::string(CodingName(coding)) + " data"));
            return Respond(reply.http_status, content_type, std::move(reply.body), !keep_alive);
        }
      }
    }
    if (auto ae = req.find(http::field::accept_encoding); ae != req.end()) {
      response_coding_ = PreferredCoding(SV(ae->value()));
    }

    RequestContext context;
    if (auto auth = req.find(http::field::authorization); auth != req.end()) {
      context = ContextOf(SV(auth->value()));
    }
    context.explain = req.find("X-Dynarock-Explain") != req.end();
    if (srv_->opts.thread_per_request && srv_->opts.thread_per_request()) {
      // The views into the request stay valid until the next is read, after
      // the reply; an inflated body moves to the session for as long.
      if (!inflated.empty()) {
        apart_body_ = std::move(inflated);
        body = apart_body_;
      }
      return HandleApart(op, body, context, content_type, keep_alive);
    }
    const uint64_t holds = ReplyRound::Holds();
    reply = CallHandler(srv_, op, body, context);
    wrote_ = ReplyRound::Holds() != holds;
    FinishRequest(std::move(reply), content_type, keep_alive);
  }

  static api::ApiReply CallHandler(HttpServer::Impl* srv, std::string_view op, std::string_view body,
                                   const RequestContext& context) {
    try {
      return srv->handler(op, body, context);
    } catch (const std::exception& e) {
      return api::Handler::ErrorReply(InternalError(std::string("internal error: ") + e.what()));
    } catch (...) {
      return api::Handler::ErrorReply(InternalError("internal error"));
    }
  }

  // The handler on a thread of its own (HttpServerOptions::thread_per_request):
  // a fault rule's latency then holds up this request alone, not the io
  // thread's other connections. A write there commits its log record itself
  // (no group commit on that thread), so the reply waits for nothing more.
  void HandleApart(std::string_view op, std::string_view body, const RequestContext& context,
                   std::string_view content_type, bool keep_alive) {
    srv_->RunApart([self = Self(), op, body, context, content_type, keep_alive] {
      auto reply = std::make_shared<api::ApiReply>(CallHandler(self->srv_, op, body, context));
      net::post(self->Tcp().get_executor(), [self, reply, content_type, keep_alive] {
        std::string().swap(self->apart_body_);
        self->wrote_ = false;
        self->FinishRequest(std::move(*reply), content_type, keep_alive);
      });
    });
  }

  void FinishRequest(api::ApiReply reply, std::string_view content_type, bool keep_alive) {
    // A fault rule's dropped connection (engine/api/faults.h): no reply at all.
    if (reply.drop == api::ApiReply::Drop::kBeforeReply) return Close();
    if (!reply.explain.empty()) {
      // The JSON line as a header value: '%', controls and bytes past ASCII
      // percent-encoded (decodeURIComponent gives it back).
      extra_headers_.append("\r\nX-Dynarock-Explain: ");
      wire::AppendPercentEncoded(&extra_headers_, reply.explain);
    }
    Respond(reply.http_status, content_type, std::move(reply.body), !keep_alive);
  }

  // A request that is not HTTP/1.x as Beast parses it (a bad request line or
  // header, conflicting lengths): answer 400 and close, rather than dropping
  // the connection without a word.
  static bool IsMalformed(const beast::error_code& ec) {
    if (!ec) return false;
    if (ec == http::error::end_of_stream || ec == http::error::partial_message ||
        ec == http::error::need_more || ec == http::error::body_limit) {
      return false;
    }
    return ec.category() == http::make_error_code(http::error::bad_version).category();
  }

  void RefuseMalformed(const beast::error_code& ec) {
    idle_ = false;
    api::ApiReply reply = api::Handler::ErrorReply(
        Status(ErrorType::kSerialization, "Malformed HTTP request: " + ec.message()));
    http10_keep_alive_ = false;
    head_only_ = false;
    Respond(400, kJson10, std::move(reply.body), /*close=*/true);
  }

  void RefuseTooLarge() {
    idle_ = false;
    std::string msg = "Request body is larger than the maximum of ";
    AppendNumber(&msg, srv_->opts.max_body_bytes);
    msg += " bytes";
    api::ApiReply reply = api::Handler::ErrorReply(Status(ErrorType::kValidation, std::move(msg)));
    http10_keep_alive_ = false;
    head_only_ = false;
    drain_after_write_ = true;
    Respond(413, kJson10, std::move(reply.body), /*close=*/true);
  }

  // The header outgrew max_header_bytes: 431, then drain what the client still
  // sends, as for an oversized body, so that it reads the answer.
  void RefuseHeaderTooLarge() {
    idle_ = false;
    std::string msg = "Request header is larger than the maximum of ";
    AppendNumber(&msg, srv_->opts.max_header_bytes);
    msg += " bytes";
    api::ApiReply reply = api::Handler::ErrorReply(Status(ErrorType::kValidation, std::move(msg)));
    http10_keep_alive_ = false;
    head_only_ = false;
    drain_after_write_ = true;
    Respond(431, kJson10, std::move(reply.body), /*close=*/true);
  }

  void Respond(int status, std::string_view content_type, std::string body, bool close) {
    // Log records of this round's writes wait for the group commit: so does
    // this response (reply_round.h).
    if (ReplyRound* round = ReplyRound::Current(); round != nullptr && round->Waiting()) {
      held_.status = status;
      held_.content_type.assign(content_type);  // a control reply's is its own
      held_.body = std::move(body);
      held_.close = close;
      round->Wait(Self());
      return;
    }
    RespondNow(status, content_type, std::move(body), close);
  }

  void ReleaseHeldReply(const Status& flushed) override {
    HeldReply& r = held_;
    if (!flushed.ok() && wrote_) {
      // Applied, but not logged: a restart would take it back.
      api::ApiReply failed = api::Handler::ErrorReply(InternalError(
          "The write could not be logged, so it may not survive a restart: " + flushed.message()));
      r.status = failed.http_status;
      r.body = std::move(failed.body);
      r.content_type.assign(kJson10);
    }
    RespondNow(r.status, r.content_type, std::move(r.body), r.close);
  }

  void RespondNow(int status, std::string_view content_type, std::string body, bool close) {
    wrote_ = false;
    close = close || ShouldStop();
    close_after_write_ = close;
    out_body_ = std::move(body);
    // Compressed for a client that accepts it; the CRC32 is of the bytes sent,
    // as DynamoDB computes it.
    std::string_view coding;
    if (response_coding_ != ContentCoding::kIdentity && !head_only_ &&
        out_body_.size() >= kCompressMinBytes) {
      std::string packed;
      if (Compress(out_body_, response_coding_, &packed)) {
        out_body_ = std::move(packed);
        coding = CodingName(response_coding_);
      }
    }
    response_coding_ = ContentCoding::kIdentity;

    std::string& h = out_head_;
    h.clear();
    h.append("HTTP/1.1 ");
    AppendNumber(&h, static_cast<uint64_t>(status));
    h.push_back(' ');
    h.append(Reason(status));
    h.append("\r\nServer: Dynarock\r\nDate: ");
    h.append(HttpDateNow());
    h.append("\r\nx-amzn-RequestId: ");
    AppendRequestId(&h);
    h.append("\r\nx-amz-crc32: ");
    AppendNumber(&h, libdeflate_crc32(0, out_body_.data(), out_body_.size()));
    h.append("\r\nContent-Type: ");
    h.append(content_type);
    h.append("\r\nContent-Length: ");
    AppendNumber(&h, out_body_.size());
    if (!coding.empty()) {
      h.append("\r\nContent-Encoding: ");
      h.append(coding);
    }
    h.append(extra_headers_);
    extra_headers_.clear();
    if (close) {
      h.append("\r\nConnection: close");
    } else if (http10_keep_alive_) {
      h.append("\r\nConnection: keep-alive");
    }
    h.append("\r\n\r\n");

    Tcp().expires_after(Seconds(srv_->opts.io_timeout_seconds));
    if constexpr (kTls) {
      // One buffer: Boost 1.74's ssl_stream (through beast::flat_stream) turns
      // the gather write's second step, {header written, body of 16 KiB or
      // more}, into a write of 0 bytes, which ends async_write early as if
      // all were sent: the body never left. Encryption copies it anyway.
      if (!head_only_) out_head_.append(out_body_);
      net::async_write(stream_, net::buffer(out_head_),
                       beast::bind_front_handler(&Session::OnWrite, Self()));
    } else {
      std::array<net::const_buffer, 2> buffers = {
          net::buffer(out_head_),
          head_only_ ? net::const_buffer() : net::buffer(out_body_)};
      net::async_write(stream_, buffers, beast::bind_front_handler(&Session::OnWrite, Self()));
    }
  }

  void OnWrite(beast::error_code ec, std::size_t) {
    ReleaseSlot();
    served_one_ = true;
    // Nothing of the response stays with an idle connection (a BatchGetItem's
    // can be 16 MiB; a thousand keep-alive connections would keep them all).
    // (swap: a move-assignment of an empty string keeps the old buffer.)
    std::string().swap(out_body_);
    if (out_head_.capacity() > kKeptHeadBytes) std::string().swap(out_head_);
    if (ec) return Close();
    if (drain_after_write_) return StartDrain();
    if (close_after_write_ || ShouldStop()) return Close();
    DoRead();
  }

  // After refusing an oversized body or header: stop sending, then read and
  // discard what the client still uploads (bounded in bytes and time), so that
  // it gets to read the refusal instead of a connection reset.
  void StartDrain() {
    beast::error_code ignored;
    Tcp().socket().shutdown(tcp::socket::shutdown_send, ignored);
    drain_left_ = std::max<size_t>(srv_->opts.max_body_bytes, size_t{16} << 20) * 2;
    Tcp().expires_after(std::chrono::seconds(10));
    buffer_.consume(buffer_.size());
    DoDrain();
  }

  void DoDrain() {
    stream_.async_read_some(buffer_.prepare(64 * 1024),
                            [self = Self()](beast::error_code ec, std::size_t n) {
                              if (ec || n >= self->drain_left_) return self->Close();
                              self->drain_left_ -= n;
                              self->DoDrain();
                            });
  }

  // Ends the connection without TLS's close_notify: nothing is owed to the
  // peer once the last response is written (or never will be).
  void Close() {
    ReleaseSlot();
    beast::error_code ignored;
    if (Tcp().socket().is_open()) {
      Tcp().socket().shutdown(tcp::socket::shutdown_both, ignored);
      Tcp().close();
    }
  }

  // A response built while the group commit held writes (Respond), and
  // whether the request it answers wrote.
  struct HeldReply {
    int status = 0;
    std::string content_type;  // kept, with its capacity, from one to the next
    std::string body;
    bool close = false;
  };
  HeldReply held_;
  bool wrote_ = false;
  // An inflated request body while its request runs apart (HandleApart).
  std::string apart_body_;

  AsyncStream stream_;
  beast::flat_buffer buffer_;
  std::optional<Parser> parser_;
  std::string out_head_;
  std::string out_body_;
  std::string out_throttled_;
  size_t drain_left_ = 0;
  uint64_t skip_left_ = 0;  // of a throttled request's body
  bool idle_ = false;  // waiting for the next request's header (or the TLS handshake)
  bool served_one_ = false;  // a response was written: the connection is keep-alive
  bool holds_slot_ = false;  // one of max_in_flight
  bool stop_requested_ = false;
  bool close_after_write_ = false;
  bool drain_after_write_ = false;
  bool throttled_close_ = false;
  bool http10_keep_alive_ = false;
  bool head_only_ = false;
  // For the response being built: headers to add ("\r\nName: value"...) and
  // the coding to compress it in.
  std::string extra_headers_;
  ContentCoding response_coding_ = ContentCoding::kIdentity;
};

}  // namespace dynarock::server

#endif  // DYNAROCK_TOOLS_SERVER_HTTP_SESSION_H_
