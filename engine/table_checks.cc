// File: engine/table_checks.cc
//
// See table_checks.h.

#include "engine/table_checks.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "engine/limits.h"

namespace dynarock::table_checks {

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
                      const std::vector<AttributeDefinition>& defs, bool multi_attribute) {
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
Status CheckThroughputBounds(const ProvisionedThroughput& t, const std::string& index) {
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
                               bool update, const std::string& index) {
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

}  // namespace dynarock::table_checks
