// The endpoint's Content-Encoding helpers: which coding an Accept-Encoding
// asks for, and inflating with a limit.

#include "tools/server/compression.h"

#include <gtest/gtest.h>

namespace dynarock::server {
namespace {

TEST(Compression, PreferredCodingFollowsAcceptEncoding) {
  EXPECT_EQ(PreferredCoding("gzip, deflate"), ContentCoding::kGzip);
  EXPECT_EQ(PreferredCoding("deflate"), ContentCoding::kDeflate);
  EXPECT_EQ(PreferredCoding("gzip;q=0, deflate;q=0.5"), ContentCoding::kDeflate);
  EXPECT_EQ(PreferredCoding("GZIP"), ContentCoding::kGzip);
  EXPECT_EQ(PreferredCoding("br, *"), ContentCoding::kGzip);
  EXPECT_EQ(PreferredCoding("identity"), ContentCoding::kIdentity);
  EXPECT_EQ(PreferredCoding("gzip;q=0"), ContentCoding::kIdentity);
  EXPECT_EQ(PreferredCoding(""), ContentCoding::kIdentity);
}

TEST(Compression, ContentEncodingNames) {
  EXPECT_EQ(ParseContentEncoding(" gzip "), ContentCoding::kGzip);
  EXPECT_EQ(ParseContentEncoding("x-gzip"), ContentCoding::kGzip);
  EXPECT_EQ(ParseContentEncoding("Deflate"), ContentCoding::kDeflate);
  EXPECT_EQ(ParseContentEncoding("identity"), ContentCoding::kIdentity);
  EXPECT_EQ(ParseContentEncoding("gzip, br"), ContentCoding::kUnsupported);
  EXPECT_EQ(ParseContentEncoding("br"), ContentCoding::kUnsupported);
}

TEST(Compression, RoundTripsAndRefusesWhatItMust) {
  const std::string text(100000, 'a');
  for (ContentCoding c : {ContentCoding::kGzip, ContentCoding::kDeflate}) {
    std::string packed, back;
    ASSERT_TRUE(Compress(text, c, &packed));
    EXPECT_LT(packed.size(), text.size() / 10);
    EXPECT_EQ(Inflate(packed, c, 1 << 20, &back), InflateResult::kOk);
    EXPECT_EQ(back, text);
    EXPECT_EQ(Inflate(packed, c, 1000, &back), InflateResult::kTooLarge);
    EXPECT_EQ(Inflate(packed.substr(0, packed.size() / 2), c, 1 << 20, &back),
              InflateResult::kCorrupt);
    EXPECT_EQ(Inflate(packed + "junk", c, 1 << 20, &back), InflateResult::kCorrupt);
  }
  std::string back;
  EXPECT_EQ(Inflate("not compressed at all", ContentCoding::kGzip, 1 << 20, &back),
            InflateResult::kCorrupt);
  EXPECT_EQ(Inflate("", ContentCoding::kDeflate, 1 << 20, &back), InflateResult::kCorrupt);
}

}  // namespace
}  // namespace dynarock::server
