// File: tools/shell_command.cc
//
// `dynarock shell`: an interactive PartiQL console on a data directory, in
// memory, or on any DynamoDB endpoint (AWS too). Statements go through
// ExecuteStatement (all pages); dot-commands look at tables. Line editing,
// history (~/.dynarock_history) and tab completion come from libedit.
//
//   dynarock shell --data ./data
//   dynarock shell --endpoint http://127.0.0.1:8000 -c "SELECT * FROM t"
//   dynarock shell --in-memory < script.sql      (exit 1 when a statement failed)

#include <editline/readline.h>
#include <simdjson.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <strings.h>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "client/http_client.h"
#include "dynarock/db.h"
#include "dynarock/partiql.h"
#include "engine/api/base64.h"
#include "engine/api/handler.h"
#include "engine/api/json_decode.h"
#include "engine/api/json_encode.h"
#include "engine/api/json_writer.h"
#include "tools/api_target.h"
#include "tools/command.h"

namespace dynarock::tools {
namespace {

constexpr const char* kUsage = R"(Usage: dynarock shell [--data DIR | --in-memory | --endpoint URL] [options]

An interactive PartiQL console. Statements end at a ';' or at the end of the line;
dot-commands start a line:
  .tables                 the tables
  .describe TABLE         its keys, indexes, item count and stream
  .indexes TABLE          its secondary indexes
  .explain STATEMENT      its plan: GetItem, Query or Scan, index, key condition,
                          filter, capacity, and a warning when it scans
  .export TABLE FILE      the table's items to FILE as JSON lines (DynamoDB JSON)
  .import FILE TABLE      PutItem each JSON line of FILE into TABLE
  .format table|json|jsonl  how results are printed (table: aligned, PartiQL literals)
  .capacity on|off        print the capacity each statement consumed
  .help, .quit

Options:
  --data DIR        open the database in DIR (created when missing)
  --in-memory       a throw-away database in memory (the default)
  --endpoint URL    talk to a DynamoDB endpoint (credentials from AWS_ACCESS_KEY_ID
                    and AWS_SECRET_ACCESS_KEY; region from AWS_REGION or the URL)
  -c STATEMENT      run STATEMENT (may repeat) and exit; exit status 1 on an error
At a terminal, a result longer than the screen goes through $PAGER (less -FRX).
  --format F        table (default), json or jsonl
Reads statements from standard input when it is not a terminal.
)";

// One DynamoDB operation, JSON in and out.
using Backend = std::function<StatusOr<std::string>(std::string_view op, const std::string& body)>;

// A value as a PartiQL literal, so types show: 'text', 12.5, TRUE, NULL,
// {'k': v}, [v], <<'a', 'b'>>; binary as b64'...'.
void Literal(const AttributeValue& v, std::string* out) {
  auto quote = [&](const std::string& s) {
    out->push_back('\'');
    for (char c : s) {
      if (c == '\'') out->push_back('\'');
      out->push_back(c);
    }
    out->push_back('\'');
  };
  switch (v.type()) {
    case AttrType::kS: quote(v.scalar()); break;
    case AttrType::kN: *out += v.scalar(); break;
    case AttrType::kB: *out += "b64"; quote(api::Base64Encode(v.scalar())); break;
    case AttrType::kBool: *out += v.boolean() ? "TRUE" : "FALSE"; break;
    case AttrType::kNull: *out += "NULL"; break;
    case AttrType::kL: {
      out->push_back('[');
      bool first = true;
      for (const auto& e : v.list()) {
        if (!first) *out += ", ";
        first = false;
        Literal(e, out);
      }
      out->push_back(']');
      break;
    }
    case AttrType::kM: {
      out->push_back('{');
      bool first = true;
      for (const auto& [k, e] : v.map()) {
        if (!first) *out += ", ";
        first = false;
        quote(k);
        *out += ": ";
        Literal(e, out);
      }
      out->push_back('}');
      break;
    }
    case AttrType::kSS:
    case AttrType::kNS:
    case AttrType::kBS: {
      *out += "<<";
      bool first = true;
      for (const auto& e : v.set()) {
        if (!first) *out += ", ";
        first = false;
        if (v.is(AttrType::kNS)) {
          *out += e;
        } else if (v.is(AttrType::kSS)) {
          quote(e);
        } else {
          Literal(AttributeValue::B(e), out);
        }
      }
      *out += ">>";
      break;
    }
  }
}

size_t DisplayWidth(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

class Shell {
 public:
  Shell(Backend backend, std::string format) : backend_(std::move(backend)), format_(std::move(format)) {}

  // Runs one input line (a statement or a dot-command); false on an error.
  bool Run(const std::string& line) {
    std::string s = line;
    while (!s.empty() && (std::isspace(static_cast<unsigned char>(s.back())) || s.back() == ';')) {
      s.pop_back();
    }
    size_t start = s.find_first_not_of(" \t\r\n");
    if (start == std::string::npos) return true;
    s = s.substr(start);
    if (s.rfind("--", 0) == 0) return true;  // a comment line
    if (s[0] == '.') return DotCommand(s);
    return Statement(s);
  }

  bool quit() const { return quit_; }
  std::vector<std::string> TableNames() {
    auto body = backend_("ListTables", "{}");
    std::vector<std::string> names;
    if (!body.ok()) return names;
    auto r = api::DecodeListTablesResponse(*body);
    if (r.ok()) names = r->table_names;
    return names;
  }

 private:
  bool Fail(const Status& s) {
    // "ValidationException: ..." as DynamoDB names it.
    std::fprintf(stderr, "error: %s\n", s.ToString().c_str());
    return false;
  }

  bool Statement(const std::string& statement) {
    std::vector<Item> items;
    double capacity = 0;
    std::string token;
    size_t pages = 0;
    do {
      api::JsonWriter w;
      w.BeginObject();
      w.Member("Statement", statement);
      if (!token.empty()) w.Member("NextToken", token);
      if (capacity_) w.Member("ReturnConsumedCapacity", "TOTAL");
      w.EndObject();
      auto body = backend_("ExecuteStatement", w.Release());
      if (!body.ok()) return Fail(body.status());
      simdjson::dom::parser p;
      simdjson::dom::element doc;
      simdjson::padded_string padded(*body);
      if (p.parse(padded).get(doc) != simdjson::SUCCESS) return Fail(InternalError("bad response"));
      simdjson::dom::array arr;
      if (doc["Items"].get(arr) == simdjson::SUCCESS) {
        for (simdjson::dom::element e : arr) {
          auto item = api::DecodeItemJson(simdjson::minify(e));
          if (item.ok()) items.push_back(std::move(*item));
        }
      }
      double units = 0;
      if (doc["ConsumedCapacity"]["CapacityUnits"].get(units) == simdjson::SUCCESS) capacity += units;
      std::string_view next;
      token = doc["NextToken"].get(next) == simdjson::SUCCESS ? std::string(next) : "";
    } while (!token.empty() && ++pages < 1000);
    const bool write = strncasecmp(statement.c_str(), "SELECT", 6) != 0;
    if (write && items.empty()) {
      std::printf("ok\n");
      std::fflush(stdout);
    } else {
      Print(items);
    }
    if (capacity_) std::printf("-- consumed capacity: %g\n", capacity);
    return true;
  }

  void Print(const std::vector<Item>& items) {
    if (format_ == "json" || format_ == "jsonl") {
      if (format_ == "json") std::printf("[");
      for (size_t i = 0; i < items.size(); ++i) {
        std::string j = api::EncodeItemJson(items[i]);
        if (format_ == "json") {
          std::printf("%s%s", i ? ",\n " : "", j.c_str());
        } else {
          std::printf("%s\n", j.c_str());
        }
      }
      if (format_ == "json") std::printf("]\n");
      std::fflush(stdout);
      return;
    }
    // An aligned table: the attributes in the order they first appear.
    std::vector<std::string> columns;
    std::set<std::string> seen;
    for (const auto& item : items) {
      for (const auto& [name, v] : item) {
        if (seen.insert(name).second) columns.push_back(name);
      }
    }
    std::vector<std::vector<std::string>> rows;
    std::vector<size_t> width;
    for (const auto& c : columns) width.push_back(DisplayWidth(c));
    for (const auto& item : items) {
      std::vector<std::string> row;
      for (size_t i = 0; i < columns.size(); ++i) {
        std::string cell;
        auto it = item.find(columns[i]);
        if (it != item.end()) Literal(it->second, &cell);
        if (cell.size() > 60) cell = cell.substr(0, 57) + "...";
        width[i] = std::max(width[i], DisplayWidth(cell));
        row.push_back(std::move(cell));
      }
      rows.push_back(std::move(row));
    }
    std::string text;
    auto line = [&](const std::vector<std::string>& cells) {
      for (size_t i = 0; i < cells.size(); ++i) {
        if (i) text += " | ";
        text += cells[i];
        if (i + 1 < cells.size()) text += std::string(width[i] - DisplayWidth(cells[i]), ' ');
      }
      text += "\n";
    };
    if (!columns.empty()) {
      line(columns);
      for (size_t i = 0; i < columns.size(); ++i) text += (i ? "-+-" : "") + std::string(width[i], '-');
      text += "\n";
      for (const auto& r : rows) line(r);
    }
    text += "(" + std::to_string(items.size()) + " item" + (items.size() == 1 ? "" : "s") + ")\n";
    Emit(text, rows.size());
  }

  // Prints `text`; at a terminal, a result longer than the screen goes through
  // the pager ($PAGER, else `less -FRX`, which quits when it fits).
  void Emit(const std::string& text, size_t rows) {
    if (interactive_ && rows + 4 > 40) {
      const char* pager = std::getenv("PAGER");
      std::fflush(stdout);
      if (FILE* p = popen(pager != nullptr && *pager ? pager : "less -FRX", "w")) {
        std::fwrite(text.data(), 1, text.size(), p);
        if (pclose(p) != -1) return;
      }
    }
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
  }

 public:
  void set_interactive(bool on) { interactive_ = on; }

 private:

  bool DotCommand(const std::string& s) {
    std::vector<std::string> words;
    size_t i = 0;
    while (i < s.size()) {
      while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
      size_t j = i;
      while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j]))) ++j;
      if (j > i) words.push_back(s.substr(i, j - i));
      i = j;
    }
    const std::string& cmd = words[0];
    if (cmd == ".quit" || cmd == ".exit") {
      quit_ = true;
      return true;
    }
    if (cmd == ".help") {
      std::printf("%s", kUsage);
      return true;
    }
    if (cmd == ".tables") {
      for (const auto& t : TableNames()) std::printf("%s\n", t.c_str());
      return true;
    }
    if (cmd == ".format") {
      if (words.size() != 2 || (words[1] != "table" && words[1] != "json" && words[1] != "jsonl")) {
        return Fail(ValidationError(".format table|json|jsonl"));
      }
      format_ = words[1];
      return true;
    }
    if (cmd == ".capacity") {
      if (words.size() != 2 || (words[1] != "on" && words[1] != "off")) {
        return Fail(ValidationError(".capacity on|off"));
      }
      capacity_ = words[1] == "on";
      return true;
    }
    if (cmd == ".explain") {
      std::string statement = s.substr(s.find(".explain") + 8);
      // `?` parameters stand for values the plan does not depend on.
      std::vector<AttributeValue> params(64, AttributeValue::S("?"));
      auto plan = ExplainStatement(statement, params, [&](const std::string& table)
                                       -> StatusOr<TableDescription> {
        DR_ASSIGN_OR_RETURN(DescribeTableResponse d, Describe(table));
        return std::move(d.table);
      });
      if (!plan.ok()) return Fail(plan.status());
      std::printf("%s", plan->c_str());
      std::fflush(stdout);
      return true;
    }
    if (cmd == ".export") {
      if (words.size() != 3) return Fail(ValidationError(".export TABLE FILE"));
      FILE* f = std::fopen(words[2].c_str(), "w");
      if (f == nullptr) return Fail(ValidationError("cannot write " + words[2]));
      size_t n = 0;
      std::string start;
      do {
        std::string body = "{\"TableName\":" + Quoted(words[1]) +
                           (start.empty() ? "" : ",\"ExclusiveStartKey\":" + start) + "}";
        auto r = backend_("Scan", body);
        if (!r.ok()) {
          std::fclose(f);
          return Fail(r.status());
        }
        simdjson::dom::parser p;
        simdjson::dom::element doc;
        simdjson::padded_string padded(*r);
        if (p.parse(padded).get(doc) != simdjson::SUCCESS) break;
        simdjson::dom::array items;
        if (doc["Items"].get(items) == simdjson::SUCCESS) {
          for (simdjson::dom::element e : items) {
            std::fprintf(f, "%s\n", std::string(simdjson::minify(e)).c_str());
            ++n;
          }
        }
        simdjson::dom::element lek;
        start = doc["LastEvaluatedKey"].get(lek) == simdjson::SUCCESS ? std::string(simdjson::minify(lek)) : "";
      } while (!start.empty());
      std::fclose(f);
      std::printf("exported %zu item%s\n", n, n == 1 ? "" : "s");
      return true;
    }
    if (cmd == ".import") {
      if (words.size() != 3) return Fail(ValidationError(".import FILE TABLE"));
      std::ifstream in(words[1]);
      if (!in) return Fail(ValidationError("cannot read " + words[1]));
      std::string line;
      size_t n = 0, lineno = 0;
      while (std::getline(in, line)) {
        ++lineno;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        auto r = backend_("PutItem", "{\"TableName\":" + Quoted(words[2]) + ",\"Item\":" + line + "}");
        if (!r.ok()) {
          std::fprintf(stderr, "line %zu: ", lineno);
          Fail(r.status());
          std::printf("imported %zu item%s before the error\n", n, n == 1 ? "" : "s");
          return false;
        }
        ++n;
      }
      std::printf("imported %zu item%s\n", n, n == 1 ? "" : "s");
      return true;
    }
    if (cmd == ".describe" || cmd == ".indexes") {
      if (words.size() != 2) return Fail(ValidationError(cmd + " TABLE"));
      auto d = Describe(words[1]);
      if (!d.ok()) return Fail(d.status());
      const TableDescription& t = d->table;
      auto keys = [](const std::vector<KeySchemaElement>& ks) {
        std::string out;
        for (const auto& k : ks) {
          out += (out.empty() ? "" : ", ") + k.attribute_name +
                 (k.key_type == KeyType::kHash ? " (HASH)" : " (RANGE)");
        }
        return out;
      };
      if (cmd == ".describe") {
        std::printf("table:     %s (%s)\n", t.table_name.c_str(), t.table_status.c_str());
        std::printf("key:       %s\n", keys(t.key_schema).c_str());
        std::string defs;
        for (const auto& a : t.attribute_definitions) {
          defs += (defs.empty() ? "" : ", ") + a.attribute_name + " " +
                  std::string(AttrTypeName(a.attribute_type));
        }
        std::printf("types:     %s\n", defs.c_str());
        std::printf("items:     %lld (%lld bytes)\n", static_cast<long long>(t.item_count),
                    static_cast<long long>(t.table_size_bytes));
        std::printf("billing:   %s\n", t.billing_mode.value_or("PROVISIONED").c_str());
        if (t.latest_stream_arn) std::printf("stream:    %s\n", t.latest_stream_arn->c_str());
      }
      size_t n = 0;
      for (const auto* list : {&t.global_secondary_indexes, &t.local_secondary_indexes}) {
        for (const auto& ix : *list) {
          ++n;
          std::printf("%s %s: %s\n", list == &t.global_secondary_indexes ? "GSI" : "LSI",
                      ix.index_name.c_str(), keys(ix.key_schema).c_str());
        }
      }
      if (n == 0 && cmd == ".indexes") std::printf("(no secondary indexes)\n");
      return true;
    }
    return Fail(ValidationError("unknown command " + cmd + " (.help lists them)"));
  }

  static std::string Quoted(const std::string& s) {
    std::string out;
    api::AppendJsonString(s, &out);
    return out;
  }

  StatusOr<DescribeTableResponse> Describe(const std::string& table) {
    DR_ASSIGN_OR_RETURN(std::string body, backend_("DescribeTable", "{\"TableName\":" + Quoted(table) + "}"));
    return api::DecodeDescribeTableResponse(body);
  }

  Backend backend_;
  std::string format_;
  bool capacity_ = false;
  bool quit_ = false;
  bool interactive_ = false;
};

