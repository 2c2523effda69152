// File: engine/api/json_writer.h
//
// A small, fast, append-only JSON writer (simdjson 3.0.1 parses but cannot build).
// It writes compact JSON into one std::string and inserts the commas itself:
//
//   JsonWriter w;
//   w.BeginObject();
//   w.Key("TableNames");
//   w.BeginArray();
//   w.String("people");
//   w.EndArray();
//   w.Key("Count");
//   w.Int(3);
//   w.EndObject();
//   std::string body = w.Release();   // {"TableNames":["people"],"Count":3}
//
// Strings are escaped as JSON requires: '"', '\\' and the control characters
// U+0000..U+001F (as \n, \t, ... or \u00XX); all other bytes, UTF-8 included, are
// copied as they are. The writer does not check nesting: callers pair Begin/End.

#ifndef DYNAROCK_API_JSON_WRITER_H_
#define DYNAROCK_API_JSON_WRITER_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace dynarock::api {

// Appends `s` as a quoted, escaped JSON string, then `after` unless it is 0
// (a member name's ':').
void AppendJsonString(std::string_view s, std::string* out, char after = 0);

// Appends the shortest text that reads back as exactly `d` ("1.5", "1707091234.25",
// "0"); never NaN or infinity (written as 0, which JSON cannot express otherwise).
void AppendJsonDouble(double d, std::string* out);
// Appends code point `cp` (<= 0x10FFFF) as UTF-8 (the JSON and Ion readers' escapes).
void AppendUtf8(uint32_t cp, std::string* out);

class JsonWriter {
 public:
  JsonWriter() = default;

  void BeginObject() { Sep(); out_.push_back('{'); first_ = true; }
  void EndObject() { out_.push_back('}'); first_ = false; }
  void BeginArray() { Sep(); out_.push_back('['); first_ = true; }
  void EndArray() { out_.push_back(']'); first_ = false; }

  // `{` and a first member's name already written as JSON (`"S":`), for the
  // fixed type tags of attribute values.
  void BeginObjectWithKey(std::string_view quoted_key_colon) {
    Sep();
    out_.push_back('{');
    out_.append(quoted_key_colon);
    first_ = true;
  }

  // An object member's name; the next value (or Begin*) is its value.
  void Key(std::string_view key) {
    Sep();
    AppendJsonString(key, &out_, ':');
    first_ = true;
  }

  void String(std::string_view s) { Sep(); AppendJsonString(s, &out_); first_ = false; }
  void Int(int64_t v);
  void Double(double v) { Sep(); AppendJsonDouble(v, &out_); first_ = false; }
  void Bool(bool b) { Sep(); out_.append(b ? "true" : "false"); first_ = false; }
  void Null() { Sep(); out_.append("null"); first_ = false; }
  // Already-encoded JSON text, inserted as one value.
  void Raw(std::string_view json) { Sep(); out_.append(json); first_ = false; }

  // Shorthands for one member.
  void Member(std::string_view key, std::string_view s) { Key(key); String(s); }
  void Member(std::string_view key, const char* s) { Key(key); String(s); }
  void MemberInt(std::string_view key, int64_t v) { Key(key); Int(v); }
  void MemberDouble(std::string_view key, double v) { Key(key); Double(v); }
  void MemberBool(std::string_view key, bool b) { Key(key); Bool(b); }

  const std::string& str() const { return out_; }
  std::string Release() { first_ = true; return std::move(out_); }
  void Reserve(size_t n) { out_.reserve(n); }

 private:
  void Sep() {
    if (!first_) out_.push_back(',');
  }

  std::string out_;
  bool first_ = true;  // no comma before the next value
};

}  // namespace dynarock::api

#endif  // DYNAROCK_API_JSON_WRITER_H_
