#include "engine/table_validation.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <cstdio>
#include <cctype>
#include <set>

namespace dynarock {
namespace {

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-';
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out = "[";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) out += ", ";
    out += names[i];
  }
  return out + "]";
}

Status Invalid(std::string message) {
  return ValidationError("One or more parameter values were invalid: " + std::move(message));
}


// The attribute definitions the table's and its indexes' key schemas use, in
// the order the table lists them.
std::vector<AttributeDefinition> UsedDefinitions(const TableInfo& info) {
  auto used = [&](const std::string& name) {
    for (const auto& e : info.key_schema)
      if (e.attribute_name == name) return true;
    for (const auto& ix : info.indexes)
      for (const auto& e : ix.key_schema)
        if (e.attribute_name == name) return true;
    return false;
  };
  std::vector<AttributeDefinition> out;
  for (const auto& d : info.attribute_definitions)
    if (used(d.attribute_name)) out.push_back(d);
  return out;
}

// "Some index key attributes are not defined in AttributeDefinitions. Keys:
// [<this schema's keys>], AttributeDefinitions: [<definitions, in order>]".
Status CheckKeysDefined(const std::vector<KeySchemaElement>& ks,
                        const std::vector<AttributeDefinition>& defs) {
  std::vector<std::string> keys, def_names;
  bool undefined = false;
  for (const auto& e : ks) {
    keys.push_back(e.attribute_name);
    bool found = false;
    for (const auto& d : defs) found |= d.attribute_name == e.attribute_name;
    undefined |= !found;
  }
  if (!undefined) return Status();
  for (const auto& d : defs) def_names.push_back(d.attribute_name);
  return Invalid("Some index key attributes are not defined in AttributeDefinitions. Keys: " +
                 JoinNames(keys) + ", AttributeDefinitions: " + JoinNames(def_names));
}

// The NonKeyAttributes of all a table's indexes count together against the
// limit of 100 (an attribute projected into two indexes counts twice).
Status CheckProjectedTotal(const std::vector<IndexInfo>& indexes) {
  size_t total = 0;
  for (const auto& ix : indexes) total += ix.projection.non_key_attributes.size();
  if (total > static_cast<size_t>(kProjectedAttributesMax)) {
    return Status(ErrorType::kLimitExceeded,
                  "One or more parameter values were invalid: Number of projected attributes in "
                  "all indexes exceeds limit of 100");
  }
  return Status();
}

// Validates a key schema against the attribute definitions. A table's or an
// LSI's key is one HASH attribute and at most one RANGE attribute; a GSI's
// (`multi_attribute`) up to four HASH attributes followed by up to four RANGE
// attributes, all distinct.
Status CheckKeySchema(const std::vector<KeySchemaElement>& ks,
                      const std::vector<AttributeDefinition>& defs, bool multi_attribute = false) {
  if (ks.empty() || (!multi_attribute && ks.size() > 2)) {
    return ValidationError("Invalid KeySchema: Too many key schema elements");
  }
  if (ks[0].key_type != KeyType::kHash) {
    return ValidationError("Invalid KeySchema: The first KeySchemaElement is not a HASH key type");
  }
  if (!multi_attribute && ks.size() == 2) {
    if (ks[0].attribute_name == ks[1].attribute_name) {
      return ValidationError(
          "Both the Hash Key and the Range Key element in the KeySchema have the same name");
    }
    if (ks[1].key_type != KeyType::kRange) {
      return ValidationError(
          "Invalid KeySchema: The second KeySchemaElement is not a RANGE key type");
    }
  }
  size_t hash_count = 0, range_count = 0;
  for (const auto& e : ks) {
    if (e.key_type == KeyType::kHash) {
      if (range_count > 0) {
        return Invalid("All HASH key attributes must precede RANGE key attributes in the "
                       "KeySchema");
      }
      ++hash_count;
    } else {
      ++range_count;
    }
  }
  if (hash_count > static_cast<size_t>(kIndexKeyAttributesMax)) {
    return Invalid("The KeySchema exceeds the maximum allowed number of HASH key attributes");
  }
  if (range_count > static_cast<size_t>(kIndexKeyAttributesMax)) {
    return Invalid("The KeySchema exceeds the maximum allowed number of RANGE key attributes");
  }
  for (size_t i = 0; i < ks.size(); ++i) {
    for (size_t j = i + 1; j < ks.size(); ++j) {
      if (ks[i].attribute_name != ks[j].attribute_name) continue;
      if (ks.size() == 2 && ks[1].key_type == KeyType::kRange) {
        return ValidationError(
            "Both the Hash Key and the Range Key element in the KeySchema have the same name");
      }
      return ValidationError("Two keys can not have the same name");
    }
  }
  for (const auto& e : ks) {
    bool defined = false;
    for (const auto& d : defs) defined |= d.attribute_name == e.attribute_name;
    if (!defined) return ValidationError("Invalid KeySchema: Some index key attribute have no definition");
  }
  return Status();
}

