// File: graph/edge_pages.cc
//
// Edge pages: a node's edge set that would not fit in its item (DynamoDB's
// 400 KB limit) spills into page items in the node's partition (docs/graph.md,
// "Supernodes").
//
//   node   PK = SK = node id          edgePages = {"00", "10", "1"}   (no edge set)
//   page   PK = node id, SK = "#edges#00"   edges = {entries whose hash ends ...00}
//
// Entry e lives in the page whose label is a prefix of e's hash bits, lowest bit
// first (EdgePageOf); the labels are prefix-free and cover every hash. Pages are
// created by a spill (the node's set moved into pages) and by splits (a page
// replaced by two or more below its label), each one transaction conditioned on
// what it read: the set or page unchanged, the label list unchanged. Writers
// ADD/DELETE entries on the page their entry hashes to, conditioned on the page
// existing and holding fewer than kEdgePageMaxEntries entries (TxnPlanner), and
// on the node item not having spilled when they write the node's own set; a
// failed condition sends them here and back with the new labels. Readers read
// the labels with the node and the pages with one BatchGetItem per 100
// (MergeEdgePages); a page gone since (split meanwhile) makes them read the
// labels again.

#include <algorithm>
#include <mutex>
#include <set>
#include <unordered_map>

#include "graph/graph.h"
#include "graph/graph_internal.h"

namespace dynarock::graph {

using internal::kEs;
using internal::kPg;
using internal::kPk;

namespace internal {

struct EdgePageCache {
  std::mutex mu;
  std::unordered_map<std::string, std::vector<std::string>> labels;
};

std::shared_ptr<EdgePageCache> NewEdgePageCache() { return std::make_shared<EdgePageCache>(); }

// FNV-1a with its published offset basis (0xcbf29ce484222325), not
// engine/coding.h's Fnv1a64, whose basis lacks a digit: the routing is stored
// data that other clients must compute alike, from the published algorithm.
uint64_t EdgeEntryHash(std::string_view entry) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : entry) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

namespace {

bool LabelHolds(std::string_view label, uint64_t hash) {
  for (size_t i = 0; i < label.size(); ++i) {
    const bool bit = i < 64 && ((hash >> i) & 1u) != 0;
    if (bit != (label[i] == '1')) return false;
  }
  return true;
}

void Partition(std::vector<std::string> entries, const std::string& label, bool must_split,
               size_t max_entries, std::map<std::string, std::vector<std::string>>* out) {
  size_t bytes = 0;
  for (const std::string& e : entries) bytes += e.size();
  if (!must_split && ((entries.size() <= max_entries && bytes <= kEdgePageSplitBytes) ||
                      label.size() >= kEdgePageMaxDepth)) {
    (*out)[label] = std::move(entries);
    return;
  }
  std::vector<std::string> zero, one;
  const size_t bit = label.size();
  for (std::string& e : entries) {
    ((EdgeEntryHash(e) >> bit) & 1u ? one : zero).push_back(std::move(e));
  }
  Partition(std::move(zero), label + "0", false, max_entries, out);
  Partition(std::move(one), label + "1", false, max_entries, out);
}

}  // namespace

std::string EdgePageOf(const std::vector<std::string>& labels, std::string_view entry) {
  const uint64_t h = EdgeEntryHash(entry);
  for (const std::string& l : labels) {
    if (LabelHolds(l, h)) return l;
  }
  return "";
}

std::map<std::string, std::vector<std::string>> PartitionEdgeSet(std::vector<std::string> entries,
                                                                 const std::string& label,
                                                                 size_t max_pages) {
  // Very short entries make many small pages: coarser ones (past the writers'
  // entry cap, so their next ADD splits them) keep a spill or split within
  // one transaction's 100 items.
  for (size_t max_entries = kEdgePageSplitEntries;; max_entries *= 2) {
    std::map<std::string, std::vector<std::string>> out;
    if (max_pages == 0 || max_entries > entries.size()) {
      Partition(std::move(entries), label, /*must_split=*/true, max_entries, &out);
      return out;
    }
    Partition(entries, label, /*must_split=*/true, max_entries, &out);
    if (out.size() <= max_pages) return out;
  }
}

}  // namespace internal

