// File: graph/survey.h
//
// What a graph table holds, read by one Scan: nodes and edges by type, the
// out-degree distribution, and the largest edge sets with how close their
// items are to DynamoDB's 400 KB item limit (a set that would pass it spills
// into edge pages, docs/graph.md). `dynarock graph stats` prints it.

#ifndef DYNAROCK_GRAPH_SURVEY_H_
#define DYNAROCK_GRAPH_SURVEY_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace dynarock::graph {

struct EdgeSetSize {
  std::string node;
  int64_t entries = 0;     // edge-set entries
  int64_t item_bytes = 0;  // the largest item holding them (node or page), DynamoDB's size
  int64_t pages = 0;       // edge pages it spilled into (0: in the node item)
};

struct GraphSurvey {
  int64_t items = 0;
  std::map<std::string, int64_t> nodes_by_type;
  std::map<std::string, int64_t> edges_by_type;
  // Out-degree (edges whose source it is) of every node that has an edge or
  // a node item: the number of nodes of each degree.
  std::map<int64_t, int64_t> out_degrees;
  std::vector<EdgeSetSize> largest_edge_sets;  // by entries, most first
  int64_t nodes() const;
  int64_t edges() const;
  // The smallest degree d with at least fraction q of the nodes at d or below.
  int64_t DegreeQuantile(double q) const;
};

// Scans g's table (every page). `top`: how many of the largest edge sets to keep.
StatusOr<GraphSurvey> Survey(Graph& g, size_t top = 10);

}  // namespace dynarock::graph

#endif  // DYNAROCK_GRAPH_SURVEY_H_
