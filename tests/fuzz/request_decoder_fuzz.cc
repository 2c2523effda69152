// libFuzzer target: arbitrary bytes as the body of every DynamoDB operation.
//
// Checks that decoding never crashes (ASan/UBSan catch the rest) and, whenever a
// body decodes, that the client encoder writes JSON the decoder accepts again and
// that a second encode gives the same text (the codec is its own inverse). Also
// drives the error-reply decoder and the response encoders' building blocks.
//
//   FUZZ_TARGETS=request_decoder_fuzz bash tests/fuzz/run_fuzzers.sh
//
// The engine sources it links (listed so that run_fuzzers.sh compiles only
// these, not every RocksDB-free source):
// fuzz-sources: engine/api/json_decode.cc engine/api/json_decode_responses.cc
// fuzz-sources: engine/api/json_decode_tables.cc engine/api/json_encode_requests.cc
// fuzz-sources: engine/api/json_encode.cc engine/api/json_items.cc engine/api/json_writer.cc
// fuzz-sources: engine/api/streams_json.cc engine/api/base64.cc engine/status.cc
// fuzz-sources: engine/attribute_value.cc engine/number.cc engine/item_codec.cc
// fuzz-sources: engine/item_size.cc engine/item_validation.cc engine/table_validation.cc
// fuzz-sources: engine/table_checks.cc
// fuzz-sources: engine/table_info.cc

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "engine/api/json_decode.h"
#include "engine/api/json_encode.h"
#include "engine/api/streams_json.h"

namespace {

using namespace dynarock;
using namespace dynarock::api;

template <typename T>
void Check(std::string_view body, StatusOr<T> (*decode)(std::string_view),
           std::string (*encode)(const T&)) {
  StatusOr<T> first = decode(body);
  if (!first.ok()) {
    // Every failure is a client error with a DynamoDB type.
    ErrorType t = first.status().type();
    if (t != ErrorType::kSerialization && t != ErrorType::kValidation) std::abort();
    (void)EncodeErrorBody(first.status());
    return;
  }
  std::string json = encode(*first);
  StatusOr<T> second = decode(json);
  if (!second.ok()) std::abort();
  if (encode(*second) != json) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view body(reinterpret_cast<const char*>(data), size);
  Check(body, DecodeCreateTableRequest, EncodeCreateTableRequest);
  Check(body, DecodeDescribeTableRequest, EncodeDescribeTableRequest);
  Check(body, DecodeDeleteTableRequest, EncodeDeleteTableRequest);
  Check(body, DecodeListTablesRequest, EncodeListTablesRequest);
  Check(body, DecodeUpdateTableRequest, EncodeUpdateTableRequest);
  Check(body, DecodePutItemRequest, EncodePutItemRequest);
  Check(body, DecodeGetItemRequest, EncodeGetItemRequest);
  Check(body, DecodeDeleteItemRequest, EncodeDeleteItemRequest);
  Check(body, DecodeUpdateItemRequest, EncodeUpdateItemRequest);
  Check(body, DecodeQueryRequest, EncodeQueryRequest);
  Check(body, DecodeScanRequest, EncodeScanRequest);
  Check(body, DecodeBatchGetItemRequest, EncodeBatchGetItemRequest);
  Check(body, DecodeBatchWriteItemRequest, EncodeBatchWriteItemRequest);
  Check(body, DecodeTransactGetItemsRequest, EncodeTransactGetItemsRequest);
  Check(body, DecodeTransactWriteItemsRequest, EncodeTransactWriteItemsRequest);
  (void)DecodeUpdateTimeToLiveRequest(body);
  (void)DecodeTagResourceRequest(body);
  (void)DecodeUntagResourceRequest(body);
  (void)DecodeListTagsOfResourceRequest(body);
  // DynamoDB Streams: decoded requests re-encode nothing (the server only
  // decodes them); they must not crash or leak.
  (void)DecodeListStreamsRequest(body);
  (void)DecodeDescribeStreamRequest(body);
  (void)DecodeGetShardIteratorRequest(body);
  (void)DecodeGetRecordsRequest(body);
  auto item = DecodeItemJson(body);
  if (item.ok()) (void)EncodeItemJson(*item);
  Status error = DecodeErrorResponse(400, body);
  (void)EncodeErrorBody(error);
  return 0;
}
