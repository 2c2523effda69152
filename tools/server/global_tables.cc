// File: tools/server/global_tables.cc
//
// Global tables across the region namespaces (global_tables.h).

#include "tools/server/global_tables.h"

#include <algorithm>
#include <deque>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <set>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "dynarock/streams.h"
#include "tools/server/namespaces.h"

namespace dynarock::server {
namespace {

constexpr const char* kVersion = "2019.11.21";

std::string CheckpointName(const std::string& table) { return "global-table/" + table; }

// "KEY_REGION" -> {KEY, REGION}; the shared namespace has neither.
bool SplitName(const std::string& name, std::string* access_key, std::string* region) {
  const size_t sep = name.rfind('_');
  if (name == "shared" || sep == std::string::npos || sep == 0 || sep + 1 == name.size()) return false;
  *access_key = name.substr(0, sep);
  *region = name.substr(sep + 1);
  return true;
}

// An AWS region's shape: letters, digits and dashes, a dash in it
// ("us-east-1", "eu-west-2", "us-gov-west-1", "ap-southeast-4").
bool RegionShaped(const std::string& r) {
  if (r.size() < 4 || r.size() > 32 || r.find('-') == std::string::npos || r.front() == '-' || r.back() == '-') {
    return false;
  }
  return std::all_of(r.begin(), r.end(), [](char c) {
    return std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '-';
  });
}

Status ReplicaError(std::string message) { return ValidationError(std::move(message)); }

Status ReplicaExists(const std::string& table) {
  return ReplicaError("Failed to create a the new replica of table with name: '" + table +
                      "' because one or more replicas already existed as tables.");
}

// A global table's members stream NEW_AND_OLD_IMAGES, as DynamoDB turns on.
Status EnsureStream(DB& db, const TableDescription& d) {
  if (d.stream_specification && d.stream_specification->stream_enabled) return Status();
  UpdateTableRequest stream;
  stream.table_name = d.table_name;
  stream.stream_specification = StreamSpecification{true, "NEW_AND_OLD_IMAGES"};
  return db.UpdateTable(stream).status();
}

// The table made in another region for `d`: the same keys, indexes, class.
CreateTableRequest ReplicaTable(const TableDescription& d, const std::optional<std::string>& table_class) {
  CreateTableRequest c;
  c.table_name = d.table_name;
  c.attribute_definitions = d.attribute_definitions;
  c.key_schema = d.key_schema;
  c.billing_mode = "PAY_PER_REQUEST";
  c.on_demand_throughput = d.on_demand_throughput;
  for (const IndexDescription& ix : d.global_secondary_indexes) {
    GlobalSecondaryIndex g;
    g.index_name = ix.index_name;
    g.key_schema = ix.key_schema;
    g.projection = ix.projection;
    g.on_demand_throughput = ix.on_demand_throughput;
    c.global_secondary_indexes.push_back(std::move(g));
  }
  c.has_global_secondary_indexes = !c.global_secondary_indexes.empty();
  for (const IndexDescription& ix : d.local_secondary_indexes) {
    c.local_secondary_indexes.push_back(LocalSecondaryIndex{ix.index_name, ix.key_schema, ix.projection});
  }
  c.has_local_secondary_indexes = !c.local_secondary_indexes.empty();
  c.stream_specification = StreamSpecification{true, "NEW_AND_OLD_IMAGES"};
  c.table_class = table_class ? table_class : d.table_class;
  if (d.sse_type) {
    SseSpecification sse;
    sse.enabled = true;
    sse.sse_type = d.sse_type;
    sse.kms_master_key_id = d.kms_master_key_arn;
    c.sse_specification = sse;
  }
  c.deletion_protection_enabled = false;
  return c;
}

}  // namespace

// ---------------------------------------------------------------- the group

struct GlobalTables::Group {
  struct Member {
    DB* db = nullptr;
    std::unique_ptr<Subscription> subscription;
  };
  // The last writer of an item, and what each member holds of it.
  using Stamp = std::pair<double, std::string>;  // the write's time, its region
  struct KeyState {
    Stamp winner;
    std::optional<Item> image;  // the winner's new image; none: deleted
    std::map<std::string, Stamp> current;  // by region
  };
  // A write sent to a member, to know it when its stream shows it.
  struct Sent {
    std::optional<Item> image;
    Stamp stamp;
  };

