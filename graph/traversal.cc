// File: graph/traversal.cc
//
// Reads over many nodes: edge-set expansion (seed 001), k-hop traversal and
// mutual neighbours.

#include <algorithm>
#include <set>

#include "graph/graph.h"
#include "graph/graph_internal.h"

namespace dynarock::graph {

StatusOr<Expansion> Graph::Expand(const ExpandRequest& request) {
  Expansion out;
  // 1. The edges pointing at the node, through the inverted index.
  EdgeQuery q;
  q.key = request.rank;
  q.limit = request.limit;
  q.page_token = request.page_token;
  DR_ASSIGN_OR_RETURN(EdgePage page, InEdges(request.node, request.edge_type, q));
  out.next_page_token = page.next_page_token;
  std::vector<std::string> root_ids;
  for (const Edge& e : page.edges) root_ids.push_back(e.source);

  // 2. One batch get of the roots.
  DR_ASSIGN_OR_RETURN(std::vector<std::optional<Node>> roots, GetNodes(root_ids));

  // 3. One batch get of the neighbours their edge sets name.
  std::set<std::string> wanted_types(request.expand_types.begin(), request.expand_types.end());
  std::vector<std::string> neighbour_ids;
  for (auto& r : roots) {
    if (!r) continue;
    std::vector<EdgeRef>& refs = out.refs[r->id];
    for (const EdgeRef& ref : r->edge_set) {
      if (!wanted_types.empty() && !wanted_types.count(ref.type)) continue;
      if (request.expand_filter && !request.expand_filter(ref)) continue;
      refs.push_back(ref);
      neighbour_ids.push_back(ref.target);
    }
    out.roots.push_back(std::move(*r));
  }
  std::sort(neighbour_ids.begin(), neighbour_ids.end());
  neighbour_ids.erase(std::unique(neighbour_ids.begin(), neighbour_ids.end()),
                      neighbour_ids.end());
  DR_ASSIGN_OR_RETURN(std::vector<std::optional<Node>> neighbours,
                      GetNodesWith(neighbour_ids, request.neighbour_attributes));
  for (auto& n : neighbours) {
    if (n) out.neighbours.emplace(n->id, std::move(*n));
  }
  return out;
}

StatusOr<std::vector<std::string>> Graph::OutNeighbourIds(const std::string& node,
                                                          const std::vector<std::string>& types,
                                                          const Hop& hop,
                                                          std::map<std::string, Node>* cache) {
  std::vector<std::string> out;
  const int64_t cap = hop.fan_out;
  auto full = [&]() { return cap > 0 && static_cast<int64_t>(out.size()) >= cap; };
  if (hop.direction == Direction::kOut && types.empty()) {
    EdgeQuery q;
    q.filter = hop.filter;
    q.limit = cap;
    DR_ASSIGN_OR_RETURN(EdgePage p, OutEdges(node, "", q));
    for (const Edge& e : p.edges) out.push_back(e.target);
    return out;
  }
  for (const std::string& type : types) {
    if (full()) break;
    EdgeQuery q;
    q.filter = hop.filter;
    if (cap > 0) q.limit = cap - static_cast<int64_t>(out.size());
    if (hop.direction == Direction::kOut) {
      DR_ASSIGN_OR_RETURN(EdgePage p, OutEdges(node, type, q));
      for (const Edge& e : p.edges) out.push_back(e.target);
    } else {
      DR_ASSIGN_OR_RETURN(EdgePage p, InEdges(node, type, q));
      for (const Edge& e : p.edges) out.push_back(e.source);
    }
  }
  (void)cache;
  return out;
}

StatusOr<TraversalResult> Graph::Traverse(const TraversalRequest& request) {
  TraversalResult result;
  std::set<std::string> visited;
  std::vector<std::string> frontier;
  for (const std::string& s : request.start) {
    if (visited.insert(s).second) frontier.push_back(s);
  }
  result.levels.push_back(frontier);
  std::map<std::string, Node> cache;  // nodes read for their edge sets (only those)

  for (const Hop& hop : request.hops) {
    if (frontier.empty() || result.truncated) break;
    if (hop.direction == Direction::kIn && hop.edge_types.empty()) {
      return ValidationError("graph: an incoming hop needs its edge types");
    }
    bool from_sets = hop.use_edge_sets && hop.direction == Direction::kOut && !hop.filter &&
                     !hop.edge_types.empty();
    for (const std::string& t : hop.edge_types) from_sets = from_sets && schema_.InEdgeSet(t);
    std::set<std::string> types(hop.edge_types.begin(), hop.edge_types.end());

    std::vector<std::string> next;
    auto visit = [&](const std::string& id) -> bool {  // false: the limit is reached
      if (visited.count(id)) return true;
      if (static_cast<int64_t>(visited.size()) >= request.max_visited) {
        result.truncated = true;
        return false;
      }
      visited.insert(id);
      next.push_back(id);
      return true;
    };

    if (from_sets) {
      std::vector<std::string> to_read;
      for (const std::string& id : frontier) {
        if (!cache.count(id)) to_read.push_back(id);
      }
      // Only the edge sets are needed here (the nodes, when asked for, are
      // read whole at the end).
      DR_ASSIGN_OR_RETURN(std::vector<std::optional<Node>> nodes,
                          GetNodesWith(to_read, {schema_.edge_set_attribute}));
      for (auto& n : nodes) {
        if (n) cache.emplace(n->id, std::move(*n));
      }
      for (const std::string& id : frontier) {
        auto it = cache.find(id);
        if (it == cache.end()) continue;
        int64_t taken = 0;
        for (const EdgeRef& ref : it->second.edge_set) {
          if (!types.count(ref.type)) continue;
          if (hop.fan_out > 0 && taken >= hop.fan_out) break;
          ++taken;
          if (!visit(ref.target)) break;
        }
        if (result.truncated) break;
      }
    } else {
      // One query (a page or a few) per frontier node, independent of each
      // other: up to max_concurrent_ in flight, visited in the frontier's order.
      std::vector<std::vector<std::string>> found(frontier.size());
      DR_RETURN_IF_ERROR(internal::ParallelFor(frontier.size(), max_concurrent_, [&](size_t i) -> Status {
        DR_ASSIGN_OR_RETURN(found[i], OutNeighbourIds(frontier[i], hop.edge_types, hop, nullptr));
        return Status::Ok();
      }));
      for (const std::vector<std::string>& ids : found) {
        for (const std::string& n : ids) {
          if (!visit(n)) break;
        }
        if (result.truncated) break;
      }
    }
    result.levels.push_back(next);
    frontier = std::move(next);
  }

  if (request.fetch_nodes) {
    std::vector<std::string> ids;
    for (const std::string& id : visited) ids.push_back(id);
    DR_ASSIGN_OR_RETURN(std::vector<std::optional<Node>> nodes, GetNodes(ids));
    for (auto& n : nodes) {
      if (n) result.nodes.emplace(n->id, std::move(*n));
    }
  }
  return result;
}

StatusOr<std::vector<std::string>> Graph::MutualNeighbours(const std::string& a,
                                                           const std::string& b,
                                                           const std::string& type,
                                                           Direction direction) {
  std::set<std::string> na, nb;
  if (direction == Direction::kOut && schema_.InEdgeSet(type)) {
    DR_ASSIGN_OR_RETURN(std::vector<std::optional<Node>> nodes,
                        GetNodesWith({a, b}, {schema_.edge_set_attribute}));
    for (int i = 0; i < 2; ++i) {
      if (!nodes[i]) continue;
      for (const EdgeRef& ref : nodes[i]->edge_set) {
        if (ref.type == type) (i == 0 ? na : nb).insert(ref.target);
      }
    }
  } else {
    for (int i = 0; i < 2; ++i) {
      const std::string& n = i == 0 ? a : b;
      std::set<std::string>& into = i == 0 ? na : nb;
      if (direction == Direction::kOut) {
        DR_ASSIGN_OR_RETURN(std::vector<Edge> edges, AllOutEdges(n, type));
        for (const Edge& e : edges) into.insert(e.target);
      } else {
        DR_ASSIGN_OR_RETURN(std::vector<Edge> edges, AllInEdges(n, type));
        for (const Edge& e : edges) into.insert(e.source);
      }
    }
  }
  std::vector<std::string> out;
  std::set_intersection(na.begin(), na.end(), nb.begin(), nb.end(), std::back_inserter(out));
  return out;
}

}  // namespace dynarock::graph
