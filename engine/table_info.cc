#include "engine/table_info.h"

#include <string>

namespace dynarock {
namespace {

AttributeValue Num(int64_t v) { return AttributeValue::N(std::to_string(v)); }
AttributeValue NumD(double v) {
  char buf[64];
  snprintf(buf, sizeof buf, "%.3f", v);
  return AttributeValue::S(buf);  // kept as text: only read back by this file
}

int64_t GetInt(const Item& m, const char* name, int64_t dflt = 0) {
  auto it = m.find(name);
  if (it == m.end() || !it->second.is(AttrType::kN)) return dflt;
  return std::stoll(it->second.scalar());
}
double GetDouble(const Item& m, const char* name) {
  auto it = m.find(name);
  if (it == m.end() || !it->second.is(AttrType::kS)) return 0;
  return std::stod(it->second.scalar());
}
std::string GetStr(const Item& m, const char* name) {
  auto it = m.find(name);
  if (it == m.end() || !it->second.is(AttrType::kS)) return "";
  return it->second.scalar();
}
bool Has(const Item& m, const char* name) { return m.count(name) > 0; }

// A replica's settings (GlobalTableMembers), as a map.
Item ReplicaSettingsToItem(const ReplicaSettings& r) {
  Item m;
  if (r.kms_master_key_id) m["kms"] = AttributeValue::S(*r.kms_master_key_id);
  if (r.read_capacity_units) m["rcu"] = Num(*r.read_capacity_units);
  if (r.max_read_request_units) m["mrru"] = Num(*r.max_read_request_units);
  if (!r.global_secondary_indexes.empty()) {
    std::vector<AttributeValue> gsis;
    for (const ReplicaGlobalSecondaryIndex& g : r.global_secondary_indexes) {
      Item gm;
      gm["name"] = AttributeValue::S(g.index_name);
      if (g.read_capacity_units) gm["rcu"] = Num(*g.read_capacity_units);
      if (g.max_read_request_units) gm["mrru"] = Num(*g.max_read_request_units);
      gsis.push_back(AttributeValue::M(std::move(gm)));
    }
    m["gsis"] = AttributeValue::L(std::move(gsis));
  }
  return m;
}
ReplicaSettings ReplicaSettingsFromItem(const Item& m) {
  ReplicaSettings r;
  if (Has(m, "kms")) r.kms_master_key_id = GetStr(m, "kms");
  if (Has(m, "rcu")) r.read_capacity_units = GetInt(m, "rcu");
  if (Has(m, "mrru")) r.max_read_request_units = GetInt(m, "mrru");
  if (auto g = m.find("gsis"); g != m.end() && g->second.is(AttrType::kL)) {
    for (const AttributeValue& v : g->second.list()) {
      if (!v.is(AttrType::kM)) continue;
      ReplicaGlobalSecondaryIndex gi;
      gi.index_name = GetStr(v.map(), "name");
      if (Has(v.map(), "rcu")) gi.read_capacity_units = GetInt(v.map(), "rcu");
      if (Has(v.map(), "mrru")) gi.max_read_request_units = GetInt(v.map(), "mrru");
      r.global_secondary_indexes.push_back(std::move(gi));
    }
  }
  return r;
}

AttributeValue ProjectionToValue(const Projection& p) {
  Item m;
  m["t"] = Num(static_cast<int>(p.projection_type.value_or(ProjectionType::kAll)));
  if (!p.non_key_attributes.empty()) {
    std::vector<AttributeValue> names;
    for (const auto& n : p.non_key_attributes) names.push_back(AttributeValue::S(n));
    m["a"] = AttributeValue::L(std::move(names));
  }
  return AttributeValue::M(std::move(m));
}
Projection ProjectionFromValue(const AttributeValue* v) {
  Projection p;
  p.projection_type = ProjectionType::kAll;
  if (!v || !v->is(AttrType::kM)) return p;
  p.projection_type = static_cast<ProjectionType>(GetInt(v->map(), "t", 1));
  auto it = v->map().find("a");
  if (it != v->map().end() && it->second.is(AttrType::kL))
    for (const auto& n : it->second.list()) p.non_key_attributes.push_back(n.scalar());
  return p;
}

AttributeValue ThroughputToValue(const ProvisionedThroughput& t) {
  Item m;
  m["r"] = Num(t.read_capacity_units);
  m["w"] = Num(t.write_capacity_units);
  return AttributeValue::M(std::move(m));
}
ProvisionedThroughput ThroughputFromValue(const AttributeValue& v) {
  ProvisionedThroughput t;
  if (!v.is(AttrType::kM)) return t;
  t.read_capacity_units = GetInt(v.map(), "r");
  t.write_capacity_units = GetInt(v.map(), "w");
  return t;
}

// An OnDemandThroughput as {r: max reads, w: max writes}, each only when set;
// a catalog written before maximums existed has no such member.
AttributeValue OnDemandToValue(const OnDemandThroughput& t) {
  Item m;
  if (t.max_read_request_units) m["r"] = Num(*t.max_read_request_units);
  if (t.max_write_request_units) m["w"] = Num(*t.max_write_request_units);
  return AttributeValue::M(std::move(m));
}
std::optional<OnDemandThroughput> OnDemandFromValue(const Item& m, const char* name) {
  auto it = m.find(name);
  if (it == m.end() || !it->second.is(AttrType::kM)) return std::nullopt;
  OnDemandThroughput t;
  if (Has(it->second.map(), "r")) t.max_read_request_units = GetInt(it->second.map(), "r");
  if (Has(it->second.map(), "w")) t.max_write_request_units = GetInt(it->second.map(), "w");
  if (!t.max_read_request_units && !t.max_write_request_units) return std::nullopt;
  return t;
}

// Derives the KeyDef from a key schema and the attribute definitions.
KeyDef MakeKeyDef(const std::vector<KeySchemaElement>& ks,
                  const std::vector<AttributeDefinition>& defs) {
  KeyDef key;
  auto type_of = [&](const std::string& name) {
    for (const auto& d : defs)
      if (d.attribute_name == name) return d.attribute_type;
    return AttrType::kS;
  };
  for (const auto& e : ks) {
    auto& part = e.key_type == KeyType::kHash ? key.hash : key.range;
    part.push_back({e.attribute_name, type_of(e.attribute_name)});
  }
  return key;
}

}  // namespace

AttributeValue KeySchemaToValue(const std::vector<KeySchemaElement>& ks) {
  std::vector<AttributeValue> out;
  for (const auto& e : ks) {
    Item m;
    m["n"] = AttributeValue::S(e.attribute_name);
    m["t"] = Num(static_cast<int>(e.key_type));
    out.push_back(AttributeValue::M(std::move(m)));
  }
  return AttributeValue::L(std::move(out));
}
std::vector<KeySchemaElement> KeySchemaFromValue(const AttributeValue* v) {
  std::vector<KeySchemaElement> out;
  if (!v || !v->is(AttrType::kL)) return out;
  for (const auto& e : v->list()) {
    if (!e.is(AttrType::kM)) continue;
    KeySchemaElement k;
    k.attribute_name = GetStr(e.map(), "n");
    k.key_type = static_cast<KeyType>(GetInt(e.map(), "t", 1));
    out.push_back(k);
  }
  return out;
}


Item TableInfoToItem(const TableInfo& info) {
  Item m;
  m["id"] = Num(info.id);
  m["name"] = AttributeValue::S(info.name);
  m["uuid"] = AttributeValue::S(info.uuid);
  m["key_schema"] = KeySchemaToValue(info.key_schema);
  std::vector<AttributeValue> defs;
  for (const auto& d : info.attribute_definitions) {
    Item dm;
    dm["n"] = AttributeValue::S(d.attribute_name);
    dm["t"] = AttributeValue::S(std::string(AttrTypeName(d.attribute_type)));
    defs.push_back(AttributeValue::M(std::move(dm)));
  }
  m["defs"] = AttributeValue::L(std::move(defs));
  m["created"] = NumD(info.creation_time);
  m["billing"] = AttributeValue::S(info.billing_mode);
  m["throughput"] = ThroughputToValue(info.throughput);
  if (info.on_demand_throughput) m["odt"] = OnDemandToValue(*info.on_demand_throughput);
  if (info.pay_per_request_since) m["ppr_since"] = NumD(*info.pay_per_request_since);
  std::vector<AttributeValue> indexes;
  for (const auto& ix : info.indexes) {
    Item im;
    im["id"] = Num(ix.id);
    im["name"] = AttributeValue::S(ix.name);
    im["global"] = AttributeValue::Bool(ix.global);
    im["key_schema"] = KeySchemaToValue(ix.key_schema);
    im["projection"] = ProjectionToValue(ix.projection);
    im["status"] = AttributeValue::S(ix.status);
    if (ix.throughput) im["throughput"] = ThroughputToValue(*ix.throughput);
    if (ix.on_demand_throughput) im["odt"] = OnDemandToValue(*ix.on_demand_throughput);
    if (ix.warm_read) im["warm_read"] = AttributeValue::N(std::to_string(*ix.warm_read));
    if (ix.warm_write) im["warm_write"] = AttributeValue::N(std::to_string(*ix.warm_write));
    indexes.push_back(AttributeValue::M(std::move(im)));
  }
  m["indexes"] = AttributeValue::L(std::move(indexes));
  if (info.stream_specification) {
    Item sm;
    sm["enabled"] = AttributeValue::Bool(info.stream_specification->stream_enabled);
    sm["view"] = AttributeValue::S(info.stream_specification->stream_view_type);
    m["stream"] = AttributeValue::M(std::move(sm));
  }
  if (info.table_class) m["class"] = AttributeValue::S(*info.table_class);
  m["deletion_protection"] = AttributeValue::Bool(info.deletion_protection);
  std::vector<AttributeValue> tags;
  for (const auto& t : info.tags) {
    Item tm;
    tm["k"] = AttributeValue::S(t.key);
    tm["v"] = AttributeValue::S(t.value);
    tags.push_back(AttributeValue::M(std::move(tm)));
  }
  m["tags"] = AttributeValue::L(std::move(tags));
  if (info.ttl_attribute) m["ttl"] = AttributeValue::S(*info.ttl_attribute);
  if (info.stream_label) m["stream_label"] = AttributeValue::S(*info.stream_label);
  if (info.stream_id) m["stream_id"] = Num(info.stream_id);
  if (info.kinesis_log_id) m["kinesis_log_id"] = Num(info.kinesis_log_id);
  if (!info.kinesis.empty()) {
    std::vector<AttributeValue> destinations;
    for (const TableInfo::KinesisDestination& d : info.kinesis) {
      Item dm;
      dm["arn"] = AttributeValue::S(d.stream_arn);
      dm["status"] = AttributeValue::S(d.status);
      if (d.precision) dm["precision"] = AttributeValue::S(*d.precision);
      destinations.push_back(AttributeValue::M(std::move(dm)));
    }
    m["kinesis"] = AttributeValue::L(std::move(destinations));
  }
  if (!info.global.replicas.empty()) {
    // "replicas": the regions (as the first version wrote them); "replica_settings":
    // each replica's settings, by region.
    std::vector<std::string> regions;
    Item settings;
    for (const ReplicaDescription& r : info.global.replicas) {
      regions.push_back(r.region_name);
      Item rm = ReplicaSettingsToItem(r.settings);
      if (r.table_class) rm["class"] = AttributeValue::S(*r.table_class);
      if (r.table_class_last_update) rm["class_time"] = NumD(*r.table_class_last_update);
      settings[r.region_name] = AttributeValue::M(std::move(rm));
    }
    m["replicas"] = AttributeValue::SS(std::move(regions));
    m["replica_settings"] = AttributeValue::M(std::move(settings));
    if (info.global.strong) m["mrsc"] = AttributeValue::Bool(true);
    std::vector<std::string> witnesses;
    for (const GlobalTableWitness& w : info.global.witnesses) witnesses.push_back(w.region_name);
    if (!witnesses.empty()) m["witnesses"] = AttributeValue::SS(std::move(witnesses));
  }
  if (info.pitr_since) {
    m["pitr_since"] = NumD(*info.pitr_since);
    m["pitr_days"] = Num(static_cast<uint32_t>(info.pitr_days));
  }
  if (info.pitr_history_id) m["pitr_history"] = Num(info.pitr_history_id);
  if (!info.loading.empty()) m["loading"] = AttributeValue::S(info.loading);
  if (info.restore_backup_arn) m["restore_backup"] = AttributeValue::S(*info.restore_backup_arn);
  if (info.restore_source_arn) m["restore_source"] = AttributeValue::S(*info.restore_source_arn);
  if (info.restore_time) m["restore_time"] = NumD(*info.restore_time);
  if (info.sse_type) m["sse_type"] = AttributeValue::S(*info.sse_type);
  if (info.kms_key_arn) m["kms_key"] = AttributeValue::S(*info.kms_key_arn);
  if (info.warm_read) m["warm_read"] = AttributeValue::N(std::to_string(*info.warm_read));
  if (info.warm_write) m["warm_write"] = AttributeValue::N(std::to_string(*info.warm_write));
  if (info.table_class_updated) m["class_updated"] = NumD(*info.table_class_updated);
  if (!info.insights.empty()) {
    std::vector<AttributeValue> insights;
    for (const auto& [index, in] : info.insights) {
      Item im;
      im["index"] = AttributeValue::S(index);
      im["enabled"] = AttributeValue::Bool(in.enabled);
      im["mode"] = AttributeValue::S(in.mode);
      im["updated"] = NumD(in.updated);
      im["rules_ms"] = AttributeValue::N(std::to_string(in.rules_ms));
      insights.push_back(AttributeValue::M(std::move(im)));
    }
    m["insights"] = AttributeValue::L(std::move(insights));
  }
  const std::pair<const char*, const std::optional<std::string>*> strings[] = {
      {"policy", &info.policy},
      {"policy_rev", &info.policy_revision},
      {"stream_policy", &info.stream_policy},
      {"stream_policy_rev", &info.stream_policy_revision},
      {"stream_policy_label", &info.stream_policy_label}};
  for (const auto& [name, value] : strings) {
    if (*value) m[name] = AttributeValue::S(**value);
  }
  return m;
}

bool TableInfoFromItem(const Item& m, TableInfo* info) {
  if (!Has(m, "id") || !Has(m, "name")) return false;
  info->id = static_cast<uint32_t>(GetInt(m, "id"));
  info->name = GetStr(m, "name");
  info->uuid = GetStr(m, "uuid");
  auto ks = m.find("key_schema");
  info->key_schema = KeySchemaFromValue(ks == m.end() ? nullptr : &ks->second);
  auto defs = m.find("defs");
  if (defs != m.end() && defs->second.is(AttrType::kL)) {
    for (const auto& d : defs->second.list()) {
      AttributeDefinition ad;
      ad.attribute_name = GetStr(d.map(), "n");
      ParseAttrTypeName(GetStr(d.map(), "t"), &ad.attribute_type);
      info->attribute_definitions.push_back(ad);
    }
  }
  info->key = MakeKeyDef(info->key_schema, info->attribute_definitions);
  info->creation_time = GetDouble(m, "created");
  info->billing_mode = GetStr(m, "billing");
  if (auto t = m.find("throughput"); t != m.end()) info->throughput = ThroughputFromValue(t->second);
  info->on_demand_throughput = OnDemandFromValue(m, "odt");
  if (Has(m, "ppr_since")) info->pay_per_request_since = GetDouble(m, "ppr_since");
  if (auto ixs = m.find("indexes"); ixs != m.end() && ixs->second.is(AttrType::kL)) {
    for (const auto& v : ixs->second.list()) {
      const Item& im = v.map();
      IndexInfo ix;
      ix.id = static_cast<uint32_t>(GetInt(im, "id"));
      ix.name = GetStr(im, "name");
      auto g = im.find("global");
      ix.global = g == im.end() || g->second.boolean();
      auto iks = im.find("key_schema");
      ix.key_schema = KeySchemaFromValue(iks == im.end() ? nullptr : &iks->second);
      ix.key = MakeKeyDef(ix.key_schema, info->attribute_definitions);
      auto p = im.find("projection");
      ix.projection = ProjectionFromValue(p == im.end() ? nullptr : &p->second);
      ix.status = GetStr(im, "status");
      if (auto t = im.find("throughput"); t != im.end()) ix.throughput = ThroughputFromValue(t->second);
      ix.on_demand_throughput = OnDemandFromValue(im, "odt");
      if (Has(im, "warm_read")) ix.warm_read = GetInt(im, "warm_read");
      if (Has(im, "warm_write")) ix.warm_write = GetInt(im, "warm_write");
      info->indexes.push_back(std::move(ix));
    }
  }
  if (auto s = m.find("stream"); s != m.end() && s->second.is(AttrType::kM)) {
    StreamSpecification spec;
    spec.stream_enabled = s->second.map().at("enabled").boolean();
    spec.stream_view_type = GetStr(s->second.map(), "view");
    info->stream_specification = spec;
  }
  if (Has(m, "class")) info->table_class = GetStr(m, "class");
  if (auto d = m.find("deletion_protection"); d != m.end() && d->second.is(AttrType::kBool))
    info->deletion_protection = d->second.boolean();
  if (auto t = m.find("tags"); t != m.end() && t->second.is(AttrType::kL))
    for (const auto& v : t->second.list())
      info->tags.push_back(Tag{GetStr(v.map(), "k"), GetStr(v.map(), "v")});
  if (Has(m, "ttl")) info->ttl_attribute = GetStr(m, "ttl");
  if (Has(m, "stream_label")) info->stream_label = GetStr(m, "stream_label");
  if (Has(m, "stream_id")) info->stream_id = static_cast<uint32_t>(GetInt(m, "stream_id"));
  if (Has(m, "kinesis_log_id")) info->kinesis_log_id = static_cast<uint32_t>(GetInt(m, "kinesis_log_id"));
  if (auto r = m.find("replicas"); r != m.end() && r->second.is(AttrType::kSS)) {
    const Item* settings = nullptr;
    if (auto st = m.find("replica_settings"); st != m.end() && st->second.is(AttrType::kM)) settings = &st->second.map();
    for (const std::string& region : r->second.set()) {
      ReplicaDescription rd;
      rd.region_name = region;
      if (settings != nullptr) {
        if (auto e = settings->find(region); e != settings->end() && e->second.is(AttrType::kM)) {
          const Item& rm = e->second.map();
          rd.settings = ReplicaSettingsFromItem(rm);
          if (Has(rm, "class")) rd.table_class = GetStr(rm, "class");
          if (Has(rm, "class_time")) rd.table_class_last_update = GetDouble(rm, "class_time");
        }
      }
      info->global.replicas.push_back(std::move(rd));
    }
  }
  if (auto c = m.find("mrsc"); c != m.end() && c->second.is(AttrType::kBool)) {
    info->global.strong = c->second.boolean();
  }
  if (auto w = m.find("witnesses"); w != m.end() && w->second.is(AttrType::kSS)) {
    for (const std::string& region : w->second.set()) info->global.witnesses.push_back(GlobalTableWitness{region});
  }
  if (auto l = m.find("kinesis"); l != m.end() && l->second.is(AttrType::kL)) {
    for (const auto& v : l->second.list()) {
      if (!v.is(AttrType::kM)) continue;
      TableInfo::KinesisDestination d;
      d.stream_arn = GetStr(v.map(), "arn");
      d.status = GetStr(v.map(), "status");
      if (Has(v.map(), "precision")) d.precision = GetStr(v.map(), "precision");
      info->kinesis.push_back(std::move(d));
    }
  }
  if (Has(m, "pitr_since")) {
    info->pitr_since = GetDouble(m, "pitr_since");
    info->pitr_days = GetInt(m, "pitr_days");
  }
  if (Has(m, "pitr_history")) info->pitr_history_id = static_cast<uint32_t>(GetInt(m, "pitr_history"));
  if (Has(m, "loading")) info->loading = GetStr(m, "loading");
  if (Has(m, "restore_backup")) info->restore_backup_arn = GetStr(m, "restore_backup");
  if (Has(m, "restore_source")) info->restore_source_arn = GetStr(m, "restore_source");
  if (Has(m, "restore_time")) info->restore_time = GetDouble(m, "restore_time");
  if (Has(m, "sse_type")) info->sse_type = GetStr(m, "sse_type");
  if (Has(m, "kms_key")) info->kms_key_arn = GetStr(m, "kms_key");
  if (Has(m, "warm_read")) info->warm_read = GetInt(m, "warm_read");
  if (Has(m, "warm_write")) info->warm_write = GetInt(m, "warm_write");
  if (Has(m, "class_updated")) info->table_class_updated = GetDouble(m, "class_updated");
  if (auto l = m.find("insights"); l != m.end() && l->second.is(AttrType::kL)) {
    for (const auto& v : l->second.list()) {
      if (!v.is(AttrType::kM)) continue;
      const Item& im = v.map();
      TableInfo::Insights in;
      auto e = im.find("enabled");
      in.enabled = e != im.end() && e->second.is(AttrType::kBool) && e->second.boolean();
      in.mode = GetStr(im, "mode");
      in.updated = GetDouble(im, "updated");
      in.rules_ms = GetInt(im, "rules_ms");
      info->insights[GetStr(im, "index")] = std::move(in);
    }
  }
  const std::pair<const char*, std::optional<std::string>*> strings[] = {
      {"policy", &info->policy},
      {"policy_rev", &info->policy_revision},
      {"stream_policy", &info->stream_policy},
      {"stream_policy_rev", &info->stream_policy_revision},
      {"stream_policy_label", &info->stream_policy_label}};
  for (const auto& [name, value] : strings) {
    if (Has(m, name)) *value = GetStr(m, name);
  }
  return true;
}

KeyDef KeyDefFor(const std::vector<KeySchemaElement>& ks,
                 const std::vector<AttributeDefinition>& defs) {
  return MakeKeyDef(ks, defs);
}

}  // namespace dynarock
