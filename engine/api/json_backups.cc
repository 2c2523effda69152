// File: engine/api/json_backups.cc

#include "engine/api/json_backups.h"

#include "engine/api/json_decoder.h"
#include "engine/api/json_encode.h"
#include "engine/api/json_writer.h"

namespace dynarock::api {
namespace {

using namespace json_internal;  // NOLINT: the decoder machinery
namespace dom = simdjson::dom;

constexpr std::string_view kBackupType[] = {"USER", "SYSTEM", "AWS_BACKUP", "ALL"};
constexpr std::string_view kSseType[] = {"AES256", "KMS"};

void BackupArnMember(Decoder& d, const dom::object& o, std::string* out) {
  if (!d.ReqStr(o, "BackupArn", out)) return;
  if (out->size() < 37 || out->size() > 1024) {
    d.Violation("Value '" + *out + "' at '" + d.PathTo("BackupArn") +
                "' failed to satisfy constraint: Member must have length " +
                (out->size() < 37 ? "greater than or equal to 37" : "less than or equal to 1024"));
  }
}

void OverridesMembers(Decoder& d, const dom::object& o, RestoreOverrides* r) {
  d.Enum(o, "BillingModeOverride", kBillingMode, &r->billing_mode);
  dom::object p;
  if (d.Obj(o, "ProvisionedThroughputOverride", &p)) {
    Decoder::Scope scope(&d, "provisionedThroughputOverride");
    ProvisionedThroughput t;
    if (!d.Int(p, "ReadCapacityUnits", "Long", 1, INT64_MAX, &t.read_capacity_units) && !d.failed())
      d.Missing("ReadCapacityUnits");
    if (!d.Int(p, "WriteCapacityUnits", "Long", 1, INT64_MAX, &t.write_capacity_units) && !d.failed())
      d.Missing("WriteCapacityUnits");
    r->provisioned_throughput = t;
  }
  OnDemandThroughputMember(d, o, "OnDemandThroughputOverride", &r->on_demand_throughput);
  r->has_global_secondary_indexes =
      d.EachObject(o, "GlobalSecondaryIndexOverride", false, [&](const dom::object& e) {
        GlobalSecondaryIndex g;
        GlobalSecondaryIndexBody(d, e, &g);
        r->global_secondary_indexes.push_back(std::move(g));
      });
  r->has_local_secondary_indexes =
      d.EachObject(o, "LocalSecondaryIndexOverride", false, [&](const dom::object& e) {
        LocalSecondaryIndex l;
        KeySchemaMember(d, e, true, &l.key_schema);
        ProjectionMember(d, e, &l.projection);
        d.Name(e, "IndexName", &l.index_name, /*required=*/true);
        r->local_secondary_indexes.push_back(std::move(l));
      });
  dom::object sse;
  if (d.Obj(o, "SSESpecificationOverride", &sse)) {
    Decoder::Scope scope(&d, "sSESpecificationOverride");
    d.Bool(sse, "Enabled", &r->sse_enabled);
    d.Enum(sse, "SSEType", kSseType, &r->sse_type);
    d.Str(sse, "KMSMasterKeyId", &r->kms_master_key_id);
  }
}

void WriteDetails(JsonWriter* w, const BackupDetails& b) {
  w->Member("BackupArn", b.backup_arn);
  w->Member("BackupName", b.backup_name);
  w->MemberInt("BackupSizeBytes", b.backup_size_bytes);
  w->Member("BackupStatus", b.backup_status);
  w->Member("BackupType", b.backup_type);
  w->MemberDouble("BackupCreationDateTime", b.backup_creation_date_time);
  if (b.backup_expiry_date_time) w->MemberDouble("BackupExpiryDateTime", *b.backup_expiry_date_time);
}

void WriteDescription(JsonWriter* w, const BackupDescription& d) {
  w->BeginObject();
  w->Key("BackupDetails");
  w->BeginObject();
  WriteDetails(w, d.backup_details);
  w->EndObject();
  const SourceTableDetails& s = d.source_table_details;
  w->Key("SourceTableDetails");
  w->BeginObject();
  w->Member("TableName", s.table_name);
  w->Member("TableId", s.table_id);
  w->Member("TableArn", s.table_arn);
  w->MemberInt("TableSizeBytes", s.table_size_bytes);
  WriteKeySchema(w, s.key_schema);
  w->MemberDouble("TableCreationDateTime", s.table_creation_date_time);
  WriteThroughput(w, s.provisioned_throughput);
  if (s.on_demand_throughput) WriteOnDemandThroughput(w, "OnDemandThroughput", *s.on_demand_throughput);
  w->MemberInt("ItemCount", s.item_count);
  w->Member("BillingMode", s.billing_mode);
  w->EndObject();
  const SourceTableFeatureDetails& f = d.source_table_feature_details;
  w->Key("SourceTableFeatureDetails");
  w->BeginObject();
  if (!f.local_secondary_indexes.empty()) {
    w->Key("LocalSecondaryIndexes");
    w->BeginArray();
    for (const auto& l : f.local_secondary_indexes) {
      w->BeginObject();
      w->Member("IndexName", l.index_name);
      WriteKeySchema(w, l.key_schema);
      WriteProjection(w, l.projection);
      w->EndObject();
    }
    w->EndArray();
  }
  if (!f.global_secondary_indexes.empty()) {
    w->Key("GlobalSecondaryIndexes");
    w->BeginArray();
    for (const auto& g : f.global_secondary_indexes) WriteGlobalSecondaryIndex(w, g);
    w->EndArray();
  }
  if (f.stream_description) {
    w->Key("StreamDescription");
    w->BeginObject();
    w->MemberBool("StreamEnabled", f.stream_description->stream_enabled);
    if (!f.stream_description->stream_view_type.empty())
      w->Member("StreamViewType", f.stream_description->stream_view_type);
    w->EndObject();
  }
  if (f.time_to_live_attribute) {
    w->Key("TimeToLiveDescription");
    w->BeginObject();
    w->Member("TimeToLiveStatus", "ENABLED");
    w->Member("AttributeName", *f.time_to_live_attribute);
    w->EndObject();
  }
  w->EndObject();
  w->EndObject();
}

std::string BackupDescriptionReply(const BackupDescription& d) {
  JsonWriter w;
  w.BeginObject();
  w.Key("BackupDescription");
  WriteDescription(&w, d);
  w.EndObject();
  return w.Release();
}

std::string TableDescriptionReply(const TableDescription& t) {
  JsonWriter w;
  w.BeginObject();
  w.Key("TableDescription");
  WriteTableDescription(&w, t);
  w.EndObject();
  return w.Release();
}

}  // namespace

StatusOr<CreateBackupRequest> DecodeCreateBackupRequest(std::string_view body) {
  return DecodeBody<CreateBackupRequest>(
      body, [](Decoder& d, const dom::object& o, CreateBackupRequest* r) {
        d.TableName(o, &r->table_name);
        d.ReqStr(o, "BackupName", &r->backup_name);
      });
}

StatusOr<DescribeBackupRequest> DecodeDescribeBackupRequest(std::string_view body) {
  return DecodeBody<DescribeBackupRequest>(
      body, [](Decoder& d, const dom::object& o, DescribeBackupRequest* r) {
        BackupArnMember(d, o, &r->backup_arn);
      });
}

StatusOr<DeleteBackupRequest> DecodeDeleteBackupRequest(std::string_view body) {
  return DecodeBody<DeleteBackupRequest>(
      body, [](Decoder& d, const dom::object& o, DeleteBackupRequest* r) {
        BackupArnMember(d, o, &r->backup_arn);
      });
}

StatusOr<ListBackupsRequest> DecodeListBackupsRequest(std::string_view body) {
  return DecodeBody<ListBackupsRequest>(
      body, [](Decoder& d, const dom::object& o, ListBackupsRequest* r) {
        d.OptTableName(o, &r->table_name);
        d.Int(o, "Limit", "Integer", 1, 100, &r->limit);
        d.Double(o, "TimeRangeLowerBound", &r->time_range_lower_bound);
        d.Double(o, "TimeRangeUpperBound", &r->time_range_upper_bound);
        d.Str(o, "ExclusiveStartBackupArn", &r->exclusive_start_backup_arn);
        d.Enum(o, "BackupType", kBackupType, &r->backup_type);
      });
}

StatusOr<RestoreTableFromBackupRequest> DecodeRestoreTableFromBackupRequest(std::string_view body) {
  return DecodeBody<RestoreTableFromBackupRequest>(
      body, [](Decoder& d, const dom::object& o, RestoreTableFromBackupRequest* r) {
        d.Name(o, "TargetTableName", &r->target_table_name, /*required=*/true);
        BackupArnMember(d, o, &r->backup_arn);
        OverridesMembers(d, o, &r->overrides);
      });
}

StatusOr<RestoreTableToPointInTimeRequest> DecodeRestoreTableToPointInTimeRequest(
    std::string_view body) {
  return DecodeBody<RestoreTableToPointInTimeRequest>(
      body, [](Decoder& d, const dom::object& o, RestoreTableToPointInTimeRequest* r) {
        d.Str(o, "SourceTableArn", &r->source_table_arn);
        std::string source;
        if (d.Name(o, "SourceTableName", &source, /*required=*/false)) r->source_table_name = source;
        d.Name(o, "TargetTableName", &r->target_table_name, /*required=*/true);
        d.Bool(o, "UseLatestRestorableTime", &r->use_latest_restorable_time);
        d.Double(o, "RestoreDateTime", &r->restore_date_time);
        OverridesMembers(d, o, &r->overrides);
      });
}

std::string EncodeCreateBackupResponse(const CreateBackupResponse& r) {
  JsonWriter w;
  w.BeginObject();
  w.Key("BackupDetails");
  w.BeginObject();
  WriteDetails(&w, r.backup_details);
  w.EndObject();
  w.EndObject();
  return w.Release();
}

std::string EncodeDescribeBackupResponse(const DescribeBackupResponse& r) {
  return BackupDescriptionReply(r.backup_description);
}

std::string EncodeDeleteBackupResponse(const DeleteBackupResponse& r) {
  return BackupDescriptionReply(r.backup_description);
}

std::string EncodeListBackupsResponse(const ListBackupsResponse& r) {
  JsonWriter w;
  w.BeginObject();
  w.Key("BackupSummaries");
  w.BeginArray();
  for (const BackupSummary& s : r.backup_summaries) {
    w.BeginObject();
    w.Member("TableName", s.table_name);
    w.Member("TableId", s.table_id);
    w.Member("TableArn", s.table_arn);
    WriteDetails(&w, s.details);
    w.EndObject();
  }
  w.EndArray();
  if (r.last_evaluated_backup_arn) w.Member("LastEvaluatedBackupArn", *r.last_evaluated_backup_arn);
  w.EndObject();
  return w.Release();
}

std::string EncodeRestoreTableFromBackupResponse(const RestoreTableFromBackupResponse& r) {
  return TableDescriptionReply(r.table_description);
}

std::string EncodeRestoreTableToPointInTimeResponse(const RestoreTableToPointInTimeResponse& r) {
  return TableDescriptionReply(r.table_description);
}

}  // namespace dynarock::api
