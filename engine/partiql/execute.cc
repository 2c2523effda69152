// File: engine/partiql/execute.cc
//
// ExecuteStatement, BatchExecuteStatement and ExecuteTransaction
// (dynarock/partiql.h): a parsed statement is planned into the DB's own
// requests, its conditions written in DynamoDB's expression language with
// #name and :value placeholders, so that the DB validates, evaluates, bills
// and logs them exactly as it does its JSON counterparts.
//
//   SELECT, WHERE fixing every key attribute (table only)   -> GetItem
//   SELECT, WHERE fixing the partition key (table or index) -> Query: key
//           attributes' conditions as the key condition, the rest a filter
//   SELECT, otherwise                                        -> Scan with a filter
//   INSERT  -> PutItem if the key does not exist (DuplicateItemException)
//   UPDATE  -> UpdateItem of the key the WHERE fixes, the item must exist, the
//              rest of the WHERE a condition
//   DELETE  -> DeleteItem likewise
//   EXISTS  -> (transactions) a ConditionCheck

#include <algorithm>
#include <functional>
#include <string>
#include <utility>

#include "dynarock/partiql.h"
#include "engine/item_codec.h"
#include "engine/partiql/parser.h"

namespace dynarock {
namespace {

using partiql::Expr;
using partiql::Path;
using partiql::Statement;

// DynamoDB expressions with placeholders, built from PartiQL's.
class ExpressionWriter {
 public:
  std::string Name(const std::string& name) {
    auto it = name_keys_.find(name);
    if (it != name_keys_.end()) return it->second;
    std::string key = "#p" + std::to_string(name_keys_.size());
    name_keys_.emplace(name, key);
    names_.emplace(key, name);
    return key;
  }
  std::string Value(const AttributeValue& v) {
    std::string key = ":p" + std::to_string(values_.size());
    values_.emplace(key, v);
    return key;
  }
  std::string PathText(const Path& p) {
    std::string out;
    for (const auto& step : p) {
      if (step.is_index) {
        out += "[" + std::to_string(step.index) + "]";
      } else {
        if (!out.empty()) out += ".";
        out += Name(step.name);
      }
    }
    return out;
  }

  StatusOr<std::string> Operand(const Expr& e) {
    switch (e.kind) {
      case Expr::Kind::kPath: return PathText(e.path);
      case Expr::Kind::kValue: return Value(e.value);
      case Expr::Kind::kCall:
        if (e.op == "size" && e.args.size() == 1 && e.args[0]->kind == Expr::Kind::kPath) {
          return "size(" + PathText(e.args[0]->path) + ")";
        }
        return Unsupported("the function " + e.op + " here");
      case Expr::Kind::kArith: {
        DR_ASSIGN_OR_RETURN(std::string a, Operand(*e.args[0]));
        DR_ASSIGN_OR_RETURN(std::string b, Operand(*e.args[1]));
        return a + " " + e.op + " " + b;
      }
      default:
        return Unsupported("a condition where a value belongs");
    }
  }

