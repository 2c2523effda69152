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
#include <cmath>
#include <cstring>
#include <set>
#include <utility>

#include "engine/coding.h"
#include "engine/db_impl.h"
#include "dynarock/item_size.h"
#include "engine/capacity.h"
#include "engine/item_validation.h"
#include "engine/limits.h"
#include "engine/request_checks.h"
#include "engine/rocksdb_status.h"
#include "engine/table_validation.h"
#include "index/maintainer.h"

namespace dynarock {
namespace {

constexpr auto kIdempotencyWindow = std::chrono::minutes(10);

// Catalog records of completed tokens: "k/<token>" -> fixed64 fingerprint |
// fixed64 completion time in milliseconds since the epoch (big-endian, coding.h).
// Never change.
constexpr char kTokenPrefix[] = "k/";

std::string TokenRecord(uint64_t fingerprint, int64_t completed_ms) {
  std::string out;
  PutFixed64(&out, fingerprint);
  PutFixed64(&out, static_cast<uint64_t>(completed_ms));
  return out;
}

// A stable text of the request, to tell a retry from a different request that
// reuses a ClientRequestToken.
std::string FingerprintText(const TransactWriteItemsRequest& req) {
  std::string out;
  for (const auto& t : req.transact_items) {
    out += std::to_string(static_cast<int>(t.kind)) + "|" + t.table_name + "|" +
           DebugString(t.item) + DebugString(t.key) + "|" + t.update_expression.value_or("") +
           "|" + t.condition_expression.value_or("") + "|" +
           (t.return_values_on_condition_check_failure_all_old ? "ALL_OLD|" : "NONE|");
    for (const auto& [k, v] : t.expression_attribute_names) out += k + "=" + v + ",";
    out += DebugString(t.expression_attribute_values) + ";";
  }
  return out;
}

uint64_t Fingerprint(const TransactWriteItemsRequest& req) { return Fnv1a64(FingerprintText(req)); }

Status TransactionTooLarge(size_t bytes) {
  return ValidationError(
      "The aggregate size of the items in the transaction cannot exceed 4 MB; size: " +
      std::to_string(bytes) + " bytes");
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

// ---------------------------------------------------------------- IdempotencyCache

IdempotencyCache::Claim IdempotencyCache::Begin(const std::string& token, uint64_t fingerprint,
                                                const DropRecords& drop, Status* error) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto now = std::chrono::steady_clock::now();
  std::vector<std::string> expired;
  for (auto e = expiry_.begin(); e != expiry_.end() && e->first <= now; ++e) {
    auto it = entries_.find(e->second);
    if (it != entries_.end() && it->second.done) expired.push_back(e->second);
  }
  if (!expired.empty()) drop(expired);
  while (!expiry_.empty() && expiry_.front().first <= now) expiry_.pop_front();
  for (const std::string& t : expired) entries_.erase(t);

  auto it = entries_.find(token);
  if (it == entries_.end()) {
    entries_.emplace(token, Entry{fingerprint, /*done=*/false});
    return Claim::kRun;
  }
  if (it->second.fingerprint != fingerprint) {
    *error = Status(ErrorType::kIdempotentParameterMismatch,
                    "Request parameters do not match the previous request with the same "
                    "ClientRequestToken");
    return Claim::kRefuse;
  }
  if (!it->second.done) {
    *error = Status(ErrorType::kTransactionInProgress,
                    "The transaction with the given request token is already in progress.");
    return Claim::kRefuse;
  }
  return Claim::kAlreadyDone;
}

void IdempotencyCache::Finish(const std::string& token, bool succeeded) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(token);
  if (it == entries_.end()) return;
  if (!succeeded) {  // nothing happened: a retry runs again
    entries_.erase(it);
    return;
  }
  it->second.done = true;
  // The ten minutes run from the completion of the first request.
  expiry_.emplace_back(std::chrono::steady_clock::now() + kIdempotencyWindow, token);
}

void IdempotencyCache::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  entries_.clear();
  expiry_.clear();
}

void IdempotencyCache::Load(std::vector<Completed> tokens) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto now = std::chrono::steady_clock::now();
  for (Completed& c : tokens) {
    entries_[c.token] = Entry{c.fingerprint, /*done=*/true};
    expiry_.emplace_back(now + c.remaining, std::move(c.token));
  }
  std::sort(expiry_.begin(), expiry_.end());  // loaded in key order
}