  std::string access_key, table;
  bool strong = false;  // MRSC: writes copied before they are acknowledged; no change log read
  std::mutex mu;
  std::mutex copy_mu;  // MRSC: one item's read and copy at a time
  // MRSC: the items whose writes are in flight, and the region writing each.
  std::unordered_map<std::string, std::pair<std::string, int>> claims;  // GUARDED_BY(mu)
  std::map<std::string, Member> members;  // by region  GUARDED_BY(mu)
  std::unordered_map<std::string, KeyState> keys;   // GUARDED_BY(mu)
  std::map<std::string, std::unordered_multimap<std::string, Sent>> sent;  // by region, key  GUARDED_BY(mu)
  // Each member's records read and not yet applied everywhere, in order.
  struct Inflight {
    uint64_t id;
    std::string sequence_number;
    int pending;  // writes to make
    DB* db;       // the member's, where its checkpoint goes
  };
  std::map<std::string, std::deque<Inflight>> inflight;  // GUARDED_BY(mu)
  uint64_t next_record = 0;                               // GUARDED_BY(mu)
};

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
    h.is_strong = [this, access_key, region](DB&, std::string_view table) {
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

// Each member lists the others.
Status GlobalTables::SetLists(Group& g) {
  std::vector<std::pair<std::string, DB*>> members;
  {
    std::lock_guard<std::mutex> lock(g.mu);
    for (auto& [region, m] : g.members) members.emplace_back(region, m.db);
  }
  for (const auto& [region, db] : members) {
    std::vector<std::string> others;
    if (members.size() > 1) {
      for (const auto& [r, unused] : members)
        if (r != region) others.push_back(r);
    }
    DR_RETURN_IF_ERROR(db->SetReplicaRegions(g.table, others, g.strong));
  }
  return Status();
}

// ---------------------------------------------------------------- replication

Status GlobalTables::Subscribe(const std::shared_ptr<Group>& group, const std::string& region, DB* db,
                               bool from_checkpoint) {
  // Where to read from: after the checkpoint; or, for a member that joined
  // and has no record applied everywhere yet ("since:<time>"), its whole
  // stream from the time it joined (the copy made when it joined holds what
  // came before; a second of margin, as what it re-sends is the same item).
  SubscribeOptions so;
  so.start = SubscribeOptions::Start::kLatest;
  double since = 0;
  const std::string name = CheckpointName(group->table);
  if (from_checkpoint) {
    auto at = db->LoadCheckpoint(name);
    if (at.ok() && *at && at->value().rfind("since:", 0) == 0) {
      so.start = SubscribeOptions::Start::kTrimHorizon;
      since = std::strtod(at->value().c_str() + 6, nullptr) - 1.0;
    } else if (at.ok() && *at) {
      so.start = SubscribeOptions::Start::kAfterSequenceNumber;
      so.after_sequence_number = **at;
    }
  } else {
    char text[64];
    std::snprintf(text, sizeof text, "since:%.3f", options_.clock());
    DR_RETURN_IF_ERROR(db->SaveCheckpoint(name, text));
  }
  {
    std::lock_guard<std::mutex> lock(group->mu);  // a member before its first record
    group->members[region].db = db;
  }
  std::weak_ptr<Group> weak = group;
  auto handler = [this, weak, region, db, since](const StreamRecord& rec) {
    if (rec.approximate_creation_date_time < since) return;  // before it joined
    auto g = weak.lock();
    if (g && !stopping_) OnRecord(g, region, db, rec);
  };
  auto sub = db->Subscribe(group->table, so, handler);
  if (!sub.ok() && so.start == SubscribeOptions::Start::kAfterSequenceNumber) {
    Log(group->table + " in " + region + ": " + sub.status().ToString() + "; replicating from now on");
    so.start = SubscribeOptions::Start::kLatest;
    sub = db->Subscribe(group->table, so, handler);
  }
  std::lock_guard<std::mutex> lock(group->mu);
  if (!sub.ok()) {
    group->members.erase(region);
    return sub.status();
  }
  group->members[region].subscription = std::move(sub).value();
  return Status();
}

void GlobalTables::OnRecord(const std::shared_ptr<Group>& g, const std::string& region, DB* db,
                            const StreamRecord& rec) {
  using Stamp = Group::Stamp;
  const std::string key = DebugString(rec.keys);
  std::optional<Item> image;
  if (rec.event_name != "REMOVE") image = rec.new_image;
  std::vector<std::string> targets;
  Stamp winner;
  uint64_t id = 0;
  bool done = false;
  {
    std::lock_guard<std::mutex> lock(g->mu);
    if (!g->members.count(region)) return;  // left the group
    Stamp mine{rec.approximate_creation_date_time, region};
    auto& sent = g->sent[region];
    auto [b, e] = sent.equal_range(key);
    for (auto it = b; it != e; ++it) {
      if (it->second.image == image) {  // a write this group sent here: its own time
        mine = it->second.stamp;
        sent.erase(it);
        break;
      }
    }
    Group::KeyState& st = g->keys[key];
    const bool first = st.winner.second.empty();
    if (first || (image != st.image && mine > st.winner)) {
      st.winner = mine;
      st.image = image;
    }
    // What this member holds now: the winner when it is the same item. A
    // member left holding an older write (its own, or one sent to it that
    // landed on a newer one) gets the winner again, as the others do.
    st.current[region] = image == st.image ? st.winner : mine;
    for (const auto& [q, m] : g->members) {
      auto c = st.current.find(q);
      if (c == st.current.end() || c->second != st.winner) targets.push_back(q);
    }
    winner = st.winner;
    id = ++g->next_record;
    auto& inflight = g->inflight[region];
    inflight.push_back(Group::Inflight{id, rec.sequence_number, static_cast<int>(targets.size()), db});
    done = targets.empty();
  }
  if (done) {
    Complete(g, region, id, /*applied=*/0);
    return;
  }
  // A write reaches the others `lag` after it was made (on the namespaces'
  // clock, which the control API moves: never longer than the lag from now).
  const double lag = options_.lag.count() / 1000.0;
  const double delay = std::clamp(winner.first + lag - options_.clock(), 0.0, lag);
  const auto due = std::chrono::steady_clock::now() +
                   std::chrono::microseconds(static_cast<int64_t>(delay * 1e6));
  std::lock_guard<std::mutex> lock(queue_mu_);
  for (const std::string& q : targets) {
    queue_.emplace(due, Task{g, region, id, key, rec.keys, q, winner});
  }
  queue_cv_.notify_one();
}

void GlobalTables::Apply(const Task& t) {
  auto g = t.group.lock();
  if (!g) return;
  DB* target = nullptr;
  std::optional<Item> image;
  {
    std::lock_guard<std::mutex> lock(g->mu);
    auto m = g->members.find(t.target);
    Group::KeyState& st = g->keys[t.key];
    auto c = st.current.find(t.target);
    // Left the group, a newer write won (its own task sends it), or it is there.
    if (m == g->members.end() || st.winner != t.stamp || (c != st.current.end() && c->second == t.stamp)) {
      target = nullptr;
    } else {
      target = m->second.db;
      image = st.image;
      g->sent[t.target].emplace(t.key, Group::Sent{image, t.stamp});
    }
  }
  if (target != nullptr) {
    Status applied;
    bool changed = true;  // the write made a record in the target's stream
    if (image) {
      PutItemRequest put;
      put.table_name = g->table;
      put.item = *image;
      put.return_values = ReturnValue::kAllOld;
      auto r = target->PutItem(put);
      applied = r.status();
      changed = r.ok() && r->attributes != image;
    } else {
      DeleteItemRequest del;
      del.table_name = g->table;
      del.key = t.keys;
      del.return_values = ReturnValue::kAllOld;
      auto r = target->DeleteItem(del);
      applied = r.status();
      changed = r.ok() && r->attributes.has_value();
    }
    if (!applied.ok() || !changed) {
      std::lock_guard<std::mutex> lock(g->mu);
      auto& sent = g->sent[t.target];
      auto [b, e] = sent.equal_range(t.key);
      for (auto it = b; it != e; ++it) {
        if (it->second.stamp == t.stamp && it->second.image == image) {
          sent.erase(it);
          break;
        }
      }
      if (applied.ok()) g->keys[t.key].current[t.target] = t.stamp;  // it held it already
    }
    if (!applied.ok() && applied.type() != ErrorType::kResourceNotFound) {
      // Tried again in a second: the record's checkpoint waits for it.
      Log(g->table + " -> " + t.target + ": " + applied.ToString() + " (retrying)");
      std::lock_guard<std::mutex> lock(queue_mu_);
      queue_.emplace(std::chrono::steady_clock::now() + std::chrono::seconds(1), t);
      queue_cv_.notify_one();
      return;
    }
  }
  Complete(g, t.from, t.record, 1);
}

// One of record `id`'s writes is done (`applied` of them): the member's
// checkpoint moves past every record whose writes are all done.
void GlobalTables::Complete(const std::shared_ptr<Group>& g, const std::string& region, uint64_t id, int applied) {
  std::string position;
  DB* db = nullptr;
  {
    std::lock_guard<std::mutex> lock(g->mu);
    auto& inflight = g->inflight[region];
    for (Group::Inflight& r : inflight) {
      if (r.id == id) {
        r.pending -= applied;
        break;
      }
    }
    while (!inflight.empty() && inflight.front().pending <= 0) {
      position = inflight.front().sequence_number;
      db = inflight.front().db;
      inflight.pop_front();
    }
  }
  if (db == nullptr) return;
  Status saved = db->SaveCheckpoint(CheckpointName(g->table), position);
  if (!saved.ok()) Log(g->table + " in " + region + ": checkpoint: " + saved.ToString());
}

void GlobalTables::Work() {
  std::unique_lock<std::mutex> lock(queue_mu_);
  while (!stopping_) {
    if (queue_.empty()) {
      queue_cv_.wait(lock);
      continue;
    }
    if (queue_.begin()->first > std::chrono::steady_clock::now()) {
      queue_cv_.wait_until(lock, queue_.begin()->first);
      continue;
    }
    Task t = std::move(queue_.begin()->second);
    queue_.erase(queue_.begin());
    lock.unlock();
    Apply(t);
    lock.lock();
  }
}

// ---------------------------------------------------------------- MRSC

// A strong write's items, claimed from before the write until its reply.
class GlobalTables::StrongClaim final : public api::Handler::GlobalTableHooks::Claim {
 public:
  struct Claimed {
    std::shared_ptr<Group> group;
    std::string key;
    Item item_key;
  };
  StrongClaim(GlobalTables* owner, std::string region, DB* db) : owner_(owner), region_(std::move(region)), db_(db) {}
  ~StrongClaim() override {
    for (const Claimed& c : claimed_) {
      std::lock_guard<std::mutex> gl(c.group->mu);
      auto it = c.group->claims.find(c.key);
      if (it != c.group->claims.end() && --it->second.second <= 0) c.group->claims.erase(it);
    }
  }
  std::vector<Claimed>& claimed() { return claimed_; }

  // Each item as it is now, to every other replica.
  Status Copy() override {
    Status copied;
    for (const Claimed& c : claimed_) {
      GetItemRequest read;
      read.table_name = c.group->table;
      read.key = c.item_key;
      read.consistent_read = true;
      // Read and copy under one lock: two writes to an item from this region
      // may finish in either order, and the copy made last reads the latest.
      std::lock_guard<std::mutex> copying(c.group->copy_mu);
      auto now = db_->GetItem(read);
      if (!now.ok()) {
        copied = now.status();
        break;
      }
      std::vector<DB*> others;
      {
        std::lock_guard<std::mutex> gl(c.group->mu);
        for (const auto& [r, m] : c.group->members)
          if (r != region_) others.push_back(m.db);
      }
      for (DB* other : others) {
        Status s;
        if (now->item) {
          PutItemRequest put;
          put.table_name = c.group->table;
          put.item = *now->item;
          s = other->PutItem(put).status();
        } else {
          DeleteItemRequest del;
          del.table_name = c.group->table;
          del.key = c.item_key;
          s = other->DeleteItem(del).status();
        }
        if (!s.ok() && s.type() != ErrorType::kResourceNotFound) copied = s;
      }
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
  auto claim = std::make_unique<StrongClaim>(this, region, &db);
  for (const auto& [table, item_key] : keys) {
    std::shared_ptr<Group> g;
    {
      std::lock_guard<std::mutex> sl(strong_mu_);
      auto it = strong_groups_.find(access_key + "\n" + table);
      if (it != strong_groups_.end()) g = it->second;
    }
    if (!g) continue;
    {
      std::lock_guard<std::mutex> gl(g->mu);
      if (!g->members.count(region)) continue;  // not this group's replica
    }
    const std::string key = DebugString(item_key);
    bool conflict = false;
    {
      std::lock_guard<std::mutex> gl(g->mu);
      auto [it, fresh] = g->claims.try_emplace(key, region, 0);
      conflict = !fresh && it->second.first != region;
      if (!conflict) ++it->second.second;
    }
    if (conflict) {  // the claims made so far go with `claim`
      return Status(ErrorType::kReplicatedWriteConflict,
                    "One or more items in this request are being modified by a request in another Region.");
    }
    claim->claimed().push_back(StrongClaim::Claimed{g, key, item_key});
  }
  return std::unique_ptr<api::Handler::GlobalTableHooks::Claim>(std::move(claim));
}

// ---------------------------------------------------------------- requests

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
  for (const std::string& name : namespaces->Names()) {
    std::string key, region;
    if (!SplitName(name, &key, &region)) continue;
    DB* db = namespaces->Find(name);
    if (db == nullptr) continue;
    ListTablesRequest list;
    for (;;) {
      auto tables = db->ListTables(list);
      if (!tables.ok()) break;
      for (const std::string& t : tables->table_names) {
        auto d = db->DescribeTable({t});
        if (!d.ok() || d->table.replicas.empty()) continue;
        auto g = GroupOf(key, t, true);
        if (d->table.multi_region_consistency == "STRONG") {  // copied as written: nothing to read
          g->strong = true;
          std::lock_guard<std::mutex> sl(strong_mu_);
          strong_groups_[key + "\n" + t] = g;
          strong_count_ = static_cast<int>(strong_groups_.size());
        }
        std::lock_guard<std::mutex> gl(g->mu);
        g->members[region].db = db;
        if (!g->strong) found.push_back(Found{g, region, db});
      }
      if (!tables->last_evaluated_table_name) break;
      list.exclusive_start_table_name = tables->last_evaluated_table_name;
    }
  }
  for (const Found& f : found) {
    Status st = Subscribe(f.group, f.region, f.db, /*from_checkpoint=*/true);
    if (!st.ok()) Log(f.group->table + " in " + f.region + ": " + st.ToString());
  }
}

StatusOr<UpdateTableResponse> GlobalTables::Update(const std::string& name, DB& db, const UpdateTableRequest& req) {
  std::string access_key, region;
  if (!SplitName(name, &access_key, &region)) {
    return ReplicaError("Replicas live in other regions, and this request went to the endpoint's shared "
                        "namespace (dynarock serve --shared-db, or an unsigned request): sign requests with a "
                        "region, and serve without --shared-db, to use global tables");
  }
  const bool make_strong = req.multi_region_consistency == "STRONG";
  int changes = 0;
  for (const ReplicaUpdate& u : req.replica_updates) {
    if (!RegionShaped(u.region_name)) {
      return ReplicaError("The region name '" + u.region_name + "' is not a region (such as us-east-1)");
    }
    if (u.action != ReplicaUpdate::Action::kUpdate) ++changes;
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (namespaces_ == nullptr) return InternalError("global tables are not ready");
  DR_ASSIGN_OR_RETURN(DescribeTableResponse described, db.DescribeTable({req.table_name}));
  const TableDescription& d = described.table;
  const std::string& table = d.table_name;
  if (d.table_status != "ACTIVE") {
    return Status(ErrorType::kResourceInUse, "The resource which you are attempting to change is in use.");
  }
  std::shared_ptr<Group> g = GroupOf(access_key, table, false);
  auto is_member = [&](const std::string& r) {
    if (!g) return r == region;
    std::lock_guard<std::mutex> gl(g->mu);
    return g->members.count(r) > 0;
  };
  if (g && !is_member(region)) {
    return ReplicaError("Table " + table + " in " + region + " is not a replica of the global table " + table +
                        " (a table of the same name in another region is)");
  }
  const bool strong = g && g->strong;
  // Every update is checked before any is made: a request that is refused
  // changes nothing.
  for (const ReplicaUpdate& u : req.replica_updates) {
    if (u.region_name == region) continue;  // refused below, in order
    const bool member = is_member(u.region_name);
    if (u.action == ReplicaUpdate::Action::kCreate && member && !make_strong) {
      return ReplicaExists(table);
    }
    if (u.action != ReplicaUpdate::Action::kCreate && !member) {
      return ReplicaError("Table " + table + " has no replica in region " + u.region_name);
    }
  }
  // MRSC: three replicas made together (two Creates with STRONG), deleted
  // together (both others in one request); EVENTUAL: one change a request.
  if (make_strong) {
    if (g) {
      return ReplicaError("Table " + table + " is a global table already; its MultiRegionConsistency cannot change");
    }
    if (changes != 2 || req.replica_updates.size() != 2) {
      return ReplicaError("A global table with MultiRegionConsistency STRONG has three replicas: create two in one "
                          "request (a witness region is not supported here)");
    }
    ScanRequest any;
    any.table_name = table;
    any.limit = 1;
    DR_ASSIGN_OR_RETURN(ScanResponse first, db.Scan(any));
    if (!first.items.empty()) {
      return ReplicaError("Table " + table + " holds items: a table becomes a global table with "
                          "MultiRegionConsistency STRONG only while it is empty");
    }
  } else if (strong && changes == 1 && req.replica_updates.size() == 1 &&
             req.replica_updates[0].action == ReplicaUpdate::Action::kDelete) {
    return ReplicaError("Deletion of only one table replica is not supported for global tables with "
                        "MultiRegionConsistency set to STRONG.");
  } else if (changes > 1 && !(strong && changes == 2)) {
    return ReplicaError("Only one replica can be created or deleted in one UpdateTable request; this one has " +
                        std::to_string(changes));
  }
  if (make_strong) {
    for (const ReplicaUpdate& u : req.replica_updates) {
      if (u.action != ReplicaUpdate::Action::kCreate || u.region_name == region) {
        return ReplicaError("A global table with MultiRegionConsistency STRONG is made by two Creates in other "
                            "regions than " + region);
      }
      if (d.billing_mode != "PAY_PER_REQUEST") {
        return ReplicaError("Table/GSI write capacity should either be Pay-Per-Request or AutoScaled.");
      }
      DR_ASSIGN_OR_RETURN(DB * target, namespaces_->DatabaseOf(access_key, u.region_name));
      if (target->DescribeTable({table}).ok()) {
        return ReplicaExists(table);
      }
    }
    if (req.replica_updates[0].region_name == req.replica_updates[1].region_name) {
      return ReplicaError("The two replicas of a STRONG global table are in two regions");
    }
    // Writes are copied to the others before they are acknowledged
    // (ClaimItems): no change log is read, so no stream is needed for
    // replication; DynamoDB turns one on all the same.
    DR_RETURN_IF_ERROR(EnsureStream(db, d));
    g = GroupOf(access_key, table, true);
    g->strong = true;
    {
      std::lock_guard<std::mutex> gl(g->mu);
      g->members[region].db = &db;
    }
    for (const ReplicaUpdate& u : req.replica_updates) {
      DR_ASSIGN_OR_RETURN(DB * target, namespaces_->DatabaseOf(access_key, u.region_name));
      DR_RETURN_IF_ERROR(target->CreateTable(ReplicaTable(d, u.table_class_override)).status());
      std::lock_guard<std::mutex> gl(g->mu);
      g->members[u.region_name].db = target;
    }
    DR_RETURN_IF_ERROR(SetLists(*g));
    {
      std::lock_guard<std::mutex> sl(strong_mu_);
      strong_groups_[access_key + "\n" + table] = g;
      strong_count_ = static_cast<int>(strong_groups_.size());
    }
    DR_ASSIGN_OR_RETURN(DescribeTableResponse made, db.DescribeTable({table}));
    UpdateTableResponse out;
    out.table_description = std::move(made.table);
    return out;
  }
  for (const ReplicaUpdate& u : req.replica_updates) {
    if (u.region_name == region) {
      return ReplicaError(u.action == ReplicaUpdate::Action::kDelete
                              ? "The replica in " + region + " is this table: delete it with DeleteTable"
                              : "Table " + table + " is in region " + region +
                                    " already: a replica goes in another region");
    }
    if (u.action == ReplicaUpdate::Action::kCreate) {
      if (strong) {
        return ReplicaError("Table " + table + " is a global table with MultiRegionConsistency STRONG, which has "
                            "three replicas: it takes no more");
      }
      if (is_member(u.region_name)) {
        return ReplicaExists(table);
      }
      if (d.billing_mode != "PAY_PER_REQUEST") {
        return ReplicaError("Table/GSI write capacity should either be Pay-Per-Request or AutoScaled.");
      }
      if (d.stream_specification && d.stream_specification->stream_enabled &&
          d.stream_specification->stream_view_type != "NEW_AND_OLD_IMAGES") {
        return ReplicaError("A global table's stream shows new and old images: table " + table +
                            " has a stream of " + d.stream_specification->stream_view_type +
                            "; change it to NEW_AND_OLD_IMAGES first");
      }
      DR_ASSIGN_OR_RETURN(DB * target, namespaces_->DatabaseOf(access_key, u.region_name));
      if (target->DescribeTable({table}).ok()) {
        return ReplicaExists(table);
      }
      // The source streams its changes from now on, and joins the group.
      DR_RETURN_IF_ERROR(EnsureStream(db, d));
      g = GroupOf(access_key, table, true);
      if (!is_member(region)) DR_RETURN_IF_ERROR(Subscribe(g, region, &db, /*from_checkpoint=*/false));
      DR_RETURN_IF_ERROR(target->CreateTable(ReplicaTable(d, u.table_class_override)).status());
      DR_RETURN_IF_ERROR(Subscribe(g, u.region_name, target, /*from_checkpoint=*/false));
      // The items as they are now, each known to the group as the oldest
      // write (time 0): any write made since wins over the copy.
      ScanRequest scan;
      scan.table_name = table;
      scan.consistent_read = true;
      for (;;) {
        DR_ASSIGN_OR_RETURN(ScanResponse page, db.Scan(scan));
        for (Item& item : page.items) {
          Item key;
          for (const KeySchemaElement& k : d.key_schema) key[k.attribute_name] = item.at(k.attribute_name);
          const std::string id = DebugString(key);
          {
            std::lock_guard<std::mutex> gl(g->mu);
            Group::KeyState& st = g->keys[id];
            if (st.winner.second.empty()) {
              st.winner = {0, region};
              st.image = item;
              st.current[region] = st.winner;
            }
            if (st.image != item) continue;  // a newer write: the group sends it
            g->sent[u.region_name].emplace(id, Group::Sent{item, st.winner});
          }
          PutItemRequest put;
          put.table_name = table;
          put.item = std::move(item);
          DR_RETURN_IF_ERROR(target->PutItem(put).status());
        }
        if (!page.last_evaluated_key) break;
        scan.exclusive_start_key = std::move(page.last_evaluated_key);
      }
      DR_RETURN_IF_ERROR(SetLists(*g));
    } else if (u.action == ReplicaUpdate::Action::kDelete) {
      if (!g || !is_member(u.region_name)) {
        return ReplicaError("Table " + table + " has no replica in region " + u.region_name);
      }
      Group::Member leaving;
      {
        std::lock_guard<std::mutex> gl(g->mu);
        leaving = std::move(g->members[u.region_name]);
        g->members.erase(u.region_name);
        g->sent.erase(u.region_name);
      }
      if (leaving.subscription) leaving.subscription->Cancel();
      DR_RETURN_IF_ERROR(leaving.db->SetReplicaRegions(table, {}, false));
      DeleteTableRequest del;
      del.table_name = table;
      Status deleted = leaving.db->DeleteTable(del).status();
      if (!deleted.ok() && deleted.type() != ErrorType::kResourceNotFound) return deleted;
      DR_RETURN_IF_ERROR(SetLists(*g));
    } else {  // Update: the replica's table class
      if (!g || !is_member(u.region_name)) {
        return ReplicaError("Table " + table + " has no replica in region " + u.region_name);
      }
      if (u.table_class_override) {
        DR_ASSIGN_OR_RETURN(DB * target, namespaces_->DatabaseOf(access_key, u.region_name));
        UpdateTableRequest cls;
        cls.table_name = table;
        cls.table_class = u.table_class_override;
        Status s = target->UpdateTable(cls).status();
        if (!s.ok() && s.type() != ErrorType::kValidation) return s;  // the same class: nothing to do
      }
    }
  }
  // A strong group left with one member is a table again too.
  if (g && g->strong) {
    bool alone = false;
    {
      std::lock_guard<std::mutex> gl(g->mu);
      alone = g->members.size() <= 1;
      if (alone) g->members.clear();
    }
    if (alone) {
      std::lock_guard<std::mutex> sl(strong_mu_);
      strong_groups_.erase(access_key + "\n" + table);
      strong_count_ = static_cast<int>(strong_groups_.size());
      groups_.erase(access_key + "\n" + table);
    }
  }
  // A group of one is a table again.
  if (g) {
    std::unique_ptr<Subscription> last;
    {
      std::lock_guard<std::mutex> gl(g->mu);
      if (g->members.size() == 1) {
        last = std::move(g->members.begin()->second.subscription);
        g->members.clear();
      }
    }
    if (last) {
      last->Cancel();
      groups_.erase(access_key + "\n" + table);
    }
  }
  DR_ASSIGN_OR_RETURN(DescribeTableResponse after, db.DescribeTable({table}));
  UpdateTableResponse out;
  out.table_description = std::move(after.table);
  return out;
}

void GlobalTables::Deleted(const std::string& name, DB& db, const std::string& table) {
  std::string access_key, region;
  if (!SplitName(name, &access_key, &region)) return;
  std::lock_guard<std::mutex> lock(mu_);
  std::shared_ptr<Group> g = GroupOf(access_key, table, false);
  if (!g) return;
  Group::Member leaving;
  std::unique_ptr<Subscription> last;
  {
    std::lock_guard<std::mutex> gl(g->mu);
    auto m = g->members.find(region);
    if (m == g->members.end() || m->second.db != &db) return;
    leaving = std::move(m->second);
    g->members.erase(m);
    g->sent.erase(region);
    if (g->members.size() == 1) last = std::move(g->members.begin()->second.subscription);
  }
  if (leaving.subscription) leaving.subscription->Cancel();
  if (last) last->Cancel();
  Status s = SetLists(*g);
  if (!s.ok()) Log(table + ": " + s.ToString());
  if (last || (g->strong && [&] {
        std::lock_guard<std::mutex> gl(g->mu);
        return g->members.size() <= 1;
      }())) {
    std::lock_guard<std::mutex> gl(g->mu);
    g->members.clear();
    groups_.erase(access_key + "\n" + table);
    std::lock_guard<std::mutex> sl(strong_mu_);
    strong_groups_.erase(access_key + "\n" + table);
    strong_count_ = static_cast<int>(strong_groups_.size());
  }
}

}  // namespace dynarock::server
