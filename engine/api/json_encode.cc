// File: engine/api/json_encode.cc
//
// Member order follows DynamoDB's own replies where it is known (clients do not
// depend on it, but it keeps diffs against real captures readable).

#include "engine/api/json_encode.h"

#include "engine/api/base64.h"

namespace dynarock::api {

void WriteNameMap(JsonWriter* w, const NameMap& names) {
  w->BeginObject();
  for (const auto& [k, v] : names) w->Member(k, v);
  w->EndObject();
}


void WriteAttributeDefinitions(JsonWriter* w, const std::vector<AttributeDefinition>& defs) {
  w->Key("AttributeDefinitions");
  w->BeginArray();
  for (const auto& d : defs) {
    w->BeginObject();
    w->Member("AttributeName", d.attribute_name);
    w->Member("AttributeType", AttrTypeName(d.attribute_type));
    w->EndObject();
  }
  w->EndArray();
}

void WriteProjection(JsonWriter* w, const Projection& p) {
  w->Key("Projection");
  w->BeginObject();
  if (p.projection_type) w->Member("ProjectionType", ProjectionTypeName(*p.projection_type));
  if (!p.non_key_attributes.empty()) {
    w->Key("NonKeyAttributes");
    WriteStringList(w, p.non_key_attributes);
  }
  w->EndObject();
}

void WriteThroughputDescription(JsonWriter* w, const ProvisionedThroughputDescription& t) {
  w->Key("ProvisionedThroughput");
  w->BeginObject();
  if (t.last_increase_date_time) w->MemberDouble("LastIncreaseDateTime", *t.last_increase_date_time);
  if (t.last_decrease_date_time) w->MemberDouble("LastDecreaseDateTime", *t.last_decrease_date_time);
  w->MemberInt("NumberOfDecreasesToday", t.number_of_decreases_today);
  w->MemberInt("ReadCapacityUnits", t.read_capacity_units);
  w->MemberInt("WriteCapacityUnits", t.write_capacity_units);
  w->EndObject();
}

void WriteThroughput(JsonWriter* w, const ProvisionedThroughput& t) {
  w->Key("ProvisionedThroughput");
  w->BeginObject();
  w->MemberInt("ReadCapacityUnits", t.read_capacity_units);
  w->MemberInt("WriteCapacityUnits", t.write_capacity_units);
  w->EndObject();
}

void WriteOnDemandThroughput(JsonWriter* w, std::string_view key, const OnDemandThroughput& t) {
  w->Key(key);
  w->BeginObject();
  if (t.max_read_request_units) w->MemberInt("MaxReadRequestUnits", *t.max_read_request_units);
  if (t.max_write_request_units) w->MemberInt("MaxWriteRequestUnits", *t.max_write_request_units);
  w->EndObject();
}

void WriteWarmThroughput(JsonWriter* w, const WarmThroughputDescription& t) {
  w->Key("WarmThroughput");
  w->BeginObject();
  w->MemberInt("ReadUnitsPerSecond", t.read_units_per_second);
  w->MemberInt("WriteUnitsPerSecond", t.write_units_per_second);
  w->Member("Status", t.status);
  w->EndObject();
}

void WriteIndexDescription(JsonWriter* w, const IndexDescription& x, bool global) {
  w->BeginObject();
  w->Member("IndexName", x.index_name);
  WriteKeySchema(w, x.key_schema);
  WriteProjection(w, x.projection);
  if (global) {
    if (!x.index_status.empty()) w->Member("IndexStatus", x.index_status);
    if (x.backfilling) w->MemberBool("Backfilling", *x.backfilling);
    if (x.provisioned_throughput) WriteThroughputDescription(w, *x.provisioned_throughput);
    if (x.on_demand_throughput) WriteOnDemandThroughput(w, "OnDemandThroughput", *x.on_demand_throughput);
    if (x.warm_throughput) WriteWarmThroughput(w, *x.warm_throughput);
  }
  w->MemberInt("IndexSizeBytes", x.index_size_bytes);
  w->MemberInt("ItemCount", x.item_count);
  if (!x.index_arn.empty()) w->Member("IndexArn", x.index_arn);
  w->EndObject();
}

void WriteStreamSpecification(JsonWriter* w, const StreamSpecification& s) {
  w->Key("StreamSpecification");
  w->BeginObject();
  w->MemberBool("StreamEnabled", s.stream_enabled);
  if (!s.stream_view_type.empty()) w->Member("StreamViewType", s.stream_view_type);
  w->EndObject();
}

namespace {

void WriteCapacity(JsonWriter* w, const Capacity& c) {
  w->BeginObject();
  if (c.read_capacity_units != 0) w->MemberDouble("ReadCapacityUnits", c.read_capacity_units);
  if (c.write_capacity_units != 0) w->MemberDouble("WriteCapacityUnits", c.write_capacity_units);
  w->MemberDouble("CapacityUnits", c.capacity_units);
  w->EndObject();
}

void WriteItemCollectionMetrics(JsonWriter* w, const ItemCollectionMetrics& m) {
  w->BeginObject();
  w->Key("ItemCollectionKey");
  WriteItem(w, m.item_collection_key);
  w->Key("SizeEstimateRangeGB");
  w->BeginArray();
  for (double d : m.size_estimate_range_gb) w->Double(d);
  w->EndArray();
  w->EndObject();
}

void WriteMetricsMap(JsonWriter* w,
                     const std::map<std::string, std::vector<ItemCollectionMetrics>>& m) {
  w->Key("ItemCollectionMetrics");
  w->BeginObject();
  for (const auto& [table, list] : m) {
    w->Key(table);
    w->BeginArray();
    for (const auto& x : list) WriteItemCollectionMetrics(w, x);
    w->EndArray();
  }
  w->EndObject();
}

}  // namespace

void WriteKeysAndAttributes(JsonWriter* w, const KeysAndAttributes& k) {
  w->BeginObject();
  w->Key("Keys");
  w->BeginArray();
  for (const auto& key : k.keys) WriteItem(w, key);
  w->EndArray();
  if (!k.attributes_to_get.empty()) {
    w->Key("AttributesToGet");
    WriteStringList(w, k.attributes_to_get);
  }
  if (k.consistent_read) w->MemberBool("ConsistentRead", true);
  if (k.projection_expression) w->Member("ProjectionExpression", *k.projection_expression);
  if (k.has_expression_attribute_names || !k.expression_attribute_names.empty()) {
    w->Key("ExpressionAttributeNames");
    WriteNameMap(w, k.expression_attribute_names);
  }
  w->EndObject();
}

static void WriteWriteRequest(JsonWriter* w, const WriteRequest& r) {
  w->BeginObject();
  if (r.put_item) {
    w->Key("PutRequest");
    w->BeginObject();
    w->Key("Item");
    WriteItem(w, *r.put_item);
    w->EndObject();
  }
  if (r.delete_key) {
    w->Key("DeleteRequest");
    w->BeginObject();
    w->Key("Key");
    WriteItem(w, *r.delete_key);
    w->EndObject();
  }
  w->EndObject();
}

void WriteWriteRequestMap(JsonWriter* w, std::string_view key,
                          const std::map<std::string, std::vector<WriteRequest>>& m) {
  w->Key(key);
  w->BeginObject();
  for (const auto& [table, list] : m) {
    w->Key(table);
    w->BeginArray();
    for (const auto& r : list) WriteWriteRequest(w, r);
    w->EndArray();
  }
  w->EndObject();
}

namespace {

// Members every write response shares.
template <typename R>
std::string EncodeWriteResponse(const R& r) {
  JsonWriter w;
  w.BeginObject();
  if (r.attributes) {
    w.Key("Attributes");
    WriteItem(&w, *r.attributes);
  }
  if (r.consumed_capacity) {
    w.Key("ConsumedCapacity");
    WriteConsumedCapacity(&w, *r.consumed_capacity);
  }
  if (r.item_collection_metrics) {
    w.Key("ItemCollectionMetrics");
    WriteItemCollectionMetrics(&w, *r.item_collection_metrics);
  }
  w.EndObject();
  return w.Release();
}

std::string EncodeTableResponse(std::string_view key, const TableDescription& t) {
  JsonWriter w;
  w.BeginObject();
  w.Key(key);
  WriteTableDescription(&w, t);
  w.EndObject();
  return w.Release();
}

bool UsesCapitalMessage(ErrorType type) {
  switch (type) {
    case ErrorType::kTransactionCanceled:
    case ErrorType::kSerialization:
    case ErrorType::kUnknownOperation:
    case ErrorType::kAccessDenied:
      return true;
    default:
      return false;
  }
}

}  // namespace

// ---------------------------------------------------------------- enum names

std::string_view ReturnValueName(ReturnValue v) {
  switch (v) {
    case ReturnValue::kNone: return "NONE";
    case ReturnValue::kAllOld: return "ALL_OLD";
    case ReturnValue::kUpdatedOld: return "UPDATED_OLD";
    case ReturnValue::kAllNew: return "ALL_NEW";
    case ReturnValue::kUpdatedNew: return "UPDATED_NEW";
  }
  return "NONE";
}

std::string_view ReturnConsumedCapacityName(ReturnConsumedCapacity v) {
  switch (v) {
    case ReturnConsumedCapacity::kNone: return "NONE";
    case ReturnConsumedCapacity::kTotal: return "TOTAL";
    case ReturnConsumedCapacity::kIndexes: return "INDEXES";
  }
  return "NONE";
}

std::string_view SelectName(Select v) {
  switch (v) {
    case Select::kAllAttributes: return "ALL_ATTRIBUTES";
    case Select::kAllProjectedAttributes: return "ALL_PROJECTED_ATTRIBUTES";
    case Select::kSpecificAttributes: return "SPECIFIC_ATTRIBUTES";
    case Select::kCount: return "COUNT";
  }
  return "ALL_ATTRIBUTES";
}

std::string_view KeyTypeName(KeyType v) { return v == KeyType::kRange ? "RANGE" : "HASH"; }

std::string_view ProjectionTypeName(ProjectionType v) {
  switch (v) {
    case ProjectionType::kAll: return "ALL";
    case ProjectionType::kKeysOnly: return "KEYS_ONLY";
    case ProjectionType::kInclude: return "INCLUDE";
  }
  return "ALL";
}

// ---------------------------------------------------------------- building blocks

void WriteKeySchema(JsonWriter* w, const std::vector<KeySchemaElement>& ks) {
  w->Key("KeySchema");
  w->BeginArray();
  for (const auto& k : ks) {
    w->BeginObject();
    w->Member("AttributeName", k.attribute_name);
    w->Member("KeyType", KeyTypeName(k.key_type));
    w->EndObject();
  }
  w->EndArray();
}

static void WriteReplicaOverrides(JsonWriter* w, const std::optional<int64_t>& rcu, const std::optional<int64_t>& mrru) {
  if (rcu) {
    w->Key("ProvisionedThroughputOverride");
    w->BeginObject();
    w->MemberInt("ReadCapacityUnits", *rcu);
    w->EndObject();
  }
  if (mrru) {
    w->Key("OnDemandThroughputOverride");
    w->BeginObject();
    w->MemberInt("MaxReadRequestUnits", *mrru);
    w->EndObject();
  }
}

void WriteReplicaSettings(JsonWriter* w, const ReplicaSettings& s) {
  if (s.kms_master_key_id) w->Member("KMSMasterKeyId", *s.kms_master_key_id);
  WriteReplicaOverrides(w, s.read_capacity_units, s.max_read_request_units);
  if (!s.global_secondary_indexes.empty()) {
    w->Key("GlobalSecondaryIndexes");
    w->BeginArray();
    for (const ReplicaGlobalSecondaryIndex& g : s.global_secondary_indexes) {
      w->BeginObject();
      w->Member("IndexName", g.index_name);
      WriteReplicaOverrides(w, g.read_capacity_units, g.max_read_request_units);
      w->EndObject();
    }
    w->EndArray();
  }
}

static void WriteReplicaDescription(JsonWriter* w, const ReplicaDescription& r) {
  w->BeginObject();
  w->Member("RegionName", r.region_name);
  w->Member("ReplicaStatus", r.replica_status);
  WriteReplicaSettings(w, r.settings);
  if (r.table_class) {
    w->Key("ReplicaTableClassSummary");
    w->BeginObject();
    w->Member("TableClass", *r.table_class);
    if (r.table_class_last_update) w->MemberDouble("LastUpdateDateTime", *r.table_class_last_update);
    w->EndObject();
  }
  w->EndObject();
}

void WriteTableDescription(JsonWriter* w, const TableDescription& t) {
  w->BeginObject();
  WriteAttributeDefinitions(w, t.attribute_definitions);
  w->Member("TableName", t.table_name);
  WriteKeySchema(w, t.key_schema);
  w->Member("TableStatus", t.table_status);
  w->MemberDouble("CreationDateTime", t.creation_date_time);
  WriteThroughputDescription(w, t.provisioned_throughput);
  w->MemberInt("TableSizeBytes", t.table_size_bytes);
  w->MemberInt("ItemCount", t.item_count);
  if (!t.table_arn.empty()) w->Member("TableArn", t.table_arn);
  if (!t.table_id.empty()) w->Member("TableId", t.table_id);
  if (t.billing_mode) {
    w->Key("BillingModeSummary");
    w->BeginObject();
    w->Member("BillingMode", *t.billing_mode);
    if (t.last_update_to_pay_per_request_date_time) {
      w->MemberDouble("LastUpdateToPayPerRequestDateTime",
                      *t.last_update_to_pay_per_request_date_time);
    }
    w->EndObject();
  }
  if (t.on_demand_throughput) WriteOnDemandThroughput(w, "OnDemandThroughput", *t.on_demand_throughput);
  if (!t.local_secondary_indexes.empty()) {
    w->Key("LocalSecondaryIndexes");
    w->BeginArray();
    for (const auto& x : t.local_secondary_indexes) WriteIndexDescription(w, x, false);
    w->EndArray();
  }
  if (!t.global_secondary_indexes.empty()) {
    w->Key("GlobalSecondaryIndexes");
    w->BeginArray();
    for (const auto& x : t.global_secondary_indexes) WriteIndexDescription(w, x, true);
    w->EndArray();
  }
  if (t.stream_specification) WriteStreamSpecification(w, *t.stream_specification);
  if (t.latest_stream_arn) w->Member("LatestStreamArn", *t.latest_stream_arn);
  if (t.latest_stream_label) w->Member("LatestStreamLabel", *t.latest_stream_label);
  if (t.table_class) {
    w->Key("TableClassSummary");
    w->BeginObject();
    w->Member("TableClass", *t.table_class);
    if (t.table_class_last_update) w->MemberDouble("LastUpdateDateTime", *t.table_class_last_update);
    w->EndObject();
  }
  w->MemberBool("DeletionProtectionEnabled", t.deletion_protection_enabled);
  if (t.warm_throughput) WriteWarmThroughput(w, *t.warm_throughput);
  if (t.restore_summary) {
    const TableDescription::RestoreSummary& r = *t.restore_summary;
    w->Key("RestoreSummary");
    w->BeginObject();
    if (r.source_backup_arn) w->Member("SourceBackupArn", *r.source_backup_arn);
    if (r.source_table_arn) w->Member("SourceTableArn", *r.source_table_arn);
    w->MemberDouble("RestoreDateTime", r.restore_date_time);
    w->MemberBool("RestoreInProgress", r.restore_in_progress);
    w->EndObject();
  }
  if (t.sse_type) {
    w->Key("SSEDescription");
    w->BeginObject();
    w->Member("Status", "ENABLED");
    w->Member("SSEType", *t.sse_type);
    if (t.kms_master_key_arn) w->Member("KMSMasterKeyArn", *t.kms_master_key_arn);
    w->EndObject();
  }
  if (t.global_table_version) w->Member("GlobalTableVersion", *t.global_table_version);
  if (t.multi_region_consistency) w->Member("MultiRegionConsistency", *t.multi_region_consistency);
  if (!t.replicas.empty()) {
    w->Key("Replicas");
    w->BeginArray();
    for (const ReplicaDescription& r : t.replicas) WriteReplicaDescription(w, r);
    w->EndArray();
  }
  if (!t.global_table_witnesses.empty()) {
    w->Key("GlobalTableWitnesses");
    w->BeginArray();
    for (const GlobalTableWitness& g : t.global_table_witnesses) {
      w->BeginObject();
      w->Member("RegionName", g.region_name);
      w->Member("WitnessStatus", g.witness_status);
      w->EndObject();
    }
    w->EndArray();
  }
  w->EndObject();
}

void WriteConsumedCapacity(JsonWriter* w, const ConsumedCapacity& c) {
  w->BeginObject();
  w->Member("TableName", c.table_name);
  w->MemberDouble("CapacityUnits", c.capacity_units);
  if (c.read_capacity_units) w->MemberDouble("ReadCapacityUnits", *c.read_capacity_units);
  if (c.write_capacity_units) w->MemberDouble("WriteCapacityUnits", *c.write_capacity_units);
  if (c.table) {
    w->Key("Table");
    WriteCapacity(w, *c.table);
  }
  if (!c.local_secondary_indexes.empty()) {
    w->Key("LocalSecondaryIndexes");
    w->BeginObject();
    for (const auto& [name, cap] : c.local_secondary_indexes) {
      w->Key(name);
      WriteCapacity(w, cap);
    }
    w->EndObject();
  }
  if (!c.global_secondary_indexes.empty()) {
    w->Key("GlobalSecondaryIndexes");
    w->BeginObject();
    for (const auto& [name, cap] : c.global_secondary_indexes) {
      w->Key(name);
      WriteCapacity(w, cap);
    }
    w->EndObject();
  }
  w->EndObject();
}

void WriteCapacityList(JsonWriter* w, const std::vector<ConsumedCapacity>& list) {
  w->Key("ConsumedCapacity");
  w->BeginArray();
  for (const auto& c : list) WriteConsumedCapacity(w, c);
  w->EndArray();
}



// ---------------------------------------------------------------- responses

std::string EncodeCreateTableResponse(const CreateTableResponse& r) {
  return EncodeTableResponse("TableDescription", r.table_description);
}
std::string EncodeDescribeTableResponse(const DescribeTableResponse& r) {
  return EncodeTableResponse("Table", r.table);
}
std::string EncodeDeleteTableResponse(const DeleteTableResponse& r) {
  return EncodeTableResponse("TableDescription", r.table_description);
}
std::string EncodeUpdateTableResponse(const UpdateTableResponse& r) {
  return EncodeTableResponse("TableDescription", r.table_description);
}

std::string EncodeListTablesResponse(const ListTablesResponse& r) {
  JsonWriter w;
  w.BeginObject();
  if (r.last_evaluated_table_name) w.Member("LastEvaluatedTableName", *r.last_evaluated_table_name);
  w.Key("TableNames");
  WriteStringList(&w, r.table_names);
  w.EndObject();
  return w.Release();
}

std::string EncodeUpdateTimeToLiveResponse(const UpdateTimeToLiveResponse& r) {
  JsonWriter w;
  w.BeginObject();
  w.Key("TimeToLiveSpecification");
  w.BeginObject();
  w.Member("AttributeName", r.time_to_live_specification.attribute_name);
  w.MemberBool("Enabled", r.time_to_live_specification.enabled);
  w.EndObject();
  w.EndObject();
  return w.Release();
}

std::string EncodeDescribeTimeToLiveResponse(const DescribeTimeToLiveResponse& r) {
  JsonWriter w;
  w.BeginObject();
  w.Key("TimeToLiveDescription");
  w.BeginObject();
  if (r.attribute_name) w.Member("AttributeName", *r.attribute_name);
  w.Member("TimeToLiveStatus", r.time_to_live_status);
  w.EndObject();
  w.EndObject();
  return w.Release();
}

namespace {
std::string EncodeContinuousBackups(const ContinuousBackupsDescription& d) {
  JsonWriter w;
  w.BeginObject();
  w.Key("ContinuousBackupsDescription");
  w.BeginObject();
  w.Member("ContinuousBackupsStatus", d.continuous_backups_status);
  w.Key("PointInTimeRecoveryDescription");
  w.BeginObject();
  if (d.earliest_restorable_date_time) {
    w.MemberDouble("EarliestRestorableDateTime", *d.earliest_restorable_date_time);
  }
  if (d.latest_restorable_date_time) {
    w.MemberDouble("LatestRestorableDateTime", *d.latest_restorable_date_time);
  }
  w.Member("PointInTimeRecoveryStatus", d.point_in_time_recovery_status);
  if (d.recovery_period_in_days) w.MemberInt("RecoveryPeriodInDays", *d.recovery_period_in_days);
  w.EndObject();
  w.EndObject();
  w.EndObject();
  return w.Release();
}
}  // namespace

std::string EncodeDescribeContinuousBackupsResponse(const DescribeContinuousBackupsResponse& r) {
  return EncodeContinuousBackups(r.description);
}

std::string EncodeUpdateContinuousBackupsResponse(const UpdateContinuousBackupsResponse& r) {
  return EncodeContinuousBackups(r.description);
}

std::string EncodePutResourcePolicyResponse(const PutResourcePolicyResponse& r) {
  JsonWriter w;
  w.BeginObject();
  w.Member("RevisionId", r.revision_id);
  w.EndObject();
  return w.Release();
}

std::string EncodeGetResourcePolicyResponse(const GetResourcePolicyResponse& r) {
  JsonWriter w;
  w.BeginObject();
  w.Member("Policy", r.policy);
  w.Member("RevisionId", r.revision_id);
  w.EndObject();
  return w.Release();
}

std::string EncodeDeleteResourcePolicyResponse(const DeleteResourcePolicyResponse& r) {
  JsonWriter w;
  w.BeginObject();
  if (r.revision_id) w.Member("RevisionId", *r.revision_id);
  w.EndObject();
  return w.Release();
}

std::string EncodeListTagsOfResourceResponse(const ListTagsOfResourceResponse& r) {
  JsonWriter w;
  w.BeginObject();
  if (r.next_token) w.Member("NextToken", *r.next_token);
  w.Key("Tags");
  w.BeginArray();
  for (const auto& t : r.tags) {
    w.BeginObject();
    w.Member("Key", t.key);
    w.Member("Value", t.value);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return w.Release();
}

std::string EncodePutItemResponse(const PutItemResponse& r) { return EncodeWriteResponse(r); }
std::string EncodeDeleteItemResponse(const DeleteItemResponse& r) { return EncodeWriteResponse(r); }
std::string EncodeUpdateItemResponse(const UpdateItemResponse& r) { return EncodeWriteResponse(r); }

std::string EncodeGetItemResponse(const GetItemResponse& r) {
  JsonWriter w;
  w.BeginObject();
  if (r.item) {
    w.Key("Item");
    WriteItem(&w, *r.item);
  } else if (r.encoded_item) {
    w.Key("Item");
    WriteEncodedItem(&w, ItemView(*r.encoded_item));
  }
  if (r.consumed_capacity) {
    w.Key("ConsumedCapacity");
    WriteConsumedCapacity(&w, *r.consumed_capacity);
  }
  w.EndObject();
  return w.Release();
}

std::string EncodeQueryResponse(const QueryResponse& r, bool select_count) {
  JsonWriter w;
  // Items' JSON runs about 1.4 times their stored bytes: room for it at once.
  if (!select_count) w.Reserve(256 + r.encoded_items.bytes() / 2 * 3);
  w.BeginObject();
  if (!select_count) {
    w.Key("Items");
    w.BeginArray();
    for (const auto& item : r.items) WriteItem(&w, item);
    // Validated as they were read (EncodedItemSize walks every byte).
    for (size_t i = 0; i < r.encoded_items.size(); ++i) WriteEncodedItem(&w, r.encoded_items[i]);
    w.EndArray();
  }
  w.MemberInt("Count", r.count);
  w.MemberInt("ScannedCount", r.scanned_count);
  if (r.last_evaluated_key) {
    w.Key("LastEvaluatedKey");
    WriteItem(&w, *r.last_evaluated_key);
  }
  if (r.consumed_capacity) {
    w.Key("ConsumedCapacity");
    WriteConsumedCapacity(&w, *r.consumed_capacity);
  }
  w.EndObject();
  return w.Release();
}

std::string EncodeScanResponse(const ScanResponse& r, bool select_count) {
  return EncodeQueryResponse(r, select_count);
}

std::string EncodeBatchGetItemResponse(const BatchGetItemResponse& r) {
  JsonWriter w;
  w.BeginObject();
  w.Key("Responses");
  w.BeginObject();
  for (const auto& [table, items] : r.responses) {
    w.Key(table);
    w.BeginArray();
    for (const auto& item : items) WriteItem(&w, item);
    auto encoded = r.encoded_responses.find(table);
    if (encoded != r.encoded_responses.end()) {
      for (size_t i = 0; i < encoded->second.size(); ++i) WriteEncodedItem(&w, encoded->second[i]);
    }
    w.EndArray();
  }
  w.EndObject();
  w.Key("UnprocessedKeys");
  w.BeginObject();
  for (const auto& [table, k] : r.unprocessed_keys) {
    w.Key(table);
    WriteKeysAndAttributes(&w, k);
  }
  w.EndObject();
  if (r.has_consumed_capacity || !r.consumed_capacity.empty()) {
    WriteCapacityList(&w, r.consumed_capacity);
  }
  w.EndObject();
  return w.Release();
}

std::string EncodeBatchWriteItemResponse(const BatchWriteItemResponse& r) {
  JsonWriter w;
  w.BeginObject();
  WriteWriteRequestMap(&w, "UnprocessedItems", r.unprocessed_items);
  if (!r.item_collection_metrics.empty()) WriteMetricsMap(&w, r.item_collection_metrics);
  if (r.has_consumed_capacity || !r.consumed_capacity.empty()) {
    WriteCapacityList(&w, r.consumed_capacity);
  }
  w.EndObject();
  return w.Release();
}

std::string EncodeTransactGetItemsResponse(const TransactGetItemsResponse& r) {
  JsonWriter w;
  w.BeginObject();
  if (r.has_consumed_capacity || !r.consumed_capacity.empty()) {
    WriteCapacityList(&w, r.consumed_capacity);
  }
  w.Key("Responses");
  w.BeginArray();
  for (const auto& item : r.responses) {
    w.BeginObject();
    if (item) {
      w.Key("Item");
      WriteItem(&w, *item);
    }
    w.EndObject();
  }
  for (const auto& item : r.encoded_responses) {
    w.BeginObject();
    if (item) {
      w.Key("Item");
      WriteEncodedItem(&w, ItemView(*item));
    }
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return w.Release();
}

std::string EncodeTransactWriteItemsResponse(const TransactWriteItemsResponse& r) {
  JsonWriter w;
  w.BeginObject();
  if (r.has_consumed_capacity || !r.consumed_capacity.empty()) {
    WriteCapacityList(&w, r.consumed_capacity);
  }
  if (!r.item_collection_metrics.empty()) WriteMetricsMap(&w, r.item_collection_metrics);
  w.EndObject();
  return w.Release();
}

std::string EncodeErrorBody(const Status& status) {
  if (status.ok()) return "{}";
  JsonWriter w;
  w.BeginObject();
  w.Member("__type", ErrorWireType(status.type()));
  std::string_view key = UsesCapitalMessage(status.type()) ? "Message" : "message";
  if (status.type() == ErrorType::kTransactionCanceled) {
    const auto& reasons = status.cancellation_reasons();
    w.Key("CancellationReasons");
    w.BeginArray();
    for (const auto& r : reasons) {
      w.BeginObject();
      if (r.item) {
        w.Key("Item");
        WriteItem(&w, *r.item);
      }
      w.Member("Code", r.code);
      if (!r.message.empty()) w.Member("Message", r.message);
      w.EndObject();
    }
    w.EndArray();
    if (status.message().empty()) {
      std::string m = "Transaction cancelled, please refer cancellation reasons for specific reasons [";
      for (size_t i = 0; i < reasons.size(); ++i) {
        if (i) m += ", ";
        m += reasons[i].code;
      }
      m += "]";
      w.Member(key, m);
    } else {
      w.Member(key, status.message());
    }
  } else if (!status.message().empty()) {
    w.Member(key, status.message());
  }
  if (status.item() && status.type() != ErrorType::kTransactionCanceled) {
    w.Key("Item");
    WriteItem(&w, *status.item());
  }
  if (!status.throttling_reasons().empty()) {
    w.Key("ThrottlingReasons");
    w.BeginArray();
    for (const ThrottlingReason& r : status.throttling_reasons()) {
      w.BeginObject();
      w.Member("reason", r.reason);
      w.Member("resource", r.resource);
      w.EndObject();
    }
    w.EndArray();
  }
  w.EndObject();
  return w.Release();
}

}  // namespace dynarock::api
