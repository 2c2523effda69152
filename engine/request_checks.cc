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

namespace {

Status LimitError(int64_t limit) {
  return ValidationError("1 validation error detected: Value '" + std::to_string(limit) +
                         "' at 'limit' failed to satisfy constraint: Member must have value "
                         "greater than or equal to 1");
}

// PutItem and DeleteItem: a condition, and ReturnValues NONE or ALL_OLD.
template <typename R>
Status CheckConditionalWrite(const R& req) {
  DR_RETURN_IF_ERROR(CheckNoMixedParameters(
      {{"Expected", !req.expected.empty()},
       {"ConditionalOperator", req.conditional_operator.has_value()}},
      {{"ConditionExpression", req.condition_expression.has_value()}}));
  DR_RETURN_IF_ERROR(CheckExpressionMapsUsed(req.has_expression_attribute_names,
                                             req.has_expression_attribute_values,
                                             req.condition_expression.has_value(),
                                             req.condition_expression.has_value()));
  if (req.return_values != ReturnValue::kNone && req.return_values != ReturnValue::kAllOld) {
    return ValidationError("ReturnValues can only be ALL_OLD or NONE");
  }
  return Status();
}

}  // namespace

Status CheckParameters(const PutItemRequest& req) { return CheckConditionalWrite(req); }
Status CheckParameters(const DeleteItemRequest& req) { return CheckConditionalWrite(req); }

Status CheckParameters(const GetItemRequest& req) {
  DR_RETURN_IF_ERROR(CheckNoMixedParameters(
      {{"AttributesToGet", !req.attributes_to_get.empty()}},
      {{"ProjectionExpression", req.projection_expression.has_value()}}));
  return CheckExpressionMapsUsed(req.has_expression_attribute_names, false,
                                 req.projection_expression.has_value(), false);
}

Status CheckParameters(const UpdateItemRequest& req) {
  DR_RETURN_IF_ERROR(CheckNoMixedParameters(
      {{"AttributeUpdates", req.has_attribute_updates},
       {"Expected", !req.expected.empty()},
       {"ConditionalOperator", req.conditional_operator.has_value()}},
      {{"UpdateExpression", req.update_expression.has_value()},
       {"ConditionExpression", req.condition_expression.has_value()}}));
  bool any_expression = req.update_expression || req.condition_expression;
  return CheckExpressionMapsUsed(req.has_expression_attribute_names,
                                 req.has_expression_attribute_values, any_expression,
                                 any_expression, "UpdateExpression and ConditionExpression");
}

// Each name once in AttributesToGet.
Status CheckAttributesToGet(const std::vector<std::string>& names) {
  for (size_t i = 0; i < names.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (names[i] == names[j]) {
        return ValidationError(
            "One or more parameter values were invalid: Duplicate value in attribute name: " +
            names[i]);
      }
    }
  }
  return Status();
}

// An ExclusiveStartKey's values, checked before the key conditions and the
// scan segments. DynamoDB prefixes "The provided starting key is invalid: " to
// an empty string or binary set, not to a number's or a duplicate's problem
// (captured from DynamoDB, tests/differential/captured.json).
Status CheckStartKeyValues(const std::optional<Item>& start_key) {
  if (!start_key) return Status();
  Item key = *start_key;
  for (auto& [name, v] : key) {
    if ((v.is(AttrType::kSS) || v.is(AttrType::kBS)) && v.set().empty()) {
      return ValidationError("The provided starting key is invalid: " +
                             NormalizeAndValidateValue(&v, 1).message());
    }
  }
  return NormalizeAndValidateItem(&key);
}

Status CheckParameters(const QueryRequest& req) {
  if (req.limit && *req.limit < 1) return LimitError(*req.limit);
  DR_RETURN_IF_ERROR(CheckNoMixedParameters(
      {{"AttributesToGet", req.has_attributes_to_get},
       {"QueryFilter", req.has_query_filter},
       {"ConditionalOperator", req.conditional_operator.has_value()},
       // KeyConditions counts as legacy only beside KeyConditionExpression: with a
       // FilterExpression or ProjectionExpression it is accepted.
       {"KeyConditions", req.has_key_conditions && req.key_condition_expression.has_value()}},
      {{"ProjectionExpression", req.projection_expression.has_value()},
       {"FilterExpression", req.filter_expression.has_value()},
       {"KeyConditionExpression", req.key_condition_expression.has_value()}}));
  DR_RETURN_IF_ERROR(CheckExpressionMapsUsed(
      req.has_expression_attribute_names, req.has_expression_attribute_values,
      req.key_condition_expression || req.filter_expression || req.projection_expression,
      req.key_condition_expression || req.filter_expression,
      "FilterExpression and KeyConditionExpression"));
  DR_RETURN_IF_ERROR(CheckAttributesToGet(req.attributes_to_get));
  return CheckStartKeyValues(req.exclusive_start_key);
}

Status CheckParameters(const ScanRequest& req) {
  if (req.limit && *req.limit < 1) return LimitError(*req.limit);
  DR_RETURN_IF_ERROR(CheckNoMixedParameters(
      {{"AttributesToGet", req.has_attributes_to_get},
       {"ScanFilter", req.has_scan_filter},
       {"ConditionalOperator", req.conditional_operator.has_value()}},
      {{"ProjectionExpression", req.projection_expression.has_value()},
       {"FilterExpression", req.filter_expression.has_value()}}));
  DR_RETURN_IF_ERROR(CheckExpressionMapsUsed(
      req.has_expression_attribute_names, req.has_expression_attribute_values,
      req.filter_expression || req.projection_expression, req.filter_expression.has_value(),
      "FilterExpression"));
  DR_RETURN_IF_ERROR(CheckAttributesToGet(req.attributes_to_get));
  return CheckStartKeyValues(req.exclusive_start_key);
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
