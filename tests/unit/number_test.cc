// Tests for engine/number.h: DynamoDB's N type.
//
// Pins: the normalised text form (no exponent ever), DynamoDB's exact error
// messages and range limits (38 significant digits, 1E-130 .. 9.99..E+125),
// exact addition and subtraction, and the order-preserving key encoding. The
// property tests compare against an independent fixed-point reference written
// here (and long double for short numbers) over thousands of random values
// written in several equivalent ways.

#include "engine/number.h"

#include <gtest/gtest.h>

#include "tests/unit/testutil.h"

#include <algorithm>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace dynarock {
namespace {

std::string Norm(std::string_view text) {
  StatusOr<std::string> r = NormalizeNumber(text);
  EXPECT_TRUE(r.ok()) << text << ": " << r.status().ToString();
  return r.ok() ? *r : "<error>";
}

std::string ErrorOf(std::string_view text) {
  StatusOr<std::string> r = NormalizeNumber(text);
  if (r.ok()) return "<ok " + *r + ">";
  EXPECT_EQ(r.status().type(), ErrorType::kValidation);
  return r.status().message();
}

const char kNotNumeric[] = "The parameter cannot be converted to a numeric value: ";
const char kTooManyDigits[] = "Attempting to store more than 38 significant digits in a Number";
const char kOverflow[] =
    "Number overflow. Attempting to store a number with magnitude larger than supported range";
const char kUnderflow[] =
    "Number underflow. Attempting to store a number with magnitude smaller than supported range";

TEST(Number, NormalisedForm) {
  EXPECT_EQ(Norm("1E+2"), "100");
  EXPECT_EQ(Norm("1.5e-3"), "0.0015");
  EXPECT_EQ(Norm("-0"), "0");
  EXPECT_EQ(Norm("01.500"), "1.5");
  EXPECT_EQ(Norm("-.5"), "-0.5");
  EXPECT_EQ(Norm("+5"), "5");
  EXPECT_EQ(Norm("+1.5"), "1.5");
  EXPECT_EQ(Norm("1.5E+3"), "1500");
  EXPECT_EQ(Norm("5."), "5");
  EXPECT_EQ(Norm("0.0"), "0");
  EXPECT_EQ(Norm("-0.000e5"), "0");
  EXPECT_EQ(Norm("0E+99999999999999"), "0");
  EXPECT_EQ(Norm("000123"), "123");
  EXPECT_EQ(Norm("10.05"), "10.05");
  EXPECT_EQ(Norm("1230000"), "1230000");
  EXPECT_EQ(Norm("-12.340E1"), "-123.4");
  EXPECT_EQ(Norm("123456E-3"), "123.456");
  EXPECT_EQ(Norm("0.00001"), "0.00001");
  EXPECT_EQ(Norm("15E-1"), "1.5");
  EXPECT_EQ(Norm("1.50"), "1.5");
  EXPECT_EQ(Norm("1E-130"), "0." + std::string(129, '0') + "1");
  EXPECT_EQ(Norm("1E125"), "1" + std::string(125, '0'));
}

TEST(Number, RejectsNonNumbers) {
  EXPECT_EQ(ErrorOf(""), "The parameter cannot be converted to a numeric value");
  for (const char* bad : {"abc", "b", "1e", "e5", "--1", "+-1", "1.2.3", " 1", "1 ", "0x10",
                          "Infinity", "NaN", ".", "+", "-", "1e+", "1e-", "1e1.5", "1ee1",
                          "1,5", "١"}) {
    EXPECT_EQ(ErrorOf(bad), std::string(kNotNumeric) + bad) << bad;
  }
}

TEST(Number, Limits) {
  // 38 digits are fine; 39 are not, unless the extra ones are trailing zeros.
  EXPECT_EQ(Norm("12345678901234567890123456789012345678"),
            "12345678901234567890123456789012345678");
  EXPECT_EQ(ErrorOf("123456789012345678901234567890123456789"), kTooManyDigits);
  EXPECT_EQ(ErrorOf("1.23456789012345678901234567890123456789"), kTooManyDigits);
  EXPECT_EQ(Norm("1" + std::string(50, '0')), "1" + std::string(50, '0'));
  EXPECT_EQ(Norm("0.000" + std::string(38, '7')), "0.000" + std::string(38, '7'));
  EXPECT_EQ(Norm("1234567890123456789012345678901234567800000"),
            "1234567890123456789012345678901234567800000");
  // Magnitude.
  const std::string max = "9.9999999999999999999999999999999999999E+125";
  EXPECT_EQ(Norm(max), std::string(38, '9') + std::string(88, '0'));
  EXPECT_EQ(Norm("-" + max), "-" + std::string(38, '9') + std::string(88, '0'));
  EXPECT_EQ(ErrorOf("1E+126"), kOverflow);
  EXPECT_EQ(ErrorOf("-1E+126"), kOverflow);
  EXPECT_EQ(ErrorOf("10E+125"), kOverflow);
  EXPECT_EQ(ErrorOf("1E+99999999999999999999"), kOverflow);
  EXPECT_EQ(Norm("1E-130"), "0." + std::string(129, '0') + "1");
  EXPECT_EQ(Norm("-1E-130"), "-0." + std::string(129, '0') + "1");
  EXPECT_EQ(ErrorOf("1E-131"), kUnderflow);
  EXPECT_EQ(ErrorOf("0.1E-130"), kUnderflow);
  EXPECT_EQ(ErrorOf("1E-99999999999999999999"), kUnderflow);
}

TEST(Number, ParseNumberDecimal) {
  StatusOr<Decimal> d = ParseNumber("-0012.3400e1");
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->negative);
  EXPECT_EQ(d->digits, "1234");
  EXPECT_EQ(d->exponent, 3);
  EXPECT_EQ(FormatNumber(*d), "-123.4");
  StatusOr<Decimal> z = ParseNumber("-0.0");
  ASSERT_TRUE(z.ok());
  EXPECT_TRUE(z->is_zero());
  EXPECT_FALSE(z->negative);
}