// ------------------------------------------------------------ the labels a Graph has seen

std::vector<std::string> Graph::KnownEdgePages(const std::string& node) const {
  std::lock_guard<std::mutex> lock(page_cache_->mu);
  auto it = page_cache_->labels.find(node);
  return it == page_cache_->labels.end() ? std::vector<std::string>() : it->second;
}

void Graph::RememberEdgePages(const std::string& node, std::vector<std::string> labels) {
  std::lock_guard<std::mutex> lock(page_cache_->mu);
  if (labels.empty()) {
    page_cache_->labels.erase(node);
  } else {
    page_cache_->labels[node] = std::move(labels);
  }
}

namespace {

std::vector<std::string> StringSet(const Item& item, const std::string& name) {
  auto it = item.find(name);
  if (it == item.end() || !it->second.is(AttrType::kSS)) return {};
  return it->second.set();
}

TransactWriteItem PagePut(const Schema& s, const std::string& node, const std::string& label,
                          std::vector<std::string> entries) {
  TransactWriteItem t;
  t.kind = TransactWriteItem::Kind::kPut;
  t.table_name = s.table_name;
  t.item = s.EdgePageKey(node, label);
  if (!entries.empty()) t.item[s.edge_set_attribute] = AttributeValue::SS(std::move(entries));
  return t;
}

bool Retryable(const Status& s) {
  if (s.type() == ErrorType::kTransactionConflict || s.type() == ErrorType::kTransactionInProgress) {
    return true;
  }
  if (s.type() != ErrorType::kTransactionCanceled) return false;
  for (const CancellationReason& r : s.cancellation_reasons()) {
    if (r.code != "None" && r.code != "ConditionalCheckFailed" && r.code != "TransactionConflict") {
      return false;
    }
  }
  return true;
}

// A consistent read of two of a node's attributes (placeholders and names).
GetItemRequest NodeRead(const Schema& s, const std::string& node, const char* a, const std::string& a_name,
                        const char* b, const std::string& b_name) {
  GetItemRequest g;
  g.table_name = s.table_name;
  g.key = s.NodeKey(node);
  g.consistent_read = true;
  g.projection_expression = std::string(a) + ", " + b;
  g.expression_attribute_names[a] = a_name;
  g.expression_attribute_names[b] = b_name;
  g.has_expression_attribute_names = true;
  return g;
}

}  // namespace

StatusOr<std::optional<std::vector<std::string>>> Graph::ReadEdgePages(const std::string& node) {
  GetItemRequest g = NodeRead(schema_, node, kPk, schema_.pk_attribute, kPg, schema_.edge_pages_attribute);
  counters_.requests++;
  DR_ASSIGN_OR_RETURN(GetItemResponse r, client_->GetItem(g));
  if (!r.item) {
    RememberEdgePages(node, {});
    return std::optional<std::vector<std::string>>();
  }
  counters_.items_read++;
  std::vector<std::string> labels = StringSet(*r.item, schema_.edge_pages_attribute);
  RememberEdgePages(node, labels);
  return std::optional<std::vector<std::string>>(std::move(labels));
}

StatusOr<bool> Graph::CommitEdgePages(const TransactWriteItemsRequest& req, const std::string& node,
                                      std::vector<std::string> labels) {
  counters_.requests++;
  counters_.items_written += static_cast<int64_t>(req.transact_items.size());
  auto w = client_->TransactWriteItems(req);
  if (w.ok()) {
    RememberEdgePages(node, std::move(labels));
    return true;
  }
  if (!Retryable(w.status())) return w.status();
  return false;
}