void CheckThroughput(const ProvisionedThroughput& t, std::string_view field,
                     ConstraintErrors* errors) {
  if (t.read_capacity_units < 1) {
    errors->Add("Value '" + std::to_string(t.read_capacity_units) + "' at '" + std::string(field) +
                ".readCapacityUnits' failed to satisfy constraint: Member must have value "
                "greater than or equal to 1");
  }
  if (t.write_capacity_units < 1) {
    errors->Add("Value '" + std::to_string(t.write_capacity_units) + "' at '" +
                std::string(field) +
                ".writeCapacityUnits' failed to satisfy constraint: Member must have value "
                "greater than or equal to 1");
  }
}

// Capacity units beyond what DynamoDB accepts at all (its account limits are
// far lower): "Given value N for ReadCapacityUnits is out of bounds[ for index X]".
Status CheckThroughputBounds(const ProvisionedThroughput& t, const std::string& index = "") {
  constexpr int64_t kMax = 1000000000000;
  const std::string suffix = index.empty() ? "" : " for index " + index;
  if (t.read_capacity_units > kMax) {
    return ValidationError("Given value " + std::to_string(t.read_capacity_units) +
                           " for ReadCapacityUnits is out of bounds" + suffix);
  }
  if (t.write_capacity_units > kMax) {
    return ValidationError("Given value " + std::to_string(t.write_capacity_units) +
                           " for WriteCapacityUnits is out of bounds" + suffix);
  }
  return Status();
}

// ---- on-demand maximums (OnDemandThroughput)
//
// The API reference: a request gives MaxReadRequestUnits, MaxWriteRequestUnits
// or both, each at least 1, or -1 to remove the maximum set; a GSI uses
// "either OnDemandThroughput or ProvisionedThroughput based on your table's
// capacity mode". What the reference leaves open is taken from captures of the
// service quoted in public issue reports (nubo-db/dynoxide#159 and #161,
// go-to-k/cdkd#3403): maximums given while the table is, or becomes,
// PROVISIONED are refused, naming the first member given, before any value
// is checked; an update merges member by member; switching a table to
// PROVISIONED drops its and its indexes' maximums. The out-of-range wording
// is DynamoDB Local's. Two choices differ from those captures: an
// OnDemandThroughput with neither member is refused (the reference's "must
// specify"; the service ignores it on CreateTable and fails with
// InternalFailure on UpdateTable), and -1 is accepted on CreateTable, where
// it sets no maximum (as DynamoDB Local does; the captures report the
// service refusing it there).

// Checks `t` for the table (`index` empty) or one of its GSIs whose billing
// mode is, or is becoming, `billing`; `update`: UpdateTable's wording.
Status CheckOnDemandThroughput(const OnDemandThroughput& t, const std::string& billing,
                               bool update, const std::string& index = "") {
  const auto& read = t.max_read_request_units;
  const auto& write = t.max_write_request_units;
  if (!read && !write) {
    return Invalid("OnDemandThroughput" + (index.empty() ? "" : " for index " + index) +
                   " must specify MaxReadRequestUnits, MaxWriteRequestUnits, or both");
  }
  if (billing == "PROVISIONED") {
    // The captured wordings: CreateTable's has no "the" and ends with a full
    // stop. An index's names the index (Dynarock's words).
    return Invalid(std::string(read ? "MaxReadRequestUnits" : "MaxWriteRequestUnits") +
                   " for OnDemandThroughput cannot be specified " +
                   (index.empty() ? "" : "for index: " + index + " ") + "when " +
                   (update ? "the table BillingMode is PROVISIONED"
                           : "table BillingMode is PROVISIONED."));
  }
  for (const auto& [member, value] : {std::pair{"MaxReadRequestUnits", read},
                                      std::pair{"MaxWriteRequestUnits", write}}) {
    // -1 removes a maximum: an update's word only (captured: CreateTable
    // refuses it as out of range).
    if (value && *value < 1 && (!update || *value != -1)) {
      return Invalid(std::string("Requested ") + member + " for OnDemandThroughput for " +
                     (index.empty() ? "table" : "index : " + index) +
                     " is outside of valid range");
    }
  }
  return Status();
}

