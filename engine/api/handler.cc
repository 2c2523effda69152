#include "engine/api/handler.h"

#include <simdjson.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <utility>

#include "engine/api/capacity_limits.h"
#include "engine/api/contributor_insights.h"
#include "engine/api/faults.h"
#include "engine/api/json_backups.h"
#include "engine/api/json_decode.h"
#include "engine/api/json_encode.h"
#include "engine/api/json_insights.h"
#include "engine/api/global_tables.h"
#include "engine/api/json_kinesis.h"
#include "engine/api/kinesis_sink.h"
#include "engine/api/partiql_json.h"
#include "engine/api/policy_evaluation.h"
#include "engine/api/request_facts.h"
#include "engine/api/request_log.h"
#include "engine/request_checks.h"
#include "engine/table_validation.h"
#include "engine/api/json_writer.h"
#include "engine/api/streams_json.h"
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

namespace {

using internal::HandlerState;
using internal::DescribeResponse;
using internal::HeldBack;
using OperationFn = ApiReply (*)(HandlerState&, std::string_view);

ApiReply Ok(std::string body) {
  ApiReply reply;
  reply.body = std::move(body);
  return reply;
}

// What the observer is told about the call in progress on this thread (set by
// Handle() only while an observer is installed).
struct CallRecord {
  Status status;
  std::vector<ConsumedCapacity> consumed;
  bool want_facts = false;  // a request log is set, or the caller asked to explain
  RequestFacts facts;
};
thread_local CallRecord* t_call = nullptr;
// The operation Handle() is running on this thread (for fault matching).
thread_local std::string_view t_operation;
// The caller whose request is being handled (Handle with a principal), for
// resource-based policies; empty: none.
thread_local std::string_view t_principal;

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

// ---------------------------------------------------------------- fault and log hooks

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

// Call the engine with a decoded request, encode, with the fault rules and the
// request log's facts in between.
// `op` is a DB member function or a function (DB&, const Req&) (the PartiQL
// operations, dynarock/partiql.h).
// The draws of a request that its buckets cannot serve, one flag per draw
// (Draws' order), and the first such throttle; none with limits off.
struct Throttles {
  std::vector<bool> throttled;
  size_t count = 0;
  Status first;
};
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

// A transaction with throttled items: cancelled, each throttled item's reason
// its throttle's.
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

// The table a TableName names: itself, or the table of an ARN given there.
std::string TableOfName(const std::string& name) {
  const size_t at = name.rfind(":table/");
  if (name.rfind("arn:", 0) != 0 || at == std::string::npos) return name;
  const size_t from = at + 7;
  return name.substr(from, name.find('/', from) - from);
}

// The resource-based policies a caller (t_principal) meets (policy_evaluation.h).
// Each table a request names, with the action it takes there (TransactWriteItems:
// each item's own, PutItem, UpdateItem, DeleteItem or ConditionCheckItem;
// TransactGetItems: GetItem; otherwise the operation's), on the table's ARN, or
// the index's for a query or scan of an index; a stream's policy for the
// policy operations on a stream ARN. A table that does not exist has no
// policy (the operation then answers for it); a policy that cannot be read
// refuses the request.
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
Item KeyOfItem(DB& db, const std::string& table, const Item& item) {
  Item key;
  auto d = db.DescribeTable({table});
  if (!d.ok()) return key;
  for (const KeySchemaElement& k : d->table.key_schema) {
    if (auto it = item.find(k.attribute_name); it != item.end()) key.emplace(k.attribute_name, it->second);
  }
  return key;
}

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

// ---------------------------------------------------------------- engine operations

ApiReply CreateTable(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeCreateTableRequest, &DB::CreateTable,
             Plain<CreateTableRequest>(EncodeCreateTableResponse));
}

ApiReply DescribeTable(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeDescribeTableRequest, &DB::DescribeTable,
             Plain<DescribeTableRequest>(EncodeDescribeTableResponse));
}

