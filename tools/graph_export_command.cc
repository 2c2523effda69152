// File: tools/graph_export_command.cc
//
// `dynarock graph export --table T [--node ID --hops K ...] [--format json|dot|
// graphml] [--out FILE] [--svg FILE]`: a node's neighbourhood (graph::Explore)
// or the whole graph (graph::WholeGraph) of a graph-layer table, written for
// Gephi, Graphviz or a web page (graph/export.h); --svg draws it with Graphviz's
// `dot`. The table's conventions are detected (graph::DetectSchema); flags
// override them.

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "graph/explore.h"
#include "graph/export.h"
#include "tools/command.h"
#include "tools/graph_client.h"

extern char** environ;

namespace dynarock::tools {
namespace {

constexpr char kExportHelp[] =
    "Usage: dynarock graph export --table T [flags]\n"
    "\n"
    "Writes a graph-layer table's nodes and edges for other tools: a node's\n"
    "neighbourhood (--node), or the whole graph. The table's conventions (keys,\n"
    "separator, inverted index, edge set) are detected from its definition and\n"
    "its node items; the flags below override them.\n"
    "\n"
    "Flags:\n"
    "  --table T            The graph table (required)\n"
    "  --node ID            Start at this node (e.g. USER#Frodo); without it, the\n"
    "                       whole table (a Scan)\n"
    "  --hops K             Hops from --node, 1 to 10 (default 1)\n"
    "  --direction D        out, in or both (default both)\n"
    "  --types A,B          Follow only these edge types\n"
    "  --max-nodes N        Stop at N nodes (default 1000 for --node, 100000 for the\n"
    "                       whole graph); the output says truncated\n"
    "  --format F           json (default), dot (Graphviz) or graphml (Gephi, yEd)\n"
    "  --out FILE           Write there instead of standard output\n"
    "  --svg FILE           Also draw it as SVG with Graphviz's dot (Debian's\n"
    "                       graphviz package)\n"
    "  --pk A, --sk A, --separator S, --inverted-index I, --rank-attribute R,\n"
    "  --edge-set-attribute E, --incoming-types-attribute T, --edge-pages-attribute P\n"
    "                       The table's conventions, when detection gets them wrong\n"
    "  --endpoint URL       A DynamoDB-compatible endpoint (as `graph demo`)\n"
    "  --region R, --ca-file FILE   For --endpoint\n"
    "  --data DIR           An embedded database directory\n"
    "  -h, --help           Show this help\n";

bool ParseCount(const std::string& v, int64_t lo, int64_t hi, int64_t* out) {
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), *out);
  return ec == std::errc() && end == v.data() + v.size() && *out >= lo && *out <= hi;
}

// Runs `dot -Tsvg -o svg` on the DOT text; false (and a message) on failure.
bool DrawSvg(const std::string& dot_text, const std::string& svg) {
  char tmpl[] = "/tmp/dynarock-graph-XXXXXX";
  const int fd = mkstemp(tmpl);
  if (fd < 0) {
    std::fprintf(stderr, "dynarock graph export: cannot create a temporary file: %s\n", std::strerror(errno));
    return false;
  }
  const bool written = ::write(fd, dot_text.data(), dot_text.size()) == static_cast<ssize_t>(dot_text.size());
  ::close(fd);
  bool ok = false;
  if (written) {
    std::vector<std::string> words = {"dot", "-Tsvg", "-o", svg, tmpl};
    std::vector<char*> argv;
    for (auto& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    const int rc = posix_spawnp(&pid, "dot", nullptr, nullptr, argv.data(), environ);
    if (rc != 0) {
      std::fprintf(stderr,
                   "dynarock graph export: cannot run Graphviz's dot (%s): install the graphviz "
                   "package, or write --format dot and draw it elsewhere\n",
                   std::strerror(rc));
    } else {
      int status = 0;
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
      if (!ok) std::fprintf(stderr, "dynarock graph export: dot failed to draw %s\n", svg.c_str());
    }
  }
  ::unlink(tmpl);
  return ok;
}

}  // namespace

