// File: engine/api/json_encode.h
//
// The structs of dynarock/requests.h -> DynamoDB JSON (AWS JSON 1.0). Both
// directions of the protocol write JSON through this file:
//   - the server encodes responses (EncodeXxxResponse) and errors
//     (EncodeErrorBody): json_encode.cc;
//   - client::HttpClient encodes requests (EncodeXxxRequest), which
//     json_decode.h's DecodeXxxRequest reads back field for field:
//     json_encode_requests.cc.
//
// Optional members that are absent are omitted, as DynamoDB does: GetItem without
// an item is "{}", PutItem without ReturnValues is "{}". BatchWriteItem always
// carries "UnprocessedItems" and BatchGetItem "Responses" and "UnprocessedKeys",
// even when empty. B and BS values are base64; N values are written as their text.

#ifndef DYNAROCK_API_JSON_ENCODE_H_
#define DYNAROCK_API_JSON_ENCODE_H_

#include <string>

#include "dynarock/requests.h"
#include "dynarock/status.h"
#include "engine/api/json_writer.h"

namespace dynarock::api {

// ---------------------------------------------------------------- building blocks

// {"S":"x"}, {"N":"1"}, {"B":"base64"}, {"L":[...]}, ...
void WriteAttributeValue(JsonWriter* w, const AttributeValue& v);
// {"name":{"S":"x"},...}
void WriteItem(JsonWriter* w, const Item& item);
// The same JSON, written from an item's stored bytes; false (with part of it
// written) when the bytes are malformed.
bool WriteEncodedItem(JsonWriter* w, ItemView item);
// ["a","b"] and [{"S":"x"},...]
void WriteStringList(JsonWriter* w, const std::vector<std::string>& list);
void WriteAttributeList(JsonWriter* w, const std::vector<AttributeValue>& list);
void WriteTableDescription(JsonWriter* w, const TableDescription& t);
// "KeySchema":[{"AttributeName":...,"KeyType":"HASH"},...]
void WriteKeySchema(JsonWriter* w, const std::vector<KeySchemaElement>& ks);
void WriteConsumedCapacity(JsonWriter* w, const ConsumedCapacity& c);
// "AttributeDefinitions":[...], "Projection":{...}, "ProvisionedThroughput":{...}
// (with its description's members), "StreamSpecification":{...}
void WriteAttributeDefinitions(JsonWriter* w, const std::vector<AttributeDefinition>& defs);
void WriteProjection(JsonWriter* w, const Projection& p);
void WriteThroughputDescription(JsonWriter* w, const ProvisionedThroughputDescription& t);
void WriteThroughput(JsonWriter* w, const ProvisionedThroughput& t);
// `key` ("OnDemandThroughput", "OnDemandThroughputOverride") and the members set.
void WriteOnDemandThroughput(JsonWriter* w, std::string_view key, const OnDemandThroughput& t);
void WriteIndexDescription(JsonWriter* w, const IndexDescription& x, bool global);
void WriteStreamSpecification(JsonWriter* w, const StreamSpecification& s);
// {"IndexName":...,"KeySchema":...,"Projection":...[,"ProvisionedThroughput":...]}
void WriteGlobalSecondaryIndex(JsonWriter* w, const GlobalSecondaryIndex& g);
// "ConsumedCapacity": [...] (the multi-table operations' form).
void WriteCapacityList(JsonWriter* w, const std::vector<ConsumedCapacity>& list);
// Shared by the responses (json_encode.cc) and the requests
// (json_encode_requests.cc): {"name":"value",...}; BatchGetItem's per-table
// member; `key`: {table: [{"PutRequest"|"DeleteRequest":...}]}.
void WriteNameMap(JsonWriter* w, const NameMap& names);
// A replica's settings' members (KMSMasterKeyId, the overrides, GlobalSecondaryIndexes).
void WriteReplicaSettings(JsonWriter* w, const ReplicaSettings& s);
void WriteKeysAndAttributes(JsonWriter* w, const KeysAndAttributes& k);
void WriteWriteRequestMap(JsonWriter* w, std::string_view key,
                          const std::map<std::string, std::vector<WriteRequest>>& m);

std::string EncodeAttributeValueJson(const AttributeValue& v);
std::string EncodeItemJson(const Item& item);

// ---------------------------------------------------------------- server: responses

std::string EncodeCreateTableResponse(const CreateTableResponse& r);
std::string EncodeDescribeTableResponse(const DescribeTableResponse& r);
std::string EncodeDeleteTableResponse(const DeleteTableResponse& r);
std::string EncodeListTablesResponse(const ListTablesResponse& r);
std::string EncodeUpdateTableResponse(const UpdateTableResponse& r);
std::string EncodePutItemResponse(const PutItemResponse& r);
std::string EncodeGetItemResponse(const GetItemResponse& r);
std::string EncodeDeleteItemResponse(const DeleteItemResponse& r);
std::string EncodeUpdateItemResponse(const UpdateItemResponse& r);
// With `select_count` (the request's Select was COUNT) "Items" is left out, as
// DynamoDB does.
std::string EncodeQueryResponse(const QueryResponse& r, bool select_count = false);
std::string EncodeScanResponse(const ScanResponse& r, bool select_count = false);
std::string EncodeBatchGetItemResponse(const BatchGetItemResponse& r);
std::string EncodeBatchWriteItemResponse(const BatchWriteItemResponse& r);
std::string EncodeTransactGetItemsResponse(const TransactGetItemsResponse& r);
std::string EncodeTransactWriteItemsResponse(const TransactWriteItemsResponse& r);
std::string EncodeUpdateTimeToLiveResponse(const UpdateTimeToLiveResponse& r);
std::string EncodeDescribeTimeToLiveResponse(const DescribeTimeToLiveResponse& r);
std::string EncodeListTagsOfResourceResponse(const ListTagsOfResourceResponse& r);
std::string EncodePutResourcePolicyResponse(const PutResourcePolicyResponse& r);
std::string EncodeGetResourcePolicyResponse(const GetResourcePolicyResponse& r);
std::string EncodeDeleteResourcePolicyResponse(const DeleteResourcePolicyResponse& r);
std::string EncodeDescribeContinuousBackupsResponse(const DescribeContinuousBackupsResponse& r);
std::string EncodeUpdateContinuousBackupsResponse(const UpdateContinuousBackupsResponse& r);

// The body of an error reply:
//   {"__type":"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException",
//    "message":"Requested resource not found"}
// The message member is "Message" for the types DynamoDB spells that way
// (TransactionCanceledException and the com.amazon.coral.service serialization /
// operation errors) and "message" otherwise; it is left out when the message is
// empty. ConditionalCheckFailedException adds "Item" when the Status carries one;
// TransactionCanceledException adds "CancellationReasons" and, when the Status
// message is empty, the message "Transaction cancelled, please refer cancellation
// reasons for specific reasons [None, ConditionalCheckFailed]".
// An OK status gives "{}".
std::string EncodeErrorBody(const Status& status);

// ---------------------------------------------------------------- client: requests

std::string EncodeCreateTableRequest(const CreateTableRequest& r);
std::string EncodeDescribeTableRequest(const DescribeTableRequest& r);
std::string EncodeDeleteTableRequest(const DeleteTableRequest& r);
std::string EncodeListTablesRequest(const ListTablesRequest& r);
std::string EncodeUpdateTableRequest(const UpdateTableRequest& r);
std::string EncodePutItemRequest(const PutItemRequest& r);
std::string EncodeGetItemRequest(const GetItemRequest& r);
std::string EncodeDeleteItemRequest(const DeleteItemRequest& r);
std::string EncodeUpdateItemRequest(const UpdateItemRequest& r);
std::string EncodeQueryRequest(const QueryRequest& r);
std::string EncodeScanRequest(const ScanRequest& r);
std::string EncodeBatchGetItemRequest(const BatchGetItemRequest& r);
std::string EncodeBatchWriteItemRequest(const BatchWriteItemRequest& r);
std::string EncodeTransactGetItemsRequest(const TransactGetItemsRequest& r);
std::string EncodeTransactWriteItemsRequest(const TransactWriteItemsRequest& r);

// Wire names of the enums ("ALL_NEW", "TOTAL", "COUNT", "HASH", "KEYS_ONLY").
std::string_view ReturnValueName(ReturnValue v);
std::string_view ReturnConsumedCapacityName(ReturnConsumedCapacity v);
std::string_view SelectName(Select v);
std::string_view KeyTypeName(KeyType v);
std::string_view ProjectionTypeName(ProjectionType v);

}  // namespace dynarock::api

#endif  // DYNAROCK_API_JSON_ENCODE_H_