Status DBImpl::LoadIdempotencyTokens() {
  const int64_t now = std::llround(NowEpochSeconds() * 1000);
  const int64_t window = std::chrono::duration_cast<std::chrono::milliseconds>(kIdempotencyWindow).count();
  rocksdb::WriteBatch stale;
  std::vector<IdempotencyCache::Completed> loaded;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), catalog_cf_));
  for (it->Seek(kTokenPrefix); it->Valid() && it->key().starts_with(kTokenPrefix); it->Next()) {
    const std::string token = it->key().ToString().substr(sizeof(kTokenPrefix) - 1);
    std::string_view value(it->value().data(), it->value().size());
    uint64_t fingerprint = 0, completed = 0;
    const bool whole = value.size() == 16 && GetFixed64(&value, &fingerprint) &&
                       GetFixed64(&value, &completed);
    const int64_t left = static_cast<int64_t>(completed) + window - now;
    if (!whole || left <= 0 || left > window) {
      stale.Delete(catalog_cf_, it->key()).PermitUncheckedError();
      continue;
    }
    loaded.push_back({token, fingerprint, std::chrono::milliseconds(left)});
  }
  DR_RETURN_IF_ERROR(FromRocksDB(it->status()));
  tokens_.Load(std::move(loaded));
  if (stale.Count() == 0 || options_.read_only) return Status();
  return Commit(&stale);
}

StatusOr<TransactWriteItemsResponse> DBImpl::TransactWriteItems(
    const TransactWriteItemsRequest& req) {
  if (req.transact_items.empty()) {
    return ValidationError(
        "1 validation error detected: Value '[]' at 'transactItems' failed to satisfy "
        "constraint: Member must have length greater than or equal to 1");
  }
  if (req.transact_items.size() > static_cast<size_t>(kTransactItemsMax)) {
    return ValidationError(
        "1 validation error detected: Value at 'transactItems' failed to satisfy constraint: "
        "Member must have length less than or equal to 100");
  }
  if (req.client_request_token) {
    const std::string& token = *req.client_request_token;
    if (token.empty() || token.size() > kClientRequestTokenCharsMax) {
      return ValidationError("1 validation error detected: Value '" + token +
                             "' at 'clientRequestToken' failed to satisfy constraint: Member must "
                             "have length " + (token.empty() ? "greater than or equal to 1"
                                                             : "less than or equal to 36"));
    }
    // One request per token at a time: a concurrent retry is refused
    // (TransactionInProgressException), a later one is answered without
    // running again, one with other parameters is a mismatch.
    // Records of tokens past their ten minutes go as later tokens are claimed.
    auto drop = [this](const std::vector<std::string>& expired) {
      rocksdb::WriteBatch stale;
      for (const auto& t : expired) stale.Delete(catalog_cf_, kTokenPrefix + t).PermitUncheckedError();
      Status ignored = Commit(&stale);  // a leftover record is dropped at the next open
      (void)ignored;
    };
    const uint64_t fingerprint = Fingerprint(req);
    Status error;
    switch (tokens_.Begin(token, fingerprint, drop, &error)) {
      case IdempotencyCache::Claim::kRefuse:
        return error;
      case IdempotencyCache::Claim::kAlreadyDone:
        return ReplayedTransaction(req);
      case IdempotencyCache::Claim::kRun:
        break;
    }
    // Finished on every way out, an exception included, or the token would
    // stay "in progress" for the life of the process.
    struct FinishToken {
      IdempotencyCache& cache;
      const std::string& token;
      bool ok = false;
      ~FinishToken() { cache.Finish(token, ok); }
    } finish{tokens_, token};
    const std::pair<std::string, std::string> record{kTokenPrefix + token,
                                                     TokenRecord(fingerprint, std::llround(NowEpochSeconds() * 1000))};
    StatusOr<TransactWriteItemsResponse> result = RunTransactWriteItems(req, &record);
    finish.ok = result.ok();
    return result;
  }
  return RunTransactWriteItems(req);
}

