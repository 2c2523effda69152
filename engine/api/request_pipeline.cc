// File: engine/api/request_pipeline.cc
//
// See request_pipeline.h and handler_state.h.

#include "engine/api/request_pipeline.h"

#include <algorithm>
#include <chrono>
#include <thread>

namespace dynarock::api::pipeline {

constinit thread_local CallRecord* t_call = nullptr;
constinit thread_local std::string_view t_operation;
constinit thread_local std::string_view t_principal;

ApiReply Ok(std::string body) {
  ApiReply reply;
  reply.body = std::move(body);
  return reply;
}

std::vector<ConsumedCapacity> BilledAsConsumed(const Status& status) {
  std::vector<ConsumedCapacity> out;
  for (const BilledCapacity& b : status.billed()) {
    ConsumedCapacity c;
    c.table_name = b.table_name;
    c.capacity_units = b.read_units + b.write_units;
    c.read_capacity_units = b.read_units;
    c.write_capacity_units = b.write_units;
    out.push_back(std::move(c));
  }
  return out;
}

ApiReply DroppedReply(std::string_view when, const std::string& rule) {
  ApiReply reply = Handler::ErrorReply(InternalError(
      "The connection was dropped " + std::string(when) +
      " the request was applied (fault injection rule '" + rule + "')"));
  reply.drop = ApiReply::Drop::kBeforeReply;
  return reply;
}

void Sleep(int64_t ms) {
  if (ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(std::min(ms, kFaultLatencyMsMax)));
}

Throttles Admit(HandlerState& s, const std::vector<internal::Draw>& draws) {
  Throttles t;
  t.throttled.resize(draws.size());
  for (size_t i = 0; i < draws.size(); ++i) {
    if (draws[i].table.empty()) continue;  // a statement that does not parse
    Status st = s.limits->Admit(s.db, draws[i]);
    if (st.ok()) continue;
    t.throttled[i] = true;
    if (t.count++ == 0) t.first = std::move(st);
  }
  return t;
}

Status CancelThrottled(const Throttles& t) {
  std::vector<CancellationReason> reasons;
  for (bool throttled : t.throttled) {
    CancellationReason r;
    r.code = "None";
    if (throttled) {
      r.code = t.first.type() == ErrorType::kThrottling ? "ThrottlingError"
                                                         : "ProvisionedThroughputExceeded";
      r.message = t.first.message();
    }
    reasons.push_back(std::move(r));
  }
  Status st(ErrorType::kTransactionCanceled, "");
  st.WithCancellationReasons(std::move(reasons));
  return st;
}

std::string TableOfName(const std::string& name) {
  const size_t at = name.rfind(":table/");
  if (name.rfind("arn:", 0) != 0 || at == std::string::npos) return name;
  const size_t from = at + 7;
  return name.substr(from, name.find('/', from) - from);
}

Status CheckPolicy(HandlerState& s, const std::string& policy_arn, const std::string& action,
                   const std::string& resource) {
  GetResourcePolicyRequest g;
  g.resource_arn = policy_arn;
  auto p = s.db->GetResourcePolicy(g);
  if (!p.ok()) {
    const ErrorType t = p.status().type();
    if (t == ErrorType::kPolicyNotFound || t == ErrorType::kResourceNotFound) return Status();
    return p.status();
  }
  return EvaluateResourcePolicy(p->policy, t_principal, "dynamodb:" + action, {resource}, resource);
}

Item KeyOfItem(DB& db, const std::string& table, const Item& item) {
  Item key;
  auto d = db.DescribeTable({table});
  if (!d.ok()) return key;
  for (const KeySchemaElement& k : d->table.key_schema) {
    if (auto it = item.find(k.attribute_name); it != item.end()) key.emplace(k.attribute_name, it->second);
  }
  return key;
}

}  // namespace dynarock::api::pipeline
