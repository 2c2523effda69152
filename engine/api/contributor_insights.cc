// File: engine/api/contributor_insights.cc

#include "engine/api/contributor_insights.h"

#include <algorithm>

#include "engine/api/json_writer.h"
#include "engine/table_validation.h"

namespace dynarock::api {
namespace {

constexpr size_t kKeysPerRule = 10000;

// The table a TableName names: itself, or the table of an ARN given there.
std::string TableOf(const std::string& name) { return std::string(TableNameOf(name)); }

// A whole key's text for the SK rules: partition and sort key, apart (their
// lengths first, so that any bytes may be in either).
std::string WholeKey(const CapacityLimits::Draw& d) {
  return std::to_string(d.partition.size()) + ':' + d.partition + d.sort;
}
std::pair<std::string, std::string> SplitWholeKey(const std::string& key) {
  const size_t colon = key.find(':');
  const size_t n = std::stoul(key.substr(0, colon));
  return {key.substr(colon + 1, n), key.substr(colon + 1 + n)};
}

// A rule's kind (PKC, PKT, SKC, SKT): the three letters after the prefix
// (the table's and index's names may hold anything else).
std::string_view RuleKind(std::string_view rule) {
  constexpr std::string_view kPrefix = "DynamoDBContributorInsights-";
  if (rule.size() < kPrefix.size() + 3 || rule.substr(0, kPrefix.size()) != kPrefix) return {};
  return rule.substr(kPrefix.size(), 3);
}

}  // namespace

void ContributorCounter::Refresh(DB* db) {
  const uint64_t version = db->CatalogVersion();
  if (refreshed_ && version != 0 && version == version_) return;
  std::map<Id, Resource> now;
  ListContributorInsightsRequest list;
  for (;;) {
    auto page = db->ListContributorInsights(list);
    if (!page.ok()) return;  // as it was: read again at the next request
    for (const ContributorInsightsSummary& s : page->summaries) {
      DescribeContributorInsightsRequest d;
      d.table_name = s.table_name;
      d.index_name = s.index_name;
      auto desc = db->DescribeContributorInsights(d);
      if (!desc.ok()) return;  // (changed meanwhile: read again at the next request)
      if (desc->rule_list.empty()) continue;
      Resource r;
      const std::string& rule = desc->rule_list.front();
      r.rules_ms = std::stoll(rule.substr(rule.rfind('-') + 1));
      r.accessed = desc->mode.value_or("") != "THROTTLED_KEYS";
      for (const std::string& name : desc->rule_list) r.sort_key = r.sort_key || RuleKind(name) == "SKT";
      const Id id{s.table_name, s.index_name.value_or("")};
      // The same rules as before (a change of mode keeps them): their counts stay.
      if (auto old = resources_.find(id); old != resources_.end() && old->second.rules_ms == r.rules_ms) {
        Resource kept = std::move(old->second);
        kept.accessed = r.accessed;
        r = std::move(kept);
      }
      now.emplace(id, std::move(r));
    }
    if (!page->next_token) break;
    list.next_token = page->next_token;
  }
  resources_ = std::move(now);
  version_ = version;
  refreshed_ = true;
  any_.store(!resources_.empty(), std::memory_order_relaxed);
  seen_version_.store(version, std::memory_order_relaxed);
}

bool ContributorCounter::Active(DB* db) {
  // Without a lock while the catalog is as last read and nothing is on: the
  // common case, on every request.
  const uint64_t version = db->CatalogVersion();
  if (version != 0 && version == seen_version_.load(std::memory_order_relaxed) &&
      !any_.load(std::memory_order_relaxed)) {
    return false;
  }
  std::lock_guard<std::mutex> lock(mu_);
  Refresh(db);
  return !resources_.empty();
}

void ContributorCounter::Add(Counts* counts, const std::string& key, double value) {
  if (value <= 0) return;
  (*counts)[key] += value;
  if (counts->size() <= kKeysPerRule) return;
  // Forget the smaller half (ties broken by key), never the key just
  // counted: the top keys stay.
  std::vector<std::pair<double, const std::string*>> ranked;
  ranked.reserve(counts->size());
  for (const auto& [k, v] : *counts) {
    if (k != key) ranked.emplace_back(v, &k);
  }
  const auto half = ranked.begin() + static_cast<std::ptrdiff_t>(ranked.size() / 2);
  std::nth_element(ranked.begin(), half, ranked.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : *a.second < *b.second;
  });
  std::vector<std::string> gone;
  gone.reserve(ranked.size() / 2);
  for (auto it = ranked.begin(); it != half; ++it) gone.push_back(*it->second);
  for (const std::string& k : gone) counts->erase(k);
}

