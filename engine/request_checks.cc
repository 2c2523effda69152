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

// The expression maps' keys and emptiness, before any of their values is read
// (DynamoDB reports a key of bad syntax before a value it cannot read).
template <typename R>
Status CheckExpressionMaps(const R& req) {
  return expr::ExpressionContext(&req.expression_attribute_names, &req.expression_attribute_values,
                                 req.has_expression_attribute_names,
                                 req.has_expression_attribute_values)
      .ValidateMaps();
}

// PutItem and DeleteItem: a condition, and ReturnValues NONE or ALL_OLD.
template <typename R>
Status CheckConditionalWrite(const R& req) {
  DR_RETURN_IF_ERROR(CheckNoMixedParameters(
      {{"Expected", req.has_expected || !req.expected.empty()},
       {"ConditionalOperator", req.conditional_operator.has_value()}},
      {{"ConditionExpression", req.condition_expression.has_value()}}));
  DR_RETURN_IF_ERROR(CheckExpressionMapsUsed(req.has_expression_attribute_names,
                                             req.has_expression_attribute_values,
                                             req.condition_expression.has_value(),
                                             req.condition_expression.has_value()));
  if (req.return_values != ReturnValue::kNone && req.return_values != ReturnValue::kAllOld) {
    return ValidationError("ReturnValues can only be ALL_OLD or NONE");
  }
  return CheckExpressionMaps(req);
}

}  // namespace

Status CheckParameters(const PutItemRequest& req, const MalformedValue&) {
  DR_RETURN_IF_ERROR(CheckConditionalWrite(req));
  return Status();
}
Status CheckParameters(const DeleteItemRequest& req, const MalformedValue&) {
  return CheckConditionalWrite(req);
}

Status CheckParameters(const GetItemRequest& req, const MalformedValue&) {
  DR_RETURN_IF_ERROR(CheckNoMixedParameters(
      {{"AttributesToGet", !req.attributes_to_get.empty()}},
      {{"ProjectionExpression", req.projection_expression.has_value()}}));
  return CheckExpressionMapsUsed(req.has_expression_attribute_names, false,
                                 req.projection_expression.has_value(), false);
}

Status CheckParameters(const UpdateItemRequest& req, const MalformedValue&) {
  DR_RETURN_IF_ERROR(CheckNoMixedParameters(
      {{"AttributeUpdates", req.has_attribute_updates},
       {"Expected", req.has_expected || !req.expected.empty()},
       {"ConditionalOperator", req.conditional_operator.has_value()}},
      {{"UpdateExpression", req.update_expression.has_value()},
       {"ConditionExpression", req.condition_expression.has_value()}}));
  bool any_expression = req.update_expression || req.condition_expression;
  DR_RETURN_IF_ERROR(CheckExpressionMapsUsed(req.has_expression_attribute_names,
                                             req.has_expression_attribute_values, any_expression,
                                             any_expression,
                                             "UpdateExpression and ConditionExpression"));
  return CheckExpressionMaps(req);
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

StatusOr<LegacyConditionMap> NormalizeLegacyConditions(const LegacyConditionMap& conditions) {
  LegacyConditionMap out = conditions;
  for (auto& [name, condition] : out) {
    for (auto& v : condition.attribute_value_list) {
      DR_RETURN_IF_ERROR(NormalizeAndValidateValue(&v, 1));
    }
  }
  return out;
}

namespace {

// A legacy filter or KeyConditions: its values readable, then each condition's
// operator, argument count and types. `member` is where a malformed value of it
// would be.
Status CheckLegacyMember(const LegacyConditionMap& conditions, std::string_view parameter,
                         ValueMember member, const MalformedValue& malformed) {
  if (!malformed.error.ok() && malformed.member == member) return malformed.error;
  DR_ASSIGN_OR_RETURN(LegacyConditionMap normalized, NormalizeLegacyConditions(conditions));
  return expr::CheckLegacyConditions(normalized, parameter);
}

Status CheckStartKey(const std::optional<Item>& start_key, const MalformedValue& malformed) {
  if (!malformed.error.ok() && malformed.member == ValueMember::kStartKey) return malformed.error;
  return CheckStartKeyValues(start_key);
}

Status CheckExpressionTexts(
    std::initializer_list<std::pair<const std::optional<std::string>*, expr::ExpressionKind>>
        expressions) {
  for (const auto& [text, kind] : expressions) {
    if (*text) DR_RETURN_IF_ERROR(expr::CheckExpressionText(**text, kind));
  }
  return Status();
}

}  // namespace

// DynamoDB's order for a Query: QueryFilter before the duplicate check, then
// the start key, then KeyConditions (captured from DynamoDB).
Status CheckParameters(const QueryRequest& req, const MalformedValue& malformed) {
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
  DR_RETURN_IF_ERROR(
      CheckLegacyMember(req.query_filter, "QueryFilter", ValueMember::kFilter, malformed));
  DR_RETURN_IF_ERROR(CheckAttributesToGet(req.attributes_to_get));
  DR_RETURN_IF_ERROR(CheckStartKey(req.exclusive_start_key, malformed));
  if (req.has_key_conditions && !req.key_condition_expression) {
    if (req.key_conditions.empty()) return ValidationError("Conditions can be of length 1 or 2 only");
    DR_RETURN_IF_ERROR(CheckLegacyMember(req.key_conditions, "KeyConditions",
                                         ValueMember::kKeyConditions, malformed));
  }
  DR_RETURN_IF_ERROR(CheckExpressionMaps(req));
  if (!malformed.error.ok()) return malformed.error;
  return CheckExpressionTexts({{&req.key_condition_expression, expr::ExpressionKind::kKeyCondition},
                               {&req.filter_expression, expr::ExpressionKind::kFilter},
                               {&req.projection_expression, expr::ExpressionKind::kProjection}});
}

// A Scan checks duplicate AttributesToGet before ScanFilter, then the start key.
Status CheckParameters(const ScanRequest& req, const MalformedValue& malformed) {
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
  DR_RETURN_IF_ERROR(
      CheckLegacyMember(req.scan_filter, "ScanFilter", ValueMember::kFilter, malformed));
  DR_RETURN_IF_ERROR(CheckStartKey(req.exclusive_start_key, malformed));
  if (!malformed.error.ok()) return malformed.error;
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

Status CheckKeyPathsScalar(const std::vector<expr::Path>& paths, const TableInfo& table) {
  DR_RETURN_IF_ERROR(CheckKeyPathsScalar(paths, table.key, nullptr));
  for (const auto& ix : table.indexes) {
    DR_RETURN_IF_ERROR(CheckKeyPathsScalar(paths, table.key, &ix.key));
  }
  return Status();
}

Status CheckUpdatedPaths(const std::vector<expr::Path>& paths, const TableInfo& table) {
  for (const auto& path : paths) {
    if (!path.empty() && !path[0].is_index && table.key.IsKeyAttribute(path[0].name)) {
      return ValidationError("One or more parameter values were invalid: Cannot update attribute " +
                             path[0].name + ". This attribute is part of the key");
    }
  }
  return CheckKeyPathsScalar(paths, table);
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
