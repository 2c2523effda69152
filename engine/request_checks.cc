#include "engine/request_checks.h"

#include "engine/item_validation.h"

namespace dynarock {
namespace {

std::string Braced(std::initializer_list<NamedParam> params) {
  std::string out = "{";
  bool first = true;
  for (const auto& [name, present] : params) {
    if (!present) continue;
    if (!first) out += ", ";
    first = false;
    out += name;
  }
  return out + "}";
}

bool Any(std::initializer_list<NamedParam> params) {
  for (const auto& p : params)
    if (p.second) return true;
  return false;
}

}  // namespace

Status CheckNoMixedParameters(std::initializer_list<NamedParam> legacy,
                              std::initializer_list<NamedParam> expressions) {
  if (Any(legacy) && Any(expressions)) {
    return ValidationError(
        "Can not use both expression and non-expression parameters in the same request: "
        "Non-expression parameters: " + Braced(legacy) +
        " Expression parameters: " + Braced(expressions));
  }
  return Status();
}

Status CheckExpressionMapsUsed(bool has_names, bool has_values, bool any_expression,
                               bool any_value_expression, std::string_view value_expressions) {
  if (has_names && !any_expression) {
    return ValidationError("ExpressionAttributeNames can only be specified when using expressions");
  }
  if (has_values && !any_value_expression) {
    const bool several = value_expressions.find(" and ") != std::string_view::npos;
    return ValidationError("ExpressionAttributeValues can only be specified when using "
                           "expressions: " + std::string(value_expressions) +
                           (several ? " are null" : " is null"));
  }
  return Status();
}

Status CheckKeyPathsScalar(const std::vector<expr::Path>& paths, const KeyDef& table_key,
                           const KeyDef* index_key) {
  for (const auto& path : paths) {
    if (path.size() < 2 || path[0].is_index) continue;
    const std::string& name = path[0].name;
    const bool in_table = table_key.IsKeyAttribute(name);
    if (!in_table && !(index_key && index_key->IsKeyAttribute(name))) continue;
    return ValidationError(
        "Key attributes must be scalars; list random access '[]' and map lookup '.' are not "
        "allowed: " + std::string(in_table ? "Key: " : "IndexKey: ") + name);
  }
  return Status();
}

StatusOr<ValueMap> NormalizeExpressionValues(const ValueMap& values) {
  ValueMap out = values;
  for (auto& [name, value] : out) {
    Status s = NormalizeAndValidateValue(&value, 1);
    if (!s.ok()) {
      return ValidationError("ExpressionAttributeValues contains invalid value: " + s.message() +
                             " for key " + name);
    }
  }
  return out;
}

}  // namespace dynarock
