// Pins api::Handler: dispatch by operation name (the DB operations reach
// the DB with the decoded request, and their responses come back as DynamoDB
// JSON), HTTP statuses and error bodies (decode errors never reach the DB; engine
// errors keep their type, message and payloads), UnknownOperationException, and
// the small operations the Handler serves itself (DescribeLimits,
// DescribeEndpoints, TTL, tags, DescribeContinuousBackups). The DB is a fake that
// records requests and returns canned responses.

#include "engine/api/handler.h"

#include <gtest/gtest.h>

#include <memory>

#include <set>
#include <string>

namespace dynarock::api {
namespace {

class FakeDB : public DB {
 public:
  Status fail;                  // returned by every call when not OK
  std::string last_op;
  std::set<std::string> tables = {"Music"};  // for DescribeTable
  CreateTableRequest create_req;
  PutItemRequest put_req;
  GetItemRequest get_req;
  QueryRequest query_req;
  ScanRequest scan_req;
  TransactWriteItemsRequest twi_req;
  GetItemResponse get_resp;

  StatusOr<CreateTableResponse> CreateTable(const CreateTableRequest& r) override {
    last_op = "CreateTable";
    create_req = r;
    if (!fail.ok()) return fail;
    CreateTableResponse resp;
    resp.table_description.table_name = r.table_name;
    resp.table_description.table_status = "ACTIVE";
    return resp;
  }
  StatusOr<DescribeTableResponse> DescribeTable(const DescribeTableRequest& r) override {
    last_op = "DescribeTable";
    if (!fail.ok()) return fail;
    if (!tables.count(r.table_name)) {
      return ResourceNotFound("Requested resource not found: Table: " + r.table_name +
                              " not found");
    }
    DescribeTableResponse resp;
    resp.table.table_name = r.table_name;
    resp.table.table_status = "ACTIVE";
    return resp;
  }
  StatusOr<DeleteTableResponse> DeleteTable(const DeleteTableRequest& r) override {
    last_op = "DeleteTable";
    if (!fail.ok()) return fail;
    DeleteTableResponse resp;
    resp.table_description.table_name = r.table_name;
    resp.table_description.table_status = "DELETING";
    return resp;
  }
  StatusOr<ListTablesResponse> ListTables(const ListTablesRequest& r) override {
    last_op = "ListTables";
    if (!fail.ok()) return fail;
    ListTablesResponse resp;
    resp.table_names = {"Music", "Thread"};
    return resp;
  }
  StatusOr<UpdateTableResponse> UpdateTable(const UpdateTableRequest& r) override {
    last_op = "UpdateTable";
    if (!fail.ok()) return fail;
    UpdateTableResponse resp;
    resp.table_description.table_name = r.table_name;
    resp.table_description.table_status = "UPDATING";
    return resp;
  }
  using DB::PutItem;
  StatusOr<PutItemResponse> PutItem(const PutItemRequest& r) override {
    last_op = "PutItem";
    put_req = r;
    if (!fail.ok()) return fail;
    return PutItemResponse{};
  }
  StatusOr<GetItemResponse> GetItem(const GetItemRequest& r) override {
    last_op = "GetItem";
    get_req = r;
    if (!fail.ok()) return fail;
    return get_resp;
  }
  StatusOr<DeleteItemResponse> DeleteItem(const DeleteItemRequest& r) override {
    last_op = "DeleteItem";
    if (!fail.ok()) return fail;
    DeleteItemResponse resp;
    resp.attributes = r.key;
    return resp;
  }
  StatusOr<UpdateItemResponse> UpdateItem(const UpdateItemRequest& r) override {
    last_op = "UpdateItem";
    if (!fail.ok()) return fail;
    return UpdateItemResponse{};
  }
  StatusOr<QueryResponse> Query(const QueryRequest& r) override {
    last_op = "Query";
    query_req = r;
    if (!fail.ok()) return fail;
    QueryResponse resp;
    resp.count = 1;
    resp.scanned_count = 1;
    if (r.select != Select::kCount) resp.items.push_back(Item{{"a", AttributeValue::S("x")}});
    return resp;
  }
  StatusOr<ScanResponse> Scan(const ScanRequest& r) override {
    last_op = "Scan";
    scan_req = r;
    if (!fail.ok()) return fail;
    return ScanResponse{};
  }
  StatusOr<BatchGetItemResponse> BatchGetItem(const BatchGetItemRequest& r) override {
    last_op = "BatchGetItem";
    if (!fail.ok()) return fail;
    BatchGetItemResponse resp;
    for (const auto& [table, k] : r.request_items) resp.responses[table] = k.keys;
    return resp;
  }
  StatusOr<BatchWriteItemResponse> BatchWriteItem(const BatchWriteItemRequest& r) override {
    last_op = "BatchWriteItem";
    if (!fail.ok()) return fail;
    return BatchWriteItemResponse{};
  }
  StatusOr<TransactGetItemsResponse> TransactGetItems(const TransactGetItemsRequest& r) override {
    last_op = "TransactGetItems";
    if (!fail.ok()) return fail;
    TransactGetItemsResponse resp;
    resp.responses.resize(r.transact_items.size());
    return resp;
  }
  StatusOr<TransactWriteItemsResponse> TransactWriteItems(
      const TransactWriteItemsRequest& r) override {
    last_op = "TransactWriteItems";
    twi_req = r;
    if (!fail.ok()) return fail;
    return TransactWriteItemsResponse{};
  }
  StatusOr<UpdateTimeToLiveResponse> UpdateTimeToLive(const UpdateTimeToLiveRequest& r) override {
    last_op = "UpdateTimeToLive";
    if (!fail.ok()) return fail;
    return UpdateTimeToLiveResponse{r.time_to_live_specification};
  }
  StatusOr<DescribeTimeToLiveResponse> DescribeTimeToLive(
      const DescribeTimeToLiveRequest& r) override {
    last_op = "DescribeTimeToLive";
    if (!fail.ok()) return fail;
    return DescribeTimeToLiveResponse{};
  }
  StatusOr<DescribeContinuousBackupsResponse> DescribeContinuousBackups(
      const DescribeContinuousBackupsRequest& r) override {
    last_op = "DescribeContinuousBackups";
    if (!fail.ok()) return fail;
    return DescribeContinuousBackupsResponse{};
  }
  StatusOr<UpdateContinuousBackupsResponse> UpdateContinuousBackups(
      const UpdateContinuousBackupsRequest& r) override {
    last_op = "UpdateContinuousBackups";
    if (!fail.ok()) return fail;
    return UpdateContinuousBackupsResponse{};
  }
#define FAKE_OP(Op)                                        \
  StatusOr<Op##Response> Op(const Op##Request&) override { \
    last_op = #Op;                                         \
    if (!fail.ok()) return fail;                           \
    return Op##Response{};                                 \
  }
  FAKE_OP(CreateBackup)
  FAKE_OP(DescribeBackup)
  FAKE_OP(DeleteBackup)
  FAKE_OP(ListBackups)
  FAKE_OP(RestoreTableFromBackup)
  FAKE_OP(RestoreTableToPointInTime)
#undef FAKE_OP
  Status ReadTableAt(std::string_view, std::optional<double>,
                     const std::function<Status(std::string_view)>&) override {
    return fail;
  }
  Status ReadTableChanges(std::string_view, double, double,
                          const std::function<Status(const TableChange&)>&) override {
    return fail;
  }
  StatusOr<TableDescription> LoadTable(const CreateTableRequest&,
                                       const std::function<Status(TableLoader&)>&) override {
    if (!fail.ok()) return fail;
    return TableDescription{};
  }
  Status Reset() override { return fail; }
  Status SaveSnapshot(std::string_view) override { return fail; }
  Status RestoreSnapshot(std::string_view) override { return fail; }
  StatusOr<std::vector<SnapshotInfo>> ListSnapshots() override {
    if (!fail.ok()) return fail;
    return std::vector<SnapshotInfo>{};
  }
  Status DeleteSnapshot(std::string_view) override { return fail; }
  StatusOr<TagResourceResponse> TagResource(const TagResourceRequest& r) override {
    last_op = "TagResource";
    if (!fail.ok()) return fail;
    return TagResourceResponse{};
  }
  StatusOr<UntagResourceResponse> UntagResource(const UntagResourceRequest& r) override {
    last_op = "UntagResource";
    if (!fail.ok()) return fail;
    return UntagResourceResponse{};
  }
  StatusOr<ListTagsOfResourceResponse> ListTagsOfResource(
      const ListTagsOfResourceRequest& r) override {
    last_op = "ListTagsOfResource";
    if (!fail.ok()) return fail;
    return ListTagsOfResourceResponse{};
  }
  StatusOr<PutResourcePolicyResponse> PutResourcePolicy(const PutResourcePolicyRequest&) override {
    last_op = "PutResourcePolicy";
    if (!fail.ok()) return fail;
    return PutResourcePolicyResponse{};
  }
  StatusOr<GetResourcePolicyResponse> GetResourcePolicy(const GetResourcePolicyRequest&) override {
    last_op = "GetResourcePolicy";
    if (!fail.ok()) return fail;
    return GetResourcePolicyResponse{};
  }
  StatusOr<DescribeContributorInsightsResponse> DescribeContributorInsights(
      const DescribeContributorInsightsRequest&) override {
    last_op = "DescribeContributorInsights";
    return DescribeContributorInsightsResponse{};
  }
  StatusOr<ListContributorInsightsResponse> ListContributorInsights(
      const ListContributorInsightsRequest&) override {
    last_op = "ListContributorInsights";
    return ListContributorInsightsResponse{};
  }
  StatusOr<UpdateContributorInsightsResponse> UpdateContributorInsights(
      const UpdateContributorInsightsRequest&) override {
    last_op = "UpdateContributorInsights";
    return UpdateContributorInsightsResponse{};
  }
  StatusOr<KinesisStreamingDestinationResponse> EnableKinesisStreamingDestination(
      const KinesisStreamingDestinationRequest&) override {
    last_op = "EnableKinesisStreamingDestination";
    return KinesisStreamingDestinationResponse{};
  }
  StatusOr<KinesisStreamingDestinationResponse> DisableKinesisStreamingDestination(
      const KinesisStreamingDestinationRequest&) override {
    last_op = "DisableKinesisStreamingDestination";
    return KinesisStreamingDestinationResponse{};
  }
  StatusOr<KinesisStreamingDestinationResponse> UpdateKinesisStreamingDestination(
      const KinesisStreamingDestinationRequest&) override {
    last_op = "UpdateKinesisStreamingDestination";
    return KinesisStreamingDestinationResponse{};
  }
  Status SetGlobalTable(std::string_view, const GlobalTableMembers&) override { return Status(); }
  StatusOr<DescribeKinesisStreamingDestinationResponse> DescribeKinesisStreamingDestination(
      const DescribeKinesisStreamingDestinationRequest&) override {
    last_op = "DescribeKinesisStreamingDestination";
    return DescribeKinesisStreamingDestinationResponse{};
  }
  Status DeliverKinesisRecords(const std::function<Status(const KinesisRecords&)>&,
                               int64_t* delivered) override {
    *delivered = 0;
    return Status();
  }
  StatusOr<DeleteResourcePolicyResponse> DeleteResourcePolicy(const DeleteResourcePolicyRequest&) override {
    last_op = "DeleteResourcePolicy";
    if (!fail.ok()) return fail;
    return DeleteResourcePolicyResponse{};
  }
  StatusOr<ConsistencyReport> CheckConsistency() override { return ConsistencyReport{}; }
  StatusOr<ListStreamsResponse> ListStreams(const ListStreamsRequest&) override {
    last_op = "ListStreams";
    return ListStreamsResponse{};
  }
  StatusOr<DescribeStreamResponse> DescribeStream(const DescribeStreamRequest&) override {
    return DescribeStreamResponse{};
  }
  StatusOr<GetShardIteratorResponse> GetShardIterator(const GetShardIteratorRequest&) override {
    return GetShardIteratorResponse{};
  }
  StatusOr<GetRecordsResponse> GetRecords(const GetRecordsRequest&) override {
    return GetRecordsResponse{};
  }
  StatusOr<std::unique_ptr<Subscription>> Subscribe(std::string_view, const SubscribeOptions&,
                                                    StreamHandler) override {
    return ValidationError("not in the fake");
  }
  Status SaveCheckpoint(std::string_view, std::string_view) override { return Status(); }
  StatusOr<size_t> DeleteCheckpoints(std::string_view) override { return size_t{0}; }
  StatusOr<std::optional<std::string>> LoadCheckpoint(std::string_view) override {
    return std::optional<std::string>();
  }
};

class HandlerTest : public ::testing::Test {
 protected:
  FakeDB db_;
  Handler handler_{&db_};