int RunGraphExport(const Args& args) {
  GraphPlace place;
  std::string table, node, out, svg, types;
  std::string direction = "both", format_name = "json";
  int64_t hops = 1, max_nodes = -1;
  std::vector<std::pair<std::string, std::string>> overrides;
  ArgReader r(args);
  std::string v;
  static const char* const kOverrides[] = {"--pk", "--sk", "--separator", "--inverted-index",
                                           "--rank-attribute", "--edge-set-attribute",
                                           "--incoming-types-attribute", "--edge-pages-attribute"};
  while (r.Next()) {
    const std::string_view flag = r.flag();
    auto value = [&](std::string* into, const char* what) {
      if (r.Value(into) && !into->empty()) return true;
      UsageError("graph export", std::string(flag) + " needs " + what);
      return false;
    };
    bool is_override = false;
    for (const char* o : kOverrides) is_override |= flag == o;
    int rc = kExitOk;
    if (place.Take(r, "graph export", &rc)) {
      if (rc != kExitOk) return rc;
    } else if (flag == "--help" || flag == "-h") {
      std::fputs(kExportHelp, stdout);
      return kExitOk;
    } else if (is_override) {
      if (!value(&v, "a value")) return kExitUsage;
      overrides.emplace_back(std::string(flag), v);
    } else if (flag == "--table") {
      if (!value(&table, "a table name")) return kExitUsage;
    } else if (flag == "--node") {
      if (!value(&node, "a node id")) return kExitUsage;
    } else if (flag == "--hops") {
      if (!value(&v, "a number")) return kExitUsage;
      if (!ParseCount(v, 1, 10, &hops)) return UsageError("graph export", "--hops must be 1 to 10, not '" + v + "'");
    } else if (flag == "--max-nodes") {
      if (!value(&v, "a number")) return kExitUsage;
      if (!ParseCount(v, 1, 10000000, &max_nodes)) {
        return UsageError("graph export", "--max-nodes must be 1 to 10000000, not '" + v + "'");
      }
    } else if (flag == "--direction") {
      if (!value(&direction, "out, in or both")) return kExitUsage;
      if (direction != "out" && direction != "in" && direction != "both") {
        return UsageError("graph export", "--direction must be out, in or both, not '" + direction + "'");
      }
    } else if (flag == "--types") {
      if (!value(&types, "edge types (A,B)")) return kExitUsage;
    } else if (flag == "--format") {
      if (!value(&format_name, "json, dot or graphml")) return kExitUsage;
    } else if (flag == "--out") {
      if (!value(&out, "a file")) return kExitUsage;
    } else if (flag == "--svg") {
      if (!value(&svg, "a file")) return kExitUsage;
    } else {
      return UsageError("graph export", "unknown argument '" + std::string(flag) + "'");
    }
  }
  const auto format = graph::ParseExportFormat(format_name);
  if (!format) return UsageError("graph export", "--format must be json, dot or graphml, not '" + format_name + "'");
  if (table.empty()) return UsageError("graph export", "--table is required");
  if (node.empty() && (hops != 1 || direction != "both" || !types.empty())) {
    return UsageError("graph export", "--hops, --direction and --types go with --node");
  }

  std::unique_ptr<DB> db;
  std::unique_ptr<client::Client> client;
  graph::DetectedSchema detected;
  if (int rc = place.OpenTable("graph export", table, &db, &client, &detected, /*allow_not_graph=*/true);
      rc != kExitOk) {
    return rc;
  }
  auto fail = [](const Status& s) { return CommandFailed("graph export", s); };
  graph::Schema& schema = detected.schema;
  bool inverted_given = false;
  for (const auto& [flag, value] : overrides) {
    std::string* field = flag == "--pk" ? &schema.pk_attribute
                         : flag == "--sk" ? &schema.sk_attribute
                         : flag == "--separator" ? &schema.separator
                         : flag == "--inverted-index" ? &schema.inverted_index
                         : flag == "--rank-attribute" ? &schema.rank_attribute
                         : flag == "--edge-set-attribute" ? &schema.edge_set_attribute
                         : flag == "--edge-pages-attribute" ? &schema.edge_pages_attribute
                                                          : &schema.incoming_types_attribute;
    *field = value;
    inverted_given |= flag == "--inverted-index";
  }
  if (!detected.reason.empty() && !inverted_given) {
    return fail(Status(ErrorType::kValidation, detected.reason + " (see --inverted-index)"));
  }
  graph::Graph g(client.get(), schema);
  auto explore = [&]() -> StatusOr<graph::Neighbourhood> {
    if (node.empty()) return graph::WholeGraph(g, max_nodes > 0 ? max_nodes : 100000);
    graph::NeighbourhoodRequest req;
    req.start = node;
    req.hops = static_cast<int>(hops);
    req.ways = direction == "out" ? graph::Ways::kOut : direction == "in" ? graph::Ways::kIn : graph::Ways::kBoth;
    for (size_t from = 0; from < types.size();) {
      const size_t comma = std::min(types.find(',', from), types.size());
      if (comma > from) req.types.insert(types.substr(from, comma - from));
      from = comma + 1;
    }
    req.max_nodes = max_nodes > 0 ? max_nodes : 1000;
    return graph::Explore(g, req);
  };
  auto n = explore();
  if (!n.ok()) return fail(n.status());
  const std::string text = graph::ExportGraph(*n, schema, *format, table);
  if (out.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
  } else {
    std::ofstream f(out, std::ios::binary);
    if (!(f << text) || !f.flush()) {
      std::fprintf(stderr, "dynarock graph export: cannot write %s\n", out.c_str());
      return kExitFailure;
    }
  }
  if (!svg.empty()) {
    const std::string dot = *format == graph::ExportFormat::kDot
                                ? text
                                : graph::ExportGraph(*n, schema, graph::ExportFormat::kDot, table);
    if (!DrawSvg(dot, svg)) return kExitFailure;
  }
  std::fprintf(stderr, "dynarock graph export: %zu nodes, %zu edges%s\n", n->nodes.size(),
               n->edges.size(), n->truncated ? " (truncated: --max-nodes)" : "");
  return kExitOk;
}

}  // namespace dynarock::tools
