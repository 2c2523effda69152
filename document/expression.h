// File: document/expression.h
//
// Expression builders (issue 22, point 2): condition, filter, key condition,
// projection and update expressions from typed calls, with the name and value
// placeholders generated (#n0, :v0, ...) -- never user data pasted into the
// text. As Go's expression package and the Java Enhanced Client do it:
//
//   namespace doc = dynarock::document;
//   auto key = doc::Key("user").Eq("ann").And(doc::Key("due").Between(a, b));
//   auto filter = doc::Name("done").Eq(false).And(doc::Name("tags").Contains("home"));
//   auto update = doc::Update().Set("count", doc::Name("count") + 1)
//                              .Set("seen", doc::IfNotExists("seen", 0))
//                              .Remove("draft");
//   StatusOr<doc::Expressions> e = doc::Expressions::Build()
//       .KeyCondition(key).Filter(filter).Projection({"user", "due", "tags[0]"}).Done();
//   // e->key_condition: "#n0 = :v0 AND #n1 BETWEEN :v1 AND :v2"
//   // e->names: {"#n0": "user", ...}; e->values: {":v0": {"S": "ann"}, ...}
//
// Names are paths ("a.b[2].c"): each part becomes a placeholder, list indexes
// stay as they are. Refused when built (a ValidationException that says what):
// a key condition that is not equalities left to right with at most a range
// condition (<, <=, >, >=, BETWEEN, begins_with) on its last part, which is a
// sort key attribute: one partition key attribute and one sort key attribute,
// or a GSI's multi-attribute key (up to four of each, 8 parts); a value
// that is not a DynamoDB value; an update naming no action; an empty path.

#ifndef DYNAROCK_DOCUMENT_EXPRESSION_H_
#define DYNAROCK_DOCUMENT_EXPRESSION_H_

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "document/value.h"

namespace dynarock::document {

class Placeholders;
class Condition;
class KeyCondition;

// An operand: an attribute path, a value, or a function of them.
class Operand {
 public:
  // A value where an operand goes: anything a Value is made from (strings
  // are values; Name() makes a path).
  Operand(Value v);  // NOLINT
  template <typename T>
    requires(std::is_constructible_v<Value, T> && !std::is_same_v<std::decay_t<T>, Value> &&
             !std::is_same_v<std::decay_t<T>, Operand>)
  Operand(T&& v) : Operand(Value(std::forward<T>(v))) {}  // NOLINT

  class Condition Eq(const Operand& o) const;
  class Condition Ne(const Operand& o) const;
  class Condition Lt(const Operand& o) const;
  class Condition Le(const Operand& o) const;
  class Condition Gt(const Operand& o) const;
  class Condition Ge(const Operand& o) const;
  class Condition Between(const Operand& low, const Operand& high) const;
  class Condition In(std::vector<Operand> options) const;
  class Condition BeginsWith(const Operand& prefix) const;
  class Condition Contains(const Operand& element) const;
  class Condition AttributeExists() const;
  class Condition AttributeNotExists() const;
  // S, SS, N, NS, B, BS, BOOL, NULL, L, M.
  class Condition AttributeType(std::string type) const;
  Operand Size() const;

  // Update values: a + b, a - b.
  friend Operand operator+(const Operand& a, const Operand& b);
  friend Operand operator-(const Operand& a, const Operand& b);

  // What it writes (placeholders added to `p`), or an error.
  StatusOr<std::string> Render(Placeholders* p) const;
  const std::string& path() const { return path_; }  // empty unless a bare path

 private:
  friend Operand Name(std::string path);
  friend Operand Attribute(std::string name);
  friend Operand ListAppend(const Operand& a, const Operand& b);
  friend Operand IfNotExists(std::string path, const Operand& fallback);
  Operand() = default;
  enum class Kind { kPath, kAttribute, kValue, kSize, kPlus, kMinus, kListAppend, kIfNotExists };
  Kind kind_ = Kind::kValue;
  std::string path_;
  std::shared_ptr<const Value> value_;
  std::vector<Operand> args_;
};

Operand Name(std::string path);
// A top-level attribute named literally: "a.b" is one attribute called a.b,
// where Name("a.b") is the member b of the map a (typed records use this).
Operand Attribute(std::string name);
// list_append(a, b) and if_not_exists(path, fallback), for updates.
Operand ListAppend(const Operand& a, const Operand& b);
Operand IfNotExists(std::string path, const Operand& fallback);

// A condition (ConditionExpression, FilterExpression), composable.
class Condition {
 public:
  Condition And(const Condition& other) const;
  Condition Or(const Condition& other) const;
  Condition Not() const;
  StatusOr<std::string> Render(Placeholders* p) const;

