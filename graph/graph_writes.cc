// File: graph/graph_writes.cc
//
// Edge writes (AddEdge(s), RemoveEdge(s), the rank-change path) and their
// transaction planner. Nodes and queries are in graph.cc, node deletion and
// edge-set verification in graph_upkeep.cc.
//
// Transaction splitting (docs/graph.md): a write of many edges is cut into
// "units", one per edge: the edge item, its edge-set update on the source node,
// the incoming-type update on the target node, the reverse edge with its
// updates, plus condition checks that the nodes exist. Units are packed, in
// order, into transactions of at most 100 items and 4 MB (DynamoDB's two limits
// of TransactWriteItems); the node updates of several units on one node merge
// into one Update (one ADD or DELETE of several entries), since a transaction may
// touch an item only once. A unit is never split, so every edge stays consistent
// with its edge sets; a failure leaves the earlier transactions committed and
// reports how many edges they held.

#include <algorithm>
#include <map>
#include <set>

#include "dynarock/item_size.h"
#include "engine/limits.h"
#include "graph/graph.h"
#include "graph/graph_internal.h"

namespace dynarock::graph {

using internal::IsSizeError;
using internal::kEs;
using internal::kIn;
using internal::kMaxRankRaces;
using internal::kPk;
using internal::kRk;
using internal::kSk;
using internal::kTy;
using internal::S;

// ============================================================ TxnPlanner

// Packs edge units into transactions of at most 100 items and 4 MB (see the file
// comment). Sizes are counted by DynamoDB's item size rules (dynarock/item_size.h):
// a Put counts its item, a Delete or ConditionCheck its key, an Update its key
// plus the values it adds or removes (the set entries, the incoming types).
class TxnPlanner {
 public:
  struct SetOp {  // an edge-set entry ADDed to / DELETEd from `node`
    std::string node;
    std::string entry;
    std::string type;
  };
  struct TypeOp {  // an incoming edge type ADDed to `node`
    std::string node;
    std::string type;
  };
  struct Unit {
    std::vector<TransactWriteItem> items;  // edge puts / deletes
    std::vector<SetOp> set_ops;
    std::vector<TypeOp> type_ops;
    bool add = true;                       // set ops are ADDs (else DELETEs)
    std::vector<std::string> must_exist;   // nodes that must exist
  };

  struct Result {
    Status status;
    bool edge_condition_failed = false;  // an edge item's condition (rank guard) failed
  };

  explicit TxnPlanner(Graph* g) : g_(g) {}

  size_t ItemCount() const { return edge_items_.size() + nodes_.size(); }
  bool empty() const { return edge_items_.empty() && nodes_.empty(); }
  size_t bytes() const { return bytes_; }

  // Whether `u` can join the open transaction. A unit always fits an empty one.
  bool Fits(const Unit& u) const {
    if (empty()) return true;
    size_t extra_bytes = 0;
    for (const auto& it : u.items) {
      if (edge_keys_.count(KeyString(ItemKey(it)))) return false;  // an item once per txn
      extra_bytes += ItemBytes(it);
    }
    std::set<std::string> new_nodes;
    auto consider = [&](const std::string& node, bool has_set_op) -> bool {
      auto n = nodes_.find(node);
      if (n == nodes_.end()) {
        if (new_nodes.insert(node).second) extra_bytes += ItemSize(g_->schema().NodeKey(node));
        return true;
      }
      // DynamoDB cannot ADD and DELETE entries of one set in one update.
      return !(has_set_op && !n->second.entries.empty() && n->second.add != u.add);
    };
    for (const auto& op : u.set_ops) {
      if (!consider(op.node, true)) return false;
      extra_bytes += op.entry.size();
    }
    for (const auto& op : u.type_ops) {
      consider(op.node, false);
      extra_bytes += op.type.size();
    }
    for (const auto& n : u.must_exist) consider(n, false);
    const size_t items = ItemCount() + u.items.size() + new_nodes.size();
    return items <= static_cast<size_t>(kTransactItemsMax) &&
           bytes_ + extra_bytes <= kTransactBytesMax;
  }