ApiReply DeleteTable(HandlerState& s, std::string_view body) {
  auto remove = [&s](DB& db, const DeleteTableRequest& r) -> StatusOr<DeleteTableResponse> {
    StatusOr<DeleteTableResponse> out = db.DeleteTable(r);
    if (out.ok() && s.global_tables.deleted) s.global_tables.deleted(db, out->table_description.table_name);
    return out;
  };
  return Run(s, body, DecodeDeleteTableRequest, remove, Plain<DeleteTableRequest>(EncodeDeleteTableResponse));
}

ApiReply ListTables(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeListTablesRequest, &DB::ListTables,
             Plain<ListTablesRequest>(EncodeListTablesResponse));
}

ApiReply UpdateTable(HandlerState& s, std::string_view body) {
  auto update = [&s](DB& db, const UpdateTableRequest& r) -> StatusOr<UpdateTableResponse> {
    if (r.global() && s.global_tables.update) {
      DR_RETURN_IF_ERROR(CheckUpdateTableRequest(r));
      return s.global_tables.update(db, r);
    }
    return db.UpdateTable(r);
  };
  return Run(s, body, DecodeUpdateTableRequest, update, Plain<UpdateTableRequest>(EncodeUpdateTableResponse));
}

ApiReply PutItem(HandlerState& s, std::string_view body) {
  // The decoded request's item goes into the write rather than being copied.
  auto put = [](DB& db, PutItemRequest& r) { return db.PutItem(std::move(r)); };
  return RunCheckedAs<PutItemRequest>(s, body, put, Plain<PutItemRequest>(EncodePutItemResponse));
}

ApiReply GetItem(HandlerState& s, std::string_view body) {
  return RunChecked(s, body, &DB::GetItem,
             Plain<GetItemRequest>(EncodeGetItemResponse));
}

ApiReply DeleteItem(HandlerState& s, std::string_view body) {
  return RunChecked(s, body, &DB::DeleteItem,
             Plain<DeleteItemRequest>(EncodeDeleteItemResponse));
}

ApiReply UpdateItem(HandlerState& s, std::string_view body) {
  return RunChecked(s, body, &DB::UpdateItem,
             Plain<UpdateItemRequest>(EncodeUpdateItemResponse));
}

ApiReply Query(HandlerState& s, std::string_view body) {
  return RunChecked(s, body, &DB::Query,
             [](const QueryRequest& req, const QueryResponse& r) {
               return EncodeQueryResponse(r, req.select == Select::kCount);
             });
}

ApiReply Scan(HandlerState& s, std::string_view body) {
  return RunChecked(s, body, &DB::Scan,
             [](const ScanRequest& req, const ScanResponse& r) {
               return EncodeScanResponse(r, req.select == Select::kCount);
             });
}

ApiReply BatchGetItem(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeBatchGetItemRequest, &DB::BatchGetItem,
             Plain<BatchGetItemRequest>(EncodeBatchGetItemResponse));
}

ApiReply BatchWriteItem(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeBatchWriteItemRequest, &DB::BatchWriteItem,
             Plain<BatchWriteItemRequest>(EncodeBatchWriteItemResponse));
}

ApiReply TransactGetItems(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeTransactGetItemsRequest, &DB::TransactGetItems,
             Plain<TransactGetItemsRequest>(EncodeTransactGetItemsResponse));
}

ApiReply TransactWriteItems(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeTransactWriteItemsRequest, &DB::TransactWriteItems,
             Plain<TransactWriteItemsRequest>(EncodeTransactWriteItemsResponse));
}

// ---------------------------------------------------------------- DynamoDB Streams

ApiReply ListStreams(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeListStreamsRequest, &DB::ListStreams,
             Plain<ListStreamsRequest>(EncodeListStreamsResponse));
}

ApiReply DescribeStream(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeDescribeStreamRequest, &DB::DescribeStream,
             Plain<DescribeStreamRequest>(EncodeDescribeStreamResponse));
}

ApiReply GetShardIterator(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeGetShardIteratorRequest, &DB::GetShardIterator,
             Plain<GetShardIteratorRequest>(EncodeGetShardIteratorResponse));
}

