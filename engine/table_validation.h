// File: engine/table_validation.h
//
// The validations DynamoDB applies to table and index definitions (CreateTable,
// UpdateTable) and to table names, with DynamoDB's messages. Pure functions over
// the request structs: no storage access.

#ifndef DYNAROCK_ENGINE_TABLE_VALIDATION_H_
#define DYNAROCK_ENGINE_TABLE_VALIDATION_H_

#include <string>
#include <string_view>
#include <vector>

#include "dynarock/requests.h"
#include "dynarock/status.h"
#include "engine/limits.h"
#include "engine/table_info.h"

namespace dynarock {

// Collects "Value ... at '<field>' failed to satisfy constraint: ..." violations
// and renders them as DynamoDB does: "1 validation error detected: ..." or
// "N validation errors detected: a; b".
class ConstraintErrors {
 public:
  void Add(std::string violation) { violations_.push_back(std::move(violation)); }
  // Table and index names: length 3..255 and [a-zA-Z0-9_.-]+.
  void CheckName(std::string_view name, std::string_view field);
  // A TableName parameter: a table name, or a table's ARN (up to 1024 characters).
  void CheckTableName(std::string_view name_or_arn, std::string_view field);
  const std::vector<std::string>& violations() const { return violations_; }
  bool empty() const { return violations_.empty(); }
  Status ToStatus() const;

 private:
  std::vector<std::string> violations_;
};

// The table name in a TableName parameter, which may also be the table's ARN
// ("arn:aws:dynamodb:us-east-1:000000000000:table/people" -> "people").
std::string_view TableNameOf(std::string_view name_or_arn);
// ResourceNotFoundException "Requested resource not found: Table: <name> not found".
Status TableNotFound(std::string_view name_or_arn);

// Table name rules for `field` (a table ARN is accepted too) ("tableName", "exclusiveStartTableName", ...).
Status ValidateTableName(std::string_view name, std::string_view field);

// Each tag's rules (key 1..128 characters, value up to 256, letters, digits,
// white space and + - = . _ : / @, no "aws:" prefix); `field` names the list in
// messages. The count is MergeTags'.
Status CheckTags(const std::vector<Tag>& tags, std::string_view field);
// Adds `tags` to `info` (a key given again gets the new value), refusing more
// than 50; keeps the tags sorted by key.
Status MergeTags(const std::vector<Tag>& tags, TableInfo* info);

// A stream's label: its creation time, ISO 8601 with milliseconds
// ("2026-11-22T17:30:05.123"), as DynamoDB labels streams.
std::string StreamLabel(double epoch_seconds);

// Checks a CreateTable request and builds the TableInfo it describes (ids, uuid and
// times are left for the caller).
StatusOr<TableInfo> ValidateCreateTable(const CreateTableRequest& req, double now);

// Checks an UpdateTable request against the current table and applies it to `info`.
Status ValidateUpdateTable(const UpdateTableRequest& req, TableInfo* info, double now);
// The UpdateTable checks that need no table, made before it is looked up
// (DynamoDB's order): throughput bounds, each index update well formed and
// once per index, something to update at all.
Status CheckUpdateTableRequest(const UpdateTableRequest& req);

// A resource-based policy document as DynamoDB checks it before attaching it
// (engine/resource_policies.cc).
Status CheckResourcePolicy(std::string_view policy);

// IAM's wildcards, as policies match actions (ignore_case) and resources:
// '*' any run of characters, '?' one.
bool IamWildcardMatch(std::string_view pattern, std::string_view text, bool ignore_case);

// SSESpecification into a table's SSE fields: Enabled true is KMS with the key
// given (an ARN as it is; an alias or key id made an ARN under
// `kms_arn_prefix`, "arn:aws:kms:REGION:ACCOUNT:") or DynamoDB's own
// (alias/aws/dynamodb); false or absent is an AWS owned key, which DynamoDB
// does not describe. `member` names it in errors ("sSESpecification").
Status ApplySseSpecification(const SseSpecification& s, std::string_view member,
                             std::string_view kms_arn_prefix, TableInfo* info);

// WarmThroughput into the asked-for values of a table or GSI: at least one
// member; with `current` (an update), neither may go below what is reported
// now (warm throughput only grows). `what` names the table or index in errors.
Status ApplyWarmThroughput(const WarmThroughput& w, const std::string& what,
                           std::optional<int64_t>* read, std::optional<int64_t>* write,
                           const WarmThroughputDescription* current = nullptr);

// CreateTable's SSESpecification and WarmThroughput (the table's and its GSIs')
// into `info` (CreateTable, and tables made by restores and imports).
Status ApplyCreateTableSettings(const CreateTableRequest& req, std::string_view kms_arn_prefix,
                                TableInfo* info);

// What DescribeTable reports: at least DynamoDB's defaults for a new table or
// index (12,000 read and 4,000 write units a second) and the provisioned
// throughput, or what was asked for when more.
WarmThroughputDescription DescribeWarmThroughput(std::optional<int64_t> read, std::optional<int64_t> write,
                                                 const std::optional<ProvisionedThroughput>& provisioned);

}  // namespace dynarock

#endif  // DYNAROCK_ENGINE_TABLE_VALIDATION_H_
