// Tests for engine/item_codec.h.
//
// Pins: the byte format's fixed points (version byte, type tags equal to
// AttrType values), round trips of every type including nested L/M and sets,
// random items round-tripping, and the decoder's safety: truncated, mutated and
// random bytes never crash and are rejected where malformed; nesting beyond
// kMaxDecodeDepth is refused without deep recursion.

#include "engine/item_codec.h"

#include <gtest/gtest.h>

#include <random>

namespace dynarock {
namespace {

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

TEST(ItemCodec, FormatFixedPoints) {
  Item item;
  item["b"] = AttributeValue::Bool(true);
  item["a"] = AttributeValue::S("x");
  std::string bytes = EncodeItem(item);
  // version, count 2, "a" S "x", "b" BOOL 1
  EXPECT_EQ(bytes, std::string("\x01\x02"
                               "\x01" "a" "\x01\x01" "x"
                               "\x01" "b" "\x04\x01",
                               11));
  EXPECT_EQ(EncodeItem(Item()), std::string("\x01\x00", 2));
  std::string appended = "prefix";
  EncodeItemTo(item, &appended);
  EXPECT_EQ(appended, "prefix" + bytes);
}

TEST(ItemCodec, RoundTripEveryType) {
  Item inner;
  inner["deep"] = AttributeValue::L({AttributeValue::N("-1.5"), AttributeValue::Null()});
  Item item;
  item["s"] = AttributeValue::S("héllo");
  item["empty"] = AttributeValue::S("");
  item["n"] = AttributeValue::N("12345678901234567890123456789012345678");
  item["b"] = AttributeValue::B(std::string("\0\1\2\xff", 4));
  item["t"] = AttributeValue::Bool(true);
  item["f"] = AttributeValue::Bool(false);
  item["null"] = AttributeValue::Null();
  item["l"] = AttributeValue::L({AttributeValue::S("a"), AttributeValue::M(inner),
                                 AttributeValue::L({})});
  item["m"] = AttributeValue::M(inner);
  item["em"] = AttributeValue::M(Item());
  item["ss"] = AttributeValue::SS({"b", "a", ""});
  item["ns"] = AttributeValue::NS({"10", "9", "-1"});
  item["bs"] = AttributeValue::BS({std::string("\0", 1), "\xff"});
  item[std::string("name\0with nul", 13)] = AttributeValue::S("v");
  Item back;
  ASSERT_TRUE(DecodeItem(EncodeItem(item), &back));
  EXPECT_EQ(back, item) << DebugString(back);
  // DecodeItem replaces previous contents.
  Item reused;
  reused["old"] = AttributeValue::S("x");
  ASSERT_TRUE(DecodeItem(EncodeItem(Item()), &reused));
  EXPECT_TRUE(reused.empty());
}

TEST(ItemCodec, PropertyRandomItemsRoundTrip) {
  ItemGen gen(2024);
  for (int i = 0; i < 2000; ++i) {
    Item item = gen.Map(0);
    std::string bytes = EncodeItem(item);
    Item back;
    ASSERT_TRUE(DecodeItem(bytes, &back)) << DebugString(item);
    ASSERT_EQ(back, item) << DebugString(item);
    EXPECT_EQ(EncodeItem(back), bytes);
  }
}

TEST(ItemCodec, TruncatedAndMutatedNeverCrash) {
  ItemGen gen(77);
  std::mt19937 rng(1);
  for (int i = 0; i < 300; ++i) {
    Item item = gen.Map(0);
    if (item.empty()) continue;
    std::string bytes = EncodeItem(item);
    Item out;
    // Every strict prefix is rejected (the encoding is not self-terminating
    // at any earlier point), and trailing bytes are rejected too.
    for (size_t n = 0; n < bytes.size(); ++n) {
      ASSERT_FALSE(DecodeItem(std::string_view(bytes).substr(0, n), &out)) << n;
    }
    ASSERT_FALSE(DecodeItem(bytes + "x", &out));
    // Random mutations: whatever decodes re-encodes to bytes decoding to the
    // same item (varints may be non-minimal in the mutated input).
    for (int j = 0; j < 30; ++j) {
      std::string m = bytes;
      for (int k = 1 + static_cast<int>(rng() % 3); k > 0; --k) {
        m[rng() % m.size()] = static_cast<char>(rng());
      }
      if (DecodeItem(m, &out)) {
        Item again;
        ASSERT_TRUE(DecodeItem(EncodeItem(out), &again));
        EXPECT_EQ(again, out);
      }
    }
  }
}

TEST(ItemCodec, RandomBytesNeverCrash) {
  std::mt19937 rng(9);
  Item out;
  for (int i = 0; i < 30000; ++i) {
    std::string bytes(rng() % 48, '\0');
    for (char& c : bytes) c = static_cast<char>(rng() % 4 == 0 ? rng() % 12 : rng());
    if (!bytes.empty() && rng() % 2) bytes[0] = '\x01';
    (void)DecodeItem(bytes, &out);
  }
  EXPECT_FALSE(DecodeItem("", &out));
  EXPECT_FALSE(DecodeItem(std::string("\x02\x00", 2), &out));  // unknown version
}

TEST(ItemCodec, RejectsNonCanonical) {
  Item out;
  // Names out of order / duplicated.
  EXPECT_FALSE(DecodeItem(std::string("\x01\x02\x01" "b" "\x05" "\x01" "a" "\x05", 9), &out));
  EXPECT_FALSE(DecodeItem(std::string("\x01\x02\x01" "a" "\x05" "\x01" "a" "\x05", 9), &out));
  // Unsorted or duplicate set elements.
  EXPECT_FALSE(DecodeItem(std::string("\x01\x01\x01" "s" "\x08\x02\x01" "b" "\x01" "a", 11),
                          &out));
  EXPECT_FALSE(DecodeItem(std::string("\x01\x01\x01" "s" "\x08\x02\x01" "a" "\x01" "a", 11),
                          &out));
  // BOOL other than 0/1, unknown tag 11, tag 0.
  EXPECT_FALSE(DecodeItem(std::string("\x01\x01\x01" "x" "\x04\x02", 6), &out));
  EXPECT_FALSE(DecodeItem(std::string("\x01\x01\x01" "x" "\x0b", 5), &out));
  EXPECT_FALSE(DecodeItem(std::string("\x01\x01\x01" "x" "\x00", 5), &out));
  // A count larger than the remaining bytes.
  EXPECT_FALSE(DecodeItem(std::string("\x01\x01\x01" "x" "\x06\xff\xff\xff\x0f", 9), &out));
}

TEST(ItemCodec, DepthCap) {
  auto nested = [](int levels) {
    AttributeValue v = AttributeValue::S("x");
    for (int i = 0; i < levels; ++i) v = AttributeValue::L({v});
    Item item;
    item["a"] = v;
    return EncodeItem(item);
  };
  Item out;
  EXPECT_TRUE(DecodeItem(nested(kMaxDecodeDepth), &out));
  EXPECT_FALSE(DecodeItem(nested(kMaxDecodeDepth + 1), &out));
  // Hostile: a million nested list headers must fail fast, not overflow the stack.
  std::string hostile("\x01\x01\x01" "a", 4);
  for (int i = 0; i < 1000000; ++i) hostile += std::string("\x06\x01", 2);
  EXPECT_FALSE(DecodeItem(hostile, &out));
}

}  // namespace
}  // namespace dynarock
