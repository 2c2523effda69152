// File: engine/partiql/plan.cc
//
// Statements planned into the DB's requests (plan.h).

#include "engine/partiql/plan.h"

#include <algorithm>
#include <string>
#include <utility>

#include "engine/item_codec.h"

namespace dynarock::partiql {

std::string ExpressionWriter::Name(const std::string& name) {
  auto it = name_keys_.find(name);
  if (it != name_keys_.end()) return it->second;
  std::string key = "#p" + std::to_string(name_keys_.size());
  name_keys_.emplace(name, key);
  names_.emplace(key, name);
  return key;
}

std::string ExpressionWriter::Value(const AttributeValue& v) {
  std::string key = ":p" + std::to_string(values_.size());
  values_.emplace(key, v);
  return key;
}

std::string ExpressionWriter::PathText(const Path& p) {
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

Status ExpressionWriter::Unsupported(const std::string& what) {
  return ValidationError("Unsupported operation: " + what + " is not supported");
}

StatusOr<std::string> ExpressionWriter::Operand(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::kPath: return PathText(e.path);
    case Expr::Kind::kValue: return Value(ValueOf(e));
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

StatusOr<std::string> ExpressionWriter::Condition(const Expr& e) {
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

void Conjuncts(const Expr* e, std::vector<const Expr*>* out) {
  if (e == nullptr) return;
  if (e->kind == Expr::Kind::kAnd) {
    Conjuncts(e->args[0].get(), out);
    Conjuncts(e->args[1].get(), out);
  } else {
    out->push_back(e);
  }
}

const Expr* EqualityOn(const Expr* e, const std::string& name) {
  if (e->kind != Expr::Kind::kCompare || e->op != "=") return nullptr;
  const Expr* a = e->args[0].get();
  const Expr* b = e->args[1].get();
  if (a->kind == Expr::Kind::kValue) std::swap(a, b);
  if (a->kind == Expr::Kind::kPath && a->path.size() == 1 && !a->path[0].is_index &&
      a->path[0].name == name && b->kind == Expr::Kind::kValue) {
    return b;
  }
  return nullptr;
}

namespace {

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

// `name IN (values)`, or `name = v1 OR name = v2 ...`: the values' expressions.
bool PartitionSet(const Expr* e, const std::string& name, std::vector<const Expr*>* out) {
  if (e->kind == Expr::Kind::kIn) {
    const Expr* on = e->args[0].get();
    if (on->kind != Expr::Kind::kPath || on->path.size() != 1 || on->path[0].is_index ||
        on->path[0].name != name) {
      return false;
    }
    for (size_t i = 1; i < e->args.size(); ++i) {
      if (e->args[i]->kind != Expr::Kind::kValue) return false;
      out->push_back(e->args[i].get());
    }
    return e->args.size() > 1;
  }
  if (e->kind == Expr::Kind::kOr) {
    return PartitionSet(e->args[0].get(), name, out) && PartitionSet(e->args[1].get(), name, out);
  }
  const Expr* v = EqualityOn(e, name);
  if (v == nullptr) return false;
  out->push_back(v);
  return true;
}

}  // namespace

void NamesRead(const Expr& e, std::vector<std::string>* out) {
  if (e.kind == Expr::Kind::kPath && !e.path.empty() && !e.path[0].is_index) {
    out->push_back(e.path[0].name);
  }
  for (const auto& a : e.args) NamesRead(*a, out);
}

KeyNames KeysOf(const std::vector<KeySchemaElement>& schema) {
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

StatusOr<KeyedWhere> KeyFromWhere(const Statement& st, const Params& params, const KeyNames& keys) {
  std::vector<const Expr*> terms;
  Conjuncts(st.where.get(), &terms);
  KeyedWhere out;
  for (const Expr* t : terms) {
    const Expr* v = nullptr;
    std::string on;
    if ((v = EqualityOn(t, keys.hash))) {
      on = keys.hash;
    } else if (!keys.range.empty() && (v = EqualityOn(t, keys.range))) {
      on = keys.range;
    }
    if (v == nullptr) {
      out.rest.push_back(t);
    } else if (!out.key.emplace(on, ValueOf(*v, params)).second) {
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
  plan.keys = KeysOf(*schema);
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
  // Every key attribute, in key-schema order (a GSI may have up to four of each).
  std::vector<std::string> hashes, ranges;
  for (const auto& e : *schema) (e.key_type == KeyType::kHash ? hashes : ranges).push_back(e.attribute_name);
  if (plan.hash_eq && hashes.size() > 1) {
    // A Query needs an equality on each partition attribute.
    for (size_t i = 1; i < hashes.size() && plan.hash_eq; ++i) {
      auto it = std::find_if(plan.rest.begin(), plan.rest.end(),
                             [&](const Expr* t) { return EqualityOn(t, hashes[i]) != nullptr; });
      if (it == plan.rest.end()) {
        // Not a Query: every term filters a Scan.
        plan.rest.insert(plan.rest.end(), plan.key_more.begin(), plan.key_more.end());
        plan.rest.push_back(plan.hash_eq);
        if (plan.range_cond) plan.rest.push_back(plan.range_cond);
        plan.hash_eq = nullptr;
        plan.range_cond = nullptr;
        plan.key_more.clear();
        break;
      }
      plan.key_more.push_back(*it);
      plan.rest.erase(it);
    }
  }
  if (plan.hash_eq && plan.range_cond && ranges.size() > 1) {
    // Further sort attributes, each after an equality on the one before.
    const Expr* last = plan.range_cond;
    for (size_t i = 1; i < ranges.size() && EqualityOn(last, ranges[i - 1]) != nullptr; ++i) {
      auto it = std::find_if(plan.rest.begin(), plan.rest.end(),
                             [&](const Expr* t) { return IsSortKeyCondition(t, ranges[i]); });
      if (it == plan.rest.end()) break;
      last = *it;
      plan.key_more.push_back(*it);
      plan.rest.erase(it);
    }
  }
  if (!plan.hash_eq && hashes.size() == 1) {
    for (auto it = plan.rest.begin(); it != plan.rest.end(); ++it) {
      std::vector<const Expr*> values;
      if (PartitionSet(*it, keys.hash, &values)) {
        plan.partitions = std::move(values);
        plan.rest.erase(it);
        break;
      }
    }
  }
  if (plan.query()) {
    // A Query's filter cannot read key attributes: those terms apply after it.
    std::vector<const Expr*> filter;
    for (const Expr* t : plan.rest) {
      std::vector<std::string> names;
      NamesRead(*t, &names);
      bool on_key = false;
      for (const auto& n : names) {
        on_key |= std::find(hashes.begin(), hashes.end(), n) != hashes.end() ||
                  std::find(ranges.begin(), ranges.end(), n) != ranges.end();
      }
      (on_key ? plan.key_rest : filter).push_back(t);
    }
    plan.rest = std::move(filter);
  }
  if (!st.order_by.empty()) {
    if (!st.where) {
      return ValidationError("Must have WHERE clause in the statement when using ORDER BY clause.");
    }
    if (!plan.query()) {
      return ValidationError("Must have at least one non-optional hash key condition in WHERE "
                             "clause when using ORDER BY clause.");
    }
    for (const auto& term : st.order_by) {
      const Path& by = term.path;
      if (by.size() != 1 || by[0].is_index || (by[0].name != keys.range && by[0].name != keys.hash)) {
        return ValidationError("Variable reference " + (by.empty() ? std::string() : by[0].name) +
                               " in ORDER BY clause must be part of the primary key");
      }
      if (by[0].name == keys.hash) {
        plan.order_partitions = true;
        plan.partitions_descending = term.descending;
      } else {
        plan.forward = !term.descending;
      }
    }
  }
  const bool full_key =
      plan.hash_eq &&
      (keys.range.empty() || (plan.range_cond && EqualityOn(plan.range_cond, keys.range)));
  plan.get = !st.index && full_key && plan.rest.empty() && plan.key_rest.empty() &&
             st.order_by.empty();
  return plan;
}

Status CheckKeyType(const TableDescription& table, const std::string& name,
                    const AttributeValue& value) {
  for (const auto& def : table.attribute_definitions) {
    if (def.attribute_name == name && def.attribute_type != value.type()) {
      return ValidationError("Key attribute's data type should match its data type in table's "
                             "schema: Key " + name);
    }
  }
  return Status();
}

Status CheckSelectKeyTypes(const SelectPlan& plan, const TableDescription& table,
                           const Params& params) {
  auto check = [&](const std::string& name, const Expr* value) -> Status {
    if (value == nullptr || value->kind != Expr::Kind::kValue) return Status();
    return CheckKeyType(table, name, ValueOf(*value, params));
  };
  if (plan.hash_eq) DR_RETURN_IF_ERROR(check(plan.keys.hash, EqualityOn(plan.hash_eq, plan.keys.hash)));
  for (const Expr* v : plan.partitions) DR_RETURN_IF_ERROR(check(plan.keys.hash, v));
  const Expr* r = plan.range_cond;
  if (r != nullptr && (r->kind == Expr::Kind::kCompare || r->kind == Expr::Kind::kBetween)) {
    for (const auto& arg : r->args) DR_RETURN_IF_ERROR(check(plan.keys.range, arg.get()));
  }
  return Status();
}

namespace {

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
      section += (section.empty() ? "" : ", ") + path + " " + w.Value(w.ValueOf(*v.args[1]));
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

}  // namespace

StatusOr<PlannedWrite> PlanWrite(const Statement& st, const Params& params,
                                 const TableDescription& table) {
  const KeyNames keys = KeysOf(table.key_schema);
  ExpressionWriter w(params);
  PlannedWrite p;
  TransactWriteItem& t = p.item;
  t.table_name = st.table;
  switch (st.kind) {
    case Statement::Kind::kInsert: {
      t.kind = TransactWriteItem::Kind::kPut;
      t.item = st.insert_value;
      for (const auto& [member, slot] : st.insert_params) t.item[member] = params[slot];
      for (const auto* name : {&keys.hash, &keys.range}) {
        if (name->empty()) continue;
        auto it = t.item.find(*name);
        if (it == t.item.end()) {
          return ValidationError("Key attribute should be present in the item: Key " + *name);
        }
        DR_RETURN_IF_ERROR(CheckKeyType(table, *name, it->second));
      }
      t.condition_expression = "attribute_not_exists(" + w.Name(keys.hash) + ")";
      break;
    }
    case Statement::Kind::kUpdate:
    case Statement::Kind::kDelete:
    case Statement::Kind::kExists: {
      DR_ASSIGN_OR_RETURN(KeyedWhere kw, KeyFromWhere(st, params, keys));
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
          // `rest` is "(a) AND (b)": AND binds tighter than OR.
          t.condition_expression = "attribute_not_exists(" + w.Name(keys.hash) + ") OR " + rest;
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

}  // namespace dynarock::partiql
