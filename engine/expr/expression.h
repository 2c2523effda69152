// File: engine/expr/expression.h
//
// The public face of the expression language: parse DynamoDB's condition, filter,
// key-condition, projection and update expressions (with #names and :values
// substituted), evaluate conditions on items, project items, and apply updates.
// The legacy parameters (Expected, KeyConditions, QueryFilter, ScanFilter,
// AttributeUpdates, AttributesToGet) are translated into the same parsed forms, so
// the engine evaluates one representation only.
//
// All errors are ValidationException with DynamoDB's messages, e.g.
//   Invalid UpdateExpression: Syntax error; token: "=", near: "= = :v"
//   Value provided in ExpressionAttributeValues unused in expressions: keys: {:x}
//   Attribute name is a reserved keyword; reserved keyword: name
//
// Typical use by the engine for one UpdateItem request:
//   expr::ExpressionContext ctx(&req.expression_attribute_names,
//                               &req.expression_attribute_values, ...);
//   auto cond = expr::ParseCondition(*req.condition_expression,
//                                    expr::ExpressionKind::kCondition, &ctx);
//   auto update = expr::ParseUpdate(*req.update_expression, &ctx);
//   DR_RETURN_IF_ERROR(ctx.CheckAllUsed());
//   ... under the item's lock:
//   auto ok = expr::EvaluateCondition(**cond, old_item_or_empty);
//   Item new_item = old_item; DR_RETURN_IF_ERROR(expr::ApplyUpdate(**update, &new_item));

#ifndef DYNAROCK_ENGINE_EXPR_EXPRESSION_H_
#define DYNAROCK_ENGINE_EXPR_EXPRESSION_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "dynarock/requests.h"
#include "dynarock/status.h"

namespace dynarock::expr {

// Which request parameter an expression came from; used in messages
// ("Invalid ConditionExpression: ...") and for kind-specific rules (e.g. functions
// are not allowed in a KeyConditionExpression except begins_with).
enum class ExpressionKind : uint8_t {
  kCondition,     // ConditionExpression
  kFilter,        // FilterExpression
  kKeyCondition,  // KeyConditionExpression
  kProjection,    // ProjectionExpression
  kUpdate,        // UpdateExpression
};
std::string_view ExpressionKindName(ExpressionKind kind);

// One element of a document path after #name substitution: a map key or a list index.
struct PathElement {
  std::string name;     // when !is_index
  int64_t index = -1;   // when is_index
  bool is_index = false;
  bool operator==(const PathElement&) const = default;
};
using Path = std::vector<PathElement>;

// Renders a path as DynamoDB does in messages: a.b[1].c
std::string PathToString(const Path& path);

// The #names and :values of one request, shared by all its expressions, recording
// which ones the expressions use.
class ExpressionContext {
 public:
  // Either pointer may be null (parameter absent). `has_names`/`has_values` say
  // whether the parameter was present on the wire (an empty map that is present is
  // an error: "ExpressionAttributeNames must not be empty").
  ExpressionContext(const NameMap* names, const ValueMap* values, bool has_names,
                    bool has_values);

  // Validates the maps themselves (emptiness, key syntax, value validity) — call
  // once before parsing.
  Status ValidateMaps() const;

  // After every expression of the request has been parsed: the unused-name and
  // unused-value errors, as DynamoDB words them.
  Status CheckAllUsed() const;

  // Used by the parser.
  StatusOr<std::string> ResolveName(std::string_view token);          // "#n" -> "name"
  StatusOr<const AttributeValue*> ResolveValue(std::string_view token);  // ":v" -> value