  ApiReply Call(std::string_view op, std::string_view body) { return handler_.Handle(op, body); }
};

TEST_F(HandlerTest, EveryEngineOperationIsDispatched) {
  const std::pair<const char*, const char*> kCalls[] = {
      {"CreateTable",
       R"({"TableName":"Tbl","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],)"
       R"("KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"})"},
      {"DescribeTable", R"({"TableName":"Music"})"},
      {"DeleteTable", R"({"TableName":"Tbl"})"},
      {"ListTables", "{}"},
      {"UpdateTable", R"({"TableName":"Tbl","BillingMode":"PROVISIONED"})"},
      {"PutItem", R"({"TableName":"Tbl","Item":{"pk":{"S":"a"}}})"},
      {"GetItem", R"({"TableName":"Tbl","Key":{"pk":{"S":"a"}}})"},
      {"DeleteItem", R"({"TableName":"Tbl","Key":{"pk":{"S":"a"}}})"},
      {"UpdateItem", R"({"TableName":"Tbl","Key":{"pk":{"S":"a"}},"UpdateExpression":"SET a = :a"})"},
      {"Query", R"({"TableName":"Tbl","KeyConditionExpression":"pk = :p"})"},
      {"Scan", R"({"TableName":"Tbl"})"},
      {"BatchGetItem", R"({"RequestItems":{"Tbl":{"Keys":[{"pk":{"S":"a"}}]}}})"},
      {"BatchWriteItem", R"({"RequestItems":{"Tbl":[{"PutRequest":{"Item":{"pk":{"S":"a"}}}}]}})"},
      {"TransactGetItems", R"({"TransactItems":[{"Get":{"TableName":"Tbl","Key":{"pk":{"S":"a"}}}}]})"},
      {"TransactWriteItems",
       R"({"TransactItems":[{"Put":{"TableName":"Tbl","Item":{"pk":{"S":"a"}}}}]})"},
  };
  for (const auto& [op, body] : kCalls) {
    db_.last_op.clear();
    ApiReply reply = Call(op, body);
    EXPECT_EQ(reply.http_status, 200) << op << ": " << reply.body;
    EXPECT_EQ(db_.last_op, op);
  }
}

