// File: tools/server/http_server.cc
//
// One io_context per io thread, each run by its own thread (no locking inside
// Asio, no handler hopping between cores); connections are dealt to them in
// turn as they are accepted, by an acceptor on a context and thread of its own
// (a slow request never delays accepting). One Session per connection, all of its work on
// its context's one thread: read a request
// header (Beast's parser, body limit enforced from Content-Length before any of
// the body is read), read the body, run the handler synchronously, write the
// response (a hand-built header and the body in one gather write), repeat.
// Pipelined requests wait in the flat_buffer and are served in order, one at a
// time: a client that sends without reading stalls only itself (its response
// write times out), and at most one read's worth of its bytes is buffered.
// A Session is a template over its stream, so plain HTTP pays nothing for TLS:
// Session<TcpStream>, Session<TlsStream> (beast::ssl_stream over the same
// TcpStream, whose timeouts then bound the handshake and every TLS record).
// The limits (http_server.h) are counters shared by all threads: open
// connections (checked by the acceptor) and requests in flight (a slot taken
// when a header is complete, given back when its response is written or the
// connection ends).

#include "tools/server/http_server.h"

#include "engine/api/faults.h"
#include "tools/server/http_session.h"

namespace dynarock::server {

// ---- Impl -------------------------------------------------------------------------

Status HttpServer::Impl::LoadTls() {
  if (opts.tls_cert_file.empty() && opts.tls_key_file.empty()) return Status();
  if (opts.tls_cert_file.empty() || opts.tls_key_file.empty()) {
    return InternalError("TLS needs both a certificate and its private key");
  }
  auto ctx = std::make_unique<net::ssl::context>(net::ssl::context::tls_server);
  SSL_CTX* native = ctx->native_handle();
  SSL_CTX_set_min_proto_version(native, TLS1_2_VERSION);
  long flags = SSL_OP_NO_COMPRESSION | SSL_OP_CIPHER_SERVER_PREFERENCE;
#ifdef SSL_OP_NO_RENEGOTIATION
  flags |= SSL_OP_NO_RENEGOTIATION;  // a client may not make the server redo handshakes
#endif
  SSL_CTX_set_options(native, flags);
  beast::error_code ec;
  ctx->use_certificate_chain_file(opts.tls_cert_file, ec);
  if (ec) {
    return InternalError("cannot use the TLS certificate " + opts.tls_cert_file + ": " +
                         ec.message());
  }
  ctx->use_private_key_file(opts.tls_key_file, net::ssl::context::pem, ec);
  if (ec) {
    return InternalError("cannot use the TLS private key " + opts.tls_key_file + ": " +
                         ec.message());
  }
  if (SSL_CTX_check_private_key(native) != 1) {
    ERR_clear_error();
    return InternalError("the TLS private key " + opts.tls_key_file +
                         " does not match the certificate " + opts.tls_cert_file);
  }
  tls = std::move(ctx);
  return Status();
}

void HttpServer::Impl::DoAccept() {
  acceptor.async_accept(NextContext().get_executor(),
                        beast::bind_front_handler(&Impl::OnAccept, this));
}

void HttpServer::Impl::OnAccept(beast::error_code ec, Socket socket) {
  if (stopping.load() || !acceptor.is_open()) return;
  if (ec) {
    if (ec == net::error::operation_aborted) return;
    // E.g. out of file descriptors: back off instead of spinning.
    retry_timer.expires_after(std::chrono::milliseconds(50));
    retry_timer.async_wait([this](beast::error_code ec) {
      if (!ec && !stopping.load()) DoAccept();
    });
    return;
  }
  if (opts.max_connections > 0 && open_sessions.load() >= opts.max_connections) {
    Refuse(socket);
    return DoAccept();
  }
  beast::error_code ignored;
  socket.set_option(tcp::no_delay(true), ignored);
  std::shared_ptr<SessionBase> session;
  if (tls) {
    session = std::make_shared<Session<TlsStream>>(this, std::move(socket), *tls);
  } else {
    session = std::make_shared<Session<TcpStream>>(this, std::move(socket));
  }
  Register(session);
  session->Start();
  DoAccept();
}

// Over max_connections: reset at once (no FIN/TIME_WAIT dance, nothing read),
// so that the client learns now instead of waiting in the backlog. Reported on
// standard error at most every ten seconds.
void HttpServer::Impl::Refuse(Socket& socket) {
  refused.fetch_add(1, std::memory_order_relaxed);  // counted before the client can see it
  ++refused_unreported;
  beast::error_code ignored;
  socket.set_option(net::socket_base::linger(true, 0), ignored);
  socket.close(ignored);
  const auto now = std::chrono::steady_clock::now();
  if (now - limit_reported >= std::chrono::seconds(10)) {
    std::fprintf(stderr,
                 "dynarock: %zu connections open, the maximum: %llu new connection(s) "
                 "refused\n",
                 opts.max_connections, static_cast<unsigned long long>(refused_unreported));
    limit_reported = now;
    refused_unreported = 0;
  }
}

void HttpServer::Impl::Register(const std::shared_ptr<SessionBase>& s) {
  std::lock_guard<std::mutex> lock(mu);
  sessions.push_front(s);
  s->SetRegistration(sessions.begin());
  open_sessions.fetch_add(1, std::memory_order_relaxed);
}

void HttpServer::Impl::Unregister(std::list<std::weak_ptr<SessionBase>>::iterator it) {
  std::lock_guard<std::mutex> lock(mu);
  sessions.erase(it);
  open_sessions.fetch_sub(1, std::memory_order_relaxed);
  if (sessions.empty()) sessions_done.notify_all();
}

// ---- HttpServer ----------------------------------------------------------------------

HttpServer::HttpServer(Options options, ContextHandler handler)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(handler))) {}

