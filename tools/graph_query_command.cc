// File: tools/graph_query_command.cc
//
// `dynarock graph query neighbours|khop|path|common|degree|walk ... --table T
// (--data DIR | --endpoint URL) [--format table|json]`: the graph layer's
// questions from the command line (graph/explore.h, graph/paths.h,
// Graph::MutualNeighbours), on a table whose conventions are detected.

#include <charconv>
#include <cstdio>
#include <string>
#include <vector>

#include "engine/api/json_writer.h"
#include "graph/explore.h"
#include "graph/export.h"
#include "graph/paths.h"
#include "tools/command.h"
#include "tools/graph_client.h"

namespace dynarock::tools {
namespace {

constexpr char kQueryHelp[] =
    "Usage: dynarock graph query QUESTION ARGS --table T (--data DIR | --endpoint URL) [flags]\n"
    "\n"
    "Questions:\n"
    "  neighbours NODE        The nodes one edge away, with the edges\n"
    "  khop NODE              The nodes within --hops K, by distance\n"
    "  path FROM TO           A shortest path (fewest edges), by bidirectional search\n"
    "  common A B             The nodes both A and B have an edge of --type T to (or,\n"
    "                         with --direction in, from)\n"
    "  degree NODE            The node's edges, out and in, by type\n"
    "  walk NODE... --step DIR:TYPES ...\n"
    "                         A traversal of steps, each with its key condition,\n"
    "                         filters and validity time; pages and each step's plan\n"
    "                         and cost (`dynarock graph query walk --help`)\n"
    "\n"
    "Flags:\n"
    "  --table T              The graph table (required); its conventions are detected\n"
    "  --direction D          out, in or both (default: both; out for path, common)\n"
    "  --types A,B            Follow only these edge types (neighbours, khop, path)\n"
    "  --type T               The edge type (common; required)\n"
    "  --hops K               khop's distance, 1 to 10 (default 2)\n"
    "  --max-hops N           path's longest answer, 1 to 20 (default 6)\n"
    "  --format F             table (default) or json\n"
    "  --endpoint URL, --region R, --ca-file FILE, --data DIR   Where the graph is\n"
    "  -h, --help             Show this help\n";

std::string Padded(std::string s, size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

}  // namespace

int RunGraphQuery(const Args& args) {
  if (!args.empty() && args[0] == "walk") return RunGraphQueryWalk(Args(args.begin() + 1, args.end()));
  GraphPlace place;
  std::string question, table, direction, types, type, format = "table", v;
  std::vector<std::string> ids;
  int64_t hops = 2, max_hops = 6;
  ArgReader r(args);
  auto count = [&](std::string_view flag, int64_t lo, int64_t hi, int64_t* out) {
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), *out);
    if (ec == std::errc() && end == v.data() + v.size() && *out >= lo && *out <= hi) return kExitOk;
    return UsageError("graph query", std::string(flag) + " must be from " + std::to_string(lo) + " to " +
                                         std::to_string(hi) + ", not '" + v + "'");
  };
  while (r.Next()) {
    const std::string_view flag = r.flag();
    int rc = kExitOk;
    auto need = [&](std::string* into) {
      if (r.Value(into) && !into->empty()) return true;
      rc = UsageError("graph query", std::string(flag) + " needs a value");
      return false;
    };
    if (place.Take(r, "graph query", &rc)) {
      if (rc != kExitOk) return rc;
    } else if (flag == "--help" || flag == "-h") {
      std::fputs(kQueryHelp, stdout);
      return kExitOk;
    } else if (flag == "--table") {
      if (!need(&table)) return rc;
    } else if (flag == "--direction") {
      if (!need(&direction)) return rc;
      if (direction != "out" && direction != "in" && direction != "both") {
        return UsageError("graph query", "--direction must be out, in or both, not '" + direction + "'");
      }
    } else if (flag == "--types") {
      if (!need(&types)) return rc;
    } else if (flag == "--type") {
      if (!need(&type)) return rc;
    } else if (flag == "--hops") {
      if (!need(&v) || (rc = count(flag, 1, 10, &hops)) != kExitOk) return rc;
    } else if (flag == "--max-hops") {
      if (!need(&v) || (rc = count(flag, 1, 20, &max_hops)) != kExitOk) return rc;
    } else if (flag == "--format") {
      if (!need(&format)) return rc;
      if (format != "table" && format != "json") return UsageError("graph query", "--format must be table or json");
    } else if (!flag.empty() && flag.front() == '-') {
      return UsageError("graph query", "unknown flag '" + std::string(flag) + "'");
    } else if (question.empty()) {
      question = std::string(flag);
    } else {
      ids.emplace_back(flag);
    }
  }
  const size_t want = question == "path" || question == "common" ? 2
                      : question == "neighbours" || question == "khop" || question == "degree" ? 1
                                                                                                 : 0;
  if (want == 0) {
    return UsageError("graph query", question.empty() ? "expected a question: neighbours, khop, path, common, degree or walk"
                                                      : "unknown question '" + question + "'");
  }
  if (ids.size() != want) {
    return UsageError("graph query", question + " takes " + std::to_string(want) + " node id" + (want > 1 ? "s" : ""));
  }
  if (table.empty()) return UsageError("graph query", "--table is required");
  if (question == "common" && type.empty()) return UsageError("graph query", "common needs --type T");
  if (question == "common" && direction == "both") return UsageError("graph query", "common takes --direction out or in");

