// File: engine/key_codec.h
//
// The order-preserving codec of item keys (and of key components inside index
// keys). RocksDB compares keys bytewise, so every layout below is chosen so that
// memcmp order is the order DynamoDB defines.
//
// Grammar (fixedNN are big-endian, see coding.h):
//
//   item_key        := table_prefix partition_hash partition_key [sort_key]
//   table_prefix    := fixed32(table_id)
//   partition_hash  := fixed64(PartitionHash(pk))
//   partition_key   := type_byte varint32(len) bytes[len]
//                        type_byte is AttrType (S=1, N=2, B=3); bytes are the
//                        UTF-8 text (S), the normalised number text (N) or the
//                        raw bytes (B)
//   sort_key        := present only when the table has a sort key; last in the
//                      key, so it needs no delimiter:
//                        S, B: the raw bytes (memcmp = DynamoDB's byte order)
//                        N:    number_key (engine/number.h AppendNumberKey)
//
//   multi-attribute GSI keys (up to four partition and four sort attributes):
//     the partition_key is each component's type_byte varint32(len) bytes in
//     schema order, hashed together; the sort attributes are escaped_keys in
//     schema order, so entries order by them left to right, each by its type.
//
//   escaped_key     := a sort-key component that is NOT last (index keys):
//                        S, B: escaped(bytes) 0x00 0x01
//                              escaped: 0x00 -> 0x00 0xFF, other bytes as is
//                        N:    number_key (self-delimiting, no escaping needed)
//
// DynamoDB never orders items by partition key, so the partition key sits
// behind its hash: a Scan walks partitions in hash order, and parallel Scan
// segments split the 64-bit hash space (EncodeHashBound). Every item of one
// partition starts with EncodePartitionPrefix(table_id, pk), so a Query is one
// prefix range; its sort-key bounds are that prefix followed by AppendSortKey.
//
// PartitionHash is persisted in every key: it must never change.

#ifndef DYNAROCK_ENGINE_KEY_CODEC_H_
#define DYNAROCK_ENGINE_KEY_CODEC_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dynarock/attribute_value.h"

namespace dynarock {

// PartitionHash(): stable 64-bit hash of a key value (S, N or B): FNV-1a 64
// over the type byte and the bytes, then a MurmurHash3 fmix64 finalizer.
// Persisted: never change it.
uint64_t PartitionHash(const AttributeValue& pk);

// EncodeTablePrefix(): the 4 bytes every key of the table starts with.
std::string EncodeTablePrefix(uint32_t table_id);

// The bytes every key of one partition shares that are the same length in all
// keys: table prefix + fixed64(hash). The items and indexes column families
// keep a Bloom filter of them too (db_open.cc), so that a Query's iterator
// skips the table files that hold nothing of its partition.
constexpr size_t kPartitionHashPrefixBytes = 12;

// EncodeHashBound(): table prefix + fixed64(hash). Keys of partitions whose
// hash is >= `hash` sort at or after it; used for parallel Scan segments.
std::string EncodeHashBound(uint32_t table_id, uint64_t hash);

// EncodePartitionPrefix(): table prefix + hash + partition key. Every item key
// of that partition starts with it, and no other partition's keys do.
std::string EncodePartitionPrefix(uint32_t table_id, const AttributeValue& pk);

// EncodePartitionPrefix() of a multi-attribute partition key (a GSI's, up to
// four attributes): table prefix + fixed64(hash) + each component as a
// partition_key, in key-schema order; the hash is FNV-1a 64 + fmix64 over all
// the components' bytes. With one part it is exactly the single-value form.
std::string EncodePartitionPrefix(uint32_t table_id,
                                  const std::vector<const AttributeValue*>& parts);

// PrefixSuccessor(): the smallest string greater than every string that starts
// with `prefix` (the exclusive upper bound of a prefix range; empty: no bound).
std::string PrefixSuccessor(std::string prefix);

// AppendSortKey(): appends the last-component encoding of a sort key (S, N, B).
void AppendSortKey(const AttributeValue& sk, std::string* out);

// EncodeItemKey(): the full item key; `sk` is null for hash-only tables.
// PRE: pk and *sk are S, N (normalised) or B. AppendItemKey appends it.
std::string EncodeItemKey(uint32_t table_id, const AttributeValue& pk,
                          const AttributeValue* sk);
void AppendItemKey(uint32_t table_id, const AttributeValue& pk, const AttributeValue* sk,
                   std::string* out);
// About how many bytes EncodeItemKey's key takes (to reserve: at least as
// many for S and B keys, a few less than some N keys).
size_t ItemKeySizeHint(const AttributeValue& pk, const AttributeValue* sk);

// DecodeItemKey(): the inverse of EncodeItemKey for a table whose key types are
// `pk_type` and `sk_type` (nullopt: no sort key). False when the bytes do not
// form such a key (wrong type byte, truncated, trailing bytes, hash mismatch).
// Any output pointer may be null.
bool DecodeItemKey(std::string_view key, AttrType pk_type, std::optional<AttrType> sk_type,
                   uint32_t* table_id, AttributeValue* pk, std::optional<AttributeValue>* sk);

// AppendEscapedBytes() / ConsumeEscapedBytes(): escaped, terminated bytes for a
// component followed by more key bytes. memcmp order of the encodings equals
// memcmp order of the inputs. Consume returns false on malformed input.
void AppendEscapedBytes(std::string_view bytes, std::string* out);
bool ConsumeEscapedBytes(std::string_view* in, std::string* bytes);

// AppendEscapedSortKey(): a key value (S, N, B) as a non-final key component.
void AppendEscapedSortKey(const AttributeValue& v, std::string* out);

// ConsumeEscapedSortKey(): decodes what AppendEscapedSortKey wrote for a value
// of type `type`, advancing `in`. False on malformed input.
bool ConsumeEscapedSortKey(std::string_view* in, AttrType type, AttributeValue* out);

}  // namespace dynarock

#endif  // DYNAROCK_ENGINE_KEY_CODEC_H_
