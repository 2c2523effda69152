// File: tools/console/graph_routes.h
//
// The console's graph view reads a graph-layer table through these routes,
// which run the graph layer itself (graph/graph.h) on the caller's namespace,
// so that the console draws what the layer means by nodes and edges:
//
//   GET /_dynarock/graph/schema?table=T
//     {"graph": true, "schema": {"pk": "PK", "sk": "SK", "separator": "#",
//      "inverted_index": "inverted", "rank_attribute": "rank",
//      "edge_set_attribute": "edges", "incoming_types_attribute": "inTypes",
//      "edge_pages_attribute": "edgePages"},
//      "sample_nodes": ["USER#Frodo", ...]}
//     or {"graph": false, "reason": "..."}. Detected from the table's keys (a
//     string partition and sort key), its inverted index (a GSI keyed on the
//     sort key) and a sample of its node items (partition key = sort key):
//     the separator, and which String Sets are the edge set and the incoming
//     types.
//   GET /_dynarock/graph/neighbourhood?table=T&node=ID&hops=K&direction=out|in|both
//       &types=A,B&max_nodes=N[&pk=&sk=&separator=&inverted_index=&rank_attribute=
//       &edge_set_attribute=&incoming_types_attribute=&edge_pages_attribute=]
//     {"nodes": [{"id", "type", "depth", "exists", "attributes": {DynamoDB JSON}}],
//      "edges": [{"source", "target", "type", "rank", "in_edge_set",
//                 "attributes": {DynamoDB JSON}}],
//      "edge_types": [every type met, before the types filter],
//      "truncated": bool}
//     Breadth-first from ID, K hops (1 to 4), out-edges by query of each node's
//     partition and in-edges through the inverted index for each type the node
//     records as incoming; at most max_nodes nodes (1 to 1000, default 200) and
//     1,000 edges per node. Schema members given override the detected ones.
// Bad parameters are ValidationExceptions; a missing table
// ResourceNotFoundException.

#ifndef DYNAROCK_TOOLS_CONSOLE_GRAPH_ROUTES_H_
#define DYNAROCK_TOOLS_CONSOLE_GRAPH_ROUTES_H_

#include "tools/server/control_api.h"
#include "tools/server/namespaces.h"

namespace dynarock::console {

void RegisterGraphRoutes(server::ControlApi* api, server::Namespaces* namespaces);

}  // namespace dynarock::console

#endif  // DYNAROCK_TOOLS_CONSOLE_GRAPH_ROUTES_H_
