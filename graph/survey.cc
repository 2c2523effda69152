#include "graph/survey.h"

#include <algorithm>

#include "dynarock/item_size.h"

namespace dynarock::graph {

int64_t GraphSurvey::nodes() const {
  int64_t n = 0;
  for (const auto& [type, count] : nodes_by_type) n += count;
  return n;
}

int64_t GraphSurvey::edges() const {
  int64_t n = 0;
  for (const auto& [type, count] : edges_by_type) n += count;
  return n;
}

int64_t GraphSurvey::DegreeQuantile(double q) const {
  int64_t total = 0;
  for (const auto& [degree, count] : out_degrees) total += count;
  int64_t seen = 0;
  for (const auto& [degree, count] : out_degrees) {
    seen += count;
    if (static_cast<double>(seen) >= q * static_cast<double>(total)) return degree;
  }
  return 0;
}

StatusOr<GraphSurvey> Survey(Graph& g, size_t top) {
  const Schema& s = g.schema();
  GraphSurvey out;
  std::map<std::string, int64_t> degree;  // node -> out-degree
  std::map<std::string, EdgeSetSize> sets;  // node -> its edge set (node item and pages)
  std::map<std::string, std::vector<std::string>> listed;  // node -> its page labels
  std::map<std::string, std::map<std::string, std::pair<int64_t, int64_t>>> pages;  // entries, bytes
  ScanRequest scan;
  scan.table_name = s.table_name;
  while (true) {
    DR_ASSIGN_OR_RETURN(ScanResponse page, g.client()->Scan(scan));
    for (const Item& item : page.items) {
      ++out.items;
      auto pk = item.find(s.pk_attribute);
      auto sk = item.find(s.sk_attribute);
      if (pk == item.end() || sk == item.end() || !pk->second.is(AttrType::kS) ||
          !sk->second.is(AttrType::kS)) {
        continue;  // not the layer's
      }
      const std::string& source = pk->second.scalar();
      const bool node = pk->second == sk->second;
      const bool edge_page = !node && s.IsEdgePageSortKey(sk->second.scalar());
      if (node || edge_page) {
        if (node) {
          ++out.nodes_by_type[s.NodeType(source)];
          degree.try_emplace(source, 0);
        }
        auto set = item.find(s.edge_set_attribute);
        const int64_t entries =
            set != item.end() && set->second.is(AttrType::kSS) ? static_cast<int64_t>(set->second.set().size()) : 0;
        const int64_t bytes = static_cast<int64_t>(ItemSize(item));
        if (edge_page) {  // counted below when its node lists it
          pages[source][sk->second.scalar().substr(s.EdgePageSortKey("").size())] = {entries, bytes};
          continue;
        }
        if (auto pg = item.find(s.edge_pages_attribute); pg != item.end() && pg->second.is(AttrType::kSS)) {
          listed[source] = pg->second.set();
        }
        if (entries == 0 && !listed.count(source)) continue;
        EdgeSetSize& e = sets[source];
        e.node = source;
        e.entries += entries;
        e.item_bytes = std::max(e.item_bytes, bytes);
      } else {
        const Edge e = g.ToEdge(item);
        ++out.edges_by_type[e.type];
        ++degree[source];
      }
    }
    if (!page.last_evaluated_key) break;
    scan.exclusive_start_key = std::move(page.last_evaluated_key);
  }
  for (const auto& [node, labels] : listed) {
    EdgeSetSize& e = sets[node];
    e.item_bytes = 0;  // the largest page, not the node item
    for (const std::string& label : labels) {
      auto page = pages[node].find(label);
      if (page == pages[node].end()) continue;
      e.entries += page->second.first;
      e.item_bytes = std::max(e.item_bytes, page->second.second);
      ++e.pages;
    }
  }
  for (auto& [node, e] : sets) {
    if (e.entries > 0) out.largest_edge_sets.push_back(std::move(e));
  }
  for (const auto& [node, d] : degree) ++out.out_degrees[d];
  std::sort(out.largest_edge_sets.begin(), out.largest_edge_sets.end(),
            [](const EdgeSetSize& a, const EdgeSetSize& b) {
              return a.entries != b.entries ? a.entries > b.entries : a.node < b.node;
            });
  if (out.largest_edge_sets.size() > top) out.largest_edge_sets.resize(top);
  return out;
}

}  // namespace dynarock::graph
