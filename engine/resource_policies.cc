// File: engine/resource_policies.cc
//
// Resource-based policies (PutResourcePolicy, GetResourcePolicy,
// DeleteResourcePolicy, CreateTable's ResourcePolicy): an IAM policy document
// on a table or on its stream, kept in the table's catalog entry with a
// revision id.
//
// Checked as DynamoDB checks it before attaching it: at most 20 KB (whitespace
// counted), a JSON object whose Statement (one object or a list) has an Effect
// of Allow or Deny, a Principal (or NotPrincipal), and actions (Action or
// NotAction) that are DynamoDB actions on a table or stream ("dynamodb:GetItem",
// wildcards such as "dynamodb:Get*", "dynamodb:*", "*"); account-level actions
// (ListTables, ListStreams, ...) are refused as DynamoDB refuses them ("The
// following action names are invalid"). Revisions: the database clock in
// milliseconds when the document changed; putting the same document again
// keeps its revision (the operation is idempotent). ExpectedRevisionId makes a
// put or delete conditional ("NO_POLICY": only when none is attached).
//
// The DB stores and checks the documents; `serve --require-auth` evaluates them
// for its callers (engine/api/policy_evaluation.h).

#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "engine/db_impl.h"
#include "engine/change_log.h"
#include "engine/table_validation.h"

