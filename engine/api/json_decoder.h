// File: engine/api/json_decoder.h
//
// The machinery of the protocol codec's decoding side (json_decode.cc,
// streams_json.cc): the Decoder that walks a simdjson DOM, collects shape
// violations in DynamoDB's words and stops at the first SerializationException,
// the enum value sets, and DecodeBody. Internal to engine/api.

#ifndef DYNAROCK_API_JSON_DECODER_H_
#define DYNAROCK_API_JSON_DECODER_H_

#include <simdjson.h>

#include <algorithm>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dynarock/requests.h"
#include "dynarock/status.h"
#include "engine/api/base64.h"
#include "engine/item_validation.h"
#include "engine/number.h"
#include "engine/request_checks.h"
#include "engine/table_validation.h"

namespace dynarock::api::json_internal {


namespace dom = simdjson::dom;
using Allowed = std::span<const std::string_view>;

inline constexpr std::string_view kStartOfMap = "Start of structure or map found where not expected";
inline constexpr std::string_view kStartOfList = "Start of list found where not expected";
inline constexpr std::string_view kUnexpectedFieldType = "Unexpected field type";

// Enum value sets, in the order DynamoDB lists them in its messages.
inline constexpr std::string_view kReturnValues[] = {"ALL_NEW", "UPDATED_OLD", "ALL_OLD", "NONE", "UPDATED_NEW"};
inline constexpr std::string_view kReturnConsumedCapacity[] = {"INDEXES", "TOTAL", "NONE"};
inline constexpr std::string_view kReturnItemCollectionMetrics[] = {"SIZE", "NONE"};
inline constexpr std::string_view kReturnValuesOnConditionCheckFailure[] = {"ALL_OLD", "NONE"};
inline constexpr std::string_view kSelect[] = {"SPECIFIC_ATTRIBUTES", "COUNT", "ALL_ATTRIBUTES",
                             "ALL_PROJECTED_ATTRIBUTES"};
inline constexpr std::string_view kConditionalOperator[] = {"AND", "OR"};
inline constexpr std::string_view kComparisonOperator[] = {"IN", "NULL", "BETWEEN", "LT", "NOT_CONTAINS",
                                         "EQ", "GT", "NOT_NULL", "NE", "LE",
                                         "BEGINS_WITH", "GE", "CONTAINS"};
inline constexpr std::string_view kAttributeAction[] = {"ADD", "PUT", "DELETE"};
inline constexpr std::string_view kKeyType[] = {"HASH", "RANGE"};
inline constexpr std::string_view kScalarAttributeType[] = {"B", "N", "S"};
inline constexpr std::string_view kProjectionType[] = {"ALL", "INCLUDE", "KEYS_ONLY"};
inline constexpr std::string_view kBillingMode[] = {"PROVISIONED", "PAY_PER_REQUEST"};
inline constexpr std::string_view kStreamViewType[] = {"NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES", "KEYS_ONLY"};
inline constexpr std::string_view kTableClass[] = {"STANDARD", "STANDARD_INFREQUENT_ACCESS"};

inline std::string MemberName(std::string_view wire) {
  std::string s(wire);
  if (!s.empty() && s[0] >= 'A' && s[0] <= 'Z') s[0] = static_cast<char>(s[0] - 'A' + 'a');
  return s;
}

// What DynamoDB's deserializer calls the JSON token it did not expect.
inline std::string_view TokenName(const dom::element& e) {
  switch (e.type()) {
    case dom::element_type::STRING: return "STRING_VALUE";
    case dom::element_type::BOOL: {
      bool b = false;
      auto error = e.get_bool().get(b);
      return error == simdjson::SUCCESS && b ? "TRUE_VALUE" : "FALSE_VALUE";
    }
    case dom::element_type::DOUBLE: return "DECIMAL_VALUE";  // a fraction or an exponent
    default: return "NUMBER_VALUE";
  }
}

class Decoder {
 public:
  // ------------------------------------------------------------ errors

