// File: tools/server/metrics.h
//
// Prometheus metrics of `dynarock serve --metrics-port N`: a small thread-safe
// registry the api::Handler observer feeds once per request, and a tiny HTTP
// listener serving it as Prometheus text format (version 0.0.4) at GET /metrics.
//
//   dynarock_requests_total{operation}                      counter
//   dynarock_errors_total{operation,type}                   counter
//   dynarock_request_duration_seconds{operation}            histogram (10 µs .. 1 s)
//   dynarock_consumed_capacity_units_total{table,kind}      counter, kind="read"|"write"
//
//   MetricsRegistry registry;
//   handler.SetObserver([&](std::string_view op, const Status& s, double secs,
//                           const std::vector<ConsumedCapacity>& cc) {
//     registry.Record(op, s, secs, cc);
//   });
//   MetricsServer metrics(&registry);
//   uint16_t port;
//   Status st = metrics.Start("127.0.0.1", 9100, &port);
//
// Cost per request: the operation's counters, error counters and histogram
// buckets are preallocated relaxed atomics (no lock, no allocation); capacity per
// table takes a shared (reader) lock on the table map, and the exclusive lock only
// the first time a table is seen. Operation names outside DynamoDB's API (which
// the handler refuses) are counted as operation="other" so that clients cannot
// grow the label set. Tables are counted by name (an ARN is reduced to its table
// name); a deleted table's counters stay, as counters must never go down.
//
// Series appear once they have a non-zero value.

#ifndef DYNAROCK_TOOLS_SERVER_METRICS_H_
#define DYNAROCK_TOOLS_SERVER_METRICS_H_

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "dynarock/requests.h"
#include "dynarock/status.h"

namespace dynarock::server {

class MetricsRegistry {
 public:
  // Upper bounds (seconds) of the latency histogram's buckets, +Inf excluded.
  static constexpr std::array<double, 16> kBucketBounds = {
      0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025,
      0.005,   0.01,     0.025,   0.05,   0.1,     0.25,    0.5,    1.0};

  MetricsRegistry();
  ~MetricsRegistry();
  MetricsRegistry(const MetricsRegistry&) = delete;
  MetricsRegistry& operator=(const MetricsRegistry&) = delete;

  // One handled request: its operation name, outcome, duration and the capacity
  // it consumed (one entry per table). Thread-safe, wait-free except for the
  // first request naming a new table.
  void Record(std::string_view operation, const Status& status, double seconds,
              const std::vector<ConsumedCapacity>& consumed);

  // The whole registry in Prometheus text format 0.0.4 (ends with '\n').
  std::string Render() const;

  // The same as JSON, for the console's charts: {"uptime_seconds", "requests",
  // "errors", "operations": {op: {"requests", "errors", "seconds_sum",
  // "latency_buckets": [{"le": seconds or "+Inf", "count": requests that took
  // at most le}]}}, "capacity": {table: {"read", "write"}}}; all counters
  // since the start.
  std::string RenderJson() const;

  // The Content-Type of Render()'s output.
  static constexpr std::string_view kContentType = "text/plain; version=0.0.4; charset=utf-8";

  // The label a (possibly client-supplied) operation name is counted under.
  static std::string_view OperationLabel(std::string_view operation);

 private:
  struct OpStats;
  struct TableStats {
    std::atomic<double> read{0};
    std::atomic<double> write{0};
  };
  TableStats* Table(std::string_view name);

  std::unique_ptr<OpStats[]> ops_;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  mutable std::shared_mutex tables_mu_;
  std::map<std::string, std::unique_ptr<TableStats>, std::less<>> tables_;  // GUARDED_BY(tables_mu_)
};

// Serves GET /metrics (and GET / with a pointer to it) over HTTP/1.x on its own
// port, one connection at a time, each closed after the reply. Anything else gets
// 404 (unknown path) or 405 (another method).
class MetricsServer {
 public:
  explicit MetricsServer(const MetricsRegistry* registry);
  ~MetricsServer();  // Stop()s
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  // Binds host:port (port 0 picks a free one, written to *bound_port) and starts
  // the serving thread.
  Status Start(const std::string& host, uint16_t port, uint16_t* bound_port = nullptr);
  // Stops serving and joins the thread. Idempotent.
  void Stop();

 private:
  void Loop();
  void Serve(int fd);

  const MetricsRegistry* registry_;
  int listen_fd_ = -1;
  int wake_pipe_[2] = {-1, -1};
  std::thread thread_;
};

}  // namespace dynarock::server

#endif  // DYNAROCK_TOOLS_SERVER_METRICS_H_
