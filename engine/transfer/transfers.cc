// File: engine/transfer/transfers.cc
//
// Transfers: the job table, its persistence and the dispatch of the six
// operations (export_ops.cc, import_ops.cc).

#include "engine/transfer/transfers.h"

#include <chrono>
#include <cstdio>

#include "engine/time_text.h"
#include "engine/transfer/transfers_state.h"

namespace dynarock::transfer {

double NowSeconds() {
  using namespace std::chrono;
  return duration_cast<microseconds>(system_clock::now().time_since_epoch()).count() / 1e6;
}

std::string ExportKey(const std::string& id) { return "transfer/export/" + id; }
std::string ImportKey(const std::string& id) { return "transfer/import/" + id; }

namespace {

constexpr std::string_view kExportsIndex = "transfer/exports";
constexpr std::string_view kImportsIndex = "transfer/imports";

std::vector<std::string> SplitLines(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < s.size()) {
    size_t nl = s.find('\n', start);
    if (nl == std::string::npos) nl = s.size();
    if (nl > start) out.push_back(s.substr(start, nl - start));
    start = nl + 1;
  }
  return out;
}

constexpr char kInterrupted[] = "The job was interrupted: the server stopped before it finished";

}  // namespace

Status Transfers::State::SaveExport(const ExportRecord& r) {
  return db->SaveCheckpoint(ExportKey(r.id), StoreExport(r));
}
Status Transfers::State::SaveImport(const ImportRecord& r) {
  return db->SaveCheckpoint(ImportKey(r.id), StoreImport(r));
}
Status Transfers::State::SaveIndex(bool exports_index) {
  const auto& order = exports_index ? export_order : import_order;
  std::string value;
  for (const std::string& id : order) value += id + "\n";
  return db->SaveCheckpoint(exports_index ? kExportsIndex : kImportsIndex, value);
}

std::string Transfers::State::ArnPrefix() {
  if (!arn_prefix.empty()) return arn_prefix;
  ListTablesRequest req;
  req.limit = 1;
  auto tables = db->ListTables(req);
  if (tables.ok() && !tables->table_names.empty()) {
    DescribeTableRequest d;
    d.table_name = tables->table_names[0];
    auto t = db->DescribeTable(d);
    if (t.ok()) {
      const size_t at = t->table.table_arn.find(":table/");
      if (at != std::string::npos) arn_prefix = t->table.table_arn.substr(0, at + 1);
    }
  }
  if (arn_prefix.empty()) {
    const Options defaults;
    return "arn:aws:dynamodb:" + defaults.region + ":" + defaults.account_id + ":";
  }
  return arn_prefix;
}

Status Transfers::State::CheckReady() const {
  if (db == nullptr) return Status(ErrorType::kInternalServerError, "no database");
  if (s3_root.empty()) {
    return ValidationError(
        "Exports and imports need a folder standing for S3: start the server with "
        "--s3-root DIR (bucket B is the folder DIR/B)");
  }
  return Status();
}

std::string Transfers::State::NewJobId(double now) {
  return TimestampedId(static_cast<int64_t>(now * 1000));
}

namespace {

// Loads the records of one kind of job, marking those recorded as running
// FAILED: a restart cut them short.
template <typename Job, typename StateT, typename KeyFn, typename LoadFn, typename SaveFn,
          typename Map>
void LoadJobs(StateT& s, std::string_view index_key, KeyFn key_of, LoadFn load, SaveFn save,
              std::vector<std::string>* order, Map* jobs) {
  auto index = s.db->LoadCheckpoint(index_key);
  if (!index.ok() || !index->has_value()) return;
  for (const std::string& id : SplitLines(**index)) {
    auto stored = s.db->LoadCheckpoint(key_of(id));
    if (!stored.ok() || !stored->has_value()) continue;
    auto r = load(**stored);
    if (!r.ok()) continue;
    auto job = std::make_shared<Job>();
    job->record = std::move(*r);
    if (job->record.status == "IN_PROGRESS") {
      job->record.status = "FAILED";
      job->record.failure_code = "UnknownInternalFailure";
      job->record.failure_message = kInterrupted;
      job->record.end_time = NowSeconds();
      (void)(s.*save)(job->record);
    }
    order->push_back(id);
    (*jobs)[id] = std::move(job);
  }
}

}  // namespace