  void Add(Unit u) {
    for (auto& it : u.items) {
      edge_keys_.insert(KeyString(ItemKey(it)));
      bytes_ += ItemBytes(it);
      edge_items_.push_back(std::move(it));
    }
    for (auto& op : u.set_ops) {
      NodeOp& n = Node(op.node);
      n.add = u.add;
      if (n.entries.insert(op.entry).second) bytes_ += op.entry.size();
      n.types.insert(op.type);
      if (!u.add) n.tolerate_missing = true;
    }
    for (auto& op : u.type_ops) {
      NodeOp& n = Node(op.node);
      if (n.in_types.insert(op.type).second) bytes_ += op.type.size();
    }
    for (auto& node : u.must_exist) Node(node).must_exist = true;
  }

  Result Commit() {
    Result res;
    const Schema& schema = g_->schema();
    for (int attempt = 0; attempt < 8; ++attempt) {
      TransactWriteItemsRequest req;
      req.transact_items = edge_items_;
      std::vector<std::string> node_of_item(req.transact_items.size());
      for (const auto& [node, op] : nodes_) {
        TransactWriteItem t;
        t.table_name = schema.table_name;
        t.key = schema.NodeKey(node);
        t.expression_attribute_names[kPk] = schema.pk_attribute;
        if (op.entries.empty() && op.in_types.empty()) {
          t.kind = TransactWriteItem::Kind::kConditionCheck;
          t.condition_expression = std::string("attribute_exists(") + kPk + ")";
        } else {
          t.kind = TransactWriteItem::Kind::kUpdate;
          std::string adds, deletes;
          auto append = [](std::string* clause, const std::string& action) {
            *clause += (clause->empty() ? "" : ", ") + action;
          };
          if (!op.entries.empty()) {
            t.expression_attribute_names[kEs] = schema.edge_set_attribute;
            t.expression_attribute_values[":g_es"] = AttributeValue::SS(
                std::vector<std::string>(op.entries.begin(), op.entries.end()));
            append(op.add ? &adds : &deletes, std::string(kEs) + " :g_es");
          }
          if (!op.in_types.empty()) {
            t.expression_attribute_names[kIn] = schema.incoming_types_attribute;
            t.expression_attribute_values[":g_in"] = AttributeValue::SS(
                std::vector<std::string>(op.in_types.begin(), op.in_types.end()));
            append(&adds, std::string(kIn) + " :g_in");
          }
          std::string expr;
          if (!adds.empty()) expr += "ADD " + adds;
          if (!deletes.empty()) {
            expr += (expr.empty() ? "" : " ") + std::string("DELETE ") + deletes;
          }
          if (op.add && !schema.type_attribute.empty()) {
            t.expression_attribute_names[kTy] = schema.type_attribute;
            t.expression_attribute_values[":g_ty"] = S(schema.NodeType(node));
            expr += std::string(" SET ") + kTy + " = if_not_exists(" + kTy + ", :g_ty)";
          }
          t.update_expression = expr;
          if (op.must_exist || op.tolerate_missing) {
            t.condition_expression = std::string("attribute_exists(") + kPk + ")";
          } else {
            t.expression_attribute_names.erase(kPk);
          }
          t.has_expression_attribute_values = true;
        }
        t.has_expression_attribute_names = true;
        req.transact_items.push_back(std::move(t));
        node_of_item.push_back(node);
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
        res.status = SizeError(nodes_.empty() ? "" : nodes_.begin()->first);
        return res;
      }
      if (s.type() != ErrorType::kTransactionCanceled) {
        res.status = s;
        return res;
      }
      const auto& reasons = s.cancellation_reasons();
      bool retry = false, conflict = false;
      std::vector<std::string> drop;
      for (size_t i = 0; i < reasons.size() && i < node_of_item.size(); ++i) {
        const CancellationReason& reason = reasons[i];
        const bool is_node = !node_of_item[i].empty();
        if (reason.code == "ConditionalCheckFailed") {
          if (!is_node) {
            res.edge_condition_failed = true;
            res.status = s;
            return res;
          }
          const NodeOp& op = nodes_[node_of_item[i]];
          if (op.must_exist) {
            res.status = ConditionalCheckFailed("graph: node " + node_of_item[i] +
                                                " does not exist (add it first, or pass "
                                                "AddEdgeOptions::require_nodes = false)");
            return res;
          }
          drop.push_back(node_of_item[i]);  // a missing node: nothing to clean up there
          retry = true;
        } else if (reason.code == "ValidationError" && IsSizeError(reason.message) && is_node) {
          res.status = SizeError(node_of_item[i]);
          return res;
        } else if (reason.code == "TransactionConflict") {
          conflict = true;
        }
      }
      for (const auto& n : drop) nodes_.erase(n);
      if (conflict) internal::Backoff(attempt);
      if (!retry && !conflict) {
        res.status = s;
        return res;
      }
    }
    res.status = Status(ErrorType::kTransactionConflict,
                        "graph: transaction still conflicting after 8 attempts");
    return res;
  }

