// File: engine/api/handler_operations.cc
//
// The API's operations, each decoding its request, running it through the
// request pipeline (request_pipeline.h) or answering it here, and encoding
// the reply; and the table that finds an operation by name.

#include "engine/api/request_pipeline.h"

#include <simdjson.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <utility>

#include "engine/api/capacity_limits.h"
#include "engine/api/contributor_insights.h"
#include "engine/api/faults.h"
#include "engine/api/json_backups.h"
#include "engine/api/json_decode.h"
#include "engine/api/json_encode.h"
#include "engine/api/json_insights.h"
#include "engine/api/global_tables.h"
#include "engine/api/json_kinesis.h"
#include "engine/api/kinesis_sink.h"
#include "engine/api/partiql_json.h"
#include "engine/api/policy_evaluation.h"
#include "engine/api/request_facts.h"
#include "engine/api/request_log.h"
#include "engine/request_checks.h"
#include "engine/table_validation.h"
#include "engine/api/json_writer.h"
#include "engine/api/streams_json.h"
#include "engine/transfer/transfers.h"

namespace dynarock::api::pipeline {
namespace {

// ---------------------------------------------------------------- engine operations

ApiReply CreateTable(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeCreateTableRequest, &DB::CreateTable,
             Plain<CreateTableRequest>(EncodeCreateTableResponse));
}

ApiReply DescribeTable(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeDescribeTableRequest, &DB::DescribeTable,
             Plain<DescribeTableRequest>(EncodeDescribeTableResponse));
}

ApiReply DeleteTable(HandlerState& s, std::string_view body) {
  auto remove = [&s](DB& db, const DeleteTableRequest& r) -> StatusOr<DeleteTableResponse> {
    StatusOr<DeleteTableResponse> out = db.DeleteTable(r);
    if (out.ok() && s.global_tables.deleted) s.global_tables.deleted(db, out->table_description.table_name);
    return out;
  };
  return Run(s, body, DecodeDeleteTableRequest, remove, Plain<DeleteTableRequest>(EncodeDeleteTableResponse));
}

ApiReply ListTables(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeListTablesRequest, &DB::ListTables,
             Plain<ListTablesRequest>(EncodeListTablesResponse));
}

ApiReply UpdateTable(HandlerState& s, std::string_view body) {
  auto update = [&s](DB& db, const UpdateTableRequest& r) -> StatusOr<UpdateTableResponse> {
    if (r.global() && s.global_tables.update) {
      DR_RETURN_IF_ERROR(CheckUpdateTableRequest(r));
      return s.global_tables.update(db, r);
    }
    return db.UpdateTable(r);
  };
  return Run(s, body, DecodeUpdateTableRequest, update, Plain<UpdateTableRequest>(EncodeUpdateTableResponse));
}

ApiReply PutItem(HandlerState& s, std::string_view body) {
  // The decoded request's item goes into the write rather than being copied.
  auto put = [](DB& db, PutItemRequest& r) { return db.PutItem(std::move(r)); };
  return RunCheckedAs<PutItemRequest>(s, body, put, Plain<PutItemRequest>(EncodePutItemResponse));
}

ApiReply GetItem(HandlerState& s, std::string_view body) {
  return RunChecked(s, body, &DB::GetItem,
             Plain<GetItemRequest>(EncodeGetItemResponse));
}

ApiReply DeleteItem(HandlerState& s, std::string_view body) {
  return RunChecked(s, body, &DB::DeleteItem,
             Plain<DeleteItemRequest>(EncodeDeleteItemResponse));
}

ApiReply UpdateItem(HandlerState& s, std::string_view body) {
  return RunChecked(s, body, &DB::UpdateItem,
             Plain<UpdateItemRequest>(EncodeUpdateItemResponse));
}

ApiReply Query(HandlerState& s, std::string_view body) {
  return RunChecked(s, body, &DB::Query,
             [](const QueryRequest& req, const QueryResponse& r) {
               return EncodeQueryResponse(r, req.select == Select::kCount);
             });
}

ApiReply Scan(HandlerState& s, std::string_view body) {
  return RunChecked(s, body, &DB::Scan,
             [](const ScanRequest& req, const ScanResponse& r) {
               return EncodeScanResponse(r, req.select == Select::kCount);
             });
}

