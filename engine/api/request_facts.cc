// File: engine/api/request_facts.cc

#include "engine/api/request_facts.h"

#include <cmath>
#include <utility>

#include "engine/api/base64.h"
#include "engine/expr/expression.h"
#include "engine/partiql/parser.h"
#include "engine/request_checks.h"

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

std::string KeyNamesCache::SortKey(DB* db, const std::string& table, const Item& item) {
  if (item.size() == 1) return "";
  const std::string range = Get(db, table).range;
  if (range.empty()) return "";
  auto it = item.find(range);
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

std::string QueryPartition(KeyNamesCache& names, DB* db, const QueryRequest& req) {
  std::string hash;
  if (!req.index_name) {
    hash = names.Get(db, req.table_name).hash;
  } else {
    auto desc = db->DescribeKeys(req.table_name);
    if (!desc.ok()) return "";
    for (const auto* list : {&desc->global_secondary_indexes, &desc->local_secondary_indexes}) {
      for (const IndexDescription& ix : *list) {
        if (ix.index_name != *req.index_name) continue;
        for (const KeySchemaElement& k : ix.key_schema) {
          if (k.key_type == KeyType::kHash) {
            hash = k.attribute_name;
            break;
          }
        }
      }
    }
  }
  if (hash.empty()) return "";
  if (req.key_condition_expression) {
    auto values = NormalizeExpressionValues(req.expression_attribute_values);
    if (!values.ok()) return "";
    expr::ExpressionContext ctx(&req.expression_attribute_names, &*values,
                                req.has_expression_attribute_names,
                                req.has_expression_attribute_values);
    auto terms = expr::ParseKeyCondition(*req.key_condition_expression, &ctx);
    if (!terms.ok()) return "";
    for (const expr::KeyTerm& t : *terms) {
      if (t.attribute_name == hash && t.op == expr::KeyOp::kEq) return KeyText(t.value1);
    }
    return "";
  }
  auto it = req.key_conditions.find(hash);
  if (it == req.key_conditions.end() || it->second.comparison_operator != "EQ" ||
      it->second.attribute_value_list.size() != 1) {
    return "";
  }
  return KeyText(it->second.attribute_value_list[0]);
}

std::optional<Draw> StatementDraw(std::string_view statement) {
  std::optional<partiql::Statement> st = partiql::ParseTemplate(statement);
  if (!st) return std::nullopt;
  Draw d;
  d.table = st->table;
  d.index = st->index.value_or("");
  d.write = st->kind != partiql::Statement::Kind::kSelect &&
            st->kind != partiql::Statement::Kind::kExists;
  return d;
}

void HoldBackThrottled(const std::vector<bool>& throttled, BatchWriteItemRequest& req,
                       HeldBack<BatchWriteItemRequest>* held) {
  size_t i = 0;
  for (auto& [table, writes] : req.request_items) {
    std::vector<WriteRequest> kept;
    for (WriteRequest& w : writes) {
      if (i < throttled.size() && throttled[i]) {
        held->items[table].push_back(std::move(w));
      } else {
        kept.push_back(std::move(w));
      }
      ++i;
    }
    writes = std::move(kept);
  }
  std::erase_if(req.request_items, [](const auto& kv) { return kv.second.empty(); });
}

void HoldBackThrottled(const std::vector<bool>& throttled, BatchGetItemRequest& req,
                       HeldBack<BatchGetItemRequest>* held) {
  size_t i = 0;
  for (auto& [table, ka] : req.request_items) {
    std::vector<Item> kept;
    for (Item& k : ka.keys) {
      if (i < throttled.size() && throttled[i]) {
        auto [it, fresh] = held->keys.try_emplace(table);
        if (fresh) {
          it->second = ka;  // the projection and consistency go with the keys
          it->second.keys.clear();
        }
        it->second.keys.push_back(std::move(k));
      } else {
        kept.push_back(std::move(k));
      }
      ++i;
    }
    ka.keys = std::move(kept);
  }
  std::erase_if(req.request_items, [](const auto& kv) { return kv.second.keys.empty(); });
}

}  // namespace dynarock::api::internal