// A retry of a completed transaction changes nothing; with ReturnConsumedCapacity
// it reports "the number of read capacity units consumed in reading the item"
// (ClientRequestToken in DynamoDB's API reference): a strongly consistent read
// of each item the transaction names.
TransactWriteItemsResponse DBImpl::ReplayedTransaction(const TransactWriteItemsRequest& req) {
  TransactWriteItemsResponse resp;
  if (req.return_consumed_capacity == ReturnConsumedCapacity::kNone) return resp;
  std::map<std::string, CapacityCounter> costs;
  for (const auto& t : req.transact_items) {
    auto table = FindTable(t.table_name);
    if (!table.ok()) continue;
    Item key = t.kind == TransactWriteItem::Kind::kPut ? KeyAttributes((*table)->key, t.item) : t.key;
    if (!NormalizeAndValidateItem(&key).ok()) continue;
    auto encoded = ItemKey(**table, key, false);
    if (!encoded.ok()) continue;
    auto item = ReadItem(*encoded);
    const size_t size = item.ok() && *item ? ItemSize(**item) : 0;
    costs[t.table_name].table += ReadUnits(size, true);
  }
  resp.has_consumed_capacity = true;
  for (const auto& [name, cost] : costs) {
    resp.consumed_capacity.push_back(*ReportCapacity(req.return_consumed_capacity, name, cost,
                                                     /*is_read=*/true, /*transactional=*/true));
  }
  return resp;
}

StatusOr<TransactWriteItemsResponse> DBImpl::RunTransactWriteItems(
    const TransactWriteItemsRequest& req, const std::pair<std::string, std::string>* token_record) {

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
  size_t request_bytes = 0;
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
    DR_RETURN_IF_ERROR(CheckExpressionMapsUsed(
        t.has_expression_attribute_names, t.has_expression_attribute_values, any_expression,
        any_expression,
        t.kind == TransactWriteItem::Kind::kUpdate ? "UpdateExpression and ConditionExpression"
                                                   : "ConditionExpression"));
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
      DR_RETURN_IF_ERROR(CheckUpdatedPaths(expr::UpdatedPaths(*a.update), *a.table));
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
    if (a.condition) {
      DR_RETURN_IF_ERROR(
          CheckKeyPathsScalar(expr::ConditionPaths(*a.condition), a.table->key, nullptr));
    }
    request_bytes += is_put ? ItemSize(a.put_item) : ItemSize(a.key_item);
    actions.push_back(std::move(a));
  }
  if (request_bytes > kTransactBytesMax) return TransactionTooLarge(request_bytes);

  // Lock the items' stripes in ascending order (no deadlock). A stripe that is
  // busy because another transaction holds one of our items cancels this one
  // with TransactionConflict, as DynamoDB does; otherwise wait for it.
  std::map<size_t, std::vector<size_t>> by_stripe;  // stripe -> action indexes
  for (size_t i = 0; i < actions.size(); ++i) by_stripe[StripeOf(actions[i].key)].push_back(i);
  // Releases the stripes and the held keys on every way out, an exception
  // included (a stripe left locked would stall every later write to it).
  struct Unlock {
    DBImpl* db;
    const std::vector<Action>& actions;
    std::vector<size_t> locked;
    bool held = false;
    bool done = false;
    void operator()() {
      if (done) return;
      done = true;
      if (held) {
        std::lock_guard<std::mutex> lock(db->held_mu_);
        for (const auto& a : actions) db->transaction_held_.erase(a.key);
      }
      for (auto it = locked.rbegin(); it != locked.rend(); ++it) db->Stripe(*it).unlock();
    }
    ~Unlock() { (*this)(); }
  } unlock{this, actions, {}};
  std::vector<size_t>& locked = unlock.locked;
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
    unlock();
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
    unlock.held = true;
  }

  std::vector<CancellationReason> reasons(actions.size(), CancellationReason{"None", "", {}});
  bool cancelled = false;
  WriteSet batch;
  std::map<std::string, CapacityCounter> costs;  // by table as named in the request
  std::map<std::string, double> billed;          // what a cancellation still costs
  size_t touched_bytes = 0;                      // the larger of old and new, per item
  static const Item kEmpty;
  for (size_t i = 0; i < actions.size(); ++i) {
    Action& a = actions[i];
    auto old = ReadItem(a.key);
    if (!old.ok()) {
      unlock();
      return old.status();
    }
    const std::optional<Item>& old_item = *old;
    const size_t old_size = old_item ? ItemSize(*old_item) : 0;
    billed[a.source->table_name] += 2 * WriteUnits(old_size);
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
        costs[a.source->table_name].table += WriteUnits(old_size);
        touched_bytes += old_size;
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
        if (s.ok()) s = CheckIndexKeyTypes(*a.table, next, /*by_update=*/true);
        if (!s.ok()) {
          reasons[i] = {"ValidationError", s.message(), {}};
          cancelled = true;
          continue;
        }
        new_item = std::move(next);
        break;
      }
    }
    touched_bytes += std::max(old_size, new_item ? ItemSize(*new_item) : size_t{0});
    if (!cancelled) {
      CapacityCounter& cost = costs[a.source->table_name];
      Status s = StageItemWrite(*a.table, a.key, old_item, new_item, &batch, &cost);
      if (!s.ok()) {
        unlock();
        return s;
      }
    }
  }
  if (!cancelled && touched_bytes > kTransactBytesMax) {
    unlock();
    return TransactionTooLarge(touched_bytes);
  }
  Status status;
  if (!cancelled && token_record) {
    // The token is remembered in the same commit as the transaction: after a
    // crash both are there or neither.
    status = FromRocksDB(batch.batch.Put(catalog_cf_, token_record->first, token_record->second));
  }
  if (!cancelled && status.ok()) status = Commit(&batch);
  unlock();
  DR_RETURN_IF_ERROR(status);
  if (cancelled) {
    Status s(ErrorType::kTransactionCanceled,
             "Transaction cancelled, please refer cancellation reasons for specific reasons " +
                 ReasonList(reasons));
    s.WithCancellationReasons(std::move(reasons));
    // DynamoDB bills a cancelled transaction: each item's write, twice.
    std::vector<BilledCapacity> bill;
    for (const auto& [table, units] : billed) bill.push_back({table, 0, units});
    s.WithBilled(std::move(bill));
    return s;
  }
  TransactWriteItemsResponse resp;
  if (req.return_item_collection_metrics) {
    std::set<std::pair<std::string, std::string>> done;
    for (const auto& a : actions) {
      if (a.source->kind == TransactWriteItem::Kind::kConditionCheck) continue;
      auto m = CollectionMetrics(*a.table, a.key_item, true);
      if (!m) continue;
      const std::string partition = DebugString(m->item_collection_key);
      if (done.emplace(a.source->table_name, partition).second) {
        resp.item_collection_metrics[a.source->table_name].push_back(std::move(*m));
      }
    }
  }
  if (req.return_consumed_capacity != ReturnConsumedCapacity::kNone) {
    resp.has_consumed_capacity = true;
    for (const auto& [name, cost] : costs) {
      CapacityCounter doubled;
      doubled.Add(cost, 2);  // transactions cost twice
      resp.consumed_capacity.push_back(*ReportCapacity(req.return_consumed_capacity, name, doubled, false,
                                                      /*transactional=*/true));
    }
  }
  return resp;
}

