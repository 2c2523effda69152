// File: graph/bulk_loader.cc
//
// BulkLoader: edges are sent as soon as enough are buffered (BatchWriteItem from
// `threads` threads, 25 items per request), or go one by one into a table being
// loaded (LoadNewGraph); edge-set entries (per source node) and incoming types
// (per target node) are collected and written with the nodes at Finish().

#include <algorithm>
#include <array>
#include <span>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "client/embedded_client.h"
#include "dynarock/backups.h"
#include "dynarock/db.h"
#include "dynarock/item_size.h"
#include "engine/item_codec.h"
#include "engine/limits.h"
#include "graph/graph.h"
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
                         const Item& properties, const std::string& rank, std::string entry) {
  const Schema& s = graph_->schema();
  // Both nodes exist; the source's edge set and the target's incoming types
  // gain the edge.
  NodeEdges& from = EdgesOf(src);
  if (!entry.empty()) from.entries.push_back(std::move(entry));
  std::vector<std::string>& in = EdgesOf(tgt).in_types;
  if (std::find(in.begin(), in.end(), type) == in.end()) in.push_back(type);
  if (edge_items_written_) return Status::Ok();
  const std::string sk = s.EdgeSortKey(type, tgt);
  if (target_ != nullptr) {
    // Into the table being loaded, encoded straight from the strings and the
    // (prepared) properties: no map per edge.
    std::array<std::pair<std::string_view, std::string_view>, 4> all = {{
        {s.pk_attribute, src}, {s.sk_attribute, sk}, {s.rank_attribute, rank}, {s.type_attribute, type}}};
    const std::span<std::pair<std::string_view, std::string_view>> strings(
        all.data(), s.type_attribute.empty() ? 3 : 4);
    std::sort(strings.begin(), strings.end());
    // (Declared indexes key on properties, whose types the loader checks per
    // item: such edges go as items, refused one by one.)
    bool plain = s.indexes.empty();
    for (const auto& [name, value] : strings) plain = plain && !properties.count(name);
    items_written_ += 1;
    graph_->counters().items_written += 1;
    Status added;
    if (plain) {
      encoded_.clear();
      EncodeItemWithStrings(properties, strings, &encoded_);
      added = target_->AddEncoded(encoded_);
    } else {  // a property named as a layer attribute (the layer's value wins), or an index's
      Item item = properties;
      for (const auto& [name, value] : strings) item[std::string(name)] = AttributeValue::S(std::string(value));
      added = target_->Add(std::move(item));
    }
    if (!added.ok()) failed_ = added;
    return added;
  }
  Item item = properties;
  item[s.pk_attribute] = AttributeValue::S(src);
  item[s.sk_attribute] = AttributeValue::S(sk);
  item[s.rank_attribute] = AttributeValue::S(rank);
  if (!s.type_attribute.empty()) item[s.type_attribute] = AttributeValue::S(type);
  pending_.push_back(std::move(item));
  if (pending_.size() >= static_cast<size_t>(threads_) * 25 * 40) return Drain();
  return Status::Ok();
}

BulkLoader::NodeEdges& BulkLoader::EdgesOf(std::string_view id) {
  if ((edges_.size() + 1) * 2 > edge_slots_.size()) {  // at most half full
    edge_slots_.assign(std::max<size_t>(1024, edge_slots_.size() * 2), 0);
    const size_t mask = edge_slots_.size() - 1;
    for (size_t k = 0; k < edges_.size(); ++k) {
      const uint64_t h = std::hash<std::string_view>()(edges_[k].id);
      size_t i = h & mask;
      while (edge_slots_[i] != 0) i = (i + 1) & mask;
      edge_slots_[i] = (h & ~uint64_t{0xFFFFFFFF}) | (k + 1);
    }
  }
  const uint64_t h = std::hash<std::string_view>()(id);
  const size_t mask = edge_slots_.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    const uint64_t slot = edge_slots_[i];
    if (slot == 0) {
      edges_.push_back(NodeEdges{std::string(id), {}, {}});
      edge_slots_[i] = (h & ~uint64_t{0xFFFFFFFF}) | edges_.size();
      return edges_.back();
    }
    if ((slot >> 32) == (h >> 32)) {
      NodeEdges& e = edges_[(slot & 0xFFFFFFFF) - 1];
      if (e.id == id) return e;
    }
  }
}