TEST_F(HandlerTest, ResponsesAreDynamoDbJson) {
  EXPECT_EQ(Call("PutItem", R"({"TableName":"Tbl","Item":{"pk":{"S":"a"}}})").body, "{}");
  EXPECT_EQ(db_.put_req.item.at("pk"), AttributeValue::S("a"));

  EXPECT_EQ(Call("GetItem", R"({"TableName":"Tbl","Key":{"pk":{"S":"a"}}})").body, "{}");
  db_.get_resp.item = Item{{"pk", AttributeValue::S("a")}, {"b", AttributeValue::B("\x01")}};
  EXPECT_EQ(Call("GetItem", R"({"TableName":"Tbl","Key":{"pk":{"S":"a"}}})").body,
            R"({"Item":{"b":{"B":"AQ=="},"pk":{"S":"a"}}})");

  EXPECT_EQ(Call("Query", R"({"TableName":"Tbl"})").body,
            R"({"Items":[{"a":{"S":"x"}}],"Count":1,"ScannedCount":1})");
  EXPECT_EQ(Call("Query", R"({"TableName":"Tbl","Select":"COUNT"})").body,
            R"({"Count":1,"ScannedCount":1})");
  EXPECT_EQ(Call("ListTables", "{}").body, R"({"TableNames":["Music","Thread"]})");
  // An empty body is not JSON: DynamoDB answers a bare SerializationException.
  EXPECT_EQ(Call("ListTables", "").body,
            R"({"__type":"com.amazon.coral.service#SerializationException"})");
  EXPECT_EQ(Call("BatchWriteItem",
                 R"({"RequestItems":{"Tbl":[{"PutRequest":{"Item":{"k":{"N":"2"}}}}]}})").body,
            R"({"UnprocessedItems":{}})");
  EXPECT_EQ(Call("BatchGetItem", R"({"RequestItems":{"Tbl":{"Keys":[{"k":{"N":"1"}}]}}})").body,
            R"({"Responses":{"Tbl":[{"k":{"N":"1"}}]},"UnprocessedKeys":{}})");
  EXPECT_EQ(Call("TransactGetItems",
                 R"({"TransactItems":[{"Get":{"TableName":"Tbl","Key":{"k":{"S":"a"}}}}]})")
                .body,
            R"({"Responses":[{}]})");
  EXPECT_TRUE(Call("DeleteTable", R"({"TableName":"Tbl"})")
                  .body.starts_with(R"({"TableDescription":{"AttributeDefinitions":[])"));
  EXPECT_NE(Call("DescribeTable", R"({"TableName":"Music"})").body.find(R"("Table":{)"),
            std::string::npos);
}

TEST_F(HandlerTest, DecodeErrorsNeverReachTheDb) {
  ApiReply r = Call("PutItem", "{not json");
  EXPECT_EQ(r.http_status, 400);
  EXPECT_EQ(r.body, R"({"__type":"com.amazon.coral.service#SerializationException"})");
  EXPECT_TRUE(db_.last_op.empty());

  r = Call("GetItem", R"({"Key":{}})");
  EXPECT_EQ(r.http_status, 400);
  EXPECT_EQ(r.body,
            R"({"__type":"com.amazon.coral.validate#ValidationException","message":"1 validation )"
            R"(error detected: Value null at 'tableName' failed to satisfy constraint: Member )"
            R"(must not be null"})");
  r = Call("Scan", R"({"TableName":"Tbl","Limit":"5"})");
  EXPECT_EQ(r.body,
            R"({"__type":"com.amazon.coral.service#SerializationException",)"
            R"("Message":"STRING_VALUE cannot be converted to Integer"})");
  EXPECT_TRUE(db_.last_op.empty());
}

TEST_F(HandlerTest, EngineErrorsKeepTypeMessageAndPayload) {
  db_.fail = ResourceNotFound("Requested resource not found");
  ApiReply r = Call("Query", R"({"TableName":"Nope"})");
  EXPECT_EQ(r.http_status, 400);
  EXPECT_EQ(r.body,
            R"({"__type":"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException",)"
            R"("message":"Requested resource not found"})");

  db_.fail = ConditionalCheckFailed();
  db_.fail.WithItem(Item{{"pk", AttributeValue::S("a")}});
  r = Call("PutItem", R"({"TableName":"Tbl","Item":{"pk":{"S":"a"}},)"
                      R"("ReturnValuesOnConditionCheckFailure":"ALL_OLD"})");
  EXPECT_TRUE(db_.put_req.return_values_on_condition_check_failure_all_old);
  EXPECT_EQ(r.body,
            R"({"__type":"com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException",)"
            R"("message":"The conditional request failed","Item":{"pk":{"S":"a"}}})");

  db_.fail = Status(ErrorType::kTransactionCanceled, "");
  db_.fail.WithCancellationReasons(
      {{"None", "", {}}, {"ConditionalCheckFailed", "The conditional request failed", {}}});
  r = Call("TransactWriteItems",
           R"({"TransactItems":[{"Put":{"TableName":"Tbl","Item":{"pk":{"S":"a"}}}},)"
           R"({"Delete":{"TableName":"Tbl","Key":{"pk":{"S":"b"}}}}]})");
  EXPECT_EQ(db_.twi_req.transact_items.size(), 2u);
  EXPECT_EQ(r.http_status, 400);
  EXPECT_EQ(r.body,
            R"({"__type":"com.amazonaws.dynamodb.v20120810#TransactionCanceledException",)"
            R"("CancellationReasons":[{"Code":"None"},{"Code":"ConditionalCheckFailed",)"
            R"("Message":"The conditional request failed"}],"Message":"Transaction cancelled, )"
            R"(please refer cancellation reasons for specific reasons [None, )"
            R"(ConditionalCheckFailed]"})");

  db_.fail = InternalError("Internal server error");
  r = Call("Scan", R"({"TableName":"Tbl"})");
  EXPECT_EQ(r.http_status, 500);
  EXPECT_EQ(r.body,
            R"({"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError",)"
            R"("message":"Internal server error"})");
}

