// File: tests/crash/crash_graph.cc
//
// The graph writes of the kill -9 crash test and their verifier; see crash_graph.h.
// Support code, not a test: its checks report problems that `crash_writer
// verify` turns into exit 1. The test that pins them (they must be able to
// fail) is test_crash_recovery.py's test_verify_reports_a_torn_graph_edit.

#include "tests/crash/crash_graph.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "client/embedded_client.h"

namespace crash {
namespace {

using dynarock::AttrType;
using dynarock::DB;
using dynarock::Status;
namespace graph = dynarock::graph;
namespace client = dynarock::client;

constexpr int kNodes = 12;
const char* const kDirectTypes[] = {"LINK", "RATED", "FOLLOWS", "SEES"};
const char* const kUnrankedTypes[] = {"LINK", "FOLLOWS", "SEES"};
const char* const kAllTypes[] = {"LINK", "RATED", "FOLLOWS", "FOLLOWED_BY", "SEES"};

std::string NodeId(int i) { return "N#" + std::to_string(i); }

// Model keys: one per node, one per possible edge.
std::string VKey(const std::string& node) { return "node " + node; }
std::string EKey(const std::string& src, const std::string& type, const std::string& tgt) {
  return "edge " + src + " -" + type + "-> " + tgt;
}

// A graph write, as a pure function of its number.
struct GraphOp {
  Kind kind = Kind::kAddEdge;
  std::vector<graph::EdgeSpec> edges;  // AddEdge, AddEdges, RemoveEdge (no properties)
  std::string node;                    // PutNode, DeleteNode
  Item attributes;                     // PutNode
};

graph::EdgeSpec RandomEdge(Rng& r, int64_t n, bool ranked) {
  int a = static_cast<int>(r.Uniform(0, kNodes - 1));
  int b = static_cast<int>((a + 1 + r.Uniform(0, kNodes - 2)) % kNodes);
  std::string type = ranked ? kDirectTypes[r.Uniform(0, 3)] : kUnrankedTypes[r.Uniform(0, 2)];
  graph::EdgeSpec e{NodeId(a), type, NodeId(b), {}};
  e.properties["ver"] = N(n);
  e.properties["w"] = S(std::string(static_cast<size_t>(r.Uniform(1, 40)), 'w'));
  if (type == "RATED") e.properties["score"] = N(r.Uniform(1, 5));
  return e;
}

GraphOp GraphOpOf(int64_t n) {
  Rng r(static_cast<uint64_t>(n) ^ 0x6a6aULL);
  GraphOp op;
  op.kind = KindOf(n);
  switch (op.kind) {
    case Kind::kAddEdge:
      op.edges = {RandomEdge(r, n, true)};
      break;
    case Kind::kRemoveEdge: {
      graph::EdgeSpec e = RandomEdge(r, n, true);
      e.properties.clear();
      op.edges = {e};
      break;
    }
    case Kind::kAddEdges: {
      // Distinct unranked edges: no rank-change path, no item twice, so the
      // graph layer writes them in one transaction (DoGraphWrite checks).
      size_t k = static_cast<size_t>(r.Uniform(2, 4));
      std::set<std::string> keys;
      while (op.edges.size() < k) {
        graph::EdgeSpec e = RandomEdge(r, n, false);
        if (keys.insert(EKey(e.source, e.type, e.target)).second) op.edges.push_back(e);
      }
      break;
    }
    case Kind::kPutNode:
      op.node = NodeId(static_cast<int>(r.Uniform(0, kNodes - 1)));
      op.attributes["color"] = S("c" + std::to_string(n));
      break;
    case Kind::kDeleteNode:
      op.node = NodeId(static_cast<int>(r.Uniform(0, kNodes - 1)));
      break;
    default:
      break;
  }
  return op;
}

// ---------------------------------------------------------------- the model

using State = std::optional<Item>;  // nullopt: absent

// What a write does to one key: set it (to a state), or create a stub node
// (no attributes) when absent.
struct Effect {
  std::string key;
  bool stub_if_absent = false;
  State value;
};

std::vector<Effect> EffectsOf(const GraphOp& op, const graph::Schema& schema) {
  std::vector<Effect> out;
  switch (op.kind) {
    case Kind::kAddEdge:
    case Kind::kAddEdges:
      for (const auto& e : op.edges) {
        out.push_back({EKey(e.source, e.type, e.target), false, e.properties});
        std::string rtype = schema.ReverseType(e.type);
        if (!rtype.empty()) out.push_back({EKey(e.target, rtype, e.source), false, e.properties});
        // The source becomes a stub through its edge-set entry; a type opted out
        // of the edge set does not touch its source, so such an edge may exist
        // without its source node (docs/graph.md, "Incoming types").
        if (schema.InEdgeSet(e.type) || !rtype.empty()) out.push_back({VKey(e.source), true, {}});
        out.push_back({VKey(e.target), true, {}});
      }
      break;
    case Kind::kRemoveEdge:
      for (const auto& e : op.edges) {
        out.push_back({EKey(e.source, e.type, e.target), false, std::nullopt});
        std::string rtype = schema.ReverseType(e.type);
        if (!rtype.empty()) out.push_back({EKey(e.target, rtype, e.source), false, std::nullopt});
      }
      break;
    case Kind::kPutNode:
      out.push_back({VKey(op.node), false, op.attributes});
      break;
    case Kind::kDeleteNode:
      for (int i = 0; i < kNodes; ++i) {
        if (NodeId(i) == op.node) continue;
        for (const char* t : kAllTypes) {
          out.push_back({EKey(op.node, t, NodeId(i)), false, std::nullopt});
          out.push_back({EKey(NodeId(i), t, op.node), false, std::nullopt});
        }
      }
      out.push_back({VKey(op.node), false, std::nullopt});
      break;
    default:
      break;
  }
  return out;
}

State Apply(const Effect& e, const State& s) {
  if (e.stub_if_absent) return s ? s : State(Item{});
  return e.value;
}

void AddState(std::vector<State>* v, const State& s) {
  if (std::find(v->begin(), v->end(), s) == v->end()) v->push_back(s);
}

std::string Show(const State& s) { return s ? dynarock::DebugString(*s) : "absent"; }

std::string ShowAll(const std::vector<State>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : " | ") + Show(s);
  return out;
}

bool Contains(const std::vector<State>& v, const State& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// ---------------------------------------------------------------- reading

std::vector<Item> ScanTable(DB* db, Problems* p) {
  std::vector<Item> out;
  dynarock::ScanRequest s;
  s.table_name = kGraphTable;
  s.consistent_read = true;
  while (true) {
    auto r = db->Scan(s);
    if (!r.ok()) {
      p->Add("graph: Scan: " + r.status().ToString());
      return out;
    }
    for (auto& it : r->items) out.push_back(std::move(it));
    if (!r->last_evaluated_key) break;
    s.exclusive_start_key = r->last_evaluated_key;
  }
  return out;
}

std::set<std::string> StringSet(const Item& item, const std::string& name) {
  auto it = item.find(name);
  if (it == item.end() || !it->second.is(AttrType::kSS)) return {};
  return {it->second.set().begin(), it->second.set().end()};
}

}  // namespace

graph::Schema GraphSchema() {
  graph::Schema s;
  s.table_name = kGraphTable;
  s.RankByAttribute("RATED", "score");
  s.Reverse("FOLLOWS", "FOLLOWED_BY");
  s.OptOutOfEdgeSet("SEES");
  return s;
}

Status EnsureGraph(DB* db, graph::Graph* g) {
  dynarock::CreateTableRequest c = graph::MakeCreateTableRequest(g->schema());
  c.stream_specification = dynarock::StreamSpecification{true, "NEW_AND_OLD_IMAGES"};
  auto r = db->CreateTable(c);
  if (!r.ok() && r.status().type() != dynarock::ErrorType::kResourceInUse) return r.status();
  return g->EnsureTable();  // waits until ACTIVE, checks the keys and the index
}

Status DoGraphWrite(graph::Graph* g, int64_t n) {
  GraphOp op = GraphOpOf(n);
  graph::AddEdgeOptions add;
  add.require_nodes = false;
  switch (op.kind) {
    case Kind::kAddEdge:
      return g->AddEdge(op.edges[0], add);
    case Kind::kAddEdges: {
      auto r = g->AddEdges(op.edges, add);
      if (!r.ok()) return r.status();
      if (r->transactions != 1) {
        // The verifier takes an AddEdges as atomic: say so when it was not.
        return Status(dynarock::ErrorType::kInternalServerError,
                      "AddEdges took " + std::to_string(r->transactions) + " transactions");
      }
      return Status::Ok();
    }
    case Kind::kRemoveEdge:
      return g->RemoveEdge(op.edges[0].source, op.edges[0].type, op.edges[0].target);
    case Kind::kPutNode:
      return g->PutNode(op.node, op.attributes);
    case Kind::kDeleteNode:
      for (int calls = 0; calls < 100; ++calls) {
        auto r = g->DeleteNode(op.node);
        if (!r.ok()) return r.status();
        if (r->done) return Status::Ok();
      }
      return Status(dynarock::ErrorType::kInternalServerError, "DeleteNode not done after 100 calls");
    default:
      return Status(dynarock::ErrorType::kInternalServerError, "not a graph write");
  }
}

Status TearOneEdge(DB* db, std::string* which) {
  const graph::Schema schema = GraphSchema();
  client::EmbeddedClient client(db);
  graph::Graph g(&client, schema);
  Problems p;
  for (const Item& item : ScanTable(db, &p)) {
    graph::Edge e = g.ToEdge(item);
    if (e.type != "LINK") continue;
    dynarock::DeleteItemRequest del;
    del.table_name = kGraphTable;
    del.key = schema.EdgeKey(e.source, e.type, e.target);
    *which = EKey(e.source, e.type, e.target);
    return db->DeleteItem(del).status();
  }
  return Status(dynarock::ErrorType::kResourceNotFound, "no LINK edge to delete");
}

std::string VerifyGraph(DB* db, const History& history, bool trimmed, Problems* p) {
  const graph::Schema schema = GraphSchema();
  client::EmbeddedClient client(db);
  graph::Graph g(&client, schema);

  bool any_acked = false;
  for (int64_t n : history.acked) any_acked |= IsGraphWrite(KindOf(n));
  dynarock::DescribeTableRequest d;
  d.table_name = kGraphTable;
  if (!db->DescribeTable(d).ok()) {
    if (any_acked) p->Add("graph: table missing after acknowledged graph writes");
    return "no graph table";
  }

  // The table as it is: nodes and edges.
  std::map<std::string, Item> raw_nodes;               // id -> item
  std::map<std::string, graph::Edge> edges;            // EKey -> edge
  std::map<std::string, Item> by_stream_key;           // "PK|SK" -> item
  std::map<std::string, std::map<std::string, std::set<std::string>>> pages;  // node -> label -> entries
  for (Item& item : ScanTable(db, p)) {
    const std::string pk = item.at(schema.pk_attribute).scalar();
    const std::string sk = item.at(schema.sk_attribute).scalar();
    by_stream_key[pk + "|" + sk] = item;
    if (pk == sk) {
      raw_nodes[pk] = std::move(item);
    } else if (schema.IsEdgePageSortKey(sk)) {  // a spilled edge set's page
      pages[pk][sk.substr(schema.EdgePageSortKey("").size())] =
          StringSet(item, schema.edge_set_attribute);
    } else {
      graph::Edge e = g.ToEdge(item);
      edges[EKey(e.source, e.type, e.target)] = std::move(e);
    }
  }

  // Nodes whose DeleteNode was interrupted and not resumed: their edge sets may
  // name edges already deleted.
  std::set<std::string> dying;
  for (int64_t n : history.in_flight) {
    if (KindOf(n) == Kind::kDeleteNode) dying.insert(GraphOpOf(n).node);
  }

  // ---- Invariants of the graph layer.
  std::map<std::string, std::set<std::string>> want_sets;  // node -> entries its edges imply
  for (const auto& [key, e] : edges) {
    std::string rank = schema.Rank(e.type, e.source, e.properties);
    if (e.rank != rank) p->Add("graph: " + key + " has rank '" + e.rank + "', not '" + rank + "'");
    if (schema.InEdgeSet(e.type)) {
      want_sets[e.source].insert(schema.EdgeSetEntry(e.type, e.target, e.rank));
      if (!raw_nodes.count(e.source)) p->Add("graph: " + key + " without its source node");
    }
    auto target = raw_nodes.find(e.target);
    if (target == raw_nodes.end()) {
      p->Add("graph: " + key + " without its target node");
    } else if (!StringSet(target->second, schema.incoming_types_attribute).count(e.type)) {
      p->Add("graph: " + key + ": its target's incoming types lack " + e.type);
    }
    std::string rtype = schema.ReverseType(e.type);
    if (!rtype.empty()) {
      auto rev = edges.find(EKey(e.target, rtype, e.source));
      if (rev == edges.end()) {
        p->Add("graph: " + key + " without its reverse edge");
      } else if (!(rev->second.properties == e.properties)) {
        p->Add("graph: " + key + " and its reverse edge differ");
      }
    }
  }
  int64_t entries = 0;
  for (const auto& [id, item] : raw_nodes) {
    std::set<std::string> have = StringSet(item, schema.edge_set_attribute);
    for (const std::string& label : StringSet(item, schema.edge_pages_attribute)) {
      auto page = pages[id].find(label);
      if (page == pages[id].end()) {
        p->Add("graph: node " + id + " lists edge page " + label + ", which is not there");
        continue;
      }
      have.insert(page->second.begin(), page->second.end());
    }
    entries += static_cast<int64_t>(have.size());
    const std::set<std::string>& want = want_sets[id];
    for (const auto& e : want) {
      if (!have.count(e)) p->Add("graph: node " + id + "'s edge set lacks " + e);
    }
    for (const auto& e : have) {
      if (!want.count(e) && !dying.count(id)) {
        p->Add("graph: node " + id + "'s edge set names " + e + ", which is not there");
      }
    }
    // The layer's own check must agree.
    auto report = g.VerifyEdgeSet(id);
    if (!report.ok()) {
      p->Add("graph: VerifyEdgeSet(" + id + "): " + report.status().ToString());
    } else if (!report->ok() && !(dying.count(id) && report->missing.empty())) {
      p->Add("graph: VerifyEdgeSet(" + id + ") finds " + std::to_string(report->missing.size()) +
             " missing and " + std::to_string(report->stale.size()) + " stale entries");
    }
  }

  // ---- The model of acknowledged writes.
  int64_t acked_graph = 0, in_flight_graph = 0;
  if (history.given) {
    std::map<std::string, std::vector<State>> cands;  // key -> states it may be in
    std::map<std::string, int64_t> last_touch;         // key -> last write touching it
    struct Atomic {
      int64_t n;
      std::map<std::string, std::pair<std::vector<State>, std::vector<State>>> keys;  // before, after
    };
    std::vector<Atomic> atomic;
    for (auto [n, acked] : history.Ordered()) {
      Kind kind = KindOf(n);
      if (!IsGraphWrite(kind)) continue;
      (acked ? acked_graph : in_flight_graph)++;
      GraphOp op = GraphOpOf(n);
      bool is_atomic = !acked && kind != Kind::kDeleteNode && kind != Kind::kPutNode;
      if (is_atomic) atomic.push_back({n, {}});
      // Effects on one key apply in order; an in-flight write's effects on a key
      // are all applied or none (a DeleteNode's per key, too).
      std::map<std::string, std::vector<const Effect*>> per_key;
      std::vector<Effect> effects = EffectsOf(op, schema);
      for (const Effect& e : effects) per_key[e.key].push_back(&e);
      for (const auto& [key, list] : per_key) {
        auto [it, fresh] = cands.try_emplace(key, std::vector<State>{std::nullopt});
        std::vector<State> after;
        for (const State& s : it->second) {
          State t = s;
          for (const Effect* e : list) t = Apply(*e, t);
          AddState(&after, t);
        }
        if (is_atomic && key.rfind("edge ", 0) == 0) atomic.back().keys[key] = {it->second, after};
        if (acked) {
          it->second = after;
        } else {
          for (const State& s : after) AddState(&it->second, s);
        }
        last_touch[key] = n;
      }
    }
    auto actual_of = [&](const std::string& key) -> State {
      if (key.rfind("node ", 0) == 0) {
        auto f = raw_nodes.find(key.substr(5));
        if (f == raw_nodes.end()) return std::nullopt;
        return g.ToNode(f->second).attributes;
      }
      auto f = edges.find(key);
      if (f == edges.end()) return std::nullopt;
      return f->second.properties;
    };
    std::set<std::string> universe;
    for (int i = 0; i < kNodes; ++i) {
      universe.insert(VKey(NodeId(i)));
      for (int j = 0; j < kNodes; ++j) {
        if (i == j) continue;
        for (const char* t : kAllTypes) universe.insert(EKey(NodeId(i), t, NodeId(j)));
      }
    }
    for (const auto& [key, e] : edges) {
      if (!universe.count(key)) p->Add("graph: " + key + " was never written");
    }
    for (const auto& [id, item] : raw_nodes) {
      if (!universe.count(VKey(id))) p->Add("graph: node " + id + " was never written");
    }
    for (const std::string& key : universe) {
      State actual = actual_of(key);
      auto f = cands.find(key);
      std::vector<State> allowed = f == cands.end() ? std::vector<State>{std::nullopt} : f->second;
      if (!Contains(allowed, actual)) {
        p->Add("graph: " + key + " is " + Show(actual) + "; the acknowledged writes allow " +
               ShowAll(allowed));
      }
    }
    // An in-flight atomic write is all there or not at all, on the edges that
    // no later write touched.
    for (const Atomic& a : atomic) {
      bool all_after = true, all_before = true;
      int keys = 0;
      for (const auto& [key, ba] : a.keys) {
        if (last_touch[key] != a.n) continue;
        keys++;
        State actual = actual_of(key);
        all_before &= Contains(ba.first, actual);
        all_after &= Contains(ba.second, actual);
      }
      if (keys > 0 && !all_before && !all_after) {
        p->Add("graph: write " + std::to_string(a.n) + " (in flight at a kill) is torn: " +
               "applied to some of its edges only");
      }
    }
  }

  // ---- The stream.
  StreamSummary stream = CheckStream(
      db, kGraphTable,
      [&](const Item& keys) {
        return keys.at(schema.pk_attribute).scalar() + "|" + keys.at(schema.sk_attribute).scalar();
      },
      by_stream_key, trimmed, [](const std::string&) { return false; }, p);

  return "graph: " + std::to_string(raw_nodes.size()) + " nodes, " + std::to_string(edges.size()) +
         " edges, " + std::to_string(entries) + " edge-set entries, " +
         std::to_string(stream.records) + " stream records; " + std::to_string(acked_graph) +
         " acknowledged graph writes" +
         (dying.empty() ? "" : ", " + std::to_string(dying.size()) + " node(s) mid-DeleteNode");
}

}  // namespace crash
