#include "tools/console/graph_routes.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <set>

#include "engine/api/json_encode.h"
#include "engine/api/json_writer.h"
#include "graph/embedded_client.h"
#include "graph/explore.h"
#include "graph/graph.h"

namespace dynarock::console {
namespace {

constexpr int kMaxHops = 4;
constexpr int64_t kMaxNodes = 1000;
constexpr int64_t kDefaultNodes = 200;
constexpr int64_t kEdgesPerNode = 1000;
constexpr int64_t kSampleItems = 200;

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

// What the detection found: the schema, or why the table is not a graph table.
struct Detected {
  graph::Schema schema;
  std::string reason;  // empty: a graph table
  std::vector<std::string> sample_nodes;
};

std::string Separator(std::string_view id) {
  for (char c : id) {
    if (!std::isalnum(static_cast<unsigned char>(c))) return std::string(1, c);
  }
  return "#";
}

StatusOr<Detected> Detect(DB* db, const std::string& table) {
  Detected d;
  d.schema.table_name = table;
  DescribeTableRequest dreq;
  dreq.table_name = table;
  DR_ASSIGN_OR_RETURN(DescribeTableResponse desc, db->DescribeTable(dreq));
  const TableDescription& t = desc.table;
  std::string pk, sk;
  for (const KeySchemaElement& k : t.key_schema) {
    (k.key_type == KeyType::kHash ? pk : sk) = k.attribute_name;
  }
  auto type_of = [&](const std::string& name) {
    for (const AttributeDefinition& a : t.attribute_definitions)
      if (a.attribute_name == name) return a.attribute_type;
    return AttrType::kNull;
  };
  if (t.key_schema.size() != 2 || sk.empty() || type_of(pk) != AttrType::kS ||
      type_of(sk) != AttrType::kS) {
    d.reason = "The graph layer's tables have a string partition key and a string sort key";
    return d;
  }
  d.schema.pk_attribute = pk;
  d.schema.sk_attribute = sk;
  const IndexDescription* inverted = nullptr;
  for (const IndexDescription& g : t.global_secondary_indexes) {
    if (g.key_schema.size() == 2 && g.key_schema[0].key_type == KeyType::kHash &&
        g.key_schema[0].attribute_name == sk) {
      inverted = &g;
      break;
    }
  }
  if (inverted == nullptr) {
    d.reason = "No global secondary index is keyed on the sort key " + sk +
               " (the graph layer's inverted index, which finds incoming edges)";
    return d;
  }
  d.schema.inverted_index = inverted->index_name;
  d.schema.rank_attribute = inverted->key_schema[1].attribute_name;

  // Node items (partition key = sort key) say the separator and which String
  // Sets are the edge set (entries "TYPE<sep>target") and the incoming types.
  ScanRequest scan;
  scan.table_name = table;
  scan.limit = kSampleItems;
  DR_ASSIGN_OR_RETURN(ScanResponse page, db->Scan(scan));
  std::map<std::string, int> set_with_sep, set_without_sep;
  bool separator_found = false;
  for (const Item& item : page.items) {
    auto p = item.find(pk);
    auto s = item.find(sk);
    if (p == item.end() || s == item.end() || !p->second.is(AttrType::kS) ||
        !(p->second == s->second)) {
      continue;
    }
    const std::string& id = p->second.scalar();
    if (!separator_found) {
      d.schema.separator = Separator(id);
      separator_found = true;
    }
    if (d.sample_nodes.size() < 50) d.sample_nodes.push_back(id);
    for (const auto& [name, value] : item) {
      if (!value.is(AttrType::kSS) || value.set().empty()) continue;
      const bool all_sep = std::all_of(value.set().begin(), value.set().end(), [&](const std::string& e) {
        return e.find(d.schema.separator) != std::string::npos;
      });
      ++(all_sep ? set_with_sep : set_without_sep)[name];
    }
  }
  auto most = [](const std::map<std::string, int>& counts, const std::string& fallback) {
    std::string best = fallback;
    int n = 0;
    for (const auto& [name, c] : counts) {
      if (c > n) best = name, n = c;
    }
    return best;
  };
  d.schema.edge_set_attribute = most(set_with_sep, d.schema.edge_set_attribute);
  set_without_sep.erase(d.schema.edge_set_attribute);
  d.schema.incoming_types_attribute = most(set_without_sep, d.schema.incoming_types_attribute);
  return d;
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
  };
  for (const auto& [name, field] : members) {
    std::string v = Param(r, name);
    if (!v.empty()) *field = std::move(v);
  }
}

void WriteSchema(api::JsonWriter& w, const graph::Schema& s) {
  w.Key("schema");
  w.BeginObject();
  w.Member("pk", s.pk_attribute);
  w.Member("sk", s.sk_attribute);
  w.Member("separator", s.separator);
  w.Member("inverted_index", s.inverted_index);
  w.Member("rank_attribute", s.rank_attribute);
  w.Member("edge_set_attribute", s.edge_set_attribute);
  w.Member("incoming_types_attribute", s.incoming_types_attribute);
  w.EndObject();
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
  DR_ASSIGN_OR_RETURN(Detected d, Detect(db, table));
  api::JsonWriter w;
  w.BeginObject();
  w.MemberBool("graph", d.reason.empty());
  if (!d.reason.empty()) w.Member("reason", d.reason);
  WriteSchema(w, d.schema);
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
  DR_ASSIGN_OR_RETURN(Detected d, Detect(db, table));
  Override(r, &d.schema);
  if (!d.reason.empty() && Param(r, "inverted_index").empty()) return Invalid(d.reason);

  graph::EmbeddedClient client(db);
  graph::Graph g(&client, d.schema);
  graph::NeighbourhoodRequest req;
  req.start = start;
  req.hops = static_cast<int>(hops);
  req.ways = direction == "out" ? graph::Ways::kOut : direction == "in" ? graph::Ways::kIn : graph::Ways::kBoth;
  req.types = std::move(types);
  req.max_nodes = max_nodes;
  req.max_edges_per_node = kEdgesPerNode;
  DR_ASSIGN_OR_RETURN(graph::Neighbourhood n, graph::Explore(g, req));

  api::JsonWriter w;
  w.BeginObject();
  w.Key("nodes");
  w.BeginArray();
  for (const graph::NeighbourhoodNode& node : n.nodes) {
    w.BeginObject();
    w.Member("id", node.id);
    w.Member("type", d.schema.NodeType(node.id));
    w.MemberInt("depth", node.depth);
    w.MemberBool("exists", node.node.has_value());
    w.Key("attributes");
    w.Raw(node.node ? api::EncodeItemJson(node.node->attributes) : std::string("{}"));
    w.EndObject();
  }
  w.EndArray();
  w.Key("edges");
  w.BeginArray();
  for (const graph::NeighbourhoodEdge& ne : n.edges) {
    const graph::Edge& e = ne.edge;
    w.BeginObject();
    w.Member("source", e.source);
    w.Member("target", e.target);
    w.Member("type", e.type);
    w.Member("rank", e.rank);
    w.MemberBool("in_edge_set", ne.in_edge_set);
    w.Key("attributes");
    w.Raw(api::EncodeItemJson(e.properties));
    w.EndObject();
  }
  w.EndArray();
  w.Key("edge_types");
  w.BeginArray();
  for (const std::string& t : n.edge_types) w.String(t);
  w.EndArray();
  w.MemberBool("truncated", n.truncated);
  WriteSchema(w, d.schema);
  w.EndObject();
  return w.Release();
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
