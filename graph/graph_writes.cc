// File: graph/graph_writes.cc
//
// Edge writes (AddEdge(s), RemoveEdge(s), the rank-change path), through the
// transaction planner (graph/txn_planner.h). Nodes and queries are in graph.cc,
// node deletion and edge-set verification in graph_upkeep.cc, edge pages in
// edge_pages.cc.
//
// Transaction splitting is the planner's (docs/graph.md): a write of many edges
// becomes transactions of whole edges, in order; a failure leaves the earlier
// transactions committed and reports how many edges they held. A transaction
// the planner gives back for planning again (an edge set spilled into pages, a
// page split) is planned again from its first edge, a bounded number of times.

#include <algorithm>
#include <map>
#include <set>

#include "dynarock/item_size.h"
#include "engine/limits.h"
#include "graph/graph.h"
#include "graph/graph_internal.h"
#include "graph/txn_planner.h"

namespace dynarock::graph {

using internal::IsSizeError;
using internal::kEs;
using internal::kIn;
using internal::kMaxRankRaces;
using internal::kPg;
using internal::kPk;
using internal::kRk;
using internal::S;

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

// How many times in a row one transaction may be planned again because an edge
// set it writes was reorganised meanwhile (each time one spill or split).
constexpr int kMaxReplans = 64;

// "N of M edges were committed" context for errors of multi-edge writes.
Status WithProgress(const Status& s, int64_t committed, size_t total) {
  if (s.ok() || total <= 1) return s;
  Status out(s.type(), s.message() + " (" + std::to_string(committed) + " of " +
                           std::to_string(total) +
                           " edges were committed before this error, in order)");
  if (!s.cancellation_reasons().empty()) out.WithCancellationReasons(s.cancellation_reasons());
  return out;
}

Status ReplanError(int64_t committed, size_t total) {
  return WithProgress(Status(ErrorType::kTransactionConflict,
                             "graph: edge sets kept being reorganised into pages under this "
                             "write (" + std::to_string(kMaxReplans) + " times)"),
                      committed, total);
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
      if (in_set) u.set_ops.push_back({src, schema_.EdgeSetEntry(type, tgt, rank), type, {}});
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
  int replans = 0;
  while (next < edges.size()) {
    TxnPlanner planner(this);
    std::vector<size_t> in_txn;  // indexes of the edges in this transaction
    planner.AddWhileFits(&next, edges.size(), [&](size_t i) {
      bool reverse = false;
      return make_unit(edges[i], &reverse);
    }, &in_txn);
    TxnPlanner::Result r = planner.Commit();
    if (r.replan) {
      if (++replans > kMaxReplans) return ReplanError(report.edges_committed, edges.size());
      next = in_txn.front();
      continue;
    }
    if (r.edge_condition_failed) {
      // Some edge changes its rank: write these edges one at a time, each through
      // the read-modify-write path when needed.
      for (size_t idx : in_txn) {
        bool reverse = false;
        TxnPlanner::Result one;
        int64_t transactions = 0;
        for (int again = 0;; ++again) {
          TxnPlanner single(this);
          single.Add(make_unit(edges[idx], &reverse));
          one = single.Commit();
          transactions = single.transactions();
          if (!one.replan) break;
          if (again >= kMaxReplans) return ReplanError(report.edges_committed, edges.size());
        }
        if (one.edge_condition_failed) {
          DR_RETURN_IF_ERROR(WithProgress(AddEdgeRankChanged(edges[idx], reverse, require),
                                          report.edges_committed, edges.size()));
        } else if (!one.status.ok()) {
          return WithProgress(one.status, report.edges_committed, edges.size());
        }
        report.transactions += transactions;
        report.edges_committed++;
      }
      continue;
    }
    if (!r.status.ok()) return WithProgress(r.status, report.edges_committed, edges.size());
    replans = 0;
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
        u.set_ops.push_back({d.src, schema_.EdgeSetEntry(d.type, d.tgt, rank), d.type, {}});
      }
      u.items.push_back(std::move(del));
    }
    return u;
  };

  WriteReport report;
  size_t next = 0;
  int races = 0, replans = 0;
  while (next < edges.size()) {
    TxnPlanner planner(this);
    std::vector<size_t> in_txn;
    planner.AddWhileFits(&next, edges.size(), make_unit, &in_txn);
    TxnPlanner::Result r = planner.Commit();
    if (r.replan) {
      if (++replans > kMaxReplans) return ReplanError(report.edges_committed, edges.size());
      next = in_txn.front();
      continue;
    }
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
    replans = 0;
    report.transactions += planner.transactions();
    report.edges_committed += static_cast<int64_t>(in_txn.size());
  }
  return report;
}

