// File: dynarock/item_view.h
//
// Items as they are stored, read without building them. A Query or Scan
// asked for `encoded_items` returns its page as EncodedItems: one buffer
// holding each item's stored encoding, each read through an ItemView. The
// endpoint writes them to DynamoDB JSON straight from those bytes; an
// embedder that only reads a few attributes, or passes items on, skips the
// per-attribute allocations of an Item.
//
//   dynarock::QueryRequest q = ...;
//   q.encoded_items = true;
//   auto r = db->Query(q);
//   for (size_t i = 0; i < r->encoded_items.size(); ++i) {
//     dynarock::ItemView item = r->encoded_items[i];
//     std::optional<dynarock::AttributeValue> name = item.Get("name");
//     dynarock::Item whole = item.ToItem();   // when a mutable Item is needed
//   }

#ifndef DYNAROCK_ITEM_VIEW_H_
#define DYNAROCK_ITEM_VIEW_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dynarock/attribute_value.h"

namespace dynarock {

// One stored item. Valid while the bytes it views are.
class ItemView {
 public:
  ItemView() = default;
  explicit ItemView(std::string_view encoded) : encoded_(encoded) {}

  // The item's stored encoding (engine/item_codec.h's format).
  std::string_view encoded() const { return encoded_; }
  // One top-level attribute, decoded alone; nullopt when absent.
  std::optional<AttributeValue> Get(std::string_view name) const;
  // The whole item (empty if the bytes are malformed; the engine's reads
  // check every item's bytes before they hand it out).
  Item ToItem() const;
  // The item's DynamoDB size in bytes (dynarock/item_size.h).
  size_t Size() const;

 private:
  std::string_view encoded_;
};

// A page of stored items in one buffer.
class EncodedItems {
 public:
  size_t size() const { return ends_.size(); }
  bool empty() const { return ends_.empty(); }
  ItemView operator[](size_t i) const {
    size_t begin = i == 0 ? 0 : ends_[i - 1];
    return ItemView(std::string_view(bytes_).substr(begin, ends_[i] - begin));
  }
  // Every item decoded (what `items` would have held).
  std::vector<Item> ToItems() const;
  // The length of all the items' encodings together.
  size_t bytes() const { return bytes_.size(); }

  // For the engine: appends one item's encoding.
  void Append(std::string_view encoded) {
    bytes_.append(encoded);
    ends_.push_back(bytes_.size());
  }
  // For the engine: appends an Item, encoded.
  void Append(const Item& item);
  // For the engine: room for `bytes` of encodings.
  void Reserve(size_t bytes) { bytes_.reserve(bytes); }

 private:
  std::string bytes_;
  std::vector<size_t> ends_;
};

}  // namespace dynarock

#endif  // DYNAROCK_ITEM_VIEW_H_
