// File: engine/contributor_insights.cc
//
// Contributor Insights' settings (DescribeContributorInsights,
// ListContributorInsights, UpdateContributorInsights): per table and GSI,
// whether DynamoDB's rules are on, in which mode, since when, and the rules'
// names, kept in the table's catalog record (TableInfo::insights). The keys
// themselves are counted by the endpoint that serves the requests
// (engine/api/contributor_insights.h): the engine does not see who throttles.
//
// As on DynamoDB: ENABLE answers ENABLING and DISABLE DISABLING (the change is
// made at once, so the next Describe says ENABLED or DISABLED); asking for the
// state a table is in already answers that state and changes nothing. A table
// or GSI never configured is DISABLED with nothing else; once configured,
// Describe keeps its mode and LastUpdateDateTime. The rules are
// DynamoDBContributorInsights-{PKC,PKT,SKC,SKT}-<table>[-<index>]-<ms>: most
// accessed and most throttled partition keys, and the same for whole keys when
// there is a sort key; THROTTLED_KEYS keeps only the throttled ones.

#include <algorithm>
#include <set>

#include "engine/change_log.h"
#include "engine/db_impl.h"
#include "engine/table_validation.h"

namespace dynarock {
namespace {

constexpr char kAccessedAndThrottled[] = "ACCESSED_AND_THROTTLED_KEYS";

Status IndexNotFound(std::string_view index, std::string_view table) {
  return ResourceNotFound("Requested resource not found: Index: " + std::string(index) +
                          " not found for table: " + std::string(table));
}

// The GSI `index` of `table` (LSIs have no insights of their own), or null.
const IndexInfo* InsightsIndex(const TableInfo& table, std::string_view index) {
  const IndexInfo* ix = table.FindIndex(index);
  return ix != nullptr && ix->global ? ix : nullptr;
}

std::vector<std::string> RuleNames(const TableInfo& table, std::string_view index,
                                   const TableInfo::Insights& in) {
  bool sort_key = table.key.has_range();
  std::string resource = table.name;
  if (!index.empty()) {
    const IndexInfo* ix = InsightsIndex(table, index);
    sort_key = ix != nullptr && !ix->key.range.empty();
    resource += "-" + std::string(index);
  }
  const bool accessed = in.mode != "THROTTLED_KEYS";
  std::vector<std::string> kinds;
  if (accessed) kinds.push_back("PKC");
  kinds.push_back("PKT");
  if (sort_key) {
    if (accessed) kinds.push_back("SKC");
    kinds.push_back("SKT");
  }
  std::vector<std::string> out;
  for (const std::string& k : kinds) {
    out.push_back("DynamoDBContributorInsights-" + k + "-" + resource + "-" + std::to_string(in.rules_ms));
  }
  return out;
}

}  // namespace

StatusOr<UpdateContributorInsightsResponse> DBImpl::UpdateContributorInsights(
    const UpdateContributorInsightsRequest& req) {
  DR_RETURN_IF_ERROR(ValidateTableName(req.table_name, "tableName"));
  const std::string index = req.index_name.value_or("");
  const std::string mode = req.mode.value_or(kAccessedAndThrottled);
  const bool enable = req.action == "ENABLE";
  UpdateContributorInsightsResponse resp;
  resp.table_name = std::string(TableNameOf(req.table_name));
  resp.index_name = req.index_name;
  const double now = change_log_->Now();
  DR_RETURN_IF_ERROR(AlterTable(TableNameOf(req.table_name), TableNotFound(req.table_name),
                                [&](TableInfo* info) -> Status {
    if (!index.empty() && InsightsIndex(*info, index) == nullptr) return IndexNotFound(index, info->name);
    auto it = info->insights.find(index);
    const bool configured = it != info->insights.end();
    TableInfo::Insights in = configured ? it->second : TableInfo::Insights{};
    if (!enable) {
      // DISABLE answers with the mode in force, whatever it names.
      resp.status = in.enabled ? "DISABLING" : "DISABLED";
      if (configured) resp.mode = in.mode;
      if (!in.enabled) return Status();
      in.enabled = false;
      in.updated = now;
      info->insights[index] = std::move(in);
      return Status();
    }
    if (info->settling == "CREATING" && now < info->settles_at) {
      return ValidationError("Table or Index is not in a valid state to update Key Access Insights: "
                             "TableStatus must be ACTIVE to enable ContributorInsights.");
    }
    if (!index.empty() && InsightsIndex(*info, index)->status != "ACTIVE") {
      return ValidationError("Table or Index is not in a valid state to update Key Access Insights: "
                             "IndexStatus must be ACTIVE to enable ContributorInsights.");
    }
    resp.mode = mode;
    if (in.enabled && in.mode == mode) {
      resp.status = "ENABLED";
      return Status();
    }
    // New rules when turned on; a change of mode keeps the ones that stay.
    // (Later than the rules before, even within one millisecond: an
    // endpoint's counts start again with new rules.)
    if (!in.enabled) in.rules_ms = std::max(static_cast<int64_t>(now * 1000), in.rules_ms + 1);
    in.enabled = true;
    in.mode = mode;
    in.updated = now;
    info->insights[index] = std::move(in);
    resp.status = "ENABLING";
    return Status();
  }));
  return resp;
}

StatusOr<DescribeContributorInsightsResponse> DBImpl::DescribeContributorInsights(
    const DescribeContributorInsightsRequest& req) {
  DR_RETURN_IF_ERROR(ValidateTableName(req.table_name, "tableName"));
  auto found = FindAnyTable(req.table_name);
  if (!found.ok() || !(*found)->loading.empty()) return TableNotFound(req.table_name);
  const TableInfo& table = **found;
  const std::string index = req.index_name.value_or("");
  if (!index.empty() && InsightsIndex(table, index) == nullptr) return IndexNotFound(index, table.name);
  DescribeContributorInsightsResponse resp;
  resp.table_name = table.name;
  resp.index_name = req.index_name;
  resp.status = "DISABLED";
  auto it = table.insights.find(index);
  if (it == table.insights.end()) return resp;
  const TableInfo::Insights& in = it->second;
  resp.mode = in.mode;
  resp.last_update_date_time = in.updated;
  if (in.enabled) {
    resp.status = "ENABLED";
    resp.rule_list = RuleNames(table, index, in);
  }
  return resp;
}

StatusOr<ListContributorInsightsResponse> DBImpl::ListContributorInsights(
    const ListContributorInsightsRequest& req) {
  if (req.table_name) DR_RETURN_IF_ERROR(ValidateTableName(*req.table_name, "tableName"));
  const int64_t max = req.max_results.value_or(100);
  if (max > 100) {
    return ValidationError("1 validation error detected: Value '" + std::to_string(max) +
                           "' at 'maxResults' failed to satisfy constraint: Member must have value "
                           "less than or equal to 100");
  }
  // Every entry not DISABLED, table by table (by name), each table before its
  // GSIs (in their order); the token is the last entry given, "table/index".
  std::vector<TableInfoPtr> tables;
  if (req.table_name) {
    auto found = FindAnyTable(*req.table_name);
    if (!found.ok() || !(*found)->loading.empty()) return TableNotFound(*req.table_name);
    tables.push_back(*found);
  } else {
    std::shared_lock lock(catalog_mu_);
    for (const auto& [name, table] : tables_) {
      if (table->loading.empty()) tables.push_back(table);
    }
  }
  ListContributorInsightsResponse resp;
  bool past_token = !req.next_token.has_value();
  const size_t limit = max <= 0 ? 100 : static_cast<size_t>(max);
  for (const TableInfoPtr& t : tables) {
    std::vector<std::string> order = {""};
    for (const IndexInfo& ix : t->indexes) {
      if (ix.global) order.push_back(ix.name);
    }
    for (const std::string& index : order) {
      auto it = t->insights.find(index);
      if (it == t->insights.end() || !it->second.enabled) continue;
      const std::string position = t->name + "/" + index;
      if (!past_token) {
        past_token = position == *req.next_token;
        continue;
      }
      if (resp.summaries.size() == limit) {
        resp.next_token = resp.summaries.back().table_name + "/" +
                          resp.summaries.back().index_name.value_or("");
        return resp;
      }
      ContributorInsightsSummary sum;
      sum.table_name = t->name;
      if (!index.empty()) sum.index_name = index;
      sum.status = "ENABLED";
      sum.mode = it->second.mode;
      resp.summaries.push_back(std::move(sum));
    }
  }
  if (!past_token) return ValidationError("Invalid NextToken: " + *req.next_token);
  return resp;
}

}  // namespace dynarock