  void Serialization(std::string_view message) {
    if (failed_) return;
    failed_ = true;
    serialization_message_ = message;
  }
  bool failed() const { return failed_; }
  void Violation(std::string message) {
    if (!failed_) violations_.push_back(std::move(message));
  }
  void AttrError(std::string_view message) {
    if (failed_ || (!attr_error_.empty() && attr_error_rank_ <= attr_rank_)) return;
    attr_error_ = message;
    attr_error_rank_ = attr_rank_;
    ++attr_error_serial_;
  }
  void Missing(std::string_view key) {
    Violation("Value null at '" + PathTo(key) + "' failed to satisfy constraint: Member must not be null");
  }
  // A list (`shown` "[]") or map ("{}") member `key` given empty where its
  // shape wants at least one entry.
  void Empty(std::string_view key, std::string_view shown) {
    Violation("Value '" + std::string(shown) + "' at '" + PathTo(key) +
              "' failed to satisfy constraint: Member must have length greater than or equal to 1");
  }

  // An invalid AttributeValue (the only problem left), for DecodeBody's
  // `attribute_error`; empty when there is none.
  const std::string& attr_error() const { return attr_error_; }
  // The rank of the member being decoded: of the invalid AttributeValues in a
  // request, DynamoDB reports the one in the member it checks first (a lower
  // rank; Query: QueryFilter, then ExclusiveStartKey, then KeyConditions).
  void set_attr_rank(ValueMember member) { attr_rank_ = member; }
  ValueMember attr_error_member() const { return attr_error_rank_; }
  bool structurally_ok() const { return !failed_ && violations_.empty(); }

  // DynamoDB lists (and counts) at most this many constraint violations.
  static constexpr size_t kViolationsListedMax = 10;

  Status Finish() const {
    if (failed_) return Status(ErrorType::kSerialization, serialization_message_);
    if (!violations_.empty()) {
      const size_t n = std::min(violations_.size(), kViolationsListedMax);
      std::string m = std::to_string(n);
      m += n == 1 ? " validation error detected: " : " validation errors detected: ";
      for (size_t i = 0; i < n; ++i) {
        if (i) m += "; ";
        m += violations_[i];
      }
      return ValidationError(std::move(m));
    }
    if (!attr_error_.empty()) return ValidationError(attr_error_);
    return Status();
  }

  // ------------------------------------------------------------ paths

  std::string PathTo(std::string_view key) const {
    if (path_.empty()) return MemberName(key);
    return path_ + "." + MemberName(key);
  }

  // Appends ".<suffix>" (or "<suffix>" at the top) to the path for its lifetime.
  class Scope {
   public:
    Scope(Decoder* d, std::string_view part) : d_(d), len_(d->path_.size()) {
      if (!d_->path_.empty()) d_->path_.push_back('.');
      d_->path_.append(part);
    }
    Scope(Decoder* d, std::string_view key, size_t index) : Scope(d, MemberName(key)) {
      d_->path_ += "." + std::to_string(index + 1) + ".member";
    }
    Scope(Decoder* d, std::string_view key, std::string_view map_key) : Scope(d, MemberName(key)) {
      d_->path_.push_back('.');
      d_->path_.append(map_key);
      d_->path_.append(".member");
    }
    ~Scope() { d_->path_.resize(len_); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    Decoder* d_;
    size_t len_;
  };

  // ------------------------------------------------------------ elements

  void WrongScalar(const dom::element& e, std::string_view target) {
    if (e.is_object()) {
      Serialization(kStartOfMap);
    } else if (e.is_array()) {
      Serialization(kStartOfList);
    } else {
      Serialization(std::string(TokenName(e)) + " cannot be converted to " + std::string(target));
    }
  }

  bool AsString(const dom::element& e, std::string_view* out) {
    if (e.get_string().get(*out) == simdjson::SUCCESS) return true;
    WrongScalar(e, "String");
    return false;
  }
  bool AsBool(const dom::element& e, bool* out) {
    if (e.get_bool().get(*out) == simdjson::SUCCESS) return true;
    WrongScalar(e, "Boolean");
    return false;
  }
  bool AsInt(const dom::element& e, int64_t* out, std::string_view java_type) {
    switch (e.type()) {
      case dom::element_type::INT64:
        return e.get_int64().get(*out) == simdjson::SUCCESS;
      case dom::element_type::UINT64:
      case dom::element_type::DOUBLE:
        Serialization("NUMBER_VALUE cannot be converted to " + std::string(java_type));
        return false;
      default:
        WrongScalar(e, java_type);
        return false;
    }
  }
  // An object standing for a structure or a map.
  bool AsObject(const dom::element& e, dom::object* out) {
    if (e.get_object().get(*out) == simdjson::SUCCESS) return true;
    Serialization(e.is_array() ? kStartOfList : kUnexpectedFieldType);
    return false;
  }
  bool AsArray(const dom::element& e, dom::array* out) {
    if (e.get_array().get(*out) == simdjson::SUCCESS) return true;
    Serialization(e.is_object() ? kStartOfMap : kUnexpectedFieldType);
    return false;
  }

