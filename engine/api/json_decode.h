// File: engine/api/json_decode.h
//
// DynamoDB JSON (AWS JSON 1.0) -> the structs of dynarock/requests.h. Both
// directions of the protocol read JSON through this file:
//   - the server decodes request bodies (DecodeXxxRequest: json_decode.cc,
//     the table requests json_decode_tables.cc);
//   - client::HttpClient decodes response bodies (DecodeXxxResponse:
//     json_decode_responses.cc) and error bodies (DecodeErrorResponse).
//
// Errors, in the order DynamoDB reports them:
//   1. SerializationException: the body is not JSON, a member has the wrong JSON
//      type ("NUMBER_VALUE cannot be converted to String", "Unexpected field type",
//      "Start of list found where not expected", ...), or a B/BS value is not
//      base64. Malformed JSON carries no message, as in DynamoDB.
//   2. ValidationException listing every shape constraint violated, as DynamoDB's
//      front end does: "2 validation errors detected: Value null at 'tableName'
//      failed to satisfy constraint: Member must not be null; Value 'X' at
//      'returnValues' failed to satisfy constraint: Member must satisfy enum value
//      set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]".
//      Covered: required members, enums, Limit/Segment/TotalSegments and capacity
//      ranges. Table names (length, pattern), batch and transaction sizes and all
//      semantic checks belong to the engine, which validates embedded calls too.
//   3. ValidationException for the first structurally invalid AttributeValue
//      ("Supplied AttributeValue is empty, must contain exactly one of the
//      supported datatypes", "... has more than one datatypes set ...",
//      "... Null attribute value types must have the value of true").
//
// N values are kept as the text received (not normalised); the engine normalises
// and validates numbers and sets. JSON null members count as absent; unknown
// members are ignored. An empty body counts as "{}".
//
// Thread-safe: each thread uses its own simdjson parser.

#ifndef DYNAROCK_API_JSON_DECODE_H_
#define DYNAROCK_API_JSON_DECODE_H_

#include <string>
#include <string_view>
#include <vector>

#include "dynarock/requests.h"
#include "dynarock/status.h"

namespace dynarock {
struct MalformedValue;  // engine/request_checks.h
}

