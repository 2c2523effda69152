// TransactWriteItems and TransactGetItems.
//
// A write transaction validates and parses every action first (a bad request is a
// ValidationException and changes nothing), then takes the lock stripes of all its
// items in ascending order, reads them, checks every condition, and either commits
// every change in one WriteBatch or none (TransactionCanceledException with one
// CancellationReason per action, in request order). ClientRequestToken makes a
// retried transaction a no-op for ten minutes.

#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <chrono>
#include <set>

#include "engine/db_impl.h"
#include "engine/item_size.h"
#include "engine/capacity.h"
#include "engine/item_validation.h"
#include "engine/limits.h"
#include "engine/request_checks.h"
#include "engine/table_validation.h"
#include "index/maintainer.h"

namespace dynarock {
namespace {

constexpr auto kIdempotencyWindow = std::chrono::minutes(10);

// A stable text of the request, to tell a retry from a different request that
// reuses a ClientRequestToken.
std::string Fingerprint(const TransactWriteItemsRequest& req) {
  std::string out;
  for (const auto& t : req.transact_items) {
    out += std::to_string(static_cast<int>(t.kind)) + "|" + t.table_name + "|" +
           DebugString(t.item) + DebugString(t.key) + "|" + t.update_expression.value_or("") +
           "|" + t.condition_expression.value_or("") + "|";
    for (const auto& [k, v] : t.expression_attribute_names) out += k + "=" + v + ",";
    out += DebugString(t.expression_attribute_values) + ";";
  }
  return out;
}

std::string ReasonList(const std::vector<CancellationReason>& reasons) {
  std::string out = "[";
  for (size_t i = 0; i < reasons.size(); ++i) {
    if (i) out += ", ";
    out += reasons[i].code;
  }
  return out + "]";
}

}  // namespace

class IdempotencyCache {
 public:
  // Returns true when `token` was used by an identical request in the window.
  StatusOr<bool> Seen(const std::string& token, const std::string& fingerprint) {
    std::lock_guard<std::mutex> lock(mu_);
    Expire();
    auto it = entries_.find(token);
    if (it == entries_.end()) return false;
    if (it->second.fingerprint != fingerprint) {
      return Status(ErrorType::kIdempotentParameterMismatch,
                    "Request parameters do not match the previous request with the same "
                    "ClientRequestToken");
    }
    return true;
  }
  void Remember(const std::string& token, std::string fingerprint) {
    std::lock_guard<std::mutex> lock(mu_);
    entries_[token] = Entry{std::move(fingerprint), std::chrono::steady_clock::now()};
  }

