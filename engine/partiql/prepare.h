// File: engine/partiql/prepare.h
//
// Statements parsed and planned once: the text of a statement maps to its
// template (parser.h's ParseTemplate), kept in a process-wide cache of
// recently used statements, so that running the same statement with new
// parameters costs a lookup rather than a parse. Each template also keeps
// what its last run learnt of its table (the key schema and, for a SELECT,
// the plan), reused while the DB's catalog is unchanged (DB::CatalogVersion).
// A statement that cannot be a template (a `?` inside a literal, an error) is
// parsed with its parameters each time.

#ifndef DYNAROCK_ENGINE_PARTIQL_PREPARE_H_
#define DYNAROCK_ENGINE_PARTIQL_PREPARE_H_

#include <memory>
#include <string>
#include <vector>

#include "dynarock/db.h"
#include "dynarock/status.h"
#include "engine/partiql/ast.h"
#include "engine/partiql/plan.h"

namespace dynarock::partiql {

// What a statement learnt of its table under one catalog version.
struct TablePlan {
  uint64_t catalog_version = 0;
  TableDescription table;            // DB::DescribeKeys
  // A SELECT's plan (its Exprs are the statement's), or why it has none (a
  // SELECT in a batch or a transaction does not need one).
  std::optional<SelectPlan> select;
  Status select_status;
};
struct PlanMemo;

// A statement ready to plan: the statement, and the parameters its slots
// (if any) take. Valid while `params` is.
struct Prepared {
  std::shared_ptr<const Statement> statement;
  const std::vector<AttributeValue>* params = nullptr;
  std::shared_ptr<PlanMemo> memo;  // a cached template's; null otherwise
};

StatusOr<Prepared> Prepare(const std::string& text, const std::vector<AttributeValue>& params);

// The statement's table (DynamoDB's PartiQL error when it does not exist) and,
// for a SELECT, its plan: the template's memo while db's catalog is unchanged.
StatusOr<std::shared_ptr<const TablePlan>> PlanTable(DB& db, const Prepared& p);

// The cache's capacity (statements) and its current size, for tests.
inline constexpr size_t kPreparedStatementsMax = 256;
size_t PreparedStatementsCached();

}  // namespace dynarock::partiql

#endif  // DYNAROCK_ENGINE_PARTIQL_PREPARE_H_
