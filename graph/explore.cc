#include "graph/explore.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <tuple>

namespace dynarock::graph {
namespace {

std::string Separator(std::string_view id) {
  for (char c : id) {
    if (!std::isalnum(static_cast<unsigned char>(c))) return std::string(1, c);
  }
  return "#";
}

// Whether `source`'s edge set names `e`. A schema that does not know the
// type's rank reads a ranked entry as "target|rank".
bool InEdgeSet(const Schema& s, const Node& source, const Edge& e) {
  const std::string ranked = e.target + s.edge_set_rank_separator + e.rank;
  return std::any_of(source.edge_set.begin(), source.edge_set.end(), [&](const EdgeRef& ref) {
    return ref.type == e.type && (ref.target == e.target || ref.target == ranked);
  });
}

}  // namespace


StatusOr<Neighbourhood> Explore(Graph& g, const NeighbourhoodRequest& request) {
  DR_RETURN_IF_ERROR(g.schema().ValidateNodeId(request.start));
  if (request.hops < 1) return Status(ErrorType::kValidation, "A neighbourhood has at least one hop");
  Neighbourhood out;
  std::map<std::string, int> depth = {{request.start, 0}};
  std::map<std::string, Node> nodes;
  std::map<std::tuple<std::string, std::string, std::string>, Edge> edges;
  auto wanted = [&](const std::string& type) {
    return request.types.empty() || request.types.count(type) > 0;
  };
  // Reads the nodes not read yet (a missing node stays absent).
  auto fetch = [&](const std::vector<std::string>& ids) -> Status {
    std::vector<std::string> missing;
    for (const std::string& id : ids)
      if (!nodes.count(id)) missing.push_back(id);
    if (missing.empty()) return Status();
    DR_ASSIGN_OR_RETURN(auto got, g.GetNodes(missing));
    for (auto& n : got)
      if (n) nodes.emplace(n->id, std::move(*n));
    return Status();
  };
  std::vector<std::string> frontier = {request.start};
  DR_RETURN_IF_ERROR(fetch(frontier));
  for (int hop = 1; hop <= request.hops && !frontier.empty(); ++hop) {
    std::vector<std::string> next;
    auto meet = [&](const Edge& e, const std::string& other) {
      out.edge_types.insert(e.type);
      if (!wanted(e.type)) return;
      if (!depth.count(other)) {
        if (static_cast<int64_t>(depth.size()) >= request.max_nodes) {
          out.truncated = true;
          return;
        }
        depth[other] = hop;
        next.push_back(other);
      }
      edges.emplace(std::make_tuple(e.source, e.type, e.target), e);
    };
    EdgeQuery q;
    q.limit = request.max_edges_per_node;
    for (const std::string& id : frontier) {
      if (request.ways != Ways::kIn) {
        DR_ASSIGN_OR_RETURN(EdgePage page, g.OutEdges(id, "", q));
        out.truncated |= !page.next_page_token.empty();
        for (const Edge& e : page.edges) meet(e, e.target);
      }
      auto n = nodes.find(id);
      if (request.ways == Ways::kOut || n == nodes.end()) continue;
      for (const std::string& type : n->second.incoming_types) {
        out.edge_types.insert(type);
        if (!wanted(type)) continue;
        DR_ASSIGN_OR_RETURN(EdgePage page, g.InEdges(id, type, q));
        out.truncated |= !page.next_page_token.empty();
        for (const Edge& e : page.edges) meet(e, e.source);
      }
    }
    DR_RETURN_IF_ERROR(fetch(next));
    frontier = std::move(next);
  }

  for (const auto& [id, level] : depth) {
    NeighbourhoodNode n;
    n.id = id;
    n.depth = level;
    if (auto it = nodes.find(id); it != nodes.end()) n.node = it->second;
    out.nodes.push_back(std::move(n));
  }
  const Schema& s = g.schema();
  for (auto& [key, e] : edges) {
    // An edge to a node left out by max_nodes is left out too.
    if (!depth.count(e.source) || !depth.count(e.target)) continue;
    NeighbourhoodEdge ne;
    if (auto src = nodes.find(e.source); src != nodes.end()) ne.in_edge_set = InEdgeSet(s, src->second, e);
    ne.edge = std::move(e);
    out.edges.push_back(std::move(ne));
  }
  return out;
}

StatusOr<Neighbourhood> WholeGraph(Graph& g, int64_t max_nodes) {
  const Schema& s = g.schema();
  Neighbourhood out;
  std::map<std::string, Node> nodes;
  std::map<std::string, std::map<std::string, std::vector<EdgeRef>>> pages;  // node -> label -> entries
  std::map<std::string, std::vector<std::string>> listed;  // node -> the labels it lists
  std::vector<Edge> edges;
  ScanRequest scan;
  scan.table_name = s.table_name;
  while (true) {
    DR_ASSIGN_OR_RETURN(ScanResponse page, g.client()->Scan(scan));
    for (const Item& item : page.items) {
      auto pk = item.find(s.pk_attribute);
      auto sk = item.find(s.sk_attribute);
      if (pk == item.end() || sk == item.end()) continue;
      if (pk->second == sk->second) {
        if (static_cast<int64_t>(nodes.size()) >= max_nodes) {
          out.truncated = true;
          continue;
        }
        Node n = g.ToNode(item);
        if (auto pg = item.find(s.edge_pages_attribute); pg != item.end() && pg->second.is(AttrType::kSS)) {
          listed[n.id] = pg->second.set();
        }
        nodes.emplace(n.id, std::move(n));
      } else if (s.IsEdgePageSortKey(sk->second.scalar())) {
        // A spilled edge set's page: its entries join the node's set below
        // (when the node lists it: not one a call cut short left behind).
        const std::string label = sk->second.scalar().substr(s.EdgePageSortKey("").size());
        pages[pk->second.scalar()][label] = g.ToNode(item).edge_set;
      } else {
        edges.push_back(g.ToEdge(item));
      }
    }
    if (!page.last_evaluated_key) break;
    scan.exclusive_start_key = std::move(page.last_evaluated_key);
  }
  for (auto& [id, labels] : listed) {
    auto n = nodes.find(id);
    if (n == nodes.end()) continue;
    // A scan is no snapshot: a page split meanwhile may be seen with the
    // pages that replaced it, so each entry is taken once.
    std::set<std::tuple<std::string, std::string, std::string>> seen;
    for (const std::string& label : labels) {
      for (EdgeRef& ref : pages[id][label]) {
        if (!seen.emplace(ref.type, ref.target, ref.rank).second) continue;
        n->second.edge_set.push_back(std::move(ref));
      }
    }
  }
  std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) {
    return std::tie(a.source, a.type, a.target) < std::tie(b.source, b.type, b.target);
  });
  // An end without a node item (an edge written with require_nodes = false)
  // is drawn as a node without attributes, unless the node limit was reached.
  std::set<std::string> stubs;
  for (Edge& e : edges) {
    out.edge_types.insert(e.type);
    bool kept = true;
    for (const std::string* end : {&e.source, &e.target}) {
      if (nodes.count(*end) || stubs.count(*end)) continue;
      if (static_cast<int64_t>(nodes.size() + stubs.size()) >= max_nodes) {
        out.truncated = true;
        kept = false;
      } else {
        stubs.insert(*end);
      }
    }
    if (!kept) continue;
    NeighbourhoodEdge ne;
    auto src = nodes.find(e.source);
    ne.in_edge_set = src != nodes.end() && InEdgeSet(s, src->second, e);
    ne.edge = std::move(e);
    out.edges.push_back(std::move(ne));
  }
  for (const std::string& id : stubs) out.nodes.push_back({id, 0, std::nullopt});
  for (auto& [id, n] : nodes) out.nodes.push_back({id, 0, std::move(n)});
  std::sort(out.nodes.begin(), out.nodes.end(),
            [](const NeighbourhoodNode& a, const NeighbourhoodNode& b) { return a.id < b.id; });
  return out;
}