// Merges a checked `given` into `current`: a value replaces that maximum, -1
// removes it; with neither left there is no OnDemandThroughput.
void ApplyOnDemandThroughput(const OnDemandThroughput& given,
                             std::optional<OnDemandThroughput>* current) {
  OnDemandThroughput merged = current->value_or(OnDemandThroughput{});
  auto apply = [](const std::optional<int64_t>& v, std::optional<int64_t>* out) {
    if (!v) return;
    if (*v == -1) {
      out->reset();
    } else {
      *out = *v;
    }
  };
  apply(given.max_read_request_units, &merged.max_read_request_units);
  apply(given.max_write_request_units, &merged.max_write_request_units);
  if (merged.max_read_request_units || merged.max_write_request_units) {
    *current = merged;
  } else {
    current->reset();
  }
}

// The member constraints of an index's KeySchema and Projection (`field` is the
// index's member path, e.g. "globalSecondaryIndexes.member"): a key schema of at
// least one element, key and projected attribute names of 1 to 255 bytes.
void CheckIndexMembers(const std::vector<KeySchemaElement>& ks, const Projection& p,
                       const std::string& field, ConstraintErrors* errors) {
  if (ks.empty()) {
    errors->Add("Value '[]' at '" + field + ".keySchema' failed to satisfy constraint: Member "
                "must have length greater than or equal to 1");
  }
  for (size_t i = 0; i < ks.size(); ++i) {
    const std::string& name = ks[i].attribute_name;
    if (name.empty() || name.size() > kKeyAttributeNameBytesMax) {
      errors->Add("Value '" + name + "' at '" + field + ".keySchema." + std::to_string(i + 1) +
                  ".member.attributeName' failed to satisfy constraint: Member must have length " +
                  (name.empty() ? "greater than or equal to 1"
                                : "less than or equal to " + std::to_string(kKeyAttributeNameBytesMax)));
    }
  }
  bool bad_name = false;
  for (const auto& a : p.non_key_attributes) {
    bad_name |= a.empty() || a.size() > kKeyAttributeNameBytesMax;
  }
  if (bad_name) {
    errors->Add("Value '" + JoinNames(p.non_key_attributes) + "' at '" + field +
                ".projection.nonKeyAttributes' failed to satisfy constraint: Member must satisfy "
                "constraint: [Member must have length less than or equal to 255, Member must "
                "have length greater than or equal to 1]");
  }
}

Status CheckProjection(const Projection& p, const std::string& index_name) {
  if (!p.projection_type) {
    return Invalid("Unknown ProjectionType: null");
  }
  if (*p.projection_type == ProjectionType::kInclude) {
    if (p.non_key_attributes.empty()) {
      return Invalid("ProjectionType is INCLUDE, but NonKeyAttributes is not specified");
    }
    std::set<std::string> seen;  // (the count is CheckProjectedTotal's, over all indexes)
    for (const auto& a : p.non_key_attributes) {
      if (!seen.insert(a).second) {
        return Invalid("Duplicate attribute name in NonKeyAttributes: " + a);
      }
    }
  } else if (!p.non_key_attributes.empty()) {
    return Invalid("ProjectionType is " +
                   std::string(*p.projection_type == ProjectionType::kAll ? "ALL" : "KEYS_ONLY") +
                   ", but NonKeyAttributes is specified");
  }
  return Status();
}

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

namespace {

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
