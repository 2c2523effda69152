// File: engine/key_codec.cc
//
// See key_codec.h for the byte grammar.

#include "engine/key_codec.h"

#include <cassert>

#include "engine/coding.h"
#include "engine/number.h"

namespace dynarock {
namespace {

constexpr uint64_t kFnvOffset = 0xcbf29ce484222325ULL;
constexpr uint64_t kFnvPrime = 0x100000001b3ULL;

constexpr char kEscape = '\x00';
constexpr char kEscapedZero = '\xFF';
constexpr char kTerminator = '\x01';

uint64_t Fmix64(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}

bool IsKeyType(AttrType t) { return t == AttrType::kS || t == AttrType::kN || t == AttrType::kB; }

void AppendPartitionKey(const AttributeValue& pk, std::string* out) {
  assert(IsKeyType(pk.type()));
  out->push_back(static_cast<char>(pk.type()));
  PutLengthPrefixed(out, pk.scalar());
}

AttributeValue MakeScalar(AttrType type, std::string bytes) {
  switch (type) {
    case AttrType::kS:
      return AttributeValue::S(std::move(bytes));
    case AttrType::kN:
      return AttributeValue::N(std::move(bytes));
    default:
      return AttributeValue::B(std::move(bytes));
  }
}

}  // namespace

uint64_t PartitionHash(const AttributeValue& pk) {
  assert(IsKeyType(pk.type()));
  uint64_t h = kFnvOffset;
  h ^= static_cast<uint8_t>(pk.type());
  h *= kFnvPrime;
  for (unsigned char c : pk.scalar()) {
    h ^= c;
    h *= kFnvPrime;
  }
  return Fmix64(h);
}

std::string EncodeTablePrefix(uint32_t table_id) {
  std::string out;
  PutFixed32(&out, table_id);
  return out;
}

std::string EncodeHashBound(uint32_t table_id, uint64_t hash) {
  std::string out;
  out.reserve(12);
  PutFixed32(&out, table_id);
  PutFixed64(&out, hash);
  return out;
}

std::string EncodePartitionPrefix(uint32_t table_id, const AttributeValue& pk) {
  std::string out;
  out.reserve(12 + 1 + 5 + pk.scalar().size());
  PutFixed32(&out, table_id);
  PutFixed64(&out, PartitionHash(pk));
  AppendPartitionKey(pk, &out);
  return out;
}

std::string EncodePartitionPrefix(uint32_t table_id,
                                  const std::vector<const AttributeValue*>& parts) {
  assert(!parts.empty());
  if (parts.size() == 1) return EncodePartitionPrefix(table_id, *parts[0]);
  std::string components;
  for (const AttributeValue* part : parts) AppendPartitionKey(*part, &components);
  uint64_t h = kFnvOffset;
  for (unsigned char c : components) {
    h ^= c;
    h *= kFnvPrime;
  }
  std::string out;
  out.reserve(12 + components.size());
  PutFixed32(&out, table_id);
  PutFixed64(&out, Fmix64(h));
  out += components;
  return out;
}

std::string PrefixSuccessor(std::string prefix) {
  while (!prefix.empty() && static_cast<unsigned char>(prefix.back()) == 0xFF) prefix.pop_back();
  if (!prefix.empty()) prefix.back() = static_cast<char>(static_cast<unsigned char>(prefix.back()) + 1);
  return prefix;
}

void AppendSortKey(const AttributeValue& sk, std::string* out) {
  assert(IsKeyType(sk.type()));
  if (sk.is(AttrType::kN)) {
    AppendNumberKey(sk.scalar(), out);
  } else {
    out->append(sk.scalar());
  }
}

size_t ItemKeySizeHint(const AttributeValue& pk, const AttributeValue* sk) {
  return 12 + 1 + 5 + pk.scalar().size() + (sk != nullptr ? sk->scalar().size() + 4 : 0);
}

void AppendItemKey(uint32_t table_id, const AttributeValue& pk, const AttributeValue* sk,
                   std::string* out) {
  PutFixed32(out, table_id);
  PutFixed64(out, PartitionHash(pk));
  AppendPartitionKey(pk, out);
  if (sk != nullptr) AppendSortKey(*sk, out);
}

std::string EncodeItemKey(uint32_t table_id, const AttributeValue& pk,
                          const AttributeValue* sk) {
  std::string out;
  out.reserve(ItemKeySizeHint(pk, sk));
  AppendItemKey(table_id, pk, sk, &out);
  return out;
}

bool DecodeItemKey(std::string_view key, AttrType pk_type, std::optional<AttrType> sk_type,
                   uint32_t* table_id, AttributeValue* pk, std::optional<AttributeValue>* sk) {
  uint32_t id;
  uint64_t hash;
  if (!GetFixed32(&key, &id) || !GetFixed64(&key, &hash)) return false;
  if (key.empty() || static_cast<uint8_t>(key[0]) != static_cast<uint8_t>(pk_type)) return false;
  key.remove_prefix(1);
  std::string_view pk_bytes;
  if (!GetLengthPrefixed(&key, &pk_bytes)) return false;
  AttributeValue pk_value = MakeScalar(pk_type, std::string(pk_bytes));
  if (PartitionHash(pk_value) != hash) return false;
  std::optional<AttributeValue> sk_value;
  if (sk_type.has_value()) {
    if (*sk_type == AttrType::kN) {
      std::string text;
      if (!ConsumeNumberKey(&key, &text) || !key.empty()) return false;
      sk_value = AttributeValue::N(std::move(text));
    } else {
      sk_value = MakeScalar(*sk_type, std::string(key));
    }
  } else if (!key.empty()) {
    return false;
  }
  if (table_id != nullptr) *table_id = id;
  if (pk != nullptr) *pk = std::move(pk_value);
  if (sk != nullptr) *sk = std::move(sk_value);
  return true;
}

void AppendEscapedBytes(std::string_view bytes, std::string* out) {
  for (char c : bytes) {
    out->push_back(c);
    if (c == kEscape) out->push_back(kEscapedZero);
  }
  out->push_back(kEscape);
  out->push_back(kTerminator);
}

bool ConsumeEscapedBytes(std::string_view* in, std::string* bytes) {
  bytes->clear();
  size_t i = 0;
  const size_t n = in->size();
  while (i < n) {
    char c = (*in)[i];
    if (c != kEscape) {
      bytes->push_back(c);
      ++i;
      continue;
    }
    if (i + 1 >= n) return false;
    char next = (*in)[i + 1];
    if (next == kEscapedZero) {
      bytes->push_back(kEscape);
      i += 2;
    } else if (next == kTerminator) {
      in->remove_prefix(i + 2);
      return true;
    } else {
      return false;
    }
  }
  return false;
}

void AppendEscapedSortKey(const AttributeValue& v, std::string* out) {
  assert(IsKeyType(v.type()));
  if (v.is(AttrType::kN)) {
    AppendNumberKey(v.scalar(), out);  // self-delimiting
  } else {
    AppendEscapedBytes(v.scalar(), out);
  }
}

bool ConsumeEscapedSortKey(std::string_view* in, AttrType type, AttributeValue* out) {
  if (!IsKeyType(type)) return false;
  std::string bytes;
  if (type == AttrType::kN) {
    if (!ConsumeNumberKey(in, &bytes)) return false;
  } else if (!ConsumeEscapedBytes(in, &bytes)) {
    return false;
  }
  *out = MakeScalar(type, std::move(bytes));
  return true;
}

}  // namespace dynarock
