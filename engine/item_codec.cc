// File: engine/item_codec.cc
//
// See item_codec.h for the byte grammar.

#include "engine/item_codec.h"

#include <algorithm>
#include <cstring>

#include "dynarock/item_size.h"
#include "dynarock/item_view.h"
#include "engine/coding.h"

namespace dynarock {
namespace {

// Appends to a string through a pointer: room is made for each attribute
// (its name, type, length and scalar bytes) at once, and the bytes are then
// stored without a capacity check apiece. The string is longer than what was
// written until Finish() trims it.
class Writer {
 public:
  // `hint`: the bytes expected; more are made room for as needed.
  Writer(std::string* out, size_t hint) : out_(out), pos_(out->size()) { Reserve(hint); }
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  void Finish() { out_->resize(pos_); }

  // Room for `n` more bytes, for the calls below.
  [[gnu::always_inline]] void Reserve(size_t n) {
    if (out_->size() - pos_ < n) Grow(n);
  }
  void Byte(char c) { (*out_)[pos_++] = c; }
  void Varint(uint32_t v) {
    char* const at = out_->data() + pos_;
    pos_ += static_cast<size_t>(EncodeVarint64(at, v) - at);
  }
  void LengthPrefixed(std::string_view bytes) {
    Varint(static_cast<uint32_t>(bytes.size()));
    if (!bytes.empty()) std::memcpy(out_->data() + pos_, bytes.data(), bytes.size());
    pos_ += bytes.size();
  }

 private:
  // The capacity grows geometrically (appending items to one buffer stays
  // linear); the length only by what is asked and a little more, since each
  // byte past the content is zeroed and then trimmed.
  [[gnu::noinline]] void Grow(size_t n) {
    const size_t need = pos_ + n;
    if (out_->capacity() < need) out_->reserve(std::max(need, 2 * out_->capacity()));
    out_->resize(std::min(out_->capacity(), need + kSlack));
  }

