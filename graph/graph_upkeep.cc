// File: graph/graph_upkeep.cc
//
// Keeping a graph whole: DeleteNode (a node and every edge touching it, in
// bounded, resumable steps) and VerifyEdgeSet (a node's edge set against its
// edges, repaired on request). Edge writes are in graph_writes.cc.

#include <algorithm>
#include <set>

#include "graph/graph.h"
#include "graph/graph_internal.h"

namespace dynarock::graph {

using internal::IsSizeError;
using internal::kEs;
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
  progress.done = true;
  return progress;
}

// ------------------------------------------------------------ edge-set verification

StatusOr<EdgeSetReport> Graph::VerifyEdgeSet(const std::string& node, bool repair) {
  for (int attempt = 0; attempt < 5; ++attempt) {
    EdgeSetReport report;
    report.node = node;
    GetItemRequest g;
    g.table_name = schema_.table_name;
    g.key = schema_.NodeKey(node);
    g.consistent_read = true;
    counters_.requests++;
    DR_ASSIGN_OR_RETURN(GetItemResponse raw, client_->GetItem(g));
    if (!raw.item) return ResourceNotFound("graph: node " + node + " does not exist");
    counters_.items_read++;
    std::set<std::string> have;
    bool had_set = false;
    auto es = raw.item->find(schema_.edge_set_attribute);
    if (es != raw.item->end() && es->second.is(AttrType::kSS)) {
      have.insert(es->second.set().begin(), es->second.set().end());
      had_set = true;
    }
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

    UpdateItemRequest u;
    u.table_name = schema_.table_name;
    u.key = schema_.NodeKey(node);
    u.expression_attribute_names[kEs] = schema_.edge_set_attribute;
    u.expression_attribute_names[kPk] = schema_.pk_attribute;
    if (want.empty()) {
      u.update_expression = std::string("REMOVE ") + kEs;
    } else {
      u.update_expression = std::string("SET ") + kEs + " = :g_new";
      u.expression_attribute_values[":g_new"] =
          AttributeValue::SS(std::vector<std::string>(want.begin(), want.end()));
    }
    if (had_set) {
      u.expression_attribute_values[":g_old"] =
          AttributeValue::SS(std::vector<std::string>(have.begin(), have.end()));
      u.condition_expression = std::string("attribute_exists(") + kPk + ") AND " + kEs + " = :g_old";
    } else {
      u.condition_expression =
          std::string("attribute_exists(") + kPk + ") AND attribute_not_exists(" + kEs + ")";
    }
    u.has_expression_attribute_names = true;
    u.has_expression_attribute_values = !u.expression_attribute_values.empty();
    counters_.requests++;
    counters_.items_written++;
    auto r = client_->UpdateItem(u);
    if (r.ok()) {
      report.repaired = true;
      return report;
    }
    if (r.status().type() == ErrorType::kValidation && IsSizeError(r.status().message())) {
      return ValidationError("graph: the repaired edge set of node " + node +
                             " would exceed DynamoDB's 400 KB item limit; opt its largest edge "
                             "type out of the edge set (Schema::OptOutOfEdgeSet)");
    }
    if (r.status().type() != ErrorType::kConditionalCheckFailed) return r.status();
    internal::Backoff(attempt);  // the set changed meanwhile: verify again
  }
  return Status(ErrorType::kTransactionConflict,
                "graph: the edge set of " + node + " kept changing during repair");
}

}  // namespace dynarock::graph
