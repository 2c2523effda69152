#include "graph/explore.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace dynarock::graph {

StatusOr<Neighbourhood> Explore(Graph& g, const NeighbourhoodRequest& request) {
  DR_RETURN_IF_ERROR(g.schema().ValidateNodeId(request.start));
  if (request.hops < 1) return Status(ErrorType::kValidation, "A neighbourhood has at least one hop");
  Neighbourhood out;
  std::map<std::string, int> depth = {{request.start, 0}};
  std::map<std::string, Node> nodes;
  std::map<std::tuple<std::string, std::string, std::string>, Edge> edges;
  auto wanted = [&](const std::string& type) {
    return request.types.empty() || request.types.count(type) > 0;
  };
  // Reads the nodes not read yet (a missing node stays absent).
  auto fetch = [&](const std::vector<std::string>& ids) -> Status {
    std::vector<std::string> missing;
    for (const std::string& id : ids)
      if (!nodes.count(id)) missing.push_back(id);
    if (missing.empty()) return Status();
    DR_ASSIGN_OR_RETURN(auto got, g.GetNodes(missing));
    for (auto& n : got)
      if (n) nodes.emplace(n->id, std::move(*n));
    return Status();
  };
  std::vector<std::string> frontier = {request.start};
  DR_RETURN_IF_ERROR(fetch(frontier));
  for (int hop = 1; hop <= request.hops && !frontier.empty(); ++hop) {
    std::vector<std::string> next;
    auto meet = [&](const Edge& e, const std::string& other) {
      out.edge_types.insert(e.type);
      if (!wanted(e.type)) return;
      if (!depth.count(other)) {
        if (static_cast<int64_t>(depth.size()) >= request.max_nodes) {
          out.truncated = true;
          return;
        }
        depth[other] = hop;
        next.push_back(other);
      }
      edges.emplace(std::make_tuple(e.source, e.type, e.target), e);
    };
    EdgeQuery q;
    q.limit = request.max_edges_per_node;
    for (const std::string& id : frontier) {
      if (request.ways != Ways::kIn) {
        DR_ASSIGN_OR_RETURN(EdgePage page, g.OutEdges(id, "", q));
        out.truncated |= !page.next_page_token.empty();
        for (const Edge& e : page.edges) meet(e, e.target);
      }
      auto n = nodes.find(id);
      if (request.ways == Ways::kOut || n == nodes.end()) continue;
      for (const std::string& type : n->second.incoming_types) {
        out.edge_types.insert(type);
        if (!wanted(type)) continue;
        DR_ASSIGN_OR_RETURN(EdgePage page, g.InEdges(id, type, q));
        out.truncated |= !page.next_page_token.empty();
        for (const Edge& e : page.edges) meet(e, e.source);
      }
    }
    DR_RETURN_IF_ERROR(fetch(next));
    frontier = std::move(next);
  }

  for (const auto& [id, level] : depth) {
    NeighbourhoodNode n;
    n.id = id;
    n.depth = level;
    if (auto it = nodes.find(id); it != nodes.end()) n.node = it->second;
    out.nodes.push_back(std::move(n));
  }
  const Schema& s = g.schema();
  for (auto& [key, e] : edges) {
    // An edge to a node left out by max_nodes is left out too.
    if (!depth.count(e.source) || !depth.count(e.target)) continue;
    NeighbourhoodEdge ne;
    if (auto src = nodes.find(e.source); src != nodes.end()) {
      // A schema that does not know the type's rank reads a ranked entry as
      // "target|rank".
      const std::string ranked = e.target + s.edge_set_rank_separator + e.rank;
      ne.in_edge_set = std::any_of(src->second.edge_set.begin(), src->second.edge_set.end(),
                                   [&](const EdgeRef& ref) {
                                     return ref.type == e.type &&
                                            (ref.target == e.target || ref.target == ranked);
                                   });
    }
    ne.edge = std::move(e);
    out.edges.push_back(std::move(ne));
  }
  return out;
}

}  // namespace dynarock::graph
