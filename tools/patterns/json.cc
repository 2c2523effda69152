#include "tools/patterns/json.h"

#include <cstdint>

#include "engine/api/json_writer.h"

namespace dynarock::patterns {
namespace {

class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  StatusOr<Json> Document() {
    Json v;
    if (!Value(&v, 0)) return Error();
    SkipSpace();
    if (pos_ != s_.size()) {
      error_ = "unexpected text after the JSON value";
      return Error();
    }
    return v;
  }

 private:
  Status Error() const {
    size_t line = 1, col = 1;
    for (size_t i = 0; i < pos_ && i < s_.size(); ++i) {
      if (s_[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    return ValidationError("line " + std::to_string(line) + ", column " + std::to_string(col) +
                           ": " + error_);
  }

  void SkipSpace() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) {
      ++pos_;
    }
  }

  bool Fail(std::string msg) {
    error_ = std::move(msg);
    return false;
  }

  bool Literal(std::string_view word) {
    if (s_.substr(pos_, word.size()) != word) return Fail("invalid literal");
    pos_ += word.size();
    return true;
  }

  bool Value(Json* out, int depth) {
    if (depth > 200) return Fail("nesting too deep");
    SkipSpace();
    if (pos_ >= s_.size()) return Fail("unexpected end of input");
    char c = s_[pos_];
    if (c == '{') return Object(out, depth);
    if (c == '[') return Array(out, depth);
    if (c == '"') {
      out->type = Json::Type::kString;
      return String(&out->text);
    }
    if (c == 't') {
      out->type = Json::Type::kBool;
      out->boolean = true;
      return Literal("true");
    }
    if (c == 'f') {
      out->type = Json::Type::kBool;
      out->boolean = false;
      return Literal("false");
    }
    if (c == 'n') {
      out->type = Json::Type::kNull;
      return Literal("null");
    }
    if (c == '-' || (c >= '0' && c <= '9')) return Number(out);
    return Fail(std::string("unexpected character '") + c + "'");
  }

  bool Number(Json* out) {
    size_t start = pos_;
    auto digits = [&] {
      size_t b = pos_;
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
      return pos_ > b;
    };
    if (s_[pos_] == '-') ++pos_;
    const size_t int_start = pos_;
    if (!digits()) return Fail("invalid number");
    if (s_[int_start] == '0' && pos_ - int_start > 1) return Fail("invalid number (leading zero)");
    if (pos_ < s_.size() && s_[pos_] == '.') {
      ++pos_;
      if (!digits()) return Fail("invalid number");
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      if (!digits()) return Fail("invalid number");
    }
    out->type = Json::Type::kNumber;
    out->text = std::string(s_.substr(start, pos_ - start));
    return true;
  }

  bool Hex4(uint32_t* out) {
    if (pos_ + 4 > s_.size()) return Fail("invalid \\u escape");
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      char c = s_[pos_++];
      v <<= 4;
      if (c >= '0' && c <= '9') {
        v |= static_cast<uint32_t>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        v |= static_cast<uint32_t>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        v |= static_cast<uint32_t>(c - 'A' + 10);
      } else {
        return Fail("invalid \\u escape");
      }
    }
    *out = v;
    return true;
  }