ApiReply BatchGetItem(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeBatchGetItemRequest, &DB::BatchGetItem,
             Plain<BatchGetItemRequest>(EncodeBatchGetItemResponse));
}

ApiReply BatchWriteItem(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeBatchWriteItemRequest, &DB::BatchWriteItem,
             Plain<BatchWriteItemRequest>(EncodeBatchWriteItemResponse));
}

ApiReply TransactGetItems(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeTransactGetItemsRequest, &DB::TransactGetItems,
             Plain<TransactGetItemsRequest>(EncodeTransactGetItemsResponse));
}

ApiReply TransactWriteItems(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeTransactWriteItemsRequest, &DB::TransactWriteItems,
             Plain<TransactWriteItemsRequest>(EncodeTransactWriteItemsResponse));
}

// ---------------------------------------------------------------- DynamoDB Streams

ApiReply ListStreams(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeListStreamsRequest, &DB::ListStreams,
             Plain<ListStreamsRequest>(EncodeListStreamsResponse));
}

ApiReply DescribeStream(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeDescribeStreamRequest, &DB::DescribeStream,
             Plain<DescribeStreamRequest>(EncodeDescribeStreamResponse));
}

ApiReply GetShardIterator(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeGetShardIteratorRequest, &DB::GetShardIterator,
             Plain<GetShardIteratorRequest>(EncodeGetShardIteratorResponse));
}

// ---------------------------------------------------------------- PartiQL

ApiReply ExecuteStatement(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeExecuteStatementRequest, &dynarock::ExecuteStatement,
             Plain<ExecuteStatementRequest>(EncodeExecuteStatementResponse));
}

ApiReply BatchExecuteStatement(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeBatchExecuteStatementRequest, &dynarock::BatchExecuteStatement,
             Plain<BatchExecuteStatementRequest>(EncodeBatchExecuteStatementResponse));
}

ApiReply ExecuteTransaction(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeExecuteTransactionRequest, &dynarock::ExecuteTransaction,
             Plain<ExecuteTransactionRequest>(EncodeExecuteTransactionResponse));
}

ApiReply GetRecords(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeGetRecordsRequest, &DB::GetRecords,
             Plain<GetRecordsRequest>(EncodeGetRecordsResponse));
}

// ---------------------------------------------------------------- served here


ApiReply DescribeLimits(HandlerState&, std::string_view) {
  // DynamoDB's default quotas for a new account.
  JsonWriter w;
  w.BeginObject();
  w.MemberInt("AccountMaxReadCapacityUnits", 80000);
  w.MemberInt("AccountMaxWriteCapacityUnits", 80000);
  w.MemberInt("TableMaxReadCapacityUnits", 40000);
  w.MemberInt("TableMaxWriteCapacityUnits", 40000);
  w.EndObject();
  return Ok(w.Release());
}

ApiReply DescribeEndpoints(HandlerState& s, std::string_view) {
  JsonWriter w;
  w.BeginObject();
  w.Key("Endpoints");
  w.BeginArray();
  w.BeginObject();
  w.Member("Address", s.endpoint_address);
  w.MemberInt("CachePeriodInMinutes", 1440);
  w.EndObject();
  w.EndArray();
  w.EndObject();
  return Ok(w.Release());
}

ApiReply UpdateTimeToLive(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeUpdateTimeToLiveRequest, &DB::UpdateTimeToLive,
             Plain<UpdateTimeToLiveRequest>(EncodeUpdateTimeToLiveResponse));
}

ApiReply DescribeTimeToLive(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeDescribeTimeToLiveRequest, &DB::DescribeTimeToLive,
             Plain<DescribeTimeToLiveRequest>(EncodeDescribeTimeToLiveResponse));
}

ApiReply TagResource(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeTagResourceRequest, &DB::TagResource,
             [](const TagResourceRequest&, const TagResourceResponse&) { return std::string("{}"); });
}

ApiReply UntagResource(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeUntagResourceRequest, &DB::UntagResource,
             [](const UntagResourceRequest&, const UntagResourceResponse&) {
               return std::string("{}");
             });
}

