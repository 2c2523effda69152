// File: tools/graph_import_command.cc
//
// `dynarock graph import FILE... --table T (--data DIR | --endpoint URL)
// [--format json|jsonl|csv]`: nodes and edges into a graph-layer table through
// the BulkLoader, edge sets and incoming types built in memory and written
// with their nodes at the end. Into a new table of an embedded database the
// load goes straight into table files (graph::LoadNewGraph: the table appears
// whole, or not at all); otherwise BatchWriteItem from several threads.
//
//   json   what `dynarock graph export` writes: the whole file, its "schema"
//          creating the table when missing; edges keep their stored rank and
//          edge-set membership, so export -> import -> export gives the same
//          bytes
//   jsonl  a record a line: {"node": ID, "attributes": {DynamoDB JSON}} or
//          {"source": ID, "type": T, "target": ID, "properties": {DynamoDB JSON}}
//          (ranks and edge sets from the table's conventions)
//   csv    a header line, then a record a line (RFC 4180 quoting): a nodes
//          file has an id column, an edges file source and target columns and
//          a type column or --edge-type; every other column is an attribute (a
//          string, or a number with --number); an empty cell is no attribute;
//          columns named by flags or a mapping file (tools/graph_import_mapping.h),
//          bare ids given their node type (--id-type: 42 -> USER#42)
//
// A bad record is reported with its line (its position in a json file) and
// left out, the others imported; the exit status is then 1.

#include <simdjson.h>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "engine/api/json_decode.h"
#include "engine/api/json_writer.h"
#include "engine/item_validation.h"
#include "engine/transfer/item_formats.h"
#include "graph/explore.h"
#include "tools/command.h"
#include "tools/graph_client.h"
#include "tools/graph_import_mapping.h"

namespace dynarock::tools {
namespace {

constexpr char kImportHelp[] =
    "Usage: dynarock graph import FILE... --table T (--data DIR | --endpoint URL) [flags]\n"
    "\n"
    "Loads nodes and edges into a graph-layer table (created when missing), in\n"
    "bulk; edge sets and incoming types are written with their nodes at the end.\n"
    "Into a new table with --data the load goes straight into table files and the\n"
    "table appears whole, or not at all; otherwise BatchWriteItem from several\n"
    "threads, into a table nobody else writes meanwhile. Interrupted, run the\n"
    "same command again: the writes are puts, so a second run ends in the same\n"
    "table; with --resume it skips the edges the first run wrote.\n"
    "\n"
    "Flags:\n"
    "  --table T          The graph table (required)\n"
    "  --format F         For every FILE (default: by its extension)\n"
    "                     json: a `dynarock graph export` file (its schema creates\n"
    "                     the table; ranks and edge-set membership kept as stored);\n"
    "                     jsonl (*.jsonl): one record a line,\n"
    "                     {\"node\": ID, \"attributes\": {DynamoDB JSON}} or {\"source\":\n"
    "                     ID, \"type\": T, \"target\": ID, \"properties\": {DynamoDB JSON}};\n"
    "                     csv (*.csv): a header, then a record a line: nodes (an id\n"
    "                     column) or edges (source, target and type columns)\n"
    "  --id COL           CSV: the node id column (default id)\n"
    "  --source COL, --target COL, --type COL\n"
    "                     CSV: the edge columns (default source, target, type)\n"
    "  --edge-type T      CSV: every edge of a file without a type column is a T\n"
    "  --id-type T, --source-type T, --target-type T\n"
    "                     CSV: ids in those columns are bare (42): the node is T#42\n"
    "  --number COL,...   CSV: columns whose values are numbers (else strings)\n"
    "  --delimiter C      CSV: the field separator (default ,)\n"
    "  --mapping FILE     CSV: the settings above per file, as JSON: {\"delimiter\":\n"
    "                     \";\", \"files\": {\"people.csv\": {\"id\": \"user_id\",\n"
    "                     \"id_type\": \"USER\"}, \"follows.csv\": {\"source\": \"from\",\n"
    "                     \"target\": \"to\", \"edge_type\": \"FOLLOWS\", \"numbers\":\n"
    "                     [\"since\"]}}} (members: the flags' names with _ for -,\n"
    "                     numbers a list); a file's entry wins over the flags, the\n"
    "                     flags over the mapping's top level\n"
    "  --threads N        Writer threads over BatchWriteItem (default 4)\n"
    "  --resume FILE      Keep the import's progress in FILE (through BatchWriteItem):\n"
    "                     run the same command again after an interruption and the\n"
    "                     edges already written are not sent again; FILE is removed\n"
    "                     when the import is complete\n"
    "  --endpoint URL, --region R, --ca-file FILE, --data DIR   Where the graph is\n"
    "  -h, --help         Show this help\n"
    "\n"
    "A record that cannot be imported is reported with its line (its position in\n"
    "a json file) and left out; the exit status is then 1.\n";

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
    if (!s.ok() && loader.failed().ok()) return Refuse(c, where, s.message());
    if (!s.ok()) return;  // a write failed: the import stops (loader.failed())
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
    if (rec["in_edge_set"].get(in_set) != simdjson::SUCCESS) in_set = false;
    e.properties = std::move(props).value();
    s = loader.AddStoredEdge(e, in_set);
  } else {
    s = loader.AddEdge({e.source, e.type, e.target, std::move(props).value()});
  }
  if (!s.ok() && loader.failed().ok()) return Refuse(c, where, s.message());
  if (!s.ok()) return;  // a write failed: the import stops (loader.failed())
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
      {"edge_pages_attribute", &s.edge_pages_attribute},
  };
  for (const auto& [key, field] : members) {
    std::string_view v;
    if (sch[key].get(v) == simdjson::SUCCESS && !v.empty()) *field = std::string(v);
  }
  return s;
}

