// File: engine/item_codec.h
//
// The versioned binary encoding of a whole item: the value stored under an item
// key. Never JSON; L, M and sets are encoded natively.
//
// Grammar (varint and lp_bytes as in coding.h):
//
//   item      := 0x02 varint32(size) varint32(count) attribute{count}
//                                             (kItemFormatV2; `size` is the
//                                             item's DynamoDB size, item_size.h)
//              | 0x01 varint32(count) attribute{count}
//                                             (kItemFormatV1: read, no longer
//                                             written; its size is walked)
//   attribute := lp_bytes(name) value          names strictly increasing
//   value     := tag payload
//   tag       := one byte, the AttrType value  (persisted: NEVER REORDER)
//                  S=1 N=2 B=3 BOOL=4 NULL=5 L=6 M=7 SS=8 NS=9 BS=10
//   payload   := S, B:       lp_bytes(bytes)
//                N:          lp_bytes(normalised number text)
//                BOOL:       0x00 | 0x01
//                NULL:       (nothing)
//                L:          varint32(count) value{count}
//                M:          varint32(count) attribute{count}
//                SS, NS, BS: varint32(count) lp_bytes(element){count}
//                              elements strictly increasing bytewise
//
// Nesting in the decoder is capped at kMaxDecodeDepth, well above DynamoDB's 32,
// so hostile bytes cannot exhaust the stack.
//
//   std::string value = EncodeItem(item);
//   Item back;
//   if (!DecodeItem(value, &back)) return InternalError("corrupt item");

#ifndef DYNAROCK_ENGINE_ITEM_CODEC_H_
#define DYNAROCK_ENGINE_ITEM_CODEC_H_

#include <cstdint>
#include <string>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "dynarock/attribute_value.h"

namespace dynarock {

// Persisted format versions: never reuse a number. V2 carries the item's
// DynamoDB size, so that a read sizes an item without walking it and stops
// decoding once it has the attributes it wants.
constexpr uint8_t kItemFormatV1 = 0x01;
constexpr uint8_t kItemFormatV2 = 0x02;

// Decoder nesting cap (containers inside containers).
constexpr int kMaxDecodeDepth = 64;

// EncodeItem(): the encoding of `item`.
std::string EncodeItem(const Item& item);

// EncodeItemTo(): appends the encoding of `item` to `out`; `size`, when the
// caller has it, must be ItemSize(item).
void EncodeItemTo(const Item& item, std::string* out);
void EncodeItemTo(const Item& item, size_t size, std::string* out);

// EncodeItemWithStrings(): the encoding of `item` with the S attributes
// `strings` (name, value) added, without building the whole item as a map (a
// bulk load's items: a few key strings and the caller's attributes).
// `strings` are sorted by name, and none of their names is in `item`.
// Returns the item's DynamoDB size.
size_t EncodeItemWithStrings(const Item& item,
                             std::span<const std::pair<std::string_view, std::string_view>> strings,
                             std::string* out);

// DecodeItem(): parses an encoded item into `out` (replacing its contents).
// False on any malformed, truncated or trailing input, on an unknown version
// and on nesting deeper than kMaxDecodeDepth; `out` is then unspecified.
bool DecodeItem(std::string_view bytes, Item* out);
// The same, with the item's DynamoDB size (ItemSize() of `*out`): stored in a
// V2 item's header, computed for a V1 item.
bool DecodeItem(std::string_view bytes, Item* out, size_t* size);

// Reading an encoded item without building all of it (the read path's view):
//
// EncodedItemSize(): the item's DynamoDB size (ItemSize() of its decoding),
// walking the bytes without allocating. False as DecodeItem() would be.
bool EncodedItemSize(std::string_view bytes, size_t* size);

// DecodeItemAttributes(): decodes only the top-level attributes named in
// `names` (sorted, unique) into `out` (replacing its contents, reusing the
// nodes of names it already holds); the others are checked and skipped, not
// built. With `size`, the whole item's DynamoDB
// size too, in the same pass. False as DecodeItem() would be.
bool DecodeItemAttributes(std::string_view bytes, const std::vector<std::string>& names, Item* out,
                          size_t* size = nullptr);

// `names` sorted and without repeats, as DecodeItemAttributes() takes them.
std::vector<std::string> SortedNames(std::vector<std::string> names);

// What VisitEncodedItem() reports, in order, for an item's bytes: the item is
// a map; a value is a scalar, a boolean, a null, a list of values, a map of
// named values or a set of elements.
class EncodedItemVisitor {
 public:
  virtual ~EncodedItemVisitor() = default;
  virtual void BeginMap(bool top_level) = 0;
  virtual void Name(std::string_view name) = 0;  // the next value's
  virtual void EndMap(bool top_level) = 0;
  virtual void BeginList() = 0;
  virtual void EndList() = 0;
  virtual void Scalar(AttrType type, std::string_view bytes) = 0;  // S, N, B
  virtual void Boolean(bool b) = 0;
  virtual void Null() = 0;
  virtual void BeginSet(AttrType type) = 0;  // SS, NS, BS
  virtual void SetElement(std::string_view bytes) = 0;
  virtual void EndSet() = 0;
};

// Walks an encoded item, reporting it to `v` (transcoding without building).
// False as DecodeItem() would be, possibly after reporting part of it.
bool VisitEncodedItem(std::string_view bytes, EncodedItemVisitor* v);

}  // namespace dynarock

#endif  // DYNAROCK_ENGINE_ITEM_CODEC_H_
