// File: engine/api/faults.h
//
// Fault injection for the test double: rules that make chosen requests fail
// the way DynamoDB fails (a throttling error, a 500 or 503, a transaction
// conflict), slow down, lose their connection before or after the write is
// applied, or come back as partial batches (UnprocessedItems/UnprocessedKeys).
// api::Handler consults the injector once per request, after the request is
// decoded and before it runs (Handler::SetFaults), so every way in (the HTTP
// endpoint, the C ABI, Python, the shell) sees the same faults.
//
//   auto faults = std::make_shared<api::FaultInjector>();
//   Status s = faults->SetRulesJson(R"({"seed":7,"rules":[
//       {"operation":"PutItem","table":"orders","first_n":2,
//        "action":"error","error":"ProvisionedThroughputExceededException"}]})");
//   handler.SetFaults(faults);
//
// The rule format (JSON; the file of `serve --faults`, the body of
// PUT /_dynarock/faults):
//
//   {"seed": N,                       optional; default: random, reported by ToJson
//    "rules": [ {
//      "name": "throttle-orders",     optional; default "rule-<position from 1>"
//      -- which requests match (all given must hold):
//      "operation": "PutItem" | ["PutItem", "UpdateItem"],   default: any (names
//                                     Handler::IsOperation knows; a typo is an error)
//      "table": "orders",             any table the request names
//      "index": "by-date",            Query/Scan IndexName
//      "key_prefix": "user#",         a partition key value (S, N as text, B as
//                                     base64) of an item the request names starts
//                                     with it (not Query/Scan/PartiQL)
//      -- which matches fire (all given must hold; the count n is per rule, from 1):
//      "probability": 0.25,           default 1
//      "every_nth": 3,                n % 3 == 0
//      "first_n": 2,                  n <= 2
//      "max_fires": 10,               at most 10 fires in all
//      -- what a fire does:
//      "action": "error" | "latency" | "drop_before_apply" | "drop_after_apply"
//                | "unprocessed",     default "error"
//      "error": "ProvisionedThroughputExceededException" | "ThrottlingException"
//               | "RequestLimitExceeded" | "InternalServerError"
//               | "ServiceUnavailable" | "TransactionConflict"
//               | "ItemCollectionSizeLimitExceededException",
//      "message": "...",              default: DynamoDB's message for the error
//      "latency_ms": 200,             action "latency" (0..30000); with another
//                                     action, a delay before it
//      "fraction": 0.5,               action "unprocessed": the share of the
//                                     batch's requests (rounded up) left unprocessed
//      "keep": 1                      ... or: process this many, leave the rest
//    } ]}
//
// Rules are tried in order. A "latency" rule that fires delays the request and
// the next rules are still tried; any other rule that fires decides the
// request's fate and ends the search. "TransactionConflict" on a transaction
// (TransactWriteItems, TransactGetItems, ExecuteTransaction) is a
// TransactionCanceledException whose CancellationReasons say
// TransactionConflict for the items the rule matches (all of them without
// table/key_prefix) and None for the rest; on other operations it is a
// TransactionConflictException. "unprocessed" applies to BatchWriteItem and
// BatchGetItem only: the requests left out (matching the rule's table and
// key_prefix; the last ones of the request) are neither applied nor read.
// "drop_before_apply" does not run the request; "drop_after_apply" runs it;
// either way the HTTP server closes the connection without a reply (through
// other ways in, the caller gets an InternalServerError saying so).
//
// Determinism: whether the n-th match of rule i fires under probability p is a
// pure function of (seed, i, n), so the same seed and the same sequence of
// requests give the same fires, whatever other rules do. Counters are exact
// under concurrency (one mutex; the decision is a few comparisons).
//
// Thread-safe.

#ifndef DYNAROCK_API_FAULTS_H_
#define DYNAROCK_API_FAULTS_H_

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dynarock/status.h"

