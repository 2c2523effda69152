// File: tools/patterns_command.cc
//
// `dynarock patterns`: runs named access patterns over generated data on an
// embedded in-memory DB and compares them side by side (requests, items, bytes,
// RCU/WCU, latency, on-demand cost). The work is in tools/patterns/.

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <string>

#include "tools/command.h"
#include "tools/patterns/builtin.h"
#include "tools/patterns/report.h"
#include "tools/patterns/runner.h"
#include "tools/patterns/user_file.h"

namespace dynarock::tools {
namespace {

constexpr char kPatternsHelp[] =
    "Usage: dynarock patterns [COMPARISON...] [flags]\n"
    "\n"
    "Runs DynamoDB access patterns over generated data on an embedded in-memory\n"
    "database and prints them side by side, per execution of each pattern: requests,\n"
    "items read (evaluated, as DynamoDB bills them), items and bytes returned, read and\n"
    "write capacity units (from ReturnConsumedCapacity=INDEXES on every request), p50\n"
    "and p99 latency (time inside the DB calls), and the on-demand cost per million\n"
    "executions. On-demand mode bills read/write request units, which are the read/\n"
    "write capacity units a request consumes:\n"
    "  cost per million executions = RCU * read price + WCU * write price.\n"
    "\n"
    "Built-in comparisons (all of them when none is named; docs/patterns.md explains\n"
    "each):\n"
    "  adjacency   adjacency-list edge items (Query PK=USER#x, begins_with(SK,'FRIEND#'))\n"
    "              vs a nested friends list (GetItem), reading and adding a friend\n"
    "  edge-set    edge-set batch fetch (GetItem + BatchGetItem) vs N+1 requests\n"
    "              (Query + one GetItem per neighbour)\n"
    "  type-index  Query of a GSI on Type vs Scan + FilterExpression on Type\n"
    "  hierarchy   composite sort key COUNTRY#STATE#CITY (begins_with) vs a GSI per\n"
    "              level, reading a city or a state and adding a store\n"
    "\n"
    "Flags:\n"
    "  --file FILE        Run the patterns of a JSON pattern file (setup: tables and\n"
    "                     generated items; patterns: lists of DynamoDB requests with\n"
    "                     {i}, {j}, {rand}, {rand:N} placeholders). Without COMPARISON\n"
    "                     names only the file's patterns run. Format: docs/patterns.md,\n"
    "                     example: tests/data/patterns_example.json\n"
    "  --iterations N     Measured executions per pattern (default 200; a pattern\n"
    "                     file's \"iterations\" overrides it)\n"
    "  --warmup N         Unmeasured executions before them (default 10)\n"
    "  --size N           Entities per built-in data set: users, goals, persons,\n"
    "                     stores (default 1000)\n"
    "  --fanout N         Friends per user, members per goal (default 50)\n"
    "  --seed N           Seed of the generated data and random choices (default 1);\n"
    "                     all numbers but latencies are the same for the same seed\n"
    "  --round-trip-us N  Add N microseconds per request to each execution's latency,\n"
    "                     to model the network round trips an embedded run does not\n"
    "                     pay (e.g. 500 for a client in the same region; default 0)\n"
    "  --read-price USD   USD per million read request units (default 0.125)\n"
    "  --write-price USD  USD per million write request units (default 0.625)\n"
    "                     The defaults are AWS's on-demand prices for us-east-1, Standard\n"
    "                     table class (https://aws.amazon.com/dynamodb/pricing/on-demand/,\n"
    "                     since the 50% on-demand price cut of 1 November 2024). Check the\n"
    "                     page for your region and table class.\n"
    "  --format FORMAT    table (default), csv or json\n"
    "  --svg FILE         Also write a bar chart (latency and cost per pattern, grouped\n"
    "                     by comparison) as a self-contained SVG file\n"
    "  --list             List the built-in comparisons and their patterns, and exit\n"
    "  -h, --help         Show this help\n"
    "\n"
    "Examples:\n"
    "  dynarock patterns\n"
    "  dynarock patterns edge-set --fanout 50 --format csv\n"
    "  dynarock patterns --file my_patterns.json --svg chart.svg\n";

bool ParsePrice(const std::string& s, double* out) {
  double v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size() || !(v >= 0) || v > 1e9) return false;
  *out = v;
  return true;
}

// False with errno set when `path` cannot be opened or read (a directory: EISDIR).
bool ReadFile(const std::string& path, std::string* out) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out->append(buf, n);
  const bool ok = !std::ferror(f);
  const int saved = errno;
  std::fclose(f);
  errno = saved;
  return ok;
}

bool WriteFile(const std::string& path, const std::string& data) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return false;
  bool ok = std::fwrite(data.data(), 1, data.size(), f) == data.size();
  return std::fclose(f) == 0 && ok;
}

}  // namespace