TEST(Number, Compare) {
  EXPECT_LT(CompareNumbers("1", "2"), 0);
  EXPECT_GT(CompareNumbers("10", "9"), 0);
  EXPECT_EQ(CompareNumbers("1.5", "1.5"), 0);
  EXPECT_LT(CompareNumbers("-2", "-1"), 0);
  EXPECT_LT(CompareNumbers("-1", "0"), 0);
  EXPECT_LT(CompareNumbers("0", "0.0001"), 0);
  EXPECT_LT(CompareNumbers("1.5", "1.55"), 0);
  EXPECT_GT(CompareNumbers("-1.5", "-1.55"), 0);
  EXPECT_LT(CompareNumbers("0.09", "0.1"), 0);
  EXPECT_LT(CompareNumbers("99", "100"), 0);
}

TEST(Number, AddSubtractExact) {
  auto add = [](std::string_view a, std::string_view b) {
    StatusOr<std::string> r = AddNumbers(a, b);
    return r.ok() ? *r : r.status().message();
  };
  auto sub = [](std::string_view a, std::string_view b) {
    StatusOr<std::string> r = SubtractNumbers(a, b);
    return r.ok() ? *r : r.status().message();
  };
  EXPECT_EQ(add("0.1", "0.2"), "0.3");
  EXPECT_EQ(add("1", "-1"), "0");
  EXPECT_EQ(add("-5", "5"), "0");
  EXPECT_EQ(add("99", "1"), "100");
  EXPECT_EQ(add("-0.5", "0.25"), "-0.25");
  EXPECT_EQ(add("0", "-7"), "-7");
  EXPECT_EQ(sub("0", "7"), "-7");
  EXPECT_EQ(sub("1", "0.001"), "0.999");
  EXPECT_EQ(sub("-1", "-1"), "0");
  EXPECT_EQ(sub("1000", "0.5"), "999.5");
  // Exact results needing more than 38 digits are refused.
  EXPECT_EQ(add("1" + std::string(30, '0'), "0.000000001"), kTooManyDigits);
  EXPECT_EQ(add(std::string(38, '9'), "1"), "1" + std::string(38, '0'));
  const std::string max = std::string(38, '9') + std::string(88, '0');
  EXPECT_EQ(add(max, max), kOverflow);
  EXPECT_EQ(sub("-" + max, max), kOverflow);
  EXPECT_EQ(add(max, "-" + max), "0");
}

// ----- Property tests -----------------------------------------------------

// An independent reference: the normalised text as fixed-point digits with
// 130 integer and 200 fraction positions, compared as strings.
struct Fixed {
  int sign;  // -1, 0, 1
  std::string digits;
};