Status Graph::SpillEdgeSet(const std::string& node) {
  for (int attempt = 0; attempt < 8; ++attempt) {
    GetItemRequest g;
    g.table_name = schema_.table_name;
    g.key = schema_.NodeKey(node);
    g.consistent_read = true;
    counters_.requests++;
    DR_ASSIGN_OR_RETURN(GetItemResponse r, client_->GetItem(g));
    if (!r.item) return Status::Ok();  // gone: the writer finds out itself
    counters_.items_read++;
    std::vector<std::string> labels = StringSet(*r.item, schema_.edge_pages_attribute);
    if (!labels.empty()) {
      RememberEdgePages(node, std::move(labels));
      return Status::Ok();
    }
    std::vector<std::string> entries = StringSet(*r.item, schema_.edge_set_attribute);
    if (entries.empty()) {
      return ValidationError("graph: node " + node +
                             " would exceed DynamoDB's 400 KB item limit with its own attributes");
    }
    TransactWriteItemsRequest req;
    TransactWriteItem u;
    u.kind = TransactWriteItem::Kind::kUpdate;
    u.table_name = schema_.table_name;
    u.key = schema_.NodeKey(node);
    u.expression_attribute_names[kEs] = schema_.edge_set_attribute;
    u.expression_attribute_names[kPg] = schema_.edge_pages_attribute;
    u.expression_attribute_values[":g_old"] = AttributeValue::SS(entries);
    u.update_expression = std::string("REMOVE ") + kEs + " SET " + kPg + " = :g_pg";
    u.condition_expression = std::string(kEs) + " = :g_old AND attribute_not_exists(" + kPg + ")";
    for (auto& [label, part] : internal::PartitionEdgeSet(std::move(entries), "", internal::kEdgePageMaxPartition)) {
      labels.push_back(label);
      req.transact_items.push_back(PagePut(schema_, node, label, std::move(part)));
    }
    u.expression_attribute_values[":g_pg"] = AttributeValue::SS(labels);
    u.has_expression_attribute_names = true;
    u.has_expression_attribute_values = true;
    req.transact_items.push_back(std::move(u));
    DR_ASSIGN_OR_RETURN(bool done, CommitEdgePages(req, node, std::move(labels)));
    if (done) return Status::Ok();
    internal::Backoff(attempt);  // the set changed meanwhile: read it again
  }
  return Status(ErrorType::kTransactionConflict,
                "graph: the edge set of " + node + " kept changing while it spilled into pages");
}

