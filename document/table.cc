// File: document/table.cc

#include "document/table.h"

#include <algorithm>
#include <chrono>
#include <iterator>
#include <thread>

namespace dynarock::document {
namespace {

// Names and values into a request with both maps.
template <typename Req>
void Attach(const Expressions& e, Req* r) {
  for (const auto& [k, v] : e.names) r->expression_attribute_names[k] = v;
  for (const auto& [k, v] : e.values) r->expression_attribute_values[k] = v;
  r->has_expression_attribute_names = !e.names.empty();
  r->has_expression_attribute_values = !e.values.empty();
}

void Backoff(int attempt) {
  // 25 ms doubling, at most a second: what an SDK's retries wait.
  std::this_thread::sleep_for(std::chrono::milliseconds(std::min(1000, 25 << std::min(attempt, 6))));
}

}  // namespace

Status Table::Put(const Value& item, const std::optional<Condition>& condition) {
  PutItemRequest r;
  r.table_name = name_;
  DR_ASSIGN_OR_RETURN(r.item, item.ToRequestItem());
  if (condition) {
    DR_ASSIGN_OR_RETURN(Expressions e, Expressions::Build().Condition(*condition).Done());
    r.condition_expression = e.condition;
    Attach(e, &r);
  }
  return client_->PutItem(r).status();
}

std::optional<Condition> Table::VersionCheck(std::string_view version, int64_t current,
                                            const std::optional<Condition>& extra) {
  if (version.empty()) return extra;
  const Operand v = Attribute(std::string(version));
  Condition check = current == 0 ? v.AttributeNotExists() : v.Eq(current);
  return extra ? check.And(*extra) : check;
}

Status Table::PutVersioned(Value item, std::string_view version, int64_t current,
                           const std::optional<Condition>& condition) {
  if (!version.empty()) item.map().insert_or_assign(std::string(version), Value(current + 1));
  return Put(item, VersionCheck(version, current, condition));
}

StatusOr<Value> Table::UpdateRecord(const Value& key, const Value& item, const std::vector<std::string_view>& names,
                                    std::string_view version, int64_t current,
                                    const std::optional<Condition>& condition) {
  document::Update u;
  bool actions = !version.empty();
  for (std::string_view name : names) {
    if (!key[name].is_absent() || name == version) continue;
    actions = true;
    const Value& v = item[name];
    if (v.is_absent()) {
      u.RemoveAttribute(std::string(name));
    } else {
      u.SetAttribute(std::string(name), v);
    }
  }
  if (!version.empty()) u.SetAttribute(std::string(version), current + 1);
  // A record of key attributes alone: UpdateItem without an update
  // expression makes the item when there is none (as the Enhanced Client does).
  return SendUpdate(key, actions ? &u : nullptr, VersionCheck(version, current, condition));
}

Status Table::DeleteRecord(const Value& key, std::string_view version, int64_t current,
                           const std::optional<Condition>& condition) {
  return Delete(key, VersionCheck(version, current, condition)).status();
}

StatusOr<std::optional<Value>> Table::Get(const Value& key, bool consistent_read,
                                          const std::vector<std::string>& projection) {
  GetItemRequest r;
  r.table_name = name_;
  DR_ASSIGN_OR_RETURN(r.key, key.ToRequestItem());
  r.consistent_read = consistent_read;
  if (!projection.empty()) {
    DR_ASSIGN_OR_RETURN(Expressions e, Expressions::Build().Projection(projection).Done());
    r.projection_expression = e.projection;
    for (const auto& [k, v] : e.names) r.expression_attribute_names[k] = v;
    r.has_expression_attribute_names = true;
  }
  r.encoded_items = !client_->remote();  // as in Read
  DR_ASSIGN_OR_RETURN(GetItemResponse got, client_->GetItem(r));
  if (got.encoded_item) {
    DR_ASSIGN_OR_RETURN(Value v, Value::From(ItemView(*got.encoded_item)));
    return std::optional<Value>(std::move(v));
  }
  if (!got.item) return std::optional<Value>();
  return std::optional<Value>(Value::From(std::move(*got.item)));
}

StatusOr<Value> Table::Update(const Value& key, const document::Update& update,
                              const std::optional<Condition>& condition) {
  return SendUpdate(key, &update, condition);
}

StatusOr<Value> Table::SendUpdate(const Value& key, const document::Update* update,
                                  const std::optional<Condition>& condition) {
  UpdateItemRequest r;
  r.table_name = name_;
  DR_ASSIGN_OR_RETURN(r.key, key.ToRequestItem());
  auto b = Expressions::Build();
  if (update != nullptr) b.Update(*update);
  if (condition) b.Condition(*condition);
  DR_ASSIGN_OR_RETURN(Expressions e, b.Done());
  r.update_expression = e.update;
  r.condition_expression = e.condition;
  Attach(e, &r);
  r.return_values = ReturnValue::kAllNew;
  DR_ASSIGN_OR_RETURN(UpdateItemResponse out, client_->UpdateItem(r));
  if (out.attributes) return Value::From(std::move(*out.attributes));
  return update != nullptr ? Value(Map{}) : key;
}

StatusOr<std::optional<Value>> Table::Delete(const Value& key, const std::optional<Condition>& condition) {
  DeleteItemRequest r;
  r.table_name = name_;
  DR_ASSIGN_OR_RETURN(r.key, key.ToRequestItem());
  if (condition) {
    DR_ASSIGN_OR_RETURN(Expressions e, Expressions::Build().Condition(*condition).Done());
    r.condition_expression = e.condition;
    Attach(e, &r);
  }
  r.return_values = ReturnValue::kAllOld;
  DR_ASSIGN_OR_RETURN(DeleteItemResponse out, client_->DeleteItem(r));
  if (!out.attributes) return std::optional<Value>();
  return std::optional<Value>(Value::From(std::move(*out.attributes)));
}

StatusOr<Page> Table::Read(bool query, const KeyCondition* key, const QueryOptions& o,
                           const std::optional<Value>& cursor) {
  auto b = Expressions::Build();
  if (key != nullptr) b.KeyCondition(*key);
  if (o.filter) b.Filter(*o.filter);
  if (!o.projection.empty()) b.Projection(o.projection);
  DR_ASSIGN_OR_RETURN(Expressions e, b.Done());
  std::optional<Item> start;
  if (cursor) {
    DR_ASSIGN_OR_RETURN(Item c, cursor->ToItem());
    start = std::move(c);
  }
  QueryResponse resp;
  // In process, the page comes as its stored bytes, read straight into Values
  // (no Item on the way); an endpoint sends JSON, read into Items.
  const bool embedded = !client_->remote();
  if (query) {
    QueryRequest r;
    r.table_name = name_;
    r.index_name = o.index;
    r.key_condition_expression = e.key_condition;
    r.filter_expression = e.filter;
    r.projection_expression = e.projection;
    Attach(e, &r);
    r.limit = o.limit;
    r.consistent_read = o.consistent_read;
    r.scan_index_forward = o.forward;
    r.encoded_items = embedded;
    r.exclusive_start_key = std::move(start);
    DR_ASSIGN_OR_RETURN(resp, client_->Query(r));
  } else {
    ScanRequest r;
    r.table_name = name_;
    r.index_name = o.index;
    r.filter_expression = e.filter;
    r.projection_expression = e.projection;
    Attach(e, &r);
    r.limit = o.limit;
    r.consistent_read = o.consistent_read;
    r.exclusive_start_key = std::move(start);
    r.encoded_items = embedded;
    DR_ASSIGN_OR_RETURN(resp, client_->Scan(r));
  }
  Page page;
  page.items.reserve(resp.items.size() + resp.encoded_items.size());
  for (Item& item : resp.items) page.items.push_back(Value::From(std::move(item)));
  for (size_t i = 0; i < resp.encoded_items.size(); ++i) {
    DR_ASSIGN_OR_RETURN(Value v, Value::From(resp.encoded_items[i]));
    page.items.push_back(std::move(v));
  }
  if (resp.last_evaluated_key) page.next = Value::From(std::move(*resp.last_evaluated_key));
  return page;
}

StatusOr<Page> Table::QueryPage(const KeyCondition& key, const QueryOptions& options,
                                const std::optional<Value>& cursor) {
  return Read(true, &key, options, cursor);
}

StatusOr<Page> Table::ScanPage(const QueryOptions& options, const std::optional<Value>& cursor) {
  return Read(false, nullptr, options, cursor);
}

Status Table::Query(const KeyCondition& key, const QueryOptions& options,
                    const std::function<bool(const Value&)>& each) {
  std::optional<Value> cursor;
  do {
    DR_ASSIGN_OR_RETURN(Page page, QueryPage(key, options, cursor));
    for (const Value& v : page.items) {
      if (!each(v)) return Status();
    }
    cursor = std::move(page.next);
  } while (cursor);
  return Status();
}

Status Table::Scan(const QueryOptions& options, const std::function<bool(const Value&)>& each) {
  std::optional<Value> cursor;
  do {
    DR_ASSIGN_OR_RETURN(Page page, ScanPage(options, cursor));
    for (const Value& v : page.items) {
      if (!each(v)) return Status();
    }
    cursor = std::move(page.next);
  } while (cursor);
  return Status();
}

StatusOr<std::vector<Value>> Table::ReadAll(bool query, const KeyCondition* key, const QueryOptions& options) {
  std::vector<Value> out;
  std::optional<Value> cursor;
  do {
    DR_ASSIGN_OR_RETURN(Page page, Read(query, key, options, cursor));
    if (out.empty()) {
      out = std::move(page.items);
    } else {
      out.insert(out.end(), std::make_move_iterator(page.items.begin()), std::make_move_iterator(page.items.end()));
    }
    cursor = std::move(page.next);
  } while (cursor);
  return out;
}

StatusOr<std::vector<Value>> Table::QueryAll(const KeyCondition& key, const QueryOptions& options) {
  return ReadAll(true, &key, options);
}

StatusOr<std::vector<Value>> Table::ScanAll(const QueryOptions& options) {
  return ReadAll(false, nullptr, options);
}

StatusOr<std::vector<Value>> Table::BatchGet(const std::vector<Value>& keys, bool consistent_read,
                                             int max_attempts) {
  std::vector<Item> pending;
  pending.reserve(keys.size());
  for (const Value& k : keys) {
    DR_ASSIGN_OR_RETURN(Item item, k.ToRequestItem());
    pending.push_back(std::move(item));
  }
  std::vector<Value> found;
  for (size_t at = 0; at < pending.size(); at += 100) {  // BatchGetItem's limit
    KeysAndAttributes ka;
    ka.consistent_read = consistent_read;
    ka.keys.assign(pending.begin() + static_cast<std::ptrdiff_t>(at),
                   pending.begin() + static_cast<std::ptrdiff_t>(std::min(pending.size(), at + 100)));
    for (int attempt = 0; !ka.keys.empty(); ++attempt) {
      if (attempt >= max_attempts) {
        return Status(ErrorType::kProvisionedThroughputExceeded,
                      std::to_string(ka.keys.size()) + " keys stayed unprocessed after " +
                          std::to_string(max_attempts) + " attempts");
      }
      if (attempt > 0) Backoff(attempt);
      BatchGetItemRequest r;
      r.request_items[name_] = ka;
      DR_ASSIGN_OR_RETURN(BatchGetItemResponse resp, client_->BatchGetItem(r));
      for (Item& item : resp.responses[name_]) found.push_back(Value::From(std::move(item)));
      auto left = resp.unprocessed_keys.find(name_);
      ka.keys = left == resp.unprocessed_keys.end() ? std::vector<Item>() : std::move(left->second.keys);
    }
  }
  return found;
}

Status Table::BatchWrite(const std::vector<Value>& values, bool put, int max_attempts) {
  std::vector<WriteRequest> writes;
  writes.reserve(values.size());
  for (const Value& v : values) {
    DR_ASSIGN_OR_RETURN(Item item, v.ToRequestItem());
    WriteRequest w;
    (put ? w.put_item : w.delete_key) = std::move(item);
    writes.push_back(std::move(w));
  }
  for (size_t at = 0; at < writes.size(); at += 25) {  // BatchWriteItem's limit
    std::vector<WriteRequest> chunk(writes.begin() + static_cast<std::ptrdiff_t>(at),
                                    writes.begin() + static_cast<std::ptrdiff_t>(std::min(writes.size(), at + 25)));
    for (int attempt = 0; !chunk.empty(); ++attempt) {
      if (attempt >= max_attempts) {
        return Status(ErrorType::kProvisionedThroughputExceeded,
                      std::to_string(chunk.size()) + " writes stayed unprocessed after " +
                          std::to_string(max_attempts) + " attempts");
      }
      if (attempt > 0) Backoff(attempt);
      BatchWriteItemRequest r;
      r.request_items[name_] = chunk;
      DR_ASSIGN_OR_RETURN(BatchWriteItemResponse resp, client_->BatchWriteItem(r));
      auto left = resp.unprocessed_items.find(name_);
      chunk = left == resp.unprocessed_items.end() ? std::vector<WriteRequest>() : std::move(left->second);
    }
  }
  return Status();
}

Status Table::BatchPut(const std::vector<Value>& items, int max_attempts) {
  return BatchWrite(items, true, max_attempts);
}

Status Table::BatchDelete(const std::vector<Value>& keys, int max_attempts) {
  return BatchWrite(keys, false, max_attempts);
}

// ---------------------------------------------------------------- Transaction

Transaction& Transaction::Add(TransactWriteItem::Kind kind, const Table& table, const Value& value,
                              const document::Update* update,
                              const std::optional<Condition>& condition) {
  if (!error_.ok()) return *this;
  TransactWriteItem w;
  w.kind = kind;
  w.table_name = table.name();
  auto item = value.ToItem();
  if (!item.ok()) {
    error_ = item.status();
    return *this;
  }
  (kind == TransactWriteItem::Kind::kPut ? w.item : w.key) = std::move(*item);
  if (update != nullptr || condition) {
    auto b = Expressions::Build();
    if (update != nullptr) b.Update(*update);
    if (condition) b.Condition(*condition);
    auto e = b.Done();
    if (!e.ok()) {
      error_ = e.status();
      return *this;
    }
    if (update != nullptr) w.update_expression = e->update;
    w.condition_expression = e->condition;
    Attach(*e, &w);
  }
  items_.push_back(std::move(w));
  return *this;
}

Transaction& Transaction::Put(const Table& table, const Value& item,
                              const std::optional<Condition>& condition) {
  return Add(TransactWriteItem::Kind::kPut, table, item, nullptr, condition);
}

Transaction& Transaction::Update(const Table& table, const Value& key, const document::Update& update,
                                 const std::optional<Condition>& condition) {
  return Add(TransactWriteItem::Kind::kUpdate, table, key, &update, condition);
}

Transaction& Transaction::Delete(const Table& table, const Value& key,
                                 const std::optional<Condition>& condition) {
  return Add(TransactWriteItem::Kind::kDelete, table, key, nullptr, condition);
}

Transaction& Transaction::Check(const Table& table, const Value& key, const Condition& condition) {
  return Add(TransactWriteItem::Kind::kConditionCheck, table, key, nullptr, condition);
}

Status Transaction::Commit(const std::optional<std::string>& token) {
  DR_RETURN_IF_ERROR(error_);
  TransactWriteItemsRequest r;
  r.transact_items = items_;
  r.client_request_token = token;
  return client_->TransactWriteItems(r).status();
}

}  // namespace dynarock::document
