// File: engine/api/handler.cc
//
// Handler (handler.h): its settings, and Handle, which finds the operation
// (handler_operations.cc), tells the observer and the request log about the
// call, and turns anything thrown into an InternalServerError.

#include "engine/api/handler.h"

#include <chrono>
#include <exception>
#include <mutex>
#include <utility>

#include "engine/api/handler_state.h"
#include "engine/api/json_encode.h"

namespace dynarock::api {

using namespace pipeline;

Handler::Handler(DB* db) : state_(std::make_unique<internal::HandlerState>()) { state_->db = db; }

Handler::~Handler() = default;

void Handler::SetDatabase(DB* db) {
  // Running exports and imports stop before their database goes.
  std::unique_ptr<transfer::Transfers> old;
  std::unique_ptr<KinesisSink> old_sink;
  {
    std::lock_guard<std::mutex> lock(state_->transfers_mu);
    old = std::move(state_->transfers);
    old_sink = std::move(state_->kinesis_sink);
    state_->db = db;
    if (db != nullptr && !state_->kinesis_dir.empty()) {
      state_->kinesis_sink = std::make_unique<KinesisSink>(db, state_->kinesis_dir);
    }
  }
}

void Handler::SetGlobalTableHooks(GlobalTableHooks hooks) { state_->global_tables = std::move(hooks); }

void Handler::SetKinesisSink(std::string dir) {
  std::lock_guard<std::mutex> lock(state_->transfers_mu);
  state_->kinesis_dir = std::move(dir);
  state_->kinesis_sink.reset();
  if (state_->db != nullptr && !state_->kinesis_dir.empty()) {
    state_->kinesis_sink = std::make_unique<KinesisSink>(state_->db, state_->kinesis_dir);
  }
}

void Handler::SetS3Root(std::string dir) { state_->s3_root = std::move(dir); }

void Handler::SetEndpointAddress(std::string address) {
  state_->endpoint_address = std::move(address);
}

void Handler::SetObserver(Observer observer) { state_->observer = std::move(observer); }

void Handler::SetFaults(std::shared_ptr<FaultInjector> faults) { state_->faults = std::move(faults); }

const std::shared_ptr<FaultInjector>& Handler::faults() const { return state_->faults; }

void Handler::SetCapacityLimits(std::shared_ptr<CapacityLimits> limits) {
  state_->limits = std::move(limits);
}

const std::shared_ptr<CapacityLimits>& Handler::capacity_limits() const { return state_->limits; }

void Handler::SetRequestLog(std::shared_ptr<RequestLog> log) {
  state_->request_log = std::move(log);
}

ApiReply Handler::Handle(std::string_view operation, std::string_view body) {
  return Handle(operation, body, /*explain=*/false);
}

ApiReply Handler::Handle(std::string_view operation, std::string_view body, bool explain,
                         std::string_view principal) {
  std::string_view outer = t_principal;
  t_principal = principal;
  ApiReply reply = Handle(operation, body, explain);
  t_principal = outer;
  return reply;
}

void Handler::SetResourceArnPrefix(std::string prefix) { state_->arn_prefix = std::move(prefix); }

ApiReply Handler::Handle(std::string_view operation, std::string_view body, bool explain) {
  std::string_view outer_operation = t_operation;
  t_operation = operation;
  if (!state_->observer && !state_->request_log && !explain) {
    ApiReply reply = HandleOperation(operation, body);
    t_operation = outer_operation;
    return reply;
  }
  const auto start = std::chrono::steady_clock::now();
  CallRecord record;
  record.want_facts = state_->request_log != nullptr || explain;
  CallRecord* outer = t_call;
  t_call = &record;
  ApiReply reply = HandleOperation(operation, body);
  t_call = outer;
  t_operation = outer_operation;
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  if (state_->observer) state_->observer(operation, record.status, took.count(), record.consumed);
  if (state_->request_log || explain) {
    std::string line =
        FormatRequestLogLine(operation, body, record.facts, record.status, took.count(), record.consumed);
    if (state_->request_log) state_->request_log->Append(line);
    if (explain) reply.explain = std::move(line);
  }
  return reply;
}

ApiReply Handler::HandleOperation(std::string_view operation, std::string_view body) {
  OperationFn fn = LookupOperation(operation);
  if (fn == nullptr) {
    return ErrorReply(Status(ErrorType::kUnknownOperation, "Unknown operation exception"));
  }
  // Nothing may throw past this point into the server: turn a stray exception
  // (allocation failure, a bug) into the 500 DynamoDB would give.
  try {
    // The operations that do not decode into a request struct (Execute) meet
    // the fault rules here, by operation name alone.
    if (state_->faults && state_->faults->active() && !IsTypedOperation(fn)) {
      FaultTarget target;
      target.operation = operation;
      FaultDecision d = state_->faults->Decide(target);
      if (t_call != nullptr && t_call->want_facts) t_call->facts.faults = d.fired;
      Sleep(d.latency_ms);
      if (d.rule && d.rule->action == FaultAction::kError) {
        return ErrorReply(FaultInjector::ErrorFor(*d.rule, target));
      }
      if (d.rule && d.rule->action == FaultAction::kDropBeforeApply) {
        return DroppedReply("before", d.rule->name);
      }
      ApiReply reply = fn(*state_, body);
      if (d.rule && d.rule->action == FaultAction::kDropAfterApply) {
        return DroppedReply("after", d.rule->name);
      }
      return reply;
    }
    return fn(*state_, body);
  } catch (const std::exception&) {
    return ErrorReply(InternalError("Internal server error"));
  } catch (...) {
    return ErrorReply(InternalError("Internal server error"));
  }
}

bool Handler::IsOperation(std::string_view operation) { return LookupOperation(operation) != nullptr; }

ApiReply Handler::ErrorReply(const Status& status) {
  if (t_call != nullptr) {
    t_call->status = status;
    for (const BilledCapacity& b : status.billed()) {  // billed though it failed
      ConsumedCapacity c;
      c.table_name = b.table_name;
      c.capacity_units = b.read_units + b.write_units;
      c.read_capacity_units = b.read_units;
      c.write_capacity_units = b.write_units;
      t_call->consumed.push_back(std::move(c));
    }
  }
  ApiReply reply;
  reply.http_status = ErrorHttpStatus(status.type());
  reply.body = EncodeErrorBody(status);
  return reply;
}

}  // namespace dynarock::api
