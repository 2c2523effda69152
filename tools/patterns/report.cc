#include "tools/patterns/report.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>

#include "engine/api/json_writer.h"

namespace dynarock::patterns {
namespace {

// `v` with at most `decimals` decimals, trailing zeros dropped ("1.5", "20", "0.0625").
std::string Fmt(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
  std::string s = buf;
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  return s;
}

// Shortest round-trip text of a double (for CSV and JSON).
std::string NumText(double v) {
  if (!std::isfinite(v)) return "0";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, r.ptr);
}

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

std::string Xml(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out.append("&amp;"); break;
      case '<': out.append("&lt;"); break;
      case '>': out.append("&gt;"); break;
      case '"': out.append("&quot;"); break;
      case '\'': out.append("&apos;"); break;
      default:
        // Control characters are not allowed in XML 1.0.
        if (static_cast<unsigned char>(c) >= 0x20 || c == '\n' || c == '\t') out.push_back(c);
    }
  }
  return out;
}

std::string Title(const ReportInfo& info, const std::string& comparison) {
  for (const auto& [name, title] : info.titles) {
    if (name == comparison) return title;
  }
  return comparison;
}

std::string PriceLine(const Prices& p) {
  return "on-demand prices: $" + Fmt(p.read_per_million, 6) + " per million read request units, $" +
         Fmt(p.write_per_million, 6) + " per million write request units";
}

// What a table row adds after the numbers.
std::string Notes(const PatternResult& r, const RunOptions& o) {
  std::string notes;
  if (r.executions != o.iterations) notes += "  (" + std::to_string(r.executions) + " executions)";
  if (r.errors > 0) notes += "  (errors per execution: " + Fmt(r.errors, 2) + ")";
  return notes;
}

}  // namespace

std::string FormatTable(const std::vector<PatternResult>& results, const ReportInfo& info) {
  const RunOptions& o = info.options;
  std::string out;
  out += "dynarock patterns: " + std::to_string(o.iterations) + " executions per pattern (after " +
         std::to_string(o.warmup) + " warm-up), seed " + std::to_string(o.seed) + "\n";
  out += PriceLine(o.prices) + "\n";
  out += "per execution: requests, items and bytes read (evaluated, as billed), items and bytes\n"
         "returned, "
         "read/write capacity units, latency inside DB calls";
  if (o.round_trip_us > 0) out += " + " + Fmt(o.round_trip_us, 1) + " us per request";
  out += "; cost in USD per million executions\n";

  size_t name_w = 7;
  for (const auto& r : results) name_w = std::max(name_w, r.pattern.size());
  char line[512];
  std::string current;
  for (const auto& r : results) {
    if (r.comparison != current || current.empty()) {
      current = r.comparison;
      out += "\n" + r.comparison + ": " + Title(info, r.comparison) + "\n";
      std::snprintf(line, sizeof(line), "  %-*s %9s %10s %11s %9s %11s %9s %9s %10s %10s %11s\n",
                    static_cast<int>(name_w), "pattern", "requests", "items read", "bytes read",
                    "returned", "bytes ret.", "RCU", "WCU", "p50 us", "p99 us", "$/M exec");
      out += line;
    }
    std::snprintf(line, sizeof(line), "  %-*s %9s %10s %11s %9s %11s %9s %9s %10s %10s %11s%s\n",
                  static_cast<int>(name_w), r.pattern.c_str(), Fmt(r.requests, 2).c_str(),
                  Fmt(r.items_read, 2).c_str(), Fmt(r.bytes_read, 0).c_str(),
                  Fmt(r.items_returned, 2).c_str(),
                  Fmt(r.bytes_returned, 0).c_str(), Fmt(r.rcu, 2).c_str(), Fmt(r.wcu, 2).c_str(),
                  Fmt(r.p50_us, 1).c_str(), Fmt(r.p99_us, 1).c_str(),
                  Fmt(r.cost_per_million, 4).c_str(),
                  Notes(r, o).c_str());
    out += line;
  }
  return out;
}

std::string FormatCsv(const std::vector<PatternResult>& results) {
  std::string out =
      "comparison,pattern,executions,requests,items_read,bytes_read,items_returned,bytes_returned,"
      "rcu,wcu,"
      "errors,p50_us,p99_us,mean_us,cost_per_million_usd\n";
  for (const auto& r : results) {
    out += CsvField(r.comparison) + "," + CsvField(r.pattern) + "," + std::to_string(r.executions) +
           "," + NumText(r.requests) + "," + NumText(r.items_read) + "," + NumText(r.bytes_read) +
           "," + NumText(r.items_returned) + "," +
           NumText(r.bytes_returned) + "," + NumText(r.rcu) + "," + NumText(r.wcu) + "," + NumText(r.errors) + "," +
           NumText(r.p50_us) + "," + NumText(r.p99_us) + "," + NumText(r.mean_us) + "," +
           NumText(r.cost_per_million) + "\n";
  }
  return out;
}

