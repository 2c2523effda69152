// File: tools/report_command.cc
//
// `dynarock report FILE [--html OUT.html]`: reads a request log written by
// `serve --request-log FILE` (engine/api/request_log.h) and prints what a
// developer wants to know after a test run: operations by count, latency and
// capacity, every Scan, filters that threw most of what they read away, hot
// partition keys, Contributor Insights' rules (most accessed and most
// throttled keys), items near the 400 KB limit, transactions that conflicted,
// the SDK retries seen (a request repeated with the same body after it failed)
// and the fault rules that fired.

#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>

#include "tools/command.h"
#include "tools/report.h"

namespace dynarock::tools {
namespace {

namespace dom = simdjson::dom;

constexpr char kReportHelp[] =
    "Usage: dynarock report FILE [--html OUT.html] [--top N]\n"
    "\n"
    "Summarises a request log (dynarock serve --request-log FILE): operations by\n"
    "count, latency and consumed capacity; capacity by table and index; every Scan;\n"
    "filters that discarded most of what they read; hot partition keys; Contributor\n"
    "Insights' rules (most accessed and most throttled keys, as DynamoDB counts\n"
    "them); items near the 400 KB limit; transactions that conflicted; retries\n"
    "seen (a request sent again with the same body after it failed); fault rules\n"
    "that fired.\n"
    "\n"
    "Flags:\n"
    "  --html OUT.html   Also write the report as a self-contained HTML page with\n"
    "                    SVG charts\n"
    "  --top N           How many hot partition keys and large items to list\n"
    "                    (default 10)\n"
    "  -h, --help        Show this help\n"
    "\n"
    "Lines that are not request-log JSON are counted and skipped.\n";

bool IsReadOperation(std::string_view op) {
  return op == "GetItem" || op == "Query" || op == "Scan" || op == "BatchGetItem" ||
         op == "TransactGetItems";
}

std::string_view Str(dom::object o, std::string_view key) {
  std::string_view v;
  if (o[key].get_string().get(v) != simdjson::SUCCESS) return {};
  return v;
}

double Num(dom::element e) {
  double d = 0;
  if (e.is_double()) return e.get_double().value_unsafe();
  if (e.is_int64()) return static_cast<double>(e.get_int64().value_unsafe());
  if (e.is_uint64()) return static_cast<double>(e.get_uint64().value_unsafe());
  return d;
}

double Num(dom::object o, std::string_view key, double missing = 0) {
  dom::element e;
  if (o[key].get(e) != simdjson::SUCCESS) return missing;
  return Num(e);
}

bool Bool(dom::object o, std::string_view key) {
  bool b = false;
  return o[key].get_bool().get(b) == simdjson::SUCCESS && b;
}

std::string Fixed(double v, int decimals = 1) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

void Line(std::string* out, const char* fmt, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, fmt, args...);
  out->append(buf);
  out->push_back('\n');
}

void AddLine(Report& r, dom::object o,
             std::unordered_map<std::string, bool>* last_failed) {
  const std::string op(Str(o, "operation"));
  const std::string table(Str(o, "table"));
  const std::string index(Str(o, "index"));
  const std::string_view error = Str(o, "error");
  const double latency = Num(o, "latency_ms");
  ++r.requests;
  const std::string time(Str(o, "time"));
  if (!time.empty()) {
    if (r.first_time.empty() || time < r.first_time) r.first_time = time;
    if (time > r.last_time) r.last_time = time;
  }
  ReportOperation& ro = r.operations[op];
  ++ro.count;
  ro.latency_ms_total += latency;
  ro.latency_ms_max = std::max(ro.latency_ms_max, latency);
  ro.latencies_ms.push_back(latency);
  const bool failed = !error.empty();
  if (failed) {
    ++ro.errors;
    ++r.errors;
    ++r.error_types[std::string(error)];
  }

  // Contributor Insights' rules (report.h): the table's own units (its
  // indexes' taken out), 3 a write unit.
  double insight_units = 0;
  dom::array consumed;
  if (o["consumed"].get_array().get(consumed) == simdjson::SUCCESS) {
    for (dom::element ce : consumed) {
      dom::object c;
      if (ce.get_object().get(c) != simdjson::SUCCESS) continue;
      const std::string t(Str(c, "table"));
      double read = Num(c, "read"), write = Num(c, "write");
      const double units = Num(c, "units");
      if (read == 0 && write == 0 && units > 0) (IsReadOperation(op) ? read : write) = units;
      ro.capacity.read += read;
      ro.capacity.write += write;
      if (t == table) {
        // A read of an index counts for the index's rules; otherwise the
        // table's own units count, its indexes' taken out.
        double own_read = read, own_write = write;
        dom::object own_idx;
        if (c["indexes"].get_object().get(own_idx) == simdjson::SUCCESS) {
          for (auto field : own_idx) {
            if (!index.empty() && field.key == index) insight_units += Num(field.value);
            (IsReadOperation(op) ? own_read : own_write) -= Num(field.value);
          }
        }
        if (index.empty()) insight_units += 3 * std::max(0.0, own_write) + std::max(0.0, own_read);
      }
      r.tables[t].read += read;
      r.tables[t].write += write;
      dom::object idx;
      if (c["indexes"].get_object().get(idx) == simdjson::SUCCESS) {
        for (auto field : idx) {
          ReportCapacity& ic = r.indexes[t + "/" + std::string(field.key)];
          (IsReadOperation(op) ? ic.read : ic.write) += Num(field.value);
        }
      }
    }
  }

  const std::string where = index.empty() ? table : table + "/" + index;
  if (op == "Scan") {
    ReportScan& s = r.scans[where];
    ++s.requests;
    s.scanned += static_cast<uint64_t>(Num(o, "items_scanned"));
    s.returned += static_cast<uint64_t>(Num(o, "items_returned"));
    const std::string_view end = Str(o, "page_end");
    if (!end.empty()) ++s.page_ends[std::string(end)];
  }
  if (Bool(o, "filtered")) {
    ReportFiltered& f = r.filters[op + " " + where];
    ++f.requests;
    f.scanned += static_cast<uint64_t>(Num(o, "items_scanned"));
    f.returned += static_cast<uint64_t>(Num(o, "items_returned"));
  }
  const std::string_view pk = Str(o, "partition_key");
  if (!pk.empty() && !table.empty()) {
    ++r.partition_keys[{table, std::string(pk)}];
    ++r.table_key_requests[table];
  }
  const bool one_key = op == "GetItem" || op == "PutItem" || op == "UpdateItem" || op == "DeleteItem";
  if (!pk.empty() && !table.empty() && (one_key || op == "Query")) {
    const bool throttled = error == "ProvisionedThroughputExceededException" ||
                           error == "ThrottlingException" || error == "RequestLimitExceeded";
    const std::pair<std::string, std::string> at{where, std::string(pk)};
    if (throttled) r.throttled_partitions[at] += 1;
    if (insight_units > 0) r.accessed_partitions[at] += insight_units;
    std::string key;
    dom::element k;
    // (The whole-key rules exist for tables with a sort key: keys of two.)
    dom::object key_object;
    if (one_key && o["key"].get(k) == simdjson::SUCCESS && k.get_object().get(key_object) == simdjson::SUCCESS &&
        key_object.size() >= 2) {
      key = simdjson::minify(k);
    }
    if (!key.empty()) {
      if (throttled) r.throttled_keys[{where, key}] += 1;
      if (insight_units > 0) r.accessed_keys[{where, key}] += insight_units;
    }
  }
  const double bytes = Num(o, "item_bytes", -1);
  if (bytes >= kReportLargeItemBytes) {
    r.large_items.push_back(ReportLargeItem{op, table, std::string(pk), static_cast<int64_t>(bytes)});
  }
  if (Bool(o, "conflict")) {
    ++r.conflicts[op];
    ++r.conflict_total;
  }
  dom::array faults;
  if (o["faults"].get_array().get(faults) == simdjson::SUCCESS) {
    for (dom::element f : faults) {
      std::string_view name;
      if (f.get_string().get(name) == simdjson::SUCCESS) ++r.faults[std::string(name)];
    }
  }
  const std::string_view drop = Str(o, "drop");
  if (drop == "before_apply") ++r.drops_before;
  if (drop == "after_apply") ++r.drops_after;

  // A retry: the same operation and body again after a failure.
  const std::string_view hash = Str(o, "body_hash");
  if (!hash.empty()) {
    std::string key = op + " " + std::string(hash);
    auto it = last_failed->find(key);
    if (it != last_failed->end() && it->second) {
      ++r.retries[op];
      ++r.retries_total;
      if (!failed) ++r.retries_succeeded;
    }
    (*last_failed)[std::move(key)] = failed;
  }
}

template <typename Map, typename Less>
std::vector<typename Map::const_iterator> Sorted(const Map& m, Less less) {
  std::vector<typename Map::const_iterator> v;
  for (auto it = m.begin(); it != m.end(); ++it) v.push_back(it);
  std::stable_sort(v.begin(), v.end(), less);
  return v;
}

}  // namespace