TEST_F(HandlerTest, UnknownOperation) {
  // The Streams operations go by their whole target only.
  for (const char* op : {"", "Nope", "putitem", "PutItems", "ZZZ", "AAA", "ListStreams",
                         "DynamoDBStreams_20120810.PutItem"}) {
    ApiReply r = Call(op, "{}");
    EXPECT_EQ(r.http_status, 400) << op;
    EXPECT_EQ(r.body,
              R"({"__type":"com.amazon.coral.service#UnknownOperationException",)"
              R"("Message":"Unknown operation exception"})");
  }
}

TEST_F(HandlerTest, StreamsOperationsReachTheDb) {
  ApiReply r = Call("DynamoDBStreams_20120810.ListStreams", R"({"TableName":"Music"})");
  EXPECT_EQ(r.http_status, 200) << r.body;
  EXPECT_EQ(db_.last_op, "ListStreams");
  EXPECT_EQ(r.body, R"({"Streams":[]})");
  r = Call("DynamoDBStreams_20120810.GetShardIterator", R"({"StreamArn":"x","ShardId":"y"})");
  EXPECT_EQ(r.http_status, 400);
  EXPECT_NE(r.body.find("Value null at 'shardIteratorType' failed to satisfy constraint"),
            std::string::npos) << r.body;
}

