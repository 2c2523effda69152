// File: bindings/c/dynarock_c.cc
//
// The C ABI (include/dynarock/dynarock.h) over the engine, the API handler, the
// graph layer and the HTTP server. Handles are looked up in a registry before
// use, so a closed (or never opened) handle is an error rather than a crash;
// each live object holds the database's state by shared_ptr, so closing a
// database while calls, a server or a subscription still use it is safe.
// Nothing thrown inside escapes: every entry point catches and reports.

#include "dynarock/dynarock.h"

#include <simdjson.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>

#include "client/embedded_client.h"
#include "dynarock/db.h"
#include "engine/api/capacity_limits.h"
#include "engine/api/faults.h"
#include "engine/api/handler.h"
#include "engine/api/json_decode.h"
#include "engine/api/json_encode.h"
#include "engine/api/json_writer.h"
#include "engine/api/streams_json.h"
#include "graph/export.h"
#include "graph/graph.h"
#ifndef DYNAROCK_NO_SERVER
#include "tools/server/http_server.h"
#endif

struct dynarock_error {
  std::string type;
  std::string message;
  std::string json;
  int http_status = 400;
};

namespace {

using dynarock::Status;
using dynarock::StatusOr;

struct DbState {
  std::unique_ptr<dynarock::DB> db;
  std::unique_ptr<dynarock::api::Handler> handler;
  std::shared_ptr<dynarock::api::FaultInjector> faults;  // attached to `handler`
  std::shared_ptr<dynarock::api::CapacityLimits> limits;  // attached to `handler`, off
  std::unique_ptr<dynarock::client::EmbeddedClient> client;
  std::mutex graphs_mu;
  std::map<std::string, std::unique_ptr<dynarock::graph::Graph>> graphs;  // by table
};

struct ServerState {
  std::shared_ptr<DbState> db;
#ifndef DYNAROCK_NO_SERVER
  std::unique_ptr<dynarock::server::HttpServer> server;
#endif
};

struct SubscriptionState {
  std::shared_ptr<DbState> db;
  std::unique_ptr<dynarock::Subscription> subscription;
};

// The live handles of each kind: a handle is valid only while registered.
template <typename State>
class Registry {
 public:
  void* Add(std::shared_ptr<State> state) {
    std::lock_guard<std::mutex> lock(mu_);
    void* handle = new char;  // a unique address, never dereferenced
    live_.emplace(handle, std::move(state));
    return handle;
  }
  std::shared_ptr<State> Find(const void* handle) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = live_.find(handle);
    return it == live_.end() ? nullptr : it->second;
  }
  std::shared_ptr<State> Remove(void* handle) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = live_.find(handle);
    if (it == live_.end()) return nullptr;
    std::shared_ptr<State> state = std::move(it->second);
    live_.erase(it);
    delete static_cast<char*>(handle);
    return state;
  }

 private:
  std::mutex mu_;
  std::unordered_map<const void*, std::shared_ptr<State>> live_;
};

Registry<DbState>& Databases() {
  static auto* r = new Registry<DbState>;  // never destroyed: handles may outlive statics
  return *r;
}
Registry<ServerState>& Servers() {
  static auto* r = new Registry<ServerState>;
  return *r;
}
Registry<SubscriptionState>& Subscriptions() {
  static auto* r = new Registry<SubscriptionState>;
  return *r;
}

dynarock_code Fail(dynarock_error** error, dynarock_code code, std::string type,
                   std::string message, int http_status = 400) {
  if (error != nullptr) {
    auto* e = new (std::nothrow) dynarock_error;
    if (e != nullptr) {
      e->type = std::move(type);
      e->message = std::move(message);
      dynarock::api::JsonWriter w;
      w.BeginObject();
      w.Member("__type", e->type);
      w.Member("message", e->message);
      w.EndObject();
      e->json = w.Release();
      e->http_status = http_status;
    }
    *error = e;
  }
  return code;
}

dynarock_code Invalid(dynarock_error** error, std::string message) {
  return Fail(error, DYNAROCK_INVALID_ARGUMENT, "InvalidArgument", std::move(message));
}

dynarock_code Closed(dynarock_error** error) {
  return Fail(error, DYNAROCK_CLOSED, "ClosedHandle",
              "The handle is closed (or was never returned by this library)");
}

