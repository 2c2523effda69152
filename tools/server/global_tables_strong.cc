// File: tools/server/global_tables_strong.cc
//
// Multi-region strong consistency (MRSC) for global tables
// (global_tables.h): a write claims its items, and once made each item is
// copied to the other replica(s) before the reply. The items a region is
// writing are saved in its database first, so a write cut short by a crash
// (made here, not yet copied) is copied when the endpoint starts again.

#include <sstream>

#include "engine/api/json_decode.h"
#include "engine/api/json_encode.h"
#include "tools/server/global_tables_group.h"

namespace dynarock::server {

using global_tables::WritingName;

// Saves the items `region` is writing (under g.mu).
void GlobalTables::SaveWriting(Group& g, const std::string& region) {
  auto m = g.members.find(region);
  if (m == g.members.end()) return;
  std::string list;
  for (const auto& [key, entry] : g.writing[region]) {
    list += api::EncodeItemJson(entry.first);
    list += '\n';
  }
  Status s = m->second.db->SaveCheckpoint(WritingName(g.table), list);
  if (!s.ok()) Log(g.table + " in " + region + ": " + s.ToString());
}

// Each item as it is in `region`, to every other replica.
Status GlobalTables::CopyItem(Group& g, const std::string& region, DB& db, const Item& item_key) {
  GetItemRequest read;
  read.table_name = g.table;
  read.key = item_key;
  read.consistent_read = true;
  // Read and copy under one lock: two writes to an item from this region
  // may finish in either order, and the copy made last reads the latest.
  std::lock_guard<std::mutex> copying(g.copy_mu);
  DR_ASSIGN_OR_RETURN(GetItemResponse now, db.GetItem(read));
  std::vector<DB*> others;
  {
    std::lock_guard<std::mutex> gl(g.mu);
    for (const auto& [r, m] : g.members)
      if (r != region) others.push_back(m.db);
  }
  Status copied;
  for (DB* other : others) {
    Status s;
    if (now.item) {
      PutItemRequest put;
      put.table_name = g.table;
      put.item = *now.item;
      s = other->PutItem(put).status();
    } else {
      DeleteItemRequest del;
      del.table_name = g.table;
      del.key = item_key;
      s = other->DeleteItem(del).status();
    }
    if (!s.ok() && s.type() != ErrorType::kResourceNotFound) copied = s;
  }
  return copied;
}

// A strong write's items, claimed from before the write until its reply.
class GlobalTables::StrongClaim final : public api::Handler::GlobalTableHooks::Claim {
 public:
  struct Claimed {
    std::shared_ptr<Group> group;
    std::string key;
    Item item_key;
  };
  // Counted in claims_in_flight_ by ClaimItems.
  StrongClaim(GlobalTables* owner, std::string region, DB* db) : owner_(owner), region_(std::move(region)), db_(db) {}
  ~StrongClaim() override {
    Release();
    std::lock_guard<std::mutex> p(owner_->pause_mu_);
    if (--owner_->claims_in_flight_ == 0) owner_->pause_cv_.notify_all();
  }
  void Release() {
    for (const Claimed& c : claimed_) {
      std::lock_guard<std::mutex> gl(c.group->mu);
      auto it = c.group->claims.find(c.key);
      if (it != c.group->claims.end() && --it->second.second <= 0) c.group->claims.erase(it);
      auto& writing = c.group->writing[region_];
      auto w = writing.find(c.key);
      if (w != writing.end() && --w->second.second <= 0) {
        writing.erase(w);
        owner_->SaveWriting(*c.group, region_);
      }
    }
  }
  std::vector<Claimed>& claimed() { return claimed_; }

  // Each item as it is now, to every other replica.
  Status Copy() override {
    Status copied;
    for (const Claimed& c : claimed_) {
      copied = owner_->CopyItem(*c.group, region_, *db_, c.item_key);
      if (!copied.ok()) break;
    }
    if (copied.ok()) return copied;
    owner_->Log("a strongly consistent write was not copied everywhere: " + copied.ToString());
    return InternalError("The write was made in " + region_ + " but could not be copied to every replica: " +
                         copied.message());
  }

