// File: engine/transfer/transfers.h
//
// DynamoDB's export and import operations over a DB, with local folders in
// place of S3: bucket B under the S3 root R is the folder R/B, and a key is a
// path inside it. Exports write DynamoDB's own layout (AWSDynamoDB/<export
// id>/manifest-summary.json, manifest-files.json, data/*.json.gz) so that
// DynamoDB's ImportTable accepts the files unchanged; imports read DynamoDB's
// export files, ION and CSV, compressed with GZIP, ZSTD or not at all.
//
// One Transfers per DB (the api::Handler owns it). Jobs run on threads of
// their own; their descriptions are kept in the DB (SaveCheckpoint), so
// DescribeExport/ListExports/DescribeImport/ListImports survive restarts; a
// job cut short by a restart is reported FAILED.

#ifndef DYNAROCK_TRANSFER_TRANSFERS_H_
#define DYNAROCK_TRANSFER_TRANSFERS_H_

#include <memory>
#include <string>
#include <string_view>

#include "dynarock/db.h"
#include "dynarock/status.h"

namespace dynarock::transfer {

class Transfers {
 public:
  // `db` must outlive the Transfers. `s3_root`: the folder buckets live in
  // (empty: exports and imports are refused with a ValidationException that
  // says how to set one).
  Transfers(DB* db, std::string s3_root);
  ~Transfers();  // waits for running jobs to stop (they stop early)
  Transfers(const Transfers&) = delete;
  Transfers& operator=(const Transfers&) = delete;

  // Whether `operation` is one of ExportTableToPointInTime, DescribeExport,
  // ListExports, ImportTable, DescribeImport, ListImports.
  static bool Handles(std::string_view operation);
  // Runs one of those operations on its JSON request body: the JSON response
  // body, or DynamoDB's error.
  StatusOr<std::string> Handle(std::string_view operation, std::string_view body);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace dynarock::transfer

#endif  // DYNAROCK_TRANSFER_TRANSFERS_H_
