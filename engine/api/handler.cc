#include "engine/api/handler.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <exception>
#include <map>
#include <mutex>
#include <utility>

#include "engine/api/json_decode.h"
#include "engine/api/json_encode.h"
#include "engine/api/json_writer.h"

namespace dynarock::api {
namespace internal {

struct HandlerState {
  DB* db = nullptr;
  std::string endpoint_address = "localhost:8000";
  Handler::Observer observer;

  std::mutex mu;
  std::map<std::string, TimeToLiveSpecification> ttl;          // by table name; GUARDED_BY(mu)
  std::map<std::string, std::map<std::string, std::string>> tags;  // by table name; GUARDED_BY(mu)
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

// Decode, call the engine, encode.
template <typename Req, typename Resp, typename Encode>
ApiReply Run(HandlerState& s, std::string_view body, StatusOr<Req> (*decode)(std::string_view),
             StatusOr<Resp> (DB::*op)(const Req&), Encode encode) {
  StatusOr<Req> req = decode(body);
  if (!req.ok()) return Handler::ErrorReply(req.status());
  bool client_asked = true;
  if constexpr (requires { req->return_consumed_capacity; }) {
    if (t_call != nullptr && req->return_consumed_capacity == ReturnConsumedCapacity::kNone) {
      req->return_consumed_capacity = ReturnConsumedCapacity::kTotal;  // for the observer
      client_asked = false;
    }
  }
  StatusOr<Resp> resp = (s.db->*op)(*req);
  if (!resp.ok()) return Handler::ErrorReply(resp.status());
  if (t_call != nullptr) TakeCapacity(*resp, client_asked);
  return Ok(encode(*req, *resp));
}

template <typename Req, typename Resp>
auto Plain(std::string (*encode)(const Resp&)) {
  return [encode](const Req&, const Resp& r) { return encode(r); };
}

// ---------------------------------------------------------------- engine operations

ApiReply CreateTable(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeCreateTableRequest, &DB::CreateTable,
             [&s](const CreateTableRequest& req, const CreateTableResponse& r) {
               if (!req.tags.empty()) {
                 std::lock_guard<std::mutex> lock(s.mu);
                 auto& tags = s.tags[req.table_name];
                 for (const auto& t : req.tags) tags[t.key] = t.value;
               }
               return EncodeCreateTableResponse(r);
             });
}

ApiReply DescribeTable(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeDescribeTableRequest, &DB::DescribeTable,
             Plain<DescribeTableRequest>(EncodeDescribeTableResponse));
}

ApiReply DeleteTable(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeDeleteTableRequest, &DB::DeleteTable,
             [&s](const DeleteTableRequest& req, const DeleteTableResponse& r) {
               std::lock_guard<std::mutex> lock(s.mu);
               s.tags.erase(req.table_name);
               s.ttl.erase(req.table_name);
               return EncodeDeleteTableResponse(r);
             });
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
  return Run(s, body, DecodePutItemRequest, &DB::PutItem,
             Plain<PutItemRequest>(EncodePutItemResponse));
}

ApiReply GetItem(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeGetItemRequest, &DB::GetItem,
             Plain<GetItemRequest>(EncodeGetItemResponse));
}

ApiReply DeleteItem(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeDeleteItemRequest, &DB::DeleteItem,
             Plain<DeleteItemRequest>(EncodeDeleteItemResponse));
}

ApiReply UpdateItem(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeUpdateItemRequest, &DB::UpdateItem,
             Plain<UpdateItemRequest>(EncodeUpdateItemResponse));
}

ApiReply Query(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeQueryRequest, &DB::Query,
             [](const QueryRequest& req, const QueryResponse& r) {
               return EncodeQueryResponse(r, req.select == Select::kCount);
             });
}

ApiReply Scan(HandlerState& s, std::string_view body) {
  return Run(s, body, DecodeScanRequest, &DB::Scan,
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

// ---------------------------------------------------------------- served here

// The table named by a table ARN ("arn:aws:dynamodb:us-east-1:000000000000:table/people").
StatusOr<std::string> TableOfArn(HandlerState& s, std::string_view arn) {
  constexpr std::string_view kTable = ":table/";
  size_t pos = arn.find(kTable);
  if (arn.substr(0, 4) != "arn:" || pos == std::string_view::npos ||
      pos + kTable.size() == arn.size()) {
    return ValidationError("Invalid TableArn: Invalid ResourceArn provided as input " +
                           std::string(arn));
  }
  std::string name(arn.substr(pos + kTable.size()));
  // An index or stream ARN continues with "/index/..." or "/stream/...".
  name = name.substr(0, name.find('/'));
  DescribeTableRequest req;
  req.table_name = name;
  auto d = s.db->DescribeTable(req);
  if (!d.ok()) return d.status();
  return name;
}

Status CheckTableExists(HandlerState& s, const std::string& table) {
  DescribeTableRequest req;
  req.table_name = table;
  return s.db->DescribeTable(req).status();
}

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
  auto req = DecodeUpdateTimeToLiveRequest(body);
  if (!req.ok()) return Handler::ErrorReply(req.status());
  Status exists = CheckTableExists(s, req->table_name);
  if (!exists.ok()) return Handler::ErrorReply(exists);
  const auto& spec = req->time_to_live_specification;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    auto it = s.ttl.find(req->table_name);
    bool enabled = it != s.ttl.end() && it->second.enabled;
    if (spec.enabled && enabled) {
      return Handler::ErrorReply(ValidationError("TimeToLive is already enabled"));
    }
    if (!spec.enabled && !enabled) {
      return Handler::ErrorReply(ValidationError("TimeToLive is already disabled"));
    }
    if (spec.enabled) {
      s.ttl[req->table_name] = spec;
    } else {
      s.ttl.erase(req->table_name);
    }
  }
  JsonWriter w;
  w.BeginObject();
  w.Key("TimeToLiveSpecification");
  w.BeginObject();
  w.MemberBool("Enabled", spec.enabled);
  w.Member("AttributeName", spec.attribute_name);
  w.EndObject();
  w.EndObject();
  return Ok(w.Release());
}

