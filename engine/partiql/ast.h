// File: engine/partiql/ast.h
//
// A parsed PartiQL statement (parser.h), in DynamoDB's subset: SELECT, INSERT,
// UPDATE, DELETE and, inside transactions, EXISTS(SELECT ...). Values are
// AttributeValues already (literals converted, `?` parameters substituted),
// except in a template (parser.h's ParseTemplate), where a `?` is a slot that
// execution fills from the request's parameters (Expr::param,
// Statement::insert_params).

#ifndef DYNAROCK_ENGINE_PARTIQL_AST_H_
#define DYNAROCK_ENGINE_PARTIQL_AST_H_

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "dynarock/attribute_value.h"

namespace dynarock::partiql {

// A document path: a top-level name, then .name and [index] steps.
struct PathStep {
  std::string name;  // when !is_index
  int64_t index = 0;
  bool is_index = false;
};
using Path = std::vector<PathStep>;

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Expr {
  enum class Kind {
    kPath,      // path
    kValue,     // value
    kCompare,   // op: "=", "<>", "<", "<=", ">", ">="; args[0], args[1]
    kBetween,   // args[0] BETWEEN args[1] AND args[2]
    kIn,        // args[0] IN (args[1..])
    kAnd,
    kOr,
    kNot,
    kIsMissing,  // args[0] IS [NOT] MISSING (negated)
    kIsNull,     // args[0] IS [NOT] NULL (negated)
    kCall,       // name(args): begins_with, contains, attribute_type, size,
                 // list_append, set_add, set_delete
    kArith,      // op "+" or "-": args[0] op args[1]
  };
  Kind kind = Kind::kValue;
  Path path;
  AttributeValue value;
  std::string op;  // comparison or arithmetic operator, function name
  bool negated = false;
  std::vector<ExprPtr> args;
  int param = -1;  // kValue in a template: the `?`'s position, `value` unset
};

struct SetClause {
  Path path;
  ExprPtr value;
};

struct OrderTerm {
  Path path;
  bool descending = false;
};

struct Statement {
  enum class Kind { kSelect, kInsert, kUpdate, kDelete, kExists };
  Kind kind = Kind::kSelect;
  std::string table;
  std::optional<std::string> index;  // SELECT ... FROM "table"."index"
  std::vector<Path> projection;      // empty: *
  ExprPtr where;
  std::vector<OrderTerm> order_by;   // ORDER BY key [ASC|DESC], ...
  Item insert_value;                 // INSERT ... VALUE {...}
  std::vector<SetClause> sets;       // UPDATE ... SET
  std::vector<Path> removes;         // UPDATE ... REMOVE
  // RETURNING: "ALL OLD", "ALL NEW", "MODIFIED OLD", "MODIFIED NEW".
  std::optional<std::string> returning;
  // In a template: INSERT tuple members given as `?` (member, position), and
  // how many `?`s the statement has.
  std::vector<std::pair<std::string, size_t>> insert_params;
  size_t param_count = 0;
};

}  // namespace dynarock::partiql

#endif  // DYNAROCK_ENGINE_PARTIQL_AST_H_
