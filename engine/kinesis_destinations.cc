// File: engine/kinesis_destinations.cc
//
// Kinesis streaming destinations (EnableKinesisStreamingDestination,
// DisableKinesisStreamingDestination, UpdateKinesisStreamingDestination,
// DescribeKinesisStreamingDestination) and the delivery of their records.
//
// The settings live in the table's catalog record (TableInfo::kinesis): at
// most one destination is live at a time; a disabled one stays listed, as on
// DynamoDB. As with the other settings, a change is made at once: Enable
// answers ENABLING, Disable DISABLING, Update UPDATING, and the next Describe
// says ACTIVE or DISABLED.
//
// While a destination is ACTIVE the change log keeps an internal log of the
// table's changes with both images (ChangeLog::CreateStream, `internal`),
// written in the same batch as each write, so no acknowledged write misses
// its record. DeliverKinesisRecords hands each log's records, in order, to a
// deliverer (api::KinesisSink writes them, as DynamoDB's Kinesis records, to
// <dir>/<stream name>.jsonl) and, once it says they are safe, remembers how
// far it got (a checkpoint): delivery is at least once, as Kinesis' is; a
// crash between the two repeats a batch. A disabled (or deleted table's) log
// is delivered to its end, then left to age out.

#include <algorithm>
#include <cstdlib>
#include <set>
#include <shared_mutex>

#include "engine/change_log.h"
#include "engine/db_impl.h"
#include "engine/table_validation.h"

