// File: engine/transfer/transfers_state.h
//
// Transfers' insides, shared by transfers.cc (construction, persistence,
// dispatch), export_ops.cc and import_ops.cc. Internal to engine/transfer.
//
// Storage (DB::SaveCheckpoint): "transfer/export/<id>" and
// "transfer/import/<id>" hold a record (jobs.h), "transfer/exports" and
// "transfer/imports" the ids, one a line, oldest first.

#ifndef DYNAROCK_TRANSFER_TRANSFERS_STATE_H_
#define DYNAROCK_TRANSFER_TRANSFERS_STATE_H_

#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/api/json_decoder.h"
#include "engine/transfer/jobs.h"
#include "engine/transfer/runner.h"
#include "engine/transfer/transfers.h"

namespace dynarock::transfer {

struct ExportJob {
  ExportRecord record;  // GUARDED_BY(State::mu)
  Progress progress;
  bool running = false;
};

struct ImportJob {
  ImportRecord record;  // GUARDED_BY(State::mu)
  Progress progress;
  bool running = false;
  // The request has saved the job's first record: until then the job does
  // not fill its table, so no later record can be overwritten by that one.
  bool recorded = false;
  Status refusal;  // the table could not be created: ImportTable's error
};

// Their records' checkpoint names (DB::SaveCheckpoint).
std::string ExportKey(const std::string& id);
std::string ImportKey(const std::string& id);

// DynamoDB's limits on jobs running at once (per account).
constexpr size_t kExportsRunningMax = 300;
constexpr size_t kImportsRunningMax = 50;
// A ClientToken is remembered for 8 hours.
constexpr double kClientTokenSeconds = 8 * 3600;
// At most this many rejected records are written to an import's log.
constexpr int64_t kImportErrorsLoggedMax = 10000;

struct Transfers::State {
  DB* db = nullptr;
  std::string s3_root;
  std::mutex mu;
  std::condition_variable cv;  // an import's table created, or its job ended
  std::atomic<bool> stop{false};
  std::vector<std::string> export_order, import_order;  // ids, oldest first
  std::map<std::string, std::shared_ptr<ExportJob>> exports;  // by id
  std::map<std::string, std::shared_ptr<ImportJob>> imports;
  std::vector<std::thread> threads;
  std::string arn_prefix;  // "arn:aws:dynamodb:<region>:<account>:"

  // Persistence; call with mu held.
  Status SaveExport(const ExportRecord& r);
  Status SaveImport(const ImportRecord& r);
  Status SaveIndex(bool exports_index);

  // "arn:aws:dynamodb:<region>:<account>:", from a table's ARN when there is one.
  std::string ArnPrefix();
  Status CheckReady() const;
  // "<13-digit ms>-<8 hex>"
  static std::string NewJobId(double now);

  StatusOr<std::string> Export(std::string_view body);
  StatusOr<std::string> DescribeExport(std::string_view body);
  StatusOr<std::string> ListExports(std::string_view body);
  StatusOr<std::string> Import(std::string_view body);
  StatusOr<std::string> DescribeImport(std::string_view body);
  StatusOr<std::string> ListImports(std::string_view body);

  void RunExportJob(std::shared_ptr<ExportJob> job, ExportPlan plan);
  void RunImportJob(std::shared_ptr<ImportJob> job, CreateTableRequest create,
                    ImportSource source);
};

double NowSeconds();

// Members both request decoders use.
namespace json = api::json_internal;
// A string member with a length range and DynamoDB's violation messages.
bool LengthChecked(json::Decoder& d, const json::dom::object& o, std::string_view key,
                   size_t min, size_t max, std::optional<std::string>* out);
// S3 bucket names (ExportTableToPointInTime's and ImportTable's pattern).
void CheckBucket(json::Decoder& d, std::string_view key_path, const std::string& bucket);
// A ClientToken's pattern ^[^\$]+$.
void CheckClientToken(json::Decoder& d, const std::optional<std::string>& token);
// An S3 prefix that would leave its bucket's folder ("..", "." segments).
Status CheckPrefix(const std::optional<std::string>& prefix, std::string_view member);

}  // namespace dynarock::transfer

#endif  // DYNAROCK_TRANSFER_TRANSFERS_STATE_H_
