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

ControlReply Reset(Namespaces* ns, const ControlRequest& r) {
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

ControlReply Snapshots(Namespaces* ns, const ControlRequest& r) {
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
  // Replication stops while tables go or come back (a reset, a snapshot
  // restore) and starts again from what they describe; it holds still while
  // a snapshot is saved, so that every region is saved at one point of it
  // (tools/server/global_tables.h). One such request at a time.
  enum class Hold { kNone, kPause, kDetach };
  auto serial = std::make_shared<std::mutex>();
  auto around = [namespaces, global_tables, serial](auto change, auto hold_for) {
    return [namespaces, global_tables, serial, change, hold_for](const ControlRequest& r) {
      const Hold hold = global_tables == nullptr ? Hold::kNone : hold_for(r);
      if (hold == Hold::kNone) return change(namespaces, r);
      std::lock_guard<std::mutex> one(*serial);
      if (hold == Hold::kDetach) {
        global_tables->Detach();
      } else {
        global_tables->Pause();
      }
      ControlReply reply = change(namespaces, r);
      if (hold == Hold::kDetach) {
        global_tables->Attach(namespaces);
      } else {
        global_tables->Resume();
      }
      return reply;
    };
  };
  control->Register("reset", around(Reset, [](const ControlRequest& r) {
                      return r.method == "POST" ? Hold::kDetach : Hold::kNone;
                    }));
  control->Register("snapshots", around(Snapshots, [](const ControlRequest& r) {
                      if (r.method != "POST" && r.method != "PUT") return Hold::kNone;
                      if (r.rest.ends_with("/restore")) return Hold::kDetach;
                      return r.rest.empty() ? Hold::kPause : Hold::kNone;
                    }));
}

}  // namespace dynarock::server