Status Graph::SplitEdgePage(const std::string& node, const std::string& label) {
  for (int attempt = 0; attempt < 8; ++attempt) {
    DR_ASSIGN_OR_RETURN(std::optional<std::vector<std::string>> labels, ReadEdgePages(node));
    if (!labels || std::find(labels->begin(), labels->end(), label) == labels->end()) {
      return Status::Ok();  // split (or gone) meanwhile
    }
    GetItemRequest g;
    g.table_name = schema_.table_name;
    g.key = schema_.EdgePageKey(node, label);
    g.consistent_read = true;
    counters_.requests++;
    DR_ASSIGN_OR_RETURN(GetItemResponse r, client_->GetItem(g));
    if (!r.item) {
      internal::Backoff(attempt);  // replaced since the labels were read
      continue;
    }
    counters_.items_read++;
    std::vector<std::string> entries = StringSet(*r.item, schema_.edge_set_attribute);
    if (label.size() >= internal::kEdgePageMaxDepth || entries.size() < 2) {
      return ValidationError("graph: edge page " + label + " of node " + node +
                             " cannot be split further (" + std::to_string(entries.size()) +
                             " entries)");
    }
    TransactWriteItemsRequest req;
    TransactWriteItem del;
    del.kind = TransactWriteItem::Kind::kDelete;
    del.table_name = schema_.table_name;
    del.key = schema_.EdgePageKey(node, label);
    del.expression_attribute_names[kEs] = schema_.edge_set_attribute;
    del.expression_attribute_values[":g_old"] = AttributeValue::SS(entries);
    del.condition_expression = std::string(kEs) + " = :g_old";
    del.has_expression_attribute_names = true;
    del.has_expression_attribute_values = true;
    req.transact_items.push_back(std::move(del));
    std::set<std::string> next(labels->begin(), labels->end());
    next.erase(label);
    for (auto& [l, part] : internal::PartitionEdgeSet(std::move(entries), label, internal::kEdgePageMaxPartition)) {
      next.insert(l);
      req.transact_items.push_back(PagePut(schema_, node, l, std::move(part)));
    }
    TransactWriteItem u;
    u.kind = TransactWriteItem::Kind::kUpdate;
    u.table_name = schema_.table_name;
    u.key = schema_.NodeKey(node);
    u.expression_attribute_names[kPg] = schema_.edge_pages_attribute;
    u.expression_attribute_values[":g_old"] = AttributeValue::SS(*labels);
    u.expression_attribute_values[":g_pg"] =
        AttributeValue::SS(std::vector<std::string>(next.begin(), next.end()));
    u.update_expression = std::string("SET ") + kPg + " = :g_pg";
    u.condition_expression = std::string(kPg) + " = :g_old";
    u.has_expression_attribute_names = true;
    u.has_expression_attribute_values = true;
    req.transact_items.push_back(std::move(u));
    DR_ASSIGN_OR_RETURN(bool done,
                        CommitEdgePages(req, node, std::vector<std::string>(next.begin(), next.end())));
    if (done) return Status::Ok();
    internal::Backoff(attempt);
  }
  return Status(ErrorType::kTransactionConflict,
                "graph: edge page " + label + " of " + node + " kept changing while it split");
}

Status Graph::MergeEdgePages(const std::vector<Item*>& items, bool consistent_read) {
  std::vector<Item*> pending;
  for (Item* item : items) {
    if (item->count(schema_.edge_pages_attribute)) pending.push_back(item);
  }
  for (int attempt = 0; !pending.empty(); ++attempt) {
    std::vector<Item> keys;
    for (Item* item : pending) {
      const std::string& node = item->at(schema_.pk_attribute).scalar();
      for (const std::string& l : StringSet(*item, schema_.edge_pages_attribute)) {
        keys.push_back(schema_.EdgePageKey(node, l));
      }
    }
    // node -> label -> entries
    std::unordered_map<std::string, std::map<std::string, std::vector<std::string>>> pages;
    DR_RETURN_IF_ERROR(BatchGetEach(
        keys, consistent_read,
        [&](Item& page) {
          auto pk = page.find(schema_.pk_attribute);
          auto sk = page.find(schema_.sk_attribute);
          if (pk == page.end() || sk == page.end()) return;
          const std::string prefix = schema_.EdgePageSortKey("");
          std::string label = sk->second.scalar().substr(prefix.size());
          pages[pk->second.scalar()][std::move(label)] = StringSet(page, schema_.edge_set_attribute);
        },
        {schema_.pk_attribute, schema_.sk_attribute, schema_.edge_set_attribute}));
    std::vector<Item*> again;
    for (Item* item : pending) {
      const std::string node = item->at(schema_.pk_attribute).scalar();
      const std::vector<std::string> labels = StringSet(*item, schema_.edge_pages_attribute);
      auto& got = pages[node];
      bool whole = true;
      for (const std::string& l : labels) whole = whole && got.count(l);
      if (!whole) {
        again.push_back(item);
        continue;
      }
      std::vector<std::string> merged = StringSet(*item, schema_.edge_set_attribute);
      for (auto& [l, entries] : got) {
        if (std::find(labels.begin(), labels.end(), l) == labels.end()) continue;
        merged.insert(merged.end(), std::make_move_iterator(entries.begin()),
                      std::make_move_iterator(entries.end()));
      }
      std::sort(merged.begin(), merged.end());
      merged.erase(std::unique(merged.begin(), merged.end()), merged.end());
      item->erase(schema_.edge_pages_attribute);
      if (merged.empty()) {
        item->erase(schema_.edge_set_attribute);
      } else {
        (*item)[schema_.edge_set_attribute] = AttributeValue::SS(std::move(merged));
      }
    }
    pending = std::move(again);
    if (pending.empty()) break;
    if (attempt >= 5) {
      return Status(ErrorType::kInternalServerError,
                    "graph: the edge pages of node " + pending.front()->at(schema_.pk_attribute).scalar() +
                        " kept changing (or went missing) while they were read");
    }
    consistent_read = true;  // a page written since may not be visible to an eventual read
    internal::Backoff(attempt);
    // A page was split (or dropped) since the labels were read: read them again.
    for (Item* item : pending) {
      GetItemRequest g = NodeRead(schema_, item->at(schema_.pk_attribute).scalar(), kEs,
                                  schema_.edge_set_attribute, kPg, schema_.edge_pages_attribute);
      counters_.requests++;
      DR_ASSIGN_OR_RETURN(GetItemResponse r, client_->GetItem(g));
      item->erase(schema_.edge_pages_attribute);
      item->erase(schema_.edge_set_attribute);
      if (r.item) {
        for (auto& [k, v] : *r.item) (*item)[k] = std::move(v);
      }
    }
    std::vector<Item*> still;
    for (Item* item : pending) {
      if (item->count(schema_.edge_pages_attribute)) still.push_back(item);
    }
    pending = std::move(still);
  }
  return Status::Ok();
}

