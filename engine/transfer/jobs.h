// File: engine/transfer/jobs.h
//
// The records of export and import jobs: what DescribeExport/ListExports and
// DescribeImport/ListImports report, written in DynamoDB's wire shapes
// (ExportDescription, ExportSummary, ImportTableDescription, ImportSummary),
// and kept in the DB's checkpoint store as that same JSON plus a few members
// of our own (prefixed "_"), so they survive restarts. Internal to
// engine/transfer.

#ifndef DYNAROCK_TRANSFER_JOBS_H_
#define DYNAROCK_TRANSFER_JOBS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dynarock/status.h"
#include "engine/api/json_writer.h"

namespace dynarock::transfer {

struct ExportRecord {
  std::string id;  // "<13-digit ms>-<8 hex>", DynamoDB's shape
  std::string arn;
  std::string status = "IN_PROGRESS";  // IN_PROGRESS | COMPLETED | FAILED
  std::string table_name, table_arn, table_id;
  double start_time = 0;
  std::optional<double> end_time;
  std::optional<double> export_time;  // full exports
  std::string client_token;
  std::string s3_bucket;
  std::optional<std::string> s3_bucket_owner, s3_prefix;
  std::string s3_sse_algorithm = "AES256";
  std::optional<std::string> s3_sse_kms_key_id;
  std::string export_format = "DYNAMODB_JSON";
  std::string export_type = "FULL_EXPORT";
  std::optional<double> from_time, to_time;  // incremental
  std::string view_type = "NEW_AND_OLD_IMAGES";
  std::optional<std::string> failure_code, failure_message;
  int64_t billed_size_bytes = 0, item_count = 0;
  std::string export_manifest;  // the S3 key of manifest-summary.json
  std::string fingerprint;      // the request's parameters, for ClientToken reuse
};

struct ImportRecord {
  std::string id;
  std::string arn;
  std::string status = "IN_PROGRESS";  // IN_PROGRESS | COMPLETED | FAILED | CANCELLED ...
  std::string table_name, table_arn, table_id;
  std::string client_token;
  std::string s3_bucket;
  std::optional<std::string> s3_bucket_owner, s3_key_prefix;
  int64_t error_count = 0;
  std::string log_group_arn;
  std::string input_format;
  std::optional<std::string> csv_delimiter;
  std::optional<std::vector<std::string>> csv_header;
  std::string compression = "NONE";
  std::string table_creation_parameters;  // its JSON, as given
  double start_time = 0;
  std::optional<double> end_time;
  int64_t processed_size_bytes = 0, processed_item_count = 0, imported_item_count = 0;
  std::optional<std::string> failure_code, failure_message;
  std::string fingerprint;
};

// {"ExportArn":...} members of ExportDescription (the caller opens and closes
// the object); with `internal`, the "_" members for storage too.
void WriteExportDescription(api::JsonWriter* w, const ExportRecord& r, bool internal);
void WriteExportSummary(api::JsonWriter* w, const ExportRecord& r);
void WriteImportDescription(api::JsonWriter* w, const ImportRecord& r, bool internal);
void WriteImportSummary(api::JsonWriter* w, const ImportRecord& r);

std::string StoreExport(const ExportRecord& r);
std::string StoreImport(const ImportRecord& r);
StatusOr<ExportRecord> LoadExport(std::string_view json);
StatusOr<ImportRecord> LoadImport(std::string_view json);

// "2020-11-04T07:28:34.028Z"
std::string IsoTime(double seconds);

}  // namespace dynarock::transfer

#endif  // DYNAROCK_TRANSFER_JOBS_H_

namespace dynarock::transfer {
// The manifest-summary.json of an export (DynamoDB's members: version,
// exportArn, startTime, endTime, tableArn, tableId, exportTime or
// exportFromTime/exportToTime, s3Bucket, s3Prefix, s3SseAlgorithm,
// s3SseKmsKeyId, manifestFilesS3Key, billedSizeBytes, itemCount,
// outputFormat, and for incremental exports outputView and exportType).
std::string ExportSummaryJson(const ExportRecord& r, const std::string& manifest_files_key);
}  // namespace dynarock::transfer