  StatusOr<std::string> Condition(const Expr& e) {
    switch (e.kind) {
      case Expr::Kind::kCompare: {
        DR_ASSIGN_OR_RETURN(std::string a, Operand(*e.args[0]));
        DR_ASSIGN_OR_RETURN(std::string b, Operand(*e.args[1]));
        return a + " " + e.op + " " + b;
      }
      case Expr::Kind::kBetween: {
        DR_ASSIGN_OR_RETURN(std::string a, Operand(*e.args[0]));
        DR_ASSIGN_OR_RETURN(std::string lo, Operand(*e.args[1]));
        DR_ASSIGN_OR_RETURN(std::string hi, Operand(*e.args[2]));
        return a + " BETWEEN " + lo + " AND " + hi;
      }
      case Expr::Kind::kIn: {
        DR_ASSIGN_OR_RETURN(std::string a, Operand(*e.args[0]));
        std::string out = a + " IN (";
        for (size_t i = 1; i < e.args.size(); ++i) {
          DR_ASSIGN_OR_RETURN(std::string v, Operand(*e.args[i]));
          out += (i > 1 ? ", " : "") + v;
        }
        return out + ")";
      }
      case Expr::Kind::kAnd:
      case Expr::Kind::kOr: {
        DR_ASSIGN_OR_RETURN(std::string a, Condition(*e.args[0]));
        DR_ASSIGN_OR_RETURN(std::string b, Condition(*e.args[1]));
        return "(" + a + ") " + (e.kind == Expr::Kind::kAnd ? "AND" : "OR") + " (" + b + ")";
      }
      case Expr::Kind::kNot: {
        DR_ASSIGN_OR_RETURN(std::string a, Condition(*e.args[0]));
        return "NOT (" + a + ")";
      }
      case Expr::Kind::kIsMissing: {
        if (e.args[0]->kind != Expr::Kind::kPath) return Unsupported("IS MISSING on a value");
        std::string p = PathText(e.args[0]->path);
        return std::string(e.negated ? "attribute_exists(" : "attribute_not_exists(") + p + ")";
      }
      case Expr::Kind::kIsNull: {
        if (e.args[0]->kind != Expr::Kind::kPath) return Unsupported("IS NULL on a value");
        std::string p = PathText(e.args[0]->path);
        std::string test = "attribute_type(" + p + ", " + Value(AttributeValue::S("NULL")) + ")";
        return e.negated ? "NOT " + test : test;
      }
      case Expr::Kind::kCall: {
        if (e.op == "begins_with" || e.op == "contains" || e.op == "attribute_type") {
          if (e.args.size() != 2) {
            return ValidationError("Incorrect number of arguments for function " + e.op);
          }
          DR_ASSIGN_OR_RETURN(std::string a, Operand(*e.args[0]));
          DR_ASSIGN_OR_RETURN(std::string b, Operand(*e.args[1]));
          return e.op + "(" + a + ", " + b + ")";
        }
        return Unsupported("the function " + e.op + " as a condition");
      }
      default:
        return Unsupported("a value where a condition belongs");
    }
  }

  static Status Unsupported(const std::string& what) {
    return ValidationError("Unsupported operation: " + what + " is not supported");
  }

  NameMap& names() { return names_; }
  ValueMap& values() { return values_; }
  bool has_names() const { return !names_.empty(); }
  bool has_values() const { return !values_.empty(); }