StatusOr<TransactGetItemsResponse> DBImpl::TransactGetItems(const TransactGetItemsRequest& req) {
  if (req.transact_items.empty()) {
    return ValidationError(
        "1 validation error detected: Value '[]' at 'transactItems' failed to satisfy "
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
    if (r.projection) DR_RETURN_IF_ERROR(CheckKeyPathsScalar(r.projection->paths, *table));
    reads.push_back(std::move(r));
  }
  TransactGetItemsResponse resp;
  const rocksdb::Snapshot* snapshot = db_->GetSnapshot();
  Status status;
  std::map<std::string, CapacityCounter> costs;
  size_t read_bytes = 0;
  for (const auto& r : reads) {
    auto item = ReadForResponse(r.key, snapshot, r.projection, req.encoded_items);
    if (!item.ok()) {
      status = item.status();
      break;
    }
    // Transactional reads are strongly consistent and cost twice.
    costs[r.table_name].table += 2 * ReadUnits(item->size, true);
    read_bytes += item->size;
    if (req.encoded_items) {
      resp.encoded_responses.push_back(std::move(item->encoded));
    } else {
      resp.responses.push_back(std::move(item->item));
    }
  }
  db_->ReleaseSnapshot(snapshot);
  DR_RETURN_IF_ERROR(status);
  if (read_bytes > kTransactBytesMax) return TransactionTooLarge(read_bytes);
  resp.bytes_read = static_cast<int64_t>(read_bytes);
  if (req.return_consumed_capacity != ReturnConsumedCapacity::kNone) {
    resp.has_consumed_capacity = true;
    for (const auto& [name, cost] : costs) {
      resp.consumed_capacity.push_back(*ReportCapacity(req.return_consumed_capacity, name, cost, true,
                                                      /*transactional=*/true));
    }
  }
  return resp;
}

}  // namespace dynarock