  // ------------------------------------------------------------ members

  // The member `key` of `o`, unless absent or null.
  bool Find(const dom::object& o, std::string_view key, dom::element* out) {
    if (failed_) return false;
    if (o.at_key(key).get(*out) != simdjson::SUCCESS) return false;
    return !out->is_null();
  }

  bool Str(const dom::object& o, std::string_view key, std::string* out) {
    dom::element e;
    std::string_view sv;
    if (!Find(o, key, &e) || !AsString(e, &sv)) return false;
    out->assign(sv);
    return true;
  }
  bool Str(const dom::object& o, std::string_view key, std::optional<std::string>* out) {
    std::string s;
    if (!Str(o, key, &s)) return false;
    *out = std::move(s);
    return true;
  }
  bool ReqStr(const dom::object& o, std::string_view key, std::string* out) {
    if (Str(o, key, out)) return true;
    if (!failed_) Missing(key);
    return false;
  }
  // A request's TableName: required, and its name rules reported together with
  // the request's other constraint violations, as DynamoDB does.
  void TableName(const dom::object& o, std::string* out) {
    if (!ReqStr(o, "TableName", out)) return;
    ConstraintErrors errors;
    errors.CheckTableName(*out, PathTo("TableName"));
    for (const auto& v : errors.violations()) Violation(v);
  }
  // An optional TableName (a List operation's filter), checked as TableName.
  void OptTableName(const dom::object& o, std::optional<std::string>* out) {
    std::string table;
    if (!Str(o, "TableName", &table)) return;
    ConstraintErrors errors;
    errors.CheckTableName(table, PathTo("TableName"));
    for (const auto& v : errors.violations()) Violation(v);
    *out = std::move(table);
  }
  // A name member with the table-name rules (3 to 255 of [a-zA-Z0-9_.-]),
  // such as an IndexName; `required` reports it missing.
  bool Name(const dom::object& o, std::string_view key, std::string* out, bool required) {
    if (!(required ? ReqStr(o, key, out) : Str(o, key, out))) return false;
    ConstraintErrors errors;
    errors.CheckName(*out, PathTo(key));
    for (const auto& v : errors.violations()) Violation(v);
    return true;
  }
  // The TableName of DescribeTable, DeleteTable and DescribeTimeToLive, whose
  // missing or ill-sized name DynamoDB reports in words of its own (captured
  // from DynamoDB in dynalite's tests); a name of the right length with other
  // characters gets the usual pattern constraint.
  void BareTableName(const dom::object& o, std::string* out) {
    if (!Str(o, "TableName", out)) {
      if (!failed_) {
        AttrError("The parameter 'TableName' is required but was not present in the request");
      }
      return;
    }
    if (out->substr(0, 4) != "arn:" && (out->size() < 3 || out->size() > 255)) {
      AttrError("TableName must be at least 3 characters long and at most 255 characters long");
      return;
    }
    TableName(o, out);
  }
  bool Bool(const dom::object& o, std::string_view key, bool* out) {
    dom::element e;
    return Find(o, key, &e) && AsBool(e, out);
  }
  bool Bool(const dom::object& o, std::string_view key, std::optional<bool>* out) {
    bool b = false;
    if (!Bool(o, key, &b)) return false;
    *out = b;
    return true;
  }
  // A number member read as a double (timestamps, capacity units).
  bool Double(const dom::object& o, std::string_view key, double* out) {
    dom::element e;
    if (!Find(o, key, &e)) return false;
    if (e.get_double().get(*out) == simdjson::SUCCESS) return true;
    WrongScalar(e, "Double");
    return false;
  }
  bool Double(const dom::object& o, std::string_view key, std::optional<double>* out) {
    double v = 0;
    if (!Double(o, key, &v)) return false;
    *out = v;
    return true;
  }
  bool Int64(const dom::object& o, std::string_view key, int64_t* out) {
    return Int(o, key, "Long", INT64_MIN, INT64_MAX, out);
  }
  // An integer member; `min`/`max` are the shape's range.
  bool Int(const dom::object& o, std::string_view key, std::string_view java_type, int64_t min,
           int64_t max, int64_t* out) {
    dom::element e;
    if (!Find(o, key, &e) || !AsInt(e, out, java_type)) return false;
    if (*out < min) {
      Violation("Value '" + std::to_string(*out) + "' at '" + PathTo(key) +
                "' failed to satisfy constraint: Member must have value greater than or equal to " +
                std::to_string(min));
    } else if (*out > max) {
      Violation("Value '" + std::to_string(*out) + "' at '" + PathTo(key) +
                "' failed to satisfy constraint: Member must have value less than or equal to " +
                std::to_string(max));
    }
    return true;
  }
  bool Int(const dom::object& o, std::string_view key, std::string_view java_type, int64_t min,
           int64_t max, std::optional<int64_t>* out) {
    int64_t v = 0;
    if (!Int(o, key, java_type, min, max, &v)) return false;
    *out = v;
    return true;
  }
  // A string member that must be one of `allowed`; true only when present and valid.
  bool Enum(const dom::object& o, std::string_view key, Allowed allowed, std::string* out,
            bool required = false) {
    std::string s;
    if (!Str(o, key, &s)) {
      if (required && !failed_) Missing(key);
      return false;
    }
    for (std::string_view a : allowed) {
      if (a == s) {
        *out = std::move(s);
        return true;
      }
    }
    std::string m = "Value '" + s + "' at '" + PathTo(key) +
                    "' failed to satisfy constraint: Member must satisfy enum value set: [";
    bool first = true;
    for (std::string_view a : allowed) {
      if (!first) m += ", ";
      first = false;
      m += a;
    }
    m += "]";
    Violation(std::move(m));
    return false;
  }
  bool Enum(const dom::object& o, std::string_view key, Allowed allowed,
            std::optional<std::string>* out) {
    std::string s;
    if (!Enum(o, key, allowed, &s)) return false;
    *out = std::move(s);
    return true;
  }
  bool Obj(const dom::object& o, std::string_view key, dom::object* out) {
    dom::element e;
    return Find(o, key, &e) && AsObject(e, out);
  }
  bool ReqObj(const dom::object& o, std::string_view key, dom::object* out) {
    if (Obj(o, key, out)) return true;
    if (!failed_) Missing(key);
    return false;
  }
  bool Arr(const dom::object& o, std::string_view key, dom::array* out) {
    dom::element e;
    return Find(o, key, &e) && AsArray(e, out);
  }
  bool ReqArr(const dom::object& o, std::string_view key, dom::array* out) {
    if (Arr(o, key, out)) return true;
    if (!failed_) Missing(key);
    return false;
  }
  // `non_empty`: the shape wants at least one name (AttributesToGet, NonKeyAttributes).
  bool StrList(const dom::object& o, std::string_view key, std::vector<std::string>* out,
               bool non_empty = false) {
    dom::array a;
    if (!Arr(o, key, &a)) return false;
    if (non_empty && a.size() == 0) Empty(key, "[]");
    out->clear();
    for (dom::element e : a) {
      std::string_view sv;
      if (e.is_null()) continue;
      if (!AsString(e, &sv)) return false;
      out->emplace_back(sv);
    }
    return true;
  }
  bool StrMap(const dom::object& o, std::string_view key, NameMap* out) {
    dom::object m;
    if (!Obj(o, key, &m)) return false;
    out->clear();
    for (dom::key_value_pair kv : m) {
      std::string_view sv;
      if (kv.value.is_null()) continue;
      if (!AsString(kv.value, &sv)) return false;
      out->insert_or_assign(std::string(kv.key), std::string(sv));
    }
    return true;
  }

