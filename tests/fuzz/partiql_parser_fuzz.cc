// libFuzzer target for the PartiQL parser (engine/partiql/parser.h): every
// input is parsed as a statement with two parameters. Finds crashes,
// sanitizer reports and unbounded recursion (deep nesting must be refused).
//
//   FUZZ_TARGETS=partiql_parser_fuzz bash tests/fuzz/run_fuzzers.sh
//
// fuzz-sources: engine/partiql/parser.cc engine/number.cc engine/attribute_value.cc engine/status.cc
// fuzz-corpus: partiql

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "engine/partiql/parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<dynarock::AttributeValue> params = {
      dynarock::AttributeValue::S("p"), dynarock::AttributeValue::N("1")};
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto st = dynarock::partiql::ParseStatement(text, params);
  (void)st;
  return 0;
}
