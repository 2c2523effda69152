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

#include <string_view>
#include <vector>

#include "dynarock/status.h"
#include "engine/partiql/ast.h"

namespace dynarock::partiql {

// The longest statement DynamoDB accepts (in characters).
inline constexpr size_t kStatementCharsMax = 8192;

StatusOr<Statement> ParseStatement(std::string_view text,
                                   const std::vector<AttributeValue>& parameters);

}  // namespace dynarock::partiql

#endif  // DYNAROCK_ENGINE_PARTIQL_PARSER_H_
