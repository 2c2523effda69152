// File: graph/bulk_loader.cc
//
// BulkLoader: edges are sent as soon as enough are buffered (BatchWriteItem from
// `threads` threads, 25 items per request); edge-set entries (per source node)
// and incoming types (per target node) are collected and written with the nodes
// at Finish().

#include <algorithm>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "dynarock/item_size.h"
#include "engine/limits.h"
#include "graph/graph.h"
#include "graph/graph_internal.h"

namespace dynarock::graph {

BulkLoader::BulkLoader(Graph* graph, int threads)
    : graph_(graph), threads_(std::max(1, threads)) {}

BulkLoader::~BulkLoader() = default;

Status BulkLoader::AddNode(const std::string& id, Item attributes) {
  const Schema& s = graph_->schema();
  DR_RETURN_IF_ERROR(s.ValidateNodeId(id));
  for (const auto& [k, v] : attributes) {
    if (s.IsReserved(k)) return ValidationError("graph: attribute '" + k + "' is reserved");
  }
  nodes_[id] = std::move(attributes);
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
  pending_.push_back(std::move(item));
  if (pending_.size() >= static_cast<size_t>(threads_) * 25 * 40) return Drain();
  return Status::Ok();
}

Status BulkLoader::AddEdge(EdgeSpec e, bool with_reverse) {
  const Schema& s = graph_->schema();
  DR_RETURN_IF_ERROR(s.ValidateNodeId(e.source));
  DR_RETURN_IF_ERROR(s.ValidateNodeId(e.target));
  DR_RETURN_IF_ERROR(s.ValidateEdgeType(e.type));
  auto one = [&](const std::string& src, const std::string& type, const std::string& tgt) {
    const std::string rank = s.Rank(type, src, e.properties);
    return Queue(src, type, tgt, e.properties, rank,
                 s.InEdgeSet(type) ? s.EdgeSetEntry(type, tgt, rank) : std::string());
  };
  DR_RETURN_IF_ERROR(one(e.source, e.type, e.target));
  if (with_reverse) {
    std::string r = s.ReverseType(e.type);
    if (r.empty()) r = e.type;
    if (!(e.source == e.target && r == e.type)) DR_RETURN_IF_ERROR(one(e.target, r, e.source));
  }
  return Status::Ok();
}

Status BulkLoader::AddStoredEdge(const Edge& e, bool in_edge_set) {
  const Schema& s = graph_->schema();
  DR_RETURN_IF_ERROR(s.ValidateNodeId(e.source));
  DR_RETURN_IF_ERROR(s.ValidateNodeId(e.target));
  DR_RETURN_IF_ERROR(s.ValidateEdgeType(e.type));
  const std::string rank = e.rank.empty() ? e.source : e.rank;
  std::string entry;
  if (in_edge_set) {
    entry = s.EdgeSortKey(e.type, e.target);
    if (rank != e.source) entry += s.edge_set_rank_separator + rank;
  }
  return Queue(e.source, e.type, e.target, e.properties, rank, entry);
}

Status BulkLoader::Drain() {
  if (pending_.empty()) return Status::Ok();
  std::vector<Item> items = std::move(pending_);
  pending_.clear();
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
  return Status::Ok();
}

Status BulkLoader::Finish() {
  DR_RETURN_IF_ERROR(Drain());
  const Schema& s = graph_->schema();
  for (auto& [id, entries] : edge_sets_) nodes_.try_emplace(id);
  for (auto& [id, types] : in_types_) nodes_.try_emplace(id);
  for (auto& [id, attrs] : nodes_) {
    Item item = std::move(attrs);
    item[s.pk_attribute] = AttributeValue::S(id);
    item[s.sk_attribute] = AttributeValue::S(id);
    if (!s.type_attribute.empty()) item[s.type_attribute] = AttributeValue::S(s.NodeType(id));
    auto in = in_types_.find(id);
    if (in != in_types_.end() && !in->second.empty()) {
      item[s.incoming_types_attribute] = AttributeValue::SS(
          std::vector<std::string>(in->second.begin(), in->second.end()));
    }
    auto es = edge_sets_.find(id);
    if (es != edge_sets_.end() && !es->second.empty()) {
      // One entry per edge, that of its last version (the rank may have changed).
      std::vector<std::string> v;
      std::unordered_set<std::string> edges;
      for (auto e = es->second.rbegin(); e != es->second.rend(); ++e) {
        EdgeRef ref;
        std::string edge = s.ParseEdgeSetEntry(*e, &ref) ? ref.type + '\0' + ref.target : *e;
        if (edges.insert(std::move(edge)).second) v.push_back(std::move(*e));
      }
      std::sort(v.begin(), v.end());
      size_t bytes = s.edge_set_attribute.size();
      std::map<std::string, size_t> per_type;
      for (const std::string& e : v) {
        bytes += e.size();
        EdgeRef ref;
        if (s.ParseEdgeSetEntry(e, &ref)) per_type[ref.type] += e.size();
      }
      if (bytes + ItemSize(item) > kItemSizeBytesMax) {
        std::string worst;
        size_t most = 0;
        for (const auto& [t, b] : per_type) {
          if (b > most) most = b, worst = t;
        }
        return ValidationError("graph: the edge set of node " + id + " (" +
                               std::to_string(v.size()) + " entries, ~" +
                               std::to_string(bytes / 1024) +
                               " KB) would exceed DynamoDB's 400 KB item limit; opt the edge type " +
                               worst + " out of the edge set (Schema::OptOutOfEdgeSet(\"" + worst +
                               "\"))");
      }
      item[s.edge_set_attribute] = AttributeValue::SS(std::move(v));
    }
    pending_.push_back(std::move(item));
    if (pending_.size() >= static_cast<size_t>(threads_) * 25 * 40) DR_RETURN_IF_ERROR(Drain());
  }
  nodes_.clear();
  edge_sets_.clear();
  in_types_.clear();
  return Drain();
}

}  // namespace dynarock::graph
