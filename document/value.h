// File: document/value.h
//
// The document API's values (issue 22, point 1): C++ values <-> DynamoDB
// attribute values, the way lib-dynamodb's DocumentClient, Go's attributevalue
// and boto3's resource layer give them, for code that works on documents
// rather than on wire requests.
//
//   document::Value todo = document::Map{
//       {"id", "t-1"}, {"done", false}, {"due", document::Time(deadline)},
//       {"tags", document::Value::StringSet({"home", "urgent"})},
//       {"estimate", 2.5}, {"subtasks", document::List{"buy", "cook"}}};
//   Item item = todo.ToItem().value();          // for DB::PutItem
//   document::Value back = document::Value::From(item);
//   int64_t n = back["count"].AsInt().value();  // refused if not an integer
//
// Numbers are exact decimals (document::Number), DynamoDB's N: up to 38
// significant digits, never an exponent in their text. A C++ integer always
// fits; a double is written as the shortest text that reads back as the same
// double; reading one back as a double or an integer is refused (with a
// ValidationException saying why) when it would lose anything, so precision
// is never lost silently. Sets are explicit (Value::StringSet, NumberSet,
// BytesSet): a List never becomes a set. An absent attribute is a Value of
// kind kAbsent (std::nullopt of an optional field), left out of items. Time
// points are strings (ISO-8601, UTC, milliseconds) or numbers (epoch seconds),
// as the caller chooses per field.

#ifndef DYNAROCK_DOCUMENT_VALUE_H_
#define DYNAROCK_DOCUMENT_VALUE_H_

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "dynarock/attribute_value.h"
#include "dynarock/item_view.h"
#include "dynarock/status.h"

namespace dynarock::document {

// An exact decimal, as DynamoDB's N holds it (its normalised text).
class Number {
 public:
  Number() : text_("0") {}
  // Any integer: exact.
  template <typename T>
    requires(std::is_integral_v<T> && !std::is_same_v<T, bool>)
  Number(T v) : text_(std::to_string(v)) {}  // NOLINT: implicit, as a number is
  // The shortest decimal that reads back as `v`; NaN and infinities are refused.
  static StatusOr<Number> FromDouble(double v);
  // DynamoDB's number text ("1.50", "-3E+2"): normalised, with DynamoDB's
  // errors for what it refuses (more than 38 digits, out of range, not a number).
  static StatusOr<Number> Parse(std::string_view text);

  const std::string& text() const { return text_; }
  bool is_integer() const { return text_.find('.') == std::string::npos; }
  // Refused when the number has a fraction or does not fit.
  StatusOr<int64_t> ToInt64() const;
  StatusOr<uint64_t> ToUint64() const;
  // Refused when the nearest double is not this number (it would read back
  // as another text): 0.1 converts, 0.10000000000000000001 does not.
  StatusOr<double> ToDouble() const;
  // The nearest double, whatever is lost.
  double ToDoubleApprox() const;

  friend bool operator==(const Number& a, const Number& b) { return a.text_ == b.text_; }
  // Numeric order.
  friend bool operator<(const Number& a, const Number& b);

 private:
  friend class Value;
  friend class ValueBuilder;
  explicit Number(std::string normalised, int) : text_(std::move(normalised)) {}
  std::string text_;
};

// Bytes (DynamoDB's B), apart from strings.
struct Bytes {
  std::string data;
  friend bool operator==(const Bytes& a, const Bytes& b) { return a.data == b.data; }
};

// A time point, written as ISO-8601 text ("2026-11-27T09:00:00.000Z") or as
// epoch seconds (a number, with milliseconds as a fraction when there are any).
enum class TimeFormat { kIso8601, kEpochSeconds };
struct Time {
  std::chrono::system_clock::time_point at;
  TimeFormat format = TimeFormat::kIso8601;
};

class Value;
using List = std::vector<Value>;
using Map = std::map<std::string, Value, std::less<>>;

class Value {
 public:
  enum class Kind { kAbsent, kNull, kBool, kNumber, kString, kBytes, kList, kMap,
                    kStringSet, kNumberSet, kBytesSet };

