#include "dynarock/attribute_value.h"

#include <algorithm>

namespace dynarock {
namespace {

// Sets are kept sorted. Most arrive sorted already (decoded from storage,
// built from a std::set): a linear check spares them the sort's n log n
// comparisons.
std::vector<std::string> Sorted(std::vector<std::string> v) {
  if (!std::is_sorted(v.begin(), v.end())) std::sort(v.begin(), v.end());
  return v;
}

void AppendJsonString(std::string_view s, std::string* out) {
  out->push_back('"');
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(static_cast<char>(c));
    } else if (c < 0x20) {
      static const char kHex[] = "0123456789abcdef";
      out->append("\\u00");
      out->push_back(kHex[c >> 4]);
      out->push_back(kHex[c & 15]);
    } else {
      out->push_back(static_cast<char>(c));
    }
  }
  out->push_back('"');
}

void AppendDebug(const AttributeValue& v, std::string* out);

void AppendDebugItem(const Item& item, std::string* out) {
  out->push_back('{');
  bool first = true;
  for (const auto& [name, value] : item) {
    if (!first) out->push_back(',');
    first = false;
    AppendJsonString(name, out);
    out->push_back(':');
    AppendDebug(value, out);
  }
  out->push_back('}');
}

void AppendDebug(const AttributeValue& v, std::string* out) {
  out->append("{\"");
  out->append(AttrTypeName(v.type()));
  out->append("\":");
  switch (v.type()) {
    case AttrType::kS:
    case AttrType::kN:
    case AttrType::kB:
      AppendJsonString(v.scalar(), out);
      break;
    case AttrType::kBool:
      out->append(v.boolean() ? "true" : "false");
      break;
    case AttrType::kNull:
      out->append("true");
      break;
    case AttrType::kL: {
      out->push_back('[');
      for (size_t i = 0; i < v.list().size(); ++i) {
        if (i) out->push_back(',');
        AppendDebug(v.list()[i], out);
      }
      out->push_back(']');
      break;
    }
    case AttrType::kM:
      AppendDebugItem(v.map(), out);
      break;
    case AttrType::kSS:
    case AttrType::kNS:
    case AttrType::kBS: {
      out->push_back('[');
      for (size_t i = 0; i < v.set().size(); ++i) {
        if (i) out->push_back(',');
        AppendJsonString(v.set()[i], out);
      }
      out->push_back(']');
      break;
    }
  }
  out->push_back('}');
}

}  // namespace

std::string_view AttrTypeName(AttrType type) {
  switch (type) {
    case AttrType::kS: return "S";
    case AttrType::kN: return "N";
    case AttrType::kB: return "B";
    case AttrType::kBool: return "BOOL";
    case AttrType::kNull: return "NULL";
    case AttrType::kL: return "L";
    case AttrType::kM: return "M";
    case AttrType::kSS: return "SS";
    case AttrType::kNS: return "NS";
    case AttrType::kBS: return "BS";
  }
  return "?";
}

bool ParseAttrTypeName(std::string_view name, AttrType* type) {
  static constexpr AttrType kAll[] = {AttrType::kS,  AttrType::kN,  AttrType::kB, AttrType::kBool,
                                      AttrType::kNull, AttrType::kL, AttrType::kM, AttrType::kSS,
                                      AttrType::kNS, AttrType::kBS};
  for (AttrType t : kAll) {
    if (AttrTypeName(t) == name) {
      *type = t;
      return true;
    }
  }
  return false;
}

AttributeValue AttributeValue::S(std::string s) { return AttributeValue(AttrType::kS, std::move(s)); }
AttributeValue AttributeValue::N(std::string n) { return AttributeValue(AttrType::kN, std::move(n)); }
AttributeValue AttributeValue::B(std::string b) { return AttributeValue(AttrType::kB, std::move(b)); }
AttributeValue AttributeValue::Bool(bool b) { return AttributeValue(AttrType::kBool, b); }

void AttributeValue::AssignScalar(AttrType type, std::string_view bytes) {
  type_ = type;
  if (auto* s = std::get_if<std::string>(&v_)) {
    s->assign(bytes.data(), bytes.size());
  } else {
    v_.emplace<std::string>(bytes);
  }
}
AttributeValue AttributeValue::Null() { return AttributeValue(AttrType::kNull, true); }
AttributeValue AttributeValue::L(std::vector<AttributeValue> list) {
  return AttributeValue(AttrType::kL, std::move(list));
}
AttributeValue AttributeValue::M(Item map) { return AttributeValue(AttrType::kM, std::move(map)); }
AttributeValue AttributeValue::SS(std::vector<std::string> set) {
  return AttributeValue(AttrType::kSS, Sorted(std::move(set)));
}
AttributeValue AttributeValue::NS(std::vector<std::string> set) {
  return AttributeValue(AttrType::kNS, Sorted(std::move(set)));
}
AttributeValue AttributeValue::BS(std::vector<std::string> set) {
  return AttributeValue(AttrType::kBS, Sorted(std::move(set)));
}

std::string AttributeValue::DebugString() const {
  std::string out;
  AppendDebug(*this, &out);
  return out;
}

std::string DebugString(const Item& item) {
  std::string out;
  AppendDebugItem(item, &out);
  return out;
}

}  // namespace dynarock