namespace dynarock::api {

// ---------------------------------------------------------------- server: requests

StatusOr<CreateTableRequest> DecodeCreateTableRequest(std::string_view body);
StatusOr<DescribeTableRequest> DecodeDescribeTableRequest(std::string_view body);
StatusOr<DeleteTableRequest> DecodeDeleteTableRequest(std::string_view body);
StatusOr<ListTablesRequest> DecodeListTablesRequest(std::string_view body);
StatusOr<UpdateTableRequest> DecodeUpdateTableRequest(std::string_view body);
// The item operations' requests (PutItem, GetItem, DeleteItem, UpdateItem,
// Query, Scan) decoded so that a request whose only fault is a malformed
// AttributeValue is still returned, with the fault and its member in
// *malformed: DynamoDB reports it where CheckParameters (engine/request_checks.h)
// checks that member.
template <typename Req>
StatusOr<Req> DecodeItemRequest(std::string_view body, MalformedValue* malformed);
template <> StatusOr<PutItemRequest> DecodeItemRequest(std::string_view, MalformedValue*);
template <> StatusOr<GetItemRequest> DecodeItemRequest(std::string_view, MalformedValue*);
template <> StatusOr<DeleteItemRequest> DecodeItemRequest(std::string_view, MalformedValue*);
template <> StatusOr<UpdateItemRequest> DecodeItemRequest(std::string_view, MalformedValue*);
template <> StatusOr<QueryRequest> DecodeItemRequest(std::string_view, MalformedValue*);
template <> StatusOr<ScanRequest> DecodeItemRequest(std::string_view, MalformedValue*);
StatusOr<PutItemRequest> DecodePutItemRequest(std::string_view body);
StatusOr<GetItemRequest> DecodeGetItemRequest(std::string_view body);
StatusOr<DeleteItemRequest> DecodeDeleteItemRequest(std::string_view body);
StatusOr<UpdateItemRequest> DecodeUpdateItemRequest(std::string_view body);
StatusOr<QueryRequest> DecodeQueryRequest(std::string_view body);
StatusOr<ScanRequest> DecodeScanRequest(std::string_view body);
StatusOr<BatchGetItemRequest> DecodeBatchGetItemRequest(std::string_view body);
StatusOr<BatchWriteItemRequest> DecodeBatchWriteItemRequest(std::string_view body);
StatusOr<TransactGetItemsRequest> DecodeTransactGetItemsRequest(std::string_view body);
StatusOr<TransactWriteItemsRequest> DecodeTransactWriteItemsRequest(std::string_view body);

// Time to live and tags.
StatusOr<UpdateTimeToLiveRequest> DecodeUpdateTimeToLiveRequest(std::string_view body);
StatusOr<DescribeTimeToLiveRequest> DecodeDescribeTimeToLiveRequest(std::string_view body);
StatusOr<DescribeContinuousBackupsRequest> DecodeDescribeContinuousBackupsRequest(
    std::string_view body);
StatusOr<UpdateContinuousBackupsRequest> DecodeUpdateContinuousBackupsRequest(
    std::string_view body);
StatusOr<TagResourceRequest> DecodeTagResourceRequest(std::string_view body);
StatusOr<UntagResourceRequest> DecodeUntagResourceRequest(std::string_view body);
StatusOr<ListTagsOfResourceRequest> DecodeListTagsOfResourceRequest(std::string_view body);
StatusOr<PutResourcePolicyRequest> DecodePutResourcePolicyRequest(std::string_view body);
StatusOr<GetResourcePolicyRequest> DecodeGetResourcePolicyRequest(std::string_view body);
StatusOr<DeleteResourcePolicyRequest> DecodeDeleteResourcePolicyRequest(std::string_view body);

// One DynamoDB-JSON AttributeValue ({"S":"x"}) or Item ({"a":{"S":"x"}}), with the
// same checks as inside a request. For tools and tests.
StatusOr<AttributeValue> DecodeAttributeValueJson(std::string_view json);
StatusOr<Item> DecodeItemJson(std::string_view json);

// ---------------------------------------------------------------- client: responses

StatusOr<CreateTableResponse> DecodeCreateTableResponse(std::string_view body);
StatusOr<DescribeTableResponse> DecodeDescribeTableResponse(std::string_view body);
StatusOr<DeleteTableResponse> DecodeDeleteTableResponse(std::string_view body);
StatusOr<ListTablesResponse> DecodeListTablesResponse(std::string_view body);
StatusOr<UpdateTableResponse> DecodeUpdateTableResponse(std::string_view body);
StatusOr<PutItemResponse> DecodePutItemResponse(std::string_view body);
StatusOr<GetItemResponse> DecodeGetItemResponse(std::string_view body);
StatusOr<DeleteItemResponse> DecodeDeleteItemResponse(std::string_view body);
StatusOr<UpdateItemResponse> DecodeUpdateItemResponse(std::string_view body);
StatusOr<QueryResponse> DecodeQueryResponse(std::string_view body);
StatusOr<ScanResponse> DecodeScanResponse(std::string_view body);
StatusOr<BatchGetItemResponse> DecodeBatchGetItemResponse(std::string_view body);
StatusOr<BatchWriteItemResponse> DecodeBatchWriteItemResponse(std::string_view body);
StatusOr<TransactGetItemsResponse> DecodeTransactGetItemsResponse(std::string_view body);
StatusOr<TransactWriteItemsResponse> DecodeTransactWriteItemsResponse(std::string_view body);

// An error reply -> Status. The type is the part of "__type" after '#' (or all of
// it), matched against ErrorTypeName(); the message is "message" or "Message";
// "Item" and "CancellationReasons" become the Status payloads. An unknown type, or
// a body that is not a JSON error, gives kInternalServerError for 5xx statuses and
// kValidation otherwise, with the type name (or the body) kept in the message.
Status DecodeErrorResponse(int http_status, std::string_view body);

// ErrorTypeName() inverted; false for names Dynarock does not know.
bool ParseErrorTypeName(std::string_view name, ErrorType* type);

}  // namespace dynarock::api

#endif  // DYNAROCK_API_JSON_DECODE_H_
