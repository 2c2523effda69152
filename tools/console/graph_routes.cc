#include "tools/console/graph_routes.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <set>

#include "client/embedded_client.h"
#include "engine/api/json_encode.h"
#include "engine/api/json_writer.h"
#include "graph/explore.h"
#include "graph/export.h"
#include "graph/graph.h"

namespace dynarock::console {
namespace {

constexpr int kMaxHops = 4;
constexpr int64_t kMaxNodes = 1000;
constexpr int64_t kDefaultNodes = 200;
constexpr int64_t kEdgesPerNode = 1000;

Status Invalid(std::string message) { return Status(ErrorType::kValidation, std::move(message)); }

std::string Param(const server::ControlRequest& r, std::string_view name) {
  return server::QueryParam(r.query, name).value_or("");
}

StatusOr<int64_t> IntParam(const server::ControlRequest& r, std::string_view name, int64_t fallback,
                           int64_t lo, int64_t hi) {
  const std::string v = Param(r, name);
  if (v.empty()) return fallback;
  int64_t n = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || end != v.data() + v.size() || n < lo || n > hi) {
    return Invalid("The parameter " + std::string(name) + " must be a whole number from " +
                   std::to_string(lo) + " to " + std::to_string(hi) + ", not '" + v + "'");
  }
  return n;
}

// The schema members a request gives, over the detected ones.
void Override(const server::ControlRequest& r, graph::Schema* s) {
  const std::pair<std::string_view, std::string*> members[] = {
      {"pk", &s->pk_attribute},
      {"sk", &s->sk_attribute},
      {"separator", &s->separator},
      {"inverted_index", &s->inverted_index},
      {"rank_attribute", &s->rank_attribute},
      {"edge_set_attribute", &s->edge_set_attribute},
      {"incoming_types_attribute", &s->incoming_types_attribute},
      {"edge_pages_attribute", &s->edge_pages_attribute},
  };
  for (const auto& [name, field] : members) {
    std::string v = Param(r, name);
    if (!v.empty()) *field = std::move(v);
  }
}

server::ControlReply Reply(StatusOr<std::string> body) {
  if (!body.ok()) return server::ControlApi::Error(body.status());
  server::ControlReply reply;
  reply.body = std::move(body).value();
  reply.headers = "\r\nCache-Control: no-store";
  return reply;
}

StatusOr<std::string> SchemaRoute(DB* db, const server::ControlRequest& r) {
  const std::string table = Param(r, "table");
  if (table.empty()) return Invalid("The parameter table is required");
  client::EmbeddedClient client(db);
  DR_ASSIGN_OR_RETURN(graph::DetectedSchema d, graph::DetectSchema(&client, table));
  api::JsonWriter w;
  w.BeginObject();
  w.MemberBool("graph", d.reason.empty());
  if (!d.reason.empty()) w.Member("reason", d.reason);
  graph::WriteSchemaJson(w, d.schema);
  w.Key("sample_nodes");
  w.BeginArray();
  for (const std::string& id : d.sample_nodes) w.String(id);
  w.EndArray();
  w.EndObject();
  return w.Release();
}

StatusOr<std::string> NeighbourhoodRoute(DB* db, const server::ControlRequest& r) {
  const std::string table = Param(r, "table");
  const std::string start = Param(r, "node");
  if (table.empty()) return Invalid("The parameter table is required");
  if (start.empty()) return Invalid("The parameter node is required (a node id, e.g. USER#Frodo)");
  DR_ASSIGN_OR_RETURN(int64_t hops, IntParam(r, "hops", 1, 1, kMaxHops));
  DR_ASSIGN_OR_RETURN(int64_t max_nodes, IntParam(r, "max_nodes", kDefaultNodes, 1, kMaxNodes));
  const std::string direction = Param(r, "direction").empty() ? "both" : Param(r, "direction");
  if (direction != "out" && direction != "in" && direction != "both") {
    return Invalid("The parameter direction must be out, in or both, not '" + direction + "'");
  }
  std::set<std::string, std::less<>> types;
  for (std::string_view list = Param(r, "types"); !list.empty();) {
    const size_t comma = list.find(',');
    if (std::string_view t = list.substr(0, comma); !t.empty()) types.emplace(t);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  client::EmbeddedClient client(db);
  DR_ASSIGN_OR_RETURN(graph::DetectedSchema d, graph::DetectSchema(&client, table));
  Override(r, &d.schema);
  if (!d.reason.empty() && Param(r, "inverted_index").empty()) return Invalid(d.reason);

  graph::Graph g(&client, d.schema);
  graph::NeighbourhoodRequest req;
  req.start = start;
  req.hops = static_cast<int>(hops);
  req.ways = direction == "out" ? graph::Ways::kOut : direction == "in" ? graph::Ways::kIn : graph::Ways::kBoth;
  req.types = std::move(types);
  req.max_nodes = max_nodes;
  req.max_edges_per_node = kEdgesPerNode;
  DR_ASSIGN_OR_RETURN(graph::Neighbourhood n, graph::Explore(g, req));
  return graph::ExportGraph(n, d.schema, graph::ExportFormat::kJson, table);
}

}  // namespace

void RegisterGraphRoutes(server::ControlApi* api, server::Namespaces* namespaces) {
  api->Register("graph", [namespaces](const server::ControlRequest& r) {
    if (r.method != "GET") {
      return server::ControlApi::Error(Invalid("Method " + std::string(r.method) +
                                               " is not allowed on /_dynarock/graph (GET)"));
    }
    auto db = namespaces->DatabaseOf(r.access_key, r.region);
    if (!db.ok()) return server::ControlApi::Error(db.status());
    if (r.rest == "schema") return Reply(SchemaRoute(*db, r));
    if (r.rest == "neighbourhood") return Reply(NeighbourhoodRoute(*db, r));
    return server::ControlApi::NotFound("No graph route /_dynarock/graph/" + std::string(r.rest) +
                                        " (schema, neighbourhood)");
  });
}

}  // namespace dynarock::console
