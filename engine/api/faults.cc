// File: engine/api/faults.cc

#include "engine/api/faults.h"

#include <simdjson.h>

#include <cmath>
#include <random>
#include <utility>

#include "engine/api/handler.h"
#include "engine/api/json_writer.h"

namespace dynarock::api {
namespace {

namespace dom = simdjson::dom;

struct ActionName {
  FaultAction action;
  std::string_view name;
};
constexpr ActionName kActions[] = {
    {FaultAction::kError, "error"},
    {FaultAction::kLatency, "latency"},
    {FaultAction::kDropBeforeApply, "drop_before_apply"},
    {FaultAction::kDropAfterApply, "drop_after_apply"},
    {FaultAction::kUnprocessed, "unprocessed"},
};

// The errors a rule may answer with, by the names clients see.
struct ErrorName {
  ErrorType type;
  std::string_view name;
  std::string_view message;  // DynamoDB's
};
constexpr ErrorName kErrors[] = {
    {ErrorType::kProvisionedThroughputExceeded, "ProvisionedThroughputExceededException",
     "The level of configured provisioned throughput for the table was exceeded. Consider "
     "increasing your provisioning level with the UpdateTable API."},
    {ErrorType::kThrottling, "ThrottlingException", "Rate of requests exceeds the allowed throughput."},
    {ErrorType::kRequestLimitExceeded, "RequestLimitExceeded",
     "Throughput exceeds the current throughput limit for your account. Please contact AWS "
     "Support at https://aws.amazon.com/support request a limit increase"},
    {ErrorType::kInternalServerError, "InternalServerError", "Internal server error"},
    {ErrorType::kServiceUnavailable, "ServiceUnavailable", "Service Unavailable"},
    {ErrorType::kTransactionConflict, "TransactionConflict",
     "Transaction is ongoing for the item"},
    {ErrorType::kItemCollectionSizeLimitExceeded, "ItemCollectionSizeLimitExceededException",
     "Collection size exceeded."},
};

const ErrorName* FindError(std::string_view name) {
  for (const ErrorName& e : kErrors) {
    if (e.name == name) return &e;
  }
  // The exception names also go by their short forms.
  if (name == "TransactionConflictException") return FindError("TransactionConflict");
  if (name == "ServiceUnavailableException") return FindError("ServiceUnavailable");
  if (name == "InternalServerErrorException") return FindError("InternalServerError");
  return nullptr;
}

const ErrorName& ErrorOf(ErrorType type) {
  for (const ErrorName& e : kErrors) {
    if (e.type == type) return e;
  }
  return kErrors[0];
}

uint64_t SplitMix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

Status RuleError(size_t position, std::string_view what) {
  return ValidationError("Fault rule " + std::to_string(position) + ": " + std::string(what));
}

StatusOr<int64_t> IntField(dom::element v, size_t position, std::string_view field, int64_t lo,
                           int64_t hi) {
  int64_t n = 0;
  if (v.is_int64()) {
    n = v.get_int64().value_unsafe();
  } else if (v.is_uint64()) {  // above INT64_MAX
    return RuleError(position, std::string(field) + " must be a whole number from " +
                                   std::to_string(lo) + " to " + std::to_string(hi));
  } else {
    return RuleError(position, std::string(field) + " must be a whole number");
  }
  if (n < lo || n > hi) {
    return RuleError(position, std::string(field) + " must be a whole number from " +
                                   std::to_string(lo) + " to " + std::to_string(hi));
  }
  return n;
}

StatusOr<double> NumberField(dom::element v, size_t position, std::string_view field, double lo,
                             double hi) {
  double d = 0;
  if (v.is_double()) {
    d = v.get_double().value_unsafe();
  } else if (v.is_int64()) {
    d = static_cast<double>(v.get_int64().value_unsafe());
  } else if (v.is_uint64()) {
    d = static_cast<double>(v.get_uint64().value_unsafe());
  } else {
    return RuleError(position, std::string(field) + " must be a number");
  }
  if (!(d >= lo && d <= hi)) {
    std::string m = std::string(field) + " must be a number from ";
    AppendJsonDouble(lo, &m);
    m += " to ";
    AppendJsonDouble(hi, &m);
    return RuleError(position, m);
  }
  return d;
}

StatusOr<std::string> StringField(dom::element v, size_t position, std::string_view field) {
  if (!v.is_string()) return RuleError(position, std::string(field) + " must be a string");
  return std::string(v.get_string().value_unsafe());
}

StatusOr<FaultRule> ParseRuleElement(dom::element e, size_t position) {
  if (!e.is_object()) return RuleError(position, "must be a JSON object");
  FaultRule r;
  bool has_action = false, has_error = false, has_fraction = false, has_keep = false;
  dom::object obj;
  if (e.get_object().get(obj) != simdjson::SUCCESS) return RuleError(position, "must be a JSON object");
  for (auto field : obj) {
    const std::string_view k = field.key;
    dom::element v = field.value;
    if (k == "name") {
      auto s = StringField(v, position, k);
      if (!s.ok()) return s.status();
      if (s->empty() || s->size() > 255) return RuleError(position, "name must be 1 to 255 characters");
      r.name = std::move(*s);
    } else if (k == "operation" || k == "operations") {
      if (v.is_string()) {
        r.operations.emplace_back(v.get_string().value_unsafe());
      } else if (v.is_array()) {
        dom::array ops;
        if (v.get_array().get(ops) != simdjson::SUCCESS) return RuleError(position, "operation must be a list");
        for (dom::element o : ops) {
          if (!o.is_string()) return RuleError(position, "operation must be a string or a list of strings");
          r.operations.emplace_back(o.get_string().value_unsafe());
        }
        if (r.operations.empty()) return RuleError(position, "operation must not be an empty list");
      } else {
        return RuleError(position, "operation must be a string or a list of strings");
      }
      for (const std::string& op : r.operations) {
        if (!Handler::IsOperation(op)) {
          return RuleError(position, "operation '" + op + "' is not an operation this endpoint serves "
                                     "(PutItem, Query, DynamoDBStreams_20120810.GetRecords, ...)");
        }
      }
    } else if (k == "table") {
      auto s = StringField(v, position, k);
      if (!s.ok()) return s.status();
      r.table = std::move(*s);
    } else if (k == "index") {
      auto s = StringField(v, position, k);
      if (!s.ok()) return s.status();
      r.index = std::move(*s);
    } else if (k == "key_prefix") {
      auto s = StringField(v, position, k);
      if (!s.ok()) return s.status();
      r.key_prefix = std::move(*s);
    } else if (k == "probability") {
      auto d = NumberField(v, position, k, 0, 1);
      if (!d.ok()) return d.status();
      r.probability = *d;
    } else if (k == "every_nth" || k == "first_n" || k == "max_fires") {
      auto n = IntField(v, position, k, 1, int64_t{1} << 53);
      if (!n.ok()) return n.status();
      (k == "every_nth" ? r.every_nth : k == "first_n" ? r.first_n : r.max_fires) = *n;
    } else if (k == "action") {
      auto s = StringField(v, position, k);
      if (!s.ok()) return s.status();
      bool found = false;
      for (const ActionName& a : kActions) {
        if (a.name == *s) {
          r.action = a.action;
          found = true;
        }
      }
      if (!found) {
        return RuleError(position, "action must be one of error, latency, drop_before_apply, "
                                   "drop_after_apply, unprocessed; not '" + *s + "'");
      }
      has_action = true;
    } else if (k == "error") {
      auto s = StringField(v, position, k);
      if (!s.ok()) return s.status();
      const ErrorName* err = FindError(*s);
      if (err == nullptr) {
        std::string m = "error must be one of";
        for (const ErrorName& x : kErrors) m += std::string(" ") + std::string(x.name);
        return RuleError(position, m + "; not '" + *s + "'");
      }
      r.error = err->type;
      has_error = true;
    } else if (k == "message") {
      auto s = StringField(v, position, k);
      if (!s.ok()) return s.status();
      r.message = std::move(*s);
    } else if (k == "latency_ms") {
      auto n = IntField(v, position, k, 0, kFaultLatencyMsMax);
      if (!n.ok()) return n.status();
      r.latency_ms = *n;
    } else if (k == "fraction") {
      auto d = NumberField(v, position, k, 0, 1);
      if (!d.ok()) return d.status();
      if (*d <= 0) return RuleError(position, "fraction must be more than 0 and at most 1");
      r.fraction = *d;
      has_fraction = true;
    } else if (k == "keep") {
      auto n = IntField(v, position, k, 0, 100);
      if (!n.ok()) return n.status();
      r.keep = *n;
      has_keep = true;
    } else {
      return RuleError(position, "unknown field '" + std::string(k) + "'");
    }
  }
  if (!has_action && r.latency_ms > 0 && !has_error) r.action = FaultAction::kLatency;
  if (r.name.empty()) r.name = "rule-" + std::to_string(position);
  if (has_error && r.action != FaultAction::kError) {
    return RuleError(position, "error is only for action error");
  }
  if ((has_fraction || has_keep) && r.action != FaultAction::kUnprocessed) {
    return RuleError(position, "fraction and keep are only for action unprocessed");
  }
  if (has_fraction && has_keep) return RuleError(position, "give fraction or keep, not both");
  if (r.action == FaultAction::kLatency && r.latency_ms == 0) {
    return RuleError(position, "action latency needs latency_ms");
  }
  if (r.action == FaultAction::kUnprocessed) {
    for (const std::string& op : r.operations) {
      if (op != "BatchWriteItem" && op != "BatchGetItem") {
        return RuleError(position, "action unprocessed is only for BatchWriteItem and BatchGetItem");
      }
    }
    if (r.operations.empty()) r.operations = {"BatchGetItem", "BatchWriteItem"};
  }
  return r;
}

void WriteRule(JsonWriter* w, const FaultRule& r) {
  w->Member("name", r.name);
  if (!r.operations.empty()) {
    w->Key("operation");
    w->BeginArray();
    for (const std::string& op : r.operations) w->String(op);
    w->EndArray();
  }
  if (!r.table.empty()) w->Member("table", r.table);
  if (!r.index.empty()) w->Member("index", r.index);
  if (r.key_prefix) w->Member("key_prefix", *r.key_prefix);
  w->MemberDouble("probability", r.probability);
  if (r.every_nth) w->MemberInt("every_nth", r.every_nth);
  if (r.first_n) w->MemberInt("first_n", r.first_n);
  if (r.max_fires) w->MemberInt("max_fires", r.max_fires);
  w->Member("action", FaultActionName(r.action));
  if (r.action == FaultAction::kError) {
    w->Member("error", ErrorOf(r.error).name);
    if (!r.message.empty()) w->Member("message", r.message);
  }
  if (r.latency_ms) w->MemberInt("latency_ms", r.latency_ms);
  if (r.action == FaultAction::kUnprocessed) {
    if (r.keep >= 0) {
      w->MemberInt("keep", r.keep);
    } else {
      w->MemberDouble("fraction", r.fraction);
    }
  }
}

bool Matches(const FaultRule& r, const FaultTarget& t) {
  if (!r.operations.empty()) {
    bool any = false;
    for (const std::string& op : r.operations) any = any || op == t.operation;
    if (!any) return false;
  }
  if (!r.index.empty() && r.index != t.index) return false;
  if (r.key_prefix) {
    for (const FaultTarget::Key& k : t.keys) {
      if (r.MatchesItem(k.table, k.partition_key)) return true;
    }
    return false;
  }
  if (!r.table.empty()) {
    for (const std::string& table : t.tables) {
      if (table == r.table) return true;
    }
    return false;
  }
  return true;
}

}  // namespace

std::string_view FaultActionName(FaultAction action) {
  for (const ActionName& a : kActions) {
    if (a.action == action) return a.name;
  }
  return "error";
}

bool FaultRule::MatchesItem(std::string_view item_table, std::string_view partition_key) const {
  if (!table.empty() && table != item_table) return false;
  if (key_prefix && partition_key.substr(0, key_prefix->size()) != *key_prefix) return false;
  return true;
}

bool FaultDraw(uint64_t seed, size_t rule_index, uint64_t n, double p) {
  if (p >= 1) return true;
  if (p <= 0) return false;
  const uint64_t h = SplitMix64(SplitMix64(seed ^ SplitMix64(rule_index + 1)) ^ n);
  const double u = static_cast<double>(h >> 11) * 0x1.0p-53;  // [0, 1)
  return u < p;
}

FaultInjector::FaultInjector() {
  std::random_device rd;
  seed_ = (static_cast<uint64_t>(rd()) << 32) ^ rd();
}

StatusOr<FaultRule> FaultInjector::ParseRule(std::string_view json, size_t position) {
  dom::parser parser;
  simdjson::padded_string padded(json);
  dom::element e;
  if (parser.parse(padded).get(e) != simdjson::SUCCESS) {
    return RuleError(position, "not valid JSON");
  }
  return ParseRuleElement(e, position);
}

Status FaultInjector::SetRulesJson(std::string_view json) {
  dom::parser parser;
  simdjson::padded_string padded(json);
  dom::element doc;
  if (parser.parse(padded).get(doc) != simdjson::SUCCESS) {
    return ValidationError("Fault rules are not valid JSON");
  }
  std::vector<FaultRule> rules;
  std::optional<uint64_t> seed;
  dom::array list;
  if (doc.is_array()) {  // a bare list of rules
    if (doc.get_array().get(list) != simdjson::SUCCESS) return ValidationError("Fault rules: bad list");
  } else if (doc.is_object()) {
    bool has_rules = false;
    dom::object obj;
    if (doc.get_object().get(obj) != simdjson::SUCCESS) return ValidationError("Fault rules must be an object");
    for (auto field : obj) {
      if (field.key == "seed") {
        if (field.value.is_uint64()) {
          seed = field.value.get_uint64().value_unsafe();
        } else if (field.value.is_int64() && field.value.get_int64().value_unsafe() >= 0) {
          seed = static_cast<uint64_t>(field.value.get_int64().value_unsafe());
        } else {
          return ValidationError("Fault rules: seed must be a whole number from 0 to 2^64-1");
        }
      } else if (field.key == "rules") {
        if (!field.value.is_array()) return ValidationError("Fault rules: rules must be a list");
        if (field.value.get_array().get(list) != simdjson::SUCCESS) {
          return ValidationError("Fault rules: rules must be a list");
        }
        has_rules = true;
      } else {
        return ValidationError("Fault rules: unknown field '" + std::string(field.key) +
                               "' (expected seed, rules)");
      }
    }
    if (!has_rules) return ValidationError("Fault rules: rules is missing");
  } else {
    return ValidationError("Fault rules must be an object {\"seed\":N,\"rules\":[...]}");
  }
  size_t position = 0;
  for (dom::element e : list) {
    ++position;
    if (position > kFaultRulesMax) {
      return ValidationError("Fault rules: at most " + std::to_string(kFaultRulesMax) + " rules");
    }
    auto rule = ParseRuleElement(e, position);
    if (!rule.ok()) return rule.status();
    rules.push_back(std::move(*rule));
  }
  return SetRules(std::move(rules), seed);
}

Status FaultInjector::SetRules(std::vector<FaultRule> rules, std::optional<uint64_t> seed) {
  if (rules.size() > kFaultRulesMax) {
    return ValidationError("Fault rules: at most " + std::to_string(kFaultRulesMax) + " rules");
  }
  bool keys = false, delays = false;
  for (size_t i = 0; i < rules.size(); ++i) {
    const FaultRule& r = rules[i];
    if (r.latency_ms < 0 || r.latency_ms > kFaultLatencyMsMax || !(r.probability >= 0) ||
        r.probability > 1 || r.every_nth < 0 || r.first_n < 0 || r.max_fires < 0 ||
        !(r.fraction > 0 && r.fraction <= 1)) {
      return RuleError(i + 1, "a field is out of range");
    }
    for (size_t j = 0; j < i; ++j) {
      if (rules[j].name == r.name) return RuleError(i + 1, "name '" + r.name + "' is used twice");
    }
    keys = keys || r.key_prefix.has_value() || r.action == FaultAction::kUnprocessed ||
           (r.action == FaultAction::kError && r.error == ErrorType::kTransactionConflict);
    delays = delays || r.latency_ms > 0;
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (seed) seed_ = *seed;
  counters_.clear();
  for (const FaultRule& r : rules) counters_.push_back(FaultRuleCounters{r.name, 0, 0});
  rules_ = std::move(rules);
  needs_keys_.store(keys, std::memory_order_release);
  delays_.store(delays, std::memory_order_release);
  active_.store(!rules_.empty(), std::memory_order_release);
  return Status();
}

void FaultInjector::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  rules_.clear();
  counters_.clear();
  active_.store(false, std::memory_order_release);
  needs_keys_.store(false, std::memory_order_release);
  delays_.store(false, std::memory_order_release);
}

void FaultInjector::SetSeed(uint64_t seed) {
  std::lock_guard<std::mutex> lock(mu_);
  seed_ = seed;
  for (FaultRuleCounters& c : counters_) c.matched = c.fired = 0;
}

uint64_t FaultInjector::seed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return seed_;
}

