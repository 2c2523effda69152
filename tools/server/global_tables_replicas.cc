// File: tools/server/global_tables_replicas.cc
//
// UpdateTable's global-table requests (global_tables.h): ReplicaUpdates
// (Create, Update, Delete, with each replica's settings),
// GlobalTableWitnessUpdates and MultiRegionConsistency, and DeleteTable of a
// member. Every request is checked whole before anything is made; a Create
// that fails part-way is undone.

#include <algorithm>
#include <cctype>
#include <set>

#include "tools/server/global_tables_group.h"
#include "tools/server/namespaces.h"

namespace dynarock::server {

using global_tables::SplitName;

namespace {

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
CreateTableRequest ReplicaTable(const TableDescription& d, const ReplicaUpdate& u) {
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
  c.table_class = u.table_class_override ? u.table_class_override : d.table_class;
  if (d.sse_type) {
    SseSpecification sse;
    sse.enabled = true;
    sse.sse_type = d.sse_type;
    // A replica's own key (KMSMasterKeyId) for a table encrypted with a KMS key.
    sse.kms_master_key_id = u.settings.kms_master_key_id ? u.settings.kms_master_key_id : d.kms_master_key_arn;
    c.sse_specification = sse;
  }
  c.deletion_protection_enabled = false;
  return c;
}

// A replica's settings, checked against its table before anything is made.
Status CheckSettings(const TableDescription& d, const ReplicaUpdate& u) {
  const ReplicaSettings& s = u.settings;
  const bool on_demand = d.billing_mode == "PAY_PER_REQUEST";
  auto check = [&](const std::optional<int64_t>& rcu, const std::optional<int64_t>& mrru,
                   const std::string& what) -> Status {
    if (rcu && on_demand) {
      return ReplicaError("ProvisionedThroughputOverride is for tables in provisioned mode, and " + what +
                          " is on demand: set OnDemandThroughputOverride instead");
    }
    if (mrru && *mrru < 1 && *mrru != -1) {
      return ReplicaError("OnDemandThroughputOverride.MaxReadRequestUnits of " + what +
                          " must be at least 1, or -1 to remove it; it is " + std::to_string(*mrru));
    }
    return Status();
  };
  DR_RETURN_IF_ERROR(check(s.read_capacity_units, s.max_read_request_units, "table " + d.table_name));
  std::set<std::string> named;
  for (const ReplicaGlobalSecondaryIndex& g : s.global_secondary_indexes) {
    const bool known = std::any_of(d.global_secondary_indexes.begin(), d.global_secondary_indexes.end(),
                                   [&](const IndexDescription& ix) { return ix.index_name == g.index_name; });
    if (!known) {
      return ReplicaError("Replica global secondary index " + g.index_name + " is not a global secondary index of "
                          "table " + d.table_name);
    }
    if (!named.insert(g.index_name).second) {
      return ReplicaError("Replica global secondary index " + g.index_name + " is named twice");
    }
    DR_RETURN_IF_ERROR(check(g.read_capacity_units, g.max_read_request_units, "index " + g.index_name));
  }
  return Status();
}

// `into` with what an Update sets (a given member replaces; -1 removes a maximum).
void MergeSettings(const ReplicaSettings& set, ReplicaSettings* into) {
  auto merge = [](const std::optional<int64_t>& v, std::optional<int64_t>* out) {
    if (!v) return;
    if (*v == -1) {
      out->reset();
    } else {
      *out = v;
    }
  };
  if (set.kms_master_key_id) into->kms_master_key_id = set.kms_master_key_id;
  merge(set.read_capacity_units, &into->read_capacity_units);
  merge(set.max_read_request_units, &into->max_read_request_units);
  for (const ReplicaGlobalSecondaryIndex& g : set.global_secondary_indexes) {
    auto it = std::find_if(into->global_secondary_indexes.begin(), into->global_secondary_indexes.end(),
                           [&](const ReplicaGlobalSecondaryIndex& x) { return x.index_name == g.index_name; });
    if (it == into->global_secondary_indexes.end()) {
      ReplicaGlobalSecondaryIndex added;
      added.index_name = g.index_name;
      into->global_secondary_indexes.push_back(std::move(added));
      it = std::prev(into->global_secondary_indexes.end());
    }
    merge(g.read_capacity_units, &it->read_capacity_units);
    merge(g.max_read_request_units, &it->max_read_request_units);
  }
  std::erase_if(into->global_secondary_indexes, [](const ReplicaGlobalSecondaryIndex& g) {
    return !g.read_capacity_units && !g.max_read_request_units;
  });
}

// The replica's own table takes its read maximums (its writes are the
// table's: every write reaches every replica); -1 gives it the table's own
// maximum back. A KMS key is the replica's encryption key when the table is
// encrypted with one.
Status ApplySettings(DB& target, const TableDescription& d, const ReplicaSettings& set) {
  auto own = [](const std::optional<OnDemandThroughput>& t) -> std::optional<int64_t> {
    if (t && t->max_read_request_units) return t->max_read_request_units;
    return -1;  // none: removed
  };
  if (set.max_read_request_units) {
    UpdateTableRequest u;
    u.table_name = d.table_name;
    u.on_demand_throughput = OnDemandThroughput{
        *set.max_read_request_units == -1 ? own(d.on_demand_throughput) : set.max_read_request_units, std::nullopt};
    DR_RETURN_IF_ERROR(target.UpdateTable(u).status());
  }
  for (const ReplicaGlobalSecondaryIndex& g : set.global_secondary_indexes) {
    if (!g.max_read_request_units) continue;
    std::optional<int64_t> units = g.max_read_request_units;
    if (*units == -1) {
      for (const IndexDescription& ix : d.global_secondary_indexes)
        if (ix.index_name == g.index_name) units = own(ix.on_demand_throughput);
    }
    UpdateTableRequest u;
    u.table_name = d.table_name;
    GlobalSecondaryIndexUpdate gu;
    UpdateGlobalSecondaryIndexAction a;
    a.index_name = g.index_name;
    a.on_demand_throughput = OnDemandThroughput{units, std::nullopt};
    gu.update = std::move(a);
    u.global_secondary_index_updates.push_back(std::move(gu));
    DR_RETURN_IF_ERROR(target.UpdateTable(u).status());
  }
  if (set.kms_master_key_id && d.sse_type == "KMS") {
    auto now = target.DescribeTable({d.table_name});
    if (now.ok() && now->table.kms_master_key_arn != set.kms_master_key_id) {
      UpdateTableRequest u;
      u.table_name = d.table_name;
      SseSpecification sse;
      sse.enabled = true;
      sse.sse_type = "KMS";
      sse.kms_master_key_id = set.kms_master_key_id;
      u.sse_specification = sse;
      DR_RETURN_IF_ERROR(target.UpdateTable(u).status());
    }
  }
  return Status();
}

}  // namespace

StatusOr<UpdateTableResponse> GlobalTables::Update(const std::string& name, DB& db, const UpdateTableRequest& req) {
  std::string access_key, region;
  if (!SplitName(name, &access_key, &region)) {
    return ReplicaError("Replicas live in other regions, and this request went to the endpoint's shared "
                        "namespace (dynarock serve --shared-db, or an unsigned request): sign requests with a "
                        "region, and serve without --shared-db, to use global tables");
  }
  using Action = ReplicaUpdate::Action;
  const bool make_strong = req.multi_region_consistency == "STRONG";
  int changes = 0;
  for (const ReplicaUpdate& u : req.replica_updates) {
    if (!RegionShaped(u.region_name)) {
      return ReplicaError("The region name '" + u.region_name + "' is not a region (such as us-east-1)");
    }
    if (u.action != Action::kUpdate) ++changes;
  }
  const WitnessUpdate* witness = req.witness_updates.empty() ? nullptr : &req.witness_updates[0];
  if (witness && !RegionShaped(witness->region_name)) {
    return ReplicaError("The region name '" + witness->region_name + "' is not a region (such as us-east-1)");
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
  std::optional<std::string> current_witness;
  if (g) {
    std::lock_guard<std::mutex> gl(g->mu);
    current_witness = g->witness;
  }
  // Every update is checked before any is made: a request that is refused
  // changes nothing.
  for (const ReplicaUpdate& u : req.replica_updates) {
    if (u.region_name == region) {
      return ReplicaError(u.action == Action::kDelete
                              ? "The replica in " + region + " is this table: delete it with DeleteTable"
                              : "Table " + table + " is in region " + region +
                                    " already: a replica goes in another region");
    }
    if (current_witness && u.region_name == *current_witness) {
      return ReplicaError("Region " + u.region_name + " is the witness of global table " + table +
                          ", which holds no replica");
    }
    const bool member = is_member(u.region_name);
    if (u.action == Action::kCreate && member) return ReplicaExists(table);
    if (u.action != Action::kCreate && !member) {
      return ReplicaError("Table " + table + " has no replica in region " + u.region_name);
    }
    if (u.action != Action::kDelete) DR_RETURN_IF_ERROR(CheckSettings(d, u));
  }
  std::set<std::string> regions;
  for (const ReplicaUpdate& u : req.replica_updates) {
    if (!regions.insert(u.region_name).second) {
      return ReplicaError("Region " + u.region_name + " is named twice in ReplicaUpdates");
    }
  }
  // The witness: made with the MRSC table (one replica Create beside it),
  // deleted together with the other replica.
  if (witness) {
    if (witness->region_name == region || regions.count(witness->region_name)) {
      return ReplicaError("The witness region " + witness->region_name +
                          " must differ from the regions of the global table's replicas");
    }
    if (witness->action == WitnessUpdate::Action::kCreate) {
      if (!make_strong || g) {
        return ReplicaError("A witness is added when a global table with MultiRegionConsistency STRONG is made "
                            "(MultiRegionConsistency STRONG, one replica Create and the witness Create in one "
                            "request)");
      }
    } else {
      if (!current_witness || *current_witness != witness->region_name) {
        return ReplicaError("Global table " + table + " has no witness in region " + witness->region_name);
      }
      if (changes != 1 || req.replica_updates.size() != 1 || req.replica_updates[0].action != Action::kDelete) {
        return ReplicaError("A witness is deleted together with the global table's other replica (a replica "
                            "Delete and the witness Delete in one request)");
      }
    }
  }
  // MRSC: three replicas (or two and a witness) made together, deleted
  // together; EVENTUAL: one change a request.
  const bool with_witness = witness && witness->action == WitnessUpdate::Action::kCreate;
  if (make_strong) {
    if (g) {
      return ReplicaError("Table " + table + " is a global table already; its MultiRegionConsistency cannot change");
    }
    const size_t wanted = with_witness ? 1 : 2;
    if (changes != static_cast<int>(wanted) || req.replica_updates.size() != wanted ||
        std::any_of(req.replica_updates.begin(), req.replica_updates.end(),
                    [](const ReplicaUpdate& u) { return u.action != Action::kCreate; })) {
      return ReplicaError("A global table with MultiRegionConsistency STRONG has three regions: create two "
                          "replicas, or one replica and a witness, in one request");
    }
    if (d.billing_mode != "PAY_PER_REQUEST") {
      return ReplicaError("Table/GSI write capacity should either be Pay-Per-Request or AutoScaled.");
    }
    ScanRequest any;
    any.table_name = table;
    any.limit = 1;
    DR_ASSIGN_OR_RETURN(ScanResponse first, db.Scan(any));
    if (!first.items.empty()) {
      return ReplicaError("Table " + table + " holds items: a table becomes a global table with "
                          "MultiRegionConsistency STRONG only while it is empty");
    }
  } else if (strong && std::any_of(req.replica_updates.begin(), req.replica_updates.end(),
                                   [](const ReplicaUpdate& u) { return u.action == Action::kCreate; })) {
    return ReplicaError("Table " + table + " is a global table with MultiRegionConsistency STRONG, which has "
                        "three regions: it takes no more");
  } else if (strong && changes > 0) {
    // Both other regions go in one request: two replicas, or the replica and the witness.
    const bool together = current_witness ? witness != nullptr : (changes == 2 && req.replica_updates.size() == 2);
    if (!together) {
      return ReplicaError("Deletion of only one table replica is not supported for global tables with "
                          "MultiRegionConsistency set to STRONG.");
    }
  } else if (!strong && changes > 1) {
    return ReplicaError("Only one replica can be created or deleted in one UpdateTable request; this one has " +
                        std::to_string(changes));
  }
  for (const ReplicaUpdate& u : req.replica_updates) {
    if (u.action != Action::kCreate) continue;
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
    if (target->DescribeTable({table}).ok()) return ReplicaExists(table);
  }

  // ---- checked: now made.
  if (make_strong) {
    // Writes are copied to the others before they are acknowledged
    // (ClaimItems): no change log is read, so no stream is needed for
    // replication; DynamoDB turns one on all the same.
    DR_RETURN_IF_ERROR(EnsureStream(db, d));
    g = GroupOf(access_key, table, true);
    g->strong = true;
    {
      std::lock_guard<std::mutex> gl(g->mu);
      g->members[region].db = &db;
      g->creating = true;  // item writes are refused meanwhile (ClaimItems: ResourceInUse)
      if (with_witness) g->witness = witness->region_name;
    }
    auto publish = [&](bool on) {
      std::lock_guard<std::mutex> sl(strong_mu_);
      if (on) {
        strong_groups_[access_key + "\n" + table] = g;
      } else {
        strong_groups_.erase(access_key + "\n" + table);
      }
      strong_count_ = static_cast<int>(strong_groups_.size());
    };
    // The regions are members (claims in them are refused while `creating`)
    // before their tables exist, and the group is published before the
    // table is checked empty again: no write slips in unclaimed.
    std::vector<DB*> targets;
    Status st;
    for (const ReplicaUpdate& u : req.replica_updates) {
      auto target = namespaces_->DatabaseOf(access_key, u.region_name);
      if (!target.ok()) {
        st = target.status();
        break;
      }
      targets.push_back(*target);
      std::lock_guard<std::mutex> gl(g->mu);
      g->members[u.region_name].db = *target;
    }
    publish(true);
    if (st.ok()) {
      ScanRequest any;
      any.table_name = table;
      any.limit = 1;
      any.consistent_read = true;
      auto first = db.Scan(any);
      st = !first.ok()             ? first.status()
           : first->items.empty() ? Status()
                                  : ReplicaError("Table " + table + " holds items: a table becomes a global table "
                                                 "with MultiRegionConsistency STRONG only while it is empty");
    }
    std::vector<DB*> made;
    for (size_t i = 0; st.ok() && i < targets.size(); ++i) {
      const ReplicaUpdate& u = req.replica_updates[i];
      st = targets[i]->CreateTable(ReplicaTable(d, u)).status();
      if (!st.ok()) break;
      made.push_back(targets[i]);
      st = ApplySettings(*targets[i], d, u.settings);
      if (!st.ok()) break;
      std::lock_guard<std::mutex> gl(g->mu);
      MergeSettings(u.settings, &g->settings[u.region_name]);
    }
    if (st.ok()) st = SetLists(*g);
    if (!st.ok()) {  // undone: the replicas made so far go, the table is regional again
      for (DB* t : made) {
        DeleteTableRequest del;
        del.table_name = table;
        (void)t->DeleteTable(del);
      }
      (void)db.SetGlobalTable(table, GlobalTableMembers());
      groups_.erase(access_key + "\n" + table);
      publish(false);
      return st;
    }
    {
      std::lock_guard<std::mutex> gl(g->mu);
      g->creating = false;
    }
    DR_ASSIGN_OR_RETURN(DescribeTableResponse after, db.DescribeTable({table}));
    UpdateTableResponse out;
    out.table_description = std::move(after.table);
    return out;
  }
  for (const ReplicaUpdate& u : req.replica_updates) {
    if (u.action == Action::kCreate) {
      DR_RETURN_IF_ERROR(CreateReplica(access_key, region, db, d, u, &g));
    } else if (u.action == Action::kDelete) {
      Group::Member leaving;
      {
        std::lock_guard<std::mutex> gl(g->mu);
        leaving = std::move(g->members[u.region_name]);
        g->members.erase(u.region_name);
        g->sent.erase(u.region_name);
        g->settings.erase(u.region_name);
        if (witness) g->witness.reset();
      }
      if (leaving.subscription) leaving.subscription->Cancel();
      global_tables::DropStamps(leaving.db, leaving.table_id);
      DR_RETURN_IF_ERROR(leaving.db->SetGlobalTable(table, GlobalTableMembers()));
      DeleteTableRequest del;
      del.table_name = table;
      Status deleted = leaving.db->DeleteTable(del).status();
      if (!deleted.ok() && deleted.type() != ErrorType::kResourceNotFound) return deleted;
      DR_RETURN_IF_ERROR(SetLists(*g));
    } else {  // Update: the replica's table class and settings
      DR_ASSIGN_OR_RETURN(DB * target, namespaces_->DatabaseOf(access_key, u.region_name));
      if (u.table_class_override) {
        UpdateTableRequest cls;
        cls.table_name = table;
        cls.table_class = u.table_class_override;
        Status s = target->UpdateTable(cls).status();
        if (!s.ok() && s.type() != ErrorType::kValidation) return s;  // the same class: nothing to do
      }
      DR_RETURN_IF_ERROR(ApplySettings(*target, d, u.settings));
      {
        std::lock_guard<std::mutex> gl(g->mu);
        MergeSettings(u.settings, &g->settings[u.region_name]);
      }
      DR_RETURN_IF_ERROR(SetLists(*g));
    }
  }
  // A group left with one member is a table again.
  if (g) {
    std::unique_ptr<Subscription> last;
    bool alone = false;
    {
      std::lock_guard<std::mutex> gl(g->mu);
      alone = g->members.size() <= 1;
      if (alone) {
        if (!g->members.empty()) {
          last = std::move(g->members.begin()->second.subscription);
          global_tables::DropStamps(g->members.begin()->second.db, g->members.begin()->second.table_id);
        }
        g->members.clear();
        g->witness.reset();
      }
    }
    if (last) last->Cancel();
    if (alone) {
      groups_.erase(access_key + "\n" + table);
      std::lock_guard<std::mutex> sl(strong_mu_);
      strong_groups_.erase(access_key + "\n" + table);
      strong_count_ = static_cast<int>(strong_groups_.size());
    }
  }
  DR_ASSIGN_OR_RETURN(DescribeTableResponse after, db.DescribeTable({table}));
  UpdateTableResponse out;
  out.table_description = std::move(after.table);
  return out;
}

// An eventually consistent replica in u.region_name: its table, the items
// as they are now, and its change log read from now on. Undone if any step
// fails.
Status GlobalTables::CreateReplica(const std::string& access_key, const std::string& region, DB& db,
                                   const TableDescription& d, const ReplicaUpdate& u, std::shared_ptr<Group>* group) {
  const std::string& table = d.table_name;
  DR_ASSIGN_OR_RETURN(DB * target, namespaces_->DatabaseOf(access_key, u.region_name));
  // The source streams its changes from now on, and joins the group.
  DR_RETURN_IF_ERROR(EnsureStream(db, d));
  std::shared_ptr<Group>& g = *group;
  const bool new_group = !g;
  if (!g) g = GroupOf(access_key, table, true);
  bool source_joined = false;
  if (new_group) {
    DR_RETURN_IF_ERROR(Subscribe(g, region, &db, /*from_checkpoint=*/false));
    source_joined = true;
  }
  bool made = false;
  auto undo = [&](Status why) {
    std::unique_ptr<Subscription> gone, source;
    {
      std::lock_guard<std::mutex> gl(g->mu);
      if (auto m = g->members.find(u.region_name); m != g->members.end()) {
        gone = std::move(m->second.subscription);
        global_tables::DropStamps(m->second.db, m->second.table_id);
        g->members.erase(m);
      }
      g->sent.erase(u.region_name);
      g->settings.erase(u.region_name);
      if (source_joined) {
        if (auto m = g->members.find(region); m != g->members.end()) {
          source = std::move(m->second.subscription);
          g->members.erase(m);
        }
      }
    }
    if (gone) gone->Cancel();
    if (source) source->Cancel();
    if (made) {
      DeleteTableRequest del;
      del.table_name = table;
      (void)target->DeleteTable(del);
    }
    if (new_group) {
      groups_.erase(access_key + "\n" + table);
      (void)db.SetGlobalTable(table, GlobalTableMembers());  // what the lists said goes
    } else {
      (void)SetLists(*g);
    }
    return why;
  };
  Status st = target->CreateTable(ReplicaTable(d, u)).status();
  if (!st.ok()) return undo(st);
  made = true;
  st = ApplySettings(*target, d, u.settings);
  if (st.ok()) {
    std::lock_guard<std::mutex> gl(g->mu);
    MergeSettings(u.settings, &g->settings[u.region_name]);
  }
  if (st.ok()) st = Subscribe(g, u.region_name, target, /*from_checkpoint=*/false);
  if (!st.ok()) return undo(st);
  // The items as they are now, each known to the group as the oldest write
  // (time 0) unless the group knows a write of it: any write made since wins
  // over the copy.
  ScanRequest scan;
  scan.table_name = table;
  scan.consistent_read = true;
  for (;;) {
    auto page = db.Scan(scan);
    if (!page.ok()) return undo(page.status());
    for (Item& item : page->items) {
      Item key;
      for (const KeySchemaElement& k : d.key_schema) key[k.attribute_name] = item.at(k.attribute_name);
      const std::string id = DebugString(key);
      {
        std::lock_guard<std::mutex> gl(g->mu);
        auto [entry, fresh] = g->keys.try_emplace(id);
        Group::KeyState& st_key = entry->second;
        if (fresh) LoadKey(*g, id, key, &st_key);
        if (st_key.winner.second.empty()) {
          st_key.winner = {0, region};
          st_key.image = item;
          st_key.current[region] = st_key.winner;
        }
        if (st_key.image != item) continue;  // a newer write: the group sends it
        g->sent[u.region_name].emplace(id, Group::Sent{item, st_key.winner});
        SaveStamp(*g, st_key, u.region_name, id, st_key.winner, st_key.image, /*pending=*/true, "");
      }
      PutItemRequest put;
      put.table_name = table;
      put.item = item;
      put.return_values = ReturnValue::kAllOld;
      auto r = target->PutItem(std::move(put));
      if (!r.ok()) return undo(r.status());
      if (r->attributes == item) {  // there already (replicated meanwhile): no record will show it
        std::lock_guard<std::mutex> gl(g->mu);
        auto& sent = g->sent[u.region_name];
        auto [b, e] = sent.equal_range(id);
        for (auto it = b; it != e; ++it) {
          if (it->second.image == item) {
            sent.erase(it);
            break;
          }
        }
        KeyState& st_key = g->keys[id];
        st_key.current[u.region_name] = st_key.winner;
        SaveStamp(*g, st_key, u.region_name, id, st_key.winner, item, /*pending=*/false, "");
      }
    }
    if (!page->last_evaluated_key) break;
    scan.exclusive_start_key = std::move(page->last_evaluated_key);
  }
  st = SetLists(*g);
  if (!st.ok()) return undo(st);
  return Status();
}

void GlobalTables::Deleted(const std::string& name, DB& db, const std::string& table) {
  std::string access_key, region;
  if (!SplitName(name, &access_key, &region)) return;
  std::lock_guard<std::mutex> lock(mu_);
  std::shared_ptr<Group> g = GroupOf(access_key, table, false);
  if (!g) return;
  Group::Member leaving;
  std::unique_ptr<Subscription> last;
  bool alone = false;
  {
    std::lock_guard<std::mutex> gl(g->mu);
    auto m = g->members.find(region);
    if (m == g->members.end() || m->second.db != &db) return;
    leaving = std::move(m->second);
    g->members.erase(m);
    g->sent.erase(region);
    g->settings.erase(region);
    alone = g->members.size() <= 1;
    if (alone && !g->members.empty()) last = std::move(g->members.begin()->second.subscription);
  }
  global_tables::DropStamps(leaving.db, leaving.table_id);
  if (leaving.subscription) leaving.subscription->Cancel();
  if (last) last->Cancel();
  if (alone) {
    std::lock_guard<std::mutex> gl(g->mu);
    g->witness.reset();
  }
  Status s = SetLists(*g);
  if (!s.ok()) Log(table + ": " + s.ToString());
  if (alone) {
    std::lock_guard<std::mutex> gl(g->mu);
    // Its change log is no longer read (cancelled above): its stamps go.
    for (auto& [r, m] : g->members) global_tables::DropStamps(m.db, m.table_id);
    g->members.clear();
    groups_.erase(access_key + "\n" + table);
    std::lock_guard<std::mutex> sl(strong_mu_);
    strong_groups_.erase(access_key + "\n" + table);
    strong_count_ = static_cast<int>(strong_groups_.size());
  }
}

}  // namespace dynarock::server
