// File: tools/patterns/report.h
//
// The outputs of `dynarock patterns`: a human table (default), CSV, JSON, and a
// self-contained SVG bar chart.
//
// CSV: one header line, then one line per pattern:
//   comparison,pattern,executions,requests,items_read,bytes_read,items_returned,bytes_returned,
//   rcu,wcu,errors,p50_us,p99_us,mean_us,cost_per_million_usd
// (per-execution means; fields quoted as RFC 4180 requires).
// JSON: {"read_price_per_million":..,"write_price_per_million":..,"iterations":..,
//        "seed":..,"round_trip_us":..,"results":[{"comparison":..,"pattern":..,"description":..,
//        "executions":..,"requests":..,...,"cost_per_million_usd":..},...]}
// SVG: per comparison, a group of horizontal bars per pattern in two panels: p50
// and p99 latency per execution, and the cost per million executions (read and
// write cost stacked).

#ifndef DYNAROCK_TOOLS_PATTERNS_REPORT_H_
#define DYNAROCK_TOOLS_PATTERNS_REPORT_H_

#include <string>
#include <vector>

#include "tools/patterns/runner.h"

namespace dynarock::patterns {

struct ReportInfo {
  RunOptions options;
  // Titles of the comparisons, by Suite::name (for the table's group headers).
  std::vector<std::pair<std::string, std::string>> titles;
};

std::string FormatTable(const std::vector<PatternResult>& results, const ReportInfo& info);
std::string FormatCsv(const std::vector<PatternResult>& results);
std::string FormatJson(const std::vector<PatternResult>& results, const ReportInfo& info);
std::string RenderSvg(const std::vector<PatternResult>& results, const ReportInfo& info);

}  // namespace dynarock::patterns

#endif  // DYNAROCK_TOOLS_PATTERNS_REPORT_H_
