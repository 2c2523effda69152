// File: engine/api/streams_json.h
//
// The DynamoDB Streams API's JSON (X-Amz-Target "DynamoDBStreams_20120810.*")
// <-> the structs of dynarock/streams.h: the server's request decoders and
// response encoders, and the record encoding `dynarock streams tail` prints.
// Errors as json_decode.h's: SerializationException for wrong JSON types,
// ValidationException listing every shape violation.

#ifndef DYNAROCK_API_STREAMS_JSON_H_
#define DYNAROCK_API_STREAMS_JSON_H_

#include <string>
#include <string_view>

#include "dynarock/status.h"
#include "dynarock/streams.h"
#include "engine/api/json_writer.h"

namespace dynarock::api {

StatusOr<ListStreamsRequest> DecodeListStreamsRequest(std::string_view body);
StatusOr<DescribeStreamRequest> DecodeDescribeStreamRequest(std::string_view body);
StatusOr<GetShardIteratorRequest> DecodeGetShardIteratorRequest(std::string_view body);
StatusOr<GetRecordsRequest> DecodeGetRecordsRequest(std::string_view body);

std::string EncodeListStreamsResponse(const ListStreamsResponse& r);
std::string EncodeDescribeStreamResponse(const DescribeStreamResponse& r);
std::string EncodeGetShardIteratorResponse(const GetShardIteratorResponse& r);
std::string EncodeGetRecordsResponse(const GetRecordsResponse& r);

// One record as GetRecords writes it: {"eventID":...,"dynamodb":{...}}.
void WriteStreamRecord(JsonWriter* w, const StreamRecord& r);
std::string EncodeStreamRecordJson(const StreamRecord& r);

}  // namespace dynarock::api

#endif  // DYNAROCK_API_STREAMS_JSON_H_