Transfers::Transfers(DB* db, std::string s3_root) : state_(std::make_unique<State>()) {
  state_->db = db;
  state_->s3_root = std::move(s3_root);
  while (!state_->s3_root.empty() && state_->s3_root.size() > 1 && state_->s3_root.back() == '/') {
    state_->s3_root.pop_back();
  }
  if (db == nullptr) return;
  State& s = *state_;
  // Jobs recorded as running were cut short by a restart.
  LoadJobs<ExportJob>(s, kExportsIndex, ExportKey, LoadExport, &State::SaveExport, &s.export_order,
                      &s.exports);
  LoadJobs<ImportJob>(s, kImportsIndex, ImportKey, LoadImport, &State::SaveImport, &s.import_order,
                      &s.imports);
}

Transfers::~Transfers() {
  state_->stop = true;
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    threads.swap(state_->threads);
  }
  for (std::thread& t : threads) t.join();
}

bool Transfers::Handles(std::string_view operation) {
  return operation == "ExportTableToPointInTime" || operation == "DescribeExport" ||
         operation == "ListExports" || operation == "ImportTable" ||
         operation == "DescribeImport" || operation == "ListImports";
}

StatusOr<std::string> Transfers::Handle(std::string_view operation, std::string_view body) {
  State& s = *state_;
  if (operation == "ExportTableToPointInTime") return s.Export(body);
  if (operation == "DescribeExport") return s.DescribeExport(body);
  if (operation == "ListExports") return s.ListExports(body);
  if (operation == "ImportTable") return s.Import(body);
  if (operation == "DescribeImport") return s.DescribeImport(body);
  if (operation == "ListImports") return s.ListImports(body);
  return Status(ErrorType::kUnknownOperation, "Unknown operation " + std::string(operation));
}

// ---------------------------------------------------------------- shared checks

bool LengthChecked(json::Decoder& d, const json::dom::object& o, std::string_view key,
                   size_t min, size_t max, std::optional<std::string>* out) {
  if (!d.Str(o, key, out)) return false;
  if ((*out)->size() < min) {
    d.Violation("Value '" + **out + "' at '" + d.PathTo(key) +
                "' failed to satisfy constraint: Member must have length greater than or equal to " +
                std::to_string(min));
  } else if ((*out)->size() > max) {
    d.Violation("Value '" + **out + "' at '" + d.PathTo(key) +
                "' failed to satisfy constraint: Member must have length less than or equal to " +
                std::to_string(max));
  }
  return true;
}

void CheckBucket(json::Decoder& d, std::string_view key_path, const std::string& bucket) {
  auto alnum = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  };
  bool ok = bucket.size() >= 2 && alnum(bucket.front()) && alnum(bucket.back());
  for (char c : bucket) ok = ok && (alnum(c) || c == '.' || c == '-' || c == '_');
  if (bucket.size() > 255) {
    d.Violation("Value '" + bucket + "' at '" + std::string(key_path) +
                "' failed to satisfy constraint: Member must have length less than or equal to 255");
  } else if (!ok) {
    d.Violation("Value '" + bucket + "' at '" + std::string(key_path) +
                "' failed to satisfy constraint: Member must satisfy regular expression pattern: "
                "^[a-z0-9A-Z]+[\\.\\-\\w]*[a-z0-9A-Z]+$");
  }
}

void CheckClientToken(json::Decoder& d, const std::optional<std::string>& token) {
  if (token && (token->empty() || token->find('$') != std::string::npos)) {
    d.Violation("Value '" + *token + "' at 'clientToken' failed to satisfy constraint: Member "
                "must satisfy regular expression pattern: ^[^\\$]+$");
  }
}

Status CheckPrefix(const std::optional<std::string>& prefix, std::string_view member) {
  if (!prefix) return Status();
  size_t start = 0;
  const std::string& p = *prefix;
  while (start <= p.size()) {
    size_t slash = p.find('/', start);
    if (slash == std::string::npos) slash = p.size();
    const std::string_view seg = std::string_view(p).substr(start, slash - start);
    if (seg == "." || seg == "..") {
      return ValidationError(std::string(member) + " '" + p +
                             "' has a '.' or '..' segment, which a folder standing for a "
                             "bucket cannot hold");
    }
    if (p.find('\0') != std::string::npos) {
      return ValidationError(std::string(member) + " holds a NUL character");
    }
    start = slash + 1;
  }
  return Status();
}

}  // namespace dynarock::transfer