StatusOr<DetectedSchema> DetectSchema(client::Client* client, const std::string& table,
                                      int64_t sample_items) {
  DetectedSchema d;
  d.schema.table_name = table;
  DescribeTableRequest dreq;
  dreq.table_name = table;
  DR_ASSIGN_OR_RETURN(DescribeTableResponse desc, client->DescribeTable(dreq));
  const TableDescription& t = desc.table;
  std::string pk, sk;
  for (const KeySchemaElement& k : t.key_schema) {
    (k.key_type == KeyType::kHash ? pk : sk) = k.attribute_name;
  }
  auto type_of = [&](const std::string& name) {
    for (const AttributeDefinition& a : t.attribute_definitions)
      if (a.attribute_name == name) return a.attribute_type;
    return AttrType::kNull;
  };
  if (t.key_schema.size() != 2 || sk.empty() || type_of(pk) != AttrType::kS ||
      type_of(sk) != AttrType::kS) {
    d.reason = "The graph layer's tables have a string partition key and a string sort key";
    return d;
  }
  d.schema.pk_attribute = pk;
  d.schema.sk_attribute = sk;
  const IndexDescription* inverted = nullptr;
  for (const IndexDescription& g : t.global_secondary_indexes) {
    if (g.key_schema.size() == 2 && g.key_schema[0].key_type == KeyType::kHash &&
        g.key_schema[0].attribute_name == sk) {
      inverted = &g;
      break;
    }
  }
  if (inverted == nullptr) {
    d.reason = "No global secondary index is keyed on the sort key " + sk +
               " (the graph layer's inverted index, which finds incoming edges)";
    return d;
  }
  d.schema.inverted_index = inverted->index_name;
  d.schema.rank_attribute = inverted->key_schema[1].attribute_name;

  // Node items (partition key = sort key) say the separator and which String
  // Sets are the edge set (entries "TYPE<sep>target") and the incoming types.
  ScanRequest scan;
  scan.table_name = table;
  scan.limit = sample_items;
  DR_ASSIGN_OR_RETURN(ScanResponse page, client->Scan(scan));
  std::map<std::string, int> set_with_sep, set_without_sep;
  std::vector<const Item*> edge_items;
  bool separator_found = false;
  for (const Item& item : page.items) {
    auto p = item.find(pk);
    auto s = item.find(sk);
    if (p == item.end() || s == item.end() || !p->second.is(AttrType::kS)) continue;
    if (!(p->second == s->second)) {
      edge_items.push_back(&item);
      continue;
    }
    const std::string& id = p->second.scalar();
    if (!separator_found) {
      d.schema.separator = Separator(id);
      separator_found = true;
    }
    if (d.sample_nodes.size() < 50) d.sample_nodes.push_back(id);
    for (const auto& [name, value] : item) {
      if (!value.is(AttrType::kSS) || value.set().empty()) continue;
      // Edge page labels ("0110"): a spilled set's list, neither set sought.
      const bool labels = std::all_of(value.set().begin(), value.set().end(), [](const std::string& e) {
        return e.find_first_not_of("01") == std::string::npos;
      });
      if (labels) continue;
      const bool all_sep = std::all_of(value.set().begin(), value.set().end(), [&](const std::string& e) {
        return e.find(d.schema.separator) != std::string::npos;
      });
      ++(all_sep ? set_with_sep : set_without_sep)[name];
    }
  }
  auto most = [](const std::map<std::string, int>& counts, const std::string& fallback) {
    std::string best = fallback;
    int n = 0;
    for (const auto& [name, c] : counts) {
      if (c > n) best = name, n = c;
    }
    return best;
  };
  d.schema.edge_set_attribute = most(set_with_sep, d.schema.edge_set_attribute);
  set_without_sep.erase(d.schema.edge_set_attribute);
  d.schema.incoming_types_attribute = most(set_without_sep, d.schema.incoming_types_attribute);
  // Edge types whose rank is not the source id have a rank function the
  // table does not record: marked ranked (by the stored rank), so that their
  // edge-set entries ("target|rank") read as target and rank.
  if (separator_found) {
    for (const Item* item : edge_items) {
      auto r = item->find(d.schema.rank_attribute);
      std::string type, target;
      if (r == item->end() || !r->second.is(AttrType::kS) ||
          r->second.scalar() == item->at(pk).scalar() ||
          !d.schema.SplitEdgeSortKey(item->at(sk).scalar(), &type, &target) ||
          d.schema.HasRank(type) || !d.schema.ValidateEdgeType(type).ok()) {
        continue;
      }
      d.schema.RankByAttribute(type, d.schema.rank_attribute);
    }
  }
  return d;
}

}  // namespace dynarock::graph
