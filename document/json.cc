// File: document/json.cc

#include "document/json.h"

#include <simdjson.h>

#include "engine/api/base64.h"
#include "engine/api/json_writer.h"

namespace dynarock::document {
namespace {

namespace od = simdjson::ondemand;

constexpr int kMaxDepth = 64;  // past DynamoDB's 32 levels, which ToItem refuses

Status Malformed(std::string_view where, std::string_view what) {
  return ValidationError("malformed JSON at " + std::string(where.empty() ? "the top" : where) + ": " +
                         std::string(what));
}

StatusOr<Value> Read(od::value v, const MarshallOptions& o, const std::string& where, int depth) {
  if (depth > kMaxDepth) return Malformed(where, "nested too deeply");
  od::json_type type;
  if (v.type().get(type) != simdjson::SUCCESS) return Malformed(where, "not a JSON value");
  switch (type) {
    case od::json_type::object: {
      od::object obj;
      if (v.get_object().get(obj) != simdjson::SUCCESS) return Malformed(where, "not an object");
      Map m;
      for (auto field : obj) {
        std::string_view key;
        if (field.unescaped_key().get(key) != simdjson::SUCCESS) return Malformed(where, "a bad member name");
        const std::string path = where.empty() ? std::string(key) : where + "." + std::string(key);
        DR_ASSIGN_OR_RETURN(Value member, Read(field.value(), o, path, depth + 1));
        if (o.remove_null_values && member.is_null()) continue;
        m.insert_or_assign(std::string(key), std::move(member));
      }
      return Value(std::move(m));
    }
    case od::json_type::array: {
      od::array arr;
      if (v.get_array().get(arr) != simdjson::SUCCESS) return Malformed(where, "not an array");
      List l;
      size_t i = 0;
      for (auto element : arr) {
        od::value e;
        if (element.get(e) != simdjson::SUCCESS) return Malformed(where, "a bad element");
        DR_ASSIGN_OR_RETURN(Value x, Read(e, o, where + "[" + std::to_string(i++) + "]", depth + 1));
        l.push_back(std::move(x));
      }
      return Value(std::move(l));
    }
    case od::json_type::number: {
      // The number's own text, not a double's reading of it.
      std::string_view raw = v.raw_json_token();
      while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\n' || raw.back() == '\t' || raw.back() == '\r')) {
        raw.remove_suffix(1);
      }
      auto n = Number::Parse(raw);
      if (!n.ok()) return ValidationError((where.empty() ? "the number" : where) + ": " + n.status().message());
      return Value(std::move(*n));
    }
    case od::json_type::string: {
      std::string_view s;
      if (v.get_string().get(s) != simdjson::SUCCESS) return Malformed(where, "a bad string");
      if (o.convert_empty_values && s.empty()) return Value(nullptr);
      return Value(s);
    }
    case od::json_type::boolean: {
      bool b = false;
      if (v.get_bool().get(b) != simdjson::SUCCESS) return Malformed(where, "a bad boolean");
      return Value(b);
    }
    case od::json_type::null:
      if (!v.is_null()) return Malformed(where, "a bad null");
      return Value(nullptr);
  }
  return Malformed(where, "an unknown value");
}

void Write(const Value& v, const UnmarshallOptions& o, api::JsonWriter* w) {
  switch (v.kind()) {
    case Value::Kind::kAbsent:
    case Value::Kind::kNull:
      w->Null();
      return;
    case Value::Kind::kBool:
      w->Bool(v.AsBool().value());
      return;
    case Value::Kind::kNumber: {
      auto n = v.AsNumber();
      if (!n.ok()) {
        w->Null();
      } else if (o.wrap_numbers) {
        w->String(n->text());
      } else {
        w->Raw(n->text());
      }
      return;
    }
    case Value::Kind::kString:
      w->String(v.AsString().value());
      return;
    case Value::Kind::kBytes:
      w->String(api::Base64Encode(v.AsBytes().value().data));
      return;
    case Value::Kind::kList:
      w->BeginArray();
      for (const Value& e : v.list()) {
        if (!e.is_absent()) Write(e, o, w);
      }
      w->EndArray();
      return;
    case Value::Kind::kMap:
      w->BeginObject();
      for (const auto& [name, e] : v.map()) {
        if (e.is_absent()) continue;
        w->Key(name);
        Write(e, o, w);
      }
      w->EndObject();
      return;
    case Value::Kind::kStringSet:
    case Value::Kind::kNumberSet:
    case Value::Kind::kBytesSet:
      w->BeginArray();
      for (const std::string& e : v.set()) {
        if (v.kind() == Value::Kind::kStringSet) {
          w->String(e);
        } else if (v.kind() == Value::Kind::kBytesSet) {
          w->String(api::Base64Encode(e));
        } else if (o.wrap_numbers) {
          w->String(e);
        } else {
          w->Raw(e);
        }
      }
      w->EndArray();
      return;
  }
}

}  // namespace

StatusOr<Value> FromJson(std::string_view json, const MarshallOptions& options) {
  simdjson::padded_string padded(json);
  {
    // Well-formed, whole (nothing after the value): the DOM parser says so;
    // the on-demand one below reads numbers as their text.
    simdjson::dom::parser check;
    if (check.parse(padded).error() != simdjson::SUCCESS) return Malformed("", "not one JSON value");
  }
  od::parser parser;
  od::document doc;
  if (parser.iterate(padded).get(doc) != simdjson::SUCCESS) return Malformed("", "not JSON");
  od::value root;
  // A scalar document is read through its own accessors.
  if (doc.get_value().get(root) == simdjson::SUCCESS) {
    return Read(root, options, "", 0);
  }
  od::json_type type;
  if (doc.type().get(type) != simdjson::SUCCESS) return Malformed("", "not JSON");
  if (type == od::json_type::number) {
    std::string_view raw;
    if (doc.raw_json_token().get(raw) != simdjson::SUCCESS) return Malformed("", "a bad number");
    while (!raw.empty() && std::isspace(static_cast<unsigned char>(raw.back()))) raw.remove_suffix(1);
    DR_ASSIGN_OR_RETURN(Number n, Number::Parse(raw));
    return Value(std::move(n));
  }
  if (type == od::json_type::string) {
    std::string_view s;
    if (doc.get_string().get(s) != simdjson::SUCCESS) return Malformed("", "a bad string");
    return options.convert_empty_values && s.empty() ? Value(nullptr) : Value(s);
  }
  if (type == od::json_type::boolean) {
    bool b = false;
    if (doc.get_bool().get(b) != simdjson::SUCCESS) return Malformed("", "a bad boolean");
    return Value(b);
  }
  bool null = false;
  if (doc.is_null().get(null) == simdjson::SUCCESS && null) return Value(nullptr);
  return Malformed("", "not JSON");
}

StatusOr<Item> Marshall(std::string_view json, const MarshallOptions& options) {
  DR_ASSIGN_OR_RETURN(Value v, FromJson(json, options));
  return v.ToItem();
}

std::string ToJson(const Value& v, const UnmarshallOptions& options) {
  api::JsonWriter w;
  Write(v, options, &w);
  return w.Release();
}

std::string Unmarshall(const Item& item, const UnmarshallOptions& options) {
  return ToJson(Value::From(item), options);
}

}  // namespace dynarock::document
