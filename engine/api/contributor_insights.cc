// File: engine/api/contributor_insights.cc

#include "engine/api/contributor_insights.h"

#include <algorithm>

#include "engine/api/json_writer.h"

namespace dynarock::api {
namespace {

constexpr size_t kKeysPerRule = 10000;

// The table a TableName names: itself, or the table of an ARN given there.
std::string TableOf(const std::string& name) {
  const size_t at = name.rfind(":table/");
  if (name.rfind("arn:", 0) != 0 || at == std::string::npos) return name;
  const size_t from = at + 7;
  return name.substr(from, name.find('/', from) - from);
}

// A whole key's text for the SK rules: partition and sort key, apart.
std::string WholeKey(const CapacityLimits::Draw& d) { return d.partition + '\0' + d.sort; }

}  // namespace

void ContributorCounter::Refresh(DB* db) {
  const uint64_t version = db->CatalogVersion();
  if (refreshed_ && version != 0 && version == version_) return;
  std::map<Id, Resource> now;
  ListContributorInsightsRequest list;
  for (;;) {
    auto page = db->ListContributorInsights(list);
    if (!page.ok()) break;
    for (const ContributorInsightsSummary& s : page->summaries) {
      DescribeContributorInsightsRequest d;
      d.table_name = s.table_name;
      d.index_name = s.index_name;
      auto desc = db->DescribeContributorInsights(d);
      if (!desc.ok() || desc->rule_list.empty()) continue;
      Resource r;
      const std::string& rule = desc->rule_list.front();
      r.rules_ms = std::stoll(rule.substr(rule.rfind('-') + 1));
      r.accessed = desc->mode.value_or("") != "THROTTLED_KEYS";
      for (const std::string& name : desc->rule_list) {
        r.sort_key = r.sort_key || name.find("-SKT-") != std::string::npos;
      }
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
}

bool ContributorCounter::Active(DB* db) {
  std::lock_guard<std::mutex> lock(mu_);
  Refresh(db);
  return !resources_.empty();
}

void ContributorCounter::Add(Counts* counts, const std::string& key, double value) {
  if (value <= 0) return;
  (*counts)[key] += value;
  if (counts->size() <= kKeysPerRule) return;
  // Forget the smaller half: the top keys stay.
  std::vector<double> values;
  values.reserve(counts->size());
  for (const auto& [k, v] : *counts) values.push_back(v);
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  const double median = values[values.size() / 2];
  std::erase_if(*counts, [&](const auto& kv) { return kv.second <= median && kv.first != key; });
}

void ContributorCounter::CountThrottles(DB* db, const std::vector<Draw>& draws,
                                        const std::vector<bool>& throttled) {
  std::lock_guard<std::mutex> lock(mu_);
  Refresh(db);
  for (size_t i = 0; i < draws.size() && i < throttled.size(); ++i) {
    const Draw& d = draws[i];
    if (!throttled[i] || d.partition.empty()) continue;
    auto it = resources_.find({TableOf(d.table), d.index});
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
      Capacity own;
      if (c.table) {
        own = *c.table;
      } else {
        own.capacity_units = c.capacity_units;
        own.read_capacity_units = c.read_capacity_units.value_or(0);
        own.write_capacity_units = c.write_capacity_units.value_or(0);
      }
      double units = units_of(own);
      for (const auto& [name, cap] : c.local_secondary_indexes) units += units_of(cap);
      std::vector<const Draw*> named;
      for (const Draw& d : draws) {
        if (TableOf(d.table) == table && !d.partition.empty()) named.push_back(&d);
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
      if (rule.find("-PKC-") != std::string::npos) counts = &r.pkc;
      if (rule.find("-PKT-") != std::string::npos) counts = &r.pkt;
      if (rule.find("-SKC-") != std::string::npos) counts = &r.skc, whole = true;
      if (rule.find("-SKT-") != std::string::npos) counts = &r.skt, whole = true;
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
        const size_t cut = key.find('\0');
        w.String(key.substr(0, cut));
        w.String(key.substr(cut + 1));
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

void ContributorCounter::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  resources_.clear();
  refreshed_ = false;
}

}  // namespace dynarock::api
