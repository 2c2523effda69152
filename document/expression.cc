// File: document/expression.cc

#include "document/expression.h"

#include <utility>

namespace dynarock::document {

// ---------------------------------------------------------------- placeholders

StatusOr<std::string> Placeholders::Path(const std::string& path) {
  // a.b[2].c: each name part a placeholder, [n] as it is.
  if (path.empty()) return ValidationError("an attribute path is empty");
  std::string out;
  size_t i = 0;
  while (i < path.size()) {
    size_t end = path.find_first_of(".[", i);
    if (end == std::string::npos) end = path.size();
    const std::string part = path.substr(i, end - i);
    if (part.empty()) return ValidationError("the attribute path '" + path + "' has an empty part");
    out += Name(part);
    i = end;
    while (i < path.size() && path[i] == '[') {
      const size_t close = path.find(']', i);
      if (close == std::string::npos || close == i + 1 ||
          path.find_first_not_of("0123456789", i + 1) != close) {
        return ValidationError("the attribute path '" + path + "' has a bad list index");
      }
      out += path.substr(i, close - i + 1);
      i = close + 1;
    }
    if (i < path.size()) {
      if (path[i] != '.') return ValidationError("the attribute path '" + path + "' is malformed");
      out += '.';
      ++i;
      if (i == path.size()) return ValidationError("the attribute path '" + path + "' ends with '.'");
    }
  }
  return out;
}

std::string Placeholders::Name(const std::string& name) {
  auto it = by_name_.find(name);
  if (it == by_name_.end()) {
    const std::string ph = "#n" + std::to_string(by_name_.size());
    it = by_name_.emplace(name, ph).first;
    names[ph] = name;
  }
  return it->second;
}

StatusOr<std::string> Placeholders::ValueOf(const Value& v) {
  DR_ASSIGN_OR_RETURN(AttributeValue a, v.ToAttributeValue());
  for (const auto& [ph, existing] : values) {
    if (existing == a) return ph;
  }
  const std::string ph = ":v" + std::to_string(values.size());
  values.emplace(ph, std::move(a));
  return ph;
}

// ---------------------------------------------------------------- operands

Operand::Operand(Value v) : kind_(Kind::kValue), value_(std::make_shared<const Value>(std::move(v))) {}

Operand Name(std::string path) {
  Operand o;
  o.kind_ = Operand::Kind::kPath;
  o.path_ = std::move(path);
  return o;
}

Operand Attribute(std::string name) {
  Operand o;
  o.kind_ = Operand::Kind::kAttribute;
  o.path_ = std::move(name);
  return o;
}

Operand ListAppend(const Operand& a, const Operand& b) {
  Operand o;
  o.kind_ = Operand::Kind::kListAppend;
  o.args_ = {a, b};
  return o;
}

Operand IfNotExists(std::string path, const Operand& fallback) {
  Operand o;
  o.kind_ = Operand::Kind::kIfNotExists;
  o.args_ = {Name(std::move(path)), fallback};
  return o;
}

Operand Operand::Size() const {
  Operand o;
  o.kind_ = Kind::kSize;
  o.args_ = {*this};
  return o;
}

Operand operator+(const Operand& a, const Operand& b) {
  Operand o;
  o.kind_ = Operand::Kind::kPlus;
  o.args_ = {a, b};
  return o;
}

Operand operator-(const Operand& a, const Operand& b) {
  Operand o;
  o.kind_ = Operand::Kind::kMinus;
  o.args_ = {a, b};
  return o;
}

StatusOr<std::string> Operand::Render(Placeholders* p) const {
  switch (kind_) {
    case Kind::kPath:
      return p->Path(path_);
    case Kind::kAttribute:
      if (path_.empty()) return ValidationError("an attribute name is empty");
      return p->Name(path_);
    case Kind::kValue:
      return p->ValueOf(*value_);
    case Kind::kSize: {
      DR_ASSIGN_OR_RETURN(std::string a, args_[0].Render(p));
      return "size(" + a + ")";
    }
    case Kind::kPlus:
    case Kind::kMinus: {
      DR_ASSIGN_OR_RETURN(std::string a, args_[0].Render(p));
      DR_ASSIGN_OR_RETURN(std::string b, args_[1].Render(p));
      return a + (kind_ == Kind::kPlus ? " + " : " - ") + b;
    }
    case Kind::kListAppend:
    case Kind::kIfNotExists: {
      DR_ASSIGN_OR_RETURN(std::string a, args_[0].Render(p));
      DR_ASSIGN_OR_RETURN(std::string b, args_[1].Render(p));
      return std::string(kind_ == Kind::kListAppend ? "list_append(" : "if_not_exists(") + a + ", " + b + ")";
    }
  }
  return InternalError("unknown operand");
}

// Conditions are built through Operand's members (friends of Condition).
#define DR_COMPARE(fn, op)                              \
  Condition Operand::fn(const Operand& o) const {       \
    Condition c;                                        \
    c.kind_ = Condition::Kind::kCompare;                \
    c.op_ = op;                                         \
    c.operands_ = {*this, o};                           \
    return c;                                           \
  }
DR_COMPARE(Eq, "=")
DR_COMPARE(Ne, "<>")
DR_COMPARE(Lt, "<")
DR_COMPARE(Le, "<=")
DR_COMPARE(Gt, ">")
DR_COMPARE(Ge, ">=")
#undef DR_COMPARE

Condition Operand::Between(const Operand& low, const Operand& high) const {
  Condition c;
  c.kind_ = Condition::Kind::kBetween;
  c.operands_ = {*this, low, high};
  return c;
}

Condition Operand::In(std::vector<Operand> options) const {
  Condition c;
  c.kind_ = Condition::Kind::kIn;
  c.operands_ = {*this};
  for (Operand& o : options) c.operands_.push_back(std::move(o));
  return c;
}

Condition Operand::BeginsWith(const Operand& prefix) const {
  Condition c;
  c.kind_ = Condition::Kind::kFunction;
  c.op_ = "begins_with";
  c.operands_ = {*this, prefix};
  return c;
}

Condition Operand::Contains(const Operand& element) const {
  Condition c;
  c.kind_ = Condition::Kind::kFunction;
  c.op_ = "contains";
  c.operands_ = {*this, element};
  return c;
}

Condition Operand::AttributeExists() const {
  Condition c;
  c.kind_ = Condition::Kind::kFunction;
  c.op_ = "attribute_exists";
  c.operands_ = {*this};
  return c;
}

Condition Operand::AttributeNotExists() const {
  Condition c;
  c.kind_ = Condition::Kind::kFunction;
  c.op_ = "attribute_not_exists";
  c.operands_ = {*this};
  return c;
}

Condition Operand::AttributeType(std::string type) const {
  Condition c;
  c.kind_ = Condition::Kind::kFunction;
  c.op_ = "attribute_type";
  c.operands_ = {*this};
  c.type_ = std::move(type);
  return c;
}

// ---------------------------------------------------------------- conditions

Condition Condition::And(const Condition& other) const {
  Condition c;
  c.kind_ = Kind::kAnd;
  c.parts_ = {*this, other};
  return c;
}

Condition Condition::Or(const Condition& other) const {
  Condition c;
  c.kind_ = Kind::kOr;
  c.parts_ = {*this, other};
  return c;
}

Condition Condition::Not() const {
  Condition c;
  c.kind_ = Kind::kNot;
  c.parts_ = {*this};
  return c;
}

StatusOr<std::string> Condition::Render(Placeholders* p) const {
  std::vector<std::string> r;
  for (const Operand& o : operands_) {
    if ((op_ == "attribute_exists" || op_ == "attribute_not_exists" || op_ == "attribute_type") &&
        o.path().empty() && r.empty()) {
      return ValidationError(op_ + " takes an attribute path (Name(...)), not a value");
    }
    DR_ASSIGN_OR_RETURN(std::string s, o.Render(p));
    r.push_back(std::move(s));
  }
  switch (kind_) {
    case Kind::kCompare:
      return r[0] + " " + op_ + " " + r[1];
    case Kind::kBetween:
      return r[0] + " BETWEEN " + r[1] + " AND " + r[2];
    case Kind::kIn: {
      if (r.size() < 2) return ValidationError("IN needs at least one value");
      if (r.size() > 101) return ValidationError("IN takes at most 100 values");
      std::string out = r[0] + " IN (";
      for (size_t i = 1; i < r.size(); ++i) out += (i > 1 ? ", " : "") + r[i];
      return out + ")";
    }
    case Kind::kFunction: {
      std::string out = op_ + "(" + r[0];
      if (type_) {
        static const char* kTypes[] = {"S", "SS", "N", "NS", "B", "BS", "BOOL", "NULL", "L", "M"};
        bool known = false;
        for (const char* t : kTypes) known = known || *type_ == t;
        if (!known) return ValidationError("attribute_type: '" + *type_ + "' is not a DynamoDB type");
        DR_ASSIGN_OR_RETURN(std::string t, p->ValueOf(Value(*type_)));
        out += ", " + t;
      }
      for (size_t i = 1; i < r.size(); ++i) out += ", " + r[i];
      return out + ")";
    }
    case Kind::kAnd:
    case Kind::kOr: {
      DR_ASSIGN_OR_RETURN(std::string a, parts_[0].Render(p));
      DR_ASSIGN_OR_RETURN(std::string b, parts_[1].Render(p));
      return "(" + a + ") " + (kind_ == Kind::kAnd ? "AND" : "OR") + " (" + b + ")";
    }
    case Kind::kNot: {
      DR_ASSIGN_OR_RETURN(std::string a, parts_[0].Render(p));
      return "NOT (" + a + ")";
    }
  }
  return InternalError("unknown condition");
}

// ---------------------------------------------------------------- key conditions

#define DR_KEY(fn, method)                                   \
  KeyCondition KeyPart::fn(const Operand& v) const {         \
    KeyCondition k;                                          \
    k.parts_.emplace_back(name_, Name(name_).method(v));     \
    return k;                                                \
  }
DR_KEY(Eq, Eq)
DR_KEY(Lt, Lt)
DR_KEY(Le, Le)
DR_KEY(Gt, Gt)
DR_KEY(Ge, Ge)
DR_KEY(BeginsWith, BeginsWith)
#undef DR_KEY

KeyCondition KeyPart::Between(const Operand& low, const Operand& high) const {
  KeyCondition k;
  k.parts_.emplace_back(name_, Name(name_).Between(low, high));
  return k;
}

KeyCondition KeyCondition::And(const KeyCondition& sort) const {
  KeyCondition k = *this;
  k.parts_.insert(k.parts_.end(), sort.parts_.begin(), sort.parts_.end());
  return k;
}

StatusOr<std::string> KeyCondition::Render(Placeholders* p) const {
  // A key of one partition and one sort attribute, or a GSI's multi-attribute
  // key (up to four of each): equalities left to right, and a range condition
  // only on the last attribute named, which is a sort key attribute.
  constexpr size_t kMaxParts = 8;
  if (parts_.empty() || parts_.size() > kMaxParts) {
    return ValidationError("a key condition is an equality on each partition key attribute, then sort key "
                           "conditions (at most " + std::to_string(kMaxParts) + " parts in all; it has " +
                           std::to_string(parts_.size()) + " parts)");
  }
  for (size_t i = 0; i < parts_.size(); ++i) {
    const auto& [name, c] = parts_[i];
    const bool equality = c.kind_ == Condition::Kind::kCompare && c.op_ == "=";
    if (!equality && i == 0) {
      return ValidationError("the key condition on " + name +
                             " (the partition key) must be an equality: a range condition is only for "
                             "the sort key");
    }
    if (!equality && i + 1 < parts_.size()) {
      return ValidationError("the key condition on " + name + " must be an equality: only the last attribute " +
                             "of a key condition takes a range condition (a multi-attribute key is matched " +
                             "left to right)");
    }
    for (size_t j = 0; j < i; ++j) {
      if (parts_[j].first == name) {
        return ValidationError("the key condition names " + name + " twice: each key attribute takes one condition");
      }
    }
  }
  std::string out;
  for (const auto& [name, c] : parts_) {
    DR_ASSIGN_OR_RETURN(std::string s, c.Render(p));
    out += (out.empty() ? "" : " AND ") + s;
  }
  return out;
}

// ---------------------------------------------------------------- updates

Update& Update::Set(std::string path, const Operand& value) {
  set_.emplace_back(Target{std::move(path)}, value);
  return *this;
}
Update& Update::Remove(std::string path) {
  remove_.push_back(Target{std::move(path)});
  return *this;
}
Update& Update::SetAttribute(std::string name, const Operand& value) {
  set_.emplace_back(Target{std::move(name), true}, value);
  return *this;
}
Update& Update::RemoveAttribute(std::string name) {
  remove_.push_back(Target{std::move(name), true});
  return *this;
}
Update& Update::Add(std::string path, Value value) {
  add_.emplace_back(std::move(path), std::move(value));
  return *this;
}
Update& Update::Delete(std::string path, Value value) {
  delete_.emplace_back(std::move(path), std::move(value));
  return *this;
}

StatusOr<std::string> Update::Render(Placeholders* p) const {
  if (set_.empty() && remove_.empty() && add_.empty() && delete_.empty()) {
    return ValidationError("an update needs at least one action (Set, Remove, Add or Delete)");
  }
  std::string out;
  auto clause = [&](const char* keyword, const std::vector<std::string>& actions) {
    if (actions.empty()) return;
    if (!out.empty()) out += ' ';
    out += keyword;
    for (size_t i = 0; i < actions.size(); ++i) out += (i ? ", " : " ") + actions[i];
  };
  std::vector<std::string> sets, removes, adds, deletes;
  auto target = [p](const Target& t) -> StatusOr<std::string> {
    if (!t.literal) return p->Path(t.path);
    if (t.path.empty()) return ValidationError("an attribute name is empty");
    return p->Name(t.path);
  };
  for (const auto& [t, value] : set_) {
    DR_ASSIGN_OR_RETURN(std::string l, target(t));
    DR_ASSIGN_OR_RETURN(std::string r, value.Render(p));
    sets.push_back(l + " = " + r);
  }
  for (const Target& t : remove_) {
    DR_ASSIGN_OR_RETURN(std::string l, target(t));
    removes.push_back(l);
  }
  for (auto* list : {&add_, &delete_}) {
    for (const auto& [path, value] : *list) {
      const Value::Kind k = value.kind();
      const bool set = k == Value::Kind::kStringSet || k == Value::Kind::kNumberSet || k == Value::Kind::kBytesSet;
      if (!set && (list == &delete_ || k != Value::Kind::kNumber)) {
        return ValidationError(std::string(list == &add_ ? "ADD" : "DELETE") + " " + path + ": takes " +
                               (list == &add_ ? "a number or a set" : "a set") + ", not a " +
                               std::string(KindName(k)));
      }
      DR_ASSIGN_OR_RETURN(std::string l, p->Path(path));
      DR_ASSIGN_OR_RETURN(std::string r, p->ValueOf(value));
      (list == &add_ ? adds : deletes).push_back(l + " " + r);
    }
  }
  clause("SET", sets);
  clause("REMOVE", removes);
  clause("ADD", adds);
  clause("DELETE", deletes);
  return out;
}

// ---------------------------------------------------------------- the builder

Expressions::Builder Expressions::Build() { return Builder(); }

Expressions::Builder& Expressions::Builder::KeyCondition(const class KeyCondition& k) {
  key_ = k;
  return *this;
}
Expressions::Builder& Expressions::Builder::Condition(const class Condition& c) {
  condition_ = c;
  return *this;
}
Expressions::Builder& Expressions::Builder::Filter(const class Condition& c) {
  filter_ = c;
  return *this;
}
Expressions::Builder& Expressions::Builder::Projection(std::vector<std::string> paths) {
  projection_ = std::move(paths);
  return *this;
}
Expressions::Builder& Expressions::Builder::Update(const class Update& u) {
  update_ = u;
  return *this;
}

StatusOr<Expressions> Expressions::Builder::Done() const {
  Placeholders p;
  Expressions e;
  if (key_) {
    DR_ASSIGN_OR_RETURN(e.key_condition, key_->Render(&p));
  }
  if (condition_) {
    DR_ASSIGN_OR_RETURN(e.condition, condition_->Render(&p));
  }
  if (filter_) {
    DR_ASSIGN_OR_RETURN(e.filter, filter_->Render(&p));
  }
  if (projection_) {
    if (projection_->empty()) return ValidationError("a projection names at least one attribute");
    std::string out;
    for (const std::string& path : *projection_) {
      DR_ASSIGN_OR_RETURN(std::string s, p.Path(path));
      out += (out.empty() ? "" : ", ") + s;
    }
    e.projection = std::move(out);
  }
  if (update_) {
    DR_ASSIGN_OR_RETURN(e.update, update_->Render(&p));
  }
  e.names = std::move(p.names);
  e.values = std::move(p.values);
  return e;
}

}  // namespace dynarock::document