// ---------------------------------------------------------------- PartiQL

ApiReply ExecuteStatement(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeExecuteStatementRequest, &dynarock::ExecuteStatement,
             Plain<ExecuteStatementRequest>(EncodeExecuteStatementResponse));
}

ApiReply BatchExecuteStatement(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeBatchExecuteStatementRequest, &dynarock::BatchExecuteStatement,
             Plain<BatchExecuteStatementRequest>(EncodeBatchExecuteStatementResponse));
}

ApiReply ExecuteTransaction(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeExecuteTransactionRequest, &dynarock::ExecuteTransaction,
             Plain<ExecuteTransactionRequest>(EncodeExecuteTransactionResponse));
}

ApiReply GetRecords(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeGetRecordsRequest, &DB::GetRecords,
             Plain<GetRecordsRequest>(EncodeGetRecordsResponse));
}

// ---------------------------------------------------------------- served here


ApiReply DescribeLimits(HandlerState&, std::string_view) {
  // DynamoDB's default quotas for a new account.
  JsonWriter w;
  w.BeginObject();
  w.MemberInt("AccountMaxReadCapacityUnits", 80000);
  w.MemberInt("AccountMaxWriteCapacityUnits", 80000);
  w.MemberInt("TableMaxReadCapacityUnits", 40000);
  w.MemberInt("TableMaxWriteCapacityUnits", 40000);
  w.EndObject();
  return Ok(w.Release());
}

ApiReply DescribeEndpoints(HandlerState& s, std::string_view) {
  JsonWriter w;
  w.BeginObject();
  w.Key("Endpoints");
  w.BeginArray();
  w.BeginObject();
  w.Member("Address", s.endpoint_address);
  w.MemberInt("CachePeriodInMinutes", 1440);
  w.EndObject();
  w.EndArray();
  w.EndObject();
  return Ok(w.Release());
}

ApiReply UpdateTimeToLive(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeUpdateTimeToLiveRequest, &DB::UpdateTimeToLive,
             Plain<UpdateTimeToLiveRequest>(EncodeUpdateTimeToLiveResponse));
}

ApiReply DescribeTimeToLive(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeDescribeTimeToLiveRequest, &DB::DescribeTimeToLive,
             Plain<DescribeTimeToLiveRequest>(EncodeDescribeTimeToLiveResponse));
}

ApiReply TagResource(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeTagResourceRequest, &DB::TagResource,
             [](const TagResourceRequest&, const TagResourceResponse&) { return std::string("{}"); });
}

ApiReply UntagResource(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeUntagResourceRequest, &DB::UntagResource,
             [](const UntagResourceRequest&, const UntagResourceResponse&) {
               return std::string("{}");
             });
}

ApiReply PutResourcePolicy(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodePutResourcePolicyRequest, &DB::PutResourcePolicy,
             Plain<PutResourcePolicyRequest>(EncodePutResourcePolicyResponse));
}

ApiReply GetResourcePolicy(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeGetResourcePolicyRequest, &DB::GetResourcePolicy,
             Plain<GetResourcePolicyRequest>(EncodeGetResourcePolicyResponse));
}

ApiReply DescribeContributorInsights(HandlerState& s, std::string_view body) {
  // With the top keys of each rule counted here (contributor_insights.h).
  return Run(s, body, DecodeDescribeContributorInsightsRequest, &DB::DescribeContributorInsights,
             [&s](const DescribeContributorInsightsRequest&, const DescribeContributorInsightsResponse& r) {
               std::string top;
               if (!r.rule_list.empty()) {
                 top = s.insights.TopJson(s.db, r.table_name, r.index_name.value_or(""), r.rule_list);
               }
               return EncodeDescribeContributorInsightsResponse(r, top);
             });
}

ApiReply ListContributorInsights(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeListContributorInsightsRequest, &DB::ListContributorInsights,
             Plain<ListContributorInsightsRequest>(EncodeListContributorInsightsResponse));
}

