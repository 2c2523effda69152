// File: bindings/c/graph_json.cc
//
// See graph_json.h.

#include "bindings/c/graph_json.h"

#include <simdjson.h>

#include <cstring>
#include <optional>
#include <string>

#include "engine/api/json_decode.h"
#include "engine/api/json_encode.h"
#include "engine/api/json_writer.h"
#include "graph/export.h"

namespace dynarock::c_abi {

namespace {

class GraphRequest {
 public:
  Status Parse(const char* json) {
    if (parser_.parse(json, std::strlen(json)).get(obj_) != simdjson::SUCCESS) {
      return Status(ErrorType::kSerialization, "The request is not a JSON object");
    }
    return Status();
  }
  // A required (or, with `fallback`, optional) string member.
  bool Str(const char* key, std::string* out, const char* fallback = nullptr) {
    std::string_view sv;
    if (obj_[key].get(sv) == simdjson::SUCCESS) {
      *out = std::string(sv);
      return true;
    }
    if (fallback == nullptr) {
      missing_ = key;
      return false;
    }
    *out = fallback;
    return true;
  }
  int64_t Int(const char* key, int64_t fallback) {
    int64_t v = fallback;
    if (obj_[key].get(v) != simdjson::SUCCESS) return fallback;
    return v;
  }
  // An attribute map member ({} when absent).
  Status Attributes(const char* key, dynarock::Item* out) {
    simdjson::dom::element e;
    if (obj_[key].get(e) != simdjson::SUCCESS) return Status();
    auto item = dynarock::api::DecodeItemJson(simdjson::minify(e));
    if (!item.ok()) return item.status();
    *out = std::move(*item);
    return Status();
  }
  // Whether `key` is there and not an integer (a mistyped optional number).
  bool NotInt(const char* key) const {
    int64_t v = 0;
    return obj_[key].error() == simdjson::SUCCESS && obj_[key].get(v) != simdjson::SUCCESS;
  }
  bool NotString(const char* key) const {
    std::string_view v;
    return obj_[key].error() == simdjson::SUCCESS && obj_[key].get(v) != simdjson::SUCCESS;
  }
  // The object at `key`, if there is one.
  bool Object(const char* key, simdjson::dom::object* out) const {
    return obj_[key].get(*out) == simdjson::SUCCESS;
  }
  bool Array(const char* key, simdjson::dom::array* out) const {
    return obj_[key].get(*out) == simdjson::SUCCESS;
  }
  Status MissingMember() const {
    return dynarock::ValidationError("1 validation error detected: Value null at '" + missing_ +
                                     "' failed to satisfy constraint: Member must not be null");
  }

