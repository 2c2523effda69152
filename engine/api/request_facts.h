// File: engine/api/request_facts.h
//
// Internal to api::Handler (request_pipeline.h): what a decoded request names (tables,
// index, the partition keys of its items) for the fault rules (faults.h) and
// the request log (request_log.h), what its response says (items read, why a
// page ended), and the partial batches of "unprocessed" fault rules.

#ifndef DYNAROCK_API_REQUEST_FACTS_H_
#define DYNAROCK_API_REQUEST_FACTS_H_

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "dynarock/db.h"
#include "dynarock/item_size.h"
#include "dynarock/partiql.h"
#include "engine/api/capacity_limits.h"
#include "engine/api/faults.h"
#include "engine/api/json_encode.h"
#include "engine/api/request_log.h"

namespace dynarock::api::internal {

// Each table's key attribute names, read with DB::DescribeKeys and kept while
// the DB's CatalogVersion stays the same (never kept when it is 0). Thread-safe.
class KeyNamesCache {
 public:
  struct KeyNames {
    std::string hash;   // empty when there is no such table
    std::string range;  // empty without a sort key
  };
  KeyNames Get(DB* db, const std::string& table);
  // The partition key value of an item or key of `table` (KeyText).
  std::string PartitionKey(DB* db, const std::string& table, const Item& item);
  // Its sort key value (KeyText; empty without one).
  std::string SortKey(DB* db, const std::string& table, const Item& item);

