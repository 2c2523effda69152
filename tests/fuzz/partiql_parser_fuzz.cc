// libFuzzer target for the PartiQL parser (engine/partiql/parser.h): every
// input is parsed as a statement with two parameters. Finds crashes,
// sanitizer reports and unbounded recursion (deep nesting must be refused).
//
//   FUZZ_TARGETS=partiql_parser_fuzz bash tests/fuzz/run_fuzzers.sh
//
// fuzz-sources: engine/partiql/parser.cc engine/partiql/lexer.cc engine/number.cc engine/attribute_value.cc engine/status.cc
// fuzz-corpus: partiql

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "engine/partiql/parser.h"

// Properties checked on every input (a violation aborts, which libFuzzer reports):
//   - a refusal is a ValidationException with a message (never another type,
//     never an empty message);
//   - a statement that parses names a table, and parsing is deterministic
//     (the same input gives the same kind, table and clause counts);
//   - the template parse (the statement cache's) agrees: a text that is a
//     template parses with enough parameters, as the same statement, and
//     counts its `?`s; a text that parses with its parameters and has no `?`
//     is a template.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<dynarock::AttributeValue> params = {
      dynarock::AttributeValue::S("p"), dynarock::AttributeValue::N("1")};
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto st = dynarock::partiql::ParseStatement(text, params);
  if (!st.ok()) {
    if (st.status().type() != dynarock::ErrorType::kValidation || st.status().message().empty()) {
      __builtin_trap();
    }
    return 0;
  }
  if (st->table.empty()) __builtin_trap();
  auto again = dynarock::partiql::ParseStatement(text, params);
  if (!again.ok() || again->kind != st->kind || again->table != st->table ||
      again->projection.size() != st->projection.size() || again->sets.size() != st->sets.size() ||
      again->removes.size() != st->removes.size() ||
      (again->where == nullptr) != (st->where == nullptr)) {
    __builtin_trap();
  }
  auto templ = dynarock::partiql::ParseTemplate(text);
  if (templ) {
    if (templ->kind != st->kind || templ->table != st->table ||
        templ->param_count > params.size() ||
        templ->projection.size() != st->projection.size()) {
      __builtin_trap();
    }
  } else if (text.find('?') == std::string_view::npos) {
    __builtin_trap();
  }
  return 0;
}