int RunPatterns(const Args& args) {
  patterns::RunOptions run;
  patterns::BuiltinOptions builtin;
  std::string file, format = "table", svg;
  std::vector<std::string> names;
  bool list = false;

  ArgReader r(args);
  std::string v;
  while (r.Next()) {
    const std::string_view flag = r.flag();
    auto need_value = [&]() -> bool { return r.Value(&v); };
    auto number = [&](long long min, long long max, long long* out) -> bool {
      return need_value() && ParseInt(v, min, max, out);
    };
    long long n = 0;
    if (flag == "--help" || flag == "-h") {
      std::fputs(kPatternsHelp, stdout);
      return kExitOk;
    } else if (flag == "--list") {
      if (r.HasInlineValue()) return UsageError("patterns", "--list takes no value");
      list = true;
    } else if (flag == "--file") {
      if (!need_value() || v.empty()) return UsageError("patterns", "--file needs a file name");
      file = v;
    } else if (flag == "--iterations") {
      if (!number(1, patterns::kMaxIterations, &n)) {
        return UsageError("patterns", "--iterations needs a number from 1 to 100000000");
      }
      run.iterations = n;
    } else if (flag == "--warmup") {
      if (!number(0, 100000000, &n)) {
        return UsageError("patterns", "--warmup needs a number from 0 to 100000000");
      }
      run.warmup = n;
    } else if (flag == "--size") {
      if (!number(2, 10000000, &n)) {
        return UsageError("patterns", "--size needs a number from 2 to 10000000");
      }
      builtin.size = n;
    } else if (flag == "--fanout") {
      if (!number(1, 10000, &n)) {
        return UsageError("patterns", "--fanout needs a number from 1 to 10000");
      }
      builtin.fanout = n;
    } else if (flag == "--seed") {
      if (!number(0, 999999999999999999LL, &n)) {
        return UsageError("patterns", "--seed needs a whole number");
      }
      run.seed = static_cast<uint64_t>(n);
    } else if (flag == "--round-trip-us") {
      if (!need_value() || !ParsePrice(v, &run.round_trip_us)) {
        return UsageError("patterns", "--round-trip-us needs a number of microseconds, e.g. 500");
      }
    } else if (flag == "--read-price") {
      if (!need_value() || !ParsePrice(v, &run.prices.read_per_million)) {
        return UsageError("patterns", "--read-price needs a price in USD per million units, e.g. 0.125");
      }
    } else if (flag == "--write-price") {
      if (!need_value() || !ParsePrice(v, &run.prices.write_per_million)) {
        return UsageError("patterns", "--write-price needs a price in USD per million units, e.g. 0.625");
      }
    } else if (flag == "--format") {
      if (!need_value() || (v != "table" && v != "csv" && v != "json")) {
        return UsageError("patterns", "--format must be table, csv or json");
      }
      format = v;
    } else if (flag == "--svg") {
      if (!need_value() || v.empty()) return UsageError("patterns", "--svg needs a file name");
      svg = v;
    } else if (!flag.empty() && flag.front() == '-') {
      return UsageError("patterns", "unknown flag '" + std::string(flag) + "'");
    } else {
      names.emplace_back(flag);
    }
  }
  if (builtin.fanout >= builtin.size) {
    return UsageError("patterns", "--fanout must be smaller than --size");
  }

  std::vector<patterns::Suite> all = patterns::BuiltinSuites(builtin);
  if (list) {
    for (const auto& s : all) {
      std::printf("%s: %s\n", s.name.c_str(), s.title.c_str());
      for (const auto& p : s.patterns) {
        std::printf("  %-22s %s\n", p.name.c_str(), p.description.c_str());
      }
    }
    return kExitOk;
  }

  std::vector<patterns::Suite> suites;
  for (const std::string& name : names) {
    bool found = false;
    for (const auto& s : all) {
      if (s.name == name) {
        suites.push_back(s);
        found = true;
      }
    }
    if (!found) {
      std::string known;
      for (const auto& s : all) known += (known.empty() ? "" : ", ") + s.name;
      return UsageError("patterns", "unknown comparison '" + name + "' (built in: " + known + ")");
    }
  }
  if (!file.empty()) {
    std::string text;
    if (!ReadFile(file, &text)) {
      std::fprintf(stderr, "dynarock patterns: cannot read %s: %s\n", file.c_str(),
                   std::strerror(errno));
      return kExitFailure;
    }
    auto suite = patterns::LoadPatternFile(text, file);
    if (!suite.ok()) {
      std::fprintf(stderr, "dynarock patterns: %s\n", suite.status().message().c_str());
      return kExitFailure;
    }
    suites.push_back(std::move(suite).value());
  } else if (names.empty()) {
    suites = all;
  }

  patterns::ReportInfo info;
  info.options = run;
  std::vector<patterns::PatternResult> results;
  for (const auto& suite : suites) {
    info.titles.emplace_back(suite.name, suite.title);
    Status s = patterns::RunSuite(suite, run, &results);
    if (!s.ok()) {
      std::fprintf(stderr, "dynarock patterns: %s\n", s.ToString().c_str());
      return kExitFailure;
    }
  }

  std::string out;
  if (format == "csv") {
    out = patterns::FormatCsv(results);
  } else if (format == "json") {
    out = patterns::FormatJson(results, info);
  } else {
    out = patterns::FormatTable(results, info);
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
  if (!svg.empty() && !WriteFile(svg, patterns::RenderSvg(results, info))) {
    std::fprintf(stderr, "dynarock patterns: cannot write %s: %s\n", svg.c_str(),
                 std::strerror(errno));
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace dynarock::tools