 private:
  GlobalTables* owner_;
  std::string region_;
  DB* db_;
  std::vector<Claimed> claimed_;
};

StatusOr<std::unique_ptr<api::Handler::GlobalTableHooks::Claim>> GlobalTables::ClaimItems(
    const std::string& access_key, const std::string& region, DB& db,
    const std::vector<std::pair<std::string, Item>>& keys) {
  {
    // A reset or a snapshot restore is changing the tables: wait for it.
    // (Repair, in Attach, copies while claims wait: nothing else writes.)
    std::unique_lock<std::mutex> p(pause_mu_);
    pause_cv_.wait(p, [&] { return !paused_; });
    ++claims_in_flight_;
  }
  auto claim = std::make_unique<StrongClaim>(this, region, &db);
  for (const auto& [table, item_key] : keys) {
    std::shared_ptr<Group> g;
    {
      std::lock_guard<std::mutex> sl(strong_mu_);
      auto it = strong_groups_.find(access_key + "\n" + table);
      if (it != strong_groups_.end()) g = it->second;
    }
    if (!g) continue;
    const std::string key = DebugString(item_key);
    {
      std::lock_guard<std::mutex> gl(g->mu);
      if (!g->members.count(region)) continue;  // not this group's replica
      if (g->creating) {
        return Status(ErrorType::kResourceInUse,
                      "Table " + table + " is being made a global table with MultiRegionConsistency STRONG; "
                      "retry when its replicas are ACTIVE");
      }
      auto [it, fresh] = g->claims.try_emplace(key, region, 0);
      if (!fresh && it->second.first != region) {  // the claims made so far go with `claim`
        return Status(ErrorType::kReplicatedWriteConflict,
                      "One or more items in this request are being modified by a request in another Region.");
      }
      ++it->second.second;
      auto [w, first] = g->writing[region].try_emplace(key, item_key, 0);
      ++w->second.second;
      if (first) SaveWriting(*g, region);
    }
    claim->claimed().push_back(StrongClaim::Claimed{g, key, item_key});
  }
  return std::unique_ptr<api::Handler::GlobalTableHooks::Claim>(std::move(claim));
}

// At start: the items a region was writing when the endpoint stopped are
// copied from it to the others (a write made and not acknowledged may stay
// or go; copying keeps the replicas alike either way).
void GlobalTables::Repair(Group& g) {
  std::vector<std::pair<std::string, DB*>> members;
  {
    std::lock_guard<std::mutex> gl(g.mu);
    for (const auto& [region, m] : g.members) members.emplace_back(region, m.db);
  }
  for (const auto& [region, db] : members) {
    auto at = db->LoadCheckpoint(WritingName(g.table));
    if (!at.ok() || !*at || (*at)->empty()) continue;
    std::istringstream lines(**at);
    std::string line;
    int repaired = 0;
    bool failed = false;
    while (std::getline(lines, line)) {
      auto key = api::DecodeItemJson(line);
      if (!key.ok()) continue;
      Status s = CopyItem(g, region, *db, *key);
      if (!s.ok()) {
        Log(g.table + " in " + region + ": a write cut short could not be copied: " + s.ToString());
        failed = true;
        continue;
      }
      ++repaired;
    }
    if (failed) continue;  // tried again at the next start
    Status s = db->SaveCheckpoint(WritingName(g.table), "");
    if (!s.ok()) Log(g.table + " in " + region + ": " + s.ToString());
    if (repaired > 0) {
      Log(g.table + ": " + std::to_string(repaired) + " item(s) written in " + region +
          " when the endpoint stopped copied to the other replicas");
    }
  }
}

}  // namespace dynarock::server