std::vector<FaultRuleCounters> FaultInjector::Counters() const {
  std::lock_guard<std::mutex> lock(mu_);
  return counters_;
}

std::string FaultInjector::ToJson() const {
  std::lock_guard<std::mutex> lock(mu_);
  JsonWriter w;
  w.BeginObject();
  w.Key("seed");
  w.Raw(std::to_string(seed_));
  uint64_t matched = 0, fired = 0;
  w.Key("rules");
  w.BeginArray();
  for (size_t i = 0; i < rules_.size(); ++i) {
    w.BeginObject();
    WriteRule(&w, rules_[i]);
    w.MemberInt("matched", static_cast<int64_t>(counters_[i].matched));
    w.MemberInt("fired", static_cast<int64_t>(counters_[i].fired));
    matched += counters_[i].matched;
    fired += counters_[i].fired;
    w.EndObject();
  }
  w.EndArray();
  w.MemberInt("matched", static_cast<int64_t>(matched));
  w.MemberInt("fired", static_cast<int64_t>(fired));
  w.EndObject();
  return w.Release();
}

FaultDecision FaultInjector::Decide(const FaultTarget& target) {
  FaultDecision d;
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t i = 0; i < rules_.size(); ++i) {
    const FaultRule& r = rules_[i];
    if (!Matches(r, target)) continue;
    FaultRuleCounters& c = counters_[i];
    const uint64_t n = ++c.matched;
    if (r.first_n > 0 && n > static_cast<uint64_t>(r.first_n)) continue;
    if (r.every_nth > 0 && n % static_cast<uint64_t>(r.every_nth) != 0) continue;
    if (r.max_fires > 0 && c.fired >= static_cast<uint64_t>(r.max_fires)) continue;
    if (!FaultDraw(seed_, i, n, r.probability)) continue;
    ++c.fired;
    d.fired.push_back(r.name);
    d.latency_ms = std::min(kFaultLatencyMsMax, d.latency_ms + r.latency_ms);
    if (r.action == FaultAction::kLatency) continue;
    d.rule = r;
    break;
  }
  return d;
}