ApiReply UpdateContributorInsights(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeUpdateContributorInsightsRequest, &DB::UpdateContributorInsights,
             Plain<UpdateContributorInsightsRequest>(EncodeUpdateContributorInsightsResponse));
}

ApiReply EnableKinesisStreamingDestination(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeEnableKinesisStreamingDestinationRequest,
             &DB::EnableKinesisStreamingDestination,
             Plain<KinesisStreamingDestinationRequest>(EncodeEnableKinesisStreamingDestinationResponse));
}

ApiReply DisableKinesisStreamingDestination(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeEnableKinesisStreamingDestinationRequest,
             &DB::DisableKinesisStreamingDestination,
             Plain<KinesisStreamingDestinationRequest>(EncodeEnableKinesisStreamingDestinationResponse));
}

ApiReply UpdateKinesisStreamingDestination(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeUpdateKinesisStreamingDestinationRequest,
             &DB::UpdateKinesisStreamingDestination,
             Plain<KinesisStreamingDestinationRequest>(EncodeUpdateKinesisStreamingDestinationResponse));
}

ApiReply DescribeKinesisStreamingDestination(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeDescribeKinesisStreamingDestinationRequest,
             &DB::DescribeKinesisStreamingDestination,
             Plain<DescribeKinesisStreamingDestinationRequest>(
                 EncodeDescribeKinesisStreamingDestinationResponse));
}

ApiReply DeleteResourcePolicy(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeDeleteResourcePolicyRequest, &DB::DeleteResourcePolicy,
             Plain<DeleteResourcePolicyRequest>(EncodeDeleteResourcePolicyResponse));
}

ApiReply ListTagsOfResource(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeListTagsOfResourceRequest, &DB::ListTagsOfResource,
             Plain<ListTagsOfResourceRequest>(EncodeListTagsOfResourceResponse));
}

ApiReply DescribeContinuousBackups(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeDescribeContinuousBackupsRequest, &DB::DescribeContinuousBackups,
             Plain<DescribeContinuousBackupsRequest>(EncodeDescribeContinuousBackupsResponse));
}

ApiReply UpdateContinuousBackups(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeUpdateContinuousBackupsRequest, &DB::UpdateContinuousBackups,
             Plain<UpdateContinuousBackupsRequest>(EncodeUpdateContinuousBackupsResponse));
}

ApiReply CreateBackup(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeCreateBackupRequest, &DB::CreateBackup,
             Plain<CreateBackupRequest>(EncodeCreateBackupResponse));
}

ApiReply DescribeBackup(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeDescribeBackupRequest, &DB::DescribeBackup,
             Plain<DescribeBackupRequest>(EncodeDescribeBackupResponse));
}

ApiReply DeleteBackup(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeDeleteBackupRequest, &DB::DeleteBackup,
             Plain<DeleteBackupRequest>(EncodeDeleteBackupResponse));
}

ApiReply ListBackups(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeListBackupsRequest, &DB::ListBackups,
             Plain<ListBackupsRequest>(EncodeListBackupsResponse));
}

ApiReply RestoreTableFromBackup(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeRestoreTableFromBackupRequest, &DB::RestoreTableFromBackup,
             Plain<RestoreTableFromBackupRequest>(EncodeRestoreTableFromBackupResponse));
}

ApiReply RestoreTableToPointInTime(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeRestoreTableToPointInTimeRequest, &DB::RestoreTableToPointInTime,
             Plain<RestoreTableToPointInTimeRequest>(EncodeRestoreTableToPointInTimeResponse));
}

