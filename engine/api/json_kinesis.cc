// File: engine/api/json_kinesis.cc

#include "engine/api/json_kinesis.h"

#include "engine/api/json_decoder.h"
#include "engine/api/json_writer.h"

namespace dynarock::api {
namespace {

using namespace json_internal;  // NOLINT: the decoder machinery
namespace dom = simdjson::dom;

constexpr std::string_view kPrecision[] = {"MILLISECOND", "MICROSECOND"};

// TableName and StreamArn (37 to 1024 characters), both required.
void TableAndStream(Decoder& d, const dom::object& o, KinesisStreamingDestinationRequest* r) {
  d.TableName(o, &r->table_name);
  if (!d.ReqStr(o, "StreamArn", &r->stream_arn)) return;
  if (r->stream_arn.size() < 37) {
    d.Violation("Value '" + r->stream_arn + "' at '" + d.PathTo("StreamArn") +
                "' failed to satisfy constraint: Member must have length greater than or equal to 37");
  } else if (r->stream_arn.size() > 1024) {
    d.Violation("Value '" + r->stream_arn + "' at '" + d.PathTo("StreamArn") +
                "' failed to satisfy constraint: Member must have length less than or equal to 1024");
  }
}

void Configuration(Decoder& d, const dom::object& o, std::string_view member,
                   std::string_view path, KinesisStreamingDestinationRequest* r) {
  dom::object c;
  if (!d.Obj(o, member, &c)) return;
  r->configuration = true;
  Decoder::Scope scope(&d, path);
  d.Enum(c, "ApproximateCreationDateTimePrecision", kPrecision, &r->precision);
}

void WriteConfiguration(JsonWriter* w, std::string_view member,
                        const KinesisStreamingDestinationResponse& r) {
  if (!r.configuration) return;
  w->Key(member);
  w->BeginObject();
  if (r.precision) w->Member("ApproximateCreationDateTimePrecision", *r.precision);
  w->EndObject();
}

std::string EncodeChange(const KinesisStreamingDestinationResponse& r, std::string_view member) {
  JsonWriter w;
  w.BeginObject();
  w.Member("TableName", r.table_name);
  w.Member("StreamArn", r.stream_arn);
  w.Member("DestinationStatus", r.destination_status);
  WriteConfiguration(&w, member, r);
  w.EndObject();
  return w.Release();
}

}  // namespace

StatusOr<KinesisStreamingDestinationRequest> DecodeEnableKinesisStreamingDestinationRequest(
    std::string_view body) {
  return DecodeBody<KinesisStreamingDestinationRequest>(
      body, [](Decoder& d, const dom::object& o, KinesisStreamingDestinationRequest* r) {
        TableAndStream(d, o, r);
        Configuration(d, o, "EnableKinesisStreamingConfiguration",
                      "enableKinesisStreamingConfiguration", r);
      });
}

StatusOr<KinesisStreamingDestinationRequest> DecodeUpdateKinesisStreamingDestinationRequest(
    std::string_view body) {
  return DecodeBody<KinesisStreamingDestinationRequest>(
      body, [](Decoder& d, const dom::object& o, KinesisStreamingDestinationRequest* r) {
        TableAndStream(d, o, r);
        Configuration(d, o, "UpdateKinesisStreamingConfiguration",
                      "updateKinesisStreamingConfiguration", r);
      });
}

StatusOr<DescribeKinesisStreamingDestinationRequest> DecodeDescribeKinesisStreamingDestinationRequest(
    std::string_view body) {
  return DecodeBody<DescribeKinesisStreamingDestinationRequest>(
      body, [](Decoder& d, const dom::object& o, DescribeKinesisStreamingDestinationRequest* r) {
        d.TableName(o, &r->table_name);
      });
}

std::string EncodeEnableKinesisStreamingDestinationResponse(const KinesisStreamingDestinationResponse& r) {
  return EncodeChange(r, "EnableKinesisStreamingConfiguration");
}

std::string EncodeUpdateKinesisStreamingDestinationResponse(const KinesisStreamingDestinationResponse& r) {
  return EncodeChange(r, "UpdateKinesisStreamingConfiguration");
}

std::string EncodeDescribeKinesisStreamingDestinationResponse(
    const DescribeKinesisStreamingDestinationResponse& r) {
  JsonWriter w;
  w.BeginObject();
  w.Member("TableName", r.table_name);
  w.Key("KinesisDataStreamDestinations");
  w.BeginArray();
  for (const KinesisDataStreamDestination& d : r.destinations) {
    w.BeginObject();
    w.Member("StreamArn", d.stream_arn);
    w.Member("DestinationStatus", d.destination_status);
    if (d.destination_status_description) {
      w.Member("DestinationStatusDescription", *d.destination_status_description);
    }
    if (d.precision) w.Member("ApproximateCreationDateTimePrecision", *d.precision);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return w.Release();
}

}  // namespace dynarock::api
