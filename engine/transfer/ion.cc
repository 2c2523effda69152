// File: engine/transfer/ion.cc

#include "engine/transfer/ion.h"

#include <cstdlib>
#include <utility>
#include <vector>

#include "engine/api/base64.h"
#include "engine/api/json_writer.h"

namespace dynarock::transfer {

// ---------------------------------------------------------------- writing

namespace {

void AppendIonString(std::string_view s, std::string* out, char quote) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->push_back(quote);
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == quote || c == '\\') {
      out->push_back('\\');
      out->push_back(c);
    } else if (c == '\n') {
      out->append("\\n");
    } else if (c == '\t') {
      out->append("\\t");
    } else if (c == '\r') {
      out->append("\\r");
    } else if (u < 0x20 || u == 0x7f) {
      out->append("\\x");
      out->push_back(kHex[u >> 4]);
      out->push_back(kHex[u & 15]);
    } else {
      out->push_back(c);
    }
  }
  out->push_back(quote);
}

// Normalised N text as an Ion decimal: "103" -> "103.", "1.5" stays.
void AppendIonDecimal(std::string_view n, std::string* out) {
  out->append(n);
  if (n.find('.') == std::string_view::npos) out->push_back('.');
}

bool IsIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$';
}
bool IsIdentChar(char c) { return IsIdentStart(c) || (c >= '0' && c <= '9'); }

}  // namespace

void AppendIonFieldName(std::string_view name, std::string* out) {
  bool ident = !name.empty() && IsIdentStart(name[0]);
  for (char c : name) ident = ident && IsIdentChar(c);
  // Keywords and $-symbols ($ion_1_0, $10) mean something else when bare.
  if (ident && (name == "null" || name == "true" || name == "false" || name == "nan" ||
                name[0] == '$')) {
    ident = false;
  }
  if (ident) {
    out->append(name);
  } else {
    AppendIonString(name, out, '\'');
  }
}

void AppendIonValue(const AttributeValue& v, std::string* out) {
  switch (v.type()) {
    case AttrType::kS: AppendIonString(v.scalar(), out, '"'); return;
    case AttrType::kN: AppendIonDecimal(v.scalar(), out); return;
    case AttrType::kB:
      out->append("{{");
      api::Base64EncodeTo(v.scalar(), out);
      out->append("}}");
      return;
    case AttrType::kBool: out->append(v.boolean() ? "true" : "false"); return;
    case AttrType::kNull: out->append("null"); return;
    case AttrType::kL: {
      out->push_back('[');
      bool first = true;
      for (const AttributeValue& e : v.list()) {
        if (!first) out->push_back(',');
        first = false;
        AppendIonValue(e, out);
      }
      out->push_back(']');
      return;
    }
    case AttrType::kM: AppendIonStruct(v.map(), out); return;
    case AttrType::kSS:
    case AttrType::kNS:
    case AttrType::kBS: {
      out->append(v.is(AttrType::kSS)   ? "$dynamodb_SS::["
                  : v.is(AttrType::kNS) ? "$dynamodb_NS::["
                                        : "$dynamodb_BS::[");
      bool first = true;
      for (const std::string& e : v.set()) {
        if (!first) out->push_back(',');
        first = false;
        if (v.is(AttrType::kSS)) {
          AppendIonString(e, out, '"');
        } else if (v.is(AttrType::kNS)) {
          AppendIonDecimal(e, out);
        } else {
          out->append("{{");
          api::Base64EncodeTo(e, out);
          out->append("}}");
        }
      }
      out->push_back(']');
      return;
    }
  }
}

void AppendIonStruct(const Item& item, std::string* out) {
  out->push_back('{');
  bool first = true;
  for (const auto& [name, value] : item) {
    if (!first) out->push_back(',');
    first = false;
    AppendIonFieldName(name, out);
    out->push_back(':');
    AppendIonValue(value, out);
  }
  out->push_back('}');
}

// ---------------------------------------------------------------- reading

namespace {

constexpr int kDepthMax = 64;  // DynamoDB nests 32 levels; anything deeper is refused

class Parser {
 public:
  explicit Parser(std::string_view text) : t_(text) {}

  bool incomplete() const { return incomplete_; }
  const std::string& error() const { return error_; }
  bool ok() const { return error_.empty() && !incomplete_; }