// Exports and imports (engine/transfer/transfers.h).
template <const std::string_view& kName>
ApiReply TransferOperation(HandlerState& s, std::string_view body) {
  if (!t_principal.empty() && kName == "ExportTableToPointInTime") {
    // The export reads its table (TableArn): that table's policy applies.
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    std::string_view table_arn;
    if (parser.parse(body.data(), body.size()).get(doc) == simdjson::SUCCESS &&
        doc["TableArn"].get(table_arn) == simdjson::SUCCESS) {
      const std::string arn = s.arn_prefix + "table/" + TableOfName(std::string(table_arn));
      if (Status denied = CheckPolicy(s, arn, std::string(kName), arn); !denied.ok()) {
        return Handler::ErrorReply(denied);
      }
    }
  }
  StatusOr<std::string> reply = s.Transfers().Handle(kName, body);
  if (!reply.ok()) return Handler::ErrorReply(reply.status());
  return Ok(std::move(*reply));
}
// Global tables' legacy and replica auto scaling operations (global_tables.h).
template <const std::string_view& kName>
ApiReply GlobalTableOperation(HandlerState& s, std::string_view body) {
  StatusOr<std::string> reply = HandleGlobalTableOperation(s.db, kName, body, s.global_tables.region);
  if (!reply.ok()) return Handler::ErrorReply(reply.status());
  return Ok(std::move(*reply));
}
constexpr std::string_view kCreateGlobalTable = "CreateGlobalTable";
constexpr std::string_view kDescribeGlobalTable = "DescribeGlobalTable";
constexpr std::string_view kDescribeGlobalTableSettings = "DescribeGlobalTableSettings";
constexpr std::string_view kListGlobalTables = "ListGlobalTables";
constexpr std::string_view kUpdateGlobalTable = "UpdateGlobalTable";
constexpr std::string_view kUpdateGlobalTableSettings = "UpdateGlobalTableSettings";
constexpr std::string_view kDescribeTableReplicaAutoScaling = "DescribeTableReplicaAutoScaling";
constexpr std::string_view kUpdateTableReplicaAutoScaling = "UpdateTableReplicaAutoScaling";

constexpr std::string_view kExportTableToPointInTime = "ExportTableToPointInTime";
constexpr std::string_view kDescribeExport = "DescribeExport";
constexpr std::string_view kListExports = "ListExports";
constexpr std::string_view kImportTable = "ImportTable";
constexpr std::string_view kDescribeImport = "DescribeImport";
constexpr std::string_view kListImports = "ListImports";

// ---------------------------------------------------------------- dispatch

struct Operation {
  std::string_view name;
  OperationFn fn;
};

