// Tests for dynarock/item_size.h.
//
// Pins DynamoDB's size rules ("DynamoDB item sizes and formats"): names count
// their UTF-8 bytes; S is UTF-8 bytes, B raw bytes, BOOL/NULL 1 byte; L and M
// cost 3 bytes plus 1 per element; sets sum their elements; numbers cost about
// one byte per two significant digits plus one (see item_size.h for the exact
// model and the examples pinned here).

#include "dynarock/item_size.h"

#include <gtest/gtest.h>

#include "engine/limits.h"

namespace dynarock {
namespace {

TEST(ItemSize, Numbers) {
  EXPECT_EQ(NumberSize("0"), 1u);
  EXPECT_EQ(NumberSize("1"), 2u);
  EXPECT_EQ(NumberSize("27"), 2u);
  EXPECT_EQ(NumberSize("-27"), 3u);
  EXPECT_EQ(NumberSize("461"), 3u);
  EXPECT_EQ(NumberSize("100"), 2u);
  EXPECT_EQ(NumberSize("1000"), 2u);
  EXPECT_EQ(NumberSize("1.5"), 3u);
  EXPECT_EQ(NumberSize("12.3"), 3u);
  EXPECT_EQ(NumberSize("0.05"), 2u);
  EXPECT_EQ(NumberSize("0.005"), 2u);
  EXPECT_EQ(NumberSize("0.0123"), 3u);
  EXPECT_EQ(NumberSize("1786461547"), 6u);  // a 10-digit timestamp
  EXPECT_EQ(NumberSize("123.45"), 4u);
  // 38 digits: 19 or 20 pairs + 1.
  EXPECT_EQ(NumberSize("12345678901234567890123456789012345678"), 20u);
  EXPECT_EQ(NumberSize("1234567890123456789012345678901234567"), 20u);
  EXPECT_EQ(NumberSize("-1234567890123456789012345678901234567.8"), 22u);
  // Huge and tiny magnitudes cost by their significant digits only.
  EXPECT_EQ(NumberSize("1" + std::string(125, '0')), 2u);
  EXPECT_EQ(NumberSize("0." + std::string(129, '0') + "1"), 2u);
}

TEST(ItemSize, Scalars) {
  EXPECT_EQ(AttributeValueSize(AttributeValue::S("hello")), 5u);
  EXPECT_EQ(AttributeValueSize(AttributeValue::S("é")), 2u);  // UTF-8 bytes
  EXPECT_EQ(AttributeValueSize(AttributeValue::S("")), 0u);
  EXPECT_EQ(AttributeValueSize(AttributeValue::B(std::string("\0\1\2", 3))), 3u);
  EXPECT_EQ(AttributeValueSize(AttributeValue::Bool(false)), 1u);
  EXPECT_EQ(AttributeValueSize(AttributeValue::Null()), 1u);
}

TEST(ItemSize, Containers) {
  EXPECT_EQ(AttributeValueSize(AttributeValue::L({})), 3u);
  EXPECT_EQ(AttributeValueSize(AttributeValue::M(Item())), 3u);
  // 3 + (1 + 1) + (1 + 3)
  EXPECT_EQ(AttributeValueSize(AttributeValue::L({AttributeValue::Null(), AttributeValue::S("abc")})),
            9u);
  Item m;
  m["key"] = AttributeValue::S("ab");  // 1 + 3 + 2
  m["n"] = AttributeValue::N("27");    // 1 + 1 + 2
  EXPECT_EQ(AttributeValueSize(AttributeValue::M(m)), 3u + 6u + 4u);
  EXPECT_EQ(AttributeValueSize(AttributeValue::SS({"a", "bc"})), 3u);
  EXPECT_EQ(AttributeValueSize(AttributeValue::BS({"a", "bcd"})), 4u);
  EXPECT_EQ(AttributeValueSize(AttributeValue::NS({"27", "-27"})), 5u);
}

TEST(ItemSize, Item) {
  Item item;
  item["id"] = AttributeValue::S("abc");     // 2 + 3
  item["n"] = AttributeValue::N("12345");    // 1 + 4
  item["ok"] = AttributeValue::Bool(true);   // 2 + 1
  item["l"] = AttributeValue::L({AttributeValue::N("1")});  // 1 + 3 + 1 + 2
  EXPECT_EQ(ItemSize(item), 5u + 5u + 3u + 7u);
  EXPECT_EQ(ItemSize(Item()), 0u);
  // Exactly at the limit with one attribute.
  Item big;
  big["a"] = AttributeValue::S(std::string(kItemSizeBytesMax - 1, 'x'));
  EXPECT_EQ(ItemSize(big), kItemSizeBytesMax);
}

}  // namespace
}  // namespace dynarock