  // Whitespace, comments and (at the top) version markers.
  void SkipSpace(bool top) {
    for (;;) {
      while (p_ < t_.size() && (t_[p_] == ' ' || t_[p_] == '\t' || t_[p_] == '\n' ||
                                t_[p_] == '\r' || t_[p_] == '\v' || t_[p_] == '\f')) {
        ++p_;
      }
      if (t_.substr(p_, 2) == "//") {
        while (p_ < t_.size() && t_[p_] != '\n') ++p_;
        continue;
      }
      if (t_.substr(p_, 2) == "/*") {
        const size_t end = t_.find("*/", p_ + 2);
        if (end == std::string_view::npos) {
          incomplete_ = true;
          p_ = t_.size();
          return;
        }
        p_ = end + 2;
        continue;
      }
      if (top && t_.substr(p_, 8) == "$ion_1_0" &&
          (p_ + 8 == t_.size() || !IsIdentChar(t_[p_ + 8]))) {
        p_ += 8;
        continue;
      }
      return;
    }
  }
  bool AtEnd() const { return p_ >= t_.size(); }

  bool Fail(std::string message) {
    if (error_.empty() && !incomplete_) error_ = std::move(message);
    return false;
  }
  bool Truncated() {
    incomplete_ = true;
    return false;
  }

  // One value, with its annotations.
  bool Value(AttributeValue* out, int depth) {
    if (depth > kDepthMax) return Fail("Ion value nested too deeply");
    SkipSpace(false);
    if (AtEnd()) return Truncated();
    std::string annotation;
    for (;;) {
      const size_t save = p_;
      std::string sym;
      bool is_symbol = false;
      if (!TrySymbol(&sym, &is_symbol)) return false;
      if (!is_symbol) break;
      SkipSpace(false);
      if (t_.substr(p_, 2) == "::") {
        if (!annotation.empty()) return Fail("more than one Ion annotation on a value");
        annotation = std::move(sym);
        p_ += 2;
        SkipSpace(false);
        if (AtEnd()) return Truncated();
        continue;
      }
      p_ = save;
      break;
    }
    if (!annotation.empty()) {
      AttrType set;
      if (annotation == "$dynamodb_SS") {
        set = AttrType::kSS;
      } else if (annotation == "$dynamodb_NS") {
        set = AttrType::kNS;
      } else if (annotation == "$dynamodb_BS") {
        set = AttrType::kBS;
      } else {
        return Fail("unsupported Ion annotation '" + annotation + "'");
      }
      return Set(set, out, depth);
    }
    const char c = t_[p_];
    if (c == '{') {
      if (t_.substr(p_, 2) == "{{") return Lob(out);
      Item m;
      if (!Struct(&m, depth)) return false;
      *out = AttributeValue::M(std::move(m));
      return true;
    }
    if (c == '[') {
      std::vector<AttributeValue> list;
      ++p_;
      for (;;) {
        SkipSpace(false);
        if (AtEnd()) return Truncated();
        if (t_[p_] == ']') {
          ++p_;
          break;
        }
        list.emplace_back();
        if (!Value(&list.back(), depth + 1)) return false;
        if (!Separator(']')) return false;
      }
      *out = AttributeValue::L(std::move(list));
      return true;
    }
    if (c == '(') return Fail("Ion S-expressions are not DynamoDB values");
    if (c == '"' || (c == '\'' && t_.substr(p_, 3) == "'''")) {
      std::string s;
      if (!Text(&s)) return false;
      *out = AttributeValue::S(std::move(s));
      return true;
    }
    std::string sym;
    bool is_symbol = false;
    if (!TrySymbol(&sym, &is_symbol)) return false;
    if (is_symbol) {
      if (sym == "true" || sym == "false") {
        *out = AttributeValue::Bool(sym == "true");
      } else if (sym == "null") {
        // A typed null (null.string) is a null too.
        if (p_ < t_.size() && t_[p_] == '.') {
          ++p_;
          std::string type;
          bool typed = false;
          if (!TrySymbol(&type, &typed)) return false;
          if (!typed) return Fail("malformed Ion typed null");
        }
        *out = AttributeValue::Null();
      } else if (sym == "nan") {
        return Fail("an Ion nan is not a DynamoDB number");
      } else {
        *out = AttributeValue::S(std::move(sym));  // a symbol value
      }
      return true;
    }
    return Number(out);
  }

  // A struct's fields into *out.
  bool Struct(Item* out, int depth) {
    ++p_;  // '{'
    for (;;) {
      SkipSpace(false);
      if (AtEnd()) return Truncated();
      if (t_[p_] == '}') {
        ++p_;
        return true;
      }
      std::string name;
      if (t_[p_] == '"' || t_.substr(p_, 3) == "'''") {
        if (!Text(&name)) return false;
      } else {
        bool is_symbol = false;
        if (!TrySymbol(&name, &is_symbol)) return false;
        if (!is_symbol) return Fail("expected an Ion field name");
      }
      SkipSpace(false);
      if (AtEnd()) return Truncated();
      if (t_[p_] != ':') return Fail("expected ':' after Ion field name '" + name + "'");
      ++p_;
      AttributeValue v;
      if (!Value(&v, depth + 1)) return false;
      out->insert_or_assign(std::move(name), std::move(v));
      if (!Separator('}')) return false;
    }
  }

