// File: engine/transfer/jobs.cc

#include "engine/transfer/jobs.h"

#include <simdjson.h>

#include <cmath>
#include <ctime>

#include "engine/time_text.h"

namespace dynarock::transfer {
namespace dom = simdjson::dom;

std::string IsoTime(double seconds) { return Iso8601Millis(std::llround(seconds * 1000)); }

namespace {

void Opt(api::JsonWriter* w, std::string_view key, const std::optional<std::string>& v) {
  if (v) w->Member(key, *v);
}
void Opt(api::JsonWriter* w, std::string_view key, const std::optional<double>& v) {
  if (v) w->MemberDouble(key, *v);
}
void NonEmpty(api::JsonWriter* w, std::string_view key, const std::string& v) {
  if (!v.empty()) w->Member(key, v);
}

// Reading back what Store* wrote.
struct Reader {
  dom::object o;
  std::string Str(std::string_view key) {
    std::string_view v;
    if (o.at_key(key).get_string().get(v) != simdjson::SUCCESS) return "";
    return std::string(v);
  }
  std::optional<std::string> OptStr(std::string_view key) {
    std::string_view v;
    if (o.at_key(key).get_string().get(v) != simdjson::SUCCESS) return std::nullopt;
    return std::string(v);
  }
  std::optional<double> OptDouble(std::string_view key) {
    double v = 0;
    if (o.at_key(key).get_double().get(v) != simdjson::SUCCESS) return std::nullopt;
    return v;
  }
  int64_t Int(std::string_view key) {
    int64_t v = 0;
    if (o.at_key(key).get_int64().get(v) != simdjson::SUCCESS) return 0;
    return v;
  }
};

StatusOr<Reader> Parse(dom::parser* parser, std::string_view json) {
  Reader r;
  dom::element doc;
  if (parser->parse(json.data(), json.size()).get(doc) != simdjson::SUCCESS ||
      doc.get_object().get(r.o) != simdjson::SUCCESS) {
    return Status(ErrorType::kInternalServerError, "a stored transfer record is malformed");
  }
  return r;
}

}  // namespace

void WriteExportDescription(api::JsonWriter* w, const ExportRecord& r, bool internal) {
  w->MemberInt("BilledSizeBytes", r.billed_size_bytes);
  NonEmpty(w, "ClientToken", r.client_token);
  Opt(w, "EndTime", r.end_time);
  w->Member("ExportArn", r.arn);
  w->Member("ExportFormat", r.export_format);
  if (!r.export_manifest.empty()) w->Member("ExportManifest", r.export_manifest);
  w->Member("ExportStatus", r.status);
  Opt(w, "ExportTime", r.export_time);
  w->Member("ExportType", r.export_type);
  Opt(w, "FailureCode", r.failure_code);
  Opt(w, "FailureMessage", r.failure_message);
  if (r.export_type == "INCREMENTAL_EXPORT") {
    w->Key("IncrementalExportSpecification");
    w->BeginObject();
    Opt(w, "ExportFromTime", r.from_time);
    Opt(w, "ExportToTime", r.to_time);
    w->Member("ExportViewType", r.view_type);
    w->EndObject();
  }
  w->MemberInt("ItemCount", r.item_count);
  w->Member("S3Bucket", r.s3_bucket);
  Opt(w, "S3BucketOwner", r.s3_bucket_owner);
  Opt(w, "S3Prefix", r.s3_prefix);
  w->Member("S3SseAlgorithm", r.s3_sse_algorithm);
  Opt(w, "S3SseKmsKeyId", r.s3_sse_kms_key_id);
  w->MemberDouble("StartTime", r.start_time);
  w->Member("TableArn", r.table_arn);
  w->Member("TableId", r.table_id);
  if (internal) {
    w->Member("_Id", r.id);
    w->Member("_TableName", r.table_name);
    w->Member("_Fingerprint", r.fingerprint);
  }
}

void WriteExportSummary(api::JsonWriter* w, const ExportRecord& r) {
  w->Member("ExportArn", r.arn);
  w->Member("ExportStatus", r.status);
  w->Member("ExportType", r.export_type);
}

void WriteImportDescription(api::JsonWriter* w, const ImportRecord& r, bool internal) {
  NonEmpty(w, "ClientToken", r.client_token);
  w->Member("CloudWatchLogGroupArn", r.log_group_arn);
  Opt(w, "EndTime", r.end_time);
  w->MemberInt("ErrorCount", r.error_count);
  Opt(w, "FailureCode", r.failure_code);
  Opt(w, "FailureMessage", r.failure_message);
  w->Member("ImportArn", r.arn);
  w->MemberInt("ImportedItemCount", r.imported_item_count);
  w->Member("ImportStatus", r.status);
  w->Member("InputCompressionType", r.compression);
  w->Member("InputFormat", r.input_format);
  if (r.csv_delimiter || r.csv_header) {
    w->Key("InputFormatOptions");
    w->BeginObject();
    w->Key("Csv");
    w->BeginObject();
    Opt(w, "Delimiter", r.csv_delimiter);
    if (r.csv_header) {
      w->Key("HeaderList");
      w->BeginArray();
      for (const std::string& h : *r.csv_header) w->String(h);
      w->EndArray();
    }
    w->EndObject();
    w->EndObject();
  }
  w->MemberInt("ProcessedItemCount", r.processed_item_count);
  w->MemberInt("ProcessedSizeBytes", r.processed_size_bytes);
  w->Key("S3BucketSource");
  w->BeginObject();
  w->Member("S3Bucket", r.s3_bucket);
  Opt(w, "S3BucketOwner", r.s3_bucket_owner);
  Opt(w, "S3KeyPrefix", r.s3_key_prefix);
  w->EndObject();
  w->MemberDouble("StartTime", r.start_time);
  w->Member("TableArn", r.table_arn);
  if (!r.table_creation_parameters.empty()) {
    w->Key("TableCreationParameters");
    w->Raw(r.table_creation_parameters);
  }
  NonEmpty(w, "TableId", r.table_id);
  if (internal) {
    w->Member("_Id", r.id);
    w->Member("_TableName", r.table_name);
    w->Member("_Fingerprint", r.fingerprint);
  }
}

void WriteImportSummary(api::JsonWriter* w, const ImportRecord& r) {
  w->Member("CloudWatchLogGroupArn", r.log_group_arn);
  Opt(w, "EndTime", r.end_time);
  w->Member("ImportArn", r.arn);
  w->Member("ImportStatus", r.status);
  w->Member("InputFormat", r.input_format);
  w->Key("S3BucketSource");
  w->BeginObject();
  w->Member("S3Bucket", r.s3_bucket);
  Opt(w, "S3BucketOwner", r.s3_bucket_owner);
  Opt(w, "S3KeyPrefix", r.s3_key_prefix);
  w->EndObject();
  w->MemberDouble("StartTime", r.start_time);
  w->Member("TableArn", r.table_arn);
}

std::string StoreExport(const ExportRecord& r) {
  api::JsonWriter w;
  w.BeginObject();
  WriteExportDescription(&w, r, true);
  w.EndObject();
  return w.Release();
}

std::string StoreImport(const ImportRecord& r) {
  api::JsonWriter w;
  w.BeginObject();
  WriteImportDescription(&w, r, true);
  w.EndObject();
  return w.Release();
}

StatusOr<ExportRecord> LoadExport(std::string_view json) {
  dom::parser parser;
  DR_ASSIGN_OR_RETURN(Reader j, Parse(&parser, json));
  ExportRecord r;
  r.id = j.Str("_Id");
  r.table_name = j.Str("_TableName");
  r.fingerprint = j.Str("_Fingerprint");
  r.billed_size_bytes = j.Int("BilledSizeBytes");
  r.client_token = j.Str("ClientToken");
  r.end_time = j.OptDouble("EndTime");
  r.arn = j.Str("ExportArn");
  r.export_format = j.Str("ExportFormat");
  r.export_manifest = j.Str("ExportManifest");
  r.status = j.Str("ExportStatus");
  r.export_time = j.OptDouble("ExportTime");
  r.export_type = j.Str("ExportType");
  r.failure_code = j.OptStr("FailureCode");
  r.failure_message = j.OptStr("FailureMessage");
  dom::object inc;
  if (j.o.at_key("IncrementalExportSpecification").get_object().get(inc) == simdjson::SUCCESS) {
    Reader ji{inc};
    r.from_time = ji.OptDouble("ExportFromTime");
    r.to_time = ji.OptDouble("ExportToTime");
    r.view_type = ji.Str("ExportViewType");
  }
  r.item_count = j.Int("ItemCount");
  r.s3_bucket = j.Str("S3Bucket");
  r.s3_bucket_owner = j.OptStr("S3BucketOwner");
  r.s3_prefix = j.OptStr("S3Prefix");
  r.s3_sse_algorithm = j.Str("S3SseAlgorithm");
  r.s3_sse_kms_key_id = j.OptStr("S3SseKmsKeyId");
  r.start_time = j.OptDouble("StartTime").value_or(0);
  r.table_arn = j.Str("TableArn");
  r.table_id = j.Str("TableId");
  return r;
}

StatusOr<ImportRecord> LoadImport(std::string_view json) {
  dom::parser parser;
  DR_ASSIGN_OR_RETURN(Reader j, Parse(&parser, json));
  ImportRecord r;
  r.id = j.Str("_Id");
  r.table_name = j.Str("_TableName");
  r.fingerprint = j.Str("_Fingerprint");
  r.client_token = j.Str("ClientToken");
  r.log_group_arn = j.Str("CloudWatchLogGroupArn");
  r.end_time = j.OptDouble("EndTime");
  r.error_count = j.Int("ErrorCount");
  r.failure_code = j.OptStr("FailureCode");
  r.failure_message = j.OptStr("FailureMessage");
  r.arn = j.Str("ImportArn");
  r.imported_item_count = j.Int("ImportedItemCount");
  r.status = j.Str("ImportStatus");
  r.compression = j.Str("InputCompressionType");
  r.input_format = j.Str("InputFormat");
  dom::object csv;
  if (j.o.at_key("InputFormatOptions").at_key("Csv").get_object().get(csv) == simdjson::SUCCESS) {
    Reader jc{csv};
    r.csv_delimiter = jc.OptStr("Delimiter");
    dom::array a;
    if (csv.at_key("HeaderList").get_array().get(a) == simdjson::SUCCESS) {
      r.csv_header.emplace();
      for (dom::element e : a) {
        std::string_view s;
        if (e.get_string().get(s) == simdjson::SUCCESS) r.csv_header->emplace_back(s);
      }
    }
  }
  r.processed_item_count = j.Int("ProcessedItemCount");
  r.processed_size_bytes = j.Int("ProcessedSizeBytes");
  dom::object src;
  if (j.o.at_key("S3BucketSource").get_object().get(src) == simdjson::SUCCESS) {
    Reader js{src};
    r.s3_bucket = js.Str("S3Bucket");
    r.s3_bucket_owner = js.OptStr("S3BucketOwner");
    r.s3_key_prefix = js.OptStr("S3KeyPrefix");
  }
  r.start_time = j.OptDouble("StartTime").value_or(0);
  r.table_arn = j.Str("TableArn");
  r.table_id = j.Str("TableId");
  dom::element params;
  if (j.o.at_key("TableCreationParameters").get(params) == simdjson::SUCCESS) {
    r.table_creation_parameters = simdjson::minify(params);
  }
  return r;
}

}  // namespace dynarock::transfer

