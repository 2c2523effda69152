#include "engine/api/json_writer.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

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
// (bit tricks on a 64-bit word; a byte >= 0x80 never matches).
inline bool AnyToEscape(uint64_t w) {
  constexpr uint64_t kOnes = 0x0101010101010101ULL;
  constexpr uint64_t kHigh = 0x8080808080808080ULL;
  auto has_zero = [](uint64_t v) { return (v - kOnes) & ~v & kHigh; };
  const uint64_t below_space = (w - kOnes * 0x20) & ~w & kHigh;
  return below_space || has_zero(w ^ (kOnes * '"')) || has_zero(w ^ (kOnes * '\\'));
}

}  // namespace

void AppendJsonString(std::string_view s, std::string* out, char after) {
  size_t i = 0;
  // Eight bytes at a time while none of them needs escaping (most strings).
  while (i + 8 <= s.size()) {
    uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    if (AnyToEscape(w)) break;
    i += 8;
  }
  size_t clean = i;
  while (clean < s.size() && kEscape.v[static_cast<unsigned char>(s[clean])] == 0) ++clean;
  if (clean == s.size()) {
    // Nothing to escape: the quotes, the bytes and `after` in one write.
    const size_t at = out->size();
    out->resize(at + s.size() + 2 + (after != 0));
    char* p = out->data() + at;
    p[0] = '"';
    std::memcpy(p + 1, s.data(), s.size());
    p[s.size() + 1] = '"';
    if (after != 0) p[s.size() + 2] = after;
    return;
  }
  out->reserve(out->size() + s.size() + 3);
  out->push_back('"');
  size_t run = 0;  // start of the pending run of bytes copied verbatim
  for (; i < s.size(); ++i) {
    char e = kEscape.v[static_cast<unsigned char>(s[i])];
    if (e == 0) continue;
    out->append(s.data() + run, i - run);
    run = i + 1;
    out->push_back('\\');
    out->push_back(e);
    if (e == 'u') {
      static constexpr char kHex[] = "0123456789abcdef";
      unsigned char c = static_cast<unsigned char>(s[i]);
      out->append("00");
      out->push_back(kHex[c >> 4]);
      out->push_back(kHex[c & 15]);
    }
  }
  out->append(s.data() + run, s.size() - run);
  out->push_back('"');
  if (after != 0) out->push_back(after);
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
  out_.append(buf, r.ptr);
  first_ = false;
}

}  // namespace dynarock::api
