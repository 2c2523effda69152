// Tests for engine/item_validation.h.
//
// Pins DynamoDB's validation of client values and its exact messages: numbers
// normalised in place (also inside L, M and NS, with NS re-sorted), empty sets,
// duplicate set elements (NS after normalisation), invalid numbers, and the
// 32-level nesting limit (31 wrappers around a value pass, 32 fail).

#include "engine/item_validation.h"

#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <vector>

namespace dynarock {
namespace {

std::string MessageOf(AttributeValue v) {
  Status s = NormalizeAndValidateValue(&v, 1);
  if (s.ok()) return "<ok>";
  EXPECT_EQ(s.type(), ErrorType::kValidation);
  return s.message();
}

TEST(ItemValidation, NormalisesNumbersEverywhere) {
  Item inner;
  inner["x"] = AttributeValue::N("1E+2");
  Item item;
  item["n"] = AttributeValue::N("01.500");
  item["l"] = AttributeValue::L({AttributeValue::N("-0"), AttributeValue::M(inner)});
  item["ns"] = AttributeValue::NS({"1E1", "9", "-.5"});
  item["s"] = AttributeValue::S("01.500");
  ASSERT_TRUE(NormalizeAndValidateItem(&item).ok());
  EXPECT_EQ(item["n"], AttributeValue::N("1.5"));
  EXPECT_EQ(item["l"].list()[0], AttributeValue::N("0"));
  EXPECT_EQ(item["l"].list()[1].map().at("x"), AttributeValue::N("100"));
  EXPECT_EQ(item["ns"].set(), (std::vector<std::string>{"-0.5", "10", "9"}));  // bytewise
  EXPECT_EQ(item["s"], AttributeValue::S("01.500"));
}

// ValidateItem: the same checks on an item left as it is; a normalised copy
// only when a number anywhere in it (in an L, an M, an NS) is not in its
// normal form.
TEST(ItemValidation, ValidateItemCopiesOnlyAnItemToNormalise) {
  Item inner;
  inner["x"] = AttributeValue::N("100");
  Item item;
  item["n"] = AttributeValue::N("1.5");
  item["l"] = AttributeValue::L({AttributeValue::N("0"), AttributeValue::M(inner)});
  item["ns"] = AttributeValue::NS({"-0.5", "10", "9"});
  item["s"] = AttributeValue::S("01.500");
  std::optional<Item> copy = Item{};  // set before: ValidateItem empties it
  ASSERT_TRUE(ValidateItem(item, &copy).ok());
  EXPECT_FALSE(copy.has_value());
  for (auto change : std::vector<std::function<void(Item*)>>{
           [](Item* i) { (*i)["n"] = AttributeValue::N("01.5"); },
           [](Item* i) {
             Item m;
             m["x"] = AttributeValue::N("1E2");
             (*i)["l"] = AttributeValue::L({AttributeValue::N("0"), AttributeValue::M(m)});
           },
           [](Item* i) { (*i)["ns"] = AttributeValue::NS({"1.0", "2"}); },
       }) {
    Item odd = item;
    change(&odd);
    const Item before = odd;
    ASSERT_TRUE(ValidateItem(odd, &copy).ok());
    EXPECT_EQ(odd, before);
    ASSERT_TRUE(copy.has_value());
    Item normalised = odd;
    ASSERT_TRUE(NormalizeAndValidateItem(&normalised).ok());
    EXPECT_EQ(*copy, normalised);
  }
  // Errors are NormalizeAndValidateItem's.
  for (const AttributeValue& bad : {AttributeValue::N("1.2.3"), AttributeValue::SS({}),
                                    AttributeValue::NS({"1", "1.0"})}) {
    Item odd = item;
    odd["bad"] = bad;
    Item normalised = odd;
    const Status checked = ValidateItem(odd, &copy);
    const Status expected = NormalizeAndValidateItem(&normalised);
    ASSERT_FALSE(checked.ok());
    EXPECT_EQ(checked.type(), expected.type());
    EXPECT_EQ(checked.message(), expected.message());
  }
}

TEST(ItemValidation, EmptySets) {
  EXPECT_EQ(MessageOf(AttributeValue::SS({})),
            "One or more parameter values were invalid: An string set  may not be empty");
  EXPECT_EQ(MessageOf(AttributeValue::NS({})),
            "One or more parameter values were invalid: An number set  may not be empty");
  EXPECT_EQ(MessageOf(AttributeValue::BS({})),
            "One or more parameter values were invalid: Binary sets should not be empty");
  // Empty lists and maps are fine, and so is an empty string inside a set.
  EXPECT_EQ(MessageOf(AttributeValue::L({})), "<ok>");
  EXPECT_EQ(MessageOf(AttributeValue::M(Item())), "<ok>");
  EXPECT_EQ(MessageOf(AttributeValue::SS({""})), "<ok>");
}

TEST(ItemValidation, DuplicateSetElements) {
  EXPECT_EQ(MessageOf(AttributeValue::SS({"a", "a"})),
            "One or more parameter values were invalid: Input collection [a, a] contains "
            "duplicates.");
  EXPECT_EQ(MessageOf(AttributeValue::BS({"b", "b"})),
            "One or more parameter values were invalid: Input collection [Yg==, Yg==]of type BS "
            "contains duplicates.");
  EXPECT_EQ(MessageOf(AttributeValue::NS({"1", "1"})), "Input collection contains duplicates");
  // Equal only after normalisation.
  EXPECT_EQ(MessageOf(AttributeValue::NS({"1.50", "15E-1"})),
            "Input collection contains duplicates");
  EXPECT_EQ(MessageOf(AttributeValue::NS({"0", "-0"})), "Input collection contains duplicates");
  EXPECT_EQ(MessageOf(AttributeValue::NS({"1", "2"})), "<ok>");
  EXPECT_EQ(MessageOf(AttributeValue::SS({"a", "b"})), "<ok>");
  // Base64 padding in the message.
  EXPECT_EQ(MessageOf(AttributeValue::BS({"ab", "ab", "abc"})),
            "One or more parameter values were invalid: Input collection [YWI=, YWI=, YWJj]of "
            "type BS contains duplicates.");
}

TEST(ItemValidation, InvalidNumbers) {
  EXPECT_EQ(MessageOf(AttributeValue::N("b")),
            "The parameter cannot be converted to a numeric value: b");
  EXPECT_EQ(MessageOf(AttributeValue::N("")),
            "The parameter cannot be converted to a numeric value");
  EXPECT_EQ(MessageOf(AttributeValue::NS({"1", "b", "a"})),
            "The parameter cannot be converted to a numeric value: a");  // sorted order
  EXPECT_EQ(MessageOf(AttributeValue::L({AttributeValue::N("1E+126")})),
            "Number overflow. Attempting to store a number with magnitude larger than supported "
            "range");
  Item m;
  m["x"] = AttributeValue::N("1E-131");
  EXPECT_EQ(MessageOf(AttributeValue::M(m)),
            "Number underflow. Attempting to store a number with magnitude smaller than supported "
            "range");
  EXPECT_EQ(MessageOf(AttributeValue::N("1234567890123456789012345678901234567891")),
            "Attempting to store more than 38 significant digits in a Number");
}

AttributeValue Nested(int wrappers, bool use_map) {
  AttributeValue v = AttributeValue::S("x");
  for (int i = 0; i < wrappers; ++i) {
    if (use_map) {
      Item m;
      m["k"] = v;
      v = AttributeValue::M(std::move(m));
    } else {
      v = AttributeValue::L({v});
    }
  }
  return v;
}

TEST(ItemValidation, NestingDepth) {
  const std::string kNesting =
      "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels "
      "beyond supported limit";
  for (bool use_map : {false, true}) {
    EXPECT_EQ(MessageOf(Nested(31, use_map)), "<ok>");
    EXPECT_EQ(MessageOf(Nested(32, use_map)), kNesting);
    EXPECT_EQ(MessageOf(Nested(1000, use_map)), kNesting);
  }
  Item item;
  item["deep"] = Nested(32, true);
  EXPECT_EQ(NormalizeAndValidateItem(&item).message(), kNesting);
}

}  // namespace
}  // namespace dynarock