 private:
  std::mutex mu_;
  uint64_t version_ = 0;                                  // GUARDED_BY(mu_)
  std::map<std::string, KeyNames, std::less<>> names_;  // GUARDED_BY(mu_)
};

// S as is, N as its text, B as base64; "" for anything else.
std::string KeyText(const AttributeValue& v);

// What a decoded request names: tables, index, and (with `keys`) the partition
// keys of its items; with `facts`, what the request log shows of it.
template <typename Req>
void Describe(KeyNamesCache& names, DB* db, const Req& req, bool keys, FaultTarget* t, RequestFacts* facts) {
  auto add = [&](const std::string& table, const Item& item) {
    if (!keys) return;
    t->keys.push_back(FaultTarget::Key{table, names.PartitionKey(db, table, item)});
  };
  if constexpr (requires { req.table_name.size(); }) t->tables.push_back(req.table_name);
  if constexpr (requires { req.index_name.has_value(); }) {
    if (req.index_name) t->index = *req.index_name;
  }
  if constexpr (requires { req.key.size(); }) {
    add(req.table_name, req.key);
    if (facts != nullptr) facts->key_json = EncodeItemJson(req.key);
  } else if constexpr (std::is_same_v<Req, PutItemRequest>) {
    add(req.table_name, req.item);
    if (facts != nullptr) {
      facts->item_bytes = static_cast<int64_t>(ItemSize(req.item));
      const KeyNamesCache::KeyNames key_names = names.Get(db, req.table_name);
      Item key;
      for (const std::string* name : {&key_names.hash, &key_names.range}) {
        auto it = req.item.find(*name);
        if (!name->empty() && it != req.item.end()) key.emplace(it->first, it->second);
      }
      if (!key.empty()) facts->key_json = EncodeItemJson(key);
    }
  }
  int64_t items = -1;
  if constexpr (std::is_same_v<Req, BatchWriteItemRequest>) {
    items = 0;
    for (const auto& [table, writes] : req.request_items) {
      t->tables.push_back(table);
      for (const WriteRequest& w : writes) add(table, w.put_item ? *w.put_item : *w.delete_key);
      items += static_cast<int64_t>(writes.size());
    }
  } else if constexpr (std::is_same_v<Req, BatchGetItemRequest>) {
    items = 0;
    for (const auto& [table, ka] : req.request_items) {
      t->tables.push_back(table);
      for (const Item& k : ka.keys) add(table, k);
      items += static_cast<int64_t>(ka.keys.size());
    }
  } else if constexpr (std::is_same_v<Req, TransactWriteItemsRequest>) {
    for (const TransactWriteItem& x : req.transact_items) {
      t->tables.push_back(x.table_name);
      add(x.table_name, x.kind == TransactWriteItem::Kind::kPut ? x.item : x.key);
    }
    items = static_cast<int64_t>(req.transact_items.size());
  } else if constexpr (requires { req.transact_statements.size(); }) {
    // PartiQL: the items are not known before planning; one unnamed entry per
    // statement, so that a transaction conflict has a reason for each.
    if (keys) t->keys.resize(req.transact_statements.size());
    items = static_cast<int64_t>(req.transact_statements.size());
  } else if constexpr (std::is_same_v<Req, TransactGetItemsRequest>) {
    for (const TransactGetItem& x : req.transact_items) {
      t->tables.push_back(x.table_name);
      add(x.table_name, x.key);
    }
    items = static_cast<int64_t>(req.transact_items.size());
  }
  if (facts == nullptr) return;
  facts->items = items;
  for (const std::string& table : t->tables) {
    if (std::find(facts->tables.begin(), facts->tables.end(), table) == facts->tables.end()) {
      facts->tables.push_back(table);
    }
  }
  if (!facts->tables.empty()) facts->table = facts->tables.front();
  facts->index = t->index;
  if (!t->keys.empty()) facts->partition_key = t->keys.front().partition_key;
  if constexpr (std::is_same_v<Req, QueryRequest>) {
    facts->filtered = req.filter_expression.has_value() || req.has_query_filter;
  } else if constexpr (std::is_same_v<Req, ScanRequest>) {
    facts->filtered = req.filter_expression.has_value() || req.has_scan_filter;
  }
}

// What the request log shows of a response: items read and why a page ended.
template <typename Req, typename Resp>
void DescribeResponse(const Req& req, const Resp& r, RequestFacts* facts) {
  if constexpr (requires { r.scanned_count; r.last_evaluated_key; req.limit; }) {
    facts->items_scanned = r.scanned_count;
    facts->items_returned = r.count;
    if (!r.last_evaluated_key) {
      facts->page_end = "end";
    } else if (req.limit && r.scanned_count >= *req.limit) {
      facts->page_end = "limit";
    } else {
      facts->page_end = "1MB";
    }
  } else if constexpr (std::is_same_v<Resp, GetItemResponse>) {
    if (r.item || r.encoded_item) facts->item_bytes = r.bytes_read;
  }
}

// A fired "unprocessed" rule: the requests of a batch held back (neither
// applied nor read), the last `k` of those the rule matches.
template <typename Req>
struct HeldBack {};

template <>
struct HeldBack<BatchWriteItemRequest> {
  std::map<std::string, std::vector<WriteRequest>> items;
};
template <>
struct HeldBack<BatchGetItemRequest> {
  std::map<std::string, KeysAndAttributes> keys;
};

// How many of `candidates` matching requests a fired "unprocessed" rule holds back.
size_t HeldCount(const FaultRule& rule, size_t candidates);

// Moves the requests a fired "unprocessed" rule holds back out of `req` into
// `held` (the last of those the rule matches); tables left empty are removed.
void HoldBack(KeyNamesCache& names, DB* db, const FaultRule& rule, BatchWriteItemRequest& req,
              HeldBack<BatchWriteItemRequest>* held);
void HoldBack(KeyNamesCache& names, DB* db, const FaultRule& rule, BatchGetItemRequest& req,
              HeldBack<BatchGetItemRequest>* held);

// Adds what was held back to the response's UnprocessedItems/UnprocessedKeys.
void GiveBack(HeldBack<BatchWriteItemRequest>& held, BatchWriteItemResponse* r);
void GiveBack(HeldBack<BatchGetItemRequest>& held, BatchGetItemResponse* r);

// ---------------------------------------------------------------- capacity limits

using Draw = CapacityLimits::Draw;

// Whether a request of this type writes (for its draws and its charge).
template <typename Req>
inline constexpr bool kWrites =
    std::is_same_v<Req, PutItemRequest> || std::is_same_v<Req, UpdateItemRequest> ||
    std::is_same_v<Req, DeleteItemRequest> || std::is_same_v<Req, BatchWriteItemRequest> ||
    std::is_same_v<Req, TransactWriteItemsRequest>;

// The partition key (KeyText) a Query's key condition names on `table` or
// its `index`; empty when it cannot be told (the engine reports why).
std::string QueryPartition(KeyNamesCache& names, DB* db, const QueryRequest& req);

// The table, index and whether a PartiQL statement writes; nullopt when it
// does not parse (the engine reports why).
std::optional<Draw> StatementDraw(std::string_view statement);

// What a request draws on (capacity_limits.h): one draw per item of a batch
// or transaction, in the request's order (BatchWriteItem and BatchGetItem:
// table by table), one per statement of the PartiQL ones, else one;
// partition keys only with `partitions`.
template <typename Req>
std::vector<Draw> Draws(KeyNamesCache& names, DB* db, const Req& req, bool partitions) {
  std::vector<Draw> out;
  auto add = [&](const std::string& table, const Item* item, bool write) {
    Draw d;
    d.table = table;
    d.write = write;
    if (partitions && item != nullptr) {
      d.partition = names.PartitionKey(db, table, *item);
      d.sort = names.SortKey(db, table, *item);
    }
    out.push_back(std::move(d));
  };
  if constexpr (std::is_same_v<Req, PutItemRequest>) {
    add(req.table_name, &req.item, true);
  } else if constexpr (std::is_same_v<Req, GetItemRequest> || std::is_same_v<Req, UpdateItemRequest> ||
                       std::is_same_v<Req, DeleteItemRequest>) {
    add(req.table_name, &req.key, kWrites<Req>);
  } else if constexpr (std::is_same_v<Req, QueryRequest> || std::is_same_v<Req, ScanRequest>) {
    Draw d;
    d.table = req.table_name;
    d.index = req.index_name.value_or("");
    if constexpr (std::is_same_v<Req, QueryRequest>) {
      if (partitions) d.partition = QueryPartition(names, db, req);
    }
    out.push_back(std::move(d));
  } else if constexpr (std::is_same_v<Req, BatchWriteItemRequest>) {
    for (const auto& [table, writes] : req.request_items) {
      for (const WriteRequest& w : writes) add(table, w.put_item ? &*w.put_item : &*w.delete_key, true);
    }
  } else if constexpr (std::is_same_v<Req, BatchGetItemRequest>) {
    for (const auto& [table, ka] : req.request_items) {
      for (const Item& k : ka.keys) add(table, &k, false);
    }
  } else if constexpr (std::is_same_v<Req, TransactWriteItemsRequest>) {
    for (const TransactWriteItem& x : req.transact_items) {
      add(x.table_name, x.kind == TransactWriteItem::Kind::kPut ? &x.item : &x.key, true);
    }
  } else if constexpr (std::is_same_v<Req, TransactGetItemsRequest>) {
    for (const TransactGetItem& x : req.transact_items) add(x.table_name, &x.key, false);
  } else if constexpr (std::is_same_v<Req, ExecuteStatementRequest>) {
    if (auto d = StatementDraw(req.statement)) out.push_back(std::move(*d));
  } else if constexpr (std::is_same_v<Req, BatchExecuteStatementRequest>) {
    for (const auto& st : req.statements) out.push_back(StatementDraw(st.statement).value_or(Draw{}));
  } else if constexpr (std::is_same_v<Req, ExecuteTransactionRequest>) {
    for (const auto& st : req.transact_statements) {
      out.push_back(StatementDraw(st.statement).value_or(Draw{}));
    }
  }
  return out;
}

// Moves the requests of a batch whose draw (Draws' order) was throttled
// (`throttled[i]`) into `held`, to come back unprocessed.
void HoldBackThrottled(const std::vector<bool>& throttled, BatchWriteItemRequest& req,
                       HeldBack<BatchWriteItemRequest>* held);
void HoldBackThrottled(const std::vector<bool>& throttled, BatchGetItemRequest& req,
                       HeldBack<BatchGetItemRequest>* held);

}  // namespace dynarock::api::internal

#endif  // DYNAROCK_API_REQUEST_FACTS_H_
