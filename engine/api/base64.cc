#include "engine/api/base64.h"

#include <cstdint>
#include <utility>

namespace dynarock::api {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

struct DecodeTable {
  int8_t v[256];
  constexpr DecodeTable() : v() {
    for (int i = 0; i < 256; ++i) v[i] = -1;
    for (int i = 0; i < 64; ++i) v[static_cast<unsigned char>(kAlphabet[i])] = static_cast<int8_t>(i);
  }
};
constexpr DecodeTable kDecode;

bool Fail(std::string* error, std::string message) {
  if (error) *error = std::move(message);
  return false;
}

}  // namespace

void Base64EncodeTo(std::string_view bytes, std::string* out) {
  size_t n = bytes.size();
  out->reserve(out->size() + (n + 2) / 3 * 4);
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  size_t i = 0;
  for (; i + 3 <= n; i += 3) {
    uint32_t v = (uint32_t{p[i]} << 16) | (uint32_t{p[i + 1]} << 8) | p[i + 2];
    out->push_back(kAlphabet[v >> 18]);
    out->push_back(kAlphabet[(v >> 12) & 63]);
    out->push_back(kAlphabet[(v >> 6) & 63]);
    out->push_back(kAlphabet[v & 63]);
  }
  if (n - i == 1) {
    uint32_t v = uint32_t{p[i]} << 16;
    out->push_back(kAlphabet[v >> 18]);
    out->push_back(kAlphabet[(v >> 12) & 63]);
    out->append("==");
  } else if (n - i == 2) {
    uint32_t v = (uint32_t{p[i]} << 16) | (uint32_t{p[i + 1]} << 8);
    out->push_back(kAlphabet[v >> 18]);
    out->push_back(kAlphabet[(v >> 12) & 63]);
    out->push_back(kAlphabet[(v >> 6) & 63]);
    out->push_back('=');
  }
}

std::string Base64Encode(std::string_view bytes) {
  std::string out;
  Base64EncodeTo(bytes, &out);
  return out;
}

bool Base64Decode(std::string_view text, std::string* out, std::string* error) {
  out->clear();
  size_t n = text.size();
  if (n % 4 != 0) {
    return Fail(error, "Base64 encoded length is expected a multiple of 4 bytes but found: " +
                           std::to_string(n));
  }
  size_t pad = 0;
  if (n >= 1 && text[n - 1] == '=') pad = (n >= 2 && text[n - 2] == '=') ? 2 : 1;
  out->reserve(n / 4 * 3);
  for (size_t i = 0; i < n; i += 4) {
    bool last = i + 4 == n;
    uint32_t v = 0;
    int chars = last ? 4 - static_cast<int>(pad) : 4;
    for (int k = 0; k < 4; ++k) {
      unsigned char c = static_cast<unsigned char>(text[i + k]);
      if (k >= chars) {  // padding position (only in the last quantum)
        v <<= 6;
        continue;
      }
      int8_t d = kDecode.v[c];
      if (d < 0) {
        if (c == '=') return Fail(error, "Invalid Base64 padding");
        return Fail(error, "Invalid Base64 character: '" + std::string(1, static_cast<char>(c)) + "'");
      }
      v = (v << 6) | static_cast<uint32_t>(d);
    }
    out->push_back(static_cast<char>(v >> 16));
    if (chars >= 3) out->push_back(static_cast<char>((v >> 8) & 0xff));
    if (chars == 4) out->push_back(static_cast<char>(v & 0xff));
    if (chars == 2 && (v & 0xffff) != 0) {
      return Fail(error, "Invalid last non-pad Base64 character dectected");
    }
    if (chars == 3 && (v & 0xff) != 0) {
      return Fail(error, "Invalid last non-pad Base64 character dectected");
    }
  }
  return true;
}

}  // namespace dynarock::api