const BulkLoader::NodeEdges* BulkLoader::FindEdges(std::string_view id) const {
  if (edge_slots_.empty()) return nullptr;
  const uint64_t h = std::hash<std::string_view>()(id);
  const size_t mask = edge_slots_.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    const uint64_t slot = edge_slots_[i];
    if (slot == 0) return nullptr;
    if ((slot >> 32) == (h >> 32)) {
      const NodeEdges& e = edges_[(slot & 0xFFFFFFFF) - 1];
      if (e.id == id) return &e;
    }
  }
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
  // Its keys within DynamoDB's: the nodes' ids are sort keys (of their own
  // items, and of the type index), as are the edge's sort key and its rank
  // (the inverted index's).
  auto too_long = [&](const char* what, size_t bytes) {
    return ValidationError("graph: the edge " + src + " -" + type + "-> " + tgt + ": its " + what +
                           " is " + std::to_string(bytes) + " bytes, over DynamoDB's " +
                           std::to_string(kSortKeyBytesMax) + "-byte sort key limit");
  };
  if (src.size() > kSortKeyBytesMax) return too_long("source id", src.size());
  if (tgt.size() > kSortKeyBytesMax) return too_long("target id", tgt.size());
  const size_t sk = type.size() + s.separator.size() + tgt.size();
  if (sk > kSortKeyBytesMax) return too_long("sort key (type and target)", sk);
  if (rank.size() > kSortKeyBytesMax) return too_long("rank", rank.size());
  if (rank.empty()) return ValidationError("graph: the edge " + src + " -" + type + "-> " + tgt + " has an empty rank");
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
    const std::string* src = nullptr;
    std::string type;
    const std::string* tgt = nullptr;
    std::string rank;
  };
  std::array<Direction, 2> all = {
      Direction{&e.source, e.type, &e.target, s.Rank(e.type, e.source, e.properties)}, Direction{}};
  size_t n = 1;
  if (with_reverse) {
    std::string r = s.ReverseType(e.type);
    if (r.empty()) r = e.type;
    if (!(e.source == e.target && r == e.type)) {
      std::string rank = s.Rank(r, e.target, e.properties);
      all[n++] = {&e.target, std::move(r), &e.source, std::move(rank)};
    }
  }
  const std::span<const Direction> ways(all.data(), n);
  for (const Direction& w : ways) DR_RETURN_IF_ERROR(CheckEdgeItem(*w.src, w.type, *w.tgt, e.properties, w.rank));
  // Into a table being loaded the edge goes encoded: its properties are
  // checked (and their numbers normalised) here, once for both directions.
  if (target_ != nullptr) DR_RETURN_IF_ERROR(TableLoader::Prepare(&e.properties));
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
  Item prepared;
  if (target_ != nullptr) {  // encoded by Queue: see AddEdge
    prepared = e.properties;
    DR_RETURN_IF_ERROR(TableLoader::Prepare(&prepared));
  }
  std::string entry;
  if (in_edge_set) {
    entry = s.EdgeSortKey(e.type, e.target);
    if (rank != e.source) entry += s.edge_set_rank_separator + rank;
  }
  return Queue(e.source, e.type, e.target, target_ != nullptr ? prepared : e.properties, rank, entry);
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