// How far the import has come: on stderr, one line rewritten in place on a
// terminal (at most ten times a second), a line every 100,000 records
// otherwise; and, resuming, whether the record about to be added had its
// edge written by an earlier run. Add() is called before each record (each
// line of a jsonl or CSV file, each element of a json file), so positions
// are the same from one run to the next on the same input.
class Progress {
 public:
  explicit Progress(uint64_t total_bytes)
      : total_(total_bytes), tty_(isatty(STDERR_FILENO) == 1), start_(Clock::now()) {}
  // Records up to position `done` had their edges written by an earlier run.
  void Resume(graph::BulkLoader* loader, int64_t done) {
    loader_ = loader;
    done_ = done;
  }
  // The position of the record being added (1 for the first).
  int64_t position() const { return records_; }
  void Add(uint64_t bytes) {
    bytes_ += bytes;
    ++records_;
    if (loader_ != nullptr) loader_->set_edge_items_written(records_ <= done_);
    if (tty_) {
      if ((records_ & 1023) != 0) return;
      const auto now = Clock::now();
      if (now - shown_ < std::chrono::milliseconds(100)) return;
      shown_ = now;
      Show(false);
    } else if (records_ % 100000 == 0) {
      Show(false);
    }
  }
  // The input is read; the nodes (with their edge sets) are written next.
  void Done() {
    if (!tty_ || records_ < 1024) return;
    Show(true);
    std::fputs("dynarock graph import: writing the nodes with their edge sets...\n", stderr);
  }

 private:
  using Clock = std::chrono::steady_clock;
  void Show(bool last) {
    const double seconds = std::chrono::duration<double>(Clock::now() - start_).count();
    const double share = total_ > 0 ? std::min(1.0, static_cast<double>(bytes_) / total_) : 1.0;
    const int width = 30, filled = static_cast<int>(share * width);
    std::string bar(filled, '#');
    bar.append(width - filled, '.');
    std::fprintf(stderr, "%sdynarock graph import: [%s] %3.0f%%  %lld records  %.0f/s%s",
                 tty_ ? "\r" : "", bar.c_str(), share * 100, static_cast<long long>(records_),
                 seconds > 0 ? records_ / seconds : 0.0, tty_ && !last ? "" : "\n");
  }
  uint64_t total_, bytes_ = 0;
  int64_t records_ = 0;
  graph::BulkLoader* loader_ = nullptr;
  int64_t done_ = 0;
  bool tty_;
  Clock::time_point start_, shown_{};
};

// The text of an attribute used as a node id or an edge type (a string, or a
// number when --number typed its column), removed from the item.
bool TakeText(Item* item, const std::string& column, std::string* out) {
  auto it = item->find(column);
  if (it == item->end() || !(it->second.is(AttrType::kS) || it->second.is(AttrType::kN))) return false;
  *out = it->second.scalar();
  item->erase(it);
  return true;
}

