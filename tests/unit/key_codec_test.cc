// Tests for engine/coding.h and engine/key_codec.h.
//
// Pins: big-endian fixed ints and varints round trip and reject truncation;
// item keys round trip for every key type combination; the partition prefix
// is a prefix of exactly its partition's keys; memcmp order of sort keys (raw
// and escaped) equals DynamoDB's order (bytewise for S/B, numeric for N), also
// with more key bytes following an escaped component; PartitionHash is stable
// (golden values: the hash is persisted).

#include "engine/key_codec.h"

#include <gtest/gtest.h>

#include "tests/unit/testutil.h"

#include <algorithm>
#include <random>
#include <tuple>
#include <vector>

#include "engine/coding.h"
#include "engine/number.h"

namespace dynarock {
namespace {


TEST(Coding, FixedBigEndian) {
  std::string s;
  PutFixed32(&s, 0x01020304u);
  PutFixed64(&s, 0x0102030405060708ull);
  EXPECT_EQ(s, std::string("\x01\x02\x03\x04\x01\x02\x03\x04\x05\x06\x07\x08", 12));
  std::string_view in = s;
  uint32_t a;
  uint64_t b;
  ASSERT_TRUE(GetFixed32(&in, &a));
  ASSERT_TRUE(GetFixed64(&in, &b));
  EXPECT_EQ(a, 0x01020304u);
  EXPECT_EQ(b, 0x0102030405060708ull);
  EXPECT_TRUE(in.empty());
  EXPECT_FALSE(GetFixed32(&in, &a));
  // Big-endian: memcmp order is numeric order.
  std::string x, y;
  PutFixed32(&x, 255);
  PutFixed32(&y, 256);
  EXPECT_LT(x, y);
}

TEST(Coding, Varints) {
  std::mt19937_64 rng(3);
  std::string s;
  std::vector<uint64_t> values = {0, 1, 127, 128, 16383, 16384, UINT32_MAX, UINT64_MAX};
  for (int i = 0; i < 1000; ++i) values.push_back(rng() >> (rng() % 64));
  for (uint64_t v : values) {
    size_t before = s.size();
    PutVarint64(&s, v);
    EXPECT_EQ(s.size() - before, VarintLength(v));
  }
  std::string_view in = s;
  for (uint64_t v : values) {
    uint64_t got;
    ASSERT_TRUE(GetVarint64(&in, &got));
    EXPECT_EQ(got, v);
  }
  EXPECT_TRUE(in.empty());
  // 32-bit.
  std::string t;
  PutVarint32(&t, UINT32_MAX);
  PutVarint32(&t, 300);
  std::string_view tin = t;
  uint32_t v32;
  ASSERT_TRUE(GetVarint32(&tin, &v32));
  EXPECT_EQ(v32, UINT32_MAX);
  ASSERT_TRUE(GetVarint32(&tin, &v32));
  EXPECT_EQ(v32, 300u);
  // Too big for 32 bits, truncated, overlong.
  std::string big;
  PutVarint64(&big, uint64_t{1} << 32);
  std::string_view bin = big;
  EXPECT_FALSE(GetVarint32(&bin, &v32));
  std::string_view trunc("\x80\x80", 2);
  EXPECT_FALSE(GetVarint32(&trunc, &v32));
  std::string overlong(11, '\x80');
  std::string_view oin = overlong;
  uint64_t v64;
  EXPECT_FALSE(GetVarint64(&oin, &v64));
}

TEST(Coding, LengthPrefixed) {
  std::string s;
  PutLengthPrefixed(&s, "");
  PutLengthPrefixed(&s, std::string(300, 'x'));
  PutLengthPrefixed(&s, std::string("a\0b", 3));
  std::string_view in = s, out;
  ASSERT_TRUE(GetLengthPrefixed(&in, &out));
  EXPECT_EQ(out, "");
  ASSERT_TRUE(GetLengthPrefixed(&in, &out));
  EXPECT_EQ(out, std::string(300, 'x'));
  ASSERT_TRUE(GetLengthPrefixed(&in, &out));
  EXPECT_EQ(out, std::string_view("a\0b", 3));
  EXPECT_FALSE(GetLengthPrefixed(&in, &out));
  std::string_view trunc("\x05" "abc", 4);
  EXPECT_FALSE(GetLengthPrefixed(&trunc, &out));
}

TEST(KeyCodec, PartitionHashIsStable) {
  // Golden values (checked against an independent Python FNV-1a + fmix64):
  // persisted in every key, they must never change.
  EXPECT_EQ(PartitionHash(AttributeValue::S("")), 0x0d7cea42b5057e4cull);
  EXPECT_EQ(PartitionHash(AttributeValue::S("USER#Frodo")), 0x7577d0da278f98dbull);
  EXPECT_EQ(PartitionHash(AttributeValue::N("42")), 0x46d4207326cb069full);
  EXPECT_EQ(PartitionHash(AttributeValue::B(std::string("\0\1", 2))), 0x936e08abad721a69ull);
  // The type takes part: S "1" and N "1" hash differently.
  EXPECT_NE(PartitionHash(AttributeValue::S("1")), PartitionHash(AttributeValue::N("1")));
}

TEST(KeyCodec, Layout) {
  AttributeValue pk = AttributeValue::S("ab");
  std::string key = EncodeItemKey(7, pk, nullptr);
  std::string expect = EncodeHashBound(7, PartitionHash(pk)) + std::string("\x01\x02" "ab", 4);
  EXPECT_EQ(key, expect);
  EXPECT_EQ(EncodeTablePrefix(7), std::string("\0\0\0\x07", 4));
  EXPECT_EQ(key.substr(0, 4), EncodeTablePrefix(7));
  EXPECT_EQ(EncodePartitionPrefix(7, pk), key);
  AttributeValue sk = AttributeValue::S("zz");
  EXPECT_EQ(EncodeItemKey(7, pk, &sk), key + "zz");
}

TEST(KeyCodec, RoundTripAllKeyTypes) {
  const std::vector<AttributeValue> pks = {
      AttributeValue::S("USER#1"), AttributeValue::S(""), AttributeValue::N("-12.5"),
      AttributeValue::N("0"), AttributeValue::B(std::string("\0\xff\x01", 3))};
  const std::vector<AttributeValue> sks = {
      AttributeValue::S("2024-01-01"), AttributeValue::S(std::string("a\0b", 3)),
      AttributeValue::N("1" + std::string(100, '0')), AttributeValue::N("-0.001"),
      AttributeValue::B(std::string("\0\0", 2)), AttributeValue::B("")};
  for (const AttributeValue& pk : pks) {
    // Hash-only table.
    {
      std::string key = EncodeItemKey(12345, pk, nullptr);
      uint32_t id = 0;
      AttributeValue got_pk;
      std::optional<AttributeValue> got_sk = AttributeValue::S("junk");
      ASSERT_TRUE(DecodeItemKey(key, pk.type(), std::nullopt, &id, &got_pk, &got_sk));
      EXPECT_EQ(id, 12345u);
      EXPECT_EQ(got_pk, pk);
      EXPECT_FALSE(got_sk.has_value());
      // Trailing bytes, wrong types and truncation are rejected.
      EXPECT_FALSE(DecodeItemKey(key + "x", pk.type(), std::nullopt, &id, &got_pk, &got_sk));
      AttrType other = pk.is(AttrType::kS) ? AttrType::kB : AttrType::kS;
      EXPECT_FALSE(DecodeItemKey(key, other, std::nullopt, &id, &got_pk, &got_sk));
      for (size_t n = 0; n < key.size(); ++n) {
        EXPECT_FALSE(DecodeItemKey(key.substr(0, n), pk.type(), std::nullopt, nullptr,
                                   nullptr, nullptr));
      }
    }
    for (const AttributeValue& sk : sks) {
      std::string key = EncodeItemKey(1, pk, &sk);
      EXPECT_EQ(key.rfind(EncodePartitionPrefix(1, pk), 0), 0u);
      uint32_t id = 0;
      AttributeValue got_pk;
      std::optional<AttributeValue> got_sk;
      ASSERT_TRUE(DecodeItemKey(key, pk.type(), sk.type(), &id, &got_pk, &got_sk))
          << sk.DebugString();
      EXPECT_EQ(id, 1u);
      EXPECT_EQ(got_pk, pk);
      ASSERT_TRUE(got_sk.has_value());
      EXPECT_EQ(*got_sk, sk);
    }
  }
  // A corrupted hash is detected.
  std::string key = EncodeItemKey(1, pks[0], nullptr);
  key[6] ^= 1;
  EXPECT_FALSE(DecodeItemKey(key, AttrType::kS, std::nullopt, nullptr, nullptr, nullptr));
}

TEST(KeyCodec, PartitionPrefixSeparatesPartitions) {
  // "a" must not be a prefix-match of "ab"'s keys even without the hash.
  AttributeValue a = AttributeValue::S("a"), ab = AttributeValue::S("ab");
  AttributeValue sk = AttributeValue::S("b");
  std::string prefix_a = EncodePartitionPrefix(1, a);
  EXPECT_EQ(EncodeItemKey(1, a, &sk).rfind(prefix_a, 0), 0u);
  EXPECT_NE(EncodeItemKey(1, ab, &sk).rfind(prefix_a, 0), 0u);
  EXPECT_NE(EncodeItemKey(2, a, &sk).rfind(prefix_a, 0), 0u);
}

std::string RandomBytes(std::mt19937* rng, bool small_alphabet) {
  std::string s((*rng)() % 6, '\0');
  for (char& c : s) {
    c = small_alphabet ? "\x00\x01\xff" "a"[(*rng)() % 4] : static_cast<char>((*rng)());
  }
  return s;
}

std::string RandomNumber(std::mt19937* rng) {
  static const char* kSamples[] = {"0", "1", "-1", "0.5", "-0.5", "10", "100", "-100", "1.01",
                                   "99", "0.0001", "-0.0001", "12345678901234567890123456789012345678"};
  if ((*rng)() % 2) return kSamples[(*rng)() % (sizeof(kSamples) / sizeof(kSamples[0]))];
  std::string text = std::to_string(static_cast<int>((*rng)() % 2000001) - 1000000) + "E" +
                     std::to_string(static_cast<int>((*rng)() % 240) - 120);
  return *NormalizeNumber(text);
}

int CompareValue(const AttributeValue& a, const AttributeValue& b) {
  if (a.is(AttrType::kN)) return testing::Sign(CompareNumbers(a.scalar(), b.scalar()));
  return testing::Sign(a.scalar().compare(b.scalar()));
}

TEST(KeyCodec, PropertySortKeyOrder) {
  std::mt19937 rng(11);
  AttributeValue pk = AttributeValue::S("p");
  for (AttrType type : {AttrType::kS, AttrType::kB, AttrType::kN}) {
    std::vector<AttributeValue> values;
    for (int i = 0; i < 600; ++i) {
      if (type == AttrType::kN) {
        values.push_back(AttributeValue::N(RandomNumber(&rng)));
      } else {
        std::string b = RandomBytes(&rng, i % 2 == 0);
        values.push_back(type == AttrType::kS ? AttributeValue::S(b) : AttributeValue::B(b));
      }
    }
    for (int i = 0; i < 6000; ++i) {
      const AttributeValue& x = values[rng() % values.size()];
      const AttributeValue& y = values[rng() % values.size()];
      int ref = CompareValue(x, y);
      // Last component: raw.
      std::string kx = EncodeItemKey(3, pk, &x), ky = EncodeItemKey(3, pk, &y);
      ASSERT_EQ(testing::Sign(kx.compare(ky)), ref) << x.DebugString() << " " << y.DebugString();
      // Bound built from prefix + AppendSortKey equals the item key.
      std::string bound = EncodePartitionPrefix(3, pk);
      AppendSortKey(x, &bound);
      ASSERT_EQ(bound, kx);
      // Escaped component followed by arbitrary bytes.
      std::string ex, ey;
      AppendEscapedSortKey(x, &ex);
      AppendEscapedSortKey(y, &ey);
      ASSERT_EQ(testing::Sign(ex.compare(ey)), ref) << x.DebugString() << " " << y.DebugString();
      if (ref != 0) {
        std::string tx = ex + RandomBytes(&rng, true), ty = ey + RandomBytes(&rng, true);
        ASSERT_EQ(testing::Sign(tx.compare(ty)), ref) << x.DebugString() << " " << y.DebugString();
      }
      // Round trip of the escaped form with a tail.
      std::string buf = ex + "tail";
      std::string_view in = buf;
      AttributeValue back;
      ASSERT_TRUE(ConsumeEscapedSortKey(&in, type, &back));
      ASSERT_EQ(back, x);
      ASSERT_EQ(in, "tail");
    }
  }
}

TEST(KeyCodec, EscapedBytesRejectMalformed) {
  std::string out;
  for (const std::string& bad :
       {std::string(""), std::string("abc"), std::string("a\0", 2), std::string("a\0\x02", 3),
        std::string("\0\xff", 2)}) {
    std::string_view in = bad;
    EXPECT_FALSE(ConsumeEscapedBytes(&in, &out)) << bad.size();
    EXPECT_EQ(in.size(), bad.size());
  }
  std::string_view ok("\0\xff\0\x01rest", 8);
  ASSERT_TRUE(ConsumeEscapedBytes(&ok, &out));
  EXPECT_EQ(out, std::string(1, '\0'));
  EXPECT_EQ(ok, "rest");
}

TEST(KeyCodec, HashBoundsSplitTheTable) {
  std::mt19937 rng(5);
  const std::string lo = EncodeHashBound(9, uint64_t{1} << 62);
  const std::string hi = EncodeHashBound(9, uint64_t{1} << 63);
  for (int i = 0; i < 2000; ++i) {
    AttributeValue pk = AttributeValue::S(std::to_string(rng()));
    std::string key = EncodeItemKey(9, pk, nullptr);
    uint64_t h = PartitionHash(pk);
    bool inside = h >= (uint64_t{1} << 62) && h < (uint64_t{1} << 63);
    EXPECT_EQ(key >= lo && key < hi, inside);
    EXPECT_GT(key, EncodeTablePrefix(9));
    EXPECT_LT(key, EncodeTablePrefix(10));
  }
}

TEST(KeyCodec, DecodeGarbageNeverCrashes) {
  std::mt19937 rng(8);
  for (int i = 0; i < 20000; ++i) {
    std::string bytes(rng() % 40, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    uint32_t id;
    AttributeValue pk;
    std::optional<AttributeValue> sk;
    (void)DecodeItemKey(bytes, AttrType::kS, AttrType::kN, &id, &pk, &sk);
    std::string_view in = bytes;
    (void)ConsumeEscapedSortKey(&in, AttrType::kN, &pk);
    in = bytes;
    (void)ConsumeEscapedSortKey(&in, AttrType::kB, &pk);
  }
}

TEST(KeyCodec, PrefixSuccessorBoundsExactlyThePrefix) {
  EXPECT_EQ(PrefixSuccessor("ab"), "ac");
  EXPECT_EQ(PrefixSuccessor(std::string("a\xff\xff", 3)), "b");
  EXPECT_EQ(PrefixSuccessor(std::string("\xff", 1)), "");  // no upper bound
  const std::string p("k\x01\xff", 3);
  EXPECT_LT(p + std::string(10, '\xff'), PrefixSuccessor(p));
  EXPECT_GE(std::string("k\x02", 2), PrefixSuccessor(p));
}

TEST(KeyCodec, MultiAttributePartitionPrefix) {
  AttributeValue a = AttributeValue::S("ab"), n = AttributeValue::N("12"), b = AttributeValue::B("x");
  // One part: exactly the single-value encoding (persisted single-attribute keys).
  EXPECT_EQ(EncodePartitionPrefix(9, std::vector<const AttributeValue*>{&a}),
            EncodePartitionPrefix(9, a));
  // Several: the table prefix, one hash over all components, each component
  // self-delimited (type byte, length, bytes) in schema order.
  std::string p = EncodePartitionPrefix(9, std::vector<const AttributeValue*>{&a, &n, &b});
  EXPECT_EQ(p.substr(0, 4), EncodeTablePrefix(9));
  EXPECT_EQ(p.substr(12), std::string("\x01\x02" "ab" "\x02\x02" "12" "\x03\x01" "x", 11));
  // Order and boundaries matter: ("ab","c") and ("a","bc") are different partitions.
  AttributeValue ab = AttributeValue::S("ab"), c = AttributeValue::S("c");
  AttributeValue a1 = AttributeValue::S("a"), bc = AttributeValue::S("bc");
  std::string p1 = EncodePartitionPrefix(9, std::vector<const AttributeValue*>{&ab, &c});
  std::string p2 = EncodePartitionPrefix(9, std::vector<const AttributeValue*>{&a1, &bc});
  std::string p3 = EncodePartitionPrefix(9, std::vector<const AttributeValue*>{&c, &ab});
  EXPECT_NE(p1, p2);
  EXPECT_NE(p1, p3);
  EXPECT_NE(p1.substr(4, 8), p2.substr(4, 8));  // the hash covers the boundaries
  // No partition's prefix is a prefix of another's.
  EXPECT_NE(p2.compare(0, p1.size(), p1), 0);
}

TEST(KeyCodec, EscapedComponentsOrderTuplesLeftToRight) {
  // Sort components (S, N, B) escaped one after another order like tuples,
  // each component by its own type's order, whatever follows them.
  std::mt19937 rng(7);
  std::vector<std::pair<std::tuple<std::string, double, std::string>, std::string>> rows;
  const char* strings[] = {"", "a", "a\0", "ab", "b", "\xff"};
  const char* numbers[] = {"-10", "-1.5", "0", "1", "1.25", "9", "10"};
  const char* blobs[] = {"", "", "\x01", "z"};  // [1] is "\0", made below
  for (const char* s : strings) {
    for (const char* n : numbers) {
      for (int bi = 0; bi < 4; ++bi) {
        std::string sv = std::string(s) == "a\0" ? std::string("a\0", 2) : std::string(s);
        std::string bv = bi == 1 ? std::string("\0", 1) : std::string(blobs[bi]);
        std::string key;
        AppendEscapedSortKey(AttributeValue::S(sv), &key);
        AppendEscapedSortKey(AttributeValue::N(n), &key);
        AppendEscapedSortKey(AttributeValue::B(bv), &key);
        key += std::to_string(rng() % 100);  // the item key that follows
        rows.push_back({{sv, std::stod(n), bv}, key});
      }
    }
  }
  for (const auto& x : rows) {
    for (const auto& y : rows) {
      if (x.first == y.first) continue;
      EXPECT_EQ(x.first < y.first, x.second < y.second);
    }
  }
}

}  // namespace
}  // namespace dynarock
