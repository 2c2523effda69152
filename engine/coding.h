// File: engine/coding.h
//
// Byte-level helpers in LevelDB's style: Put* appends to a std::string, Get*
// consumes from the front of a std::string_view and returns false (leaving the
// input in an unspecified but valid state) when the bytes are truncated or
// malformed.
//
// Fixed-width integers are BIG-endian, unlike LevelDB's, because they appear in
// RocksDB keys compared bytewise: big-endian makes memcmp order numeric order.
//
//   fixed32   := 4 bytes, most significant first
//   fixed64   := 8 bytes, most significant first
//   varint32  := 1..5 bytes, 7 bits each, least significant group first,
//                high bit set on every byte but the last (LevelDB/protobuf)
//   varint64  := 1..10 bytes, likewise
//   lp_bytes  := varint32(length) bytes[length]
//
//   std::string key;
//   PutFixed32(&key, table_id);
//   std::string_view in = key;
//   uint32_t id;
//   if (!GetFixed32(&in, &id)) { /* corrupt */ }

#ifndef DYNAROCK_ENGINE_CODING_H_
#define DYNAROCK_ENGINE_CODING_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace dynarock {

constexpr size_t kMaxVarint32Bytes = 5;
constexpr size_t kMaxVarint64Bytes = 10;

// EncodeFixed32BE() / EncodeFixed64BE(): write exactly 4 / 8 bytes at `dst`.
inline void EncodeFixed32BE(char* dst, uint32_t v) {
  dst[0] = static_cast<char>(v >> 24);
  dst[1] = static_cast<char>(v >> 16);
  dst[2] = static_cast<char>(v >> 8);
  dst[3] = static_cast<char>(v);
}
inline void EncodeFixed64BE(char* dst, uint64_t v) {
  EncodeFixed32BE(dst, static_cast<uint32_t>(v >> 32));
  EncodeFixed32BE(dst + 4, static_cast<uint32_t>(v));
}

// DecodeFixed32BE() / DecodeFixed64BE(): read exactly 4 / 8 bytes at `src`.
inline uint32_t DecodeFixed32BE(const char* src) {
  const auto* p = reinterpret_cast<const unsigned char*>(src);
  return (static_cast<uint32_t>(p[0]) << 24) | (static_cast<uint32_t>(p[1]) << 16) |
         (static_cast<uint32_t>(p[2]) << 8) | static_cast<uint32_t>(p[3]);
}
inline uint64_t DecodeFixed64BE(const char* src) {
  return (static_cast<uint64_t>(DecodeFixed32BE(src)) << 32) | DecodeFixed32BE(src + 4);
}

// PutFixed32() / PutFixed64(): append big-endian.
inline void PutFixed32(std::string* dst, uint32_t v) {
  char buf[4];
  EncodeFixed32BE(buf, v);
  dst->append(buf, 4);
}
inline void PutFixed64(std::string* dst, uint64_t v) {
  char buf[8];
  EncodeFixed64BE(buf, v);
  dst->append(buf, 8);
}

// GetFixed32() / GetFixed64(): consume big-endian; false when too short.
inline bool GetFixed32(std::string_view* in, uint32_t* v) {
  if (in->size() < 4) return false;
  *v = DecodeFixed32BE(in->data());
  in->remove_prefix(4);
  return true;
}
inline bool GetFixed64(std::string_view* in, uint64_t* v) {
  if (in->size() < 8) return false;
  *v = DecodeFixed64BE(in->data());
  in->remove_prefix(8);
  return true;
}

// VarintLength(): bytes PutVarint64 would write for `v`.
inline size_t VarintLength(uint64_t v) {
  size_t len = 1;
  while (v >= 128) {
    v >>= 7;
    ++len;
  }
  return len;
}

// EncodeVarint64(): writes `v` as a varint at `dst` (room for
// kMaxVarint64Bytes) and returns the byte after it.
inline char* EncodeVarint64(char* dst, uint64_t v) {
  while (v >= 128) {
    *dst++ = static_cast<char>(v | 128);
    v >>= 7;
  }
  *dst++ = static_cast<char>(v);
  return dst;
}

// PutVarint32() / PutVarint64(): append a varint.
inline void PutVarint64(std::string* dst, uint64_t v) {
  char buf[kMaxVarint64Bytes];
  dst->append(buf, static_cast<size_t>(EncodeVarint64(buf, v) - buf));
}
inline void PutVarint32(std::string* dst, uint32_t v) { PutVarint64(dst, v); }

// GetVarint64() / GetVarint32(): consume a varint; false when truncated,
// longer than the maximum, or (for 32 bits) out of range.
inline bool GetVarint64(std::string_view* in, uint64_t* v) {
  const auto* p = reinterpret_cast<const unsigned char*>(in->data());
  const size_t n = in->size();
  uint64_t result = 0;
  for (size_t i = 0, shift = 0; i < n && i < kMaxVarint64Bytes; ++i, shift += 7) {
    const uint64_t byte = p[i];
    if (i == kMaxVarint64Bytes - 1 && byte > 1) return false;  // > 64 bits
    result |= (byte & 127) << shift;
    if (byte < 128) {
      if (byte == 0 && i > 0) return false;  // overlong: every value has one encoding
      *v = result;
      in->remove_prefix(i + 1);
      return true;
    }
  }
  return false;
}
inline bool GetVarint32(std::string_view* in, uint32_t* v) {
  const auto* p = reinterpret_cast<const unsigned char*>(in->data());
  if (!in->empty() && p[0] < 128) {  // the common one-byte case
    *v = p[0];
    in->remove_prefix(1);
    return true;
  }
  std::string_view copy = *in;
  uint64_t wide;
  if (!GetVarint64(&copy, &wide) || wide > UINT32_MAX ||
      in->size() - copy.size() > kMaxVarint32Bytes) {
    return false;
  }
  *v = static_cast<uint32_t>(wide);
  *in = copy;
  return true;
}

// PutLengthPrefixed(): varint32 length, then the bytes.
inline void PutLengthPrefixed(std::string* dst, std::string_view value) {
  PutVarint32(dst, static_cast<uint32_t>(value.size()));
  dst->append(value.data(), value.size());
}

// GetLengthPrefixed(): consume what PutLengthPrefixed wrote; `out` views the
// input's bytes. False when truncated.
inline bool GetLengthPrefixedSlow(std::string_view* in, std::string_view* out) {
  uint32_t len;
  if (!GetVarint32(in, &len) || in->size() < len) return false;
  *out = in->substr(0, len);
  in->remove_prefix(len);
  return true;
}
// The common case (a length below 128: one byte) inlined into the codecs'
// loops, the rest out of line.
[[gnu::always_inline]] inline bool GetLengthPrefixed(std::string_view* in, std::string_view* out) {
  if (!in->empty() && static_cast<unsigned char>((*in)[0]) < 128) {
    const size_t len = static_cast<unsigned char>((*in)[0]);
    if (in->size() - 1 < len) return false;
    *out = std::string_view(in->data() + 1, len);
    in->remove_prefix(1 + len);
    return true;
  }
  return GetLengthPrefixedSlow(in, out);
}

// FNV-1a, 64 bits: a fast, stable hash of bytes (lock stripes, request
// fingerprints). Not for anything an adversary chooses to collide.
inline uint64_t Fnv1a64(std::string_view bytes) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ULL;
  return h;
}

}  // namespace dynarock

#endif  // DYNAROCK_ENGINE_CODING_H_
