// File: tools/report_html.cc
//
// `dynarock report --html`: the report as one self-contained page (no script,
// no external file), its charts drawn as inline SVG bars.

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "tools/report.h"

namespace dynarock::tools {
namespace {

std::string Esc(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

std::string Num(double v, int decimals = 1) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

struct Bar {
  std::string label;
  double a = 0;  // first segment (read, or the whole value)
  double b = 0;  // second segment (write)
};

// Horizontal bars, one a row, longest first as given; two segments when `two`.
std::string Bars(const std::vector<Bar>& bars, bool two, std::string_view unit) {
  if (bars.empty()) return "<p class=none>none</p>\n";
  const int row = 22, label_w = 260, bar_w = 420, width = label_w + bar_w + 120;
  double max = 0;
  for (const Bar& x : bars) max = std::max(max, x.a + x.b);
  if (max <= 0) max = 1;
  std::string s = "<svg xmlns='http://www.w3.org/2000/svg' width='" + std::to_string(width) +
                  "' height='" + std::to_string(row * bars.size() + 8) + "' role='img'>\n";
  int y = 4;
  for (const Bar& x : bars) {
    const double wa = bar_w * x.a / max, wb = bar_w * x.b / max;
    s += "<text x='" + std::to_string(label_w - 6) + "' y='" + std::to_string(y + 15) +
         "' text-anchor='end'>" + Esc(x.label.size() > 40 ? x.label.substr(0, 39) + "…" : x.label) +
         "</text>";
    s += "<rect x='" + std::to_string(label_w) + "' y='" + std::to_string(y + 3) + "' width='" +
         Num(wa, 1) + "' height='16' class='a'><title>" + Esc(x.label) + ": " + Num(x.a) +
         "</title></rect>";
    if (two) {
      s += "<rect x='" + Num(label_w + wa, 1) + "' y='" + std::to_string(y + 3) + "' width='" +
           Num(wb, 1) + "' height='16' class='b'><title>" + Esc(x.label) + ": " + Num(x.b) +
           "</title></rect>";
    }
    s += "<text x='" + Num(label_w + wa + wb + 6, 1) + "' y='" + std::to_string(y + 15) + "'>" +
         Num(x.a + x.b, two || x.a != static_cast<int64_t>(x.a) ? 1 : 0) + " " + Esc(unit) +
         "</text>\n";
    y += row;
  }
  return s + "</svg>\n";
}

std::string Table(const std::vector<std::string>& head, const std::vector<std::vector<std::string>>& rows) {
  if (rows.empty()) return "<p class=none>none</p>\n";
  std::string s = "<table><tr>";
  for (const auto& h : head) s += "<th>" + Esc(h) + "</th>";
  s += "</tr>\n";
  for (const auto& r : rows) {
    s += "<tr>";
    for (const auto& c : r) s += "<td>" + Esc(c) + "</td>";
    s += "</tr>\n";
  }
  return s + "</table>\n";
}

}  // namespace

std::string WriteReportHtml(Report& r, const std::string& title, size_t top) {
  std::string h =
      "<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>Dynarock report: " + Esc(title) +
      "</title>\n<style>body{font:14px system-ui,sans-serif;margin:2em;color:#222}"
      "h1{font-size:1.4em}h2{font-size:1.1em;margin-top:2em;border-bottom:1px solid #ddd}"
      "table{border-collapse:collapse}td,th{padding:2px 10px;text-align:left;border-bottom:1px solid #eee}"
      "svg text{font:12px system-ui,sans-serif}rect.a{fill:#3b82f6}rect.b{fill:#f59e0b}"
      ".none{color:#888}.key span{display:inline-block;width:10px;height:10px;margin:0 4px}"
      "</style></head><body>\n";
  h += "<h1>Dynarock request report</h1>\n<p>" + Esc(title) + ": " + std::to_string(r.requests) +
       " requests, " + std::to_string(r.errors) + " failed";
  if (!r.first_time.empty()) h += ", " + Esc(r.first_time) + " to " + Esc(r.last_time);
  if (r.skipped) h += "; " + std::to_string(r.skipped) + " lines skipped";
  h += "</p>\n";

  std::vector<std::pair<std::string, ReportOperation*>> ops;
  for (auto& [name, o] : r.operations) ops.emplace_back(name, &o);
  std::stable_sort(ops.begin(), ops.end(), [](auto& a, auto& b) { return a.second->count > b.second->count; });
  h += "<h2>Operations by count</h2>\n";
  std::vector<Bar> bars;
  for (auto& [name, o] : ops) bars.push_back(Bar{name, static_cast<double>(o->count), 0});
  h += Bars(bars, false, "requests");
  h += "<h2>Operations by consumed capacity</h2>\n<p class=key><span style='background:#3b82f6'></span>read"
       "<span style='background:#f59e0b'></span>write</p>\n";
  bars.clear();
  for (auto& [name, o] : ops) {
    if (o->capacity.total() > 0) bars.push_back(Bar{name, o->capacity.read, o->capacity.write});
  }
  std::stable_sort(bars.begin(), bars.end(), [](auto& a, auto& b) { return a.a + a.b > b.a + b.b; });
  h += Bars(bars, true, "units");
  std::vector<std::vector<std::string>> rows;
  for (auto& [name, o] : ops) {
    rows.push_back({name, std::to_string(o->count), std::to_string(o->errors), Num(o->capacity.read),
                    Num(o->capacity.write), Num(Percentile(o->latencies_ms, 50), 2),
                    Num(Percentile(o->latencies_ms, 99), 2), Num(o->latency_ms_max, 2)});
  }
  h += Table({"operation", "count", "errors", "read units", "write units", "p50 ms", "p99 ms", "max ms"}, rows);

  h += "<h2>Capacity by table and index</h2>\n";
  bars.clear();
  for (const auto& [t, c] : r.tables) bars.push_back(Bar{t, c.read, c.write});
  for (const auto& [t, c] : r.indexes) bars.push_back(Bar{"index " + t, c.read, c.write});
  h += Bars(bars, true, "units");

  if (!r.error_types.empty()) {
    rows.clear();
    for (const auto& [t, n] : r.error_types) rows.push_back({t, std::to_string(n)});
    h += "<h2>Errors</h2>\n" + Table({"type", "count"}, rows);
  }
  rows.clear();
  for (const auto& [where, s] : r.scans) {
    std::string ends;
    for (const auto& [why, n] : s.page_ends) ends += (ends.empty() ? "" : ", ") + why + " " + std::to_string(n);
    rows.push_back({where, std::to_string(s.requests), std::to_string(s.scanned), std::to_string(s.returned), ends});
  }
  h += "<h2>Scans</h2>\n" + Table({"table/index", "scans", "items read", "returned", "pages ended"}, rows);
  rows.clear();
  for (const auto& [what, f] : r.filters) {
    if (f.scanned == 0) continue;
    const double d = 1.0 - static_cast<double>(f.returned) / static_cast<double>(f.scanned);
    if (d < kReportFilterDiscardShare) continue;
    rows.push_back({what, std::to_string(f.requests), std::to_string(f.scanned), std::to_string(f.returned),
                    Num(d * 100, 0) + "%"});
  }
  h += "<h2>Filters that discarded most of what they read</h2>\n" +
       Table({"read", "requests", "items read", "kept", "discarded"}, rows);

  std::vector<std::pair<const std::pair<std::string, std::string>*, uint64_t>> keys;
  for (const auto& [k, n] : r.partition_keys) keys.emplace_back(&k, n);
  std::stable_sort(keys.begin(), keys.end(), [](auto& a, auto& b) { return a.second > b.second; });
  if (keys.size() > top) keys.resize(top);
  bars.clear();
  for (const auto& [k, n] : keys) bars.push_back(Bar{k->first + " " + k->second, static_cast<double>(n), 0});
  h += "<h2>Hot partition keys</h2>\n" + Bars(bars, false, "requests");

  // Contributor Insights' rules, as DynamoDB counts them (report.h).
  h += "<h2>Contributor insights (DynamoDB's rules)</h2>\n";
  const std::pair<const char*, const std::map<std::pair<std::string, std::string>, double>*> rules[] = {
      {"Most accessed partition keys (PKC, consumed units)", &r.accessed_partitions},
      {"Most accessed keys (SKC)", &r.accessed_keys},
      {"Most throttled partition keys (PKT)", &r.throttled_partitions},
      {"Most throttled keys (SKT)", &r.throttled_keys}};
  for (const auto& [title, counts] : rules) {
    std::vector<std::pair<const std::pair<std::string, std::string>*, double>> ranked;
    for (const auto& [k, v] : *counts) ranked.emplace_back(&k, v);
    std::stable_sort(ranked.begin(), ranked.end(), [](auto& a, auto& b) { return a.second > b.second; });
    if (ranked.size() > top) ranked.resize(top);
    rows.clear();
    for (const auto& [k, v] : ranked) rows.push_back({k->first, k->second, Num(v, 1)});
    h += std::string("<h3>") + title + "</h3>\n" + Table({"table", "key", "value"}, rows);
  }

  rows.clear();
  for (size_t i = 0; i < r.large_items.size() && i < top; ++i) {
    const ReportLargeItem& x = r.large_items[i];
    rows.push_back({x.operation, x.table, x.partition_key, Num(static_cast<double>(x.bytes) / 1024) + " KB"});
  }
  h += "<h2>Items near the 400 KB limit</h2>\n" + Table({"operation", "table", "partition key", "size"}, rows);

  rows.clear();
  for (const auto& [op, n] : r.conflicts) rows.push_back({op, std::to_string(n)});
  h += "<h2>Transactions that conflicted: " + std::to_string(r.conflict_total) + "</h2>\n" +
       Table({"operation", "conflicts"}, rows);
  rows.clear();
  for (const auto& [op, n] : r.retries) rows.push_back({op, std::to_string(n)});
  h += "<h2>Retries seen: " + std::to_string(r.retries_total) + " (" + std::to_string(r.retries_succeeded) +
       " succeeded)</h2>\n" + Table({"operation", "retries"}, rows);
  rows.clear();
  for (const auto& [name, n] : r.faults) rows.push_back({name, std::to_string(n)});
  h += "<h2>Fault rules that fired</h2>\n" + Table({"rule", "fires"}, rows);
  h += "<p>Connections dropped: " + std::to_string(r.drops_before) + " before the write was applied, " +
       std::to_string(r.drops_after) + " after.</p>\n";
  return h + "</body></html>\n";
}

}  // namespace dynarock::tools
