// File: tools/streams_command.cc
//
// `dynarock streams tail TABLE --data DIR`: prints a table's stream records as
// JSON lines (the records GetRecords returns), for debugging.

#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "dynarock/db.h"
#include "engine/api/streams_json.h"
#include "tools/command.h"
#include "tools/data_dir.h"
#include "tools/replicate/stream_reader.h"

namespace dynarock::tools {
namespace {

constexpr char kStreamsHelp[] =
    "Usage: dynarock streams tail TABLE --data DIR [--follow] [--after SEQUENCE_NUMBER]\n"
    "\n"
    "Prints the records of the table's stream (every stream of the table still\n"
    "kept, oldest first) as JSON lines, as GetRecords returns them. The local\n"
    "database must not be open in another process (read a served table with\n"
    "any DynamoDB Streams client instead).\n"
    "\n"
    "Flags:\n"
    "  --data DIR               The database directory\n"
    "  --follow                 Keep printing new records until interrupted\n"
    "  --after SEQUENCE_NUMBER  Start after this record (default: the oldest kept)\n"
    "  -h, --help               Show this help\n"
    "\n"
    "Example:\n"
    "  dynarock streams tail notes --data ./data --follow\n";


}  // namespace

int RunStreams(const Args& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::fputs(kStreamsHelp, args.empty() ? stderr : stdout);
    return args.empty() ? kExitUsage : kExitOk;
  }
  if (args[0] != "tail") return UsageError("streams", "unknown subcommand '" + std::string(args[0]) + "'");
  std::string table, data_dir, after;
  bool follow = false;
  Args rest(args.begin() + 1, args.end());
  ArgReader r(rest);
  while (r.Next()) {
    const std::string_view flag = r.flag();
    if (flag == "--help" || flag == "-h") {
      std::fputs(kStreamsHelp, stdout);
      return kExitOk;
    } else if (flag == "--data") {
      if (!r.Value(&data_dir) || data_dir.empty()) return UsageError("streams", "--data needs a directory");
    } else if (flag == "--after") {
      if (!r.Value(&after) || after.empty()) return UsageError("streams", "--after needs a sequence number");
    } else if (flag == "--follow") {
      follow = true;
    } else if (!flag.empty() && flag[0] != '-' && table.empty()) {
      table = std::string(flag);
    } else {
      return UsageError("streams", "unknown flag '" + std::string(flag) + "'");
    }
  }
  if (table.empty()) return UsageError("streams", "tail needs a TABLE");
  if (data_dir.empty()) return UsageError("streams", "--data DIR is required");
  Options options;
  options.create_if_missing = false;
  auto db = OpenDataDir(data_dir, options);
  if (!db.ok()) {
    std::fprintf(stderr, "dynarock streams: %s\n", db.status().ToString().c_str());
    return kExitFailure;
  }
  const std::atomic<bool>& stop = StopOnSignals();

  StreamReader reader(db->get(), table);
  reader.set_position(after);
  do {
    auto n = reader.Poll([](const std::vector<StreamRecord>& page) {
      for (const StreamRecord& rec : page) {
        std::string line = api::EncodeStreamRecordJson(rec);
        line.push_back('\n');
        std::fwrite(line.data(), 1, line.size(), stdout);
      }
      std::fflush(stdout);
      return Status();
    });
    if (!n.ok()) {
      std::fprintf(stderr, "dynarock streams: %s\n", n.status().ToString().c_str());
      return kExitFailure;
    }
    if (follow && *n == 0) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  } while (follow && !stop);
  return kExitOk;
}

}  // namespace dynarock::tools