  int64_t transactions() const { return transactions_; }

 private:
  struct NodeOp {
    std::set<std::string> entries;   // edge-set entries ADDed (add) or DELETEd
    std::set<std::string> types;     // their edge types (for error messages)
    std::set<std::string> in_types;  // incoming types ADDed
    bool add = true;
    bool must_exist = false;
    bool tolerate_missing = false;
  };

  NodeOp& Node(const std::string& node) {
    auto [it, inserted] = nodes_.try_emplace(node);
    if (inserted) bytes_ += ItemSize(g_->schema().NodeKey(node));
    return it->second;
  }

  static const Item& ItemKey(const TransactWriteItem& t) {
    return t.kind == TransactWriteItem::Kind::kPut ? t.item : t.key;
  }

  // A Put's item; a Delete's key (its condition values are not item data).
  static size_t ItemBytes(const TransactWriteItem& t) { return ItemSize(ItemKey(t)); }

  Status SizeError(const std::string& node) {
    std::string types;
    auto it = nodes_.find(node);
    if (it != nodes_.end()) {
      for (const auto& t : it->second.types) types += (types.empty() ? "" : ", ") + t;
    }
    std::string first = types.substr(0, types.find(','));
    return ValidationError(
        "graph: the edge set of node " + node + " would exceed DynamoDB's 400 KB item limit "
        "adding edges of type " + types + "; opt the edge type out of the edge set "
        "(Schema::OptOutOfEdgeSet(\"" + first + "\")) — its edges stay queryable through "
        "OutEdges/InEdges");
  }

  std::string KeyString(const Item& item) const {
    auto pk = item.find(g_->schema().pk_attribute);
    auto sk = item.find(g_->schema().sk_attribute);
    std::string out;
    if (pk != item.end()) out = pk->second.scalar();
    out.push_back('\0');
    if (sk != item.end()) out += sk->second.scalar();
    return out;
  }

