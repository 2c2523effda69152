// File: engine/partiql/parser.h
//
// Parses one PartiQL statement of DynamoDB's subset into a Statement
// (ast.h), substituting `?` parameters in order. Keywords are
// case-insensitive; identifiers are case-sensitive, bare or "double-quoted";
// strings are 'single-quoted' ('' inside for a quote); numbers as written;
// TRUE, FALSE, NULL; {'k': v, ...} maps, [v, ...] lists, <<v, ...>> sets (of
// strings or of numbers; binary sets come only as parameters).
//
// Errors are ValidationExceptions in DynamoDB's words: "Statement wasn't well
// formed, can't be processed: ..." for syntax, and DynamoDB's messages for
// SQL it does not support (joins, GROUP BY, aggregates, subqueries) and for
// parameter counts.

#ifndef DYNAROCK_ENGINE_PARTIQL_PARSER_H_
#define DYNAROCK_ENGINE_PARTIQL_PARSER_H_

#include <optional>
#include <string_view>
#include <vector>

#include "dynarock/status.h"
#include "engine/partiql/ast.h"

namespace dynarock::partiql {

// The longest statement DynamoDB accepts (in characters).
inline constexpr size_t kStatementCharsMax = 8192;

StatusOr<Statement> ParseStatement(std::string_view text,
                                   const std::vector<AttributeValue>& parameters);

// Parses a statement once for any parameters: a `?` where an operand or an
// INSERT tuple's member belongs becomes a slot (Expr::param,
// Statement::insert_params) filled at execution. nullopt when the text is
// not a valid statement or has a `?` inside a literal (whose checks depend on
// the value): ParseStatement then gives the answer, errors included.
std::optional<Statement> ParseTemplate(std::string_view text);

}  // namespace dynarock::partiql

#endif  // DYNAROCK_ENGINE_PARTIQL_PARSER_H_
