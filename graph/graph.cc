// File: graph/graph.cc
//
// Nodes, the batched reads, and edge and neighbour queries. Edge writes (with
// the transaction planner) are in graph_writes.cc, node deletion and edge-set
// verification in graph_upkeep.cc, traversals (Expand, Traverse, MutualNeighbours) in
// traversal.cc, the bulk loader in bulk_loader.cc.

#include "graph/graph.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <ctime>
#include <set>
#include <thread>

#include "engine/api/base64.h"
#include "engine/api/json_decode.h"
#include "engine/api/json_encode.h"
#include "dynarock/item_size.h"
#include "engine/limits.h"
#include "graph/graph_internal.h"

namespace dynarock::graph {

using internal::kBatchSplitMinKeys;
using internal::kEs;
using internal::kIn;
using internal::kPk;
using internal::kRk;
using internal::kSk;
using internal::kTy;
using internal::S;

namespace internal {

Status BatchPut(client::Client* client, const std::string& table, std::vector<Item> items,
                int64_t* requests) {
  size_t pos = 0;
  while (pos < items.size()) {
    BatchWriteItemRequest req;
    auto& list = req.request_items[table];
    for (size_t i = 0; i < 25 && pos < items.size(); ++i, ++pos) {
      WriteRequest w;
      w.put_item = std::move(items[pos]);
      list.push_back(std::move(w));
    }
    for (int attempt = 0;; ++attempt) {
      if (requests) ++*requests;
      auto r = client->BatchWriteItem(req);
      if (!r.ok()) return r.status();
      if (r->unprocessed_items.empty()) break;
      if (attempt >= 12) {
        return Status(ErrorType::kProvisionedThroughputExceeded,
                      "BatchWriteItem: items still unprocessed after 12 retries");
      }
      req.request_items = std::move(r->unprocessed_items);
      Backoff(attempt);
    }
  }
  return Status::Ok();
}

Filter WithValidAt(const Schema& schema, const std::optional<Filter>& filter, int64_t at) {
  Filter f;
  if (filter) f = *filter;
  const std::string valid = "#g_vf <= :g_at AND (attribute_not_exists(#g_vt) OR #g_vt >= :g_at)";
  f.expression = f.expression.empty() ? valid : "(" + f.expression + ") AND " + valid;
  f.names["#g_vf"] = schema.valid_from_attribute;
  f.names["#g_vt"] = schema.valid_to_attribute;
  f.values[":g_at"] = AttributeValue::N(std::to_string(at));
  return f;
}

Status ParallelFor(size_t n, int concurrency, const std::function<Status(size_t)>& fn) {
  if (n <= 1 || concurrency <= 1) {
    for (size_t i = 0; i < n; ++i) DR_RETURN_IF_ERROR(fn(i));
    return Status::Ok();
  }
  std::vector<Status> results(n);
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  auto work = [&] {
    for (size_t i; !failed.load() && (i = next.fetch_add(1)) < n;) {
      results[i] = fn(i);
      if (!results[i].ok()) failed.store(true);
    }
  };
  std::vector<std::thread> helpers;
  const size_t threads = std::min<size_t>(n, static_cast<size_t>(concurrency));
  for (size_t t = 1; t < threads; ++t) helpers.emplace_back(work);
  work();
  for (auto& h : helpers) h.join();
  for (const Status& s : results) DR_RETURN_IF_ERROR(s);
  return Status::Ok();
}

}  // namespace internal

namespace {


std::string EncodeToken(const std::optional<Item>& key) {
  if (!key) return "";
  return api::Base64Encode(api::EncodeItemJson(*key));
}

StatusOr<std::optional<Item>> DecodeToken(const std::string& token) {
  if (token.empty()) return std::optional<Item>();
  std::string json;
  if (!api::Base64Decode(token, &json)) return ValidationError("invalid page token");
  auto item = api::DecodeItemJson(json);
  if (!item.ok()) return ValidationError("invalid page token");
  return std::optional<Item>(std::move(*item));
}

// The key attributes of `item` (a resume point for ExclusiveStartKey).
Item KeyOf(const Item& item, const std::vector<std::string>& attributes) {
  Item key;
  for (const std::string& a : attributes) {
    auto it = item.find(a);
    if (it != item.end()) key[a] = it->second;
  }
  return key;
}

void MergeFilter(QueryRequest* req, const std::optional<Filter>& filter,
                 const std::string& extra) {
  std::string expr;
  if (filter && !filter->expression.empty()) {
    expr = "(" + filter->expression + ")";
    for (const auto& [k, v] : filter->names) req->expression_attribute_names[k] = v;
    for (const auto& [k, v] : filter->values) req->expression_attribute_values[k] = v;
  }
  if (!extra.empty()) expr = expr.empty() ? extra : expr + " AND (" + extra + ")";
  if (!expr.empty()) req->filter_expression = expr;
  req->has_expression_attribute_names = !req->expression_attribute_names.empty();
  req->has_expression_attribute_values = !req->expression_attribute_values.empty();
}

// The smallest string above every valid UTF-8 string that starts with `prefix`
// (for practical purposes: U+10FFFF twice).
std::string PrefixEnd(const std::string& prefix) {
  return prefix + "\xF4\x8F\xBF\xBF\xF4\x8F\xBF\xBF";
}

// A key condition on `attr` (placeholder) with values prefixed by `prefix`.
// Returns the expression; kLt/kGt are expressed as BETWEEN and the bound itself
// goes to *exclude (filtered out client-side).
std::string KeyExpr(const std::string& attr, const std::string& prefix,
                    const std::optional<KeyCondition>& cond, ValueMap* values,
                    std::optional<std::string>* exclude) {
  if (!cond) {
    if (prefix.empty()) return "";
    (*values)[":g_k1"] = S(prefix);
    return "begins_with(" + attr + ", :g_k1)";
  }
  const std::string v1 = prefix + cond->value;
  switch (cond->op) {
    case KeyOp::kEq:
      (*values)[":g_k1"] = S(v1);
      return attr + " = :g_k1";
    case KeyOp::kBeginsWith:
      (*values)[":g_k1"] = S(v1);
      return "begins_with(" + attr + ", :g_k1)";
    case KeyOp::kBetween:
      (*values)[":g_k1"] = S(v1);
      (*values)[":g_k2"] = S(prefix + cond->value2);
      return attr + " BETWEEN :g_k1 AND :g_k2";
    case KeyOp::kLt:
    case KeyOp::kLe:
      if (cond->op == KeyOp::kLt) *exclude = v1;
      if (prefix.empty()) {
        (*values)[":g_k1"] = S(v1);
        return attr + (cond->op == KeyOp::kLt ? " < :g_k1" : " <= :g_k1");
      }
      (*values)[":g_k1"] = S(prefix);
      (*values)[":g_k2"] = S(v1);
      return attr + " BETWEEN :g_k1 AND :g_k2";
    case KeyOp::kGt:
    case KeyOp::kGe:
      if (cond->op == KeyOp::kGt) *exclude = v1;
      if (prefix.empty()) {
        (*values)[":g_k1"] = S(v1);
        return attr + (cond->op == KeyOp::kGt ? " > :g_k1" : " >= :g_k1");
      }
      (*values)[":g_k1"] = S(v1);
      (*values)[":g_k2"] = S(PrefixEnd(prefix));
      return attr + " BETWEEN :g_k1 AND :g_k2";
  }
  return "";
}

// Refuses an UpdateNode expression that names one of the layer's attributes at
// the top level of a path (directly or through an #name placeholder). Values
// (:v), nested path elements (a.edges), keywords and function names are not
// attribute names.
Status CheckNodeUpdate(const Schema& schema, const NodeUpdate& update) {
  const std::string& e = update.update_expression;
  auto ident = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
  };
  char prev = ' ';  // the last character before the token, spaces skipped
  size_t i = 0;
  while (i < e.size()) {
    const char c = e[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (!(c == '#' || c == ':' || c == '_' || std::isalpha(static_cast<unsigned char>(c)))) {
      prev = c;
      ++i;
      continue;
    }
    size_t j = i + 1;
    while (j < e.size() && ident(e[j])) ++j;
    const std::string token = e.substr(i, j - i);
    const bool nested = prev == '.';
    prev = token.back();
    i = j;
    if (nested || token[0] == ':') continue;
    std::string name;
    if (token[0] == '#') {
      auto it = update.names.find(token);
      if (it == update.names.end()) continue;  // DynamoDB reports the missing name
      name = it->second;
    } else {
      size_t k = j;
      while (k < e.size() && std::isspace(static_cast<unsigned char>(e[k]))) ++k;
      if (k < e.size() && e[k] == '(') continue;  // if_not_exists(, list_append(
      std::string upper = token;
      std::transform(upper.begin(), upper.end(), upper.begin(),
                     [](unsigned char ch) { return static_cast<char>(std::toupper(ch)); });
      if (upper == "SET" || upper == "REMOVE" || upper == "ADD" || upper == "DELETE") continue;
      name = token;
    }
    if (schema.IsReserved(name)) {
      return ValidationError("graph: UpdateNode may not change attribute '" + name +
                             "': it is managed by the graph layer (keys, edge set, rank, type, "
                             "incoming types)");
    }
  }
  return Status::Ok();
}

}  // namespace

// ============================================================ Graph

Graph::Graph(client::Client* client, Schema schema)
    : client_(client),
      schema_(std::move(schema)),
      max_concurrent_(client->remote() ? 4 : 1),
      page_cache_(internal::NewEdgePageCache()) {}

Status Graph::EnsureTable() { return graph::EnsureTable(client_, schema_); }

GraphStats Graph::stats() const {
  GraphStats s;
  s.requests = counters_.requests.load();
  s.items_read = counters_.items_read.load();
  s.items_written = counters_.items_written.load();
  s.read_units = counters_.read_units.load();
  return s;
}

void Graph::ResetStats() {
  counters_.requests = 0;
  counters_.items_read = 0;
  counters_.items_written = 0;
  counters_.read_units = 0;
}

Node Graph::ToNode(const Item& item) const {
  Node n;
  auto pk = item.find(schema_.pk_attribute);
  if (pk != item.end() && pk->second.is(AttrType::kS)) n.id = pk->second.scalar();
  n.type = schema_.NodeType(n.id);
  for (const auto& [k, v] : item) {
    if (k == schema_.edge_set_attribute && v.is(AttrType::kSS)) {
      n.edge_set.reserve(v.set().size());
      for (const std::string& e : v.set()) {
        EdgeRef ref;
        if (schema_.ParseEdgeSetEntry(e, &ref)) n.edge_set.push_back(std::move(ref));
      }
      continue;
    }
    if (k == schema_.incoming_types_attribute && v.is(AttrType::kSS)) {
      n.incoming_types.assign(v.set().begin(), v.set().end());
      continue;
    }
    if (schema_.IsReserved(k)) continue;
    n.attributes.emplace(k, v);
  }
  return n;
}

Edge Graph::ToEdge(const Item& item) const {
  Edge e;
  auto pk = item.find(schema_.pk_attribute);
  if (pk != item.end() && pk->second.is(AttrType::kS)) e.source = pk->second.scalar();
  auto sk = item.find(schema_.sk_attribute);
  if (sk != item.end() && sk->second.is(AttrType::kS)) {
    schema_.SplitEdgeSortKey(sk->second.scalar(), &e.type, &e.target);
  }
  auto rk = item.find(schema_.rank_attribute);
  if (rk != item.end() && rk->second.is(AttrType::kS)) e.rank = rk->second.scalar();
  for (const auto& [k, v] : item) {
    if (schema_.IsReserved(k)) continue;
    e.properties.emplace(k, v);
  }
  return e;
}

// ------------------------------------------------------------ nodes

Status Graph::PutNode(const std::string& id, const Item& attributes) {
  DR_RETURN_IF_ERROR(schema_.ValidateNodeId(id));
  UpdateItemRequest req;
  req.table_name = schema_.table_name;
  req.key = schema_.NodeKey(id);
  std::string set;
  int i = 0;
  for (const auto& [name, value] : attributes) {
    if (schema_.IsReserved(name)) {
      return ValidationError("graph: attribute '" + name + "' is managed by the graph layer");
    }
    std::string n = "#a" + std::to_string(i), v = ":a" + std::to_string(i);
    ++i;
    req.expression_attribute_names[n] = name;
    req.expression_attribute_values[v] = value;
    set += (set.empty() ? "" : ", ") + n + " = " + v;
  }
  if (!schema_.type_attribute.empty()) {
    req.expression_attribute_names[kTy] = schema_.type_attribute;
    req.expression_attribute_values[":g_ty"] = S(schema_.NodeType(id));
    set += (set.empty() ? "" : ", ") + std::string(kTy) + " = :g_ty";
  }
  if (set.empty()) {
    // No attributes: create the node if absent (a Put that does not overwrite).
    PutItemRequest put;
    put.table_name = schema_.table_name;
    put.item = schema_.NodeKey(id);
    put.condition_expression = std::string("attribute_not_exists(") + kPk + ")";
    put.expression_attribute_names[kPk] = schema_.pk_attribute;
    put.has_expression_attribute_names = true;
    counters_.requests++;
    counters_.items_written++;
    auto r = client_->PutItem(put);
    if (!r.ok() && r.status().type() != ErrorType::kConditionalCheckFailed) return r.status();
    return Status::Ok();
  }
  req.update_expression = "SET " + set;
  req.has_expression_attribute_names = true;
  req.has_expression_attribute_values = true;
  counters_.requests++;
  counters_.items_written++;
  return client_->UpdateItem(req).status();
}

StatusOr<std::optional<Node>> Graph::GetNode(const std::string& id, bool consistent_read) {
  GetItemRequest req;
  req.table_name = schema_.table_name;
  req.key = schema_.NodeKey(id);
  req.consistent_read = consistent_read;
  req.return_consumed_capacity = ReturnConsumedCapacity::kTotal;
  counters_.requests++;
  DR_ASSIGN_OR_RETURN(GetItemResponse r, client_->GetItem(req));
  counters_.Add(r.consumed_capacity);
  if (!r.item) return std::optional<Node>();
  counters_.items_read++;
  DR_RETURN_IF_ERROR(MergeEdgePages({&*r.item}, consistent_read));
  return std::optional<Node>(ToNode(*r.item));
}

Status Graph::UpdateNode(const std::string& id, const NodeUpdate& update) {
  DR_RETURN_IF_ERROR(CheckNodeUpdate(schema_, update));
  UpdateItemRequest req;
  req.table_name = schema_.table_name;
  req.key = schema_.NodeKey(id);
  req.update_expression = update.update_expression;
  req.expression_attribute_names = update.names;
  req.expression_attribute_values = update.values;
  req.expression_attribute_names[kPk] = schema_.pk_attribute;
  std::string cond = std::string("attribute_exists(") + kPk + ")";
  if (update.condition_expression) cond += " AND (" + *update.condition_expression + ")";
  req.condition_expression = cond;
  req.has_expression_attribute_names = true;
  req.has_expression_attribute_values = !req.expression_attribute_values.empty();
  counters_.requests++;
  counters_.items_written++;
  return client_->UpdateItem(req).status();
}

Status Graph::BatchGetEach(const std::vector<Item>& keys, bool consistent_read,
                           const std::function<void(Item&)>& each,
                           const std::vector<std::string>& attributes) {
  // Requests of 100 keys, independent of each other: up to max_concurrent_
  // in flight; `each` sees their items in the requests' order. With several
  // in flight (a remote client), fewer keys are spread over as many requests
  // (8 keys each at least): the server encodes one answer while the client
  // decodes another, which on a large answer (nodes with their edge sets)
  // halves the wait at the cost of a few more requests.
  size_t chunk = kBatchGetItemsMax;
  if (max_concurrent_ > 1) {
    const size_t per = (keys.size() + max_concurrent_ - 1) / static_cast<size_t>(max_concurrent_);
    chunk = std::clamp<size_t>(per, kBatchSplitMinKeys, kBatchGetItemsMax);
  }
  const size_t requests = (keys.size() + chunk - 1) / chunk;
  std::vector<std::vector<Item>> got(requests);
  auto one = [&](size_t n) -> Status {
    BatchGetItemRequest req;
    req.return_consumed_capacity = ReturnConsumedCapacity::kTotal;
    KeysAndAttributes& ka = req.request_items[schema_.table_name];
    ka.consistent_read = consistent_read;
    if (!attributes.empty()) {
      std::string projection;
      for (size_t a = 0; a < attributes.size(); ++a) {
        const std::string name = "#g_a" + std::to_string(a);
        projection += (a ? ", " : "") + name;
        ka.expression_attribute_names[name] = attributes[a];
      }
      ka.projection_expression = projection;
    }
    const size_t pos = n * chunk;
    const size_t end = std::min(keys.size(), pos + chunk);
    ka.keys.assign(keys.begin() + static_cast<long>(pos), keys.begin() + static_cast<long>(end));
    for (int attempt = 0;; ++attempt) {
      counters_.requests++;
      DR_ASSIGN_OR_RETURN(BatchGetItemResponse r, client_->BatchGetItem(req));
      for (const ConsumedCapacity& c : r.consumed_capacity) counters_.read_units += c.capacity_units;
      for (auto& [table, items] : r.responses) {
        counters_.items_read += static_cast<int64_t>(items.size());
        for (Item& item : items) got[n].push_back(std::move(item));
      }
      auto un = r.unprocessed_keys.find(schema_.table_name);
      if (un == r.unprocessed_keys.end() || un->second.keys.empty()) return Status::Ok();
      if (attempt >= 12) {
        return Status(ErrorType::kProvisionedThroughputExceeded,
                      "graph: BatchGetItem keys still unprocessed after 12 retries");
      }
      req.request_items = std::move(r.unprocessed_keys);
      internal::Backoff(attempt);
    }
  };
  DR_RETURN_IF_ERROR(internal::ParallelFor(requests, max_concurrent_, one));
  for (auto& items : got) {
    for (Item& item : items) each(item);
  }
  return Status::Ok();
}

StatusOr<std::map<std::string, Item>> Graph::BatchGetByPk(const std::vector<std::string>& ids,
                                                          const std::vector<std::string>& attributes) {
  std::vector<std::string> unique(ids.begin(), ids.end());
  std::sort(unique.begin(), unique.end());
  unique.erase(std::unique(unique.begin(), unique.end()), unique.end());
  std::vector<Item> keys;
  keys.reserve(unique.size());
  for (const std::string& id : unique) keys.push_back(schema_.NodeKey(id));
  std::vector<std::string> projected = attributes;
  auto has = [&](const std::string& a) {
    return std::find(projected.begin(), projected.end(), a) != projected.end();
  };
  const bool edge_sets = projected.empty() || has(schema_.edge_set_attribute);
  if (!projected.empty() && !has(schema_.pk_attribute)) {
    projected.push_back(schema_.pk_attribute);  // the node's id
  }
  if (!projected.empty() && edge_sets) {
    projected.push_back(schema_.edge_pages_attribute);  // a spilled edge set's pages
  }
  std::map<std::string, Item> out;
  DR_RETURN_IF_ERROR(BatchGetEach(
      keys, /*consistent_read=*/false,
      [&](Item& item) {
        auto pk = item.find(schema_.pk_attribute);
        if (pk == item.end()) return;
        std::string id = pk->second.scalar();
        out.emplace(std::move(id), std::move(item));
      },
      projected));
  if (edge_sets) {
    std::vector<Item*> spilled;
    for (auto& [id, item] : out) {
      if (item.count(schema_.edge_pages_attribute)) spilled.push_back(&item);
    }
    DR_RETURN_IF_ERROR(MergeEdgePages(spilled, /*consistent_read=*/false));
  }
  return out;
}

StatusOr<std::vector<std::optional<Node>>> Graph::GetNodes(const std::vector<std::string>& ids) {
  return GetNodesWith(ids, {});
}

StatusOr<std::vector<std::optional<Node>>> Graph::GetNodesWith(
    const std::vector<std::string>& ids, const std::vector<std::string>& attributes) {
  DR_ASSIGN_OR_RETURN(auto items, BatchGetByPk(ids, attributes));
  std::vector<std::optional<Node>> out;
  out.reserve(ids.size());
  for (const std::string& id : ids) {
    auto it = items.find(id);
    if (it == items.end()) {
      out.emplace_back();
    } else {
      out.emplace_back(ToNode(it->second));
    }
  }
  return out;
}

StatusOr<NodePage> Graph::NodesByType(const std::string& type, const EdgeQuery& query) {
  if (schema_.type_index.empty()) {
    return ValidationError("graph: the schema has no type index (Schema::type_index)");
  }
  QueryRequest req;
  req.table_name = schema_.table_name;
  req.index_name = schema_.type_index;
  req.expression_attribute_names[kTy] = schema_.type_attribute;
  req.expression_attribute_values[":g_ty"] = S(type);
  std::string kc = std::string(kTy) + " = :g_ty";
  if (query.key) {
    req.expression_attribute_names[kPk] = schema_.pk_attribute;
    std::optional<std::string> exclude;
    std::string k = KeyExpr(kPk, "", query.key, &req.expression_attribute_values, &exclude);
    if (!k.empty()) kc += " AND " + k;
  }
  req.key_condition_expression = kc;
  MergeFilter(&req, query.filter, "");
  NodePage page;
  auto take = [&](const Item& item) -> bool {
    auto pk = item.find(schema_.pk_attribute);
    auto sk = item.find(schema_.sk_attribute);
    if (pk == item.end() || sk == item.end() || pk->second != sk->second) return false;  // an edge
    page.nodes.push_back(ToNode(item));
    return true;
  };
  DR_ASSIGN_OR_RETURN(
      page.next_page_token,
      PagedQuery(std::move(req), query,
                 {schema_.type_attribute, schema_.pk_attribute, schema_.sk_attribute}, 0, take));
  return page;
}

// ------------------------------------------------------------ edge queries

StatusOr<std::string> Graph::PagedQuery(QueryRequest req, const EdgeQuery& query,
                                        const std::vector<std::string>& key_attributes,
                                        int64_t dropped_per_page,
                                        const std::function<bool(const Item&)>& take) {
  req.scan_index_forward = query.forward;
  req.return_consumed_capacity = ReturnConsumedCapacity::kTotal;
  DR_ASSIGN_OR_RETURN(req.exclusive_start_key, DecodeToken(query.page_token));
  // DynamoDB's Limit counts items evaluated, before the filter. Without a filter
  // (nearly) every item is a result: ask for what is missing plus the few the
  // layer may drop itself. With one, matches may be sparse: read full pages (up
  // to 1 MB each) rather than one request per item.
  const bool filtered = req.filter_expression.has_value() && !req.filter_expression->empty();
  int64_t kept = 0;
  while (true) {
    req.limit.reset();
    if (query.limit > 0 && !filtered) req.limit = query.limit - kept + dropped_per_page;
    counters_.requests++;
    DR_ASSIGN_OR_RETURN(QueryResponse r, client_->Query(req));
    counters_.items_read += r.scanned_count;
    counters_.Add(r.consumed_capacity);
    for (size_t i = 0; i < r.items.size(); ++i) {
      if (!take(r.items[i])) continue;
      ++kept;
      if (query.limit > 0 && kept >= query.limit) {
        // Resume right after the last result returned: the rest of this page
        // (if any) is read again by the next page, so nothing is skipped.
        if (i + 1 == r.items.size()) return EncodeToken(r.last_evaluated_key);
        return EncodeToken(KeyOf(r.items[i], key_attributes));
      }
    }
    if (!r.last_evaluated_key) return std::string();
    req.exclusive_start_key = std::move(r.last_evaluated_key);
  }
}

StatusOr<EdgePage> Graph::QueryEdges(QueryRequest req, const EdgeQuery& query, bool skip_nodes,
                                     const std::vector<std::string>& key_attributes,
                                     const std::string& exclude_attr,
                                     const std::optional<std::string>& exclude) {
  EdgePage page;
  auto take = [&](const Item& item) -> bool {
    if (exclude) {  // kLt / kGt: the bound itself (key attributes cannot be filtered)
      auto x = item.find(exclude_attr);
      if (x != item.end() && x->second.is(AttrType::kS) && x->second.scalar() == *exclude) {
        return false;
      }
    }
    if (skip_nodes) {  // and edge pages
      auto pk = item.find(schema_.pk_attribute);
      auto sk = item.find(schema_.sk_attribute);
      if (pk != item.end() && sk != item.end() &&
          (pk->second == sk->second || schema_.IsEdgePageSortKey(sk->second.scalar()))) {
        return false;
      }
    }
    page.edges.push_back(ToEdge(item));
    return true;
  };
  const int64_t dropped = (skip_nodes ? 1 : 0) + (exclude ? 1 : 0);
  DR_ASSIGN_OR_RETURN(page.next_page_token,
                      PagedQuery(std::move(req), query, key_attributes, dropped, take));
  return page;
}

StatusOr<EdgePage> Graph::OutEdges(const std::string& node, const std::string& type,
                                   const EdgeQuery& query) {
  QueryRequest req;
  req.table_name = schema_.table_name;
  req.consistent_read = query.consistent_read;
  req.expression_attribute_names[kPk] = schema_.pk_attribute;
  req.expression_attribute_values[":g_pk"] = S(node);
  std::string kc = std::string(kPk) + " = :g_pk";
  std::optional<std::string> exclude;
  if (!type.empty() || query.key) {
    DR_RETURN_IF_ERROR(type.empty() ? Status::Ok() : schema_.ValidateEdgeType(type));
    req.expression_attribute_names[kSk] = schema_.sk_attribute;
    std::string prefix = type.empty() ? "" : schema_.EdgeSortKey(type, "");
    std::string k = KeyExpr(kSk, prefix, query.key, &req.expression_attribute_values, &exclude);
    if (!k.empty()) kc += " AND " + k;
  }
  req.key_condition_expression = kc;
  MergeFilter(&req, query.filter, "");
  return QueryEdges(std::move(req), query, /*skip_nodes=*/true,
                    {schema_.pk_attribute, schema_.sk_attribute}, schema_.sk_attribute, exclude);
}

StatusOr<EdgePage> Graph::InEdges(const std::string& node, const std::string& type,
                                  const EdgeQuery& query) {
  DR_RETURN_IF_ERROR(schema_.ValidateEdgeType(type));
  QueryRequest req;
  req.table_name = schema_.table_name;
  req.index_name = schema_.inverted_index;
  req.expression_attribute_names[kSk] = schema_.sk_attribute;
  req.expression_attribute_values[":g_sk"] = S(schema_.EdgeSortKey(type, node));
  std::string kc = std::string(kSk) + " = :g_sk";
  std::optional<std::string> exclude;
  if (query.key) {
    req.expression_attribute_names[kRk] = schema_.rank_attribute;
    kc += " AND " + KeyExpr(kRk, "", query.key, &req.expression_attribute_values, &exclude);
  }
  req.key_condition_expression = kc;
  MergeFilter(&req, query.filter, "");
  return QueryEdges(std::move(req), query, /*skip_nodes=*/false,
                    {schema_.sk_attribute, schema_.rank_attribute, schema_.pk_attribute},
                    schema_.rank_attribute, exclude);
}

StatusOr<std::vector<Edge>> Graph::AllOutEdges(const std::string& node, const std::string& type,
                                               EdgeQuery query) {
  std::vector<Edge> out;
  do {
    DR_ASSIGN_OR_RETURN(EdgePage p, OutEdges(node, type, query));
    for (auto& e : p.edges) out.push_back(std::move(e));
    query.page_token = p.next_page_token;
  } while (!query.page_token.empty());
  return out;
}

StatusOr<std::vector<Edge>> Graph::AllInEdges(const std::string& node, const std::string& type,
                                              EdgeQuery query) {
  std::vector<Edge> out;
  do {
    DR_ASSIGN_OR_RETURN(EdgePage p, InEdges(node, type, query));
    for (auto& e : p.edges) out.push_back(std::move(e));
    query.page_token = p.next_page_token;
  } while (!query.page_token.empty());
  return out;
}

StatusOr<std::optional<Edge>> Graph::GetEdge(const std::string& source, const std::string& type,
                                             const std::string& target, bool consistent_read) {
  GetItemRequest req;
  req.table_name = schema_.table_name;
  req.key = schema_.EdgeKey(source, type, target);
  req.consistent_read = consistent_read;
  req.return_consumed_capacity = ReturnConsumedCapacity::kTotal;
  counters_.requests++;
  DR_ASSIGN_OR_RETURN(GetItemResponse r, client_->GetItem(req));
  counters_.Add(r.consumed_capacity);
  if (!r.item) return std::optional<Edge>();
  counters_.items_read++;
  return std::optional<Edge>(ToEdge(*r.item));
}

StatusOr<std::vector<Edge>> Graph::EdgesValidAt(const std::string& node, const std::string& type,
                                                int64_t at, const std::optional<Filter>& filter) {
  EdgeQuery q;
  q.filter = internal::WithValidAt(schema_, filter, at);
  return AllOutEdges(node, type, q);
}

StatusOr<std::vector<Edge>> Graph::CurrentEdges(const std::string& node, const std::string& type,
                                                const std::optional<Filter>& filter) {
  EdgeQuery q;
  Filter f;
  if (filter) f = *filter;
  // Seed 004's "currently": started (StartTimestampUTC <= now) and not ended.
  std::string current = "#g_vf <= :g_now AND attribute_not_exists(#g_vt)";
  f.expression = f.expression.empty() ? current : "(" + f.expression + ") AND " + current;
  f.names["#g_vf"] = schema_.valid_from_attribute;
  f.names["#g_vt"] = schema_.valid_to_attribute;
  f.values[":g_now"] = AttributeValue::N(std::to_string(static_cast<int64_t>(std::time(nullptr))));
  q.filter = std::move(f);
  return AllOutEdges(node, type, q);
}

}  // namespace dynarock::graph
