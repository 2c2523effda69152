#include "tools/server/metrics.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <mutex>

#include "engine/api/json_writer.h"

namespace dynarock::server {
namespace {

// DynamoDB's operations as api::Handler serves them, sorted; anything else is
// counted as "other" (the last slot).
constexpr std::string_view kOperations[] = {
    "BatchGetItem",      "BatchWriteItem",     "CreateTable",
    "DeleteItem",        "DeleteTable",        "DescribeContinuousBackups",
    "DescribeEndpoints", "DescribeLimits",     "DescribeTable",
    "DescribeTimeToLive", "GetItem",           "ListTables",
    "ListTagsOfResource", "PutItem",           "Query",
    "Scan",              "TagResource",        "TransactGetItems",
    "TransactWriteItems", "UntagResource",     "UpdateItem",
    "UpdateTable",       "UpdateTimeToLive",
};
constexpr size_t kKnownOps = std::size(kOperations);
constexpr size_t kOpSlots = kKnownOps + 1;
constexpr std::string_view kOtherOp = "other";

constexpr bool OperationsSorted() {
  for (size_t i = 1; i < kKnownOps; ++i) {
    if (!(kOperations[i - 1] < kOperations[i])) return false;
  }
  return true;
}
static_assert(OperationsSorted(), "kOperations must be sorted");

// Operations that read (their capacity is read capacity when a ConsumedCapacity
// does not split it into ReadCapacityUnits / WriteCapacityUnits).
bool IsReadOperation(std::string_view op) {
  return op == "GetItem" || op == "Query" || op == "Scan" || op == "BatchGetItem" ||
         op == "TransactGetItems";
}

size_t OpSlot(std::string_view op) {
  auto it = std::lower_bound(std::begin(kOperations), std::end(kOperations), op);
  if (it == std::end(kOperations) || *it != op) return kKnownOps;
  return static_cast<size_t>(it - std::begin(kOperations));
}

std::string_view OpName(size_t slot) { return slot < kKnownOps ? kOperations[slot] : kOtherOp; }

constexpr size_t kErrorSlots = 64;  // > every ErrorType value
constexpr size_t kBuckets = MetricsRegistry::kBucketBounds.size();

void AppendDouble(std::string* out, double v) {
  if (std::isinf(v)) {
    out->append(v > 0 ? "+Inf" : "-Inf");
    return;
  }
  if (std::isnan(v)) {
    out->append("NaN");
    return;
  }
  // Shortest round-trip text, in exponent form only for very small or large
  // magnitudes (as Go's strconv 'g' -1, which Prometheus itself uses).
  const double mag = std::fabs(v);
  const bool exponent = mag != 0 && (mag < 1e-4 || mag >= 1e21);
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), v,
                         exponent ? std::chars_format::scientific : std::chars_format::fixed);
  out->append(buf, r.ptr);
}

// A bucket bound in plain decimal ("0.000025", "1").
void AppendBound(std::string* out, double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::fixed);
  out->append(buf, r.ptr);
}

void AppendUint(std::string* out, uint64_t v) {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, r.ptr);
}

// A label value, escaped as the text format requires (\\, \", \n).
void AppendLabelValue(std::string* out, std::string_view v) {
  out->push_back('"');
  for (char c : v) {
    if (c == '\\') {
      out->append("\\\\");
    } else if (c == '"') {
      out->append("\\\"");
    } else if (c == '\n') {
      out->append("\\n");
    } else {
      out->push_back(c);
    }
  }
  out->push_back('"');
}

void AppendHeader(std::string* out, std::string_view name, std::string_view type,
                  std::string_view help) {
  out->append("# HELP ").append(name).append(" ").append(help).append("\n");
  out->append("# TYPE ").append(name).append(" ").append(type).append("\n");
}

// "arn:aws:dynamodb:us-east-1:000000000000:table/people[/index/...]" -> "people".
std::string_view TableNameOf(std::string_view name) {
  constexpr std::string_view kTable = ":table/";
  if (name.substr(0, 4) != "arn:") return name;
  size_t pos = name.find(kTable);
  if (pos == std::string_view::npos) return name;
  std::string_view rest = name.substr(pos + kTable.size());
  return rest.substr(0, rest.find('/'));
}

void AddRelaxed(std::atomic<double>& a, double v) {
  double cur = a.load(std::memory_order_relaxed);
  while (!a.compare_exchange_weak(cur, cur + v, std::memory_order_relaxed)) {
  }
}

}  // namespace

