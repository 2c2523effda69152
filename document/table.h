// File: document/table.h
//
// A table handle with plain calls, over client::Client: the same code runs
// embedded (client::EmbeddedClient, over dynarock::DB, no JSON) or against
// any DynamoDB endpoint (client::HttpClient: SigV4, TLS, retries), so the
// document API and the graph layer share one transport.
//
//   document::Table todos(client, "todos");
//   DR_RETURN_IF_ERROR(todos.Put(document::Map{{"user", "ann"}, {"due", 3}, {"done", false}}));
//   auto got = todos.Get(document::Map{{"user", "ann"}, {"due", 3}});   // optional<Value>
//   auto after = todos.Update(key, document::Update().Set("done", true),
//                             document::Name("done").Eq(false));         // the item after
//   document::QueryOptions o;
//   o.filter = document::Name("done").Eq(false);
//   for (auto page = todos.QueryPage(document::Key("user").Eq("ann"), o); ...)  // a page and
//   auto all = todos.Query(document::Key("user").Eq("ann"), o);          // its cursor, or all
//
// Errors are the project's one error model: the DynamoDB error type and
// message (ConditionalCheckFailed when a condition fails, ...). Batch helpers
// split into DynamoDB's limits (100 keys a BatchGetItem, 25 writes a
// BatchWriteItem) and send again what comes back unprocessed, with backoff,
// until it is written or `max_attempts` rounds have passed.

#ifndef DYNAROCK_DOCUMENT_TABLE_H_
#define DYNAROCK_DOCUMENT_TABLE_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "client/client.h"
#include "document/expression.h"
#include "document/record.h"
#include "document/value.h"

namespace dynarock::document {

struct QueryOptions {
  std::optional<std::string> index;  // a GSI or LSI
  std::optional<Condition> filter;
  std::vector<std::string> projection;  // empty: every attribute
  std::optional<int64_t> limit;         // items evaluated a page
  bool consistent_read = false;
  bool forward = true;                  // ScanIndexForward
};

// One page and the cursor to the next (none: the last page).
struct Page {
  std::vector<Value> items;
  std::optional<Value> next;
};
template <typename T>
struct RecordPage {
  std::vector<T> items;
  std::optional<Value> next;
};

class Table {
 public:
  Table(client::Client* client, std::string name) : client_(client), name_(std::move(name)) {}
  const std::string& name() const { return name_; }

  Status Put(const Value& item, const std::optional<Condition>& condition = std::nullopt);
  // The item, or nullopt when there is none.
  StatusOr<std::optional<Value>> Get(const Value& key, bool consistent_read = false,
                                     const std::vector<std::string>& projection = {});
  // The item after the update (ReturnValues ALL_NEW).
  StatusOr<Value> Update(const Value& key, const document::Update& update,
                         const std::optional<Condition>& condition = std::nullopt);
  // The item deleted, or nullopt when there was none.
  StatusOr<std::optional<Value>> Delete(const Value& key,
                                        const std::optional<Condition>& condition = std::nullopt);

  StatusOr<Page> QueryPage(const KeyCondition& key, const QueryOptions& options = {},
                           const std::optional<Value>& cursor = std::nullopt);
  StatusOr<Page> ScanPage(const QueryOptions& options = {}, const std::optional<Value>& cursor = std::nullopt);
  // Every page in turn: `each` sees each item; false from it stops.
  Status Query(const KeyCondition& key, const QueryOptions& options,
               const std::function<bool(const Value&)>& each);
  Status Scan(const QueryOptions& options, const std::function<bool(const Value&)>& each);
  // Every item.
  StatusOr<std::vector<Value>> QueryAll(const KeyCondition& key, const QueryOptions& options = {});
  StatusOr<std::vector<Value>> ScanAll(const QueryOptions& options = {});

  // Batches of any size: the items found (in no particular order), and the
  // writes all made; `max_attempts` rounds for what comes back unprocessed.
  StatusOr<std::vector<Value>> BatchGet(const std::vector<Value>& keys, bool consistent_read = false,
                                        int max_attempts = 8);
  Status BatchPut(const std::vector<Value>& items, int max_attempts = 8);
  Status BatchDelete(const std::vector<Value>& keys, int max_attempts = 8);

