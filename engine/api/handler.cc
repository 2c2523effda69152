#include "engine/api/handler.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <utility>

#include "engine/api/json_backups.h"
#include "engine/api/json_decode.h"
#include "engine/api/json_encode.h"
#include "engine/api/partiql_json.h"
#include "engine/request_checks.h"
#include "engine/api/json_writer.h"
#include "engine/api/streams_json.h"
#include "engine/transfer/transfers.h"

namespace dynarock::api {
namespace internal {

struct HandlerState {
  DB* db = nullptr;
  std::string endpoint_address = "localhost:8000";
  Handler::Observer observer;
  std::string s3_root;
  // The export and import jobs, made at the first such request.
  std::mutex transfers_mu;
  std::unique_ptr<transfer::Transfers> transfers;  // GUARDED_BY(transfers_mu) to create

  transfer::Transfers& Transfers() {
    std::lock_guard<std::mutex> lock(transfers_mu);
    if (!transfers) transfers = std::make_unique<transfer::Transfers>(db, s3_root);
    return *transfers;
  }
};

}  // namespace internal

namespace {

using internal::HandlerState;
using OperationFn = ApiReply (*)(HandlerState&, std::string_view);

ApiReply Ok(std::string body) { return ApiReply{200, std::move(body)}; }

// What the observer is told about the call in progress on this thread (set by
// Handle() only while an observer is installed).
struct CallRecord {
  Status status;
  std::vector<ConsumedCapacity> consumed;
};
thread_local CallRecord* t_call = nullptr;

// Moves the response's ConsumedCapacity into t_call; drops it from the reply
// when the client did not ask for it.
template <typename Resp>
void TakeCapacity(Resp& r, bool keep) {
  if constexpr (requires { r.has_consumed_capacity; }) {
    t_call->consumed.insert(t_call->consumed.end(), r.consumed_capacity.begin(),
                            r.consumed_capacity.end());
    if (!keep) {
      r.consumed_capacity.clear();
      r.has_consumed_capacity = false;
    }
  } else if constexpr (requires { r.consumed_capacity.has_value(); }) {
    if (r.consumed_capacity) t_call->consumed.push_back(*r.consumed_capacity);
    if (!keep) r.consumed_capacity.reset();
  }
}

// Call the engine with a decoded request, encode.
// `op` is a DB member function or a function (DB&, const Req&) (the PartiQL
// operations, dynarock/partiql.h).
template <typename Req, typename Op, typename Encode>
ApiReply Execute(HandlerState& s, StatusOr<Req> req, Op op, Encode encode) {
  if (!req.ok()) return Handler::ErrorReply(req.status());
  bool client_asked = true;
  if constexpr (requires { req->return_consumed_capacity; }) {
    if (t_call != nullptr && req->return_consumed_capacity == ReturnConsumedCapacity::kNone) {
      req->return_consumed_capacity = ReturnConsumedCapacity::kTotal;  // for the observer
      client_asked = false;
    }
  }
  // Reads hand their items over as stored bytes, which the encoder writes
  // as JSON directly (dynarock/item_view.h).
  if constexpr (requires { req->encoded_items; }) req->encoded_items = true;
  auto resp = std::invoke(op, *s.db, *req);
  if (!resp.ok()) return Handler::ErrorReply(resp.status());
  if (t_call != nullptr) TakeCapacity(*resp, client_asked);
  return Ok(encode(*req, *resp));
}

// Decode, call the engine, encode.
template <typename Req, typename Op, typename Encode>
ApiReply Run(HandlerState& s, std::string_view body, StatusOr<Req> (*decode)(std::string_view),
             Op op, Encode encode) {
  return Execute(s, decode(body), op, encode);
}

// The same for an operation with attribute values: a malformed one ("Supplied
// AttributeValue is empty ...") is reported after the operation's parameter
// checks, DynamoDB's order (engine/request_checks.h CheckParameters).
template <typename Req, typename Resp, typename Encode>
ApiReply RunChecked(HandlerState& s, std::string_view body, StatusOr<Resp> (DB::*op)(const Req&),
                    Encode encode) {
  MalformedValue malformed;
  StatusOr<Req> req = DecodeItemRequest<Req>(body, &malformed);
  if (req.ok() && !malformed.error.ok()) {
    Status params = CheckParameters(*req, malformed);
    return Handler::ErrorReply(params.ok() ? malformed.error : params);
  }
  return Execute(s, std::move(req), op, encode);
}

template <typename Req, typename Resp>
auto Plain(std::string (*encode)(const Resp&)) {
  return [encode](const Req&, const Resp& r) { return encode(r); };
}

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
  return Run(s, body, DecodeDeleteTableRequest, &DB::DeleteTable,
             Plain<DeleteTableRequest>(EncodeDeleteTableResponse));
}

ApiReply ListTables(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeListTablesRequest, &DB::ListTables,
             Plain<ListTablesRequest>(EncodeListTablesResponse));
}

ApiReply UpdateTable(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeUpdateTableRequest, &DB::UpdateTable,
             Plain<UpdateTableRequest>(EncodeUpdateTableResponse));
}

ApiReply PutItem(HandlerState& s, std::string_view body) {
  return RunChecked(s, body, &DB::PutItem,
             Plain<PutItemRequest>(EncodePutItemResponse));
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
  StatusOr<std::string> reply = s.Transfers().Handle(kName, body);
  if (!reply.ok()) return Handler::ErrorReply(reply.status());
  return Ok(std::move(*reply));
}
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

