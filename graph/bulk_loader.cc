// File: graph/bulk_loader.cc
//
// BulkLoader: edges are sent as soon as enough are buffered (BatchWriteItem from
// `threads` threads, 25 items per request), or go one by one into a table being
// loaded (LoadNewGraph); edge-set entries (per source node) and incoming types
// (per target node) are collected and written with the nodes at Finish().

#include <algorithm>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "dynarock/backups.h"
#include "dynarock/db.h"
#include "dynarock/item_size.h"
#include "engine/limits.h"
#include "graph/graph.h"
#include "graph/embedded_client.h"
#include "graph/graph_internal.h"

namespace dynarock::graph {

BulkLoader::BulkLoader(Graph* graph, int threads)
    : graph_(graph), threads_(std::max(1, threads)) {}

BulkLoader::BulkLoader(Graph* graph, TableLoader* target)
    : graph_(graph), threads_(1), target_(target) {}

BulkLoader::~BulkLoader() = default;

Status BulkLoader::AddNode(const std::string& id, Item attributes) {
  DR_RETURN_IF_ERROR(failed_);
  const Schema& s = graph_->schema();
  DR_RETURN_IF_ERROR(s.ValidateNodeId(id));
  for (const auto& [k, v] : attributes) {
    if (s.IsReserved(k)) return ValidationError("graph: attribute '" + k + "' is reserved");
  }
  nodes_[id] = std::move(attributes);
  added_.insert(id);
  return Status::Ok();
}

Status BulkLoader::Queue(const std::string& src, const std::string& type, const std::string& tgt,
                         const Item& properties, const std::string& rank, const std::string& entry) {
  const Schema& s = graph_->schema();
  Item item = properties;
  item[s.pk_attribute] = AttributeValue::S(src);
  item[s.sk_attribute] = AttributeValue::S(s.EdgeSortKey(type, tgt));
  item[s.rank_attribute] = AttributeValue::S(rank);
  if (!s.type_attribute.empty()) item[s.type_attribute] = AttributeValue::S(type);
  if (!entry.empty()) {
    edge_sets_[src].push_back(entry);
  } else {
    edge_sets_[src];  // the node exists
  }
  in_types_[tgt].insert(type);
  edge_sets_[tgt];
  if (edge_items_written_) return Status::Ok();
  pending_.push_back(std::move(item));
  if (pending_.size() >= static_cast<size_t>(threads_) * 25 * 40) return Drain();
  return Status::Ok();
}

Status BulkLoader::CheckEdgeItem(const std::string& src, const std::string& type,
                                 const std::string& tgt, const Item& properties,
                                 const std::string& rank) const {
  // The edge's item as Queue writes it, sized before anything is recorded: an
  // edge over 400 KB is this edge's refusal, not a batch's failure.
  const Schema& s = graph_->schema();
  size_t size = ItemSize(properties);
  auto attr = [&](const std::string& name, size_t value_bytes) {
    if (!name.empty() && !properties.count(name)) size += name.size() + value_bytes;
  };
  attr(s.pk_attribute, src.size());
  attr(s.sk_attribute, type.size() + s.separator.size() + tgt.size());  // EdgeSortKey
  attr(s.rank_attribute, rank.size());
  attr(s.type_attribute, type.size());
  if (size > kItemSizeBytesMax) {
    return ValidationError("graph: the edge " + src + " -" + type + "-> " + tgt + " (~" +
                           std::to_string(size / 1024) +
                           " KB with its properties) exceeds DynamoDB's 400 KB item limit");
  }
  return Status::Ok();
}

Status BulkLoader::AddEdge(EdgeSpec e, bool with_reverse) {
  DR_RETURN_IF_ERROR(failed_);
  const Schema& s = graph_->schema();
  DR_RETURN_IF_ERROR(s.ValidateNodeId(e.source));
  DR_RETURN_IF_ERROR(s.ValidateNodeId(e.target));
  DR_RETURN_IF_ERROR(s.ValidateEdgeType(e.type));
  // Both directions are checked before either is queued: an edge is loaded
  // whole or refused.
  struct Direction {
    const std::string* src;
    std::string type;
    const std::string* tgt;
    std::string rank;
  };
  std::vector<Direction> ways = {{&e.source, e.type, &e.target, s.Rank(e.type, e.source, e.properties)}};
  if (with_reverse) {
    std::string r = s.ReverseType(e.type);
    if (r.empty()) r = e.type;
    if (!(e.source == e.target && r == e.type)) {
      std::string rank = s.Rank(r, e.target, e.properties);
      ways.push_back({&e.target, std::move(r), &e.source, std::move(rank)});
    }
  }
  for (const Direction& w : ways) DR_RETURN_IF_ERROR(CheckEdgeItem(*w.src, w.type, *w.tgt, e.properties, w.rank));
  for (const Direction& w : ways) {
    DR_RETURN_IF_ERROR(Queue(*w.src, w.type, *w.tgt, e.properties, w.rank,
                             s.InEdgeSet(w.type) ? s.EdgeSetEntry(w.type, *w.tgt, w.rank) : std::string()));
  }
  return Status::Ok();
}

Status BulkLoader::AddStoredEdge(const Edge& e, bool in_edge_set) {
  DR_RETURN_IF_ERROR(failed_);
  const Schema& s = graph_->schema();
  DR_RETURN_IF_ERROR(s.ValidateNodeId(e.source));
  DR_RETURN_IF_ERROR(s.ValidateNodeId(e.target));
  DR_RETURN_IF_ERROR(s.ValidateEdgeType(e.type));
  const std::string rank = e.rank.empty() ? e.source : e.rank;
  DR_RETURN_IF_ERROR(CheckEdgeItem(e.source, e.type, e.target, e.properties, rank));
  std::string entry;
  if (in_edge_set) {
    entry = s.EdgeSortKey(e.type, e.target);
    if (rank != e.source) entry += s.edge_set_rank_separator + rank;
  }
  return Queue(e.source, e.type, e.target, e.properties, rank, entry);
}

Status BulkLoader::Drain() {
  DR_RETURN_IF_ERROR(failed_);
  Status s = DrainBatch();
  if (!s.ok()) failed_ = s;
  return s;
}

Status BulkLoader::DrainBatch() {
  if (pending_.empty()) return Status::Ok();
  std::vector<Item> items = std::move(pending_);
  pending_.clear();
  if (target_ != nullptr) {
    // The table's loader keeps the last version of a key given twice.
    items_written_ += static_cast<int64_t>(items.size());
    graph_->counters().items_written += static_cast<int64_t>(items.size());
    for (Item& item : items) DR_RETURN_IF_ERROR(target_->Add(std::move(item)));
    return Status::Ok();
  }
  // An edge added more than once is written in its last version only: one
  // BatchWriteItem refuses a key twice, and two threads must not race on it.
  // (Drains run one after another, so across drains the last one wins anyway.)
  const Schema& s = graph_->schema();
  std::unordered_map<std::string, size_t> last;
  last.reserve(items.size());
  auto key = [&](const Item& item) {
    return item.at(s.pk_attribute).scalar() + '\0' + item.at(s.sk_attribute).scalar();
  };
  for (size_t i = 0; i < items.size(); ++i) last[key(items[i])] = i;
  if (last.size() != items.size()) {
    std::vector<Item> kept;
    kept.reserve(last.size());
    for (size_t i = 0; i < items.size(); ++i) {
      if (last[key(items[i])] == i) kept.push_back(std::move(items[i]));
    }
    items = std::move(kept);
  }
  items_written_ += static_cast<int64_t>(items.size());
  graph_->counters().items_written += static_cast<int64_t>(items.size());
  const size_t n = static_cast<size_t>(threads_);
  const size_t per = (items.size() + n - 1) / n;
  std::vector<Status> results(n);
  std::vector<int64_t> requests(n, 0);
  std::vector<std::thread> workers;
  for (size_t t = 0; t < n; ++t) {
    size_t begin = t * per, end = std::min(items.size(), begin + per);
    if (begin >= end) break;
    std::vector<Item> chunk(std::make_move_iterator(items.begin() + static_cast<long>(begin)),
                            std::make_move_iterator(items.begin() + static_cast<long>(end)));
    workers.emplace_back([this, t, chunk = std::move(chunk), &results, &requests]() mutable {
      results[t] = internal::BatchPut(graph_->client(), graph_->schema().table_name,
                                      std::move(chunk), &requests[t]);
    });
  }
  for (auto& w : workers) w.join();
  for (size_t t = 0; t < n; ++t) {
    graph_->counters().requests += requests[t];
    DR_RETURN_IF_ERROR(results[t]);
  }
  if (on_written_) on_written_();
  return Status::Ok();
}

Status BulkLoader::Finish() {
  DR_RETURN_IF_ERROR(Drain());
  Status s = FinishNodes();
  if (!s.ok()) failed_ = s;
  return s;
}

Status BulkLoader::FinishNodes() {
  const Schema& s = graph_->schema();
  for (auto& [id, entries] : edge_sets_) nodes_.try_emplace(id);
  for (auto& [id, types] : in_types_) nodes_.try_emplace(id);
  // Through the client the table may hold these nodes already (an earlier
  // import, the application's own writes): their items are read first, so
  // that a node keeps its attributes unless AddNode gave new ones, and its
  // edge set and incoming types gain the new edges instead of losing the old.
  // A table being loaded (LoadNewGraph) is new: nothing to read.
  std::unordered_map<std::string, Item> existing;
  std::unordered_map<std::string, std::set<std::string>> old_pages;  // node -> labels
  std::vector<Item> stale_pages;  // keys of pages a re-spilled set no longer uses
  if (target_ == nullptr && !nodes_.empty()) {
    std::vector<Item> keys;
    keys.reserve(nodes_.size());
    for (const auto& [id, attrs] : nodes_) keys.push_back(s.NodeKey(id));
    DR_RETURN_IF_ERROR(graph_->BatchGetEach(keys, /*consistent_read=*/true, [&](Item& item) {
      auto pk = item.find(s.pk_attribute);
      if (pk != item.end()) existing.emplace(pk->second.scalar(), std::move(item));
    }));
    // Spilled edge sets: their pages' entries, and the pages to replace.
    std::vector<Item*> spilled;
    for (auto& [id, item] : existing) {
      auto pg = item.find(s.edge_pages_attribute);
      if (pg == item.end() || !pg->second.is(AttrType::kSS)) continue;
      for (const std::string& l : pg->second.set()) old_pages[id].insert(l);
      spilled.push_back(&item);
    }
    DR_RETURN_IF_ERROR(graph_->MergeEdgePages(spilled, /*consistent_read=*/true));
  }
  for (auto& [id, attrs] : nodes_) {
    Item item = std::move(attrs);
    std::vector<std::string> old_entries, old_types;
    if (auto old = existing.find(id); old != existing.end()) {
      auto take_set = [&](const std::string& name, std::vector<std::string>* out) {
        auto a = old->second.find(name);
        if (a != old->second.end() && a->second.is(AttrType::kSS)) *out = a->second.set();
        old->second.erase(name);
      };
      take_set(s.edge_set_attribute, &old_entries);
      take_set(s.incoming_types_attribute, &old_types);
      if (!added_.count(id)) item = std::move(old->second);  // a stub: the node as it is
    }
    item[s.pk_attribute] = AttributeValue::S(id);
    item[s.sk_attribute] = AttributeValue::S(id);
    if (!s.type_attribute.empty()) item[s.type_attribute] = AttributeValue::S(s.NodeType(id));
    std::set<std::string> types(old_types.begin(), old_types.end());
    if (auto in = in_types_.find(id); in != in_types_.end()) types.insert(in->second.begin(), in->second.end());
    if (!types.empty()) {
      item[s.incoming_types_attribute] =
          AttributeValue::SS(std::vector<std::string>(types.begin(), types.end()));
    }
    auto es = edge_sets_.find(id);
    std::vector<std::string> new_entries;
    if (es != edge_sets_.end()) new_entries = std::move(es->second);
    if (!new_entries.empty() || !old_entries.empty()) {
      // One entry per edge, that of its last version (the rank may have
      // changed): the new ones, newest first, then the old ones not replaced.
      std::vector<std::string> v;
      std::unordered_set<std::string> edges;
      auto keep = [&](std::string& e) {
        EdgeRef ref;
        std::string edge = s.ParseEdgeSetEntry(e, &ref) ? ref.type + '\0' + ref.target : e;
        if (edges.insert(std::move(edge)).second) v.push_back(std::move(e));
      };
      for (auto e = new_entries.rbegin(); e != new_entries.rend(); ++e) keep(*e);
      for (std::string& e : old_entries) keep(e);
      std::sort(v.begin(), v.end());
      size_t bytes = s.edge_set_attribute.size();
      for (const std::string& e : v) bytes += e.size() + 1;
      if (bytes + ItemSize(item) > kItemSizeBytesMax) {
        // Too large for the node item: into edge pages (graph/edge_pages.cc).
        std::set<std::string> labels;
        for (auto& [label, part] : internal::PartitionEdgeSet(std::move(v), "", /*max_pages=*/0)) {
          Item page = s.EdgePageKey(id, label);
          if (!part.empty()) page[s.edge_set_attribute] = AttributeValue::SS(std::move(part));
          pending_.push_back(std::move(page));
          labels.insert(label);
        }
        item[s.edge_pages_attribute] =
            AttributeValue::SS(std::vector<std::string>(labels.begin(), labels.end()));
        v.clear();
        if (auto old = old_pages.find(id); old != old_pages.end()) {
          for (const std::string& l : old->second) {
            if (!labels.count(l)) stale_pages.push_back(s.EdgePageKey(id, l));
          }
          old_pages.erase(old);
        }
      }
      if (!v.empty()) item[s.edge_set_attribute] = AttributeValue::SS(std::move(v));
    }
    // A spilled node whose set now fits its item: its old pages go.
    if (auto old = old_pages.find(id); old != old_pages.end()) {
      for (const std::string& l : old->second) stale_pages.push_back(s.EdgePageKey(id, l));
      old_pages.erase(old);
    }
    pending_.push_back(std::move(item));
    if (pending_.size() >= static_cast<size_t>(threads_) * 25 * 40) DR_RETURN_IF_ERROR(Drain());
  }
  nodes_.clear();
  added_.clear();
  edge_sets_.clear();
  in_types_.clear();
  DR_RETURN_IF_ERROR(Drain());
  for (const Item& key : stale_pages) {  // unlisted by the nodes just written
    DeleteItemRequest d;
    d.table_name = s.table_name;
    d.key = key;
    DR_RETURN_IF_ERROR(graph_->client()->DeleteItem(d).status());
  }
  return Status::Ok();
}

StatusOr<TableDescription> LoadNewGraph(DB* db, const Schema& schema,
                                        const std::function<Status(BulkLoader&)>& fill) {
  return db->LoadTable(MakeCreateTableRequest(schema), [&](TableLoader& target) -> Status {
    EmbeddedClient client(db);
    Graph graph(&client, schema);
    BulkLoader loader(&graph, &target);
    DR_RETURN_IF_ERROR(fill(loader));
    return loader.Finish();
  });
}

}  // namespace dynarock::graph