Fixed ToFixed(const std::string& norm) {
  Fixed f;
  std::string_view s = norm;
  f.sign = 1;
  if (!s.empty() && s[0] == '-') {
    f.sign = -1;
    s.remove_prefix(1);
  }
  size_t dot = s.find('.');
  std::string_view int_part = s.substr(0, dot);
  std::string_view frac_part = dot == std::string_view::npos ? "" : s.substr(dot + 1);
  EXPECT_LE(int_part.size(), 130u) << norm;
  EXPECT_LE(frac_part.size(), 200u) << norm;
  f.digits = std::string(130 - int_part.size(), '0') + std::string(int_part) +
             std::string(frac_part) + std::string(200 - frac_part.size(), '0');
  if (f.digits.find_first_not_of('0') == std::string::npos) f.sign = 0;
  return f;
}

int RefCompare(const std::string& a, const std::string& b) {
  Fixed x = ToFixed(a), y = ToFixed(b);
  if (x.sign != y.sign) return x.sign < y.sign ? -1 : 1;
  int c = x.digits.compare(y.digits);
  c = c < 0 ? -1 : (c > 0 ? 1 : 0);
  return x.sign < 0 ? -c : c;
}


// A random valid number (significant digits, sign, exponent), written in a
// random one of several equivalent ways.
struct RandomNumber {
  std::string text;  // as a client might send it
};

class NumberGen {
 public:
  explicit NumberGen(uint32_t seed) : rng_(seed) {}

  int Uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

  std::string Digits(int n) {
    std::string d;
    for (int i = 0; i < n; ++i) d.push_back(static_cast<char>('0' + Uniform(0, 9)));
    d[0] = static_cast<char>('1' + Uniform(0, 8));
    d.back() = static_cast<char>('1' + Uniform(0, 8));
    return d;
  }

  // value = 0.digits * 10^exp
  std::string Next() {
    if (Uniform(0, 40) == 0) return Uniform(0, 1) ? "0" : "-0.00";
    int n;
    switch (Uniform(0, 3)) {
      case 0: n = 1; break;
      case 1: n = Uniform(1, 4); break;
      case 2: n = Uniform(1, 12); break;
      default: n = Uniform(1, 38); break;
    }
    std::string digits = Digits(n);
    // Small digit alphabets make equal prefixes (and ties) common.
    if (Uniform(0, 3) == 0) {
      for (char& c : digits) c = "19"[Uniform(0, 1)];
    }
    int exp;
    switch (Uniform(0, 3)) {
      case 0: exp = Uniform(-3, 4); break;
      case 1: exp = Uniform(-20, 20); break;
      case 2: exp = Uniform(120, 126); break;
      default: exp = Uniform(-129, 126); break;
    }
    if (Uniform(0, 4) == 0) exp = Uniform(0, 1) ? 126 : -129;
    bool neg = Uniform(0, 1) == 1;
    return Write(neg, digits, exp);
  }

  // Writes sign * 0.digits * 10^exp with a random mantissa point position,
  // random padding zeros and an exponent.
  std::string Write(bool neg, const std::string& digits, int exp) {
    std::string out;
    if (neg) out.push_back('-');
    else if (Uniform(0, 5) == 0) out.push_back('+');
    // mantissa = lead zeros + digits + trail zeros, point after `k` chars.
    std::string m = std::string(static_cast<size_t>(Uniform(0, 2)), '0') + digits +
                    std::string(static_cast<size_t>(Uniform(0, 2)), '0');
    int lead = static_cast<int>(m.find_first_not_of('0'));
    int k = Uniform(0, static_cast<int>(m.size()));
    // value = 0.digits * 10^exp = m * 10^-(m.size()-k) * 10^e  with the first
    // significant digit of m at index `lead`.
    int e = exp - (k - lead);
    if (k == 0) {
      out += "." + m;
    } else if (k == static_cast<int>(m.size())) {
      out += m;
      if (Uniform(0, 2) == 0) out.push_back('.');
    } else {
      out += m.substr(0, static_cast<size_t>(k)) + "." + m.substr(static_cast<size_t>(k));
    }
    if (e != 0 || Uniform(0, 3) == 0) {
      out.push_back(Uniform(0, 1) ? 'e' : 'E');
      if (e >= 0 && Uniform(0, 1)) out.push_back('+');
      out += std::to_string(e);
    }
    return out;
  }

 private:
  std::mt19937 rng_;
};

