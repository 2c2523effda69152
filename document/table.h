// File: document/table.h
//
// A table handle with plain calls (issue 22, point 3), over the graph layer's
// Client: the same code runs embedded (graph::EmbeddedClient, over
// dynarock::DB, no JSON) or against any DynamoDB endpoint (graph::HttpClient:
// SigV4, TLS, retries), so the document API and the graph layer share one
// transport.
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

#include "document/expression.h"
#include "document/value.h"
#include "graph/client.h"

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

class Table {
 public:
  Table(graph::Client* client, std::string name) : client_(client), name_(std::move(name)) {}
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

 private:
  StatusOr<Page> Read(bool query, const KeyCondition* key, const QueryOptions& options,
                      const std::optional<Value>& cursor);
  Status BatchWrite(const std::vector<Value>& values, bool put, int max_attempts);

  graph::Client* client_;
  std::string name_;
};

}  // namespace dynarock::document

#endif  // DYNAROCK_DOCUMENT_TABLE_H_
