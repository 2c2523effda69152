// File: tools/transfer_command.cc
//
// `dynarock export` and `dynarock import`: DynamoDB's export and import on a
// data directory (the DB opened here, files read and written directly) or on
// an endpoint (ExportTableToPointInTime / ImportTable, then Describe* until
// done). Progress: a bar (items, bytes, rate, ETA) on a terminal, a plain line
// every few seconds otherwise.

#include <simdjson.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "dynarock/db.h"
#include "engine/api/json_encode.h"
#include "engine/transfer/jobs.h"
#include "engine/transfer/runner.h"
#include "tools/api_target.h"
#include "tools/command.h"
#include "tools/data_dir.h"
#include "tools/progress.h"

namespace dynarock::tools {
namespace {
namespace fs = std::filesystem;
using namespace dynarock::transfer;

constexpr char kExportHelp[] =
    "Usage: dynarock export TABLE (--data DIR | --endpoint URL) [flags]\n"
    "\n"
    "Writes TABLE in DynamoDB's export layout (AWSDynamoDB/<id>/manifest-summary.json,\n"
    "manifest-files.json, data/*.json.gz), which DynamoDB's ImportTable accepts unchanged\n"
    "once uploaded to S3 (aws s3 cp --recursive DIR s3://BUCKET/PREFIX), or as JSON lines.\n"
    "\n"
    "  --data DIR        the database directory (opened here)\n"
    "  --out DIR         where AWSDynamoDB/<id>/ goes (default ./export); with --data\n"
    "  --jsonl FILE      instead: one {\"Item\":{...}} line per item ('-': stdout); with --data\n"
    "  --format F        DYNAMODB_JSON (default) or ION\n"
    "  --endpoint URL    a DynamoDB endpoint: runs ExportTableToPointInTime (the table\n"
    "                    needs point-in-time recovery) into --bucket B [--prefix P]\n";

constexpr char kImportHelp[] =
    "Usage: dynarock import --table NAME --key ATTR:TYPE[,ATTR:TYPE] (--data DIR SOURCE... |\n"
    "                       --endpoint URL --bucket B [--prefix P]) [flags]\n"
    "\n"
    "Creates table NAME and loads it; the table is invisible until whole. Bad records are\n"
    "counted and reported, the import goes on (DynamoDB's ImportTable accounting).\n"
    "\n"
    "  --key pk:S,sk:N   the key schema (types S, N, B)\n"
    "  --gsi NAME=ATTR:TYPE[,ATTR:TYPE]   a global secondary index (ALL projection); repeatable\n"
    "  --format F        DYNAMODB_JSON, ION or CSV (default: from the file names)\n"
    "  --compression C   GZIP, ZSTD or NONE (default: from the file names)\n"
    "  --delimiter D     CSV's delimiter (default ',')\n"
    "  SOURCE            files or folders: a DynamoDB export's data/ folder, JSON lines,\n"
    "                    CSV files with a header line\n"
    "  --endpoint URL    a DynamoDB endpoint: runs ImportTable on --bucket B [--prefix P]\n";

int Fail(const char* command, const Status& s) {
  std::fprintf(stderr, "dynarock %s: %s\n", command, s.ToString().c_str());
  return kExitFailure;
}

// The member `key` of a reply's one inner object ("" when absent).
std::string Field(const std::string& json, const char* key) {
  simdjson::dom::parser p;
  simdjson::dom::element root;
  simdjson::dom::object outer;
  if (p.parse(json).get(root) != simdjson::SUCCESS || root.get(outer) != simdjson::SUCCESS) return "";
  for (auto [name, inner] : outer) {
    simdjson::dom::element v;
    if (inner[key].get(v) != simdjson::SUCCESS) continue;
    std::string_view text;
    int64_t i = 0;
    double d = 0;
    if (v.get(text) == simdjson::SUCCESS) return std::string(text);
    if (v.get(i) == simdjson::SUCCESS) return std::to_string(i);
    if (v.get(d) == simdjson::SUCCESS) return std::to_string(static_cast<int64_t>(d));
  }
  return "";
}
int64_t IntField(const std::string& json, const char* key) {
  const std::string v = Field(json, key);
  return v.empty() ? 0 : std::stoll(v);
}

// Polls `describe` until the job is not IN_PROGRESS; returns its last reply.
StatusOr<std::string> WaitRemote(ApiTarget& c, const char* label, std::string_view op,
                                 const std::string& body, const char* items_field,
                                 const char* bytes_field) {
  std::atomic<int64_t> items{0}, bytes{0};
  ProgressThread view(label, [&](int64_t* i, int64_t* b, int64_t*, int64_t*) {
    *i = items.load();
    *b = bytes.load();
  });
  for (;;) {
    auto r = c.Call(op, body);
    if (!r.ok()) return r.status();
    items = IntField(*r, items_field);
    bytes = IntField(*r, bytes_field);
    if (Field(*r, "ExportStatus") != "IN_PROGRESS" && Field(*r, "ImportStatus") != "IN_PROGRESS") {
      return r;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
}

StatusOr<std::unique_ptr<DB>> OpenDb(const std::string& dir) {
  Options options;
  return OpenDataDir(dir, options);
}

}  // namespace

int RunExport(const Args& args) {
  std::string table, data, endpoint, out = "./export", jsonl, bucket, prefix, format = "DYNAMODB_JSON";
  ArgReader r(args);
  while (r.Next()) {
    const std::string_view f = r.flag();
    std::string v;
    if (f == "--help" || f == "-h") {
      std::fputs(kExportHelp, stdout);
      return kExitOk;
    }
    std::string* target = f == "--data" ? &data : f == "--endpoint" ? &endpoint : f == "--out" ? &out
                        : f == "--jsonl" ? &jsonl : f == "--bucket" ? &bucket : f == "--prefix" ? &prefix
                        : f == "--format" ? &format : nullptr;
    if (target != nullptr) {
      if (!r.Value(&v)) return UsageError("export", std::string(f) + " needs a value");
      *target = v;
    } else if (f.substr(0, 2) != "--" && table.empty()) {
      table = std::string(f);
    } else {
      return UsageError("export", "unknown argument '" + std::string(f) + "'");
    }
  }
  if (table.empty()) return UsageError("export", "name the table to export");
  if (data.empty() == endpoint.empty()) return UsageError("export", "give --data DIR or --endpoint URL");
  if (format != "DYNAMODB_JSON" && format != "ION") return UsageError("export", "--format is DYNAMODB_JSON or ION");

  if (!endpoint.empty()) {
    if (bucket.empty()) return UsageError("export", "--endpoint needs --bucket B");
    auto c = ApiTarget::Open("", endpoint);
    if (!c.ok()) return Fail("export", c.status());
    auto d = (*c)->Call("DescribeTable", "{\"TableName\":\"" + table + "\"}");
    if (!d.ok()) return Fail("export", d.status());
    api::JsonWriter w;
    w.BeginObject();
    w.Member("TableArn", Field(*d, "TableArn"));
    w.Member("S3Bucket", bucket);
    if (!prefix.empty()) w.Member("S3Prefix", prefix);
    w.Member("ExportFormat", format);
    w.EndObject();
    auto started = (*c)->Call("ExportTableToPointInTime", w.str());
    if (!started.ok()) return Fail("export", started.status());
    const std::string arn = Field(*started, "ExportArn");
    auto done = WaitRemote(**c, ("export " + table).c_str(), "DescribeExport",
                           "{\"ExportArn\":\"" + arn + "\"}", "ItemCount", "BilledSizeBytes");
    if (!done.ok()) return Fail("export", done.status());
    std::printf("%s\n", done->c_str());
    return Field(*done, "ExportStatus") == "COMPLETED" ? kExitOk : kExitFailure;
  }

  auto db = OpenDb(data);
  if (!db.ok()) return Fail("export", db.status());
  Progress progress;
  DescribeTableRequest dt;
  dt.table_name = table;
  auto desc = (*db)->DescribeTable(dt);
  if (!desc.ok()) return Fail("export", desc.status());
  progress.total_items = desc->table.item_count;
  ProgressThread view("export " + table, [&](int64_t* i, int64_t* b, int64_t* ti, int64_t* tb) {
    *i = progress.items.load();
    *b = progress.bytes.load();
    *tb = 0;
    *ti = progress.total_items.load();
  });
  if (!jsonl.empty()) {
    std::FILE* f = jsonl == "-" ? stdout : std::fopen(jsonl.c_str(), "wb");
    if (f == nullptr) return Fail("export", Status(ErrorType::kValidation, "cannot create " + jsonl));
    std::string line;
    Status s = (*db)->ReadTableAt(table, std::nullopt, [&](std::string_view item) -> Status {
      line.clear();
      AppendItemLine(format == "ION" ? DataFormat::kIon : DataFormat::kDynamoDbJson, item, &line);
      progress.items.fetch_add(1);
      progress.bytes.fetch_add(static_cast<int64_t>(line.size()));
      if (std::fwrite(line.data(), 1, line.size(), f) != line.size()) {
        return Status(ErrorType::kInternalServerError, "write failed");
      }
      return Status();
    });
    if (f != stdout) std::fclose(f);
    view.Stop();
    return s.ok() ? kExitOk : Fail("export", s);
  }
  ExportRecord rec;
  rec.start_time = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  char id[40];
  std::snprintf(id, sizeof(id), "%014lld-%08x", static_cast<long long>(rec.start_time * 1000),
                static_cast<unsigned>(std::hash<std::string>()(RandomToken(16))));
  rec.id = id;
  rec.arn = desc->table.table_arn + "/export/" + rec.id;
  rec.table_arn = desc->table.table_arn;
  rec.table_id = desc->table.table_id;
  rec.export_time = rec.start_time;
  rec.s3_bucket = fs::path(out).filename().string();
  rec.export_format = format;
  ExportPlan plan;
  plan.table = table;
  plan.key_prefix = "AWSDynamoDB/" + rec.id;
  plan.export_dir = out + "/" + plan.key_prefix;
  plan.format = format == "ION" ? DataFormat::kIon : DataFormat::kDynamoDbJson;
  auto result = transfer::RunExport(db->get(), plan, &progress, nullptr);
  view.Stop();
  if (!result.ok()) return Fail("export", result.status());
  rec.item_count = result->item_count;
  rec.billed_size_bytes = result->billed_size_bytes;
  rec.end_time = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  Status s = WriteSummary(plan.export_dir, ExportSummaryJson(rec, plan.key_prefix + "/manifest-files.json"));
  if (!s.ok()) return Fail("export", s);
  std::printf("exported %lld items to %s\n", static_cast<long long>(rec.item_count), plan.export_dir.c_str());
  return kExitOk;
}

namespace {

// "pk:S,sk:N" -> key schema and attribute definitions.
bool ParseKeys(const std::string& spec, std::vector<KeySchemaElement>* keys,
               std::vector<AttributeDefinition>* defs) {
  size_t start = 0;
  int n = 0;
  while (start < spec.size()) {
    size_t comma = spec.find(',', start);
    if (comma == std::string::npos) comma = spec.size();
    const std::string part = spec.substr(start, comma - start);
    const size_t colon = part.rfind(':');
    if (colon == std::string::npos || colon == 0) return false;
    AttrType type;
    if (!ParseAttrTypeName(part.substr(colon + 1), &type) ||
        (type != AttrType::kS && type != AttrType::kN && type != AttrType::kB)) {
      return false;
    }
    const std::string name = part.substr(0, colon);
    keys->push_back({name, n == 0 ? KeyType::kHash : KeyType::kRange});
    bool known = false;
    for (auto& d : *defs) known = known || d.attribute_name == name;
    if (!known) defs->push_back({name, type});
    ++n;
    start = comma + 1;
  }
  return n == 1 || n == 2;
}

void AddFiles(const std::string& source, std::vector<std::string>* files) {
  std::error_code ec;
  if (fs::is_directory(source, ec)) {
    auto listed = ListSourceFiles(source, "");
    if (listed.ok()) files->insert(files->end(), listed->begin(), listed->end());
  } else {
    files->push_back(source);
  }
}

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

int RunImport(const Args& args) {
  std::string table, keys, data, endpoint, bucket, prefix, format, compression, delimiter = ",";
  std::vector<std::string> gsis, sources;
  ArgReader r(args);
  while (r.Next()) {
    const std::string_view f = r.flag();
    std::string v;
    if (f == "--help" || f == "-h") {
      std::fputs(kImportHelp, stdout);
      return kExitOk;
    }
    std::string* target = f == "--table" ? &table : f == "--key" ? &keys : f == "--data" ? &data
                        : f == "--endpoint" ? &endpoint : f == "--bucket" ? &bucket
                        : f == "--prefix" ? &prefix : f == "--format" ? &format
                        : f == "--compression" ? &compression : f == "--delimiter" ? &delimiter : nullptr;
    if (target != nullptr) {
      if (!r.Value(&v)) return UsageError("import", std::string(f) + " needs a value");
      *target = v;
    } else if (f == "--gsi") {
      if (!r.Value(&v)) return UsageError("import", "--gsi needs NAME=ATTR:TYPE");
      gsis.push_back(v);
    } else if (f.substr(0, 2) != "--") {
      sources.emplace_back(f);
    } else {
      return UsageError("import", "unknown flag '" + std::string(f) + "'");
    }
  }
  if (table.empty() || keys.empty()) return UsageError("import", "--table and --key are required");
  if (data.empty() == endpoint.empty()) return UsageError("import", "give --data DIR or --endpoint URL");
  CreateTableRequest create;
  create.table_name = table;
  create.billing_mode = "PAY_PER_REQUEST";
  if (!ParseKeys(keys, &create.key_schema, &create.attribute_definitions)) {
    return UsageError("import", "--key is ATTR:TYPE[,ATTR:TYPE] with types S, N or B");
  }
  for (const std::string& g : gsis) {
    const size_t eq = g.find('=');
    GlobalSecondaryIndex index;
    if (eq == std::string::npos ||
        !ParseKeys(g.substr(eq + 1), &index.key_schema, &create.attribute_definitions)) {
      return UsageError("import", "--gsi is NAME=ATTR:TYPE[,ATTR:TYPE]");
    }
    index.index_name = g.substr(0, eq);
    index.projection.projection_type = ProjectionType::kAll;
    create.global_secondary_indexes.push_back(std::move(index));
    create.has_global_secondary_indexes = true;
  }

  if (!endpoint.empty()) {
    if (bucket.empty()) return UsageError("import", "--endpoint needs --bucket B");
    auto c = ApiTarget::Open("", endpoint);
    if (!c.ok()) return Fail("import", c.status());
    std::string params = api::EncodeCreateTableRequest(create);
    api::JsonWriter w;
    w.BeginObject();
    w.Key("S3BucketSource");
    w.BeginObject();
    w.Member("S3Bucket", bucket);
    if (!prefix.empty()) w.Member("S3KeyPrefix", prefix);
    w.EndObject();
    w.Member("InputFormat", format.empty() ? "DYNAMODB_JSON" : format);
    w.Member("InputCompressionType", compression.empty() ? "NONE" : compression);
    if (format == "CSV") {
      w.Key("InputFormatOptions");
      w.BeginObject();
      w.Key("Csv");
      w.BeginObject();
      w.Member("Delimiter", delimiter);
      w.EndObject();
      w.EndObject();
    }
    w.Key("TableCreationParameters");
    w.Raw(params);
    w.EndObject();
    auto started = (*c)->Call("ImportTable", w.str());
    if (!started.ok()) return Fail("import", started.status());
    auto done = WaitRemote(**c, ("import " + table).c_str(), "DescribeImport",
                           "{\"ImportArn\":\"" + Field(*started, "ImportArn") + "\"}",
                           "ProcessedItemCount", "ProcessedSizeBytes");
    if (!done.ok()) return Fail("import", done.status());
    std::printf("%s\n", done->c_str());
    return Field(*done, "ImportStatus") == "COMPLETED" ? kExitOk : kExitFailure;
  }

  if (sources.empty()) return UsageError("import", "name the files or folders to import");
  ImportSource source;
  for (const std::string& s : sources) AddFiles(s, &source.files);
  if (source.files.empty()) return UsageError("import", "no files found");
  const std::string& first = source.files[0];
  if (format.empty()) {
    format = EndsWith(first, ".csv") || EndsWith(first, ".csv.gz") || EndsWith(first, ".csv.zst") ? "CSV"
             : first.find(".ion") != std::string::npos ? "ION" : "DYNAMODB_JSON";
  }
  if (compression.empty()) {
    compression = EndsWith(first, ".gz") ? "GZIP" : EndsWith(first, ".zst") ? "ZSTD" : "NONE";
  }
  if (format == "CSV") source.format = DataFormat::kCsv;
  else if (format == "ION") source.format = DataFormat::kIon;
  else if (format == "DYNAMODB_JSON") source.format = DataFormat::kDynamoDbJson;
  else return UsageError("import", "--format is DYNAMODB_JSON, ION or CSV");
  if (compression == "GZIP") source.compression = Compression::kGzip;
  else if (compression == "ZSTD") source.compression = Compression::kZstd;
  else if (compression == "NONE") source.compression = Compression::kNone;
  else return UsageError("import", "--compression is GZIP, ZSTD or NONE");
  if (delimiter.size() != 1) return UsageError("import", "--delimiter is one character");
  source.csv_delimiter = delimiter[0];

  auto db = OpenDb(data);
  if (!db.ok()) return Fail("import", db.status());
  Progress progress;
  const auto start = std::chrono::steady_clock::now();
  int64_t shown = 0;
  auto errors = [&](const std::string& file, int64_t line, const std::string& message) {
    if (++shown <= 20) std::fprintf(stderr, "\n%s:%lld: %s", file.c_str(), static_cast<long long>(line), message.c_str());
  };
  StatusOr<TableDescription> result = Status();
  {
    ProgressThread view("import " + table, [&](int64_t* i, int64_t* b, int64_t*, int64_t* tb) {
      *i = progress.items.load();
      *b = progress.bytes.load();
      *tb = progress.total_bytes.load();
    });
    result = transfer::RunImport(db->get(), create, source, &progress, nullptr, errors, nullptr);
  }
  if (!result.ok()) return Fail("import", result.status());
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("imported %lld items into %s (%lld errors) in %.2f s: %.0f items/s\n",
              static_cast<long long>(progress.imported.load()), table.c_str(),
              static_cast<long long>(progress.errors.load()), secs,
              secs > 0 ? progress.items.load() / secs : 0.0);
  return progress.errors.load() == 0 ? kExitOk : kExitFailure;
}

}  // namespace dynarock::tools