Status FeedJsonl(graph::BulkLoader& loader, std::istream& in, const std::string& file,
               Counts* counts, Progress* progress) {
  simdjson::dom::parser parser;
  std::string line;
  int64_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    progress->Add(line.size() + 1);
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = file + ":" + std::to_string(number);
    simdjson::dom::element rec;
    if (auto err = parser.parse(line).get(rec); err != simdjson::SUCCESS || !rec.is_object()) {
      Refuse(counts, where,
             err != simdjson::SUCCESS ? std::string("not JSON: ") + simdjson::error_message(err)
                                      : std::string("not a JSON object"));
      continue;
    }
    AddRecord(loader, rec, false, where, counts);
    DR_RETURN_IF_ERROR(loader.failed());
  }
  return Status::Ok();
}

// A CSV file of nodes or of edges, as its header says. A file whose header
// has neither shape is refused whole (a ValidationException).
Status FeedCsv(graph::BulkLoader& loader, std::istream& in, const std::string& file,
               const CsvColumns& cols, const std::string& separator, Counts* counts,
               Progress* progress) {
  // A bare id of a column with a node type: TYPE + separator + id.
  auto typed = [&](const std::string& type, std::string* id) {
    if (!type.empty()) *id = type + separator + *id;
  };
  std::string line, text;
  int64_t number = 0;
  std::vector<std::string> header;
  while (header.empty() && std::getline(in, line)) {
    ++number;
    progress->Add(line.size() + 1);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    text = text.empty() ? line : text + "\n" + line;
    bool incomplete = false;
    Status s = transfer::SplitCsvRecord(text, cols.delimiter, &header, &incomplete);
    if (incomplete) {
      header.clear();
      continue;
    }
    if (!s.ok()) return Status(ErrorType::kValidation, file + ": the header: " + s.message());
  }
  if (header.empty()) return Status::Ok();  // an empty file
  auto has = [&](const std::string& c) { return std::find(header.begin(), header.end(), c) != header.end(); };
  const bool nodes = has(cols.id);
  if (!nodes && !(has(cols.source) && has(cols.target))) {
    return Status(ErrorType::kValidation,
                  file + ": the header has no node id column (" + cols.id + ") and no edge columns (" +
                      cols.source + " and " + cols.target + "): say which with --id, or --source and --target");
  }
  if (!nodes && !has(cols.type) && cols.edge_type.empty()) {
    return Status(ErrorType::kValidation, file + ": the edges have no type column (" + cols.type +
                                              "): name it with --type, or give every edge one with --edge-type");
  }
  transfer::ItemParser parser(transfer::DataFormat::kCsv, cols.delimiter, header, cols.types);
  int64_t first_line = number + 1;
  while (std::getline(in, line)) {
    ++number;
    progress->Add(line.size() + 1);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    Item item;
    bool complete = false;
    Status s = parser.Line(line, &item, &complete);
    const std::string where = file + ":" + std::to_string(first_line);
    if (!s.ok()) {
      Refuse(counts, where, s.message());
      first_line = number + 1;
      continue;
    }
    if (!complete) {
      if (line.empty()) first_line = number + 1;  // a blank line; else a record goes on
      continue;
    }
    first_line = number + 1;
    if (nodes) {
      std::string id;
      if (!TakeText(&item, cols.id, &id)) {
        Refuse(counts, where, "no node id (column " + cols.id + ")");
        continue;
      }
      typed(cols.id_type, &id);
      if (Status v = NormalizeAndValidateItem(&item); !v.ok()) {
        Refuse(counts, where, v.message());
        continue;
      }
      if (Status a = loader.AddNode(id, std::move(item)); !a.ok()) {
        if (!loader.failed().ok()) return loader.failed();
        Refuse(counts, where, a.message());
        continue;
      }
      ++counts->nodes;
      continue;
    }
    graph::EdgeSpec e;
    if (!TakeText(&item, cols.source, &e.source) || !TakeText(&item, cols.target, &e.target)) {
      Refuse(counts, where, "an edge needs a source and a target (columns " + cols.source + " and " +
                                cols.target + ")");
      continue;
    }
    typed(cols.source_type, &e.source);
    typed(cols.target_type, &e.target);
    if (!TakeText(&item, cols.type, &e.type)) e.type = cols.edge_type;
    if (e.type.empty()) {
      Refuse(counts, where, "no edge type (column " + cols.type + ")");
      continue;
    }
    if (Status v = NormalizeAndValidateItem(&item); !v.ok()) {
      Refuse(counts, where, v.message());
      continue;
    }
    e.properties = std::move(item);
    if (Status a = loader.AddEdge(std::move(e)); !a.ok()) {
      if (!loader.failed().ok()) return loader.failed();
      Refuse(counts, where, a.message());
      continue;
    }
    ++counts->edges;
  }
  if (Status s = parser.EndFile(); !s.ok()) Refuse(counts, file + ":" + std::to_string(first_line), s.message());
  return Status::Ok();
}