  std::unique_ptr<DB> db;
  std::unique_ptr<client::Client> client;
  graph::DetectedSchema detected;
  if (int rc = place.OpenTable("graph query", table, &db, &client, &detected); rc != kExitOk) return rc;
  auto fail = [](const Status& s) { return CommandFailed("graph query", s); };
  graph::Graph g(client.get(), detected.schema);
  const graph::Ways ways = direction == "out" ? graph::Ways::kOut
                           : direction == "in" ? graph::Ways::kIn
                           : direction == "both" || question != "path" ? graph::Ways::kBoth
                                                                        : graph::Ways::kOut;
  std::set<std::string, std::less<>> type_set;
  for (size_t from = 0; from < types.size();) {
    const size_t comma = std::min(types.find(',', from), types.size());
    if (comma > from) type_set.insert(types.substr(from, comma - from));
    from = comma + 1;
  }
  const bool json = format == "json";
  api::JsonWriter w;
  std::string text;

  if (question == "neighbours" || question == "khop") {
    graph::NeighbourhoodRequest req;
    req.start = ids[0];
    req.hops = question == "khop" ? static_cast<int>(hops) : 1;
    req.ways = ways;
    req.types = type_set;
    req.max_nodes = 100000;
    auto n = graph::Explore(g, req);
    if (!n.ok()) return fail(n.status());
    w.BeginObject();
    w.Key("nodes");
    w.BeginArray();
    for (const auto& node : n->nodes) {
      if (node.id == ids[0]) continue;
      w.BeginObject();
      w.Member("id", node.id);
      w.MemberInt("hops", node.depth);
      w.MemberBool("exists", node.node.has_value());
      w.EndObject();
      text += Padded(node.id, 32) + " " + std::to_string(node.depth) + (node.depth == 1 ? " hop\n" : " hops\n");
    }
    w.EndArray();
    if (question == "neighbours") {
      w.Key("edges");
      w.BeginArray();
      text += "\n";
      for (const auto& e : n->edges) {
        graph::WriteEdgeJson(w, e.edge);
        text += "  " + e.edge.source + " -" + e.edge.type + "-> " + e.edge.target +
                (e.edge.rank.empty() || e.edge.rank == e.edge.source ? "" : "  (rank " + e.edge.rank + ")") + "\n";
      }
      w.EndArray();
    }
    w.MemberBool("truncated", n->truncated);
    w.EndObject();
  } else if (question == "path") {
    graph::PathRequest req;
    req.from = ids[0];
    req.to = ids[1];
    req.ways = ways;
    req.types = type_set;
    req.max_hops = static_cast<int>(max_hops);
    auto p = graph::ShortestPath(g, req);
    if (!p.ok()) return fail(p.status());
    w.BeginObject();
    w.MemberBool("found", p->found);
    w.MemberInt("hops", p->found ? static_cast<int64_t>(p->edges.size()) : -1);
    w.Key("nodes");
    w.BeginArray();
    for (const auto& id : p->nodes) w.String(id);
    w.EndArray();
    w.Key("edges");
    w.BeginArray();
    for (const auto& e : p->edges) graph::WriteEdgeJson(w, e);
    w.EndArray();
    w.MemberInt("visited", p->visited);
    w.EndObject();
    if (!p->found) {
      text = "no path within " + std::to_string(max_hops) + " hops (" + std::to_string(p->visited) +
             " nodes reached)\n";
    } else {
      text = std::to_string(p->edges.size()) + (p->edges.size() == 1 ? " hop: " : " hops: ") + p->nodes.front();
      for (size_t i = 0; i < p->edges.size(); ++i) {
        const graph::Edge& e = p->edges[i];
        const bool forward = e.source == p->nodes[i];
        text += forward ? " -" + e.type + "-> " : " <-" + e.type + "- ";
        text += p->nodes[i + 1];
      }
      text += "\n";
    }
  } else if (question == "common") {
    auto common = g.MutualNeighbours(ids[0], ids[1], type,
                                     ways == graph::Ways::kIn ? graph::Direction::kIn : graph::Direction::kOut);
    if (!common.ok()) return fail(common.status());
    w.BeginObject();
    w.Key("nodes");
    w.BeginArray();
    for (const auto& id : *common) {
      w.String(id);
      text += id + "\n";
    }
    w.EndArray();
    w.EndObject();
    if (common->empty()) text = "none\n";
  } else {  // degree
    auto d = graph::NodeDegree(g, ids[0]);
    if (!d.ok()) return fail(d.status());
    auto by_type = [&](std::string_view key, const std::map<std::string, int64_t>& m) {
      w.Key(key);
      w.BeginObject();
      for (const auto& [t, c] : m) w.MemberInt(t, c);
      w.EndObject();
    };
    w.BeginObject();
    w.MemberInt("out", d->out());
    w.MemberInt("in", d->in());
    by_type("out_by_type", d->out_by_type);
    by_type("in_by_type", d->in_by_type);
    w.EndObject();
    text = "out " + std::to_string(d->out()) + ", in " + std::to_string(d->in()) + "\n";
    for (const auto& [t, c] : d->out_by_type) text += "  out " + Padded(t, 24) + " " + std::to_string(c) + "\n";
    for (const auto& [t, c] : d->in_by_type) text += "  in  " + Padded(t, 24) + " " + std::to_string(c) + "\n";
  }
  const std::string out = json ? w.Release() + "\n" : text;
  std::fwrite(out.data(), 1, out.size(), stdout);
  return kExitOk;
}

}  // namespace dynarock::tools
