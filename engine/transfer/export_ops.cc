// File: engine/transfer/export_ops.cc
//
// ExportTableToPointInTime, DescribeExport, ListExports (DynamoDB API
// reference). An export needs point-in-time recovery on its table, as in
// DynamoDB; it runs on a thread of its own and writes DynamoDB's export
// layout (runner.h) under <s3 root>/<S3Bucket>/<S3Prefix>/AWSDynamoDB/<id>.

#include <cmath>
#include <filesystem>

#include "engine/transfer/transfers_state.h"

namespace dynarock::transfer {
namespace {

constexpr std::string_view kExportFormats[] = {"DYNAMODB_JSON", "ION"};
constexpr std::string_view kExportTypes[] = {"FULL_EXPORT", "INCREMENTAL_EXPORT"};
constexpr std::string_view kViewTypes[] = {"NEW_AND_OLD_IMAGES", "NEW_IMAGES"};
constexpr std::string_view kSseAlgorithms[] = {"AES256", "KMS"};
constexpr double kIncrementalSecondsMax = 24 * 3600;

struct ExportRequest {
  std::string table_arn;
  std::optional<double> export_time;
  std::optional<std::string> client_token;
  std::string s3_bucket;
  std::optional<std::string> s3_bucket_owner, s3_prefix, s3_sse_algorithm, s3_sse_kms_key_id;
  std::string export_format = "DYNAMODB_JSON";
  std::string export_type = "FULL_EXPORT";
  bool has_incremental = false;
  std::optional<double> from_time, to_time;
  std::string view_type = "NEW_AND_OLD_IMAGES";
};

void ExportBody(json::Decoder& d, const json::dom::object& o, ExportRequest* r) {
  std::optional<std::string> arn;
  if (!LengthChecked(d, o, "TableArn", 1, 1024, &arn)) {
    if (!d.failed()) d.Missing("TableArn");
  } else {
    r->table_arn = *arn;
  }
  d.Double(o, "ExportTime", &r->export_time);
  LengthChecked(d, o, "ClientToken", 0, 1 << 20, &r->client_token);
  CheckClientToken(d, r->client_token);
  if (d.ReqStr(o, "S3Bucket", &r->s3_bucket)) CheckBucket(d, "s3Bucket", r->s3_bucket);
  if (d.Str(o, "S3BucketOwner", &r->s3_bucket_owner)) {
    bool ok = r->s3_bucket_owner->size() == 12;
    for (char c : *r->s3_bucket_owner) ok = ok && c >= '0' && c <= '9';
    if (!ok) {
      d.Violation("Value '" + *r->s3_bucket_owner + "' at 's3BucketOwner' failed to satisfy "
                  "constraint: Member must satisfy regular expression pattern: [0-9]{12}");
    }
  }
  LengthChecked(d, o, "S3Prefix", 0, 1024, &r->s3_prefix);
  d.Enum(o, "S3SseAlgorithm", kSseAlgorithms, &r->s3_sse_algorithm);
  LengthChecked(d, o, "S3SseKmsKeyId", 1, 2048, &r->s3_sse_kms_key_id);
  d.Enum(o, "ExportFormat", kExportFormats, &r->export_format);
  d.Enum(o, "ExportType", kExportTypes, &r->export_type);
  json::dom::object inc;
  if (d.Obj(o, "IncrementalExportSpecification", &inc)) {
    r->has_incremental = true;
    json::Decoder::Scope scope(&d, "incrementalExportSpecification");
    d.Double(inc, "ExportFromTime", &r->from_time);
    d.Double(inc, "ExportToTime", &r->to_time);
    d.Enum(inc, "ExportViewType", kViewTypes, &r->view_type);
  }
}

std::string Fingerprint(const ExportRequest& r) {
  api::JsonWriter w;
  w.BeginArray();
  w.String(r.table_arn);
  w.Double(r.export_time.value_or(-1));
  w.String(r.s3_bucket);
  w.String(r.s3_bucket_owner.value_or(""));
  w.String(r.s3_prefix.value_or(""));
  w.String(r.s3_sse_algorithm.value_or(""));
  w.String(r.s3_sse_kms_key_id.value_or(""));
  w.String(r.export_format);
  w.String(r.export_type);
  w.Double(r.from_time.value_or(-1));
  w.Double(r.to_time.value_or(-1));
  w.String(r.view_type);
  w.EndArray();
  return w.Release();
}

std::string DescriptionBody(const ExportJob& job) {
  ExportRecord r = job.record;
  if (job.running) {
    r.item_count = job.progress.items.load();
    r.billed_size_bytes = job.progress.bytes.load();
  }
  api::JsonWriter w;
  w.BeginObject();
  w.Key("ExportDescription");
  w.BeginObject();
  WriteExportDescription(&w, r, false);
  w.EndObject();
  w.EndObject();
  return w.Release();
}

// The FailureCode of an export that failed with `s`.
std::string FailureCode(const Status& s) {
  switch (s.type()) {
    case ErrorType::kPointInTimeRecoveryUnavailable: return "PointInTimeRecoveryUnavailable";
    case ErrorType::kInvalidRestoreTime: return "InvalidExportTime";
    case ErrorType::kTableNotFound:
    case ErrorType::kResourceNotFound: return "TableNotFound";
    default: return "UnknownInternalFailure";
  }
}

}  // namespace

StatusOr<std::string> Transfers::State::Export(std::string_view body) {
  DR_ASSIGN_OR_RETURN(ExportRequest req, json::DecodeBody<ExportRequest>(body, ExportBody));
  DR_RETURN_IF_ERROR(CheckReady());
  DR_RETURN_IF_ERROR(CheckPrefix(req.s3_prefix, "S3Prefix"));
  const bool incremental = req.export_type == "INCREMENTAL_EXPORT";
  if (incremental && req.export_time) {
    return ValidationError("ExportTime cannot be specified for an incremental export; use "
                           "IncrementalExportSpecification");
  }
  if (!incremental && req.has_incremental) {
    return ValidationError("IncrementalExportSpecification is only valid with ExportType "
                           "INCREMENTAL_EXPORT");
  }
  if (incremental && !req.from_time) {
    return ValidationError("ExportFromTime is required for an incremental export");
  }
  if (req.table_arn.compare(0, 4, "arn:") != 0) {
    return ValidationError("Invalid TableArn: " + req.table_arn + " is not a table ARN");
  }
  DescribeTableRequest dt;
  dt.table_name = req.table_arn;
  auto table = db->DescribeTable(dt);
  if (!table.ok()) {
    if (table.status().type() == ErrorType::kResourceNotFound) {
      return Status(ErrorType::kTableNotFound, "Table not found: " + req.table_arn);
    }
    return table.status();
  }
  const TableDescription& t = table->table;
  const double now = NowSeconds();

  // Point in time recovery, and the times it allows.
  DescribeContinuousBackupsRequest cb;
  cb.table_name = t.table_name;
  DR_ASSIGN_OR_RETURN(DescribeContinuousBackupsResponse backups, db->DescribeContinuousBackups(cb));
  const ContinuousBackupsDescription& pitr = backups.description;
  if (pitr.point_in_time_recovery_status != "ENABLED") {
    return Status(ErrorType::kPointInTimeRecoveryUnavailable,
                  "Point in time recovery is not enabled for table '" + t.table_name + "'");
  }
  const double earliest = pitr.earliest_restorable_date_time.value_or(0);
  auto check_time = [&](double time, std::string_view what) -> Status {
    if (time > now) {
      return Status(ErrorType::kInvalidExportTime,
                    std::string(what) + " is in the future: " + IsoTime(time));
    }
    if (time < earliest - 1) {
      return Status(ErrorType::kInvalidExportTime,
                    std::string(what) + " " + IsoTime(time) +
                        " is before the earliest restorable time " + IsoTime(earliest));
    }
    return Status();
  };
  if (req.export_time) DR_RETURN_IF_ERROR(check_time(*req.export_time, "ExportTime"));
  if (incremental) {
    if (!req.to_time) req.to_time = now;
    DR_RETURN_IF_ERROR(check_time(*req.from_time, "ExportFromTime"));
    DR_RETURN_IF_ERROR(check_time(*req.to_time, "ExportToTime"));
    if (*req.from_time >= *req.to_time) {
      return ValidationError("ExportFromTime must be before ExportToTime");
    }
    if (*req.to_time - *req.from_time > kIncrementalSecondsMax) {
      return ValidationError("The incremental export period cannot be longer than 24 hours");
    }
  }

  std::unique_lock<std::mutex> lock(mu);
  const std::string fingerprint = Fingerprint(req);
  if (req.client_token) {
    for (auto& [id, job] : exports) {
      if (job->record.client_token != *req.client_token ||
          now - job->record.start_time > kClientTokenSeconds) {
        continue;
      }
      if (job->record.fingerprint != fingerprint) {
        return Status(ErrorType::kExportConflict,
                      "There was a conflict when writing to the specified S3 bucket: ClientToken '" +
                          *req.client_token + "' was used by export " + job->record.arn +
                          " with other parameters");
      }
      return DescriptionBody(*job);
    }
  }
  size_t running = 0;
  for (auto& [id, job] : exports) running += job->running ? 1 : 0;
  if (running >= kExportsRunningMax) {
    return Status(ErrorType::kLimitExceeded, "Too many exports are in progress (at most " +
                                                 std::to_string(kExportsRunningMax) + ")");
  }

  auto job = std::make_shared<ExportJob>();
  ExportRecord& r = job->record;
  r.id = NewJobId(now);
  r.arn = t.table_arn + "/export/" + r.id;
  r.table_name = t.table_name;
  r.table_arn = t.table_arn;
  r.table_id = t.table_id;
  r.start_time = now;
  if (!incremental) r.export_time = req.export_time.value_or(now);
  r.client_token = req.client_token.value_or("");
  r.s3_bucket = req.s3_bucket;
  r.s3_bucket_owner = req.s3_bucket_owner;
  r.s3_prefix = req.s3_prefix;
  if (req.s3_sse_algorithm) r.s3_sse_algorithm = *req.s3_sse_algorithm;
  r.s3_sse_kms_key_id = req.s3_sse_kms_key_id;
  r.export_format = req.export_format;
  r.export_type = req.export_type;
  if (incremental) {
    r.from_time = req.from_time;
    r.to_time = req.to_time;
    r.view_type = req.view_type;
  }
  r.fingerprint = fingerprint;
  std::string prefix = req.s3_prefix.value_or("");
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  const std::string key_dir = (prefix.empty() ? "" : prefix + "/") + "AWSDynamoDB/" + r.id;
  r.export_manifest = key_dir + "/manifest-summary.json";

  ExportPlan plan;
  plan.table = t.table_arn;
  plan.export_dir = s3_root + "/" + req.s3_bucket + "/" + key_dir;
  plan.key_prefix = key_dir;
  plan.format = req.export_format == "ION" ? DataFormat::kIon : DataFormat::kDynamoDbJson;
  plan.incremental = incremental;
  plan.export_time = req.export_time;
  if (incremental) {
    plan.from_time = *req.from_time;
    plan.to_time = *req.to_time;
    plan.old_images = req.view_type == "NEW_AND_OLD_IMAGES";
  }
  job->progress.total_items = t.item_count;
  job->running = true;
  DR_RETURN_IF_ERROR(SaveExport(r));
  export_order.push_back(r.id);
  exports[r.id] = job;
  DR_RETURN_IF_ERROR(SaveIndex(true));
  std::string reply = DescriptionBody(*job);
  threads.emplace_back([this, job, plan = std::move(plan)]() mutable {
    RunExportJob(std::move(job), std::move(plan));
  });
  return reply;
}

void Transfers::State::RunExportJob(std::shared_ptr<ExportJob> job, ExportPlan plan) {
  std::string bucket_dir;
  {
    std::lock_guard<std::mutex> lock(mu);
    bucket_dir = s3_root + "/" + job->record.s3_bucket;
  }
  Status s;
  StatusOr<ExportResult> result = ExportResult();
  std::error_code ec;
  if (!std::filesystem::is_directory(bucket_dir, ec)) {
    s = Status(ErrorType::kValidation, "S3NoSuchBucket");
  } else {
    result = RunExport(db, plan, &job->progress, &stop);
    s = result.status();
  }
  std::lock_guard<std::mutex> lock(mu);
  ExportRecord& r = job->record;
  r.end_time = NowSeconds();
  if (s.ok()) {
    r.item_count = result->item_count;
    r.billed_size_bytes = result->billed_size_bytes;
    const std::string key_dir = plan.key_prefix;
    s = WriteSummary(plan.export_dir, ExportSummaryJson(r, key_dir + "/manifest-files.json"));
  }
  if (s.ok()) {
    r.status = "COMPLETED";
  } else {
    r.status = "FAILED";
    if (s.message() == "S3NoSuchBucket") {
      r.failure_code = "S3NoSuchBucket";
      r.failure_message = "The specified bucket does not exist: no folder " + bucket_dir;
    } else {
      r.failure_code = FailureCode(s);
      r.failure_message = std::string(s.message());
    }
  }
  job->running = false;
  (void)SaveExport(r);
}

StatusOr<std::string> Transfers::State::DescribeExport(std::string_view body) {
  struct Req {
    std::optional<std::string> arn;
  };
  DR_ASSIGN_OR_RETURN(Req req, json::DecodeBody<Req>(body, [](json::Decoder& d,
                                                             const json::dom::object& o, Req* r) {
    if (!LengthChecked(d, o, "ExportArn", 37, 1024, &r->arn) && !d.failed()) d.Missing("ExportArn");
  }));
  if (db == nullptr) return Status(ErrorType::kInternalServerError, "no database");
  std::lock_guard<std::mutex> lock(mu);
  const size_t at = req.arn->rfind("/export/");
  if (at != std::string::npos) {
    auto it = exports.find(req.arn->substr(at + 8));
    if (it != exports.end() && it->second->record.arn == *req.arn) return DescriptionBody(*it->second);
  }
  return Status(ErrorType::kExportNotFound, "Export not found: " + *req.arn);
}

StatusOr<std::string> Transfers::State::ListExports(std::string_view body) {
  struct Req {
    std::optional<std::string> table_arn, next_token;
    std::optional<int64_t> max_results;
  };
  DR_ASSIGN_OR_RETURN(Req req, json::DecodeBody<Req>(body, [](json::Decoder& d,
                                                             const json::dom::object& o, Req* r) {
    LengthChecked(d, o, "TableArn", 1, 1024, &r->table_arn);
    d.Int(o, "MaxResults", "Integer", 1, 25, &r->max_results);
    d.Str(o, "NextToken", &r->next_token);
  }));
  if (db == nullptr) return Status(ErrorType::kInternalServerError, "no database");
  std::lock_guard<std::mutex> lock(mu);
  size_t start = 0;
  if (req.next_token) {
    start = export_order.size() + 1;
    for (size_t i = 0; i < export_order.size(); ++i) {
      if (export_order[i] == *req.next_token) start = i;
    }
    if (start > export_order.size()) return ValidationError("Invalid NextToken: " + *req.next_token);
  }
  const size_t max = static_cast<size_t>(req.max_results.value_or(25));
  api::JsonWriter w;
  w.BeginObject();
  w.Key("ExportSummaries");
  w.BeginArray();
  size_t n = 0;
  size_t i = start;
  for (; i < export_order.size(); ++i) {
    const ExportJob& job = *exports[export_order[i]];
    if (req.table_arn && job.record.table_arn != *req.table_arn) continue;
    if (n == max) break;
    w.BeginObject();
    WriteExportSummary(&w, job.record);
    w.EndObject();
    ++n;
  }
  w.EndArray();
  if (i < export_order.size()) w.Member("NextToken", export_order[i]);
  w.EndObject();
  return w.Release();
}

}  // namespace dynarock::transfer