  // ------------------------------------------------------------ attribute values

  bool AttrValue(const dom::element& e, AttributeValue* out) {
    dom::object o;
    if (!AsObject(e, &o)) return false;
    int kinds = 0;
    for (dom::key_value_pair kv : o) {
      if (kv.value.is_null()) continue;
      AttrType type;
      if (!ParseAttrTypeName(kv.key, &type)) continue;  // unknown members are ignored
      ++kinds;
      if (!AttrMember(type, kv.value, out)) return false;
    }
    if (kinds == 0) {
      AttrError("Supplied AttributeValue is empty, must contain exactly one of the supported datatypes");
      *out = AttributeValue::Null();
    } else if (kinds > 1) {
      // DynamoDB reads an N member's number before it counts the members.
      std::string_view n;
      dom::element nv;
      StatusOr<std::string> number = std::string();
      if (o.at_key("N").get(nv) == simdjson::SUCCESS && nv.get_string().get(n) == simdjson::SUCCESS) {
        number = NormalizeNumber(n);
      }
      AttrError(number.ok() ? "Supplied AttributeValue has more than one datatypes set, must "
                              "contain exactly one of the supported datatypes"
                            : number.status().message());
    }
    return !failed_;
  }

  bool Bytes(const dom::element& e, std::string* out) {
    std::string_view sv;
    if (!AsString(e, &sv)) return false;
    std::string error;
    if (!Base64Decode(sv, out, &error)) {
      Serialization(error);
      return false;
    }
    return true;
  }