TEST(Number, PropertyNormaliseMatchesReference) {
  NumberGen gen(20240601);
  for (int i = 0; i < 4000; ++i) {
    std::string text = gen.Next();
    StatusOr<std::string> norm = NormalizeNumber(text);
    ASSERT_TRUE(norm.ok()) << text << " " << norm.status().ToString();
    // Idempotent, and the text has no exponent.
    EXPECT_EQ(Norm(*norm), *norm);
    EXPECT_EQ(norm->find_first_of("eE+"), std::string::npos) << *norm;
    // Same value as the input, per long double where that is exact enough.
    StatusOr<Decimal> d = ParseNumber(text);
    ASSERT_TRUE(d.ok());
    if (d->digits.size() <= 15 && d->exponent > -300 && d->exponent < 300) {
      long double a = std::strtold(text.c_str(), nullptr);
      long double b = std::strtold(norm->c_str(), nullptr);
      EXPECT_EQ(a, b) << text << " vs " << *norm;
    }
  }
}

// IsPlainNormalNumber is a fast "already normal" check: whenever it says so,
// NormalizeNumber agrees (random spellings, their normal forms, and edges);
// and it does recognise the common normal spellings.
TEST(Number, PlainNormalNumberAgreesWithNormalize) {
  NumberGen gen(99);
  int recognised = 0;
  auto check = [&](const std::string& text) {
    if (!IsPlainNormalNumber(text)) return;
    ++recognised;
    StatusOr<std::string> norm = NormalizeNumber(text);
    ASSERT_TRUE(norm.ok()) << text;
    EXPECT_EQ(*norm, text);
  };
  for (int i = 0; i < 4000; ++i) {
    const std::string text = gen.Next();
    check(text);
    StatusOr<std::string> norm = NormalizeNumber(text);
    if (norm.ok()) check(*norm);
  }
  for (const char* text : {"", "-", "0", "-0", "00", "01", "0.0", "0.", ".5", "1.", "1.50", "+1",
                           "1e2", "1E2", "0.05", "-0.05", "-10", "10.01", "1-", "1..2", "1.2.3",
                           " 1", "1 ", "--1", "0x10", "12345678901234567890123456789012345678",
                           "123456789012345678901234567890123456789", "0.0000000000000000001"}) {
    check(text);
  }
  EXPECT_GT(recognised, 1000);
  for (const char* text : {"0", "7", "-7", "10", "1234567890", "0.5", "-0.05", "3.14159",
                           "100.001", "12345678901234567890123456789012345678"}) {
    EXPECT_TRUE(IsPlainNormalNumber(text)) << text;
  }
  for (const char* text : {"-0", "00", "01", "0.0", "1.50", "+1", "1E2", "1.", ".5", ""}) {
    EXPECT_FALSE(IsPlainNormalNumber(text)) << text;
  }
}

TEST(Number, PropertyEqualNumbersWrittenDifferently) {
  NumberGen gen(7);
  for (int i = 0; i < 2000; ++i) {
    std::string digits = gen.Digits(gen.Uniform(1, 38));
    int exp = gen.Uniform(-129, 126);
    bool neg = gen.Uniform(0, 1);
    std::string a = gen.Write(neg, digits, exp);
    std::string b = gen.Write(neg, digits, exp);
    std::string na = Norm(a), nb = Norm(b);
    EXPECT_EQ(na, nb) << a << " vs " << b;
    std::string ka, kb;
    AppendNumberKey(na, &ka);
    AppendNumberKey(nb, &kb);
    EXPECT_EQ(ka, kb);
  }
  EXPECT_EQ(Norm("1.50"), Norm("15E-1"));
  EXPECT_EQ(Norm("100"), Norm("0.001E5"));
}

TEST(Number, PropertyKeyOrderEqualsNumericOrder) {
  NumberGen gen(42);
  std::vector<std::string> nums;
  for (int i = 0; i < 3000; ++i) nums.push_back(Norm(gen.Next()));
  std::vector<std::string> keys;
  for (const std::string& n : nums) {
    std::string k;
    AppendNumberKey(n, &k);
    keys.push_back(k);
    // Round trip, also with more key bytes behind it.
    std::string with_tail = k + std::string("\x00\xff\x01tail", 7);
    std::string_view in = with_tail;
    std::string back;
    ASSERT_TRUE(ConsumeNumberKey(&in, &back)) << n;
    EXPECT_EQ(back, n);
    EXPECT_EQ(in.size(), 7u);
  }
  std::mt19937 rng(99);
  for (int i = 0; i < 20000; ++i) {
    size_t x = rng() % nums.size(), y = rng() % nums.size();
    int ref = RefCompare(nums[x], nums[y]);
    ASSERT_EQ(testing::Sign(CompareNumbers(nums[x], nums[y])), ref) << nums[x] << " vs " << nums[y];
    ASSERT_EQ(testing::Sign(keys[x].compare(keys[y])), ref) << nums[x] << " vs " << nums[y];
    // Order survives trailing key bytes (self-delimiting encoding).
    if (ref != 0) {
      ASSERT_EQ(testing::Sign((keys[x] + "\xff").compare(keys[y] + std::string(1, '\0'))), ref);
    }
  }
  // Sorting by key sorts numerically.
  std::vector<size_t> idx(nums.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return keys[a] < keys[b]; });
  for (size_t i = 1; i < idx.size(); ++i) {
    ASSERT_LE(RefCompare(nums[idx[i - 1]], nums[idx[i]]), 0)
        << nums[idx[i - 1]] << " then " << nums[idx[i]];
  }
}

