// File: engine/api/json_insights.cc

#include "engine/api/json_insights.h"

#include "engine/api/json_decoder.h"
#include "engine/api/json_writer.h"

namespace dynarock::api {
namespace {

using namespace json_internal;  // NOLINT: the decoder machinery
namespace dom = simdjson::dom;

constexpr std::string_view kAction[] = {"ENABLE", "DISABLE"};
constexpr std::string_view kMode[] = {"ACCESSED_AND_THROTTLED_KEYS", "THROTTLED_KEYS"};

void TableAndIndex(Decoder& d, const dom::object& o, std::string* table,
                   std::optional<std::string>* index) {
  d.TableName(o, table);
  std::string name;
  if (d.Name(o, "IndexName", &name, /*required=*/false)) *index = std::move(name);
}

}  // namespace

StatusOr<DescribeContributorInsightsRequest> DecodeDescribeContributorInsightsRequest(std::string_view body) {
  return DecodeBody<DescribeContributorInsightsRequest>(
      body, [](Decoder& d, const dom::object& o, DescribeContributorInsightsRequest* r) {
        TableAndIndex(d, o, &r->table_name, &r->index_name);
      });
}

StatusOr<ListContributorInsightsRequest> DecodeListContributorInsightsRequest(std::string_view body) {
  return DecodeBody<ListContributorInsightsRequest>(
      body, [](Decoder& d, const dom::object& o, ListContributorInsightsRequest* r) {
        d.OptTableName(o, &r->table_name);
        d.Str(o, "NextToken", &r->next_token);
        d.Int(o, "MaxResults", "Integer", INT32_MIN, 100, &r->max_results);
      });
}

StatusOr<UpdateContributorInsightsRequest> DecodeUpdateContributorInsightsRequest(std::string_view body) {
  return DecodeBody<UpdateContributorInsightsRequest>(
      body, [](Decoder& d, const dom::object& o, UpdateContributorInsightsRequest* r) {
        TableAndIndex(d, o, &r->table_name, &r->index_name);
        d.Enum(o, "ContributorInsightsAction", kAction, &r->action, /*required=*/true);
        d.Enum(o, "ContributorInsightsMode", kMode, &r->mode);
      });
}

std::string EncodeDescribeContributorInsightsResponse(const DescribeContributorInsightsResponse& r,
                                                      std::string_view top) {
  JsonWriter w;
  w.BeginObject();
  w.Member("TableName", r.table_name);
  if (r.index_name) w.Member("IndexName", *r.index_name);
  if (!r.rule_list.empty()) {
    w.Key("ContributorInsightsRuleList");
    w.BeginArray();
    for (const std::string& rule : r.rule_list) w.String(rule);
    w.EndArray();
  }
  w.Member("ContributorInsightsStatus", r.status);
  if (r.last_update_date_time) w.MemberDouble("LastUpdateDateTime", *r.last_update_date_time);
  if (r.mode) w.Member("ContributorInsightsMode", *r.mode);
  if (!top.empty()) {
    w.Key("DynarockTopContributors");
    w.Raw(top);
  }
  w.EndObject();
  return w.Release();
}

std::string EncodeListContributorInsightsResponse(const ListContributorInsightsResponse& r) {
  JsonWriter w;
  w.BeginObject();
  w.Key("ContributorInsightsSummaries");
  w.BeginArray();
  for (const ContributorInsightsSummary& s : r.summaries) {
    w.BeginObject();
    w.Member("TableName", s.table_name);
    if (s.index_name) w.Member("IndexName", *s.index_name);
    w.Member("ContributorInsightsStatus", s.status);
    if (s.mode) w.Member("ContributorInsightsMode", *s.mode);
    w.EndObject();
  }
  w.EndArray();
  if (r.next_token) w.Member("NextToken", *r.next_token);
  w.EndObject();
  return w.Release();
}

std::string EncodeUpdateContributorInsightsResponse(const UpdateContributorInsightsResponse& r) {
  JsonWriter w;
  w.BeginObject();
  w.Member("TableName", r.table_name);
  if (r.index_name) w.Member("IndexName", *r.index_name);
  w.Member("ContributorInsightsStatus", r.status);
  if (r.mode) w.Member("ContributorInsightsMode", *r.mode);
  w.EndObject();
  return w.Release();
}

}  // namespace dynarock::api
