// File: engine/api/request_log.cc

#include "engine/api/request_log.h"

#include <cerrno>
#include <cmath>
#include <chrono>
#include <cstring>
#include <ctime>

#include "engine/api/json_writer.h"
#include "engine/time_text.h"

namespace dynarock::api {
namespace {

constexpr size_t kFlushAtBytes = 64 * 1024;

uint64_t Fnv1a(std::string_view a, std::string_view b) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (std::string_view part : {a, std::string_view("\n", 1), b}) {
    for (unsigned char c : part) {
      h ^= c;
      h *= 0x100000001b3ULL;
    }
  }
  return h;
}

std::string NowUtc() {
  return Iso8601Millis(std::chrono::duration_cast<std::chrono::milliseconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count());
}

// With INDEXES (what the Handler asks for the log) DynamoDB gives units only;
// the operation says whether they are read or write units.
bool IsReadOperation(std::string_view op) {
  return op == "GetItem" || op == "Query" || op == "Scan" || op == "BatchGetItem" ||
         op == "TransactGetItems";
}
bool IsWriteOperation(std::string_view op) {
  return op == "PutItem" || op == "UpdateItem" || op == "DeleteItem" || op == "BatchWriteItem" ||
         op == "TransactWriteItems";
}

void WriteCapacity(JsonWriter* w, std::string_view op, const ConsumedCapacity& c) {
  w->BeginObject();
  w->Member("table", c.table_name);
  w->MemberDouble("units", c.capacity_units);
  double read = c.read_capacity_units.value_or(0), write = c.write_capacity_units.value_or(0);
  if (!c.read_capacity_units && !c.write_capacity_units) {
    if (IsReadOperation(op)) read = c.capacity_units;
    if (IsWriteOperation(op)) write = c.capacity_units;
  }
  w->MemberDouble("read", read);
  w->MemberDouble("write", write);
  if (c.table) w->MemberDouble("table_units", c.table->capacity_units);
  if (!c.global_secondary_indexes.empty() || !c.local_secondary_indexes.empty()) {
    w->Key("indexes");
    w->BeginObject();
    for (const auto* m : {&c.global_secondary_indexes, &c.local_secondary_indexes}) {
      for (const auto& [name, cap] : *m) w->MemberDouble(name, cap.capacity_units);
    }
    w->EndObject();
  }
  w->EndObject();
}

}  // namespace

std::string FormatRequestLogLine(std::string_view operation, std::string_view body,
                                 const RequestFacts& f, const Status& status, double seconds,
                                 const std::vector<ConsumedCapacity>& consumed) {
  JsonWriter w;
  w.Reserve(256);
  w.BeginObject();
  w.Member("time", NowUtc());
  w.Member("operation", operation);
  if (!f.table.empty()) w.Member("table", f.table);
  if (f.tables.size() > 1) {
    w.Key("tables");
    w.BeginArray();
    for (const std::string& t : f.tables) w.String(t);
    w.EndArray();
  }
  if (!f.index.empty()) w.Member("index", f.index);
  if (!f.partition_key.empty()) w.Member("partition_key", f.partition_key);
  if (!f.key_json.empty()) {
    w.Key("key");
    w.Raw(f.key_json);
  }
  w.MemberInt("status", ErrorHttpStatus(status.type()));
  if (!status.ok()) w.Member("error", ErrorTypeName(status.type()));
  w.MemberDouble("latency_ms", std::round(seconds * 1e6) / 1e3);
  if (f.items_scanned >= 0) w.MemberInt("items_scanned", f.items_scanned);
  if (f.items_returned >= 0) w.MemberInt("items_returned", f.items_returned);
  if (!f.page_end.empty()) w.Member("page_end", f.page_end);
  if (f.filtered) w.MemberBool("filtered", true);
  if (f.items >= 0) w.MemberInt("items", f.items);
  if (f.item_bytes >= 0) w.MemberInt("item_bytes", f.item_bytes);
  w.Key("consumed");
  w.BeginArray();
  for (const ConsumedCapacity& c : consumed) WriteCapacity(&w, operation, c);
  w.EndArray();
  if (!f.faults.empty()) {
    w.Key("faults");
    w.BeginArray();
    for (const std::string& name : f.faults) w.String(name);
    w.EndArray();
  }
  if (!f.drop.empty()) w.Member("drop", f.drop);
  bool conflict = status.type() == ErrorType::kTransactionConflict;
  for (const CancellationReason& r : status.cancellation_reasons()) {
    conflict = conflict || r.code == "TransactionConflict";
  }
  if (conflict) w.MemberBool("conflict", true);
  char hash[24];
  std::snprintf(hash, sizeof hash, "%016llx",
                static_cast<unsigned long long>(Fnv1a(operation, body)));
  w.Member("body_hash", hash);
  w.EndObject();
  return w.Release();
}

StatusOr<std::unique_ptr<RequestLog>> RequestLog::Open(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "ae");
  if (f == nullptr) {
    return InternalError("cannot open the request log '" + path + "': " + std::strerror(errno));
  }
  return std::unique_ptr<RequestLog>(new RequestLog(f));
}

RequestLog::RequestLog(std::FILE* file) : file_(file) {
  flusher_ = std::thread([this] { Run(); });
}

RequestLog::~RequestLog() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  flusher_.join();
  Flush();
  std::fclose(file_);
}

void RequestLog::Append(std::string_view line) {
  bool wake = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    buffer_.append(line);
    buffer_.push_back('\n');
    wake = buffer_.size() >= kFlushAtBytes;
  }
  if (wake) cv_.notify_one();
}

void RequestLog::Flush() {
  // write_mu_ first: lines leave in the order they were queued.
  std::lock_guard<std::mutex> write_lock(write_mu_);
  std::string out;
  {
    std::lock_guard<std::mutex> lock(mu_);
    out.swap(buffer_);
  }
  if (out.empty()) return;
  std::fwrite(out.data(), 1, out.size(), file_);
  std::fflush(file_);
}

void RequestLog::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    cv_.wait_for(lock, std::chrono::seconds(1),
                 [this] { return stop_ || buffer_.size() >= kFlushAtBytes; });
    if (stop_) break;
    lock.unlock();
    Flush();
    lock.lock();
  }
}

}  // namespace dynarock::api