ApiReply DescribeTimeToLive(HandlerState& s, std::string_view body) {
  auto req = DecodeDescribeTableRequest(body);
  if (!req.ok()) return Handler::ErrorReply(req.status());
  Status exists = CheckTableExists(s, req->table_name);
  if (!exists.ok()) return Handler::ErrorReply(exists);
  JsonWriter w;
  w.BeginObject();
  w.Key("TimeToLiveDescription");
  w.BeginObject();
  {
    std::lock_guard<std::mutex> lock(s.mu);
    auto it = s.ttl.find(req->table_name);
    if (it != s.ttl.end() && it->second.enabled) {
      w.Member("TimeToLiveStatus", "ENABLED");
      w.Member("AttributeName", it->second.attribute_name);
    } else {
      w.Member("TimeToLiveStatus", "DISABLED");
    }
  }
  w.EndObject();
  w.EndObject();
  return Ok(w.Release());
}

ApiReply TagResource(HandlerState& s, std::string_view body) {
  auto req = DecodeTagResourceRequest(body);
  if (!req.ok()) return Handler::ErrorReply(req.status());
  auto table = TableOfArn(s, req->resource_arn);
  if (!table.ok()) return Handler::ErrorReply(table.status());
  std::lock_guard<std::mutex> lock(s.mu);
  auto& tags = s.tags[*table];
  for (const auto& t : req->tags) tags[t.key] = t.value;
  return Ok("{}");
}

ApiReply UntagResource(HandlerState& s, std::string_view body) {
  auto req = DecodeUntagResourceRequest(body);
  if (!req.ok()) return Handler::ErrorReply(req.status());
  auto table = TableOfArn(s, req->resource_arn);
  if (!table.ok()) return Handler::ErrorReply(table.status());
  std::lock_guard<std::mutex> lock(s.mu);
  auto it = s.tags.find(*table);
  if (it != s.tags.end()) {
    for (const auto& k : req->tag_keys) it->second.erase(k);
  }
  return Ok("{}");
}

ApiReply ListTagsOfResource(HandlerState& s, std::string_view body) {
  auto req = DecodeListTagsOfResourceRequest(body);
  if (!req.ok()) return Handler::ErrorReply(req.status());
  auto table = TableOfArn(s, req->resource_arn);
  if (!table.ok()) return Handler::ErrorReply(table.status());
  JsonWriter w;
  w.BeginObject();
  w.Key("Tags");
  w.BeginArray();
  {
    std::lock_guard<std::mutex> lock(s.mu);
    auto it = s.tags.find(*table);
    if (it != s.tags.end()) {
      for (const auto& [k, v] : it->second) {
        w.BeginObject();
        w.Member("Key", k);
        w.Member("Value", v);
        w.EndObject();
      }
    }
  }
  w.EndArray();
  w.EndObject();
  return Ok(w.Release());
}

ApiReply DescribeContinuousBackups(HandlerState& s, std::string_view body) {
  auto req = DecodeDescribeTableRequest(body);
  if (!req.ok()) return Handler::ErrorReply(req.status());
  Status exists = CheckTableExists(s, req->table_name);
  if (!exists.ok()) return Handler::ErrorReply(exists);
  return Ok(
      R"({"ContinuousBackupsDescription":{"ContinuousBackupsStatus":"ENABLED",)"
      R"("PointInTimeRecoveryDescription":{"PointInTimeRecoveryStatus":"DISABLED"}}})");
}

// ---------------------------------------------------------------- dispatch

struct Operation {
  std::string_view name;
  OperationFn fn;
};

// Sorted by name, for the binary search in Lookup (checked at compile time).
constexpr Operation kOperations[] = {
    {"BatchGetItem", BatchGetItem},
    {"BatchWriteItem", BatchWriteItem},
    {"CreateTable", CreateTable},
    {"DeleteItem", DeleteItem},
    {"DeleteTable", DeleteTable},
    {"DescribeContinuousBackups", DescribeContinuousBackups},
    {"DescribeEndpoints", DescribeEndpoints},
    {"DescribeLimits", DescribeLimits},
    {"DescribeTable", DescribeTable},
    {"DescribeTimeToLive", DescribeTimeToLive},
    {"GetItem", GetItem},
    {"ListTables", ListTables},
    {"ListTagsOfResource", ListTagsOfResource},
    {"PutItem", PutItem},
    {"Query", Query},
    {"Scan", Scan},
    {"TagResource", TagResource},
    {"TransactGetItems", TransactGetItems},
    {"TransactWriteItems", TransactWriteItems},
    {"UntagResource", UntagResource},
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
  if (t_call != nullptr) t_call->status = status;
  return ApiReply{ErrorHttpStatus(status.type()), EncodeErrorBody(status)};
}

}  // namespace dynarock::api