  Graph* g_;
  std::vector<TransactWriteItem> edge_items_;
  std::set<std::string> edge_keys_;
  std::map<std::string, NodeOp> nodes_;
  size_t bytes_ = 0;
  int64_t transactions_ = 0;
};

// ------------------------------------------------------------ edge writes

namespace {

TransactWriteItem EdgePut(const Schema& s, const std::string& source, const std::string& type,
                          const std::string& target, const Item& props, const std::string& rank,
                          bool guard) {
  TransactWriteItem t;
  t.kind = TransactWriteItem::Kind::kPut;
  t.table_name = s.table_name;
  t.item = props;
  Item key = s.EdgeKey(source, type, target);
  for (auto& [k, v] : key) t.item[k] = v;
  t.item[s.rank_attribute] = S(rank);
  if (!s.type_attribute.empty()) t.item[s.type_attribute] = S(type);
  if (guard) {
    // The edge is new, or keeps its rank (else its edge-set entry would change:
    // handled by Graph::AddEdgeRankChanged).
    t.condition_expression = std::string("attribute_not_exists(") + kPk + ") OR " + kRk +
                             " = :g_rk";
    t.expression_attribute_names[kPk] = s.pk_attribute;
    t.expression_attribute_names[kRk] = s.rank_attribute;
    t.expression_attribute_values[":g_rk"] = S(rank);
    t.has_expression_attribute_names = true;
    t.has_expression_attribute_values = true;
  }
  return t;
}

TransactWriteItem EdgeDelete(const Schema& s, const std::string& source, const std::string& type,
                             const std::string& target) {
  TransactWriteItem t;
  t.kind = TransactWriteItem::Kind::kDelete;
  t.table_name = s.table_name;
  t.key = s.EdgeKey(source, type, target);
  return t;
}

// "N of M edges were committed" context for errors of multi-edge writes.
Status WithProgress(const Status& s, int64_t committed, size_t total) {
  if (s.ok() || total <= 1) return s;
  Status out(s.type(), s.message() + " (" + std::to_string(committed) + " of " +
                           std::to_string(total) +
                           " edges were committed before this error, in order)");
  if (!s.cancellation_reasons().empty()) out.WithCancellationReasons(s.cancellation_reasons());
  return out;
}

}  // namespace

Status Graph::AddEdge(const EdgeSpec& edge, const AddEdgeOptions& options) {
  return AddEdgesImpl({edge}, options).status();
}

StatusOr<WriteReport> Graph::AddEdges(const std::vector<EdgeSpec>& edges,
                                      const AddEdgeOptions& options) {
  return AddEdgesImpl(edges, options);
}

Status Graph::RemoveEdge(const std::string& source, const std::string& type,
                         const std::string& target, const RemoveEdgeOptions& options) {
  return RemoveEdgesImpl({EdgeSpec{source, type, target, {}}}, options.reverse, "").status();
}

StatusOr<WriteReport> Graph::RemoveEdges(const std::vector<EdgeSpec>& edges,
                                         const RemoveEdgeOptions& options) {
  return RemoveEdgesImpl(edges, options.reverse, "");
}

Status Graph::ValidateEdges(const std::vector<EdgeSpec>& edges) const {
  for (const EdgeSpec& e : edges) {
    DR_RETURN_IF_ERROR(schema_.ValidateNodeId(e.source));
    DR_RETURN_IF_ERROR(schema_.ValidateNodeId(e.target));
    DR_RETURN_IF_ERROR(schema_.ValidateEdgeType(e.type));
    for (const auto& [k, v] : e.properties) {
      if (schema_.IsReserved(k)) {
        return ValidationError("graph: edge property '" + k + "' is managed by the graph layer");
      }
    }
  }
  return Status::Ok();
}

Status Graph::ReadRanks(const std::vector<Item>& keys,
                        std::map<std::string, std::string>* ranks) {
  return BatchGetEach(keys, /*consistent_read=*/true, [&](Item& item) {
    Edge e = ToEdge(item);
    (*ranks)[e.source + '\0' + schema_.EdgeSortKey(e.type, e.target)] = e.rank;
  });
}

StatusOr<WriteReport> Graph::AddEdgesImpl(const std::vector<EdgeSpec>& edges,
                                          const AddEdgeOptions& options) {
  DR_RETURN_IF_ERROR(ValidateEdges(edges));
  const bool require = options.require_nodes;

  auto make_unit = [&](const EdgeSpec& e, bool* reverse_out) {
    TxnPlanner::Unit u;
    u.add = true;
    std::string rtype = schema_.ReverseType(e.type);
    bool reverse = options.reverse.value_or(!rtype.empty());
    if (rtype.empty()) rtype = e.type;
    if (reverse && e.source == e.target && rtype == e.type) reverse = false;  // same item
    *reverse_out = reverse;
    auto directed = [&](const std::string& src, const std::string& type, const std::string& tgt) {
      std::string rank = schema_.Rank(type, src, e.properties);
      bool in_set = schema_.InEdgeSet(type);
      u.items.push_back(EdgePut(schema_, src, type, tgt, e.properties, rank,
                                in_set && schema_.HasRank(type)));
      if (in_set) u.set_ops.push_back({src, schema_.EdgeSetEntry(type, tgt, rank), type});
      u.type_ops.push_back({tgt, type});  // DeleteNode(tgt) will know to look for it
      if (require) {
        u.must_exist.push_back(src);
        u.must_exist.push_back(tgt);
      }
    };
    directed(e.source, e.type, e.target);
    if (reverse) directed(e.target, rtype, e.source);
    return u;
  };

  WriteReport report;
  size_t next = 0;
  while (next < edges.size()) {
    TxnPlanner planner(this);
    std::vector<size_t> in_txn;  // indexes of the edges in this transaction
    while (next < edges.size()) {
      bool reverse = false;
      TxnPlanner::Unit u = make_unit(edges[next], &reverse);
      if (!planner.Fits(u)) break;
      planner.Add(std::move(u));
      in_txn.push_back(next++);
    }
    TxnPlanner::Result r = planner.Commit();
    if (r.edge_condition_failed) {
      // Some edge changes its rank: write these edges one at a time, each through
      // the read-modify-write path when needed.
      for (size_t idx : in_txn) {
        bool reverse = false;
        TxnPlanner single(this);
        single.Add(make_unit(edges[idx], &reverse));
        TxnPlanner::Result one = single.Commit();
        if (one.edge_condition_failed) {
          DR_RETURN_IF_ERROR(WithProgress(AddEdgeRankChanged(edges[idx], reverse, require),
                                          report.edges_committed, edges.size()));
        } else if (!one.status.ok()) {
          return WithProgress(one.status, report.edges_committed, edges.size());
        }
        report.transactions += single.transactions();
        report.edges_committed++;
      }
      continue;
    }
    if (!r.status.ok()) return WithProgress(r.status, report.edges_committed, edges.size());
    report.transactions += planner.transactions();
    report.edges_committed += static_cast<int64_t>(in_txn.size());
  }
  return report;
}

StatusOr<WriteReport> Graph::RemoveEdgesImpl(const std::vector<EdgeSpec>& edges,
                                             std::optional<bool> reverse_option,
                                             const std::string& dying_node) {
  DR_RETURN_IF_ERROR(ValidateEdges(edges));

  // The directed edges to delete, per edge of the call, each item once: the same
  // edge listed twice, both directions of a symmetric type, a self-loop and its
  // "reverse" are one item (DynamoDB refuses a key twice in a BatchGetItem and an
  // item twice in a transaction).
  struct Directed {
    std::string src, type, tgt;
  };
  auto key_string = [&](const Directed& d) {
    return d.src + '\0' + schema_.EdgeSortKey(d.type, d.tgt);
  };
  // Entries of ranked types name the rank: it is read from the edge first.
  auto needs_rank = [&](const Directed& d) {
    return d.src != dying_node && schema_.InEdgeSet(d.type) && schema_.HasRank(d.type);
  };
  std::vector<std::vector<Directed>> per_edge(edges.size());
  std::set<std::string> seen;
  std::vector<Item> rank_keys;
  for (size_t i = 0; i < edges.size(); ++i) {
    const EdgeSpec& e = edges[i];
    std::string rtype = schema_.ReverseType(e.type);
    const bool reverse = reverse_option.value_or(!rtype.empty());
    if (rtype.empty()) rtype = e.type;
    std::vector<Directed> dirs = {{e.source, e.type, e.target}};
    if (reverse) dirs.push_back({e.target, rtype, e.source});
    for (Directed& d : dirs) {
      if (!seen.insert(key_string(d)).second) continue;
      if (needs_rank(d)) rank_keys.push_back(schema_.EdgeKey(d.src, d.type, d.tgt));
      per_edge[i].push_back(std::move(d));
    }
  }
  std::map<std::string, std::string> ranks;  // key_string -> stored rank
  DR_RETURN_IF_ERROR(ReadRanks(rank_keys, &ranks));

  // A delete whose edge-set entry depends on the rank is conditioned on that
  // rank (or on the edge still being absent when none was read): a concurrent
  // rank change cancels the transaction instead of leaving a stale entry.
  auto make_unit = [&](size_t i) {
    TxnPlanner::Unit u;
    u.add = false;
    for (const Directed& d : per_edge[i]) {
      TransactWriteItem del = EdgeDelete(schema_, d.src, d.type, d.tgt);
      if (d.src != dying_node && schema_.InEdgeSet(d.type)) {
        std::string rank;
        if (schema_.HasRank(d.type)) {
          auto it = ranks.find(key_string(d));
          if (it == ranks.end()) {
            del.condition_expression = std::string("attribute_not_exists(") + kPk + ")";
            del.expression_attribute_names[kPk] = schema_.pk_attribute;
            del.has_expression_attribute_names = true;
            u.items.push_back(std::move(del));
            continue;  // no edge, no entry
          }
          rank = it->second;
          del.condition_expression = std::string(kRk) + " = :g_rk";
          del.expression_attribute_names[kRk] = schema_.rank_attribute;
          del.expression_attribute_values[":g_rk"] = S(rank);
          del.has_expression_attribute_names = true;
          del.has_expression_attribute_values = true;
        }
        u.set_ops.push_back({d.src, schema_.EdgeSetEntry(d.type, d.tgt, rank), d.type});
      }
      u.items.push_back(std::move(del));
    }
    return u;
  };

  WriteReport report;
  size_t next = 0;
  int races = 0;
  while (next < edges.size()) {
    TxnPlanner planner(this);
    std::vector<size_t> in_txn;
    while (next < edges.size()) {
      TxnPlanner::Unit u = make_unit(next);
      if (!planner.Fits(u)) break;
      planner.Add(std::move(u));
      in_txn.push_back(next++);
    }
    TxnPlanner::Result r = planner.Commit();
    if (r.edge_condition_failed) {
      // A rank changed (or an edge appeared) since it was read: read this
      // transaction's ranks again and retry it.
      if (++races > kMaxRankRaces) {
        return WithProgress(
            Status(ErrorType::kTransactionConflict,
                   "graph: the ranks of edges being removed kept changing (" +
                       std::to_string(kMaxRankRaces) + " retries)"),
            report.edges_committed, edges.size());
      }
      std::vector<Item> keys;
      for (size_t idx : in_txn) {
        for (const Directed& d : per_edge[idx]) {
          if (!needs_rank(d)) continue;
          ranks.erase(key_string(d));
          keys.push_back(schema_.EdgeKey(d.src, d.type, d.tgt));
        }
      }
      DR_RETURN_IF_ERROR(WithProgress(ReadRanks(keys, &ranks), report.edges_committed,
                                      edges.size()));
      next = in_txn.front();
      internal::Backoff(races - 1);
      continue;
    }
    if (!r.status.ok()) return WithProgress(r.status, report.edges_committed, edges.size());
    races = 0;
    report.transactions += planner.transactions();
    report.edges_committed += static_cast<int64_t>(in_txn.size());
  }
  return report;
}

// An existing edge gets a new rank, so its edge-set entry changes: read the old
// edge(s) and node set(s), then write the edge(s) and the recomputed set(s) in one
// transaction conditioned on nothing having changed meanwhile.
Status Graph::AddEdgeRankChanged(const EdgeSpec& e, bool reverse, bool require_nodes) {
  std::string rtype = schema_.ReverseType(e.type);
  if (rtype.empty()) rtype = e.type;
  struct Dir {
    std::string src, type, tgt;
  };
  std::vector<Dir> dirs = {{e.source, e.type, e.target}};
  if (reverse) dirs.push_back({e.target, rtype, e.source});
  for (int attempt = 0; attempt < 5; ++attempt) {
    std::map<std::string, std::set<std::string>> new_sets, old_sets;
    std::map<std::string, bool> had_set;
    std::map<std::string, std::set<std::string>> in_types;  // target -> incoming types
    TransactWriteItemsRequest req;
    for (const Dir& d : dirs) {
      DR_ASSIGN_OR_RETURN(std::optional<Edge> old, GetEdge(d.src, d.type, d.tgt, true));
      std::string rank = schema_.Rank(d.type, d.src, e.properties);
      TransactWriteItem put = EdgePut(schema_, d.src, d.type, d.tgt, e.properties, rank, false);
      put.expression_attribute_names[kPk] = schema_.pk_attribute;
      put.has_expression_attribute_names = true;
      if (old) {
        put.expression_attribute_names[kRk] = schema_.rank_attribute;
        put.expression_attribute_values[":g_old"] = S(old->rank);
        put.has_expression_attribute_values = true;
        put.condition_expression = std::string(kRk) + " = :g_old";
        put.expression_attribute_names.erase(kPk);
      } else {
        put.condition_expression = std::string("attribute_not_exists(") + kPk + ")";
      }
      req.transact_items.push_back(std::move(put));
      in_types[d.tgt].insert(d.type);
      if (!schema_.InEdgeSet(d.type)) continue;
      if (!old_sets.count(d.src)) {
        DR_ASSIGN_OR_RETURN(std::optional<Node> node, GetNode(d.src, true));
        if (!node) {
          return ConditionalCheckFailed("graph: node " + d.src + " does not exist");
        }
        GetItemRequest g;  // the raw set (entries as stored)
        g.table_name = schema_.table_name;
        g.key = schema_.NodeKey(d.src);
        g.consistent_read = true;
        counters_.requests++;
        DR_ASSIGN_OR_RETURN(GetItemResponse raw, client_->GetItem(g));
        std::set<std::string> s;
        bool has = false;
        if (raw.item) {
          auto es = raw.item->find(schema_.edge_set_attribute);
          if (es != raw.item->end() && es->second.is(AttrType::kSS)) {
            s.insert(es->second.set().begin(), es->second.set().end());
            has = true;
          }
        }
        old_sets[d.src] = s;
        new_sets[d.src] = s;
        had_set[d.src] = has;
      }
      if (old) new_sets[d.src].erase(schema_.EdgeSetEntry(d.type, d.tgt, old->rank));
      new_sets[d.src].insert(schema_.EdgeSetEntry(d.type, d.tgt, rank));
    }
    // One update per node: its recomputed edge set and/or the incoming types.
    std::set<std::string> touched;
    for (const auto& [node, set] : new_sets) touched.insert(node);
    for (const auto& [node, types] : in_types) touched.insert(node);
    std::vector<std::string> types_only(req.transact_items.size());  // per item: node
    for (const std::string& node : touched) {
      TransactWriteItem t;
      t.kind = TransactWriteItem::Kind::kUpdate;
      t.table_name = schema_.table_name;
      t.key = schema_.NodeKey(node);
      t.expression_attribute_names[kPk] = schema_.pk_attribute;
      std::string expr, cond;
      auto ns = new_sets.find(node);
      if (ns != new_sets.end()) {
        const std::set<std::string>& set = ns->second;
        t.expression_attribute_names[kEs] = schema_.edge_set_attribute;
        t.expression_attribute_values[":g_new"] =
            AttributeValue::SS(std::vector<std::string>(set.begin(), set.end()));
        expr = std::string("SET ") + kEs + " = :g_new";
        if (had_set[node]) {
          t.expression_attribute_values[":g_old"] = AttributeValue::SS(
              std::vector<std::string>(old_sets[node].begin(), old_sets[node].end()));
          cond = std::string("attribute_exists(") + kPk + ") AND " + kEs + " = :g_old";
        } else {
          cond = std::string("attribute_exists(") + kPk + ") AND attribute_not_exists(" + kEs +
                 ")";
        }
      } else if (require_nodes) {
        cond = std::string("attribute_exists(") + kPk + ")";
      }
      auto it = in_types.find(node);
      if (it != in_types.end()) {
        t.expression_attribute_names[kIn] = schema_.incoming_types_attribute;
        t.expression_attribute_values[":g_in"] =
            AttributeValue::SS(std::vector<std::string>(it->second.begin(), it->second.end()));
        expr += (expr.empty() ? "" : " ") + std::string("ADD ") + kIn + " :g_in";
      }
      t.update_expression = expr;
      if (cond.empty()) {
        t.expression_attribute_names.erase(kPk);
      } else {
        t.condition_expression = cond;
      }
      t.has_expression_attribute_names = true;
      t.has_expression_attribute_values = true;
      req.transact_items.push_back(std::move(t));
      types_only.push_back(ns == new_sets.end() ? node : "");
    }
    counters_.requests++;
    counters_.items_written += static_cast<int64_t>(req.transact_items.size());
    auto r = client_->TransactWriteItems(req);
    if (r.ok()) return Status::Ok();
    const Status& s = r.status();
    bool retry = s.type() == ErrorType::kTransactionConflict;
    const auto& reasons = s.cancellation_reasons();
    for (size_t i = 0; i < reasons.size(); ++i) {
      const CancellationReason& reason = reasons[i];
      if (reason.code == "ConditionalCheckFailed" && i < types_only.size() &&
          !types_only[i].empty()) {
        return ConditionalCheckFailed("graph: node " + types_only[i] +
                                      " does not exist (add it first, or pass "
                                      "AddEdgeOptions::require_nodes = false)");
      }
      if (reason.code == "ConditionalCheckFailed" || reason.code == "TransactionConflict") {
        retry = true;
      }
      if (reason.code == "ValidationError" && IsSizeError(reason.message)) {
        return ValidationError("graph: the edge set of node " + e.source +
                               " would exceed DynamoDB's 400 KB item limit adding edges of type " +
                               e.type + "; opt the edge type out of the edge set "
                               "(Schema::OptOutOfEdgeSet(\"" + e.type + "\"))");
      }
    }
    if (!retry) return s;
    internal::Backoff(attempt);
  }
  return Status(ErrorType::kTransactionConflict,
                "graph: edge " + e.source + " -" + e.type + "-> " + e.target +
                    " kept changing while its rank was rewritten");
}

}  // namespace dynarock::graph
