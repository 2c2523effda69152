// File: tests/unit/item_gen.h
//
// Random items for property tests: every type, nested L and M up to a few
// levels, sets of a few elements, names from a small pool (so that name sets
// overlap), numbers from a list of awkward ones. Deterministic per seed.

#ifndef DYNAROCK_TESTS_UNIT_ITEM_GEN_H_
#define DYNAROCK_TESTS_UNIT_ITEM_GEN_H_

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "dynarock/attribute_value.h"

namespace dynarock::testing {

class ItemGen {
 public:
  explicit ItemGen(uint32_t seed) : rng_(seed) {}

  uint32_t Next(uint32_t n) { return rng_() % n; }

  std::string Bytes(size_t max_len) {
    std::string s(Next(static_cast<uint32_t>(max_len) + 1), '\0');
    for (char& c : s) c = static_cast<char>(rng_());
    return s;
  }
  std::string Name() { return "a" + std::to_string(Next(50)); }
  std::string Number() {
    static const char* kNums[] = {"0", "1", "-1", "0.5", "123456789012345678901234567890",
                                  "-0.000001", "1" "00000000000000000000"};
    return kNums[Next(7)];
  }
  std::vector<std::string> Set(bool numbers) {
    std::vector<std::string> v;
    size_t n = 1 + Next(5);
    for (size_t i = 0; i < n; ++i) v.push_back(numbers ? Number() : Bytes(6));
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
  }

  AttributeValue Value(int depth) {
    uint32_t pick = Next(depth > 4 ? 7 : 10);
    switch (pick) {
      case 0: return AttributeValue::S(Bytes(20));
      case 1: return AttributeValue::N(Number());
      case 2: return AttributeValue::B(Bytes(20));
      case 3: return AttributeValue::Bool(Next(2) == 1);
      case 4: return AttributeValue::Null();
      case 5: return AttributeValue::SS(Set(false));
      case 6: return Next(2) ? AttributeValue::NS(Set(true)) : AttributeValue::BS(Set(false));
      case 7:
      case 8: {
        std::vector<AttributeValue> list;
        for (uint32_t i = Next(5); i > 0; --i) list.push_back(Value(depth + 1));
        return AttributeValue::L(std::move(list));
      }
      default:
        return AttributeValue::M(Map(depth + 1));
    }
  }

  Item Map(int depth) {
    Item m;
    for (uint32_t i = Next(6); i > 0; --i) m[Name()] = Value(depth);
    return m;
  }

 private:
  std::mt19937 rng_;
};

}  // namespace dynarock::testing

#endif  // DYNAROCK_TESTS_UNIT_ITEM_GEN_H_