ApiReply PutResourcePolicy(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodePutResourcePolicyRequest, &DB::PutResourcePolicy,
             Plain<PutResourcePolicyRequest>(EncodePutResourcePolicyResponse));
}

ApiReply GetResourcePolicy(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeGetResourcePolicyRequest, &DB::GetResourcePolicy,
             Plain<GetResourcePolicyRequest>(EncodeGetResourcePolicyResponse));
}

ApiReply DescribeContributorInsights(HandlerState& s, std::string_view body) {
  // With the top keys of each rule counted here (contributor_insights.h).
  return Run(s, body, DecodeDescribeContributorInsightsRequest, &DB::DescribeContributorInsights,
             [&s](const DescribeContributorInsightsRequest&, const DescribeContributorInsightsResponse& r) {
               std::string top;
               if (!r.rule_list.empty()) {
                 top = s.insights.TopJson(s.db, r.table_name, r.index_name.value_or(""), r.rule_list);
               }
               return EncodeDescribeContributorInsightsResponse(r, top);
             });
}

ApiReply ListContributorInsights(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeListContributorInsightsRequest, &DB::ListContributorInsights,
             Plain<ListContributorInsightsRequest>(EncodeListContributorInsightsResponse));
}

ApiReply UpdateContributorInsights(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeUpdateContributorInsightsRequest, &DB::UpdateContributorInsights,
             Plain<UpdateContributorInsightsRequest>(EncodeUpdateContributorInsightsResponse));
}

ApiReply EnableKinesisStreamingDestination(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeEnableKinesisStreamingDestinationRequest,
             &DB::EnableKinesisStreamingDestination,
             Plain<KinesisStreamingDestinationRequest>(EncodeEnableKinesisStreamingDestinationResponse));
}

ApiReply DisableKinesisStreamingDestination(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeEnableKinesisStreamingDestinationRequest,
             &DB::DisableKinesisStreamingDestination,
             Plain<KinesisStreamingDestinationRequest>(EncodeEnableKinesisStreamingDestinationResponse));
}

ApiReply UpdateKinesisStreamingDestination(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeUpdateKinesisStreamingDestinationRequest,
             &DB::UpdateKinesisStreamingDestination,
             Plain<KinesisStreamingDestinationRequest>(EncodeUpdateKinesisStreamingDestinationResponse));
}

ApiReply DescribeKinesisStreamingDestination(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeDescribeKinesisStreamingDestinationRequest,
             &DB::DescribeKinesisStreamingDestination,
             Plain<DescribeKinesisStreamingDestinationRequest>(
                 EncodeDescribeKinesisStreamingDestinationResponse));
}

ApiReply DeleteResourcePolicy(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeDeleteResourcePolicyRequest, &DB::DeleteResourcePolicy,
             Plain<DeleteResourcePolicyRequest>(EncodeDeleteResourcePolicyResponse));
}

ApiReply ListTagsOfResource(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeListTagsOfResourceRequest, &DB::ListTagsOfResource,
             Plain<ListTagsOfResourceRequest>(EncodeListTagsOfResourceResponse));
}

ApiReply DescribeContinuousBackups(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeDescribeContinuousBackupsRequest, &DB::DescribeContinuousBackups,
             Plain<DescribeContinuousBackupsRequest>(EncodeDescribeContinuousBackupsResponse));
}

ApiReply UpdateContinuousBackups(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeUpdateContinuousBackupsRequest, &DB::UpdateContinuousBackups,
             Plain<UpdateContinuousBackupsRequest>(EncodeUpdateContinuousBackupsResponse));
}

ApiReply CreateBackup(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeCreateBackupRequest, &DB::CreateBackup,
             Plain<CreateBackupRequest>(EncodeCreateBackupResponse));
}

ApiReply DescribeBackup(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeDescribeBackupRequest, &DB::DescribeBackup,
             Plain<DescribeBackupRequest>(EncodeDescribeBackupResponse));
}

ApiReply DeleteBackup(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeDeleteBackupRequest, &DB::DeleteBackup,
             Plain<DeleteBackupRequest>(EncodeDeleteBackupResponse));
}

ApiReply ListBackups(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeListBackupsRequest, &DB::ListBackups,
             Plain<ListBackupsRequest>(EncodeListBackupsResponse));
}

