// File: graph/traversal.cc
//
// Reads over many nodes: edge-set expansion (seed 001), traversals users
// compose (steps, pushed-down edge filters, key and validity conditions, node
// filters, pages with cursors, each step's plan and cost) and mutual
// neighbours.

#include <algorithm>
#include <cstdio>
#include <set>

#include "engine/api/base64.h"
#include "engine/api/json_encode.h"
#include "engine/coding.h"
#include "engine/expr/expression.h"
#include "graph/graph.h"
#include "graph/graph_internal.h"

namespace dynarock::graph {

StatusOr<Expansion> Graph::Expand(const ExpandRequest& request) {
  Expansion out;
  // 1. The edges pointing at the node, through the inverted index.
  EdgeQuery q;
  q.key = request.rank;
  q.limit = request.limit;
  q.page_token = request.page_token;
  DR_ASSIGN_OR_RETURN(EdgePage page, InEdges(request.node, request.edge_type, q));
  out.next_page_token = page.next_page_token;
  std::vector<std::string> root_ids;
  for (const Edge& e : page.edges) root_ids.push_back(e.source);

  // 2. One batch get of the roots.
  DR_ASSIGN_OR_RETURN(std::vector<std::optional<Node>> roots, GetNodes(root_ids));

  // 3. One batch get of the neighbours their edge sets name.
  std::set<std::string> wanted_types(request.expand_types.begin(), request.expand_types.end());
  std::vector<std::string> neighbour_ids;
  for (auto& r : roots) {
    if (!r) continue;
    std::vector<EdgeRef>& refs = out.refs[r->id];
    for (const EdgeRef& ref : r->edge_set) {
      if (!wanted_types.empty() && !wanted_types.count(ref.type)) continue;
      if (request.expand_filter && !request.expand_filter(ref)) continue;
      refs.push_back(ref);
      neighbour_ids.push_back(ref.target);
    }
    out.roots.push_back(std::move(*r));
  }
  if (!request.read_neighbours) return out;
  std::sort(neighbour_ids.begin(), neighbour_ids.end());
  neighbour_ids.erase(std::unique(neighbour_ids.begin(), neighbour_ids.end()),
                      neighbour_ids.end());
  DR_ASSIGN_OR_RETURN(std::vector<std::optional<Node>> neighbours,
                      GetNodesWith(neighbour_ids, request.neighbour_attributes));
  for (auto& n : neighbours) {
    if (n) out.neighbours.emplace(n->id, std::move(*n));
  }
  return out;
}

StatusOr<std::vector<std::string>> Graph::OutNeighbourIds(const std::string& node,
                                                          const std::vector<std::string>& types,
                                                          const Hop& hop,
                                                          std::map<std::string, Node>* cache) {
  std::vector<std::string> out;
  const int64_t cap = hop.fan_out;
  auto full = [&]() { return cap > 0 && static_cast<int64_t>(out.size()) >= cap; };
  const std::optional<Filter> filter =
      hop.valid_at ? std::optional<Filter>(internal::WithValidAt(schema_, hop.filter, *hop.valid_at))
                   : hop.filter;
  if (hop.direction == Direction::kOut && types.empty()) {
    EdgeQuery q;
    q.filter = filter;
    q.limit = cap;
    DR_ASSIGN_OR_RETURN(EdgePage p, OutEdges(node, "", q));
    for (const Edge& e : p.edges) out.push_back(e.target);
    return out;
  }
  for (const std::string& type : types) {
    if (full()) break;
    EdgeQuery q;
    q.filter = filter;
    q.key = hop.key;
    if (cap > 0) q.limit = cap - static_cast<int64_t>(out.size());
    if (hop.direction == Direction::kOut) {
      DR_ASSIGN_OR_RETURN(EdgePage p, OutEdges(node, type, q));
      for (const Edge& e : p.edges) out.push_back(e.target);
    } else {
      DR_ASSIGN_OR_RETURN(EdgePage p, InEdges(node, type, q));
      for (const Edge& e : p.edges) out.push_back(e.source);
    }
  }
  (void)cache;
  return out;
}

namespace {

void AppendFilter(std::string* out, const std::optional<Filter>& f) {
  if (!f) {
    out->append("-");
    return;
  }
  out->append(f->expression).append("|");
  for (const auto& [k, v] : f->names) out->append(k).append("=").append(v).append(",");
  Item values(f->values.begin(), f->values.end());
  out->append(api::EncodeItemJson(values));
}

// Everything that decides a traversal's answer (not its page size or cursor).
std::string Signature(const TraversalRequest& r) {
  std::string s = "v1";
  for (const std::string& id : r.start) s.append("\x1f").append(id);
  for (const Hop& h : r.hops) {
    s.append("\x1e").append(h.direction == Direction::kOut ? "out" : "in");
    for (const std::string& t : h.edge_types) s.append(",").append(t);
    s.append("\x1f");
    AppendFilter(&s, h.filter);
    s.append("\x1f");
    if (h.key) {
      s.append(std::to_string(static_cast<int>(h.key->op))).append(":").append(h.key->value);
      s.append(":").append(h.key->value2);
    }
    s.append("\x1f").append(h.valid_at ? std::to_string(*h.valid_at) : "-");
    s.append("\x1f");
    AppendFilter(&s, h.node_filter);
    s.append("\x1f").append(std::to_string(h.fan_out)).append(h.use_edge_sets ? "s" : "q");
  }
  s.append("\x1e").append(std::to_string(r.max_visited));
  return s;
}

std::string Hex(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string EncodeCursor(uint64_t fingerprint, size_t offset) {
  return api::Base64Encode("trv1:" + Hex(fingerprint) + ":" + std::to_string(offset));
}

StatusOr<size_t> DecodeCursor(const std::string& cursor, uint64_t fingerprint) {
  const Status refused = ValidationError(
      "graph: the cursor does not belong to this traversal (a cursor continues the traversal "
      "that returned it, with the same start nodes and steps)");
  std::string text, error;
  if (!api::Base64Decode(cursor, &text, &error)) return refused;
  const std::string prefix = "trv1:" + Hex(fingerprint) + ":";
  if (text.compare(0, prefix.size(), prefix) != 0 || text.size() == prefix.size()) return refused;
  size_t offset = 0;
  for (size_t i = prefix.size(); i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9' || offset > (size_t{1} << 40)) return refused;
    offset = offset * 10 + static_cast<size_t>(text[i] - '0');
  }
  return offset;
}

// A node filter, parsed once (its errors before any request).
struct NodePredicate {
  expr::ConditionPtr condition;
};

StatusOr<NodePredicate> ParseNodeFilter(const Filter& f, const char* what) {
  ValueMap values = f.values;
  expr::ExpressionContext ctx(&f.names, &values, !f.names.empty(), !f.values.empty());
  auto fail = [&](const Status& s) {
    return Status(s.type(), std::string("graph: the ") + what + " is not valid: " + s.message());
  };
  if (Status s = ctx.ValidateMaps(); !s.ok()) return fail(s);
  if (Status s = expr::CheckExpressionText(f.expression, expr::ExpressionKind::kFilter); !s.ok()) {
    return fail(s);
  }
  auto c = expr::ParseCondition(f.expression, expr::ExpressionKind::kFilter, &ctx);
  if (!c.ok()) return fail(c.status());
  if (Status s = ctx.CheckAllUsed(); !s.ok()) return fail(s);
  return NodePredicate{std::move(c).value()};
}

std::string Join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (const std::string& x : v) out += (out.empty() ? "" : sep) + x;
  return out;
}

const char* KeyOpText(KeyOp op) {
  switch (op) {
    case KeyOp::kEq: return "=";
    case KeyOp::kLt: return "<";
    case KeyOp::kLe: return "<=";
    case KeyOp::kGt: return ">";
    case KeyOp::kGe: return ">=";
    case KeyOp::kBetween: return "BETWEEN";
    case KeyOp::kBeginsWith: return "begins_with";
  }
  return "?";
}

}  // namespace

StatusOr<TraversalResult> Graph::Traverse(const TraversalRequest& request) {
  // Everything the request says is checked before any request is sent.
  if (request.start.empty()) return ValidationError("graph: a traversal needs start nodes");
  for (const std::string& id : request.start) DR_RETURN_IF_ERROR(schema_.ValidateNodeId(id));
  if (request.limit < 0) return ValidationError("graph: a traversal's limit must be 0 (all) or more");
  if (request.max_visited < 1) return ValidationError("graph: a traversal's max_visited must be 1 or more");
  std::vector<std::optional<NodePredicate>> node_filters;
  for (size_t k = 0; k < request.hops.size(); ++k) {
    const Hop& hop = request.hops[k];
    const std::string step = "graph: step " + std::to_string(k + 1) + ": ";
    if (hop.direction == Direction::kIn && hop.edge_types.empty()) {
      return ValidationError(step + "an incoming step needs its edge types");
    }
    for (const std::string& t : hop.edge_types) DR_RETURN_IF_ERROR(schema_.ValidateEdgeType(t));
    if (hop.key && hop.edge_types.size() != 1) {
      return ValidationError(step + "a key condition applies to one edge type");
    }
    if (hop.fan_out < 0) return ValidationError(step + "fan_out must be 0 (all) or more");
    if (hop.filter) DR_RETURN_IF_ERROR(ParseNodeFilter(*hop.filter, "edge filter").status());
    node_filters.emplace_back();
    if (hop.node_filter) {
      DR_ASSIGN_OR_RETURN(NodePredicate p, ParseNodeFilter(*hop.node_filter, "node filter"));
      node_filters.back() = std::move(p);
    }
  }
  const uint64_t fingerprint = Fnv1a64(Signature(request));  // in its cursors
  size_t offset = 0;
  if (!request.cursor.empty()) {
    DR_ASSIGN_OR_RETURN(offset, DecodeCursor(request.cursor, fingerprint));
  }

  TraversalResult result;
  // A step's figures: the Graph's counters over it.
  GraphStats mark = stats();
  auto close_step = [&](TraversalStep st) {
    const GraphStats now = stats();
    st.requests = now.requests - mark.requests;
    st.items_read = now.items_read - mark.items_read;
    st.read_units = now.read_units - mark.read_units;
    mark = now;
    result.steps.push_back(std::move(st));
  };

  std::set<std::string> visited;
  std::vector<std::string> frontier;
  for (const std::string& s : request.start) {
    if (visited.insert(s).second) frontier.push_back(s);
  }
  {
    // The start nodes must exist: a traversal from a node that is not there
    // is a mistake (a typo), not an empty answer.
    DR_ASSIGN_OR_RETURN(std::vector<std::optional<Node>> there,
                        GetNodesWith(frontier, {schema_.pk_attribute}));
    for (size_t i = 0; i < frontier.size(); ++i) {
      if (!there[i]) {
        return Status(ErrorType::kResourceNotFound,
                      "graph: the start node " + frontier[i] + " does not exist in " + schema_.table_name);
      }
    }
    TraversalStep st;
    st.plan = "BatchGetItem " + schema_.table_name + " of the " + std::to_string(frontier.size()) +
              " start node(s), keys only: they must exist";
    st.frontier = static_cast<int64_t>(frontier.size());
    close_step(std::move(st));
  }
  result.levels.push_back(frontier);
  // Edge sets read for hops through them: node -> its set (the raw entries,
  // sorted; an absent node or set is an empty one).
  std::map<std::string, AttributeValue> sets;

  for (size_t k = 0; k < request.hops.size(); ++k) {
    const Hop& hop = request.hops[k];
    TraversalStep st;
    st.frontier = static_cast<int64_t>(frontier.size());
    bool from_sets = hop.use_edge_sets && hop.direction == Direction::kOut && !hop.filter &&
                     !hop.key && !hop.valid_at && !hop.edge_types.empty();
    for (const std::string& t : hop.edge_types) from_sets = from_sets && schema_.InEdgeSet(t);
    std::set<std::string> types(hop.edge_types.begin(), hop.edge_types.end());
    const std::string type_list = hop.edge_types.empty() ? "every type" : Join(hop.edge_types, ", ");
    if (from_sets) {
      st.plan = "BatchGetItem " + schema_.table_name + " of the frontier's nodes, projected to " +
                schema_.edge_set_attribute + " (one request per 100 nodes); " + type_list +
                " from the edge sets";
    } else {
      std::string how = hop.direction == Direction::kOut
                            ? "Query " + schema_.table_name + " per node and type: " +
                                  schema_.pk_attribute + " = node" +
                                  (hop.edge_types.empty() ? "" : " AND begins_with(" + schema_.sk_attribute + ", type)")
                            : "Query " + schema_.table_name + " index " + schema_.inverted_index +
                                  " per node and type: " + schema_.sk_attribute + " = type + node";
      if (hop.key) {
        how += std::string(" AND ") + (hop.direction == Direction::kOut ? schema_.sk_attribute : schema_.rank_attribute) +
               " " + KeyOpText(hop.key->op) + " " + hop.key->value +
               (hop.key->op == KeyOp::kBetween ? " AND " + hop.key->value2 : "");
      }
      std::string filter;
      if (hop.filter) filter = hop.filter->expression;
      if (hop.valid_at) {
        filter += (filter.empty() ? "" : " AND ") + std::string("valid at ") + std::to_string(*hop.valid_at);
      }
      if (!filter.empty()) how += "; FilterExpression: " + filter;
      st.plan = how + " (" + type_list + ")";
    }
    if (hop.fan_out > 0) st.plan += "; at most " + std::to_string(hop.fan_out) + " per node";
    if (frontier.empty() || result.truncated) {
      result.levels.emplace_back();
      close_step(std::move(st));
      continue;
    }

    std::vector<std::string> next;
    auto visit = [&](const std::string& id) -> bool {  // false: the limit is reached
      if (visited.count(id)) return true;
      if (static_cast<int64_t>(visited.size()) >= request.max_visited) {
        result.truncated = true;
        return false;
      }
      visited.insert(id);
      next.push_back(id);
      return true;
    };

    if (from_sets) {
      std::vector<std::string> to_read;
      for (const std::string& id : frontier) {
        if (!sets.count(id)) to_read.push_back(id);
      }
      // Only the edge sets are needed here (the nodes, when asked for, are
      // read whole at the end).
      DR_ASSIGN_OR_RETURN(auto items, BatchGetByPk(to_read, {schema_.edge_set_attribute}));
      for (const std::string& id : to_read) {
        AttributeValue& set = sets[id];
        auto item = items.find(id);
        if (item == items.end()) continue;
        auto es = item->second.find(schema_.edge_set_attribute);
        if (es != item->second.end() && es->second.is(AttrType::kSS)) set = std::move(es->second);
      }
      // The entries of one type are a contiguous range of the sorted set
      // (they all begin "TYPE#", and no other entry does); the ranges come in
      // the order of their prefixes. Only the entries taken are parsed.
      std::vector<std::pair<std::string, std::string>> prefixes;  // prefix, type
      for (const std::string& t : types) prefixes.emplace_back(schema_.EdgeSortKey(t, ""), t);
      std::sort(prefixes.begin(), prefixes.end());
      for (const std::string& id : frontier) {
        auto it = sets.find(id);
        if (it == sets.end() || !it->second.is(AttrType::kSS)) continue;
        const std::vector<std::string>& entries = it->second.set();
        int64_t taken = 0;
        bool full = false;
        for (const auto& [prefix, type] : prefixes) {
          const bool ranked = schema_.HasRank(type);
          for (auto e = std::lower_bound(entries.begin(), entries.end(), prefix);
               e != entries.end() && e->compare(0, prefix.size(), prefix) == 0; ++e) {
            if (hop.fan_out > 0 && taken >= hop.fan_out) {
              full = true;
              break;
            }
            ++taken;
            std::string target = e->substr(prefix.size());
            if (ranked) {
              EdgeRef ref;
              if (!schema_.ParseEdgeSetEntry(*e, &ref)) continue;
              target = std::move(ref.target);
            }
            if (!visit(target)) {
              full = true;
              break;
            }
          }
          if (full) break;
        }
        if (result.truncated) break;
      }
    } else {
      // One query (a page or a few) per frontier node, independent of each
      // other: up to max_concurrent_ in flight, visited in the frontier's
      // order, a round at a time so that max_visited stops the reading too.
      const size_t round = static_cast<size_t>(std::max(1, max_concurrent_));
      for (size_t from = 0; from < frontier.size() && !result.truncated; from += round) {
        const size_t n = std::min(round, frontier.size() - from);
        std::vector<std::vector<std::string>> found(n);
        DR_RETURN_IF_ERROR(internal::ParallelFor(n, max_concurrent_, [&](size_t i) -> Status {
          DR_ASSIGN_OR_RETURN(found[i], OutNeighbourIds(frontier[from + i], hop.edge_types, hop, nullptr));
          return Status::Ok();
        }));
        for (const std::vector<std::string>& ids : found) {
          for (const std::string& id : ids) {
            if (!visit(id)) break;
          }
          if (result.truncated) break;
        }
      }
    }
    if (node_filters[k] && !next.empty()) {
      // Read the reached nodes and keep those the condition holds for; the
      // others are forgotten (another step may reach and judge them again).
      st.plan += "; then BatchGetItem of the nodes reached, node filter " + hop.node_filter->expression +
                 " evaluated on them";
      std::vector<Item> keys;
      keys.reserve(next.size());
      for (const std::string& id : next) keys.push_back(schema_.NodeKey(id));
      std::map<std::string, Item> items;
      DR_RETURN_IF_ERROR(BatchGetEach(keys, /*consistent_read=*/false, [&](Item& item) {
        auto pk = item.find(schema_.pk_attribute);
        if (pk != item.end()) items.emplace(pk->second.scalar(), std::move(item));
      }));
      std::vector<Item*> spilled;  // a condition on the edge set sees all of it
      for (auto& [id, item] : items) {
        if (item.count(schema_.edge_pages_attribute)) spilled.push_back(&item);
      }
      DR_RETURN_IF_ERROR(MergeEdgePages(spilled, /*consistent_read=*/false));
      std::vector<std::string> kept;
      for (const std::string& id : next) {
        auto it = items.find(id);
        bool keep = false;
        if (it != items.end()) {
          DR_ASSIGN_OR_RETURN(keep, expr::EvaluateCondition(*node_filters[k]->condition, it->second));
        }
        if (keep) {
          kept.push_back(id);
        } else {
          visited.erase(id);
        }
      }
      next = std::move(kept);
    }
    st.reached = static_cast<int64_t>(next.size());
    close_step(std::move(st));
    result.levels.push_back(next);
    frontier = std::move(next);
  }

  // The results: the last level, a page at a time.
  const std::vector<std::string>& last = result.levels.back();
  if (offset > last.size()) offset = last.size();
  size_t end = request.limit > 0 ? std::min(last.size(), offset + static_cast<size_t>(request.limit))
                                 : last.size();
  result.results.assign(last.begin() + static_cast<long>(offset), last.begin() + static_cast<long>(end));
  if (end < last.size()) result.next_cursor = EncodeCursor(fingerprint, end);

  if (request.fetch_nodes) {
    std::vector<std::string> ids;
    for (const std::string& id : visited) ids.push_back(id);
    DR_ASSIGN_OR_RETURN(std::vector<std::optional<Node>> nodes, GetNodes(ids));
    for (auto& n : nodes) {
      if (n) result.nodes.emplace(n->id, std::move(*n));
    }
    TraversalStep st;
    st.plan = "BatchGetItem " + schema_.table_name + " of the " + std::to_string(ids.size()) +
              " nodes visited, whole";
    st.frontier = static_cast<int64_t>(ids.size());
    close_step(std::move(st));
  }
  return result;
}

StatusOr<std::vector<std::string>> Graph::MutualNeighbours(const std::string& a,
                                                           const std::string& b,
                                                           const std::string& type,
                                                           Direction direction) {
  std::set<std::string> na, nb;
  if (direction == Direction::kOut && schema_.InEdgeSet(type)) {
    DR_ASSIGN_OR_RETURN(std::vector<std::optional<Node>> nodes,
                        GetNodesWith({a, b}, {schema_.edge_set_attribute}));
    for (int i = 0; i < 2; ++i) {
      if (!nodes[i]) continue;
      for (const EdgeRef& ref : nodes[i]->edge_set) {
        if (ref.type == type) (i == 0 ? na : nb).insert(ref.target);
      }
    }
  } else {
    for (int i = 0; i < 2; ++i) {
      const std::string& n = i == 0 ? a : b;
      std::set<std::string>& into = i == 0 ? na : nb;
      if (direction == Direction::kOut) {
        DR_ASSIGN_OR_RETURN(std::vector<Edge> edges, AllOutEdges(n, type));
        for (const Edge& e : edges) into.insert(e.target);
      } else {
        DR_ASSIGN_OR_RETURN(std::vector<Edge> edges, AllInEdges(n, type));
        for (const Edge& e : edges) into.insert(e.source);
      }
    }
  }
  std::vector<std::string> out;
  std::set_intersection(na.begin(), na.end(), nb.begin(), nb.end(), std::back_inserter(out));
  return out;
}

}  // namespace dynarock::graph
