// File: graph/graph_upkeep.cc
//
// Keeping a graph whole: DeleteNode (a node and every edge touching it, in
// bounded, resumable steps) and VerifyEdgeSet (a node's edge set against its
// edges, repaired on request). Edge writes are in graph_writes.cc.

#include <algorithm>
#include <map>
#include <set>

#include "graph/graph.h"
#include "graph/graph_internal.h"

namespace dynarock::graph {

using internal::IsSizeError;
using internal::kEs;
using internal::kPg;
using internal::kPk;
using internal::S;

// ------------------------------------------------------------ node deletion

StatusOr<DeleteProgress> Graph::DeleteNode(const std::string& id,
                                           const DeleteNodeOptions& options) {
  DR_RETURN_IF_ERROR(schema_.ValidateNodeId(id));
  for (const std::string& t : options.in_edge_types) {
    DR_RETURN_IF_ERROR(schema_.ValidateEdgeType(t));
  }
  DeleteProgress progress;
  const int64_t budget = std::max<int64_t>(1, options.max_edges);

  // 0. A spilled edge set's pages go first (and pages a call cut short left
  // behind): the queries below then read edges only, and a node half deleted
  // has no edge set (as documented).
  DR_RETURN_IF_ERROR(DropEdgePages(id));

  // Removes edges the way RemoveEdges does (reverse edges, edge-set entries with
  // their ranks read from the table and guarded), without updating the edge set
  // of the node being deleted.
  auto remove = [&](const std::vector<EdgeSpec>& victims) -> Status {
    DR_ASSIGN_OR_RETURN(WriteReport w, RemoveEdgesImpl(victims, std::nullopt, id));
    progress.transactions += w.transactions;
    progress.edges_deleted += static_cast<int64_t>(victims.size());
    return Status::Ok();
  };

  // 1. Outgoing edges (the node's partition), with their reverse edges.
  while (true) {
    const int64_t left = budget - progress.edges_deleted;
    if (left <= 0) return progress;
    EdgeQuery q;
    q.limit = std::min<int64_t>(left, 100);
    q.consistent_read = true;  // deleted edges are gone: always restart from the top
    DR_ASSIGN_OR_RETURN(EdgePage page, OutEdges(id, "", q));
    if (page.edges.empty()) break;
    std::vector<EdgeSpec> victims;
    for (const Edge& e : page.edges) victims.push_back({e.source, e.type, e.target, {}});
    DR_RETURN_IF_ERROR(remove(victims));
    if (page.next_page_token.empty()) break;
  }

  // 2. Incoming edges, through the inverted index, one query per edge type: the
  // types recorded on the node with every edge written to it, the schema's
  // types and the caller's.
  std::set<std::string> types(options.in_edge_types.begin(), options.in_edge_types.end());
  for (const auto& [t, o] : schema_.edge_types) types.insert(t);
  DR_ASSIGN_OR_RETURN(std::optional<Node> node, GetNode(id, /*consistent_read=*/true));
  if (node) types.insert(node->incoming_types.begin(), node->incoming_types.end());
  for (const std::string& type : types) {
    std::string token;
    while (true) {
      const int64_t left = budget - progress.edges_deleted;
      if (left <= 0) return progress;
      EdgeQuery q;
      q.limit = std::min<int64_t>(left, 100);
      q.page_token = token;
      DR_ASSIGN_OR_RETURN(EdgePage page, InEdges(id, type, q));
      std::vector<EdgeSpec> victims;
      for (const Edge& e : page.edges) {
        if (e.source == id) continue;  // a self-loop, gone with the outgoing edges
        victims.push_back({e.source, e.type, e.target, {}});
      }
      if (page.next_page_token.empty() && victims.empty()) break;
      if (!victims.empty()) {
        DR_RETURN_IF_ERROR(remove(victims));
        if (page.next_page_token.empty()) break;
        token.clear();  // deleted entries are gone: restart from the top
      } else {
        token = page.next_page_token;
      }
    }
  }

  // 3. The node itself (with its edge set and incoming types).
  DeleteItemRequest del;
  del.table_name = schema_.table_name;
  del.key = schema_.NodeKey(id);
  counters_.requests++;
  counters_.items_written++;
  DR_RETURN_IF_ERROR(client_->DeleteItem(del).status());
  // Pages a writer spilled meanwhile would outlive the node: none may.
  DR_RETURN_IF_ERROR(DropEdgePages(id));
  progress.done = true;
  return progress;
}

// ------------------------------------------------------------ edge-set verification

StatusOr<EdgeSetReport> Graph::VerifyEdgeSet(const std::string& node, bool repair) {
  auto set_of = [&](const Item& item) {
    std::set<std::string> out;
    auto es = item.find(schema_.edge_set_attribute);
    if (es != item.end() && es->second.is(AttrType::kSS)) out.insert(es->second.set().begin(), es->second.set().end());
    return out;
  };
  for (int attempt = 0; attempt < 5; ++attempt) {
    EdgeSetReport report;
    report.node = node;
    // The sets first, then the edges: an edge added in between has its entry
    // in a set read before, so the repair's condition catches it.
    GetItemRequest g;
    g.table_name = schema_.table_name;
    g.key = schema_.NodeKey(node);
    g.consistent_read = true;
    counters_.requests++;
    DR_ASSIGN_OR_RETURN(GetItemResponse raw, client_->GetItem(g));
    if (!raw.item) return ResourceNotFound("graph: node " + node + " does not exist");
    counters_.items_read++;
    std::vector<std::string> labels;
    if (auto pg = raw.item->find(schema_.edge_pages_attribute);
        pg != raw.item->end() && pg->second.is(AttrType::kSS)) {
      labels = pg->second.set();
    }
    RememberEdgePages(node, labels);
    // label ("" for the node's own set) -> entries, and whether the item had the set
    std::map<std::string, std::set<std::string>> sets;
    std::map<std::string, bool> had;
    if (labels.empty()) {
      sets[""] = set_of(*raw.item);
      had[""] = raw.item->count(schema_.edge_set_attribute) > 0;
    } else {
      std::vector<Item> keys;
      for (const std::string& l : labels) keys.push_back(schema_.EdgePageKey(node, l));
      const std::string prefix = schema_.EdgePageSortKey("");
      DR_RETURN_IF_ERROR(BatchGetEach(keys, /*consistent_read=*/true, [&](Item& page) {
        std::string label = page.at(schema_.sk_attribute).scalar().substr(prefix.size());
        sets[label] = set_of(page);
        had[label] = page.count(schema_.edge_set_attribute) > 0;
      }));
      if (sets.size() != labels.size()) {  // a page split meanwhile
        internal::Backoff(attempt);
        continue;
      }
    }
    std::set<std::string> have;
    for (const auto& [l, set] : sets) have.insert(set.begin(), set.end());
    EdgeQuery q;
    q.consistent_read = true;
    DR_ASSIGN_OR_RETURN(std::vector<Edge> edges, AllOutEdges(node, "", q));
    std::set<std::string> want;
    for (const Edge& e : edges) {
      if (schema_.InEdgeSet(e.type)) want.insert(schema_.EdgeSetEntry(e.type, e.target, e.rank));
    }
    std::set_difference(want.begin(), want.end(), have.begin(), have.end(),
                        std::back_inserter(report.missing));
    std::set_difference(have.begin(), have.end(), want.begin(), want.end(),
                        std::back_inserter(report.stale));
    if (report.ok() || !repair) return report;

    // Each set rewritten to what it should hold, conditioned on what was read.
    std::map<std::string, std::set<std::string>> wanted;
    for (const auto& [l, set] : sets) wanted[l];
    for (const std::string& e : want) wanted[labels.empty() ? "" : internal::EdgePageOf(labels, e)].insert(e);
    bool changed = false;
    for (const auto& [label, target] : wanted) {
      if (target == sets[label]) continue;
      UpdateItemRequest u;
      u.table_name = schema_.table_name;
      u.key = label.empty() ? schema_.NodeKey(node) : schema_.EdgePageKey(node, label);
      u.expression_attribute_names[kEs] = schema_.edge_set_attribute;
      u.expression_attribute_names[kPk] = schema_.pk_attribute;
      if (target.empty()) {
        u.update_expression = std::string("REMOVE ") + kEs;
      } else {
        u.update_expression = std::string("SET ") + kEs + " = :g_new";
        u.expression_attribute_values[":g_new"] =
            AttributeValue::SS(std::vector<std::string>(target.begin(), target.end()));
      }
      std::string cond = std::string("attribute_exists(") + kPk + ") AND ";
      if (had[label]) {
        u.expression_attribute_values[":g_old"] =
            AttributeValue::SS(std::vector<std::string>(sets[label].begin(), sets[label].end()));
        cond += std::string(kEs) + " = :g_old";
      } else {
        cond += std::string("attribute_not_exists(") + kEs + ")";
      }
      if (label.empty()) {  // the node's own set: only while it has not spilled
        u.expression_attribute_names[kPg] = schema_.edge_pages_attribute;
        cond += std::string(" AND attribute_not_exists(") + kPg + ")";
      }
      u.condition_expression = cond;
      u.has_expression_attribute_names = true;
      u.has_expression_attribute_values = !u.expression_attribute_values.empty();
      counters_.requests++;
      counters_.items_written++;
      auto r = client_->UpdateItem(u);
      if (r.ok()) continue;
      if (r.status().type() == ErrorType::kValidation && IsSizeError(r.status().message())) {
        DR_RETURN_IF_ERROR(label.empty() ? SpillEdgeSet(node) : SplitEdgePage(node, label));
      } else if (r.status().type() != ErrorType::kConditionalCheckFailed) {
        return r.status();
      }
      changed = true;  // the set changed meanwhile (or was reorganised): verify again
      break;
    }
    if (!changed) {
      report.repaired = true;
      return report;
    }
    internal::Backoff(attempt);
  }
  return Status(ErrorType::kTransactionConflict,
                "graph: the edge set of " + node + " kept changing during repair");
}

}  // namespace dynarock::graph
