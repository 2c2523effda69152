// File: engine/expr/context.cc
//
// ExpressionContext: the #names and :values of one request, their validation,
// and the bookkeeping of which ones the request's expressions used. DynamoDB
// rejects a request whose maps hold an entry no expression uses:
//   Value provided in ExpressionAttributeNames unused in expressions: keys: {#a, #b}

#include <string>
#include <vector>

#include "engine/expr/ast.h"
#include "engine/expr/expression.h"

namespace dynarock::expr {
namespace {

// "#" or ":" followed by one or more of [A-Za-z0-9_].
bool IsValidPlaceholder(std::string_view key, char prefix) {
  if (key.size() < 2 || key[0] != prefix) return false;
  for (size_t i = 1; i < key.size(); ++i) {
    const char c = key[i];
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_';
    if (!ok) return false;
  }
  return true;
}

// DynamoDB's complaint about an empty set inside a value, or "" when none.
// Walks nested lists and maps with an explicit stack.
std::string EmptySetProblem(const AttributeValue& root) {
  std::vector<const AttributeValue*> stack = {&root};
  while (!stack.empty()) {
    const AttributeValue* v = stack.back();
    stack.pop_back();
    switch (v->type()) {
      case AttrType::kSS:
        if (v->set().empty()) {
          return "One or more parameter values were invalid: An string set  may not be empty";
        }
        break;
      case AttrType::kNS:
        if (v->set().empty()) {
          return "One or more parameter values were invalid: An number set  may not be empty";
        }
        break;
      case AttrType::kBS:
        if (v->set().empty()) {
          return "One or more parameter values were invalid: Binary sets should not be empty";
        }
        break;
      case AttrType::kL:
        for (const auto& e : v->list()) stack.push_back(&e);
        break;
      case AttrType::kM:
        for (const auto& [k, e] : v->map()) stack.push_back(&e);
        break;
      default:
        break;
    }
  }
  return "";
}

std::string JoinKeys(const std::vector<std::string>& keys) {
  std::string out = "{";
  for (size_t i = 0; i < keys.size(); ++i) {
    if (i > 0) out += ", ";
    out += keys[i];
  }
  out += "}";
  return out;
}

}  // namespace

std::string_view ExpressionKindName(ExpressionKind kind) {
  switch (kind) {
    case ExpressionKind::kCondition: return "ConditionExpression";
    case ExpressionKind::kFilter: return "FilterExpression";
    case ExpressionKind::kKeyCondition: return "KeyConditionExpression";
    case ExpressionKind::kProjection: return "ProjectionExpression";
    case ExpressionKind::kUpdate: return "UpdateExpression";
  }
  return "Expression";
}

std::string PathToString(const Path& path) {
  std::string out;
  for (size_t i = 0; i < path.size(); ++i) {
    if (path[i].is_index) {
      out += "[" + std::to_string(path[i].index) + "]";
    } else {
      if (i > 0) out += ".";
      out += path[i].name;
    }
  }
  return out;
}

ExpressionContext::ExpressionContext(const NameMap* names, const ValueMap* values,
                                     bool has_names, bool has_values)
    : names_(names), values_(values), has_names_(has_names), has_values_(has_values) {}

Status ExpressionContext::ValidateMaps() const {
  if (has_names_) {
    if (names_ == nullptr || names_->empty()) {
      return ValidationError("ExpressionAttributeNames must not be empty");
    }
    // DynamoDB checks a key's length before its syntax, and refuses an empty name.
    for (const auto& [key, name] : *names_) {
      if (key.size() > kMaxPlaceholderBytes) {
        return ValidationError(
            "ExpressionAttributeNames contains invalid key: The expression attribute map "
            "contains a key that is too long; size of key: " + std::to_string(key.size()));
      }
      if (!IsValidPlaceholder(key, '#')) {
        return ValidationError("ExpressionAttributeNames contains invalid key: Syntax error; key: \"" +
                               key + "\"");
      }
      if (name.empty()) {
        return ValidationError(
            "ExpressionAttributeNames contains invalid value: Empty attribute name for key " + key);
      }
    }
  }
  if (has_values_) {
    if (values_ == nullptr || values_->empty()) {
      return ValidationError("ExpressionAttributeValues must not be empty");
    }
    for (const auto& [key, value] : *values_) {
      if (key.size() > kMaxPlaceholderBytes) {
        return ValidationError(
            "ExpressionAttributeValues contains invalid key: The expression attribute map "
            "contains a key that is too long;");
      }
      if (!IsValidPlaceholder(key, ':')) {
        return ValidationError(
            "ExpressionAttributeValues contains invalid key: Syntax error; key: \"" + key + "\"");
      }
    }
    for (const auto& [key, value] : *values_) {
      std::string problem = EmptySetProblem(value);
      if (!problem.empty()) {
        return ValidationError("ExpressionAttributeValues contains invalid value: " + problem +
                               " for key " + key);
      }
    }
  }
  return Status::Ok();
}

Status ExpressionContext::CheckAllUsed() const {
  if (names_ != nullptr) {
    std::vector<std::string> unused;
    for (const auto& [key, name] : *names_) {
      if (!used_names_.contains(key)) unused.push_back(key);
    }
    if (!unused.empty()) {
      return ValidationError("Value provided in ExpressionAttributeNames unused in expressions: keys: " +
                             JoinKeys(unused));
    }
  }
  if (values_ != nullptr) {
    std::vector<std::string> unused;
    for (const auto& [key, value] : *values_) {
      if (!used_values_.contains(key)) unused.push_back(key);
    }
    if (!unused.empty()) {
      return ValidationError(
          "Value provided in ExpressionAttributeValues unused in expressions: keys: " +
          JoinKeys(unused));
    }
  }
  return Status::Ok();
}

// The messages carry no "Invalid <Kind>: " prefix; the parser adds it.
StatusOr<std::string> ExpressionContext::ResolveName(std::string_view token) {
  if (names_ != nullptr) {
    auto it = names_->find(token);
    if (it != names_->end()) {
      used_names_.insert(std::string(token));
      return it->second;
    }
  }
  return ValidationError(
      "An expression attribute name used in the document path is not defined; attribute name: " +
      std::string(token));
}

StatusOr<const AttributeValue*> ExpressionContext::ResolveValue(std::string_view token) {
  if (values_ != nullptr) {
    auto it = values_->find(token);
    if (it != values_->end()) {
      used_values_.insert(std::string(token));
      return &it->second;
    }
  }
  return ValidationError(
      "An expression attribute value used in expression is not defined; attribute value: " +
      std::string(token));
}

}  // namespace dynarock::expr
