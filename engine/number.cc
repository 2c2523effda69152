// File: engine/number.cc
//
// DynamoDB's N type as exact decimal text. See number.h for the contracts.
//
// Key encoding (AppendNumberKey), after SQLite4's key_encoding note. A nonzero
// value is written as 0.c1c2...ck * 100^E with base-100 digits ("centesimal
// digits") c1 != 0 and ck != 0. DynamoDB's range gives decimal exponents
// -129..126 (value = 0.d1d2... * 10^e), hence E in -64..63, and at most 20
// centesimal digits for 38 decimal ones.
//
//   number   := kZero                                  (0x02)
//             | kPositive exp_byte mantissa            (0x03 ...)
//             | kNegative ~exp_byte ~mantissa          (0x01 ...)
//   exp_byte := E + 64                                 (0x00..0x7F)
//   mantissa := (2*c + 1)* 2*c_last                    one byte per digit
//
// Every mantissa byte but the last is odd, the last is even, so the encoding
// ends itself and no encoding is a proper prefix of another: memcmp order is
// numeric order even when more key bytes follow. Negative numbers complement
// every byte after the sign class byte (the last byte then becomes odd).

#include "engine/number.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <vector>

namespace dynarock {
namespace {

constexpr int kMaxDigits = 38;
// value = 0.d1d2... * 10^exponent; 1E-130 has exponent -129 and
// 9.99...E+125 has exponent 126.
constexpr int kMinExponent = -129;
constexpr int kMaxExponent = 126;

constexpr uint8_t kNegativeClass = 0x01;
constexpr uint8_t kZeroClass = 0x02;
constexpr uint8_t kPositiveClass = 0x03;
constexpr int kExponentBias = 64;
constexpr int kMaxCentesimalDigits = 20;

Status NotNumeric(std::string_view text) {
  // DynamoDB omits the ": <text>" part for an empty string.
  if (text.empty()) return ValidationError("The parameter cannot be converted to a numeric value");
  return ValidationError("The parameter cannot be converted to a numeric value: " +
                         std::string(text));
}
Status TooManyDigits() {
  return ValidationError("Attempting to store more than 38 significant digits in a Number");
}
Status Overflow() {
  return ValidationError(
      "Number overflow. Attempting to store a number with magnitude larger than supported "
      "range");
}
Status Underflow() {
  return ValidationError(
      "Number underflow. Attempting to store a number with magnitude smaller than supported "
      "range");
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Parses number syntax without enforcing DynamoDB's limits. The exponent is
// clamped far outside the valid range so that huge exponents cannot overflow.
bool ParseUnchecked(std::string_view text, Decimal* out) {
  size_t i = 0;
  const size_t n = text.size();
  bool negative = false;
  if (i < n && (text[i] == '+' || text[i] == '-')) {
    negative = text[i] == '-';
    ++i;
  }
  std::string& digits = out->digits;
  digits.clear();
  // Position of the decimal point relative to the first significant digit.
  int64_t point = 0;
  bool seen_digit = false;
  bool seen_point = false;
  bool seen_nonzero = false;
  int64_t zeros_pending = 0;  // zeros after the last nonzero digit
  for (; i < n; ++i) {
    char c = text[i];
    if (IsDigit(c)) {
      seen_digit = true;
      if (c == '0') {
        if (!seen_nonzero) {
          if (seen_point) --point;  // leading zero after the point
        } else {
          ++zeros_pending;
          if (!seen_point) ++point;
        }
        continue;
      }
      if (seen_nonzero) {
        // Bounded by the input length; digits.size() grows with the text.
        digits.append(static_cast<size_t>(zeros_pending), '0');
      }
      zeros_pending = 0;
      seen_nonzero = true;
      digits.push_back(c);
      if (!seen_point) ++point;
    } else if (c == '.') {
      if (seen_point) return false;
      seen_point = true;
    } else {
      break;
    }
  }
  if (!seen_digit) return false;
  int64_t exp10 = 0;
  if (i < n) {
    if (text[i] != 'e' && text[i] != 'E') return false;
    ++i;
    bool exp_negative = false;
    if (i < n && (text[i] == '+' || text[i] == '-')) {
      exp_negative = text[i] == '-';
      ++i;
    }
    if (i == n) return false;
    for (; i < n; ++i) {
      if (!IsDigit(text[i])) return false;
      if (exp10 < 1000000000) exp10 = exp10 * 10 + (text[i] - '0');
    }
    if (exp_negative) exp10 = -exp10;
  }
  out->negative = negative && seen_nonzero;
  if (!seen_nonzero) {
    out->exponent = 0;
    return true;
  }
  int64_t e = point + exp10;
  e = std::clamp<int64_t>(e, -2000000000, 2000000000);
  out->exponent = static_cast<int>(e);
  return true;
}

// Digits of |value| as an integer mantissa scaled by 10^low: digit at decimal
// position p (value of 10^p) for p in [low, high).
void PlaceDigits(const Decimal& d, int low, std::vector<uint8_t>* out) {
  // d.digits[j] has position exponent - 1 - j.
  for (size_t j = 0; j < d.digits.size(); ++j) {
    int pos = d.exponent - 1 - static_cast<int>(j);
    (*out)[pos - low] = static_cast<uint8_t>(d.digits[j] - '0');
  }
}

StatusOr<std::string> AddDecimals(Decimal a, Decimal b) {
  if (a.is_zero()) return FormatNumber(b);
  if (b.is_zero()) return FormatNumber(a);
  const int low = std::min(a.exponent - static_cast<int>(a.digits.size()),
                           b.exponent - static_cast<int>(b.digits.size()));
  const int high = std::max(a.exponent, b.exponent) + 1;  // one carry position
  const size_t width = static_cast<size_t>(high - low);
  std::vector<uint8_t> x(width, 0), y(width, 0);
  PlaceDigits(a, low, &x);
  PlaceDigits(b, low, &y);
  bool negative = a.negative;
  if (a.negative == b.negative) {
    int carry = 0;
    for (size_t i = 0; i < width; ++i) {
      int s = x[i] + y[i] + carry;
      x[i] = static_cast<uint8_t>(s % 10);
      carry = s / 10;
    }
    assert(carry == 0);
  } else {
    // Subtract the smaller magnitude from the larger.
    int cmp = 0;
    for (size_t i = width; i-- > 0;) {
      if (x[i] != y[i]) {
        cmp = x[i] < y[i] ? -1 : 1;
        break;
      }
    }
    if (cmp == 0) return std::string("0");
    if (cmp < 0) {
      std::swap(x, y);
      negative = b.negative;
    }
    int borrow = 0;
    for (size_t i = 0; i < width; ++i) {
      int s = x[i] - y[i] - borrow;
      borrow = s < 0;
      x[i] = static_cast<uint8_t>(s < 0 ? s + 10 : s);
    }
    assert(borrow == 0);
  }
  // x holds the result, least significant position first.
  size_t top = width;
  while (top > 0 && x[top - 1] == 0) --top;
  size_t bottom = 0;
  while (bottom < top && x[bottom] == 0) ++bottom;
  if (top == bottom) return std::string("0");
  Decimal r;
  r.negative = negative;
  r.exponent = low + static_cast<int>(top);
  r.digits.reserve(top - bottom);
  for (size_t i = top; i-- > bottom;) r.digits.push_back(static_cast<char>('0' + x[i]));
  if (r.exponent > kMaxExponent) return Overflow();
  if (r.exponent < kMinExponent) return Underflow();
  if (r.digits.size() > kMaxDigits) return TooManyDigits();
  return FormatNumber(r);
}

// Decodes normalised (or any valid) number text for the internal helpers.
Decimal MustParse(std::string_view text) {
  Decimal d;
  if (!ParseUnchecked(text, &d)) {
    assert(false && "not a number");
    d = Decimal();
  }
  return d;
}

}  // namespace

StatusOr<Decimal> ParseNumber(std::string_view text) {
  Decimal d;
  if (!ParseUnchecked(text, &d)) return NotNumeric(text);
  if (d.is_zero()) return d;
  if (d.digits.size() > kMaxDigits) return TooManyDigits();
  if (d.exponent > kMaxExponent) return Overflow();
  if (d.exponent < kMinExponent) return Underflow();
  return d;
}

std::string FormatNumber(const Decimal& d) {
  if (d.is_zero()) return "0";
  std::string out;
  const int len = static_cast<int>(d.digits.size());
  out.reserve(static_cast<size_t>(len + std::abs(d.exponent) + 3));
  if (d.negative) out.push_back('-');
  if (d.exponent <= 0) {
    out.append("0.");
    out.append(static_cast<size_t>(-d.exponent), '0');
    out.append(d.digits);
  } else if (d.exponent >= len) {
    out.append(d.digits);
    out.append(static_cast<size_t>(d.exponent - len), '0');
  } else {
    out.append(d.digits, 0, static_cast<size_t>(d.exponent));
    out.push_back('.');
    out.append(d.digits, static_cast<size_t>(d.exponent), std::string::npos);
  }
  return out;
}

StatusOr<std::string> NormalizeNumber(std::string_view text) {
  DR_ASSIGN_OR_RETURN(Decimal d, ParseNumber(text));
  return FormatNumber(d);
}

bool IsPlainNormalNumber(std::string_view text) {
  // At most 38 characters: at most 38 significant digits, and an exponent far
  // inside DynamoDB's range.
  if (text.empty() || text.size() > static_cast<size_t>(kMaxDigits)) return false;
  if (text == "0") return true;
  size_t i = text[0] == '-' ? 1 : 0;
  const size_t int_start = i;
  while (i < text.size() && IsDigit(text[i])) ++i;
  const size_t int_len = i - int_start;
  if (int_len == 0) return false;
  // "0" alone before a point, otherwise no leading zero.
  if (text[int_start] == '0' && int_len > 1) return false;
  if (i == text.size()) return text[int_start] != '0';  // an integer; not "-0"
  if (text[i] != '.') return false;
  const size_t frac_start = ++i;
  while (i < text.size() && IsDigit(text[i])) ++i;
  // Digits to the end, the last of them not a zero ("0.50", "1." and "0.0"
  // normalise to something else).
  return i == text.size() && i > frac_start && text.back() != '0';
}

int CompareNumbers(std::string_view a, std::string_view b) {
  // Fast path: two positive integers (normalised text has no leading zeros).
  auto plain = [](std::string_view s) {
    if (s.empty() || s[0] == '0') return false;
    for (char c : s) {
      if (!IsDigit(c)) return false;
    }
    return true;
  };
  if (plain(a) && plain(b)) {
    if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
    int c = a.compare(b);
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  Decimal x = MustParse(a);
  Decimal y = MustParse(b);
  const int sx = x.is_zero() ? 0 : (x.negative ? -1 : 1);
  const int sy = y.is_zero() ? 0 : (y.negative ? -1 : 1);
  if (sx != sy) return sx < sy ? -1 : 1;
  if (sx == 0) return 0;
  int mag;
  if (x.exponent != y.exponent) {
    mag = x.exponent < y.exponent ? -1 : 1;
  } else {
    // Digit strings have no trailing zeros: compare lexicographically, a
    // proper prefix being the smaller magnitude.
    int c = x.digits.compare(y.digits);
    mag = c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  return sx < 0 ? -mag : mag;
}

StatusOr<std::string> AddNumbers(std::string_view a, std::string_view b) {
  return AddDecimals(MustParse(a), MustParse(b));
}

StatusOr<std::string> SubtractNumbers(std::string_view a, std::string_view b) {
  Decimal y = MustParse(b);
  if (!y.is_zero()) y.negative = !y.negative;
  return AddDecimals(MustParse(a), std::move(y));
}

void AppendNumberKey(std::string_view normalized, std::string* out) {
  Decimal d = MustParse(normalized);
  if (d.is_zero()) {
    out->push_back(static_cast<char>(kZeroClass));
    return;
  }
  // PRE: a valid N (the factories and ParseNumber guarantee it).
  assert(d.digits.size() <= static_cast<size_t>(kMaxDigits));
  assert(d.exponent >= kMinExponent && d.exponent <= kMaxExponent);
  // Align the decimal digits on base-100 boundaries: value = 0.c1c2.. * 100^E.
  int e = d.exponent;
  std::string_view digits = d.digits;
  char first_pad = 0;
  if (e % 2 != 0) {  // odd exponent (either sign): pad one leading zero
    first_pad = 1;
    e += 1;
  }
  const int big_e = e / 2;
  const uint8_t flip = d.negative ? 0xFF : 0x00;
  out->push_back(static_cast<char>(d.negative ? kNegativeClass : kPositiveClass));
  out->push_back(static_cast<char>(static_cast<uint8_t>(big_e + kExponentBias) ^ flip));
  // Walk the digit string in pairs.
  const size_t total = digits.size() + static_cast<size_t>(first_pad);
  const size_t pairs = (total + 1) / 2;
  for (size_t p = 0; p < pairs; ++p) {
    auto digit_at = [&](size_t k) -> int {  // k indexes the padded string
      if (k < static_cast<size_t>(first_pad)) return 0;
      size_t j = k - static_cast<size_t>(first_pad);
      return j < digits.size() ? digits[j] - '0' : 0;
    };
    int c = digit_at(2 * p) * 10 + digit_at(2 * p + 1);
    uint8_t byte = static_cast<uint8_t>(p + 1 == pairs ? 2 * c : 2 * c + 1);
    out->push_back(static_cast<char>(byte ^ flip));
  }
}

bool ConsumeNumberKey(std::string_view* in, std::string* normalized) {
  if (in->empty()) return false;
  const uint8_t cls = static_cast<uint8_t>((*in)[0]);
  if (cls == kZeroClass) {
    in->remove_prefix(1);
    normalized->assign("0");
    return true;
  }
  if (cls != kNegativeClass && cls != kPositiveClass) return false;
  const uint8_t flip = cls == kNegativeClass ? 0xFF : 0x00;
  if (in->size() < 3) return false;
  const int biased = static_cast<uint8_t>((*in)[1]) ^ flip;
  if (biased > 127) return false;
  const int big_e = biased - kExponentBias;
  Decimal d;
  d.negative = cls == kNegativeClass;
  size_t pos = 2;
  bool done = false;
  std::string digits;
  while (!done) {
    if (pos >= in->size()) return false;
    const int byte = static_cast<uint8_t>((*in)[pos]) ^ flip;
    ++pos;
    done = (byte & 1) == 0;
    const int c = byte >> 1;
    if (c > 99) return false;
    if (pos - 2 > static_cast<size_t>(kMaxCentesimalDigits)) return false;
    if (pos == 3 && c == 0) return false;  // c1 != 0
    if (done && c == 0) return false;      // c_last != 0
    digits.push_back(static_cast<char>('0' + c / 10));
    digits.push_back(static_cast<char>('0' + c % 10));
  }
  int e = 2 * big_e;
  size_t lead = 0;
  if (digits[0] == '0') {
    lead = 1;
    e -= 1;
  }
  size_t end = digits.size();
  if (digits[end - 1] == '0') --end;
  d.digits = digits.substr(lead, end - lead);
  d.exponent = e;
  if (d.digits.size() > kMaxDigits || e > kMaxExponent || e < kMinExponent) return false;
  *normalized = FormatNumber(d);
  in->remove_prefix(pos);
  return true;
}

}  // namespace dynarock
