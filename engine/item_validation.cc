// File: engine/item_validation.cc
//
// See item_validation.h for the rules and messages.

#include "engine/item_validation.h"

#include <algorithm>

#include "dynarock/item_size.h"
#include "engine/limits.h"
#include "engine/number.h"

namespace dynarock {
namespace {

constexpr char kInvalidPrefix[] = "One or more parameter values were invalid: ";

std::string Base64(std::string_view in) {
  static const char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= in.size(); i += 3) {
    uint32_t n = (static_cast<uint8_t>(in[i]) << 16) | (static_cast<uint8_t>(in[i + 1]) << 8) |
                 static_cast<uint8_t>(in[i + 2]);
    out.push_back(kAlphabet[(n >> 18) & 63]);
    out.push_back(kAlphabet[(n >> 12) & 63]);
    out.push_back(kAlphabet[(n >> 6) & 63]);
    out.push_back(kAlphabet[n & 63]);
  }
  if (i < in.size()) {
    uint32_t n = static_cast<uint8_t>(in[i]) << 16;
    if (i + 1 < in.size()) n |= static_cast<uint8_t>(in[i + 1]) << 8;
    out.push_back(kAlphabet[(n >> 18) & 63]);
    out.push_back(kAlphabet[(n >> 12) & 63]);
    out.push_back(i + 1 < in.size() ? kAlphabet[(n >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

std::string JoinElements(const std::vector<std::string>& elems, bool base64) {
  std::string out = "[";
  for (size_t i = 0; i < elems.size(); ++i) {
    if (i > 0) out += ", ";
    out += base64 ? Base64(elems[i]) : elems[i];
  }
  out += "]";
  return out;
}

bool HasAdjacentDuplicates(const std::vector<std::string>& sorted) {
  return std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end();
}

Status NestingError() {
  return ValidationError(
      "Nesting Levels have exceeded supported limits: Attributes in the item have nested "
      "levels beyond supported limit");
}

// Validates `v`, at nesting level `depth`. A number not in its normal form is
// rewritten in `*out` when given (then `v` itself), else reported by
// `*normal = false`.
Status CheckValue(const AttributeValue& v, int depth, AttributeValue* out, bool* normal) {
  if (depth > kNestingDepthMax) return NestingError();
  switch (v.type()) {
    case AttrType::kS:
    case AttrType::kB:
    case AttrType::kBool:
    case AttrType::kNull:
      return Status::Ok();
    case AttrType::kN: {
      // Most numbers are sent in their normal form: recognised without parsing.
      if (IsPlainNormalNumber(v.scalar())) return Status::Ok();
      DR_ASSIGN_OR_RETURN(std::string norm, NormalizeNumber(v.scalar()));
      if (norm != v.scalar()) {
        if (out) {
          *out = AttributeValue::N(std::move(norm));
        } else {
          *normal = false;
        }
      }
      return Status::Ok();
    }
    case AttrType::kL: {
      const std::vector<AttributeValue>& list = v.list();
      for (size_t i = 0; i < list.size(); ++i) {
        DR_RETURN_IF_ERROR(
            CheckValue(list[i], depth + 1, out ? &out->mutable_list()[i] : nullptr, normal));
      }
      return Status::Ok();
    }
    case AttrType::kM: {
      auto target = out ? out->mutable_map().begin() : Item::iterator();
      for (const auto& [name, e] : v.map()) {
        DR_RETURN_IF_ERROR(CheckValue(e, depth + 1, out ? &(target++)->second : nullptr, normal));
      }
      return Status::Ok();
    }
    case AttrType::kSS:
      if (v.set().empty()) {
        return ValidationError(std::string(kInvalidPrefix) + "An string set  may not be empty");
      }
      if (HasAdjacentDuplicates(v.set())) {
        return ValidationError(std::string(kInvalidPrefix) + "Input collection " +
                               JoinElements(v.set(), false) + " contains duplicates.");
      }
      return Status::Ok();
    case AttrType::kBS:
      if (v.set().empty()) {
        return ValidationError(std::string(kInvalidPrefix) + "Binary sets should not be empty");
      }
      if (HasAdjacentDuplicates(v.set())) {
        return ValidationError(std::string(kInvalidPrefix) + "Input collection " +
                               JoinElements(v.set(), true) + "of type BS contains duplicates.");
      }
      return Status::Ok();
    case AttrType::kNS: {
      if (v.set().empty()) {
        return ValidationError(std::string(kInvalidPrefix) + "An number set  may not be empty");
      }
      std::vector<std::string> norms;
      norms.reserve(v.set().size());
      bool changed = false;
      for (const std::string& e : v.set()) {
        DR_ASSIGN_OR_RETURN(std::string norm, NormalizeNumber(e));
        changed |= norm != e;
        norms.push_back(std::move(norm));
      }
      std::sort(norms.begin(), norms.end());
      if (HasAdjacentDuplicates(norms)) {
        return ValidationError("Input collection contains duplicates");
      }
      if (changed) {
        if (out) {
          *out = AttributeValue::NS(std::move(norms));
        } else {
          *normal = false;
        }
      }
      return Status::Ok();
    }
  }
  return InternalError("unknown attribute type");
}

// Checks every attribute of `item` (rewriting numbers in `*out` when given,
// else reporting them by `*normal = false`). When `size` is given, adds each
// attribute's AttributeSize() on the same walk over the item: the item's size
// as it is checked (with `out`, as normalised).
Status CheckItem(const Item& item, Item* out, bool* normal, size_t* size) {
  auto target = out ? out->begin() : Item::iterator();
  for (const auto& [name, value] : item) {
    // "Attribute names must be at least one character long and less than 64 KB".
    if (name.size() < kAttributeNameBytesMin) {
      return ValidationError(std::string(kInvalidPrefix) +
                             "An attribute name must be at least one character long");
    }
    if (name.size() >= kAttributeNameBytesMax) {
      size_t shown = 16;  // whole UTF-8 characters only
      while (shown > 0 && (static_cast<unsigned char>(name[shown]) & 0xC0) == 0x80) --shown;
      return ValidationError(std::string(kInvalidPrefix) + "The attribute name " +
                             name.substr(0, shown) + "... is " + std::to_string(name.size()) +
                             " bytes long; attribute names must be less than 64 KB");
    }
    AttributeValue* rewritten = out ? &(target++)->second : nullptr;
    if (value.is(AttrType::kS) || value.is(AttrType::kB)) {
      // Most attributes: nothing to check, and sized without a call (the
      // name's and the value's bytes, AttributeSize()'s rule for them).
      if (size) *size += name.size() + value.scalar().size();
      continue;
    }
    DR_RETURN_IF_ERROR(CheckValue(value, 1, rewritten, normal));
    if (size) *size += AttributeSize(name, rewritten ? *rewritten : value);
  }
  return Status::Ok();
}

}  // namespace

Status NormalizeAndValidateValue(AttributeValue* v, int depth) {
  return CheckValue(*v, depth, v, nullptr);
}

Status NormalizeAndValidateItem(Item* item) { return CheckItem(*item, item, nullptr, nullptr); }

Status NormalizeAndValidateItem(Item* item, size_t* size) {
  *size = 0;
  return CheckItem(*item, item, nullptr, size);
}

Status ValidateItem(const Item& item, std::optional<Item>* normalized, size_t* size) {
  normalized->reset();
  bool normal = true;
  *size = 0;
  DR_RETURN_IF_ERROR(CheckItem(item, nullptr, &normal, size));
  if (normal) return Status::Ok();
  // What gets stored is the normalised copy, sized as it is.
  normalized->emplace(item);
  return NormalizeAndValidateItem(&**normalized, size);
}

}  // namespace dynarock
