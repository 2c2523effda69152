// File: engine/transfer/import_ops.cc
//
// ImportTable, DescribeImport, ListImports (DynamoDB API reference). An
// import reads every file under <s3 root>/<S3Bucket> whose key starts with
// S3KeyPrefix into a new table (DB::LoadTable, invisible until whole).
// Records that cannot be read or that the table refuses are counted in
// ErrorCount and written, one JSON line each (file, line, message), to
// <s3 root>/.dynarock/import-logs/<import id>.log, standing for the CloudWatch
// log group; the import still completes, as DynamoDB's does.

#include <simdjson.h>

#include <cstdio>
#include <filesystem>

#include "engine/api/json_decode.h"
#include "engine/transfer/transfers_state.h"

namespace dynarock::transfer {
namespace {

constexpr std::string_view kInputFormats[] = {"DYNAMODB_JSON", "ION", "CSV"};
constexpr std::string_view kCompressions[] = {"GZIP", "ZSTD", "NONE"};

struct ImportRequest {
  std::optional<std::string> client_token;
  std::string input_format;
  std::string compression = "NONE";
  std::optional<std::string> csv_delimiter;
  std::optional<std::vector<std::string>> csv_header;
  bool has_format_options = false;
  std::string s3_bucket;
  std::optional<std::string> s3_bucket_owner, s3_key_prefix;
  std::string table_parameters;  // TableCreationParameters' JSON
};

void ImportBody(json::Decoder& d, const json::dom::object& o, ImportRequest* r) {
  LengthChecked(d, o, "ClientToken", 0, 1 << 20, &r->client_token);
  CheckClientToken(d, r->client_token);
  d.Enum(o, "InputFormat", kInputFormats, &r->input_format, /*required=*/true);
  d.Enum(o, "InputCompressionType", kCompressions, &r->compression);
  json::dom::object opts;
  if (d.Obj(o, "InputFormatOptions", &opts)) {
    r->has_format_options = true;
    json::Decoder::Scope scope(&d, "inputFormatOptions");
    json::dom::object csv;
    if (d.Obj(opts, "Csv", &csv)) {
      json::Decoder::Scope scope2(&d, "csv");
      if (d.Str(csv, "Delimiter", &r->csv_delimiter)) {
        const std::string& v = *r->csv_delimiter;
        if (v.size() != 1 || std::string_view(",\t:;| ").find(v[0]) == std::string_view::npos) {
          d.Violation("Value '" + v + "' at '" + d.PathTo("Delimiter") +
                      "' failed to satisfy constraint: Member must satisfy regular expression "
                      "pattern: [,;:|\\t ]");
        }
      }
      std::vector<std::string> header;
      if (d.StrList(csv, "HeaderList", &header, /*non_empty=*/true)) {
        if (header.size() > 255) {
          d.Violation("Value at '" + d.PathTo("HeaderList") +
                      "' failed to satisfy constraint: Member must have length less than or "
                      "equal to 255");
        }
        for (const std::string& h : header) {
          if (h.empty() || h.size() > 65535) {
            d.Violation("Value '" + h + "' at '" + d.PathTo("HeaderList") +
                        "' failed to satisfy constraint: Member must have length between 1 and 65535");
          }
        }
        r->csv_header = std::move(header);
      }
    }
  }
  json::dom::object src;
  if (d.ReqObj(o, "S3BucketSource", &src)) {
    json::Decoder::Scope scope(&d, "s3BucketSource");
    if (d.ReqStr(src, "S3Bucket", &r->s3_bucket)) CheckBucket(d, d.PathTo("S3Bucket"), r->s3_bucket);
    d.Str(src, "S3BucketOwner", &r->s3_bucket_owner);
    LengthChecked(d, src, "S3KeyPrefix", 0, 1024, &r->s3_key_prefix);
  }
  json::dom::object params;
  if (d.ReqObj(o, "TableCreationParameters", &params)) r->table_parameters = simdjson::minify(params);
}

std::string Fingerprint(const ImportRequest& r) {
  api::JsonWriter w;
  w.BeginArray();
  w.String(r.input_format);
  w.String(r.compression);
  w.String(r.csv_delimiter.value_or(""));
  if (r.csv_header) {
    for (const std::string& h : *r.csv_header) w.String(h);
  }
  w.String(r.s3_bucket);
  w.String(r.s3_bucket_owner.value_or(""));
  w.String(r.s3_key_prefix.value_or(""));
  w.Raw(r.table_parameters);
  w.EndArray();
  return w.Release();
}

ImportRecord Snapshot(const ImportJob& job) {
  ImportRecord r = job.record;
  if (job.running) {
    r.processed_item_count = job.progress.items.load();
    r.processed_size_bytes = job.progress.bytes.load();
    r.imported_item_count = job.progress.imported.load();
    r.error_count = job.progress.errors.load();
  }
  return r;
}

std::string DescriptionBody(const ImportJob& job) {
  api::JsonWriter w;
  w.BeginObject();
  w.Key("ImportTableDescription");
  w.BeginObject();
  WriteImportDescription(&w, Snapshot(job), false);
  w.EndObject();
  w.EndObject();
  return w.Release();
}

Compression CompressionOf(const std::string& name) {
  return name == "GZIP" ? Compression::kGzip : name == "ZSTD" ? Compression::kZstd : Compression::kNone;
}

}  // namespace

StatusOr<std::string> Transfers::State::Import(std::string_view body) {
  DR_ASSIGN_OR_RETURN(ImportRequest req, json::DecodeBody<ImportRequest>(body, ImportBody));
  DR_RETURN_IF_ERROR(CheckReady());
  DR_RETURN_IF_ERROR(CheckPrefix(req.s3_key_prefix, "S3KeyPrefix"));
  if (req.has_format_options && req.input_format != "CSV") {
    return ValidationError("InputFormatOptions are only valid with InputFormat CSV");
  }
  DR_ASSIGN_OR_RETURN(CreateTableRequest create, api::DecodeCreateTableRequest(req.table_parameters));
  // ImportTable's TableCreationParameters has no such members: ignored, as
  // DynamoDB ignores unknown members.
  create.local_secondary_indexes.clear();
  create.has_local_secondary_indexes = false;
  create.stream_specification.reset();
  create.tags.clear();
  create.warm_throughput.reset();
  create.resource_policy.reset();

  const double now = NowSeconds();
  std::unique_lock<std::mutex> lock(mu);
  const std::string fingerprint = Fingerprint(req);
  if (req.client_token) {
    for (auto& [id, job] : imports) {
      if (job->record.client_token != *req.client_token ||
          now - job->record.start_time > kClientTokenSeconds) {
        continue;
      }
      if (job->record.fingerprint != fingerprint) {
        return Status(ErrorType::kImportConflict,
                      "There was a conflict when importing from the specified S3 source: "
                      "ClientToken '" + *req.client_token + "' was used by import " +
                          job->record.arn + " with other parameters");
      }
      return DescriptionBody(*job);
    }
  }
  size_t running = 0;
  for (auto& [id, job] : imports) {
    if (!job->running) continue;
    ++running;
    if (job->record.table_name == create.table_name) {
      return Status(ErrorType::kResourceInUse, "Table already exists: " + create.table_name);
    }
  }
  if (running >= kImportsRunningMax) {
    return Status(ErrorType::kLimitExceeded, "Too many imports are in progress (at most " +
                                                 std::to_string(kImportsRunningMax) + ")");
  }
  lock.unlock();
  const std::string prefix = ArnPrefix();
  lock.lock();

  auto job = std::make_shared<ImportJob>();
  ImportRecord& r = job->record;
  r.id = NewJobId(now);
  r.table_name = create.table_name;
  r.table_arn = prefix + "table/" + create.table_name;
  r.arn = r.table_arn + "/import/" + r.id;
  r.client_token = req.client_token.value_or("");
  r.s3_bucket = req.s3_bucket;
  r.s3_bucket_owner = req.s3_bucket_owner;
  r.s3_key_prefix = req.s3_key_prefix;
  const std::string region_account = prefix.substr(std::string("arn:aws:dynamodb:").size());
  r.log_group_arn = "arn:aws:logs:" + region_account + "log-group:/aws-dynamodb/imports:*";
  r.input_format = req.input_format;
  r.csv_delimiter = req.csv_delimiter;
  r.csv_header = req.csv_header;
  r.compression = req.compression;
  r.table_creation_parameters = req.table_parameters;
  r.start_time = now;
  r.fingerprint = fingerprint;
  job->running = true;

  ImportSource source;
  source.format = req.input_format == "ION"   ? DataFormat::kIon
                  : req.input_format == "CSV" ? DataFormat::kCsv
                                              : DataFormat::kDynamoDbJson;
  source.compression = CompressionOf(req.compression);
  if (req.csv_delimiter) source.csv_delimiter = (*req.csv_delimiter)[0];
  if (req.csv_header) source.csv_header = *req.csv_header;

  // The job creates the table; until it has (or has failed to), the request
  // waits, so that a taken name or bad table parameters are this request's
  // error, as in DynamoDB.
  imports[r.id] = job;
  threads.emplace_back([this, job, create = std::move(create), source = std::move(source)]() mutable {
    RunImportJob(job, std::move(create), std::move(source));
  });
  cv.wait(lock, [&] { return !job->record.table_id.empty() || !job->running ||
                             job->record.status != "IN_PROGRESS"; });
  if (!job->refusal.ok()) {
    imports.erase(r.id);
    return job->refusal;
  }
  import_order.push_back(r.id);
  Status saved = SaveImport(Snapshot(*job));
  if (saved.ok()) saved = SaveIndex(false);
  job->recorded = true;
  cv.notify_all();
  DR_RETURN_IF_ERROR(saved);
  return DescriptionBody(*job);
}

void Transfers::State::RunImportJob(std::shared_ptr<ImportJob> job, CreateTableRequest create,
                                    ImportSource source) {
  std::string bucket_dir, prefix, log_path;
  {
    std::lock_guard<std::mutex> lock(mu);
    bucket_dir = s3_root + "/" + job->record.s3_bucket;
    prefix = job->record.s3_key_prefix.value_or("");
    log_path = s3_root + "/.dynarock/import-logs/" + job->record.id + ".log";
  }
  auto finish = [&](const Status& s, std::optional<TableDescription> table) {
    std::lock_guard<std::mutex> lock(mu);
    ImportRecord& r = job->record;
    r = Snapshot(*job);
    r.end_time = NowSeconds();
    if (table) {
      r.table_arn = table->table_arn;
      r.table_id = table->table_id;
    }
    if (s.ok()) {
      r.status = "COMPLETED";
    } else if (r.table_id.empty() && (s.type() == ErrorType::kTableAlreadyExists ||
                                      s.type() == ErrorType::kValidation ||
                                      s.type() == ErrorType::kResourceInUse ||
                                      s.type() == ErrorType::kLimitExceeded)) {
      // Refused before the table existed: the request's own error
      // (DynamoDB's ImportTable says ResourceInUseException for a taken name).
      job->refusal = s.type() == ErrorType::kTableAlreadyExists
                         ? Status(ErrorType::kResourceInUse, "Table already exists: " + r.table_name)
                         : s;
    } else {
      r.status = "FAILED";
      r.failure_code = s.message().substr(0, 14) == "S3NoSuchBucket" ? "S3NoSuchBucket"
                       : s.type() == ErrorType::kValidation          ? "ValidationError"
                                                                     : "UnknownInternalFailure";
      r.failure_message = std::string(s.message());
    }
    job->running = false;
    if (job->refusal.ok() && !r.table_id.empty()) (void)SaveImport(r);
    cv.notify_all();
  };

  std::error_code ec;
  if (!std::filesystem::is_directory(bucket_dir, ec)) {
    // DynamoDB fails such an import without creating the table; so do we,
    // reporting it on the job (the table never existed).
    std::lock_guard<std::mutex> lock(mu);
    job->record.status = "FAILED";
    job->record.failure_code = "S3NoSuchBucket";
    job->record.failure_message = "The specified bucket does not exist: no folder " + bucket_dir;
    job->record.end_time = NowSeconds();
    job->running = false;
    cv.notify_all();
    return;
  }
  auto files = ListSourceFiles(bucket_dir, prefix);
  if (!files.ok() || files->empty()) {
    std::lock_guard<std::mutex> lock(mu);
    job->record.status = "FAILED";
    job->record.failure_code = "ValidationError";
    job->record.failure_message = files.ok() ? "No files were found under S3KeyPrefix '" + prefix +
                                                   "' in bucket " + job->record.s3_bucket
                                             : std::string(files.status().message());
    job->record.end_time = NowSeconds();
    job->running = false;
    cv.notify_all();
    return;
  }
  source.files = std::move(*files);
  std::FILE* log = nullptr;
  int64_t logged = 0;
  auto on_error = [&](const std::string& file, int64_t line, const std::string& message) {
    if (logged >= kImportErrorsLoggedMax) return;
    if (log == nullptr) {
      std::filesystem::create_directories(s3_root + "/.dynarock/import-logs", ec);
      log = std::fopen(log_path.c_str(), "ab");
      if (log == nullptr) return;
    }
    api::JsonWriter w;
    w.BeginObject();
    w.Member("file", file.substr(std::min(file.size(), bucket_dir.size() + 1)));
    w.MemberInt("line", line);
    w.Member("message", message);
    w.EndObject();
    std::fprintf(log, "%s\n", w.str().c_str());
    ++logged;
  };
  auto on_created = [&](const TableDescription& t) {
    std::lock_guard<std::mutex> lock(mu);
    job->record.table_arn = t.table_arn;
    job->record.table_id = t.table_id.empty() ? "-" : t.table_id;
    const size_t at = t.table_arn.find(":table/");
    if (at != std::string::npos && arn_prefix.empty()) arn_prefix = t.table_arn.substr(0, at + 1);
    cv.notify_all();
  };
  // Once every record is in: the COMPLETED record goes in the write that
  // makes the table ACTIVE (a crash between the two would leave a whole
  // table whose job says FAILED).
  auto on_filled = [&](TableLoader& loader) -> Status {
    ImportRecord r;
    {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return job->recorded; });
      r = Snapshot(*job);
    }
    r.status = "COMPLETED";
    r.end_time = NowSeconds();
    return loader.SaveCheckpointWithTable(ImportKey(r.id), StoreImport(r));
  };
  auto table =
      RunImport(db, create, source, &job->progress, &stop, on_error, on_created, on_filled);
  if (log != nullptr) std::fclose(log);
  if (table.ok()) {
    finish(Status(), *table);
  } else {
    finish(table.status(), std::nullopt);
  }
}