dynarock_code FromStatus(dynarock_error** error, const Status& s) {
  if (s.ok()) return DYNAROCK_OK;
  if (error != nullptr) {
    auto* e = new (std::nothrow) dynarock_error;
    if (e != nullptr) {
      e->type = std::string(dynarock::ErrorTypeName(s.type()));
      e->message = s.message();
      e->json = dynarock::api::EncodeErrorBody(s);
      e->http_status = dynarock::ErrorHttpStatus(s.type());
    }
    *error = e;
  }
  return DYNAROCK_ERROR;
}

// An error reply of the API handler (its body is DynamoDB's error JSON).
dynarock_code FromReply(dynarock_error** error, const dynarock::api::ApiReply& reply) {
  if (error != nullptr) {
    auto* e = new (std::nothrow) dynarock_error;
    if (e != nullptr) {
      e->json = reply.body;
      e->http_status = reply.http_status;
      simdjson::dom::parser parser;
      simdjson::dom::element doc;
      std::string_view type, message;
      simdjson::padded_string padded(reply.body);
      if (parser.parse(padded).get(doc) == simdjson::SUCCESS) {
        if (doc["__type"].get(type) == simdjson::SUCCESS) {
          size_t hash = type.rfind('#');
          e->type = std::string(hash == std::string_view::npos ? type : type.substr(hash + 1));
        }
        if (doc["message"].get(message) == simdjson::SUCCESS ||
            doc["Message"].get(message) == simdjson::SUCCESS) {
          e->message = std::string(message);
        }
      }
      if (e->type.empty()) e->type = "InternalFailure";
    }
    *error = e;
  }
  return DYNAROCK_ERROR;
}

char* CopyOut(const std::string& s) {
  char* p = static_cast<char*>(std::malloc(s.size() + 1));
  if (p == nullptr) throw std::bad_alloc();
  std::memcpy(p, s.data(), s.size());
  p[s.size()] = '\0';
  return p;
}

// Runs `fn`, turning anything thrown into an InternalFailure.
template <typename Fn>
dynarock_code Guarded(dynarock_error** error, Fn fn) {
  try {
    return fn();
  } catch (const std::bad_alloc&) {
    return Fail(error, DYNAROCK_ERROR, "InternalFailure", "Out of memory", 500);
  } catch (const std::exception& e) {
    return Fail(error, DYNAROCK_ERROR, "InternalFailure", e.what(), 500);
  } catch (...) {
    return Fail(error, DYNAROCK_ERROR, "InternalFailure", "Unknown failure", 500);
  }
}

// ---------------------------------------------------------------- options

dynarock_code ParseOptions(const char* json, dynarock::Options* o, dynarock_error** error) {
  if (json == nullptr || *json == '\0') return DYNAROCK_OK;
  simdjson::dom::parser parser;
  simdjson::dom::object obj;
  if (parser.parse(json, std::strlen(json)).get(obj) != simdjson::SUCCESS) {
    return Invalid(error, "options_json is not a JSON object");
  }
  bool small = false;
  simdjson::dom::element v;
  if (obj["small_device"].get(v) == simdjson::SUCCESS) {
    if (v.get_bool().get(small) != simdjson::SUCCESS) {
      return Invalid(error, "options: small_device must be a boolean");
    }
    if (small) {
      dynarock::Options d = dynarock::Options::SmallDevice();
      o->block_cache_bytes = d.block_cache_bytes;
      o->write_buffer_bytes = d.write_buffer_bytes;
      o->max_open_files = d.max_open_files;
      o->background_jobs = d.background_jobs;
    }
    // Members given beside small_device override its settings (below).
  }
  for (auto [key, value] : obj) {
    auto want_bool = [&](bool* out) {
      return value.get_bool().get(*out) == simdjson::SUCCESS;
    };
    auto want_string = [&](std::string* out) {
      std::string_view sv;
      if (value.get_string().get(sv) != simdjson::SUCCESS) return false;
      *out = std::string(sv);
      return true;
    };
    auto want_number = [&](double* out) {
      return value.get_double().get(*out) == simdjson::SUCCESS;
    };
    double n = 0;
    bool ok = true;
    if (key == "small_device") continue;
    if (key == "in_memory") {
      ok = want_bool(&o->in_memory);
    } else if (key == "create_if_missing") {
      ok = want_bool(&o->create_if_missing);
    } else if (key == "sync_writes") {
      ok = want_bool(&o->sync_writes);
    } else if (key == "read_only") {
      ok = want_bool(&o->read_only);
    } else if (key == "region") {
      ok = want_string(&o->region);
    } else if (key == "account_id") {
      ok = want_string(&o->account_id);
    } else if (key == "block_cache_bytes") {
      ok = want_number(&n) && n >= 0 && n < 1e15;
      if (ok) o->block_cache_bytes = static_cast<size_t>(n);
    } else if (key == "memory_budget_bytes") {
      ok = want_number(&n) && n >= 0 && n < 1e15;
      if (ok) o->memory_budget_bytes = static_cast<size_t>(n);
    } else if (key == "write_buffer_bytes") {
      ok = want_number(&n) && n >= 0 && n < 1e15;
      if (ok) o->write_buffer_bytes = static_cast<size_t>(n);
    } else if (key == "max_open_files") {
      ok = want_number(&n) && n >= -1 && n < 1e9;
      if (ok) o->max_open_files = static_cast<int>(n);
    } else if (key == "background_jobs") {
      ok = want_number(&n) && n >= 1 && n <= 64;
      if (ok) o->background_jobs = static_cast<int>(n);
    } else if (key == "ttl_sweep_seconds") {
      ok = want_number(&n) && n >= 0;
      if (ok) o->ttl_sweep_seconds = n;
    } else {
      return Invalid(error, "options: unknown member \"" + std::string(key) + "\"");
    }
    if (!ok) return Invalid(error, "options: invalid value for \"" + std::string(key) + "\"");
  }
  return DYNAROCK_OK;
}