namespace dynarock::api {

enum class FaultAction : uint8_t {
  kError,
  kLatency,
  kDropBeforeApply,
  kDropAfterApply,
  kUnprocessed,
};

std::string_view FaultActionName(FaultAction action);

// The most a rule may delay a request.
inline constexpr int64_t kFaultLatencyMsMax = 30000;
// The most rules one injector holds.
inline constexpr size_t kFaultRulesMax = 1000;

struct FaultRule {
  std::string name;
  std::vector<std::string> operations;  // empty: any
  std::string table;                    // empty: any
  std::string index;                    // empty: any
  std::optional<std::string> key_prefix;
  double probability = 1.0;
  int64_t every_nth = 0;  // 0: no condition
  int64_t first_n = 0;    // 0: no condition
  int64_t max_fires = 0;  // 0: unbounded
  FaultAction action = FaultAction::kError;
  ErrorType error = ErrorType::kProvisionedThroughputExceeded;
  std::string message;  // empty: DynamoDB's
  int64_t latency_ms = 0;
  double fraction = 1.0;  // kUnprocessed
  int64_t keep = -1;      // kUnprocessed; >= 0 overrides fraction

  // Whether an item of `table` whose partition key reads `partition_key`
  // falls under the rule's table and key_prefix.
  bool MatchesItem(std::string_view item_table, std::string_view partition_key) const;
};

// What a request names, for matching: filled by the Handler from the decoded
// request.
struct FaultTarget {
  struct Key {
    std::string table;
    std::string partition_key;  // S as is, N as text, B as base64
  };
  std::string_view operation;
  std::vector<std::string> tables;
  std::string index;
  std::vector<Key> keys;
};

// A rule that fired, and the latency all fired rules add up to.
struct FaultDecision {
  int64_t latency_ms = 0;
  std::optional<FaultRule> rule;          // the deciding rule (not a latency one)
  std::vector<std::string> fired;         // names of every rule that fired, in order
  bool any() const { return latency_ms > 0 || rule.has_value(); }
};

struct FaultRuleCounters {
  std::string name;
  uint64_t matched = 0;
  uint64_t fired = 0;
};

class FaultInjector {
 public:
  FaultInjector();
  FaultInjector(const FaultInjector&) = delete;
  FaultInjector& operator=(const FaultInjector&) = delete;

  // Parses {"seed":N,"rules":[...]} (the format above) and replaces the rules
  // and seed, resetting the counters. A malformed document or rule gives a
  // ValidationException naming the rule and field, and changes nothing.
  Status SetRulesJson(std::string_view json);
  // The same from parsed rules (validated the same way).
  Status SetRules(std::vector<FaultRule> rules, std::optional<uint64_t> seed);
  // Removes every rule (and the counters).
  void Clear();
  // Sets the seed and resets the counters, keeping the rules.
  void SetSeed(uint64_t seed);

  // {"seed":N,"rules":[{<the rule as given, with defaults>,"matched":M,"fired":F}]}
  std::string ToJson() const;
  std::vector<FaultRuleCounters> Counters() const;
  uint64_t seed() const;

  // False when there are no rules: the Handler skips building a target.
  bool active() const { return active_.load(std::memory_order_acquire); }
  // Whether any rule looks at keys (so the target needs them).
  bool needs_keys() const { return needs_keys_.load(std::memory_order_acquire); }
  // Whether any rule delays (latency_ms): the request it fires on then sleeps
  // on the thread that runs it, which `serve` makes one of its own.
  bool delays() const { return delays_.load(std::memory_order_acquire); }

  // Counts the matches of `target` and decides what fires.
  FaultDecision Decide(const FaultTarget& target);

  // The error a fired kError rule replies with (DynamoDB's message unless the
  // rule has one). `target` gives the items of a transaction's reasons.
  static Status ErrorFor(const FaultRule& rule, const FaultTarget& target);

  // Parses one rule object; `position` (from 1) names it in errors and by default.
  static StatusOr<FaultRule> ParseRule(std::string_view json, size_t position);

 private:
  mutable std::mutex mu_;
  uint64_t seed_ = 0;                          // GUARDED_BY(mu_)
  std::vector<FaultRule> rules_;               // GUARDED_BY(mu_)
  std::vector<FaultRuleCounters> counters_;    // GUARDED_BY(mu_)
  std::atomic<bool> active_{false};
  std::atomic<bool> needs_keys_{false};
  std::atomic<bool> delays_{false};
};

// True when the n-th match (from 1) of rule `rule_index` fires under
// probability p with `seed`: the deterministic draw described above.
bool FaultDraw(uint64_t seed, size_t rule_index, uint64_t n, double p);

}  // namespace dynarock::api

#endif  // DYNAROCK_API_FAULTS_H_
