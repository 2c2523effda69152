// File: engine/partiql/execute.cc
//
// ExecuteStatement, BatchExecuteStatement and ExecuteTransaction
// (dynarock/partiql.h): a statement is prepared (prepare.h: parsed once per
// text), planned into the DB's own requests (plan.h) and run through them.

#include <algorithm>
#include <set>
#include <string>
#include <utility>

#include "dynarock/partiql.h"
#include "engine/expr/ast.h"
#include "engine/expr/expression.h"
#include "engine/partiql/plan.h"
#include "engine/partiql/prepare.h"

namespace dynarock {
namespace {

using partiql::AndAll;
using partiql::CheckSelectKeyTypes;
using partiql::DecodeToken;
using partiql::EncodeToken;
using partiql::EqualityOn;
using partiql::Expr;
using partiql::ExpressionWriter;
using partiql::FlattenProjection;
using partiql::KeyFromWhere;
using partiql::KeyNames;
using partiql::KeysOf;
using partiql::Params;
using partiql::PlannedWrite;
using partiql::Prepared;
using partiql::PlanWrite;
using partiql::ProjectionText;
using partiql::SelectPlan;
using partiql::Statement;
using partiql::TablePlan;
using partiql::ValueOf;

// The members a Query and a Scan of a SELECT share; call last (the projection
// adds names). `extra`: top-level attributes read beyond the projection.
template <typename R>
void ReadMembers(const Statement& st, const ExecuteStatementRequest& req,
                 const std::optional<Item>& start, std::optional<int64_t> limit,
                 const std::vector<std::string>& extra, ExpressionWriter& w, R* r) {
  r->projection_expression = ProjectionText(w, st);
  if (r->projection_expression) {
    for (const auto& name : extra) *r->projection_expression += ", " + w.Name(name);
  }
  r->consistent_read = req.consistent_read;
  r->limit = limit;
  r->exclusive_start_key = start;
  r->return_consumed_capacity = req.return_consumed_capacity;
  r->expression_attribute_names = w.names();
  r->has_expression_attribute_names = w.has_names();
  r->expression_attribute_values = w.values();
  r->has_expression_attribute_values = w.has_values();
}

void AddCapacity(const ConsumedCapacity& more, std::optional<ConsumedCapacity>* total) {
  if (!*total) {
    *total = more;
    return;
  }
  ConsumedCapacity& t = **total;
  auto add = [](Capacity& a, const Capacity& b) {
    a.capacity_units += b.capacity_units;
    a.read_capacity_units += b.read_capacity_units;
    a.write_capacity_units += b.write_capacity_units;
  };
  t.capacity_units += more.capacity_units;
  if (more.read_capacity_units) t.read_capacity_units = t.read_capacity_units.value_or(0) + *more.read_capacity_units;
  if (more.table) {
    if (!t.table) t.table = Capacity{};
    add(*t.table, *more.table);
  }
  for (const auto& [name, c] : more.local_secondary_indexes) add(t.local_secondary_indexes[name], c);
  for (const auto& [name, c] : more.global_secondary_indexes) add(t.global_secondary_indexes[name], c);
}

// The conditions a Query's filter cannot hold (on key attributes), applied to
// its items: written and parsed as a FilterExpression, evaluated per item.
class KeyFilter {
 public:
  static StatusOr<KeyFilter> Make(const SelectPlan& plan, const Params& params) {
    KeyFilter f;
    if (plan.key_rest.empty()) return f;
    ExpressionWriter w(params);
    DR_ASSIGN_OR_RETURN(std::string text, AndAll(w, plan.key_rest));
    f.names_ = w.names();
    f.values_ = w.values();
    expr::ExpressionContext ctx(&f.names_, &f.values_, true, true);
    DR_ASSIGN_OR_RETURN(f.condition_, expr::ParseCondition(text, expr::ExpressionKind::kFilter, &ctx));
    for (const Expr* t : plan.key_rest) partiql::NamesRead(*t, &f.reads_);
    return f;
  }
  StatusOr<bool> Passes(const Item& item) const {
    if (!condition_) return true;
    return expr::EvaluateCondition(*condition_, item);
  }
  // Attributes the condition reads (to project, then drop).
  const std::vector<std::string>& reads() const { return reads_; }

