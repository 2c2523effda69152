// File: engine/partiql/explain.cc
//
// ExplainStatement (dynarock/partiql.h): a statement's plan (plan.h) as text
// for people, its expressions with their placeholders put back.

#include <algorithm>
#include <functional>
#include <string>
#include <utility>

#include "dynarock/partiql.h"
#include "engine/partiql/plan.h"
#include "engine/partiql/prepare.h"

namespace dynarock {
namespace {

using partiql::AndAll;
using partiql::Expr;
using partiql::ExpressionWriter;
using partiql::PlannedWrite;
using partiql::PlanSelect;
using partiql::PlanWrite;
using partiql::SelectPlan;
using partiql::Statement;

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
  DR_ASSIGN_OR_RETURN(partiql::Prepared prepared, partiql::Prepare(statement, parameters));
  const Statement& st = *prepared.statement;
  const partiql::Params& params = *prepared.params;
  DR_ASSIGN_OR_RETURN(TableDescription table, describe(st.table));
  ExpressionWriter w(params);
  std::string out;
  auto line = [&](const std::string& what, const std::string& text) {
    out += what + std::string(what.size() < 10 ? 10 - what.size() : 1, ' ') + text + "\n";
  };
  if (st.kind == Statement::Kind::kSelect) {
    DR_ASSIGN_OR_RETURN(SelectPlan plan, PlanSelect(st, table));
    std::string on = st.table + (st.index ? " (index " + *st.index + ")" : "");
    if (plan.get) {
      line("plan:", "GetItem on " + on);
    } else if (plan.query()) {
      line("plan:", "Query on " + on +
                        (plan.partitions.empty()
                             ? ""
                             : " of each of " + std::to_string(plan.partitions.size()) +
                                   " partitions") +
                        (plan.forward ? "" : ", descending"));
    } else {
      line("plan:", "Scan on " + on);
    }
    if (plan.query()) {
      std::string key;
      if (plan.hash_eq) {
        DR_ASSIGN_OR_RETURN(key, w.Condition(*plan.hash_eq));
      } else {
        key = w.Name(plan.keys.hash) + " IN (";
        for (size_t i = 0; i < plan.partitions.size(); ++i) {
          key += (i ? ", " : "") + w.Value(w.ValueOf(*plan.partitions[i]));
        }
        key += ")";
      }
      if (plan.range_cond) {
        DR_ASSIGN_OR_RETURN(std::string r, w.Condition(*plan.range_cond));
        key += " AND " + r;
      }
      for (const Expr* t : plan.key_more) {
        DR_ASSIGN_OR_RETURN(std::string c, w.Condition(*t));
        key += " AND " + c;
      }
      line("key:", Readable(w, key));
    }
    std::vector<const Expr*> filter = plan.rest;
    if (!plan.query() && st.where) filter = {st.where.get()};
    if (!filter.empty()) {
      DR_ASSIGN_OR_RETURN(std::string f, AndAll(w, filter));
      line("filter:", Readable(w, f));
    }
    if (!plan.key_rest.empty()) {
      DR_ASSIGN_OR_RETURN(std::string f, AndAll(w, plan.key_rest));
      line("then:", Readable(w, f) + " (on key attributes: applied to the Query's items)");
    }
    if (plan.get) {
      line("capacity:", "0.5 RCU per 4 KB (1 with ConsistentRead)");
    } else if (plan.query()) {
      line("capacity:", "0.5 RCU per 4 KB of the partition's items read, before the filter");
    } else {
      line("capacity:", "0.5 RCU per 4 KB of every item in the table, before the filter");
      line("warning:", "this statement scans the whole " +
                           std::string(st.index ? "index" : "table") +
                           "; fix the partition key in the WHERE to make it a Query");
    }
    return out;
  }
  DR_ASSIGN_OR_RETURN(PlannedWrite p, PlanWrite(st, params, table));
  const TransactWriteItem& t = p.item;
  static const char* kOps[] = {"ConditionCheck", "PutItem", "DeleteItem", "UpdateItem"};
  line("plan:", std::string(kOps[static_cast<int>(t.kind)]) + " on " + st.table);
  if (t.kind != TransactWriteItem::Kind::kPut) {
    std::string key;
    for (const auto& [name, v] : t.key) key += (key.empty() ? "" : " AND ") + name + " = " + Shown(v);
    line("key:", key);
  }
  ExpressionWriter names(params);
  names.names() = t.expression_attribute_names;
  names.values() = t.expression_attribute_values;
  if (t.update_expression) line("update:", Readable(names, *t.update_expression));
  if (t.condition_expression) line("condition:", Readable(names, *t.condition_expression));
  line("capacity:", "1 WCU per 1 KB of the item written (2 in a transaction)");
  return out;
}

}  // namespace dynarock
