// File: tools/server/http_server_state.h
//
// Internal to http_server.cc (through http_session.h): the executor and
// stream types the server uses, its shared state (HttpServer::Impl), and
// what its list of connections knows of one (SessionBase).

#ifndef DYNAROCK_TOOLS_SERVER_HTTP_SERVER_STATE_H_
#define DYNAROCK_TOOLS_SERVER_HTTP_SERVER_STATE_H_

#include "tools/server/http_server.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

namespace dynarock::server {

namespace beast = boost::beast;
namespace net = boost::asio;
using tcp = net::ip::tcp;

// Concrete executor types throughout: the type-erased any_io_executor costs a
// copy (and an allocation) of the executor on every asynchronous operation.
// A session runs on its io_context's plain executor: each context is run by
// exactly one thread, which serializes its handlers as a strand would, without
// a strand's locking and reference counting on every operation. The acceptor,
// whose context the main thread also posts to, keeps a strand.
using Strand = net::strand<net::io_context::executor_type>;
using SessionExecutor = net::io_context::executor_type;
using Socket = tcp::socket::rebind_executor<SessionExecutor>::other;
using TcpStream = beast::basic_stream<tcp, SessionExecutor>;
using TlsStream = beast::ssl_stream<TcpStream>;

class SessionBase;

struct HttpServer::Impl {
  Impl(Options o, ContextHandler h)
      : opts(std::move(o)),
        handler(std::move(h)),
        verifier(opts.auth),
        thread_count(opts.threads > 0
                         ? opts.threads
                         : std::max(1, static_cast<int>(std::thread::hardware_concurrency()))),
        iocs(MakeContexts(thread_count)),
        accept_strand(net::make_strand(accept_ioc)),
        acceptor(accept_strand),
        retry_timer(accept_strand) {
    health_body = "healthy: dynamodb." + opts.region + ".amazonaws.com ";
  }

  Status LoadTls();
  void DoAccept();
  void OnAccept(beast::error_code ec, Socket socket);
  void Refuse(Socket& socket);
  void Register(const std::shared_ptr<SessionBase>& s);
  void Unregister(std::list<std::weak_ptr<SessionBase>>::iterator it);
  // A slot for one request in flight; false (nothing taken) when all
  // max_in_flight are taken.
  bool AcquireSlot() {
    const size_t n = in_flight.fetch_add(1, std::memory_order_acq_rel);
    if (opts.max_in_flight == 0 || n < opts.max_in_flight) return true;
    in_flight.fetch_sub(1, std::memory_order_acq_rel);
    throttled.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  void ReleaseSlot() { in_flight.fetch_sub(1, std::memory_order_acq_rel); }

  static std::vector<std::unique_ptr<net::io_context>> MakeContexts(int n) {
    std::vector<std::unique_ptr<net::io_context>> out;
    for (int i = 0; i < n; ++i) out.push_back(std::make_unique<net::io_context>(1));
    return out;
  }
  net::io_context& NextContext() {
    return *iocs[next_context.fetch_add(1, std::memory_order_relaxed) % iocs.size()];
  }

  // Declared before the contexts: sessions destroyed with them unregister here.
  std::mutex mu;
  std::condition_variable sessions_done;
  std::list<std::weak_ptr<SessionBase>> sessions;
  std::atomic<size_t> open_sessions{0};
  std::atomic<size_t> in_flight{0};
  std::atomic<uint64_t> refused{0};
  std::atomic<uint64_t> throttled{0};

  Options opts;
  ContextHandler handler;
  const ControlApi* control = nullptr;
  api::SigV4Verifier verifier;
  std::string health_body;
  int thread_count;
  std::atomic<bool> stopping{false};
  bool bound = false;
  bool started = false;
  bool stopped = false;
  uint16_t port = 0;
  // With a certificate: every connection is TLS.
  std::unique_ptr<net::ssl::context> tls;
  // The accept strand's own: when the connection limit was last reported, and
  // how many connections were refused since.
  std::chrono::steady_clock::time_point limit_reported;
  uint64_t refused_unreported = 0;

  std::vector<std::unique_ptr<net::io_context>> iocs;
  net::io_context accept_ioc{1};
  std::atomic<size_t> next_context{0};
  std::vector<net::executor_work_guard<net::io_context::executor_type>> keep_running;
  Strand accept_strand;
  tcp::acceptor acceptor;
  net::steady_timer retry_timer;
  std::vector<std::thread> threads;

  // Requests run apart (Options::thread_per_request), each on a thread of its
  // own: at most max_in_flight at once, since each holds a slot. Stop() waits
  // for them after the io threads: they use the handler and post their
  // replies to their session's context.
  void RunApart(std::function<void()> task);
  void WaitApart();
  std::mutex apart_mu;
  std::condition_variable apart_done;
  size_t apart_running = 0;  // GUARDED_BY(apart_mu)
};

// What the server's list of connections knows of one: it can be told to stop.
class SessionBase {
 public:
  explicit SessionBase(HttpServer::Impl* srv) : srv_(srv) {}
  virtual ~SessionBase() {
    if (registered_) srv_->Unregister(reg_);
  }
  void SetRegistration(std::list<std::weak_ptr<SessionBase>>::iterator it) {
    reg_ = it;
    registered_ = true;
  }
  // From Stop(): close now when idle, else after the response being produced.
  virtual void RequestStop() = 0;
  virtual void Start() = 0;
  // From the io thread's ReplyRound (reply_round.h): the response held for
  // the group commit goes now; when the commit failed (`flushed`) and this
  // request wrote, an InternalServerError goes instead.
  virtual void ReleaseHeldReply(const Status& flushed) = 0;

 protected:
  HttpServer::Impl* srv_;

 private:
  std::list<std::weak_ptr<SessionBase>>::iterator reg_;
  bool registered_ = false;
};

}  // namespace dynarock::server

#endif  // DYNAROCK_TOOLS_SERVER_HTTP_SERVER_STATE_H_