 private:
  // After a container's element: ',' or the closing bracket (left in place).
  bool Separator(char close) {
    SkipSpace(false);
    if (AtEnd()) return Truncated();
    if (t_[p_] == ',') {
      ++p_;
      return true;
    }
    if (t_[p_] == close) return true;
    return Fail(std::string("expected ',' or '") + close + "' in Ion text");
  }

  // An identifier or 'quoted symbol' at p_ into *out; *is_symbol false (and
  // nothing consumed) when there is none.
  bool TrySymbol(std::string* out, bool* is_symbol) {
    *is_symbol = false;
    if (AtEnd()) return true;
    if (t_[p_] == '\'' && t_.substr(p_, 3) != "'''") {
      *is_symbol = true;
      return Quoted('\'', out);
    }
    if (!IsIdentStart(t_[p_])) return true;
    size_t e = p_;
    while (e < t_.size() && IsIdentChar(t_[e])) ++e;
    out->assign(t_.substr(p_, e - p_));
    p_ = e;
    *is_symbol = true;
    return true;
  }

  // "..." or one or more '''...''' (concatenated) at p_.
  bool Text(std::string* out) {
    if (t_[p_] == '"') return Quoted('"', out);
    out->clear();
    while (t_.substr(p_, 3) == "'''") {
      p_ += 3;
      std::string part;
      for (;;) {
        if (AtEnd()) return Truncated();
        if (t_.substr(p_, 3) == "'''") {
          p_ += 3;
          break;
        }
        if (!Char(&part)) return false;
      }
      out->append(part);
      SkipSpace(false);
    }
    return true;
  }

  bool Quoted(char quote, std::string* out) {
    ++p_;
    out->clear();
    for (;;) {
      if (AtEnd()) return Truncated();
      if (t_[p_] == quote) {
        ++p_;
        return true;
      }
      if (t_[p_] == '\n') return Fail("a newline inside an Ion quoted string");
      if (!Char(out)) return false;
    }
  }

  bool Hex(size_t digits, uint32_t* out) {
    if (p_ + digits > t_.size()) return Truncated();
    *out = 0;
    for (size_t i = 0; i < digits; ++i) {
      const char c = t_[p_ + i];
      uint32_t d;
      if (c >= '0' && c <= '9') {
        d = c - '0';
      } else if (c >= 'a' && c <= 'f') {
        d = c - 'a' + 10;
      } else if (c >= 'A' && c <= 'F') {
        d = c - 'A' + 10;
      } else {
        return Fail("malformed Ion escape");
      }
      *out = *out * 16 + d;
    }
    p_ += digits;
    return true;
  }

  // One character or escape of a string body.
  bool Char(std::string* out) {
    const char c = t_[p_++];
    if (c != '\\') {
      out->push_back(c);
      return true;
    }
    if (AtEnd()) return Truncated();
    const char e = t_[p_++];
    uint32_t cp = 0;
    switch (e) {
      case 'n': out->push_back('\n'); return true;
      case 't': out->push_back('\t'); return true;
      case 'r': out->push_back('\r'); return true;
      case '0': out->push_back('\0'); return true;
      case 'a': out->push_back('\a'); return true;
      case 'b': out->push_back('\b'); return true;
      case 'v': out->push_back('\v'); return true;
      case 'f': out->push_back('\f'); return true;
      case '"': case '\'': case '\\': case '/': case '?': out->push_back(e); return true;
      case '\n': return true;  // a continued line
      case 'x': if (!Hex(2, &cp)) return false; break;
      case 'u': if (!Hex(4, &cp)) return false; break;
      case 'U': if (!Hex(8, &cp)) return false; break;
      default: return Fail(std::string("unknown Ion escape \\") + e);
    }
    if (cp > 0x10FFFF) return Fail("Ion escape out of Unicode's range");
    api::AppendUtf8(cp, out);
    return true;
  }

