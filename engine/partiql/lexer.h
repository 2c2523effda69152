// File: engine/partiql/lexer.h
//
// The tokens of a PartiQL statement (parser.cc's input): identifiers, "quoted"
// names, 'strings', numbers and punctuation, each with where it stands in the
// statement; PartiQL's reserved words. Internal to the PartiQL parser.

#ifndef DYNAROCK_ENGINE_PARTIQL_LEXER_H_
#define DYNAROCK_ENGINE_PARTIQL_LEXER_H_

#include <string>
#include <string_view>
#include <vector>

#include "dynarock/status.h"

namespace dynarock::partiql {

enum class Tok { kIdent, kQuoted, kString, kNumber, kPunct, kEnd };

struct Token {
  Tok kind = Tok::kEnd;
  std::string text;  // identifier/string contents, number text, punctuation
  size_t pos = 0;    // offset in the statement
  size_t len = 0;    // characters in the statement (quotes included)
};

// ValidationException "Statement wasn't well formed, can't be processed: <what>".
Status Syntax(const std::string& what);

// The statement's tokens, ending with one of kind kEnd; a syntax error for an
// unterminated comment, string or quoted name, or a character no token starts
// with.
StatusOr<std::vector<Token>> Tokenize(std::string_view s);

// Whether `word` is one of PartiQL's reserved words (any case): a syntax error
// as a bare identifier, a name like any other when "quoted".
bool IsReserved(std::string_view word);

bool EqualsIgnoreCase(std::string_view a, std::string_view b);

}  // namespace dynarock::partiql

#endif  // DYNAROCK_ENGINE_PARTIQL_LEXER_H_