 private:
  std::map<std::string, std::string> name_keys_;
  NameMap names_;
  ValueMap values_;
};

// The top-level AND terms of a WHERE.
void Conjuncts(const Expr* e, std::vector<const Expr*>* out) {
  if (e == nullptr) return;
  if (e->kind == Expr::Kind::kAnd) {
    Conjuncts(e->args[0].get(), out);
    Conjuncts(e->args[1].get(), out);
  } else {
    out->push_back(e);
  }
}

// `name = value` (either way round) on a top-level attribute.
const AttributeValue* EqualityOn(const Expr* e, const std::string& name) {
  if (e->kind != Expr::Kind::kCompare || e->op != "=") return nullptr;
  const Expr* a = e->args[0].get();
  const Expr* b = e->args[1].get();
  if (a->kind == Expr::Kind::kValue) std::swap(a, b);
  if (a->kind == Expr::Kind::kPath && a->path.size() == 1 && !a->path[0].is_index &&
      a->path[0].name == name && b->kind == Expr::Kind::kValue) {
    return &b->value;
  }
  return nullptr;
}

// A condition a sort key can take as a key condition.
bool IsSortKeyCondition(const Expr* e, const std::string& name) {
  auto on = [&](const Expr* x) {
    return x->kind == Expr::Kind::kPath && x->path.size() == 1 && !x->path[0].is_index &&
           x->path[0].name == name;
  };
  auto value = [](const Expr* x) { return x->kind == Expr::Kind::kValue; };
  switch (e->kind) {
    case Expr::Kind::kCompare:
      if (e->op == "<>") return false;
      return (on(e->args[0].get()) && value(e->args[1].get())) ||
             (on(e->args[1].get()) && value(e->args[0].get()));
    case Expr::Kind::kBetween:
      return on(e->args[0].get()) && value(e->args[1].get()) && value(e->args[2].get());
    case Expr::Kind::kCall:
      return e->op == "begins_with" && e->args.size() == 2 && on(e->args[0].get()) &&
             value(e->args[1].get());
    default:
      return false;
  }
}

struct KeyNames {
  std::string hash;
  std::string range;  // empty without a sort key
};

StatusOr<KeyNames> KeysOf(const std::vector<KeySchemaElement>& schema) {
  KeyNames k;
  for (const auto& e : schema) {
    if (e.key_type == KeyType::kHash && k.hash.empty()) k.hash = e.attribute_name;
    if (e.key_type == KeyType::kRange && k.range.empty()) k.range = e.attribute_name;
  }
  return k;
}

StatusOr<TableDescription> Describe(DB& db, const std::string& table) {
  auto r = db.DescribeKeys(table);
  if (!r.ok() && r.status().type() == ErrorType::kResourceNotFound) {
    return ResourceNotFound("Cannot do operations on a non-existent table");
  }
  return r;
}

// The key a write's WHERE fixes, and the rest of the WHERE.
struct KeyedWhere {
  Item key;
  std::vector<const Expr*> rest;
};

StatusOr<KeyedWhere> KeyFromWhere(const Statement& st, const KeyNames& keys) {
  std::vector<const Expr*> terms;
  Conjuncts(st.where.get(), &terms);
  KeyedWhere out;
  for (const Expr* t : terms) {
    const AttributeValue* v = nullptr;
    std::string on;
    if ((v = EqualityOn(t, keys.hash))) {
      on = keys.hash;
    } else if (!keys.range.empty() && (v = EqualityOn(t, keys.range))) {
      on = keys.range;
    }
    if (v == nullptr) {
      out.rest.push_back(t);
    } else if (!out.key.emplace(on, *v).second) {
      return ValidationError("Multiple conditions on same key " + on +
                             ". Only single item Update/Insert/Delete are supported");
    }
  }
  if (!out.key.contains(keys.hash) || (!keys.range.empty() && !out.key.contains(keys.range))) {
    return ValidationError("Where clause does not contain a mandatory equality on all key "
                           "attributes");
  }
  return out;
}

StatusOr<std::string> AndAll(ExpressionWriter& w, const std::vector<const Expr*>& terms) {
  std::string out;
  for (const Expr* t : terms) {
    DR_ASSIGN_OR_RETURN(std::string c, w.Condition(*t));
    out += (out.empty() ? "(" : " AND (") + c + ")";
  }
  return out;
}

// NextToken: the LastEvaluatedKey in the item codec, as hex.
std::string EncodeToken(const Item& key) {
  std::string bytes = EncodeItem(key);
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out;
}

StatusOr<Item> DecodeToken(const std::string& token) {
  auto bad = [] { return ValidationError("Invalid NextToken"); };
  if (token.size() % 2 != 0) return bad();
  std::string bytes;
  for (size_t i = 0; i < token.size(); i += 2) {
    auto nibble = [](char c) {
      return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    };
    int hi = nibble(token[i]), lo = nibble(token[i + 1]);
    if (hi < 0 || lo < 0) return bad();
    bytes.push_back(static_cast<char>(hi * 16 + lo));
  }
  Item item;
  if (!DecodeItem(bytes, &item)) return bad();
  return item;
}

// DynamoDB's PartiQL names a nested projection by its last step: SELECT
// m.a.b[0], l[1] gives {"b[0]": ..., "l[1]": ...}.
void FlattenProjection(const Statement& st, std::vector<Item>* items) {
  bool nested = false;
  for (const auto& p : st.projection) nested |= p.size() > 1;
  if (!nested) return;
  for (Item& item : *items) {
    Item out;
    for (const auto& p : st.projection) {
      const AttributeValue* v = nullptr;
      auto top = item.find(p[0].name);
      if (top != item.end()) v = &top->second;
      for (size_t i = 1; v != nullptr && i < p.size(); ++i) {
        if (p[i].is_index) {
          v = v->is(AttrType::kL) && p[i].index < static_cast<int64_t>(v->list().size())
                  ? &v->list()[static_cast<size_t>(p[i].index)]
                  : nullptr;
        } else {
          auto it = v->is(AttrType::kM) ? v->map().find(p[i].name) : v->map().end();
          v = v->is(AttrType::kM) && it != v->map().end() ? &it->second : nullptr;
        }
      }
      if (v == nullptr) continue;
      size_t last = p.size() - 1;
      while (last > 0 && p[last].is_index) --last;
      std::string name = p[last].name;
      for (size_t i = last + 1; i < p.size(); ++i) name += "[" + std::to_string(p[i].index) + "]";
      out.insert_or_assign(std::move(name), *v);
    }
    item = std::move(out);
  }
}

std::optional<std::string> ProjectionText(ExpressionWriter& w, const Statement& st) {
  if (st.projection.empty()) return std::nullopt;
  std::string out;
  for (const auto& p : st.projection) out += (out.empty() ? "" : ", ") + w.PathText(p);
  return out;
}

// ---------------------------------------------------------------- statements

// The members a Query and a Scan of a SELECT share; call last (the projection
// adds names).
template <typename R>
void ReadMembers(const Statement& st, const ExecuteStatementRequest& req,
                 const std::optional<Item>& start, ExpressionWriter& w, R* r) {
  r->projection_expression = ProjectionText(w, st);
  r->consistent_read = req.consistent_read;
  r->limit = req.limit;
  r->exclusive_start_key = start;
  r->return_consumed_capacity = req.return_consumed_capacity;
  r->expression_attribute_names = w.names();
  r->has_expression_attribute_names = w.has_names();
  r->expression_attribute_values = w.values();
  r->has_expression_attribute_values = w.has_values();
}

// What a SELECT becomes, from its WHERE and the key schema of what it reads.
struct SelectPlan {
  KeyNames keys;
  const Expr* hash_eq = nullptr;     // the partition key's equality
  const Expr* range_cond = nullptr;  // a sort-key condition a Query can take
  std::vector<const Expr*> rest;     // the filter
  bool get = false;                  // the whole key, nothing else: a GetItem
};

StatusOr<SelectPlan> PlanSelect(const Statement& st, const TableDescription& table) {
  const std::vector<KeySchemaElement>* schema = &table.key_schema;
  if (st.index) {
    schema = nullptr;
    for (const auto& g : table.global_secondary_indexes)
      if (g.index_name == *st.index) schema = &g.key_schema;
    for (const auto& l : table.local_secondary_indexes)
      if (l.index_name == *st.index) schema = &l.key_schema;
    if (schema == nullptr) {
      return ValidationError("The table does not have the specified index: " + *st.index);
    }
  }
  SelectPlan plan;
  DR_ASSIGN_OR_RETURN(plan.keys, KeysOf(*schema));
  const KeyNames& keys = plan.keys;
  std::vector<const Expr*> terms;
  Conjuncts(st.where.get(), &terms);
  for (const Expr* t : terms) {
    if (!plan.hash_eq && EqualityOn(t, keys.hash)) {
      plan.hash_eq = t;
    } else if (!plan.range_cond && !keys.range.empty() && IsSortKeyCondition(t, keys.range)) {
      plan.range_cond = t;
    } else {
      plan.rest.push_back(t);
    }
  }
  if (st.order_by) {
    if (!st.where) {
      return ValidationError("Must have WHERE clause in the statement when using ORDER BY clause.");
    }
    if (!plan.hash_eq) {
      return ValidationError("Must have at least one non-optional hash key condition in WHERE "
                             "clause when using ORDER BY clause.");
    }
    const auto& by = *st.order_by;
    if (by.size() != 1 || by[0].is_index || (by[0].name != keys.range && by[0].name != keys.hash)) {
      return ValidationError("Variable reference " + (by.empty() ? std::string() : by[0].name) +
                             " in ORDER BY clause must be part of the primary key");
    }
  }
  const bool full_key =
      plan.hash_eq &&
      (keys.range.empty() || (plan.range_cond && EqualityOn(plan.range_cond, keys.range)));
  plan.get = !st.index && full_key && plan.rest.empty() && !st.order_by;
  return plan;
}

StatusOr<ExecuteStatementResponse> RunSelect(DB& db, const Statement& st,
                                             const ExecuteStatementRequest& req) {
  DR_ASSIGN_OR_RETURN(TableDescription table, Describe(db, st.table));
  DR_ASSIGN_OR_RETURN(SelectPlan plan, PlanSelect(st, table));
  const KeyNames& keys = plan.keys;
  const Expr* hash_eq = plan.hash_eq;
  const Expr* range_cond = plan.range_cond;
  const std::vector<const Expr*>& rest = plan.rest;
  ExpressionWriter w;
  ExecuteStatementResponse out;
  std::optional<Item> start;
  if (req.next_token) {
    DR_ASSIGN_OR_RETURN(start, DecodeToken(*req.next_token));
  }

  if (plan.get) {
    GetItemRequest g;
    g.table_name = st.table;
    g.key.emplace(keys.hash, *EqualityOn(hash_eq, keys.hash));
    if (!keys.range.empty()) g.key.emplace(keys.range, *EqualityOn(range_cond, keys.range));
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

  auto finish = [&](auto r) -> StatusOr<ExecuteStatementResponse> {
    out.items = std::move(r.items);
    FlattenProjection(st, &out.items);
    out.consumed_capacity = std::move(r.consumed_capacity);
    if (r.last_evaluated_key) {
      out.next_token = EncodeToken(*r.last_evaluated_key);
      out.last_evaluated_key = std::move(r.last_evaluated_key);
    }
    return std::move(out);  // a captured reference: not moved implicitly
  };
  if (hash_eq) {
    QueryRequest q;
    q.table_name = st.table;
    q.index_name = st.index;
    DR_ASSIGN_OR_RETURN(std::string key_cond, w.Condition(*hash_eq));
    if (range_cond) {
      DR_ASSIGN_OR_RETURN(std::string r, w.Condition(*range_cond));
      key_cond += " AND " + r;
    }
    q.key_condition_expression = key_cond;
    if (!rest.empty()) {
      DR_ASSIGN_OR_RETURN(q.filter_expression, AndAll(w, rest));
    }
    q.scan_index_forward = !st.order_descending;
    ReadMembers(st, req, start, w, &q);
    DR_ASSIGN_OR_RETURN(QueryResponse r, db.Query(q));
    return finish(std::move(r));
  }
  ScanRequest s;
  s.table_name = st.table;
  s.index_name = st.index;
  if (st.where) {
    DR_ASSIGN_OR_RETURN(s.filter_expression, w.Condition(*st.where));
  }
  ReadMembers(st, req, start, w, &s);
  DR_ASSIGN_OR_RETURN(ScanResponse r, db.Scan(s));
  return finish(std::move(r));
}

// The update expression of an UPDATE's SET and REMOVE clauses.
StatusOr<std::string> UpdateExpression(ExpressionWriter& w, const Statement& st) {
  std::string set, add, del, remove;
  for (const auto& c : st.sets) {
    std::string path = w.PathText(c.path);
    const Expr& v = *c.value;
    if (v.kind == Expr::Kind::kCall && (v.op == "set_add" || v.op == "set_delete")) {
      if (v.args.size() != 2 || v.args[0]->kind != Expr::Kind::kPath ||
          w.PathText(v.args[0]->path) != path || v.args[1]->kind != Expr::Kind::kValue) {
        return ValidationError("Unsupported operation: " + v.op +
                               " takes the attribute being set and a set value");
      }
      std::string& section = v.op == "set_add" ? add : del;
      section += (section.empty() ? "" : ", ") + path + " " + w.Value(v.args[1]->value);
      continue;
    }
    std::string value;
    if (v.kind == Expr::Kind::kCall && v.op == "list_append") {
      if (v.args.size() != 2) return ValidationError("list_append takes two arguments");
      DR_ASSIGN_OR_RETURN(std::string a, w.Operand(*v.args[0]));
      DR_ASSIGN_OR_RETURN(std::string b, w.Operand(*v.args[1]));
      value = "list_append(" + a + ", " + b + ")";
    } else {
      DR_ASSIGN_OR_RETURN(value, w.Operand(v));
    }
    set += (set.empty() ? "" : ", ") + path + " = " + value;
  }
  for (const auto& p : st.removes) remove += (remove.empty() ? "" : ", ") + w.PathText(p);
  std::string out;
  if (!set.empty()) out += "SET " + set;
  if (!remove.empty()) out += (out.empty() ? "" : " ") + std::string("REMOVE ") + remove;
  if (!add.empty()) out += (out.empty() ? "" : " ") + std::string("ADD ") + add;
  if (!del.empty()) out += (out.empty() ? "" : " ") + std::string("DELETE ") + del;
  return out;
}

// The write requests a statement becomes (also the transaction's items).
struct PlannedWrite {
  TransactWriteItem item;  // kind, table, key/item, expressions
  ReturnValue return_values = ReturnValue::kNone;
};

StatusOr<PlannedWrite> PlanWrite(const Statement& st, const TableDescription& table) {
  DR_ASSIGN_OR_RETURN(KeyNames keys, KeysOf(table.key_schema));
  ExpressionWriter w;
  PlannedWrite p;
  TransactWriteItem& t = p.item;
  t.table_name = st.table;
  switch (st.kind) {
    case Statement::Kind::kInsert: {
      t.kind = TransactWriteItem::Kind::kPut;
      t.item = st.insert_value;
      for (const auto* name : {&keys.hash, &keys.range}) {
        if (name->empty()) continue;
        auto it = t.item.find(*name);
        if (it == t.item.end()) {
          return ValidationError("Key attribute should be present in the item: Key " + *name);
        }
        for (const auto& def : table.attribute_definitions) {
          if (def.attribute_name == *name && def.attribute_type != it->second.type()) {
            return ValidationError("Key attribute's data type should match its data type in "
                                   "table's schema: Key " + *name);
          }
        }
      }
      t.condition_expression = "attribute_not_exists(" + w.Name(keys.hash) + ")";
      break;
    }
    case Statement::Kind::kUpdate:
    case Statement::Kind::kDelete:
    case Statement::Kind::kExists: {
      DR_ASSIGN_OR_RETURN(KeyedWhere kw, KeyFromWhere(st, keys));
      t.key = std::move(kw.key);
      DR_ASSIGN_OR_RETURN(std::string rest, AndAll(w, kw.rest));
      auto exists = [&] { return "attribute_exists(" + w.Name(keys.hash) + ")"; };
      if (st.kind == Statement::Kind::kUpdate) {
        t.kind = TransactWriteItem::Kind::kUpdate;
        DR_ASSIGN_OR_RETURN(std::string update, UpdateExpression(w, st));
        t.update_expression = std::move(update);
        t.condition_expression = rest.empty() ? exists() : exists() + " AND " + rest;
      } else if (st.kind == Statement::Kind::kDelete) {
        // A DELETE of an item that is not there succeeds, whatever the rest of
        // the WHERE says.
        t.kind = TransactWriteItem::Kind::kDelete;
        if (!rest.empty()) {
          t.condition_expression = "attribute_not_exists(" + w.Name(keys.hash) + ") OR (" + rest + ")";
        }
      } else {
        if (rest.empty()) {
          return ValidationError("EXISTS() must contain a single item read with additional "
                                 "condition");
        }
        t.kind = TransactWriteItem::Kind::kConditionCheck;
        t.condition_expression = exists() + " AND " + rest;
      }
      break;
    }
    case Statement::Kind::kSelect:
      return ValidationError("Unsupported operation: a SELECT is not a write");
  }
  if (st.returning) {
    const std::string& r = *st.returning;
    if (st.kind == Statement::Kind::kDelete && r != "ALL OLD") {
      return ValidationError("Invalid returning clause: RETURNING " + r + " *. Only RETURNING ALL "
                             "OLD * is allowed in DELETE statements.");
    }
    p.return_values = r == "ALL OLD" ? ReturnValue::kAllOld
                      : r == "ALL NEW" ? ReturnValue::kAllNew
                      : r == "MODIFIED OLD" ? ReturnValue::kUpdatedOld
                                            : ReturnValue::kUpdatedNew;
  }
  t.expression_attribute_names = w.names();
  t.has_expression_attribute_names = w.has_names();
  t.expression_attribute_values = w.values();
  t.has_expression_attribute_values = w.has_values();
  return p;
}

Status AsDuplicate(const Status& s) {
  if (s.type() == ErrorType::kConditionalCheckFailed) {
    return Status(ErrorType::kDuplicateItem, "Duplicate primary key exists in table");
  }
  return s;
}

StatusOr<ExecuteStatementResponse> RunWrite(DB& db, const Statement& st, bool old_on_failure,
                                            ReturnConsumedCapacity capacity) {
  DR_ASSIGN_OR_RETURN(TableDescription table, Describe(db, st.table));
  DR_ASSIGN_OR_RETURN(PlannedWrite p, PlanWrite(st, table));
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

// An expression with its placeholders put back: names as written, values as
// their DebugString.
std::string Shown(const AttributeValue& v) {
  if (v.is(AttrType::kS)) return "'" + v.scalar() + "'";
  if (v.is(AttrType::kN)) return v.scalar();
  return v.DebugString();
}

std::string Readable(ExpressionWriter& w, std::string text) {
  std::vector<std::pair<std::string, std::string>> subs;
  for (const auto& [k, v] : w.names()) subs.emplace_back(k, v);
  for (const auto& [k, v] : w.values()) subs.emplace_back(k, Shown(v));
  std::sort(subs.begin(), subs.end(),
            [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  for (const auto& [k, v] : subs) {
    for (size_t at = text.find(k); at != std::string::npos; at = text.find(k, at + v.size())) {
      text.replace(at, k.size(), v);
    }
  }
  return text;
}

}  // namespace

StatusOr<std::string> ExplainStatement(
    const std::string& statement, const std::vector<AttributeValue>& parameters,
    const std::function<StatusOr<TableDescription>(const std::string&)>& describe) {
  DR_ASSIGN_OR_RETURN(Statement st, partiql::ParseStatement(statement, parameters));
  DR_ASSIGN_OR_RETURN(TableDescription table, describe(st.table));
  ExpressionWriter w;
  std::string out;
  auto line = [&](const std::string& what, const std::string& text) {
    out += what + std::string(what.size() < 10 ? 10 - what.size() : 1, ' ') + text + "\n";
  };
  if (st.kind == Statement::Kind::kSelect) {
    DR_ASSIGN_OR_RETURN(SelectPlan plan, PlanSelect(st, table));
    std::string on = st.table + (st.index ? " (index " + *st.index + ")" : "");
    if (plan.get) {
      line("plan:", "GetItem on " + on);
    } else if (plan.hash_eq) {
      line("plan:", "Query on " + on + (st.order_descending ? ", descending" : ""));
    } else {
      line("plan:", "Scan on " + on);
    }
    if (plan.hash_eq) {
      DR_ASSIGN_OR_RETURN(std::string key, w.Condition(*plan.hash_eq));
      if (plan.range_cond) {
        DR_ASSIGN_OR_RETURN(std::string r, w.Condition(*plan.range_cond));
        key += " AND " + r;
      }
      line("key:", Readable(w, key));
    }
    std::vector<const Expr*> filter = plan.rest;
    if (!plan.hash_eq && st.where) filter = {st.where.get()};
    if (!filter.empty()) {
      DR_ASSIGN_OR_RETURN(std::string f, AndAll(w, filter));
      line("filter:", Readable(w, f));
    }
    if (plan.get) {
      line("capacity:", "0.5 RCU per 4 KB (1 with ConsistentRead)");
    } else if (plan.hash_eq) {
      line("capacity:", "0.5 RCU per 4 KB of the partition's items read, before the filter");
    } else {
      line("capacity:", "0.5 RCU per 4 KB of every item in the table, before the filter");
      line("warning:", "this statement scans the whole " +
                           std::string(st.index ? "index" : "table") +
                           "; fix the partition key in the WHERE to make it a Query");
    }
    return out;
  }
  DR_ASSIGN_OR_RETURN(PlannedWrite p, PlanWrite(st, table));
  const TransactWriteItem& t = p.item;
  static const char* kOps[] = {"ConditionCheck", "PutItem", "DeleteItem", "UpdateItem"};
  line("plan:", std::string(kOps[static_cast<int>(t.kind)]) + " on " + st.table);
  if (t.kind != TransactWriteItem::Kind::kPut) {
    std::string key;
    for (const auto& [name, v] : t.key) key += (key.empty() ? "" : " AND ") + name + " = " + Shown(v);
    line("key:", key);
  }
  ExpressionWriter names;
  names.names() = t.expression_attribute_names;
  names.values() = t.expression_attribute_values;
  if (t.update_expression) line("update:", Readable(names, *t.update_expression));
  if (t.condition_expression) line("condition:", Readable(names, *t.condition_expression));
  line("capacity:", "1 WCU per 1 KB of the item written (2 in a transaction)");
  return out;
}

StatusOr<ExecuteStatementResponse> ExecuteStatement(DB& db, const ExecuteStatementRequest& req) {
  if (req.limit && *req.limit < 1) {
    return ValidationError("1 validation error detected: Value '" + std::to_string(*req.limit) +
                           "' at 'limit' failed to satisfy constraint: Member must have value "
                           "greater than or equal to 1");
  }
  DR_ASSIGN_OR_RETURN(Statement st, partiql::ParseStatement(req.statement, req.parameters));
  if (st.kind == Statement::Kind::kSelect) return RunSelect(db, st, req);
  if (req.next_token) return ValidationError("NextToken is only valid for a SELECT");
  return RunWrite(db, st, req.return_values_on_condition_check_failure_all_old,
                  req.return_consumed_capacity);
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
  std::vector<StatusOr<Statement>> parsed;
  bool reads = false, writes = false;
  for (const auto& s : req.statements) {
    parsed.push_back(partiql::ParseStatement(s.statement, s.parameters));
    if (parsed.back().ok()) {
      (parsed.back()->kind == Statement::Kind::kSelect ? reads : writes) = true;
    }
  }
  if (reads && writes) {
    return ValidationError("Read and write requests together in the same batch is not supported.");
  }
  BatchExecuteStatementResponse out;
  for (size_t i = 0; i < req.statements.size(); ++i) {
    BatchStatementResponse r;
    StatusOr<ExecuteStatementResponse> done = parsed[i].status();
    if (parsed[i].ok()) {
      const Statement& st = *parsed[i];
      r.table_name = st.table;
      if (st.kind == Statement::Kind::kSelect) {
        // Reads name one item by its whole key, and nothing else.
        auto table = Describe(db, st.table);
        bool single = false;
        if (table.ok() && !st.index) {
          auto keys = KeysOf(table->key_schema);
          auto kw = KeyFromWhere(st, *keys);
          single = kw.ok() && kw->rest.empty();
        }
        ExecuteStatementRequest one;
        one.consistent_read = req.statements[i].consistent_read;
        one.return_consumed_capacity = req.return_consumed_capacity;
        if (!table.ok()) {
          done = table.status();
        } else if (!single) {
          done = ValidationError("Select statements within BatchExecuteStatement must specify the "
                                 "primary key in the where clause.");
        } else {
          done = RunSelect(db, st, one);
        }
      } else {
        done = RunWrite(db, st, req.statements[i].return_values_on_condition_check_failure_all_old,
                        req.return_consumed_capacity);
      }
    }
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
  std::vector<Statement> parsed;
  bool reads = false, writes = false;
  for (size_t i = 0; i < statements.size(); ++i) {
    auto st = partiql::ParseStatement(statements[i].statement, statements[i].parameters);
    if (!st.ok()) return in_statement(i, st.status());
    (st->kind == Statement::Kind::kSelect ? reads : writes) = true;
    parsed.push_back(std::move(*st));
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
      const Statement& st = parsed[i];
      if (st.index) {
        return in_statement(i, ValidationError("Reads on indices are not supported within "
                                               "transactions."));
      }
      DR_ASSIGN_OR_RETURN(TableDescription table, Describe(db, st.table));
      DR_ASSIGN_OR_RETURN(KeyNames keys, KeysOf(table.key_schema));
      auto kw = KeyFromWhere(st, keys);
      if (!kw.ok() || !kw->rest.empty()) {
        return in_statement(i, ValidationError("Select statements within ExecuteTransaction must "
                                               "specify the primary key in the where clause."));
      }
      TransactGetItem item;
      item.table_name = st.table;
      item.key = std::move(kw->key);
      ExpressionWriter w;
      item.projection_expression = ProjectionText(w, st);
      item.expression_attribute_names = w.names();
      item.has_expression_attribute_names = w.has_names();
      g.transact_items.push_back(std::move(item));
    }
    DR_ASSIGN_OR_RETURN(TransactGetItemsResponse r, db.TransactGetItems(g));
    out.responses = std::move(r.responses);
    out.consumed_capacity = std::move(r.consumed_capacity);
    return out;
  }
  TransactWriteItemsRequest w;
  w.client_request_token = req.client_request_token;
  w.return_consumed_capacity = req.return_consumed_capacity;
  for (size_t i = 0; i < parsed.size(); ++i) {
    if (parsed[i].returning) {
      return in_statement(i, ValidationError("RETURNING clause is not supported in "
                                             "ExecuteTransaction."));
    }
    auto table = Describe(db, parsed[i].table);
    if (!table.ok()) return table.status();
    auto planned = PlanWrite(parsed[i], *table);
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
        if (parsed[i].kind == Statement::Kind::kInsert && reasons[i].code == "ConditionalCheckFailed") {
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
    return s;
  }
  out.consumed_capacity = std::move(r->consumed_capacity);
  return out;
}

}  // namespace dynarock
