// File: tools/server/global_tables.cc
//
// Global tables across the region namespaces (global_tables.h): the groups,
// their hooks, and finding them again at start. UpdateTable's replica and
// witness requests are global_tables_replicas.cc, eventual replication
// global_tables_replication.cc, MRSC global_tables_strong.cc.

#include "tools/server/global_tables.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "tools/server/global_tables_group.h"
#include "tools/server/namespaces.h"

namespace dynarock::server {

using global_tables::SplitName;

bool global_tables::SplitName(const std::string& name, std::string* access_key, std::string* region) {
  const size_t sep = name.rfind('_');
  if (name == "shared" || sep == std::string::npos || sep == 0 || sep + 1 == name.size()) return false;
  *access_key = name.substr(0, sep);
  *region = name.substr(sep + 1);
  return true;
}

GlobalTables::GlobalTables(GlobalTablesOptions options) : options_(std::move(options)) {
  if (!options_.clock) {
    options_.clock = [] {
      using namespace std::chrono;
      return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count() / 1000.0;
    };
  }
  worker_ = std::thread([this] { Work(); });
}

GlobalTables::~GlobalTables() { Stop(); }

void GlobalTables::Log(const std::string& line) const {
  if (options_.log) {
    options_.log(line);
  } else {
    std::fprintf(stderr, "dynarock serve: global tables: %s\n", line.c_str());
  }
}

void GlobalTables::Stop() {
  {
    std::lock_guard<std::mutex> lock(queue_mu_);
    stopping_ = true;
  }
  queue_cv_.notify_all();
  if (worker_.joinable()) worker_.join();
  std::map<std::string, std::shared_ptr<Group>> groups;
  {
    std::lock_guard<std::mutex> lock(mu_);
    groups = groups_;
  }
  for (auto& [id, g] : groups) {
    std::vector<std::unique_ptr<Subscription>> subs;
    {
      std::lock_guard<std::mutex> lock(g->mu);
      for (auto& [region, m] : g->members) subs.push_back(std::move(m.subscription));
    }
    for (auto& s : subs)
      if (s) s->Cancel();
  }
}

api::Handler::GlobalTableHooks GlobalTables::HooksFor(const std::string& name) {
  api::Handler::GlobalTableHooks h;
  h.update = [this, name](DB& db, const UpdateTableRequest& req) { return Update(name, db, req); };
  h.deleted = [this, name](DB& db, const std::string& table) { Deleted(name, db, table); };
  std::string access_key, region;
  if (SplitName(name, &access_key, &region)) {
    h.region = region;
    h.is_strong = [this, access_key, region](DB&, std::string_view table) {
      if (pausing_.load(std::memory_order_acquire)) return true;  // the claim waits for Attach
      if (strong_count_.load(std::memory_order_acquire) == 0) return false;
      std::shared_ptr<Group> g;
      {
        std::lock_guard<std::mutex> lock(strong_mu_);
        auto it = strong_groups_.find(access_key + "\n" + std::string(table));
        if (it == strong_groups_.end()) return false;
        g = it->second;
      }
      std::lock_guard<std::mutex> gl(g->mu);  // a table of that name in another region is not a replica
      return g->members.count(region) > 0;
    };
    h.claim = [this, access_key, region](DB& db, const std::vector<std::pair<std::string, Item>>& keys) {
      return ClaimItems(access_key, region, db, keys);
    };
  }
  return h;
}

std::shared_ptr<GlobalTables::Group> GlobalTables::GroupOf(const std::string& access_key, const std::string& table,
                                                           bool create) {
  const std::string id = access_key + "\n" + table;
  auto it = groups_.find(id);
  if (it != groups_.end()) return it->second;
  if (!create) return nullptr;
  auto g = std::make_shared<Group>();
  g->access_key = access_key;
  g->table = table;
  groups_[id] = g;
  return g;
}

// Each member lists the others (with their settings and table class), the
// witness and the mode; a group of one is a table of its own again.
Status GlobalTables::SetLists(Group& g) {
  std::vector<std::pair<std::string, DB*>> members;
  std::map<std::string, ReplicaSettings> settings;
  std::optional<std::string> witness;
  {
    std::lock_guard<std::mutex> lock(g.mu);
    for (auto& [region, m] : g.members) members.emplace_back(region, m.db);
    settings = g.settings;
    witness = g.witness;
  }
  std::vector<ReplicaDescription> all;
  for (const auto& [region, db] : members) {
    ReplicaDescription r;
    r.region_name = region;
    r.settings = settings[region];
    auto d = db->DescribeTable({g.table});
    if (d.ok() && d->table.table_class) {
      r.table_class = d->table.table_class;
      r.table_class_last_update = d->table.table_class_last_update;
    }
    all.push_back(std::move(r));
  }
  for (const auto& [region, db] : members) {
    GlobalTableMembers list;
    if (members.size() > 1) {
      for (const ReplicaDescription& r : all)
        if (r.region_name != region) list.replicas.push_back(r);
      if (witness) list.witnesses.push_back(GlobalTableWitness{*witness});
      list.strong = g.strong;
    }
    DR_RETURN_IF_ERROR(db->SetGlobalTable(g.table, list));
  }
  return Status();
}

void GlobalTables::Pause() {
  {
    // New claims wait, the ones made finish their copies.
    std::unique_lock<std::mutex> p(pause_mu_);
    paused_ = true;
    pausing_ = true;
    pause_cv_.wait(p, [&] { return claims_in_flight_ == 0; });
  }
  std::unique_lock<std::mutex> q(queue_mu_);
  held_ = true;
  queue_cv_.wait(q, [&] { return !applying_; });  // the write being made lands first
}

void GlobalTables::Resume() {
  {
    std::lock_guard<std::mutex> q(queue_mu_);
    held_ = false;
    dropping_ = false;
  }
  queue_cv_.notify_all();
  std::lock_guard<std::mutex> p(pause_mu_);
  paused_ = false;
  pausing_ = false;
  pause_cv_.notify_all();
}

void GlobalTables::Detach() {
  Pause();
  std::lock_guard<std::mutex> lock(mu_);
  {
    std::lock_guard<std::mutex> q(queue_mu_);
    dropping_ = true;  // what the change logs still hand over is read again after Attach
    queue_.clear();
  }
  for (auto& [id, g] : groups_) {
    std::vector<std::unique_ptr<Subscription>> subs;
    {
      std::lock_guard<std::mutex> gl(g->mu);
      for (auto& [region, m] : g->members) subs.push_back(std::move(m.subscription));
      g->members.clear();
    }
    for (auto& sub : subs)
      if (sub) sub->Cancel();
  }
  groups_.clear();
  {
    std::lock_guard<std::mutex> q(queue_mu_);
    queue_.clear();
  }
  std::lock_guard<std::mutex> sl(strong_mu_);
  strong_groups_.clear();
  strong_count_ = 0;
}

void GlobalTables::Attach(Namespaces* namespaces) {
  std::lock_guard<std::mutex> lock(mu_);
  namespaces_ = namespaces;
  // Every member of every group first, then their change logs: a record read
  // must find all the members it goes to.
  struct Found {
    std::shared_ptr<Group> group;
    std::string region;
    DB* db;
  };
  std::vector<Found> found;
  std::set<std::string> unopened;  // namespaces on disk that did not open
  std::map<Group*, std::set<std::string>> listed;  // the regions each group's members list
  for (const std::string& name : namespaces->Names()) {
    std::string key, region;
    if (!SplitName(name, &key, &region)) continue;
    DB* db = namespaces->Find(name);
    if (db == nullptr) {
      unopened.insert(name);
      continue;
    }
    ListTablesRequest list;
    for (;;) {
      auto tables = db->ListTables(list);
      if (!tables.ok()) break;
      for (const std::string& t : tables->table_names) {
        auto d = db->DescribeTable({t});
        if (!d.ok() || d->table.replicas.empty()) continue;
        auto g = GroupOf(key, t, true);
        {
          // What each member says of the others: their settings, the witness.
          std::lock_guard<std::mutex> gl(g->mu);
          for (const ReplicaDescription& r : d->table.replicas) {
            g->settings[r.region_name] = r.settings;
            listed[g.get()].insert(key + "_" + r.region_name);
          }
          if (!d->table.global_table_witnesses.empty()) g->witness = d->table.global_table_witnesses[0].region_name;
        }
        if (d->table.multi_region_consistency == "STRONG") {  // copied as written: nothing to read
          g->strong = true;
          std::lock_guard<std::mutex> sl(strong_mu_);
          strong_groups_[key + "\n" + t] = g;
          strong_count_ = static_cast<int>(strong_groups_.size());
        }
        std::lock_guard<std::mutex> gl(g->mu);
        g->members[region].db = db;
        g->members[region].table_id = d->table.table_id;
        if (!g->strong) found.push_back(Found{g, region, db});
      }
      if (!tables->last_evaluated_table_name) break;
      list.exclusive_start_table_name = tables->last_evaluated_table_name;
    }
  }
  // Members that are gone (a namespace reset, a snapshot from before the
  // replica) leave the lists; a group of one is a table of its own again.
  for (auto it = groups_.begin(); it != groups_.end();) {
    Group& g = *it->second;
    // A member in a namespace that did not open is not known to be gone:
    // the lists stay as they are, and nothing is read until an Attach finds it.
    const std::set<std::string>& names = listed[&g];
    if (std::any_of(names.begin(), names.end(), [&](const std::string& n) { return unopened.count(n) > 0; })) {
      Log(g.table + ": a replica's region did not open; its group is left as it is until the next start");
      std::erase_if(found, [&](const Found& f) { return f.group.get() == &g; });  // nothing read meanwhile
      ++it;
      continue;
    }
    Status st = SetLists(g);
    if (!st.ok()) Log(g.table + ": " + st.ToString());
    bool alone = false;
    {
      std::lock_guard<std::mutex> gl(g.mu);
      alone = g.members.size() <= 1;
      if (alone) {
        for (auto& [r, m] : g.members) global_tables::DropStamps(m.db, m.table_id);
        g.members.clear();
      }
    }
    if (!alone) {
      ++it;
      continue;
    }
    std::erase_if(found, [&](const Found& f) { return f.group.get() == &g; });
    {
      std::lock_guard<std::mutex> sl(strong_mu_);
      strong_groups_.erase(it->first);
      strong_count_ = static_cast<int>(strong_groups_.size());
    }
    it = groups_.erase(it);
  }
  for (const Found& f : found) {
    Status st = Subscribe(f.group, f.region, f.db, /*from_checkpoint=*/true);
    if (!st.ok()) Log(f.group->table + " in " + f.region + ": " + st.ToString());
  }
  // MRSC writes cut short by a stop are copied before any request is served.
  std::vector<std::shared_ptr<Group>> strong;
  {
    std::lock_guard<std::mutex> sl(strong_mu_);
    for (const auto& [id, g] : strong_groups_) strong.push_back(g);
  }
  for (const auto& g : strong) Repair(*g);
  Resume();
}

}  // namespace dynarock::server