// ---------------------------------------------------------------- line editing

Shell* g_shell = nullptr;
std::vector<std::string> g_words;

char* CompletionWord(const char* text, int state) {
  static size_t index;
  if (state == 0) index = 0;
  size_t len = std::strlen(text);
  while (index < g_words.size()) {
    const std::string& w = g_words[index++];
    if (w.size() >= len && strncasecmp(w.c_str(), text, len) == 0) return strdup(w.c_str());
  }
  return nullptr;
}

char** Complete(const char* text, int, int) {
  static const char* kKeywords[] = {
      "SELECT", "FROM", "WHERE", "AND", "OR", "NOT", "BETWEEN", "IN", "IS", "MISSING", "NULL",
      "INSERT", "INTO", "VALUE", "UPDATE", "SET", "REMOVE", "DELETE", "RETURNING", "ALL",
      "MODIFIED", "OLD", "NEW", "ORDER", "BY", "ASC", "DESC", "EXISTS", "TRUE", "FALSE",
      "begins_with", "contains", "attribute_type", "size", "list_append", "set_add",
      "set_delete", ".tables", ".describe", ".indexes", ".explain", ".export", ".import",
      ".format", ".capacity", ".help", ".quit"};
  g_words.assign(std::begin(kKeywords), std::end(kKeywords));
  if (g_shell != nullptr) {
    for (auto& t : g_shell->TableNames()) g_words.push_back(t);
  }
  rl_attempted_completion_over = 1;
  return rl_completion_matches(text, CompletionWord);
}

