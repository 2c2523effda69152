// File: engine/api/capacity_limits.cc

#include "engine/api/capacity_limits.h"

#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <utility>

#include "engine/api/json_writer.h"

namespace dynarock::api {

// What one table may consume, from its description.
struct CapacityLimits::Limits {
  struct Rates {
    std::string arn;
    bool on_demand = false;
    double read = 0;   // units per second; 0: not limited
    double write = 0;
  };
  std::string id;  // TableId
  std::string name;
  double created = 0;  // CreationDateTime: capacity unused since is burst
  Rates table;
  std::map<std::string, Rates, std::less<>> gsis;
};

namespace {

constexpr char kSep = '\x1f';

CapacityLimits::Limits::Rates RatesOf(bool on_demand, const std::string& arn,
                                      const ProvisionedThroughputDescription* provisioned,
                                      const std::optional<OnDemandThroughput>& max) {
  CapacityLimits::Limits::Rates r;
  r.arn = arn;
  r.on_demand = on_demand;
  if (on_demand) {
    if (max && max->max_read_request_units.value_or(0) > 0) {
      r.read = static_cast<double>(*max->max_read_request_units);
    }
    if (max && max->max_write_request_units.value_or(0) > 0) {
      r.write = static_cast<double>(*max->max_write_request_units);
    }
  } else if (provisioned != nullptr) {
    r.read = static_cast<double>(provisioned->read_capacity_units);
    r.write = static_cast<double>(provisioned->write_capacity_units);
  }
  return r;
}

// The units of `c` that are reads (or writes): Read/WriteCapacityUnits when
// the engine split them, else CapacityUnits by the operation's kind.
double UnitsOf(const Capacity& c, bool want_write, bool write) {
  if (c.read_capacity_units > 0 || c.write_capacity_units > 0) {
    return want_write ? c.write_capacity_units : c.read_capacity_units;
  }
  return want_write == write ? c.capacity_units : 0;
}

enum class Limit { kProvisioned, kOnDemandMax, kKeyRange };

Status ThrottleError(const CapacityLimits::Limits::Rates& rates, bool index, bool write, Limit limit) {
  std::string reason = index ? "Index" : "Table";
  reason += write ? "Write" : "Read";
  std::string message;
  ErrorType type = ErrorType::kProvisionedThroughputExceeded;
  switch (limit) {
    case Limit::kProvisioned:
      reason += "ProvisionedThroughputExceeded";
      message = index ? "The level of configured provisioned throughput for one or more global "
                        "secondary indexes of the table was exceeded. Consider increasing your "
                        "provisioning level for the under-provisioned global secondary indexes "
                        "with the UpdateTable API"
                      : "The level of configured provisioned throughput for the table was "
                        "exceeded. Consider increasing your provisioning level with the "
                        "UpdateTable API.";
      break;
    case Limit::kOnDemandMax:
      reason += "MaxOnDemandThroughputExceeded";
      type = ErrorType::kThrottling;
      message = "Throughput exceeds the maximum OnDemandThroughput configured on table or index";
      break;
    case Limit::kKeyRange:
      reason += "KeyRangeThroughputExceeded";
      if (rates.on_demand) type = ErrorType::kThrottling;
      message = "Throughput exceeds the current capacity of your table or index. DynamoDB is "
                "automatically scaling your table or index so please try again shortly. If "
                "exceptions persist, check if you have a hot key: "
                "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/"
                "bp-partition-key-design.html";
      break;
  }
  Status s(type, std::move(message));
  s.WithThrottlingReasons({ThrottlingReason{std::move(reason), rates.arn}});
  return s;
}

std::string BucketKey(const std::string& id, std::string_view index, bool write,
                      std::string_view partition) {
  std::string key = id;
  key += kSep;
  key += index;
  key += kSep;
  key += write ? 'W' : 'R';
  key += kSep;
  key += partition;
  return key;
}

}  // namespace

Capacity TableOwnCapacity(const ConsumedCapacity& c) {
  Capacity table;
  if (c.table) {
    table = *c.table;
  } else {
    table.capacity_units = c.capacity_units;
    table.read_capacity_units = c.read_capacity_units.value_or(0);
    table.write_capacity_units = c.write_capacity_units.value_or(0);
  }
  for (const auto& [name, cap] : c.local_secondary_indexes) {  // LSIs share the table's
    table.capacity_units += cap.capacity_units;
    table.read_capacity_units += cap.read_capacity_units;
    table.write_capacity_units += cap.write_capacity_units;
  }
  return table;
}

CapacityLimits::CapacityLimits(CapacityLimitOptions options)
    : options_(std::move(options)),
      enforce_(options_.enforce),
      partition_limits_(options_.partition_limits) {}

void CapacityLimits::Enforce(bool on, bool partition_limits) {
  enforce_.store(on);
  partition_limits_.store(partition_limits);
}

Status CapacityLimits::EnforceJson(std::string_view body) {
  simdjson::dom::parser p;
  simdjson::dom::element e;
  if (p.parse(body.data(), body.size()).get(e) != simdjson::SUCCESS || !e.is_object()) {
    return Status(ErrorType::kSerialization, "The body must be a JSON object");
  }
  bool enforce = enforced();
  bool partitions = partition_limits();
  for (auto [key, value] : e.get_object()) {
    bool b = false;
    if (value.get(b) != simdjson::SUCCESS || (key != "enforce" && key != "partitionLimits")) {
      return ValidationError("Capacity settings are \"enforce\" and \"partitionLimits\", each "
                             "true or false; not \"" + std::string(key) + "\" as given");
    }
    (key == "enforce" ? enforce : partitions) = b;
  }
  Enforce(enforce, partitions);
  return Status();
}
CapacityLimits::~CapacityLimits() = default;

double CapacityLimits::Now() const {
  if (options_.clock) return options_.clock();
  using namespace std::chrono;
  return duration_cast<microseconds>(system_clock::now().time_since_epoch()).count() / 1e6;
}

std::shared_ptr<const CapacityLimits::Limits> CapacityLimits::LimitsOf(DB* db,
                                                                       const std::string& table) {
  const uint64_t version = db->CatalogVersion();
  {
    std::lock_guard<std::mutex> lock(mu_);
    Catalog& catalog = catalogs_[db];
    if (version == 0 || version != catalog.version) {
      catalog.tables.clear();
      catalog.version = version;
    }
    auto it = catalog.tables.find(table);
    if (it != catalog.tables.end()) return it->second;
  }
  DescribeTableRequest req;
  req.table_name = table;
  auto desc = db->DescribeTable(req);
  if (!desc.ok()) return nullptr;
  const TableDescription& t = desc->table;
  auto limits = std::make_shared<Limits>();
  limits->id = t.table_id;
  limits->name = t.table_name;
  limits->created = t.creation_date_time;
  const bool on_demand = t.billing_mode.value_or("PROVISIONED") == "PAY_PER_REQUEST";
  limits->table = RatesOf(on_demand, t.table_arn, &t.provisioned_throughput, t.on_demand_throughput);
  for (const IndexDescription& gsi : t.global_secondary_indexes) {
    limits->gsis.emplace(gsi.index_name,
                         RatesOf(on_demand, gsi.index_arn,
                                 gsi.provisioned_throughput ? &*gsi.provisioned_throughput : nullptr,
                                 gsi.on_demand_throughput));
  }
  std::lock_guard<std::mutex> lock(mu_);
  Catalog& catalog = catalogs_[db];
  if (version != 0 && version == catalog.version) catalog.tables.emplace(table, limits);
  return limits;
}

CapacityLimits::Bucket& CapacityLimits::BucketAt(const std::string& key, double rate, double burst,
                                                 double born, double now) {
  auto [it, fresh] = buckets_.try_emplace(key);
  Bucket& b = it->second;
  if (fresh) {
    // What was left unused since the table was made, and at least a second's.
    b.tokens = std::min(burst, rate * std::max(1.0, now - born));
    b.at = now;
  } else if (now > b.at) {
    b.tokens = std::min(burst, b.tokens + rate * (now - b.at));
    b.at = now;
  } else {
    b.at = now;  // the clock was set back: nothing earned
  }
  // A changed throughput (UpdateTable) applies from now on.
  b.tokens = std::min(b.tokens, burst);
  b.rate = rate;
  b.burst = burst;
  return b;
}

void CapacityLimits::Sweep(double now) {
  std::erase_if(buckets_, [&](auto& kv) {
    const std::string& key = kv.first;
    if (key.empty() || key.back() == kSep) return false;  // no partition: keeps its burst
    const Bucket& b = kv.second;
    return b.tokens + b.rate * std::max(0.0, now - b.at) >= b.burst;
  });
}

Status CapacityLimits::Admit(DB* db, const Draw& d) {
  std::shared_ptr<const Limits> limits = LimitsOf(db, d.table);
  if (!limits) return Status();
  const double now = Now();
  const Limits::Rates* gsi = nullptr;
  if (!d.index.empty()) {
    auto it = limits->gsis.find(d.index);
    if (it != limits->gsis.end()) gsi = &it->second;  // else an LSI: the table's
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (partition_limits() && ++since_sweep_ >= 4096) {
    since_sweep_ = 0;
    Sweep(now);
  }
  auto check = [&](const Limits::Rates& rates, std::string_view index, bool write,
                   std::string_view partition) -> Status {
    double rate = write ? rates.write : rates.read;
    double burst = rate * (rates.on_demand ? 1.0 : options_.burst_seconds);
    Limit limit = rates.on_demand ? Limit::kOnDemandMax : Limit::kProvisioned;
    if (!partition.empty()) {
      rate = write ? options_.partition_write_units : options_.partition_read_units;
      burst = rate;
      limit = Limit::kKeyRange;
    }
    if (rate <= 0) return Status();
    // A whole unit left (or the whole bucket, were it smaller): the least
    // any request costs.
    if (BucketAt(BucketKey(limits->id, index, write, partition), rate, burst, limits->created, now).tokens >=
        std::min(1.0, burst) - 1e-9) {
      return Status();
    }
    return ThrottleError(rates, !index.empty(), write, limit);
  };
  const bool partitions = partition_limits() && !d.partition.empty();
  if (d.write) {
    DR_RETURN_IF_ERROR(check(limits->table, "", true, ""));
    for (const auto& [name, rates] : limits->gsis) {
      DR_RETURN_IF_ERROR(check(rates, name, true, ""));
    }
    if (partitions) DR_RETURN_IF_ERROR(check(limits->table, "", true, d.partition));
    return Status();
  }
  if (gsi != nullptr) {
    DR_RETURN_IF_ERROR(check(*gsi, d.index, false, ""));
    if (partitions) DR_RETURN_IF_ERROR(check(*gsi, d.index, false, d.partition));
    return Status();
  }
  DR_RETURN_IF_ERROR(check(limits->table, "", false, ""));
  if (partitions) DR_RETURN_IF_ERROR(check(limits->table, "", false, d.partition));
  return Status();
}

void CapacityLimits::Charge(DB* db, const std::vector<ConsumedCapacity>& consumed, bool write,
                            const std::vector<Draw>& draws) {
  const double now = Now();
  for (const ConsumedCapacity& c : consumed) {
    std::shared_ptr<const Limits> limits = LimitsOf(db, c.table_name);
    if (!limits) continue;
    const Capacity table = TableOwnCapacity(c);
    std::vector<std::string_view> table_partitions;
    for (const Draw& d : draws) {
      if (d.table == c.table_name && !d.partition.empty() &&
          (d.index.empty() || !limits->gsis.count(d.index))) {
        table_partitions.push_back(d.partition);
      }
    }
    std::lock_guard<std::mutex> lock(mu_);
    auto take = [&](const Limits::Rates& rates, std::string_view index, bool w,
                    std::string_view partition, double units) {
      if (units <= 0) return;
      double rate = w ? rates.write : rates.read;
      double burst = rate * (rates.on_demand ? 1.0 : options_.burst_seconds);
      if (!partition.empty()) {
        if (!partition_limits()) return;
        rate = burst = w ? options_.partition_write_units : options_.partition_read_units;
      }
      if (rate <= 0) return;
      BucketAt(BucketKey(limits->id, index, w, partition), rate, burst, limits->created, now).tokens -= units;
    };
    for (bool w : {false, true}) {
      const double units = UnitsOf(table, w, write);
      take(limits->table, "", w, "", units);
      for (std::string_view p : table_partitions) {
        take(limits->table, "", w, p, units / static_cast<double>(table_partitions.size()));
      }
      for (const auto& [name, cap] : c.global_secondary_indexes) {
        auto it = limits->gsis.find(name);
        if (it == limits->gsis.end()) continue;
        const double index_units = UnitsOf(cap, w, write);
        take(it->second, name, w, "", index_units);
        for (const Draw& d : draws) {
          if (d.table == c.table_name && d.index == name && !d.partition.empty()) {
            take(it->second, name, w, d.partition, index_units);
          }
        }
      }
    }
  }
}

void CapacityLimits::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  buckets_.clear();
  catalogs_.clear();
}

std::string CapacityLimits::StateJson() {
  const double now = Now();
  JsonWriter w;
  w.BeginObject();
  w.MemberBool("enforce", enforced());
  w.MemberBool("partitionLimits", partition_limits());
  w.MemberDouble("burstSeconds", options_.burst_seconds);
  w.Key("buckets");
  w.BeginArray();
  std::lock_guard<std::mutex> lock(mu_);
  // TableId -> name, from what is known of the tables.
  std::map<std::string, std::string, std::less<>> names;
  for (const auto& [db, catalog] : catalogs_) {
    for (const auto& [named, limits] : catalog.tables) names[limits->id] = limits->name;
  }
  for (const auto& [key, b] : buckets_) {
    // id, index, R|W, partition
    const size_t a = key.find(kSep), c = key.find(kSep, a + 1), d = key.find(kSep, c + 1);
    if (a == std::string::npos || c == std::string::npos || d == std::string::npos) continue;
    const std::string id = key.substr(0, a);
    auto named = names.find(id);
    const double units = std::min(b.burst, b.tokens + b.rate * std::max(0.0, now - b.at));
    w.BeginObject();
    w.Member("table", named != names.end() ? named->second : id);
    w.Member("index", key.substr(a + 1, c - a - 1));
    w.Member("kind", key[c + 1] == 'W' ? "write" : "read");
    w.Member("partitionKey", key.substr(d + 1));
    w.MemberDouble("units", units);
    w.MemberDouble("rate", b.rate);
    w.MemberDouble("burst", b.burst);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return w.Release();
}

}  // namespace dynarock::api