 private:
  NameMap names_;
  ValueMap values_;
  expr::ConditionPtr condition_;
  std::vector<std::string> reads_;
};

// A SELECT over several partitions pages with "<partition>:<hex key>" tokens,
// at most this many items read per page.
constexpr int64_t kPartitionsPageItems = 10;
// A SELECT over several partitions pages with "<partition>:<hex key>" tokens.
std::string PartitionToken(size_t partition, const std::optional<Item>& key) {
  return std::to_string(partition) + ":" + (key ? EncodeToken(*key) : std::string());
}

StatusOr<std::pair<size_t, std::optional<Item>>> DecodePartitionToken(const std::string& token,
                                                                      size_t partitions) {
  size_t colon = token.find(':');
  if (colon == std::string::npos || colon == 0 || colon > 4 ||
      token.find_first_not_of("0123456789") != colon) {
    return ValidationError("Invalid NextToken");
  }
  size_t partition = std::stoul(token.substr(0, colon));
  if (partition >= partitions) return ValidationError("Invalid NextToken");
  std::optional<Item> key;
  if (colon + 1 < token.size()) {
    DR_ASSIGN_OR_RETURN(key, DecodeToken(token.substr(colon + 1)));
  }
  return std::make_pair(partition, std::move(key));
}

StatusOr<ExecuteStatementResponse> RunSelect(DB& db, const Prepared& prepared,
                                             const TablePlan& table_plan,
                                             const ExecuteStatementRequest& req) {
  DR_RETURN_IF_ERROR(table_plan.select_status);
  const Statement& st = *prepared.statement;
  const Params& params = *prepared.params;
  const SelectPlan& plan = *table_plan.select;
  const KeyNames& keys = plan.keys;
  ExecuteStatementResponse out;
  DR_RETURN_IF_ERROR(CheckSelectKeyTypes(plan, table_plan.table, params));

  if (plan.get) {
    if (req.next_token) {
      DR_RETURN_IF_ERROR(DecodeToken(*req.next_token).status());
    }
    ExpressionWriter w(params);
    GetItemRequest g;
    g.table_name = st.table;
    g.key.emplace(keys.hash, ValueOf(*EqualityOn(plan.hash_eq, keys.hash), params));
    if (!keys.range.empty()) {
      g.key.emplace(keys.range, ValueOf(*EqualityOn(plan.range_cond, keys.range), params));
    }
    g.consistent_read = req.consistent_read;
    g.projection_expression = ProjectionText(w, st);
    g.expression_attribute_names = w.names();
    g.has_expression_attribute_names = w.has_names();
    g.return_consumed_capacity = req.return_consumed_capacity;
    DR_ASSIGN_OR_RETURN(GetItemResponse r, db.GetItem(g));
    if (r.item) out.items.push_back(std::move(*r.item));
    FlattenProjection(st, &out.items);
    out.consumed_capacity = std::move(r.consumed_capacity);
    return out;
  }

  if (!plan.query()) {
    std::optional<Item> start;
    if (req.next_token) {
      DR_ASSIGN_OR_RETURN(start, DecodeToken(*req.next_token));
    }
    ExpressionWriter w(params);
    ScanRequest s;
    s.table_name = st.table;
    s.index_name = st.index;
    if (st.where) {
      DR_ASSIGN_OR_RETURN(s.filter_expression, w.Condition(*st.where));
    }
    ReadMembers(st, req, start, req.limit, {}, w, &s);
    DR_ASSIGN_OR_RETURN(ScanResponse r, db.Scan(s));
    out.items = std::move(r.items);
    FlattenProjection(st, &out.items);
    out.consumed_capacity = std::move(r.consumed_capacity);
    if (r.last_evaluated_key) {
      out.next_token = EncodeToken(*r.last_evaluated_key);
      out.last_evaluated_key = std::move(r.last_evaluated_key);
    }
    return out;
  }

  // A Query of each partition named (one, or several by IN / OR), in the
  // order written, each value once.
  std::vector<const Expr*> partitions;
  if (plan.hash_eq) partitions.push_back(plan.hash_eq);
  for (const Expr* v : plan.partitions) {
    bool seen = false;
    for (const Expr* p : partitions) seen |= ValueOf(*p, params) == ValueOf(*v, params);
    if (!seen) partitions.push_back(v);
  }
  if (plan.order_partitions) {
    std::stable_sort(partitions.begin(), partitions.end(), [&](const Expr* a, const Expr* b) {
      const AttributeValue& x = ValueOf(*a, params);
      const AttributeValue& y = ValueOf(*b, params);
      if (x.type() != y.type()) return x.type() < y.type();
      int c = expr::CompareScalars(x, y);
      return plan.partitions_descending ? c > 0 : c < 0;
    });
  }
  const bool several = !plan.partitions.empty();
  size_t first = 0;
  std::optional<Item> start;
  if (req.next_token) {
    if (several) {
      DR_ASSIGN_OR_RETURN(auto at, DecodePartitionToken(*req.next_token, partitions.size()));
      first = at.first;
      start = std::move(at.second);
    } else {
      DR_ASSIGN_OR_RETURN(start, DecodeToken(*req.next_token));
    }
  }
  DR_ASSIGN_OR_RETURN(KeyFilter key_filter, KeyFilter::Make(plan, params));
  std::vector<std::string> extra;  // read for the key filter beyond the projection
  if (!st.projection.empty()) {
    for (const auto& name : key_filter.reads()) {
      bool projected = false;
      for (const auto& p : st.projection) projected |= p.size() == 1 && p[0].name == name;
      if (!projected && std::find(extra.begin(), extra.end(), name) == extra.end()) {
        extra.push_back(name);
      }
    }
  }
  // Several partitions page at most 10 items at a time (DynamoDB's IN).
  std::optional<int64_t> remaining = req.limit;
  if (several) remaining = std::min<int64_t>(remaining.value_or(kPartitionsPageItems), kPartitionsPageItems);
  int64_t bytes = 0;
  for (size_t i = first; i < partitions.size(); ++i) {
    ExpressionWriter w(params);
    QueryRequest q;
    q.table_name = st.table;
    q.index_name = st.index;
    const Expr* hash_value = plan.hash_eq ? EqualityOn(plan.hash_eq, keys.hash) : partitions[i];
    std::string key_cond = w.Name(keys.hash) + " = " + w.Value(ValueOf(*hash_value, params));
    if (plan.range_cond) {
      DR_ASSIGN_OR_RETURN(std::string r, w.Condition(*plan.range_cond));
      key_cond += " AND " + r;
    }
    for (const Expr* t : plan.key_more) {
      DR_ASSIGN_OR_RETURN(std::string c, w.Condition(*t));
      key_cond += " AND " + c;
    }
    q.key_condition_expression = std::move(key_cond);
    if (!plan.rest.empty()) {
      DR_ASSIGN_OR_RETURN(q.filter_expression, AndAll(w, plan.rest));
    }
    q.scan_index_forward = plan.forward;
    ReadMembers(st, req, i == first ? start : std::nullopt, remaining, extra, w, &q);
    DR_ASSIGN_OR_RETURN(QueryResponse r, db.Query(q));
    for (Item& item : r.items) {
      DR_ASSIGN_OR_RETURN(bool keep, key_filter.Passes(item));
      if (!keep) continue;
      for (const auto& name : extra) item.erase(name);
      out.items.push_back(std::move(item));
    }
    if (r.consumed_capacity) AddCapacity(*r.consumed_capacity, &out.consumed_capacity);
    bytes += r.bytes_read;
    if (remaining) *remaining -= r.scanned_count;
    if (r.last_evaluated_key) {
      out.next_token = several ? PartitionToken(i, r.last_evaluated_key)
                               : EncodeToken(*r.last_evaluated_key);
      out.last_evaluated_key = std::move(r.last_evaluated_key);
      break;
    }
    // A page ends at the Limit or at 1 MB read, between partitions too.
    if (i + 1 < partitions.size() && ((remaining && *remaining <= 0) || bytes >= (1 << 20))) {
      out.next_token = PartitionToken(i + 1, std::nullopt);
      break;
    }
  }
  FlattenProjection(st, &out.items);
  return out;
}

Status AsDuplicate(const Status& s) {
  if (s.type() == ErrorType::kConditionalCheckFailed) {
    return Status(ErrorType::kDuplicateItem, "Duplicate primary key exists in table");
  }
  return s;
}

StatusOr<ExecuteStatementResponse> RunWrite(DB& db, const Prepared& prepared,
                                            const TablePlan& table_plan, bool old_on_failure,
                                            ReturnConsumedCapacity capacity) {
  DR_ASSIGN_OR_RETURN(PlannedWrite p,
                      PlanWrite(*prepared.statement, *prepared.params, table_plan.table));
  const TransactWriteItem& t = p.item;
  ExecuteStatementResponse out;
  auto copy_common = [&](auto& r) {
    r.table_name = t.table_name;
    r.condition_expression = t.condition_expression;
    r.expression_attribute_names = t.expression_attribute_names;
    r.has_expression_attribute_names = t.has_expression_attribute_names;
    r.expression_attribute_values = t.expression_attribute_values;
    r.has_expression_attribute_values = t.has_expression_attribute_values;
    r.return_consumed_capacity = capacity;
    r.return_values_on_condition_check_failure_all_old = old_on_failure;
  };
  if (t.kind == TransactWriteItem::Kind::kPut) {
    PutItemRequest r;
    copy_common(r);
    r.item = t.item;
    auto resp = db.PutItem(r);
    if (!resp.ok()) return AsDuplicate(resp.status());
    out.consumed_capacity = std::move(resp->consumed_capacity);
  } else if (t.kind == TransactWriteItem::Kind::kUpdate) {
    UpdateItemRequest r;
    copy_common(r);
    r.key = t.key;
    r.update_expression = t.update_expression;
    r.return_values = p.return_values;
    DR_ASSIGN_OR_RETURN(UpdateItemResponse resp, db.UpdateItem(r));
    if (resp.attributes) out.items.push_back(std::move(*resp.attributes));
    out.consumed_capacity = std::move(resp.consumed_capacity);
  } else if (t.kind == TransactWriteItem::Kind::kDelete) {
    DeleteItemRequest r;
    copy_common(r);
    r.key = t.key;
    r.return_values = p.return_values;
    DR_ASSIGN_OR_RETURN(DeleteItemResponse resp, db.DeleteItem(r));
    if (resp.attributes) out.items.push_back(std::move(*resp.attributes));
    out.consumed_capacity = std::move(resp.consumed_capacity);
  } else {
    return ValidationError("EXISTS can only be used in ExecuteTransaction write requests.");
  }
  return out;
}

// The DB names the expression parameter an error is in ("Invalid
// FilterExpression: ..."); a statement's author wrote no such parameter.
Status WithoutExpressionName(Status s) {
  if (s.ok() || s.type() != ErrorType::kValidation) return s;
  static const char* kPrefixes[] = {"Invalid FilterExpression: ", "Invalid KeyConditionExpression: ",
                                    "Invalid ConditionExpression: ", "Invalid UpdateExpression: ",
                                    "Invalid ProjectionExpression: "};
  for (const char* prefix : kPrefixes) {
    if (s.message().rfind(prefix, 0) == 0) {
      Status plain(s.type(), s.message().substr(std::string_view(prefix).size()));
      if (s.item()) plain.WithItem(*s.item());
      return plain;
    }
  }
  return s;
}

template <typename T>
StatusOr<T> WithoutExpressionName(StatusOr<T> r) {
  if (r.ok()) return r;
  return WithoutExpressionName(r.status());
}

// The key of the item a statement reads or writes by its key (INSERT's
// VALUE, a WHERE that fixes the key); empty when none.
Item ItemKeyOf(DB& db, const Prepared& p) {
  Item key;
  auto table = partiql::PlanTable(db, p);
  if (!table.ok()) return key;
  const Statement& st = *p.statement;
  const KeyNames names = KeysOf((*table)->table.key_schema);
  if (st.kind == Statement::Kind::kInsert) {
    for (const auto& [member, value] : st.insert_value) {
      if (member == names.hash || member == names.range) key.insert_or_assign(member, value);
    }
    for (const auto& [member, slot] : st.insert_params) {
      if (member == names.hash || member == names.range) key.insert_or_assign(member, (*p.params)[slot]);
    }
  } else if (!st.index) {
    auto kw = KeyFromWhere(st, *p.params, names);
    if (kw.ok()) key = std::move(kw->key);
  }
  return key;
}

}  // namespace

std::optional<std::pair<std::string, Item>> StatementWriteKey(DB& db, const std::string& statement,
                                                              const std::vector<AttributeValue>& parameters) {
  auto p = partiql::Prepare(statement, parameters);
  if (!p.ok() || p->statement->kind == Statement::Kind::kSelect || p->statement->kind == Statement::Kind::kExists) {
    return std::nullopt;
  }
  Item key = ItemKeyOf(db, *p);
  if (key.empty()) return std::nullopt;
  return std::make_pair(p->statement->table, std::move(key));
}

StatusOr<ExecuteStatementResponse> ExecuteStatement(DB& db, const ExecuteStatementRequest& req) {
  if (req.limit && *req.limit < 1) {
    return ValidationError("1 validation error detected: Value '" + std::to_string(*req.limit) +
                           "' at 'limit' failed to satisfy constraint: Member must have value "
                           "greater than or equal to 1");
  }
  DR_ASSIGN_OR_RETURN(Prepared p, partiql::Prepare(req.statement, req.parameters));
  DR_ASSIGN_OR_RETURN(std::shared_ptr<const TablePlan> plan, partiql::PlanTable(db, p));
  if (p.statement->kind == Statement::Kind::kSelect) {
    return WithoutExpressionName(RunSelect(db, p, *plan, req));
  }
  if (req.next_token) return ValidationError("NextToken is only valid for a SELECT");
  return WithoutExpressionName(RunWrite(db, p, *plan,
                                        req.return_values_on_condition_check_failure_all_old,
                                        req.return_consumed_capacity));
}

StatusOr<BatchExecuteStatementResponse> BatchExecuteStatement(
    DB& db, const BatchExecuteStatementRequest& req) {
  if (req.statements.empty() || req.statements.size() > 25) {
    return ValidationError(
        "1 validation error detected: Value at 'statements' failed to satisfy constraint: "
        "Member must have length " +
        std::string(req.statements.empty() ? "greater than or equal to 1"
                                           : "less than or equal to 25"));
  }
  // Parse everything first: reads and writes are not mixed in one batch.
  std::vector<StatusOr<Prepared>> parsed;
  bool reads = false, writes = false;
  for (const auto& s : req.statements) {
    parsed.push_back(partiql::Prepare(s.statement, s.parameters));
    if (parsed.back().ok()) {
      (parsed.back()->statement->kind == Statement::Kind::kSelect ? reads : writes) = true;
    }
  }
  if (reads && writes) {
    return ValidationError("Read and write requests together in the same batch is not supported.");
  }
  // One item once per batch, as BatchWriteItem and BatchGetItem (statements
  // that fail on their own are left to report it).
  std::set<std::string> keys;
  for (const auto& p : parsed) {
    if (!p.ok()) continue;
    Item key = ItemKeyOf(db, *p);
    if (key.empty()) continue;
    const Statement& st = *p->statement;
    if (!keys.insert(st.table + '\0' + partiql::EncodeToken(key)).second) {
      return ValidationError("Provided list of item keys contains duplicates");
    }
  }
  BatchExecuteStatementResponse out;
  for (size_t i = 0; i < req.statements.size(); ++i) {
    BatchStatementResponse r;
    StatusOr<ExecuteStatementResponse> done = parsed[i].status();
    if (parsed[i].ok()) {
      const Prepared& p = *parsed[i];
      const Statement& st = *p.statement;
      r.table_name = st.table;
      auto table = partiql::PlanTable(db, p);
      if (!table.ok()) {
        done = table.status();
      } else if (st.kind == Statement::Kind::kSelect) {
        // Reads name one item by its whole key, and nothing else.
        bool single = false;
        if (!st.index) {
          auto kw = KeyFromWhere(st, *p.params, KeysOf((*table)->table.key_schema));
          single = kw.ok() && kw->rest.empty();
        }
        ExecuteStatementRequest one;
        one.consistent_read = req.statements[i].consistent_read;
        one.return_consumed_capacity = req.return_consumed_capacity;
        if (!single) {
          done = ValidationError("Select statements within BatchExecuteStatement must specify the "
                                 "primary key in the where clause.");
        } else {
          done = RunSelect(db, p, **table, one);
        }
      } else {
        done = RunWrite(db, p, **table,
                        req.statements[i].return_values_on_condition_check_failure_all_old,
                        req.return_consumed_capacity);
      }
    }
    done = WithoutExpressionName(std::move(done));
    if (done.ok()) {
      if (!done->items.empty()) r.item = std::move(done->items.front());
      if (done->consumed_capacity) out.consumed_capacity.push_back(*done->consumed_capacity);
    } else {
      std::string code(ErrorTypeName(done.status().type()));
      if (code.size() > 9 && code.compare(code.size() - 9, 9, "Exception") == 0) {
        code.resize(code.size() - 9);
      }
      if (code == "Validation") code = "ValidationError";
      // The statement's table is named when the statement ran (a failed
      // condition, a duplicate), not when it was refused before.
      if (code == "ValidationError" || code == "ResourceNotFound") r.table_name.reset();
      r.error_code = std::move(code);
      r.error_message = done.status().message();
      if (done.status().item()) r.error_item = *done.status().item();
    }
    out.responses.push_back(std::move(r));
  }
  return out;
}

StatusOr<ExecuteTransactionResponse> ExecuteTransaction(DB& db,
                                                        const ExecuteTransactionRequest& req) {
  const auto& statements = req.transact_statements;
  if (statements.empty() || statements.size() > 100) {
    return ValidationError(
        "1 validation error detected: Value at 'transactStatements' failed to satisfy "
        "constraint: Member must have length " +
        std::string(statements.empty() ? "greater than or equal to 1"
                                       : "less than or equal to 100"));
  }
  // A statement's own problem names the statement (syntax errors excepted).
  auto in_statement = [](size_t i, const Status& s) {
    if (s.type() != ErrorType::kValidation ||
        s.message().rfind("Statement wasn't well formed", 0) == 0) {
      return s;
    }
    return ValidationError("Validation failed in TransactStatements[" + std::to_string(i) +
                           "]: " + s.message());
  };
  std::vector<Prepared> parsed;
  bool reads = false, writes = false;
  for (size_t i = 0; i < statements.size(); ++i) {
    auto p = partiql::Prepare(statements[i].statement, statements[i].parameters);
    if (!p.ok()) return in_statement(i, p.status());
    (p->statement->kind == Statement::Kind::kSelect ? reads : writes) = true;
    parsed.push_back(std::move(*p));
  }
  if (reads && writes) {
    return ValidationError("ExecuteTransaction API does not support both read and write "
                           "operations in the same request.");
  }
  ExecuteTransactionResponse out;
  if (reads) {
    TransactGetItemsRequest g;
    g.return_consumed_capacity = req.return_consumed_capacity;
    for (size_t i = 0; i < parsed.size(); ++i) {
      const Statement& st = *parsed[i].statement;
      if (st.index) {
        return in_statement(i, ValidationError("Reads on indices are not supported within "
                                               "transactions."));
      }
      DR_ASSIGN_OR_RETURN(std::shared_ptr<const TablePlan> table,
                          partiql::PlanTable(db, parsed[i]));
      auto kw = KeyFromWhere(st, *parsed[i].params, KeysOf(table->table.key_schema));
      if (!kw.ok() || !kw->rest.empty()) {
        return in_statement(i, ValidationError("Select statements within ExecuteTransaction must "
                                               "specify the primary key in the where clause."));
      }
      TransactGetItem item;
      item.table_name = st.table;
      item.key = std::move(kw->key);
      ExpressionWriter w(*parsed[i].params);
      item.projection_expression = ProjectionText(w, st);
      item.expression_attribute_names = w.names();
      item.has_expression_attribute_names = w.has_names();
      g.transact_items.push_back(std::move(item));
    }
    DR_ASSIGN_OR_RETURN(TransactGetItemsResponse r,
                        WithoutExpressionName(db.TransactGetItems(g)));
    out.responses = std::move(r.responses);
    out.consumed_capacity = std::move(r.consumed_capacity);
    return out;
  }
  TransactWriteItemsRequest w;
  w.client_request_token = req.client_request_token;
  w.return_consumed_capacity = req.return_consumed_capacity;
  for (size_t i = 0; i < parsed.size(); ++i) {
    const Statement& st = *parsed[i].statement;
    if (st.returning) {
      return in_statement(i, ValidationError("RETURNING clause is not supported in "
                                             "ExecuteTransaction."));
    }
    auto table = partiql::PlanTable(db, parsed[i]);
    if (!table.ok()) return table.status();
    auto planned = PlanWrite(st, *parsed[i].params, (*table)->table);
    if (!planned.ok()) return in_statement(i, planned.status());
    PlannedWrite& p = *planned;
    p.item.return_values_on_condition_check_failure_all_old =
        statements[i].return_values_on_condition_check_failure_all_old;
    w.transact_items.push_back(std::move(p.item));
  }
  auto r = db.TransactWriteItems(w);
  if (!r.ok()) {
    // An INSERT whose item exists is cancelled as a DuplicateItem.
    Status s = r.status();
    if (s.type() == ErrorType::kTransactionCanceled) {
      std::vector<CancellationReason> reasons = s.cancellation_reasons();
      for (size_t i = 0; i < reasons.size() && i < parsed.size(); ++i) {
        if (parsed[i].statement->kind == Statement::Kind::kInsert &&
            reasons[i].code == "ConditionalCheckFailed") {
          reasons[i].code = "DuplicateItem";
          reasons[i].message = "Duplicate primary key exists in table";
        }
      }
      std::string message = "Transaction cancelled, please refer cancellation reasons for specific "
                            "reasons [";
      for (size_t i = 0; i < reasons.size(); ++i) message += (i ? ", " : "") + reasons[i].code;
      message += "]";
      Status renamed(ErrorType::kTransactionCanceled, message);
      renamed.WithCancellationReasons(std::move(reasons));
      return renamed;
    }
    return WithoutExpressionName(s);
  }
  out.consumed_capacity = std::move(r->consumed_capacity);
  return out;
}

}  // namespace dynarock
