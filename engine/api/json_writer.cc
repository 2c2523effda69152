#include "engine/api/json_writer.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace dynarock::api {
namespace {

// 0 = copy as is; otherwise the character after the backslash ('u' = \u00XX).
constexpr char EscapeOf(unsigned char c) {
  switch (c) {
    case '"': return '"';
    case '\\': return '\\';
    case '\b': return 'b';
    case '\f': return 'f';
    case '\n': return 'n';
    case '\r': return 'r';
    case '\t': return 't';
    default: return c < 0x20 ? 'u' : 0;
  }
}

struct EscapeTable {
  char v[256];
  constexpr EscapeTable() : v() {
    for (int i = 0; i < 256; ++i) v[i] = EscapeOf(static_cast<unsigned char>(i));
  }
};
constexpr EscapeTable kEscape;

// Whether any of the 8 bytes in `w` needs escaping: below 0x20, '"' or '\\'
// (bit tricks on a 64-bit word, exact for "any"; a byte >= 0x80 never matches).
inline bool AnyToEscape(uint64_t w) {
  constexpr uint64_t kOnes = 0x0101010101010101ULL;
  constexpr uint64_t kHigh = 0x8080808080808080ULL;
  auto has_zero = [](uint64_t v) { return (v - kOnes) & ~v & kHigh; };
  const uint64_t below_space = (w - kOnes * 0x20) & ~w & kHigh;
  // One test of the three (no branch for each).
  return (below_space | has_zero(w ^ (kOnes * '"')) | has_zero(w ^ (kOnes * '\\'))) != 0;
}

#if defined(__SSE2__)
// Whether any of the 16 bytes at `p` needs escaping (SSE2, which every x86-64
// has): equal to '"' or '\\', or at most 0x1f unsigned.
inline bool AnyToEscape16(const char* p) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i quote = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
  const __m128i backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
  const __m128i control =
      _mm_cmpeq_epi8(_mm_max_epu8(v, _mm_set1_epi8(0x1f)), _mm_set1_epi8(0x1f));
  return _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), control)) != 0;
}
#endif

// Copies `s` to `dst` (room for s.size() bytes) while checking that no byte
// needs escaping, a word at a time and with no loop over single bytes: 16
// (SSE2) or 8 bytes at a time, the last word overlapping the one before; a
// string under 8 bytes as two overlapping 4-byte halves, or (under 4) its
// bytes packed into a word whose other bytes never need escaping. False,
// with `dst` partly written, when a byte needs escaping.
inline bool CopyIfPlain(char* dst, std::string_view s) {
  const char* p = s.data();
  const size_t n = s.size();
  uint64_t w;
#if defined(__SSE2__)
  if (n >= 16) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
      if (AnyToEscape16(p + i)) return false;
      std::memcpy(dst + i, p + i, 16);
    }
    if (i == n) return true;
    if (AnyToEscape16(p + n - 16)) return false;
    std::memcpy(dst + n - 16, p + n - 16, 16);
    return true;
  }
#endif
  if (n >= 8) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      std::memcpy(&w, p + i, 8);
      if (AnyToEscape(w)) return false;
      std::memcpy(dst + i, &w, 8);
    }
    if (i == n) return true;
    std::memcpy(&w, p + n - 8, 8);
    if (AnyToEscape(w)) return false;
    std::memcpy(dst + n - 8, &w, 8);
    return true;
  }
  if (n >= 4) {
    uint32_t head, tail;
    std::memcpy(&head, p, 4);
    std::memcpy(&tail, p + n - 4, 4);
    if (AnyToEscape(static_cast<uint64_t>(tail) << 32 | head)) return false;
    std::memcpy(dst, &head, 4);
    std::memcpy(dst + n - 4, &tail, 4);
    return true;
  }
  if (n == 0) return true;
  w = 0x6161616161616161ULL;  // 'a' x 8; bytes 0, n/2 and n-1 cover all of 1 to 3
  w = (w & ~0xFFFFFFULL) | static_cast<unsigned char>(p[0]) |
      static_cast<uint64_t>(static_cast<unsigned char>(p[n / 2])) << 8 |
      static_cast<uint64_t>(static_cast<unsigned char>(p[n - 1])) << 16;
  if (AnyToEscape(w)) return false;
  dst[0] = p[0];
  dst[n / 2] = p[n / 2];
  dst[n - 1] = p[n - 1];
  return true;
}

