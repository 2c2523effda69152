#include "tools/server/state_routes.h"

#include "tools/server/global_tables.h"

#include <simdjson.h>

#include <chrono>
#include <map>
#include <memory>
#include <mutex>

#include "engine/api/json_writer.h"

namespace dynarock::server {
namespace {

// The body's object (an empty body is {}), or a SerializationException.
StatusOr<simdjson::dom::element> BodyObject(simdjson::dom::parser& p, std::string_view body) {
  if (body.find_first_not_of(" \t\r\n") == std::string_view::npos) body = "{}";
  simdjson::dom::element e;
  if (p.parse(body.data(), body.size()).get(e) != simdjson::SUCCESS || !e.is_object()) {
    return Status(ErrorType::kSerialization, "The body must be a JSON object");
  }
  return e;
}

std::string Str(simdjson::dom::element e, const char* key) {
  std::string_view v;
  return e[key].get(v) == simdjson::SUCCESS ? std::string(v) : std::string();
}

ControlReply Ok(api::JsonWriter& w) { return JsonReply(w.Release()); }

// Replication held still while a request changes every namespace's tables:
// detached while tables go or come back (a reset, a restore), then found
// again from what they describe; paused while a snapshot is saved, so that
// every region is saved at one point of it (tools/server/global_tables.h).
// Taken only once the request is valid: a refused one leaves replication as
// it was. One held request at a time.
class ReplicationHold {
 public:
  ReplicationHold(GlobalTables* global_tables, Namespaces* namespaces)
      : global_tables_(global_tables), namespaces_(namespaces) {}

  // Until the returned guard goes.
  std::shared_ptr<void> Detach() { return Take(true); }
  std::shared_ptr<void> Pause() { return Take(false); }

 private:
  std::shared_ptr<void> Take(bool detach) {
    if (global_tables_ == nullptr) return nullptr;
    auto one = std::make_shared<std::unique_lock<std::mutex>>(serial_);
    if (detach) {
      global_tables_->Detach();
    } else {
      global_tables_->Pause();
    }
    return std::shared_ptr<void>(nullptr, [this, one, detach](void*) {
      if (detach) {
        global_tables_->Attach(namespaces_);
      } else {
        global_tables_->Resume();
      }
    });
  }

  GlobalTables* const global_tables_;
  Namespaces* const namespaces_;
  std::mutex serial_;
};

ControlReply Reset(Namespaces* ns, const ControlRequest& r, ReplicationHold* hold) {
  if (r.method != "POST") return ControlApi::Error(ValidationError("POST /_dynarock/reset"));
  simdjson::dom::parser p;
  auto body = BodyObject(p, r.body);
  if (!body.ok()) return ControlApi::Error(body.status());
  const std::string only = Str(*body, "namespace");
  std::vector<std::pair<std::string, DB*>> targets;
  if (only.empty()) {
    targets = ns->List();
  } else if (DB* db = ns->Find(only)) {
    targets.emplace_back(only, db);
  } else {
    return ControlApi::NotFound("No namespace " + only);
  }
  const auto held = hold->Detach();
  api::JsonWriter w;
  w.BeginObject();
  w.Key("reset");
  w.BeginArray();
  for (const auto& [name, db] : targets) {
    Status s = db->Reset();
    if (!s.ok()) return ControlApi::Error(s);
    w.String(name);
  }
  w.EndArray();
  w.EndObject();
  return Ok(w);
}

ControlReply Snapshots(Namespaces* ns, const ControlRequest& r, ReplicationHold* hold) {
  const std::vector<std::pair<std::string, DB*>> spaces = ns->List();
  if (r.rest.empty() && r.method == "GET") {
    std::map<std::string, DB::SnapshotInfo> all;  // by name, summed over namespaces
    for (const auto& [space, db] : spaces) {
      auto listed = db->ListSnapshots();
      if (!listed.ok()) return ControlApi::Error(listed.status());
      for (const DB::SnapshotInfo& s : *listed) {
        DB::SnapshotInfo& sum = all[s.name];
        sum.name = s.name;
        sum.created = std::max(sum.created, s.created);
        sum.tables += s.tables;
        sum.items += s.items;
        sum.bytes += s.bytes;
      }
    }
    api::JsonWriter w;
    w.BeginObject();
    w.Key("snapshots");
    w.BeginArray();
    for (const auto& [name, s] : all) {
      w.BeginObject();
      w.Member("name", name);
      w.MemberDouble("created", s.created);
      w.MemberInt("tables", s.tables);
      w.MemberInt("items", s.items);
      w.MemberInt("bytes", s.bytes);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
    return Ok(w);
  }
  if (r.rest.empty() && r.method == "POST") {
    simdjson::dom::parser p;
    auto body = BodyObject(p, r.body);
    if (!body.ok()) return ControlApi::Error(body.status());
    const std::string name = Str(*body, "name");
    if (name.empty()) return ControlApi::Error(ValidationError("Give the snapshot a \"name\""));
    const auto held = hold->Pause();
    const auto start = std::chrono::steady_clock::now();
    for (const auto& [space, db] : spaces) {
      Status s = db->SaveSnapshot(name);
      if (!s.ok()) return ControlApi::Error(s);
    }
    api::JsonWriter w;
    w.BeginObject();
    w.Member("saved", name);
    w.MemberDouble("seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    w.EndObject();
    return Ok(w);
  }
  const size_t slash = r.rest.find('/');
  const std::string name(r.rest.substr(0, slash));
  const std::string_view action = slash == std::string_view::npos ? "" : r.rest.substr(slash + 1);
  bool known = false;
  for (const auto& [space, db] : spaces) {
    auto listed = db->ListSnapshots();
    if (!listed.ok()) return ControlApi::Error(listed.status());
    for (const DB::SnapshotInfo& s : *listed) known = known || s.name == name;
  }
  if (!known) return ControlApi::NotFound("No snapshot named " + name);
  api::JsonWriter w;
  w.BeginObject();
  if (action == "restore" && (r.method == "POST" || r.method == "PUT")) {
    const auto held = hold->Detach();
    const auto start = std::chrono::steady_clock::now();
    for (const auto& [space, db] : spaces) {
      auto listed = db->ListSnapshots();
      bool has = false;
      if (listed.ok())
        for (const DB::SnapshotInfo& s : *listed) has = has || s.name == name;
      // A namespace opened since the snapshot had nothing then.
      Status s = has ? db->RestoreSnapshot(name) : db->Reset();
      if (!s.ok()) return ControlApi::Error(s);
    }
    w.Member("restored", name);
    w.MemberDouble("seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  } else if (action.empty() && r.method == "DELETE") {
    for (const auto& [space, db] : spaces) (void)db->DeleteSnapshot(name);
    w.Member("deleted", name);
  } else {
    return ControlApi::Error(ValidationError(
        "POST /_dynarock/snapshots/NAME/restore or DELETE /_dynarock/snapshots/NAME"));
  }
  w.EndObject();
  return Ok(w);
}

}  // namespace

void RegisterStateRoutes(ControlApi* control, Namespaces* namespaces, GlobalTables* global_tables) {
  auto hold = std::make_shared<ReplicationHold>(global_tables, namespaces);
  control->Register("reset", [namespaces, hold](const ControlRequest& r) {
    return Reset(namespaces, r, hold.get());
  });
  control->Register("snapshots", [namespaces, hold](const ControlRequest& r) {
    return Snapshots(namespaces, r, hold.get());
  });
}

}  // namespace dynarock::server
