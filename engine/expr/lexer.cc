// File: engine/expr/lexer.cc

#include "engine/expr/lexer.h"

namespace dynarock::expr {
namespace {

bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsWordChar(char c) { return IsAlpha(c) || IsDigit(c) || c == '_'; }
bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Length of the UTF-8 character starting at text[i] (1 for a stray byte).
size_t Utf8Length(std::string_view text, size_t i) {
  const auto c = static_cast<unsigned char>(text[i]);
  size_t n = 1;
  if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
  } else if (c >= 0xE0) {
    n = 3;
  } else if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  }
  if (i + n > text.size()) return 1;
  for (size_t k = 1; k < n; ++k) {
    if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return 1;
  }
  return n;
}

char ToUpper(char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c; }

}  // namespace

std::vector<Token> Tokenize(std::string_view text) {
  std::vector<Token> tokens;
  size_t i = 0;
  const size_t n = text.size();
  while (i < n) {
    const char c = text[i];
    if (IsSpace(c)) {
      ++i;
      continue;
    }
    Token t;
    t.offset = static_cast<uint32_t>(i);
    size_t len = 1;
    if (IsAlpha(c) || c == '_') {
      t.kind = TokenKind::kIdentifier;
      while (i + len < n && IsWordChar(text[i + len])) ++len;
    } else if (IsDigit(c)) {
      t.kind = TokenKind::kNumber;
      while (i + len < n && IsDigit(text[i + len])) ++len;
    } else if (c == '#' || c == ':') {
      while (i + len < n && IsWordChar(text[i + len])) ++len;
      t.kind = len > 1 ? (c == '#' ? TokenKind::kName : TokenKind::kValue) : TokenKind::kInvalid;
    } else {
      const char next = i + 1 < n ? text[i + 1] : '\0';
      switch (c) {
        case '(': t.kind = TokenKind::kLParen; break;
        case ')': t.kind = TokenKind::kRParen; break;
        case '[': t.kind = TokenKind::kLBracket; break;
        case ']': t.kind = TokenKind::kRBracket; break;
        case ',': t.kind = TokenKind::kComma; break;
        case '.': t.kind = TokenKind::kDot; break;
        case '=': t.kind = TokenKind::kEq; break;
        case '+': t.kind = TokenKind::kPlus; break;
        case '-': t.kind = TokenKind::kMinus; break;
        case '<':
          if (next == '>') {
            t.kind = TokenKind::kNe;
            len = 2;
          } else if (next == '=') {
            t.kind = TokenKind::kLe;
            len = 2;
          } else {
            t.kind = TokenKind::kLt;
          }
          break;
        case '>':
          if (next == '=') {
            t.kind = TokenKind::kGe;
            len = 2;
          } else {
            t.kind = TokenKind::kGt;
          }
          break;
        default:
          t.kind = TokenKind::kInvalid;
          len = Utf8Length(text, i);
          break;
      }
    }
    t.length = static_cast<uint32_t>(len);
    t.text = text.substr(i, len);
    tokens.push_back(t);
    i += len;
  }
  Token eof;
  eof.kind = TokenKind::kEof;
  eof.offset = static_cast<uint32_t>(n);
  tokens.push_back(eof);
  return tokens;
}

bool IsKeyword(const Token& token, std::string_view keyword) {
  if (token.kind != TokenKind::kIdentifier || token.text.size() != keyword.size()) return false;
  for (size_t i = 0; i < keyword.size(); ++i) {
    if (ToUpper(token.text[i]) != keyword[i]) return false;
  }
  return true;
}

}  // namespace dynarock::expr
