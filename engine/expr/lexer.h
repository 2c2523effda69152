// File: engine/expr/lexer.h
//
// Splits an expression into tokens with byte offsets. The lexer never fails:
// a byte it does not understand becomes a kInvalid token (one UTF-8 character
// wide), and the parser reports it as DynamoDB does:
//   Syntax error; token: "!", near: "a !b"
//
// Token grammar:
//   identifier := [A-Za-z_][A-Za-z0-9_]*     (keywords are identifiers too)
//   name       := '#' [A-Za-z0-9_]+
//   value      := ':' [A-Za-z0-9_]+
//   number     := [0-9]+                     (list indexes)
//   punctuation:= ( ) [ ] , . = <> < <= > >= + -

#ifndef DYNAROCK_ENGINE_EXPR_LEXER_H_
#define DYNAROCK_ENGINE_EXPR_LEXER_H_

#include <cstdint>
#include <string_view>
#include <vector>

namespace dynarock::expr {

enum class TokenKind : uint8_t {
  kIdentifier,
  kName,    // #name
  kValue,   // :value
  kNumber,  // digits
  kLParen,
  kRParen,
  kLBracket,
  kRBracket,
  kComma,
  kDot,
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kPlus,
  kMinus,
  kInvalid,
  kEof,
};

struct Token {
  TokenKind kind = TokenKind::kEof;
  uint32_t offset = 0;  // byte offset in the expression
  uint32_t length = 0;  // 0 for kEof
  std::string_view text;  // a view into the expression ("" for kEof)
};

// Tokenizes `text` (which must outlive the tokens); the last token is kEof.
std::vector<Token> Tokenize(std::string_view text);

// True if `token` is the identifier `keyword`, compared case-insensitively.
bool IsKeyword(const Token& token, std::string_view keyword);

}  // namespace dynarock::expr

#endif  // DYNAROCK_ENGINE_EXPR_LEXER_H_
