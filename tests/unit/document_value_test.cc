// The document API's values (document/value.h): C++ values <-> attribute
// values, exact numbers, explicit sets, absent members, time points.

#include "document/value.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "dynarock/item_view.h"
#include "engine/item_codec.h"

namespace dynarock::document {
namespace {

TEST(DocumentNumberTest, IntegersAndDoublesAreExactOrRefused) {
  EXPECT_EQ(Number(int64_t{-42}).text(), "-42");
  EXPECT_EQ(Number(std::numeric_limits<uint64_t>::max()).text(), "18446744073709551615");
  EXPECT_EQ(Number::FromDouble(0.1).value().text(), "0.1");
  EXPECT_EQ(Number::FromDouble(2.5e-7).value().text(), "0.00000025");
  EXPECT_EQ(Number::FromDouble(1e21).value().text(), "1000000000000000000000");
  EXPECT_EQ(Number::FromDouble(NAN).status().type(), ErrorType::kValidation);
  EXPECT_EQ(Number::FromDouble(INFINITY).status().type(), ErrorType::kValidation);
  EXPECT_NE(Number::FromDouble(1e300).status().message().find("overflow"), std::string::npos);

  EXPECT_EQ(Number::Parse("01.500").value().text(), "1.5");
  EXPECT_EQ(Number::Parse("-1E+2").value().text(), "-100");
  EXPECT_NE(Number::Parse("1" + std::string(38, '1')).status().message().find("38 significant digits"),
            std::string::npos);
  EXPECT_EQ(Number::Parse("abc").status().type(), ErrorType::kValidation);

  // Reading back: refused whenever something would be lost.
  EXPECT_EQ(Number::Parse("12").value().ToInt64().value(), 12);
  EXPECT_EQ(Number::Parse("12.5").value().ToInt64().status().type(), ErrorType::kValidation);
  EXPECT_EQ(Number::Parse("9223372036854775808").value().ToInt64().status().type(), ErrorType::kValidation);
  EXPECT_EQ(Number::Parse("9223372036854775808").value().ToUint64().value(), 9223372036854775808ull);
  EXPECT_EQ(Number::Parse("0.1").value().ToDouble().value(), 0.1);
  const Number precise = Number::Parse("0.10000000000000000001").value();
  EXPECT_EQ(precise.ToDouble().status().type(), ErrorType::kValidation);
  EXPECT_DOUBLE_EQ(precise.ToDoubleApprox(), 0.1);
  EXPECT_TRUE(Number::Parse("-3").value() < Number::Parse("2.5").value());
  EXPECT_TRUE(Number::Parse("10").value() < Number::Parse("100").value());
}

TEST(DocumentValueTest, RoundTripsEveryKindThroughAnItem) {
  const Value doc = Map{
      {"s", "text"},
      {"n", 42},
      {"d", 2.5},
      {"exact", Number::Parse("123456789012345678901234567890.5").value()},
      {"b", Bytes{std::string("\0\xff", 2)}},
      {"yes", true},
      {"nothing", nullptr},
      {"list", List{"a", 1, List{false}}},
      {"map", Map{{"inner", "x"}}},
      {"ss", Value::StringSet({"b", "a"})},
      {"ns", Value::NumberSet({3, Number::Parse("1.5").value()})},
      {"bs", Value::BytesSet({Bytes{"x"}, Bytes{"y"}})},
      {"gone", std::optional<std::string>()},
      {"there", std::optional<int>(7)},
  };
  auto item = doc.ToItem();
  ASSERT_TRUE(item.ok()) << item.status().ToString();
  EXPECT_EQ(item->count("gone"), 0u);  // absent: left out
  EXPECT_EQ(item->at("n"), AttributeValue::N("42"));
  EXPECT_EQ(item->at("d"), AttributeValue::N("2.5"));
  EXPECT_EQ(item->at("exact").scalar(), "123456789012345678901234567890.5");
  EXPECT_TRUE(item->at("ss").is(AttrType::kSS));
  EXPECT_TRUE(item->at("list").is(AttrType::kL));  // a list never becomes a set
  EXPECT_EQ(item->at("there"), AttributeValue::N("7"));

  const Value back = Value::From(*item);
  Map want = doc.map();
  want.erase("gone");
  EXPECT_EQ(back, Value(want));
  EXPECT_EQ(back["n"].AsInt().value(), 42);
  EXPECT_EQ(back["d"].AsDouble().value(), 2.5);
  EXPECT_EQ(back["exact"].AsDouble().status().type(), ErrorType::kValidation);
  EXPECT_EQ(back["exact"].AsNumber().value().text(), "123456789012345678901234567890.5");
  EXPECT_EQ(back["b"].AsBytes().value().data, std::string("\0\xff", 2));
  EXPECT_TRUE(back["missing"].is_absent());
  EXPECT_EQ(back["s"].AsInt().status().message(), "expected a number, found a string");
}

TEST(DocumentValueTest, RefusesWhatDynamoDBRefuses) {
  EXPECT_EQ(Value(List{1}).ToItem().status().message(), "expected a map (an item), found a list");
  EXPECT_NE(Value(Map{{"ss", Value::StringSet({})}}).ToItem().status().message().find("may not be empty"),
            std::string::npos);
  EXPECT_NE(Value(Map{{"ss", Value::StringSet({"a", "a"})}}).ToItem().status().message().find("duplicates"),
            std::string::npos);
  EXPECT_EQ(Value(Map{{"nan", std::nan("")}}).ToItem().status().type(), ErrorType::kValidation);
  EXPECT_EQ(Value(Map{{"deep", Map{{"nan", INFINITY}}}}).ToItem().status().type(), ErrorType::kValidation);
}

TEST(DocumentValueTest, TimePointsAsIsoTextOrEpochSeconds) {
  using namespace std::chrono;
  const system_clock::time_point t = system_clock::time_point(milliseconds(1764230400123));
  const Value iso = Time{t, TimeFormat::kIso8601};
  EXPECT_EQ(iso.AsString().value(), "2025-11-27T08:00:00.123Z");
  EXPECT_EQ(iso.AsTime().value(), t);
  const Value epoch = Time{t, TimeFormat::kEpochSeconds};
  EXPECT_EQ(epoch.AsNumber().value().text(), "1764230400.123");
  EXPECT_EQ(epoch.AsTime().value(), t);
  const Value before = Time{system_clock::time_point(milliseconds(-1500)), TimeFormat::kEpochSeconds};
  EXPECT_EQ(before.AsNumber().value().text(), "-1.5");
  const Value iso_before = Time{system_clock::time_point(milliseconds(-1500)), TimeFormat::kIso8601};
  EXPECT_EQ(iso_before.AsString().value(), "1969-12-31T23:59:58.500Z");
  EXPECT_EQ(iso_before.AsTime().value(), system_clock::time_point(milliseconds(-1500)));
  EXPECT_EQ(Value("1970-01-01T00:00:00Z").AsTime().value(), system_clock::time_point());
  EXPECT_EQ(Value("yesterday").AsTime().status().type(), ErrorType::kValidation);
}

// A page read as stored bytes (what the embedded table handle asks for)
// becomes the same Value as the decoded Item would.
TEST(DocumentValueTest, StoredBytesBecomeTheSameValueAsTheirItem) {
  Item item = Value(Map{{"s", "text"}, {"n", Number::Parse("-12.50").value()}, {"b", Bytes{std::string("\0\xff", 2)}},
                        {"t", true}, {"z", nullptr},
                        {"l", List{1, "two", List{}, Map{{"deep", List{Map{{"x", 1}}}}}}},
                        {"m", Map{{"a", Map{}}, {"b", Value::StringSet({"q", "p"})}}},
                        {"ss", Value::StringSet({"b", "a"})}, {"ns", Value::NumberSet({3, 1})},
                        {"bs", Value::BytesSet({Bytes{"x"}, Bytes{"y"}})}})
                  .ToItem()
                  .value();
  const std::string bytes = EncodeItem(item);
  auto from_bytes = Value::From(ItemView(bytes));
  ASSERT_TRUE(from_bytes.ok()) << from_bytes.status().ToString();
  EXPECT_EQ(*from_bytes, Value::From(item));
  EXPECT_EQ((*from_bytes)["l"].list()[3]["deep"].list()[0]["x"], Value(1));
  EXPECT_EQ((*from_bytes)["n"].AsNumber()->text(), "-12.5");
  // Moving out of an Item gives the same too.
  Item copy = item;
  EXPECT_EQ(Value::From(std::move(copy)), Value::From(item));
  // Malformed bytes are an error, not a crash.
  EXPECT_EQ(Value::From(ItemView(bytes.substr(0, bytes.size() / 2))).status().type(), ErrorType::kInternalServerError);
}

}  // namespace
}  // namespace dynarock::document