  bool AttrMember(AttrType type, const dom::element& v, AttributeValue* out) {
    std::string_view sv;
    switch (type) {
      case AttrType::kS:
        if (!AsString(v, &sv)) return false;
        *out = AttributeValue::S(std::string(sv));
        return true;
      case AttrType::kN:
        if (!AsString(v, &sv)) return false;
        *out = AttributeValue::N(std::string(sv));
        return true;
      case AttrType::kB: {
        std::string bytes;
        if (!Bytes(v, &bytes)) return false;
        *out = AttributeValue::B(std::move(bytes));
        return true;
      }
      case AttrType::kBool: {
        bool b = false;
        if (!AsBool(v, &b)) return false;
        *out = AttributeValue::Bool(b);
        return true;
      }
      case AttrType::kNull: {
        bool b = false;
        if (!AsBool(v, &b)) return false;
        if (!b) {
          AttrError("One or more parameter values were invalid: Null attribute value types must have the value of true");
        }
        *out = AttributeValue::Null();
        return true;
      }
      case AttrType::kL: {
        dom::array a;
        if (!AsArray(v, &a)) return false;
        std::vector<AttributeValue> list;
        list.reserve(a.size());
        for (dom::element x : a) {
          list.emplace_back();
          if (x.is_null()) {
            AttrError("Supplied AttributeValue is empty, must contain exactly one of the supported datatypes");
            continue;
          }
          if (!AttrValue(x, &list.back())) return false;
        }
        *out = AttributeValue::L(std::move(list));
        return true;
      }
      case AttrType::kM: {
        dom::object m;
        if (!AsObject(v, &m)) return false;
        Item item;
        if (!ItemBody(m, &item)) return false;
        *out = AttributeValue::M(std::move(item));
        return true;
      }
      case AttrType::kSS:
      case AttrType::kNS:
      case AttrType::kBS: {
        dom::array a;
        if (!AsArray(v, &a)) return false;
        std::vector<std::string> set;
        set.reserve(a.size());
        for (dom::element x : a) {
          if (x.is_null()) {
            AttrError("One or more parameter values were invalid: A set may not contain a null element");
            continue;
          }
          if (type == AttrType::kBS) {
            std::string bytes;
            if (!Bytes(x, &bytes)) return false;
            set.push_back(std::move(bytes));
          } else {
            if (!AsString(x, &sv)) return false;
            set.emplace_back(sv);
          }
        }
        *out = type == AttrType::kSS   ? AttributeValue::SS(std::move(set))
               : type == AttrType::kNS ? AttributeValue::NS(std::move(set))
                                       : AttributeValue::BS(std::move(set));
        return true;
      }
    }
    return false;
  }

