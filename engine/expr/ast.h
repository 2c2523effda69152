// File: engine/expr/ast.h
//
// The parsed forms of DynamoDB's expressions, after #name and :value
// substitution. The parser (parser.cc) builds them; evaluate.cc, update.cc and
// project.cc walk them. Every tree is at most kMaxNestingDepth deep (the parser
// refuses deeper input), so the recursive walkers are bounded.
//
//   condition  := compare | between | in | function | AND(c, c, ...) | OR(...) | NOT c
//   operand    := path | value | function(operand, ...) | operand + operand | operand - operand
//   update     := action*, each SET path = operand | REMOVE path | ADD path value
//                                | DELETE path value

#ifndef DYNAROCK_ENGINE_EXPR_AST_H_
#define DYNAROCK_ENGINE_EXPR_AST_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "dynarock/attribute_value.h"
#include "engine/expr/expression.h"

namespace dynarock::expr {

// Limits from DynamoDB's documentation ("Expression parameters" in the service
// quotas page), plus our own nesting bound.
inline constexpr size_t kMaxExpressionBytes = 4096;
inline constexpr int kMaxOperators = 300;
inline constexpr size_t kMaxInOperands = 100;
inline constexpr size_t kMaxPlaceholderBytes = 255;
// Not a DynamoDB limit: the deepest nesting of parentheses and function calls
// the parser accepts, so that no input recurses without bound. Deep enough for
// anything the 300-operator limit lets through (each level of a nested
// "a = :v AND (...)" costs two operators).
inline constexpr int kMaxNestingDepth = 320;

enum class FunctionId : uint8_t {
  // Condition functions.
  kAttributeExists,
  kAttributeNotExists,
  kAttributeType,
  kBeginsWith,
  kContains,
  kSize,
  // Update functions.
  kIfNotExists,
  kListAppend,
};
std::string_view FunctionName(FunctionId id);

enum class OperandKind : uint8_t { kPath, kValue, kFunction, kPlus, kMinus };

struct Operand {
  OperandKind kind = OperandKind::kValue;
  Path path;             // kPath
  AttributeValue value;  // kValue (a copy of the :value)
  FunctionId function = FunctionId::kSize;  // kFunction
  std::vector<Operand> args;  // kFunction arguments; kPlus/kMinus: {lhs, rhs}
};

enum class CompareOp : uint8_t { kEq, kNe, kLt, kLe, kGt, kGe };
std::string_view CompareOpName(CompareOp op);  // "=", "<>", ...

enum class ConditionKind : uint8_t { kCompare, kBetween, kIn, kFunction, kAnd, kOr, kNot };

struct Condition {
  ConditionKind kind = ConditionKind::kCompare;
  CompareOp op = CompareOp::kEq;  // kCompare
  FunctionId function = FunctionId::kAttributeExists;  // kFunction
  // kCompare: {lhs, rhs}; kBetween: {x, lower, upper}; kIn: {x, v1, ..., vn};
  // kFunction: the arguments.
  std::vector<Operand> operands;
  // kAnd / kOr: two or more children (flattened); kNot: one child.
  std::vector<std::unique_ptr<Condition>> children;
};

enum class UpdateActionKind : uint8_t { kSet, kRemove, kAdd, kDelete };

struct UpdateAction {
  UpdateActionKind kind = UpdateActionKind::kSet;
  Path path;
  Operand value;  // kSet: the right-hand side; kAdd/kDelete: a kValue operand
};

struct UpdatePlan {
  std::vector<UpdateAction> actions;  // in expression order
  // Built from AttributeUpdates: ADD also appends lists, and type mismatches
  // report "Type mismatch for attribute to update".
  bool legacy = false;
};

// True if `word` is one of DynamoDB's reserved words (case-insensitive).
bool IsReservedWord(std::string_view word);

// How DynamoDB renders a path inside "Two document paths ..." messages:
// [a, b, [1], c].
std::string PathToBracketString(const Path& path);

// -1, 0, 1 ordering of paths: element by element, names bytewise, indexes
// numerically, a name before an index; a prefix first.
int ComparePaths(const Path& a, const Path& b);

// Checks a list of document paths for the overlap/conflict errors DynamoDB
// gives for update and projection expressions. `kind` prefixes the message.
Status CheckPathsDisjoint(const std::vector<const Path*>& paths, ExpressionKind kind);

// Evaluation helpers shared by parser.cc, evaluate.cc, update.cc and legacy.cc
// (defined in evaluate.cc).
//
// The value at `path` in `item`, or nullptr when the path does not resolve.
const AttributeValue* ResolvePath(const Item& item, const Path& path);

// The value as DynamoDB prints it in BETWEEN messages: {N:1}, {S:abc}.
std::string ValueForMessage(const AttributeValue& value);

// Number of UTF-16 code units in UTF-8 text, which is what DynamoDB's size()
// returns for a string (verified against DynamoDB by others: size of "é𝄞" is 3).
// Invalid bytes count one each.
int64_t Utf16Length(std::string_view utf8);

// True for S, N and B, the types < <= > >= BETWEEN can order.
bool IsOrderable(const AttributeValue& v);

// Orders two S, N or B values of the same type (numbers numerically, strings
// and binaries bytewise): <0, 0, >0.
int CompareScalars(const AttributeValue& a, const AttributeValue& b);

}  // namespace dynarock::expr

#endif  // DYNAROCK_ENGINE_EXPR_AST_H_
