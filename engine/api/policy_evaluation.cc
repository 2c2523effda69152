// File: engine/api/policy_evaluation.cc
//
// Resource-based policies evaluated for a caller (engine/api/policy_evaluation.h).

#include "engine/api/policy_evaluation.h"

#include <simdjson.h>

#include <cctype>

#include "engine/table_validation.h"

namespace dynarock::api {
namespace {

using simdjson::dom::element;

// The strings of a member that is a string or a list of strings.
std::vector<std::string_view> Strings(element e) {
  std::vector<std::string_view> out;
  std::string_view s;
  if (e.get(s) == simdjson::SUCCESS) {
    out.push_back(s);
    return out;
  }
  simdjson::dom::array list;
  if (e.get(list) != simdjson::SUCCESS) return out;
  for (element x : list) {
    if (x.get(s) == simdjson::SUCCESS) out.push_back(s);
  }
  return out;
}

// "arn:aws:iam::123456789012:user/K" -> "123456789012".
std::string_view AccountOf(std::string_view arn) {
  size_t start = 0;
  for (int i = 0; i < 4; ++i) {
    start = arn.find(':', start);
    if (start == std::string_view::npos) return {};
    ++start;
  }
  const size_t end = arn.find(':', start);
  return end == std::string_view::npos ? std::string_view() : arn.substr(start, end - start);
}

// Whether `principal` names the caller. In Principal an account (its id or its
// root) stands for every principal of it; in NotPrincipal (`exact`) only for
// the root itself, as IAM reads it.
bool PrincipalListed(element principal, std::string_view caller, bool exact) {
  std::string_view star;
  if (principal.get(star) == simdjson::SUCCESS) return star == "*";
  element aws;
  if (principal["AWS"].get(aws) != simdjson::SUCCESS) return false;
  const std::string_view account = AccountOf(caller);
  for (std::string_view p : Strings(aws)) {
    if (p == "*" || p == caller) return true;
    if (!exact && (p == account || (!account.empty() && p == "arn:aws:iam::" + std::string(account) + ":root"))) {
      return true;
    }
  }
  return false;
}

}  // namespace

Status EvaluateResourcePolicy(std::string_view policy, std::string_view principal,
                              std::string_view action, const std::vector<std::string>& resources,
                              std::string_view shown) {
  simdjson::dom::parser parser;
  element doc;
  if (parser.parse(policy.data(), policy.size()).get(doc) != simdjson::SUCCESS) return Status();
  element statements;
  if (doc["Statement"].get(statements) != simdjson::SUCCESS) return Status();
  std::vector<element> list;
  simdjson::dom::array many;
  if (statements.get(many) == simdjson::SUCCESS) {
    for (element e : many) list.push_back(e);
  } else {
    list.push_back(statements);
  }
  for (element st : list) {
    std::string_view effect;
    if (st["Effect"].get(effect) != simdjson::SUCCESS || effect != "Deny") continue;
    if (st["Condition"].error() != simdjson::NO_SUCH_FIELD) continue;  // not evaluated
    element e;
    bool principal_matches = false;
    if (st["Principal"].get(e) == simdjson::SUCCESS) {
      principal_matches = PrincipalListed(e, principal, /*exact=*/false);
    } else if (st["NotPrincipal"].get(e) == simdjson::SUCCESS) {
      principal_matches = !PrincipalListed(e, principal, /*exact=*/true);
    }
    if (!principal_matches) continue;
    bool action_matches = false;
    const bool not_action = st["Action"].error() == simdjson::NO_SUCH_FIELD;
    if (st[not_action ? "NotAction" : "Action"].get(e) == simdjson::SUCCESS) {
      for (std::string_view a : Strings(e)) action_matches = action_matches || IamWildcardMatch(a, action, true);
      if (not_action) action_matches = !action_matches;
    }
    if (!action_matches) continue;
    bool resource_matches = true;  // no Resource: the resource the policy is on
    const bool not_resource = st["Resource"].error() == simdjson::NO_SUCH_FIELD &&
                              st["NotResource"].error() != simdjson::NO_SUCH_FIELD;
    if (st[not_resource ? "NotResource" : "Resource"].get(e) == simdjson::SUCCESS) {
      resource_matches = false;
      for (std::string_view r : Strings(e)) {
        for (const std::string& res : resources) resource_matches = resource_matches || IamWildcardMatch(r, res, false);
      }
      if (not_resource) resource_matches = !resource_matches;
    }
    if (!resource_matches) continue;
    return Status(ErrorType::kAccessDenied,
                  "User: " + std::string(principal) + " is not authorized to perform: " + std::string(action) +
                      " on resource: " + std::string(shown) +
                      " with an explicit deny in a resource-based policy");
  }
  return Status();
}

}  // namespace dynarock::api