constexpr char kHex[] = "0123456789abcdef";

// `s` quoted and escaped at `dst` (room for 6 * s.size() + 3 bytes), then
// `after` unless it is 0; returns the bytes written.
size_t WriteEscaped(char* dst, std::string_view s, char after) {
  char* p = dst;
  *p++ = '"';
  for (char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    const char e = kEscape.v[c];
    if (e == 0) {
      *p++ = ch;
      continue;
    }
    *p++ = '\\';
    *p++ = e;
    if (e == 'u') {
      *p++ = '0';
      *p++ = '0';
      *p++ = kHex[c >> 4];
      *p++ = kHex[c & 15];
    }
  }
  *p++ = '"';
  if (after != 0) *p++ = after;
  return static_cast<size_t>(p - dst);
}

}  // namespace

void AppendJsonString(std::string_view s, std::string* out, char after) {
  const size_t at = out->size();
  const size_t plain = s.size() + 2 + (after != 0);
  out->resize(at + plain);
  char* p = out->data() + at;
  if (CopyIfPlain(p + 1, s)) {  // most strings: the quotes, the bytes and `after`
    p[0] = '"';
    p[s.size() + 1] = '"';
    if (after != 0) p[s.size() + 2] = after;
    return;
  }
  out->resize(at + 6 * s.size() + 3);  // room for the worst case, \u00XX a byte
  out->resize(at + WriteEscaped(out->data() + at, s, after));
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

void AppendJsonDouble(double d, std::string* out) {
  if (!std::isfinite(d)) d = 0;
  // Plain digits for the magnitudes DynamoDB sends (timestamps, capacity units):
  // "1700000000", not the shortest form "1.7e+09". Exponents only far out.
  char buf[64];
  double a = std::fabs(d);
  auto r = (a == 0 || (a >= 1e-6 && a < 1e21))
               ? std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::fixed)
               : std::to_chars(buf, buf + sizeof(buf), d);
  if (r.ec != std::errc()) r = std::to_chars(buf, buf + sizeof(buf), d);
  out->append(buf, r.ptr);
}

void JsonWriter::Int(int64_t v) {
  Sep();
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  Put(std::string_view(buf, static_cast<size_t>(r.ptr - buf)));
  first_ = false;
}

void JsonWriter::Double(double v) {
  Sep();
  std::string text;  // a few digits: no allocation
  AppendJsonDouble(v, &text);
  Put(text);
  first_ = false;
}

void JsonWriter::Grow(size_t n) {
  out_.resize(std::max({out_.size() * 2, len_ + n, size_t{256}}));
}

void JsonWriter::PutString(std::string_view s, char after) {
  const size_t n = s.size() + 2 + (after != 0);
  if (out_.size() - len_ < n) Grow(n);
  char* p = out_.data() + len_;
  if (!CopyIfPlain(p + 1, s)) {
    // Escaped in place, into room for the worst case (every byte \u00XX):
    // the text written so far is never cut back and regrown.
    const size_t most = 6 * s.size() + 3;
    if (out_.size() - len_ < most) Grow(most);
    len_ += WriteEscaped(out_.data() + len_, s, after);
    return;
  }
  p[0] = '"';
  p[s.size() + 1] = '"';
  if (after != 0) p[s.size() + 2] = after;
  len_ += n;
}

void JsonWriter::ObjectWithString(std::string_view open_brace_key_colon, std::string_view s) {
  Sep();
  first_ = false;
  const size_t open = open_brace_key_colon.size();
  const size_t n = open + s.size() + 3;
  if (out_.size() - len_ < n) Grow(n);
  char* p = out_.data() + len_;
  if (!CopyIfPlain(p + open + 1, s)) {
    Put(open_brace_key_colon);
    PutString(s, '}');
    return;
  }
  std::memcpy(p, open_brace_key_colon.data(), open);
  p[open] = '"';
  p[open + 1 + s.size()] = '"';
  p[open + 2 + s.size()] = '}';
  len_ += n;
}

}  // namespace dynarock::api