 private:
  const NameMap* names_;
  const ValueMap* values_;
  bool has_names_;
  bool has_values_;
  std::set<std::string, std::less<>> used_names_;
  std::set<std::string, std::less<>> used_values_;
};

// ---------------------------------------------------------------- conditions

struct Condition;  // opaque parsed condition (defined in ast.h)
using ConditionPtr = std::shared_ptr<const Condition>;

// An expression's size and emptiness, which DynamoDB checks for all of a
// request's expressions before it parses any ("Invalid FilterExpression: The
// expression can not be empty;").
Status CheckExpressionText(std::string_view text, ExpressionKind kind);

// ConditionExpression or FilterExpression.
StatusOr<ConditionPtr> ParseCondition(std::string_view text, ExpressionKind kind,
                                      ExpressionContext* ctx);

// Evaluates a condition on `item` (an empty Item when there is no item). Comparisons
// between mismatched types are false, as in DynamoDB. Errors only for what DynamoDB
// rejects at evaluation time (for example an invalid attribute_type operand).
StatusOr<bool> EvaluateCondition(const Condition& condition, const Item& item);

// Top-level attribute names a condition reads (for "Filter Expression can only
// contain non-primary key attributes" and index projection checks).
std::vector<std::string> ConditionAttributeNames(const Condition& condition);

// Every document path a condition reads, in the order they are written.
std::vector<Path> ConditionPaths(const Condition& condition);

// ---------------------------------------------------------------- key conditions

enum class KeyOp : uint8_t { kEq, kLt, kLe, kGt, kGe, kBetween, kBeginsWith };
struct KeyTerm {
  std::string attribute_name;  // after #name substitution
  KeyOp op = KeyOp::kEq;
  AttributeValue value1;
  AttributeValue value2;  // kBetween only
  // False for a KeyConditions operator a key cannot use (NULL, IN, CONTAINS,
  // ...): reported once the terms are matched to the key schema.
  bool indexable = true;
};

// A KeyConditionExpression: one or two terms joined by AND, each `name op value`,
// `name BETWEEN a AND b` or `begins_with(name, value)`. Syntax errors and
// unsupported shapes ("Invalid operator used in KeyConditionExpression: OR") are
// reported here; matching the terms to the key schema is the engine's job.
StatusOr<std::vector<KeyTerm>> ParseKeyCondition(std::string_view text, ExpressionContext* ctx);

// ---------------------------------------------------------------- projections

struct ProjectionSpec {
  std::vector<Path> paths;
};

StatusOr<ProjectionSpec> ParseProjection(std::string_view text, ExpressionContext* ctx);

// Top-level attribute names a projection keeps.
std::vector<std::string> ProjectionAttributeNames(const ProjectionSpec& projection);

// The item cut down to the projected paths (nested maps and list elements kept
// in their structure, as DynamoDB returns them). Paths that do not exist are
// skipped.
Item Project(const ProjectionSpec& projection, const Item& item);

// ---------------------------------------------------------------- updates

struct UpdatePlan;  // opaque parsed update (defined in ast.h)
using UpdatePlanPtr = std::shared_ptr<const UpdatePlan>;

StatusOr<UpdatePlanPtr> ParseUpdate(std::string_view text, ExpressionContext* ctx);

// Applies SET/REMOVE/ADD/DELETE to `item` in place. Errors with DynamoDB's
// messages, for example "The provided expression refers to an attribute that does
// not exist in the item" and "An operand in the update expression has an incorrect
// data type".
Status ApplyUpdate(const UpdatePlan& plan, Item* item);

// The document paths an update writes or removes, for the key-attribute check
// ("Cannot update attribute pk. This attribute is part of the key") and for
// ReturnValues UPDATED_OLD / UPDATED_NEW (Project() of the old/new item on them).
std::vector<Path> UpdatedPaths(const UpdatePlan& plan);

// ---------------------------------------------------------------- legacy parameters

// Expected + ConditionalOperator -> a condition.
// "ConditionalOperator cannot be used without Filter or Expected".
Status ConditionalOperatorWithoutConditions();

StatusOr<ConditionPtr> ConditionFromExpected(
    const std::map<std::string, ExpectedAttributeValue, std::less<>>& expected,
    const std::optional<std::string>& conditional_operator);

// QueryFilter / ScanFilter + ConditionalOperator -> a condition.
// `parameter` is "QueryFilter" or "ScanFilter", for messages.
StatusOr<ConditionPtr> ConditionFromFilter(const LegacyConditionMap& filter,
                                           const std::optional<std::string>& conditional_operator,
                                           std::string_view parameter);

// Each condition's operator, argument count and argument types, as
// ConditionFromFilter and KeyTermsFromKeyConditions check them (`parameter`
// "QueryFilter", "ScanFilter" or "KeyConditions"), without building anything.
Status CheckLegacyConditions(const LegacyConditionMap& conditions, std::string_view parameter);

// KeyConditions -> key terms.
StatusOr<std::vector<KeyTerm>> KeyTermsFromKeyConditions(const LegacyConditionMap& key_conditions);

// AttributeUpdates -> an update plan.
StatusOr<UpdatePlanPtr> UpdateFromAttributeUpdates(
    const std::map<std::string, AttributeValueUpdate, std::less<>>& updates);

// AttributesToGet -> a projection; a name given twice is refused.
StatusOr<ProjectionSpec> ProjectionFromAttributesToGet(const std::vector<std::string>& names);

}  // namespace dynarock::expr

#endif  // DYNAROCK_ENGINE_EXPR_EXPRESSION_H_
