// File: tools/patterns/user_file.h
//
// User-defined patterns for `dynarock patterns --file FILE`: a JSON file of
// parameterised DynamoDB requests (format in docs/patterns.md):
//
//   {
//     "name": "orders",                                  (optional; default "custom")
//     "description": "...",                              (optional)
//     "setup": {
//       "tables": [ <CreateTable request in DynamoDB JSON>, ... ],
//       "items": [ {"table": "Orders", "count": 1000,
//                   "item": {"PK": {"S": "CUSTOMER#{i%100}"}, "SK": {"S": "ORDER#{i}"}}} ]
//     },
//     "patterns": [
//       {"name": "orders-of-customer", "description": "...", "iterations": 500,
//        "continue_on_error": false,
//        "requests": [
//          {"operation": "Query", "all_pages": true,
//           "body": {"TableName": "Orders", "KeyConditionExpression": "PK = :c",
//                    "ExpressionAttributeValues": {":c": {"S": "CUSTOMER#{rand:100}"}}}},
//          {"operation": "GetItem", "repeat": 3, "body": {...}}
//        ]}
//     ]
//   }
//
// Placeholders, inside any JSON string of an item or body: {i} (the item's index
// in setup; the execution's index in a pattern, from 0 with warm-up runs first),
// {j} (the repeat index of a request), {rand} (a pseudo-random integer in
// [0, 2^31)), {rand:N} (in [0, N)), each optionally followed by integer
// operations +N, -N, *N, /N, %N applied left to right (64-bit, + - * wrap
// around): "{i%100}", "{j+1}",
// "{i%100*3+1}", "{rand:50*2}". Random values are deterministic for a given
// --seed; every pattern draws from the same sequence, so two patterns drawing
// alike (say "{rand:50}" once per execution) get the same values.
//
// Requests are decoded with engine/api's DecodeXxxRequest, so they are exactly
// what an SDK would send; operations: GetItem, PutItem, UpdateItem, DeleteItem,
// Query, Scan, BatchGetItem, BatchWriteItem, TransactGetItems,
// TransactWriteItems. "all_pages" (Query, Scan) follows LastEvaluatedKey.

#ifndef DYNAROCK_TOOLS_PATTERNS_USER_FILE_H_
#define DYNAROCK_TOOLS_PATTERNS_USER_FILE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dynarock/status.h"
#include "tools/patterns/runner.h"

namespace dynarock::patterns {

// Bounds of a pattern file's numbers (the command line's --iterations and --size
// have the same ones).
inline constexpr int64_t kMaxIterations = 100000000;
inline constexpr int64_t kMaxItemCount = 10000000;
inline constexpr int64_t kMaxRepeat = 100000;

// A text with placeholders, compiled once and expanded per use.
class Template {
 public:
  static StatusOr<Template> Compile(std::string_view text);
  // `i`, `j`: the placeholder values; `rng` draws {rand}.
  std::string Expand(int64_t i, int64_t j, Rng& rng) const;

 private:
  enum class Var : uint8_t { kNone, kI, kJ, kRand };
  struct Part {
    std::string literal;  // kNone
    Var var = Var::kNone;
    int64_t rand_bound = 0;  // {rand:N}; 0: [0, 2^31)
    std::vector<std::pair<char, int64_t>> ops;  // ('+'|'-'|'*'|'/'|'%', operand), in order
  };
  std::vector<Part> parts_;
};

// Parses and checks a pattern file (every request body is decoded once with
// i = j = 0, so mistakes are reported before anything runs). `source` names the
// file in error messages.
StatusOr<Suite> LoadPatternFile(std::string_view text, std::string_view source);

}  // namespace dynarock::patterns

#endif  // DYNAROCK_TOOLS_PATTERNS_USER_FILE_H_
