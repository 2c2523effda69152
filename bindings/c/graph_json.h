// File: bindings/c/graph_json.h
//
// dynarock_graph_execute's work (include/dynarock/dynarock.h): a graph
// operation (PutNode, GetNode, PutEdge, Traverse, ...) given as a JSON
// request, run on the graph layer, answered as JSON. Internal to the C ABI.

#ifndef DYNAROCK_BINDINGS_C_GRAPH_JSON_H_
#define DYNAROCK_BINDINGS_C_GRAPH_JSON_H_

#include <functional>
#include <string>
#include <string_view>

#include "dynarock/status.h"
#include "graph/graph.h"

namespace dynarock::c_abi {

// The graph stored in a table (made on first use).
using GraphOfTable = std::function<StatusOr<graph::Graph*>(const std::string& table)>;

// Runs `op` with `request_json` (a JSON object; its "Table" names the graph's
// table, "graph" when absent) and returns the JSON response. Errors carry
// DynamoDB's types: SerializationException for a request that is not a JSON
// object, ValidationException for a missing or mistyped member,
// UnknownOperationException for an unknown `op`.
StatusOr<std::string> RunGraphJson(std::string_view op, const char* request_json,
                                   const GraphOfTable& graph_for);

}  // namespace dynarock::c_abi

#endif  // DYNAROCK_BINDINGS_C_GRAPH_JSON_H_