double Percentile(std::vector<double>& values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const double rank = std::ceil(p / 100 * static_cast<double>(values.size()));
  const size_t i = rank < 1 ? 0 : static_cast<size_t>(rank) - 1;
  return values[std::min(i, values.size() - 1)];
}

Report ReadReport(std::istream& in) {
  Report r;
  dom::parser parser;
  std::unordered_map<std::string, bool> last_failed;
  for (std::string line; std::getline(in, line);) {
    ++r.lines;
    if (line.find_first_not_of(" \t\r") == std::string::npos) {
      --r.lines;
      continue;
    }
    dom::object o;
    if (parser.parse(line).get_object().get(o) != simdjson::SUCCESS || Str(o, "operation").empty()) {
      ++r.skipped;
      continue;
    }
    AddLine(r, o, &last_failed);
  }
  std::stable_sort(r.large_items.begin(), r.large_items.end(),
                   [](const ReportLargeItem& a, const ReportLargeItem& b) { return a.bytes > b.bytes; });
  return r;
}

std::string WriteReportText(Report& r, size_t top) {
  std::string out;
  Line(&out, "Requests: %llu (%llu failed) from %s to %s", static_cast<unsigned long long>(r.requests),
       static_cast<unsigned long long>(r.errors), r.first_time.empty() ? "-" : r.first_time.c_str(),
       r.last_time.empty() ? "-" : r.last_time.c_str());
  if (r.skipped) Line(&out, "Skipped %llu lines that are not request-log JSON", static_cast<unsigned long long>(r.skipped));

  out += "\nOperations (by count)\n";
  Line(&out, "  %-26s %8s %7s %12s %12s %9s %9s", "operation", "count", "errors", "read units",
       "write units", "p50 ms", "p99 ms");
  for (auto it : Sorted(r.operations, [](auto a, auto b) { return a->second.count > b->second.count; })) {
    ReportOperation& o = r.operations[it->first];
    const double p50 = Percentile(o.latencies_ms, 50), p99 = Percentile(o.latencies_ms, 99);
    Line(&out, "  %-26s %8llu %7llu %12s %12s %9s %9s", it->first.c_str(),
         static_cast<unsigned long long>(o.count), static_cast<unsigned long long>(o.errors),
         Fixed(o.capacity.read).c_str(), Fixed(o.capacity.write).c_str(), Fixed(p50, 2).c_str(),
         Fixed(p99, 2).c_str());
  }
  if (!r.error_types.empty()) {
    out += "\nErrors\n";
    for (const auto& [type, n] : r.error_types) {
      Line(&out, "  %-44s %8llu", type.c_str(), static_cast<unsigned long long>(n));
    }
  }
  if (!r.tables.empty()) {
    out += "\nCapacity by table and index\n";
    for (auto it : Sorted(r.tables, [](auto a, auto b) { return a->second.total() > b->second.total(); })) {
      Line(&out, "  %-44s read %10s  write %10s", it->first.c_str(), Fixed(it->second.read).c_str(),
           Fixed(it->second.write).c_str());
    }
    for (const auto& [name, c] : r.indexes) {
      Line(&out, "  %-44s read %10s  write %10s", ("  index " + name).c_str(), Fixed(c.read).c_str(),
           Fixed(c.write).c_str());
    }
  }
  out += "\nScans\n";
  if (r.scans.empty()) out += "  none\n";
  for (const auto& [where, s] : r.scans) {
    std::string ends;
    for (const auto& [why, n] : s.page_ends) {
      ends += (ends.empty() ? "" : ", ") + why + " " + std::to_string(n);
    }
    Line(&out, "  %-30s %6llu scans, %9llu items read, %9llu returned (pages ended: %s)",
         where.c_str(), static_cast<unsigned long long>(s.requests),
         static_cast<unsigned long long>(s.scanned), static_cast<unsigned long long>(s.returned),
         ends.empty() ? "-" : ends.c_str());
  }
  out += "\nFilters that discarded most of what they read\n";
  bool any = false;
  for (const auto& [what, f] : r.filters) {
    if (f.scanned == 0) continue;
    const double discarded = 1.0 - static_cast<double>(f.returned) / static_cast<double>(f.scanned);
    if (discarded < kReportFilterDiscardShare) continue;
    any = true;
    Line(&out, "  %-36s %6llu requests read %9llu items, kept %llu (%s%% discarded)", what.c_str(),
         static_cast<unsigned long long>(f.requests), static_cast<unsigned long long>(f.scanned),
         static_cast<unsigned long long>(f.returned), Fixed(discarded * 100, 0).c_str());
  }
  if (!any) out += "  none\n";
  out += "\nHot partition keys\n";
  if (r.partition_keys.empty()) out += "  none\n";
  size_t shown = 0;
  for (auto it : Sorted(r.partition_keys, [](auto a, auto b) { return a->second > b->second; })) {
    if (shown++ == top) break;
    const auto& [table, key] = it->first;
    const double share = 100.0 * static_cast<double>(it->second) /
                         static_cast<double>(std::max<uint64_t>(1, r.table_key_requests[table]));
    Line(&out, "  %-20s %-30s %8llu requests (%s%% of the table's)", table.c_str(), key.c_str(),
         static_cast<unsigned long long>(it->second), Fixed(share, 0).c_str());
  }
  out += "\nContributor insights (DynamoDB's rules, counted from this log)\n";
  const std::pair<const char*, const std::map<std::pair<std::string, std::string>, double>*> rules[] = {
      {"most accessed partition keys (PKC: consumed units, 3 a write unit)", &r.accessed_partitions},
      {"most accessed keys (SKC)", &r.accessed_keys},
      {"most throttled partition keys (PKT: throttled requests)", &r.throttled_partitions},
      {"most throttled keys (SKT)", &r.throttled_keys}};
  for (const auto& [title, counts] : rules) {
    Line(&out, "  %s", title);
    if (counts->empty()) out += "    none\n";
    size_t listed = 0;
    for (auto it : Sorted(*counts, [](auto a, auto b) { return a->second > b->second; })) {
      if (listed++ == top) break;
      Line(&out, "    %-24s %-40s %10s", it->first.first.c_str(), it->first.second.c_str(),
           Fixed(it->second, 1).c_str());
    }
  }
  out += "\nItems near the 400 KB limit (>= 300 KB)\n";
  if (r.large_items.empty()) out += "  none\n";
  for (size_t i = 0; i < r.large_items.size() && i < top; ++i) {
    const ReportLargeItem& x = r.large_items[i];
    Line(&out, "  %-10s %-20s %-30s %s KB", x.operation.c_str(), x.table.c_str(),
         x.partition_key.c_str(), Fixed(static_cast<double>(x.bytes) / 1024, 1).c_str());
  }
  Line(&out, "\nTransactions that conflicted: %llu", static_cast<unsigned long long>(r.conflict_total));
  for (const auto& [op, n] : r.conflicts) {
    Line(&out, "  %-26s %8llu", op.c_str(), static_cast<unsigned long long>(n));
  }
  Line(&out, "\nRetries seen: %llu (%llu succeeded)", static_cast<unsigned long long>(r.retries_total),
       static_cast<unsigned long long>(r.retries_succeeded));
  for (const auto& [op, n] : r.retries) {
    Line(&out, "  %-26s %8llu", op.c_str(), static_cast<unsigned long long>(n));
  }
  if (!r.faults.empty() || r.drops_before || r.drops_after) {
    out += "\nFault rules that fired\n";
    for (const auto& [name, n] : r.faults) {
      Line(&out, "  %-36s %8llu", name.c_str(), static_cast<unsigned long long>(n));
    }
    Line(&out, "  connections dropped: %llu before the write was applied, %llu after",
         static_cast<unsigned long long>(r.drops_before), static_cast<unsigned long long>(r.drops_after));
  }
  return out;
}