TEST_F(HandlerTest, ErrorReply) {
  ApiReply r = Handler::ErrorReply(ResourceInUse("Table already exists: T"));
  EXPECT_EQ(r.http_status, 400);
  EXPECT_EQ(r.body,
            R"({"__type":"com.amazonaws.dynamodb.v20120810#ResourceInUseException",)"
            R"("message":"Table already exists: T"})");
}

TEST_F(HandlerTest, DescribeLimitsAndEndpoints) {
  EXPECT_EQ(Call("DescribeLimits", "{}").body,
            R"({"AccountMaxReadCapacityUnits":80000,"AccountMaxWriteCapacityUnits":80000,)"
            R"("TableMaxReadCapacityUnits":40000,"TableMaxWriteCapacityUnits":40000})");
  EXPECT_EQ(Call("DescribeEndpoints", "{}").body,
            R"({"Endpoints":[{"Address":"localhost:8000","CachePeriodInMinutes":1440}]})");
  handler_.SetEndpointAddress("127.0.0.1:9000");
  EXPECT_EQ(Call("DescribeEndpoints", "").body,
            R"({"Endpoints":[{"Address":"127.0.0.1:9000","CachePeriodInMinutes":1440}]})");
}

// TTL and tags live in the catalog: these run against a real in-memory DB.
class HandlerOnDbTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Options options;
    options.in_memory = true;
    db_ = std::move(DB::Open(options, "").value());
    handler_ = std::make_unique<Handler>(db_.get());
    ASSERT_EQ(Call("CreateTable", R"({"TableName":"Music","BillingMode":"PAY_PER_REQUEST",)"
                                  R"("AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],)"
                                  R"("KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],)"
                                  R"("Tags":[{"Key":"k","Value":"v"}]})")
                  .http_status,
              200);
  }
  ApiReply Call(std::string_view op, std::string_view body) { return handler_->Handle(op, body); }

  std::unique_ptr<DB> db_;
  std::unique_ptr<Handler> handler_;
};

