// engine/time_text.h: times in text as DynamoDB writes them, and the ids
// made of a time and chance (backups, exports, imports).

#include "engine/time_text.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <set>
#include <string>

namespace dynarock {
namespace {

TEST(TimeText, MillisecondsFormatAndParseBack) {
  EXPECT_EQ(Iso8601Millis(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(Iso8601Millis(1732790000123), "2024-11-28T10:33:20.123Z");
  // Before the epoch the fraction stays positive (floor division).
  EXPECT_EQ(Iso8601Millis(-1), "1969-12-31T23:59:59.999Z");
  // A time rounded to the millisecond carries into the second (PITR's
  // messages round their seconds this way).
  EXPECT_EQ(Iso8601Millis(std::llround(10.9996 * 1000)), "1970-01-01T00:00:11.000Z");
  for (int64_t ms : {int64_t{0}, int64_t{-1}, int64_t{1732790000123}, int64_t{253402300799999}}) {
    EXPECT_EQ(ParseIso8601Millis(Iso8601Millis(ms)), ms) << ms;
  }
  EXPECT_EQ(ParseIso8601Millis("2024-11-28T10:33:20+00:00"), 1732790000000);
  EXPECT_EQ(ParseIso8601Millis("2024-11-28"), std::nullopt);
  EXPECT_EQ(ParseIso8601Millis("not a time"), std::nullopt);
}

TEST(TimeText, TimestampedIdsCarryTheirTimeAndDiffer) {
  std::set<std::string> ids;
  for (int i = 0; i < 100; ++i) {
    const std::string id = TimestampedId(1732790000123);
    ASSERT_EQ(id.size(), 14u + 1 + 8) << id;
    EXPECT_EQ(id.substr(0, 15), "01732790000123-");
    for (char c : id.substr(15)) {
      EXPECT_TRUE(std::isxdigit(static_cast<unsigned char>(c)) && !std::isupper(static_cast<unsigned char>(c)))
          << id;
    }
    ids.insert(id);
  }
  EXPECT_GE(ids.size(), 99u) << "8 random hex digits should not repeat";
  EXPECT_EQ(TimestampedId(5).substr(0, 15), "00000000000005-");
}

}  // namespace
}  // namespace dynarock
