// File: engine/api/json_decode_tables.cc
//
// The table requests' bodies (CreateTable, UpdateTable and its global-table
// members, DescribeTable, DeleteTable, ListTables, time to live, continuous
// backups, tags) and the table members the response decoders and the backup
// requests share (json_decoder.h). Items' requests are json_decode.cc.

#include "engine/api/json_decode.h"

#include "engine/api/json_decoder.h"

#include <simdjson.h>

#include <utility>

namespace dynarock::api {

using namespace json_internal;  // NOLINT: the decoder machinery
namespace dom = simdjson::dom;

// Shared with the response decoders (json_decoder.h).
void json_internal::KeySchemaMember(Decoder& d, const dom::object& o, bool required,
                     std::vector<KeySchemaElement>* out) {
  d.NonEmpty(o, "KeySchema");
  d.EachObject(o, "KeySchema", required, [&](const dom::object& e) {
    KeySchemaElement k;
    d.ReqStr(e, "AttributeName", &k.attribute_name);
    std::string t;
    if (d.Enum(e, "KeyType", kKeyType, &t, /*required=*/true)) {
      k.key_type = t == "RANGE" ? KeyType::kRange : KeyType::kHash;
    }
    out->push_back(std::move(k));
  });
}

namespace {

}  // namespace

// Shared with the response decoders (json_decoder.h).
void json_internal::AttributeDefinitionsMember(Decoder& d, const dom::object& o, bool required,
                                std::vector<AttributeDefinition>* out) {
  d.EachObject(o, "AttributeDefinitions", required, [&](const dom::object& e) {
    AttributeDefinition a;
    d.ReqStr(e, "AttributeName", &a.attribute_name);
    std::string t;
    if (d.Enum(e, "AttributeType", kScalarAttributeType, &t, /*required=*/true)) {
      a.attribute_type = t == "N" ? AttrType::kN : t == "B" ? AttrType::kB : AttrType::kS;
    }
    out->push_back(std::move(a));
  });
}


void json_internal::ProjectionMember(Decoder& d, const dom::object& o, Projection* out) {
  dom::object p;
  if (!d.ReqObj(o, "Projection", &p)) return;
  Decoder::Scope scope(&d, "projection");
  std::string t;
  if (d.Enum(p, "ProjectionType", kProjectionType, &t)) {
    out->projection_type = t == "KEYS_ONLY" ? ProjectionType::kKeysOnly
                           : t == "INCLUDE" ? ProjectionType::kInclude
                                            : ProjectionType::kAll;
  }
  d.StrList(p, "NonKeyAttributes", &out->non_key_attributes, /*non_empty=*/true);
}

static bool ProvisionedThroughputMember(Decoder& d, const dom::object& o, bool required,
                                 ProvisionedThroughput* out) {
  dom::object p;
  if (!(required ? d.ReqObj(o, "ProvisionedThroughput", &p)
                 : d.Obj(o, "ProvisionedThroughput", &p))) {
    return false;
  }
  Decoder::Scope scope(&d, "provisionedThroughput");
  constexpr int64_t kMax = INT64_MAX;
  if (!d.Int(p, "ReadCapacityUnits", "Long", 1, kMax, &out->read_capacity_units) && !d.failed()) {
    d.Missing("ReadCapacityUnits");
  }
  if (!d.Int(p, "WriteCapacityUnits", "Long", 1, kMax, &out->write_capacity_units) && !d.failed()) {
    d.Missing("WriteCapacityUnits");
  }
  return true;
}

void json_internal::OptionalThroughput(Decoder& d, const dom::object& o,
                        std::optional<ProvisionedThroughput>* out) {
  ProvisionedThroughput t;
  if (ProvisionedThroughputMember(d, o, false, &t)) *out = t;
}

bool json_internal::OnDemandThroughputMember(Decoder& d, const dom::object& o,
                                             std::string_view key,
                                             std::optional<OnDemandThroughput>* out) {
  dom::object p;
  if (!d.Obj(o, key, &p)) return false;
  Decoder::Scope scope(&d, MemberName(key));
  OnDemandThroughput t;
  d.Int(p, "MaxReadRequestUnits", "Long", INT64_MIN, INT64_MAX, &t.max_read_request_units);
  d.Int(p, "MaxWriteRequestUnits", "Long", INT64_MIN, INT64_MAX, &t.max_write_request_units);
  *out = t;
  return true;
}

static void WarmThroughputMember(Decoder& d, const dom::object& o, std::optional<WarmThroughput>* out) {
  dom::object p;
  if (!d.Obj(o, "WarmThroughput", &p)) return;
  Decoder::Scope scope(&d, "warmThroughput");
  WarmThroughput t;
  d.Int(p, "ReadUnitsPerSecond", "Long", 1, INT64_MAX, &t.read_units_per_second);
  d.Int(p, "WriteUnitsPerSecond", "Long", 1, INT64_MAX, &t.write_units_per_second);
  *out = t;
}

static void SseSpecificationMember(Decoder& d, const dom::object& o,
                                   std::optional<SseSpecification>* out) {
  static constexpr std::string_view kSseTypes[] = {"AES256", "KMS"};
  dom::object p;
  if (!d.Obj(o, "SSESpecification", &p)) return;
  Decoder::Scope scope(&d, "sSESpecification");
  SseSpecification spec;
  d.Bool(p, "Enabled", &spec.enabled);
  d.Enum(p, "SSEType", kSseTypes, &spec.sse_type);
  d.Str(p, "KMSMasterKeyId", &spec.kms_master_key_id);
  *out = std::move(spec);
}

static void StreamSpecificationMember(Decoder& d, const dom::object& o,
                               std::optional<StreamSpecification>* out) {
  dom::object s;
  if (!d.Obj(o, "StreamSpecification", &s)) return;
  Decoder::Scope scope(&d, "streamSpecification");
  StreamSpecification spec;
  if (!d.Bool(s, "StreamEnabled", &spec.stream_enabled) && !d.failed()) d.Missing("StreamEnabled");
  d.Enum(s, "StreamViewType", kStreamViewType, &spec.stream_view_type);
  *out = std::move(spec);
}

void json_internal::GlobalSecondaryIndexBody(Decoder& d, const dom::object& e, GlobalSecondaryIndex* g) {
  d.Name(e, "IndexName", &g->index_name, /*required=*/true);
  KeySchemaMember(d, e, true, &g->key_schema);
  ProjectionMember(d, e, &g->projection);
  OptionalThroughput(d, e, &g->provisioned_throughput);
  OnDemandThroughputMember(d, e, "OnDemandThroughput", &g->on_demand_throughput);
  WarmThroughputMember(d, e, &g->warm_throughput);
}

namespace {

void TagsMember(Decoder& d, const dom::object& o, bool required, std::vector<Tag>* out) {
  d.EachObject(o, "Tags", required, [&](const dom::object& e) {
    Tag t;
    d.ReqStr(e, "Key", &t.key);
    d.ReqStr(e, "Value", &t.value);
    out->push_back(std::move(t));
  });
}

// A replica's (or a replica GSI's) ProvisionedThroughputOverride and
// OnDemandThroughputOverride.
void ReplicaOverrides(Decoder& d, const dom::object& o, std::optional<int64_t>* rcu, std::optional<int64_t>* mrru) {
  dom::object p;
  if (d.Obj(o, "ProvisionedThroughputOverride", &p)) {
    Decoder::Scope scope(&d, "provisionedThroughputOverride");
    d.Int(p, "ReadCapacityUnits", "Long", 1, INT64_MAX, rcu);
  }
  if (d.Obj(o, "OnDemandThroughputOverride", &p)) {
    Decoder::Scope scope(&d, "onDemandThroughputOverride");
    d.Int(p, "MaxReadRequestUnits", "Long", INT64_MIN, INT64_MAX, mrru);
  }
}

void ReplicaSettingsMembers(Decoder& d, const dom::object& o, ReplicaSettings* out) {
  d.Str(o, "KMSMasterKeyId", &out->kms_master_key_id);
  ReplicaOverrides(d, o, &out->read_capacity_units, &out->max_read_request_units);
}

void CreateTableBody(Decoder& d, const dom::object& o, CreateTableRequest* r) {
  AttributeDefinitionsMember(d, o, true, &r->attribute_definitions);
  d.TableName(o, &r->table_name);
  KeySchemaMember(d, o, true, &r->key_schema);
  r->has_local_secondary_indexes =
      d.EachObject(o, "LocalSecondaryIndexes", false, [&](const dom::object& e) {
        // DynamoDB's order for an index's members (it lists at most ten violations).
        LocalSecondaryIndex l;
        KeySchemaMember(d, e, true, &l.key_schema);
        ProjectionMember(d, e, &l.projection);
        d.Name(e, "IndexName", &l.index_name, /*required=*/true);
        r->local_secondary_indexes.push_back(std::move(l));
      });
  r->has_global_secondary_indexes =
      d.EachObject(o, "GlobalSecondaryIndexes", false, [&](const dom::object& e) {
        GlobalSecondaryIndex g;
        GlobalSecondaryIndexBody(d, e, &g);
        r->global_secondary_indexes.push_back(std::move(g));
      });
  d.Enum(o, "BillingMode", kBillingMode, &r->billing_mode);
  OptionalThroughput(d, o, &r->provisioned_throughput);
  OnDemandThroughputMember(d, o, "OnDemandThroughput", &r->on_demand_throughput);
  StreamSpecificationMember(d, o, &r->stream_specification);
  TagsMember(d, o, false, &r->tags);
  d.Enum(o, "TableClass", kTableClass, &r->table_class);
  d.Bool(o, "DeletionProtectionEnabled", &r->deletion_protection_enabled);
  SseSpecificationMember(d, o, &r->sse_specification);
  WarmThroughputMember(d, o, &r->warm_throughput);
  d.Str(o, "ResourcePolicy", &r->resource_policy);
}

void UpdateTableBody(Decoder& d, const dom::object& o, UpdateTableRequest* r) {
  AttributeDefinitionsMember(d, o, false, &r->attribute_definitions);
  d.TableName(o, &r->table_name);
  d.Enum(o, "BillingMode", kBillingMode, &r->billing_mode);
  OptionalThroughput(d, o, &r->provisioned_throughput);
  OnDemandThroughputMember(d, o, "OnDemandThroughput", &r->on_demand_throughput);
  d.EachObject(o, "GlobalSecondaryIndexUpdates", false, [&](const dom::object& e) {
    GlobalSecondaryIndexUpdate u;
    dom::object c;
    if (d.Obj(e, "Create", &c)) {
      Decoder::Scope scope(&d, "create");
      GlobalSecondaryIndex g;
      GlobalSecondaryIndexBody(d, c, &g);
      u.create = std::move(g);
    }
    if (d.Obj(e, "Update", &c)) {
      Decoder::Scope scope(&d, "update");
      UpdateGlobalSecondaryIndexAction a;
      d.Name(c, "IndexName", &a.index_name, /*required=*/true);
      OptionalThroughput(d, c, &a.provisioned_throughput);
      OnDemandThroughputMember(d, c, "OnDemandThroughput", &a.on_demand_throughput);
      WarmThroughputMember(d, c, &a.warm_throughput);
      // All are optional now; with none, DynamoDB names the member it
      // required before OnDemandThroughput existed (captured).
      if (!a.provisioned_throughput && !a.on_demand_throughput && !a.warm_throughput && !d.failed()) {
        d.Missing("ProvisionedThroughput");
      }
      u.update = std::move(a);
    }
    if (d.Obj(e, "Delete", &c)) {
      Decoder::Scope scope(&d, "delete");
      std::string name;
      d.Name(c, "IndexName", &name, /*required=*/true);
      u.delete_index_name = std::move(name);
    }
    r->global_secondary_index_updates.push_back(std::move(u));
  });
  StreamSpecificationMember(d, o, &r->stream_specification);
  d.Bool(o, "DeletionProtectionEnabled", &r->deletion_protection_enabled);
  SseSpecificationMember(d, o, &r->sse_specification);
  WarmThroughputMember(d, o, &r->warm_throughput);
  d.Enum(o, "TableClass", kTableClass, &r->table_class);
  d.EachObject(o, "ReplicaUpdates", false, [&](const dom::object& e) {
    static constexpr std::pair<const char*, ReplicaUpdate::Action> kActions[] = {
        {"Create", ReplicaUpdate::Action::kCreate},
        {"Update", ReplicaUpdate::Action::kUpdate},
        {"Delete", ReplicaUpdate::Action::kDelete}};
    ReplicaUpdate u;
    u.members = 0;
    for (const auto& [member, action] : kActions) {
      dom::object c;
      if (!d.Obj(e, member, &c)) continue;
      if (++u.members > 1) continue;
      Decoder::Scope scope(&d, action == ReplicaUpdate::Action::kCreate   ? "create"
                               : action == ReplicaUpdate::Action::kUpdate ? "update"
                                                                          : "delete");
      u.action = action;
      d.ReqStr(c, "RegionName", &u.region_name);
      if (action != ReplicaUpdate::Action::kDelete) {
        d.Enum(c, "TableClassOverride", kTableClass, &u.table_class_override);
        ReplicaSettingsMembers(d, c, &u.settings);
        d.NonEmpty(c, "GlobalSecondaryIndexes");
        d.EachObject(c, "GlobalSecondaryIndexes", false, [&](const dom::object& g) {
          ReplicaGlobalSecondaryIndex gi;
          d.Name(g, "IndexName", &gi.index_name, /*required=*/true);
          ReplicaOverrides(d, g, &gi.read_capacity_units, &gi.max_read_request_units);
          u.settings.global_secondary_indexes.push_back(std::move(gi));
        });
      }
    }
    r->replica_updates.push_back(std::move(u));
  });
  d.EachObject(o, "GlobalTableWitnessUpdates", false, [&](const dom::object& e) {
    WitnessUpdate u;
    u.members = 0;
    for (const char* member : {"Create", "Delete"}) {
      dom::object c;
      if (!d.Obj(e, member, &c)) continue;
      if (++u.members > 1) continue;
      const bool create = std::string_view(member) == "Create";
      Decoder::Scope scope(&d, create ? "create" : "delete");
      u.action = create ? WitnessUpdate::Action::kCreate : WitnessUpdate::Action::kDelete;
      d.ReqStr(c, "RegionName", &u.region_name);
    }
    r->witness_updates.push_back(std::move(u));
  });
  static constexpr std::string_view kConsistency[] = {"EVENTUAL", "STRONG"};
  d.Enum(o, "MultiRegionConsistency", kConsistency, &r->multi_region_consistency);
}

}  // namespace

StatusOr<CreateTableRequest> DecodeCreateTableRequest(std::string_view body) {
  return DecodeBody<CreateTableRequest>(body, CreateTableBody);
}

StatusOr<DescribeTableRequest> DecodeDescribeTableRequest(std::string_view body) {
  return DecodeBody<DescribeTableRequest>(
      body, [](Decoder& d, const dom::object& o, DescribeTableRequest* r) {
        d.BareTableName(o, &r->table_name);
      });
}

StatusOr<DeleteTableRequest> DecodeDeleteTableRequest(std::string_view body) {
  return DecodeBody<DeleteTableRequest>(
      body, [](Decoder& d, const dom::object& o, DeleteTableRequest* r) {
        d.BareTableName(o, &r->table_name);
      });
}

StatusOr<ListTablesRequest> DecodeListTablesRequest(std::string_view body) {
  return DecodeBody<ListTablesRequest>(
      body, [](Decoder& d, const dom::object& o, ListTablesRequest* r) {
        std::string start;
        if (d.Name(o, "ExclusiveStartTableName", &start, /*required=*/false)) {
          r->exclusive_start_table_name = std::move(start);
        }
        d.Int(o, "Limit", "Integer", 1, 100, &r->limit);
      });
}

StatusOr<UpdateTableRequest> DecodeUpdateTableRequest(std::string_view body) {
  return DecodeBody<UpdateTableRequest>(body, UpdateTableBody);
}
StatusOr<UpdateTimeToLiveRequest> DecodeUpdateTimeToLiveRequest(std::string_view body) {
  return DecodeBody<UpdateTimeToLiveRequest>(
      body, [](Decoder& d, const dom::object& o, UpdateTimeToLiveRequest* r) {
        d.TableName(o, &r->table_name);
        dom::object s;
        if (d.ReqObj(o, "TimeToLiveSpecification", &s)) {
          Decoder::Scope scope(&d, "timeToLiveSpecification");
          auto& spec = r->time_to_live_specification;
          if (!d.Bool(s, "Enabled", &spec.enabled) && !d.failed()) d.Missing("Enabled");
          d.ReqStr(s, "AttributeName", &spec.attribute_name);
        }
      });
}

StatusOr<DescribeTimeToLiveRequest> DecodeDescribeTimeToLiveRequest(std::string_view body) {
  return DecodeBody<DescribeTimeToLiveRequest>(
      body, [](Decoder& d, const dom::object& o, DescribeTimeToLiveRequest* r) {
        d.BareTableName(o, &r->table_name);
      });
}

StatusOr<DescribeContinuousBackupsRequest> DecodeDescribeContinuousBackupsRequest(
    std::string_view body) {
  return DecodeBody<DescribeContinuousBackupsRequest>(
      body, [](Decoder& d, const dom::object& o, DescribeContinuousBackupsRequest* r) {
        d.TableName(o, &r->table_name);
      });
}

StatusOr<UpdateContinuousBackupsRequest> DecodeUpdateContinuousBackupsRequest(
    std::string_view body) {
  return DecodeBody<UpdateContinuousBackupsRequest>(
      body, [](Decoder& d, const dom::object& o, UpdateContinuousBackupsRequest* r) {
        d.TableName(o, &r->table_name);
        dom::object s;
        if (d.ReqObj(o, "PointInTimeRecoverySpecification", &s)) {
          Decoder::Scope scope(&d, "pointInTimeRecoverySpecification");
          if (!d.Bool(s, "PointInTimeRecoveryEnabled", &r->point_in_time_recovery_enabled) &&
              !d.failed()) {
            d.Missing("PointInTimeRecoveryEnabled");
          }
          d.Int(s, "RecoveryPeriodInDays", "Integer", 1, 35, &r->recovery_period_in_days);
        }
      });
}

StatusOr<TagResourceRequest> DecodeTagResourceRequest(std::string_view body) {
  return DecodeBody<TagResourceRequest>(
      body, [](Decoder& d, const dom::object& o, TagResourceRequest* r) {
        d.ReqStr(o, "ResourceArn", &r->resource_arn);
        TagsMember(d, o, true, &r->tags);
      });
}

StatusOr<UntagResourceRequest> DecodeUntagResourceRequest(std::string_view body) {
  return DecodeBody<UntagResourceRequest>(
      body, [](Decoder& d, const dom::object& o, UntagResourceRequest* r) {
        d.ReqStr(o, "ResourceArn", &r->resource_arn);
        if (!d.StrList(o, "TagKeys", &r->tag_keys) && !d.failed()) d.Missing("TagKeys");
      });
}

StatusOr<ListTagsOfResourceRequest> DecodeListTagsOfResourceRequest(std::string_view body) {
  return DecodeBody<ListTagsOfResourceRequest>(
      body, [](Decoder& d, const dom::object& o, ListTagsOfResourceRequest* r) {
        d.ReqStr(o, "ResourceArn", &r->resource_arn);
        d.Str(o, "NextToken", &r->next_token);
      });
}

}  // namespace dynarock::api