// Sorted by name, for the binary search in Lookup (checked at compile time).
constexpr Operation kOperations[] = {
    {"BatchExecuteStatement", BatchExecuteStatement},
    {"BatchGetItem", BatchGetItem},
    {"BatchWriteItem", BatchWriteItem},
    {"CreateBackup", CreateBackup},
    {"CreateTable", CreateTable},
    {"DeleteBackup", DeleteBackup},
    {"DeleteItem", DeleteItem},
    {"DeleteTable", DeleteTable},
    {"DescribeBackup", DescribeBackup},
    {"DescribeContinuousBackups", DescribeContinuousBackups},
    {"DescribeEndpoints", DescribeEndpoints},
    {"DescribeExport", TransferOperation<kDescribeExport>},
    {"DescribeImport", TransferOperation<kDescribeImport>},
    {"DescribeLimits", DescribeLimits},
    {"DescribeTable", DescribeTable},
    {"DescribeTimeToLive", DescribeTimeToLive},
    {"DynamoDBStreams_20120810.DescribeStream", DescribeStream},
    {"DynamoDBStreams_20120810.GetRecords", GetRecords},
    {"DynamoDBStreams_20120810.GetShardIterator", GetShardIterator},
    {"DynamoDBStreams_20120810.ListStreams", ListStreams},
    {"ExecuteStatement", ExecuteStatement},
    {"ExecuteTransaction", ExecuteTransaction},
    {"ExportTableToPointInTime", TransferOperation<kExportTableToPointInTime>},
    {"GetItem", GetItem},
    {"ImportTable", TransferOperation<kImportTable>},
    {"ListBackups", ListBackups},
    {"ListExports", TransferOperation<kListExports>},
    {"ListImports", TransferOperation<kListImports>},
    {"ListTables", ListTables},
    {"ListTagsOfResource", ListTagsOfResource},
    {"PutItem", PutItem},
    {"Query", Query},
    {"RestoreTableFromBackup", RestoreTableFromBackup},
    {"RestoreTableToPointInTime", RestoreTableToPointInTime},
    {"Scan", Scan},
    {"TagResource", TagResource},
    {"TransactGetItems", TransactGetItems},
    {"TransactWriteItems", TransactWriteItems},
    {"UntagResource", UntagResource},
    {"UpdateContinuousBackups", UpdateContinuousBackups},
    {"UpdateItem", UpdateItem},
    {"UpdateTable", UpdateTable},
    {"UpdateTimeToLive", UpdateTimeToLive},
};

constexpr bool IsSorted() {
  for (size_t i = 1; i < std::size(kOperations); ++i) {
    if (!(kOperations[i - 1].name < kOperations[i].name)) return false;
  }
  return true;
}
static_assert(IsSorted(), "kOperations must be sorted by name");

OperationFn Lookup(std::string_view name) {
  auto it = std::lower_bound(std::begin(kOperations), std::end(kOperations), name,
                             [](const Operation& op, std::string_view n) { return op.name < n; });
  if (it == std::end(kOperations) || it->name != name) return nullptr;
  return it->fn;
}

}  // namespace

Handler::Handler(DB* db) : state_(std::make_unique<internal::HandlerState>()) { state_->db = db; }

Handler::~Handler() = default;

void Handler::SetDatabase(DB* db) {
  // Running exports and imports stop before their database goes.
  std::unique_ptr<transfer::Transfers> old;
  {
    std::lock_guard<std::mutex> lock(state_->transfers_mu);
    old = std::move(state_->transfers);
    state_->db = db;
  }
}

void Handler::SetS3Root(std::string dir) { state_->s3_root = std::move(dir); }

void Handler::SetEndpointAddress(std::string address) {
  state_->endpoint_address = std::move(address);
}

void Handler::SetObserver(Observer observer) { state_->observer = std::move(observer); }

ApiReply Handler::Handle(std::string_view operation, std::string_view body) {
  if (!state_->observer) return HandleOperation(operation, body);
  const auto start = std::chrono::steady_clock::now();
  CallRecord record;
  CallRecord* outer = t_call;
  t_call = &record;
  ApiReply reply = HandleOperation(operation, body);
  t_call = outer;
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  state_->observer(operation, record.status, took.count(), record.consumed);
  return reply;
}

ApiReply Handler::HandleOperation(std::string_view operation, std::string_view body) {
  OperationFn fn = Lookup(operation);
  if (fn == nullptr) {
    return ErrorReply(Status(ErrorType::kUnknownOperation, "Unknown operation exception"));
  }
  // Nothing may throw past this point into the server: turn a stray exception
  // (allocation failure, a bug) into the 500 DynamoDB would give.
  try {
    return fn(*state_, body);
  } catch (const std::exception&) {
    return ErrorReply(InternalError("Internal server error"));
  } catch (...) {
    return ErrorReply(InternalError("Internal server error"));
  }
}

ApiReply Handler::ErrorReply(const Status& status) {
  if (t_call != nullptr) {
    t_call->status = status;
    for (const BilledCapacity& b : status.billed()) {  // billed though it failed
      ConsumedCapacity c;
      c.table_name = b.table_name;
      c.capacity_units = b.read_units + b.write_units;
      c.read_capacity_units = b.read_units;
      c.write_capacity_units = b.write_units;
      t_call->consumed.push_back(std::move(c));
    }
  }
  return ApiReply{ErrorHttpStatus(status.type()), EncodeErrorBody(status)};
}

}  // namespace dynarock::api
