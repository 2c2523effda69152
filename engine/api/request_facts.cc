// File: engine/api/request_facts.cc

#include "engine/api/request_facts.h"

#include <cmath>
#include <utility>

#include "engine/api/base64.h"

namespace dynarock::api::internal {

KeyNamesCache::KeyNames KeyNamesCache::Get(DB* db, const std::string& table) {
  const uint64_t version = db->CatalogVersion();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (version == 0 || version != version_) {
      names_.clear();
      version_ = version;
    }
    auto it = names_.find(table);
    if (it != names_.end()) return it->second;
  }
  KeyNames names;
  auto desc = db->DescribeKeys(table);
  if (!desc.ok()) return names;
  for (const KeySchemaElement& k : desc->key_schema) {
    (k.key_type == KeyType::kHash ? names.hash : names.range) = k.attribute_name;
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (version != 0 && version == version_) names_.emplace(table, names);
  return names;
}

std::string KeyNamesCache::PartitionKey(DB* db, const std::string& table, const Item& item) {
  if (item.size() == 1) return KeyText(item.begin()->second);
  auto it = item.find(Get(db, table).hash);
  return it == item.end() ? std::string() : KeyText(it->second);
}

std::string KeyText(const AttributeValue& v) {
  if (v.is(AttrType::kS) || v.is(AttrType::kN)) return v.scalar();
  if (v.is(AttrType::kB)) return Base64Encode(v.scalar());
  return "";
}

size_t HeldCount(const FaultRule& rule, size_t candidates) {
  if (rule.keep >= 0) {
    return candidates > static_cast<size_t>(rule.keep) ? candidates - rule.keep : 0;
  }
  return std::min(candidates, static_cast<size_t>(std::ceil(rule.fraction * candidates - 1e-9)));
}

void HoldBack(KeyNamesCache& names, DB* db, const FaultRule& rule, BatchWriteItemRequest& req,
              HeldBack<BatchWriteItemRequest>* held) {
  std::vector<std::pair<std::string, size_t>> candidates;
  for (const auto& [table, writes] : req.request_items) {
    for (size_t i = 0; i < writes.size(); ++i) {
      const Item& item = writes[i].put_item ? *writes[i].put_item : *writes[i].delete_key;
      if (rule.MatchesItem(table, names.PartitionKey(db, table, item))) candidates.emplace_back(table, i);
    }
  }
  const size_t k = HeldCount(rule, candidates.size());
  // From the back, so that earlier positions stay valid.
  for (size_t n = 0; n < k; ++n) {
    const auto& [table, i] = candidates[candidates.size() - 1 - n];
    auto& writes = req.request_items[table];
    auto& out = held->items[table];
    out.insert(out.begin(), std::move(writes[i]));
    writes.erase(writes.begin() + static_cast<std::ptrdiff_t>(i));
  }
  std::erase_if(req.request_items, [](const auto& kv) { return kv.second.empty(); });
}

void HoldBack(KeyNamesCache& names, DB* db, const FaultRule& rule, BatchGetItemRequest& req,
              HeldBack<BatchGetItemRequest>* held) {
  std::vector<std::pair<std::string, size_t>> candidates;
  for (const auto& [table, ka] : req.request_items) {
    for (size_t i = 0; i < ka.keys.size(); ++i) {
      if (rule.MatchesItem(table, names.PartitionKey(db, table, ka.keys[i]))) candidates.emplace_back(table, i);
    }
  }
  const size_t k = HeldCount(rule, candidates.size());
  for (size_t n = 0; n < k; ++n) {
    const auto& [table, i] = candidates[candidates.size() - 1 - n];
    KeysAndAttributes& ka = req.request_items[table];
    auto [it, fresh] = held->keys.try_emplace(table);
    if (fresh) {
      it->second = ka;  // the projection and consistency go with the keys
      it->second.keys.clear();
    }
    it->second.keys.insert(it->second.keys.begin(), std::move(ka.keys[i]));
    ka.keys.erase(ka.keys.begin() + static_cast<std::ptrdiff_t>(i));
  }
  std::erase_if(req.request_items, [](const auto& kv) { return kv.second.keys.empty(); });
}

void GiveBack(HeldBack<BatchWriteItemRequest>& held, BatchWriteItemResponse* r) {
  for (auto& [table, writes] : held.items) {
    auto& out = r->unprocessed_items[table];
    for (auto& w : writes) out.push_back(std::move(w));
  }
}

void GiveBack(HeldBack<BatchGetItemRequest>& held, BatchGetItemResponse* r) {
  for (auto& [table, ka] : held.keys) {
    r->responses.try_emplace(table);  // every table named appears in Responses
    auto [it, fresh] = r->unprocessed_keys.try_emplace(table, ka);
    if (!fresh) {
      for (auto& k : ka.keys) it->second.keys.push_back(std::move(k));
    }
  }
}

}  // namespace dynarock::api::internal