// One cache line apart per operation, so that threads serving different
// operations do not contend.
struct alignas(64) MetricsRegistry::OpStats {
  std::atomic<uint64_t> requests{0};
  std::atomic<uint64_t> sum_ns{0};
  std::atomic<uint64_t> buckets[kBuckets + 1] = {};  // not cumulative; last: > 1 s
  std::atomic<uint64_t> errors[kErrorSlots] = {};
};

MetricsRegistry::MetricsRegistry() : ops_(new OpStats[kOpSlots]) {}
MetricsRegistry::~MetricsRegistry() = default;

std::string_view MetricsRegistry::OperationLabel(std::string_view operation) {
  return OpName(OpSlot(operation));
}

MetricsRegistry::TableStats* MetricsRegistry::Table(std::string_view name) {
  {
    std::shared_lock<std::shared_mutex> lock(tables_mu_);
    auto it = tables_.find(name);
    if (it != tables_.end()) return it->second.get();
  }
  std::unique_lock<std::shared_mutex> lock(tables_mu_);
  auto& slot = tables_[std::string(name)];
  if (!slot) slot = std::make_unique<TableStats>();
  return slot.get();
}

void MetricsRegistry::Record(std::string_view operation, const Status& status, double seconds,
                             const std::vector<ConsumedCapacity>& consumed) {
  const size_t slot = OpSlot(operation);
  OpStats& op = ops_[slot];
  op.requests.fetch_add(1, std::memory_order_relaxed);
  if (!status.ok()) {
    size_t t = static_cast<size_t>(status.type());
    if (t < kErrorSlots) op.errors[t].fetch_add(1, std::memory_order_relaxed);
  }
  if (!(seconds >= 0)) seconds = 0;  // also NaN
  size_t b = 0;
  while (b < kBuckets && seconds > kBucketBounds[b]) ++b;
  op.buckets[b].fetch_add(1, std::memory_order_relaxed);
  op.sum_ns.fetch_add(static_cast<uint64_t>(std::llround(std::min(seconds, 1e9) * 1e9)),
                      std::memory_order_relaxed);

  const bool read_op = IsReadOperation(OpName(slot));
  for (const ConsumedCapacity& c : consumed) {
    if (c.table_name.empty()) continue;
    double read = 0, write = 0;
    if (c.read_capacity_units || c.write_capacity_units) {
      read = c.read_capacity_units.value_or(0);
      write = c.write_capacity_units.value_or(0);
    } else {
      (read_op ? read : write) = c.capacity_units;
    }
    if (read == 0 && write == 0) continue;
    TableStats* t = Table(TableNameOf(c.table_name));
    if (read != 0) AddRelaxed(t->read, read);
    if (write != 0) AddRelaxed(t->write, write);
  }
}

std::string MetricsRegistry::Render() const {
  std::string out;
  out.reserve(4096);

  AppendHeader(&out, "dynarock_requests_total", "counter",
               "DynamoDB API requests handled, by operation.");
  for (size_t i = 0; i < kOpSlots; ++i) {
    uint64_t n = ops_[i].requests.load(std::memory_order_relaxed);
    if (n == 0) continue;
    out.append("dynarock_requests_total{operation=");
    AppendLabelValue(&out, OpName(i));
    out.append("} ");
    AppendUint(&out, n);
    out.push_back('\n');
  }

  AppendHeader(&out, "dynarock_errors_total", "counter",
               "DynamoDB API requests that failed, by operation and error type.");
  for (size_t i = 0; i < kOpSlots; ++i) {
    for (size_t t = 1; t < kErrorSlots; ++t) {
      uint64_t n = ops_[i].errors[t].load(std::memory_order_relaxed);
      if (n == 0) continue;
      out.append("dynarock_errors_total{operation=");
      AppendLabelValue(&out, OpName(i));
      out.append(",type=");
      AppendLabelValue(&out, ErrorTypeName(static_cast<ErrorType>(t)));
      out.append("} ");
      AppendUint(&out, n);
      out.push_back('\n');
    }
  }

  AppendHeader(&out, "dynarock_request_duration_seconds", "histogram",
               "Time to handle a DynamoDB API request (decode, execute, encode), by operation.");
  for (size_t i = 0; i < kOpSlots; ++i) {
    uint64_t counts[kBuckets + 1];
    uint64_t total = 0;
    for (size_t b = 0; b <= kBuckets; ++b) {
      counts[b] = ops_[i].buckets[b].load(std::memory_order_relaxed);
      total += counts[b];
    }
    if (total == 0) continue;
    uint64_t cumulative = 0;
    for (size_t b = 0; b <= kBuckets; ++b) {
      cumulative += counts[b];
      out.append("dynarock_request_duration_seconds_bucket{operation=");
      AppendLabelValue(&out, OpName(i));
      out.append(",le=\"");
      if (b < kBuckets) {
        AppendBound(&out, kBucketBounds[b]);
      } else {
        out.append("+Inf");
      }
      out.append("\"} ");
      AppendUint(&out, cumulative);
      out.push_back('\n');
    }
    out.append("dynarock_request_duration_seconds_sum{operation=");
    AppendLabelValue(&out, OpName(i));
    out.append("} ");
    AppendDouble(&out, static_cast<double>(ops_[i].sum_ns.load(std::memory_order_relaxed)) / 1e9);
    out.push_back('\n');
    out.append("dynarock_request_duration_seconds_count{operation=");
    AppendLabelValue(&out, OpName(i));
    out.append("} ");
    AppendUint(&out, total);
    out.push_back('\n');
  }

  AppendHeader(&out, "dynarock_consumed_capacity_units_total", "counter",
               "Capacity units consumed as DynamoDB bills them, by table and kind (read or write).");
  {
    std::shared_lock<std::shared_mutex> lock(tables_mu_);
    for (const auto& [name, t] : tables_) {
      const double values[2] = {t->read.load(std::memory_order_relaxed),
                                t->write.load(std::memory_order_relaxed)};
      const char* kinds[2] = {"read", "write"};
      for (int k = 0; k < 2; ++k) {
        if (values[k] == 0) continue;
        out.append("dynarock_consumed_capacity_units_total{table=");
        AppendLabelValue(&out, name);
        out.append(",kind=\"").append(kinds[k]).append("\"} ");
        AppendDouble(&out, values[k]);
        out.push_back('\n');
      }
    }
  }
  return out;
}

