#include "index/key_condition.h"

#include "engine/db_impl.h"
#include "engine/key_codec.h"
#include "engine/number.h"
#include "index/maintainer.h"

namespace dynarock {
namespace {

int CompareKeyValues(const AttributeValue& a, const AttributeValue& b) {
  if (a.is(AttrType::kN)) return CompareNumbers(a.scalar(), b.scalar());
  return a.scalar().compare(b.scalar());
}

Status TypeMismatch() {
  return ValidationError(
      "One or more parameter values were invalid: Condition parameter type does not match "
      "schema type");
}

// The terms in key-schema order: one slot per key attribute, null when unused.
struct MatchedTerms {
  std::vector<const expr::KeyTerm*> hash;
  std::vector<const expr::KeyTerm*> range;
  const expr::KeyTerm* stray = nullptr;  // the first term naming no key attribute
};

StatusOr<MatchedTerms> Match(const KeyDef& key, const std::vector<expr::KeyTerm>& terms) {
  MatchedTerms m;
  m.hash.assign(key.hash.size(), nullptr);
  m.range.assign(key.range.size(), nullptr);
  for (const auto& t : terms) {
    const expr::KeyTerm** slot = nullptr;
    for (size_t i = 0; i < key.hash.size() && !slot; ++i)
      if (key.hash[i].name == t.attribute_name) slot = &m.hash[i];
    for (size_t i = 0; i < key.range.size() && !slot; ++i)
      if (key.range[i].name == t.attribute_name) slot = &m.range[i];
    if (!slot) {
      if (!m.stray) m.stray = &t;
      continue;
    }
    if (*slot) {
      return ValidationError("KeyConditionExpressions must only contain one condition per key");
    }
    *slot = &t;
  }
  return m;
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) {
    if (!out.empty()) out += ", ";
    out += n;
  }
  return out;
}

// The shape rules: which key attributes must, may and may not be constrained.
Status CheckShape(const KeyDef& key, const MatchedTerms& m) {
  if (!key.multi_attribute()) {
    if (!m.hash[0]) {
      return ValidationError("Query condition missed key schema element: " + key.hash_name());
    }
    if (m.stray) {
      return ValidationError("Query condition missed key schema element: " +
                             (key.has_range() ? key.range_name() : key.hash_name()));
    }
    return Status();  // the partition's operator is checked after the types
  }
  // Multi-attribute keys, with DynamoDB's messages for them.
  std::vector<std::string> lacking;
  for (size_t i = 0; i < key.hash.size(); ++i) {
    if (!m.hash[i] || m.hash[i]->op != expr::KeyOp::kEq) lacking.push_back(key.hash[i].name);
  }
  if (!lacking.empty()) {
    return ValidationError("HASH key attributes " + JoinNames(lacking) +
                           " must have equality conditions specified in the query");
  }
  if (m.stray) return ValidationError("Query condition missed key schema element");
  // Sort attributes: a prefix of the schema, only the last one used may be a range.
  size_t last = m.range.size();
  while (last > 0 && !m.range[last - 1]) --last;
  if (last == 0) return Status();
  for (size_t i = 0; i + 1 < last; ++i) {
    if (!m.range[i] || m.range[i]->op != expr::KeyOp::kEq) lacking.push_back(key.range[i].name);
  }
  if (!lacking.empty()) {
    return ValidationError("RANGE key attributes " + JoinNames(lacking) +
                           " must have equality conditions specified in the query because a "
                           "condition is present on key attribute " + key.range[last - 1].name);
  }
  return Status();
}

// A key value in a condition: no empty S or B (on an index, in DynamoDB's
// secondary-index wording), and the size of one key attribute. Multi-attribute
// keys are checked value by value here too; their summed sizes are a write's
// check (index/maintainer.h), as in DynamoDB Local 3.3.
Status CheckConditionValue(std::string_view index_name, const std::string& name,
                           const AttributeValue& v, bool is_hash) {
  if (!index_name.empty() && (v.is(AttrType::kS) || v.is(AttrType::kB)) && v.scalar().empty()) {
    return EmptyIndexKeyValue(index_name, name, v.type());
  }
  return CheckKeyValue(name, v, is_hash);
}

Status CheckKeyValues(const KeyDef& key, std::string_view index_name, const MatchedTerms& m,
                      size_t used) {
  for (size_t i = 0; i < key.hash.size(); ++i) {
    DR_RETURN_IF_ERROR(CheckConditionValue(index_name, key.hash[i].name, m.hash[i]->value1, true));
  }
  for (size_t i = 0; i < used; ++i) {
    const expr::KeyTerm& t = *m.range[i];
    DR_RETURN_IF_ERROR(CheckConditionValue(index_name, key.range[i].name, t.value1, false));
    if (t.op == expr::KeyOp::kBetween) {
      DR_RETURN_IF_ERROR(CheckConditionValue(index_name, key.range[i].name, t.value2, false));
    }
  }
  return Status();
}

Status CheckTerm(const KeyAttribute& attr, const expr::KeyTerm& t) {
  if (t.value1.type() != attr.type) return TypeMismatch();
  if (t.op == expr::KeyOp::kBetween) {
    if (t.value2.type() != attr.type) return TypeMismatch();
    if (CompareKeyValues(t.value1, t.value2) > 0) {
      return ValidationError(
          "Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be "
          "greater than or equal to lower bound; lower bound operand: AttributeValue: {" +
          std::string(AttrTypeName(t.value1.type())) + ":" + t.value1.scalar() +
          "}, upper bound operand: AttributeValue: {" +
          std::string(AttrTypeName(t.value2.type())) + ":" + t.value2.scalar() + "}");
    }
  }
  if (t.op == expr::KeyOp::kBeginsWith && attr.type == AttrType::kN) {
    return ValidationError(
        "Invalid KeyConditionExpression: Incorrect operand type for operator or function; "
        "operator or function: begins_with, operand type: N");
  }
  return Status();
}

}  // namespace

