// File: tests/fuzz/item_codec_fuzz.cc
//
// libFuzzer target for the item codec (engine/item_codec.h).
//
// Property: the encoding is canonical. For any bytes that DecodeItem accepts,
//   1. EncodeItem(decoded) reproduces the input's attributes byte for byte (so
//      one item has exactly one stored form: no overlong varints, no unsorted
//      names or set elements, no alternative spellings); the header may differ
//      only where the input is format V1 (no size) or a V2 header whose stored
//      size is not the item's (which the codec trusts, as it trusts RocksDB's
//      checksummed bytes): otherwise the whole encoding is the input;
//   2. decoding that encoding succeeds again and gives an equal Item;
//   3. EncodeItemTo appends the very same bytes behind existing content;
//   4. the view agrees: EncodedItemSize gives the stored size (V2) or the
//      item's size (V1), and DecodeItemAttributes of every name gives the item.
// Anything else, and any sanitizer report, is a crash with the input saved.
//
// Seeds: tests/fuzz/corpus/item/ (made by tests/fuzz/gen_item_corpus.cc).
// Built and run by tests/fuzz/run_fuzzers.sh.
//
// fuzz-sources: engine/item_codec.cc engine/attribute_value.cc engine/item_size.cc
// fuzz-corpus: item

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "dynarock/attribute_value.h"
#include "dynarock/item_size.h"
#include "engine/coding.h"
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
  // The attributes after each header: V1 is one byte, V2 one byte and the size.
  auto body = [](std::string_view bytes, uint32_t* stored_size) {
    const bool v2 = bytes[0] == static_cast<char>(dynarock::kItemFormatV2);
    bytes.remove_prefix(1);
    *stored_size = 0;
    if (v2 && !dynarock::GetVarint32(&bytes, stored_size)) std::abort();
    return bytes;
  };
  uint32_t input_size = 0, encoded_size = 0;
  const bool input_v2 = input[0] == static_cast<char>(dynarock::kItemFormatV2);
  const std::string_view input_body = body(input, &input_size);
  if (body(encoded, &encoded_size) != input_body) {
    Fail("non-canonical input accepted: re-encoding differs", input, encoded, &item);
  }
  if (encoded_size != dynarock::ItemSize(item)) {
    Fail("the encoding's stored size is not the item's size", input, encoded, &item);
  }
  if (input_v2 && input_size == encoded_size && encoded != input) {
    Fail("non-canonical V2 header accepted", input, encoded, &item);
  }
  size_t viewed_size = 0;
  if (!dynarock::EncodedItemSize(input, &viewed_size) ||
      viewed_size != (input_v2 ? input_size : encoded_size)) {
    Fail("EncodedItemSize disagrees with the header or the item", input, encoded, &item);
  }
  std::vector<std::string> names;
  for (const auto& [name, value] : item) names.push_back(name);
  dynarock::Item viewed;
  if (!dynarock::DecodeItemAttributes(input, names, &viewed) || viewed != item) {
    Fail("DecodeItemAttributes of every name is not the item", input, encoded, &item);
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