Status Graph::DropEdgePages(const std::string& node) {
  // The label list first: from then on readers and writers that read it find
  // the node unspilled; a writer still holding the labels finds its page gone
  // (its condition fails) once it is deleted. A node without a list may still
  // have pages left by a call cut short: the query below finds them.
  UpdateItemRequest u;
  u.table_name = schema_.table_name;
  u.key = schema_.NodeKey(node);
  u.update_expression = std::string("REMOVE ") + kPg;
  u.condition_expression = std::string("attribute_exists(") + kPg + ")";
  u.expression_attribute_names[kPg] = schema_.edge_pages_attribute;
  u.has_expression_attribute_names = true;
  DR_ASSIGN_OR_RETURN(std::optional<std::vector<std::string>> listed, ReadEdgePages(node));
  if (listed && !listed->empty()) {
    counters_.requests++;
    auto r = client_->UpdateItem(u);
    if (!r.ok() && r.status().type() != ErrorType::kConditionalCheckFailed) return r.status();
  }
  RememberEdgePages(node, {});
  // Every page item of the partition, listed or left behind.
  QueryRequest q;
  q.table_name = schema_.table_name;
  q.consistent_read = true;
  q.key_condition_expression = std::string(kPk) + " = :g_pk AND begins_with(#g_sk, :g_pre)";
  q.expression_attribute_names[kPk] = schema_.pk_attribute;
  q.expression_attribute_names["#g_sk"] = schema_.sk_attribute;
  q.expression_attribute_values[":g_pk"] = AttributeValue::S(node);
  q.expression_attribute_values[":g_pre"] = AttributeValue::S(schema_.EdgePageSortKey(""));
  q.projection_expression = std::string(kPk) + ", #g_sk";
  q.has_expression_attribute_names = true;
  q.has_expression_attribute_values = true;
  while (true) {
    counters_.requests++;
    DR_ASSIGN_OR_RETURN(QueryResponse page, client_->Query(q));
    for (const Item& key : page.items) {
      DeleteItemRequest d;
      d.table_name = schema_.table_name;
      d.key = key;
      counters_.requests++;
      counters_.items_written++;
      DR_RETURN_IF_ERROR(client_->DeleteItem(d).status());
    }
    if (!page.last_evaluated_key) break;
    q.exclusive_start_key = std::move(page.last_evaluated_key);
  }
  return Status::Ok();
}

}  // namespace dynarock::graph