std::string MetricsRegistry::RenderJson() const {
  api::JsonWriter w;
  w.BeginObject();
  const std::chrono::duration<double> up = std::chrono::steady_clock::now() - started_;
  w.MemberDouble("uptime_seconds", up.count());
  uint64_t requests = 0;
  uint64_t errors = 0;
  w.Key("operations");
  w.BeginObject();
  for (size_t i = 0; i < kOpSlots; ++i) {
    const uint64_t n = ops_[i].requests.load(std::memory_order_relaxed);
    if (n == 0) continue;
    uint64_t op_errors = 0;
    for (size_t t = 1; t < kErrorSlots; ++t) op_errors += ops_[i].errors[t].load(std::memory_order_relaxed);
    requests += n;
    errors += op_errors;
    w.Key(OpName(i));
    w.BeginObject();
    w.MemberInt("requests", static_cast<int64_t>(n));
    w.MemberInt("errors", static_cast<int64_t>(op_errors));
    w.MemberDouble("seconds_sum",
                   static_cast<double>(ops_[i].sum_ns.load(std::memory_order_relaxed)) / 1e9);
    // Prometheus' shape: each bucket counts the requests that took at most `le`.
    w.Key("latency_buckets");
    w.BeginArray();
    uint64_t cumulative = 0;
    for (size_t b = 0; b <= kBuckets; ++b) {
      cumulative += ops_[i].buckets[b].load(std::memory_order_relaxed);
      w.BeginObject();
      if (b < kBuckets) {
        w.MemberDouble("le", kBucketBounds[b]);
      } else {
        w.Member("le", "+Inf");
      }
      w.MemberInt("count", static_cast<int64_t>(cumulative));
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndObject();
  w.MemberInt("requests", static_cast<int64_t>(requests));
  w.MemberInt("errors", static_cast<int64_t>(errors));
  w.Key("capacity");
  w.BeginObject();
  {
    std::shared_lock<std::shared_mutex> lock(tables_mu_);
    for (const auto& [name, t] : tables_) {
      w.Key(name);
      w.BeginObject();
      w.MemberDouble("read", t->read.load(std::memory_order_relaxed));
      w.MemberDouble("write", t->write.load(std::memory_order_relaxed));
      w.EndObject();
    }
  }
  w.EndObject();
  w.EndObject();
  return w.Release();
}

// ---------------------------------------------------------------- MetricsServer

namespace {

bool WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

std::string HttpReply(int code, std::string_view reason, std::string_view content_type,
                      std::string_view body, bool head) {
  std::string r = "HTTP/1.1 " + std::to_string(code) + " " + std::string(reason) + "\r\n";
  r += "Content-Type: " + std::string(content_type) + "\r\n";
  r += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  if (code == 405) r += "Allow: GET, HEAD\r\n";
  r += "Connection: close\r\n\r\n";
  if (!head) r.append(body);
  return r;
}

}  // namespace

MetricsServer::MetricsServer(const MetricsRegistry* registry) : registry_(registry) {}

MetricsServer::~MetricsServer() { Stop(); }

Status MetricsServer::Start(const std::string& host, uint16_t port, uint16_t* bound_port) {
  if (listen_fd_ >= 0) return InternalError("metrics server already started");
  std::string h = host;
  if (h.size() >= 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* res = nullptr;
  std::string port_text = std::to_string(port);
  int rc = ::getaddrinfo(h.empty() ? nullptr : h.c_str(), port_text.c_str(), &hints, &res);
  if (rc != 0) {
    return InternalError("metrics: cannot resolve '" + host + "': " + gai_strerror(rc));
  }
  std::string last_error = "no address";
  int fd = -1;
  for (addrinfo* ai = res; ai != nullptr; ai = ai->ai_next) {
    fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
      last_error = std::strerror(errno);
      continue;
    }
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (::bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && ::listen(fd, 16) == 0) break;
    last_error = std::strerror(errno);
    ::close(fd);
    fd = -1;
  }
  ::freeaddrinfo(res);
  if (fd < 0) {
    return InternalError("metrics: cannot listen on " + host + ":" + port_text + ": " +
                         last_error);
  }
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  uint16_t actual = port;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    if (addr.ss_family == AF_INET) {
      actual = ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
    } else if (addr.ss_family == AF_INET6) {
      actual = ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port);
    }
  }
  if (::pipe2(wake_pipe_, O_CLOEXEC) != 0) {
    ::close(fd);
    return InternalError(std::string("metrics: pipe: ") + std::strerror(errno));
  }
  listen_fd_ = fd;
  if (bound_port != nullptr) *bound_port = actual;
  thread_ = std::thread([this] { Loop(); });
  return Status::Ok();
}

