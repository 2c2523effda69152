// File: engine/table_info.h
//
// A table's metadata as the engine uses it: immutable once published in the
// catalog (a change makes a new TableInfo), shared by readers through shared_ptr.
// Persisted in the catalog column family as an Item in the item codec (see
// catalog.cc), so the catalog needs no format of its own.

#ifndef DYNAROCK_ENGINE_TABLE_INFO_H_
#define DYNAROCK_ENGINE_TABLE_INFO_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dynarock/requests.h"

namespace dynarock {

// One attribute of a key: its name and its declared scalar type.
struct KeyAttribute {
  std::string name;
  AttrType type = AttrType::kS;
};

// A table's or an index's primary key: its partition (HASH) attributes and its
// sort (RANGE) attributes, in key-schema order. Tables and LSIs have exactly one
// partition attribute and at most one sort attribute; a GSI may have up to four
// of each (DynamoDB's multi-attribute keys, index/key_condition.h).
struct KeyDef {
  std::vector<KeyAttribute> hash;
  std::vector<KeyAttribute> range;

  const std::string& hash_name() const { return hash.front().name; }
  AttrType hash_type() const { return hash.front().type; }
  bool has_range() const { return !range.empty(); }
  const std::string& range_name() const { return range.front().name; }
  AttrType range_type() const { return range.front().type; }
  bool multi_attribute() const { return hash.size() > 1 || range.size() > 1; }
  size_t size() const { return hash.size() + range.size(); }

  bool IsKeyAttribute(std::string_view name) const {
    for (const auto& a : hash)
      if (a.name == name) return true;
    for (const auto& a : range)
      if (a.name == name) return true;
    return false;
  }
};

struct IndexInfo {
  uint32_t id = 0;  // key prefix of the index's entries; never reused
  std::string name;
  bool global = true;
  KeyDef key;
  std::vector<KeySchemaElement> key_schema;
  Projection projection;
  std::string status = "ACTIVE";  // "CREATING" while backfilling
  std::optional<ProvisionedThroughput> throughput;
  // A GSI's maximums on a PAY_PER_REQUEST table; never -1, never with neither member.
  std::optional<OnDemandThroughput> on_demand_throughput;
  // WarmThroughput asked for (DescribeTable reports at least the defaults).
  std::optional<int64_t> warm_read, warm_write;
};

struct TableInfo {
  uint32_t id = 0;  // key prefix of the table's items; never reused
  std::string name;
  std::string uuid;  // TableId
  KeyDef key;
  std::vector<KeySchemaElement> key_schema;
  std::vector<AttributeDefinition> attribute_definitions;
  double creation_time = 0;
  std::string billing_mode = "PROVISIONED";
  ProvisionedThroughput throughput;
  // The maximums of a PAY_PER_REQUEST table; never -1, never with neither member.
  std::optional<OnDemandThroughput> on_demand_throughput;
  std::optional<double> pay_per_request_since;
  std::vector<IndexInfo> indexes;  // GSIs and LSIs
  std::optional<StreamSpecification> stream_specification;
  std::optional<std::string> table_class;
  std::optional<double> table_class_updated;  // when UpdateTable last changed it
  bool deletion_protection = false;
  // WarmThroughput asked for (DescribeTable reports at least the defaults).
  std::optional<int64_t> warm_read, warm_write;
  std::vector<Tag> tags;            // sorted by key
  std::optional<std::string> ttl_attribute;  // TimeToLive enabled on this attribute
  std::optional<std::string> stream_label;   // when a stream was last enabled (ISO 8601)
  uint32_t stream_id = 0;  // the change log's stream of that label (engine/change_log.h)
  // Point-in-time recovery enabled, since when, keeping how many days.
  std::optional<double> pitr_since;
  int64_t pitr_days = 35;
  uint32_t pitr_history_id = 0;  // its history in the change log (change_log.h)
  // Resource-based policies (engine/resource_policies.cc): the table's, and its
  // stream's (that stream's label: a policy goes with the stream it names).
  std::optional<std::string> policy, policy_revision;
  std::optional<std::string> stream_policy, stream_policy_revision, stream_policy_label;
  // A table being filled by a restore or DB::LoadTable ("restore", "load"):
  // CREATING, its items unreadable, until the fill is whole (engine/backups.cc).
  std::string loading;
  // Made by a restore (RestoreSummary): from which backup or table, to when.
  std::optional<std::string> restore_backup_arn;
  std::optional<std::string> restore_source_arn;
  std::optional<double> restore_time;
  // Options::transient_status_seconds: "CREATING" or "UPDATING" until
  // settles_at (seconds, the change log's clock); not persisted.
  std::string settling;
  double settles_at = 0;
  // SSEDescription: SSESpecification of CreateTable or UpdateTable, or a
  // restore's SSESpecificationOverride.
  std::optional<std::string> sse_type;
  std::optional<std::string> kms_key_arn;
  // Contributor Insights of the table ("") and its GSIs (by name), once ever
  // configured (engine/contributor_insights.cc).
  struct Insights {
    bool enabled = false;
    std::string mode;      // ACCESSED_AND_THROTTLED_KEYS or THROTTLED_KEYS
    double updated = 0;    // LastUpdateDateTime: the last change of status or mode
    int64_t rules_ms = 0;  // when its rules were made: their names end with it
  };
  std::map<std::string, Insights, std::less<>> insights;
  // Kinesis streaming destinations (engine/kinesis_destinations.cc), in the
  // order first enabled; at most one live (ENABLING, ACTIVE, UPDATING,
  // DISABLING), the others DISABLED or ENABLE_FAILED. While one is ACTIVE
  // the change log keeps the table's delivery log, kinesis_log_id.
  struct KinesisDestination {
    std::string stream_arn;
    std::string status;
    std::optional<std::string> precision;  // ApproximateCreationDateTimePrecision, once set
  };
  std::vector<KinesisDestination> kinesis;
  uint32_t kinesis_log_id = 0;
  // The global table this table is a replica of (DB::SetGlobalTable; the
  // endpoint's global tables keep it, tools/server/global_tables.h).
  GlobalTableMembers global;

  const IndexInfo* FindIndex(std::string_view index_name) const {
    for (const auto& index : indexes)
      if (index.name == index_name) return &index;
    return nullptr;
  }
};

using TableInfoPtr = std::shared_ptr<const TableInfo>;

// The KeyDef of a key schema whose attributes are in `defs`.
KeyDef KeyDefFor(const std::vector<KeySchemaElement>& ks,
                 const std::vector<AttributeDefinition>& defs);

// A key schema <-> its catalog encoding (a list of {n: name, t: key type}),
// for the catalog's other records too (the change log's streams).
AttributeValue KeySchemaToValue(const std::vector<KeySchemaElement>& ks);
std::vector<KeySchemaElement> KeySchemaFromValue(const AttributeValue* v);

// TableInfo <-> the Item stored in the catalog.
Item TableInfoToItem(const TableInfo& info);
bool TableInfoFromItem(const Item& item, TableInfo* info);

}  // namespace dynarock

#endif  // DYNAROCK_ENGINE_TABLE_INFO_H_