void ContributorCounter::CountThrottles(DB* db, const std::vector<Draw>& draws,
                                        const std::vector<bool>& throttled) {
  std::lock_guard<std::mutex> lock(mu_);
  Refresh(db);
  for (size_t i = 0; i < draws.size() && i < throttled.size(); ++i) {
    const Draw& d = draws[i];
    if (!throttled[i] || d.partition.empty()) continue;
    auto it = resources_.find({TableOf(d.table), IndexOf(db, d)});
    if (it == resources_.end()) continue;
    Add(&it->second.pkt, d.partition, 1);
    if (it->second.sort_key && !d.sort.empty()) Add(&it->second.skt, WholeKey(d), 1);
  }
}

void ContributorCounter::CountAccesses(DB* db, const std::vector<Draw>& draws,
                                       const std::vector<ConsumedCapacity>& consumed, bool write) {
  std::lock_guard<std::mutex> lock(mu_);
  Refresh(db);
  // DynamoDB's ConsumedThroughputUnits: 3 a write unit, 1 a read unit.
  auto units_of = [&](const Capacity& c) {
    if (c.read_capacity_units > 0 || c.write_capacity_units > 0) {
      return 3 * c.write_capacity_units + c.read_capacity_units;
    }
    return (write ? 3 : 1) * c.capacity_units;
  };
  for (const ConsumedCapacity& c : consumed) {
    const std::string table = TableOf(c.table_name);
    // The table's own units (LSIs share them), spread over the keys named.
    auto it = resources_.find({table, ""});
    if (it != resources_.end() && it->second.accessed) {
      const double units = units_of(TableOwnCapacity(c));
      std::vector<const Draw*> named;
      for (const Draw& d : draws) {
        if (TableOf(d.table) == table && !d.partition.empty() && IndexOf(db, d).empty()) named.push_back(&d);
      }
      for (const Draw* d : named) {
        const double share = units / static_cast<double>(named.size());
        Add(&it->second.pkc, d->partition, share);
        if (it->second.sort_key && !d->sort.empty()) Add(&it->second.skc, WholeKey(*d), share);
      }
    }
    // A GSI's units, to the partition key a read of it names.
    for (const auto& [index, cap] : c.global_secondary_indexes) {
      auto ix = resources_.find({table, index});
      if (ix == resources_.end() || !ix->second.accessed) continue;
      for (const Draw& d : draws) {
        if (TableOf(d.table) == table && d.index == index && !d.partition.empty()) {
          Add(&ix->second.pkc, d.partition, units_of(cap));
        }
      }
    }
  }
}

std::string ContributorCounter::TopJson(DB* db, const std::string& table, const std::string& index,
                                        const std::vector<std::string>& rules, size_t top) {
  std::lock_guard<std::mutex> lock(mu_);
  Refresh(db);
  auto it = resources_.find({table, index});
  JsonWriter w;
  w.BeginArray();
  for (const std::string& rule : rules) {
    const Counts* counts = nullptr;
    bool whole = false;
    if (it != resources_.end()) {
      Resource& r = it->second;
      const std::string_view kind = RuleKind(rule);
      if (kind == "PKC") counts = &r.pkc;
      if (kind == "PKT") counts = &r.pkt;
      if (kind == "SKC") counts = &r.skc, whole = true;
      if (kind == "SKT") counts = &r.skt, whole = true;
    }
    std::vector<std::pair<std::string, double>> sorted;
    if (counts != nullptr) sorted.assign(counts->begin(), counts->end());
    std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
      return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    if (sorted.size() > top) sorted.resize(top);
    w.BeginObject();
    w.Member("RuleName", rule);
    w.Key("Contributors");
    w.BeginArray();
    for (const auto& [key, value] : sorted) {
      w.BeginObject();
      w.Key("Keys");
      w.BeginArray();
      if (whole) {
        const auto [partition, sort] = SplitWholeKey(key);
        w.String(partition);
        w.String(sort);
      } else {
        w.String(key);
      }
      w.EndArray();
      w.MemberDouble("ApproximateAggregateValue", value);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  return w.Release();
}

std::string ContributorCounter::IndexOf(DB* db, const Draw& d) {
  // A local secondary index shares its table's partitions and capacity.
  if (d.index.empty()) return "";
  auto keys = db->DescribeKeys(TableOf(d.table));
  if (keys.ok()) {
    for (const IndexDescription& lsi : keys->local_secondary_indexes) {
      if (lsi.index_name == d.index) return "";
    }
  }
  return d.index;
}

void ContributorCounter::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  resources_.clear();
  refreshed_ = false;
  any_.store(false, std::memory_order_relaxed);
  seen_version_.store(0, std::memory_order_relaxed);
}

}  // namespace dynarock::api