ApiReply RestoreTableFromBackup(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeRestoreTableFromBackupRequest, &DB::RestoreTableFromBackup,
             Plain<RestoreTableFromBackupRequest>(EncodeRestoreTableFromBackupResponse));
}

ApiReply RestoreTableToPointInTime(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeRestoreTableToPointInTimeRequest, &DB::RestoreTableToPointInTime,
             Plain<RestoreTableToPointInTimeRequest>(EncodeRestoreTableToPointInTimeResponse));
}

// Exports and imports (engine/transfer/transfers.h).
template <const std::string_view& kName>
ApiReply TransferOperation(HandlerState& s, std::string_view body) {
  if (!t_principal.empty() && kName == "ExportTableToPointInTime") {
    // The export reads its table (TableArn): that table's policy applies.
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    std::string_view table_arn;
    if (parser.parse(body.data(), body.size()).get(doc) == simdjson::SUCCESS &&
        doc["TableArn"].get(table_arn) == simdjson::SUCCESS) {
      const std::string arn = s.arn_prefix + "table/" + TableOfName(std::string(table_arn));
      if (Status denied = CheckPolicy(s, arn, std::string(kName), arn); !denied.ok()) {
        return Handler::ErrorReply(denied);
      }
    }
  }
  StatusOr<std::string> reply = s.Transfers().Handle(kName, body);
  if (!reply.ok()) return Handler::ErrorReply(reply.status());
  return Ok(std::move(*reply));
}
// Global tables' legacy and replica auto scaling operations (global_tables.h).
template <const std::string_view& kName>
ApiReply GlobalTableOperation(HandlerState& s, std::string_view body) {
  StatusOr<std::string> reply = HandleGlobalTableOperation(s.db, kName, body, s.global_tables.region);
  if (!reply.ok()) return Handler::ErrorReply(reply.status());
  return Ok(std::move(*reply));
}
constexpr std::string_view kCreateGlobalTable = "CreateGlobalTable";
constexpr std::string_view kDescribeGlobalTable = "DescribeGlobalTable";
constexpr std::string_view kDescribeGlobalTableSettings = "DescribeGlobalTableSettings";
constexpr std::string_view kListGlobalTables = "ListGlobalTables";
constexpr std::string_view kUpdateGlobalTable = "UpdateGlobalTable";
constexpr std::string_view kUpdateGlobalTableSettings = "UpdateGlobalTableSettings";
constexpr std::string_view kDescribeTableReplicaAutoScaling = "DescribeTableReplicaAutoScaling";
constexpr std::string_view kUpdateTableReplicaAutoScaling = "UpdateTableReplicaAutoScaling";

constexpr std::string_view kExportTableToPointInTime = "ExportTableToPointInTime";
constexpr std::string_view kDescribeExport = "DescribeExport";
constexpr std::string_view kListExports = "ListExports";
constexpr std::string_view kImportTable = "ImportTable";
constexpr std::string_view kDescribeImport = "DescribeImport";
constexpr std::string_view kListImports = "ListImports";

// ---------------------------------------------------------------- dispatch

struct Operation {
  std::string_view name;
  OperationFn fn;
};