// ---------------------------------------------------------------- the graph, as JSON

class GraphRequest {
 public:
  dynarock_code Parse(const char* json, dynarock_error** error) {
    if (parser_.parse(json, std::strlen(json)).get(obj_) != simdjson::SUCCESS) {
      return FromStatus(error, Status(dynarock::ErrorType::kSerialization,
                                      "The request is not a JSON object"));
    }
    return DYNAROCK_OK;
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

StatusOr<dynarock::graph::Graph*> GraphFor(DbState& s, const std::string& table) {
  std::lock_guard<std::mutex> lock(s.graphs_mu);
  auto it = s.graphs.find(table);
  if (it != s.graphs.end()) return it->second.get();
  dynarock::graph::Schema schema;
  schema.table_name = table;
  auto g = std::make_unique<dynarock::graph::Graph>(s.client.get(), schema);
  DR_RETURN_IF_ERROR(g->EnsureTable());
  return s.graphs.emplace(table, std::move(g)).first->second.get();
}

StatusOr<std::string> RunGraph(DbState& s, std::string_view op, GraphRequest& r) {
  using dynarock::api::JsonWriter;
  std::string table;
  r.Str("Table", &table, "graph");
  DR_ASSIGN_OR_RETURN(dynarock::graph::Graph * g, GraphFor(s, table));
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

#ifndef DYNAROCK_NO_SERVER
// "host:port" -> options.
bool ParseAddress(const char* address, dynarock::server::HttpServerOptions* o) {
  std::string a = address == nullptr ? "127.0.0.1:0" : address;
  size_t colon = a.rfind(':');
  if (colon == std::string::npos || colon == 0) return false;
  std::string host = a.substr(0, colon), port = a.substr(colon + 1);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (port.empty() || port.size() > 5) return false;
  for (char c : port) {
    if (c < '0' || c > '9') return false;
  }
  int p = std::atoi(port.c_str());
  if (p > 65535) return false;
  o->host = host;
  o->port = static_cast<uint16_t>(p);
  o->threads = 2;
  return true;
}

#endif

}  // namespace

// ---------------------------------------------------------------- the ABI

extern "C" {

const char* dynarock_version(void) { return DYNAROCK_VERSION_STRING; }

const char* dynarock_error_type(const dynarock_error* e) { return e ? e->type.c_str() : ""; }
const char* dynarock_error_message(const dynarock_error* e) {
  return e ? e->message.c_str() : "";
}
int dynarock_error_http_status(const dynarock_error* e) { return e ? e->http_status : 0; }
const char* dynarock_error_json(const dynarock_error* e) { return e ? e->json.c_str() : ""; }
void dynarock_error_free(dynarock_error* e) { delete e; }
void dynarock_free(void* p) { std::free(p); }

dynarock_code dynarock_open(const char* path, const char* options_json, dynarock_db** db,
                            dynarock_error** error) {
  if (db == nullptr) return Invalid(error, "db is NULL");
  *db = nullptr;
  return Guarded(error, [&]() -> dynarock_code {
    dynarock::Options options;
    dynarock_code c = ParseOptions(options_json, &options, error);
    if (c != DYNAROCK_OK) return c;
    if (path == nullptr) options.in_memory = true;
    if (!options.in_memory && *path == '\0') return Invalid(error, "path is empty");
    auto opened = dynarock::DB::Open(options, path == nullptr ? "" : path);
    if (!opened.ok()) return FromStatus(error, opened.status());
    auto state = std::make_shared<DbState>();
    state->db = std::move(*opened);
    state->handler = std::make_unique<dynarock::api::Handler>(state->db.get());
    state->faults = std::make_shared<dynarock::api::FaultInjector>();
    state->handler->SetFaults(state->faults);
    dynarock::api::CapacityLimitOptions limits;
    limits.enforce = false;
    limits.clock = options.clock;
    state->limits = std::make_shared<dynarock::api::CapacityLimits>(limits);
    state->handler->SetCapacityLimits(state->limits);
    // Exports and imports use <path>/s3 for S3, as `dynarock serve` does.
    if (!options.in_memory) state->handler->SetS3Root(std::string(path) + "/s3");
    state->client = std::make_unique<dynarock::client::EmbeddedClient>(state->db.get());
    *db = static_cast<dynarock_db*>(Databases().Add(std::move(state)));
    return DYNAROCK_OK;
  });
}

void dynarock_close(dynarock_db* db) {
  if (db == nullptr) return;
  try {
    Databases().Remove(db);  // the state goes when its last user lets go
  } catch (...) {
  }
}

}  // extern "C"

namespace {

// The shape of the JSON-in, JSON-out calls: arguments checked, the handle
// looked up, `run` (state, out) guarded.
template <typename Fn>
dynarock_code JsonCall(dynarock_db* db, const char* operation, const char* request_json,
                       char** response_json, dynarock_error** error, Fn run) {
  if (db == nullptr || operation == nullptr || request_json == nullptr ||
      response_json == nullptr) {
    return Invalid(error, "db, operation, request_json and response_json must not be NULL");
  }
  *response_json = nullptr;
  return Guarded(error, [&]() -> dynarock_code {
    std::shared_ptr<DbState> s = Databases().Find(db);
    if (!s) return Closed(error);
    return run(*s, response_json);
  });
}

// A test-double setting of one database (fault rules, capacity limits):
// `apply` changes it (an error changes nothing), then its state goes to
// `state_json` when that is not NULL.
dynarock_code SettingCall(dynarock_db* db, char** state_json, dynarock_error** error,
                          const std::function<Status(DbState&)>& apply,
                          const std::function<std::string(DbState&)>& state) {
  if (state_json != nullptr) *state_json = nullptr;
  if (db == nullptr) return Invalid(error, "db must not be NULL");
  return Guarded(error, [&]() -> dynarock_code {
    std::shared_ptr<DbState> s = Databases().Find(db);
    if (!s) return Closed(error);
    Status st = apply(*s);
    if (!st.ok()) return FromStatus(error, st);
    if (state_json != nullptr) *state_json = CopyOut(state(*s));
    return DYNAROCK_OK;
  });
}

}  // namespace

extern "C" {

dynarock_code dynarock_execute(dynarock_db* db, const char* operation, const char* request_json,
                               char** response_json, dynarock_error** error) {
  return JsonCall(db, operation, request_json, response_json, error,
                  [&](DbState& s, char** out) -> dynarock_code {
                    dynarock::api::ApiReply reply = s.handler->Handle(operation, request_json);
                    if (reply.http_status != 200) return FromReply(error, reply);
                    *out = CopyOut(reply.body);
                    return DYNAROCK_OK;
                  });
}

dynarock_code dynarock_set_faults(dynarock_db* db, const char* rules_json, char** state_json,
                                  dynarock_error** error) {
  return SettingCall(
      db, state_json, error,
      [&](DbState& s) {
        if (rules_json != nullptr && *rules_json != '\0') return s.faults->SetRulesJson(rules_json);
        s.faults->Clear();
        return Status();
      },
      [](DbState& s) { return s.faults->ToJson(); });
}

dynarock_code dynarock_set_capacity(dynarock_db* db, const char* settings_json, char** state_json,
                                    dynarock_error** error) {
  return SettingCall(
      db, state_json, error,
      [&](DbState& s) {
        if (settings_json == nullptr || *settings_json == '\0') return Status();
        return s.limits->EnforceJson(settings_json);
      },
      [](DbState& s) { return s.limits->StateJson(); });
}

dynarock_code dynarock_get_faults(dynarock_db* db, char** state_json, dynarock_error** error) {
  if (db == nullptr || state_json == nullptr) {
    return Invalid(error, "db and state_json must not be NULL");
  }
  *state_json = nullptr;
  return Guarded(error, [&]() -> dynarock_code {
    std::shared_ptr<DbState> s = Databases().Find(db);
    if (!s) return Closed(error);
    *state_json = CopyOut(s->faults->ToJson());
    return DYNAROCK_OK;
  });
}

dynarock_code dynarock_graph_execute(dynarock_db* db, const char* operation,
                                     const char* request_json, char** response_json,
                                     dynarock_error** error) {
  return JsonCall(db, operation, request_json, response_json, error,
                  [&](DbState& s, char** out) -> dynarock_code {
                    GraphRequest r;
                    dynarock_code c = r.Parse(request_json, error);
                    if (c != DYNAROCK_OK) return c;
                    auto result = RunGraph(s, operation, r);
                    if (!result.ok()) return FromStatus(error, result.status());
                    *out = CopyOut(*result);
                    return DYNAROCK_OK;
                  });
}

dynarock_code dynarock_subscribe(dynarock_db* db, const char* table,
                                 dynarock_stream_callback callback, void* context,
                                 dynarock_subscription** subscription, dynarock_error** error) {
  if (db == nullptr || table == nullptr || callback == nullptr || subscription == nullptr) {
    return Invalid(error, "db, table, callback and subscription must not be NULL");
  }
  *subscription = nullptr;
  return Guarded(error, [&]() -> dynarock_code {
    std::shared_ptr<DbState> s = Databases().Find(db);
    if (!s) return Closed(error);
    auto state = std::make_shared<SubscriptionState>();
    state->db = s;
    // Once the callback asks to stop, later records are skipped (the
    // subscription itself is cancelled by dynarock_unsubscribe).
    auto stopped = std::make_shared<std::atomic<bool>>(false);
    auto sub = s->db->Subscribe(
        table, dynarock::SubscribeOptions{},
        [callback, context, stopped](const dynarock::StreamRecord& record) {
          if (stopped->load()) return;
          std::string json = dynarock::api::EncodeStreamRecordJson(record);
          if (callback(context, json.c_str()) != 0) stopped->store(true);
        });
    if (!sub.ok()) return FromStatus(error, sub.status());
    state->subscription = std::move(*sub);
    *subscription =
        static_cast<dynarock_subscription*>(Subscriptions().Add(std::move(state)));
    return DYNAROCK_OK;
  });
}

void dynarock_unsubscribe(dynarock_subscription* subscription) {
  if (subscription == nullptr) return;
  try {
    std::shared_ptr<SubscriptionState> s = Subscriptions().Remove(subscription);
    if (s && s->subscription) s->subscription->Cancel();
  } catch (...) {
  }
}

dynarock_code dynarock_serve_start(dynarock_db* db, const char* address, uint16_t* port,
                                   dynarock_server** server, dynarock_error** error) {
  if (db == nullptr || server == nullptr) return Invalid(error, "db and server must not be NULL");
  *server = nullptr;
#ifdef DYNAROCK_NO_SERVER
  (void)address;
  (void)port;
  return Fail(error, DYNAROCK_ERROR, "UnsupportedOperation",
              "This library was built without the HTTP endpoint (DYNAROCK_ENGINE_ONLY)");
#else
  return Guarded(error, [&]() -> dynarock_code {
    std::shared_ptr<DbState> s = Databases().Find(db);
    if (!s) return Closed(error);
    dynarock::server::HttpServerOptions options;
    if (!ParseAddress(address, &options)) {
      return Invalid(error, "address must be \"host:port\" (port 0 picks a free one)");
    }
    auto state = std::make_shared<ServerState>();
    state->db = s;
    dynarock::api::Handler* handler = s->handler.get();
    state->server = std::make_unique<dynarock::server::HttpServer>(options, handler);
    uint16_t bound = 0;
    Status bound_ok = state->server->Bind(&bound);
    if (!bound_ok.ok()) return FromStatus(error, bound_ok);
    handler->SetEndpointAddress(options.host + ":" + std::to_string(bound));
    Status started = state->server->Start(&bound);
    if (!started.ok()) return FromStatus(error, started);
    if (port != nullptr) *port = bound;
    *server = static_cast<dynarock_server*>(Servers().Add(std::move(state)));
    return DYNAROCK_OK;
  });
#endif
}

void dynarock_serve_stop(dynarock_server* server) {
  if (server == nullptr) return;
  try {
    std::shared_ptr<ServerState> s = Servers().Remove(server);
#ifndef DYNAROCK_NO_SERVER
    if (s && s->server) s->server->Stop();
#endif
  } catch (...) {
  }
}

}  // extern "C"
