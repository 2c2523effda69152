// File: document/value.cc

#include "document/value.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "engine/item_codec.h"
#include "engine/item_validation.h"
#include "engine/number.h"
#include "engine/time_text.h"

namespace dynarock::document {
namespace {

Status Wrong(std::string_view want, Value::Kind found) {
  return ValidationError("expected a " + std::string(want) + ", found a " + std::string(KindName(found)));
}

// Milliseconds since the epoch as decimal seconds ("1764230400", "-1.5").
std::string EpochSecondsText(int64_t ms) {
  const bool negative = ms < 0;
  const uint64_t abs = negative ? static_cast<uint64_t>(-(ms + 1)) + 1 : static_cast<uint64_t>(ms);
  std::string out = (negative ? "-" : "") + std::to_string(abs / 1000);
  if (abs % 1000 != 0) {
    char frac[8];
    std::snprintf(frac, sizeof frac, ".%03u", static_cast<unsigned>(abs % 1000));
    out += frac;
    while (out.back() == '0') out.pop_back();
  }
  return out;
}

}  // namespace

// ---------------------------------------------------------------- Number

StatusOr<Number> Number::Parse(std::string_view text) {
  DR_ASSIGN_OR_RETURN(std::string normalised, NormalizeNumber(text));
  return Number(std::move(normalised), 0);
}

StatusOr<Number> Number::FromDouble(double v) {
  if (!std::isfinite(v)) {
    return ValidationError("The parameter cannot be converted to a numeric value: " +
                           std::string(std::isnan(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity"));
  }
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);  // shortest round trip
  if (ec != std::errc()) return InternalError("a double could not be written");
  return Parse(std::string_view(buf, static_cast<size_t>(end - buf)));
}

StatusOr<int64_t> Number::ToInt64() const {
  if (!is_integer()) return ValidationError("the number " + text_ + " is not an integer");
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(text_.data(), text_.data() + text_.size(), v);
  if (ec != std::errc() || end != text_.data() + text_.size()) {
    return ValidationError("the number " + text_ + " does not fit a 64-bit integer");
  }
  return v;
}

StatusOr<uint64_t> Number::ToUint64() const {
  if (!is_integer()) return ValidationError("the number " + text_ + " is not an integer");
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text_.data(), text_.data() + text_.size(), v);
  if (ec != std::errc() || end != text_.data() + text_.size()) {
    return ValidationError("the number " + text_ + " does not fit an unsigned 64-bit integer");
  }
  return v;
}

StatusOr<double> Number::ToDouble() const {
  const double d = ToDoubleApprox();
  auto back = FromDouble(d);
  if (!back.ok() || back->text_ != text_) {
    return ValidationError("the number " + text_ + " has no exact double (the nearest reads " +
                           (back.ok() ? back->text_ : std::string("out of range")) +
                           "); read it as a Number");
  }
  return d;
}

double Number::ToDoubleApprox() const { return std::strtod(text_.c_str(), nullptr); }

bool operator<(const Number& a, const Number& b) { return CompareNumbers(a.text_, b.text_) < 0; }

// ---------------------------------------------------------------- Value

namespace {

// SS, NS, BS: the set's kind.
Value::Kind SetKind(AttrType type) {
  return type == AttrType::kSS ? Value::Kind::kStringSet
         : type == AttrType::kNS ? Value::Kind::kNumberSet
                                 : Value::Kind::kBytesSet;
}

}  // namespace

Value::Value(double v) : kind_(Kind::kNumber) {
  auto n = Number::FromDouble(v);
  if (n.ok()) {
    v_.emplace<Number>(std::move(*n));
  } else {
    bad_number_ = true;
  }
}

Value::Value(Time t) {
  const int64_t ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(t.at.time_since_epoch()).count();
  if (t.format == TimeFormat::kIso8601) {
    kind_ = Kind::kString;
    v_.emplace<std::string>(Iso8601Millis(ms));
  } else {
    kind_ = Kind::kNumber;
    v_.emplace<Number>(Number::Parse(EpochSecondsText(ms)).value());
  }
}

Value Value::StringSet(std::vector<std::string> elements) {
  Value v;
  v.kind_ = Kind::kStringSet;
  v.v_.emplace<std::vector<std::string>>(std::move(elements));
  return v;
}

Value Value::NumberSet(std::vector<Number> elements) {
  Value v;
  v.kind_ = Kind::kNumberSet;
  auto& set = v.v_.emplace<std::vector<std::string>>();
  set.reserve(elements.size());
  for (Number& n : elements) set.push_back(std::move(n.text_));
  return v;
}

Value Value::BytesSet(std::vector<Bytes> elements) {
  Value v;
  v.kind_ = Kind::kBytesSet;
  auto& set = v.v_.emplace<std::vector<std::string>>();
  set.reserve(elements.size());
  for (Bytes& b : elements) set.push_back(std::move(b.data));
  return v;
}

Value Value::From(const AttributeValue& a) {
  switch (a.type()) {
    case AttrType::kS:
      return Value(a.scalar());
    case AttrType::kN:  // normalised text, as AttributeValue::N holds it
      return Value(Number(a.scalar(), 0));
    case AttrType::kB:
      return Value(Bytes{a.scalar()});
    case AttrType::kBool:
      return Value(a.boolean());
    case AttrType::kNull:
      return Value(nullptr);
    case AttrType::kL: {
      List l;
      l.reserve(a.list().size());
      for (const AttributeValue& e : a.list()) l.push_back(From(e));
      return Value(std::move(l));
    }
    case AttrType::kM:
      return From(a.map());
    case AttrType::kSS:
    case AttrType::kNS:
    case AttrType::kBS: {
      Value v;
      v.kind_ = SetKind(a.type());
      v.v_.emplace<std::vector<std::string>>(a.set());
      return v;
    }
  }
  return Value();
}

Value Value::From(const Item& item) {
  Map m;
  for (const auto& [name, value] : item) m.emplace_hint(m.end(), name, From(value));
  return Value(std::move(m));
}

Value Value::From(AttributeValue&& a) {
  switch (a.type()) {
    case AttrType::kS:
      return Value(std::move(a.mutable_scalar()));
    case AttrType::kN:
      return Value(Number(std::move(a.mutable_scalar()), 0));
    case AttrType::kB:
      return Value(Bytes{std::move(a.mutable_scalar())});
    case AttrType::kL: {
      List l;
      l.reserve(a.list().size());
      for (AttributeValue& e : a.mutable_list()) l.push_back(From(std::move(e)));
      return Value(std::move(l));
    }
    case AttrType::kM:
      return From(std::move(a.mutable_map()));
    case AttrType::kSS:
    case AttrType::kNS:
    case AttrType::kBS: {
      Value v;
      v.kind_ = SetKind(a.type());
      v.v_.emplace<std::vector<std::string>>(std::move(a.mutable_set()));
      return v;
    }
    default:
      return From(static_cast<const AttributeValue&>(a));
  }
}

Value Value::From(Item&& item) {
  Map m;  // the names copied (short ones without allocating), the values moved
  for (auto& [name, value] : item) m.emplace_hint(m.end(), name, From(std::move(value)));
  return Value(std::move(m));
}

// Builds a Value from an encoded item's walk: containers on a stack, each
// value put into the one on top (a list's elements and map nodes stay where
// they are while their children fill).
class ValueBuilder final : public EncodedItemVisitor {
 public:
  Value& root() { return root_; }
  void BeginMap(bool top_level) override { Push(top_level ? &(root_ = Value(Map{})) : Put(Value(Map{}))); }
  void Name(std::string_view name) override { name_.assign(name.data(), name.size()); }
  void EndMap(bool) override { --depth_; }
  void BeginList() override { Push(Put(Value(List{}))); }
  void EndList() override { --depth_; }
  void Scalar(AttrType type, std::string_view bytes) override {
    switch (type) {
      case AttrType::kS:
        Put(Value(std::string(bytes)));
        break;
      case AttrType::kN:
        Put(Value(Number(std::string(bytes), 0)));  // stored normalised
        break;
      default:
        Put(Value(Bytes{std::string(bytes)}));
        break;
    }
  }
  void Boolean(bool b) override { Put(Value(b)); }
  void Null() override { Put(Value(nullptr)); }
  void BeginSet(AttrType type) override {
    Value v;
    v.kind_ = SetKind(type);
    v.v_.emplace<std::vector<std::string>>();
    set_ = &std::get<std::vector<std::string>>(Put(std::move(v))->v_);
  }
  void SetElement(std::string_view bytes) override { set_->emplace_back(bytes); }
  void EndSet() override { set_ = nullptr; }

 private:
  void Push(Value* container) { stack_[depth_++] = container; }
  Value* Put(Value v) {
    Value* top = stack_[depth_ - 1];
    if (top->kind_ == Value::Kind::kList) {
      List& l = std::get<List>(top->v_);
      l.push_back(std::move(v));
      return &l.back();
    }
    Map& m = std::get<Map>(top->v_);
    return &m.emplace_hint(m.end(), name_, std::move(v))->second;
  }
  // The codec walks at most kMaxDecodeDepth levels of containers, the item's
  // map above them.
  static constexpr size_t kMaxDepth = kMaxDecodeDepth + 2;
  Value root_;
  Value* stack_[kMaxDepth];
  size_t depth_ = 0;
  std::string name_;
  std::vector<std::string>* set_ = nullptr;
};

StatusOr<Value> Value::From(const ItemView& item) {
  ValueBuilder b;
  if (!VisitEncodedItem(item.encoded(), &b)) return InternalError("a stored item's bytes are malformed");
  return std::move(b.root());
}

StatusOr<AttributeValue> Value::ToAttributeValue() const {
  switch (kind_) {
    case Kind::kAbsent:
      return ValidationError("an absent value has no attribute value (it is left out of its map)");
    case Kind::kNull:
      return AttributeValue::Null();
    case Kind::kBool:
      return AttributeValue::Bool(std::get<bool>(v_));
    case Kind::kNumber:
      if (bad_number_) {
        return ValidationError("The parameter cannot be converted to a numeric value: NaN or Infinity");
      }
      return AttributeValue::N(std::get<Number>(v_).text());
    case Kind::kString:
      return AttributeValue::S(std::get<std::string>(v_));
    case Kind::kBytes:
      return AttributeValue::B(std::get<std::string>(v_));
    case Kind::kList: {
      std::vector<AttributeValue> out;
      out.reserve(list().size());
      for (const Value& e : list()) {
        if (e.is_absent()) continue;  // as DocumentClient's removeUndefinedValues
        DR_ASSIGN_OR_RETURN(AttributeValue a, e.ToAttributeValue());
        out.push_back(std::move(a));
      }
      return AttributeValue::L(std::move(out));
    }
    case Kind::kMap: {
      Item out;
      for (const auto& [name, e] : map()) {
        if (e.is_absent()) continue;
        DR_ASSIGN_OR_RETURN(AttributeValue a, e.ToAttributeValue());
        out.emplace_hint(out.end(), name, std::move(a));
      }
      return AttributeValue::M(std::move(out));
    }
    case Kind::kStringSet:
      return AttributeValue::SS(set());
    case Kind::kNumberSet:
      return AttributeValue::NS(set());
    case Kind::kBytesSet:
      return AttributeValue::BS(set());
  }
  return InternalError("unknown value kind");
}

StatusOr<Item> Value::ToRequestItem() const {
  if (kind_ != Kind::kMap) return Wrong("map (an item)", kind_);
  Item out;
  for (const auto& [name, e] : std::get<Map>(v_)) {
    if (e.is_absent()) continue;
    DR_ASSIGN_OR_RETURN(AttributeValue a, e.ToAttributeValue());
    out.emplace_hint(out.end(), name, std::move(a));
  }
  return out;
}

StatusOr<Item> Value::ToItem() const {
  if (kind_ != Kind::kMap) return Wrong("map (an item)", kind_);
  DR_ASSIGN_OR_RETURN(AttributeValue m, ToAttributeValue());
  Item item = std::move(m.mutable_map());
  // DynamoDB's own checks and messages: empty or repeated set elements,
  // numbers out of range, nesting.
  DR_RETURN_IF_ERROR(NormalizeAndValidateItem(&item));
  return item;
}

StatusOr<bool> Value::AsBool() const {
  if (kind_ != Kind::kBool) return Wrong("boolean", kind_);
  return std::get<bool>(v_);
}

StatusOr<std::string> Value::AsString() const {
  if (kind_ != Kind::kString) return Wrong("string", kind_);
  return std::get<std::string>(v_);
}

StatusOr<Bytes> Value::AsBytes() const {
  if (kind_ != Kind::kBytes) return Wrong("bytes value", kind_);
  return Bytes{std::get<std::string>(v_)};
}

StatusOr<Number> Value::AsNumber() const {
  if (kind_ != Kind::kNumber) return Wrong("number", kind_);
  if (bad_number_) return ValidationError("The parameter cannot be converted to a numeric value: NaN or Infinity");
  return std::get<Number>(v_);
}

StatusOr<int64_t> Value::AsInt() const {
  DR_ASSIGN_OR_RETURN(Number n, AsNumber());
  return n.ToInt64();
}

StatusOr<double> Value::AsDouble() const {
  DR_ASSIGN_OR_RETURN(Number n, AsNumber());
  return n.ToDouble();
}

StatusOr<std::chrono::system_clock::time_point> Value::AsTime() const {
  using std::chrono::milliseconds;
  // system_clock counts nanoseconds in 64 bits: about 1678 to 2261.
  constexpr int64_t kMaxMs = std::numeric_limits<int64_t>::max() / 1000000;
  auto in_range = [&](double ms, const std::string& shown) -> StatusOr<std::chrono::system_clock::time_point> {
    if (!(std::abs(ms) < static_cast<double>(kMaxMs))) {
      return ValidationError("the time " + shown + " is outside what std::chrono::system_clock holds (1678 to 2261)");
    }
    return std::chrono::system_clock::time_point(milliseconds(static_cast<int64_t>(std::llround(ms))));
  };
  if (kind_ == Kind::kString) {
    const std::string& text = std::get<std::string>(v_);
    auto ms = ParseIso8601Millis(text);
    if (!ms) return ValidationError("'" + text + "' is not an ISO-8601 UTC time");
    return in_range(static_cast<double>(*ms), text);
  }
  DR_ASSIGN_OR_RETURN(Number n, AsNumber());
  return in_range(n.ToDoubleApprox() * 1000, n.text());
}

const List& Value::list() const {
  static const List kNone;
  return kind_ == Kind::kList ? std::get<List>(v_) : kNone;
}

const Map& Value::map() const {
  static const Map kNone;
  return kind_ == Kind::kMap ? std::get<Map>(v_) : kNone;
}

List& Value::list() {
  if (kind_ != Kind::kList) {
    kind_ = Kind::kList;
    bad_number_ = false;
    v_.emplace<List>();
  }
  return std::get<List>(v_);
}

Map& Value::map() {
  if (kind_ != Kind::kMap) {
    kind_ = Kind::kMap;
    bad_number_ = false;
    v_.emplace<Map>();
  }
  return std::get<Map>(v_);
}

const std::vector<std::string>& Value::set() const {
  static const std::vector<std::string> kNone;
  const bool is_set = kind_ == Kind::kStringSet || kind_ == Kind::kNumberSet || kind_ == Kind::kBytesSet;
  return is_set ? std::get<std::vector<std::string>>(v_) : kNone;
}

const Value& Value::operator[](std::string_view name) const {
  static const Value kAbsent(std::nullopt);
  if (kind_ != Kind::kMap) return kAbsent;
  const Map& m = std::get<Map>(v_);
  auto it = m.find(name);
  return it == m.end() ? kAbsent : it->second;
}

bool operator==(const Value& a, const Value& b) {
  if (a.kind_ != b.kind_) return false;
  switch (a.kind_) {
    case Value::Kind::kAbsent:
    case Value::Kind::kNull:
      return true;
    case Value::Kind::kBool:
      return std::get<bool>(a.v_) == std::get<bool>(b.v_);
    case Value::Kind::kNumber:
      return a.bad_number_ == b.bad_number_ && (a.bad_number_ || std::get<Number>(a.v_) == std::get<Number>(b.v_));
    case Value::Kind::kString:
    case Value::Kind::kBytes:
      return std::get<std::string>(a.v_) == std::get<std::string>(b.v_);
    case Value::Kind::kList:
      return a.list() == b.list();
    case Value::Kind::kMap:
      return a.map() == b.map();
    case Value::Kind::kStringSet:
    case Value::Kind::kNumberSet:
    case Value::Kind::kBytesSet: {
      // Sets: equal as sets (DynamoDB keeps no order).
      std::vector<std::string> x = a.set(), y = b.set();
      std::sort(x.begin(), x.end());
      std::sort(y.begin(), y.end());
      return x == y;
    }
  }
  return false;
}

std::string_view KindName(Value::Kind kind) {
  switch (kind) {
    case Value::Kind::kAbsent: return "absent value";
    case Value::Kind::kNull: return "null";
    case Value::Kind::kBool: return "boolean";
    case Value::Kind::kNumber: return "number";
    case Value::Kind::kString: return "string";
    case Value::Kind::kBytes: return "bytes value";
    case Value::Kind::kList: return "list";
    case Value::Kind::kMap: return "map";
    case Value::Kind::kStringSet: return "string set";
    case Value::Kind::kNumberSet: return "number set";
    case Value::Kind::kBytesSet: return "bytes set";
  }
  return "value";
}

}  // namespace dynarock::document
