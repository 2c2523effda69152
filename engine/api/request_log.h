// File: engine/api/request_log.h
//
// The request log: one JSON line per request that went through api::Handler
// (Handler::SetRequestLog), for `dynarock report` and for reading by hand.
//
//   {"time":"2026-11-27T09:00:01.123Z","operation":"Query","table":"orders",
//    "index":"by-date","partition_key":"user#1","key":{"pk":{"S":"user#1"}},
//    "status":200,"error":"ProvisionedThroughputExceededException",
//    "latency_ms":0.42,"items_scanned":100,"items_returned":3,"page_end":"limit",
//    "filtered":true,"items":25,"item_bytes":1024,"tables":["a","b"],
//    "consumed":[{"table":"orders","units":2,"read":2,"write":0,
//                 "indexes":{"by-date":1}}],
//    "faults":["throttle"],"drop":"after_apply","conflict":true,
//    "body_hash":"9c1185a5c5e9fc54"}
//
// Members that do not apply are left out: "index" without IndexName, "key" and
// "partition_key" unless the request names one item (GetItem, PutItem,
// UpdateItem, DeleteItem; "partition_key" also for the first item of a batch or
// transaction), "items_*"/"page_end" except for Query and Scan (page_end:
// "limit" when Limit ended the page, "1MB" when the page size did, "end" when
// nothing is left), "filtered" unless a filter was given, "items" except for
// batches and transactions (how many requests they hold), "item_bytes" except
// for PutItem (the item's DynamoDB size) and GetItem (the size read), "error"
// for a success, "faults" when no fault rule fired, "drop" when the connection
// was kept, "conflict" unless a transaction conflict was replied. "consumed" is
// what DynamoDB bills (also for a failed condition or a cancelled transaction),
// by table and index. "body_hash" (FNV-1a 64 of operation and body) lets a
// reader see an SDK's retry of the same request.
//
// Writing costs a request one append to a buffer under a mutex; a thread writes
// the buffer out every second (or sooner past 64 KiB), and at Flush() and
// destruction. Thread-safe.

#ifndef DYNAROCK_API_REQUEST_LOG_H_
#define DYNAROCK_API_REQUEST_LOG_H_

#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "dynarock/requests.h"
#include "dynarock/status.h"

namespace dynarock::api {

// What the Handler learns of one request for its log line (the rest comes
// from the observer's record: status, seconds, consumed capacity).
struct RequestFacts {
  std::string table;
  std::vector<std::string> tables;  // batches and transactions: every table
  std::string index;
  std::string partition_key;
  std::string key_json;
  int64_t items_scanned = -1;
  int64_t items_returned = -1;
  std::string_view page_end;
  bool filtered = false;
  int64_t items = -1;
  int64_t item_bytes = -1;
  std::vector<std::string> faults;
  std::string_view drop;  // "before_apply", "after_apply" or empty
};

// One line (without the newline).
std::string FormatRequestLogLine(std::string_view operation, std::string_view body,
                                 const RequestFacts& facts, const Status& status,
                                 double seconds, const std::vector<ConsumedCapacity>& consumed);

class RequestLog {
 public:
  // Opens (creates, or appends to) `path`. An error names the path.
  static StatusOr<std::unique_ptr<RequestLog>> Open(const std::string& path);
  ~RequestLog();  // Flush()es and closes
  RequestLog(const RequestLog&) = delete;
  RequestLog& operator=(const RequestLog&) = delete;

  // Queues `line` and a newline.
  void Append(std::string_view line);
  // Writes out everything queued so far.
  void Flush();

 private:
  explicit RequestLog(std::FILE* file);
  void Run();

  std::FILE* file_;
  std::mutex write_mu_;  // held while writing to file_ (Flush from two threads)
  std::mutex mu_;
  std::condition_variable cv_;
  std::string buffer_;  // GUARDED_BY(mu_)
  bool stop_ = false;   // GUARDED_BY(mu_)
  std::thread flusher_;
};

}  // namespace dynarock::api

#endif  // DYNAROCK_API_REQUEST_LOG_H_