  // {{base64}} (a blob) or {{"text"}} (a clob).
  bool Lob(AttributeValue* out) {
    p_ += 2;
    const size_t end = t_.find("}}", p_);
    if (end == std::string_view::npos) return Truncated();
    std::string_view body = t_.substr(p_, end - p_);
    p_ = end + 2;
    size_t b = 0;
    while (b < body.size() && (body[b] == ' ' || body[b] == '\t' || body[b] == '\n')) ++b;
    if (b < body.size() && (body[b] == '"' || body[b] == '\'')) {
      Parser inner(body.substr(b));
      std::string s;
      if (!inner.Text(&s)) return Fail("malformed Ion clob");
      *out = AttributeValue::B(std::move(s));
      return true;
    }
    std::string compact;
    for (char c : body) {
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') compact.push_back(c);
    }
    std::string bytes, error;
    if (!api::Base64Decode(compact, &bytes, &error)) return Fail("malformed Ion blob: " + error);
    *out = AttributeValue::B(std::move(bytes));
    return true;
  }

  // An Ion int, decimal or float, as N text (not yet normalised).
  bool Number(AttributeValue* out) {
    size_t e = p_;
    while (e < t_.size() && (IsIdentChar(t_[e]) || t_[e] == '.' || t_[e] == '-' ||
                             t_[e] == '+')) {
      ++e;
    }
    std::string_view tok = t_.substr(p_, e - p_);
    if (tok.empty()) return Fail(std::string("unexpected '") + t_[p_] + "' in Ion text");
    p_ = e;
    if (tok == "+inf" || tok == "-inf") return Fail("an Ion infinity is not a DynamoDB number");
    std::string n;
    for (char c : tok) {
      if (c == '_') continue;  // digit separators
      n.push_back(c == 'd' || c == 'D' ? 'E' : c);
    }
    std::string_view digits = n;
    const bool negative = !digits.empty() && digits[0] == '-';
    if (negative) digits.remove_prefix(1);
    if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X' ||
                                                  digits[1] == 'b' || digits[1] == 'B')) {
      const int base = digits[1] == 'x' || digits[1] == 'X' ? 16 : 2;
      char* end = nullptr;
      const std::string body(digits.substr(2));
      const unsigned long long v = std::strtoull(body.c_str(), &end, base);
      if (end == nullptr || *end != '\0') return Fail("malformed Ion int '" + std::string(tok) + "'");
      n = (negative ? "-" : "") + std::to_string(v);
    }
    if (n.back() == '.') n.pop_back();  // "103." is the decimal 103
    for (char c : n) {
      if (!((c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' ||
            c == 'E')) {
        return Fail("'" + std::string(tok) + "' is not an Ion number (timestamps are not "
                    "DynamoDB values)");
      }
    }
    *out = AttributeValue::N(std::move(n));
    return true;
  }

  bool Set(AttrType type, AttributeValue* out, int depth) {
    SkipSpace(false);
    if (AtEnd()) return Truncated();
    if (t_[p_] != '[') return Fail("a $dynamodb set annotation on something other than a list");
    AttributeValue list;
    if (!Value(&list, depth)) return false;
    std::vector<std::string> members;
    for (const AttributeValue& e : list.list()) {
      const AttrType want = type == AttrType::kSS   ? AttrType::kS
                            : type == AttrType::kNS ? AttrType::kN
                                                    : AttrType::kB;
      if (!e.is(want)) return Fail("a $dynamodb set member of the wrong type");
      members.push_back(e.scalar());
    }
    *out = type == AttrType::kSS   ? AttributeValue::SS(std::move(members))
           : type == AttrType::kNS ? AttributeValue::NS(std::move(members))
                                   : AttributeValue::BS(std::move(members));
    return true;
  }

  std::string_view t_;
  size_t p_ = 0;
  bool incomplete_ = false;
  std::string error_;
};

}  // namespace

Status ParseIonRecord(std::string_view text, Item* out, bool* incomplete) {
  *incomplete = false;
  out->clear();
  Parser p(text);
  p.SkipSpace(true);
  if (p.AtEnd()) {
    *incomplete = true;
    return Status(ErrorType::kValidation, "no Ion value");
  }
  AttributeValue v;
  if (p.Value(&v, 0)) {
    if (!v.is(AttrType::kM)) return Status(ErrorType::kValidation, "an Ion record must be a struct");
    p.SkipSpace(true);
    if (!p.AtEnd()) return Status(ErrorType::kValidation, "text after the Ion record");
    *out = std::move(v.mutable_map());
    return Status();
  }
  if (p.incomplete()) {
    *incomplete = true;
    return Status(ErrorType::kValidation, "the Ion record is not complete");
  }
  return Status(ErrorType::kValidation, "Invalid Ion: " + p.error());
}

}  // namespace dynarock::transfer