int RunReport(const Args& args) {
  std::string file, html;
  long long top = 10;
  ArgReader r(args);
  std::string v;
  while (r.Next()) {
    const std::string_view flag = r.flag();
    if (flag == "--help" || flag == "-h") {
      std::fputs(kReportHelp, stdout);
      return kExitOk;
    } else if (flag == "--html") {
      if (!r.Value(&v) || v.empty()) return UsageError("report", "--html needs a file");
      html = v;
    } else if (flag == "--top") {
      if (!r.Value(&v) || !ParseInt(v, 1, 100000, &top)) {
        return UsageError("report", "--top must be a number from 1 to 100000");
      }
    } else if (!flag.empty() && flag.front() == '-' && flag != "-") {
      return UsageError("report", "unknown flag '" + std::string(flag) + "'");
    } else if (file.empty()) {
      file = std::string(flag);
    } else {
      return UsageError("report", "unexpected argument '" + std::string(flag) + "'");
    }
  }
  if (file.empty()) return UsageError("report", "needs the request log FILE ('-' for stdin)");
  Report report;
  if (file == "-") {
    report = ReadReport(std::cin);
  } else {
    std::ifstream in(file);
    if (!in) {
      std::fprintf(stderr, "dynarock report: cannot read '%s'\n", file.c_str());
      return kExitFailure;
    }
    report = ReadReport(in);
  }
  std::string text = WriteReportText(report, static_cast<size_t>(top));
  std::fwrite(text.data(), 1, text.size(), stdout);
  if (!html.empty()) {
    std::ofstream out(html, std::ios::binary | std::ios::trunc);
    out << WriteReportHtml(report, file, static_cast<size_t>(top));
    out.close();
    if (!out) {
      std::fprintf(stderr, "dynarock report: cannot write '%s'\n", html.c_str());
      return kExitFailure;
    }
  }
  return kExitOk;
}

}  // namespace dynarock::tools
