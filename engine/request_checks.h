// File: engine/request_checks.h
//
// Checks shared by every item operation: mixing legacy and expression parameters,
// expression maps given without expressions, and the normalisation of
// ExpressionAttributeValues (numbers, sets) before any expression reads them.

#ifndef DYNAROCK_ENGINE_REQUEST_CHECKS_H_
#define DYNAROCK_ENGINE_REQUEST_CHECKS_H_

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include "dynarock/requests.h"
#include "dynarock/status.h"
#include "engine/expr/expression.h"
#include "engine/table_info.h"

namespace dynarock {

// A parameter's wire name and whether the request has it.
using NamedParam = std::pair<std::string_view, bool>;

// "Can not use both expression and non-expression parameters in the same request:
// Non-expression parameters: {Expected} Expression parameters: {ConditionExpression}"
Status CheckNoMixedParameters(std::initializer_list<NamedParam> legacy,
                              std::initializer_list<NamedParam> expressions);

// "ExpressionAttributeNames can only be specified when using expressions", and for
// values "ExpressionAttributeValues can only be specified when using expressions:
// <value_expressions> is null" (or "are null" for several, as DynamoDB words it:
// "UpdateExpression and ConditionExpression are null");
// `any_value_expression` says whether an expression that takes :values is
// present (ProjectionExpression takes names only).
Status CheckExpressionMapsUsed(bool has_names, bool has_values, bool any_expression,
                               bool any_value_expression,
                               std::string_view value_expressions = "ConditionExpression");

// The checks an operation makes of its parameters before it reads any
// attribute value (DynamoDB's order): legacy and expression parameters mixed,
// expression maps without expressions, PutItem's and DeleteItem's ReturnValues,
// Query's and Scan's Limit. The API handler runs them before it reports an
// AttributeValue the decoder found malformed (api/json_decode.h).
Status CheckParameters(const PutItemRequest& req);
Status CheckParameters(const GetItemRequest& req);
Status CheckParameters(const DeleteItemRequest& req);
Status CheckParameters(const UpdateItemRequest& req);
Status CheckParameters(const QueryRequest& req);
Status CheckParameters(const ScanRequest& req);

// "Key attributes must be scalars; list random access '[]' and map lookup '.'
// are not allowed: Key: pk" (or "IndexKey: g" for `index_key`) when one of
// `paths` goes into a key attribute.
Status CheckKeyPathsScalar(const std::vector<expr::Path>& paths, const KeyDef& table_key,
                           const KeyDef* index_key);

// Normalises the numbers and checks the sets of ExpressionAttributeValues.
StatusOr<ValueMap> NormalizeExpressionValues(const ValueMap& values);

}  // namespace dynarock

#endif  // DYNAROCK_ENGINE_REQUEST_CHECKS_H_
