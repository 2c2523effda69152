// File: bench/scale/report.cc
//
// The tables scale_bench prints: per-call figures, ratios to the smallest
// size, the load and the disk.

#include <cinttypes>
#include <cstdio>

#include "bench/scale/scale.h"

namespace scale {

// ---------------------------------------------------------------- output

std::string Count(uint64_t n) {
  char buf[32];
  if (n >= 1000000 && n % 1000000 == 0) {
    std::snprintf(buf, sizeof buf, "%" PRIu64 "M", n / 1000000);
  } else if (n >= 1000 && n % 1000 == 0) {
    std::snprintf(buf, sizeof buf, "%" PRIu64 "k", n / 1000);
  } else {
    std::snprintf(buf, sizeof buf, "%" PRIu64, n);
  }
  return buf;
}

std::string Num(double v, const char* fmt) {
  if (!(v > 0)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

// A figure for the tables: us per call, or items/s for Scan.
double Figure(const Series& s, int op, bool cpu) {
  const double v = cpu ? s.Cpu() : s.Wall();
  if (!(v > 0)) return 0;
  return IsScan(op) ? 1e6 / v : v;
}

namespace {

// A table's title and its header: the items, then every operation.
void OpsHeader(const char* title) {
  std::printf("\n%s\n\n| items |", title);
  for (int op = 0; op < kOps; ++op) std::printf(" %s |", kOpNames[op]);
  std::printf("\n|---|");
  for (int op = 0; op < kOps; ++op) std::printf("---|");
  std::printf("\n");
}

}  // namespace

void PrintTables(const std::vector<Row>& rows, bool measured) {
  std::printf("\nScale (wall clock; per call in us, Scan in items/s)\n\n");
  std::printf("| items | load items/s | disk B/item | DynamoDB B/item | disk / DynamoDB |");
  if (measured) {
    for (int op = 0; op < kOps; ++op) std::printf(" %s |", kOpNames[op]);
  }
  std::printf("\n|---|---|---|---|---|");
  if (measured) {
    for (int op = 0; op < kOps; ++op) std::printf("---|");
  }
  std::printf("\n");
  for (const Row& r : rows) {
    const double disk = static_cast<double>(r.disk_compacted) / static_cast<double>(r.items);
    std::printf("| %s | %s | %.1f | %.1f | %.2fx |", Count(r.items).c_str(),
                Num(r.load_items_per_s, "%.0f").c_str(), disk, r.ddb_bytes_per_item,
                disk / r.ddb_bytes_per_item);
    if (measured) {
      for (int op = 0; op < kOps; ++op) {
        std::printf(IsScan(op) ? " %.0f |" : " %.2f |", Figure(r.ops[op], op, false));
      }
    }
    std::printf("\n");
  }

  std::printf("\nLoad and disk\n\n");
  std::printf(
      "| items | load s | load CPU s (all threads) | items per CPU s | "
      "disk as loaded B/item | of which WAL | compacted B/item | items CF B/item | "
      "compaction s |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|\n");
  for (const Row& r : rows) {
    const double n = static_cast<double>(r.items);
    std::printf("| %s | %s | %s | %s | %s | %s | %.1f | %s | %s |\n", Count(r.items).c_str(),
                Num(r.load_s, "%.1f").c_str(), Num(r.load_cpu_s, "%.1f").c_str(),
                Num(n / r.load_cpu_s, "%.0f").c_str(),
                Num(static_cast<double>(r.disk_loaded) / n, "%.1f").c_str(),
                Num(static_cast<double>(r.wal_loaded) / n, "%.1f").c_str(),
                static_cast<double>(r.disk_compacted) / n,
                Num(static_cast<double>(r.items_cf_bytes) / n, "%.1f").c_str(),
                Num(r.compact_s, "%.1f").c_str());
  }
  if (!measured) return;

  std::printf("\nWall-clock p50 / p99 per call, us\n\n|items|");
  for (int op = 0; op < kOps; ++op) {
    if (!IsScan(op)) std::printf(" %s |", kOpNames[op]);
  }
  std::printf("\n|---|");
  for (int op = 0; op < kOps; ++op) {
    if (!IsScan(op)) std::printf("---|");
  }
  std::printf("\n");
  for (const Row& r : rows) {
    std::printf("| %s |", Count(r.items).c_str());
    for (int op = 0; op < kOps; ++op) {
      if (!IsScan(op)) std::printf(" %.1f / %.1f |", r.ops[op].Pct(0.5), r.ops[op].Pct(0.99));
    }
    std::printf("\n");
  }

  OpsHeader("The measuring thread's CPU time: per call in us, Scan in items per CPU second");
  for (const Row& r : rows) {
    std::printf("| %s |", Count(r.items).c_str());
    for (int op = 0; op < kOps; ++op) {
      std::printf(IsScan(op) ? " %.0f |" : " %.2f |", Figure(r.ops[op], op, true));
    }
    std::printf("\n");
  }

  if (rows.size() < 2) return;
  const Row& b = rows.front();
  auto ratios = [&](const char* title, bool cpu) {
    OpsHeader(title);
    for (const Row& r : rows) {
      std::printf("| %s |", Count(r.items).c_str());
      for (int op = 0; op < kOps; ++op) {
        // Time per unit (call or scanned item) over the base's, cycle by cycle.
        const auto& mine = cpu ? r.ops[op].cpu : r.ops[op].wall;
        const auto& base = cpu ? b.ops[op].cpu : b.ops[op].wall;
        std::vector<double> q;
        for (size_t c = 0; c < mine.size() && c < base.size(); ++c) q.push_back(mine[c] / base[c]);
        std::printf(" %.2fx |", Median(q));
      }
      std::printf("\n");
    }
  };
  const std::string base = Count(b.items);
  ratios(("Ratio to the " + base +
          " row, wall clock: time per call (Scan: per item), the "
          "median of the per-block ratios; > 1 is slower")
             .c_str(),
         false);
  ratios(("Ratio to the " + base + " row, the measuring thread's CPU time").c_str(), true);
}

}  // namespace scale
