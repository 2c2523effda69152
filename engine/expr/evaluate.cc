// File: engine/expr/evaluate.cc
//
// Evaluation of parsed conditions on an item, following DynamoDB's rules:
//   - A missing attribute makes every comparison false, except <> (true).
//   - Comparisons between different types are false, never errors.
//   - < <= > >= and BETWEEN order only S (bytewise, i.e. by UTF-8 bytes),
//     N (numerically) and B (bytewise); other types compare false.
//   - contains: substring for S and B, membership for sets (the operand must be
//     the set's element type), element equality for L.
//   - size: UTF-16 length of S, bytes of B, elements of sets, L and M.
// The walk recurses once per level of the tree, which the parser bounds.

#include <algorithm>
#include <string>
#include <vector>

#include "engine/expr/ast.h"
#include "engine/expr/expression.h"
#include "engine/number.h"

namespace dynarock::expr {
namespace {

// An evaluated operand: a pointer into the item or the expression, or a value
// computed here (size()).
struct Value {
  const AttributeValue* ptr = nullptr;
  AttributeValue owned;
  bool is_owned = false;
  const AttributeValue* get() const { return is_owned ? &owned : ptr; }
};

std::string Base64(std::string_view bytes) {
  static const char kTable[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const uint32_t n = (static_cast<uint8_t>(bytes[i]) << 16) |
                       (static_cast<uint8_t>(bytes[i + 1]) << 8) | static_cast<uint8_t>(bytes[i + 2]);
    out += kTable[(n >> 18) & 63];
    out += kTable[(n >> 12) & 63];
    out += kTable[(n >> 6) & 63];
    out += kTable[n & 63];
  }
  if (i + 1 == bytes.size()) {
    const uint32_t n = static_cast<uint8_t>(bytes[i]) << 16;
    out += kTable[(n >> 18) & 63];
    out += kTable[(n >> 12) & 63];
    out += "==";
  } else if (i + 2 == bytes.size()) {
    const uint32_t n = (static_cast<uint8_t>(bytes[i]) << 16) | (static_cast<uint8_t>(bytes[i + 1]) << 8);
    out += kTable[(n >> 18) & 63];
    out += kTable[(n >> 12) & 63];
    out += kTable[(n >> 6) & 63];
    out += '=';
  }
  return out;
}

Value EvaluateOperand(const Operand& op, const Item& item);

std::optional<int64_t> SizeOf(const AttributeValue& v) {
  switch (v.type()) {
    case AttrType::kS: return Utf16Length(v.scalar());
    case AttrType::kB: return static_cast<int64_t>(v.scalar().size());
    case AttrType::kSS:
    case AttrType::kNS:
    case AttrType::kBS: return static_cast<int64_t>(v.set().size());
    case AttrType::kL: return static_cast<int64_t>(v.list().size());
    case AttrType::kM: return static_cast<int64_t>(v.map().size());
    default: return std::nullopt;
  }
}

Value EvaluateOperand(const Operand& op, const Item& item) {
  Value out;
  switch (op.kind) {
    case OperandKind::kPath:
      out.ptr = ResolvePath(item, op.path);
      break;
    case OperandKind::kValue:
      out.ptr = &op.value;
      break;
    case OperandKind::kFunction:
      if (op.function == FunctionId::kSize && op.args.size() == 1) {
        Value arg = EvaluateOperand(op.args[0], item);
        if (arg.get() != nullptr) {
          if (auto n = SizeOf(*arg.get())) {
            out.owned = AttributeValue::N(std::to_string(*n));
            out.is_owned = true;
          }
        }
      }
      break;
    case OperandKind::kPlus:
    case OperandKind::kMinus:
      break;  // update expressions only
  }
  return out;
}

bool Compare(CompareOp op, const AttributeValue* a, const AttributeValue* b) {
  if (op == CompareOp::kEq) return a != nullptr && b != nullptr && *a == *b;
  if (op == CompareOp::kNe) return !(a != nullptr && b != nullptr && *a == *b);
  if (a == nullptr || b == nullptr || a->type() != b->type() || !IsOrderable(*a)) return false;
  const int c = CompareScalars(*a, *b);
  switch (op) {
    case CompareOp::kLt: return c < 0;
    case CompareOp::kLe: return c <= 0;
    case CompareOp::kGt: return c > 0;
    case CompareOp::kGe: return c >= 0;
    default: return false;
  }
}

bool Contains(const AttributeValue& haystack, const AttributeValue& needle) {
  switch (haystack.type()) {
    case AttrType::kS:
    case AttrType::kB:
      return needle.type() == haystack.type() &&
             haystack.scalar().find(needle.scalar()) != std::string::npos;
    case AttrType::kSS:
    case AttrType::kNS:
    case AttrType::kBS: {
      const AttrType element = haystack.is(AttrType::kSS)   ? AttrType::kS
                               : haystack.is(AttrType::kNS) ? AttrType::kN
                                                            : AttrType::kB;
      if (!needle.is(element)) return false;
      for (const auto& e : haystack.set()) {
        if (e == needle.scalar()) return true;
      }
      return false;
    }
    case AttrType::kL:
      for (const auto& e : haystack.list()) {
        if (e == needle) return true;
      }
      return false;
    default:
      return false;
  }
}

bool EvaluateFunction(const Condition& c, const Item& item) {
  const auto& args = c.operands;
  switch (c.function) {
    case FunctionId::kAttributeExists:
      return args[0].kind == OperandKind::kPath && ResolvePath(item, args[0].path) != nullptr;
    case FunctionId::kAttributeNotExists:
      return args[0].kind == OperandKind::kPath && ResolvePath(item, args[0].path) == nullptr;
    case FunctionId::kAttributeType: {
      Value v = EvaluateOperand(args[0], item);
      Value t = EvaluateOperand(args[1], item);
      AttrType type;
      if (v.get() == nullptr || t.get() == nullptr || !t.get()->is(AttrType::kS) ||
          !ParseAttrTypeName(t.get()->scalar(), &type)) {
        return false;
      }
      return v.get()->type() == type;
    }
    case FunctionId::kBeginsWith: {
      Value a = EvaluateOperand(args[0], item);
      Value b = EvaluateOperand(args[1], item);
      if (a.get() == nullptr || b.get() == nullptr || a.get()->type() != b.get()->type()) {
        return false;
      }
      if (!a.get()->is(AttrType::kS) && !a.get()->is(AttrType::kB)) return false;
      return a.get()->scalar().starts_with(b.get()->scalar());
    }
    case FunctionId::kContains: {
      Value a = EvaluateOperand(args[0], item);
      Value b = EvaluateOperand(args[1], item);
      return a.get() != nullptr && b.get() != nullptr && Contains(*a.get(), *b.get());
    }
    default:
      return false;  // size and the update functions are not conditions
  }
}

bool Evaluate(const Condition& c, const Item& item) {
  switch (c.kind) {
    case ConditionKind::kCompare: {
      Value a = EvaluateOperand(c.operands[0], item);
      Value b = EvaluateOperand(c.operands[1], item);
      return Compare(c.op, a.get(), b.get());
    }
    case ConditionKind::kBetween: {
      Value v = EvaluateOperand(c.operands[0], item);
      Value lo = EvaluateOperand(c.operands[1], item);
      Value hi = EvaluateOperand(c.operands[2], item);
      return Compare(CompareOp::kGe, v.get(), lo.get()) && Compare(CompareOp::kLe, v.get(), hi.get());
    }
    case ConditionKind::kIn: {
      Value v = EvaluateOperand(c.operands[0], item);
      if (v.get() == nullptr) return false;
      for (size_t i = 1; i < c.operands.size(); ++i) {
        Value e = EvaluateOperand(c.operands[i], item);
        if (e.get() != nullptr && *e.get() == *v.get()) return true;
      }
      return false;
    }
    case ConditionKind::kFunction:
      return EvaluateFunction(c, item);
    case ConditionKind::kAnd:
      for (const auto& child : c.children) {
        if (!Evaluate(*child, item)) return false;
      }
      return true;
    case ConditionKind::kOr:
      for (const auto& child : c.children) {
        if (Evaluate(*child, item)) return true;
      }
      return false;
    case ConditionKind::kNot:
      return !Evaluate(*c.children[0], item);
  }
  return false;
}

}  // namespace

const AttributeValue* ResolvePath(const Item& item, const Path& path) {
  if (path.empty() || path[0].is_index) return nullptr;
  auto it = item.find(path[0].name);
  if (it == item.end()) return nullptr;
  const AttributeValue* cur = &it->second;
  for (size_t i = 1; i < path.size(); ++i) {
    const PathElement& e = path[i];
    if (e.is_index) {
      if (!cur->is(AttrType::kL) || e.index < 0 ||
          static_cast<size_t>(e.index) >= cur->list().size()) {
        return nullptr;
      }
      cur = &cur->list()[static_cast<size_t>(e.index)];
    } else {
      if (!cur->is(AttrType::kM)) return nullptr;
      auto m = cur->map().find(e.name);
      if (m == cur->map().end()) return nullptr;
      cur = &m->second;
    }
  }
  return cur;
}

std::string ValueForMessage(const AttributeValue& value) {
  std::string body;
  switch (value.type()) {
    case AttrType::kS:
    case AttrType::kN:
      body = value.scalar();
      break;
    case AttrType::kB:
      body = Base64(value.scalar());
      break;
    default:
      return value.DebugString();
  }
  return "{" + std::string(AttrTypeName(value.type())) + ":" + body + "}";
}

int64_t Utf16Length(std::string_view utf8) {
  int64_t units = 0;
  size_t i = 0;
  while (i < utf8.size()) {
    const auto c = static_cast<unsigned char>(utf8[i]);
    size_t n = 1;
    if (c >= 0xF0 && c <= 0xF4) {
      n = 4;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 3;
    } else if (c >= 0xC2 && c <= 0xDF) {
      n = 2;
    }
    bool valid = i + n <= utf8.size();
    for (size_t k = 1; valid && k < n; ++k) {
      valid = (static_cast<unsigned char>(utf8[i + k]) & 0xC0) == 0x80;
    }
    if (!valid) n = 1;
    units += (n == 4) ? 2 : 1;
    i += n;
  }
  return units;
}

bool IsOrderable(const AttributeValue& v) {
  return v.is(AttrType::kS) || v.is(AttrType::kN) || v.is(AttrType::kB);
}

int CompareScalars(const AttributeValue& a, const AttributeValue& b) {
  if (a.is(AttrType::kN)) return CompareNumbers(a.scalar(), b.scalar());
  const int c = a.scalar().compare(b.scalar());  // std::string compares as unsigned char
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

StatusOr<bool> EvaluateCondition(const Condition& condition, const Item& item) {
  return Evaluate(condition, item);
}

std::vector<Path> ConditionPaths(const Condition& condition) {
  // Depth first, children and operands pushed in reverse: paths in the order
  // they are written.
  std::vector<Path> paths;
  std::vector<const Condition*> conditions = {&condition};
  std::vector<const Operand*> operands;
  while (!conditions.empty()) {
    const Condition* c = conditions.back();
    conditions.pop_back();
    for (auto it = c->children.rbegin(); it != c->children.rend(); ++it) {
      conditions.push_back(it->get());
    }
    for (auto it = c->operands.rbegin(); it != c->operands.rend(); ++it) operands.push_back(&*it);
    while (!operands.empty()) {
      const Operand* op = operands.back();
      operands.pop_back();
      if (op->kind == OperandKind::kPath) paths.push_back(op->path);
      for (auto it = op->args.rbegin(); it != op->args.rend(); ++it) operands.push_back(&*it);
    }
  }
  return paths;
}

std::vector<std::string> ConditionAttributeNames(const Condition& condition) {
  std::vector<std::string> names;
  for (const Path& path : ConditionPaths(condition)) {
    if (path.empty() || std::find(names.begin(), names.end(), path[0].name) != names.end()) continue;
    names.push_back(path[0].name);
  }
  return names;
}

}  // namespace dynarock::expr