// Sorted by name, for the binary search in Lookup (checked at compile time).
constexpr Operation kOperations[] = {
    {"BatchExecuteStatement", BatchExecuteStatement},
    {"BatchGetItem", BatchGetItem},
    {"BatchWriteItem", BatchWriteItem},
    {"CreateBackup", CreateBackup},
    {"CreateGlobalTable", GlobalTableOperation<kCreateGlobalTable>},
    {"CreateTable", CreateTable},
    {"DeleteBackup", DeleteBackup},
    {"DeleteItem", DeleteItem},
    {"DeleteResourcePolicy", DeleteResourcePolicy},
    {"DeleteTable", DeleteTable},
    {"DescribeBackup", DescribeBackup},
    {"DescribeContinuousBackups", DescribeContinuousBackups},
    {"DescribeContributorInsights", DescribeContributorInsights},
    {"DescribeEndpoints", DescribeEndpoints},
    {"DescribeExport", TransferOperation<kDescribeExport>},
    {"DescribeGlobalTable", GlobalTableOperation<kDescribeGlobalTable>},
    {"DescribeGlobalTableSettings", GlobalTableOperation<kDescribeGlobalTableSettings>},
    {"DescribeImport", TransferOperation<kDescribeImport>},
    {"DescribeKinesisStreamingDestination", DescribeKinesisStreamingDestination},
    {"DescribeLimits", DescribeLimits},
    {"DescribeTable", DescribeTable},
    {"DescribeTableReplicaAutoScaling", GlobalTableOperation<kDescribeTableReplicaAutoScaling>},
    {"DescribeTimeToLive", DescribeTimeToLive},
    {"DisableKinesisStreamingDestination", DisableKinesisStreamingDestination},
    {"DynamoDBStreams_20120810.DescribeStream", DescribeStream},
    {"DynamoDBStreams_20120810.GetRecords", GetRecords},
    {"DynamoDBStreams_20120810.GetShardIterator", GetShardIterator},
    {"DynamoDBStreams_20120810.ListStreams", ListStreams},
    {"EnableKinesisStreamingDestination", EnableKinesisStreamingDestination},
    {"ExecuteStatement", ExecuteStatement},
    {"ExecuteTransaction", ExecuteTransaction},
    {"ExportTableToPointInTime", TransferOperation<kExportTableToPointInTime>},
    {"GetItem", GetItem},
    {"GetResourcePolicy", GetResourcePolicy},
    {"ImportTable", TransferOperation<kImportTable>},
    {"ListBackups", ListBackups},
    {"ListContributorInsights", ListContributorInsights},
    {"ListExports", TransferOperation<kListExports>},
    {"ListGlobalTables", GlobalTableOperation<kListGlobalTables>},
    {"ListImports", TransferOperation<kListImports>},
    {"ListTables", ListTables},
    {"ListTagsOfResource", ListTagsOfResource},
    {"PutItem", PutItem},
    {"PutResourcePolicy", PutResourcePolicy},
    {"Query", Query},
    {"RestoreTableFromBackup", RestoreTableFromBackup},
    {"RestoreTableToPointInTime", RestoreTableToPointInTime},
    {"Scan", Scan},
    {"TagResource", TagResource},
    {"TransactGetItems", TransactGetItems},
    {"TransactWriteItems", TransactWriteItems},
    {"UntagResource", UntagResource},
    {"UpdateContinuousBackups", UpdateContinuousBackups},
    {"UpdateContributorInsights", UpdateContributorInsights},
    {"UpdateGlobalTable", GlobalTableOperation<kUpdateGlobalTable>},
    {"UpdateGlobalTableSettings", GlobalTableOperation<kUpdateGlobalTableSettings>},
    {"UpdateItem", UpdateItem},
    {"UpdateKinesisStreamingDestination", UpdateKinesisStreamingDestination},
    {"UpdateTable", UpdateTable},
    {"UpdateTableReplicaAutoScaling", GlobalTableOperation<kUpdateTableReplicaAutoScaling>},
    {"UpdateTimeToLive", UpdateTimeToLive},
};

constexpr bool IsSorted() {
  for (size_t i = 1; i < std::size(kOperations); ++i) {
    if (!(kOperations[i - 1].name < kOperations[i].name)) return false;
  }
  return true;
}
static_assert(IsSorted(), "kOperations must be sorted by name");

// The operations answered without a decoded request (Execute not involved).
bool IsTyped(OperationFn fn) {
  return fn != DescribeLimits && fn != DescribeEndpoints &&
         fn != TransferOperation<kExportTableToPointInTime> &&
         fn != TransferOperation<kDescribeExport> && fn != TransferOperation<kListExports> &&
         fn != TransferOperation<kImportTable> && fn != TransferOperation<kDescribeImport> &&
         fn != TransferOperation<kListImports>;
}

OperationFn Lookup(std::string_view name) {
  auto it = std::lower_bound(std::begin(kOperations), std::end(kOperations), name,
                             [](const Operation& op, std::string_view n) { return op.name < n; });
  if (it == std::end(kOperations) || it->name != name) return nullptr;
  return it->fn;
}

}  // namespace

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
  OperationFn fn = Lookup(operation);
  if (fn == nullptr) {
    return ErrorReply(Status(ErrorType::kUnknownOperation, "Unknown operation exception"));
  }
  // Nothing may throw past this point into the server: turn a stray exception
  // (allocation failure, a bug) into the 500 DynamoDB would give.
  try {
    // The operations that do not decode into a request struct (Execute) meet
    // the fault rules here, by operation name alone.
    if (state_->faults && state_->faults->active() && !IsTyped(fn)) {
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

bool Handler::IsOperation(std::string_view operation) { return Lookup(operation) != nullptr; }

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
