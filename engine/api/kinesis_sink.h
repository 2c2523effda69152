// File: engine/api/kinesis_sink.h
//
// KinesisSink: a thread that delivers a database's Kinesis streaming
// destination records (DB::DeliverKinesisRecords) to a folder, one file of
// JSON lines per Kinesis stream, <dir>/<stream name>.jsonl, each line a record
// as DynamoDB puts it into Kinesis:
//   {"awsRegion":..,"eventID":<uuid>,"eventName":"INSERT|MODIFY|REMOVE",
//    "userIdentity":null,"recordFormat":"application/json","tableName":..,
//    "dynamodb":{"ApproximateCreationDateTime":<ms, or µs>,"Keys":..,
//    "NewImage":..,"OldImage":..,"SizeBytes":..},"eventSource":"aws:dynamodb"}
// A batch is appended and synced (a new file's folder too) before it counts
// as delivered: at least once, in order per destination; a line cut short by
// a crash is dropped before the batch is written again. `dynarock serve --kinesis-dir DIR` runs one per
// database; an embedding application may run its own.

#ifndef DYNAROCK_API_KINESIS_SINK_H_
#define DYNAROCK_API_KINESIS_SINK_H_

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "dynarock/db.h"

namespace dynarock::api {

class KinesisSink {
 public:
  // Starts delivering at once; `db` outlives the sink.
  KinesisSink(DB* db, std::string dir);
  ~KinesisSink();  // stops after the batch in hand
  KinesisSink(const KinesisSink&) = delete;
  KinesisSink& operator=(const KinesisSink&) = delete;

  // The file a Kinesis stream's records go to (its name after "stream/",
  // anything but [A-Za-z0-9_.-] replaced by '_').
  static std::string FileName(std::string_view stream_arn);
  // One record's line (without its newline).
  static std::string RecordJson(const StreamRecord& r, const std::string& table, bool microseconds);

 private:
  void Run();
  Status Write(const DB::KinesisRecords& batch);

  DB* const db_;
  const std::string dir_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;  // GUARDED_BY(mu_)
  std::thread thread_;
};

}  // namespace dynarock::api

#endif  // DYNAROCK_API_KINESIS_SINK_H_
