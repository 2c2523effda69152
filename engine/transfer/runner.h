// File: engine/transfer/runner.h
//
// The work of one export or one import, without the job bookkeeping
// (transfers.cc keeps that): used by the ExportTableToPointInTime and
// ImportTable jobs and, directly on files, by `dynarock export` and
// `dynarock import` (tools/transfer_command.cc).
//
// An export writes DynamoDB's layout under `export_dir`
// (<bucket>/<prefix>/AWSDynamoDB/<export id>):
//   _started                      empty, written first
//   data/<random>.json.gz         DYNAMODB_JSON lines (ION: .ion.gz), at most
//                                 kItemsPerFileMax items each; one empty file
//                                 for an empty table
//   manifest-files.json           a JSON line per data file: itemCount,
//                                 md5Checksum (base64), etag (hex MD5),
//                                 dataFileS3Key
//   manifest-summary.json         the export's summary (see WriteSummary)
//   manifest-*.checksum           the hex MD5 of the manifest beside it

#ifndef DYNAROCK_TRANSFER_RUNNER_H_
#define DYNAROCK_TRANSFER_RUNNER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "dynarock/db.h"
#include "dynarock/status.h"
#include "engine/transfer/file_codec.h"
#include "engine/transfer/item_formats.h"

namespace dynarock::transfer {

// Counters a job's description (and a progress bar) reads while it runs.
struct Progress {
  std::atomic<int64_t> items{0};        // exported, or processed (imports)
  std::atomic<int64_t> bytes{0};        // exported item bytes, or source bytes read
  std::atomic<int64_t> imported{0};     // imports: items added
  std::atomic<int64_t> errors{0};       // imports: records rejected
  std::atomic<int64_t> total_bytes{0};  // imports: source size; exports: 0
  std::atomic<int64_t> total_items{0};  // exports: the table's approximate count
};

// ---------------------------------------------------------------- export

struct ExportPlan {
  std::string table;         // name or ARN
  std::string export_dir;    // the folder for AWSDynamoDB/<id>
  std::string key_prefix;    // the S3 key of export_dir ("p/AWSDynamoDB/<id>")
  DataFormat format = DataFormat::kDynamoDbJson;
  bool incremental = false;
  std::optional<double> export_time;  // full: nullopt = now
  double from_time = 0, to_time = 0;  // incremental
  bool old_images = true;             // NEW_AND_OLD_IMAGES
};

struct ExportResult {
  int64_t item_count = 0;
  int64_t billed_size_bytes = 0;
  std::vector<std::string> data_keys;
};

// Writes the data files and manifest-files.json; `stop` ends it early
// (an internal error). The summary is written by WriteSummary afterwards.
StatusOr<ExportResult> RunExport(DB* db, const ExportPlan& plan, Progress* progress,
                                 const std::atomic<bool>* stop);
constexpr int64_t kItemsPerFileMax = 1000000;

// Writes manifest-summary.json (and its checksum): `summary` is its JSON.
Status WriteSummary(const std::string& export_dir, const std::string& summary_json);

// ---------------------------------------------------------------- import

struct ImportSource {
  std::vector<std::string> files;  // read in this order
  DataFormat format = DataFormat::kDynamoDbJson;
  Compression compression = Compression::kNone;
  char csv_delimiter = ',';
  std::vector<std::string> csv_header;  // empty: each file's first line
};

// Where rejected records are reported: (file, line number, message).
using ErrorSink = std::function<void(const std::string& file, int64_t line,
                                     const std::string& message)>;

// Creates table `create` and loads the source into it (DB::LoadTable: nobody
// sees the table before it is whole). A record that cannot be parsed or that
// the table refuses (ValidationException) is counted in progress->errors,
// reported to `errors`, and skipped. `on_created` is called once the table
// exists (CREATING) with its description, before any item is read. A file
// that cannot be read, or `stop`, fails the import (the table is deleted).
// `on_filled`, if given, is called once every record is in, before the table
// turns ACTIVE: a record of the job saved there with
// TableLoader::SaveCheckpointWithTable lands with the table, or not at all.
StatusOr<TableDescription> RunImport(
    DB* db, const CreateTableRequest& create, const ImportSource& source, Progress* progress,
    const std::atomic<bool>* stop, const ErrorSink& errors,
    const std::function<void(const TableDescription&)>& on_created,
    const std::function<Status(TableLoader&)>& on_filled = nullptr);

// The files under `dir` whose path relative to `bucket_dir` starts with
// `key_prefix` (S3's prefix match), sorted; export bookkeeping files
// (manifest-*.json, *.checksum, _started) are left out.
StatusOr<std::vector<std::string>> ListSourceFiles(const std::string& bucket_dir,
                                                   const std::string& key_prefix);

// A random lowercase [a-z0-9] string of `n` characters.
std::string RandomToken(size_t n);

}  // namespace dynarock::transfer

#endif  // DYNAROCK_TRANSFER_RUNNER_H_
