// File: tools/graph_walk_command.cc
//
// `dynarock graph query walk NODE... --step out:TYPE[,TYPE] [step flags]
// [--step in:TYPE ...] --table T (--data DIR | --endpoint URL)`: a traversal
// composed of steps (Graph::Traverse), each with its key condition, edge
// filter, validity time, node filter and fan-out; results a page at a time
// with a cursor; `--plan` shows how each step read and what it cost.

#include <simdjson.h>

#include <cctype>
#include <charconv>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "engine/api/json_decode.h"
#include "engine/api/json_writer.h"
#include "graph/export.h"
#include "graph/graph.h"
#include "tools/command.h"
#include "tools/graph_client.h"

namespace dynarock::tools {
namespace {

constexpr char kWalkHelp[] =
    "Usage: dynarock graph query walk NODE... --step DIR:TYPES [step flags] [--step ...]\n"
    "                                 --table T (--data DIR | --endpoint URL) [flags]\n"
    "\n"
    "A traversal from the NODEs (which must exist), one --step after another; the\n"
    "results are the nodes the last step reaches, in the order found.\n"
    "\n"
    "  --step DIR:TYPES       out:A,B (along the adjacency list; out alone: every\n"
    "                         type) or in:A,B (through the inverted index)\n"
    "The flags below apply to the step before them:\n"
    "  --key 'OP VALUE'       A key condition on the step's one type: on the target\n"
    "                         id (out) or the rank (in). OP: = < <= > >= begins_with,\n"
    "                         or 'between A B'\n"
    "  --edge-filter EXPR     A FilterExpression on the edges' properties (sent with\n"
    "                         the queries)\n"
    "  --valid-at SECONDS     Only edges valid at that time (validity intervals: the\n"
    "                         attributes of --valid-from and --valid-to)\n"
    "  --node-filter EXPR     A condition on the reached nodes' attributes (the nodes\n"
    "                         are read and it is evaluated by DynamoDB's rules)\n"
    "  --fan-out N            At most N edges followed per node\n"
    "\n"
    "Flags:\n"
    "  --names JSON           #placeholders of the expressions: {\"#n\": \"name\"}\n"
    "  --values JSON          :placeholders, DynamoDB JSON: {\":v\": {\"S\": \"x\"}}\n"
    "  --limit N              Results per page (default: all); the next page's\n"
    "                         --cursor is printed after them\n"
    "  --cursor C             Continue the same walk from a page's cursor\n"
    "  --max-visited N        Stop discovering after N nodes (default 100000)\n"
    "  --valid-from A, --valid-to A\n"
    "                         The edges' validity attributes (default validFrom and\n"
    "                         validTo; N, seconds since the epoch)\n"
    "  --plan                 Also print each step's plan and cost (requests, items\n"
    "                         read, read capacity units); JSON always has them\n"
    "  --format F             table (default) or json\n"
    "  --table T, --endpoint URL, --region R, --ca-file FILE, --data DIR\n"
    "  -h, --help             Show this help\n";

int Usage(const std::string& why) { return UsageError("graph query walk", why); }

// The #names and :values an expression uses, out of the command's maps.
graph::Filter FilterOf(const std::string& expression, const NameMap& names, const ValueMap& values) {
  graph::Filter f;
  f.expression = expression;
  for (size_t i = 0; i < expression.size(); ++i) {
    const char c = expression[i];
    if (c != '#' && c != ':') continue;
    size_t j = i + 1;
    while (j < expression.size() && (std::isalnum(static_cast<unsigned char>(expression[j])) || expression[j] == '_')) ++j;
    const std::string token = expression.substr(i, j - i);
    if (c == '#') {
      if (auto it = names.find(token); it != names.end()) f.names[token] = it->second;
    } else if (auto it = values.find(token); it != values.end()) {
      f.values[token] = it->second;
    }
    i = j - 1;
  }
  return f;
}

}  // namespace

int RunGraphQueryWalk(const Args& args) {
  GraphPlace place;
  std::string table, format = "table", v, names_json, values_json, valid_from, valid_to;
  std::vector<std::string> start;
  graph::TraversalRequest req;
  // Expressions are kept as text until the maps are known.
  struct Pending {
    std::string edge_filter, node_filter;
  };
  std::vector<Pending> pending;
  bool plan = false;
  ArgReader r(args);
  auto number = [&](std::string_view flag, int64_t lo, int64_t hi, int64_t* out) {
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), *out);
    if (ec == std::errc() && end == v.data() + v.size() && *out >= lo && *out <= hi) return kExitOk;
    return Usage(std::string(flag) + " must be from " + std::to_string(lo) + " to " + std::to_string(hi) +
                 ", not '" + v + "'");
  };
  while (r.Next()) {
    const std::string_view flag = r.flag();
    int rc = kExitOk;
    auto need = [&](std::string* into) {
      if (r.Value(into) && !into->empty()) return true;
      rc = Usage(std::string(flag) + " needs a value");
      return false;
    };
    auto step = [&]() -> graph::Hop* {
      if (req.hops.empty()) {
        rc = Usage(std::string(flag) + " applies to a step: give --step first");
        return nullptr;
      }
      return &req.hops.back();
    };
    if (place.Take(r, "graph query walk", &rc)) {
      if (rc != kExitOk) return rc;
    } else if (flag == "--help" || flag == "-h") {
      std::fputs(kWalkHelp, stdout);
      return kExitOk;
    } else if (flag == "--table") {
      if (!need(&table)) return rc;
    } else if (flag == "--step") {
      if (!need(&v)) return rc;
      graph::Hop hop;
      const size_t colon = v.find(':');
      const std::string dir = v.substr(0, colon);
      if (dir != "out" && dir != "in") return Usage("--step is out:TYPES or in:TYPES, not '" + v + "'");
      hop.direction = dir == "out" ? graph::Direction::kOut : graph::Direction::kIn;
      if (colon != std::string::npos) {
        for (size_t from = colon + 1; from <= v.size();) {
          const size_t comma = std::min(v.find(',', from), v.size());
          if (comma > from) hop.edge_types.push_back(v.substr(from, comma - from));
          from = comma + 1;
        }
      }
      if (hop.direction == graph::Direction::kIn && hop.edge_types.empty()) {
        return Usage("an in step names its edge types: --step in:TYPE");
      }
      req.hops.push_back(std::move(hop));
      pending.emplace_back();
    } else if (flag == "--key") {
      graph::Hop* h = step();
      if (h == nullptr || !need(&v)) return rc;
      std::vector<std::string> words;
      for (size_t from = 0; from < v.size();) {
        const size_t sp = std::min(v.find(' ', from), v.size());
        if (sp > from) words.push_back(v.substr(from, sp - from));
        from = sp + 1;
      }
      const std::string op = words.empty() ? "" : words[0];
      using KC = graph::KeyCondition;
      if (words.size() == 3 && (op == "between" || op == "BETWEEN")) {
        h->key = KC::Between(words[1], words[2]);
      } else if (words.size() != 2) {
        return Usage("--key is 'OP VALUE' or 'between A B', not '" + v + "'");
      } else if (op == "=") {
        h->key = KC::Eq(words[1]);
      } else if (op == "<") {
        h->key = KC::Lt(words[1]);
      } else if (op == "<=") {
        h->key = KC::Le(words[1]);
      } else if (op == ">") {
        h->key = KC::Gt(words[1]);
      } else if (op == ">=") {
        h->key = KC::Ge(words[1]);
      } else if (op == "begins_with") {
        h->key = KC::BeginsWith(words[1]);
      } else {
        return Usage("--key's operator is one of = < <= > >= begins_with between, not '" + op + "'");
      }
    } else if (flag == "--edge-filter") {
      if (step() == nullptr || !need(&pending.back().edge_filter)) return rc;
    } else if (flag == "--node-filter") {
      if (step() == nullptr || !need(&pending.back().node_filter)) return rc;
    } else if (flag == "--valid-at") {
      graph::Hop* h = step();
      int64_t at = 0;
      if (h == nullptr || !need(&v)) return rc;
      if ((rc = number(flag, 0, int64_t{1} << 40, &at)) != kExitOk) return rc;
      h->valid_at = at;
    } else if (flag == "--fan-out") {
      graph::Hop* h = step();
      if (h == nullptr || !need(&v) || (rc = number(flag, 1, 1000000, &h->fan_out)) != kExitOk) return rc;
    } else if (flag == "--valid-from") {
      if (!need(&valid_from)) return rc;
    } else if (flag == "--valid-to") {
      if (!need(&valid_to)) return rc;
    } else if (flag == "--names") {
      if (!need(&names_json)) return rc;
    } else if (flag == "--values") {
      if (!need(&values_json)) return rc;
    } else if (flag == "--limit") {
      if (!need(&v) || (rc = number(flag, 1, 1000000, &req.limit)) != kExitOk) return rc;
    } else if (flag == "--cursor") {
      if (!need(&req.cursor)) return rc;
    } else if (flag == "--max-visited") {
      if (!need(&v) || (rc = number(flag, 1, 10000000, &req.max_visited)) != kExitOk) return rc;
    } else if (flag == "--plan") {
      plan = true;
    } else if (flag == "--format") {
      if (!need(&format)) return rc;
      if (format != "table" && format != "json") return Usage("--format must be table or json");
    } else if (!flag.empty() && flag.front() == '-') {
      return Usage("unknown flag '" + std::string(flag) + "'");
    } else {
      start.emplace_back(flag);
    }
  }
  if (start.empty()) return Usage("expected the start NODE(s)");
  if (req.hops.empty()) return Usage("expected at least one --step");
  if (table.empty()) return Usage("--table is required");
  NameMap names;
  ValueMap values;
  if (!names_json.empty()) {
    simdjson::dom::parser parser;
    simdjson::dom::object o;
    if (parser.parse(names_json).get(o) != simdjson::SUCCESS) {
      return Usage("--names must be a JSON object of strings: {\"#n\": \"name\"}");
    }
    for (auto [k, val] : o) {
      std::string_view s;
      if (val.get(s) != simdjson::SUCCESS) return Usage("--names must be a JSON object of strings");
      names[std::string(k)] = std::string(s);
    }
  }
  if (!values_json.empty()) {
    auto item = api::DecodeItemJson(values_json);
    if (!item.ok()) return Usage("--values must be DynamoDB JSON ({\":v\": {\"S\": \"x\"}}): " + item.status().message());
    for (auto& [k, val] : *item) values[k] = std::move(val);
  }
  for (size_t k = 0; k < req.hops.size(); ++k) {
    if (!pending[k].edge_filter.empty()) req.hops[k].filter = FilterOf(pending[k].edge_filter, names, values);
    if (!pending[k].node_filter.empty()) {
      req.hops[k].node_filter = FilterOf(pending[k].node_filter, names, values);
    }
  }
  req.start = start;

  std::unique_ptr<DB> db;
  std::unique_ptr<client::Client> client;
  graph::DetectedSchema detected;
  if (int rc = place.OpenTable("graph query walk", table, &db, &client, &detected); rc != kExitOk) return rc;
  if (!valid_from.empty()) detected.schema.valid_from_attribute = valid_from;
  if (!valid_to.empty()) detected.schema.valid_to_attribute = valid_to;
  graph::Graph g(client.get(), detected.schema);
  auto t = g.Traverse(req);
  if (!t.ok()) return CommandFailed("graph query walk", t.status());

  std::string out;
  if (format == "json") {
    api::JsonWriter w;
    graph::WriteTraversalJson(w, *t);
    out = w.Release() + "\n";
  } else {
    for (const std::string& id : t->results) out += id + "\n";
    if (t->results.empty()) out += "(no nodes)\n";
    if (t->truncated) out += "(stopped after --max-visited nodes)\n";
    if (!t->next_cursor.empty()) out += "more: --cursor " + t->next_cursor + "\n";
    if (plan) {
      out += "\nplan and cost:\n";
      int64_t requests = 0, items = 0;
      double units = 0;
      for (size_t i = 0; i < t->steps.size(); ++i) {
        const graph::TraversalStep& s = t->steps[i];
        char cost[160];
        std::snprintf(cost, sizeof cost, "%lld requests, %lld items read, %.1f RCU; %lld -> %lld nodes",
                      static_cast<long long>(s.requests), static_cast<long long>(s.items_read), s.read_units,
                      static_cast<long long>(s.frontier), static_cast<long long>(s.reached));
        out += "  " + std::to_string(i) + ". " + s.plan + "\n     " + cost + "\n";
        requests += s.requests;
        items += s.items_read;
        units += s.read_units;
      }
      char total[120];
      std::snprintf(total, sizeof total, "  total: %lld requests, %lld items read, %.1f RCU\n",
                    static_cast<long long>(requests), static_cast<long long>(items), units);
      out += total;
    }
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return kExitOk;
}

}  // namespace dynarock::tools