// A `graph export` file, parsed whole.
struct JsonFile {
  std::string text;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
};

Status FeedJson(graph::BulkLoader& loader, const JsonFile& f, const std::string& file,
                Counts* counts, Progress* progress) {
  simdjson::dom::array nodes, edges;
  if (f.doc["nodes"].get(nodes) != simdjson::SUCCESS || f.doc["edges"].get(edges) != simdjson::SUCCESS) {
    return Status(ErrorType::kValidation,
                  file + " has no \"nodes\" and \"edges\" arrays (a `graph export` file)");
  }
  const uint64_t share = (f.text.size() + 1) / std::max<size_t>(1, nodes.size() + edges.size());
  size_t i = 0;
  for (simdjson::dom::element n : nodes) {
    progress->Add(share);
    AddRecord(loader, n, true, file + ": nodes[" + std::to_string(i++) + "]", counts);
    DR_RETURN_IF_ERROR(loader.failed());
  }
  i = 0;
  for (simdjson::dom::element e : edges) {
    progress->Add(share);
    AddRecord(loader, e, true, file + ": edges[" + std::to_string(i++) + "]", counts);
    DR_RETURN_IF_ERROR(loader.failed());
  }
  return Status::Ok();
}

// --resume FILE: what an import through BatchWriteItem has written so far,
// one JSON object rewritten (atomically) after each batch and removed at the
// end: {"table": T, "files": [[name, bytes], ...], "done": position}.
struct ResumeState {
  std::string table;
  std::vector<std::pair<std::string, uint64_t>> files;
  int64_t done = 0;
};

std::string EncodeResume(const ResumeState& r) {
  api::JsonWriter w;
  w.BeginObject();
  w.Member("table", r.table);
  w.Key("files");
  w.BeginArray();
  for (const auto& [name, bytes] : r.files) {
    w.BeginArray();
    w.String(name);
    w.Int(static_cast<int64_t>(bytes));
    w.EndArray();
  }
  w.EndArray();
  w.MemberInt("done", r.done);
  w.EndObject();
  return w.Release() + "\n";
}

// The earlier run's position, when FILE exists and describes this import.
StatusOr<int64_t> ReadResume(const std::string& path, const ResumeState& now) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return int64_t{0};
  std::ostringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  std::string_view table;
  int64_t done = 0;
  simdjson::dom::array files;
  if (parser.parse(text).get(doc) != simdjson::SUCCESS || doc["table"].get(table) != simdjson::SUCCESS ||
      doc["done"].get(done) != simdjson::SUCCESS || doc["files"].get(files) != simdjson::SUCCESS || done < 0) {
    return Status(ErrorType::kValidation, path + " is not an import's progress file");
  }
  std::vector<std::pair<std::string, uint64_t>> was;
  for (simdjson::dom::element f : files) {
    std::string_view name;
    uint64_t bytes = 0;
    if (f.at(0).get(name) != simdjson::SUCCESS || f.at(1).get(bytes) != simdjson::SUCCESS) {
      return Status(ErrorType::kValidation, path + " is not an import's progress file");
    }
    was.emplace_back(std::string(name), bytes);
  }
  if (table != now.table || was != now.files) {
    return Status(ErrorType::kValidation,
                  path + " records another import (table " + std::string(table) +
                      ", other files or sizes): give another --resume file, or remove it to start over");
  }
  return done;
}

Status WriteResume(const std::string& path, const ResumeState& r) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << EncodeResume(r);
    if (!out.flush()) return Status(ErrorType::kValidation, "cannot write " + tmp);
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) return Status(ErrorType::kValidation, "cannot write " + path + ": " + ec.message());
  return Status::Ok();
}

std::string FormatOf(const std::string& file, const std::string& given) {
  if (!given.empty()) return given;
  auto ends = [&](std::string_view x) {
    return file.size() >= x.size() && file.compare(file.size() - x.size(), x.size(), x) == 0;
  };
  if (ends(".jsonl")) return "jsonl";
  if (ends(".csv")) return "csv";
  return "json";
}

}  // namespace

