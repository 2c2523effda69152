// File: engine/expr/parser_conditions.cc
//
// The condition part of the expression parser (parser.h): ConditionExpression,
// FilterExpression and KeyConditionExpression, their functions and operand
// checks.

#include "engine/expr/parser.h"

#include <algorithm>
#include <utility>

namespace dynarock::expr {
namespace {

constexpr std::string_view kValidTypes = "{B,NULL,SS,BOOL,L,BS,N,NS,S,M}";

}  // namespace

// ---------------------------------------------------------------- conditions

void Parser::CheckMisused(const std::vector<Operand>& operands) {
  for (const auto& op : operands) {
    if (op.kind == OperandKind::kFunction && op.function != FunctionId::kSize) {
      Note(kMisusedFunction,
           "The function is not allowed to be used this way in an expression; function: " +
               std::string(FunctionName(op.function)));
    }
  }
}

void Parser::CheckDistinct(std::string_view op, const Operand& a, const Operand& b) {
  if (a.kind == OperandKind::kPath && b.kind == OperandKind::kPath && a.path == b.path) {
    Note(kDistinct, "The first operand must be distinct from the remaining operands for this "
                    "operator or function; operator: " + std::string(op) +
                    ", first operand: " + PathToBracketString(a.path));
  }
}

void Parser::CheckConditionFunction(const Operand& call) {
  const std::string name(FunctionName(call.function));
  const auto& args = call.args;
  CheckMisused(args);
  if (args.size() == 2) CheckDistinct(name, args[0], args[1]);
  auto type_error = [&](const Operand& arg) {
    Note(kOperandType, "Incorrect operand type for operator or function; operator or function: " +
                           name + ", operand type: " +
                           std::string(AttrTypeName(arg.value.type())));
  };
  switch (call.function) {
    case FunctionId::kAttributeExists:
    case FunctionId::kAttributeNotExists:
    case FunctionId::kAttributeType:
      if (args[0].kind != OperandKind::kPath) {
        Note(kOperandType,
             "Operator or function requires a document path; operator or function: " + name);
        return;
      }
      if (call.function == FunctionId::kAttributeType && args[1].kind == OperandKind::kValue) {
        AttrType parsed;
        if (!args[1].value.is(AttrType::kS)) {
          type_error(args[1]);
        } else if (!ParseAttrTypeName(args[1].value.scalar(), &parsed)) {
          Note(kOperandType, "Invalid attribute type name found; type: " +
                                 args[1].value.scalar() + ", valid types: " +
                                 std::string(kValidTypes));
        }
      }
      return;
    case FunctionId::kBeginsWith:
      for (const auto& arg : args) {
        if (arg.kind == OperandKind::kValue && !arg.value.is(AttrType::kS) &&
            !arg.value.is(AttrType::kB)) {
          type_error(arg);
          return;
        }
      }
      return;
    case FunctionId::kSize:
      if (args[0].kind == OperandKind::kValue &&
          (args[0].value.is(AttrType::kN) || args[0].value.is(AttrType::kBool) ||
           args[0].value.is(AttrType::kNull))) {
        type_error(args[0]);
      }
      return;
    default:
      return;
  }
}

bool Parser::ToCondition(Node* node, std::unique_ptr<Condition>* out) {
  if (node->condition) {
    *out = std::move(node->condition);
    return true;
  }
  Operand& op = *node->operand;
  if (op.kind != OperandKind::kFunction) return Fail();
  if (op.function == FunctionId::kSize) {
    Note(kMisusedFunction,
         "The function is not allowed to be used this way in an expression; function: size");
  }
  auto cond = std::make_unique<Condition>();
  cond->kind = ConditionKind::kFunction;
  cond->function = op.function;
  cond->operands = std::move(op.args);
  *out = std::move(cond);
  return true;
}

bool Parser::ParseOr(int depth, Node* out) {
  Node first;
  if (!ParseAnd(depth, &first)) return false;
  if (!AtKeyword("OR")) {
    *out = std::move(first);
    return true;
  }
  auto result = std::make_unique<Condition>();
  result->kind = ConditionKind::kOr;
  std::unique_ptr<Condition> c;
  if (!ToCondition(&first, &c)) return false;
  result->children.push_back(std::move(c));
  while (AtKeyword("OR")) {
    if (!CountOperator()) return false;
    Advance();
    Node next;
    if (!ParseAnd(depth, &next)) return false;
    if (!ToCondition(&next, &c)) return false;
    result->children.push_back(std::move(c));
  }
  out->condition = std::move(result);
  return true;
}

bool Parser::ParseAnd(int depth, Node* out) {
  Node first;
  if (!ParseNot(depth, &first)) return false;
  if (!AtKeyword("AND")) {
    *out = std::move(first);
    return true;
  }
  auto result = std::make_unique<Condition>();
  result->kind = ConditionKind::kAnd;
  std::unique_ptr<Condition> c;
  if (!ToCondition(&first, &c)) return false;
  result->children.push_back(std::move(c));
  while (AtKeyword("AND")) {
    if (!CountOperator()) return false;
    Advance();
    Node next;
    if (!ParseNot(depth, &next)) return false;
    if (!ToCondition(&next, &c)) return false;
    result->children.push_back(std::move(c));
  }
  out->condition = std::move(result);
  return true;
}

bool Parser::ParseNot(int depth, Node* out) {
  int nots = 0;
  while (AtKeyword("NOT")) {
    if (!CountOperator()) return false;
    Advance();
    ++nots;
  }
  Node inner;
  if (!ParsePrimary(depth, &inner)) return false;
  if (nots == 0) {
    *out = std::move(inner);
    return true;
  }
  std::unique_ptr<Condition> c;
  if (!ToCondition(&inner, &c)) return false;
  if (nots % 2 == 1) {  // NOT NOT x is x; keep the tree shallow.
    auto negated = std::make_unique<Condition>();
    negated->kind = ConditionKind::kNot;
    negated->children.push_back(std::move(c));
    c = std::move(negated);
  }
  out->condition = std::move(c);
  return true;
}

bool Parser::ParsePrimary(int depth, Node* out) {
  if (!CheckDepth(depth)) return false;
  Operand lhs;
  if (At(TokenKind::kLParen)) {
    const size_t open = pos_;
    Advance();
    Node inner;
    if (!ParseOr(depth + 1, &inner)) return false;
    CheckRedundantParens(open, pos_);
    if (!Expect(TokenKind::kRParen)) return false;
    if (inner.condition) {
      *out = std::move(inner);
      return true;
    }
    lhs = std::move(*inner.operand);
  } else if (!ParseOperand(depth, &lhs)) {
    return false;
  }
  return ParseTail(depth, std::move(lhs), out);
}

bool Parser::ParseTail(int depth, Operand lhs, Node* out) {
  auto cond = std::make_unique<Condition>();
  static constexpr std::pair<TokenKind, CompareOp> kComparators[] = {
      {TokenKind::kEq, CompareOp::kEq}, {TokenKind::kNe, CompareOp::kNe},
      {TokenKind::kLt, CompareOp::kLt}, {TokenKind::kLe, CompareOp::kLe},
      {TokenKind::kGt, CompareOp::kGt}, {TokenKind::kGe, CompareOp::kGe},
  };
  for (const auto& [token, op] : kComparators) {
    if (!At(token)) continue;
    if (!CountOperator()) return false;
    Advance();
    Operand rhs;
    if (!ParseOperand(depth, &rhs)) return false;
    cond->kind = ConditionKind::kCompare;
    cond->op = op;
    cond->operands.push_back(std::move(lhs));
    cond->operands.push_back(std::move(rhs));
    CheckMisused(cond->operands);
    CheckDistinct(CompareOpName(op), cond->operands[0], cond->operands[1]);
    if (op != CompareOp::kEq && op != CompareOp::kNe) {
      CheckOrderable(CompareOpName(op), cond->operands);
    }
    out->condition = std::move(cond);
    return true;
  }
  if (AtKeyword("BETWEEN")) {
    if (!CountOperator()) return false;
    Advance();
    Operand lower;
    Operand upper;
    if (!ParseOperand(depth, &lower)) return false;
    if (!AtKeyword("AND")) return Fail();
    Advance();
    if (!ParseOperand(depth, &upper)) return false;
    if (lower.kind == OperandKind::kValue && upper.kind == OperandKind::kValue) {
      const std::string bounds = "lower bound operand: AttributeValue: " +
                                 ValueForMessage(lower.value) +
                                 ", upper bound operand: AttributeValue: " +
                                 ValueForMessage(upper.value);
      if (lower.value.type() != upper.value.type()) {
        Note(kOperandType,
             "The BETWEEN operator requires same data type for lower and upper bounds; " + bounds);
      } else if (IsOrderable(lower.value) && CompareScalars(lower.value, upper.value) > 0) {
        Note(kOperandType, "The BETWEEN operator requires upper bound to be greater than or "
                           "equal to lower bound; " + bounds);
      }
    }
    cond->kind = ConditionKind::kBetween;
    cond->operands.push_back(std::move(lhs));
    cond->operands.push_back(std::move(lower));
    cond->operands.push_back(std::move(upper));
    CheckMisused(cond->operands);
    CheckOrderable("BETWEEN", cond->operands);
    out->condition = std::move(cond);
    return true;
  }
  if (AtKeyword("IN")) {
    if (!CountOperator()) return false;
    Advance();
    if (!Expect(TokenKind::kLParen)) return false;
    cond->kind = ConditionKind::kIn;
    cond->operands.push_back(std::move(lhs));
    while (true) {
      Operand item;
      if (!ParseOperand(depth, &item)) return false;
      cond->operands.push_back(std::move(item));
      if (!At(TokenKind::kComma)) break;
      Advance();
    }
    if (!Expect(TokenKind::kRParen)) return false;
    const size_t n = cond->operands.size() - 1;
    if (n > kMaxInOperands) {
      return Fail("The IN operator is provided with too many operands; number of operands: " +
                  std::to_string(n));
    }
    CheckMisused(cond->operands);
    out->condition = std::move(cond);
    return true;
  }
  out->operand = std::move(lhs);
  return true;
}

StatusOr<std::unique_ptr<Condition>> Parser::ParseConditionExpression() {
  DR_RETURN_IF_ERROR(CheckPreconditions());
  tokens_ = Tokenize(text_);
  Node node;
  std::unique_ptr<Condition> cond;
  if (!ParseOr(0, &node) || !ToCondition(&node, &cond) ||
      (!At(TokenKind::kEof) && !Fail())) {
    return *fatal_;
  }
  DR_RETURN_IF_ERROR(FinalError({kRedundantParens, kUnknownFunction, kMisusedFunction, kReserved},
                                {kUndefined, kOperandCount, kDistinct, kOperandType}));
  return cond;
}

}  // namespace dynarock::expr
