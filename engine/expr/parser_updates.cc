// File: engine/expr/parser_updates.cc
//
// The UpdateExpression part of the expression parser (parser.h): SET, REMOVE,
// ADD and DELETE sections, update functions and arithmetic.

#include "engine/expr/parser.h"

#include <utility>

namespace dynarock::expr {
namespace {

// The type names DynamoDB uses in "operator: ADD, operand type: STRING".
std::string_view LongTypeName(AttrType type) {
  switch (type) {
    case AttrType::kS: return "STRING";
    case AttrType::kN: return "NUMBER";
    case AttrType::kB: return "BINARY";
    case AttrType::kBool: return "BOOLEAN";
    case AttrType::kNull: return "NULL";
    case AttrType::kL: return "LIST";
    case AttrType::kM: return "MAP";
    case AttrType::kSS: return "STRING_SET";
    case AttrType::kNS: return "NUMBER_SET";
    case AttrType::kBS: return "BINARY_SET";
  }
  return "UNKNOWN";
}

}  // namespace

// ---------------------------------------------------------------- updates

void Parser::CheckArithmeticOperand(std::string_view op, const Operand& operand) {
  if (operand.kind == OperandKind::kValue && !operand.value.is(AttrType::kN)) {
    Note(kOperandType, "Incorrect operand type for operator or function; operator or function: " +
                           std::string(op) + ", operand type: " +
                           std::string(AttrTypeName(operand.value.type())));
  }
}

void Parser::CheckUpdateFunction(const Operand& call) {
  const std::string name(FunctionName(call.function));
  if (call.function == FunctionId::kIfNotExists) {
    if (call.args[0].kind != OperandKind::kPath) {
      Note(kOperandType,
           "Operator or function requires a document path; operator or function: " + name);
    }
    return;
  }
  for (const auto& arg : call.args) {  // list_append
    if (arg.kind == OperandKind::kValue && !arg.value.is(AttrType::kL)) {
      Note(kOperandType, "Incorrect operand type for operator or function; operator or "
                         "function: " + name + ", operand type: " +
                         std::string(AttrTypeName(arg.value.type())));
      return;
    }
  }
}

bool Parser::ParseSetValue(int depth, Operand* out) {
  if (!CheckDepth(depth)) return false;
  Operand lhs;
  if (At(TokenKind::kLParen)) {
    Advance();
    if (!ParseSetValue(depth + 1, &lhs)) return false;
    if (!Expect(TokenKind::kRParen)) return false;
    if (lhs.kind == OperandKind::kPlus || lhs.kind == OperandKind::kMinus) {
      *out = std::move(lhs);
      return true;
    }
  } else if (!ParseOperand(depth, &lhs)) {
    return false;
  }
  if (!At(TokenKind::kPlus) && !At(TokenKind::kMinus)) {
    *out = std::move(lhs);
    return true;
  }
  const bool plus = At(TokenKind::kPlus);
  if (!CountOperator()) return false;
  Advance();
  Operand rhs;
  if (!ParseOperand(depth, &rhs)) return false;
  CheckArithmeticOperand(plus ? "+" : "-", lhs);
  CheckArithmeticOperand(plus ? "+" : "-", rhs);
  out->kind = plus ? OperandKind::kPlus : OperandKind::kMinus;
  out->args.push_back(std::move(lhs));
  out->args.push_back(std::move(rhs));
  return true;
}

StatusOr<UpdatePlan> Parser::ParseUpdateExpression() {
  DR_RETURN_IF_ERROR(CheckPreconditions());
  tokens_ = Tokenize(text_);
  static constexpr std::pair<std::string_view, UpdateActionKind> kSections[] = {
      {"SET", UpdateActionKind::kSet},
      {"REMOVE", UpdateActionKind::kRemove},
      {"ADD", UpdateActionKind::kAdd},
      {"DELETE", UpdateActionKind::kDelete},
  };
  UpdatePlan plan;
  bool seen[4] = {false, false, false, false};
  while (!At(TokenKind::kEof)) {
    int section = -1;
    for (int i = 0; i < 4; ++i) {
      if (AtKeyword(kSections[i].first)) section = i;
    }
    if (section < 0) {
      Fail();
      return *fatal_;
    }
    if (seen[section]) {
      Note(kSection, "The \"" + std::string(kSections[section].first) +
                         "\" section can only be used once in an update expression;");
    }
    seen[section] = true;
    Advance();
    const UpdateActionKind kind = kSections[section].second;
    while (true) {
      UpdateAction action;
      action.kind = kind;
      if (!ParsePath(&action.path)) return *fatal_;
      if (kind == UpdateActionKind::kSet) {
        if (!Expect(TokenKind::kEq) || !ParseSetValue(0, &action.value)) return *fatal_;
      } else if (kind == UpdateActionKind::kAdd || kind == UpdateActionKind::kDelete) {
        if (!At(TokenKind::kValue)) {
          Fail();
          return *fatal_;
        }
        if (!ParseOperand(0, &action.value)) return *fatal_;
        const AttributeValue& v = action.value.value;
        const bool ok = kind == UpdateActionKind::kAdd ? (v.is(AttrType::kN) || v.is_set())
                                                       : v.is_set();
        if (!ok && errors_[kUndefined] == std::nullopt) {
          Note(kActionOperandType,
               "Incorrect operand type for operator or function; operator: " +
                   std::string(kSections[section].first) +
                   ", operand type: " + std::string(LongTypeName(v.type())));
        }
      }
      plan.actions.push_back(std::move(action));
      if (!At(TokenKind::kComma)) break;
      Advance();
    }
  }
  std::vector<const Path*> paths;
  paths.reserve(plan.actions.size());
  for (const auto& a : plan.actions) paths.push_back(&a.path);
  std::string overlap;
  std::string conflict;
  FindPathClashes(paths, &overlap, &conflict);
  if (!overlap.empty()) Note(kOverlap, overlap);
  if (!conflict.empty()) Note(kConflict, conflict);
  DR_RETURN_IF_ERROR(FinalError({kReserved, kUnknownFunction, kSection, kUndefined, kOverlap,
                                 kConflict, kActionOperandType, kOperandType, kOperandCount,
                                 kMisusedFunction}));
  return plan;
}

}  // namespace dynarock::expr