 private:
  struct Entry {
    std::string fingerprint;
    std::chrono::steady_clock::time_point at;
  };
  void Expire() {
    auto now = std::chrono::steady_clock::now();
    for (auto it = entries_.begin(); it != entries_.end();) {
      it = now - it->second.at > kIdempotencyWindow ? entries_.erase(it) : std::next(it);
    }
  }
  std::mutex mu_;
  std::map<std::string, Entry> entries_;
};

namespace {
IdempotencyCache& Tokens() {
  static IdempotencyCache cache;
  return cache;
}
}  // namespace

StatusOr<TransactWriteItemsResponse> DBImpl::TransactWriteItems(
    const TransactWriteItemsRequest& req) {
  if (req.transact_items.empty()) {
    return ValidationError(
        "1 validation error detected: Value null at 'transactItems' failed to satisfy "
        "constraint: Member must have length greater than or equal to 1");
  }
  if (req.transact_items.size() > static_cast<size_t>(kTransactItemsMax)) {
    return ValidationError(
        "1 validation error detected: Value at 'transactItems' failed to satisfy constraint: "
        "Member must have length less than or equal to 100");
  }
  std::string fingerprint;
  if (req.client_request_token) {
    fingerprint = Fingerprint(req);
    DR_ASSIGN_OR_RETURN(bool seen, Tokens().Seen(*req.client_request_token, fingerprint));
    if (seen) return TransactWriteItemsResponse();
  }

  struct Action {
    const TransactWriteItem* source;
    TableInfoPtr table;
    std::string key;
    Item key_item;
    Item put_item;
    expr::ConditionPtr condition;
    expr::UpdatePlanPtr update;
  };
  std::vector<Action> actions;
  std::set<std::string> seen_keys;
  for (const auto& t : req.transact_items) {
    Action a;
    a.source = &t;
    DR_RETURN_IF_ERROR(ValidateTableName(t.table_name, "tableName"));
    DR_ASSIGN_OR_RETURN(a.table, FindTable(t.table_name));
    bool is_put = t.kind == TransactWriteItem::Kind::kPut;
    if (is_put) {
      a.put_item = t.item;
      DR_RETURN_IF_ERROR(NormalizeAndValidateItem(&a.put_item));
      DR_ASSIGN_OR_RETURN(a.key, ItemKey(*a.table, a.put_item, true));
      if (ItemSize(a.put_item) > kItemSizeBytesMax) {
        return ValidationError("Item size has exceeded the maximum allowed size");
      }
      DR_RETURN_IF_ERROR(CheckIndexKeyTypes(*a.table, a.put_item));
      a.key_item = KeyAttributes(a.table->key, a.put_item);
    } else {
      a.key_item = t.key;
      DR_RETURN_IF_ERROR(NormalizeAndValidateItem(&a.key_item));
      DR_ASSIGN_OR_RETURN(a.key, ItemKey(*a.table, a.key_item, false));
    }
    if (!seen_keys.insert(a.key).second) {
      return ValidationError(
          "Transaction request cannot include multiple operations on one item");
    }
    bool any_expression = t.condition_expression || t.update_expression;
    DR_RETURN_IF_ERROR(CheckExpressionMapsUsed(t.has_expression_attribute_names,
                                               t.has_expression_attribute_values, any_expression,
                                               any_expression));
    DR_ASSIGN_OR_RETURN(ValueMap values, NormalizeExpressionValues(t.expression_attribute_values));
    expr::ExpressionContext ctx(&t.expression_attribute_names, &values,
                                t.has_expression_attribute_names, t.has_expression_attribute_values);
    DR_RETURN_IF_ERROR(ctx.ValidateMaps());
    if (t.kind == TransactWriteItem::Kind::kUpdate) {
      if (!t.update_expression) {
        return ValidationError(
            "1 validation error detected: Value null at 'transactItems.member.update."
            "updateExpression' failed to satisfy constraint: Member must not be null");
      }
      DR_ASSIGN_OR_RETURN(a.update, expr::ParseUpdate(*t.update_expression, &ctx));
      for (const auto& path : expr::UpdatedPaths(*a.update)) {
        if (!path.empty() && !path[0].is_index && a.table->key.IsKeyAttribute(path[0].name)) {
          return ValidationError(
              "One or more parameter values were invalid: Cannot update attribute " +
              path[0].name + ". This attribute is part of the key");
        }
      }
    }
    if (t.condition_expression) {
      DR_ASSIGN_OR_RETURN(a.condition, expr::ParseCondition(*t.condition_expression,
                                                            expr::ExpressionKind::kCondition, &ctx));
    } else if (t.kind == TransactWriteItem::Kind::kConditionCheck) {
      return ValidationError(
          "1 validation error detected: Value null at 'transactItems.member.conditionCheck."
          "conditionExpression' failed to satisfy constraint: Member must not be null");
    }
    DR_RETURN_IF_ERROR(ctx.CheckAllUsed());
    actions.push_back(std::move(a));
  }

  // Lock the items' stripes in ascending order (no deadlock). A stripe that is
  // busy because another transaction holds one of our items cancels this one
  // with TransactionConflict, as DynamoDB does; otherwise wait for it.
  std::map<size_t, std::vector<size_t>> by_stripe;  // stripe -> action indexes
  for (size_t i = 0; i < actions.size(); ++i) by_stripe[StripeOf(actions[i].key)].push_back(i);
  std::vector<size_t> locked;
  std::vector<size_t> conflicts;
  for (const auto& [stripe, indexes] : by_stripe) {
    if (!Stripe(stripe).try_lock()) {
      for (size_t i : indexes)
        if (HeldByTransaction(actions[i].key)) conflicts.push_back(i);
      if (!conflicts.empty()) break;
      Stripe(stripe).lock();
    }
    locked.push_back(stripe);
  }
  if (!conflicts.empty()) {
    for (auto it = locked.rbegin(); it != locked.rend(); ++it) Stripe(*it).unlock();
    std::vector<CancellationReason> reasons(actions.size(), CancellationReason{"None", "", {}});
    for (size_t i : conflicts) {
      reasons[i] = {"TransactionConflict", "Transaction is ongoing for the item", {}};
    }
    Status s(ErrorType::kTransactionCanceled,
             "Transaction cancelled, please refer cancellation reasons for specific reasons " +
                 ReasonList(reasons));
    s.WithCancellationReasons(std::move(reasons));
    return s;
  }
  {
    std::lock_guard<std::mutex> held(held_mu_);
    for (const auto& a : actions) transaction_held_.insert(a.key);
  }
  auto unlock = [&] {
    {
      std::lock_guard<std::mutex> held(held_mu_);
      for (const auto& a : actions) transaction_held_.erase(a.key);
    }
    for (auto it = locked.rbegin(); it != locked.rend(); ++it) Stripe(*it).unlock();
  };

  std::vector<CancellationReason> reasons(actions.size(), CancellationReason{"None", "", {}});
  bool cancelled = false;
  rocksdb::WriteBatch batch;
  std::map<std::string, CapacityCounter> costs;  // by table as named in the request
  static const Item kEmpty;
  for (size_t i = 0; i < actions.size(); ++i) {
    Action& a = actions[i];
    auto old = ReadItem(a.key);
    if (!old.ok()) {
      unlock();
      return old.status();
    }
    const std::optional<Item>& old_item = *old;
    if (a.condition) {
      auto ok = expr::EvaluateCondition(*a.condition, old_item ? *old_item : kEmpty);
      if (!ok.ok()) {
        reasons[i] = {"ValidationError", ok.status().message(), {}};
        cancelled = true;
        continue;
      }
      if (!*ok) {
        reasons[i] = {"ConditionalCheckFailed", "The conditional request failed", {}};
        if (a.source->return_values_on_condition_check_failure_all_old && old_item) {
          reasons[i].item = *old_item;
        }
        cancelled = true;
        continue;
      }
    }
    std::optional<Item> new_item;
    switch (a.source->kind) {
      case TransactWriteItem::Kind::kConditionCheck:
        // A condition check is billed as a write of the item it reads.
        costs[a.source->table_name].table += WriteUnits(old_item ? ItemSize(*old_item) : 0);
        continue;
      case TransactWriteItem::Kind::kPut:
        new_item = a.put_item;
        break;
      case TransactWriteItem::Kind::kDelete:
        break;
      case TransactWriteItem::Kind::kUpdate: {
        Item next = old_item ? *old_item : a.key_item;
        Status s = expr::ApplyUpdate(*a.update, &next);
        if (s.ok() && ItemSize(next) > kItemSizeBytesMax) {
          s = ValidationError("Item size to update has exceeded the maximum allowed size");
        }
        if (s.ok()) s = CheckIndexKeyTypes(*a.table, next);
        if (!s.ok()) {
          reasons[i] = {"ValidationError", s.message(), {}};
          cancelled = true;
          continue;
        }
        new_item = std::move(next);
        break;
      }
    }
    if (!cancelled) {
      CapacityCounter& cost = costs[a.source->table_name];
      Status s = StageItemWrite(*a.table, a.key, old_item, new_item, &batch, &cost);
      if (!s.ok()) {
        unlock();
        return s;
      }
    }
  }
  Status status;
  if (!cancelled) status = Commit(&batch);
  unlock();
  DR_RETURN_IF_ERROR(status);
  if (cancelled) {
    Status s(ErrorType::kTransactionCanceled,
             "Transaction cancelled, please refer cancellation reasons for specific reasons " +
                 ReasonList(reasons));
    s.WithCancellationReasons(std::move(reasons));
    return s;
  }
  if (req.client_request_token) Tokens().Remember(*req.client_request_token, std::move(fingerprint));
  TransactWriteItemsResponse resp;
  if (req.return_consumed_capacity != ReturnConsumedCapacity::kNone) {
    resp.has_consumed_capacity = true;
    for (const auto& [name, cost] : costs) {
      CapacityCounter doubled;
      doubled.Add(cost, 2);  // transactions cost twice
      resp.consumed_capacity.push_back(*ReportCapacity(req.return_consumed_capacity, name, doubled, false));
    }
  }
  return resp;
}

StatusOr<TransactGetItemsResponse> DBImpl::TransactGetItems(const TransactGetItemsRequest& req) {
  if (req.transact_items.empty()) {
    return ValidationError(
        "1 validation error detected: Value null at 'transactItems' failed to satisfy "
        "constraint: Member must have length greater than or equal to 1");
  }
  if (req.transact_items.size() > static_cast<size_t>(kTransactItemsMax)) {
    return ValidationError(
        "1 validation error detected: Value at 'transactItems' failed to satisfy constraint: "
        "Member must have length less than or equal to 100");
  }
  struct Read {
    std::string table_name;
    std::string key;
    std::optional<expr::ProjectionSpec> projection;
  };
  std::vector<Read> reads;
  std::set<std::string> seen_keys;
  for (const auto& t : req.transact_items) {
    DR_RETURN_IF_ERROR(ValidateTableName(t.table_name, "tableName"));
    DR_ASSIGN_OR_RETURN(TableInfoPtr table, FindTable(t.table_name));
    Item key = t.key;
    DR_RETURN_IF_ERROR(NormalizeAndValidateItem(&key));
    Read r;
    r.table_name = t.table_name;
    DR_ASSIGN_OR_RETURN(r.key, ItemKey(*table, key, false));
    if (!seen_keys.insert(r.key).second) {
      return ValidationError(
          "Transaction request cannot include multiple operations on one item");
    }
    DR_RETURN_IF_ERROR(CheckExpressionMapsUsed(t.has_expression_attribute_names, false,
                                               t.projection_expression.has_value(), false));
    expr::ExpressionContext ctx(&t.expression_attribute_names, nullptr,
                                t.has_expression_attribute_names, false);
    DR_RETURN_IF_ERROR(ctx.ValidateMaps());
    if (t.projection_expression) {
      DR_ASSIGN_OR_RETURN(r.projection, expr::ParseProjection(*t.projection_expression, &ctx));
    }
    DR_RETURN_IF_ERROR(ctx.CheckAllUsed());
    reads.push_back(std::move(r));
  }
  TransactGetItemsResponse resp;
  const rocksdb::Snapshot* snapshot = db_->GetSnapshot();
  Status status;
  std::map<std::string, CapacityCounter> costs;
  for (const auto& r : reads) {
    auto item = ReadItem(r.key, snapshot);
    if (!item.ok()) {
      status = item.status();
      break;
    }
    // Transactional reads are strongly consistent and cost twice.
    costs[r.table_name].table += 2 * ReadUnits(*item ? ItemSize(**item) : 0, true);
    if (*item && r.projection) {
      resp.responses.push_back(expr::Project(*r.projection, **item));
    } else {
      resp.responses.push_back(std::move(*item));
    }
  }
  db_->ReleaseSnapshot(snapshot);
  DR_RETURN_IF_ERROR(status);
  if (req.return_consumed_capacity != ReturnConsumedCapacity::kNone) {
    resp.has_consumed_capacity = true;
    for (const auto& [name, cost] : costs) {
      resp.consumed_capacity.push_back(*ReportCapacity(req.return_consumed_capacity, name, cost, true));
    }
  }
  return resp;
}

}  // namespace dynarock
