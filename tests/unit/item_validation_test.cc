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

#include "dynarock/item_size.h"
#include "tests/unit/item_gen.h"

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
  size_t size = 0;
  ASSERT_TRUE(ValidateItem(item, &copy, &size).ok());
  EXPECT_FALSE(copy.has_value());
  EXPECT_EQ(size, ItemSize(item));
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
    ASSERT_TRUE(ValidateItem(odd, &copy, &size).ok());
    EXPECT_EQ(odd, before);
    ASSERT_TRUE(copy.has_value());
    Item normalised = odd;
    size_t normalised_size = 0;
    ASSERT_TRUE(NormalizeAndValidateItem(&normalised, &normalised_size).ok());
    EXPECT_EQ(*copy, normalised);
    // The size is the stored (normalised) item's: "01.5" counts as "1.5".
    EXPECT_EQ(size, ItemSize(normalised));
    EXPECT_EQ(normalised_size, ItemSize(normalised));
  }
  // Errors are NormalizeAndValidateItem's.
  for (const AttributeValue& bad : {AttributeValue::N("1.2.3"), AttributeValue::SS({}),
                                    AttributeValue::NS({"1", "1.0"})}) {
    Item odd = item;
    odd["bad"] = bad;
    Item normalised = odd;
    const Status checked = ValidateItem(odd, &copy, &size);
    const Status expected = NormalizeAndValidateItem(&normalised);
    ASSERT_FALSE(checked.ok());
    EXPECT_EQ(checked.type(), expected.type());
    EXPECT_EQ(checked.message(), expected.message());
  }
}

// The size ValidateItem and NormalizeAndValidateItem take on their walk is
// ItemSize() of what gets stored, for random items of every type and nesting,
// with their numbers as sent (normal) and respelled (not: "1" as "1.0").
void Respell(AttributeValue* v) {
  auto respell = [](const std::string& n) {
    return n.find('.') == std::string::npos ? n + ".0" : n + "0";
  };
  switch (v->type()) {
    case AttrType::kN:
      *v = AttributeValue::N(respell(v->scalar()));
      break;
    case AttrType::kNS: {
      std::vector<std::string> elems;
      for (const std::string& e : v->set()) elems.push_back(respell(e));
      *v = AttributeValue::NS(std::move(elems));
      break;
    }
    case AttrType::kL:
      for (AttributeValue& e : v->mutable_list()) Respell(&e);
      break;
    case AttrType::kM:
      for (auto& [name, e] : v->mutable_map()) Respell(&e);
      break;
    default:
      break;
  }
}

TEST(ItemValidation, SizeTakenOnTheWalkIsTheStoredItemsSize) {
  testing::ItemGen gen(4242);
  int respelled = 0;
  for (int i = 0; i < 1000; ++i) {
    Item item = gen.Map(0);
    if (i % 2 == 1) {
      for (auto& [name, v] : item) Respell(&v);
    }
    std::optional<Item> copy;
    size_t size = 0;
    ASSERT_TRUE(ValidateItem(item, &copy, &size).ok());
    const Item& stored = copy ? *copy : item;
    respelled += copy.has_value();
    EXPECT_EQ(size, ItemSize(stored)) << i;
    Item normalised = item;
    size_t normalised_size = 0;
    ASSERT_TRUE(NormalizeAndValidateItem(&normalised, &normalised_size).ok());
    EXPECT_EQ(normalised, stored);
    EXPECT_EQ(normalised_size, ItemSize(normalised)) << i;
  }
  EXPECT_GT(respelled, 100);  // the respelled half mostly holds a number
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