  // `wrap_for` names a map whose invalid entries DynamoDB reports as
  // "<map> contains invalid value: <problem> for key <key>".
  bool ItemBody(const dom::object& m, Item* out, std::string_view wrap_for = {}) {
    out->clear();
    for (dom::key_value_pair kv : m) {
      const uint64_t serial = attr_error_serial_;
      AttributeValue v;
      if (kv.value.is_null()) {
        AttrError("Supplied AttributeValue is empty, must contain exactly one of the supported datatypes");
      } else if (!AttrValue(kv.value, &v)) {
        return false;
      }
      if (!wrap_for.empty() && attr_error_serial_ != serial) {
        attr_error_ = std::string(wrap_for) + " contains invalid value: " + attr_error_ +
                      " for key " + std::string(kv.key);
      }
      out->insert_or_assign(std::string(kv.key), std::move(v));
    }
    return true;
  }

  // A member holding an attribute map (Item, Key, ExpressionAttributeValues, ...).
  bool ItemMember(const dom::object& o, std::string_view key, Item* out,
                  std::string_view wrap_for = {}) {
    dom::object m;
    return Obj(o, key, &m) && ItemBody(m, out, wrap_for);
  }
  bool ItemMember(const dom::object& o, std::string_view key, std::optional<Item>* out) {
    Item item;
    if (!ItemMember(o, key, &item)) return false;
    *out = std::move(item);
    return true;
  }
  // ExclusiveStartKey: a malformed value in it is reported as "The provided
  // starting key is invalid: <problem>" (captured from DynamoDB).
  bool StartKeyMember(const dom::object& o, std::optional<Item>* out) {
    const uint64_t serial = attr_error_serial_;
    bool found = ItemMember(o, "ExclusiveStartKey", out);
    if (attr_error_serial_ != serial) {
      attr_error_ = "The provided starting key is invalid: " + attr_error_;
    }
    return found;
  }
  bool ReqItem(const dom::object& o, std::string_view key, Item* out) {
    if (ItemMember(o, key, out)) return true;
    if (!failed_) Missing(key);
    return false;
  }
  bool AttrMemberOf(const dom::object& o, std::string_view key, std::optional<AttributeValue>* out) {
    dom::element e;
    if (!Find(o, key, &e)) return false;
    AttributeValue v;
    if (!AttrValue(e, &v)) return false;
    *out = std::move(v);
    return true;
  }
  bool AttrList(const dom::object& o, std::string_view key, std::vector<AttributeValue>* out) {
    dom::array a;
    if (!Arr(o, key, &a)) return false;
    out->clear();
    for (dom::element x : a) {
      out->emplace_back();
      if (x.is_null()) {
        AttrError("Supplied AttributeValue is empty, must contain exactly one of the supported datatypes");
        continue;
      }
      if (!AttrValue(x, &out->back())) return false;
      // An empty set is reported in its place among the list's other faults.
      AttributeValue& v = out->back();
      if (v.is_set() && v.set().empty()) {
        AttributeValue copy = v;
        Status s = NormalizeAndValidateValue(&copy, 1);
        if (!s.ok()) AttrError(s.message());
      }
    }
    return true;
  }

  // ------------------------------------------------------------ iteration helpers

  // Reports list (or map) member `key` if present and empty, where its shape
  // wants at least one entry (KeySchema, TransactItems, RequestItems).
  void NonEmpty(const dom::object& o, std::string_view key) {
    dom::element e;
    if (!Find(o, key, &e)) return;
    dom::array a;
    dom::object m;
    if (e.get_array().get(a) == simdjson::SUCCESS && a.size() == 0) Empty(key, "[]");
    if (e.get_object().get(m) == simdjson::SUCCESS && m.size() == 0) Empty(key, "{}");
  }

  // Calls fn(object) for each element of list member `key`, inside its path scope.
  template <typename Fn>
  bool EachObject(const dom::object& o, std::string_view key, bool required, Fn fn) {
    dom::array a;
    if (!(required ? ReqArr(o, key, &a) : Arr(o, key, &a))) return false;
    size_t i = 0;
    for (dom::element x : a) {
      Scope scope(this, key, i++);
      dom::object eo;
      if (x.is_null()) {
        eo = EmptyObject();
      } else if (!AsObject(x, &eo)) {
        return false;
      }
      fn(eo);
      if (failed_) return false;
    }
    return true;
  }
  // Calls fn(name, object) for each value of map member `key`.
  template <typename Fn>
  bool EachMapObject(const dom::object& o, std::string_view key, bool required, Fn fn) {
    dom::object m;
    if (!(required ? ReqObj(o, key, &m) : Obj(o, key, &m))) return false;
    for (dom::key_value_pair kv : m) {
      Scope scope(this, key, kv.key);
      dom::object vo;
      if (kv.value.is_null()) {
        vo = EmptyObject();
      } else if (!AsObject(kv.value, &vo)) {
        return false;
      }
      fn(kv.key, vo);
      if (failed_) return false;
    }
    return true;
  }

