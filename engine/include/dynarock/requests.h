// File: dynarock/requests.h
//
// Plain request and response structs, one pair per DynamoDB operation, mirroring
// DynamoDB's shapes field by field (snake_case of the wire names). The mapping to
// and from DynamoDB JSON lives only in engine/api/ (the protocol codec).
//
// std::optional marks a member the caller may leave out, where leaving it out means
// something different from any value (DynamoDB's "not present").

#ifndef DYNAROCK_REQUESTS_H_
#define DYNAROCK_REQUESTS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "dynarock/attribute_value.h"
#include "dynarock/item_view.h"

namespace dynarock {

using NameMap = std::map<std::string, std::string, std::less<>>;  // ExpressionAttributeNames
using ValueMap = Item;                                           // ExpressionAttributeValues

// ---------------------------------------------------------------- tables

enum class KeyType : uint8_t { kHash = 1, kRange = 2 };  // persisted
struct KeySchemaElement {
  std::string attribute_name;
  KeyType key_type = KeyType::kHash;
};

struct AttributeDefinition {
  std::string attribute_name;
  AttrType attribute_type = AttrType::kS;  // kS, kN or kB only
};

struct ProvisionedThroughput {
  int64_t read_capacity_units = 0;
  int64_t write_capacity_units = 0;
};

// The maximum request units per second of an on-demand (PAY_PER_REQUEST)
// table or global secondary index. A request gives one member or both; each
// is at least 1, or -1 to remove that maximum (DynamoDB's OnDemandThroughput).
// A description lists only the maximums that are set, and none at all (no
// OnDemandThroughput) when neither is.
struct OnDemandThroughput {
  std::optional<int64_t> max_read_request_units;
  std::optional<int64_t> max_write_request_units;
};

enum class ProjectionType : uint8_t { kAll = 1, kKeysOnly = 2, kInclude = 3 };  // persisted
struct Projection {
  std::optional<ProjectionType> projection_type;
  std::vector<std::string> non_key_attributes;
};

// WarmThroughput (CreateTable, UpdateTable, their GSIs): the read and write
// units per second a table or index is ready to serve at once; either may be
// left out.
struct WarmThroughput {
  std::optional<int64_t> read_units_per_second;
  std::optional<int64_t> write_units_per_second;
};
// As DescribeTable reports it: at least DynamoDB's defaults for a new table
// (12,000 reads, 4,000 writes a second) or its provisioned throughput.
struct WarmThroughputDescription {
  int64_t read_units_per_second = 0;
  int64_t write_units_per_second = 0;
  std::string status = "ACTIVE";
};

// SSESpecification: encryption at rest with a KMS key (reported as
// SSEDescription; Dynarock stores the choice, it does not encrypt with it).
struct SseSpecification {
  std::optional<bool> enabled;
  std::optional<std::string> sse_type;  // "KMS" (or "AES256")
  std::optional<std::string> kms_master_key_id;
};

struct GlobalSecondaryIndex {
  std::string index_name;
  std::vector<KeySchemaElement> key_schema;
  Projection projection;
  std::optional<ProvisionedThroughput> provisioned_throughput;
  std::optional<OnDemandThroughput> on_demand_throughput;  // PAY_PER_REQUEST tables only
  std::optional<WarmThroughput> warm_throughput;
};

struct LocalSecondaryIndex {
  std::string index_name;
  std::vector<KeySchemaElement> key_schema;
  Projection projection;
};

struct StreamSpecification {
  bool stream_enabled = false;
  std::string stream_view_type;
};

struct Tag {
  std::string key;
  std::string value;
};

struct CreateTableRequest {
  std::string table_name;
  std::vector<AttributeDefinition> attribute_definitions;
  std::vector<KeySchemaElement> key_schema;
  std::vector<LocalSecondaryIndex> local_secondary_indexes;
  std::vector<GlobalSecondaryIndex> global_secondary_indexes;
  // Whether the lists were given at all (DynamoDB refuses an empty one).
  bool has_local_secondary_indexes = false;
  bool has_global_secondary_indexes = false;
  std::optional<std::string> billing_mode;  // "PROVISIONED" | "PAY_PER_REQUEST"
  std::optional<ProvisionedThroughput> provisioned_throughput;
  std::optional<OnDemandThroughput> on_demand_throughput;  // PAY_PER_REQUEST only
  std::optional<StreamSpecification> stream_specification;
  std::optional<std::string> table_class;
  std::optional<bool> deletion_protection_enabled;
  std::vector<Tag> tags;
  std::optional<SseSpecification> sse_specification;
  std::optional<WarmThroughput> warm_throughput;
  std::optional<std::string> resource_policy;  // attached as PutResourcePolicy would
};

struct ProvisionedThroughputDescription {
  int64_t read_capacity_units = 0;
  int64_t write_capacity_units = 0;
  int64_t number_of_decreases_today = 0;
  std::optional<double> last_increase_date_time;  // seconds since the epoch
  std::optional<double> last_decrease_date_time;
};

struct IndexDescription {  // both GlobalSecondaryIndexDescription and Local...
  std::string index_name;
  std::vector<KeySchemaElement> key_schema;
  Projection projection;
  std::string index_status;  // GSIs only: "CREATING" | "ACTIVE" | "DELETING"
  std::optional<bool> backfilling;
  std::optional<ProvisionedThroughputDescription> provisioned_throughput;  // GSIs only
  std::optional<OnDemandThroughput> on_demand_throughput;  // GSIs with a maximum
  std::optional<WarmThroughputDescription> warm_throughput;  // GSIs only
  int64_t index_size_bytes = 0;
  int64_t item_count = 0;
  std::string index_arn;
};

// UpdateTable's ReplicaUpdates: global tables, version 2019.11.21. A
// `dynarock serve` holds each region's tables (its namespaces) and acts on
// them (tools/server/global_tables.h); a DB alone holds one region.
struct ReplicaGlobalSecondaryIndex {  // one GSI's settings in one replica
  std::string index_name;
  std::optional<int64_t> read_capacity_units;     // ProvisionedThroughputOverride
  std::optional<int64_t> max_read_request_units;  // OnDemandThroughputOverride
};
struct ReplicaSettings {  // what a replica's Create or Update sets for it
  std::optional<std::string> kms_master_key_id;
  std::optional<int64_t> read_capacity_units;     // ProvisionedThroughputOverride
  std::optional<int64_t> max_read_request_units;  // OnDemandThroughputOverride
  std::vector<ReplicaGlobalSecondaryIndex> global_secondary_indexes;
};
struct ReplicaUpdate {
  enum class Action : uint8_t { kCreate, kUpdate, kDelete };
  Action action = Action::kCreate;
  std::string region_name;
  std::optional<std::string> table_class_override;  // Create, Update
  ReplicaSettings settings;                          // Create, Update
  int members = 1;  // of Create, Update and Delete given (the request decoder's count)
};
struct ReplicaDescription {
  std::string region_name;
  std::string replica_status = "ACTIVE";  // CREATING | ACTIVE | DELETING | ...
  ReplicaSettings settings;
  std::optional<std::string> table_class;  // ReplicaTableClassSummary
  std::optional<double> table_class_last_update;
};
// GlobalTableWitnessUpdates: an MRSC global table's witness region (no table
// of its own: it takes part in every write's agreement).
struct WitnessUpdate {
  enum class Action : uint8_t { kCreate, kDelete };
  Action action = Action::kCreate;
  std::string region_name;
  int members = 1;  // of Create and Delete given (the request decoder's count)
};
struct GlobalTableWitness {
  std::string region_name;
  std::string witness_status = "ACTIVE";  // CREATING | DELETING | ACTIVE
};
// A replica's view of its global table, as DescribeTable reports it
// (DB::SetGlobalTable): the other replicas, the witness, the mode.
struct GlobalTableMembers {
  std::vector<ReplicaDescription> replicas;
  std::vector<GlobalTableWitness> witnesses;
  bool strong = false;  // MultiRegionConsistency STRONG (MRSC)
};

struct TableDescription {
  std::string table_name;
  std::string table_status;  // "CREATING" | "ACTIVE" | "UPDATING" | "DELETING"
  std::vector<AttributeDefinition> attribute_definitions;
  std::vector<KeySchemaElement> key_schema;
  double creation_date_time = 0;  // seconds since the epoch
  ProvisionedThroughputDescription provisioned_throughput;
  std::optional<std::string> billing_mode;  // BillingModeSummary.BillingMode
  std::optional<double> last_update_to_pay_per_request_date_time;
  std::optional<OnDemandThroughput> on_demand_throughput;  // when a maximum is set
  int64_t table_size_bytes = 0;
  int64_t item_count = 0;
  std::string table_arn;
  std::string table_id;
  std::vector<IndexDescription> local_secondary_indexes;
  std::vector<IndexDescription> global_secondary_indexes;
  std::optional<StreamSpecification> stream_specification;
  // Of the table's latest stream, once one was enabled (still reported after
  // the stream is disabled, as DynamoDB does; read it with the Streams API,
  // dynarock/streams.h).
  std::optional<std::string> latest_stream_arn;
  std::optional<std::string> latest_stream_label;
  std::optional<std::string> table_class;
  std::optional<double> table_class_last_update;  // TableClassSummary.LastUpdateDateTime
  bool deletion_protection_enabled = false;
  std::optional<WarmThroughputDescription> warm_throughput;
  // Tables made by a restore: where from, and whether it is still running.
  struct RestoreSummary {
    std::optional<std::string> source_backup_arn;
    std::optional<std::string> source_table_arn;
    double restore_date_time = 0;
    bool restore_in_progress = false;
  };
  std::optional<RestoreSummary> restore_summary;
  // SSEDescription: tables created, updated or restored with SSE (KMS), as DynamoDB reports it.
  std::optional<std::string> sse_type;
  std::optional<std::string> kms_master_key_arn;
  // A global table's other replicas, and its version ("2019.11.21"; absent
  // for a table without replicas).
  std::vector<ReplicaDescription> replicas;
  std::vector<GlobalTableWitness> global_table_witnesses;  // MRSC with a witness
  std::optional<std::string> global_table_version;
  std::optional<std::string> multi_region_consistency;  // EVENTUAL | STRONG, with replicas
};

struct CreateTableResponse {
  TableDescription table_description;
};

struct DescribeTableRequest {
  std::string table_name;
};
struct DescribeTableResponse {
  TableDescription table;
};

struct DeleteTableRequest {
  std::string table_name;
};
struct DeleteTableResponse {
  TableDescription table_description;
};

struct ListTablesRequest {
  std::optional<std::string> exclusive_start_table_name;
  std::optional<int64_t> limit;  // 1..100, default 100
};
struct ListTablesResponse {
  std::vector<std::string> table_names;
  std::optional<std::string> last_evaluated_table_name;
};

// A GSI's new throughput: ProvisionedThroughput on a PROVISIONED table,
// OnDemandThroughput (merged into the index's, member by member) on a
// PAY_PER_REQUEST one.
struct UpdateGlobalSecondaryIndexAction {
  std::string index_name;
  std::optional<ProvisionedThroughput> provisioned_throughput;
  std::optional<OnDemandThroughput> on_demand_throughput;
  std::optional<WarmThroughput> warm_throughput;
};

struct GlobalSecondaryIndexUpdate {
  // Exactly one of these is set.
  std::optional<GlobalSecondaryIndex> create;
  std::optional<std::string> delete_index_name;
  std::optional<UpdateGlobalSecondaryIndexAction> update;
};

struct UpdateTableRequest {
  std::string table_name;
  std::vector<AttributeDefinition> attribute_definitions;
  std::optional<std::string> billing_mode;
  std::optional<ProvisionedThroughput> provisioned_throughput;
  // Merged into the table's maximums member by member (-1 removes one).
  std::optional<OnDemandThroughput> on_demand_throughput;
  std::vector<GlobalSecondaryIndexUpdate> global_secondary_index_updates;
  std::optional<StreamSpecification> stream_specification;
  std::optional<bool> deletion_protection_enabled;
  std::optional<SseSpecification> sse_specification;
  std::optional<WarmThroughput> warm_throughput;
  std::optional<std::string> table_class;  // STANDARD | STANDARD_INFREQUENT_ACCESS
  std::vector<ReplicaUpdate> replica_updates;
  std::vector<WitnessUpdate> witness_updates;  // GlobalTableWitnessUpdates
  std::optional<std::string> multi_region_consistency;  // EVENTUAL | STRONG
  // A global table's request: replicas, witnesses or the consistency mode.
  bool global() const { return !replica_updates.empty() || !witness_updates.empty() || multi_region_consistency.has_value(); }
};
struct UpdateTableResponse {
  TableDescription table_description;
};

// ---------------------------------------------------------------- capacity

enum class ReturnConsumedCapacity : uint8_t { kNone, kTotal, kIndexes };

struct Capacity {
  double read_capacity_units = 0;
  double write_capacity_units = 0;
  double capacity_units = 0;
};

struct ConsumedCapacity {
  std::string table_name;
  double capacity_units = 0;
  std::optional<double> read_capacity_units;
  std::optional<double> write_capacity_units;
  std::optional<Capacity> table;                            // with INDEXES
  std::map<std::string, Capacity> local_secondary_indexes;   // with INDEXES
  std::map<std::string, Capacity> global_secondary_indexes;  // with INDEXES
};

struct ItemCollectionMetrics {
  Item item_collection_key;
  std::vector<double> size_estimate_range_gb;
};

// ---------------------------------------------------------------- legacy parameters

// The 13 legacy comparison operators (Expected, KeyConditions, QueryFilter, ScanFilter).
struct LegacyCondition {  // "Condition" on the wire
  std::string comparison_operator;  // "EQ", "NE", "IN", "LE", ..., kept as text for messages
  std::vector<AttributeValue> attribute_value_list;
};

struct ExpectedAttributeValue {
  std::optional<AttributeValue> value;
  std::optional<bool> exists;
  std::optional<std::string> comparison_operator;
  std::optional<std::vector<AttributeValue>> attribute_value_list;
};

struct AttributeValueUpdate {
  std::optional<AttributeValue> value;
  std::string action = "PUT";  // "PUT" | "ADD" | "DELETE"
};

using LegacyConditionMap = std::map<std::string, LegacyCondition, std::less<>>;

// ---------------------------------------------------------------- items

// "NONE" | "ALL_OLD" | "UPDATED_OLD" | "ALL_NEW" | "UPDATED_NEW"
enum class ReturnValue : uint8_t { kNone, kAllOld, kUpdatedOld, kAllNew, kUpdatedNew };

struct PutItemRequest {
  std::string table_name;
  Item item;
  std::optional<std::string> condition_expression;
  NameMap expression_attribute_names;
  ValueMap expression_attribute_values;
  bool has_expression_attribute_names = false;   // present on the wire, even if empty
  bool has_expression_attribute_values = false;
  std::map<std::string, ExpectedAttributeValue, std::less<>> expected;
  bool has_expected = false;  // present on the wire, even if empty
  std::optional<std::string> conditional_operator;  // "AND" | "OR"
  ReturnValue return_values = ReturnValue::kNone;
  bool return_values_on_condition_check_failure_all_old = false;
  ReturnConsumedCapacity return_consumed_capacity = ReturnConsumedCapacity::kNone;
  bool return_item_collection_metrics = false;
};
struct PutItemResponse {
  std::optional<Item> attributes;
  std::optional<ConsumedCapacity> consumed_capacity;
  std::optional<ItemCollectionMetrics> item_collection_metrics;
};

struct GetItemRequest {
  std::string table_name;
  Item key;
  bool consistent_read = false;
  std::optional<std::string> projection_expression;
  NameMap expression_attribute_names;
  bool has_expression_attribute_names = false;
  std::vector<std::string> attributes_to_get;
  ReturnConsumedCapacity return_consumed_capacity = ReturnConsumedCapacity::kNone;
  // Not on the wire: the item as `encoded_item` (its stored bytes, read with
  // dynarock/item_view.h's ItemView) instead of `item`.
  bool encoded_items = false;
};
// The `bytes_read` fields below are not part of DynamoDB's responses (they are
// never sent on the wire): the DynamoDB-sized bytes the request read, which is
// what it is billed on, for `dynarock patterns` and other embedded measurements.

struct GetItemResponse {
  std::optional<Item> item;  // absent when there is no such item
  std::optional<ConsumedCapacity> consumed_capacity;
  int64_t bytes_read = 0;  // not on the wire
  std::optional<std::string> encoded_item;  // instead of `item`, when asked for encoded_items
};

struct DeleteItemRequest {
  std::string table_name;
  Item key;
  std::optional<std::string> condition_expression;
  NameMap expression_attribute_names;
  ValueMap expression_attribute_values;
  bool has_expression_attribute_names = false;
  bool has_expression_attribute_values = false;
  std::map<std::string, ExpectedAttributeValue, std::less<>> expected;
  bool has_expected = false;  // present on the wire, even if empty
  std::optional<std::string> conditional_operator;
  ReturnValue return_values = ReturnValue::kNone;
  bool return_values_on_condition_check_failure_all_old = false;
  ReturnConsumedCapacity return_consumed_capacity = ReturnConsumedCapacity::kNone;
  bool return_item_collection_metrics = false;
};
struct DeleteItemResponse {
  std::optional<Item> attributes;
  std::optional<ConsumedCapacity> consumed_capacity;
  std::optional<ItemCollectionMetrics> item_collection_metrics;
};

struct UpdateItemRequest {
  std::string table_name;
  Item key;
  std::optional<std::string> update_expression;
  std::optional<std::string> condition_expression;
  NameMap expression_attribute_names;
  ValueMap expression_attribute_values;
  bool has_expression_attribute_names = false;
  bool has_expression_attribute_values = false;
  std::map<std::string, AttributeValueUpdate, std::less<>> attribute_updates;
  bool has_attribute_updates = false;
  std::map<std::string, ExpectedAttributeValue, std::less<>> expected;
  bool has_expected = false;  // present on the wire, even if empty
  std::optional<std::string> conditional_operator;
  ReturnValue return_values = ReturnValue::kNone;
  bool return_values_on_condition_check_failure_all_old = false;
  ReturnConsumedCapacity return_consumed_capacity = ReturnConsumedCapacity::kNone;
  bool return_item_collection_metrics = false;
};
struct UpdateItemResponse {
  std::optional<Item> attributes;
  std::optional<ConsumedCapacity> consumed_capacity;
  std::optional<ItemCollectionMetrics> item_collection_metrics;
};

// ---------------------------------------------------------------- query and scan

// "ALL_ATTRIBUTES" | "ALL_PROJECTED_ATTRIBUTES" | "SPECIFIC_ATTRIBUTES" | "COUNT"
enum class Select : uint8_t { kAllAttributes, kAllProjectedAttributes, kSpecificAttributes, kCount };

struct QueryRequest {
  std::string table_name;
  std::optional<std::string> index_name;
  std::optional<Select> select;
  std::optional<std::string> key_condition_expression;
  std::optional<std::string> filter_expression;
  std::optional<std::string> projection_expression;
  NameMap expression_attribute_names;
  ValueMap expression_attribute_values;
  bool has_expression_attribute_names = false;
  bool has_expression_attribute_values = false;
  LegacyConditionMap key_conditions;
  bool has_key_conditions = false;
  LegacyConditionMap query_filter;
  bool has_query_filter = false;
  std::optional<std::string> conditional_operator;
  std::vector<std::string> attributes_to_get;
  bool has_attributes_to_get = false;
  bool scan_index_forward = true;
  std::optional<int64_t> limit;
  std::optional<Item> exclusive_start_key;
  bool consistent_read = false;
  ReturnConsumedCapacity return_consumed_capacity = ReturnConsumedCapacity::kNone;
  // Not on the wire: the page's items as `encoded_items` (dynarock/item_view.h),
  // read from their stored bytes, instead of `items`.
  bool encoded_items = false;
};
struct QueryResponse {
  std::vector<Item> items;  // empty with Select COUNT
  int64_t count = 0;
  int64_t scanned_count = 0;
  std::optional<Item> last_evaluated_key;
  std::optional<ConsumedCapacity> consumed_capacity;
  int64_t bytes_read = 0;  // not on the wire
  EncodedItems encoded_items;  // instead of `items`, when asked for encoded_items
};

struct ScanRequest {
  std::string table_name;
  std::optional<std::string> index_name;
  std::optional<Select> select;
  std::optional<std::string> filter_expression;
  std::optional<std::string> projection_expression;
  NameMap expression_attribute_names;
  ValueMap expression_attribute_values;
  bool has_expression_attribute_names = false;
  bool has_expression_attribute_values = false;
  LegacyConditionMap scan_filter;
  bool has_scan_filter = false;
  std::optional<std::string> conditional_operator;
  std::vector<std::string> attributes_to_get;
  bool has_attributes_to_get = false;
  std::optional<int64_t> limit;
  std::optional<Item> exclusive_start_key;
  std::optional<int64_t> segment;
  std::optional<int64_t> total_segments;
  bool consistent_read = false;
  ReturnConsumedCapacity return_consumed_capacity = ReturnConsumedCapacity::kNone;
  bool encoded_items = false;  // as QueryRequest's
};
using ScanResponse = QueryResponse;

// ---------------------------------------------------------------- batches

struct KeysAndAttributes {
  std::vector<Item> keys;
  bool consistent_read = false;
  std::optional<std::string> projection_expression;
  NameMap expression_attribute_names;
  bool has_expression_attribute_names = false;
  std::vector<std::string> attributes_to_get;
};

struct BatchGetItemRequest {
  std::map<std::string, KeysAndAttributes> request_items;
  ReturnConsumedCapacity return_consumed_capacity = ReturnConsumedCapacity::kNone;
  bool encoded_items = false;  // as QueryRequest's: `encoded_responses`, not `responses`
};
struct BatchGetItemResponse {
  std::map<std::string, std::vector<Item>> responses;  // every table named, even if empty
  std::map<std::string, KeysAndAttributes> unprocessed_keys;
  std::vector<ConsumedCapacity> consumed_capacity;
  bool has_consumed_capacity = false;
  int64_t bytes_read = 0;  // not on the wire
  std::map<std::string, EncodedItems> encoded_responses;  // instead, with encoded_items
};

struct WriteRequest {
  // Exactly one is set: PutRequest.Item or DeleteRequest.Key.
  std::optional<Item> put_item;
  std::optional<Item> delete_key;
};

struct BatchWriteItemRequest {
  std::map<std::string, std::vector<WriteRequest>> request_items;
  ReturnConsumedCapacity return_consumed_capacity = ReturnConsumedCapacity::kNone;
  bool return_item_collection_metrics = false;
};
struct BatchWriteItemResponse {
  std::map<std::string, std::vector<WriteRequest>> unprocessed_items;
  std::vector<ConsumedCapacity> consumed_capacity;
  bool has_consumed_capacity = false;
  std::map<std::string, std::vector<ItemCollectionMetrics>> item_collection_metrics;
};

// ---------------------------------------------------------------- transactions

struct TransactWriteItem {
  enum class Kind : uint8_t { kConditionCheck, kPut, kDelete, kUpdate };
  Kind kind = Kind::kPut;
  std::string table_name;
  Item item;  // kPut
  Item key;   // kConditionCheck, kDelete, kUpdate
  std::optional<std::string> update_expression;     // kUpdate
  std::optional<std::string> condition_expression;  // required for kConditionCheck
  NameMap expression_attribute_names;
  ValueMap expression_attribute_values;
  bool has_expression_attribute_names = false;
  bool has_expression_attribute_values = false;
  bool return_values_on_condition_check_failure_all_old = false;
};

struct TransactWriteItemsRequest {
  std::vector<TransactWriteItem> transact_items;
  std::optional<std::string> client_request_token;
  ReturnConsumedCapacity return_consumed_capacity = ReturnConsumedCapacity::kNone;
  bool return_item_collection_metrics = false;
};
struct TransactWriteItemsResponse {
  std::vector<ConsumedCapacity> consumed_capacity;
  bool has_consumed_capacity = false;
  std::map<std::string, std::vector<ItemCollectionMetrics>> item_collection_metrics;
};

struct TransactGetItem {
  std::string table_name;
  Item key;
  std::optional<std::string> projection_expression;
  NameMap expression_attribute_names;
  bool has_expression_attribute_names = false;
};

struct TransactGetItemsRequest {
  std::vector<TransactGetItem> transact_items;
  ReturnConsumedCapacity return_consumed_capacity = ReturnConsumedCapacity::kNone;
  bool encoded_items = false;  // as QueryRequest's: `encoded_responses`, not `responses`
};
struct TransactGetItemsResponse {
  std::vector<std::optional<Item>> responses;  // in request order; nullopt = no item
  std::vector<ConsumedCapacity> consumed_capacity;
  bool has_consumed_capacity = false;
  int64_t bytes_read = 0;  // not on the wire
  // Instead, with encoded_items: each item's stored bytes, in request order.
  std::vector<std::optional<std::string>> encoded_responses;
};

// ---- Time to live

struct TimeToLiveSpecification {
  bool enabled = false;
  std::string attribute_name;
};
struct UpdateTimeToLiveRequest {
  std::string table_name;
  TimeToLiveSpecification time_to_live_specification;
};
struct UpdateTimeToLiveResponse {
  TimeToLiveSpecification time_to_live_specification;
};
struct DescribeTimeToLiveRequest {
  std::string table_name;
};
struct DescribeTimeToLiveResponse {
  std::string time_to_live_status = "DISABLED";  // "ENABLED" | "DISABLED"
  std::optional<std::string> attribute_name;     // when ENABLED
};

// ---- Continuous backups (point-in-time recovery)
//
// Dynarock keeps the setting, as a test double must, but does not restore: there
// is no RestoreTableToPointInTime.

struct ContinuousBackupsDescription {
  std::string continuous_backups_status = "ENABLED";
  std::string point_in_time_recovery_status = "DISABLED";  // "ENABLED" | "DISABLED"
  std::optional<int64_t> recovery_period_in_days;           // when ENABLED
  std::optional<double> earliest_restorable_date_time;      // when ENABLED
  std::optional<double> latest_restorable_date_time;        // when ENABLED
};
struct DescribeContinuousBackupsRequest {
  std::string table_name;
};
struct DescribeContinuousBackupsResponse {
  ContinuousBackupsDescription description;
};
struct UpdateContinuousBackupsRequest {
  std::string table_name;
  bool point_in_time_recovery_enabled = false;
  std::optional<int64_t> recovery_period_in_days;  // 1..35, default 35
};
struct UpdateContinuousBackupsResponse {
  ContinuousBackupsDescription description;
};

// ---- Tags (on tables, named by their ARN)

struct TagResourceRequest {
  std::string resource_arn;
  std::vector<Tag> tags;
};
struct TagResourceResponse {};
struct UntagResourceRequest {
  std::string resource_arn;
  std::vector<std::string> tag_keys;
};
struct UntagResourceResponse {};
struct ListTagsOfResourceRequest {
  std::string resource_arn;
  std::optional<std::string> next_token;
};
struct ListTagsOfResourceResponse {
  std::vector<Tag> tags;  // sorted by key
  std::optional<std::string> next_token;
};

// ---------------------------------------------------------------- resource-based policies

// A table's or its current stream's policy document (IAM JSON, at most 20 KB),
// checked as DynamoDB checks it, stored with a revision id and reported
// (engine/resource_policies.cc).
struct PutResourcePolicyRequest {
  std::string resource_arn;
  std::string policy;
  // The revision the caller expects ("NO_POLICY": none); else PolicyNotFound.
  std::optional<std::string> expected_revision_id;
  bool confirm_remove_self_resource_access = false;
};
struct PutResourcePolicyResponse {
  std::string revision_id;
};
struct GetResourcePolicyRequest {
  std::string resource_arn;
};
struct GetResourcePolicyResponse {
  std::string policy;
  std::string revision_id;
};
struct DeleteResourcePolicyRequest {
  std::string resource_arn;
  std::optional<std::string> expected_revision_id;
};
struct DeleteResourcePolicyResponse {
  std::optional<std::string> revision_id;  // of the policy deleted; none when there was none
};


// ---- Contributor Insights (engine/contributor_insights.cc; the counting of
// keys is the endpoint's, engine/api/contributor_insights.h)

struct DescribeContributorInsightsRequest {
  std::string table_name;  // a name or an ARN
  std::optional<std::string> index_name;
};
struct DescribeContributorInsightsResponse {
  std::string table_name;
  std::optional<std::string> index_name;
  std::vector<std::string> rule_list;  // while ENABLED
  std::string status;                  // ENABLED | DISABLED
  std::optional<double> last_update_date_time;  // once ever configured
  std::optional<std::string> mode;              // once ever configured
};
struct ListContributorInsightsRequest {
  std::optional<std::string> table_name;
  std::optional<std::string> next_token;
  std::optional<int64_t> max_results;  // at most 100 (the default)
};
struct ContributorInsightsSummary {
  std::string table_name;
  std::optional<std::string> index_name;
  std::string status;
  std::optional<std::string> mode;
};
struct ListContributorInsightsResponse {
  std::vector<ContributorInsightsSummary> summaries;
  std::optional<std::string> next_token;
};
struct UpdateContributorInsightsRequest {
  std::string table_name;
  std::optional<std::string> index_name;
  std::string action;               // ENABLE | DISABLE
  std::optional<std::string> mode;  // ACCESSED_AND_THROTTLED_KEYS (default) | THROTTLED_KEYS
};
struct UpdateContributorInsightsResponse {
  std::string table_name;
  std::optional<std::string> index_name;
  std::string status;  // ENABLING | DISABLING, or ENABLED | DISABLED when nothing changed
  std::optional<std::string> mode;
};

// ---- Kinesis streaming destinations (engine/kinesis_destinations.cc; the
// records go to Options::kinesis_sink_dir)

// Enable, Disable and Update: the table, the Kinesis stream and the
// precision of ApproximateCreationDateTime (MILLISECOND | MICROSECOND).
struct KinesisStreamingDestinationRequest {
  std::string table_name;  // a name or an ARN
  std::string stream_arn;
  // EnableKinesisStreamingConfiguration (Enable, Disable) or
  // UpdateKinesisStreamingConfiguration (Update): whether given, and its
  // precision if any.
  bool configuration = false;
  std::optional<std::string> precision;
};
struct KinesisStreamingDestinationResponse {
  std::string table_name;
  std::string stream_arn;
  std::string destination_status;  // ENABLING | DISABLING | UPDATING
  bool configuration = false;      // echoed as given
  std::optional<std::string> precision;
};
struct DescribeKinesisStreamingDestinationRequest {
  std::string table_name;
};
struct KinesisDataStreamDestination {
  std::string stream_arn;
  std::string destination_status;
  std::optional<std::string> destination_status_description;
  std::optional<std::string> precision;
};
struct DescribeKinesisStreamingDestinationResponse {
  std::string table_name;
  std::vector<KinesisDataStreamDestination> destinations;
};

}  // namespace dynarock

#endif  // DYNAROCK_REQUESTS_H_