 private:
  simdjson::dom::parser parser_;
  simdjson::dom::object obj_;
  std::string missing_;
};

Status Invalid(const std::string& what) {
  return dynarock::ValidationError("Traverse: " + what);
}

bool Present(simdjson::dom::object o, const char* key) { return o[key].error() == simdjson::SUCCESS; }

// {"Expression", "Names": {"#n": "name"}, "Values": {":v": AttributeValue}}
Status ReadFilter(simdjson::dom::object o, dynarock::graph::Filter* f) {
  std::string_view text;
  if (o["Expression"].get(text) != simdjson::SUCCESS) return Invalid("a filter needs its \"Expression\"");
  f->expression = std::string(text);
  simdjson::dom::object names;
  if (Present(o, "Names") && o["Names"].get(names) != simdjson::SUCCESS) {
    return Invalid("a filter's \"Names\" is an object");
  }
  if (Present(o, "Names")) {
    for (auto [k, v] : names) {
      std::string_view s;
      if (v.get(s) != simdjson::SUCCESS) return Invalid("a filter's \"Names\" are strings");
      f->names[std::string(k)] = std::string(s);
    }
  }
  simdjson::dom::element values;
  if (Present(o, "Values") && !o["Values"].is_object()) return Invalid("a filter's \"Values\" is an object");
  if (o["Values"].get(values) == simdjson::SUCCESS) {
    auto item = dynarock::api::DecodeItemJson(simdjson::minify(values));
    if (!item.ok()) return item.status();
    for (auto& [k, v] : *item) f->values[k] = std::move(v);
  }
  return Status();
}

// One of Traverse's "Steps": {"Direction": "OUT"|"IN", "Types": [..], "Key":
// {"Op", "Value", "Value2"}, "EdgeFilter": {..}, "ValidAt": n, "NodeFilter":
// {..}, "FanOut": n, "UseEdgeSets": bool}
Status ReadStep(simdjson::dom::object o, dynarock::graph::Hop* h) {
  using dynarock::graph::KeyCondition;
  using dynarock::graph::KeyOp;
  std::string_view dir = "OUT";
  if (o["Direction"].error() == simdjson::SUCCESS && o["Direction"].get(dir) != simdjson::SUCCESS) {
    return Invalid("a step's \"Direction\" is \"OUT\" or \"IN\"");
  }
  if (dir != "OUT" && dir != "IN") return Invalid("a step's \"Direction\" is \"OUT\" or \"IN\"");
  h->direction = dir == "OUT" ? dynarock::graph::Direction::kOut : dynarock::graph::Direction::kIn;
  simdjson::dom::array types;
  if (Present(o, "Types") && o["Types"].get(types) != simdjson::SUCCESS) {
    return Invalid("a step's \"Types\" is an array of strings");
  }
  if (Present(o, "Types")) {
    for (auto t : types) {
      std::string_view s;
      if (t.get(s) != simdjson::SUCCESS) return Invalid("a step's \"Types\" are strings");
      h->edge_types.emplace_back(s);
    }
  }
  simdjson::dom::object key;
  if (Present(o, "Key") && o["Key"].get(key) != simdjson::SUCCESS) return Invalid("a step's \"Key\" is an object");
  if (Present(o, "Key")) {
    std::string_view op, value, value2;
    if (key["Op"].get(op) != simdjson::SUCCESS || key["Value"].get(value) != simdjson::SUCCESS) {
      return Invalid("a step's \"Key\" has \"Op\" and \"Value\"");
    }
    static const std::pair<std::string_view, KeyOp> ops[] = {
        {"=", KeyOp::kEq}, {"<", KeyOp::kLt}, {"<=", KeyOp::kLe}, {">", KeyOp::kGt},
        {">=", KeyOp::kGe}, {"BETWEEN", KeyOp::kBetween}, {"BEGINS_WITH", KeyOp::kBeginsWith}};
    KeyCondition k;
    bool known = false;
    for (const auto& [name, kind] : ops) {
      if (op == name) k.op = kind, known = true;
    }
    if (!known) return Invalid("a step's \"Key\" \"Op\" is one of = < <= > >= BETWEEN BEGINS_WITH");
    k.value = std::string(value);
    if (k.op == KeyOp::kBetween) {
      if (key["Value2"].get(value2) != simdjson::SUCCESS) return Invalid("BETWEEN needs \"Value2\"");
      k.value2 = std::string(value2);
    }
    h->key = std::move(k);
  }
  for (const char* name : {"EdgeFilter", "NodeFilter"}) {
    if (!Present(o, name)) continue;
    simdjson::dom::object f;
    if (o[name].get(f) != simdjson::SUCCESS) {
      return Invalid(std::string("a step's \"") + name + "\" is an object {\"Expression\", \"Names\", \"Values\"}");
    }
    std::optional<dynarock::graph::Filter>& into = name[0] == 'E' ? h->filter : h->node_filter;
    into.emplace();
    DR_RETURN_IF_ERROR(ReadFilter(f, &*into));
  }
  int64_t n = 0;
  if (Present(o, "ValidAt")) {
    if (o["ValidAt"].get(n) != simdjson::SUCCESS) return Invalid("a step's \"ValidAt\" is an integer (seconds)");
    h->valid_at = n;
  }
  if (Present(o, "FanOut")) {
    if (o["FanOut"].get(n) != simdjson::SUCCESS) return Invalid("a step's \"FanOut\" is an integer");
    h->fan_out = n;
  }
  if (Present(o, "UseEdgeSets")) {
    bool sets = true;
    if (o["UseEdgeSets"].get(sets) != simdjson::SUCCESS) return Invalid("a step's \"UseEdgeSets\" is true or false");
    h->use_edge_sets = sets;
  }
  return Status();
}

void WriteEdge(dynarock::api::JsonWriter* w, const dynarock::graph::Edge& e) {
  w->BeginObject();
  w->Member("Source", e.source);
  w->Member("Type", e.type);
  w->Member("Target", e.target);
  w->Key("Properties");
  dynarock::api::WriteItem(w, e.properties);
  w->EndObject();
}

}  // namespace

StatusOr<std::string> RunGraphJson(std::string_view op, const char* request_json,
                                   const GraphOfTable& graph_for) {
  using dynarock::api::JsonWriter;
  GraphRequest r;
  DR_RETURN_IF_ERROR(r.Parse(request_json));
  std::string table;
  r.Str("Table", &table, "graph");
  DR_ASSIGN_OR_RETURN(dynarock::graph::Graph * g, graph_for(table));
  JsonWriter w;
  w.BeginObject();
  if (op == "PutNode") {
    std::string id;
    dynarock::Item attrs;
    if (!r.Str("Id", &id)) return r.MissingMember();
    DR_RETURN_IF_ERROR(r.Attributes("Attributes", &attrs));
    DR_RETURN_IF_ERROR(g->PutNode(id, attrs));
  } else if (op == "GetNode") {
    std::string id;
    if (!r.Str("Id", &id)) return r.MissingMember();
    DR_ASSIGN_OR_RETURN(std::optional<dynarock::graph::Node> node, g->GetNode(id));
    if (node) {
      w.Key("Node");
      w.BeginObject();
      w.Member("Id", node->id);
      w.Member("Type", node->type);
      w.Key("Attributes");
      dynarock::api::WriteItem(&w, node->attributes);
      w.EndObject();
    }
  } else if (op == "DeleteNode") {
    std::string id;
    if (!r.Str("Id", &id)) return r.MissingMember();
    DR_ASSIGN_OR_RETURN(dynarock::graph::DeleteProgress p, g->DeleteNode(id));
    w.MemberBool("Done", p.done);
    w.MemberInt("EdgesDeleted", p.edges_deleted);
  } else if (op == "AddEdge" || op == "RemoveEdge") {
    dynarock::graph::EdgeSpec e;
    if (!r.Str("Source", &e.source) || !r.Str("Type", &e.type) || !r.Str("Target", &e.target)) {
      return r.MissingMember();
    }
    if (op == "AddEdge") {
      DR_RETURN_IF_ERROR(r.Attributes("Properties", &e.properties));
      DR_RETURN_IF_ERROR(g->AddEdge(e));
    } else {
      DR_RETURN_IF_ERROR(g->RemoveEdge(e.source, e.type, e.target));
    }
  } else if (op == "OutEdges" || op == "InEdges") {
    std::string node, type;
    if (!r.Str("Node", &node) || !r.Str("Type", &type)) return r.MissingMember();
    dynarock::graph::EdgeQuery q;
    q.limit = r.Int("Limit", 0);
    r.Str("PageToken", &q.page_token, "");
    DR_ASSIGN_OR_RETURN(dynarock::graph::EdgePage page,
                        op == "OutEdges" ? g->OutEdges(node, type, q) : g->InEdges(node, type, q));
    w.Key("Edges");
    w.BeginArray();
    for (const auto& e : page.edges) WriteEdge(&w, e);
    w.EndArray();
    if (!page.next_page_token.empty()) w.Member("NextPageToken", page.next_page_token);
  } else if (op == "Traverse") {
    dynarock::graph::TraversalRequest t;
    simdjson::dom::array list;
    if (!r.Array("Start", &list)) return Invalid("\"Start\" is an array of node ids");
    for (auto e : list) {
      std::string_view id;
      if (e.get(id) != simdjson::SUCCESS) return Invalid("\"Start\" is an array of node ids");
      t.start.emplace_back(id);
    }
    if (!r.Array("Steps", &list)) return Invalid("\"Steps\" is an array of steps");
    for (auto e : list) {
      simdjson::dom::object step;
      if (e.get(step) != simdjson::SUCCESS) return Invalid("each of \"Steps\" is an object");
      t.hops.emplace_back();
      DR_RETURN_IF_ERROR(ReadStep(step, &t.hops.back()));
    }
    for (const char* key : {"Limit", "MaxVisited"}) {
      if (r.NotInt(key)) return Invalid(std::string("\"") + key + "\" is an integer");
    }
    if (r.NotString("Cursor")) return Invalid("\"Cursor\" is a string (a result's NextCursor)");
    t.limit = r.Int("Limit", 0);
    t.max_visited = r.Int("MaxVisited", t.max_visited);
    r.Str("Cursor", &t.cursor, "");
    DR_ASSIGN_OR_RETURN(dynarock::graph::TraversalResult res, g->Traverse(t));
    JsonWriter traversal;
    dynarock::graph::WriteTraversalJson(traversal, res);
    return traversal.Release();
  } else {
    return Status(dynarock::ErrorType::kUnknownOperation,
                  "Unknown graph operation: " + std::string(op));
  }
  w.EndObject();
  return w.Release();
}

}  // namespace dynarock::c_abi