TEST_F(HandlerOnDbTest, TimeToLive) {
  EXPECT_EQ(Call("DescribeTimeToLive", R"({"TableName":"Music"})").body,
            R"({"TimeToLiveDescription":{"TimeToLiveStatus":"DISABLED"}})");
  ApiReply r = Call("UpdateTimeToLive", R"({"TableName":"Music","TimeToLiveSpecification":)"
                                        R"({"Enabled":true,"AttributeName":"expires"}})");
  EXPECT_EQ(r.http_status, 200);
  EXPECT_EQ(r.body,
            R"({"TimeToLiveSpecification":{"AttributeName":"expires","Enabled":true}})");
  EXPECT_EQ(Call("DescribeTimeToLive", R"({"TableName":"Music"})").body,
            R"({"TimeToLiveDescription":{"AttributeName":"expires","TimeToLiveStatus":"ENABLED"}})");
  r = Call("UpdateTimeToLive", R"({"TableName":"Music","TimeToLiveSpecification":)"
                               R"({"Enabled":true,"AttributeName":"expires"}})");
  EXPECT_EQ(r.http_status, 400);
  EXPECT_NE(r.body.find("TimeToLive is already enabled"), std::string::npos);
  r = Call("UpdateTimeToLive", R"({"TableName":"Music","TimeToLiveSpecification":)"
                               R"({"Enabled":true,"AttributeName":"other"}})");
  EXPECT_NE(r.body.find("TimeToLive is active on a different AttributeName: current "
                        "AttributeName is expires"),
            std::string::npos)
      << r.body;
  r = Call("UpdateTimeToLive", R"({"TableName":"Nope","TimeToLiveSpecification":)"
                               R"({"Enabled":true,"AttributeName":"x"}})");
  EXPECT_NE(r.body.find("ResourceNotFoundException"), std::string::npos);
  r = Call("UpdateTimeToLive", R"({"TableName":"Music"})");
  EXPECT_NE(r.body.find("Value null at 'timeToLiveSpecification'"), std::string::npos) << r.body;
  r = Call("UpdateTimeToLive", R"({"TableName":"Music","TimeToLiveSpecification":)"
                               R"({"Enabled":false,"AttributeName":"other"}})");
  EXPECT_NE(r.body.find("TimeToLive is active on a different AttributeName"), std::string::npos)
      << r.body;
  r = Call("UpdateTimeToLive", R"({"TableName":"Music","TimeToLiveSpecification":)"
                               R"({"Enabled":false,"AttributeName":"expires"}})");
  EXPECT_EQ(r.http_status, 200);
  EXPECT_EQ(Call("DescribeTimeToLive", R"({"TableName":"Music"})").body,
            R"({"TimeToLiveDescription":{"TimeToLiveStatus":"DISABLED"}})");
}

