// File: graph/paths.h
//
// Questions about how nodes are connected, over the graph layer's reads:
//
//   ShortestPath   fewest hops from one node to another: a bidirectional
//                  breadth-first search, each round growing the smaller side
//                  (out-edges by Query of a node's partition, in-edges through
//                  the inverted index, for each type the node records as incoming)
//   NodeDegree     a node's edges, out and in, by type
//
// `dynarock graph query path|degree` prints them.

#ifndef DYNAROCK_GRAPH_PATHS_H_
#define DYNAROCK_GRAPH_PATHS_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "graph/explore.h"
#include "graph/graph.h"

namespace dynarock::graph {

struct PathRequest {
  std::string from, to;
  // kOut: follow edges source -> target; kIn: target -> source; kBoth: either.
  Ways ways = Ways::kOut;
  std::set<std::string, std::less<>> types;  // edge types followed; empty: all
  int max_hops = 6;                          // 1 to 20
  int64_t max_visited = 100000;              // nodes reached, both sides, at most
};

struct Path {
  bool found = false;
  std::vector<std::string> nodes;  // from ... to
  std::vector<Edge> edges;         // edges[i] joins nodes[i] and nodes[i + 1], as stored
  int64_t visited = 0;             // nodes the search reached
  bool exhausted_budget = false;   // max_visited stopped it before an answer
};

// ValidationException for bad ids, or max_hops outside 1..20.
StatusOr<Path> ShortestPath(Graph& g, const PathRequest& request);

struct Degree {
  std::map<std::string, int64_t> out_by_type;
  std::map<std::string, int64_t> in_by_type;
  int64_t out() const;
  int64_t in() const;
};

StatusOr<Degree> NodeDegree(Graph& g, const std::string& node);

}  // namespace dynarock::graph

#endif  // DYNAROCK_GRAPH_PATHS_H_
