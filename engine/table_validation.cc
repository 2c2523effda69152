// File: engine/table_validation.cc
//
// CreateTable's checks and the table it describes (see table_validation.h),
// table names, tags and stream labels. UpdateTable's are in
// table_update_validation.cc; the checks both share in table_checks.cc.

#include "engine/table_validation.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <cstdio>
#include <cctype>
#include <set>

#include "engine/table_checks.h"

namespace dynarock {

using namespace table_checks;

namespace {

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-';
}

}  // namespace

// A stream's label: its creation time, ISO 8601 with milliseconds
// ("2026-11-22T17:30:05.123"), as DynamoDB labels streams.
std::string StreamLabel(double epoch_seconds) {
  const int64_t ms = std::llround(epoch_seconds * 1000);
  std::time_t t = static_cast<std::time_t>(ms / 1000);
  std::tm tm;
  gmtime_r(&t, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03d", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(ms % 1000));
  return buf;
}

void ConstraintErrors::CheckName(std::string_view name, std::string_view field) {
  bool pattern_ok = !name.empty();
  for (char c : name) pattern_ok &= IsNameChar(c);
  if (pattern_ok && name.size() >= 3 && name.size() <= 255) return;  // the usual case: no strings
  std::string prefix = "Value '" + std::string(name) + "' at '" + std::string(field) +
                       "' failed to satisfy constraint: Member must ";
  if (!pattern_ok) Add(prefix + "satisfy regular expression pattern: [a-zA-Z0-9_.-]+");
  if (name.size() < 3) Add(prefix + "have length greater than or equal to 3");
  if (name.size() > 255) Add(prefix + "have length less than or equal to 255");
}

Status ConstraintErrors::ToStatus() const {
  if (violations_.empty()) return Status();
  std::string msg = std::to_string(violations_.size()) + " validation error" +
                    (violations_.size() > 1 ? "s" : "") + " detected: ";
  for (size_t i = 0; i < violations_.size(); ++i) {
    if (i) msg += "; ";
    msg += violations_[i];
  }
  return ValidationError(std::move(msg));
}

std::string_view TableNameOf(std::string_view name_or_arn) {
  if (name_or_arn.substr(0, 4) != "arn:") return name_or_arn;
  size_t slash = name_or_arn.find(":table/");
  if (slash == std::string_view::npos) return name_or_arn;
  std::string_view rest = name_or_arn.substr(slash + 7);
  return rest.substr(0, rest.find('/'));
}

Status TableNotFound(std::string_view name_or_arn) {
  return ResourceNotFound("Requested resource not found: Table: " +
                          std::string(TableNameOf(name_or_arn)) + " not found");
}

void ConstraintErrors::CheckTableName(std::string_view name, std::string_view field) {
  if (name.substr(0, 4) == "arn:" && name.size() <= 1024 && TableNameOf(name) != name) {
    CheckName(TableNameOf(name), field);
  } else {
    CheckName(name, field);
  }
}

Status ValidateTableName(std::string_view name, std::string_view field) {
  ConstraintErrors errors;
  errors.CheckTableName(name, field);
  return errors.ToStatus();
}

// ---------------------------------------------------------------- tags

namespace {

constexpr size_t kTagKeyCharsMax = 128;
constexpr size_t kTagValueCharsMax = 256;

// Characters in UTF-8 (code points), for the tag length limits.
size_t Utf8Chars(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// Tag keys and values: Unicode letters, digits and white space, plus + - = . _ : / @
// (DynamoDB's tagging restrictions). Non-ASCII bytes are taken as letters.
bool TagCharsOk(std::string_view s) {
  for (unsigned char c : s) {
    if (c >= 0x80 || std::isalnum(c) || std::isspace(c)) continue;
    if (std::string_view("+-=._:/@").find(static_cast<char>(c)) == std::string_view::npos) {
      return false;
    }
  }
  return true;
}

}  // namespace

Status CheckTags(const std::vector<Tag>& tags, std::string_view field) {
  ConstraintErrors errors;
  for (size_t i = 0; i < tags.size(); ++i) {
    const Tag& t = tags[i];
    const std::string at = std::string(field) + "." + std::to_string(i + 1) + ".member.";
    size_t key_chars = Utf8Chars(t.key), value_chars = Utf8Chars(t.value);
    if (key_chars < 1) {
      errors.Add("Value '' at '" + at + "key' failed to satisfy constraint: Member must have "
                 "length greater than or equal to 1");
    } else if (key_chars > kTagKeyCharsMax) {
      errors.Add("Value '" + t.key + "' at '" + at + "key' failed to satisfy constraint: Member "
                 "must have length less than or equal to 128");
    }
    if (value_chars > kTagValueCharsMax) {
      errors.Add("Value '" + t.value + "' at '" + at + "value' failed to satisfy constraint: "
                 "Member must have length less than or equal to 256");
    }
  }
  DR_RETURN_IF_ERROR(errors.ToStatus());
  for (const Tag& t : tags) {
    if (!TagCharsOk(t.key) || !TagCharsOk(t.value)) {
      return ValidationError("One or more parameter values were invalid: Tag keys and values may "
                             "contain only Unicode letters, digits, white space and + - = . _ : / "
                             "@; got key '" + t.key + "'");
    }
    std::string prefix = t.key.substr(0, 4);
    std::transform(prefix.begin(), prefix.end(), prefix.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (prefix == "aws:") {
      return ValidationError("One or more parameter values were invalid: The tag key '" + t.key +
                             "' uses the prefix aws:, which is reserved for AWS use");
    }
  }
  return Status();
}

Status MergeTags(const std::vector<Tag>& tags, TableInfo* info) {
  for (const Tag& t : tags) {
    auto it = std::find_if(info->tags.begin(), info->tags.end(),
                           [&](const Tag& x) { return x.key == t.key; });
    if (it != info->tags.end()) {
      it->value = t.value;
    } else {
      info->tags.push_back(t);
    }
  }
  if (info->tags.size() > static_cast<size_t>(kTagsPerResourceMax)) {
    return ValidationError("One or more parameter values were invalid: The number of tags on "
                           "the resource would exceed the maximum of 50 (" +
                           std::to_string(info->tags.size()) + ")");
  }
  std::sort(info->tags.begin(), info->tags.end(),
            [](const Tag& a, const Tag& b) { return a.key < b.key; });
  return Status();
}

StatusOr<TableInfo> ValidateCreateTable(const CreateTableRequest& req, double now) {
  ConstraintErrors errors;
  errors.CheckName(req.table_name, "tableName");
  if (req.key_schema.empty()) {
    errors.Add("Value '[]' at 'keySchema' failed to satisfy constraint: Member must have length "
               "greater than or equal to 1");
  } else if (req.key_schema.size() > 2) {
    std::string value = "[";
    for (size_t i = 0; i < req.key_schema.size(); ++i) {
      const auto& e = req.key_schema[i];
      if (i) value += ", ";
      value += "KeySchemaElement(attributeName=" + e.attribute_name + ", keyType=" +
               (e.key_type == KeyType::kHash ? "HASH" : "RANGE") + ")";
    }
    errors.Add("Value '" + value + "]' at 'keySchema' failed to satisfy constraint: Member must "
               "have length less than or equal to 2");
  }
  // Key and definition attribute names: 1 to 255 bytes.
  auto check_attribute_name = [&](const std::string& name, const std::string& field) {
    if (name.empty()) {
      errors.Add("Value '' at '" + field + "' failed to satisfy constraint: Member must have "
                 "length greater than or equal to 1");
    } else if (name.size() > kKeyAttributeNameBytesMax) {
      errors.Add("Value '" + name + "' at '" + field + "' failed to satisfy constraint: Member "
                 "must have length less than or equal to " +
                 std::to_string(kKeyAttributeNameBytesMax));
    }
  };
  for (size_t i = 0; i < req.key_schema.size(); ++i) {
    check_attribute_name(req.key_schema[i].attribute_name,
                         "keySchema." + std::to_string(i + 1) + ".member.attributeName");
  }
  for (size_t i = 0; i < req.attribute_definitions.size(); ++i) {
    check_attribute_name(req.attribute_definitions[i].attribute_name,
                         "attributeDefinitions." + std::to_string(i + 1) + ".member.attributeName");
  }
  if (req.provisioned_throughput) CheckThroughput(*req.provisioned_throughput, "provisionedThroughput", &errors);
  DR_RETURN_IF_ERROR(errors.ToStatus());
  if (req.provisioned_throughput) DR_RETURN_IF_ERROR(CheckThroughputBounds(*req.provisioned_throughput));

  const auto& defs = req.attribute_definitions;
  {
    std::set<std::string> seen;
    for (const auto& d : defs) {
      if (d.attribute_type != AttrType::kS && d.attribute_type != AttrType::kN &&
          d.attribute_type != AttrType::kB) {
        return ValidationError("1 validation error detected: Value '" +
                               std::string(AttrTypeName(d.attribute_type)) +
                               "' at 'attributeDefinitions' failed to satisfy constraint: Member "
                               "must satisfy enum value set: [B, N, S]");
      }
      if (!seen.insert(d.attribute_name).second) {
        return Invalid("Duplicate AttributeName in AttributeDefinitions: " + d.attribute_name);
      }
    }
  }
  // DynamoDB words an undefined table key attribute two ways: "Invalid
  // KeySchema" when there are fewer definitions than key attributes, otherwise
  // it lists both. An index's undefined key is reported with that index's keys.
  if (req.key_schema.size() > defs.size()) {
    return ValidationError("Invalid KeySchema: Some index key attribute have no definition");
  }
  DR_RETURN_IF_ERROR(CheckKeysDefined(req.key_schema, defs));
  DR_RETURN_IF_ERROR(CheckKeySchema(req.key_schema, defs));

  TableInfo info;
  info.name = req.table_name;
  info.key_schema = req.key_schema;
  info.attribute_definitions = defs;
  info.key = KeyDefFor(req.key_schema, defs);

  // Billing mode and throughput.
  std::string billing = req.billing_mode.value_or("PROVISIONED");
  if (billing != "PROVISIONED" && billing != "PAY_PER_REQUEST") {
    return ValidationError("1 validation error detected: Value '" + billing +
                           "' at 'billingMode' failed to satisfy constraint: Member must satisfy "
                           "enum value set: [PROVISIONED, PAY_PER_REQUEST]");
  }
  info.billing_mode = billing;
  if (billing == "PROVISIONED") {
    if (!req.provisioned_throughput) {
      return Invalid("ReadCapacityUnits and WriteCapacityUnits must both be specified when "
                     "BillingMode is PROVISIONED");
    }
    info.throughput = *req.provisioned_throughput;
  } else if (req.provisioned_throughput) {
    return Invalid("Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when "
                   "BillingMode is PAY_PER_REQUEST");
  }
  if (req.on_demand_throughput) {
    DR_RETURN_IF_ERROR(CheckOnDemandThroughput(*req.on_demand_throughput, billing, /*update=*/false));
    ApplyOnDemandThroughput(*req.on_demand_throughput, &info.on_demand_throughput);
  }

  // Indexes.
  std::set<std::string> used_attributes;
  for (const auto& e : req.key_schema) used_attributes.insert(e.attribute_name);
  std::set<std::string> index_names;
  if (req.has_local_secondary_indexes && req.local_secondary_indexes.empty()) {
    return Invalid("List of LocalSecondaryIndexes is empty");
  }
  if (req.has_global_secondary_indexes && req.global_secondary_indexes.empty()) {
    return Invalid("List of GlobalSecondaryIndexes is empty");
  }
  if (!req.local_secondary_indexes.empty()) {
    if (!info.key.has_range()) {
      return Invalid("Table KeySchema does not have a range key, which is required when "
                     "specifying a LocalSecondaryIndex");
    }
    if (req.local_secondary_indexes.size() > static_cast<size_t>(kLocalSecondaryIndexesMax)) {
      return Invalid("Number of LocalSecondaryIndexes exceeds per-table limit of 5");
    }
  }
  // A ValidationException at creation (captured from DynamoDB).
  if (req.global_secondary_indexes.size() > static_cast<size_t>(kGlobalSecondaryIndexesMax)) {
    return Invalid("GlobalSecondaryIndex count exceeds the per-table limit of 20");
  }
  auto add_index = [&](const std::string& name, const std::vector<KeySchemaElement>& ks,
                       const Projection& projection, bool global,
                       const std::optional<ProvisionedThroughput>& throughput,
                       const std::optional<OnDemandThroughput>& on_demand) -> Status {
    ConstraintErrors ie;
    const std::string field = global ? "globalSecondaryIndexes.member" : "localSecondaryIndexes.member";
    ie.CheckName(name, field + ".indexName");
    CheckIndexMembers(ks, projection, field, &ie);
    DR_RETURN_IF_ERROR(ie.ToStatus());
    if (!index_names.insert(name).second) return Invalid("Duplicate index name: " + name);
    DR_RETURN_IF_ERROR(CheckKeysDefined(ks, defs));
    DR_RETURN_IF_ERROR(CheckKeySchema(ks, defs, global));
    if (!global && ks.size() != 2) {
      return Invalid("Index KeySchema does not have a range key for index: " + name);
    }
    if (!global && ks[0].attribute_name != info.key.hash_name()) {
      return Invalid("Index KeySchema does not have the same leading hash key as table "
                     "KeySchema for index: " + name + ". index hash key: " +
                     ks[0].attribute_name + ", table hash key: " + info.key.hash_name());
    }
    DR_RETURN_IF_ERROR(CheckProjection(projection, name));
    IndexInfo ix;
    ix.name = name;
    ix.global = global;
    ix.key_schema = ks;
    ix.key = KeyDefFor(ks, defs);
    ix.projection = projection;
    ix.status = "ACTIVE";
    if (global) {
      if (billing == "PROVISIONED") {
        if (!throughput) {
          return Invalid("ProvisionedThroughput is not specified for index: " + name);
        }
        ConstraintErrors te;
        CheckThroughput(*throughput, "globalSecondaryIndexes.member.provisionedThroughput", &te);
        DR_RETURN_IF_ERROR(te.ToStatus());
        ix.throughput = throughput;
      } else if (throughput) {
        return Invalid("ProvisionedThroughput should not be specified for index: " + name +
                       " when BillingMode is PAY_PER_REQUEST");
      }
      if (on_demand) {
        DR_RETURN_IF_ERROR(CheckOnDemandThroughput(*on_demand, billing, /*update=*/false, name));
        ApplyOnDemandThroughput(*on_demand, &ix.on_demand_throughput);
      }
    }
    for (const auto& e : ks) used_attributes.insert(e.attribute_name);
    info.indexes.push_back(std::move(ix));
    return Status();
  };
  for (const auto& lsi : req.local_secondary_indexes) {
    DR_RETURN_IF_ERROR(add_index(lsi.index_name, lsi.key_schema, lsi.projection, false,
                                 std::nullopt, std::nullopt));
  }
  for (const auto& gsi : req.global_secondary_indexes) {
    DR_RETURN_IF_ERROR(add_index(gsi.index_name, gsi.key_schema, gsi.projection, true,
                                 gsi.provisioned_throughput, gsi.on_demand_throughput));
  }
  DR_RETURN_IF_ERROR(CheckProjectedTotal(info.indexes));

  if (used_attributes.size() != defs.size()) {
    if (info.indexes.empty()) {
      return Invalid("Number of attributes in KeySchema does not exactly match number of "
                     "attributes defined in AttributeDefinitions");
    }
    std::vector<std::string> def_names, used(used_attributes.begin(), used_attributes.end());
    for (const auto& d : defs) def_names.push_back(d.attribute_name);
    std::sort(def_names.begin(), def_names.end());
    return Invalid("Some AttributeDefinitions are not used. AttributeDefinitions: " +
                   JoinNames(def_names) + ", keys used: " + JoinNames(used));
  }

  if (req.stream_specification && !req.stream_specification->stream_enabled &&
      !req.stream_specification->stream_view_type.empty()) {
    return Invalid("Table is being created with a stream disabled, UpdateViewType should not be "
                   "specified");
  }
  if (req.stream_specification && req.stream_specification->stream_enabled &&
      req.stream_specification->stream_view_type.empty()) {
    return Invalid("Table is being created with a stream enabled, UpdateViewType is required");
  }
  // A disabled stream is not part of the description.
  if (req.stream_specification && req.stream_specification->stream_enabled) {
    info.stream_specification = req.stream_specification;
  }
  if (info.stream_specification && info.stream_specification->stream_enabled) {
    info.stream_label = StreamLabel(now);
  }
  info.table_class = req.table_class;
  info.deletion_protection = req.deletion_protection_enabled.value_or(false);
  DR_RETURN_IF_ERROR(CheckTags(req.tags, "tags"));
  std::set<std::string_view> tag_keys;
  for (const Tag& t : req.tags) {
    if (!tag_keys.insert(t.key).second) {
      return Invalid("Duplicate tag key: " + t.key);
    }
  }
  DR_RETURN_IF_ERROR(MergeTags(req.tags, &info));
  return info;
}

Status ApplySseSpecification(const SseSpecification& s, std::string_view member,
                             std::string_view kms_arn_prefix, TableInfo* info) {
  if (!s.enabled.value_or(false)) {
    if (s.kms_master_key_id) {
      return Invalid("KMSMasterKeyId can only be specified when SSE is enabled and SSEType is KMS");
    }
    info->sse_type.reset();
    info->kms_key_arn.reset();
    return Status();
  }
  const std::string type = s.sse_type.value_or("KMS");
  if (type != "KMS" && type != "AES256") {
    return ValidationError("1 validation error detected: Value '" + type + "' at '" +
                           std::string(member) +
                           ".sSEType' failed to satisfy constraint: Member must satisfy enum value "
                           "set: [AES256, KMS]");
  }
  std::string key = s.kms_master_key_id.value_or("alias/aws/dynamodb");
  if (key.empty()) return Invalid("KMSMasterKeyId must not be empty");
  if (key.rfind("arn:", 0) != 0) {
    key = std::string(kms_arn_prefix) + (key.rfind("alias/", 0) == 0 ? "" : "key/") + key;
  }
  info->sse_type = type;
  info->kms_key_arn = std::move(key);
  return Status();
}

Status ApplyWarmThroughput(const WarmThroughput& w, const std::string& what,
                           std::optional<int64_t>* read, std::optional<int64_t>* write,
                           const WarmThroughputDescription* current) {
  if (!w.read_units_per_second && !w.write_units_per_second) {
    return Invalid("WarmThroughput for " + what +
                   " needs ReadUnitsPerSecond, WriteUnitsPerSecond or both");
  }
  auto apply = [&](const std::optional<int64_t>& asked, std::optional<int64_t>* now, int64_t floor,
                   const char* name) -> Status {
    if (!asked) return Status();
    if (*asked < floor) {
      return Invalid("Requested " + std::string(name) + " " + std::to_string(*asked) +
                     " for WarmThroughput of " + what + " is lower than its current value " +
                     std::to_string(floor) + ": warm throughput cannot be decreased");
    }
    *now = *asked;
    return Status();
  };
  DR_RETURN_IF_ERROR(apply(w.read_units_per_second, read,
                           current ? current->read_units_per_second : 0, "ReadUnitsPerSecond"));
  return apply(w.write_units_per_second, write, current ? current->write_units_per_second : 0,
               "WriteUnitsPerSecond");
}

Status ApplyCreateTableSettings(const CreateTableRequest& req, std::string_view kms_arn_prefix,
                                TableInfo* info) {
  if (req.sse_specification) {
    DR_RETURN_IF_ERROR(ApplySseSpecification(*req.sse_specification, "sSESpecification", kms_arn_prefix, info));
  }
  if (req.warm_throughput) {
    DR_RETURN_IF_ERROR(ApplyWarmThroughput(*req.warm_throughput, "table " + info->name, &info->warm_read,
                                           &info->warm_write));
  }
  for (const GlobalSecondaryIndex& g : req.global_secondary_indexes) {
    if (!g.warm_throughput) continue;
    for (IndexInfo& ix : info->indexes) {
      if (ix.global && ix.name == g.index_name) {
        DR_RETURN_IF_ERROR(ApplyWarmThroughput(*g.warm_throughput, "index " + ix.name, &ix.warm_read,
                                               &ix.warm_write));
      }
    }
  }
  return Status();
}

WarmThroughputDescription DescribeWarmThroughput(std::optional<int64_t> read, std::optional<int64_t> write,
                                                 const std::optional<ProvisionedThroughput>& provisioned) {
  WarmThroughputDescription d;
  d.read_units_per_second = std::max<int64_t>(12000, read.value_or(0));
  d.write_units_per_second = std::max<int64_t>(4000, write.value_or(0));
  if (provisioned) {
    d.read_units_per_second = std::max(d.read_units_per_second, provisioned->read_capacity_units);
    d.write_units_per_second = std::max(d.write_units_per_second, provisioned->write_capacity_units);
  }
  return d;
}

}  // namespace dynarock
