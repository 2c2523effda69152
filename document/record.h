// File: document/record.h
//
// Typed records (issue 22, point 4): an app's own structs as items, declared
// with a short field list next to the struct, no code generator. As the Java
// Enhanced Client's annotated classes and Go's attributevalue tags do it:
//
//   struct Address { std::string city; std::optional<std::string> zip; };
//   DYNAROCK_RECORD(Address, DYNAROCK_FIELD(city), DYNAROCK_FIELD(zip));
//
//   struct Todo {
//     std::string user;
//     int64_t due = 0;
//     bool done = false;
//     std::optional<std::string> note;            // absent when nullopt
//     std::vector<std::string> steps;             // L
//     std::set<std::string> tags;                 // SS (left out when empty)
//     std::map<std::string, int> counts;          // M
//     Address address;                            // M, through its own record
//     std::chrono::system_clock::time_point created;
//     int64_t version = 0;
//   };
//   DYNAROCK_RECORD(Todo,
//       DYNAROCK_FIELD(user, document::kPartitionKey),
//       DYNAROCK_FIELD(due, document::kSortKey),
//       DYNAROCK_FIELD(done),
//       DYNAROCK_FIELD(note, document::As("noteText")),   // renamed
//       DYNAROCK_FIELD(steps), DYNAROCK_FIELD(tags), DYNAROCK_FIELD(counts),
//       DYNAROCK_FIELD(address),
//       DYNAROCK_FIELD(created, document::kEpochSeconds),  // N, not ISO-8601 text
//       DYNAROCK_FIELD(version, document::kVersion));      // optimistic locking
//
//   document::Table todos(&client, "todos");
//   Todo t{.user = "ann", .due = 3};
//   todos.Put(t);                                  // t.version is now 1
//   auto got = todos.Get<Todo>(document::Map{{"user", "ann"}, {"due", 3}});
//   got->value().done = true;
//   todos.Update(got->value());                    // refused when another writer won
//   auto mine = todos.Query<Todo>(document::Key("user").Eq("ann"));
//
// DYNAROCK_RECORD goes in the struct's own namespace (it declares a function
// found by argument-dependent lookup). Members may be: bool, any integer or
// enum, float and double, std::string, document::Number / Bytes / Value,
// std::chrono::system_clock::time_point (ISO-8601 text, or epoch seconds with
// kEpochSeconds), std::optional of any of these (absent when empty),
// std::vector (L), std::set of strings, numbers or Bytes (SS, NS, BS: left out
// when empty, as DynamoDB has no empty set), std::map with string keys (M), and
// other records (M). Reading an item back refuses, with a ValidationException
// naming the field, a value of the wrong kind or one that does not fit its
// member (300 into an int8_t, 1.5 into an int); attributes the record does not
// declare are ignored, and a field the item lacks keeps its default.
//
// The version attribute (an integer member, at most one) works as the Java
// Enhanced Client's @DynamoDbVersionAttribute: 0 means never written. Put and
// Update write version + 1 on condition that the stored version is the one
// the record holds (or that there is none, for 0), and fail with
// ConditionalCheckFailedException when another writer got there first; on
// success the record's member holds the new version. Delete of a record
// checks the version the same way.

#ifndef DYNAROCK_DOCUMENT_RECORD_H_
#define DYNAROCK_DOCUMENT_RECORD_H_

#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "document/value.h"