namespace dynarock {
namespace {

constexpr size_t kPolicyBytesMax = 20 * 1024;

// The DynamoDB actions a table's or stream's policy may name.
constexpr std::string_view kResourceActions[] = {
    "BatchGetItem", "BatchWriteItem", "ConditionCheckItem", "CreateBackup", "CreateTable",
    "CreateTableReplica", "DeleteItem", "DeleteResourcePolicy", "DeleteTable",
    "DeleteTableReplica", "DescribeBackup", "DescribeContinuousBackups",
    "DescribeContributorInsights", "DescribeExport", "DescribeImport",
    "DescribeKinesisStreamingDestination", "DescribeStream", "DescribeTable",
    "DescribeTableReplicaAutoScaling", "DescribeTimeToLive", "DisableKinesisStreamingDestination",
    "EnableKinesisStreamingDestination", "ExportTableToPointInTime", "GetItem", "GetRecords",
    "GetResourcePolicy", "GetShardIterator", "ImportTable", "ListTagsOfResource",
    "PartiQLDelete", "PartiQLInsert", "PartiQLSelect", "PartiQLUpdate", "PutItem",
    "PutResourcePolicy", "Query", "RestoreTableFromBackup", "RestoreTableToPointInTime", "Scan",
    "TagResource", "UntagResource", "UpdateContinuousBackups", "UpdateContributorInsights",
    "UpdateItem", "UpdateKinesisStreamingDestination", "UpdateTable",
    "UpdateTableReplicaAutoScaling", "UpdateTimeToLive"};

Status InvalidPolicy(const std::string& why) {
  return ValidationError("One or more parameter values were invalid: Invalid policy document: " + why);
}

// The strings of a member that is a string or a list of strings; false when
// it is neither.
bool Strings(simdjson::dom::element e, std::vector<std::string>* out) {
  std::string_view s;
  if (e.get(s) == simdjson::SUCCESS) {
    out->emplace_back(s);
    return true;
  }
  simdjson::dom::array list;
  if (e.get(list) != simdjson::SUCCESS) return false;
  for (simdjson::dom::element x : list) {
    if (x.get(s) != simdjson::SUCCESS) return false;
    out->emplace_back(s);
  }
  return true;
}

Status CheckStatement(simdjson::dom::object st, std::vector<std::string>* bad_actions) {
  std::string_view effect;
  if (st["Effect"].get(effect) != simdjson::SUCCESS) {
    return InvalidPolicy("a statement has no Effect (Allow or Deny)");
  }
  if (effect != "Allow" && effect != "Deny") {
    return InvalidPolicy("Effect must be Allow or Deny, not '" + std::string(effect) + "'");
  }
  simdjson::dom::element principal;
  if (st["Principal"].get(principal) != simdjson::SUCCESS &&
      st["NotPrincipal"].get(principal) != simdjson::SUCCESS) {
    return InvalidPolicy("a statement has no Principal (a resource-based policy names who it applies to)");
  }
  std::string_view star;
  simdjson::dom::object by_kind;
  if (!(principal.get(star) == simdjson::SUCCESS && star == "*") &&
      principal.get(by_kind) != simdjson::SUCCESS) {
    return InvalidPolicy("Principal must be \"*\" or an object such as {\"AWS\": \"arn:aws:iam::123456789012:root\"}");
  }
  simdjson::dom::element actions;
  if (st["Action"].get(actions) != simdjson::SUCCESS && st["NotAction"].get(actions) != simdjson::SUCCESS) {
    return InvalidPolicy("a statement has no Action");
  }
  std::vector<std::string> names;
  if (!Strings(actions, &names) || names.empty()) {
    return InvalidPolicy("Action must be a string or a list of strings");
  }
  for (const std::string& a : names) {
    if (a == "*") continue;
    const bool dynamodb = a.size() > 9 && std::equal(a.begin(), a.begin() + 9, "dynamodb:",
                                                     [](char x, char y) { return std::tolower(static_cast<unsigned char>(x)) == y; });
    const std::string_view name = dynamodb ? std::string_view(a).substr(9) : std::string_view();
    bool known = false;
    for (std::string_view k : kResourceActions) known = known || (dynamodb && IamWildcardMatch(name, k, true));
    if (!known) bad_actions->push_back(a);
  }
  simdjson::dom::element resources;
  if (st["Resource"].get(resources) == simdjson::SUCCESS ||
      st["NotResource"].get(resources) == simdjson::SUCCESS) {
    std::vector<std::string> arns;
    if (!Strings(resources, &arns)) return InvalidPolicy("Resource must be a string or a list of strings");
    for (const std::string& r : arns) {
      if (r != "*" && r.rfind("arn:", 0) != 0) {
        return InvalidPolicy("Resource '" + r + "' is not an ARN");
      }
    }
  }
  simdjson::dom::element condition;
  if (st["Condition"].get(condition) == simdjson::SUCCESS && !condition.is_object()) {
    return InvalidPolicy("Condition must be an object");
  }
  return Status();
}

}  // namespace

bool IamWildcardMatch(std::string_view pattern, std::string_view text, bool ignore_case) {
  auto eq = [&](char a, char b) {
    return ignore_case ? std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b))
                       : a == b;
  };
  size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || (pattern[p] != '*' && eq(pattern[p], text[t])))) {
      ++p, ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

Status CheckResourcePolicy(std::string_view policy) {
  if (policy.empty()) {
    return ValidationError("1 validation error detected: Value '' at 'policy' failed to satisfy "
                           "constraint: Member must have length greater than or equal to 1");
  }
  if (policy.size() > kPolicyBytesMax) {
    return Status(ErrorType::kLimitExceeded,
                  "The resource-based policy document is " + std::to_string(policy.size()) +
                      " bytes: more than the maximum of 20 KB (" + std::to_string(kPolicyBytesMax) +
                      " bytes, whitespace counted)");
  }
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(policy.data(), policy.size()).get(doc) != simdjson::SUCCESS) {
    return InvalidPolicy("not valid JSON");
  }
  simdjson::dom::object top;
  if (doc.get(top) != simdjson::SUCCESS) return InvalidPolicy("the policy must be a JSON object");
  std::string_view version;
  if (top["Version"].error() != simdjson::NO_SUCH_FIELD) {
    if (top["Version"].get(version) != simdjson::SUCCESS ||
        (version != "2012-10-17" && version != "2008-10-17")) {
      return InvalidPolicy("Version must be 2012-10-17 or 2008-10-17");
    }
  }
  simdjson::dom::element statements;
  if (top["Statement"].get(statements) != simdjson::SUCCESS) {
    return InvalidPolicy("Missing required field Statement");
  }
  std::vector<simdjson::dom::object> list;
  simdjson::dom::object one;
  simdjson::dom::array many;
  if (statements.get(one) == simdjson::SUCCESS) {
    list.push_back(one);
  } else if (statements.get(many) == simdjson::SUCCESS) {
    for (simdjson::dom::element e : many) {
      if (e.get(one) != simdjson::SUCCESS) return InvalidPolicy("each Statement must be an object");
      list.push_back(one);
    }
  } else {
    return InvalidPolicy("Statement must be an object or a list of objects");
  }
  if (list.empty()) return InvalidPolicy("Statement must not be empty");
  std::vector<std::string> bad;
  for (const auto& st : list) DR_RETURN_IF_ERROR(CheckStatement(st, &bad));
  if (!bad.empty()) {
    std::string names;
    for (const std::string& b : bad) names += (names.empty() ? "" : ", ") + ("\"" + b + "\"");
    return InvalidPolicy("The following action names are invalid: " + names);
  }
  return Status();
}

