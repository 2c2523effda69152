// File: engine/api/json_encode_requests.cc
//
// Request structs -> DynamoDB JSON: the client's side (client::HttpClient,
// the replicator); the server's responses are json_encode.cc.

#include "engine/api/json_encode.h"

namespace dynarock::api {
namespace {

// ---------------------------------------------------------------- request helpers

void WriteNames(JsonWriter* w, const NameMap& names, bool has) {
  if (!has && names.empty()) return;
  w->Key("ExpressionAttributeNames");
  WriteNameMap(w, names);
}

void WriteValues(JsonWriter* w, const ValueMap& values, bool has) {
  if (!has && values.empty()) return;
  w->Key("ExpressionAttributeValues");
  WriteItem(w, values);
}

void WriteExpected(JsonWriter* w,
                   const std::map<std::string, ExpectedAttributeValue, std::less<>>& expected) {
  if (expected.empty()) return;
  w->Key("Expected");
  w->BeginObject();
  for (const auto& [name, x] : expected) {
    w->Key(name);
    w->BeginObject();
    if (x.value) {
      w->Key("Value");
      WriteAttributeValue(w, *x.value);
    }
    if (x.exists) w->MemberBool("Exists", *x.exists);
    if (x.comparison_operator) w->Member("ComparisonOperator", *x.comparison_operator);
    if (x.attribute_value_list) {
      w->Key("AttributeValueList");
      WriteAttributeList(w, *x.attribute_value_list);
    }
    w->EndObject();
  }
  w->EndObject();
}

void WriteConditionMap(JsonWriter* w, std::string_view key, const LegacyConditionMap& m,
                       bool has) {
  if (!has && m.empty()) return;
  w->Key(key);
  w->BeginObject();
  for (const auto& [name, c] : m) {
    w->Key(name);
    w->BeginObject();
    if (!c.attribute_value_list.empty()) {
      w->Key("AttributeValueList");
      WriteAttributeList(w, c.attribute_value_list);
    }
    w->Member("ComparisonOperator", c.comparison_operator);
    w->EndObject();
  }
  w->EndObject();
}

void WriteCommonWriteOptions(JsonWriter* w, ReturnValue rv, bool rv_on_failure,
                             ReturnConsumedCapacity rcc, bool metrics) {
  if (rv != ReturnValue::kNone) w->Member("ReturnValues", ReturnValueName(rv));
  if (rv_on_failure) w->Member("ReturnValuesOnConditionCheckFailure", "ALL_OLD");
  if (rcc != ReturnConsumedCapacity::kNone) {
    w->Member("ReturnConsumedCapacity", ReturnConsumedCapacityName(rcc));
  }
  if (metrics) w->Member("ReturnItemCollectionMetrics", "SIZE");
}

void WriteReturnConsumedCapacity(JsonWriter* w, ReturnConsumedCapacity rcc) {
  if (rcc != ReturnConsumedCapacity::kNone) {
    w->Member("ReturnConsumedCapacity", ReturnConsumedCapacityName(rcc));
  }
}

}  // namespace

void WriteWarmThroughputRequest(JsonWriter* w, const WarmThroughput& t) {
  w->Key("WarmThroughput");
  w->BeginObject();
  if (t.read_units_per_second) w->MemberInt("ReadUnitsPerSecond", *t.read_units_per_second);
  if (t.write_units_per_second) w->MemberInt("WriteUnitsPerSecond", *t.write_units_per_second);
  w->EndObject();
}

void WriteSseSpecification(JsonWriter* w, const SseSpecification& s) {
  w->Key("SSESpecification");
  w->BeginObject();
  if (s.enabled) w->MemberBool("Enabled", *s.enabled);
  if (s.sse_type) w->Member("SSEType", *s.sse_type);
  if (s.kms_master_key_id) w->Member("KMSMasterKeyId", *s.kms_master_key_id);
  w->EndObject();
}

void WriteGlobalSecondaryIndex(JsonWriter* w, const GlobalSecondaryIndex& g) {
  w->BeginObject();
  w->Member("IndexName", g.index_name);
  WriteKeySchema(w, g.key_schema);
  WriteProjection(w, g.projection);
  if (g.provisioned_throughput) WriteThroughput(w, *g.provisioned_throughput);
  if (g.on_demand_throughput) WriteOnDemandThroughput(w, "OnDemandThroughput", *g.on_demand_throughput);
  if (g.warm_throughput) WriteWarmThroughputRequest(w, *g.warm_throughput);
  w->EndObject();
}

namespace {

template <typename R>
std::string OnlyTableName(const R& r) {
  JsonWriter w;
  w.BeginObject();
  w.Member("TableName", r.table_name);
  w.EndObject();
  return w.Release();
}

// Members Query and Scan share.
template <typename R>
void WriteReadRequest(JsonWriter* w, const R& r) {
  w->Member("TableName", r.table_name);
  if (r.index_name) w->Member("IndexName", *r.index_name);
  if (r.select) w->Member("Select", SelectName(*r.select));
  if (r.filter_expression) w->Member("FilterExpression", *r.filter_expression);
  if (r.projection_expression) w->Member("ProjectionExpression", *r.projection_expression);
  WriteNames(w, r.expression_attribute_names, r.has_expression_attribute_names);
  WriteValues(w, r.expression_attribute_values, r.has_expression_attribute_values);
  if (r.conditional_operator) w->Member("ConditionalOperator", *r.conditional_operator);
  if (r.has_attributes_to_get || !r.attributes_to_get.empty()) {
    w->Key("AttributesToGet");
    WriteStringList(w, r.attributes_to_get);
  }
  if (r.limit) w->MemberInt("Limit", *r.limit);
  if (r.exclusive_start_key) {
    w->Key("ExclusiveStartKey");
    WriteItem(w, *r.exclusive_start_key);
  }
  if (r.consistent_read) w->MemberBool("ConsistentRead", true);
  WriteReturnConsumedCapacity(w, r.return_consumed_capacity);
}

}  // namespace

// ---------------------------------------------------------------- requests

std::string EncodeCreateTableRequest(const CreateTableRequest& r) {
  JsonWriter w;
  w.BeginObject();
  WriteAttributeDefinitions(&w, r.attribute_definitions);
  w.Member("TableName", r.table_name);
  WriteKeySchema(&w, r.key_schema);
  if (!r.local_secondary_indexes.empty()) {
    w.Key("LocalSecondaryIndexes");
    w.BeginArray();
    for (const auto& l : r.local_secondary_indexes) {
      w.BeginObject();
      w.Member("IndexName", l.index_name);
      WriteKeySchema(&w, l.key_schema);
      WriteProjection(&w, l.projection);
      w.EndObject();
    }
    w.EndArray();
  }
  if (!r.global_secondary_indexes.empty()) {
    w.Key("GlobalSecondaryIndexes");
    w.BeginArray();
    for (const auto& g : r.global_secondary_indexes) WriteGlobalSecondaryIndex(&w, g);
    w.EndArray();
  }
  if (r.billing_mode) w.Member("BillingMode", *r.billing_mode);
  if (r.provisioned_throughput) WriteThroughput(&w, *r.provisioned_throughput);
  if (r.on_demand_throughput) WriteOnDemandThroughput(&w, "OnDemandThroughput", *r.on_demand_throughput);
  if (r.stream_specification) WriteStreamSpecification(&w, *r.stream_specification);
  if (!r.tags.empty()) {
    w.Key("Tags");
    w.BeginArray();
    for (const auto& t : r.tags) {
      w.BeginObject();
      w.Member("Key", t.key);
      w.Member("Value", t.value);
      w.EndObject();
    }
    w.EndArray();
  }
  if (r.table_class) w.Member("TableClass", *r.table_class);
  if (r.deletion_protection_enabled) {
    w.MemberBool("DeletionProtectionEnabled", *r.deletion_protection_enabled);
  }
  if (r.sse_specification) WriteSseSpecification(&w, *r.sse_specification);
  if (r.warm_throughput) WriteWarmThroughputRequest(&w, *r.warm_throughput);
  if (r.resource_policy) w.Member("ResourcePolicy", *r.resource_policy);
  w.EndObject();
  return w.Release();
}

std::string EncodeDescribeTableRequest(const DescribeTableRequest& r) { return OnlyTableName(r); }
std::string EncodeDeleteTableRequest(const DeleteTableRequest& r) { return OnlyTableName(r); }

std::string EncodeListTablesRequest(const ListTablesRequest& r) {
  JsonWriter w;
  w.BeginObject();
  if (r.exclusive_start_table_name) {
    w.Member("ExclusiveStartTableName", *r.exclusive_start_table_name);
  }
  if (r.limit) w.MemberInt("Limit", *r.limit);
  w.EndObject();
  return w.Release();
}

std::string EncodeUpdateTableRequest(const UpdateTableRequest& r) {
  JsonWriter w;
  w.BeginObject();
  if (!r.attribute_definitions.empty()) WriteAttributeDefinitions(&w, r.attribute_definitions);
  w.Member("TableName", r.table_name);
  if (r.billing_mode) w.Member("BillingMode", *r.billing_mode);
  if (r.provisioned_throughput) WriteThroughput(&w, *r.provisioned_throughput);
  if (r.on_demand_throughput) WriteOnDemandThroughput(&w, "OnDemandThroughput", *r.on_demand_throughput);
  if (!r.global_secondary_index_updates.empty()) {
    w.Key("GlobalSecondaryIndexUpdates");
    w.BeginArray();
    for (const auto& u : r.global_secondary_index_updates) {
      w.BeginObject();
      if (u.create) {
        w.Key("Create");
        WriteGlobalSecondaryIndex(&w, *u.create);
      }
      if (u.update) {
        w.Key("Update");
        w.BeginObject();
        w.Member("IndexName", u.update->index_name);
        if (u.update->provisioned_throughput) WriteThroughput(&w, *u.update->provisioned_throughput);
        if (u.update->on_demand_throughput) {
          WriteOnDemandThroughput(&w, "OnDemandThroughput", *u.update->on_demand_throughput);
        }
        if (u.update->warm_throughput) WriteWarmThroughputRequest(&w, *u.update->warm_throughput);
        w.EndObject();
      }
      if (u.delete_index_name) {
        w.Key("Delete");
        w.BeginObject();
        w.Member("IndexName", *u.delete_index_name);
        w.EndObject();
      }
      w.EndObject();
    }
    w.EndArray();
  }
  if (r.stream_specification) WriteStreamSpecification(&w, *r.stream_specification);
  if (r.deletion_protection_enabled) {
    w.MemberBool("DeletionProtectionEnabled", *r.deletion_protection_enabled);
  }
  if (r.sse_specification) WriteSseSpecification(&w, *r.sse_specification);
  if (r.warm_throughput) WriteWarmThroughputRequest(&w, *r.warm_throughput);
  if (r.table_class) w.Member("TableClass", *r.table_class);
  if (!r.replica_updates.empty()) {
    w.Key("ReplicaUpdates");
    w.BeginArray();
    for (const ReplicaUpdate& u : r.replica_updates) {
      w.BeginObject();
      w.Key(u.action == ReplicaUpdate::Action::kCreate   ? "Create"
            : u.action == ReplicaUpdate::Action::kUpdate ? "Update"
                                                         : "Delete");
      w.BeginObject();
      w.Member("RegionName", u.region_name);
      if (u.action != ReplicaUpdate::Action::kDelete) {
        WriteReplicaSettings(&w, u.settings);
        if (u.table_class_override) w.Member("TableClassOverride", *u.table_class_override);
      }
      w.EndObject();
      w.EndObject();
    }
    w.EndArray();
  }
  if (!r.witness_updates.empty()) {
    w.Key("GlobalTableWitnessUpdates");
    w.BeginArray();
    for (const WitnessUpdate& u : r.witness_updates) {
      w.BeginObject();
      w.Key(u.action == WitnessUpdate::Action::kCreate ? "Create" : "Delete");
      w.BeginObject();
      w.Member("RegionName", u.region_name);
      w.EndObject();
      w.EndObject();
    }
    w.EndArray();
  }
  if (r.multi_region_consistency) w.Member("MultiRegionConsistency", *r.multi_region_consistency);
  w.EndObject();
  return w.Release();
}

namespace {

// The members PutItem and DeleteItem share after their item or key.
template <typename R>
void WriteConditionalWrite(JsonWriter* w, const R& r) {
  if (r.condition_expression) w->Member("ConditionExpression", *r.condition_expression);
  WriteNames(w, r.expression_attribute_names, r.has_expression_attribute_names);
  WriteValues(w, r.expression_attribute_values, r.has_expression_attribute_values);
  WriteExpected(w, r.expected);
  if (r.conditional_operator) w->Member("ConditionalOperator", *r.conditional_operator);
  WriteCommonWriteOptions(w, r.return_values, r.return_values_on_condition_check_failure_all_old,
                          r.return_consumed_capacity, r.return_item_collection_metrics);
}

}  // namespace

std::string EncodePutItemRequest(const PutItemRequest& r) {
  JsonWriter w;
  w.BeginObject();
  w.Member("TableName", r.table_name);
  w.Key("Item");
  WriteItem(&w, r.item);
  WriteConditionalWrite(&w, r);
  w.EndObject();
  return w.Release();
}

std::string EncodeGetItemRequest(const GetItemRequest& r) {
  JsonWriter w;
  w.BeginObject();
  w.Member("TableName", r.table_name);
  w.Key("Key");
  WriteItem(&w, r.key);
  if (r.consistent_read) w.MemberBool("ConsistentRead", true);
  if (r.projection_expression) w.Member("ProjectionExpression", *r.projection_expression);
  WriteNames(&w, r.expression_attribute_names, r.has_expression_attribute_names);
  if (!r.attributes_to_get.empty()) {
    w.Key("AttributesToGet");
    WriteStringList(&w, r.attributes_to_get);
  }
  WriteReturnConsumedCapacity(&w, r.return_consumed_capacity);
  w.EndObject();
  return w.Release();
}

std::string EncodeDeleteItemRequest(const DeleteItemRequest& r) {
  JsonWriter w;
  w.BeginObject();
  w.Member("TableName", r.table_name);
  w.Key("Key");
  WriteItem(&w, r.key);
  WriteConditionalWrite(&w, r);
  w.EndObject();
  return w.Release();
}

std::string EncodeUpdateItemRequest(const UpdateItemRequest& r) {
  JsonWriter w;
  w.BeginObject();
  w.Member("TableName", r.table_name);
  w.Key("Key");
  WriteItem(&w, r.key);
  if (r.update_expression) w.Member("UpdateExpression", *r.update_expression);
  if (r.condition_expression) w.Member("ConditionExpression", *r.condition_expression);
  WriteNames(&w, r.expression_attribute_names, r.has_expression_attribute_names);
  WriteValues(&w, r.expression_attribute_values, r.has_expression_attribute_values);
  if (r.has_attribute_updates || !r.attribute_updates.empty()) {
    w.Key("AttributeUpdates");
    w.BeginObject();
    for (const auto& [name, u] : r.attribute_updates) {
      w.Key(name);
      w.BeginObject();
      if (u.value) {
        w.Key("Value");
        WriteAttributeValue(&w, *u.value);
      }
      w.Member("Action", u.action);
      w.EndObject();
    }
    w.EndObject();
  }
  WriteExpected(&w, r.expected);
  if (r.conditional_operator) w.Member("ConditionalOperator", *r.conditional_operator);
  WriteCommonWriteOptions(&w, r.return_values, r.return_values_on_condition_check_failure_all_old,
                          r.return_consumed_capacity, r.return_item_collection_metrics);
  w.EndObject();
  return w.Release();
}

std::string EncodeQueryRequest(const QueryRequest& r) {
  JsonWriter w;
  w.BeginObject();
  WriteReadRequest(&w, r);
  if (r.key_condition_expression) w.Member("KeyConditionExpression", *r.key_condition_expression);
  WriteConditionMap(&w, "KeyConditions", r.key_conditions, r.has_key_conditions);
  WriteConditionMap(&w, "QueryFilter", r.query_filter, r.has_query_filter);
  if (!r.scan_index_forward) w.MemberBool("ScanIndexForward", false);
  w.EndObject();
  return w.Release();
}

std::string EncodeScanRequest(const ScanRequest& r) {
  JsonWriter w;
  w.BeginObject();
  WriteReadRequest(&w, r);
  WriteConditionMap(&w, "ScanFilter", r.scan_filter, r.has_scan_filter);
  if (r.segment) w.MemberInt("Segment", *r.segment);
  if (r.total_segments) w.MemberInt("TotalSegments", *r.total_segments);
  w.EndObject();
  return w.Release();
}

std::string EncodeBatchGetItemRequest(const BatchGetItemRequest& r) {
  JsonWriter w;
  w.BeginObject();
  w.Key("RequestItems");
  w.BeginObject();
  for (const auto& [table, k] : r.request_items) {
    w.Key(table);
    WriteKeysAndAttributes(&w, k);
  }
  w.EndObject();
  WriteReturnConsumedCapacity(&w, r.return_consumed_capacity);
  w.EndObject();
  return w.Release();
}

std::string EncodeBatchWriteItemRequest(const BatchWriteItemRequest& r) {
  JsonWriter w;
  w.BeginObject();
  WriteWriteRequestMap(&w, "RequestItems", r.request_items);
  WriteReturnConsumedCapacity(&w, r.return_consumed_capacity);
  if (r.return_item_collection_metrics) w.Member("ReturnItemCollectionMetrics", "SIZE");
  w.EndObject();
  return w.Release();
}

std::string EncodeTransactGetItemsRequest(const TransactGetItemsRequest& r) {
  JsonWriter w;
  w.BeginObject();
  w.Key("TransactItems");
  w.BeginArray();
  for (const auto& t : r.transact_items) {
    w.BeginObject();
    w.Key("Get");
    w.BeginObject();
    w.Key("Key");
    WriteItem(&w, t.key);
    w.Member("TableName", t.table_name);
    if (t.projection_expression) w.Member("ProjectionExpression", *t.projection_expression);
    WriteNames(&w, t.expression_attribute_names, t.has_expression_attribute_names);
    w.EndObject();
    w.EndObject();
  }
  w.EndArray();
  WriteReturnConsumedCapacity(&w, r.return_consumed_capacity);
  w.EndObject();
  return w.Release();
}

std::string EncodeTransactWriteItemsRequest(const TransactWriteItemsRequest& r) {
  JsonWriter w;
  w.BeginObject();
  w.Key("TransactItems");
  w.BeginArray();
  for (const auto& t : r.transact_items) {
    w.BeginObject();
    switch (t.kind) {
      case TransactWriteItem::Kind::kConditionCheck: w.Key("ConditionCheck"); break;
      case TransactWriteItem::Kind::kPut: w.Key("Put"); break;
      case TransactWriteItem::Kind::kDelete: w.Key("Delete"); break;
      case TransactWriteItem::Kind::kUpdate: w.Key("Update"); break;
    }
    w.BeginObject();
    if (t.kind == TransactWriteItem::Kind::kPut) {
      w.Key("Item");
      WriteItem(&w, t.item);
    } else {
      w.Key("Key");
      WriteItem(&w, t.key);
    }
    w.Member("TableName", t.table_name);
    if (t.update_expression) w.Member("UpdateExpression", *t.update_expression);
    if (t.condition_expression) w.Member("ConditionExpression", *t.condition_expression);
    WriteNames(&w, t.expression_attribute_names, t.has_expression_attribute_names);
    WriteValues(&w, t.expression_attribute_values, t.has_expression_attribute_values);
    if (t.return_values_on_condition_check_failure_all_old) {
      w.Member("ReturnValuesOnConditionCheckFailure", "ALL_OLD");
    }
    w.EndObject();
    w.EndObject();
  }
  w.EndArray();
  if (r.client_request_token) w.Member("ClientRequestToken", *r.client_request_token);
  WriteReturnConsumedCapacity(&w, r.return_consumed_capacity);
  if (r.return_item_collection_metrics) w.Member("ReturnItemCollectionMetrics", "SIZE");
  w.EndObject();
  return w.Release();
}

}  // namespace dynarock::api
