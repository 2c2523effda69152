// File: tests/fuzz/gen_item_corpus.cc
//
// Writes the seed corpus of item_codec_fuzz: a few encoded items covering all
// ten attribute types, nesting, sets, empty containers, long strings (multi-byte
// varints) and odd bytes in names. Not part of any build; run it by hand when
// the item format changes:
//
//   clang++ -std=c++20 -I. -Iengine/include tests/fuzz/gen_item_corpus.cc \
//       engine/item_codec.cc engine/attribute_value.cc -o /tmp/gen_item_corpus &&
//   /tmp/gen_item_corpus tests/fuzz/corpus/item

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "dynarock/attribute_value.h"
#include "engine/item_codec.h"

using dynarock::AttributeValue;
using dynarock::Item;

namespace {

std::vector<std::pair<std::string, Item>> Seeds() {
  std::vector<std::pair<std::string, Item>> seeds;
  seeds.push_back({"empty", Item{}});
  seeds.push_back({"key_only", Item{{"pk", AttributeValue::S("USER#Frodo")}}});
  seeds.push_back({"scalars",
                   Item{{"pk", AttributeValue::S("USER#Sam")},
                        {"sk", AttributeValue::N("42")},
                        {"age", AttributeValue::N("-3.25")},
                        {"tiny", AttributeValue::N("0.000000000000000000000000000000001")},
                        {"big", AttributeValue::N("99999999999999999999999999999999999999")},
                        {"blob", AttributeValue::B(std::string("\x00\x01\xff\xfe", 4))},
                        {"ok", AttributeValue::Bool(true)},
                        {"no", AttributeValue::Bool(false)},
                        {"nothing", AttributeValue::Null()}}});
  seeds.push_back({"sets", Item{{"pk", AttributeValue::S("p")},
                                {"ss", AttributeValue::SS({"red", "green", "blue"})},
                                {"ns", AttributeValue::NS({"1", "-1", "2.5", "1000"})},
                                {"bs", AttributeValue::BS({std::string("\x00", 1), "\x7f", "\xff"})}}});
  seeds.push_back({"list", Item{{"pk", AttributeValue::S("p")},
                                {"l", AttributeValue::L({AttributeValue::S("a"), AttributeValue::N("1"),
                                                         AttributeValue::Null(), AttributeValue::Bool(true),
                                                         AttributeValue::L({}),
                                                         AttributeValue::M({})})}}});
  seeds.push_back({"map", Item{{"pk", AttributeValue::S("p")},
                               {"m", AttributeValue::M({{"a", AttributeValue::S("x")},
                                                        {"b", AttributeValue::N("2")},
                                                        {"c", AttributeValue::SS({"s"})}})}}});
  {
    // Deep nesting: M inside L inside M ... (20 levels).
    AttributeValue v = AttributeValue::S("leaf");
    for (int i = 0; i < 20; ++i) {
      v = (i % 2 == 0) ? AttributeValue::L({v}) : AttributeValue::M({{"k", v}});
    }
    seeds.push_back({"deep", Item{{"pk", AttributeValue::S("p")}, {"d", v}}});
  }
  seeds.push_back({"long_string", Item{{"pk", AttributeValue::S(std::string(300, 'x'))},
                                       {"text", AttributeValue::S(std::string(2000, 'y'))}}});
  seeds.push_back({"odd_names", Item{{"", AttributeValue::S("empty name")},
                                     {std::string("a\x00b", 3), AttributeValue::N("1")},
                                     {"\xc3\xa9t\xc3\xa9", AttributeValue::S("\xe2\x82\xac")},
                                     {"\xff", AttributeValue::B("")}}});
  seeds.push_back({"empty_values", Item{{"s", AttributeValue::S("")},
                                        {"b", AttributeValue::B("")},
                                        {"l", AttributeValue::L({})},
                                        {"m", AttributeValue::M({})}}});
  {
    Item many;
    for (int i = 0; i < 150; ++i) {  // 150 attributes: a two-byte count
      char name[16];
      std::snprintf(name, sizeof name, "attr%03d", i);
      many[name] = (i % 3 == 0)   ? AttributeValue::N(std::to_string(i))
                   : (i % 3 == 1) ? AttributeValue::S("value" + std::to_string(i))
                                  : AttributeValue::Bool(i % 2 == 0);
    }
    seeds.push_back({"many_attributes", many});
  }
  seeds.push_back({"graph_edge",
                   Item{{"pk", AttributeValue::S("NODE#1")},
                        {"sk", AttributeValue::S("EDGE#knows#NODE#2")},
                        {"gsi1pk", AttributeValue::S("NODE#2")},
                        {"gsi1sk", AttributeValue::S("EDGE#knows#NODE#1")},
                        {"weight", AttributeValue::N("0.75")},
                        {"props", AttributeValue::M({{"since", AttributeValue::N("2019")},
                                                     {"tags", AttributeValue::SS({"a", "b"})},
                                                     {"path", AttributeValue::L({AttributeValue::N("1"),
                                                                                 AttributeValue::N("2")})}})},
                        {"version", AttributeValue::N("7")}}});
  return seeds;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT_DIR\n", argv[0]);
    return 2;
  }
  int n = 0;
  for (const auto& [name, item] : Seeds()) {
    const std::string bytes = dynarock::EncodeItem(item);
    Item back;
    if (!dynarock::DecodeItem(bytes, &back) || back != item) {
      std::fprintf(stderr, "seed %s does not round-trip\n", name.c_str());
      return 1;
    }
    const std::string path = std::string(argv[1]) + "/" + name + ".bin";
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) {
      std::fprintf(stderr, "cannot write %s\n", path.c_str());
      return 1;
    }
    ++n;
  }
  std::printf("wrote %d seeds to %s\n", n, argv[1]);
  return 0;
}
