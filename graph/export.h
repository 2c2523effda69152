// File: graph/export.h
//
// A neighbourhood or a whole graph (graph/explore.h) written for other tools:
//
//   json     {"nodes": [{"id", "type", "depth", "exists", "attributes": {DynamoDB
//            JSON}}], "edges": [{"source", "target", "type", "rank",
//            "in_edge_set", "attributes": {DynamoDB JSON}}], "edge_types": [...],
//            "truncated": bool, "schema": {"pk", "sk", "separator",
//            "inverted_index", "rank_attribute", "edge_set_attribute",
//            "incoming_types_attribute", "edge_pages_attribute"}} (the console's graph
//            view reads it)
//   dot      Graphviz: a digraph, nodes labelled by id and coloured by type,
//            edges labelled by type (and rank), dashed when outside their
//            source's edge set
//   graphml  GraphML 1.0 (Gephi, yEd, NetworkX): keys type, depth, attributes
//            (JSON) on nodes; type, rank, in_edge_set, attributes on edges
//
// Nodes and edges come out in the neighbourhood's order (by id; by source,
// type, target), so an export of the same data is the same bytes.

#ifndef DYNAROCK_GRAPH_EXPORT_H_
#define DYNAROCK_GRAPH_EXPORT_H_

#include <optional>
#include <string>
#include <string_view>

#include "engine/api/json_writer.h"
#include "graph/explore.h"
#include "graph/graph.h"

namespace dynarock::graph {

enum class ExportFormat : uint8_t { kJson, kDot, kGraphML };

// "json", "dot", "graphml"; nullopt for anything else.
std::optional<ExportFormat> ParseExportFormat(std::string_view name);

// `name` titles the graph (DOT's digraph name, GraphML's graph id).
std::string ExportGraph(const Neighbourhood& n, const Schema& schema, ExportFormat format,
                        std::string_view name);

// Writes "schema": {"pk", "sk", "separator", "inverted_index",
// "rank_attribute", "edge_set_attribute", "incoming_types_attribute",
// "edge_pages_attribute"} into an
// open JSON object (the json format's member, and the console's schema route).
void WriteSchemaJson(api::JsonWriter& w, const Schema& s);

// One edge as the json format writes it: {"source", "target", "type", "rank",
// "in_edge_set" (when given), "attributes": {DynamoDB JSON}}.
void WriteEdgeJson(api::JsonWriter& w, const Edge& e, std::optional<bool> in_edge_set = std::nullopt);

// A traversal's answer (Graph::Traverse), as the C ABI's Traverse and `graph
// query walk --format json` give it: {"Results": [id], "Levels": [[id]],
// "Truncated": bool, "NextCursor" (when there is more), "Steps": [{"Plan",
// "Frontier", "Reached", "Requests", "ItemsRead", "ReadUnits"}]}.
void WriteTraversalJson(api::JsonWriter& w, const TraversalResult& r);

}  // namespace dynarock::graph

#endif  // DYNAROCK_GRAPH_EXPORT_H_