namespace dynarock::transfer {

std::string ExportSummaryJson(const ExportRecord& r, const std::string& manifest_files_key) {
  const bool incremental = r.export_type == "INCREMENTAL_EXPORT";
  api::JsonWriter w;
  w.BeginObject();
  w.Member("version", incremental ? "2023-08-01" : "2020-06-30");
  w.Member("exportArn", r.arn);
  w.Member("startTime", IsoTime(r.start_time));
  w.Member("endTime", IsoTime(r.end_time.value_or(r.start_time)));
  w.Member("tableArn", r.table_arn);
  w.Member("tableId", r.table_id);
  if (incremental) {
    w.Member("exportFromTime", IsoTime(r.from_time.value_or(0)));
    w.Member("exportToTime", IsoTime(r.to_time.value_or(0)));
  } else {
    w.Member("exportTime", IsoTime(r.export_time.value_or(r.start_time)));
  }
  w.Member("s3Bucket", r.s3_bucket);
  w.Key("s3Prefix");
  if (r.s3_prefix) {
    w.String(*r.s3_prefix);
  } else {
    w.Null();
  }
  w.Member("s3SseAlgorithm", r.s3_sse_algorithm);
  w.Key("s3SseKmsKeyId");
  if (r.s3_sse_kms_key_id) {
    w.String(*r.s3_sse_kms_key_id);
  } else {
    w.Null();
  }
  w.Member("manifestFilesS3Key", manifest_files_key);
  w.MemberInt("billedSizeBytes", r.billed_size_bytes);
  w.MemberInt("itemCount", r.item_count);
  w.Member("outputFormat", r.export_format);
  if (incremental) {
    w.Member("outputView", r.view_type);
    w.Member("exportType", r.export_type);
  }
  w.EndObject();
  return w.Release();
}

}  // namespace dynarock::transfer