StatusOr<KeyRange> KeyConditionRange(const KeyDef& key, std::string_view index_name,
                                     uint32_t prefix_id, bool escaped_sort,
                                     const std::vector<expr::KeyTerm>& terms,
                                     const std::vector<std::string>& filter_names,
                                     bool filter_is_expression) {
  DR_ASSIGN_OR_RETURN(MatchedTerms m, Match(key, terms));
  DR_RETURN_IF_ERROR(CheckShape(key, m));
  for (const auto& t : terms) {
    if (!t.indexable) {
      return ValidationError("Attempted conditional constraint is not an indexable operation");
    }
  }
  size_t used = 0;  // the sort attributes constrained (a prefix, by CheckShape)
  while (used < m.range.size() && m.range[used]) ++used;
  for (size_t i = 0; i < key.hash.size(); ++i) DR_RETURN_IF_ERROR(CheckTerm(key.hash[i], *m.hash[i]));
  for (size_t i = 0; i < used; ++i) DR_RETURN_IF_ERROR(CheckTerm(key.range[i], *m.range[i]));
  // DynamoDB reports a value of the wrong type before a partition condition
  // other than equality.
  if (!key.multi_attribute() && m.hash[0]->op != expr::KeyOp::kEq) {
    return ValidationError("Query key condition not supported");
  }
  for (const auto& name : filter_names) {
    if (key.IsKeyAttribute(name)) {
      return ValidationError(
          std::string(filter_is_expression ? "Filter Expression" : "QueryFilter") +
          " can only contain non-primary key attributes: Primary key attribute: " + name);
    }
  }
  DR_RETURN_IF_ERROR(CheckKeyValues(key, index_name, m, used));

  // The partition, then the equalities on leading sort attributes as a prefix.
  std::vector<const AttributeValue*> hash_values;
  for (const auto* t : m.hash) hash_values.push_back(&t->value1);
  std::string base = EncodePartitionPrefix(prefix_id, hash_values);
  KeyRange range;
  if (used == 0) {
    range.lower = base;
    range.upper = PrefixSuccessor(base);
    return range;
  }
  for (size_t i = 0; i + 1 < used; ++i) AppendEscapedSortKey(m.range[i]->value1, &base);

  // The last condition bounds the next component. On a table the sort key is
  // the key's last component (raw); in an index it is escaped.
  const expr::KeyTerm& last = *m.range[used - 1];
  auto at = [&](const AttributeValue& v) {
    std::string k = base;
    if (escaped_sort) AppendEscapedSortKey(v, &k); else AppendSortKey(v, &k);
    return k;
  };
  auto after = [&](const AttributeValue& v) {
    std::string k = at(v);
    if (escaped_sort) return PrefixSuccessor(k);
    k.push_back('\0');
    return k;
  };
  const AttributeValue& v = last.value1;
  range.lower = base;
  range.upper = PrefixSuccessor(base);
  switch (last.op) {
    case expr::KeyOp::kEq: range.lower = at(v); range.upper = after(v); break;
    case expr::KeyOp::kLt: range.upper = at(v); break;
    case expr::KeyOp::kLe: range.upper = after(v); break;
    case expr::KeyOp::kGt: range.lower = after(v); break;
    case expr::KeyOp::kGe: range.lower = at(v); break;
    case expr::KeyOp::kBetween: range.lower = at(v); range.upper = after(last.value2); break;
    case expr::KeyOp::kBeginsWith: {
      std::string k = base;
      if (escaped_sort) {
        AppendEscapedBytes(v.scalar(), &k);
        k.resize(k.size() - 2);  // the terminator: keep only the escaped prefix
      } else {
        k += v.scalar();
      }
      range.lower = k;
      range.upper = PrefixSuccessor(k);
      break;
    }
  }
  return range;
}

}  // namespace dynarock
