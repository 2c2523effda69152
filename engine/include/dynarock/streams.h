// File: dynarock/streams.h
//
// DynamoDB Streams: the request and response structs of the Streams API
// (ListStreams, DescribeStream, GetShardIterator, GetRecords), mirroring
// DynamoDB Streams' shapes field by field, the stream record, and the embedded
// subscription (DB::Subscribe) that delivers a table's records in process.
//
// A table with a stream enabled records every change to an item in the same
// atomic commit as the item: a record exists exactly when the write is durable,
// and the records of one item are in the order of its writes.

#ifndef DYNAROCK_STREAMS_H_
#define DYNAROCK_STREAMS_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "dynarock/requests.h"

namespace dynarock {

// One change to one item, as DynamoDB Streams delivers it.
struct StreamRecord {
  std::string event_id;       // 32 hex digits, stable for the record
  std::string event_name;     // "INSERT" | "MODIFY" | "REMOVE"
  std::string event_version = "1.1";
  std::string event_source = "aws:dynamodb";
  std::string aws_region;
  double approximate_creation_date_time = 0;  // seconds since the epoch
  Item keys;
  std::optional<Item> new_image;  // with NEW_IMAGE or NEW_AND_OLD_IMAGES
  std::optional<Item> old_image;  // with OLD_IMAGE or NEW_AND_OLD_IMAGES
  std::string sequence_number;    // decimal, at least 21 digits, increasing
  int64_t size_bytes = 0;
  std::string stream_view_type;
  // Deleted by time to live: userIdentity {Type: Service, PrincipalId:
  // dynamodb.amazonaws.com} on the wire.
  bool by_time_to_live = false;
};

struct StreamSummary {  // ListStreams' "Stream"
  std::string stream_arn;
  std::string table_name;
  std::string stream_label;
};

struct ListStreamsRequest {
  std::optional<std::string> table_name;
  std::optional<int64_t> limit;  // 1..100
  std::optional<std::string> exclusive_start_stream_arn;
};
struct ListStreamsResponse {
  std::vector<StreamSummary> streams;
  std::optional<std::string> last_evaluated_stream_arn;
};

struct SequenceNumberRange {
  std::optional<std::string> starting_sequence_number;
  std::optional<std::string> ending_sequence_number;  // once the shard is closed
};

struct Shard {
  std::string shard_id;
  SequenceNumberRange sequence_number_range;
  std::optional<std::string> parent_shard_id;
};

struct StreamDescription {
  std::string stream_arn;
  std::string stream_label;
  std::string stream_status;  // "ENABLED" | "DISABLED"
  std::string stream_view_type;
  double creation_request_date_time = 0;  // seconds since the epoch
  std::string table_name;
  std::vector<KeySchemaElement> key_schema;
  std::vector<Shard> shards;
  std::optional<std::string> last_evaluated_shard_id;
};

struct DescribeStreamRequest {
  std::string stream_arn;
  std::optional<int64_t> limit;  // shards, 1..100
  std::optional<std::string> exclusive_start_shard_id;
  // ShardFilter {Type: CHILD_SHARDS, ShardId}: only that shard's children.
  std::optional<std::string> child_shards_of;
};
struct DescribeStreamResponse {
  StreamDescription stream_description;
};

enum class ShardIteratorType : uint8_t {
  kTrimHorizon,
  kLatest,
  kAtSequenceNumber,
  kAfterSequenceNumber,
};

struct GetShardIteratorRequest {
  std::string stream_arn;
  std::string shard_id;
  ShardIteratorType shard_iterator_type = ShardIteratorType::kTrimHorizon;
  std::optional<std::string> sequence_number;
};
struct GetShardIteratorResponse {
  std::optional<std::string> shard_iterator;
};

struct GetRecordsRequest {
  std::string shard_iterator;
  std::optional<int64_t> limit;  // 1..1000
};
struct GetRecordsResponse {
  std::vector<StreamRecord> records;
  // Absent once a closed shard has been read to its end.
  std::optional<std::string> next_shard_iterator;
};

// Where an embedded subscription starts: the oldest record kept, the next
// record written, or the record after a saved sequence number (a position
// saved from StreamRecord::sequence_number resumes after a restart).
struct SubscribeOptions {
  enum class Start : uint8_t { kTrimHorizon, kLatest, kAfterSequenceNumber };
  Start start = Start::kLatest;
  std::string after_sequence_number;
};

// Called on the subscription's own thread, once per record, in the order of
// the table's stream (and so in the order of each item's writes).
using StreamHandler = std::function<void(const StreamRecord& record)>;

// A running subscription; destroying it stops it (after the handler call in
// progress, if any, returns). A slow handler falls behind: it never blocks
// writers.
class Subscription {
 public:
  virtual ~Subscription() = default;
  // The sequence number of the last record delivered ("" before the first).
  virtual std::string position() const = 0;
  // Stops delivering; returns once the handler is no longer running.
  virtual void Cancel() = 0;
};

}  // namespace dynarock

#endif  // DYNAROCK_STREAMS_H_
