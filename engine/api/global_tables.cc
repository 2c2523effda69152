// File: engine/api/global_tables.cc

#include "engine/api/global_tables.h"

#include "engine/api/json_decoder.h"
#include "engine/api/json_writer.h"
#include "engine/table_validation.h"

namespace dynarock::api {
namespace {

using namespace json_internal;  // NOLINT: the decoder machinery
namespace dom = simdjson::dom;

constexpr char kLegacy[] =
    "One or more parameter values were invalid: DynamoDB global tables version 2017.11.29 is "
    "not supported. We recommend using DynamoDB global tables version 2019.11.21, instead of "
    "version 2017.11.29 (Legacy).";

Status GroupNotFound(const std::string& name, bool describe) {
  return Status(ErrorType::kGlobalTableNotFound,
                std::string(describe ? "Global table not found: " : "") + "Global table with name: '" +
                    name + "' does not exist.");
}

// A GlobalTableName: required, with the table-name rules.
void GroupName(Decoder& d, const dom::object& o, std::string* name) {
  d.Name(o, "GlobalTableName", name, /*required=*/true);
}

struct Group {
  std::string name;
  bool creates = false;  // UpdateGlobalTable: a Create among its ReplicaUpdates
  bool empty_updates = false;
};

StatusOr<Group> DecodeGroup(std::string_view op, std::string_view body) {
  return DecodeBody<Group>(body, [op](Decoder& d, const dom::object& o, Group* g) {
    GroupName(d, o, &g->name);
    if (op == "CreateGlobalTable") {
      d.EachObject(o, "ReplicationGroup", /*required=*/true, [&](const dom::object& r) {
        std::string region;
        d.ReqStr(r, "RegionName", &region);
      });
    } else if (op == "UpdateGlobalTable") {
      size_t n = 0;
      d.EachObject(o, "ReplicaUpdates", /*required=*/true, [&](const dom::object& u) {
        ++n;
        dom::object action;
        if (d.Obj(u, "Create", &action)) g->creates = true;
      });
      g->empty_updates = !d.failed() && n == 0;
    }
  });
}

struct AutoScaling {
  std::string table;
};

}  // namespace

StatusOr<std::string> HandleGlobalTableOperation(DB* db, std::string_view op, std::string_view body,
                                                 const std::string& region) {
  if (op == "ListGlobalTables") {
    struct List {
      std::optional<std::string> start, region;
      std::optional<int64_t> limit;
    };
    DR_ASSIGN_OR_RETURN(List l, DecodeBody<List>(body, [](Decoder& d, const dom::object& o, List* r) {
      std::string start;
      if (d.Name(o, "ExclusiveStartGlobalTableName", &start, /*required=*/false)) r->start = start;
      d.Str(o, "RegionName", &r->region);
      d.Int(o, "Limit", "Integer", 1, INT32_MAX, &r->limit);
    }));
    return std::string(R"({"GlobalTables":[]})");
  }
  if (op == "DescribeTableReplicaAutoScaling" || op == "UpdateTableReplicaAutoScaling") {
    DR_ASSIGN_OR_RETURN(AutoScaling a, DecodeBody<AutoScaling>(
                                           body, [](Decoder& d, const dom::object& o, AutoScaling* r) {
                                             d.TableName(o, &r->table);
                                           }));
    auto described = db->DescribeTable({a.table});
    if (!described.ok() || described->table.replicas.empty()) {
      return ResourceNotFound("Global table with name: '" + std::string(TableNameOf(a.table)) +
                              "' does not exist.");
    }
    const TableDescription& t = described->table;
    if (op == "UpdateTableReplicaAutoScaling") {
      // Global tables here are on demand (replicas of provisioned tables are
      // refused, as DynamoDB refuses them without auto scaling).
      return ValidationError("Table " + t.table_name +
                             " is in PAY_PER_REQUEST (on-demand) mode: it has no capacity to auto scale");
    }
    // Every replica, this region's first: "arn:aws:dynamodb:<region>:<account>:table/<name>".
    std::string own = region;
    size_t at = own.empty() ? 0 : std::string::npos;
    for (int colons = 0; colons < 3 && at != std::string::npos; ++colons) at = t.table_arn.find(':', at + 1);
    // (the ARN's region is the endpoint's --region in every namespace, so the namespace's comes first)
    if (at != std::string::npos) own = t.table_arn.substr(at + 1, t.table_arn.find(':', at + 1) - at - 1);
    std::vector<std::string> regions{own};
    for (const ReplicaDescription& r : t.replicas) regions.push_back(r.region_name);
    JsonWriter w;
    w.BeginObject();
    w.Key("TableAutoScalingDescription");
    w.BeginObject();
    w.Member("TableName", t.table_name);
    w.Member("TableStatus", t.table_status);
    w.Key("Replicas");
    w.BeginArray();
    for (const std::string& region : regions) {
      w.BeginObject();
      w.Member("RegionName", region);
      w.Key("GlobalSecondaryIndexes");
      w.BeginArray();
      for (const IndexDescription& ix : t.global_secondary_indexes) {
        w.BeginObject();
        w.Member("IndexName", ix.index_name);
        w.Member("IndexStatus", ix.index_status);
        w.EndObject();
      }
      w.EndArray();
      w.Member("ReplicaStatus", "ACTIVE");
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
    w.EndObject();
    return w.str();
  }
  DR_ASSIGN_OR_RETURN(Group g, DecodeGroup(op, body));
  if (op == "CreateGlobalTable") return ValidationError(kLegacy);
  if (op == "UpdateGlobalTable") {
    if (g.empty_updates) return ValidationError("One or more parameter values were invalid");
    if (g.creates) return ValidationError(kLegacy);
    return GroupNotFound(g.name, /*describe=*/false);
  }
  return GroupNotFound(g.name, /*describe=*/op == "DescribeGlobalTable");
}

}  // namespace dynarock::api