  // Typed records (document/record.h). A record with a version attribute is
  // written on condition that the stored version is the record's (none, for
  // 0) and gets version + 1; ConditionalCheckFailedException when another
  // writer got there first. `condition`: one more, ANDed.
  template <Record T>
  Status Put(T& record, const std::optional<Condition>& condition = std::nullopt) {
    return PutRecord(record, condition, &record);
  }
  template <Record T>
  Status Put(const T& record, const std::optional<Condition>& condition = std::nullopt) {
    static_assert(record_internal::CheckedShape<T>().versions == 0,
                  "a record with a version attribute is put as a mutable lvalue, which gets the new version");
    return PutRecord<T>(record, condition, nullptr);
  }
  // The record stored under `key`, or nullopt.
  template <Record T>
  StatusOr<std::optional<T>> Get(const Value& key, bool consistent_read = false) {
    DR_ASSIGN_OR_RETURN(std::optional<Value> v, Get(key, consistent_read));
    if (!v) return std::optional<T>();
    DR_ASSIGN_OR_RETURN(T t, FromValue<T>(*v));
    return std::optional<T>(std::move(t));
  }
  // UpdateItem of every declared attribute (SET, or REMOVE when absent) but
  // the key, the version checked and raised; the record becomes the item
  // after the update (as the Java Enhanced Client's updateItem).
  template <Record T>
  Status Update(T& record, const std::optional<Condition>& condition = std::nullopt) {
    constexpr record_internal::Shape shape = record_internal::CheckedShape<T>();
    DR_ASSIGN_OR_RETURN(Value key, KeyOf(record));
    DR_ASSIGN_OR_RETURN(Value all, ToValue(record));
    DR_ASSIGN_OR_RETURN(Value after, UpdateRecord(key, all, record_internal::FieldNames<T>(), shape.version,
                                                  record_internal::VersionOf(record), condition));
    DR_ASSIGN_OR_RETURN(record, FromValue<T>(after));
    return Status();
  }
  // DeleteItem of the record's key, the version checked.
  template <Record T>
  Status Delete(const T& record, const std::optional<Condition>& condition = std::nullopt) {
    constexpr record_internal::Shape shape = record_internal::CheckedShape<T>();
    DR_ASSIGN_OR_RETURN(Value key, KeyOf(record));
    return DeleteRecord(key, shape.version, record_internal::VersionOf(record), condition);
  }
  template <Record T>
  StatusOr<RecordPage<T>> QueryPage(const KeyCondition& key, const QueryOptions& options = {},
                                    const std::optional<Value>& cursor = std::nullopt) {
    DR_ASSIGN_OR_RETURN(Page p, QueryPage(key, options, cursor));
    return Records<T>(std::move(p));
  }
  template <Record T>
  StatusOr<RecordPage<T>> ScanPage(const QueryOptions& options = {},
                                   const std::optional<Value>& cursor = std::nullopt) {
    DR_ASSIGN_OR_RETURN(Page p, ScanPage(options, cursor));
    return Records<T>(std::move(p));
  }
  template <Record T>
  StatusOr<std::vector<T>> Query(const KeyCondition& key, const QueryOptions& options = {}) {
    DR_ASSIGN_OR_RETURN(std::vector<Value> all, QueryAll(key, options));
    DR_ASSIGN_OR_RETURN(RecordPage<T> p, Records<T>(Page{std::move(all), std::nullopt}));
    return std::move(p.items);
  }
  template <Record T>
  StatusOr<std::vector<T>> Scan(const QueryOptions& options = {}) {
    DR_ASSIGN_OR_RETURN(std::vector<Value> all, ScanAll(options));
    DR_ASSIGN_OR_RETURN(RecordPage<T> p, Records<T>(Page{std::move(all), std::nullopt}));
    return std::move(p.items);
  }

