// File: tools/graph_stats_command.cc
//
// `dynarock graph stats --table T (--data DIR | --endpoint URL) [--format
// text|json] [--top N]`: what a graph-layer table holds (graph::Survey): nodes
// and edges by type, the out-degree distribution, and the largest edge sets
// with how close their items are to the 400 KB item limit (and how many edge
// pages a spilled one uses).

#include <charconv>
#include <cstdio>
#include <string>

#include "engine/api/json_writer.h"
#include "graph/explore.h"
#include "graph/survey.h"
#include "tools/command.h"
#include "tools/graph_client.h"

namespace dynarock::tools {
namespace {

constexpr char kStatsHelp[] =
    "Usage: dynarock graph stats --table T (--data DIR | --endpoint URL) [flags]\n"
    "\n"
    "Reads a graph-layer table once (a Scan) and says what it holds: nodes and\n"
    "edges by type, the out-degree distribution, and the largest edge sets with\n"
    "how much of DynamoDB's 400 KB item limit their items use (a set that would\n"
    "pass it spills into edge pages; then the largest page and the page count).\n"
    "\n"
    "Flags:\n"
    "  --table T          The graph table (required)\n"
    "  --format F         text (default) or json\n"
    "  --top N            Largest edge sets shown (default 10)\n"
    "  --endpoint URL     A DynamoDB-compatible endpoint (--region R, --ca-file FILE)\n"
    "  --data DIR         An embedded database directory\n"
    "  -h, --help         Show this help\n";

constexpr double kItemLimit = 400.0 * 1024;

std::string ByType(const std::map<std::string, int64_t>& counts) {
  std::string out;
  for (const auto& [type, n] : counts) out += (out.empty() ? "" : ", ") + type + " " + std::to_string(n);
  return out;
}

std::string Text(const graph::GraphSurvey& s, const graph::Schema& schema) {
  std::string out = "Graph table " + schema.table_name + " (keys " + schema.pk_attribute + "/" +
                    schema.sk_attribute + ", separator \"" + schema.separator + "\", inverted index " +
                    schema.inverted_index + ", edge set " + schema.edge_set_attribute + ")\n";
  char line[256];
  std::snprintf(line, sizeof(line), "  items       %lld\n", static_cast<long long>(s.items));
  out += line;
  out += "  nodes       " + std::to_string(s.nodes()) + (s.nodes() ? ": " + ByType(s.nodes_by_type) : "") + "\n";
  out += "  edges       " + std::to_string(s.edges()) + (s.edges() ? ": " + ByType(s.edges_by_type) : "") + "\n";
  if (!s.out_degrees.empty()) {
    std::snprintf(line, sizeof(line),
                  "  out-degree  median %lld, p90 %lld, p99 %lld, max %lld (%lld nodes without edges)\n",
                  static_cast<long long>(s.DegreeQuantile(0.5)), static_cast<long long>(s.DegreeQuantile(0.9)),
                  static_cast<long long>(s.DegreeQuantile(0.99)),
                  static_cast<long long>(s.out_degrees.rbegin()->first),
                  static_cast<long long>(s.out_degrees.count(0) ? s.out_degrees.at(0) : 0));
    out += line;
  }
  if (!s.largest_edge_sets.empty()) out += "  largest edge sets:\n";
  for (const graph::EdgeSetSize& e : s.largest_edge_sets) {
    std::snprintf(line, sizeof(line), "    %-28s %8lld entries  %s %9.1f KB (%.2f%% of 400 KB)",
                  e.node.c_str(), static_cast<long long>(e.entries),
                  e.pages ? "largest page" : "item", e.item_bytes / 1024.0,
                  100.0 * e.item_bytes / kItemLimit);
    out += line;
    if (e.pages) out += "  in " + std::to_string(e.pages) + " edge pages";
    out += "\n";
  }
  return out;
}

std::string Json(const graph::GraphSurvey& s, const graph::Schema& schema) {
  api::JsonWriter w;
  w.BeginObject();
  w.Member("table", schema.table_name);
  w.MemberInt("items", s.items);
  auto counts = [&](std::string_view key, const std::map<std::string, int64_t>& m) {
    w.Key(key);
    w.BeginObject();
    for (const auto& [type, n] : m) w.MemberInt(type, n);
    w.EndObject();
  };
  w.MemberInt("nodes", s.nodes());
  w.MemberInt("edges", s.edges());
  counts("nodes_by_type", s.nodes_by_type);
  counts("edges_by_type", s.edges_by_type);
  w.Key("out_degrees");  // degree -> nodes
  w.BeginObject();
  for (const auto& [degree, n] : s.out_degrees) w.MemberInt(std::to_string(degree), n);
  w.EndObject();
  w.Key("largest_edge_sets");
  w.BeginArray();
  for (const graph::EdgeSetSize& e : s.largest_edge_sets) {
    w.BeginObject();
    w.Member("node", e.node);
    w.MemberInt("entries", e.entries);
    w.MemberInt("item_bytes", e.item_bytes);
    w.MemberInt("pages", e.pages);
    w.MemberDouble("item_limit_fraction", e.item_bytes / kItemLimit);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return w.Release() + "\n";
}

}  // namespace

int RunGraphStats(const Args& args) {
  GraphPlace place;
  std::string table, format = "text", v;
  int64_t top = 10;
  ArgReader r(args);
  while (r.Next()) {
    const std::string_view flag = r.flag();
    int rc = kExitOk;
    if (place.Take(r, "graph stats", &rc)) {
      if (rc != kExitOk) return rc;
    } else if (flag == "--help" || flag == "-h") {
      std::fputs(kStatsHelp, stdout);
      return kExitOk;
    } else if (flag == "--table") {
      if (!r.Value(&table) || table.empty()) return UsageError("graph stats", "--table needs a table name");
    } else if (flag == "--format") {
      if (!r.Value(&format) || (format != "text" && format != "json")) {
        return UsageError("graph stats", "--format must be text or json");
      }
    } else if (flag == "--top") {
      auto [end, ec] = r.Value(&v) ? std::from_chars(v.data(), v.data() + v.size(), top)
                                   : std::from_chars_result{nullptr, std::errc::invalid_argument};
      if (ec != std::errc() || end != v.data() + v.size() || top < 0 || top > 10000) {
        return UsageError("graph stats", "--top must be a number from 0 to 10000");
      }
    } else {
      return UsageError("graph stats", "unknown argument '" + std::string(flag) + "'");
    }
  }
  if (table.empty()) return UsageError("graph stats", "--table is required");
  std::unique_ptr<DB> db;
  std::unique_ptr<client::Client> client;
  graph::DetectedSchema detected;
  if (int rc = place.OpenTable("graph stats", table, &db, &client, &detected); rc != kExitOk) return rc;
  graph::Graph g(client.get(), detected.schema);
  auto survey = graph::Survey(g, static_cast<size_t>(top));
  if (!survey.ok()) return CommandFailed("graph stats", survey.status());
  const std::string text = format == "json" ? Json(*survey, detected.schema) : Text(*survey, detected.schema);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return kExitOk;
}

}  // namespace dynarock::tools