HttpServer::HttpServer(Options options, RequestHandler handler)
    : HttpServer(std::move(options),
                 [handler = std::move(handler)](std::string_view op, std::string_view body,
                                                const RequestContext&) { return handler(op, body); }) {}

void HttpServer::SetControl(const ControlApi* control) { impl_->control = control; }

namespace {

// A Handler's fault rule with a latency sleeps on the thread that runs the
// request: unless the caller chose otherwise, requests then get threads of
// their own, so that the sleep holds up no other connection.
HttpServerOptions WithThreadsForLatency(HttpServerOptions o, api::Handler* handler) {
  if (!o.thread_per_request) {
    o.thread_per_request = [handler] {
      const std::shared_ptr<api::FaultInjector>& faults = handler->faults();
      return faults != nullptr && faults->delays();
    };
  }
  return o;
}

}  // namespace

HttpServer::HttpServer(Options options, api::Handler* handler)
    : HttpServer(WithThreadsForLatency(std::move(options), handler),
                 [handler](std::string_view op, std::string_view body,
                           const RequestContext& context) {
                   return handler->Handle(op, body, context.explain);
                 }) {}

HttpServer::~HttpServer() { Stop(); }

uint16_t HttpServer::port() const { return impl_->port; }

const HttpServer::Options& HttpServer::options() const { return impl_->opts; }

HttpServer::Stats HttpServer::stats() const {
  Stats s;
  s.connections = impl_->open_sessions.load(std::memory_order_relaxed);
  s.in_flight = impl_->in_flight.load(std::memory_order_relaxed);
  s.connections_refused = impl_->refused.load(std::memory_order_relaxed);
  s.requests_throttled = impl_->throttled.load(std::memory_order_relaxed);
  return s;
}