TEST(Number, KeyEncodingEdges) {
  std::vector<std::string> ordered = {
      "-" + std::string(38, '9') + std::string(88, '0'),
      "-1" + std::string(125, '0'),
      "-100",
      "-99",
      "-10",
      "-9.99",
      "-1.01",
      "-1",
      "-0.99",
      "-0.1",
      "-0.01",
      "-0." + std::string(129, '0') + "1",
      "0",
      "0." + std::string(129, '0') + "1",
      "0." + std::string(128, '0') + "1",
      "0.01",
      "0.0101",
      "0.1",
      "0.11",
      "1",
      "1.000000000000000000000000000000000001",
      "1.5",
      "9",
      "10",
      "10.5",
      "11",
      "99",
      "100",
      std::string(38, '9') + std::string(88, '0'),
  };
  for (size_t i = 1; i < ordered.size(); ++i) {
    std::string a, b;
    AppendNumberKey(ordered[i - 1], &a);
    AppendNumberKey(ordered[i], &b);
    EXPECT_LT(a, b) << ordered[i - 1] << " < " << ordered[i];
    EXPECT_LT(CompareNumbers(ordered[i - 1], ordered[i]), 0);
  }
  std::string zero;
  AppendNumberKey("0", &zero);
  EXPECT_EQ(zero.size(), 1u);
  std::string big;
  AppendNumberKey(std::string(38, '9'), &big);
  EXPECT_EQ(big.size(), 2u + 19u);
}

TEST(Number, PropertyAddSubtract) {
  NumberGen gen(1234);
  int checked = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string a = Norm(gen.Next()), b = Norm(gen.Next());
    StatusOr<std::string> sum = AddNumbers(a, b);
    StatusOr<std::string> sum2 = AddNumbers(b, a);
    ASSERT_EQ(sum.ok(), sum2.ok());
    if (!sum.ok()) continue;
    EXPECT_EQ(*sum, *sum2);
    EXPECT_EQ(Norm(*sum), *sum);  // already normalised
    StatusOr<std::string> back = SubtractNumbers(*sum, b);
    ASSERT_TRUE(back.ok()) << a << " + " << b;
    EXPECT_EQ(*back, a) << a << " + " << b << " = " << *sum;
    // a + b compared with a follows the sign of b.
    EXPECT_EQ(testing::Sign(CompareNumbers(*sum, a)), testing::Sign(CompareNumbers(b, "0")));
    ++checked;
  }
  EXPECT_GT(checked, 500);
  // Short numbers against long double.
  std::mt19937 rng(5);
  for (int i = 0; i < 2000; ++i) {
    long long x = static_cast<long long>(rng() % 2000001) - 1000000;
    long long y = static_cast<long long>(rng() % 2000001) - 1000000;
    std::string a = Norm(std::to_string(x) + "E-3"), b = Norm(std::to_string(y) + "E-2");
    StatusOr<std::string> s = AddNumbers(a, b);
    ASSERT_TRUE(s.ok());
    EXPECT_EQ(*s, Norm(std::to_string(x + 10 * y) + "E-3"));
  }
}

TEST(Number, ConsumeNumberKeyNeverCrashesOnGarbage) {
  std::mt19937 rng(77);
  for (int i = 0; i < 20000; ++i) {
    std::string bytes(rng() % 30, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    if (!bytes.empty() && rng() % 2) bytes[0] = static_cast<char>(1 + rng() % 3);
    std::string_view in = bytes;
    std::string out;
    if (ConsumeNumberKey(&in, &out)) {
      // Whatever decodes is a valid normalised number that re-encodes equally.
      EXPECT_EQ(Norm(out), out);
      std::string k;
      AppendNumberKey(out, &k);
      EXPECT_EQ(k, bytes.substr(0, bytes.size() - in.size()));
    }
  }
  std::string_view empty;
  std::string out;
  EXPECT_FALSE(ConsumeNumberKey(&empty, &out));
}

}  // namespace
}  // namespace dynarock
