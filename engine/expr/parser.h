// File: engine/expr/parser.h
//
// A hand-written recursive-descent parser for DynamoDB's expression language.
// Internal to engine/expr: the engine calls ParseCondition, ParseUpdate,
// ParseProjection and ParseKeyCondition (expression.h), which wrap this class.
//
// Grammar (keywords case-insensitive, function names case-sensitive):
//   condition   := or
//   or          := and ( OR and )*
//   and         := not ( AND not )*
//   not         := NOT* primary
//   primary     := '(' or ')' [ tail ]  |  operand [ tail ]
//   tail        := comparator operand | BETWEEN operand AND operand
//                | IN '(' operand ( ',' operand )* ')'
//   operand     := path | :value | function '(' operand ( ',' operand )* ')'
//                | '(' operand ')'
//   path        := ( identifier | #name ) ( '.' ( identifier | #name ) | '[' digits ']' )*
//   update      := ( SET set ( ',' set )* | REMOVE path ( ',' path )*
//                  | ADD path :value ( ',' ... )* | DELETE path :value ( ',' ... )* )+
//   set         := path '=' value ;  value := operand [ ('+' | '-') operand ]
//   projection  := path ( ',' path )*
//
// A parenthesised operand and a parenthesised condition look alike until the
// token after ')', so `primary` parses either and decides afterwards; nothing
// backtracks. Recursion only happens through '(' and function calls, and both
// are limited to kMaxNestingDepth levels.
//
// Errors follow DynamoDB: the first syntax error wins; otherwise semantic errors
// (unknown function, reserved word, undefined #name/:value, operand checks) are
// collected while parsing and the most important one is reported, in the order
// DynamoDB checks them.

#ifndef DYNAROCK_ENGINE_EXPR_PARSER_H_
#define DYNAROCK_ENGINE_EXPR_PARSER_H_

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/expr/ast.h"
#include "engine/expr/expression.h"
#include "engine/expr/lexer.h"

namespace dynarock::expr {

// Finds the first overlapping pair and the first conflicting pair of paths,
// comparing each path with those before it, as DynamoDB does (an update's or a
// projection's paths).
void FindPathClashes(const std::vector<const Path*>& paths, std::string* overlap,
                     std::string* conflict);

class Parser {
 public:
  Parser(std::string_view text, ExpressionKind kind, ExpressionContext* ctx);

  StatusOr<std::unique_ptr<Condition>> ParseConditionExpression();
  StatusOr<UpdatePlan> ParseUpdateExpression();
  StatusOr<std::vector<Path>> ParseProjectionExpression();
  Status CheckPreconditions() const;  // size and emptiness

 private:
  // Semantic error categories, each keeping its first message.
  enum ErrorCategory {
    kRedundantParens,
    kUnknownFunction,
    kMisusedFunction,
    kReserved,
    kSection,
    kUndefined,
    kOverlap,
    kConflict,
    kOperandCount,
    kDistinct,
    kOperandType,
    kActionOperandType,  // an ADD or DELETE action's value
    kNumCategories,
  };

  // A parsed primary: either a condition or a bare operand whose role is
  // decided by the caller.
  struct Node {
    std::unique_ptr<Condition> condition;
    std::optional<Operand> operand;
  };

  const Token& Cur() const { return tokens_[pos_]; }
  bool At(TokenKind kind) const { return tokens_[pos_].kind == kind; }
  bool AtKeyword(std::string_view keyword) const { return IsKeyword(tokens_[pos_], keyword); }
  void Advance() {
    if (pos_ + 1 < tokens_.size()) ++pos_;
  }
  // Records a syntax error at the current token; always returns false.
  bool Fail();
  bool Fail(std::string message);  // a non-syntax error that stops parsing
  bool Expect(TokenKind kind);
  bool CountOperator();
  bool CheckDepth(int depth);
  // After '(' at token `open` and its ')' at `close`: notes "redundant
  // parentheses" when what they enclose is itself wholly parenthesised, as in
  // ((a = :v)), which DynamoDB refuses.
  void CheckRedundantParens(size_t open, size_t close);
  void CheckOrderable(std::string_view op, const std::vector<Operand>& operands);
  void Note(ErrorCategory category, std::string message);
  // The error to report: the first category of `order` that has one;
  // otherwise, of the categories in `in_text_order`, the one noted first
  // (DynamoDB checks those operator by operator, left to right).
  Status FinalError(const std::vector<ErrorCategory>& order,
                    const std::vector<ErrorCategory>& in_text_order = {}) const;
  Status Prefixed(std::string_view message) const;

  // Conditions.
  bool ParseOr(int depth, Node* out);
  bool ParseAnd(int depth, Node* out);
  bool ParseNot(int depth, Node* out);
  bool ParsePrimary(int depth, Node* out);
  bool ToCondition(Node* node, std::unique_ptr<Condition>* out);
  bool ParseTail(int depth, Operand lhs, Node* out);
  void CheckConditionFunction(const Operand& call);
  void CheckMisused(const std::vector<Operand>& operands);
  void CheckDistinct(std::string_view op, const Operand& a, const Operand& b);

  // Operands and paths.
  bool ParseOperand(int depth, Operand* out);
  bool ParseFunctionCall(int depth, Operand* out);
  bool ParsePath(Path* out);
  bool ParsePathElementName(PathElement* out);
  bool IsGrammarKeyword(const Token& token) const;

  // Updates.
  bool ParseSetValue(int depth, Operand* out);
  void CheckUpdateFunction(const Operand& call);
  void CheckArithmeticOperand(std::string_view op, const Operand& operand);

  std::string_view text_;
  ExpressionKind kind_;
  ExpressionContext* ctx_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int operators_ = 0;
  std::optional<Status> fatal_;  // syntax error or limit
  std::array<std::optional<std::string>, kNumCategories> errors_;
  std::array<int, kNumCategories> noted_at_{};  // the order errors_ were first noted in
  int notes_ = 0;
};

}  // namespace dynarock::expr

#endif  // DYNAROCK_ENGINE_EXPR_PARSER_H_
