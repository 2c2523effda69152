// File: tools/patterns/json.h
//
// A small JSON document model for `dynarock patterns`: reads the pattern file,
// writes request bodies back as text (to expand placeholders and hand them to
// engine/api's DecodeXxxRequest) and writes the --format json report. Numbers
// keep their text; objects keep their members in file order.
// Not simdjson (engine/api's parser): a hand-written pattern file needs errors
// with a line and column, and the numbers' text as written.
//
//   auto doc = patterns::ParseJson(text);
//   if (!doc.ok()) ... doc.status().message() ...   // "line 3, column 7: expected ':'"
//   const patterns::Json* tables = doc->Find("tables");

#ifndef DYNAROCK_TOOLS_PATTERNS_JSON_H_
#define DYNAROCK_TOOLS_PATTERNS_JSON_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dynarock/status.h"

namespace dynarock::patterns {

struct Json {
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };
  Type type = Type::kNull;
  bool boolean = false;
  std::string text;  // kString: the decoded string; kNumber: the number as written
  std::vector<Json> array;
  std::vector<std::pair<std::string, Json>> object;

  bool is_object() const { return type == Type::kObject; }
  bool is_array() const { return type == Type::kArray; }
  bool is_string() const { return type == Type::kString; }
  bool is_number() const { return type == Type::kNumber; }

  // The member `key` of an object, or nullptr.
  const Json* Find(std::string_view key) const;
};

StatusOr<Json> ParseJson(std::string_view text);

// Compact JSON text of `v`.
std::string WriteJson(const Json& v);

}  // namespace dynarock::patterns

#endif  // DYNAROCK_TOOLS_PATTERNS_JSON_H_
