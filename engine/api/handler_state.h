// File: engine/api/handler_state.h
//
// What the API handler's files share: the handler's state (its database and
// hooks), the call in progress on this thread (what the observer and the
// request log are told), and the operations' table. Internal to the handler
// (handler.cc; request_pipeline.h, the path a decoded request takes;
// handler_operations.cc, the operations).

#ifndef DYNAROCK_ENGINE_API_HANDLER_STATE_H_
#define DYNAROCK_ENGINE_API_HANDLER_STATE_H_

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "engine/api/capacity_limits.h"
#include "engine/api/contributor_insights.h"
#include "engine/api/faults.h"
#include "engine/api/handler.h"
#include "engine/api/kinesis_sink.h"
#include "engine/api/request_facts.h"
#include "engine/api/request_log.h"
#include "engine/transfer/transfers.h"

namespace dynarock::api {
namespace internal {

struct HandlerState {
  DB* db = nullptr;
  std::string endpoint_address = "localhost:8000";
  Handler::Observer observer;
  std::shared_ptr<FaultInjector> faults;
  std::shared_ptr<RequestLog> request_log;
  std::shared_ptr<CapacityLimits> limits;  // null: capacity is not enforced
  ContributorCounter insights;             // Contributor Insights' keys
  KeyNamesCache key_names;  // for fault rules' key_prefix and the request log
  std::string s3_root;
  std::string arn_prefix = "arn:aws:dynamodb:us-east-1:000000000000:";  // SetResourceArnPrefix
  // The export and import jobs, made at the first such request.
  std::mutex transfers_mu;
  std::unique_ptr<transfer::Transfers> transfers;  // GUARDED_BY(transfers_mu) to create
  std::string kinesis_dir;                    // SetKinesisSink
  Handler::GlobalTableHooks global_tables;    // SetGlobalTableHooks
  std::unique_ptr<KinesisSink> kinesis_sink;  // GUARDED_BY(transfers_mu)

  transfer::Transfers& Transfers() {
    std::lock_guard<std::mutex> lock(transfers_mu);
    if (!transfers) transfers = std::make_unique<transfer::Transfers>(db, s3_root);
    return *transfers;
  }
};

}  // namespace internal

namespace pipeline {

using internal::HandlerState;

// An operation of the API: the request's body in, the reply out.
using OperationFn = ApiReply (*)(HandlerState&, std::string_view);

// The operation called `name` (null: none), from the table in
// handler_operations.cc.
OperationFn LookupOperation(std::string_view name);

// Whether `fn` decodes its request into a struct (and so meets the fault
// rules in Execute); the others meet them by operation name alone.
bool IsTypedOperation(OperationFn fn);

// A reply of `body`, HTTP 200.
ApiReply Ok(std::string body);

// What the observer is told about the call in progress on this thread (set by
// Handle() only while an observer is installed).
struct CallRecord {
  Status status;
  std::vector<ConsumedCapacity> consumed;
  bool want_facts = false;  // a request log is set, or the caller asked to explain
  RequestFacts facts;
};
// (constinit: read from other files without a call to an initialising wrapper.)
extern constinit thread_local CallRecord* t_call;
// The operation Handle() is running on this thread (for fault matching).
extern constinit thread_local std::string_view t_operation;
// The caller whose request is being handled (Handle with a principal), for
// resource-based policies; empty: none.
extern constinit thread_local std::string_view t_principal;

// The reply of a fault rule that drops the connection `when` ("before" or
// "after") the request was applied.
ApiReply DroppedReply(std::string_view when, const std::string& rule);

// A fault rule's latency: `ms`, at most kFaultLatencyMsMax.
void Sleep(int64_t ms);

}  // namespace pipeline
}  // namespace dynarock::api

#endif  // DYNAROCK_ENGINE_API_HANDLER_STATE_H_