std::string FormatJson(const std::vector<PatternResult>& results, const ReportInfo& info) {
  const RunOptions& o = info.options;
  std::string out = "{\"read_price_per_million\":" + NumText(o.prices.read_per_million) +
                    ",\"write_price_per_million\":" + NumText(o.prices.write_per_million) +
                    ",\"iterations\":" + std::to_string(o.iterations) +
                    ",\"warmup\":" + std::to_string(o.warmup) + ",\"seed\":" + std::to_string(o.seed) +
                    ",\"round_trip_us\":" + NumText(o.round_trip_us) +
                    ",\"results\":[";
  for (size_t k = 0; k < results.size(); ++k) {
    const PatternResult& r = results[k];
    if (k) out += ",";
    out += "\n{\"comparison\":";
    api::AppendJsonString(r.comparison, &out);
    out += ",\"pattern\":";
    api::AppendJsonString(r.pattern, &out);
    out += ",\"description\":";
    api::AppendJsonString(r.description, &out);
    out += ",\"executions\":" + std::to_string(r.executions) + ",\"requests\":" + NumText(r.requests) +
           ",\"items_read\":" + NumText(r.items_read) + ",\"bytes_read\":" + NumText(r.bytes_read) +
           ",\"items_returned\":" + NumText(r.items_returned) +
           ",\"bytes_returned\":" + NumText(r.bytes_returned) + ",\"rcu\":" + NumText(r.rcu) +
           ",\"wcu\":" + NumText(r.wcu) + ",\"errors\":" + NumText(r.errors) +
           ",\"p50_us\":" + NumText(r.p50_us) + ",\"p99_us\":" + NumText(r.p99_us) +
           ",\"mean_us\":" + NumText(r.mean_us) + ",\"cost_per_million_usd\":" + NumText(r.cost_per_million) +
           "}";
  }
  out += "\n]}\n";
  return out;
}

