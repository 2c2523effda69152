// File: graph/txn_planner.cc
//
// TxnPlanner (graph/txn_planner.h): edge writes packed into transactions.

#include "graph/txn_planner.h"

#include <algorithm>

#include "dynarock/item_size.h"
#include "engine/limits.h"
#include "graph/graph_internal.h"

namespace dynarock::graph {

using internal::IsSizeError;
using internal::kEs;
using internal::kIn;
using internal::kPg;
using internal::kPk;
using internal::kTy;
using internal::S;

void TxnPlanner::Route(Unit* u) const {
  // Once: Fits and Add must see the same targets, whatever another thread
  // learns about the node's pages in between.
  if (u->routed) return;
  u->routed = true;
  for (SetOp& op : u->set_ops) {
    const std::vector<std::string> labels = g_->KnownEdgePages(op.node);
    op.page = labels.empty() ? "" : internal::EdgePageOf(labels, op.entry);
  }
}

size_t TxnPlanner::TargetKeyBytes(const Target& t) const {
  const Schema& s = g_->schema();
  return ItemSize(t.page.empty() ? s.NodeKey(t.node) : s.EdgePageKey(t.node, t.page));
}

bool TxnPlanner::Fits(Unit& u) const {
  Route(&u);
  if (empty()) return true;
  size_t extra_bytes = 0;
  for (const auto& it : u.items) {
    if (edge_keys_.count(KeyString(ItemKey(it)))) return false;  // an item once per txn
    extra_bytes += ItemBytes(it);
  }
  std::set<Target> new_targets;
  auto consider = [&](const Target& t, bool has_set_op) -> bool {
    auto n = targets_.find(t);
    if (n == targets_.end()) {
      if (new_targets.insert(t).second) extra_bytes += TargetKeyBytes(t);
      return true;
    }
    // DynamoDB cannot ADD and DELETE entries of one set in one update.
    return !(has_set_op && !n->second.entries.empty() && n->second.add != u.add);
  };
  for (const auto& op : u.set_ops) {
    if (!consider({op.node, op.page}, true)) return false;
    extra_bytes += op.entry.size();
  }
  for (const auto& op : u.type_ops) {
    consider({op.node, ""}, false);
    extra_bytes += op.type.size();
  }
  for (const auto& n : u.must_exist) consider({n, ""}, false);
  const size_t items = edge_items_.size() + targets_.size() + u.items.size() + new_targets.size();
  return items <= static_cast<size_t>(kTransactItemsMax) &&
         bytes_ + extra_bytes <= kTransactBytesMax;
}

TxnPlanner::TargetOp& TxnPlanner::Op(const Target& t) {
  auto [it, inserted] = targets_.try_emplace(t);
  if (inserted) bytes_ += TargetKeyBytes(t);
  return it->second;
}

void TxnPlanner::Add(Unit u) {
  Route(&u);
  for (auto& it : u.items) {
    edge_keys_.insert(KeyString(ItemKey(it)));
    bytes_ += ItemBytes(it);
    edge_items_.push_back(std::move(it));
  }
  for (auto& op : u.set_ops) {
    TargetOp& n = Op({op.node, op.page});
    n.add = u.add;
    if (n.entries.insert(op.entry).second) bytes_ += op.entry.size();
    n.types.insert(op.type);
    if (!u.add) n.tolerate_missing = true;
  }
  for (auto& op : u.type_ops) {
    TargetOp& n = Op({op.node, ""});
    if (n.in_types.insert(op.type).second) bytes_ += op.type.size();
  }
  for (auto& node : u.must_exist) Op({node, ""}).must_exist = true;
}

void TxnPlanner::AddWhileFits(size_t* next, size_t end, const std::function<Unit(size_t)>& make,
                              std::vector<size_t>* taken) {
  while (*next < end) {
    Unit u = make(*next);
    if (!Fits(u)) break;
    Add(std::move(u));
    taken->push_back((*next)++);
  }
}

TransactWriteItem TxnPlanner::Write(const Target& target, const TargetOp& op) const {
  const Schema& schema = g_->schema();
  TransactWriteItem t;
  t.table_name = schema.table_name;
  t.expression_attribute_names[kPk] = schema.pk_attribute;
  t.has_expression_attribute_names = true;
  if (!target.page.empty()) {
    // An edge page: it must still exist (not split meanwhile) and, for an ADD,
    // hold fewer than kEdgePageMaxEntries entries (else it splits first).
    t.kind = TransactWriteItem::Kind::kUpdate;
    t.key = schema.EdgePageKey(target.node, target.page);
    t.expression_attribute_names[kEs] = schema.edge_set_attribute;
    t.expression_attribute_values[":g_es"] =
        AttributeValue::SS(std::vector<std::string>(op.entries.begin(), op.entries.end()));
    t.update_expression = std::string(op.add ? "ADD " : "DELETE ") + kEs + " :g_es";
    t.condition_expression = std::string("attribute_exists(") + kPk + ")";
    if (op.add) {
      t.expression_attribute_values[":g_cap"] =
          AttributeValue::N(std::to_string(internal::kEdgePageMaxEntries));
      *t.condition_expression +=
          std::string(" AND (attribute_not_exists(") + kEs + ") OR size(" + kEs + ") < :g_cap)";
    }
    t.has_expression_attribute_values = true;
    return t;
  }
  t.key = schema.NodeKey(target.node);
  if (op.entries.empty() && op.in_types.empty()) {
    t.kind = TransactWriteItem::Kind::kConditionCheck;
    t.condition_expression = std::string("attribute_exists(") + kPk + ")";
    return t;
  }
  t.kind = TransactWriteItem::Kind::kUpdate;
  std::string adds, deletes;
  auto append = [](std::string* clause, const std::string& action) {
    *clause += (clause->empty() ? "" : ", ") + action;
  };
  std::vector<std::string> conditions;
  if (op.must_exist || op.tolerate_missing) {
    conditions.push_back(std::string("attribute_exists(") + kPk + ")");
  }
  if (!op.entries.empty()) {
    t.expression_attribute_names[kEs] = schema.edge_set_attribute;
    t.expression_attribute_values[":g_es"] =
        AttributeValue::SS(std::vector<std::string>(op.entries.begin(), op.entries.end()));
    append(op.add ? &adds : &deletes, std::string(kEs) + " :g_es");
    // The node's own set: only while it has not spilled into pages.
    t.expression_attribute_names[kPg] = schema.edge_pages_attribute;
    conditions.push_back(std::string("attribute_not_exists(") + kPg + ")");
  }
  if (!op.in_types.empty()) {
    t.expression_attribute_names[kIn] = schema.incoming_types_attribute;
    t.expression_attribute_values[":g_in"] =
        AttributeValue::SS(std::vector<std::string>(op.in_types.begin(), op.in_types.end()));
    append(&adds, std::string(kIn) + " :g_in");
  }
  std::string expr;
  if (!adds.empty()) expr += "ADD " + adds;
  if (!deletes.empty()) expr += (expr.empty() ? "" : " ") + std::string("DELETE ") + deletes;
  if (op.add && !schema.type_attribute.empty()) {
    t.expression_attribute_names[kTy] = schema.type_attribute;
    t.expression_attribute_values[":g_ty"] = S(schema.NodeType(target.node));
    expr += std::string(" SET ") + kTy + " = if_not_exists(" + kTy + ", :g_ty)";
  }
  t.update_expression = expr;
  if (conditions.empty()) {
    t.expression_attribute_names.erase(kPk);
  } else {
    std::string cond;
    for (const std::string& c : conditions) cond += (cond.empty() ? "" : " AND ") + c;
    if (std::none_of(conditions.begin(), conditions.end(),
                     [](const std::string& c) { return c.find(kPk) != std::string::npos; })) {
      t.expression_attribute_names.erase(kPk);
    }
    t.condition_expression = cond;
  }
  t.has_expression_attribute_values = true;
  return t;
}

Status TxnPlanner::Reorganise(const Target& t, bool size_exceeded) {
  if (t.page.empty()) {
    if (size_exceeded) return g_->SpillEdgeSet(t.node);
    return g_->ReadEdgePages(t.node).status();  // spilled (or gone): learn its pages
  }
  if (size_exceeded) return g_->SplitEdgePage(t.node, t.page);
  // Gone (split meanwhile) or full.
  GetItemRequest g;
  g.table_name = g_->schema().table_name;
  g.key = g_->schema().EdgePageKey(t.node, t.page);
  g.consistent_read = true;
  g_->counters().requests++;
  DR_ASSIGN_OR_RETURN(GetItemResponse r, g_->client()->GetItem(g));
  if (r.item) {
    auto es = r.item->find(g_->schema().edge_set_attribute);
    if (es != r.item->end() && es->second.is(AttrType::kSS) &&
        es->second.set().size() >= internal::kEdgePageMaxEntries) {
      return g_->SplitEdgePage(t.node, t.page);
    }
  }
  return g_->ReadEdgePages(t.node).status();
}

namespace {
constexpr int kAttempts = 12;
}  // namespace

TxnPlanner::Result TxnPlanner::Commit() {
  Result res;
  // Conflicts are retried with backoff: a hot node (every writer's edges
  // updating its set) sees many.
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    TransactWriteItemsRequest req;
    req.transact_items = edge_items_;
    std::vector<const Target*> target_of_item(req.transact_items.size(), nullptr);
    for (const auto& [target, op] : targets_) {
      req.transact_items.push_back(Write(target, op));
      target_of_item.push_back(&target);
    }
    if (req.transact_items.empty()) return res;
    g_->counters().requests++;
    g_->counters().items_written += static_cast<int64_t>(req.transact_items.size());
    auto r = g_->client()->TransactWriteItems(req);
    if (r.ok()) {
      ++transactions_;
      return res;
    }
    const Status& s = r.status();
    if (s.type() == ErrorType::kTransactionConflict ||
        s.type() == ErrorType::kTransactionInProgress) {
      internal::Backoff(attempt);
      continue;
    }
    if (s.type() == ErrorType::kValidation && IsSizeError(s.message())) {
      res.status = SizeError(targets_.empty() ? "" : targets_.begin()->first.node);
      return res;
    }
    if (s.type() != ErrorType::kTransactionCanceled) {
      res.status = s;
      return res;
    }
    const auto& reasons = s.cancellation_reasons();
    bool retry = false, conflict = false;
    std::vector<Target> drop;
    for (size_t i = 0; i < reasons.size() && i < target_of_item.size(); ++i) {
      const CancellationReason& reason = reasons[i];
      const Target* t = target_of_item[i];
      const bool size_error = reason.code == "ValidationError" && IsSizeError(reason.message);
      if (reason.code == "ConditionalCheckFailed" && t == nullptr) {
        res.edge_condition_failed = true;
        res.status = s;
        return res;
      }
      if (reason.code == "TransactionConflict") conflict = true;
      if (t == nullptr || (reason.code != "ConditionalCheckFailed" && !size_error)) continue;
      const TargetOp& op = targets_.at(*t);
      if (size_error && op.entries.empty()) {
        res.status = SizeError(t->node);
        return res;
      }
      if (!op.entries.empty()) {
        // The edge set (or page) the entries were planned for has changed shape.
        if (t->page.empty() && !size_error) {
          auto labels = g_->ReadEdgePages(t->node);
          if (!labels.ok()) {
            res.status = labels.status();
            return res;
          }
          if (!labels->has_value()) {  // the node is missing: as below
            if (op.must_exist) {
              res.status = ConditionalCheckFailed("graph: node " + t->node +
                                                  " does not exist (add it first, or pass "
                                                  "AddEdgeOptions::require_nodes = false)");
              return res;
            }
            drop.push_back(*t);
            retry = true;
            continue;
          }
          res.replan = true;
          continue;
        }
        Status st = Reorganise(*t, size_error);
        if (!st.ok()) {
          res.status = st;
          return res;
        }
        res.replan = true;
        continue;
      }
      if (op.must_exist) {
        res.status = ConditionalCheckFailed("graph: node " + t->node +
                                            " does not exist (add it first, or pass "
                                            "AddEdgeOptions::require_nodes = false)");
        return res;
      }
      drop.push_back(*t);  // a missing node: nothing to clean up there
      retry = true;
    }
    if (res.replan) return res;
    for (const auto& t : drop) targets_.erase(t);
    if (conflict) internal::Backoff(attempt);
    if (!retry && !conflict) {
      res.status = s;
      return res;
    }
  }
  res.status = Status(ErrorType::kTransactionConflict,
                      "graph: transaction still conflicting after " + std::to_string(kAttempts) +
                          " attempts");
  return res;
}

const Item& TxnPlanner::ItemKey(const TransactWriteItem& t) {
  return t.kind == TransactWriteItem::Kind::kPut ? t.item : t.key;
}

size_t TxnPlanner::ItemBytes(const TransactWriteItem& t) { return ItemSize(ItemKey(t)); }

Status TxnPlanner::SizeError(const std::string& node) const {
  return ValidationError("graph: node " + node +
                         " would exceed DynamoDB's 400 KB item limit with its own attributes and "
                         "incoming types");
}

std::string TxnPlanner::KeyString(const Item& item) const {
  auto pk = item.find(g_->schema().pk_attribute);
  auto sk = item.find(g_->schema().sk_attribute);
  std::string out;
  if (pk != item.end()) out = pk->second.scalar();
  out.push_back('\0');
  if (sk != item.end()) out += sk->second.scalar();
  return out;
}

}  // namespace dynarock::graph
