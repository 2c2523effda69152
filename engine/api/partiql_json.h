// File: engine/api/partiql_json.h
//
// The protocol codec of the PartiQL operations (dynarock/partiql.h):
// ExecuteStatement, BatchExecuteStatement and ExecuteTransaction requests from
// DynamoDB's JSON, their responses to it.

#ifndef DYNAROCK_API_PARTIQL_JSON_H_
#define DYNAROCK_API_PARTIQL_JSON_H_

#include <string>
#include <string_view>

#include "dynarock/partiql.h"

namespace dynarock::api {

StatusOr<ExecuteStatementRequest> DecodeExecuteStatementRequest(std::string_view body);
StatusOr<BatchExecuteStatementRequest> DecodeBatchExecuteStatementRequest(std::string_view body);
StatusOr<ExecuteTransactionRequest> DecodeExecuteTransactionRequest(std::string_view body);

std::string EncodeExecuteStatementResponse(const ExecuteStatementResponse& r);
std::string EncodeBatchExecuteStatementResponse(const BatchExecuteStatementResponse& r);
std::string EncodeExecuteTransactionResponse(const ExecuteTransactionResponse& r);

}  // namespace dynarock::api

#endif  // DYNAROCK_API_PARTIQL_JSON_H_
