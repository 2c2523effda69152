// Tests for engine/item_codec.h.
//
// Pins: the byte format's fixed points (version byte, type tags equal to
// AttrType values), round trips of every type including nested L/M and sets,
// random items round-tripping, and the decoder's safety: truncated, mutated and
// random bytes never crash and are rejected where malformed; nesting beyond
// kMaxDecodeDepth is refused without deep recursion.

#include "engine/item_codec.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "dynarock/item_size.h"
#include "engine/coding.h"
#include "tests/unit/item_gen.h"

namespace dynarock {
namespace {

using testing::ItemGen;

// The same item in format V1 (no size in the header), as older builds wrote it.
std::string AsV1(const std::string& v2) {
  std::string_view rest(v2);
  rest.remove_prefix(1);
  uint32_t size;
  EXPECT_TRUE(GetVarint32(&rest, &size));
  return "\x01" + std::string(rest);
}

TEST(ItemCodec, FormatFixedPoints) {
  Item item;
  item["b"] = AttributeValue::Bool(true);
  item["a"] = AttributeValue::S("x");
  std::string bytes = EncodeItem(item);
  // version 2, DynamoDB size 4 ("a" + "x", "b" + 1), count 2, "a" S "x", "b" BOOL 1
  EXPECT_EQ(bytes, std::string("\x02\x04\x02"
                               "\x01" "a" "\x01\x01" "x"
                               "\x01" "b" "\x04\x01",
                               12));
  EXPECT_EQ(EncodeItem(Item()), std::string("\x02\x00\x00", 3));
  std::string appended = "prefix";
  EncodeItemTo(item, &appended);
  EXPECT_EQ(appended, "prefix" + bytes);
  // Format V1 (what builds before V2 stored) is still read, and sized by walking it.
  const std::string v1("\x01\x02"
                       "\x01" "a" "\x01\x01" "x"
                       "\x01" "b" "\x04\x01",
                       11);
  EXPECT_EQ(AsV1(bytes), v1);
  Item back;
  ASSERT_TRUE(DecodeItem(v1, &back));
  EXPECT_EQ(back, item);
  size_t size = 0;
  ASSERT_TRUE(EncodedItemSize(v1, &size));
  EXPECT_EQ(size, 4u);
  Item some;
  ASSERT_TRUE(DecodeItemAttributes(v1, {"b"}, &some, &size));
  EXPECT_EQ(some, (Item{{"b", AttributeValue::Bool(true)}}));
  EXPECT_EQ(size, 4u);
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

// Items appended one after another to one buffer (as a read's response
// collects them) encode exactly as each does alone: the writer makes room past
// what the buffer holds and trims it after.
TEST(ItemCodec, ItemsAppendedToOneBuffer) {
  ItemGen gen(77);
  std::string buffer = "prefix";
  std::vector<std::pair<size_t, std::string>> alone;
  for (int i = 0; i < 300; ++i) {
    Item item = gen.Map(0);
    if (i % 50 == 0) item["big"] = AttributeValue::B(std::string(5000 + i, 'x'));
    const size_t at = buffer.size();
    EncodeItemTo(item, &buffer);
    alone.emplace_back(at, EncodeItem(item));
    ASSERT_EQ(buffer.size(), at + alone.back().second.size());
  }
  EXPECT_EQ(buffer.substr(0, 6), "prefix");
  for (const auto& [at, bytes] : alone) EXPECT_EQ(buffer.substr(at, bytes.size()), bytes);
}

// A node reused for a name of the same type takes the new value's bytes
// whole (a longer value, then a shorter one, then another type).
TEST(ItemCodec, ReusedNodesTakeTheNextItemsValues) {
  Item reused;
  const std::vector<std::string> names = {"n", "s"};
  for (const auto& [s, n] : std::vector<std::pair<std::string, std::string>>{
           {std::string(40, 'a'), "123456789012345678901"}, {"b", "7"}, {"", "0"}}) {
    Item item = {{"n", AttributeValue::N(n)}, {"s", AttributeValue::S(s)}};
    ASSERT_TRUE(DecodeItemAttributes(EncodeItem(item), names, &reused));
    ASSERT_EQ(reused, item) << DebugString(reused);
  }
  Item other = {{"n", AttributeValue::S("now a string")}, {"s", AttributeValue::B("bytes")}};
  ASSERT_TRUE(DecodeItemAttributes(EncodeItem(other), names, &reused));
  EXPECT_EQ(reused, other) << DebugString(reused);
  EXPECT_TRUE(reused.at("n").is(AttrType::kS));
  EXPECT_TRUE(reused.at("s").is(AttrType::kB));
}

// The read path's view (EncodedItemSize, DecodeItemAttributes) against a
// straightforward decode, on random items and random name sets; malformed
// bytes are refused by the view exactly when DecodeItem refuses them.
TEST(ItemCodec, ViewAgreesWithFullDecode) {
  ItemGen gen(99);
  std::mt19937 rng(5);
  Item reused;
  for (int i = 0; i < 3000; ++i) {
    Item item = gen.Map(0);
    const std::string v2 = EncodeItem(item);
    const bool v1 = i % 2 == 1;  // every other item as older builds stored it
    std::string bytes = v1 ? AsV1(v2) : v2;
    size_t size = 0;
    ASSERT_TRUE(EncodedItemSize(bytes, &size));
    ASSERT_EQ(size, ItemSize(item)) << DebugString(item);
    std::vector<std::string> names;
    for (int k = static_cast<int>(rng() % 6); k > 0; --k) names.push_back(gen.Name());
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    Item some;
    size = 0;
    ASSERT_TRUE(DecodeItemAttributes(bytes, names, &some, &size));
    ASSERT_EQ(size, ItemSize(item)) << DebugString(item);
    Item expected;
    for (const auto& n : names) {
      auto it = item.find(n);
      if (it != item.end()) expected.insert(*it);
    }
    ASSERT_EQ(some, expected) << DebugString(item);
    // The whole item with its size: stored in V2, computed for V1.
    Item whole;
    size_t whole_size = 0;
    ASSERT_TRUE(DecodeItem(bytes, &whole, &whole_size));
    ASSERT_EQ(whole, item) << DebugString(item);
    ASSERT_EQ(whole_size, ItemSize(item)) << DebugString(item);
    // Into an Item still holding the previous item's attributes (a read reuses
    // one): its nodes are reused or erased, never left behind.
    ASSERT_TRUE(DecodeItemAttributes(bytes, names, &reused));
    ASSERT_EQ(reused, expected) << DebugString(item);
    // A corrupted copy. V1 is walked whole: the view and the decoder agree on
    // whether it is valid. V2 is read only as far as needed (its size is
    // stored): the view never fails on what decodes, and then agrees with it.
    std::string bad = bytes;
    if (!bad.empty()) bad[rng() % bad.size()] = static_cast<char>(rng());
    if (rng() % 3 == 0) bad.resize(rng() % (bad.size() + 1));
    Item full;
    bool decodes = DecodeItem(bad, &full);
    size_t bad_size = 0;
    const bool sized = EncodedItemSize(bad, &bad_size);
    Item all_names;
    std::vector<std::string> every;
    for (const auto& [n, v] : item) every.push_back(n);
    const bool viewed = DecodeItemAttributes(bad, every, &all_names);
    if (!bad.empty() && bad[0] == '\x01') {  // (a corrupted version byte makes either)
      EXPECT_EQ(sized, decodes);
      EXPECT_EQ(viewed, decodes);
      if (decodes) {
        EXPECT_EQ(bad_size, ItemSize(full));
      }
    } else if (decodes) {
      EXPECT_TRUE(sized);
      EXPECT_TRUE(viewed);
      Item expected_all;
      for (const auto& n : every) {
        auto it = full.find(n);
        if (it != full.end()) expected_all.insert(*it);
      }
      EXPECT_EQ(all_names, expected_all);
    }
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
  EXPECT_FALSE(DecodeItem(std::string("\x03\x00\x00", 3), &out));  // unknown version
  EXPECT_FALSE(DecodeItem(std::string("\x02\x00", 2), &out));      // V2 without a count
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
