// File: dynarock/backups.h
//
// On-demand backups, point-in-time restores, and the two primitives exports
// and imports are built on: reading a table as it was at a time (and what
// changed between two times), and loading a new table that nobody sees until
// it is whole. Requests and responses mirror DynamoDB's; times are seconds
// since the Unix epoch.

#ifndef DYNAROCK_BACKUPS_H_
#define DYNAROCK_BACKUPS_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dynarock/requests.h"
#include "dynarock/status.h"

namespace dynarock {

struct BackupDetails {
  std::string backup_arn;
  std::string backup_name;
  int64_t backup_size_bytes = 0;
  std::string backup_status;  // "CREATING" | "AVAILABLE" | "DELETED"
  std::string backup_type = "USER";  // "USER" | "SYSTEM"
  double backup_creation_date_time = 0;
  std::optional<double> backup_expiry_date_time;  // SYSTEM backups
};

// The source table as it was when backed up.
struct SourceTableDetails {
  std::string table_name;
  std::string table_id;
  std::string table_arn;
  int64_t table_size_bytes = 0;
  std::vector<KeySchemaElement> key_schema;
  std::vector<AttributeDefinition> attribute_definitions;  // not on the wire
  double table_creation_date_time = 0;
  ProvisionedThroughput provisioned_throughput;
  std::optional<OnDemandThroughput> on_demand_throughput;  // the maximums it had
  int64_t item_count = 0;
  std::string billing_mode = "PROVISIONED";
};

struct SourceTableFeatureDetails {
  std::vector<LocalSecondaryIndex> local_secondary_indexes;
  std::vector<GlobalSecondaryIndex> global_secondary_indexes;
  std::optional<StreamSpecification> stream_description;
  std::optional<std::string> time_to_live_attribute;  // TimeToLiveDescription when ENABLED
};

struct BackupDescription {
  BackupDetails backup_details;
  SourceTableDetails source_table_details;
  SourceTableFeatureDetails source_table_feature_details;
};

struct BackupSummary {
  std::string table_name;
  std::string table_id;
  std::string table_arn;
  BackupDetails details;
};

struct CreateBackupRequest {
  std::string table_name;  // or its ARN
  std::string backup_name;
};
struct CreateBackupResponse {
  BackupDetails backup_details;
};
struct DescribeBackupRequest {
  std::string backup_arn;
};
struct DescribeBackupResponse {
  BackupDescription backup_description;
};
struct DeleteBackupRequest {
  std::string backup_arn;
};
struct DeleteBackupResponse {
  BackupDescription backup_description;
};
struct ListBackupsRequest {
  std::optional<std::string> table_name;
  std::optional<int64_t> limit;  // 1..100
  std::optional<double> time_range_lower_bound;  // inclusive
  std::optional<double> time_range_upper_bound;  // exclusive
  std::optional<std::string> exclusive_start_backup_arn;
  std::string backup_type = "USER";  // "USER" | "SYSTEM" | "AWS_BACKUP" | "ALL"
};
struct ListBackupsResponse {
  std::vector<BackupSummary> backup_summaries;
  std::optional<std::string> last_evaluated_backup_arn;
};

// What a restore may change of the source's settings.
struct RestoreOverrides {
  std::optional<std::string> billing_mode;  // "PROVISIONED" | "PAY_PER_REQUEST"
  std::optional<ProvisionedThroughput> provisioned_throughput;
  // OnDemandThroughputOverride: merged into the source's maximums member by
  // member (-1 removes one); PAY_PER_REQUEST targets only.
  std::optional<OnDemandThroughput> on_demand_throughput;
  bool has_global_secondary_indexes = false;  // GlobalSecondaryIndexOverride given
  std::vector<GlobalSecondaryIndex> global_secondary_indexes;
  bool has_local_secondary_indexes = false;
  std::vector<LocalSecondaryIndex> local_secondary_indexes;
  std::optional<bool> sse_enabled;  // SSESpecificationOverride.Enabled
  std::optional<std::string> sse_type;
  std::optional<std::string> kms_master_key_id;
};

struct RestoreTableFromBackupRequest {
  std::string target_table_name;
  std::string backup_arn;
  RestoreOverrides overrides;
};
struct RestoreTableFromBackupResponse {
  TableDescription table_description;
};
struct RestoreTableToPointInTimeRequest {
  std::optional<std::string> source_table_arn;
  std::optional<std::string> source_table_name;
  std::string target_table_name;
  bool use_latest_restorable_time = false;
  std::optional<double> restore_date_time;
  RestoreOverrides overrides;
};
struct RestoreTableToPointInTimeResponse {
  TableDescription table_description;
};

// ---- Primitives of exports and imports

// One item's net change between two times (DynamoDB's incremental export):
// its key attributes, its image at the start (none: it did not exist) and at
// the end (none: deleted), each in the item codec's encoding, and when it was
// last written, in microseconds since the epoch.
struct TableChange {
  std::string keys;
  std::optional<std::string> old_image;
  std::optional<std::string> new_image;
  int64_t write_micros = 0;
};

// Adds items to a table being loaded (DB::LoadTable).
class TableLoader {
 public:
  virtual ~TableLoader() = default;
  // Adds (or replaces) one item. A ValidationException (a missing or mistyped
  // key attribute, an item over 400 KB, ...) rejects that item alone: the load
  // goes on.
  virtual Status Add(Item item) = 0;
  // Add's checks of the item alone (normalising its numbers, validating its
  // values and size), callable from any thread: a reader can run them on its
  // own thread while the loader adds earlier items with AddPrepared, which
  // skips them.
  static Status Prepare(Item* item);
  virtual Status AddPrepared(Item item) = 0;
  // An item already in the item codec's encoding (engine/item_codec.h:
  // EncodeItemTo, EncodeItemWithStrings), made of values that passed
  // Prepare's checks: its key and index key attributes are read from the
  // bytes, so a bulk load need not build a map per item. An item over 400 KB
  // is refused here; its keys may be read later, on the loader's own thread,
  // where bytes that are no item, or a missing, mistyped or oversized key
  // attribute, fail the load (the caller checks the items it encodes). The
  // bytes are copied: the caller may reuse its buffer at once.
  virtual Status AddEncoded(std::string_view encoded) = 0;
  // A checkpoint (DB::SaveCheckpoint) written by the same write that makes
  // the table ACTIVE, if the load succeeds: a record of the load (say, an
  // import job's COMPLETED status) that a crash cannot part from the table.
  // ValidationException for a bad name; the last value given for a name wins.
  virtual Status SaveCheckpointWithTable(std::string_view name, std::string value) = 0;
  virtual int64_t items() const = 0;
  virtual int64_t bytes() const = 0;  // DynamoDB size of the items added
};

}  // namespace dynarock

#endif  // DYNAROCK_BACKUPS_H_
