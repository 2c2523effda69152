// File: engine/api/policy_evaluation.h
//
// Resource-based policies evaluated for a caller (`dynarock serve
// --require-auth`): the request's signing key acts as the IAM user
// arn:aws:iam::ACCOUNT:user/KEY of the database's account.
//
// Dynarock has no identity policies, so a caller of the table's own account is
// allowed what its identity would be allowed in full; what the table's (or the
// index's table's) resource-based policy can do is refuse: a Deny statement
// whose Principal, Action and Resource match refuses the request with
// AccessDeniedException, as DynamoDB refuses it ("... with an explicit deny in a
// resource-based policy"). Matching follows IAM: NotPrincipal, NotAction and
// NotResource invert; actions match case-insensitively with * and ?; resources
// with * and ? (an index is its table's ARN + "/index/NAME"); a principal
// matches as "*", {"AWS": "*"}, its own ARN, its account's root
// (arn:aws:iam::ACCOUNT:root) or account id. Statements with a Condition are
// not evaluated (conditions need request context Dynarock does not have), and
// are left out, Deny or Allow. The operations evaluated are those naming
// tables by name or ARN (items, queries and scans, an index being its own
// resource, batches, transactions item by item, tables, tags, policies, a
// stream's policy operations against the stream's policy); the Streams
// operations and PartiQL statements are not. A PutResourcePolicy whose new document would
// deny its caller dynamodb:PutResourcePolicy is refused unless it sets
// ConfirmRemoveSelfResourceAccess (request_pipeline.h). DynamoDB lets the account root
// delete any policy; no caller here is the root, so a policy that denies every
// caller its own removal is undone by serving once without --require-auth.
// ExportTableToPointInTime and RestoreTableToPointInTime meet their source
// table's policy.

#ifndef DYNAROCK_API_POLICY_EVALUATION_H_
#define DYNAROCK_API_POLICY_EVALUATION_H_

#include <string>
#include <string_view>
#include <vector>

#include "dynarock/status.h"

namespace dynarock::api {

// OK, or AccessDeniedException when a Deny statement of `policy` (a stored
// document) matches `principal` performing `action` ("dynamodb:PutItem") on
// any of `resources`; `shown` is the resource the message names.
Status EvaluateResourcePolicy(std::string_view policy, std::string_view principal,
                              std::string_view action, const std::vector<std::string>& resources,
                              std::string_view shown);

}  // namespace dynarock::api

#endif  // DYNAROCK_API_POLICY_EVALUATION_H_
