// Plain JSON <-> items (document/json.h), as DocumentClient's marshall and
// unmarshall: exact numbers, options, refusals.

#include "document/json.h"

#include <gtest/gtest.h>

namespace dynarock::document {
namespace {

TEST(DocumentJsonTest, MarshallsPlainJsonWithExactNumbers) {
  auto item = Marshall(R"({"id":"t-1","n":1.50,"big":12345678901234567890123456789.25,"neg":-2e3,)"
                       R"("ok":true,"none":null,"tags":["a",1,{"x":[]}],"m":{"inner":"v"},"empty":""})");
  ASSERT_TRUE(item.ok()) << item.status().ToString();
  EXPECT_EQ(item->at("id"), AttributeValue::S("t-1"));
  EXPECT_EQ(item->at("n"), AttributeValue::N("1.5"));
  EXPECT_EQ(item->at("big").scalar(), "12345678901234567890123456789.25");  // not a double's reading
  EXPECT_EQ(item->at("neg"), AttributeValue::N("-2000"));
  EXPECT_EQ(item->at("ok"), AttributeValue::Bool(true));
  EXPECT_TRUE(item->at("none").is(AttrType::kNull));
  EXPECT_TRUE(item->at("tags").is(AttrType::kL));  // arrays are lists, never sets
  EXPECT_EQ(item->at("tags").list().size(), 3u);
  EXPECT_EQ(item->at("m").map().at("inner"), AttributeValue::S("v"));
  EXPECT_EQ(item->at("empty"), AttributeValue::S(""));

  // Back to JSON: members in name order, numbers as their text.
  EXPECT_EQ(Unmarshall(*item),
            R"({"big":12345678901234567890123456789.25,"empty":"","id":"t-1","m":{"inner":"v"},"n":1.5,)"
            R"("neg":-2000,"none":null,"ok":true,"tags":["a",1,{"x":[]}]})");
  UnmarshallOptions wrap;
  wrap.wrap_numbers = true;
  EXPECT_EQ(Unmarshall({{"n", AttributeValue::N("1.5")}, {"ns", AttributeValue::NS({"1", "2"})}}, wrap),
            R"({"n":"1.5","ns":["1","2"]})");
  EXPECT_EQ(Unmarshall({{"b", AttributeValue::B("\x01\x02")}, {"ss", AttributeValue::SS({"y", "x"})}}),
            R"({"b":"AQI=","ss":["x","y"]})");
}

TEST(DocumentJsonTest, OptionsConvertEmptyStringsAndDropNulls) {
  MarshallOptions o;
  o.convert_empty_values = true;
  o.remove_null_values = true;
  auto item = Marshall(R"({"a":"","b":null,"c":{"d":null,"e":""},"f":[null,""]})", o);
  ASSERT_TRUE(item.ok()) << item.status().ToString();
  EXPECT_EQ(item->count("b"), 0u);
  EXPECT_EQ(item->count("a"), 0u);  // "" became null, then dropped
  EXPECT_TRUE(item->at("c").map().empty());
  ASSERT_EQ(item->at("f").list().size(), 2u);  // list elements are kept, as nulls
  EXPECT_TRUE(item->at("f").list()[1].is(AttrType::kNull));
}

TEST(DocumentJsonTest, RefusesMalformedJsonAndNumbersDynamoDBCannotHold) {
  EXPECT_EQ(Marshall("{").status().type(), ErrorType::kValidation);
  EXPECT_EQ(Marshall("[1]").status().message(), "expected a map (an item), found a list");
  auto precise = Marshall(R"({"x":{"y":1.000000000000000000000000000000000000001}})");
  EXPECT_EQ(precise.status().type(), ErrorType::kValidation);
  EXPECT_NE(precise.status().message().find("x.y"), std::string::npos) << precise.status().message();
  EXPECT_NE(Marshall(R"({"x":1e200})").status().message().find("overflow"), std::string::npos);
  EXPECT_EQ(FromJson("42").value().AsInt().value(), 42);
  EXPECT_EQ(FromJson("\"s\"").value().AsString().value(), "s");
  EXPECT_TRUE(FromJson("null").value().is_null());
  EXPECT_EQ(FromJson("1 2").status().type(), ErrorType::kValidation);
}

}  // namespace
}  // namespace dynarock::document