 private:
  friend class Operand;
  friend class KeyCondition;
  enum class Kind { kCompare, kBetween, kIn, kFunction, kAnd, kOr, kNot };
  Kind kind_ = Kind::kCompare;
  std::string op_;  // "=", "<>", ..., or the function's name
  std::vector<Operand> operands_;
  std::vector<Condition> parts_;
  std::optional<std::string> type_;  // attribute_type's
};

// A key condition: Key("pk").Eq(v), optionally .And(Key("sk").<op>(...)); for
// a multi-attribute key, each attribute in the key's order:
// Key("a").Eq(1).And(Key("b").Eq(2)).And(Key("c").Eq(3)).And(Key("d").Lt(4)).
class KeyPart {
 public:
  explicit KeyPart(std::string name) : name_(std::move(name)) {}
  class KeyCondition Eq(const Operand& v) const;
  class KeyCondition Lt(const Operand& v) const;
  class KeyCondition Le(const Operand& v) const;
  class KeyCondition Gt(const Operand& v) const;
  class KeyCondition Ge(const Operand& v) const;
  class KeyCondition Between(const Operand& low, const Operand& high) const;
  class KeyCondition BeginsWith(const Operand& prefix) const;

 private:
  std::string name_;
};
inline KeyPart Key(std::string name) { return KeyPart(std::move(name)); }

class KeyCondition {
 public:
  KeyCondition And(const KeyCondition& sort) const;
  // Refused unless every part but the last is an equality, the first one too,
  // no attribute is named twice, and there are at most 8 parts.
  StatusOr<std::string> Render(Placeholders* p) const;

 private:
  friend class KeyPart;
  std::vector<std::pair<std::string, Condition>> parts_;  // attribute, its condition
};

// An update: SET, REMOVE, ADD, DELETE actions, in that order.
class Update {
 public:
  Update& Set(std::string path, const Operand& value);
  Update& Remove(std::string path);
  Update& Add(std::string path, Value value);     // a number, or a set's elements
  Update& Delete(std::string path, Value value);  // a set's elements
  // SET and REMOVE of a top-level attribute named literally (see Attribute).
  Update& SetAttribute(std::string name, const Operand& value);
  Update& RemoveAttribute(std::string name);
  StatusOr<std::string> Render(Placeholders* p) const;

 private:
  struct Target {
    std::string path;
    bool literal = false;  // a top-level attribute's name, not a path
  };
  std::vector<std::pair<Target, Operand>> set_;
  std::vector<Target> remove_;
  std::vector<std::pair<std::string, Value>> add_, delete_;
};

// The expressions of one request, sharing their placeholders.
struct Expressions {
  std::optional<std::string> key_condition, condition, filter, projection, update;
  std::map<std::string, std::string> names;  // ExpressionAttributeNames
  Item values;                               // ExpressionAttributeValues

  class Builder;
  static Builder Build();
};

class Expressions::Builder {
 public:
  Builder& KeyCondition(const class KeyCondition& k);
  Builder& Condition(const class Condition& c);
  Builder& Filter(const class Condition& c);
  Builder& Projection(std::vector<std::string> paths);
  Builder& Update(const class Update& u);
  // Every expression rendered, or the first refusal.
  StatusOr<Expressions> Done() const;

 private:
  std::optional<class KeyCondition> key_;
  std::optional<class Condition> condition_, filter_;
  std::optional<std::vector<std::string>> projection_;
  std::optional<class Update> update_;
};

// The placeholders of one request: each path part and value gets one, the
// same name or equal value the same placeholder.
class Placeholders {
 public:
  StatusOr<std::string> Path(const std::string& path);
  // One attribute name, taken literally.
  std::string Name(const std::string& name);
  StatusOr<std::string> ValueOf(const Value& v);
  std::map<std::string, std::string> names;
  Item values;

 private:
  std::map<std::string, std::string> by_name_;
};

}  // namespace dynarock::document

#endif  // DYNAROCK_DOCUMENT_EXPRESSION_H_
