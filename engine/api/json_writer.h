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
#include <cstring>
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

// The writer keeps its text in one std::string whose size runs ahead of what
// has been written (len_): it grows by doubling, so each write is a bounds
// check and a copy, with no per-write zero-filling or capacity bookkeeping.
// str() and Release() cut it to what was written.
class JsonWriter {
 public:
  JsonWriter() = default;

  void BeginObject() { Sep(); Put('{'); first_ = true; }
  void EndObject() { Put('}'); first_ = false; }
  void BeginArray() { Sep(); Put('['); first_ = true; }
  void EndArray() { Put(']'); first_ = false; }

  // `{` and a first member's name already written as JSON (`"S":`), for the
  // fixed type tags of attribute values.
  void BeginObjectWithKey(std::string_view quoted_key_colon) {
    Sep();
    Put('{');
    Put(quoted_key_colon);
    first_ = true;
  }
  // A whole one-member object whose member's name is written already and
  // whose value is a string: `{"S":` + `"value"` + `}` (attribute values).
  void ObjectWithString(std::string_view open_brace_key_colon, std::string_view s);

  // An object member's name; the next value (or Begin*) is its value.
  void Key(std::string_view key) {
    Sep();
    PutString(key, ':');
    first_ = true;
  }

  void String(std::string_view s) { Sep(); PutString(s, 0); first_ = false; }
  void Int(int64_t v);
  void Double(double v);
  void Bool(bool b) { Sep(); Put(b ? std::string_view("true") : std::string_view("false")); first_ = false; }
  void Null() { Sep(); Put("null"); first_ = false; }
  // Already-encoded JSON text, inserted as one value.
  void Raw(std::string_view json) { Sep(); Put(json); first_ = false; }

  // Shorthands for one member.
  void Member(std::string_view key, std::string_view s) { Key(key); String(s); }
  void Member(std::string_view key, const char* s) { Key(key); String(s); }
  void MemberInt(std::string_view key, int64_t v) { Key(key); Int(v); }
  void MemberDouble(std::string_view key, double v) { Key(key); Double(v); }
  void MemberBool(std::string_view key, bool b) { Key(key); Bool(b); }

  const std::string& str() const { Trim(); return out_; }
  std::string Release() {
    Trim();
    first_ = true;
    len_ = 0;
    return std::move(out_);
  }
  void Reserve(size_t n) {
    if (n > out_.size()) out_.resize(n);
  }

 private:
  void Sep() {
    if (!first_) Put(',');
  }
  // Room for n more bytes at the end of what is written; the caller fills
  // them all.
  char* Extend(size_t n) {
    if (out_.size() - len_ < n) Grow(n);
    char* p = out_.data() + len_;
    len_ += n;
    return p;
  }
  void Put(char c) { *Extend(1) = c; }
  void Put(std::string_view s) {
    if (!s.empty()) std::memcpy(Extend(s.size()), s.data(), s.size());
  }
  // `s` quoted and escaped, then `after` unless it is 0.
  void PutString(std::string_view s, char after);
  void Grow(size_t n);
  void Trim() const { out_.resize(len_); }

  mutable std::string out_;  // written: [0, len_); past it, room
  size_t len_ = 0;
  bool first_ = true;  // no comma before the next value
};

}  // namespace dynarock::api

#endif  // DYNAROCK_API_JSON_WRITER_H_
