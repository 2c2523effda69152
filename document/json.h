// File: document/json.h
//
// Plain JSON <-> documents and items, as DocumentClient's marshall and
// unmarshall (lib-dynamodb, @aws-sdk/util-dynamodb) do it:
//
//   StatusOr<Item> item = document::Marshall(R"({"id":"t-1","n":1.50,"tags":["a"]})");
//   // {"id":{"S":"t-1"},"n":{"N":"1.5"},"tags":{"L":[{"S":"a"}]}}
//   std::string json = document::Unmarshall(*item);  // {"id":"t-1","n":1.5,"tags":["a"]}
//
// JSON numbers keep their exact text (up to DynamoDB's 38 digits; more is
// refused rather than rounded); objects become maps, arrays lists (never
// sets: DocumentClient's convertToSet has no JSON form), null NULL. Options:
//   convert_empty_values: "" becomes NULL (DynamoDB accepts empty strings
//     outside keys now; DocumentClient's option for tables that must not);
//   remove_null_values: members whose value is null are left out (the JSON
//     counterpart of removeUndefinedValues);
//   wrap_numbers (Unmarshall): numbers written as JSON strings, for readers
//     whose numbers are doubles (DocumentClient's wrapNumbers).
// Unmarshall writes sets as arrays, bytes as base64 strings, and members in
// name order.

#ifndef DYNAROCK_DOCUMENT_JSON_H_
#define DYNAROCK_DOCUMENT_JSON_H_

#include <string>
#include <string_view>

#include "document/value.h"

namespace dynarock::document {

struct MarshallOptions {
  bool convert_empty_values = false;
  bool remove_null_values = false;
};

struct UnmarshallOptions {
  bool wrap_numbers = false;
};

// Plain JSON text -> a Value (any JSON), refused with a ValidationException
// that says where for malformed JSON or a number DynamoDB cannot hold.
StatusOr<Value> FromJson(std::string_view json, const MarshallOptions& options = {});
// A JSON object -> an item (ToItem's checks too).
StatusOr<Item> Marshall(std::string_view json, const MarshallOptions& options = {});

std::string ToJson(const Value& v, const UnmarshallOptions& options = {});
std::string Unmarshall(const Item& item, const UnmarshallOptions& options = {});

}  // namespace dynarock::document

#endif  // DYNAROCK_DOCUMENT_JSON_H_
