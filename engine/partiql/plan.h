// File: engine/partiql/plan.h
//
// What a parsed statement becomes among the DB's own requests (execute.cc
// runs them, explain.cc shows them): its conditions written in DynamoDB's
// expression language with #name and :value placeholders, so that the DB
// validates, evaluates, bills and logs them exactly as it does its JSON
// counterparts.
//
//   SELECT, WHERE fixing every key attribute (table only)   -> GetItem
//   SELECT, WHERE fixing the partition key (table or index) -> Query: key
//           attributes' conditions as the key condition, the rest a filter
//           (conditions on key attributes, which a Query's filter cannot
//           read, are applied to the Query's items here)
//   SELECT, WHERE naming partitions (pk IN [...], pk = a OR pk = b)
//                                                         -> a Query of each
//   SELECT, otherwise                                        -> Scan with a filter
//   INSERT  -> PutItem if the key does not exist (DuplicateItemException)
//   UPDATE  -> UpdateItem of the key the WHERE fixes, the item must exist, the
//              rest of the WHERE a condition
//   DELETE  -> DeleteItem likewise
//   EXISTS  -> (transactions) a ConditionCheck
//
// A statement may be a template (parser.h's ParseTemplate) whose `?` slots
// take the request's parameters: every function here reads a value through
// ValueOf with those parameters.

#ifndef DYNAROCK_ENGINE_PARTIQL_PLAN_H_
#define DYNAROCK_ENGINE_PARTIQL_PLAN_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "dynarock/db.h"
#include "dynarock/requests.h"
#include "dynarock/status.h"
#include "engine/partiql/ast.h"

namespace dynarock::partiql {

using Params = std::vector<AttributeValue>;

// A kValue expression's value: its literal, or the parameter its slot names.
inline const AttributeValue& ValueOf(const Expr& e, const Params& params) {
  return e.param >= 0 ? params[static_cast<size_t>(e.param)] : e.value;
}

// DynamoDB expressions with placeholders, built from PartiQL's.
class ExpressionWriter {
 public:
  explicit ExpressionWriter(const Params& params) : params_(params) {}

  std::string Name(const std::string& name);
  std::string Value(const AttributeValue& v);
  std::string PathText(const Path& p);
  StatusOr<std::string> Operand(const Expr& e);
  StatusOr<std::string> Condition(const Expr& e);
  const AttributeValue& ValueOf(const Expr& e) const { return partiql::ValueOf(e, params_); }

  NameMap& names() { return names_; }
  ValueMap& values() { return values_; }
  bool has_names() const { return !names_.empty(); }
  bool has_values() const { return !values_.empty(); }

  static Status Unsupported(const std::string& what);

 private:
  const Params& params_;
  std::map<std::string, std::string> name_keys_;
  NameMap names_;
  ValueMap values_;
};

// The top-level AND terms of a WHERE.
void Conjuncts(const Expr* e, std::vector<const Expr*>* out);

// `name = value` (either way round) on a top-level attribute: the value's
// expression, or null.
const Expr* EqualityOn(const Expr* e, const std::string& name);

struct KeyNames {
  std::string hash;
  std::string range;  // empty without a sort key
};
KeyNames KeysOf(const std::vector<KeySchemaElement>& schema);

// The table's key schema and indexes (DB::DescribeKeys), or DynamoDB's
// PartiQL answer for a table that does not exist.
StatusOr<TableDescription> Describe(DB& db, const std::string& table);

// The key a write's (or a single-item read's) WHERE fixes, and the rest of
// the WHERE.
struct KeyedWhere {
  Item key;
  std::vector<const Expr*> rest;
};
StatusOr<KeyedWhere> KeyFromWhere(const Statement& st, const Params& params, const KeyNames& keys);

// The top-level attribute names an expression reads.
void NamesRead(const Expr& e, std::vector<std::string>* out);

// The conditions joined with AND.
StatusOr<std::string> AndAll(ExpressionWriter& w, const std::vector<const Expr*>& terms);

// NextToken: the LastEvaluatedKey in the item codec, as hex.
std::string EncodeToken(const Item& key);
StatusOr<Item> DecodeToken(const std::string& token);

// DynamoDB's PartiQL names a nested projection by its last step: SELECT
// m.a.b[0], l[1] gives {"b[0]": ..., "l[1]": ...}.
void FlattenProjection(const Statement& st, std::vector<Item>* items);
std::optional<std::string> ProjectionText(ExpressionWriter& w, const Statement& st);

// What a SELECT becomes, from its WHERE and the key schema of what it reads.
struct SelectPlan {
  KeyNames keys;
  const Expr* hash_eq = nullptr;       // the partition key's equality
  std::vector<const Expr*> partitions;  // or the values of several partitions
  const Expr* range_cond = nullptr;    // a sort-key condition a Query can take
  // A multi-attribute key's further terms for the key condition: equalities on
  // the index's other partition attributes, and conditions on its further sort
  // attributes (each after an equality on the one before).
  std::vector<const Expr*> key_more;
  std::vector<const Expr*> rest;       // the filter
  std::vector<const Expr*> key_rest;   // a Query's conditions on key attributes
  bool get = false;                    // the whole key, nothing else: a GetItem
  // ORDER BY: the sort key's direction; partitions in key order (the
  // partition key named), descending or not.
  bool forward = true;
  bool order_partitions = false;
  bool partitions_descending = false;

  bool query() const { return hash_eq != nullptr || !partitions.empty(); }
};
StatusOr<SelectPlan> PlanSelect(const Statement& st, const TableDescription& table);

// A key attribute's value against its type in the table's attribute
// definitions: "Key attribute's data type should match ..." when it does not.
Status CheckKeyType(const TableDescription& table, const std::string& name,
                    const AttributeValue& value);
// The key values a SELECT's plan uses (partition values, the sort-key
// condition's operands), each checked so.
Status CheckSelectKeyTypes(const SelectPlan& plan, const TableDescription& table,
                           const Params& params);

// The write request a statement becomes (also a transaction's item).
struct PlannedWrite {
  TransactWriteItem item;  // kind, table, key/item, expressions
  ReturnValue return_values = ReturnValue::kNone;
};
StatusOr<PlannedWrite> PlanWrite(const Statement& st, const Params& params,
                                 const TableDescription& table);

}  // namespace dynarock::partiql

#endif  // DYNAROCK_ENGINE_PARTIQL_PLAN_H_
