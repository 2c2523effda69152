// File: tools/main.cc
//
// `dynarock <command> [flags]`: the command table and the dispatch. Each command
// is in tools/<name>_command.cc (see tools/command.h).

#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include "tools/command.h"

namespace dynarock::tools {
namespace {

const Command kCommands[] = {
    {"serve", "Serve DynamoDB's HTTP API (any AWS SDK can point its endpoint here)", &RunServe},
    {"graph", "Graph layer tools: 'graph demo' runs the seed examples", &RunGraph},
    {"check", "Verify table-file checksums and every secondary index (exit 1 if not)", &RunCheck},
    {"patterns", "Compare access patterns by requests, capacity, latency and cost", &RunPatterns},
    {"replicate", "Ship a table's changes (its stream) to another DynamoDB endpoint", &RunReplicate},
    {"streams", "'streams tail TABLE' prints a table's stream records as JSON lines", &RunStreams},
    {"shell", "An interactive PartiQL console on a data directory or an endpoint", &RunShell},
    {"backup", "Take, list or delete on-demand backups of a table", &RunBackup},
    {"restore", "Restore a backup, or a table to a point in time, into a new table", &RunRestore},
    {"export", "Export a table in DynamoDB's S3 export layout, or as JSON lines", &RunExport},
    {"import", "Load a new table from a DynamoDB export, JSON lines or CSV", &RunImport},
    {"report", "Summarise a request log (serve --request-log): capacity, scans, hot keys", &RunReport},
};

void PrintUsage(FILE* out) {
  std::fprintf(out,
               "dynarock: DynamoDB's data model and API, embedded, on RocksDB.\n"
               "\n"
               "Usage: dynarock <command> [flags]\n"
               "\n"
               "Commands:\n");
  for (const Command& c : kCommands) std::fprintf(out, "  %-10s %s\n", c.name, c.summary);
  std::fprintf(out,
               "  %-10s %s\n"
               "\n"
               "Run 'dynarock <command> --help' for the flags of a command.\n",
               "help", "Show this help, or a command's ('dynarock help serve')");
}

const Command* Find(std::string_view name) {
  for (const Command& c : kCommands) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

int UnknownCommand(std::string_view name) {
  std::fprintf(stderr, "dynarock: unknown command '%.*s'\nRun 'dynarock --help' for usage.\n",
               static_cast<int>(name.size()), name.data());
  return kExitUsage;
}

int Main(int argc, char** argv) {
  if (argc < 2) {
    PrintUsage(stderr);
    return kExitUsage;
  }
  std::string_view first = argv[1];
  if (first == "--help" || first == "-h" || first == "help") {
    if (first == "help" && argc >= 3) {
      const Command* c = Find(argv[2]);
      if (c == nullptr) return UnknownCommand(argv[2]);
      return c->run(Args{"--help"});
    }
    PrintUsage(stdout);
    return kExitOk;
  }
  if (!first.empty() && first.front() == '-') {
    std::fprintf(stderr, "dynarock: unknown flag '%s'\nRun 'dynarock --help' for usage.\n",
                 argv[1]);
    return kExitUsage;
  }
  const Command* c = Find(first);
  if (c == nullptr) return UnknownCommand(first);
  Args args;
  args.reserve(static_cast<size_t>(argc - 2));
  for (int i = 2; i < argc; ++i) args.emplace_back(argv[i]);
  return c->run(args);
}

}  // namespace
}  // namespace dynarock::tools

#ifdef DYNAROCK_JEMALLOC
// jemalloc's settings (CMakeLists.txt: DYNAROCK_TOOL_JEMALLOC); MALLOC_CONF in
// the environment overrides them. Pages freed after a burst of work (a load's
// memtables flushed, a Scan's blocks evicted) are given back to the system
// once unused for a second instead of jemalloc's default ten, so that the
// resident size under a load stays near what the data holds. There is no
// background purging thread (it cost the start four threads), so jemalloc
// purges as it allocates: a server gone idle keeps what it had freed in its
// last second until its next requests (bench/README.md).
extern "C" {
extern const char* malloc_conf;
const char* malloc_conf = "dirty_decay_ms:1000";
}
#endif

int main(int argc, char** argv) { return dynarock::tools::Main(argc, argv); }