// An existing edge gets a new rank, so its edge-set entry changes: read the old
// edge(s) and the sets holding their entries (the node's own, or the edge pages
// the old and new entries hash to), then write the edge(s) and the recomputed
// set(s) in one transaction conditioned on nothing having changed meanwhile.
Status Graph::AddEdgeRankChanged(const EdgeSpec& e, bool reverse, bool require_nodes) {
  std::string rtype = schema_.ReverseType(e.type);
  if (rtype.empty()) rtype = e.type;
  struct Dir {
    std::string src, type, tgt;
  };
  std::vector<Dir> dirs = {{e.source, e.type, e.target}};
  if (reverse) dirs.push_back({e.target, rtype, e.source});
  // A set holding entries: a node's own (page "") or one of its edge pages.
  using Home = std::pair<std::string, std::string>;
  auto read_set = [&](const Home& h, std::set<std::string>* out,
                      bool* exists) -> StatusOr<std::vector<std::string>> {
    GetItemRequest g;
    g.table_name = schema_.table_name;
    g.key = h.second.empty() ? schema_.NodeKey(h.first) : schema_.EdgePageKey(h.first, h.second);
    g.consistent_read = true;
    counters_.requests++;
    DR_ASSIGN_OR_RETURN(GetItemResponse raw, client_->GetItem(g));
    *exists = raw.item.has_value();
    std::vector<std::string> labels;
    if (!raw.item) return labels;
    counters_.items_read++;
    auto es = raw.item->find(schema_.edge_set_attribute);
    if (es != raw.item->end() && es->second.is(AttrType::kSS)) {
      out->insert(es->second.set().begin(), es->second.set().end());
    }
    auto pg = raw.item->find(schema_.edge_pages_attribute);
    if (pg != raw.item->end() && pg->second.is(AttrType::kSS)) labels = pg->second.set();
    return labels;
  };
  for (int attempt = 0; attempt < 8; ++attempt) {
    std::map<Home, std::set<std::string>> new_sets, old_sets;
    std::map<std::string, std::vector<std::string>> labels_of;  // source -> its page labels
    std::map<std::string, std::set<std::string>> in_types;  // target -> incoming types
    TransactWriteItemsRequest req;
    bool moved = false;  // a page was split or dropped since the labels were read
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
      if (!labels_of.count(d.src)) {
        std::set<std::string> own;
        bool exists = false;
        DR_ASSIGN_OR_RETURN(std::vector<std::string> labels, read_set({d.src, ""}, &own, &exists));
        if (!exists) return ConditionalCheckFailed("graph: node " + d.src + " does not exist");
        if (labels.empty()) old_sets[{d.src, ""}] = new_sets[{d.src, ""}] = own;
        labels_of[d.src] = std::move(labels);
      }
      const std::vector<std::string>& labels = labels_of[d.src];
      auto home_of = [&](const std::string& entry) -> StatusOr<Home> {
        Home h{d.src, labels.empty() ? "" : internal::EdgePageOf(labels, entry)};
        if (!old_sets.count(h)) {
          std::set<std::string> set;
          bool exists = false;
          DR_RETURN_IF_ERROR(read_set(h, &set, &exists).status());
          if (!exists) moved = true;
          old_sets[h] = new_sets[h] = set;
        }
        return h;
      };
      if (old) {
        std::string entry = schema_.EdgeSetEntry(d.type, d.tgt, old->rank);
        DR_ASSIGN_OR_RETURN(Home h, home_of(entry));
        new_sets[h].erase(entry);
      }
      std::string entry = schema_.EdgeSetEntry(d.type, d.tgt, rank);
      DR_ASSIGN_OR_RETURN(Home h, home_of(entry));
      new_sets[h].insert(entry);
    }
    if (moved) {
      internal::Backoff(attempt);
      continue;
    }
    // One update per set and per node: the recomputed sets, the incoming types.
    std::set<Home> touched;
    for (const auto& [home, set] : new_sets) touched.insert(home);
    for (const auto& [node, types] : in_types) touched.insert({node, ""});
    std::vector<Home> home_of_item(req.transact_items.size());
    for (const Home& home : touched) {
      const auto& [node, page] = home;
      TransactWriteItem t;
      t.kind = TransactWriteItem::Kind::kUpdate;
      t.table_name = schema_.table_name;
      t.key = page.empty() ? schema_.NodeKey(node) : schema_.EdgePageKey(node, page);
      t.expression_attribute_names[kPk] = schema_.pk_attribute;
      std::string expr, cond;
      auto ns = new_sets.find(home);
      if (ns != new_sets.end()) {
        const std::set<std::string>& set = ns->second;
        const std::set<std::string>& before = old_sets[home];
        t.expression_attribute_names[kEs] = schema_.edge_set_attribute;
        if (set.empty()) {
          expr = std::string("REMOVE ") + kEs;
        } else {
          t.expression_attribute_values[":g_new"] =
              AttributeValue::SS(std::vector<std::string>(set.begin(), set.end()));
          expr = std::string("SET ") + kEs + " = :g_new";
        }
        if (!before.empty()) {
          t.expression_attribute_values[":g_old"] =
              AttributeValue::SS(std::vector<std::string>(before.begin(), before.end()));
          cond = std::string("attribute_exists(") + kPk + ") AND " + kEs + " = :g_old";
        } else {
          cond = std::string("attribute_exists(") + kPk + ") AND attribute_not_exists(" + kEs + ")";
        }
        if (page.empty()) {  // the node's own set: only while it has not spilled
          t.expression_attribute_names[kPg] = schema_.edge_pages_attribute;
          cond += std::string(" AND attribute_not_exists(") + kPg + ")";
        }
      } else if (require_nodes) {
        cond = std::string("attribute_exists(") + kPk + ")";
      }
      auto it = page.empty() ? in_types.find(node) : in_types.end();
      if (it != in_types.end()) {
        t.expression_attribute_names[kIn] = schema_.incoming_types_attribute;
        t.expression_attribute_values[":g_in"] =
            AttributeValue::SS(std::vector<std::string>(it->second.begin(), it->second.end()));
        expr += (expr.empty() ? "" : " ") + std::string("ADD ") + kIn + " :g_in";
      }
      if (expr.empty()) {
        t.kind = TransactWriteItem::Kind::kConditionCheck;
      } else {
        t.update_expression = expr;
      }
      if (cond.empty()) {
        t.expression_attribute_names.erase(kPk);
      } else {
        t.condition_expression = cond;
      }
      if (t.kind == TransactWriteItem::Kind::kConditionCheck && !t.condition_expression) continue;
      t.has_expression_attribute_names = true;
      t.has_expression_attribute_values = !t.expression_attribute_values.empty();
      req.transact_items.push_back(std::move(t));
      home_of_item.push_back(home);
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
      const bool set_item = i < home_of_item.size() && new_sets.count(home_of_item[i]);
      const bool node_item = i < home_of_item.size() && !home_of_item[i].first.empty();
      if (reason.code == "ConditionalCheckFailed" && node_item && !set_item) {
        return ConditionalCheckFailed("graph: node " + home_of_item[i].first +
                                      " does not exist (add it first, or pass "
                                      "AddEdgeOptions::require_nodes = false)");
      }
      if (reason.code == "ConditionalCheckFailed" || reason.code == "TransactionConflict") {
        retry = true;
      }
      if (reason.code == "ValidationError" && IsSizeError(reason.message)) {
        if (!set_item) {
          return ValidationError(node_item ? "graph: node " + home_of_item[i].first +
                                                 " would exceed DynamoDB's 400 KB item limit"
                                           : "graph: edge " + e.source + " -" + e.type + "-> " +
                                                 e.target + " would exceed DynamoDB's 400 KB item limit");
        }
        const auto& [node, page] = home_of_item[i];
        DR_RETURN_IF_ERROR(page.empty() ? SpillEdgeSet(node) : SplitEdgePage(node, page));
        retry = true;
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
