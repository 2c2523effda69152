// File: engine/expr/update.cc
//
// Applies a parsed UpdateExpression (or translated AttributeUpdates) to an item.
//
// DynamoDB evaluates every action against the item as it was before the
// update, so:
//   1. all SET right-hand sides are computed from the original item first;
//   2. SETs are applied in path order, so several SETs past the end of one list
//      append in index order ("the elements are sorted in order by element
//      number");
//   3. ADD and DELETE read the value at their own path, which no other action
//      touches (the parser rejects overlapping paths);
//   4. REMOVEs run last, highest list index first, so `REMOVE l[1], l[2]`
//      removes the original elements 1 and 2 and the rest shift down.
// On error *item is left partly updated; callers apply updates to a copy.

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include "engine/expr/ast.h"
#include "engine/expr/expression.h"
#include "engine/number.h"

namespace dynarock::expr {
namespace {

constexpr std::string_view kInvalidPath =
    "The document path provided in the update expression is invalid for update";
constexpr std::string_view kIncorrectType =
    "An operand in the update expression has an incorrect data type";
constexpr std::string_view kLegacyMismatch = "Type mismatch for attribute to update";
constexpr std::string_view kMissingAttribute =
    "The provided expression refers to an attribute that does not exist in the item";

// Computes a SET right-hand side. Recursion is bounded by the parser's nesting
// limit.
StatusOr<AttributeValue> EvaluateSetOperand(const Operand& op, const Item& item) {
  switch (op.kind) {
    case OperandKind::kValue:
      return op.value;
    case OperandKind::kPath: {
      const AttributeValue* v = ResolvePath(item, op.path);
      if (v == nullptr) return ValidationError(std::string(kMissingAttribute));
      return *v;
    }
    case OperandKind::kPlus:
    case OperandKind::kMinus: {
      DR_ASSIGN_OR_RETURN(AttributeValue a, EvaluateSetOperand(op.args[0], item));
      if (!a.is(AttrType::kN)) return ValidationError(std::string(kIncorrectType));
      DR_ASSIGN_OR_RETURN(AttributeValue b, EvaluateSetOperand(op.args[1], item));
      if (!b.is(AttrType::kN)) return ValidationError(std::string(kIncorrectType));
      DR_ASSIGN_OR_RETURN(std::string sum, op.kind == OperandKind::kPlus
                                               ? AddNumbers(a.scalar(), b.scalar())
                                               : SubtractNumbers(a.scalar(), b.scalar()));
      return AttributeValue::N(std::move(sum));
    }
    case OperandKind::kFunction:
      if (op.function == FunctionId::kIfNotExists) {
        if (op.args[0].kind == OperandKind::kPath) {
          const AttributeValue* v = ResolvePath(item, op.args[0].path);
          if (v != nullptr) return *v;
        }
        return EvaluateSetOperand(op.args[1], item);
      }
      if (op.function == FunctionId::kListAppend) {
        DR_ASSIGN_OR_RETURN(AttributeValue a, EvaluateSetOperand(op.args[0], item));
        if (!a.is(AttrType::kL)) return ValidationError(std::string(kIncorrectType));
        DR_ASSIGN_OR_RETURN(AttributeValue b, EvaluateSetOperand(op.args[1], item));
        if (!b.is(AttrType::kL)) return ValidationError(std::string(kIncorrectType));
        std::vector<AttributeValue> joined = a.list();
        joined.insert(joined.end(), b.list().begin(), b.list().end());
        return AttributeValue::L(std::move(joined));
      }
      return ValidationError("Invalid UpdateExpression: Invalid function name; function: " +
                             std::string(FunctionName(op.function)));
  }
  return ValidationError(std::string(kIncorrectType));
}

// The container that holds the last element of `path`: the item itself for a
// top-level path, else the map or list at path[0..n-2]. Null when that
// container does not exist or has the wrong type for the last element.
struct Parent {
  Item* item_map = nullptr;            // top-level
  AttributeValue* container = nullptr;  // nested: an M or an L
};

bool FindParent(Item* item, const Path& path, Parent* out) {
  if (path.size() == 1) {
    out->item_map = item;
    return true;
  }
  auto it = item->find(path[0].name);
  if (it == item->end()) return false;
  AttributeValue* cur = &it->second;
  for (size_t i = 1; i + 1 < path.size(); ++i) {
    const PathElement& e = path[i];
    if (e.is_index) {
      if (!cur->is(AttrType::kL) || static_cast<size_t>(e.index) >= cur->list().size()) {
        return false;
      }
      cur = &cur->mutable_list()[static_cast<size_t>(e.index)];
    } else {
      if (!cur->is(AttrType::kM)) return false;
      auto m = cur->mutable_map().find(e.name);
      if (m == cur->mutable_map().end()) return false;
      cur = &m->second;
    }
  }
  const bool want_list = path.back().is_index;
  if (cur->is(AttrType::kL) != want_list || (!want_list && !cur->is(AttrType::kM))) return false;
  out->container = cur;
  return true;
}

// The existing value at the parent's last element, or null.
AttributeValue* Child(const Parent& parent, const PathElement& last) {
  if (parent.item_map != nullptr) {
    auto it = parent.item_map->find(last.name);
    return it == parent.item_map->end() ? nullptr : &it->second;
  }
  if (last.is_index) {
    auto& list = parent.container->mutable_list();
    return static_cast<size_t>(last.index) < list.size() ? &list[static_cast<size_t>(last.index)]
                                                          : nullptr;
  }
  auto& map = parent.container->mutable_map();
  auto it = map.find(last.name);
  return it == map.end() ? nullptr : &it->second;
}

// Writes `value` at the parent's last element; a list index past the end appends.
void Store(const Parent& parent, const PathElement& last, AttributeValue value) {
  if (parent.item_map != nullptr) {
    (*parent.item_map)[last.name] = std::move(value);
  } else if (last.is_index) {
    auto& list = parent.container->mutable_list();
    if (static_cast<size_t>(last.index) < list.size()) {
      list[static_cast<size_t>(last.index)] = std::move(value);
    } else {
      list.push_back(std::move(value));
    }
  } else {
    parent.container->mutable_map()[last.name] = std::move(value);
  }
}

void Erase(const Parent& parent, const PathElement& last) {
  if (parent.item_map != nullptr) {
    parent.item_map->erase(last.name);
  } else if (last.is_index) {
    auto& list = parent.container->mutable_list();
    if (static_cast<size_t>(last.index) < list.size()) {
      list.erase(list.begin() + static_cast<std::ptrdiff_t>(last.index));
    }
  } else {
    parent.container->mutable_map().erase(last.name);
  }
}

AttributeValue MakeSet(AttrType type, std::vector<std::string> elements) {
  switch (type) {
    case AttrType::kSS: return AttributeValue::SS(std::move(elements));
    case AttrType::kNS: return AttributeValue::NS(std::move(elements));
    default: return AttributeValue::BS(std::move(elements));
  }
}

Status ApplyAdd(const Parent& parent, const PathElement& last, const AttributeValue& operand,
                bool legacy) {
  AttributeValue* existing = Child(parent, last);
  if (existing == nullptr) {
    Store(parent, last, operand);
    return Status::Ok();
  }
  if (existing->type() != operand.type()) {
    return ValidationError(std::string(legacy ? kLegacyMismatch : kIncorrectType));
  }
  if (operand.is(AttrType::kL)) {  // AttributeUpdates ADD appends to a list
    std::vector<AttributeValue> joined = existing->list();
    joined.insert(joined.end(), operand.list().begin(), operand.list().end());
    *existing = AttributeValue::L(std::move(joined));
    return Status::Ok();
  }
  if (operand.is(AttrType::kN)) {
    DR_ASSIGN_OR_RETURN(std::string sum, AddNumbers(existing->scalar(), operand.scalar()));
    *existing = AttributeValue::N(std::move(sum));
    return Status::Ok();
  }
  std::vector<std::string> merged;
  std::set_union(existing->set().begin(), existing->set().end(), operand.set().begin(),
                 operand.set().end(), std::back_inserter(merged));
  merged.erase(std::unique(merged.begin(), merged.end()), merged.end());
  *existing = MakeSet(operand.type(), std::move(merged));
  return Status::Ok();
}

Status ApplyDelete(const Parent& parent, const PathElement& last, const AttributeValue& operand,
                   bool legacy) {
  AttributeValue* existing = Child(parent, last);
  if (existing == nullptr) return Status::Ok();
  if (existing->type() != operand.type()) {
    return ValidationError(std::string(legacy ? kLegacyMismatch : kIncorrectType));
  }
  std::vector<std::string> rest;
  std::set_difference(existing->set().begin(), existing->set().end(), operand.set().begin(),
                      operand.set().end(), std::back_inserter(rest));
  if (rest.empty()) {
    Erase(parent, last);  // DynamoDB removes a set that becomes empty
  } else {
    *existing = MakeSet(operand.type(), std::move(rest));
  }
  return Status::Ok();
}

}  // namespace

Status ApplyUpdate(const UpdatePlan& plan, Item* item) {
  // 1. SET values from the original item.
  struct PendingSet {
    const Path* path;
    AttributeValue value;
  };
  std::vector<PendingSet> sets;
  std::vector<const UpdateAction*> adds_and_deletes;
  std::vector<const Path*> removes;
  for (const UpdateAction& action : plan.actions) {
    switch (action.kind) {
      case UpdateActionKind::kSet: {
        DR_ASSIGN_OR_RETURN(AttributeValue v, EvaluateSetOperand(action.value, *item));
        sets.push_back({&action.path, std::move(v)});
        break;
      }
      case UpdateActionKind::kRemove:
        removes.push_back(&action.path);
        break;
      case UpdateActionKind::kAdd:
      case UpdateActionKind::kDelete:
        adds_and_deletes.push_back(&action);
        break;
    }
  }
  // 2. SETs in path order.
  std::stable_sort(sets.begin(), sets.end(), [](const PendingSet& a, const PendingSet& b) {
    return ComparePaths(*a.path, *b.path) < 0;
  });
  for (PendingSet& s : sets) {
    Parent parent;
    if (!FindParent(item, *s.path, &parent)) return ValidationError(std::string(kInvalidPath));
    Store(parent, s.path->back(), std::move(s.value));
  }
  // 3. ADD and DELETE.
  for (const UpdateAction* action : adds_and_deletes) {
    Parent parent;
    if (!FindParent(item, action->path, &parent)) return ValidationError(std::string(kInvalidPath));
    if (action->kind == UpdateActionKind::kAdd) {
      DR_RETURN_IF_ERROR(ApplyAdd(parent, action->path.back(), action->value.value, plan.legacy));
    } else {
      DR_RETURN_IF_ERROR(ApplyDelete(parent, action->path.back(), action->value.value, plan.legacy));
    }
  }
  // 4. REMOVEs, highest list index first.
  std::stable_sort(removes.begin(), removes.end(),
                   [](const Path* a, const Path* b) { return ComparePaths(*a, *b) > 0; });
  for (const Path* path : removes) {
    Parent parent;
    if (!FindParent(item, *path, &parent)) return ValidationError(std::string(kInvalidPath));
    Erase(parent, path->back());
  }
  return Status::Ok();
}

std::vector<Path> UpdatedPaths(const UpdatePlan& plan) {
  std::vector<Path> paths;
  paths.reserve(plan.actions.size());
  for (const UpdateAction& action : plan.actions) paths.push_back(action.path);
  return paths;
}

}  // namespace dynarock::expr
