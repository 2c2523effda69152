// File: dynarock/partiql.h
//
// DynamoDB's PartiQL over the embedded DB: ExecuteStatement,
// BatchExecuteStatement and ExecuteTransaction. A statement is parsed, planned
// (a SELECT whose WHERE fixes the whole key is a GetItem, one that fixes the
// partition key a Query, anything else a Scan; INSERT is a conditional PutItem,
// UPDATE and DELETE conditional writes of the key their WHERE fixes) and run
// through the DB's own operations, so validation, indexes, streams, capacity
// and conflicts are exactly theirs.
//
//   dynarock::ExecuteStatementRequest req;
//   req.statement = "SELECT * FROM \"music\" WHERE artist = ? AND year > 1970";
//   req.parameters = {dynarock::AttributeValue::S("Acme Band")};
//   auto resp = dynarock::ExecuteStatement(*db, req);  // resp->items

#ifndef DYNAROCK_PARTIQL_H_
#define DYNAROCK_PARTIQL_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "dynarock/db.h"
#include "dynarock/requests.h"
#include "dynarock/status.h"

namespace dynarock {

struct ExecuteStatementRequest {
  std::string statement;
  std::vector<AttributeValue> parameters;
  bool has_parameters = false;  // present on the wire, even if empty
  bool consistent_read = false;
  std::optional<std::string> next_token;
  std::optional<int64_t> limit;
  ReturnConsumedCapacity return_consumed_capacity = ReturnConsumedCapacity::kNone;
  bool return_values_on_condition_check_failure_all_old = false;
};
struct ExecuteStatementResponse {
  std::vector<Item> items;
  std::optional<std::string> next_token;
  std::optional<Item> last_evaluated_key;
  std::optional<ConsumedCapacity> consumed_capacity;
};

struct BatchStatementRequest {
  std::string statement;
  std::vector<AttributeValue> parameters;
  bool consistent_read = false;
  bool return_values_on_condition_check_failure_all_old = false;
};
struct BatchExecuteStatementRequest {
  std::vector<BatchStatementRequest> statements;
  ReturnConsumedCapacity return_consumed_capacity = ReturnConsumedCapacity::kNone;
};
struct BatchStatementResponse {
  std::optional<std::string> table_name;
  std::optional<Item> item;
  // The statement's failure: Code is DynamoDB's error name without
  // "Exception" ("ConditionalCheckFailed", "DuplicateItem", "ValidationError",
  // "ResourceNotFound", ...), as BatchStatementError carries it.
  std::optional<std::string> error_code;
  std::optional<std::string> error_message;
  std::optional<Item> error_item;
};
struct BatchExecuteStatementResponse {
  std::vector<BatchStatementResponse> responses;
  std::vector<ConsumedCapacity> consumed_capacity;
};

struct ParameterizedStatement {
  std::string statement;
  std::vector<AttributeValue> parameters;
  bool return_values_on_condition_check_failure_all_old = false;
};
struct ExecuteTransactionRequest {
  std::vector<ParameterizedStatement> transact_statements;
  std::optional<std::string> client_request_token;
  ReturnConsumedCapacity return_consumed_capacity = ReturnConsumedCapacity::kNone;
};
struct ExecuteTransactionResponse {
  std::vector<std::optional<Item>> responses;  // reads: the item (nullopt: none); writes: none
  std::vector<ConsumedCapacity> consumed_capacity;
};

StatusOr<ExecuteStatementResponse> ExecuteStatement(DB& db, const ExecuteStatementRequest& req);
StatusOr<BatchExecuteStatementResponse> BatchExecuteStatement(
    DB& db, const BatchExecuteStatementRequest& req);
StatusOr<ExecuteTransactionResponse> ExecuteTransaction(DB& db,
                                                        const ExecuteTransactionRequest& req);

// The table and key of the item a write statement (INSERT, UPDATE, DELETE)
// changes; nullopt for a read, or a statement that does not parse, name a
// table or fix a key (running it reports why). For the endpoint's strongly
// consistent global tables, which claim the items a write changes.
std::optional<std::pair<std::string, Item>> StatementWriteKey(DB& db, const std::string& statement,
                                                              const std::vector<AttributeValue>& parameters);

// The plan of a statement, as text for people (`dynarock shell`'s .explain):
// the operation (GetItem, Query, Scan, PutItem, UpdateItem, DeleteItem), the
// index, the key condition, the filter or condition, the capacity it costs,
// and a warning when it scans. `describe` gives a table's description (the
// caller's DB or endpoint).
StatusOr<std::string> ExplainStatement(
    const std::string& statement, const std::vector<AttributeValue>& parameters,
    const std::function<StatusOr<TableDescription>(const std::string&)>& describe);

}  // namespace dynarock

#endif  // DYNAROCK_PARTIQL_H_
