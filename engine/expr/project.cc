// File: engine/expr/project.cc
//
// ProjectionExpression / AttributesToGet applied to an item. DynamoDB keeps the
// document structure of what it returns: projecting a.b[1] and a.b[3] of
//   {a: {b: [x0, x1, x2, x3], c: 1}}
// gives {a: {b: [x1, x3]}} (selected list elements keep their order and close
// up). Paths that do not resolve are skipped.

#include <map>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "engine/expr/ast.h"
#include "engine/expr/expression.h"

namespace dynarock::expr {
namespace {

// The projected part of one value. A node either takes its whole source value
// (`whole`) or some map fields / list elements of it.
struct Node {
  const AttributeValue* whole = nullptr;
  std::map<std::string, Node, std::less<>> fields;
  std::map<int64_t, Node> elements;
  bool is_list = false;
};

// Builds the value of `node` for `source`. Recursion depth is at most the
// length of the longest projected path that resolved, hence bounded by the
// nesting depth of the item.
AttributeValue Build(const Node& node, const AttributeValue& source) {
  if (node.whole != nullptr) return *node.whole;
  if (node.is_list) {
    std::vector<AttributeValue> list;
    for (const auto& [index, child] : node.elements) {
      list.push_back(Build(child, source.list()[static_cast<size_t>(index)]));
    }
    return AttributeValue::L(std::move(list));
  }
  Item map;
  for (const auto& [name, child] : node.fields) {
    map.emplace(name, Build(child, source.map().find(name)->second));
  }
  return AttributeValue::M(std::move(map));
}

}  // namespace

Item Project(const ProjectionSpec& projection, const Item& item) {
  std::map<std::string, Node, std::less<>> roots;
  for (const Path& path : projection.paths) {
    const AttributeValue* leaf = ResolvePath(item, path);
    if (leaf == nullptr) continue;
    Node* node = &roots[path[0].name];
    const AttributeValue* source = &item.find(path[0].name)->second;
    for (size_t i = 1; i < path.size() && node->whole == nullptr; ++i) {
      if (path[i].is_index) {
        node->is_list = true;
        const size_t index = static_cast<size_t>(path[i].index);
        node = &node->elements[path[i].index];
        source = &source->list()[index];
      } else {
        node = &node->fields[path[i].name];
        source = &source->map().find(path[i].name)->second;
      }
    }
    if (node->whole == nullptr) {
      node->whole = leaf;
      node->fields.clear();
      node->elements.clear();
    }
  }
  Item out;
  for (const auto& [name, node] : roots) {
    out.emplace(name, Build(node, item.find(name)->second));
  }
  return out;
}

StatusOr<ProjectionSpec> ProjectionFromAttributesToGet(const std::vector<std::string>& names) {
  ProjectionSpec spec;
  std::unordered_set<std::string_view> seen;
  for (const std::string& name : names) {
    if (!seen.insert(name).second) {
      return ValidationError(
          "One or more parameter values were invalid: Duplicate value in attribute name: " + name);
    }
    PathElement e;
    e.name = name;
    spec.paths.push_back(Path{e});
  }
  return spec;
}

std::vector<std::string> ProjectionAttributeNames(const ProjectionSpec& projection) {
  std::vector<std::string> names;
  for (const Path& path : projection.paths) {
    if (!path.empty()) names.push_back(path[0].name);
  }
  return names;
}

}  // namespace dynarock::expr
