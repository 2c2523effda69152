// File: dynarock/item_size.h
//
// Item sizes by DynamoDB's rules (Developer Guide, "DynamoDB item sizes and
// formats"), used for the 400 KB item limit, the 1 MB Query/Scan page and
// consumed capacity:
//
//   item       = sum over attributes of UTF-8 bytes of the name + value size
//   S          = UTF-8 bytes;  B = raw bytes;  BOOL, NULL = 1
//   N          = 1 + (bytes of base-100 digits) + 1 more if negative, see below
//   L          = 3 + sum over elements of (1 + element size)
//   M          = 3 + sum over entries of (1 + UTF-8 bytes of key + value size)
//   SS, BS, NS = sum of the element sizes (same rules as S, B, N)
//
// Numbers: the guide says "approximately 1 byte per two significant digits +
// 1 byte", leading and trailing zeros trimmed. Dynarock counts the base-100
// digits of the value aligned on the decimal point, between the first and the
// last nonzero pair (27 -> 2, 461 -> 3, 1.5 -> 3, 0.05 -> 2, 1000 -> 2), plus
// 1, plus 1 for a negative number's terminator (-27 -> 3): a base-100 layout
// like Oracle's NUMBER, which the guide's approximation describes. Sizes that
// other emulators measured against DynamoDB (1 + ceil(integer digits / 2) +
// ceil(fraction digits / 2) + 1 if negative) agree with it except for
// integers whose trailing zeros shift the pairing (1001000: 4 here, 3 there);
// the guide does not settle those.

#ifndef DYNAROCK_ITEM_SIZE_H_
#define DYNAROCK_ITEM_SIZE_H_

#include <cstddef>
#include <string_view>

#include "dynarock/attribute_value.h"

namespace dynarock {

// The container rules above: an L or M's own bytes, and each element's or
// entry's (the item codec's size walk counts by them too).
inline constexpr size_t kContainerOverheadBytes = 3;
inline constexpr size_t kElementOverheadBytes = 1;

// NumberSize(): bytes DynamoDB counts for a normalised number's value.
size_t NumberSize(std::string_view normalized);

// AttributeValueSize(): bytes of a value (without any attribute name).
size_t AttributeValueSize(const AttributeValue& v);

// AttributeSize(): name bytes + value size: one top-level attribute.
size_t AttributeSize(std::string_view name, const AttributeValue& v);

// ItemSize(): the item's size; at most 400 KB (409600 bytes) for an item DynamoDB accepts.
size_t ItemSize(const Item& item);

}  // namespace dynarock

#endif  // DYNAROCK_ITEM_SIZE_H_