// Sorted by name, for the binary search in LookupOperation (checked at compile time).
constexpr Operation kOperations[] = {
    {"BatchExecuteStatement", BatchExecuteStatement},
    {"BatchGetItem", BatchGetItem},
    {"BatchWriteItem", BatchWriteItem},
    {"CreateBackup", CreateBackup},
    {"CreateGlobalTable", GlobalTableOperation<kCreateGlobalTable>},
    {"CreateTable", CreateTable},
    {"DeleteBackup", DeleteBackup},
    {"DeleteItem", DeleteItem},
    {"DeleteResourcePolicy", DeleteResourcePolicy},
    {"DeleteTable", DeleteTable},
    {"DescribeBackup", DescribeBackup},
    {"DescribeContinuousBackups", DescribeContinuousBackups},
    {"DescribeContributorInsights", DescribeContributorInsights},
    {"DescribeEndpoints", DescribeEndpoints},
    {"DescribeExport", TransferOperation<kDescribeExport>},
    {"DescribeGlobalTable", GlobalTableOperation<kDescribeGlobalTable>},
    {"DescribeGlobalTableSettings", GlobalTableOperation<kDescribeGlobalTableSettings>},
    {"DescribeImport", TransferOperation<kDescribeImport>},
    {"DescribeKinesisStreamingDestination", DescribeKinesisStreamingDestination},
    {"DescribeLimits", DescribeLimits},
    {"DescribeTable", DescribeTable},
    {"DescribeTableReplicaAutoScaling", GlobalTableOperation<kDescribeTableReplicaAutoScaling>},
    {"DescribeTimeToLive", DescribeTimeToLive},
    {"DisableKinesisStreamingDestination", DisableKinesisStreamingDestination},
    {"DynamoDBStreams_20120810.DescribeStream", DescribeStream},
    {"DynamoDBStreams_20120810.GetRecords", GetRecords},
    {"DynamoDBStreams_20120810.GetShardIterator", GetShardIterator},
    {"DynamoDBStreams_20120810.ListStreams", ListStreams},
    {"EnableKinesisStreamingDestination", EnableKinesisStreamingDestination},
    {"ExecuteStatement", ExecuteStatement},
    {"ExecuteTransaction", ExecuteTransaction},
    {"ExportTableToPointInTime", TransferOperation<kExportTableToPointInTime>},
    {"GetItem", GetItem},
    {"GetResourcePolicy", GetResourcePolicy},
    {"ImportTable", TransferOperation<kImportTable>},
    {"ListBackups", ListBackups},
    {"ListContributorInsights", ListContributorInsights},
    {"ListExports", TransferOperation<kListExports>},
    {"ListGlobalTables", GlobalTableOperation<kListGlobalTables>},
    {"ListImports", TransferOperation<kListImports>},
    {"ListTables", ListTables},
    {"ListTagsOfResource", ListTagsOfResource},
    {"PutItem", PutItem},
    {"PutResourcePolicy", PutResourcePolicy},
    {"Query", Query},
    {"RestoreTableFromBackup", RestoreTableFromBackup},
    {"RestoreTableToPointInTime", RestoreTableToPointInTime},
    {"Scan", Scan},
    {"TagResource", TagResource},
    {"TransactGetItems", TransactGetItems},
    {"TransactWriteItems", TransactWriteItems},
    {"UntagResource", UntagResource},
    {"UpdateContinuousBackups", UpdateContinuousBackups},
    {"UpdateContributorInsights", UpdateContributorInsights},
    {"UpdateGlobalTable", GlobalTableOperation<kUpdateGlobalTable>},
    {"UpdateGlobalTableSettings", GlobalTableOperation<kUpdateGlobalTableSettings>},
    {"UpdateItem", UpdateItem},
    {"UpdateKinesisStreamingDestination", UpdateKinesisStreamingDestination},
    {"UpdateTable", UpdateTable},
    {"UpdateTableReplicaAutoScaling", GlobalTableOperation<kUpdateTableReplicaAutoScaling>},
    {"UpdateTimeToLive", UpdateTimeToLive},
};

constexpr bool IsSorted() {
  for (size_t i = 1; i < std::size(kOperations); ++i) {
    if (!(kOperations[i - 1].name < kOperations[i].name)) return false;
  }
  return true;
}
static_assert(IsSorted(), "kOperations must be sorted by name");

}  // namespace

bool IsTypedOperation(OperationFn fn) {
  return fn != DescribeLimits && fn != DescribeEndpoints &&
         fn != TransferOperation<kExportTableToPointInTime> &&
         fn != TransferOperation<kDescribeExport> && fn != TransferOperation<kListExports> &&
         fn != TransferOperation<kImportTable> && fn != TransferOperation<kDescribeImport> &&
         fn != TransferOperation<kListImports>;
}

OperationFn LookupOperation(std::string_view name) {
  auto it = std::lower_bound(std::begin(kOperations), std::end(kOperations), name,
                             [](const Operation& op, std::string_view n) { return op.name < n; });
  if (it == std::end(kOperations) || it->name != name) return nullptr;
  return it->fn;
}

}  // namespace dynarock::api::pipeline