TEST_F(HandlerOnDbTest, TheObserverSeesWhatFailedWritesCost) {
  std::vector<ConsumedCapacity> seen;
  handler_->SetObserver([&](std::string_view, const Status&, double,
                            const std::vector<ConsumedCapacity>& consumed) { seen = consumed; });
  const std::string pad(1500, 'x');
  ASSERT_EQ(Call("PutItem", R"({"TableName":"Music","Item":{"pk":{"S":"a"},"p":{"S":")" + pad +
                                R"("}}})").http_status,
            200);
  ApiReply r = Call("PutItem", R"js({"TableName":"Music","Item":{"pk":{"S":"a"}},)js"
                               R"js("ConditionExpression":"attribute_not_exists(pk)"})js");
  EXPECT_NE(r.body.find("ConditionalCheckFailedException"), std::string::npos);
  EXPECT_EQ(r.body.find("ConsumedCapacity"), std::string::npos);  // not on the wire
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].table_name, "Music");
  EXPECT_EQ(seen[0].write_capacity_units.value_or(0), 2);
}

TEST_F(HandlerOnDbTest, Tags) {
  const std::string arn = "arn:aws:dynamodb:us-east-1:000000000000:table/Music";
  auto list = [&] { return Call("ListTagsOfResource", R"({"ResourceArn":")" + arn + R"("})").body; };
  // CreateTable's Tags are kept.
  EXPECT_EQ(list(), R"({"Tags":[{"Key":"k","Value":"v"}]})");
  ApiReply r = Call("TagResource", R"({"ResourceArn":")" + arn +
                                       R"(","Tags":[{"Key":"b","Value":"2"},{"Key":"a","Value":"1"}]})");
  EXPECT_EQ(r.http_status, 200) << r.body;
  EXPECT_EQ(r.body, "{}");
  EXPECT_EQ(list(), R"({"Tags":[{"Key":"a","Value":"1"},{"Key":"b","Value":"2"},{"Key":"k","Value":"v"}]})");
  // Tagging a key again replaces its value; untagging a missing key is no error.
  Call("TagResource", R"({"ResourceArn":")" + arn + R"(","Tags":[{"Key":"a","Value":"x"}]})");
  Call("UntagResource", R"({"ResourceArn":")" + arn + R"(","TagKeys":["b","k","zz"]})");
  EXPECT_EQ(list(), R"({"Tags":[{"Key":"a","Value":"x"}]})");

  r = Call("ListTagsOfResource", R"({"ResourceArn":"not-an-arn"})");
  EXPECT_EQ(r.http_status, 400);
  EXPECT_NE(r.body.find("ValidationException"), std::string::npos);
  r = Call("ListTagsOfResource",
           R"({"ResourceArn":"arn:aws:dynamodb:us-east-1:000000000000:table/Nope"})");
  EXPECT_NE(r.body.find("ResourceNotFoundException"), std::string::npos);

  // Tag rules: no empty list, key 1..128, value up to 256, no "aws:", at most 50.
  for (const std::string& tags :
       {std::string("[]"), std::string(R"([{"Key":"","Value":"v"}])"),
        R"([{"Key":")" + std::string(129, 'k') + R"(","Value":"v"}])",
        R"([{"Key":"k","Value":")" + std::string(257, 'v') + R"("}])",
        std::string(R"([{"Key":"aws:x","Value":"v"}])"),
        std::string(R"([{"Key":"bad#key","Value":"v"}])")}) {
    r = Call("TagResource", R"({"ResourceArn":")" + arn + R"(","Tags":)" + tags + "}");
    EXPECT_EQ(r.http_status, 400) << tags;
    EXPECT_NE(r.body.find("ValidationException"), std::string::npos) << r.body;
  }
  std::string many = "[";
  for (int i = 0; i < 50; ++i) many += (i ? ",{\"Key\":\"t" : "{\"Key\":\"t") + std::to_string(i) + "\",\"Value\":\"\"}";
  many += "]";
  r = Call("TagResource", R"({"ResourceArn":")" + arn + R"(","Tags":)" + many + "}");
  EXPECT_NE(r.body.find("maximum of 50"), std::string::npos) << r.body;  // 50 + "a"
  EXPECT_EQ(list(), R"({"Tags":[{"Key":"a","Value":"x"}]})");  // nothing changed

  // DeleteTable forgets them: a new table of the same name starts untagged.
  Call("DeleteTable", R"({"TableName":"Music"})");
  Call("CreateTable", R"({"TableName":"Music","BillingMode":"PAY_PER_REQUEST",)"
                      R"("AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],)"
                      R"("KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]})");
  EXPECT_EQ(list(), R"({"Tags":[]})");
}