Status FaultInjector::ErrorFor(const FaultRule& rule, const FaultTarget& target) {
  const ErrorName& e = ErrorOf(rule.error);
  std::string message = rule.message.empty() ? std::string(e.message) : rule.message;
  const bool transaction = target.operation == "TransactWriteItems" ||
                           target.operation == "TransactGetItems" ||
                           target.operation == "ExecuteTransaction";
  if (rule.error == ErrorType::kTransactionConflict && transaction) {
    std::vector<CancellationReason> reasons;
    std::string codes;
    for (const FaultTarget::Key& k : target.keys) {
      CancellationReason reason;
      const bool hit = (rule.table.empty() && !rule.key_prefix) ||
                       rule.MatchesItem(k.table, k.partition_key);
      reason.code = hit ? "TransactionConflict" : "None";
      if (hit) reason.message = "Transaction is ongoing for the item";
      codes += (codes.empty() ? "" : ", ") + reason.code;
      reasons.push_back(std::move(reason));
    }
    if (reasons.empty()) {  // nothing known of the items: one reason
      reasons.push_back(CancellationReason{"TransactionConflict", "Transaction is ongoing for the item", {}});
      codes = "TransactionConflict";
    }
    Status s(ErrorType::kTransactionCanceled,
             "Transaction cancelled, please refer cancellation reasons for specific reasons [" +
                 codes + "]");
    s.WithCancellationReasons(std::move(reasons));
    return s;
  }
  return Status(rule.error, std::move(message));
}

}  // namespace dynarock::api
