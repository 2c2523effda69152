// File: engine/api/json_kinesis.h
//
// DynamoDB JSON <-> the Kinesis streaming destination requests of
// dynarock/requests.h.

#ifndef DYNAROCK_API_JSON_KINESIS_H_
#define DYNAROCK_API_JSON_KINESIS_H_

#include <string>
#include <string_view>

#include "dynarock/requests.h"
#include "dynarock/status.h"

namespace dynarock::api {

// Enable and Disable (EnableKinesisStreamingConfiguration), Update
// (UpdateKinesisStreamingConfiguration).
StatusOr<KinesisStreamingDestinationRequest> DecodeEnableKinesisStreamingDestinationRequest(
    std::string_view body);
StatusOr<KinesisStreamingDestinationRequest> DecodeUpdateKinesisStreamingDestinationRequest(
    std::string_view body);
StatusOr<DescribeKinesisStreamingDestinationRequest> DecodeDescribeKinesisStreamingDestinationRequest(
    std::string_view body);

std::string EncodeEnableKinesisStreamingDestinationResponse(const KinesisStreamingDestinationResponse& r);
std::string EncodeUpdateKinesisStreamingDestinationResponse(const KinesisStreamingDestinationResponse& r);
std::string EncodeDescribeKinesisStreamingDestinationResponse(
    const DescribeKinesisStreamingDestinationResponse& r);

}  // namespace dynarock::api

#endif  // DYNAROCK_API_JSON_KINESIS_H_
