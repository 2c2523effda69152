#include "engine/api/partiql_json.h"

#include "engine/api/json_decoder.h"
#include "engine/api/json_encode.h"
#include "engine/api/json_writer.h"

namespace dynarock::api {
namespace {

using namespace json_internal;  // NOLINT: the decoder machinery
namespace dom = simdjson::dom;

void Capacity(Decoder& d, const dom::object& o, ReturnConsumedCapacity* out) {
  std::string s;
  if (!d.Enum(o, "ReturnConsumedCapacity", kReturnConsumedCapacity, &s)) return;
  *out = s == "TOTAL"     ? ReturnConsumedCapacity::kTotal
         : s == "INDEXES" ? ReturnConsumedCapacity::kIndexes
                          : ReturnConsumedCapacity::kNone;
}

void OldOnFailure(Decoder& d, const dom::object& o, bool* out) {
  std::string s;
  if (d.Enum(o, "ReturnValuesOnConditionCheckFailure", kReturnValuesOnConditionCheckFailure, &s)) {
    *out = s == "ALL_OLD";
  }
}

// Statement (1 to 8192 characters) and Parameters (at least one when given).
void StatementMembers(Decoder& d, const dom::object& o, std::string* statement,
                      std::vector<AttributeValue>* parameters, bool* has_parameters) {
  if (d.ReqStr(o, "Statement", statement)) {
    if (statement->empty()) {
      d.Violation("Value '' at '" + d.PathTo("Statement") +
                  "' failed to satisfy constraint: Member must have length greater than or "
                  "equal to 1");
    } else if (statement->size() > 8192) {
      d.Violation("Value at '" + d.PathTo("Statement") +
                  "' failed to satisfy constraint: Member must have length less than or equal "
                  "to 8192");
    }
  }
  d.NonEmpty(o, "Parameters");
  bool has = d.AttrList(o, "Parameters", parameters);
  if (has_parameters != nullptr) *has_parameters = has;
}

}  // namespace

StatusOr<ExecuteStatementRequest> DecodeExecuteStatementRequest(std::string_view body) {
  return DecodeBody<ExecuteStatementRequest>(
      body, [](Decoder& d, const dom::object& o, ExecuteStatementRequest* r) {
        StatementMembers(d, o, &r->statement, &r->parameters, &r->has_parameters);
        d.Bool(o, "ConsistentRead", &r->consistent_read);
        std::string token;
        if (d.Str(o, "NextToken", &token)) r->next_token = std::move(token);
        Capacity(d, o, &r->return_consumed_capacity);
        d.Int(o, "Limit", "Integer", 1, INT32_MAX, &r->limit);
        OldOnFailure(d, o, &r->return_values_on_condition_check_failure_all_old);
      });
}

StatusOr<BatchExecuteStatementRequest> DecodeBatchExecuteStatementRequest(std::string_view body) {
  return DecodeBody<BatchExecuteStatementRequest>(
      body, [](Decoder& d, const dom::object& o, BatchExecuteStatementRequest* r) {
        d.NonEmpty(o, "Statements");
        d.EachObject(o, "Statements", true, [&](const dom::object& e) {
          BatchStatementRequest s;
          StatementMembers(d, e, &s.statement, &s.parameters, nullptr);
          d.Bool(e, "ConsistentRead", &s.consistent_read);
          OldOnFailure(d, e, &s.return_values_on_condition_check_failure_all_old);
          r->statements.push_back(std::move(s));
        });
        Capacity(d, o, &r->return_consumed_capacity);
      });
}

StatusOr<ExecuteTransactionRequest> DecodeExecuteTransactionRequest(std::string_view body) {
  return DecodeBody<ExecuteTransactionRequest>(
      body, [](Decoder& d, const dom::object& o, ExecuteTransactionRequest* r) {
        d.NonEmpty(o, "TransactStatements");
        d.EachObject(o, "TransactStatements", true, [&](const dom::object& e) {
          ParameterizedStatement s;
          StatementMembers(d, e, &s.statement, &s.parameters, nullptr);
          OldOnFailure(d, e, &s.return_values_on_condition_check_failure_all_old);
          r->transact_statements.push_back(std::move(s));
        });
        d.Str(o, "ClientRequestToken", &r->client_request_token);
        Capacity(d, o, &r->return_consumed_capacity);
      });
}

std::string EncodeExecuteStatementResponse(const ExecuteStatementResponse& r) {
  JsonWriter w;
  w.BeginObject();
  w.Key("Items");
  w.BeginArray();
  for (const auto& item : r.items) WriteItem(&w, item);
  w.EndArray();
  if (r.next_token) w.Member("NextToken", *r.next_token);
  if (r.last_evaluated_key) {
    w.Key("LastEvaluatedKey");
    WriteItem(&w, *r.last_evaluated_key);
  }
  if (r.consumed_capacity) {
    w.Key("ConsumedCapacity");
    WriteConsumedCapacity(&w, *r.consumed_capacity);
  }
  w.EndObject();
  return w.Release();
}

std::string EncodeBatchExecuteStatementResponse(const BatchExecuteStatementResponse& r) {
  JsonWriter w;
  w.BeginObject();
  w.Key("Responses");
  w.BeginArray();
  for (const auto& s : r.responses) {
    w.BeginObject();
    if (s.error_code) {
      w.Key("Error");
      w.BeginObject();
      w.Member("Code", *s.error_code);
      w.Member("Message", s.error_message.value_or(""));
      if (s.error_item) {
        w.Key("Item");
        WriteItem(&w, *s.error_item);
      }
      w.EndObject();
    }
    if (s.table_name) w.Member("TableName", *s.table_name);
    if (s.item) {
      w.Key("Item");
      WriteItem(&w, *s.item);
    }
    w.EndObject();
  }
  w.EndArray();
  if (!r.consumed_capacity.empty()) WriteCapacityList(&w, r.consumed_capacity);
  w.EndObject();
  return w.Release();
}

// ExecuteTransaction answers as TransactGetItems does ("Responses": [] for
// writes, as DynamoDB Local does).
std::string EncodeExecuteTransactionResponse(const ExecuteTransactionResponse& r) {
  TransactGetItemsResponse as_get;
  as_get.responses = r.responses;
  as_get.consumed_capacity = r.consumed_capacity;
  return EncodeTransactGetItemsResponse(as_get);
}

}  // namespace dynarock::api