namespace dynarock::document {

// ------------------------------------------------------------ declaring

enum class FieldRole : uint8_t { kAttribute, kPartitionKey, kSortKey, kVersion };

// Field options, given after the member in DYNAROCK_FIELD.
struct As {
  std::string_view name;  // the attribute's name, when not the member's
};
struct PartitionKeyOption {};
struct SortKeyOption {};
struct VersionOption {};
struct EpochSecondsOption {};
inline constexpr PartitionKeyOption kPartitionKey{};
inline constexpr SortKeyOption kSortKey{};
inline constexpr VersionOption kVersion{};
inline constexpr EpochSecondsOption kEpochSeconds{};

template <typename T, typename M>
struct Field {
  std::string_view name;
  M T::*member;
  FieldRole role = FieldRole::kAttribute;
  TimeFormat time = TimeFormat::kIso8601;
};

namespace record_internal {
template <typename T, typename M>
constexpr void Apply(Field<T, M>& f, As o) { f.name = o.name; }
template <typename T, typename M>
constexpr void Apply(Field<T, M>& f, PartitionKeyOption) { f.role = FieldRole::kPartitionKey; }
template <typename T, typename M>
constexpr void Apply(Field<T, M>& f, SortKeyOption) { f.role = FieldRole::kSortKey; }
template <typename T, typename M>
constexpr void Apply(Field<T, M>& f, VersionOption) {
  static_assert(std::is_integral_v<M> && !std::is_same_v<M, bool>,
                "a version attribute (document::kVersion) must be an integer member");
  f.role = FieldRole::kVersion;
}
template <typename T, typename M>
constexpr void Apply(Field<T, M>& f, EpochSecondsOption) { f.time = TimeFormat::kEpochSeconds; }
}  // namespace record_internal

template <typename T, typename M, typename... Options>
constexpr Field<T, M> MakeField(std::string_view member_name, M T::*member, Options... options) {
  Field<T, M> f{member_name, member};
  (record_internal::Apply(f, options), ...);
  return f;
}

// DYNAROCK_RECORD(Type, DYNAROCK_FIELD(member[, options...]), ...), in Type's namespace.
#define DYNAROCK_RECORD(Type, ...)                                                 \
  [[maybe_unused]] inline constexpr auto DynarockRecordFields(const Type*) {      \
    using DynarockRecordType = Type;                                               \
    return std::make_tuple(__VA_ARGS__);                                           \
  }                                                                                \
  [[maybe_unused]] inline constexpr std::string_view DynarockRecordName(const Type*) { \
    return #Type;                                                                  \
  }                                                                                \
  static_assert(true, "")
#define DYNAROCK_FIELD(member, ...) \
  ::dynarock::document::MakeField(#member, &DynarockRecordType::member __VA_OPT__(, ) __VA_ARGS__)

// A struct declared with DYNAROCK_RECORD.
template <typename T>
concept Record = requires(const T* p) { DynarockRecordFields(p); };

template <Record T>
StatusOr<Value> ToValue(const T& record);
template <Record T>
StatusOr<T> FromValue(const Value& value);

// ------------------------------------------------------------ conversions

namespace record_internal {

template <typename> inline constexpr bool kFalse = false;
template <typename M> struct IsOptional : std::false_type {};
template <typename E> struct IsOptional<std::optional<E>> : std::true_type {};
template <typename M> struct IsVector : std::false_type {};
template <typename E, typename A> struct IsVector<std::vector<E, A>> : std::true_type {};
template <typename M> struct IsSet : std::false_type {};
template <typename E, typename C, typename A> struct IsSet<std::set<E, C, A>> : std::true_type {};
template <typename M> struct IsStringMap : std::false_type {};
template <typename E, typename C, typename A>
struct IsStringMap<std::map<std::string, E, C, A>> : std::true_type {};
template <typename E, typename H, typename Q, typename A>
struct IsStringMap<std::unordered_map<std::string, E, H, Q, A>> : std::true_type {};

template <typename M>
constexpr bool kNumeric = (std::is_arithmetic_v<M> && !std::is_same_v<M, bool>) ||
                          std::is_same_v<M, Number>;

inline Status AtPath(const std::string& path, const Status& s) {
  return Status(s.type(), path + ": " + s.message());
}
Status WrongKind(const std::string& path, std::string_view wanted, const Value& found);
Status DoesNotFit(const std::string& path, const Number& n, std::string_view member);

template <Record T>
Status DecodeRecord(const Value& v, T* out, const std::string& prefix);

template <typename M>
Value Encode(const M& m, TimeFormat tf) {
  if constexpr (std::is_same_v<M, bool> || std::is_same_v<M, std::string> || std::is_same_v<M, Number> ||
                std::is_same_v<M, Bytes> || std::is_same_v<M, Value>) {
    return Value(m);
  } else if constexpr (std::is_enum_v<M>) {
    return Value(static_cast<std::underlying_type_t<M>>(m));
  } else if constexpr (std::is_integral_v<M>) {
    return Value(m);
  } else if constexpr (std::is_floating_point_v<M>) {
    return Value(static_cast<double>(m));
  } else if constexpr (std::is_same_v<M, std::chrono::system_clock::time_point>) {
    return Value(Time{m, tf});
  } else if constexpr (IsOptional<M>::value) {
    return m ? Encode(*m, tf) : Value(std::nullopt);
  } else if constexpr (IsVector<M>::value) {
    List l;
    l.reserve(m.size());
    for (const auto& e : m) l.push_back(Encode<typename M::value_type>(e, tf));
    return Value(std::move(l));
  } else if constexpr (IsSet<M>::value) {
    using E = typename M::value_type;
    if (m.empty()) return Value(std::nullopt);  // DynamoDB has no empty set
    if constexpr (std::is_same_v<E, std::string>) {
      return Value::StringSet(std::vector<std::string>(m.begin(), m.end()));
    } else if constexpr (std::is_same_v<E, Bytes>) {
      return Value::BytesSet(std::vector<Bytes>(m.begin(), m.end()));
    } else if constexpr (std::is_same_v<E, Number>) {
      return Value::NumberSet(std::vector<Number>(m.begin(), m.end()));
    } else if constexpr (std::is_floating_point_v<E>) {
      std::vector<Number> n;
      for (E e : m) {
        auto one = Number::FromDouble(static_cast<double>(e));
        if (!one.ok()) return Value(static_cast<double>(e));  // a NaN: refused when written
        n.push_back(std::move(*one));
      }
      return Value::NumberSet(std::move(n));
    } else if constexpr (std::is_integral_v<E> && !std::is_same_v<E, bool>) {
      return Value::NumberSet(std::vector<Number>(m.begin(), m.end()));
    } else {
      static_assert(kFalse<M>, "a record's set holds strings, numbers or document::Bytes");
    }
  } else if constexpr (IsStringMap<M>::value) {
    Map out;
    for (const auto& [k, e] : m) out.emplace(k, Encode<typename M::mapped_type>(e, tf));
    return Value(std::move(out));
  } else if constexpr (Record<M>) {
    auto v = ToValue(m);
    return v.ok() ? std::move(*v) : Value(std::nullopt);  // ToValue of a record never fails
  } else {
    static_assert(kFalse<M>, "this member type has no DynamoDB form (see document/record.h)");
  }
}

template <typename M>
Status DecodeInteger(const Value& v, M* out, const std::string& path) {
  if (v.kind() != Value::Kind::kNumber) return WrongKind(path, "number", v);
  DR_ASSIGN_OR_RETURN(Number n, v.AsNumber());
  if constexpr (std::is_unsigned_v<M>) {
    auto u = n.ToUint64();
    if (!u.ok() || *u > std::numeric_limits<M>::max()) return DoesNotFit(path, n, "unsigned integer");
    *out = static_cast<M>(*u);
  } else {
    auto i = n.ToInt64();
    if (!i.ok() || *i < std::numeric_limits<M>::min() || *i > std::numeric_limits<M>::max()) {
      return DoesNotFit(path, n, "integer");
    }
    *out = static_cast<M>(*i);
  }
  return Status();
}

template <typename M>
Status Decode(const Value& v, M* out, const std::string& path) {
  if constexpr (IsOptional<M>::value) {
    if (v.is_absent() || v.is_null()) {
      out->reset();
      return Status();
    }
    typename M::value_type e{};
    DR_RETURN_IF_ERROR(Decode(v, &e, path));
    *out = std::move(e);
    return Status();
  } else {
    if (v.is_absent() || v.is_null()) return Status();  // the member keeps its default
    if constexpr (std::is_same_v<M, Value>) {
      *out = v;
    } else if constexpr (std::is_same_v<M, bool>) {
      if (v.kind() != Value::Kind::kBool) return WrongKind(path, "boolean", v);
      *out = v.AsBool().value();
    } else if constexpr (std::is_same_v<M, std::string>) {
      if (v.kind() != Value::Kind::kString) return WrongKind(path, "string", v);
      *out = v.AsString().value();
    } else if constexpr (std::is_same_v<M, Bytes>) {
      if (v.kind() != Value::Kind::kBytes) return WrongKind(path, "bytes", v);
      *out = v.AsBytes().value();
    } else if constexpr (std::is_same_v<M, Number>) {
      if (v.kind() != Value::Kind::kNumber) return WrongKind(path, "number", v);
      auto n = v.AsNumber();  // refused for a NaN given as a double
      if (!n.ok()) return AtPath(path, n.status());
      *out = std::move(*n);
    } else if constexpr (std::is_enum_v<M>) {
      std::underlying_type_t<M> u{};
      DR_RETURN_IF_ERROR(DecodeInteger(v, &u, path));
      *out = static_cast<M>(u);
    } else if constexpr (std::is_integral_v<M>) {
      return DecodeInteger(v, out, path);
    } else if constexpr (std::is_floating_point_v<M>) {
      if (v.kind() != Value::Kind::kNumber) return WrongKind(path, "number", v);
      auto n = v.AsNumber();
      if (!n.ok()) return AtPath(path, n.status());
      const double d = n->ToDoubleApprox();
      if (!(std::abs(d) <= static_cast<double>(std::numeric_limits<M>::max()))) {
        return DoesNotFit(path, *n, "floating-point");
      }
      *out = static_cast<M>(d);
    } else if constexpr (std::is_same_v<M, std::chrono::system_clock::time_point>) {
      auto t = v.AsTime();
      if (!t.ok()) return AtPath(path, t.status());
      *out = *t;
    } else if constexpr (IsVector<M>::value || IsSet<M>::value) {
      using E = typename M::value_type;
      M result;
      auto add = [&](E e) {
        if constexpr (IsVector<M>::value) {
          result.push_back(std::move(e));
        } else {
          result.insert(std::move(e));
        }
      };
      const Value::Kind k = v.kind();
      constexpr std::string_view kSetName = std::is_same_v<E, std::string> ? "string set"
                                            : std::is_same_v<E, Bytes>     ? "bytes set"
                                            : kNumeric<E>                  ? "number set"
                                                                           : "list";
      if (k == Value::Kind::kList && IsSet<M>::value) {
        return WrongKind(path, kSetName, v);  // sets are explicit: a list may repeat
      } else if (k == Value::Kind::kList) {
        for (size_t i = 0; i < v.list().size(); ++i) {
          E e{};
          DR_RETURN_IF_ERROR(Decode(v.list()[i], &e, path + "[" + std::to_string(i) + "]"));
          add(std::move(e));
        }
      } else if (k == Value::Kind::kStringSet || k == Value::Kind::kNumberSet || k == Value::Kind::kBytesSet) {
        const bool fits = (k == Value::Kind::kStringSet && std::is_same_v<E, std::string>) ||
                          (k == Value::Kind::kBytesSet && std::is_same_v<E, Bytes>) ||
                          (k == Value::Kind::kNumberSet && kNumeric<E>);
        if (!fits) return WrongKind(path, IsSet<M>::value ? kSetName : "list", v);
        for (const std::string& s : v.set()) {
          E e{};
          if constexpr (std::is_same_v<E, std::string>) {
            e = s;
          } else if constexpr (std::is_same_v<E, Bytes>) {
            e = Bytes{s};
          } else if constexpr (kNumeric<E>) {
            auto n = Number::Parse(s);
            if (!n.ok()) return AtPath(path, n.status());
            DR_RETURN_IF_ERROR(Decode(Value(*n), &e, path));
          }
          add(std::move(e));
        }
      } else {
        return WrongKind(path, IsSet<M>::value ? kSetName : "list", v);
      }
      *out = std::move(result);
    } else if constexpr (IsStringMap<M>::value) {
      if (v.kind() != Value::Kind::kMap) return WrongKind(path, "map", v);
      M result;
      for (const auto& [k, e] : v.map()) {
        typename M::mapped_type d{};
        DR_RETURN_IF_ERROR(Decode(e, &d, path + "." + k));
        result.emplace(k, std::move(d));
      }
      *out = std::move(result);
    } else if constexpr (Record<M>) {
      if (v.kind() != Value::Kind::kMap) return WrongKind(path, "map", v);
      return DecodeRecord(v, out, path);
    } else {
      static_assert(kFalse<M>, "this member type has no DynamoDB form (see document/record.h)");
    }
    return Status();
  }
}

template <Record T>
Status DecodeRecord(const Value& v, T* out, const std::string& prefix) {
  Status s;
  std::apply(
      [&](const auto&... f) {
        auto one = [&](const auto& field) {
          if (!s.ok()) return;
          const std::string path = prefix.empty() ? std::string(field.name) : prefix + "." + std::string(field.name);
          s = Decode(v[field.name], &(out->*field.member), path);
        };
        (one(f), ...);
      },
      DynarockRecordFields(static_cast<const T*>(nullptr)));
  return s;
}

// What a record declares about its keys and version.
struct Shape {
  std::string_view partition_key, sort_key, version;
  int partition_keys = 0, sort_keys = 0, versions = 0;
};
template <Record T>
constexpr Shape ShapeOf() {
  Shape s;
  std::apply(
      [&](const auto&... f) {
        auto one = [&](const auto& field) {
          if (field.role == FieldRole::kPartitionKey) s.partition_key = field.name, ++s.partition_keys;
          if (field.role == FieldRole::kSortKey) s.sort_key = field.name, ++s.sort_keys;
          if (field.role == FieldRole::kVersion) s.version = field.name, ++s.versions;
        };
        (one(f), ...);
      },
      DynarockRecordFields(static_cast<const T*>(nullptr)));
  return s;
}
// The shape, checked when compiled: at most one of each role.
template <Record T>
constexpr Shape CheckedShape() {
  constexpr Shape s = ShapeOf<T>();
  static_assert(s.partition_keys <= 1, "a record declares at most one document::kPartitionKey");
  static_assert(s.sort_keys <= 1, "a record declares at most one document::kSortKey");
  static_assert(s.versions <= 1, "a record declares at most one document::kVersion");
  return s;
}

// The attribute names a record declares, in its order.
template <Record T>
std::vector<std::string_view> FieldNames() {
  std::vector<std::string_view> names;
  std::apply([&](const auto&... f) { (names.push_back(f.name), ...); },
             DynarockRecordFields(static_cast<const T*>(nullptr)));
  return names;
}

template <Record T>
std::string_view NameOf() {
  return DynarockRecordName(static_cast<const T*>(nullptr));
}

// The record's version (0 when it declares none), and setting it.
template <Record T>
int64_t VersionOf(const T& r) {
  int64_t v = 0;
  std::apply(
      [&](const auto&... f) {
        auto one = [&](const auto& field) {
          using M = std::remove_cvref_t<decltype(r.*field.member)>;
          if constexpr (std::is_integral_v<M> && !std::is_same_v<M, bool>) {
            if (field.role == FieldRole::kVersion) v = static_cast<int64_t>(r.*field.member);
          }
        };
        (one(f), ...);
      },
      DynarockRecordFields(static_cast<const T*>(nullptr)));
  return v;
}
template <Record T>
void SetVersion(T* r, int64_t version) {
  std::apply(
      [&](const auto&... f) {
        auto one = [&](const auto& field) {
          using M = std::remove_cvref_t<decltype(r->*field.member)>;
          if constexpr (std::is_integral_v<M> && !std::is_same_v<M, bool>) {
            if (field.role == FieldRole::kVersion) r->*field.member = static_cast<M>(version);
          }
        };
        (one(f), ...);
      },
      DynarockRecordFields(static_cast<const T*>(nullptr)));
}

}  // namespace record_internal

// The record as a map (absent members left out), and back. FromValue refuses
// a value that is not a map, or a member of the wrong kind (naming its path).
template <Record T>
StatusOr<Value> ToValue(const T& record) {
  record_internal::CheckedShape<T>();
  Map out;
  std::apply(
      [&](const auto&... f) {
        auto one = [&](const auto& field) {
          using M = std::remove_cvref_t<decltype(record.*field.member)>;
          Value v = record_internal::Encode<M>(record.*field.member, field.time);
          if (!v.is_absent()) out.insert_or_assign(std::string(field.name), std::move(v));
        };
        (one(f), ...);
      },
      DynarockRecordFields(static_cast<const T*>(nullptr)));
  return Value(std::move(out));
}

template <Record T>
StatusOr<T> FromValue(const Value& value) {
  record_internal::CheckedShape<T>();
  if (value.kind() != Value::Kind::kMap) {
    return record_internal::WrongKind(std::string(record_internal::NameOf<T>()), "map", value);
  }
  T out{};
  DR_RETURN_IF_ERROR(record_internal::DecodeRecord(value, &out, ""));
  return out;
}

// The record's key (its partition key and sort key members) as a map, for
// Get, Delete and Update; refused when the record declares no partition key.
template <Record T>
StatusOr<Value> KeyOf(const T& record) {
  constexpr record_internal::Shape shape = record_internal::CheckedShape<T>();
  if (shape.partition_keys == 0) {
    return ValidationError(std::string(record_internal::NameOf<T>()) +
                           " declares no partition key: mark one with DYNAROCK_FIELD(member, "
                           "document::kPartitionKey)");
  }
  DR_ASSIGN_OR_RETURN(Value all, ToValue(record));
  Map key;
  for (std::string_view name : {shape.partition_key, shape.sort_key}) {
    if (name.empty()) continue;
    const Value& v = all[name];
    if (v.is_absent()) {
      return ValidationError(std::string(record_internal::NameOf<T>()) + "'s key attribute '" + std::string(name) +
                             "' is absent");
    }
    key.emplace(std::string(name), v);
  }
  return Value(std::move(key));
}

}  // namespace dynarock::document

#endif  // DYNAROCK_DOCUMENT_RECORD_H_
