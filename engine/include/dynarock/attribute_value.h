// File: dynarock/attribute_value.h
//
// DynamoDB's ten attribute types and the Item, a map from attribute name to value.
//
// Invariants kept by the factories (the codecs and the engine rely on them):
//   - N holds a number already normalised by dynarock::NormalizeNumber ("1.5", "-3",
//     "100", "0.001", "1E+126" style never appears: always plain decimal digits).
//     Two equal numbers therefore have equal text.
//   - SS, NS and BS hold their elements sorted bytewise, so two equal sets have
//     equal vectors. The factories sort but do not de-duplicate: the engine's
//     validation (engine/item_validation.h) rejects duplicates and empty sets with
//     DynamoDB's messages, and code that builds sets itself (ADD, DELETE) de-duplicates.
//
//   Item item;
//   item["pk"] = AttributeValue::S("USER#Frodo");
//   item["age"] = AttributeValue::N("51");

#ifndef DYNAROCK_ATTRIBUTE_VALUE_H_
#define DYNAROCK_ATTRIBUTE_VALUE_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace dynarock {

// Persisted in the item codec: never reorder or renumber.
enum class AttrType : uint8_t {
  kS = 1,
  kN = 2,
  kB = 3,
  kBool = 4,
  kNull = 5,
  kL = 6,
  kM = 7,
  kSS = 8,
  kNS = 9,
  kBS = 10,
};

// "S", "N", "B", "BOOL", "NULL", "L", "M", "SS", "NS", "BS".
std::string_view AttrTypeName(AttrType type);
// Inverse of AttrTypeName; false when `name` is not one of the ten.
bool ParseAttrTypeName(std::string_view name, AttrType* type);

class AttributeValue;
using Item = std::map<std::string, AttributeValue, std::less<>>;

class AttributeValue {
 public:
  AttributeValue() : type_(AttrType::kNull), v_(true) {}

  static AttributeValue S(std::string s);
  // `normalized` must come from NormalizeNumber (engine/number.h).
  static AttributeValue N(std::string normalized);
  static AttributeValue B(std::string bytes);
  static AttributeValue Bool(bool b);
  static AttributeValue Null();
  static AttributeValue L(std::vector<AttributeValue> list);
  static AttributeValue M(Item map);
  // The set factories sort their input (bytewise).
  static AttributeValue SS(std::vector<std::string> set);
  static AttributeValue NS(std::vector<std::string> normalized_numbers);
  static AttributeValue BS(std::vector<std::string> set);

  AttrType type() const { return type_; }
  bool is(AttrType t) const { return type_ == t; }
  bool is_set() const {
    return type_ == AttrType::kSS || type_ == AttrType::kNS || type_ == AttrType::kBS;
  }

  // S, N (normalised text) and B (raw bytes).
  const std::string& scalar() const { return std::get<std::string>(v_); }
  // To move a value out of an AttributeValue about to be dropped (a set's
  // elements must stay sorted and unique).
  std::string& mutable_scalar() { return std::get<std::string>(v_); }
  // Makes this an S, N or B holding `bytes`, built where it is (a decoder
  // filling a value without a temporary; a string it holds keeps its
  // buffer). For N, `bytes` must come from NormalizeNumber, as for N().
  void AssignScalar(AttrType type, std::string_view bytes);
  std::vector<std::string>& mutable_set() { return std::get<std::vector<std::string>>(v_); }
  bool boolean() const { return std::get<bool>(v_); }
  const std::vector<AttributeValue>& list() const {
    return std::get<std::vector<AttributeValue>>(v_);
  }
  std::vector<AttributeValue>& mutable_list() {
    return std::get<std::vector<AttributeValue>>(v_);
  }
  const Item& map() const { return std::get<Item>(v_); }
  Item& mutable_map() { return std::get<Item>(v_); }
  // SS, NS and BS elements, sorted bytewise.
  const std::vector<std::string>& set() const { return std::get<std::vector<std::string>>(v_); }

  // DynamoDB equality: same type and same value (sets compare as sets).
  friend bool operator==(const AttributeValue& a, const AttributeValue& b) {
    return a.type_ == b.type_ && a.v_ == b.v_;
  }
  friend bool operator!=(const AttributeValue& a, const AttributeValue& b) { return !(a == b); }

  // A short human-readable rendering in DynamoDB JSON, for tests and logs.
  std::string DebugString() const;

 private:
  using Storage = std::variant<bool, std::string, std::vector<AttributeValue>, Item,
                               std::vector<std::string>>;
  AttributeValue(AttrType t, Storage v) : type_(t), v_(std::move(v)) {}

  AttrType type_;
  Storage v_;
};

std::string DebugString(const Item& item);

}  // namespace dynarock

#endif  // DYNAROCK_ATTRIBUTE_VALUE_H_
