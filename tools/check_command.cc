// File: tools/check_command.cc
//
// `dynarock check --data DIR`: opens the database (after a crash too: RocksDB
// replays its write-ahead log), verifies the checksum of every block of every
// table file (DB::VerifyChecksums), then runs DB::CheckConsistency() on one
// snapshot and prints every corrupt file and every difference between a table
// and its secondary indexes (missing, stale or extra entries; item counts and
// sizes that disagree with the data), then one summary line. Exit 0 when
// consistent, 1 on any corruption or difference, 2 on a usage error or when
// the database cannot be opened or read.

#include <cstdio>
#include <memory>
#include <string>
#include <system_error>

#include <filesystem>

#include "dynarock/db.h"
#include "tools/command.h"
#include "tools/data_dir.h"

namespace dynarock::tools {
namespace {

constexpr char kCheckHelp[] =
    "Usage: dynarock check --data DIR\n"
    "\n"
    "Reads every block of every table file and verifies its checksum, then\n"
    "verifies, on one consistent snapshot, that every global and local secondary\n"
    "index holds exactly the entries its table's items imply (keys and projected\n"
    "attributes), and that the item counts and sizes DescribeTable reports match\n"
    "the data. Indexes still being backfilled are skipped. The directory is\n"
    "opened read-only: its write-ahead log is replayed in memory, as `dynarock\n"
    "serve` would after a crash, and nothing is written. Stop any process that\n"
    "writes to it first, or the check may see a moving target.\n"
    "\n"
    "Flags:\n"
    "  --data DIR             Database directory to check (must exist)\n"
    "  -h, --help             Show this help\n"
    "\n"
    "Prints one line per corrupt table file and per difference, a line on the\n"
    "table files, then a summary (corrupt files count as differences):\n"
    "  corrupt table file DIR/000012.sst: Corruption: block checksum mismatch ...\n"
    "  table files: F checked (B bytes), C corrupt\n"
    "  checked N tables, M items, K index entries: OK\n"
    "  checked N tables, M items, K index entries: D differences\n"
    "When corruption stops the index check, the summary is instead:\n"
    "  checked F table files: C corrupt\n"
    "\n"
    "Exit status: 0 consistent, 1 corruption or differences found, 2 usage error\n"
    "or the database could not be opened or read.\n"
    "\n"
    "Example:\n"
    "  dynarock check --data ./data\n";

}  // namespace

int RunCheck(const Args& args) {
  std::string data_dir;
  bool data_given = false;

  ArgReader r(args);
  while (r.Next()) {
    const std::string_view flag = r.flag();
    if (flag == "--help" || flag == "-h") {
      std::fputs(kCheckHelp, stdout);
      return kExitOk;
    } else if (flag == "--data") {
      if (!r.Value(&data_dir) || data_dir.empty()) {
        return UsageError("check", "--data needs a directory");
      }
      data_given = true;
    } else {
      return UsageError("check", "unknown flag '" + std::string(flag) + "'");
    }
  }
  if (!data_given) return UsageError("check", "--data DIR is required");

  std::error_code ec;
  if (!std::filesystem::is_directory(data_dir, ec)) {
    std::fprintf(stderr, "dynarock check: no database directory '%s'\n", data_dir.c_str());
    return kExitUsage;
  }

  Options options;
  options.create_if_missing = false;  // checking must never create a database
  options.read_only = true;           // nor change one
  auto db = OpenDataDir(data_dir, options);
  if (!db.ok()) {
    std::fprintf(stderr, "dynarock check: cannot open '%s': %s\n", data_dir.c_str(),
                 db.status().message().c_str());
    return kExitUsage;
  }

  auto sums = (*db)->VerifyChecksums();
  if (!sums.ok()) {
    std::fprintf(stderr, "dynarock check: reading '%s' failed: %s\n", data_dir.c_str(),
                 sums.status().ToString().c_str());
    return kExitUsage;
  }
  for (const std::string& c : sums->corrupt) std::printf("corrupt table file %s\n", c.c_str());
  const size_t corrupt = sums->corrupt.size();
  auto report = (*db)->CheckConsistency();
  if (!report.ok() && corrupt > 0) {
    // The index check read a corrupt block: what there is to say is above.
    std::printf("index check stopped: %s\n", report.status().message().c_str());
    std::printf("checked %lld table files: %zu corrupt\n", static_cast<long long>(sums->files),
                corrupt);
    std::fflush(stdout);
    return kExitFailure;
  }
  if (!report.ok()) {
    std::fprintf(stderr, "dynarock check: reading '%s' failed: %s\n", data_dir.c_str(),
                 report.status().ToString().c_str());
    return kExitUsage;
  }

  for (const std::string& d : report->differences) std::printf("%s\n", d.c_str());
  std::printf("table files: %lld checked (%lld bytes), %zu corrupt\n",
              static_cast<long long>(sums->files), static_cast<long long>(sums->bytes), corrupt);
  const size_t n = report->differences.size() + corrupt;
  std::printf("checked %lld tables, %lld items, %lld index entries: ",
              static_cast<long long>(report->tables), static_cast<long long>(report->items),
              static_cast<long long>(report->index_entries));
  if (n == 0) {
    std::printf("OK\n");
  } else {
    std::printf("%zu difference%s\n", n, n == 1 ? "" : "s");
  }
  std::fflush(stdout);
  return n == 0 ? kExitOk : kExitFailure;
}

}  // namespace dynarock::tools