void BulkLoader::BuildNodeItems(const std::string& id, Item item, Item* old,
                                const std::set<std::string>* old_labels, std::vector<Item>* out,
                                std::vector<Item>* stale_pages) {
  // Reads edges_ (this node's entry only) and added_: safe beside another
  // thread building other nodes.
  const Schema& s = graph_->schema();
  std::vector<std::string> old_entries, old_types;
  if (old != nullptr) {
    auto take_set = [&](const std::string& name, std::vector<std::string>* into) {
      auto a = old->find(name);
      if (a != old->end() && a->second.is(AttrType::kSS)) *into = a->second.set();
      old->erase(name);
    };
    take_set(s.edge_set_attribute, &old_entries);
    take_set(s.incoming_types_attribute, &old_types);
    if (!added_.count(id)) item = std::move(*old);  // a stub: the node as it is
  }
  item[s.pk_attribute] = AttributeValue::S(id);
  item[s.sk_attribute] = AttributeValue::S(id);
  if (!s.type_attribute.empty()) item[s.type_attribute] = AttributeValue::S(s.NodeType(id));
  std::set<std::string> types(old_types.begin(), old_types.end());
  NodeEdges* es = const_cast<NodeEdges*>(FindEdges(id));  // its entries are taken
  if (es != nullptr) types.insert(es->in_types.begin(), es->in_types.end());
  if (!types.empty()) {
    item[s.incoming_types_attribute] =
        AttributeValue::SS(std::vector<std::string>(types.begin(), types.end()));
  }
  std::vector<std::string> new_entries;
  if (es != nullptr) new_entries = std::move(es->entries);
  if (!new_entries.empty() || !old_entries.empty()) {
    // One entry per edge, that of its last version (the rank may have
    // changed): the new ones, newest first, then the old ones not replaced.
    // (The edges are views into the entries, which stay where they are
    // until the kept ones are moved.)
    std::vector<std::string*> kept;
    kept.reserve(new_entries.size() + old_entries.size());
    std::unordered_set<std::string_view> edges;
    edges.reserve(kept.capacity());
    auto keep = [&](std::string& e) {
      if (edges.insert(s.EdgeSetEntryEdge(e)).second) kept.push_back(&e);
    };
    for (auto e = new_entries.rbegin(); e != new_entries.rend(); ++e) keep(*e);
    for (std::string& e : old_entries) keep(e);
    edges.clear();
    std::vector<std::string> v;
    v.reserve(kept.size());
    for (std::string* e : kept) v.push_back(std::move(*e));
    std::sort(v.begin(), v.end());
    size_t bytes = s.edge_set_attribute.size();
    for (const std::string& e : v) bytes += e.size() + 1;
    if (bytes + ItemSize(item) > kItemSizeBytesMax) {
      // Too large for the node item: into edge pages (graph/edge_pages.cc).
      std::set<std::string> labels;
      for (auto& [label, part] : internal::PartitionEdgeSet(std::move(v), "", /*max_pages=*/0)) {
        Item page = s.EdgePageKey(id, label);
        if (!part.empty()) page[s.edge_set_attribute] = AttributeValue::SS(std::move(part));
        out->push_back(std::move(page));
        labels.insert(label);
      }
      item[s.edge_pages_attribute] =
          AttributeValue::SS(std::vector<std::string>(labels.begin(), labels.end()));
      v.clear();
      if (old_labels != nullptr) {
        for (const std::string& l : *old_labels) {
          if (!labels.count(l)) stale_pages->push_back(s.EdgePageKey(id, l));
        }
        old_labels = nullptr;
      }
    }
    if (!v.empty()) item[s.edge_set_attribute] = AttributeValue::SS(std::move(v));
  }
  // A spilled node whose set now fits its item: its old pages go.
  if (old_labels != nullptr) {
    for (const std::string& l : *old_labels) stale_pages->push_back(s.EdgePageKey(id, l));
  }
  out->push_back(std::move(item));
}

Status BulkLoader::FinishNodes() {
  const Schema& s = graph_->schema();
  for (const NodeEdges& e : edges_) nodes_.try_emplace(e.id);
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
  if (target_ != nullptr) {
    // A new table: every node's item is built from the load alone, so two
    // threads build them (each its share of a slice of the nodes), and the
    // items, checked there, are added in order.
    std::vector<std::pair<const std::string*, Item*>> order;
    order.reserve(nodes_.size());
    for (auto& [id, attrs] : nodes_) order.emplace_back(&id, &attrs);
    constexpr size_t kSlice = 8192;
    for (size_t begin = 0; begin < order.size(); begin += kSlice) {
      const size_t end = std::min(order.size(), begin + kSlice), mid = begin + (end - begin) / 2;
      std::vector<Item> first, second;
      Status first_status, second_status;
      auto build = [&](size_t from, size_t to, std::vector<Item>* out, Status* status) {
        for (size_t i = from; i < to && status->ok(); ++i) {
          const size_t at = out->size();
          BuildNodeItems(*order[i].first, std::move(*order[i].second), nullptr, nullptr, out, nullptr);
          for (size_t k = at; k < out->size() && status->ok(); ++k) *status = TableLoader::Prepare(&(*out)[k]);
        }
      };
      std::thread helper(build, begin, mid, &first, &first_status);
      build(mid, end, &second, &second_status);
      helper.join();
      DR_RETURN_IF_ERROR(first_status);
      DR_RETURN_IF_ERROR(second_status);
      for (auto* items : {&first, &second}) {
        for (Item& item : *items) {
          items_written_ += 1;
          graph_->counters().items_written += 1;
          Status added = target_->AddPrepared(std::move(item));
          if (!added.ok()) {
            failed_ = added;
            return added;
          }
        }
      }
    }
  } else {
    for (auto& [id, attrs] : nodes_) {
      auto old = existing.find(id);
      auto labels = old_pages.find(id);
      BuildNodeItems(id, std::move(attrs), old == existing.end() ? nullptr : &old->second,
                     labels == old_pages.end() ? nullptr : &labels->second, &pending_, &stale_pages);
      if (pending_.size() >= static_cast<size_t>(threads_) * 25 * 40) DR_RETURN_IF_ERROR(Drain());
    }
  }
  nodes_.clear();
  added_.clear();
  edges_.clear();
  edge_slots_.clear();
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
    client::EmbeddedClient client(db);
    Graph graph(&client, schema);
    BulkLoader loader(&graph, &target);
    DR_RETURN_IF_ERROR(fill(loader));
    return loader.Finish();
  });
}

}  // namespace dynarock::graph
