// File: graph/explore.h
//
// A node's neighbourhood, breadth first, as a picture of it needs: every node
// within k hops (with its depth), every edge between them (and whether it is
// in its source's edge set), the edge types met on the way. The console's
// graph view draws it (tools/console/graph_routes.h).
//
//   graph::Graph g(&client, schema);
//   graph::NeighbourhoodRequest req;
//   req.start = "USER#Frodo";
//   req.hops = 2;
//   auto n = graph::Explore(g, req);   // n->nodes, n->edges, n->truncated
//
// Cost: per node of each hop, one Query of its partition (out-edges) and, for
// each edge type it records as incoming, one Query of the inverted index
// (in-edges); one BatchGetItem per 100 new nodes.

#ifndef DYNAROCK_GRAPH_EXPLORE_H_
#define DYNAROCK_GRAPH_EXPLORE_H_

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace dynarock::graph {

enum class Ways : uint8_t { kOut, kIn, kBoth };

struct NeighbourhoodRequest {
  std::string start;
  int hops = 1;                       // 1 or more
  Ways ways = Ways::kBoth;
  std::set<std::string, std::less<>> types;  // edge types followed; empty: all
  int64_t max_nodes = 200;            // nodes kept at most, the start included
  int64_t max_edges_per_node = 1000;  // edges read per node and direction at most
};

struct NeighbourhoodNode {
  std::string id;
  int depth = 0;
  std::optional<Node> node;  // absent when no node item exists (an edge's stub end)
};

struct NeighbourhoodEdge {
  Edge edge;
  bool in_edge_set = false;  // its source's edge set names it
};

struct Neighbourhood {
  std::vector<NeighbourhoodNode> nodes;  // by id
  std::vector<NeighbourhoodEdge> edges;  // between kept nodes, by (source, type, target)
  std::set<std::string> edge_types;      // every type met, before `types` filtered them
  bool truncated = false;  // max_nodes or max_edges_per_node left something out
};

// ValidationException for a bad start id or hops < 1.
StatusOr<Neighbourhood> Explore(Graph& g, const NeighbourhoodRequest& request);

// The whole graph of g's table, read by Scan (depth 0 for every node): at most
// max_nodes nodes and their edges (truncated says when more were left).
StatusOr<Neighbourhood> WholeGraph(Graph& g, int64_t max_nodes = 100000);

// A table's graph-layer conventions, from its definition (a string partition
// and sort key; the inverted index: a GSI keyed on the sort key, and its sort
// key the rank) and a Scan page of it: node items (partition key = sort key)
// give the separator (the first character of an id that is not a letter or a
// digit), the edge set (the String Set whose entries hold the separator) and
// the incoming types (another String Set). Members not found keep Schema's
// defaults. `reason` says why the table is not a graph table (empty: it is).
struct DetectedSchema {
  Schema schema;
  std::string reason;
  std::vector<std::string> sample_nodes;  // up to 50 node ids of the page read
};
StatusOr<DetectedSchema> DetectSchema(client::Client* client, const std::string& table,
                                      int64_t sample_items = 200);

}  // namespace dynarock::graph

#endif  // DYNAROCK_GRAPH_EXPLORE_H_
