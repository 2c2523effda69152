// File: engine/expr/legacy.cc
//
// The pre-expression parameters, translated into the same parsed forms as the
// expressions so the engine evaluates one representation:
//   Expected            -> Condition   (Value/Exists form or ComparisonOperator form)
//   QueryFilter/ScanFilter -> Condition
//   KeyConditions       -> KeyTerms
//   AttributeUpdates    -> UpdatePlan  (PUT -> SET, DELETE -> REMOVE or set DELETE, ADD)
//   AttributesToGet     -> ProjectionSpec (project.cc)
//
// The 13 comparison operators map onto the condition AST:
//   EQ NE LE LT GE GT -> compare;  BETWEEN -> between;  IN -> in;
//   NOT_NULL -> attribute_exists;  NULL -> attribute_not_exists;
//   CONTAINS -> contains;  BEGINS_WITH -> begins_with;
//   NOT_CONTAINS -> attribute_exists(a) AND NOT contains(a, v)  (false when the
//   attribute is missing, unlike NOT contains()).

#include <string>
#include <vector>

#include "engine/limits.h"
#include "engine/expr/ast.h"
#include "engine/expr/expression.h"

namespace dynarock::expr {
namespace {

constexpr std::string_view kInvalid = "One or more parameter values were invalid: ";
constexpr std::string_view kOperatorEnum =
    "[IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, NE, LE, BEGINS_WITH, GE, CONTAINS]";

enum class LegacyOp : uint8_t {
  kEq, kNe, kLe, kLt, kGe, kGt, kIn, kBetween, kNotNull, kNull, kContains, kNotContains,
  kBeginsWith,
};

struct OpInfo {
  std::string_view name;
  LegacyOp op;
  int min_args;
  int max_args;  // -1: unbounded
  // Allowed argument types: "*" any, "SNB", "SB".
  std::string_view types;
};

constexpr OpInfo kOps[] = {
    {"EQ", LegacyOp::kEq, 1, 1, "*"},
    {"NE", LegacyOp::kNe, 1, 1, "*"},
    {"LE", LegacyOp::kLe, 1, 1, "SNB"},
    {"LT", LegacyOp::kLt, 1, 1, "SNB"},
    {"GE", LegacyOp::kGe, 1, 1, "SNB"},
    {"GT", LegacyOp::kGt, 1, 1, "SNB"},
    {"IN", LegacyOp::kIn, 1, -1, "SNB"},
    {"BETWEEN", LegacyOp::kBetween, 2, 2, "SNB"},
    {"NOT_NULL", LegacyOp::kNotNull, 0, 0, "*"},
    {"NULL", LegacyOp::kNull, 0, 0, "*"},
    {"CONTAINS", LegacyOp::kContains, 1, 1, "SNB"},
    {"NOT_CONTAINS", LegacyOp::kNotContains, 1, 1, "SNB"},
    {"BEGINS_WITH", LegacyOp::kBeginsWith, 1, 1, "SB"},
};

const OpInfo* FindOp(std::string_view name) {
  for (const auto& info : kOps) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

std::string LowerFirst(std::string_view s) {
  std::string out(s);
  if (!out.empty() && out[0] >= 'A' && out[0] <= 'Z') out[0] = static_cast<char>(out[0] - 'A' + 'a');
  return out;
}

bool TypeAllowed(std::string_view types, const AttributeValue& v) {
  if (types == "*") return true;
  if (v.is(AttrType::kS)) return true;
  if (v.is(AttrType::kB)) return types.find('B') != std::string_view::npos;
  if (v.is(AttrType::kN)) return types.find('N') != std::string_view::npos;
  return false;
}

// Validates one operator application: name, argument count, types, bounds.
// `where` names the wire location for the enum error, e.g. "scanFilter.a".
StatusOr<const OpInfo*> ValidateOperator(std::string_view op_name,
                                         const std::vector<AttributeValue>& args,
                                         std::string_view where, bool check_types) {
  const OpInfo* info = FindOp(op_name);
  if (info == nullptr) {
    return ValidationError("1 validation error detected: Value '" + std::string(op_name) +
                           "' at '" + std::string(where) +
                           ".member.comparisonOperator' failed to satisfy constraint: Member "
                           "must satisfy enum value set: " + std::string(kOperatorEnum));
  }
  const int n = static_cast<int>(args.size());
  if (n < info->min_args || (info->max_args >= 0 && n > info->max_args)) {
    return ValidationError(std::string(kInvalid) + "Invalid number of argument(s) for the " +
                           std::string(op_name) + " ComparisonOperator");
  }
  for (const auto& a : args) {
    if (a.type() != args[0].type()) {
      return ValidationError(std::string(kInvalid) +
                             "AttributeValues inside AttributeValueList must be of same type");
    }
  }
  if (check_types) {
    for (const auto& a : args) {
      if (!TypeAllowed(info->types, a)) {
        return ValidationError(std::string(kInvalid) + "ComparisonOperator " +
                               std::string(op_name) + " is not valid for " +
                               std::string(AttrTypeName(a.type())) + " AttributeValue type");
      }
    }
  }
  if (info->op == LegacyOp::kBetween && IsOrderable(args[0]) &&
      CompareScalars(args[0], args[1]) > 0) {
    return ValidationError(
        "The BETWEEN condition was provided a range where the lower bound is greater than the "
        "upper bound");
  }
  return info;
}

Operand PathOperand(std::string_view attribute) {
  Operand op;
  op.kind = OperandKind::kPath;
  PathElement e;
  e.name = std::string(attribute);
  op.path.push_back(std::move(e));
  return op;
}

Operand ValueOperand(const AttributeValue& v) {
  Operand op;
  op.kind = OperandKind::kValue;
  op.value = v;
  return op;
}

std::unique_ptr<Condition> FunctionCondition(FunctionId f, std::vector<Operand> operands) {
  auto c = std::make_unique<Condition>();
  c->kind = ConditionKind::kFunction;
  c->function = f;
  c->operands = std::move(operands);
  return c;
}

std::unique_ptr<Condition> BuildCondition(std::string_view attribute, LegacyOp op,
                                          const std::vector<AttributeValue>& args) {
  auto c = std::make_unique<Condition>();
  auto compare = [&](CompareOp cmp) {
    c->kind = ConditionKind::kCompare;
    c->op = cmp;
    c->operands.push_back(PathOperand(attribute));
    c->operands.push_back(ValueOperand(args[0]));
    return std::move(c);
  };
  switch (op) {
    case LegacyOp::kEq: return compare(CompareOp::kEq);
    case LegacyOp::kNe: return compare(CompareOp::kNe);
    case LegacyOp::kLe: return compare(CompareOp::kLe);
    case LegacyOp::kLt: return compare(CompareOp::kLt);
    case LegacyOp::kGe: return compare(CompareOp::kGe);
    case LegacyOp::kGt: return compare(CompareOp::kGt);
    case LegacyOp::kIn:
      c->kind = ConditionKind::kIn;
      c->operands.push_back(PathOperand(attribute));
      for (const auto& a : args) c->operands.push_back(ValueOperand(a));
      return c;
    case LegacyOp::kBetween:
      c->kind = ConditionKind::kBetween;
      c->operands.push_back(PathOperand(attribute));
      c->operands.push_back(ValueOperand(args[0]));
      c->operands.push_back(ValueOperand(args[1]));
      return c;
    case LegacyOp::kNotNull:
      return FunctionCondition(FunctionId::kAttributeExists, {PathOperand(attribute)});
    case LegacyOp::kNull:
      return FunctionCondition(FunctionId::kAttributeNotExists, {PathOperand(attribute)});
    case LegacyOp::kContains:
      return FunctionCondition(FunctionId::kContains,
                               {PathOperand(attribute), ValueOperand(args[0])});
    case LegacyOp::kBeginsWith:
      return FunctionCondition(FunctionId::kBeginsWith,
                               {PathOperand(attribute), ValueOperand(args[0])});
    case LegacyOp::kNotContains: {
      auto negated = std::make_unique<Condition>();
      negated->kind = ConditionKind::kNot;
      negated->children.push_back(FunctionCondition(
          FunctionId::kContains, {PathOperand(attribute), ValueOperand(args[0])}));
      c->kind = ConditionKind::kAnd;
      c->children.push_back(FunctionCondition(FunctionId::kAttributeExists, {PathOperand(attribute)}));
      c->children.push_back(std::move(negated));
      return c;
    }
  }
  return c;
}

StatusOr<ConditionKind> CombineKind(const std::optional<std::string>& conditional_operator) {
  if (!conditional_operator || *conditional_operator == "AND") return ConditionKind::kAnd;
  if (*conditional_operator == "OR") return ConditionKind::kOr;
  return ValidationError("1 validation error detected: Value '" + *conditional_operator +
                         "' at 'conditionalOperator' failed to satisfy constraint: Member must "
                         "satisfy enum value set: [OR, AND]");
}

Status TooFewForConditionalOperator() {
  return ValidationError(
      "ConditionalOperator can only be used when Filter or Expected has two or more elements");
}

}  // namespace

Status ConditionalOperatorWithoutConditions() {
  return ValidationError("ConditionalOperator cannot be used without Filter or Expected");
}

StatusOr<ConditionPtr> ConditionFromExpected(
    const std::map<std::string, ExpectedAttributeValue, std::less<>>& expected,
    const std::optional<std::string>& conditional_operator) {
  DR_ASSIGN_OR_RETURN(ConditionKind combine, CombineKind(conditional_operator));
  if (conditional_operator && expected.size() < 2) return TooFewForConditionalOperator();
  auto root = std::make_unique<Condition>();
  root->kind = combine;
  for (const auto& [attribute, e] : expected) {
    const std::string for_attribute = " for Attribute: " + attribute;
    if (e.attribute_value_list && e.value) {
      return ValidationError(std::string(kInvalid) +
                             "Value and AttributeValueList cannot be used together" + for_attribute);
    }
    if (e.comparison_operator) {
      if (e.exists) {
        return ValidationError(std::string(kInvalid) +
                               "Exists and ComparisonOperator cannot be used together" +
                               for_attribute);
      }
      const std::string& op = *e.comparison_operator;
      if (op != "NULL" && op != "NOT_NULL" && !e.attribute_value_list && !e.value) {
        return ValidationError(std::string(kInvalid) +
                               "Value or AttributeValueList must be used with ComparisonOperator: " +
                               op + for_attribute);
      }
      std::vector<AttributeValue> args;
      if (e.attribute_value_list) {
        args = *e.attribute_value_list;
      } else if (e.value) {
        args.push_back(*e.value);
      }
      DR_ASSIGN_OR_RETURN(const OpInfo* info,
                          ValidateOperator(op, args, "expected." + attribute, true));
      root->children.push_back(BuildCondition(attribute, info->op, args));
      continue;
    }
    if (e.attribute_value_list) {
      return ValidationError(std::string(kInvalid) +
                             "AttributeValueList can only be used with a ComparisonOperator" +
                             for_attribute);
    }
    const bool exists = !e.exists.has_value() || *e.exists;
    if (exists && !e.value) {
      return ValidationError(std::string(kInvalid) + "Value must be provided when Exists is " +
                             (e.exists.has_value() ? "true" : "null") + for_attribute);
    }
    if (!exists && e.value) {
      return ValidationError(std::string(kInvalid) +
                             "Value cannot be used when Exists is false" + for_attribute);
    }
    if (exists) {
      root->children.push_back(BuildCondition(attribute, LegacyOp::kEq, {*e.value}));
    } else {
      root->children.push_back(BuildCondition(attribute, LegacyOp::kNull, {}));
    }
  }
  if (root->children.empty()) root->kind = ConditionKind::kAnd;  // no conditions: true
  return ConditionPtr(std::move(root));
}

namespace {

Status NullOperator(const std::string& where) {
  return ValidationError("1 validation error detected: Value null at '" + where +
                         ".member.comparisonOperator' failed to satisfy constraint: Member "
                         "must not be null");
}

}  // namespace

Status CheckLegacyConditions(const LegacyConditionMap& conditions, std::string_view parameter) {
  for (const auto& [attribute, condition] : conditions) {
    const std::string where = LowerFirst(parameter) + "." + attribute;
    if (condition.comparison_operator.empty()) return NullOperator(where);
    DR_RETURN_IF_ERROR(ValidateOperator(condition.comparison_operator,
                                        condition.attribute_value_list, where, true)
                           .status());
  }
  return Status();
}

StatusOr<ConditionPtr> ConditionFromFilter(const LegacyConditionMap& filter,
                                           const std::optional<std::string>& conditional_operator,
                                           std::string_view parameter) {
  DR_ASSIGN_OR_RETURN(ConditionKind combine, CombineKind(conditional_operator));
  if (conditional_operator && filter.size() < 2) return TooFewForConditionalOperator();
  auto root = std::make_unique<Condition>();
  root->kind = combine;
  for (const auto& [attribute, condition] : filter) {
    const std::string where = LowerFirst(parameter) + "." + attribute;
    if (condition.comparison_operator.empty()) return NullOperator(where);
    DR_ASSIGN_OR_RETURN(const OpInfo* info,
                        ValidateOperator(condition.comparison_operator,
                                         condition.attribute_value_list, where, true));
    root->children.push_back(BuildCondition(attribute, info->op, condition.attribute_value_list));
  }
  if (root->children.empty()) root->kind = ConditionKind::kAnd;  // no conditions: true
  return ConditionPtr(std::move(root));
}

StatusOr<std::vector<KeyTerm>> KeyTermsFromKeyConditions(const LegacyConditionMap& key_conditions) {
  // More than two only for a multi-attribute index key, which the engine knows
  // (it repeats this check for the other keys).
  if (key_conditions.size() > 2 * static_cast<size_t>(kIndexKeyAttributesMax)) {
    return ValidationError("Conditions can be of length 1 or 2 only");
  }
  std::vector<KeyTerm> terms;
  for (const auto& [attribute, condition] : key_conditions) {
    const std::string where = "keyConditions." + attribute;
    if (condition.comparison_operator.empty()) return NullOperator(where);
    DR_ASSIGN_OR_RETURN(const OpInfo* info,
                        ValidateOperator(condition.comparison_operator,
                                         condition.attribute_value_list, where, true));
    KeyTerm term;
    term.attribute_name = attribute;
    switch (info->op) {
      case LegacyOp::kEq: term.op = KeyOp::kEq; break;
      case LegacyOp::kLe: term.op = KeyOp::kLe; break;
      case LegacyOp::kLt: term.op = KeyOp::kLt; break;
      case LegacyOp::kGe: term.op = KeyOp::kGe; break;
      case LegacyOp::kGt: term.op = KeyOp::kGt; break;
      case LegacyOp::kBetween: term.op = KeyOp::kBetween; break;
      case LegacyOp::kBeginsWith: term.op = KeyOp::kBeginsWith; break;
      default: term.indexable = false; break;
    }
    if (!condition.attribute_value_list.empty()) term.value1 = condition.attribute_value_list[0];
    if (term.op == KeyOp::kBetween) term.value2 = condition.attribute_value_list[1];
    terms.push_back(std::move(term));
  }
  return terms;
}

StatusOr<UpdatePlanPtr> UpdateFromAttributeUpdates(
    const std::map<std::string, AttributeValueUpdate, std::less<>>& updates) {
  auto plan = std::make_shared<UpdatePlan>();
  plan->legacy = true;
  for (const auto& [attribute, update] : updates) {
    UpdateAction action;
    PathElement e;
    e.name = attribute;
    action.path.push_back(std::move(e));
    const std::string& verb = update.action;
    if (verb != "PUT" && verb != "ADD" && verb != "DELETE") {
      return ValidationError("1 validation error detected: Value '" + verb + "' at "
                             "'attributeUpdates." + attribute +
                             ".member.action' failed to satisfy constraint: Member must satisfy "
                             "enum value set: [ADD, PUT, DELETE]");
    }
    if (!update.value) {
      if (verb != "DELETE") {
        return ValidationError(std::string(kInvalid) +
                               "Only DELETE action is allowed when no attribute value is specified");
      }
      action.kind = UpdateActionKind::kRemove;
      plan->actions.push_back(std::move(action));
      continue;
    }
    const AttributeValue& v = *update.value;
    action.value = ValueOperand(v);
    if (verb == "PUT") {
      action.kind = UpdateActionKind::kSet;
    } else if (verb == "ADD") {
      if (!v.is(AttrType::kN) && !v.is(AttrType::kL) && !v.is_set()) {
        return ValidationError(std::string(kInvalid) + "ADD action is not supported for the type " +
                               std::string(AttrTypeName(v.type())));
      }
      action.kind = UpdateActionKind::kAdd;
    } else {
      if (!v.is_set()) {
        return ValidationError(std::string(kInvalid) +
                               "DELETE action with value is not supported for the type " +
                               std::string(AttrTypeName(v.type())));
      }
      action.kind = UpdateActionKind::kDelete;
    }
    plan->actions.push_back(std::move(action));
  }
  return UpdatePlanPtr(std::move(plan));
}

}  // namespace dynarock::expr
