#include "graph/paths.h"

#include <algorithm>
#include <optional>
#include <utility>

namespace dynarock::graph {
namespace {

// One side's step: the neighbour reached and the edge (as stored) that reaches it.
struct Step {
  std::string node;
  Edge edge;
};

// The edges leaving `id` in the direction a side walks: `forward` walks the
// request's way, the other side walks against it.
StatusOr<std::vector<Step>> Neighbours(Graph& g, const std::string& id, const PathRequest& r,
                                       bool forward) {
  const bool want_out = r.ways == Ways::kBoth || (r.ways == Ways::kOut) == forward;
  const bool want_in = r.ways == Ways::kBoth || (r.ways == Ways::kIn) == forward;
  auto wanted = [&](const std::string& type) { return r.types.empty() || r.types.count(type) > 0; };
  std::vector<Step> out;
  if (want_out) {
    DR_ASSIGN_OR_RETURN(std::vector<Edge> edges, g.AllOutEdges(id, ""));
    for (Edge& e : edges) {
      if (!wanted(e.type)) continue;
      std::string target = e.target;
      out.push_back({std::move(target), std::move(e)});
    }
  }
  if (want_in) {
    DR_ASSIGN_OR_RETURN(std::optional<Node> node, g.GetNode(id));
    if (node) {
      for (const std::string& type : node->incoming_types) {
        if (!wanted(type)) continue;
        DR_ASSIGN_OR_RETURN(std::vector<Edge> edges, g.AllInEdges(id, type));
        for (Edge& e : edges) {
          std::string source = e.source;
          out.push_back({std::move(source), std::move(e)});
        }
      }
    }
  }
  return out;
}

}  // namespace

StatusOr<Path> ShortestPath(Graph& g, const PathRequest& r) {
  DR_RETURN_IF_ERROR(g.schema().ValidateNodeId(r.from));
  DR_RETURN_IF_ERROR(g.schema().ValidateNodeId(r.to));
  if (r.max_hops < 1 || r.max_hops > 20) {
    return Status(ErrorType::kValidation, "max_hops must be from 1 to 20");
  }
  Path path;
  if (r.from == r.to) {
    path.found = true;
    path.nodes = {r.from};
    path.visited = 1;
    return path;
  }
  // Each side: the node -> its hops from the side's start, and the step back
  // (the node one hop nearer the start, and the edge between them).
  struct Seen {
    int depth = 0;
    std::optional<Step> back;
  };
  struct Side {
    std::map<std::string, Seen> seen;
    std::vector<std::string> frontier;
    int depth = 0;
    bool forward;
  };
  Side a{{{r.from, Seen{}}}, {r.from}, 0, true};
  Side b{{{r.to, Seen{}}}, {r.to}, 0, false};
  std::optional<std::string> meet;
  for (int round = 0; round < r.max_hops && !meet && !path.exhausted_budget; ++round) {
    if (a.frontier.empty() || b.frontier.empty()) break;
    // Grow the smaller side by a whole level; of the meetings in it, keep the
    // shortest (a level's nodes meet the other side at different depths).
    Side& grow = a.frontier.size() <= b.frontier.size() ? a : b;
    Side& other = &grow == &a ? b : a;
    std::vector<std::string> next;
    int best = 0;
    for (const std::string& id : grow.frontier) {
      DR_ASSIGN_OR_RETURN(std::vector<Step> steps, Neighbours(g, id, r, grow.forward));
      for (Step& s : steps) {
        if (grow.seen.count(s.node)) continue;
        if (static_cast<int64_t>(a.seen.size() + b.seen.size()) >= r.max_visited) {
          path.exhausted_budget = true;
          break;
        }
        const std::string reached = s.node;
        grow.seen.emplace(reached, Seen{grow.depth + 1, Step{id, std::move(s.edge)}});
        next.push_back(reached);
        if (auto o = other.seen.find(reached); o != other.seen.end()) {
          const int length = grow.depth + 1 + o->second.depth;
          if (length <= r.max_hops && (!meet || length < best)) {
            meet = reached;
            best = length;
          }
        }
      }
      if (path.exhausted_budget) break;
    }
    grow.frontier = std::move(next);
    ++grow.depth;
  }
  path.visited = static_cast<int64_t>(a.seen.size() + b.seen.size());
  if (!meet) return path;
  path.exhausted_budget = false;
  // from ... meet (walking a's steps back), then meet ... to (b's).
  std::vector<std::string> head = {*meet};
  std::vector<Edge> head_edges;
  for (std::string at = *meet; a.seen.at(at).back;) {
    const Step& s = *a.seen.at(at).back;
    head_edges.push_back(s.edge);
    at = s.node;
    head.push_back(at);
  }
  std::reverse(head.begin(), head.end());
  std::reverse(head_edges.begin(), head_edges.end());
  path.nodes = std::move(head);
  path.edges = std::move(head_edges);
  for (std::string at = *meet; b.seen.at(at).back;) {
    const Step& s = *b.seen.at(at).back;
    path.edges.push_back(s.edge);
    at = s.node;
    path.nodes.push_back(at);
  }
  path.found = true;
  return path;
}

int64_t Degree::out() const {
  int64_t n = 0;
  for (const auto& [t, c] : out_by_type) n += c;
  return n;
}

int64_t Degree::in() const {
  int64_t n = 0;
  for (const auto& [t, c] : in_by_type) n += c;
  return n;
}

StatusOr<Degree> NodeDegree(Graph& g, const std::string& node) {
  DR_RETURN_IF_ERROR(g.schema().ValidateNodeId(node));
  Degree d;
  DR_ASSIGN_OR_RETURN(std::vector<Edge> out, g.AllOutEdges(node, ""));
  for (const Edge& e : out) ++d.out_by_type[e.type];
  DR_ASSIGN_OR_RETURN(std::optional<Node> n, g.GetNode(node));
  if (n) {
    for (const std::string& type : n->incoming_types) {
      DR_ASSIGN_OR_RETURN(std::vector<Edge> in, g.AllInEdges(node, type));
      if (!in.empty()) d.in_by_type[type] = static_cast<int64_t>(in.size());
    }
  }
  return d;
}

}  // namespace dynarock::graph
