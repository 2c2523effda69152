// File: tests/fuzz/item_codec_fuzz.cc
//
// libFuzzer target for the item codec (engine/item_codec.h).
//
// Property: the encoding is canonical. For any bytes that DecodeItem accepts,
//   1. EncodeItem(decoded) reproduces exactly the input bytes (so one item has
//      exactly one stored form: no overlong varints, no unsorted names or set
//      elements, no alternative spellings);
//   2. decoding that encoding succeeds again and gives an equal Item;
//   3. EncodeItemTo appends the very same bytes behind existing content.
// Anything else, and any sanitizer report, is a crash with the input saved.
//
// Seeds: tests/fuzz/corpus/item/ (made by tests/fuzz/gen_item_corpus.cc).
// Built and run by tests/fuzz/run_fuzzers.sh.
//
// fuzz-sources: engine/item_codec.cc engine/attribute_value.cc
// fuzz-corpus: item

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "dynarock/attribute_value.h"
#include "engine/item_codec.h"

namespace {

void PrintHex(const char* label, std::string_view bytes) {
  std::fprintf(stderr, "%s (%zu bytes):", label, bytes.size());
  const size_t shown = bytes.size() < 256 ? bytes.size() : 256;
  for (size_t i = 0; i < shown; ++i) {
    std::fprintf(stderr, "%s%02x", i % 32 == 0 ? "\n  " : " ",
                 static_cast<unsigned>(static_cast<unsigned char>(bytes[i])));
  }
  if (shown < bytes.size()) std::fprintf(stderr, "\n  ...");
  std::fprintf(stderr, "\n");
}

[[noreturn]] void Fail(const char* what, std::string_view input, std::string_view reencoded,
                       const dynarock::Item* item) {
  std::fprintf(stderr, "item_codec_fuzz: %s\n", what);
  PrintHex("input", input);
  if (!reencoded.empty()) PrintHex("EncodeItem(DecodeItem(input))", reencoded);
  if (item != nullptr) {
    std::fprintf(stderr, "decoded: %s\n", dynarock::DebugString(*item).c_str());
  }
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);

  dynarock::Item item;
  if (!dynarock::DecodeItem(input, &item)) return 0;

  const std::string encoded = dynarock::EncodeItem(item);
  if (encoded != input) {
    Fail("non-canonical input accepted: re-encoding differs", input, encoded, &item);
  }

  dynarock::Item again;
  if (!dynarock::DecodeItem(encoded, &again)) {
    Fail("the re-encoded item does not decode", input, encoded, &item);
  }
  if (again != item) Fail("decode(encode(item)) != item", input, encoded, &item);

  std::string appended = "prefix";
  dynarock::EncodeItemTo(item, &appended);
  if (std::string_view(appended).substr(6) != encoded) {
    Fail("EncodeItemTo appends something other than EncodeItem", input, appended, &item);
  }
  return 0;
}