namespace dynarock {
namespace {

constexpr char kActive[] = "ACTIVE";
constexpr char kDisabled[] = "DISABLED";

bool Live(const TableInfo::KinesisDestination& d) {
  return d.status == "ENABLING" || d.status == kActive || d.status == "UPDATING" ||
         d.status == "DISABLING";
}

TableInfo::KinesisDestination* FindDestination(TableInfo* info, std::string_view arn) {
  for (auto& d : info->kinesis)
    if (d.stream_arn == arn) return &d;
  return nullptr;
}

// A change's answer: the request's table, stream and configuration echoed.
KinesisStreamingDestinationResponse Answer(const KinesisStreamingDestinationRequest& req,
                                           const char* status) {
  KinesisStreamingDestinationResponse resp;
  resp.table_name = std::string(TableNameOf(req.table_name));
  resp.stream_arn = req.stream_arn;
  resp.destination_status = status;
  resp.configuration = req.configuration;
  resp.precision = req.precision;
  return resp;
}

std::string CheckpointOf(uint32_t log_id) { return "kinesis/" + std::to_string(log_id); }

}  // namespace

StatusOr<KinesisStreamingDestinationResponse> DBImpl::EnableKinesisStreamingDestination(
    const KinesisStreamingDestinationRequest& req) {
  DR_RETURN_IF_ERROR(ValidateTableName(req.table_name, "tableName"));
  KinesisStreamingDestinationResponse resp = Answer(req, "ENABLING");
  DR_RETURN_IF_ERROR(AlterTable(
      TableNameOf(req.table_name), TableNotFound(req.table_name),
      [&](TableInfo* info, rocksdb::WriteBatch* batch) -> Status {
        for (const auto& d : info->kinesis) {
          if (Live(d)) {
            return ValidationError(
                "Table is not in a valid state to enable Kinesis Streaming Destination: "
                "EnableKinesisStreamingDestination must be DISABLED or ENABLE_FAILED to perform "
                "ENABLE operation.");
          }
        }
        TableInfo::KinesisDestination* d = FindDestination(info, req.stream_arn);
        if (d == nullptr) {
          info->kinesis.push_back({req.stream_arn, "", std::nullopt});
          d = &info->kinesis.back();
        }
        d->status = kActive;
        d->precision = req.precision;
        // A log of its own for this destination (the one before, if any, was
        // closed when its destination was disabled).
        change_log_->CreateStream(info, AllocateId(batch), batch, /*internal=*/true, req.stream_arn);
        return Status();
      }));
  return resp;
}

StatusOr<KinesisStreamingDestinationResponse> DBImpl::DisableKinesisStreamingDestination(
    const KinesisStreamingDestinationRequest& req) {
  DR_RETURN_IF_ERROR(ValidateTableName(req.table_name, "tableName"));
  KinesisStreamingDestinationResponse resp = Answer(req, "DISABLING");
  DR_RETURN_IF_ERROR(AlterTable(
      TableNameOf(req.table_name), TableNotFound(req.table_name),
      [&](TableInfo* info, rocksdb::WriteBatch* batch) -> Status {
        TableInfo::KinesisDestination* d = FindDestination(info, req.stream_arn);
        if (d == nullptr || d->status != kActive) {
          return ValidationError(
              "Table is not in a valid state to disable Kinesis Streaming Destination: "
              "KinesisStreamingDestination must be ACTIVE to perform DISABLE operation.");
        }
        d->status = kDisabled;
        if (info->kinesis_log_id != 0) change_log_->DisableStream(info->kinesis_log_id, batch);
        info->kinesis_log_id = 0;
        return Status();
      }));
  return resp;
}

StatusOr<KinesisStreamingDestinationResponse> DBImpl::UpdateKinesisStreamingDestination(
    const KinesisStreamingDestinationRequest& req) {
  DR_RETURN_IF_ERROR(ValidateTableName(req.table_name, "tableName"));
  if (!req.precision) {
    return ValidationError(
        "Streaming destination cannot be updated with given parameters: "
        "UpdateKinesisStreamingConfiguration cannot be null or contain only null values");
  }
  KinesisStreamingDestinationResponse resp = Answer(req, "UPDATING");
  DR_RETURN_IF_ERROR(AlterTable(
      TableNameOf(req.table_name), TableNotFound(req.table_name), [&](TableInfo* info) -> Status {
        TableInfo::KinesisDestination* d = FindDestination(info, req.stream_arn);
        if (d == nullptr || d->status != kActive) {
          return ValidationError(
              "Table is not in a valid state to update Kinesis Streaming Destination: Kinesis "
              "streaming is not in ACTIVE state. Updates are only allowed in ACTIVE state. "
              "TableName: " + info->name);
        }
        if (d->precision.value_or("MILLISECOND") == *req.precision) {
          return ValidationError("Invalid Request: Precision is already set to the desired value of " +
                                 *req.precision + " for tableId: " + info->uuid +
                                 ", kdsArn: " + req.stream_arn);
        }
        d->precision = req.precision;
        return Status();
      }));
  return resp;
}

StatusOr<DescribeKinesisStreamingDestinationResponse> DBImpl::DescribeKinesisStreamingDestination(
    const DescribeKinesisStreamingDestinationRequest& req) {
  DR_RETURN_IF_ERROR(ValidateTableName(req.table_name, "tableName"));
  auto found = FindAnyTable(req.table_name);
  if (!found.ok() || !(*found)->loading.empty()) return TableNotFound(req.table_name);
  DescribeKinesisStreamingDestinationResponse resp;
  resp.table_name = (*found)->name;
  for (const auto& d : (*found)->kinesis) {
    KinesisDataStreamDestination out;
    out.stream_arn = d.stream_arn;
    out.destination_status = d.status;
    out.precision = d.precision;
    resp.destinations.push_back(std::move(out));
  }
  return resp;
}

// ---------------------------------------------------------------- delivery

Status DBImpl::DeliverKinesisLog(const StreamInfo& log,
                                 const std::function<Status(const KinesisRecords&)>& deliver,
                                 int64_t* delivered, bool* done) {
  *done = false;
  uint64_t from = log.shards.empty() ? 1 : log.shards.front().start_seq;
  DR_ASSIGN_OR_RETURN(std::optional<std::string> saved, LoadCheckpoint(CheckpointOf(log.id)));
  if (saved) from = std::max<uint64_t>(from, std::strtoull(saved->c_str(), nullptr, 10));
  const uint64_t horizon = change_log_->Horizon();
  if (!log.enabled() && from > log.end_seq) {
    *done = true;
    return Status();
  }
  const uint64_t to = log.enabled() ? horizon : std::min(horizon, log.end_seq);
  if (from > to) return Status();
  KinesisRecords batch;
  batch.stream_arn = log.destination;
  batch.table_name = log.table_name;
  {
    // The precision its table asks for now (milliseconds once the table is gone).
    std::shared_lock lock(catalog_mu_);
    for (const auto& [name, table] : tables_) {
      if (table->id != log.table_id) continue;
      for (const auto& d : table->kinesis)
        if (d.stream_arn == log.destination) batch.microseconds = d.precision == "MICROSECOND";
    }
  }
  uint64_t next = from;
  DR_RETURN_IF_ERROR(change_log_->Read(log, from, to, 1000, 4u << 20, &batch.records, &next));
  if (!batch.records.empty()) {
    DR_RETURN_IF_ERROR(deliver(batch));
    *delivered += static_cast<int64_t>(batch.records.size());
  }
  if (next != from) DR_RETURN_IF_ERROR(SaveCheckpoint(CheckpointOf(log.id), std::to_string(next)));
  return Status();
}

Status DBImpl::DeliverKinesisRecords(const std::function<Status(const KinesisRecords&)>& deliver,
                                     int64_t* delivered) {
  *delivered = 0;
  if (options_.read_only) return Status();
  std::lock_guard<std::mutex> lock(kinesis_mu_);
  Status first;
  // One log at a time per destination, the oldest first: a destination
  // disabled and enabled again has a closed log still delivering, and the
  // new log's records come after all of it.
  std::set<std::pair<uint32_t, std::string>> busy;  // (table id, destination)
  for (const StreamInfo& log : change_log_->ListInternal()) {  // by id: oldest first
    if (kinesis_done_.count(log.id)) continue;
    if (!busy.emplace(log.table_id, log.destination).second) continue;
    bool done = false;
    Status s = DeliverKinesisLog(log, deliver, delivered, &done);
    if (done) {
      kinesis_done_.insert(log.id);
      busy.erase({log.table_id, log.destination});
    }
    if (!s.ok() && first.ok()) first = s;
  }
  return first;
}

}  // namespace dynarock
