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
#include "bindings/c/graph_json.h"
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

// ---------------------------------------------------------------- the graph

// The graph stored in `table` of the database, made on first use (the JSON
// requests and responses of dynarock_graph_execute are graph_json.cc's).
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
                    auto result = dynarock::c_abi::RunGraphJson(
                        operation, request_json,
                        [&](const std::string& table) { return GraphFor(s, table); });
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
