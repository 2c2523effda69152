// File: engine/table_update_validation.cc
//
// UpdateTable's checks and what it changes in a table's description (see
// table_validation.h): the request's own shape (CheckUpdateTableRequest), its
// index creations, updates and deletions (ApplyIndexUpdates), and the rest of
// the table's settings (ValidateUpdateTable). CreateTable's are in
// table_validation.cc; the checks both share in table_checks.cc.

#include <algorithm>
#include <set>

#include "engine/limits.h"
#include "engine/table_checks.h"
#include "engine/table_validation.h"

namespace dynarock {

using namespace table_checks;

namespace {

Status ApplyIndexUpdates(const UpdateTableRequest& req, TableInfo* info) {
  const auto& updates = req.global_secondary_index_updates;
  bool in_progress = false;
  for (const auto& ix : info->indexes) in_progress |= ix.status != "ACTIVE";
  bool creates_or_deletes = false;
  for (const auto& u : updates) creates_or_deletes |= u.create || u.delete_index_name;
  if (creates_or_deletes && (updates.size() > 1 || in_progress)) {
    return Status(ErrorType::kLimitExceeded,
                  "Subscriber limit exceeded: Only 1 online index can be created or deleted "
                  "simultaneously per table");
  }
  for (const auto& u : updates) {
    int actions = u.create.has_value() + u.delete_index_name.has_value() + u.update.has_value();
    if (actions != 1) {
      return Invalid("One and only one of Create, Update or Delete must be specified in a "
                     "GlobalSecondaryIndexUpdate");
    }
    if (u.create) {
      const GlobalSecondaryIndex& gsi = *u.create;
      ConstraintErrors errors;
      errors.CheckName(gsi.index_name, "globalSecondaryIndexUpdates.member.create.indexName");
      DR_RETURN_IF_ERROR(errors.ToStatus());
      if (info->FindIndex(gsi.index_name)) {
        return ValidationError("Attempting to create an index which already exists");
      }
      size_t globals = 0;
      for (const auto& ix : info->indexes) globals += ix.global;
      if (globals >= static_cast<size_t>(kGlobalSecondaryIndexesMax)) {
        return Status(ErrorType::kLimitExceeded,
                      "One or more parameter values were invalid: GlobalSecondaryIndex count "
                      "exceeds the per-table limit of 20");
      }
      // The request's definitions join the table's; an attribute a key schema
      // still uses keeps its type (a deleted index's attributes are free).
      std::vector<AttributeDefinition> defs = UsedDefinitions(*info);
      for (const auto& d : req.attribute_definitions) {
        bool known = false;
        for (const auto& e : defs) {
          if (e.attribute_name != d.attribute_name) continue;
          known = true;
          if (e.attribute_type != d.attribute_type) {
            return Invalid("Cannot update attribute " + d.attribute_name +
                           ". This attribute is part of an existing key schema with a different "
                           "type");
          }
        }
        if (!known) defs.push_back(d);
      }
      ConstraintErrors members;
      CheckIndexMembers(gsi.key_schema, gsi.projection,
                        "globalSecondaryIndexUpdates.member.create", &members);
      DR_RETURN_IF_ERROR(members.ToStatus());
      DR_RETURN_IF_ERROR(CheckKeysDefined(gsi.key_schema, defs));
      DR_RETURN_IF_ERROR(CheckKeySchema(gsi.key_schema, defs, /*multi_attribute=*/true));
      DR_RETURN_IF_ERROR(CheckProjection(gsi.projection, gsi.index_name));
      IndexInfo ix;
      ix.name = gsi.index_name;
      ix.global = true;
      ix.key_schema = gsi.key_schema;
      ix.key = KeyDefFor(gsi.key_schema, defs);
      ix.projection = gsi.projection;
      ix.status = "CREATING";
      if (info->billing_mode == "PROVISIONED") {
        if (!gsi.provisioned_throughput) {
          return Invalid("ProvisionedThroughput is not specified for index: " + gsi.index_name);
        }
        ix.throughput = gsi.provisioned_throughput;
      } else if (gsi.provisioned_throughput) {
        return Invalid("ProvisionedThroughput should not be specified for index: " +
                       gsi.index_name + " when BillingMode is PAY_PER_REQUEST");
      }
      if (gsi.on_demand_throughput) {
        DR_RETURN_IF_ERROR(CheckOnDemandThroughput(*gsi.on_demand_throughput, info->billing_mode,
                                                   /*update=*/true, gsi.index_name));
        ApplyOnDemandThroughput(*gsi.on_demand_throughput, &ix.on_demand_throughput);
      }
      if (gsi.warm_throughput) {
        DR_RETURN_IF_ERROR(ApplyWarmThroughput(*gsi.warm_throughput, "index " + gsi.index_name,
                                               &ix.warm_read, &ix.warm_write));
      }
      info->attribute_definitions = std::move(defs);
      info->indexes.push_back(std::move(ix));
      DR_RETURN_IF_ERROR(CheckProjectedTotal(info->indexes));
    } else if (u.delete_index_name) {
      auto it = std::find_if(info->indexes.begin(), info->indexes.end(), [&](const IndexInfo& ix) {
        return ix.global && ix.name == *u.delete_index_name;
      });
      if (it == info->indexes.end()) {
        return ResourceNotFound("Requested resource not found: Index: " + *u.delete_index_name +
                                " not found");
      }
      info->indexes.erase(it);
    } else {
      const UpdateGlobalSecondaryIndexAction& a = *u.update;
      auto it = std::find_if(info->indexes.begin(), info->indexes.end(), [&](const IndexInfo& ix) {
        return ix.global && ix.name == a.index_name;
      });
      if (it == info->indexes.end()) {
        return ResourceNotFound("Requested resource not found: Index: " + a.index_name +
                                " not found");
      }
      if (a.provisioned_throughput) {
        if (info->billing_mode == "PAY_PER_REQUEST") {
          return Invalid("ProvisionedThroughput should not be specified for index: " +
                         a.index_name + " when BillingMode is PAY_PER_REQUEST");
        }
        it->throughput = a.provisioned_throughput;
      }
      if (a.on_demand_throughput) {
        DR_RETURN_IF_ERROR(CheckOnDemandThroughput(*a.on_demand_throughput, info->billing_mode,
                                                   /*update=*/true, a.index_name));
        ApplyOnDemandThroughput(*a.on_demand_throughput, &it->on_demand_throughput);
      }
      if (a.warm_throughput) {
        const WarmThroughputDescription now = DescribeWarmThroughput(it->warm_read, it->warm_write, it->throughput);
        DR_RETURN_IF_ERROR(ApplyWarmThroughput(*a.warm_throughput, "index " + a.index_name,
                                               &it->warm_read, &it->warm_write, &now));
      }
    }
  }
  // Like DynamoDB, keep exactly the definitions the key schemas use: a deleted
  // index's go, unused ones given with a Create are dropped.
  info->attribute_definitions = UsedDefinitions(*info);
  return Status();
}


// An UpdateTable that asks for nothing, or for what the table already has.
Status NothingToUpdate() {
  return ValidationError(
      "At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, "
      "GlobalSecondaryIndexUpdates or SSESpecification or ReplicaUpdates is required");
}

}  // namespace

Status CheckUpdateTableRequest(const UpdateTableRequest& req) {
  if (req.global()) {
    for (const WitnessUpdate& u : req.witness_updates) {
      if (u.members != 1) {
        return Invalid(u.members == 0 ? "One of GlobalTableWitnessGroupUpdate.Create, "
                                        "GlobalTableWitnessGroupUpdate.Delete must not be null"
                                      : "Only one of GlobalTableWitnessGroupUpdate.Create, "
                                        "GlobalTableWitnessGroupUpdate.Delete may be set");
      }
    }
    if (req.witness_updates.size() > 1) {
      return ValidationError("Only one witness can be created or deleted in one UpdateTable request");
    }
    for (const ReplicaUpdate& u : req.replica_updates) {
      if (u.members != 1) {
        return Invalid(u.members == 0 ? "One of ReplicationGroupUpdate.Create, ReplicationGroupUpdate.Update, "
                                        "ReplicationGroupUpdate.Delete must not be null"
                                      : "Only one of ReplicationGroupUpdate.Create, ReplicationGroupUpdate.Update, "
                                        "ReplicationGroupUpdate.Delete may be set");
      }
    }
    // DynamoDB's words (captured from its documentation's error list).
    if (req.provisioned_throughput || req.billing_mode || req.on_demand_throughput ||
        !req.global_secondary_index_updates.empty() || req.stream_specification ||
        req.deletion_protection_enabled || req.sse_specification || req.warm_throughput || req.table_class) {
      return ValidationError("Replica modification must be the only operation in the request");
    }
    return Status();
  }
  if (req.provisioned_throughput) {
    ConstraintErrors errors;
    CheckThroughput(*req.provisioned_throughput, "provisionedThroughput", &errors);
    DR_RETURN_IF_ERROR(errors.ToStatus());
    DR_RETURN_IF_ERROR(CheckThroughputBounds(*req.provisioned_throughput));
  }
  std::set<std::string> updated;
  for (const auto& u : req.global_secondary_index_updates) {
    const int set = u.create.has_value() + u.delete_index_name.has_value() + u.update.has_value();
    if (set != 1) {
      return Invalid(set == 0 ? "One of GlobalSecondaryIndexUpdate.Update, "
                                "GlobalSecondaryIndexUpdate.Create, "
                                "GlobalSecondaryIndexUpdate.Delete must not be null"
                              : "Only one of GlobalSecondaryIndexUpdate.Update, "
                                "GlobalSecondaryIndexUpdate.Create, "
                                "GlobalSecondaryIndexUpdate.Delete may be set");
    }
    const std::string& name = u.create ? u.create->index_name
                              : u.update ? u.update->index_name
                                         : *u.delete_index_name;
    if (u.update && !u.update->provisioned_throughput && !u.update->on_demand_throughput &&
        !u.update->warm_throughput) {
      // The member DynamoDB required before OnDemandThroughput existed, and
      // still names (captured) when neither is given.
      return ValidationError("1 validation error detected: Value null at "
                             "'globalSecondaryIndexUpdates.member.update.provisionedThroughput' "
                             "failed to satisfy constraint: Member must not be null");
    }
    if (u.update && u.update->provisioned_throughput) {
      DR_RETURN_IF_ERROR(CheckThroughputBounds(*u.update->provisioned_throughput, name));
    }
    if (!updated.insert(name).second) {
      return Invalid("Only one global secondary index update per index is allowed "
                     "simultaneously. Index: " + name);
    }
  }
  if (!req.provisioned_throughput && !req.billing_mode && req.global_secondary_index_updates.empty() &&
      !req.stream_specification && !req.deletion_protection_enabled && !req.on_demand_throughput &&
      !req.sse_specification && !req.warm_throughput && !req.table_class) {
    return NothingToUpdate();
  }
  return Status();
}

Status ValidateUpdateTable(const UpdateTableRequest& req, TableInfo* info, double now) {
  if (req.provisioned_throughput) {
    ConstraintErrors errors;
    CheckThroughput(*req.provisioned_throughput, "provisionedThroughput", &errors);
    DR_RETURN_IF_ERROR(errors.ToStatus());
  }
  bool changed = false;
  std::string billing = req.billing_mode.value_or(info->billing_mode);
  if (billing != "PROVISIONED" && billing != "PAY_PER_REQUEST") {
    return ValidationError("1 validation error detected: Value '" + billing +
                           "' at 'billingMode' failed to satisfy constraint: Member must satisfy "
                           "enum value set: [PROVISIONED, PAY_PER_REQUEST]");
  }
  if (billing == "PAY_PER_REQUEST" && req.provisioned_throughput) {
    return Invalid("Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when "
                   "BillingMode is PAY_PER_REQUEST");
  }
  if (billing != info->billing_mode) {
    if (billing == "PROVISIONED" && !req.provisioned_throughput) {
      return Invalid("ReadCapacityUnits and WriteCapacityUnits must both be specified when "
                     "BillingMode is PROVISIONED");
    }
    if (billing == "PROVISIONED") {
      // Every GSI needs its own throughput, given by an Update in the same call.
      std::vector<std::string> missing;
      for (const auto& ix : info->indexes) {
        if (!ix.global) continue;
        bool given = false;
        for (const auto& u : req.global_secondary_index_updates) {
          given |= u.update.has_value() && u.update->index_name == ix.name &&
                   u.update->provisioned_throughput.has_value();
        }
        if (!given) missing.push_back(ix.name);
      }
      if (!missing.empty()) {
        std::string names;
        for (size_t i = 0; i < missing.size(); ++i) names += (i ? "," : "") + missing[i];
        return Invalid("ProvisionedThroughput must be specified for index: " + names);
      }
    }
    info->billing_mode = billing;
    if (billing == "PAY_PER_REQUEST") {
      info->pay_per_request_since = now;
      info->throughput = ProvisionedThroughput{};
      for (auto& ix : info->indexes) ix.throughput.reset();
    } else {
      // A PROVISIONED table keeps no on-demand maximums, and they do not
      // come back when it returns to PAY_PER_REQUEST (captured).
      info->on_demand_throughput.reset();
      for (auto& ix : info->indexes) ix.on_demand_throughput.reset();
    }
    changed = true;
  }
  if (req.provisioned_throughput) {
    if (billing == "PROVISIONED" && !req.billing_mode &&
        req.provisioned_throughput->read_capacity_units == info->throughput.read_capacity_units &&
        req.provisioned_throughput->write_capacity_units == info->throughput.write_capacity_units) {
      return ValidationError(
          "The provisioned throughput for the table will not change. The requested value equals "
          "the current value. Current ReadCapacityUnits provisioned for the table: " +
          std::to_string(info->throughput.read_capacity_units) +
          ". Requested ReadCapacityUnits: " +
          std::to_string(req.provisioned_throughput->read_capacity_units) +
          ". Current WriteCapacityUnits provisioned for the table: " +
          std::to_string(info->throughput.write_capacity_units) +
          ". Requested WriteCapacityUnits: " +
          std::to_string(req.provisioned_throughput->write_capacity_units) +
          ". Refer to the Amazon DynamoDB Developer Guide for current limits and how to request "
          "higher limits.");
    }
    info->throughput = *req.provisioned_throughput;
    changed = true;
  }
  if (req.on_demand_throughput) {
    DR_RETURN_IF_ERROR(CheckOnDemandThroughput(*req.on_demand_throughput, billing, /*update=*/true));
    ApplyOnDemandThroughput(*req.on_demand_throughput, &info->on_demand_throughput);
    changed = true;
  }
  if (req.deletion_protection_enabled) {
    info->deletion_protection = *req.deletion_protection_enabled;
    changed = true;
  }
  if (req.stream_specification) {
    const bool was_enabled =
        info->stream_specification && info->stream_specification->stream_enabled;
    if (req.stream_specification->stream_enabled && was_enabled) {
      return ValidationError("Table already has an enabled stream: TableName: " + info->name);
    }
    if (req.stream_specification->stream_enabled &&
        req.stream_specification->stream_view_type.empty()) {
      return Invalid("If stream is being enabled then UpdateViewType is required");
    }
    if (!req.stream_specification->stream_enabled) {
      if (!req.stream_specification->stream_view_type.empty()) {
        return Invalid("If stream is being disabled, then UpdateViewType must not be specified");
      }
      if (!was_enabled) return ValidationError("Table has no stream to disable: TableName: " + info->name);
    }
    if (req.stream_specification->stream_enabled) {
      info->stream_label = StreamLabel(now);
      info->stream_specification = req.stream_specification;
    } else {
      info->stream_specification.reset();  // as DynamoDB describes a table without a stream
    }
    changed = true;
  }
  if (!req.global_secondary_index_updates.empty()) {
    DR_RETURN_IF_ERROR(ApplyIndexUpdates(req, info));
    changed = true;
  }
  if (req.warm_throughput) {
    const WarmThroughputDescription now = DescribeWarmThroughput(
        info->warm_read, info->warm_write,
        info->billing_mode == "PROVISIONED" ? std::optional<ProvisionedThroughput>(info->throughput)
                                            : std::nullopt);
    DR_RETURN_IF_ERROR(ApplyWarmThroughput(*req.warm_throughput, "table " + info->name,
                                           &info->warm_read, &info->warm_write, &now));
    changed = true;
  }
  if (req.table_class) {
    if (*req.table_class == info->table_class.value_or("STANDARD")) {
      return Invalid("Table class cannot be updated to the same value as the current table class");
    }
    info->table_class = *req.table_class;
    info->table_class_updated = now;
    changed = true;
  }
  if (req.sse_specification) changed = true;  // applied by the caller (it knows the region)
  if (!changed) {
    return NothingToUpdate();
  }
  return Status();
}

}  // namespace dynarock