  Value() : kind_(Kind::kNull) {}
  Value(std::nullptr_t) : kind_(Kind::kNull) {}                                 // NOLINT
  Value(std::nullopt_t) : kind_(Kind::kAbsent) {}                               // NOLINT
  Value(bool b) : kind_(Kind::kBool), v_(std::in_place_type<bool>, b) {}        // NOLINT
  template <typename T>
    requires(std::is_integral_v<T> && !std::is_same_v<T, bool>)
  Value(T v) : kind_(Kind::kNumber), v_(std::in_place_type<Number>, v) {}      // NOLINT
  // A double: see Number::FromDouble (NaN and infinities make ToItem refuse).
  Value(double v);                                                              // NOLINT
  Value(Number n) : kind_(Kind::kNumber), v_(std::move(n)) {}                   // NOLINT
  Value(std::string s) : kind_(Kind::kString), v_(std::move(s)) {}             // NOLINT
  Value(std::string_view s) : kind_(Kind::kString), v_(std::in_place_type<std::string>, s) {}  // NOLINT
  Value(const char* s) : kind_(Kind::kString), v_(std::in_place_type<std::string>, s) {}  // NOLINT
  Value(Bytes b) : kind_(Kind::kBytes), v_(std::move(b.data)) {}               // NOLINT
  Value(List l) : kind_(Kind::kList), v_(std::move(l)) {}                       // NOLINT
  Value(Map m) : kind_(Kind::kMap), v_(std::move(m)) {}                         // NOLINT
  Value(Time t);                                                                // NOLINT
  template <typename T>
  Value(const std::optional<T>& o) : Value(o ? Value(*o) : Value(std::nullopt)) {}  // NOLINT

  // Sets, explicitly (DynamoDB keeps them apart from lists): elements unique
  // and non-empty, or ToItem refuses.
  static Value StringSet(std::vector<std::string> elements);
  static Value NumberSet(std::vector<Number> elements);
  static Value BytesSet(std::vector<Bytes> elements);

  // From DynamoDB's attribute values (never fails: every value has a form here).
  static Value From(const AttributeValue& v);
  static Value From(const Item& item);  // a kMap
  // The same, moving the strings out (for a response about to be dropped).
  static Value From(AttributeValue&& v);
  static Value From(Item&& item);
  // From an item's stored bytes (a page read with `encoded_items`), with no
  // Item built on the way; an internal error if the bytes are malformed.
  static StatusOr<Value> From(const ItemView& item);
  // To them: refused (ValidationException naming the path) for what DynamoDB
  // refuses: a NaN, an empty or repeated set element, a non-map as an item.
  StatusOr<AttributeValue> ToAttributeValue() const;
  StatusOr<Item> ToItem() const;
  // ToItem without DynamoDB's item checks, for a request whose receiver makes
  // them (a DB, any endpoint) with the same messages: a NaN is still refused.
  StatusOr<Item> ToRequestItem() const;

  Kind kind() const { return kind_; }
  bool is_absent() const { return kind_ == Kind::kAbsent; }
  bool is_null() const { return kind_ == Kind::kNull; }

  // Typed reads: the value, or a ValidationException naming the kind found.
  StatusOr<bool> AsBool() const;
  StatusOr<std::string> AsString() const;
  StatusOr<Bytes> AsBytes() const;
  StatusOr<Number> AsNumber() const;
  StatusOr<int64_t> AsInt() const;
  StatusOr<double> AsDouble() const;
  // A time point from either form (ISO-8601 text, or epoch seconds).
  StatusOr<std::chrono::system_clock::time_point> AsTime() const;
  // A list's or map's elements (none for other kinds). The non-const forms
  // first make a value of another kind an empty list or map.
  const List& list() const;
  const Map& map() const;
  List& list();
  Map& map();
  // Set elements: strings (SS), numbers' texts (NS) or bytes (BS).
  const std::vector<std::string>& set() const;

  // A map's member (an absent Value when there is none, or not a map).
  const Value& operator[](std::string_view name) const;

  friend bool operator==(const Value& a, const Value& b);

 private:
  friend class ValueBuilder;
  Kind kind_;
  bool bad_number_ = false;  // a NaN or infinity given as a double
  // One of them, as the kind says: a Value is small (a map of many is cheap).
  // S and B hold a string; SS, NS (texts) and BS a vector of strings.
  std::variant<std::monostate, bool, Number, std::string, List, Map, std::vector<std::string>> v_;
};

// The kind's name for messages ("number", "string set", ...).
std::string_view KindName(Value::Kind kind);

}  // namespace dynarock::document

#endif  // DYNAROCK_DOCUMENT_VALUE_H_