 private:
  template <Record T>
  Status PutRecord(const T& record, const std::optional<Condition>& condition, T* written) {
    constexpr record_internal::Shape shape = record_internal::CheckedShape<T>();
    DR_ASSIGN_OR_RETURN(Value v, ToValue(record));
    const int64_t version = record_internal::VersionOf(record);
    DR_RETURN_IF_ERROR(PutVersioned(std::move(v), shape.version, version, condition));
    if (written != nullptr && !shape.version.empty()) record_internal::SetVersion(written, version + 1);
    return Status();
  }
  template <Record T>
  static StatusOr<RecordPage<T>> Records(Page p) {
    RecordPage<T> out;
    out.items.reserve(p.items.size());
    for (const Value& v : p.items) {
      DR_ASSIGN_OR_RETURN(T t, FromValue<T>(v));
      out.items.push_back(std::move(t));
    }
    out.next = std::move(p.next);
    return out;
  }
  // `version`: the version attribute's name (empty: none) and `current` the
  // record's; the condition that checks it, ANDed with `extra`.
  static std::optional<Condition> VersionCheck(std::string_view version, int64_t current,
                                               const std::optional<Condition>& extra);
  Status PutVersioned(Value item, std::string_view version, int64_t current,
                      const std::optional<Condition>& condition);
  StatusOr<Value> UpdateRecord(const Value& key, const Value& item, const std::vector<std::string_view>& names,
                               std::string_view version, int64_t current,
                               const std::optional<Condition>& condition);
  // UpdateItem of `update` (none: key attributes alone, no update expression).
  StatusOr<Value> SendUpdate(const Value& key, const document::Update* update,
                             const std::optional<Condition>& condition);
  Status DeleteRecord(const Value& key, std::string_view version, int64_t current,
                      const std::optional<Condition>& condition);

  StatusOr<Page> Read(bool query, const KeyCondition* key, const QueryOptions& options,
                      const std::optional<Value>& cursor);
  StatusOr<std::vector<Value>> ReadAll(bool query, const KeyCondition* key, const QueryOptions& options);
  Status BatchWrite(const std::vector<Value>& values, bool put, int max_attempts);

  client::Client* client_;
  std::string name_;
};

// A write transaction (TransactWriteItems) built call by call, over one or
// more tables of one client: every write is made, or none.
//
//   document::Transaction tx(client);
//   tx.Update(accounts, Map{{"id", "ann"}}, Update().Add("balance", -10),
//             Name("balance").Ge(10))
//     .Update(accounts, Map{{"id", "bob"}}, Update().Add("balance", 10))
//     .Check(limits, Map{{"id", "ann"}}, Name("frozen").Eq(false));
//   Status s = tx.Commit();   // TransactionCanceledException names who failed
//
// A write that cannot be built (a value DynamoDB refuses, a bad expression)
// makes Commit fail with its error, and nothing is sent. DynamoDB's own
// limits (100 writes, one write per item, 4 MB) are the server's to enforce.
class Transaction {
 public:
  explicit Transaction(client::Client* client) : client_(client) {}
  Transaction& Put(const Table& table, const Value& item,
                   const std::optional<Condition>& condition = std::nullopt);
  Transaction& Update(const Table& table, const Value& key, const document::Update& update,
                      const std::optional<Condition>& condition = std::nullopt);
  Transaction& Delete(const Table& table, const Value& key,
                      const std::optional<Condition>& condition = std::nullopt);
  // A condition on an item the transaction does not write.
  Transaction& Check(const Table& table, const Value& key, const Condition& condition);
  size_t size() const { return items_.size(); }
  // Sends it; `token`: ClientRequestToken, so that sending again is harmless.
  Status Commit(const std::optional<std::string>& token = std::nullopt);

 private:
  Transaction& Add(TransactWriteItem::Kind kind, const Table& table, const Value& value,
                   const document::Update* update, const std::optional<Condition>& condition);
  client::Client* client_;
  std::vector<TransactWriteItem> items_;
  Status error_;  // the first write that could not be built
};

}  // namespace dynarock::document

#endif  // DYNAROCK_DOCUMENT_TABLE_H_