StatusOr<std::string> Transfers::State::DescribeImport(std::string_view body) {
  struct Req {
    std::optional<std::string> arn;
  };
  DR_ASSIGN_OR_RETURN(Req req, json::DecodeBody<Req>(body, [](json::Decoder& d,
                                                             const json::dom::object& o, Req* r) {
    if (!LengthChecked(d, o, "ImportArn", 37, 1024, &r->arn) && !d.failed()) d.Missing("ImportArn");
  }));
  if (db == nullptr) return Status(ErrorType::kInternalServerError, "no database");
  std::lock_guard<std::mutex> lock(mu);
  const size_t at = req.arn->rfind("/import/");
  if (at != std::string::npos) {
    auto it = imports.find(req.arn->substr(at + 8));
    if (it != imports.end() && it->second->record.arn == *req.arn &&
        it->second->refusal.ok()) {
      return DescriptionBody(*it->second);
    }
  }
  return Status(ErrorType::kImportNotFound, "Import not found: " + *req.arn);
}

StatusOr<std::string> Transfers::State::ListImports(std::string_view body) {
  struct Req {
    std::optional<std::string> table_arn, next_token;
    std::optional<int64_t> page_size;
  };
  DR_ASSIGN_OR_RETURN(Req req, json::DecodeBody<Req>(body, [](json::Decoder& d,
                                                             const json::dom::object& o, Req* r) {
    LengthChecked(d, o, "TableArn", 1, 1024, &r->table_arn);
    d.Int(o, "PageSize", "Integer", 1, 25, &r->page_size);
    LengthChecked(d, o, "NextToken", 112, 1024, &r->next_token);
  }));
  if (db == nullptr) return Status(ErrorType::kInternalServerError, "no database");
  std::lock_guard<std::mutex> lock(mu);
  // NextToken: DynamoDB's is 112 to 1024 characters of [a-zA-Z0-9=+/]; ours
  // is the next import's id, padded with '=' to that length.
  size_t start = 0;
  if (req.next_token) {
    std::string id = *req.next_token;
    while (!id.empty() && id.back() == '=') id.pop_back();
    start = import_order.size() + 1;
    for (size_t i = 0; i < import_order.size(); ++i) {
      if (import_order[i] == id) start = i;
    }
    if (start > import_order.size()) return ValidationError("Invalid NextToken");
  }
  const size_t max = static_cast<size_t>(req.page_size.value_or(25));
  api::JsonWriter w;
  w.BeginObject();
  w.Key("ImportSummaryList");
  w.BeginArray();
  size_t n = 0;
  size_t i = start;
  for (; i < import_order.size(); ++i) {
    const ImportJob& job = *imports[import_order[i]];
    if (req.table_arn && job.record.table_arn != *req.table_arn) continue;
    if (n == max) break;
    w.BeginObject();
    WriteImportSummary(&w, Snapshot(job));
    w.EndObject();
    ++n;
  }
  w.EndArray();
  if (i < import_order.size()) {
    std::string token = import_order[i];
    token.resize(std::max<size_t>(token.size(), 112), '=');
    w.Member("NextToken", token);
  }
  w.EndObject();
  return w.Release();
}

}  // namespace dynarock::transfer
