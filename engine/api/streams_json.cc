#include "engine/api/streams_json.h"

#include <cmath>

#include "engine/api/json_decoder.h"
#include "engine/api/json_encode.h"

namespace dynarock::api {
namespace {

using namespace json_internal;  // NOLINT: the decoder machinery
namespace dom = simdjson::dom;

// In the order DynamoDB Streams lists them in its messages.
constexpr std::string_view kShardIteratorType[] = {"TRIM_HORIZON", "LATEST", "AT_SEQUENCE_NUMBER",
                                                   "AFTER_SEQUENCE_NUMBER"};
constexpr std::string_view kShardFilterType[] = {"CHILD_SHARDS"};

ShardIteratorType ToShardIteratorType(std::string_view s) {
  if (s == "LATEST") return ShardIteratorType::kLatest;
  if (s == "AT_SEQUENCE_NUMBER") return ShardIteratorType::kAtSequenceNumber;
  if (s == "AFTER_SEQUENCE_NUMBER") return ShardIteratorType::kAfterSequenceNumber;
  return ShardIteratorType::kTrimHorizon;
}

// Limit as the Streams front end reads it: an integer; its range is the
// engine's to check (it words it for each operation).
void LimitMember(Decoder& d, const dom::object& o, std::optional<int64_t>* out) {
  d.Int(o, "Limit", "Integer", INT32_MIN, INT32_MAX, out);
}

}  // namespace

StatusOr<ListStreamsRequest> DecodeListStreamsRequest(std::string_view body) {
  return DecodeBody<ListStreamsRequest>(
      body, [](Decoder& d, const dom::object& o, ListStreamsRequest* r) {
        d.Str(o, "TableName", &r->table_name);
        LimitMember(d, o, &r->limit);
        d.Str(o, "ExclusiveStartStreamArn", &r->exclusive_start_stream_arn);
      });
}

StatusOr<DescribeStreamRequest> DecodeDescribeStreamRequest(std::string_view body) {
  return DecodeBody<DescribeStreamRequest>(
      body, [](Decoder& d, const dom::object& o, DescribeStreamRequest* r) {
        if (!d.Str(o, "StreamArn", &r->stream_arn) && !d.failed()) d.Missing("StreamArn");
        LimitMember(d, o, &r->limit);
        d.Str(o, "ExclusiveStartShardId", &r->exclusive_start_shard_id);
        dom::object filter;
        if (d.Obj(o, "ShardFilter", &filter)) {
          Decoder::Scope scope(&d, "shardFilter");
          std::string type, shard;
          d.Enum(filter, "Type", kShardFilterType, &type, /*required=*/true);
          if (!d.Str(filter, "ShardId", &shard) && !d.failed()) d.Missing("ShardId");
          r->child_shards_of = shard;
        }
      });
}

StatusOr<GetShardIteratorRequest> DecodeGetShardIteratorRequest(std::string_view body) {
  return DecodeBody<GetShardIteratorRequest>(
      body, [](Decoder& d, const dom::object& o, GetShardIteratorRequest* r) {
        if (!d.Str(o, "StreamArn", &r->stream_arn) && !d.failed()) d.Missing("StreamArn");
        if (!d.Str(o, "ShardId", &r->shard_id) && !d.failed()) d.Missing("ShardId");
        std::string type;
        if (d.Enum(o, "ShardIteratorType", kShardIteratorType, &type, /*required=*/true)) {
          r->shard_iterator_type = ToShardIteratorType(type);
        }
        d.Str(o, "SequenceNumber", &r->sequence_number);
      });
}

StatusOr<GetRecordsRequest> DecodeGetRecordsRequest(std::string_view body) {
  return DecodeBody<GetRecordsRequest>(
      body, [](Decoder& d, const dom::object& o, GetRecordsRequest* r) {
        if (!d.Str(o, "ShardIterator", &r->shard_iterator) && !d.failed()) {
          d.Missing("ShardIterator");
        }
        LimitMember(d, o, &r->limit);
      });
}

std::string EncodeListStreamsResponse(const ListStreamsResponse& r) {
  JsonWriter w;
  w.BeginObject();
  w.Key("Streams");
  w.BeginArray();
  for (const auto& s : r.streams) {
    w.BeginObject();
    w.Member("StreamArn", s.stream_arn);
    w.Member("TableName", s.table_name);
    w.Member("StreamLabel", s.stream_label);
    w.EndObject();
  }
  w.EndArray();
  if (r.last_evaluated_stream_arn) w.Member("LastEvaluatedStreamArn", *r.last_evaluated_stream_arn);
  w.EndObject();
  return w.Release();
}

std::string EncodeDescribeStreamResponse(const DescribeStreamResponse& r) {
  const StreamDescription& d = r.stream_description;
  JsonWriter w;
  w.BeginObject();
  w.Key("StreamDescription");
  w.BeginObject();
  w.Member("StreamArn", d.stream_arn);
  w.Member("StreamLabel", d.stream_label);
  w.Member("StreamStatus", d.stream_status);
  w.Member("StreamViewType", d.stream_view_type);
  w.MemberDouble("CreationRequestDateTime", d.creation_request_date_time);
  w.Member("TableName", d.table_name);
  WriteKeySchema(&w, d.key_schema);
  w.Key("Shards");
  w.BeginArray();
  for (const Shard& s : d.shards) {
    w.BeginObject();
    w.Member("ShardId", s.shard_id);
    w.Key("SequenceNumberRange");
    w.BeginObject();
    if (s.sequence_number_range.starting_sequence_number) {
      w.Member("StartingSequenceNumber", *s.sequence_number_range.starting_sequence_number);
    }
    if (s.sequence_number_range.ending_sequence_number) {
      w.Member("EndingSequenceNumber", *s.sequence_number_range.ending_sequence_number);
    }
    w.EndObject();
    if (s.parent_shard_id) w.Member("ParentShardId", *s.parent_shard_id);
    w.EndObject();
  }
  w.EndArray();
  if (d.last_evaluated_shard_id) w.Member("LastEvaluatedShardId", *d.last_evaluated_shard_id);
  w.EndObject();
  w.EndObject();
  return w.Release();
}

std::string EncodeGetShardIteratorResponse(const GetShardIteratorResponse& r) {
  JsonWriter w;
  w.BeginObject();
  if (r.shard_iterator) w.Member("ShardIterator", *r.shard_iterator);
  w.EndObject();
  return w.Release();
}

void WriteStreamRecord(JsonWriter* w, const StreamRecord& r) {
  w->BeginObject();
  w->Member("eventID", r.event_id);
  w->Member("eventName", r.event_name);
  w->Member("eventVersion", r.event_version);
  w->Member("eventSource", r.event_source);
  w->Member("awsRegion", r.aws_region);
  w->Key("dynamodb");
  w->BeginObject();
  // Whole seconds, rounded down, as DynamoDB Streams reports it.
  w->MemberInt("ApproximateCreationDateTime",
               static_cast<int64_t>(std::floor(r.approximate_creation_date_time)));
  w->Key("Keys");
  WriteItem(w, r.keys);
  if (r.new_image) {
    w->Key("NewImage");
    WriteItem(w, *r.new_image);
  }
  if (r.old_image) {
    w->Key("OldImage");
    WriteItem(w, *r.old_image);
  }
  w->Member("SequenceNumber", r.sequence_number);
  w->MemberInt("SizeBytes", r.size_bytes);
  w->Member("StreamViewType", r.stream_view_type);
  w->EndObject();
  if (r.by_time_to_live) {
    w->Key("userIdentity");
    w->BeginObject();
    w->Member("PrincipalId", "dynamodb.amazonaws.com");
    w->Member("Type", "Service");
    w->EndObject();
  }
  w->EndObject();
}

std::string EncodeStreamRecordJson(const StreamRecord& r) {
  JsonWriter w;
  WriteStreamRecord(&w, r);
  return w.Release();
}

std::string EncodeGetRecordsResponse(const GetRecordsResponse& r) {
  JsonWriter w;
  w.Reserve(256 + r.records.size() * 256);
  w.BeginObject();
  w.Key("Records");
  w.BeginArray();
  for (const StreamRecord& rec : r.records) WriteStreamRecord(&w, rec);
  w.EndArray();
  if (r.next_shard_iterator) w.Member("NextShardIterator", *r.next_shard_iterator);
  w.EndObject();
  return w.Release();
}

}  // namespace dynarock::api
