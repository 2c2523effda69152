// File: engine/api/request_pipeline.h
//
// The path a decoded request takes through the handler (Execute): the
// caller's resource-based policies, a strong global table's claim, the fault
// rules, the capacity limits and Contributor Insights, the engine's call, the
// consumed capacity the client asked for, the request log's facts and the
// encoded reply. Templates over the request and response types, used by
// handler_operations.cc; the helpers that are not templates are in
// request_pipeline.cc.

#ifndef DYNAROCK_ENGINE_API_REQUEST_PIPELINE_H_
#define DYNAROCK_ENGINE_API_REQUEST_PIPELINE_H_

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/api/handler_state.h"
#include "engine/api/json_decode.h"
#include "engine/api/policy_evaluation.h"
#include "engine/request_checks.h"

namespace dynarock::api::pipeline {

using internal::DescribeResponse;
using internal::HeldBack;

// Takes the response's ConsumedCapacity (as the engine reported it, by index
// when asked so) and leaves in the reply what the client asked for: nothing
// for NONE, the totals for TOTAL.
template <typename Resp>
std::vector<ConsumedCapacity> TakeCapacity(Resp& r, ReturnConsumedCapacity client_mode) {
  std::vector<ConsumedCapacity> taken;
  auto fit = [&](ConsumedCapacity& c) {
    if (client_mode == ReturnConsumedCapacity::kTotal) {
      c.table.reset();
      c.local_secondary_indexes.clear();
      c.global_secondary_indexes.clear();
    }
  };
  if constexpr (requires { r.has_consumed_capacity; }) {
    taken = r.consumed_capacity;
    if (client_mode == ReturnConsumedCapacity::kNone) {
      r.consumed_capacity.clear();
      r.has_consumed_capacity = false;
    }
    for (ConsumedCapacity& c : r.consumed_capacity) fit(c);
  } else if constexpr (requires { r.consumed_capacity.has_value(); }) {
    if (r.consumed_capacity) taken.push_back(*r.consumed_capacity);
    if (client_mode == ReturnConsumedCapacity::kNone) r.consumed_capacity.reset();
    if (r.consumed_capacity) fit(*r.consumed_capacity);
  } else if constexpr (requires { r.consumed_capacity.size(); }) {
    taken = r.consumed_capacity;
    if (client_mode == ReturnConsumedCapacity::kNone) r.consumed_capacity.clear();
    for (ConsumedCapacity& c : r.consumed_capacity) fit(c);
  }
  return taken;
}

// What a failed request is billed anyway (a failed condition, a cancelled
// transaction), as consumed capacity.
std::vector<ConsumedCapacity> BilledAsConsumed(const Status& status);

// The draws of a request that its buckets cannot serve, one flag per draw
// (Draws' order), and the first such throttle; none with limits off.
struct Throttles {
  std::vector<bool> throttled;
  size_t count = 0;
  Status first;
};
Throttles Admit(HandlerState& s, const std::vector<internal::Draw>& draws);

// A transaction with throttled items: cancelled, each throttled item's reason
// its throttle's.
Status CancelThrottled(const Throttles& t);

// The table a TableName names: itself, or the table of an ARN given there.
std::string TableOfName(const std::string& name);

// The resource-based policies a caller (t_principal) meets (policy_evaluation.h).
// Each table a request names, with the action it takes there (TransactWriteItems:
// each item's own, PutItem, UpdateItem, DeleteItem or ConditionCheckItem;
// TransactGetItems: GetItem; otherwise the operation's), on the table's ARN, or
// the index's for a query or scan of an index; a stream's policy for the
// policy operations on a stream ARN. A table that does not exist has no
// policy (the operation then answers for it); a policy that cannot be read
// refuses the request.
Status CheckPolicy(HandlerState& s, const std::string& policy_arn, const std::string& action,
                   const std::string& resource);

template <typename Req>
Status CheckPolicies(HandlerState& s, const Req& req) {
  std::vector<std::pair<std::string, std::string>> asks;  // action, table
  std::string op(t_operation);
  if constexpr (std::is_same_v<Req, TransactWriteItemsRequest>) {
    for (const TransactWriteItem& x : req.transact_items) {
      const char* action = x.kind == TransactWriteItem::Kind::kPut      ? "PutItem"
                           : x.kind == TransactWriteItem::Kind::kUpdate ? "UpdateItem"
                           : x.kind == TransactWriteItem::Kind::kDelete ? "DeleteItem"
                                                                        : "ConditionCheckItem";
      asks.emplace_back(action, x.table_name);
    }
  } else if constexpr (std::is_same_v<Req, TransactGetItemsRequest>) {
    for (const TransactGetItem& x : req.transact_items) asks.emplace_back("GetItem", x.table_name);
  } else if constexpr (requires { req.source_table_name; req.source_table_arn; }) {
    // RestoreTableToPointInTime: reads its source table.
    asks.emplace_back(op, req.source_table_name ? *req.source_table_name : req.source_table_arn.value_or(""));
  } else if constexpr (requires { req.resource_arn.size(); }) {
    // Tags and policies: the table the ARN names, or the stream it names.
    if (req.resource_arn.find("/stream/") != std::string::npos) {
      DR_RETURN_IF_ERROR(CheckPolicy(s, req.resource_arn, op, req.resource_arn));
    } else {
      asks.emplace_back(op, req.resource_arn);
    }
  } else {
    FaultTarget target;
    Describe(s.key_names, s.db, req, /*keys=*/false, &target, nullptr);
    for (const std::string& t : target.tables) asks.emplace_back(op, t);
  }
  std::string index;
  if constexpr (requires { req.index_name.has_value(); }) index = req.index_name.value_or("");
  std::set<std::pair<std::string, std::string>> done;
  for (const auto& [action, named] : asks) {
    if (named.empty()) continue;
    const std::string arn = s.arn_prefix + "table/" + TableOfName(named);
    if (!done.emplace(action, arn).second) continue;
    // An index is its own resource (its table's policy names it).
    DR_RETURN_IF_ERROR(CheckPolicy(s, arn, action, index.empty() ? arn : arn + "/index/" + index));
  }
  if constexpr (std::is_same_v<Req, PutResourcePolicyRequest>) {
    // A policy that would deny its author changing it again needs saying so.
    if (!req.confirm_remove_self_resource_access &&
        !EvaluateResourcePolicy(req.policy, t_principal, "dynamodb:PutResourcePolicy", {req.resource_arn},
                                req.resource_arn)
             .ok()) {
      return ValidationError("One or more parameter values were invalid: this policy denies " +
                             std::string(t_principal) + " dynamodb:PutResourcePolicy on " + req.resource_arn +
                             ", so the caller could not change it again; set "
                             "ConfirmRemoveSelfResourceAccess to true to attach it anyway");
    }
  }
  return Status();
}

// The key attributes of `item` in `table` (empty: no such table).
Item KeyOfItem(DB& db, const std::string& table, const Item& item);

// The items an item write touches, each with its table, when one of its
// tables is a strong (MRSC) global table's replica: such a write is run by
// the global tables' hooks (Handler::GlobalTableHooks::claim).
template <typename Req>
bool StrongWriteKeys(HandlerState& s, const Req& req, std::vector<std::pair<std::string, Item>>* keys) {
  DB& db = *s.db;
  auto strong = [&](const std::string& t) { return s.global_tables.is_strong(db, t); };
  if constexpr (std::is_same_v<Req, PutItemRequest>) {
    if (!strong(req.table_name)) return false;
    keys->emplace_back(req.table_name, KeyOfItem(db, req.table_name, req.item));
  } else if constexpr (std::is_same_v<Req, UpdateItemRequest> || std::is_same_v<Req, DeleteItemRequest>) {
    if (!strong(req.table_name)) return false;
    keys->emplace_back(req.table_name, req.key);
  } else if constexpr (std::is_same_v<Req, BatchWriteItemRequest>) {
    bool any = false;
    for (const auto& [t, writes] : req.request_items) {
      if (!strong(t)) continue;
      any = true;
      for (const WriteRequest& w : writes) {
        keys->emplace_back(t, w.put_item ? KeyOfItem(db, t, *w.put_item) : w.delete_key.value_or(Item{}));
      }
    }
    return any;
  } else if constexpr (std::is_same_v<Req, TransactWriteItemsRequest>) {
    bool any = false;
    for (const TransactWriteItem& w : req.transact_items) {
      if (!strong(w.table_name)) continue;
      any = true;
      if (w.kind == TransactWriteItem::Kind::kConditionCheck) continue;
      keys->emplace_back(w.table_name, w.kind == TransactWriteItem::Kind::kPut ? KeyOfItem(db, w.table_name, w.item)
                                                                                : w.key);
    }
    return any;
  } else if constexpr (std::is_same_v<Req, ExecuteStatementRequest>) {
    // The cached template first: only a write to a strong table is planned.
    auto d = internal::StatementDraw(req.statement);
    if (!d || !d->write || !strong(d->table)) return false;
    auto k = StatementWriteKey(db, req.statement, req.parameters);
    if (!k || !strong(k->first)) return false;
    keys->push_back(std::move(*k));
  } else if constexpr (std::is_same_v<Req, BatchExecuteStatementRequest> ||
                       std::is_same_v<Req, ExecuteTransactionRequest>) {
    bool any = false;
    const auto& statements = [&]() -> const auto& {
      if constexpr (std::is_same_v<Req, ExecuteTransactionRequest>) {
        return req.transact_statements;
      } else {
        return req.statements;
      }
    }();
    for (const auto& st : statements) {
      auto d = internal::StatementDraw(st.statement);
      if (!d || !d->write || !strong(d->table)) continue;
      auto k = StatementWriteKey(db, st.statement, st.parameters);
      if (!k || !strong(k->first)) continue;
      any = true;
      keys->push_back(std::move(*k));
    }
    return any;
  } else {
    return false;
  }
  return true;
}

// Call the engine with a decoded request, encode, with the fault rules, the
// capacity limits and the request log's facts in between.
// `op` is a DB member function or a function (DB&, Req&) (the PartiQL
// operations, dynarock/partiql.h; PutItem's moving call).
template <typename Req, typename Op, typename Encode>
ApiReply Execute(HandlerState& s, StatusOr<Req> req, Op op, Encode encode) {
  if (!req.ok()) return Handler::ErrorReply(req.status());
  if (!t_principal.empty()) {
    if (Status denied = CheckPolicies(s, *req); !denied.ok()) return Handler::ErrorReply(denied);
  }
  CapacityLimits* limits = s.limits && s.limits->enforced() ? s.limits.get() : nullptr;
  // Contributor Insights on for some table: the request's keys are counted
  // (not for PartiQL, as on DynamoDB).
  ContributorCounter* insights = nullptr;
  if constexpr (requires { req->return_consumed_capacity; }) {
    if (s.insights.Active(s.db)) insights = &s.insights;
  }
  // The capacity as the client asked for it; the engine computes it for the
  // observer (TOTAL at least) and by index for the request log and the limits.
  ReturnConsumedCapacity client_mode = ReturnConsumedCapacity::kIndexes;
  if constexpr (requires { req->return_consumed_capacity; }) {
    client_mode = req->return_consumed_capacity;
    if (limits != nullptr || insights != nullptr || (t_call != nullptr && t_call->want_facts)) {
      req->return_consumed_capacity = ReturnConsumedCapacity::kIndexes;
    } else if (t_call != nullptr && client_mode == ReturnConsumedCapacity::kNone) {
      req->return_consumed_capacity = ReturnConsumedCapacity::kTotal;
    }
  }
  // A write to a strong (MRSC) global table claims its items first: it is in
  // flight from here (fault latency included) until its reply.
  std::unique_ptr<Handler::GlobalTableHooks::Claim> claim;
  if (s.global_tables.is_strong) {
    std::vector<std::pair<std::string, Item>> strong_keys;
    if (StrongWriteKeys(s, *req, &strong_keys)) {
      auto claimed = s.global_tables.claim(*s.db, strong_keys);
      if (!claimed.ok()) return Handler::ErrorReply(claimed.status());
      claim = std::move(claimed).value();
    }
  }
  RequestFacts* facts = (t_call != nullptr && t_call->want_facts) ? &t_call->facts : nullptr;
  FaultInjector* faults = s.faults && s.faults->active() ? s.faults.get() : nullptr;
  std::optional<FaultRule> fault;
  HeldBack<Req> held;
  constexpr bool kBatch = requires { held.items; } || requires { held.keys; };
  if (faults != nullptr || facts != nullptr) {
    FaultTarget target;
    target.operation = t_operation;
    const bool keys = facts != nullptr || (faults != nullptr && faults->needs_keys());
    Describe(s.key_names, s.db, *req, keys, &target, facts);
    if (faults != nullptr) {
      FaultDecision d = faults->Decide(target);
      if (facts != nullptr) facts->faults = d.fired;
      Sleep(d.latency_ms);
      if (d.rule) {
        switch (d.rule->action) {
          case FaultAction::kError:
            return Handler::ErrorReply(FaultInjector::ErrorFor(*d.rule, target));
          case FaultAction::kDropBeforeApply:
            if (facts != nullptr) facts->drop = "before_apply";
            return DroppedReply("before", d.rule->name);
          case FaultAction::kUnprocessed:
            if constexpr (kBatch) HoldBack(s.key_names, s.db, *d.rule, *req, &held);
            break;
          default:
            break;
        }
        fault = std::move(d.rule);
      }
    }
  }
  // Capacity: what the request draws on must have some left (capacity_limits.h).
  std::vector<internal::Draw> draws;
  std::vector<size_t> throttled_statements;  // BatchExecuteStatement
  Status statement_throttle;
  if constexpr (std::is_same_v<Req, ExecuteStatementRequest> ||
                std::is_same_v<Req, BatchExecuteStatementRequest> ||
                std::is_same_v<Req, ExecuteTransactionRequest>) {
    insights = nullptr;
  }
  if (limits != nullptr || insights != nullptr) {
    draws = internal::Draws(s.key_names, s.db, *req,
                            (limits != nullptr && limits->partition_limits()) || insights != nullptr);
  }
  if (limits != nullptr) {
    Throttles t = Admit(s, draws);
    if (insights != nullptr && t.count > 0) insights->CountThrottles(s.db, draws, t.throttled);
    if (t.count > 0) {
      if constexpr (kBatch) {
        // Throttled requests come back unprocessed; all of them: the error.
        if (t.count == draws.size()) return Handler::ErrorReply(t.first);
        HoldBackThrottled(t.throttled, *req, &held);
        std::erase_if(draws, [&, i = size_t{0}](const internal::Draw&) mutable {
          return t.throttled[i++];
        });
      } else if constexpr (std::is_same_v<Req, TransactWriteItemsRequest> ||
                           std::is_same_v<Req, TransactGetItemsRequest> ||
                           std::is_same_v<Req, ExecuteTransactionRequest>) {
        return Handler::ErrorReply(CancelThrottled(t));
      } else if constexpr (std::is_same_v<Req, BatchExecuteStatementRequest>) {
        // Each throttled statement answers with its error; the rest run.
        if (t.count == draws.size()) return Handler::ErrorReply(t.first);
        std::vector<BatchStatementRequest> kept;
        for (size_t i = 0; i < req->statements.size(); ++i) {
          if (t.throttled[i]) {
            throttled_statements.push_back(i);
          } else {
            kept.push_back(std::move(req->statements[i]));
          }
        }
        req->statements = std::move(kept);
        std::erase_if(draws, [&, i = size_t{0}](const internal::Draw&) mutable {
          return t.throttled[i++];
        });
        statement_throttle = t.first;  // what each throttled statement reports
      } else {
        return Handler::ErrorReply(t.first);
      }
    }
  }
  // Reads hand their items over as stored bytes, which the encoder writes
  // as JSON directly (dynarock/item_view.h).
  if constexpr (requires { req->encoded_items; }) req->encoded_items = true;
  using Result = decltype(std::invoke(op, *s.db, *req));  // StatusOr<Resp>
  using Resp = std::decay_t<decltype(std::declval<Result&>().value())>;
  bool run = true;
  if constexpr (kBatch) run = !req->request_items.empty();  // not all held back
  Result resp = run ? std::invoke(op, *s.db, *req) : Result(Resp{});
  if (claim && resp.ok()) {
    if (Status copied = claim->Copy(); !copied.ok()) resp = Result(copied);
  }
  // Whether the request writes, for the units it reports as CapacityUnits.
  bool writes = internal::kWrites<Req>;
  if constexpr (std::is_same_v<Req, ExecuteStatementRequest>) {
    writes = !draws.empty() && draws.front().write;
  }
  ApiReply reply;
  if (!resp.ok()) {
    if (limits != nullptr || insights != nullptr) {
      const std::vector<ConsumedCapacity> billed = BilledAsConsumed(resp.status());
      if (limits != nullptr) limits->Charge(s.db, billed, writes, draws);
      if (insights != nullptr) insights->CountAccesses(s.db, draws, billed, writes);
    }
    reply = Handler::ErrorReply(resp.status());
  } else {
    if constexpr (kBatch) GiveBack(held, &*resp);
    if constexpr (std::is_same_v<Req, BatchExecuteStatementRequest>) {
      for (size_t i : throttled_statements) {
        BatchStatementResponse r;
        r.error_code = statement_throttle.type() == ErrorType::kThrottling
                           ? "ThrottlingError"
                           : "ProvisionedThroughputExceeded";
        r.error_message = statement_throttle.message();
        resp->responses.insert(resp->responses.begin() + static_cast<std::ptrdiff_t>(i),
                               std::move(r));
      }
    }
    std::vector<ConsumedCapacity> consumed = TakeCapacity(*resp, client_mode);
    if (limits != nullptr) limits->Charge(s.db, consumed, writes, draws);
    if (insights != nullptr) insights->CountAccesses(s.db, draws, consumed, writes);
    if (t_call != nullptr) {
      t_call->consumed.insert(t_call->consumed.end(), std::make_move_iterator(consumed.begin()),
                              std::make_move_iterator(consumed.end()));
    }
    if (facts != nullptr) DescribeResponse(*req, *resp, facts);
    reply = Ok(encode(*req, *resp));
  }
  if (fault && fault->action == FaultAction::kDropAfterApply) {
    if (facts != nullptr) facts->drop = "after_apply";
    return DroppedReply("after", fault->name);
  }
  return reply;
}

// Decode, call the engine, encode.
template <typename Req, typename Op, typename Encode>
ApiReply Run(HandlerState& s, std::string_view body, StatusOr<Req> (*decode)(std::string_view),
             Op op, Encode encode) {
  return Execute(s, decode(body), op, encode);
}

// The same for an operation with attribute values: a malformed one ("Supplied
// AttributeValue is empty ...") is reported after the operation's parameter
// checks, DynamoDB's order (engine/request_checks.h CheckParameters).
template <typename Req, typename Op, typename Encode>
ApiReply RunCheckedAs(HandlerState& s, std::string_view body, Op op, Encode encode) {
  MalformedValue malformed;
  StatusOr<Req> req = DecodeItemRequest<Req>(body, &malformed);
  if (req.ok() && !malformed.error.ok()) {
    Status params = CheckParameters(*req, malformed);
    return Handler::ErrorReply(params.ok() ? malformed.error : params);
  }
  return Execute(s, std::move(req), op, encode);
}
template <typename Req, typename Resp, typename Encode>
ApiReply RunChecked(HandlerState& s, std::string_view body, StatusOr<Resp> (DB::*op)(const Req&),
                    Encode encode) {
  return RunCheckedAs<Req>(s, body, op, encode);
}

template <typename Req, typename Resp>
auto Plain(std::string (*encode)(const Resp&)) {
  return [encode](const Req&, const Resp& r) { return encode(r); };
}

}  // namespace dynarock::api::pipeline

#endif  // DYNAROCK_ENGINE_API_REQUEST_PIPELINE_H_
