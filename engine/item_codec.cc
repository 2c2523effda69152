// File: engine/item_codec.cc
//
// See item_codec.h for the byte grammar.

#include "engine/item_codec.h"

#include "engine/coding.h"

namespace dynarock {
namespace {

void EncodeValue(const AttributeValue& v, std::string* out);

void EncodeMap(const Item& map, std::string* out) {
  PutVarint32(out, static_cast<uint32_t>(map.size()));
  for (const auto& [name, value] : map) {
    PutLengthPrefixed(out, name);
    EncodeValue(value, out);
  }
}

void EncodeValue(const AttributeValue& v, std::string* out) {
  out->push_back(static_cast<char>(v.type()));
  switch (v.type()) {
    case AttrType::kS:
    case AttrType::kN:
    case AttrType::kB:
      PutLengthPrefixed(out, v.scalar());
      break;
    case AttrType::kBool:
      out->push_back(v.boolean() ? '\x01' : '\x00');
      break;
    case AttrType::kNull:
      break;
    case AttrType::kL:
      PutVarint32(out, static_cast<uint32_t>(v.list().size()));
      for (const AttributeValue& e : v.list()) EncodeValue(e, out);
      break;
    case AttrType::kM:
      EncodeMap(v.map(), out);
      break;
    case AttrType::kSS:
    case AttrType::kNS:
    case AttrType::kBS:
      PutVarint32(out, static_cast<uint32_t>(v.set().size()));
      for (const std::string& e : v.set()) PutLengthPrefixed(out, e);
      break;
  }
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

  bool Map(Item* out, int depth) {
    uint32_t n;
    if (!Count(&n)) return false;
    out->clear();
    std::string_view prev;
    for (uint32_t i = 0; i < n; ++i) {
      std::string_view name;
      if (!GetLengthPrefixed(&in_, &name)) return false;
      if (i > 0 && !(prev < name)) return false;  // strictly increasing
      prev = name;
      AttributeValue value;
      if (!Value(&value, depth)) return false;
      out->emplace_hint(out->end(), std::string(name), std::move(value));
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
        if (tag == static_cast<uint8_t>(AttrType::kS)) {
          *out = AttributeValue::S(std::string(bytes));
        } else if (tag == static_cast<uint8_t>(AttrType::kN)) {
          if (bytes.empty()) return false;
          *out = AttributeValue::N(std::string(bytes));
        } else {
          *out = AttributeValue::B(std::string(bytes));
        }
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
          if (i > 0 && !(prev < e)) return false;  // sorted, no duplicates
          prev = e;
          set.emplace_back(e);
        }
        // The factories sort; the input is already sorted, which std::sort
        // handles quickly.
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

 private:
  std::string_view in_;
};

}  // namespace

void EncodeItemTo(const Item& item, std::string* out) {
  out->push_back(static_cast<char>(kItemFormatV1));
  EncodeMap(item, out);
}

std::string EncodeItem(const Item& item) {
  std::string out;
  EncodeItemTo(item, &out);
  return out;
}

bool DecodeItem(std::string_view bytes, Item* out) {
  Decoder d(bytes);
  uint8_t version;
  if (!d.Byte(&version) || version != kItemFormatV1) return false;
  return d.Map(out, 0) && d.done();
}

}  // namespace dynarock