std::string RenderSvg(const std::vector<PatternResult>& results, const ReportInfo& info) {
  const Prices& prices = info.options.prices;
  constexpr int kWidth = 1040, kLabelW = 250, kPanelW = 330, kGap = 60, kBarMax = 250;
  constexpr int kTop = 120, kHeaderH = 26, kRowH = 32;
  const int panel1 = kLabelW + 10, panel2 = panel1 + kPanelW + kGap;

  // Each comparison has its own scales: bars compare the patterns of a group.
  std::map<std::string, std::pair<double, double>> max_of;  // comparison -> (latency, cost)
  for (const auto& r : results) {
    auto& [max_latency, max_cost] = max_of[r.comparison];
    max_latency = std::max({max_latency, r.p50_us, r.p99_us});
    max_cost = std::max(max_cost, r.cost_per_million);
  }
  for (auto& [name, m] : max_of) {
    if (m.first <= 0) m.first = 1;
    if (m.second <= 0) m.second = 1;
  }
  auto scale = [](double v, double max) {
    return std::max(0.0, std::round(v / max * kBarMax * 10) / 10);
  };

  int groups = 0;
  std::string last;
  for (const auto& r : results) {
    if (r.comparison != last || groups == 0) ++groups;
    last = r.comparison;
  }
  const int height = kTop + groups * kHeaderH + static_cast<int>(results.size()) * kRowH + 40;

  std::string s;
  s += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  s += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(kWidth) +
       "\" height=\"" + std::to_string(height) + "\" viewBox=\"0 0 " + std::to_string(kWidth) + " " +
       std::to_string(height) + "\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">\n";
  s += "<title>dynarock patterns: latency and on-demand cost per access pattern</title>\n";
  s += "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  s += "<text x=\"20\" y=\"30\" font-size=\"18\" font-weight=\"bold\">dynarock patterns</text>\n";
  s += "<text x=\"20\" y=\"50\" fill=\"#555555\">" + Xml(PriceLine(prices)) + "; " +
       std::to_string(info.options.iterations) + " executions per pattern</text>\n";
  // Legend.
  auto legend = [&s](int x, const char* color, const char* label) {
    s += "<rect x=\"" + std::to_string(x) + "\" y=\"62\" width=\"12\" height=\"12\" fill=\"" +
         color + "\"/><text x=\"" + std::to_string(x + 16) + "\" y=\"72\">" + label + "</text>\n";
  };
  legend(20, "#4e79a7", "p50 latency");
  legend(130, "#a0cbe8", "p99 latency");
  legend(240, "#59a14f", "read cost");
  legend(340, "#f28e2b", "write cost");
  s += "<text x=\"" + std::to_string(panel1) +
       "\" y=\"100\" font-weight=\"bold\">Latency per execution (microseconds)</text>\n";
  s += "<text x=\"" + std::to_string(panel2) +
       "\" y=\"100\" font-weight=\"bold\">Cost per million executions (USD)</text>\n";
  s += "<text x=\"" + std::to_string(kWidth - 20) +
       "\" y=\"72\" text-anchor=\"end\" fill=\"#555555\">each comparison has its own scale</text>\n";

  int y = kTop;
  last.clear();
  bool first = true;
  for (const auto& r : results) {
    const double max_latency = max_of[r.comparison].first;
    const double max_cost = max_of[r.comparison].second;
    if (first || r.comparison != last) {
      first = false;
      last = r.comparison;
      s += "<text x=\"20\" y=\"" + std::to_string(y + 17) + "\" font-weight=\"bold\">" +
           Xml(r.comparison + ": " + Title(info, r.comparison)) + "</text>\n";
      s += "<text x=\"" + std::to_string(kWidth - 20) + "\" y=\"" + std::to_string(y + 17) +
           "\" text-anchor=\"end\" font-size=\"10\" fill=\"#555555\">scales: 0.." +
           Fmt(max_latency, 1) + " us, 0..$" + Fmt(max_cost, 4) + "</text>\n";
      s += "<line x1=\"20\" y1=\"" + std::to_string(y + 22) + "\" x2=\"" +
           std::to_string(kWidth - 20) + "\" y2=\"" + std::to_string(y + 22) +
           "\" stroke=\"#dddddd\"/>\n";
      y += kHeaderH;
    }
    s += "<g>\n<title>" +
         Xml(r.pattern + ": " + r.description + " | requests " + Fmt(r.requests, 2) + ", RCU " +
             Fmt(r.rcu, 2) + ", WCU " + Fmt(r.wcu, 2)) +
         "</title>\n";
    s += "<text x=\"" + std::to_string(kLabelW) + "\" y=\"" + std::to_string(y + 19) +
         "\" text-anchor=\"end\">" + Xml(r.pattern) + "</text>\n";
    // Latency: p50 and p99 bars.
    const double w50 = scale(r.p50_us, max_latency), w99 = scale(r.p99_us, max_latency);
    s += "<rect x=\"" + std::to_string(panel1) + "\" y=\"" + std::to_string(y + 4) + "\" width=\"" +
         Fmt(w50, 1) + "\" height=\"11\" fill=\"#4e79a7\"/>\n";
    s += "<text x=\"" + Fmt(panel1 + w50 + 4, 1) + "\" y=\"" + std::to_string(y + 14) +
         "\" font-size=\"10\">" + Fmt(r.p50_us, 1) + "</text>\n";
    s += "<rect x=\"" + std::to_string(panel1) + "\" y=\"" + std::to_string(y + 16) +
         "\" width=\"" + Fmt(w99, 1) + "\" height=\"11\" fill=\"#a0cbe8\"/>\n";
    s += "<text x=\"" + Fmt(panel1 + w99 + 4, 1) + "\" y=\"" + std::to_string(y + 26) +
         "\" font-size=\"10\">" + Fmt(r.p99_us, 1) + "</text>\n";
    // Cost: read and write stacked.
    const double read_cost = r.rcu * prices.read_per_million;
    const double write_cost = r.wcu * prices.write_per_million;
    const double wr = scale(read_cost, max_cost), ww = scale(write_cost, max_cost);
    s += "<rect x=\"" + std::to_string(panel2) + "\" y=\"" + std::to_string(y + 6) + "\" width=\"" +
         Fmt(wr, 1) + "\" height=\"18\" fill=\"#59a14f\"/>\n";
    s += "<rect x=\"" + Fmt(panel2 + wr, 1) + "\" y=\"" + std::to_string(y + 6) + "\" width=\"" +
         Fmt(ww, 1) + "\" height=\"18\" fill=\"#f28e2b\"/>\n";
    s += "<text x=\"" + Fmt(panel2 + wr + ww + 4, 1) + "\" y=\"" + std::to_string(y + 19) +
         "\" font-size=\"10\">$" + Fmt(r.cost_per_million, 4) + "</text>\n";
    s += "</g>\n";
    y += kRowH;
  }
  // Axes.
  s += "<line x1=\"" + std::to_string(panel1) + "\" y1=\"" + std::to_string(kTop) + "\" x2=\"" +
       std::to_string(panel1) + "\" y2=\"" + std::to_string(y) + "\" stroke=\"#333333\"/>\n";
  s += "<line x1=\"" + std::to_string(panel2) + "\" y1=\"" + std::to_string(kTop) + "\" x2=\"" +
       std::to_string(panel2) + "\" y2=\"" + std::to_string(y) + "\" stroke=\"#333333\"/>\n";
  s += "</svg>\n";
  return s;
}

}  // namespace dynarock::patterns