  // An object with no members, standing for an absent or null structure.
  dom::object EmptyObject() {
    if (!empty_parsed_) {
      empty_parsed_ = true;
      auto error = empty_parser_.parse("{}", 2).get_object().get(empty_);
      (void)error;
    }
    return empty_;
  }

  // ------------------------------------------------------------ document

  bool ParseRoot(std::string_view body, dom::object* root) {
    thread_local dom::parser parser;
    size_t start = 0;
    while (start < body.size() && (body[start] == ' ' || body[start] == '\n' ||
                                   body[start] == '\r' || body[start] == '\t')) {
      ++start;
    }
    if (start == body.size()) {  // DynamoDB: a bare SerializationException
      Serialization("");
      return false;
    }
    dom::element doc;
    if (parser.parse(body.data(), body.size()).get(doc) != simdjson::SUCCESS) {
      Serialization("");
      return false;
    }
    if (doc.is_null()) {
      *root = EmptyObject();
      return true;
    }
    return AsObject(doc, root);
  }

 private:
  bool failed_ = false;
  std::string serialization_message_;
  std::vector<std::string> violations_;
  std::string attr_error_;
  ValueMember attr_rank_ = ValueMember::kOther;        // the member being decoded
  ValueMember attr_error_rank_ = ValueMember::kOther;  // the member attr_error_ came from
  uint64_t attr_error_serial_ = 0;
  std::string path_;
  dom::parser empty_parser_{64};
  dom::object empty_;
  bool empty_parsed_ = false;
};

// Decodes a request. With `malformed`, a request whose only problem is an
// invalid AttributeValue is returned, and that error and its member go to
// *malformed: DynamoDB reports it where the operation's parameter checks reach
// that member (engine/request_checks.h CheckParameters).
template <typename T, typename Fn>
StatusOr<T> DecodeBody(std::string_view body, Fn fn, MalformedValue* malformed = nullptr) {
  Decoder d;
  dom::object root;
  if (!d.ParseRoot(body, &root)) return d.Finish();
  T out{};
  fn(d, root, &out);
  if (malformed != nullptr && d.structurally_ok() && !d.attr_error().empty()) {
    malformed->error = ValidationError(d.attr_error());
    malformed->member = d.attr_error_member();
    return out;
  }
  Status s = d.Finish();
  if (!s.ok()) return s;
  return out;
}

// Members both the request and the response decoders read (json_decode.cc).
void KeySchemaMember(Decoder& d, const dom::object& o, bool required,
                     std::vector<KeySchemaElement>* out);
void AttributeDefinitionsMember(Decoder& d, const dom::object& o, bool required,
                                std::vector<AttributeDefinition>* out);
void KeysAndAttributesBody(Decoder& d, const dom::object& o, KeysAndAttributes* k);
void ProjectionMember(Decoder& d, const dom::object& o, Projection* out);
void OptionalThroughput(Decoder& d, const dom::object& o, std::optional<ProvisionedThroughput>* out);
// An OnDemandThroughput-shaped member `key` ("OnDemandThroughput",
// "OnDemandThroughputOverride"): its members are Longs, their values checked
// by the engine (-1 is meaningful).
bool OnDemandThroughputMember(Decoder& d, const dom::object& o, std::string_view key,
                              std::optional<OnDemandThroughput>* out);
void GlobalSecondaryIndexBody(Decoder& d, const dom::object& e, GlobalSecondaryIndex* g);
void WriteRequestBody(Decoder& d, const dom::object& e, WriteRequest* w);

}  // namespace dynarock::api::json_internal

#endif  // DYNAROCK_API_JSON_DECODER_H_