  static constexpr size_t kSlack = 64;
  std::string* out_;
  size_t pos_;  // where the next byte goes
};

void EncodeValue(const AttributeValue& v, Writer* out);

void EncodeMap(const Item& map, Writer* out) {
  out->Reserve(kMaxVarint32Bytes);
  out->Varint(static_cast<uint32_t>(map.size()));
  for (const auto& [name, value] : map) {
    if (value.is(AttrType::kS) || value.is(AttrType::kN) || value.is(AttrType::kB)) {
      // Most attributes: name, type and scalar in one go, without a call.
      const std::string& scalar = value.scalar();
      out->Reserve(1 + 2 * kMaxVarint32Bytes + name.size() + scalar.size());
      out->LengthPrefixed(name);
      out->Byte(static_cast<char>(value.type()));
      out->LengthPrefixed(scalar);
      continue;
    }
    out->Reserve(kMaxVarint32Bytes + name.size());
    out->LengthPrefixed(name);
    EncodeValue(value, out);
  }
}

void EncodeValue(const AttributeValue& v, Writer* out) {
  switch (v.type()) {
    case AttrType::kS:
    case AttrType::kN:
    case AttrType::kB:
      out->Reserve(1 + kMaxVarint32Bytes + v.scalar().size());
      out->Byte(static_cast<char>(v.type()));
      out->LengthPrefixed(v.scalar());
      break;
    case AttrType::kBool:
      out->Reserve(2);
      out->Byte(static_cast<char>(v.type()));
      out->Byte(v.boolean() ? '\x01' : '\x00');
      break;
    case AttrType::kNull:
      out->Reserve(1);
      out->Byte(static_cast<char>(v.type()));
      break;
    case AttrType::kL:
      out->Reserve(1 + kMaxVarint32Bytes);
      out->Byte(static_cast<char>(v.type()));
      out->Varint(static_cast<uint32_t>(v.list().size()));
      for (const AttributeValue& e : v.list()) EncodeValue(e, out);
      break;
    case AttrType::kM:
      out->Reserve(1);
      out->Byte(static_cast<char>(v.type()));
      EncodeMap(v.map(), out);
      break;
    case AttrType::kSS:
    case AttrType::kNS:
    case AttrType::kBS:
      out->Reserve(1 + kMaxVarint32Bytes);
      out->Byte(static_cast<char>(v.type()));
      out->Varint(static_cast<uint32_t>(v.set().size()));
      for (const std::string& e : v.set()) {
        out->Reserve(kMaxVarint32Bytes + e.size());
        out->LengthPrefixed(e);
      }
      break;
  }
}

// What an item's encoding is expected to take: its DynamoDB size counts every
// name and value byte; the encoding adds the header, and a type byte and a
// length or two for each top-level attribute (a nested one may make room
// once more).
size_t EncodedSizeHint(const Item& item, size_t size) {
  return 1 + 2 * kMaxVarint32Bytes + size + 4 * item.size();
}

// `a < b` and `a == b` bytewise, as std::string_view orders and compares,
// without a call to memcmp for short names (attribute names mostly are).
inline bool NameLess(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  if (n > 16) return a < b;
  for (size_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[i]);
  }
  return a.size() < b.size();
}
inline bool NameEqual(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  if (a.size() > 16) return a == b;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

// The decoder. Every element needs at least one byte, so a count larger than
// the remaining input is rejected before anything is reserved.
class Decoder {
 public:
  explicit Decoder(std::string_view in) : in_(in) {}

  bool done() const { return in_.empty(); }

  bool Byte(uint8_t* b) {
    if (in_.empty()) return false;
    *b = static_cast<uint8_t>(in_[0]);
    in_.remove_prefix(1);
    return true;
  }

  bool Count(uint32_t* n) { return GetVarint32(&in_, n) && *n <= in_.size(); }

  // The version byte and, in V2, the stored size (`*sized` says which).
  bool Header(size_t* size, bool* sized) {
    uint8_t version;
    if (!Byte(&version)) return false;
    if (version == kItemFormatV1) {
      *sized = false;
      return true;
    }
    uint32_t stored;
    if (version != kItemFormatV2 || !GetVarint32(&in_, &stored)) return false;
    *size = stored;
    *sized = true;
    return true;
  }

  bool Map(Item* out, int depth) {
    uint32_t n;
    if (!Count(&n)) return false;
    out->clear();
    std::string_view prev;
    for (uint32_t i = 0; i < n; ++i) {
      std::string_view name;
      if (!GetLengthPrefixed(&in_, &name)) return false;
      if (i > 0 && !NameLess(prev, name)) return false;  // strictly increasing
      prev = name;
      // Built in its node: names arrive in order, so end() is the right hint
      // (one comparison), and the value is decoded where it will stay.
      auto it = out->emplace_hint(out->end(), std::piecewise_construct,
                                  std::forward_as_tuple(name), std::forward_as_tuple());
      if (!Value(&it->second, depth)) return false;
    }
    return true;
  }

  bool Value(AttributeValue* out, int depth) {
    uint8_t tag;
    if (!Byte(&tag)) return false;
    switch (static_cast<AttrType>(tag)) {
      case AttrType::kS:
      case AttrType::kN:
      case AttrType::kB: {
        std::string_view bytes;
        if (!GetLengthPrefixed(&in_, &bytes)) return false;
        if (tag == static_cast<uint8_t>(AttrType::kN) && bytes.empty()) return false;
        // Built in the value (a reused node's string, DecodeItemAttributes
        // over item after item, keeps its buffer): no temporary moved in.
        out->AssignScalar(static_cast<AttrType>(tag), bytes);
        return true;
      }
      case AttrType::kBool: {
        uint8_t b;
        if (!Byte(&b) || b > 1) return false;
        *out = AttributeValue::Bool(b == 1);
        return true;
      }
      case AttrType::kNull:
        *out = AttributeValue::Null();
        return true;
      case AttrType::kL: {
        if (depth >= kMaxDecodeDepth) return false;
        uint32_t n;
        if (!Count(&n)) return false;
        std::vector<AttributeValue> list(n);
        for (uint32_t i = 0; i < n; ++i) {
          if (!Value(&list[i], depth + 1)) return false;
        }
        *out = AttributeValue::L(std::move(list));
        return true;
      }
      case AttrType::kM: {
        if (depth >= kMaxDecodeDepth) return false;
        Item map;
        if (!Map(&map, depth + 1)) return false;
        *out = AttributeValue::M(std::move(map));
        return true;
      }
      case AttrType::kSS:
      case AttrType::kNS:
      case AttrType::kBS: {
        uint32_t n;
        if (!Count(&n)) return false;
        std::vector<std::string> set;
        set.reserve(n);
        std::string_view prev;
        for (uint32_t i = 0; i < n; ++i) {
          std::string_view e;
          if (!GetLengthPrefixed(&in_, &e)) return false;
          if (i > 0 && !NameLess(prev, e)) return false;  // sorted, no duplicates
          prev = e;
          set.emplace_back(e);
        }
        // The factories sort unless the set is sorted already, as it is here.
        if (tag == static_cast<uint8_t>(AttrType::kSS)) {
          *out = AttributeValue::SS(std::move(set));
        } else if (tag == static_cast<uint8_t>(AttrType::kNS)) {
          *out = AttributeValue::NS(std::move(set));
        } else {
          *out = AttributeValue::BS(std::move(set));
        }
        return true;
      }
    }
    return false;  // unknown tag
  }

  // Walks one value as Value() checks it, without building it; with kSized,
  // adding its DynamoDB size to *size (item_size.h's rules), which a V1 item
  // needs (a V2 item's size is stored). Value(), Skip() and Visit() walk the
  // same grammar; Skip() is written out rather than being Visit() with a
  // sizing visitor because it runs on every item a Query or Scan reads: the
  // virtual calls cost Scan1000Encoded ~20% (measured).
  template <bool kSized>
  bool Skip(size_t* size, int depth) {
    uint8_t tag;
    if (!Byte(&tag)) return false;
    std::string_view bytes;
    switch (static_cast<AttrType>(tag)) {
      case AttrType::kS:
      case AttrType::kB:
        if (!GetLengthPrefixed(&in_, &bytes)) return false;
        if constexpr (kSized) *size += bytes.size();
        return true;
      case AttrType::kN:
        if (!GetLengthPrefixed(&in_, &bytes) || bytes.empty()) return false;
        if constexpr (kSized) *size += NumberSize(bytes);
        return true;
      case AttrType::kBool: {
        uint8_t b;
        if (!Byte(&b) || b > 1) return false;
        if constexpr (kSized) *size += 1;
        return true;
      }
      case AttrType::kNull:
        if constexpr (kSized) *size += 1;
        return true;
      case AttrType::kL: {
        if (depth >= kMaxDecodeDepth) return false;
        uint32_t n;
        if (!Count(&n)) return false;
        if constexpr (kSized) *size += kContainerOverheadBytes;
        for (uint32_t i = 0; i < n; ++i) {
          if constexpr (kSized) *size += kElementOverheadBytes;
          if (!Skip<kSized>(size, depth + 1)) return false;
        }
        return true;
      }
      case AttrType::kM:
        if (depth >= kMaxDecodeDepth) return false;
        if constexpr (kSized) *size += kContainerOverheadBytes;
        return SkipMap<kSized>(size, depth + 1, kElementOverheadBytes);
      case AttrType::kSS:
      case AttrType::kNS:
      case AttrType::kBS: {
        uint32_t n;
        if (!Count(&n)) return false;
        std::string_view prev;
        for (uint32_t i = 0; i < n; ++i) {
          std::string_view e;
          if (!GetLengthPrefixed(&in_, &e)) return false;
          if (i > 0 && !NameLess(prev, e)) return false;
          prev = e;
          if constexpr (kSized) {
            *size += tag == static_cast<uint8_t>(AttrType::kNS) ? NumberSize(e) : e.size();
          }
        }
        return true;
      }
    }
    return false;
  }

  // A map's entries; with kSized, each name's length plus its value's size,
  // plus `per_entry` (the 1 byte of an M entry; 0 at the top level).
  template <bool kSized>
  bool SkipMap(size_t* size, int depth, size_t per_entry) {
    uint32_t n;
    if (!Count(&n)) return false;
    std::string_view prev;
    for (uint32_t i = 0; i < n; ++i) {
      std::string_view name;
      if (!GetLengthPrefixed(&in_, &name)) return false;
      if (i > 0 && !NameLess(prev, name)) return false;
      prev = name;
      if constexpr (kSized) *size += per_entry + name.size();
      if (!Skip<kSized>(size, depth)) return false;
    }
    return true;
  }

  // The top-level map, decoding only the names in `names` (sorted), adding
  // every attribute's size to *size; without `size` (a V2 item, whose size is
  // stored), it stops once past the last name wanted.
  bool MapOf(const std::vector<std::string>& names, Item* out, size_t* size) {
    uint32_t n;
    if (!Count(&n)) return false;
    // `out`'s nodes are reused for the names it already holds (a read decodes
    // the same names item after item into one Item: no allocation per item);
    // the rest are erased.
    auto slot = out->begin();
    auto done = [&] {
      out->erase(slot, out->end());
      return true;
    };
    std::string_view prev;
    auto want = names.begin();
    for (uint32_t i = 0; i < n; ++i) {
      if (size == nullptr && want == names.end()) return done();
      std::string_view name;
      if (!GetLengthPrefixed(&in_, &name)) return false;
      if (i > 0 && !NameLess(prev, name)) return false;
      prev = name;
      while (want != names.end() && NameLess(*want, name)) ++want;
      if (size != nullptr) *size += name.size();
      if (want != names.end() && NameEqual(*want, name)) {
        while (slot != out->end() && NameLess(slot->first, name)) slot = out->erase(slot);
        if (slot == out->end() || !NameEqual(slot->first, name)) {
          slot = out->emplace_hint(slot, std::string(name), AttributeValue());
        }
        if (!Value(&slot->second, 0)) return false;
        if (size != nullptr) *size += AttributeValueSize(slot->second);
        ++slot;
        ++want;
      } else if (size != nullptr) {
        if (!Skip<true>(size, 0)) return false;
      } else {
        if (!Skip<false>(nullptr, 0)) return false;
      }
    }
    return done();
  }


  // Walks one value as Value() checks it, reporting it to `v`.
  bool Visit(EncodedItemVisitor* v, int depth) {
    uint8_t tag;
    if (!Byte(&tag)) return false;
    const AttrType type = static_cast<AttrType>(tag);
    switch (type) {
      case AttrType::kS:
      case AttrType::kN:
      case AttrType::kB: {
        std::string_view bytes;
        if (!GetLengthPrefixed(&in_, &bytes)) return false;
        if (type == AttrType::kN && bytes.empty()) return false;
        v->Scalar(type, bytes);
        return true;
      }
      case AttrType::kBool: {
        uint8_t b;
        if (!Byte(&b) || b > 1) return false;
        v->Boolean(b == 1);
        return true;
      }
      case AttrType::kNull:
        v->Null();
        return true;
      case AttrType::kL: {
        if (depth >= kMaxDecodeDepth) return false;
        uint32_t n;
        if (!Count(&n)) return false;
        v->BeginList();
        for (uint32_t i = 0; i < n; ++i) {
          if (!Visit(v, depth + 1)) return false;
        }
        v->EndList();
        return true;
      }
      case AttrType::kM:
        if (depth >= kMaxDecodeDepth) return false;
        return VisitMap(v, depth + 1, false);
      case AttrType::kSS:
      case AttrType::kNS:
      case AttrType::kBS: {
        uint32_t n;
        if (!Count(&n)) return false;
        v->BeginSet(type);
        std::string_view prev;
        for (uint32_t i = 0; i < n; ++i) {
          std::string_view e;
          if (!GetLengthPrefixed(&in_, &e)) return false;
          if (i > 0 && !NameLess(prev, e)) return false;
          prev = e;
          v->SetElement(e);
        }
        v->EndSet();
        return true;
      }
    }
    return false;
  }

  bool VisitMap(EncodedItemVisitor* v, int depth, bool top_level) {
    uint32_t n;
    if (!Count(&n)) return false;
    v->BeginMap(top_level);
    std::string_view prev;
    for (uint32_t i = 0; i < n; ++i) {
      std::string_view name;
      if (!GetLengthPrefixed(&in_, &name)) return false;
      if (i > 0 && !NameLess(prev, name)) return false;
      prev = name;
      v->Name(name);
      if (!Visit(v, depth)) return false;
    }
    v->EndMap(top_level);
    return true;
  }

 private:
  std::string_view in_;
};

}  // namespace

void EncodeItemTo(const Item& item, size_t size, std::string* out) {
  Writer w(out, EncodedSizeHint(item, size));
  w.Byte(static_cast<char>(kItemFormatV2));
  w.Varint(static_cast<uint32_t>(size));
  EncodeMap(item, &w);
  w.Finish();
}

void EncodeItemTo(const Item& item, std::string* out) { EncodeItemTo(item, ItemSize(item), out); }

size_t EncodeItemWithStrings(const Item& item,
                             std::span<const std::pair<std::string_view, std::string_view>> strings,
                             std::string* out) {
  size_t size = ItemSize(item);
  for (const auto& [name, value] : strings) size += name.size() + value.size();
  Writer w(out, EncodedSizeHint(item, size) + 8 * strings.size());
  w.Byte(static_cast<char>(kItemFormatV2));
  w.Varint(static_cast<uint32_t>(size));
  w.Varint(static_cast<uint32_t>(item.size() + strings.size()));
  // The two name-ordered sequences, merged.
  auto next = strings.begin();
  auto put_strings_before = [&](const std::string* name) {
    for (; next != strings.end() && (name == nullptr || next->first < *name); ++next) {
      w.Reserve(1 + 2 * kMaxVarint32Bytes + next->first.size() + next->second.size());
      w.LengthPrefixed(next->first);
      w.Byte(static_cast<char>(AttrType::kS));
      w.LengthPrefixed(next->second);
    }
  };
  for (const auto& [name, value] : item) {
    put_strings_before(&name);
    w.Reserve(kMaxVarint32Bytes + name.size());
    w.LengthPrefixed(name);
    EncodeValue(value, &w);
  }
  put_strings_before(nullptr);
  w.Finish();
  return size;
}

std::string EncodeItem(const Item& item) {
  std::string out;
  EncodeItemTo(item, &out);
  return out;
}

bool DecodeItem(std::string_view bytes, Item* out) {
  Decoder d(bytes);
  size_t size;
  bool sized;
  return d.Header(&size, &sized) && d.Map(out, 0) && d.done();
}

bool DecodeItem(std::string_view bytes, Item* out, size_t* size) {
  Decoder d(bytes);
  bool sized;
  *size = 0;
  if (!d.Header(size, &sized) || !d.Map(out, 0) || !d.done()) return false;
  if (!sized) *size = ItemSize(*out);  // a V1 item carries no size
  return true;
}

bool VisitEncodedItem(std::string_view bytes, EncodedItemVisitor* v) {
  Decoder d(bytes);
  size_t size;
  bool sized;
  return d.Header(&size, &sized) && d.VisitMap(v, 0, true) && d.done();
}

bool EncodedItemSize(std::string_view bytes, size_t* size) {
  Decoder d(bytes);
  bool sized;
  *size = 0;
  if (!d.Header(size, &sized)) return false;
  if (sized) return true;
  return d.SkipMap<true>(size, 0, 0) && d.done();
}

std::vector<std::string> SortedNames(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

bool DecodeItemAttributes(std::string_view bytes, const std::vector<std::string>& names, Item* out,
                          size_t* size) {
  Decoder d(bytes);
  size_t ignored = 0;
  if (size == nullptr) size = &ignored;
  *size = 0;
  bool sized;
  if (!d.Header(size, &sized)) return false;
  if (sized) return d.MapOf(names, out, nullptr);  // stops after the last name wanted
  return d.MapOf(names, out, size) && d.done();
}

}  // namespace dynarock

// ---------------------------------------------------------------- dynarock/item_view.h

namespace dynarock {

std::optional<AttributeValue> ItemView::Get(std::string_view name) const {
  Item one;
  if (!DecodeItemAttributes(encoded_, {std::string(name)}, &one) || one.empty()) return std::nullopt;
  return std::move(one.begin()->second);
}

Item ItemView::ToItem() const {
  Item item;
  if (!DecodeItem(encoded_, &item)) item.clear();
  return item;
}

size_t ItemView::Size() const {
  size_t size = 0;
  return EncodedItemSize(encoded_, &size) ? size : 0;
}

std::vector<Item> EncodedItems::ToItems() const {
  std::vector<Item> items;
  items.reserve(size());
  for (size_t i = 0; i < size(); ++i) items.push_back((*this)[i].ToItem());
  return items;
}

void EncodedItems::Append(const Item& item) {
  EncodeItemTo(item, &bytes_);
  ends_.push_back(bytes_.size());
}

}  // namespace dynarock