std::string HistoryPath() {
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr ? home : ".") + "/.dynarock_history";
}

}  // namespace

int RunShell(const Args& args) {
  std::string data, endpoint, format = "table";
  bool in_memory = false;
  std::vector<std::string> commands;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string_view a = args[i];
    auto value = [&](std::string* out) {
      if (i + 1 >= args.size()) return false;
      *out = std::string(args[++i]);
      return true;
    };
    if (a == "--help" || a == "-h") {
      std::printf("%s", kUsage);
      return kExitOk;
    } else if (a == "--data") {
      if (!value(&data)) return UsageError("shell", "--data needs a directory");
    } else if (a == "--in-memory") {
      in_memory = true;
    } else if (a == "--endpoint") {
      if (!value(&endpoint)) return UsageError("shell", "--endpoint needs a URL");
    } else if (a == "-c") {
      std::string c;
      if (!value(&c)) return UsageError("shell", "-c needs a statement");
      commands.push_back(std::move(c));
    } else if (a == "--format") {
      if (!value(&format) || (format != "table" && format != "json" && format != "jsonl")) {
        return UsageError("shell", "--format is table, json or jsonl");
      }
    } else {
      return UsageError("shell", "unknown argument " + std::string(a));
    }
  }
  if (!endpoint.empty() && (!data.empty() || in_memory)) {
    return UsageError("shell", "--endpoint excludes --data and --in-memory");
  }

  auto target = ApiTarget::Open(data, endpoint, in_memory);
  if (!target.ok()) {
    std::fprintf(stderr, "dynarock shell: %s\n", target.status().message().c_str());
    return kExitFailure;
  }
  Backend backend = [&](std::string_view op, const std::string& body) {
    return (*target)->Call(op, body);
  };

  Shell shell(backend, format);
  bool ok = true;
  if (!commands.empty()) {
    for (const auto& c : commands) ok = shell.Run(c) && ok;
    return ok ? kExitOk : kExitFailure;
  }
  if (!isatty(STDIN_FILENO)) {
    std::string line, pending;
    while (std::getline(std::cin, line) && !shell.quit()) {
      // A statement may span lines until its ';'; a dot-command is one line.
      std::string trimmed = line;
      trimmed.erase(0, trimmed.find_first_not_of(" \t"));
      if (pending.empty() && (trimmed.empty() || trimmed.rfind("--", 0) == 0)) continue;
      if (pending.empty() && trimmed[0] == '.') {
        ok = shell.Run(trimmed) && ok;
        continue;
      }
      pending += line + "\n";
      if (trimmed.find(';') != std::string::npos) {
        ok = shell.Run(pending) && ok;
        pending.clear();
      }
    }
    if (!pending.empty()) ok = shell.Run(pending) && ok;
    return ok ? kExitOk : kExitFailure;
  }

  // Interactive.
  shell.set_interactive(true);
  g_shell = &shell;
  rl_attempted_completion_function = Complete;
  const std::string history = HistoryPath();
  read_history(history.c_str());
  std::printf("dynarock shell: PartiQL on %s. End statements with ';' or Enter; .help for "
              "commands.\n",
              endpoint.empty() ? (data.empty() ? "an in-memory database" : data.c_str())
                               : endpoint.c_str());
  while (!shell.quit()) {
    char* raw = readline("dynarock> ");
    if (raw == nullptr) break;  // end of input
    std::string line(raw);
    std::free(raw);
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    add_history(line.c_str());
    shell.Run(line);
  }
  write_history(history.c_str());
  g_shell = nullptr;
  return kExitOk;
}

}  // namespace dynarock::tools
