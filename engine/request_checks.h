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

// The member of a request that held an AttributeValue the API decoder could
// not read (api/json_decode.h); DynamoDB reports such a value when it checks
// that member, so the order of these is the order it checks them in.
enum class ValueMember : int {
  kFilter = 1,         // QueryFilter, ScanFilter
  kStartKey = 2,       // ExclusiveStartKey
  kKeyConditions = 3,  // KeyConditions
  kOther = 100,        // Item, Key, ExpressionAttributeValues, ...
};
struct MalformedValue {
  Status error;  // ok: every value was read
  ValueMember member = ValueMember::kOther;
};

// The checks an operation makes of its parameters before it looks up its
// table (DynamoDB's order): legacy and expression parameters mixed, expression
// maps without expressions, PutItem's and DeleteItem's ReturnValues and item
// size, the expression maps' keys; Query's and Scan's Limit, legacy filters and
// key conditions, duplicate AttributesToGet, ExclusiveStartKey values and
// expression emptiness. `malformed` (from the API decoder) is reported where
// DynamoDB checks its member; when nothing else is wrong the caller reports it.
Status CheckParameters(const PutItemRequest& req, const MalformedValue& malformed = {});
Status CheckParameters(const GetItemRequest& req, const MalformedValue& malformed = {});
Status CheckParameters(const DeleteItemRequest& req, const MalformedValue& malformed = {});
Status CheckParameters(const UpdateItemRequest& req, const MalformedValue& malformed = {});
Status CheckParameters(const QueryRequest& req, const MalformedValue& malformed = {});
Status CheckParameters(const ScanRequest& req, const MalformedValue& malformed = {});

// Normalises the numbers and checks the sets of a legacy condition map's values.
StatusOr<LegacyConditionMap> NormalizeLegacyConditions(const LegacyConditionMap& conditions);

// "Key attributes must be scalars; list random access '[]' and map lookup '.'
// are not allowed: Key: pk" (or "IndexKey: g" for `index_key`) when one of
// `paths` goes into a key attribute.
Status CheckKeyPathsScalar(const std::vector<expr::Path>& paths, const KeyDef& table_key,
                           const KeyDef* index_key);
// The same against the table's key and every index's key: what an item read's
// projection and an update's paths may not go into (DynamoDB's "IndexKey: d").
Status CheckKeyPathsScalar(const std::vector<expr::Path>& paths, const TableInfo& table);

// An update's paths: none may set a key attribute ("Cannot update attribute
// pk. This attribute is part of the key") or go into a table or index key.
Status CheckUpdatedPaths(const std::vector<expr::Path>& paths, const TableInfo& table);

// Normalises the numbers and checks the sets of ExpressionAttributeValues.
StatusOr<ValueMap> NormalizeExpressionValues(const ValueMap& values);

}  // namespace dynarock

#endif  // DYNAROCK_ENGINE_REQUEST_CHECKS_H_