namespace {

Status NoPolicy(const std::string& arn) {
  return Status(ErrorType::kPolicyNotFound,
                "Resource-based policy not found for the provided ResourceArn: " + arn);
}

// A revision id: the clock in milliseconds, later than `previous`.
std::string NextRevision(double now, const std::optional<std::string>& previous) {
  int64_t rev = static_cast<int64_t>(std::llround(now * 1000));
  if (previous) {
    char* end = nullptr;
    const long long before = std::strtoll(previous->c_str(), &end, 10);
    if (end != previous->c_str() && rev <= before) rev = before + 1;
  }
  return std::to_string(rev);
}

// The policy a request names: the table's, or its stream's.
struct PolicySlot {
  std::optional<std::string>& policy;
  std::optional<std::string>& revision;
};
PolicySlot SlotOf(TableInfo* info, bool stream) {
  return stream ? PolicySlot{info->stream_policy, info->stream_policy_revision}
                : PolicySlot{info->policy, info->policy_revision};
}

Status NoSuchResource(const std::string& arn) {
  return ResourceNotFound("Requested resource not found: ResourcArn: " + arn + " not found");
}

}  // namespace

StatusOr<PutResourcePolicyResponse> DBImpl::PutResourcePolicy(const PutResourcePolicyRequest& req) {
  std::string label;
  DR_ASSIGN_OR_RETURN(std::string name, TableOfArn(req.resource_arn, "PutResourcePolicy", &label));
  DR_RETURN_IF_ERROR(CheckResourcePolicy(req.policy));
  PutResourcePolicyResponse resp;
  const double now = change_log_->Now();
  DR_RETURN_IF_ERROR(AlterTable(name, NoSuchResource(req.resource_arn), [&](TableInfo* info) -> Status {
    const bool stream = !label.empty();
    auto [policy, revision] = SlotOf(info, stream);
    if (stream && info->stream_policy_label != label) {  // one of an earlier stream
      policy.reset();
      revision.reset();
    }
    const std::string what = std::string(stream ? "stream of table " : "table ") + info->name;
    if (req.expected_revision_id) {
      if (*req.expected_revision_id == "NO_POLICY") {
        if (policy) {
          return Status(ErrorType::kPolicyNotFound,
                        "Resource-based policy not found for the provided ResourceArn: Requested "
                        "policy update expecting none to be present for " + what +
                            ", but a policy exists with revision id " + *revision + ".");
        }
      } else if (!policy || *revision != *req.expected_revision_id) {
        return Status(ErrorType::kPolicyNotFound,
                      "Resource-based policy not found for the provided ResourceArn: Requested update "
                      "for policy with revision id " + *req.expected_revision_id + ", but " +
                          (policy ? "the policy associated to target " + what + " has revision id " +
                                        *revision + "."
                                  : "no policy is associated to target " + what + "."));
      }
    }
    if (policy && *policy == req.policy) {  // the same document: the same revision
      resp.revision_id = *revision;
      return Status();
    }
    policy = req.policy;
    revision = NextRevision(now, revision);
    if (stream) info->stream_policy_label = label;
    resp.revision_id = *revision;
    return Status();
  }));
  return resp;
}

StatusOr<GetResourcePolicyResponse> DBImpl::GetResourcePolicy(const GetResourcePolicyRequest& req) {
  std::string label;
  DR_ASSIGN_OR_RETURN(std::string name, TableOfArn(req.resource_arn, "GetResourcePolicy", &label));
  DR_ASSIGN_OR_RETURN(TableInfoPtr table, FindTable(name));
  const bool stream = !label.empty();
  const std::optional<std::string>& policy = stream ? table->stream_policy : table->policy;
  if (!policy || (stream && table->stream_policy_label != label)) return NoPolicy(req.resource_arn);
  GetResourcePolicyResponse resp;
  resp.policy = *policy;
  resp.revision_id = *(stream ? table->stream_policy_revision : table->policy_revision);
  return resp;
}

StatusOr<DeleteResourcePolicyResponse> DBImpl::DeleteResourcePolicy(
    const DeleteResourcePolicyRequest& req) {
  std::string label;
  DR_ASSIGN_OR_RETURN(std::string name, TableOfArn(req.resource_arn, "DeleteResourcePolicy", &label));
  DeleteResourcePolicyResponse resp;
  DR_RETURN_IF_ERROR(AlterTable(name, NoSuchResource(req.resource_arn), [&](TableInfo* info) -> Status {
    const bool stream = !label.empty();
    auto [policy, revision] = SlotOf(info, stream);
    const bool attached = policy && (!stream || info->stream_policy_label == label);
    if (req.expected_revision_id && (!attached || *revision != *req.expected_revision_id)) {
      return Status(ErrorType::kPolicyNotFound,
                    "Resource-based policy not found for the provided ResourceArn: Requested delete "
                    "for policy with revision id " + *req.expected_revision_id + ", but " +
                        (attached ? "the policy attached has revision id " + *revision + "."
                                  : "no policy is attached."));
    }
    if (!attached) return Status();  // idempotent: nothing to delete
    resp.revision_id = revision;
    policy.reset();
    revision.reset();
    if (stream) info->stream_policy_label.reset();
    return Status();
  }));
  return resp;
}

}  // namespace dynarock