int RunGraphImport(const Args& args) {
  GraphPlace place;
  std::vector<std::string> files;
  std::string table, format, v, resume_path, mapping_path;
  CsvSettings flags;  // the CSV flags (over a mapping file's top level)
  int64_t threads = 4;
  ArgReader r(args);
  while (r.Next()) {
    const std::string_view flag = r.flag();
    int rc = kExitOk;
    // --id COL, --id-type T, ...: the setting named as the flag (- as _).
    auto setting = [&](const char* key, const char* needs) {
      if (!r.Value(&v) || v.empty()) return UsageError("graph import", std::string(flag) + " needs " + needs);
      flags.Set(key, v);
      return kExitOk;
    };
    if (place.Take(r, "graph import", &rc)) {
      if (rc != kExitOk) return rc;
    } else if (flag == "--help" || flag == "-h") {
      std::fputs(kImportHelp, stdout);
      return kExitOk;
    } else if (flag == "--table") {
      if (!r.Value(&table) || table.empty()) return UsageError("graph import", "--table needs a table name");
    } else if (flag == "--format") {
      if (!r.Value(&format) || (format != "json" && format != "jsonl" && format != "csv")) {
        return UsageError("graph import", "--format must be json, jsonl or csv");
      }
    } else if (flag == "--id" || flag == "--source" || flag == "--target" || flag == "--type") {
      if (int c = setting(std::string(flag.substr(2)).c_str(), "a column name"); c != kExitOk) return c;
    } else if (flag == "--edge-type") {
      if (int c = setting("edge_type", "an edge type"); c != kExitOk) return c;
    } else if (flag == "--id-type" || flag == "--source-type" || flag == "--target-type") {
      std::string key(flag.substr(2));
      key[key.find('-')] = '_';
      if (int c = setting(key.c_str(), "a node type"); c != kExitOk) return c;
    } else if (flag == "--mapping") {
      if (!r.Value(&mapping_path) || mapping_path.empty()) return UsageError("graph import", "--mapping needs a FILE");
    } else if (flag == "--number") {
      if (!r.Value(&v) || v.empty()) return UsageError("graph import", "--number needs column names (a,b,...)");
      std::stringstream list(v);
      std::string c;
      while (std::getline(list, c, ',')) {
        if (!c.empty()) flags.numbers.push_back(c);
      }
    } else if (flag == "--delimiter") {
      if (!r.Value(&v) || v.size() != 1 || v[0] == '"' || v[0] == '\n' || v[0] == '\r') {
        return UsageError("graph import", "--delimiter must be one character (not a quote or a newline)");
      }
      flags.delimiter = v[0];
    } else if (flag == "--resume") {
      if (!r.Value(&resume_path) || resume_path.empty()) return UsageError("graph import", "--resume needs a FILE");
    } else if (flag == "--threads") {
      if (!r.Value(&v) || v.empty() || v.size() > 2 || v.find_first_not_of("0123456789") != std::string::npos ||
          (threads = std::stoll(v)) < 1 || threads > 64) {
        return UsageError("graph import", "--threads must be from 1 to 64");
      }
    } else if (!flag.empty() && flag.front() == '-') {
      return UsageError("graph import", "unknown flag '" + std::string(flag) + "'");
    } else {
      files.emplace_back(flag);
    }
  }
  if (files.empty()) return UsageError("graph import", "expected a FILE to import");
  if (table.empty()) return UsageError("graph import", "--table is required");
  CsvMapping mapping;
  if (!mapping_path.empty()) {
    auto m = ReadCsvMapping(mapping_path);
    if (!m.ok()) return CommandFailed("graph import", m.status());
    mapping = std::move(m).value();
  }
  uint64_t total_bytes = 0;
  ResumeState resume;
  resume.table = table;
  for (const std::string& file : files) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(file, ec);
    if (ec || !std::ifstream(file, std::ios::binary)) {
      return CommandFailed("graph import", Status(ErrorType::kValidation, "cannot read " + file));
    }
    total_bytes += size;
    resume.files.emplace_back(file, size);
  }
  int64_t resumed_at = 0;
  if (!resume_path.empty()) {
    auto at = ReadResume(resume_path, resume);
    if (!at.ok()) return CommandFailed("graph import", at.status());
    resumed_at = *at;
  }

  std::unique_ptr<DB> db;
  std::unique_ptr<client::Client> client;
  if (int rc = place.Open("graph import", &db, &client); rc != kExitOk) return rc;
  // `graph export` files are parsed first: the first one's schema is the table's.
  std::map<std::string, std::unique_ptr<JsonFile>> json;
  for (const std::string& file : files) {
    if (FormatOf(file, format) != "json" || json.count(file)) continue;
    auto f = std::make_unique<JsonFile>();
    std::ifstream in(file, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    f->text = std::move(ss).str();
    if (auto err = f->parser.parse(f->text).get(f->doc); err != simdjson::SUCCESS) {
      return CommandFailed("graph import", Status(ErrorType::kValidation,
                                                  file + " is not JSON: " + simdjson::error_message(err)));
    }
    json[file] = std::move(f);
  }
  // The table's conventions: the export's, a graph table's own, or the defaults.
  graph::Schema schema;
  auto detected = graph::DetectSchema(client.get(), table);
  const bool missing = !detected.ok() && detected.status().type() == ErrorType::kResourceNotFound;
  if (!detected.ok() && !missing) return CommandFailed("graph import", detected.status());
  const std::string first_json = [&] {
    for (const std::string& f : files)
      if (json.count(f)) return f;
    return std::string();
  }();
  if (!first_json.empty()) {
    schema = SchemaOf(json[first_json]->doc, table);
  } else if (detected.ok() && detected->reason.empty()) {
    schema = detected->schema;
  } else {
    schema.table_name = table;
  }

  if (missing && resumed_at > 0) {
    // The edges the progress file counts went into a table that is gone.
    return CommandFailed("graph import", Status(ErrorType::kValidation,
        resume_path + " records an import into " + table +
            ", which no longer exists: remove the file to import from the start"));
  }
  Counts counts;
  Progress progress(total_bytes);
  int64_t items_written = 0;
  auto feed = [&](graph::BulkLoader& loader) -> Status {
    for (const std::string& file : files) {
      const std::string f = FormatOf(file, format);
      if (f == "json") {
        DR_RETURN_IF_ERROR(FeedJson(loader, *json[file], file, &counts, &progress));
        continue;
      }
      std::ifstream in(file, std::ios::binary);
      if (f == "jsonl") {
        DR_RETURN_IF_ERROR(FeedJsonl(loader, in, file, &counts, &progress));
      } else {
        DR_RETURN_IF_ERROR(FeedCsv(loader, in, file, mapping.For(file, flags), schema.separator,
                                   &counts, &progress));
      }
      if (in.bad()) return Status(ErrorType::kValidation, "cannot read " + file);
    }
    progress.Done();
    DR_RETURN_IF_ERROR(loader.Finish());
    items_written = loader.items_written();
    return Status::Ok();
  };
  if (db && missing) {
    // A new table of an embedded database: straight into table files, whole
    // or not at all (an earlier run's progress does not apply).
    auto loaded = graph::LoadNewGraph(db.get(), schema, feed);
    if (!loaded.ok()) return CommandFailed("graph import", loaded.status());
  } else {
    graph::Graph g(client.get(), schema);
    if (Status s = g.EnsureTable(); !s.ok()) return CommandFailed("graph import", s);
    graph::BulkLoader loader(&g, static_cast<int>(threads));
    if (!resume_path.empty()) {
      if (resumed_at > 0) {
        std::fprintf(stderr, "dynarock graph import: resuming: the edges of the first %lld records were written\n",
                     static_cast<long long>(resumed_at));
      }
      progress.Resume(&loader, resumed_at);
      // After each batch every record before the current one has its edge
      // written (the current one may have half of an edge and its reverse).
      Status write_failed;
      loader.OnBatchWritten([&] {
        resume.done = std::max(resumed_at, progress.position() - 1);
        if (Status s = WriteResume(resume_path, resume); !s.ok() && write_failed.ok()) write_failed = s;
      });
      if (Status s = feed(loader); !s.ok()) return CommandFailed("graph import", s);
      if (!write_failed.ok()) return CommandFailed("graph import", write_failed);
    } else if (Status s = feed(loader); !s.ok()) {
      return CommandFailed("graph import", s);
    }
  }
  if (!resume_path.empty()) {
    std::error_code ec;
    std::filesystem::remove(resume_path, ec);  // done: nothing to resume
  }
  std::fprintf(stderr, "dynarock graph import: %lld nodes, %lld edges, %lld items written%s\n",
               static_cast<long long>(counts.nodes), static_cast<long long>(counts.edges),
               static_cast<long long>(items_written),
               counts.refused ? (", " + std::to_string(counts.refused) + " refused").c_str() : "");
  return counts.refused ? kExitFailure : kExitOk;
}

}  // namespace dynarock::tools