Status HttpServer::Bind(uint16_t* bound_port) {
  Impl& m = *impl_;
  if (m.bound) {
    if (bound_port) *bound_port = m.port;
    return Status();
  }
  if (m.stopped) return InternalError("HttpServer::Bind after Stop");
  DR_RETURN_IF_ERROR(m.LoadTls());
  beast::error_code ec;
  net::ip::address address = net::ip::make_address(m.opts.host, ec);
  if (ec) {
    tcp::resolver resolver(m.accept_ioc);
    auto results = resolver.resolve(m.opts.host, "", ec);
    if (ec || results.empty()) {
      return InternalError("cannot resolve host '" + m.opts.host + "': " + ec.message());
    }
    address = results.begin()->endpoint().address();
  }
  tcp::endpoint endpoint(address, m.opts.port);
  auto fail = [&](const char* what) {
    beast::error_code ignored;
    m.acceptor.close(ignored);
    return InternalError(std::string("cannot listen on ") + m.opts.host + ":" +
                         std::to_string(m.opts.port) + ": " + what + ": " + ec.message());
  };
  m.acceptor.open(endpoint.protocol(), ec);
  if (ec) return fail("open");
  m.acceptor.set_option(net::socket_base::reuse_address(true), ec);
  if (ec) return fail("setsockopt");
  m.acceptor.bind(endpoint, ec);
  if (ec) return fail("bind");
  m.acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec) return fail("listen");
  m.port = m.acceptor.local_endpoint(ec).port();
  m.bound = true;
  if (bound_port) *bound_port = m.port;
  return Status();
}

Status HttpServer::Start(uint16_t* bound_port) {
  Impl& m = *impl_;
  if (m.started) return InternalError("HttpServer::Start called twice");
  if (m.stopped) return InternalError("HttpServer::Start after Stop");
  DR_RETURN_IF_ERROR(Bind(bound_port));

  m.started = true;
  m.DoAccept();
  m.threads.reserve(m.thread_count + 1);
  for (int i = 0; i <= m.thread_count; ++i) {
    net::io_context& ioc = i < m.thread_count ? *m.iocs[i] : m.accept_ioc;
    m.keep_running.push_back(net::make_work_guard(ioc));  // idle contexts wait for work
    const bool serves = i < m.thread_count;
    m.threads.emplace_back([&ioc, serves] {
      // A session thread's group commit (reply_round.h); the acceptor's
      // thread handles no requests.
      std::optional<ReplyRound> round;
      if (serves) round.emplace(ioc);
      for (;;) {
        try {
          ioc.run();
          return;
        } catch (const std::exception& e) {
          std::fprintf(stderr, "dynarock: io thread: %s\n", e.what());
        } catch (...) {
          std::fprintf(stderr, "dynarock: io thread: unknown exception\n");
        }
      }
    });
  }
  return Status();
}

void HttpServer::Stop() {
  Impl& m = *impl_;
  if (m.stopped) return;
  m.stopped = true;
  if (!m.started) {  // bound at most: just stop listening
    beast::error_code ignored;
    m.acceptor.close(ignored);
    return;
  }
  m.stopping.store(true);
  net::post(m.accept_strand, [&m] {
    beast::error_code ignored;
    m.acceptor.close(ignored);
    m.retry_timer.cancel();
  });

  std::vector<std::shared_ptr<SessionBase>> live;
  {
    std::lock_guard<std::mutex> lock(m.mu);
    for (auto& w : m.sessions) {
      if (auto s = w.lock()) live.push_back(std::move(s));
    }
  }
  for (auto& s : live) s->RequestStop();
  live.clear();  // outside the lock: a last reference runs ~Session, which locks mu

  {
    std::unique_lock<std::mutex> lock(m.mu);
    m.sessions_done.wait_for(lock, std::chrono::seconds(m.opts.stop_grace_seconds),
                             [&m] { return m.sessions.empty(); });
  }
  m.keep_running.clear();
  m.accept_ioc.stop();
  for (auto& ioc : m.iocs) ioc->stop();
  for (auto& t : m.threads) {
    if (t.joinable()) t.join();
  }
  m.threads.clear();
  m.WaitApart();
}

void HttpServer::Impl::RunApart(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(apart_mu);
    ++apart_running;
  }
  auto done = [this] {
    std::lock_guard<std::mutex> lock(apart_mu);
    if (--apart_running == 0) apart_done.notify_all();
  };
  try {
    // The task (and the session it holds) ends before the count does, so
    // that nothing of it outlives Stop().
    std::thread([task, done]() mutable {
      task();
      task = nullptr;
      done();
    }).detach();
  } catch (const std::system_error&) {  // no thread to be had: run it here
    task();
    done();
  }
}

void HttpServer::Impl::WaitApart() {
  std::unique_lock<std::mutex> lock(apart_mu);
  apart_done.wait(lock, [this] { return apart_running == 0; });
}

}  // namespace dynarock::server