void MetricsServer::Stop() {
  if (listen_fd_ < 0) return;
  char c = 'x';
  while (::write(wake_pipe_[1], &c, 1) < 0 && errno == EINTR) {
  }
  if (thread_.joinable()) thread_.join();
  ::close(listen_fd_);
  ::close(wake_pipe_[0]);
  ::close(wake_pipe_[1]);
  listen_fd_ = -1;
  wake_pipe_[0] = wake_pipe_[1] = -1;
}

void MetricsServer::Loop() {
  for (;;) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_pipe_[0], POLLIN, 0}};
    int n = ::poll(fds, 2, -1);
    if (n < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents != 0) return;
    if ((fds[0].revents & POLLIN) == 0) continue;
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    Serve(fd);
    ::close(fd);
  }
}

void MetricsServer::Serve(int fd) {
  // A scrape is one small request: give it two seconds to arrive and be
  // answered. Two seconds in all, not per read: one connection at a time is
  // served, and a client trickling a byte a second must not hold the rest.
  timeval tv{2, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  std::string req;
  char buf[2048];
  while (req.find("\r\n\r\n") == std::string::npos && req.find("\n\n") == std::string::npos) {
    const auto left = std::chrono::duration_cast<std::chrono::microseconds>(
        deadline - std::chrono::steady_clock::now());
    if (req.size() > 16384 || left.count() <= 0) return;
    timeval rest{static_cast<time_t>(left.count() / 1000000),
                 static_cast<suseconds_t>(left.count() % 1000000)};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &rest, sizeof(rest));
    ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    req.append(buf, static_cast<size_t>(n));
  }
  // "GET /metrics HTTP/1.1"
  std::string_view line(req);
  line = line.substr(0, line.find_first_of("\r\n"));
  size_t sp1 = line.find(' ');
  size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp1 == std::string_view::npos || sp2 == std::string_view::npos) {
    WriteAll(fd, HttpReply(400, "Bad Request", "text/plain", "bad request\n", false));
    return;
  }
  std::string_view method = line.substr(0, sp1);
  std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  target = target.substr(0, target.find('?'));
  const bool head = method == "HEAD";
  if (method != "GET" && !head) {
    WriteAll(fd, HttpReply(405, "Method Not Allowed", "text/plain", "method not allowed\n", false));
  } else if (target == "/metrics") {
    WriteAll(fd, HttpReply(200, "OK", MetricsRegistry::kContentType, registry_->Render(), head));
  } else if (target == "/") {
    WriteAll(fd, HttpReply(200, "OK", "text/plain",
                           "dynarock metrics: GET /metrics (Prometheus text format 0.0.4)\n", head));
  } else {
    WriteAll(fd, HttpReply(404, "Not Found", "text/plain", "not found; try /metrics\n", head));
  }
  ::shutdown(fd, SHUT_WR);
}

}  // namespace dynarock::server
