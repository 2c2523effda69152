// File: engine/item_size.cc
//
// See item_size.h for the rules and their source.

#include "dynarock/item_size.h"

namespace dynarock {

size_t NumberSize(std::string_view text) {
  bool negative = false;
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  const size_t dot = text.find('.');
  std::string_view int_part = text.substr(0, dot);
  std::string_view frac_part =
      dot == std::string_view::npos ? std::string_view() : text.substr(dot + 1);
  // Digit at padded index k, where the integer part is left-padded and the
  // fraction right-padded to an even length, so pairs align on the point.
  const size_t int_pad = int_part.size() % 2;
  const size_t int_len = int_part.size() + int_pad;
  const size_t frac_len = frac_part.size() + frac_part.size() % 2;
  auto digit = [&](size_t k) -> char {
    if (k < int_len) return k < int_pad ? '0' : int_part[k - int_pad];
    k -= int_len;
    return k < frac_part.size() ? frac_part[k] : '0';
  };
  const size_t pairs = (int_len + frac_len) / 2;
  size_t first = pairs, last = 0;
  for (size_t p = 0; p < pairs; ++p) {
    if (digit(2 * p) != '0' || digit(2 * p + 1) != '0') {
      if (first == pairs) first = p;
      last = p;
    }
  }
  const size_t used = first == pairs ? 0 : last - first + 1;
  return 1 + used + (negative && used > 0 ? 1 : 0);
}

size_t AttributeValueSize(const AttributeValue& v) {
  switch (v.type()) {
    case AttrType::kS:
    case AttrType::kB:
      return v.scalar().size();
    case AttrType::kN:
      return NumberSize(v.scalar());
    case AttrType::kBool:
    case AttrType::kNull:
      return 1;
    case AttrType::kL: {
      size_t size = kContainerOverheadBytes;
      for (const AttributeValue& e : v.list()) size += kElementOverheadBytes + AttributeValueSize(e);
      return size;
    }
    case AttrType::kM: {
      size_t size = kContainerOverheadBytes;
      for (const auto& [name, e] : v.map()) {
        size += kElementOverheadBytes + name.size() + AttributeValueSize(e);
      }
      return size;
    }
    case AttrType::kSS:
    case AttrType::kBS: {
      size_t size = 0;
      for (const std::string& e : v.set()) size += e.size();
      return size;
    }
    case AttrType::kNS: {
      size_t size = 0;
      for (const std::string& e : v.set()) size += NumberSize(e);
      return size;
    }
  }
  return 0;
}

size_t AttributeSize(std::string_view name, const AttributeValue& v) {
  return name.size() + AttributeValueSize(v);
}

size_t ItemSize(const Item& item) {
  size_t size = 0;
  for (const auto& [name, value] : item) size += AttributeSize(name, value);
  return size;
}

}  // namespace dynarock
