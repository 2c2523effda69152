// File: tools/report.h
//
// `dynarock report`: the summary of a request log (engine/api/request_log.h)
// that a developer reads after a test run. ReadReport() aggregates the log;
// WriteReportText() and WriteReportHtml() render it.

#ifndef DYNAROCK_TOOLS_REPORT_H_
#define DYNAROCK_TOOLS_REPORT_H_

#include <cstdint>
#include <istream>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace dynarock::tools {

// Items at least this large are "near the 400 KB limit".
inline constexpr int64_t kReportLargeItemBytes = 300 * 1024;
// A filter that discards at least this share of what it read is reported.
inline constexpr double kReportFilterDiscardShare = 0.5;

struct ReportCapacity {
  double read = 0;
  double write = 0;
  double total() const { return read + write; }
};

struct ReportOperation {
  uint64_t count = 0;
  uint64_t errors = 0;
  ReportCapacity capacity;
  double latency_ms_total = 0;
  double latency_ms_max = 0;
  std::vector<double> latencies_ms;  // for the percentiles
};

// Query/Scan reads with a filter, by (operation, table, index).
struct ReportFiltered {
  uint64_t requests = 0;
  uint64_t scanned = 0;
  uint64_t returned = 0;
};

struct ReportScan {
  uint64_t requests = 0;
  uint64_t scanned = 0;
  uint64_t returned = 0;
  std::map<std::string, uint64_t> page_ends;  // "limit", "1MB", "end"
};

struct ReportLargeItem {
  std::string operation;
  std::string table;
  std::string partition_key;
  int64_t bytes = 0;
};

struct Report {
  uint64_t lines = 0;
  uint64_t skipped = 0;  // not a request-log line
  uint64_t requests = 0;
  uint64_t errors = 0;
  std::string first_time, last_time;
  std::map<std::string, ReportOperation> operations;
  std::map<std::string, ReportCapacity> tables;    // by table
  std::map<std::string, ReportCapacity> indexes;   // "table/index" (index capacity)
  std::map<std::string, uint64_t> error_types;
  std::map<std::string, ReportScan> scans;         // "table" or "table/index"
  std::map<std::string, ReportFiltered> filters;   // "Op table[/index]"
  std::map<std::pair<std::string, std::string>, uint64_t> partition_keys;  // (table, key)
  std::map<std::string, uint64_t> table_key_requests;  // requests with a key, by table
  std::vector<ReportLargeItem> large_items;
  std::map<std::string, uint64_t> conflicts;       // by operation
  uint64_t conflict_total = 0;
  std::map<std::string, uint64_t> retries;         // by operation
  uint64_t retries_total = 0;
  uint64_t retries_succeeded = 0;
  // Contributor Insights' rules as DynamoDB counts them, from the requests
  // that name one key (GetItem, PutItem, UpdateItem, DeleteItem; Query for
  // the partition key rules): consumed units (3 a write unit, 1 a read unit)
  // and throttled requests, by ("table" or "table/index", key). The whole
  // key (SKC, SKT) is the request's "key" JSON.
  std::map<std::pair<std::string, std::string>, double> accessed_partitions, accessed_keys;
  std::map<std::pair<std::string, std::string>, double> throttled_partitions, throttled_keys;
  std::map<std::string, uint64_t> faults;          // fires by rule name
  uint64_t drops_before = 0, drops_after = 0;
};

// Reads a request log, line by line. Lines that are not request-log JSON are
// counted in `skipped`, never fatal.
Report ReadReport(std::istream& in);

// The p-th percentile (0..100) of `values` (sorted in place), 0 if empty.
double Percentile(std::vector<double>& values, double p);

// `top`: how many hot partition keys and large items to list.
std::string WriteReportText(Report& report, size_t top);
std::string WriteReportHtml(Report& report, const std::string& title, size_t top);

}  // namespace dynarock::tools

#endif  // DYNAROCK_TOOLS_REPORT_H_