  bool String(std::string* out) {
    ++pos_;  // opening quote
    out->clear();
    while (true) {
      if (pos_ >= s_.size()) return Fail("unterminated string");
      char c = s_[pos_++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return Fail("control character in string");
      if (c != '\\') {
        out->push_back(c);
        continue;
      }
      if (pos_ >= s_.size()) return Fail("unterminated string");
      char e = s_[pos_++];
      switch (e) {
        case '"': out->push_back('"'); break;
        case '\\': out->push_back('\\'); break;
        case '/': out->push_back('/'); break;
        case 'b': out->push_back('\b'); break;
        case 'f': out->push_back('\f'); break;
        case 'n': out->push_back('\n'); break;
        case 'r': out->push_back('\r'); break;
        case 't': out->push_back('\t'); break;
        case 'u': {
          uint32_t cp;
          if (!Hex4(&cp)) return false;
          if (cp >= 0xDC00 && cp < 0xE000) return Fail("unpaired surrogate");
          if (cp >= 0xD800 && cp < 0xDC00) {
            uint32_t lo;
            if (s_.substr(pos_, 2) != "\\u") return Fail("unpaired surrogate");
            pos_ += 2;
            if (!Hex4(&lo) || lo < 0xDC00 || lo >= 0xE000) return Fail("unpaired surrogate");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          api::AppendUtf8(cp, out);
          break;
        }
        default:
          return Fail("invalid escape");
      }
    }
  }

  bool Array(Json* out, int depth) {
    ++pos_;
    out->type = Json::Type::kArray;
    SkipSpace();
    if (pos_ < s_.size() && s_[pos_] == ']') {
      ++pos_;
      return true;
    }
    while (true) {
      Json v;
      if (!Value(&v, depth + 1)) return false;
      out->array.push_back(std::move(v));
      SkipSpace();
      if (pos_ >= s_.size()) return Fail("unterminated array");
      char c = s_[pos_++];
      if (c == ']') return true;
      if (c != ',') {
        --pos_;
        return Fail("expected ',' or ']'");
      }
    }
  }

  bool Object(Json* out, int depth) {
    ++pos_;
    out->type = Json::Type::kObject;
    SkipSpace();
    if (pos_ < s_.size() && s_[pos_] == '}') {
      ++pos_;
      return true;
    }
    while (true) {
      SkipSpace();
      if (pos_ >= s_.size() || s_[pos_] != '"') return Fail("expected a member name");
      std::string key;
      if (!String(&key)) return false;
      if (out->Find(key) != nullptr) return Fail("duplicate member \"" + key + "\"");
      SkipSpace();
      if (pos_ >= s_.size() || s_[pos_] != ':') return Fail("expected ':'");
      ++pos_;
      Json v;
      if (!Value(&v, depth + 1)) return false;
      out->object.emplace_back(std::move(key), std::move(v));
      SkipSpace();
      if (pos_ >= s_.size()) return Fail("unterminated object");
      char c = s_[pos_++];
      if (c == '}') return true;
      if (c != ',') {
        --pos_;
        return Fail("expected ',' or '}'");
      }
    }
  }

  std::string_view s_;
  size_t pos_ = 0;
  std::string error_;
};

void Write(const Json& v, std::string* out) {
  switch (v.type) {
    case Json::Type::kNull: out->append("null"); break;
    case Json::Type::kBool: out->append(v.boolean ? "true" : "false"); break;
    case Json::Type::kNumber: out->append(v.text); break;
    case Json::Type::kString: api::AppendJsonString(v.text, out); break;
    case Json::Type::kArray: {
      out->push_back('[');
      for (size_t i = 0; i < v.array.size(); ++i) {
        if (i) out->push_back(',');
        Write(v.array[i], out);
      }
      out->push_back(']');
      break;
    }
    case Json::Type::kObject: {
      out->push_back('{');
      for (size_t i = 0; i < v.object.size(); ++i) {
        if (i) out->push_back(',');
        api::AppendJsonString(v.object[i].first, out);
        out->push_back(':');
        Write(v.object[i].second, out);
      }
      out->push_back('}');
      break;
    }
  }
}

}  // namespace

const Json* Json::Find(std::string_view key) const {
  if (type != Type::kObject) return nullptr;
  for (const auto& [k, v] : object) {
    if (k == key) return &v;
  }
  return nullptr;
}

StatusOr<Json> ParseJson(std::string_view text) { return Parser(text).Document(); }

std::string WriteJson(const Json& v) {
  std::string out;
  Write(v, &out);
  return out;
}

}  // namespace dynarock::patterns