TEST_F(HandlerOnDbTest, ContinuousBackups) {
  EXPECT_EQ(Call("DescribeContinuousBackups", R"({"TableName":"Music"})").body,
            R"({"ContinuousBackupsDescription":{"ContinuousBackupsStatus":"ENABLED",)"
            R"("PointInTimeRecoveryDescription":{"PointInTimeRecoveryStatus":"DISABLED"}}})");
  ApiReply r = Call("DescribeContinuousBackups", R"({"TableName":"Nope"})");
  EXPECT_NE(r.body.find("TableNotFoundException"), std::string::npos) << r.body;
  r = Call("UpdateContinuousBackups", R"({"TableName":"Music","PointInTimeRecoverySpecification":)"
                                      R"({"PointInTimeRecoveryEnabled":true,"RecoveryPeriodInDays":7}})");
  EXPECT_EQ(r.http_status, 200) << r.body;
  EXPECT_NE(r.body.find(R"("PointInTimeRecoveryStatus":"ENABLED")"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find(R"("RecoveryPeriodInDays":7)"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("EarliestRestorableDateTime"), std::string::npos) << r.body;
  r = Call("DescribeContinuousBackups", R"({"TableName":"Music"})");
  EXPECT_NE(r.body.find(R"("PointInTimeRecoveryStatus":"ENABLED")"), std::string::npos) << r.body;
  r = Call("UpdateContinuousBackups", R"({"TableName":"Music","PointInTimeRecoverySpecification":)"
                                      R"({"PointInTimeRecoveryEnabled":true,"RecoveryPeriodInDays":36}})");
  EXPECT_NE(r.body.find("Member must have value less than or equal to 35"), std::string::npos)
      << r.body;
  r = Call("UpdateContinuousBackups", R"({"TableName":"Music"})");
  EXPECT_NE(r.body.find("Value null at 'pointInTimeRecoverySpecification'"), std::string::npos)
      << r.body;
  r = Call("UpdateContinuousBackups", R"({"TableName":"Music","PointInTimeRecoverySpecification":)"
                                      R"({"PointInTimeRecoveryEnabled":false}})");
  EXPECT_NE(r.body.find(R"("PointInTimeRecoveryStatus":"DISABLED")"), std::string::npos) << r.body;
}

}  // namespace
}  // namespace dynarock::api
