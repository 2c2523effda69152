// File: tools/graph_import_command.cc
//
// `dynarock graph import FILE --table T (--data DIR | --endpoint URL)
// [--format json|jsonl]`: nodes and edges into a graph-layer table through the
// BulkLoader (BatchWriteItem from several threads, edge sets and incoming types
// built in memory and written at the end).
//
//   json   what `dynarock graph export` writes: the whole file, its "schema"
//          creating the table when missing; edges keep their stored rank and
//          edge-set membership, so export -> import -> export gives the same
//          bytes
//   jsonl  a record a line: {"node": ID, "attributes": {DynamoDB JSON}} or
//          {"source": ID, "type": T, "target": ID, "properties": {DynamoDB JSON}}
//          (ranks and edge sets from the table's conventions); a bad line is
//          reported with its number and left out, the others imported
//
// The exit status is 1 when any record was refused.

#include <simdjson.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "engine/api/json_decode.h"
#include "engine/item_validation.h"
#include "graph/explore.h"
#include "tools/command.h"
#include "tools/graph_client.h"

namespace dynarock::tools {
namespace {

constexpr char kImportHelp[] =
    "Usage: dynarock graph import FILE --table T (--data DIR | --endpoint URL) [flags]\n"
    "\n"
    "Loads nodes and edges into a graph-layer table (created when missing), in\n"
    "bulk: BatchWriteItem from several threads, edge sets and incoming types\n"
    "written with their nodes at the end. Load into a table nobody else writes\n"
    "meanwhile.\n"
    "\n"
    "Flags:\n"
    "  --table T          The graph table (required)\n"
    "  --format F         json: a `dynarock graph export` file (its schema creates\n"
    "                     the table; ranks and edge-set membership kept as stored);\n"
    "                     jsonl (default for *.jsonl): one record a line,\n"
    "                     {\"node\": ID, \"attributes\": {DynamoDB JSON}} or {\"source\":\n"
    "                     ID, \"type\": T, \"target\": ID, \"properties\": {DynamoDB JSON}}\n"
    "  --threads N        Writer threads (default 4)\n"
    "  --endpoint URL, --region R, --ca-file FILE, --data DIR   Where the graph is\n"
    "  -h, --help         Show this help\n"
    "\n"
    "A record that cannot be imported is reported with its line (jsonl) or\n"
    "position (json) and left out; the exit status is then 1.\n";

std::string Text(simdjson::dom::element e, const char* key, bool* ok) {
  std::string_view v;
  if (e[key].get(v) != simdjson::SUCCESS) {
    *ok = false;
    return {};
  }
  return std::string(v);
}

// The DynamoDB JSON object at e[key] (absent: empty), validated as DynamoDB
// validates an item's values (numbers normalised), so that a bad value is
// this record's refusal rather than a failed write of a whole batch.
StatusOr<Item> Attributes(simdjson::dom::element e, const char* key) {
  simdjson::dom::element a;
  if (e[key].get(a) != simdjson::SUCCESS) return Item{};
  DR_ASSIGN_OR_RETURN(Item item, api::DecodeItemJson(simdjson::to_string(a)));
  DR_RETURN_IF_ERROR(NormalizeAndValidateItem(&item));
  return item;
}

struct Counts {
  int64_t nodes = 0, edges = 0, refused = 0;
};

void Refuse(Counts* c, const std::string& where, const std::string& why) {
  ++c->refused;
  if (c->refused <= 100) std::fprintf(stderr, "dynarock graph import: %s: %s\n", where.c_str(), why.c_str());
}

// One record of either format: a node, or an edge (`stored`: rank and
// edge-set membership as exported).
void AddRecord(graph::BulkLoader& loader, simdjson::dom::element rec, bool stored,
               const std::string& where, Counts* c) {
  bool ok = true;
  simdjson::dom::element probe;
  const bool is_node = rec["node"].get(probe) == simdjson::SUCCESS || rec["id"].get(probe) == simdjson::SUCCESS;
  if (is_node) {
    const std::string id = Text(rec, rec["node"].error() == simdjson::SUCCESS ? "node" : "id", &ok);
    if (!ok) return Refuse(c, where, "\"node\" must be a string (a node id)");
    auto attrs = Attributes(rec, "attributes");
    if (!attrs.ok()) return Refuse(c, where, "attributes: " + attrs.status().message());
    bool exists = true;
    if (stored && rec["exists"].get(exists) == simdjson::SUCCESS && !exists) return;  // an edge's stub end
    Status s = loader.AddNode(id, std::move(attrs).value());
    if (!s.ok()) return Refuse(c, where, s.message());
    ++c->nodes;
    return;
  }
  graph::Edge e;
  e.source = Text(rec, "source", &ok);
  e.type = Text(rec, "type", &ok);
  e.target = Text(rec, "target", &ok);
  if (!ok) return Refuse(c, where, "a record is a node {\"node\": ...} or an edge {\"source\", \"type\", \"target\"}");
  auto props = Attributes(rec, stored ? "attributes" : "properties");
  if (!props.ok()) return Refuse(c, where, "properties: " + props.status().message());
  Status s;
  if (stored) {
    bool rank_ok = true;
    e.rank = Text(rec, "rank", &rank_ok);
    bool in_set = false;
    (void)rec["in_edge_set"].get(in_set);
    e.properties = std::move(props).value();
    s = loader.AddStoredEdge(e, in_set);
  } else {
    s = loader.AddEdge({e.source, e.type, e.target, std::move(props).value()});
  }
  if (!s.ok()) return Refuse(c, where, s.message());
  ++c->edges;
}

// The schema a `graph export` file names, over the defaults.
graph::Schema SchemaOf(simdjson::dom::element doc, const std::string& table) {
  graph::Schema s;
  s.table_name = table;
  simdjson::dom::element sch;
  if (doc["schema"].get(sch) != simdjson::SUCCESS) return s;
  const std::pair<const char*, std::string*> members[] = {
      {"pk", &s.pk_attribute},
      {"sk", &s.sk_attribute},
      {"separator", &s.separator},
      {"inverted_index", &s.inverted_index},
      {"rank_attribute", &s.rank_attribute},
      {"edge_set_attribute", &s.edge_set_attribute},
      {"incoming_types_attribute", &s.incoming_types_attribute},
  };
  for (const auto& [key, field] : members) {
    std::string_view v;
    if (sch[key].get(v) == simdjson::SUCCESS && !v.empty()) *field = std::string(v);
  }
  return s;
}

}  // namespace

int RunGraphImport(const Args& args) {
  GraphPlace place;
  std::string file, table, format, v;
  int64_t threads = 4;
  ArgReader r(args);
  while (r.Next()) {
    const std::string_view flag = r.flag();
    int rc = kExitOk;
    if (place.Take(r, "graph import", &rc)) {
      if (rc != kExitOk) return rc;
    } else if (flag == "--help" || flag == "-h") {
      std::fputs(kImportHelp, stdout);
      return kExitOk;
    } else if (flag == "--table") {
      if (!r.Value(&table) || table.empty()) return UsageError("graph import", "--table needs a table name");
    } else if (flag == "--format") {
      if (!r.Value(&format) || (format != "json" && format != "jsonl")) {
        return UsageError("graph import", "--format must be json or jsonl");
      }
    } else if (flag == "--threads") {
      if (!r.Value(&v) || v.empty() || v.size() > 2 || v.find_first_not_of("0123456789") != std::string::npos ||
          (threads = std::stoll(v)) < 1 || threads > 64) {
        return UsageError("graph import", "--threads must be from 1 to 64");
      }
    } else if (!flag.empty() && flag.front() == '-') {
      return UsageError("graph import", "unknown flag '" + std::string(flag) + "'");
    } else if (file.empty()) {
      file = std::string(flag);
    } else {
      return UsageError("graph import", "one file at a time");
    }
  }
  if (file.empty()) return UsageError("graph import", "expected a FILE to import");
  if (table.empty()) return UsageError("graph import", "--table is required");
  if (format.empty()) format = file.size() > 6 && file.substr(file.size() - 6) == ".jsonl" ? "jsonl" : "json";
  std::ifstream in(file, std::ios::binary);
  if (!in) return CommandFailed("graph import", Status(ErrorType::kValidation, "cannot read " + file));

  std::unique_ptr<DB> db;
  std::unique_ptr<graph::Client> client;
  if (int rc = place.Open("graph import", &db, &client); rc != kExitOk) return rc;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  std::string whole;
  if (format == "json") {
    std::ostringstream ss;
    ss << in.rdbuf();
    whole = std::move(ss).str();
    if (auto err = parser.parse(whole).get(doc); err != simdjson::SUCCESS) {
      return CommandFailed("graph import", Status(ErrorType::kValidation,
                                                  file + " is not JSON: " + simdjson::error_message(err)));
    }
  }
  // The table's conventions: the export's, a graph table's own, or the defaults.
  graph::Schema schema;
  auto detected = graph::DetectSchema(client.get(), table);
  if (format == "json") {
    schema = SchemaOf(doc, table);
  } else if (detected.ok() && detected->reason.empty()) {
    schema = detected->schema;
  } else {
    schema.table_name = table;
  }
  if (!detected.ok() && detected.status().type() != ErrorType::kResourceNotFound) {
    return CommandFailed("graph import", detected.status());
  }
  graph::Graph g(client.get(), schema);
  if (Status s = g.EnsureTable(); !s.ok()) return CommandFailed("graph import", s);
  graph::BulkLoader loader(&g, static_cast<int>(threads));
  Counts counts;
  if (format == "json") {
    simdjson::dom::array nodes, edges;
    if (doc["nodes"].get(nodes) != simdjson::SUCCESS || doc["edges"].get(edges) != simdjson::SUCCESS) {
      return CommandFailed("graph import", Status(ErrorType::kValidation,
                                                  file + " has no \"nodes\" and \"edges\" arrays (a `graph export` file)"));
    }
    size_t i = 0;
    for (simdjson::dom::element n : nodes) AddRecord(loader, n, true, "nodes[" + std::to_string(i++) + "]", &counts);
    i = 0;
    for (simdjson::dom::element e : edges) AddRecord(loader, e, true, "edges[" + std::to_string(i++) + "]", &counts);
  } else {
    std::string line;
    int64_t number = 0;
    while (std::getline(in, line)) {
      ++number;
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      simdjson::dom::element rec;
      if (auto err = parser.parse(line).get(rec); err != simdjson::SUCCESS || !rec.is_object()) {
        Refuse(&counts, "line " + std::to_string(number),
               err != simdjson::SUCCESS ? std::string("not JSON: ") + simdjson::error_message(err)
                                        : std::string("not a JSON object"));
        continue;
      }
      AddRecord(loader, rec, false, "line " + std::to_string(number), &counts);
      if (number % 100000 == 0) {
        std::fprintf(stderr, "dynarock graph import: %lld lines...\n", static_cast<long long>(number));
      }
    }
  }
  if (Status s = loader.Finish(); !s.ok()) return CommandFailed("graph import", s);
  std::fprintf(stderr, "dynarock graph import: %lld nodes, %lld edges, %lld items written%s\n",
               static_cast<long long>(counts.nodes), static_cast<long long>(counts.edges),
               static_cast<long long>(loader.items_written()),
               counts.refused ? (", " + std::to_string(counts.refused) + " refused").c_str() : "");
  return counts.refused ? kExitFailure : kExitOk;
}

}  // namespace dynarock::tools
