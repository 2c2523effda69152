// File: tools/command.h
//
// The subcommands of the one `dynarock` binary. Each lives in its own
// tools/<name>_command.cc exposing one entry point declared here; tools/main.cc
// lists them in its command table and dispatches on argv[1].
//
// To add a command `foo`:
//   1. tools/foo_command.cc:  int RunFoo(const Args& args) { ... }
//   2. declare RunFoo below;
//   3. add {"foo", "one-line summary", &RunFoo} to kCommands in tools/main.cc.
//
// Conventions: `--help`/`-h` prints the command's usage to stdout and returns 0;
// a bad flag or argument prints to stderr and returns kExitUsage (use
// UsageError()); a failure while running returns kExitFailure.

#ifndef DYNAROCK_TOOLS_COMMAND_H_
#define DYNAROCK_TOOLS_COMMAND_H_

#include <signal.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dynarock::tools {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

// The arguments after the subcommand name.
using Args = std::vector<std::string_view>;

struct Command {
  const char* name;
  const char* summary;  // one line, shown by `dynarock --help`
  int (*run)(const Args& args);
};

// ---- Entry points (one per tools/<name>_command.cc) ----
int RunServe(const Args& args);
int RunGraph(const Args& args);
int RunGraphExport(const Args& args);  // tools/graph_export_command.cc
int RunGraphStats(const Args& args);   // tools/graph_stats_command.cc
int RunGraphQuery(const Args& args);   // tools/graph_query_command.cc
int RunGraphQueryWalk(const Args& args);  // tools/graph_walk_command.cc (graph query walk)
int RunGraphImport(const Args& args);  // tools/graph_import_command.cc
int RunCheck(const Args& args);
int RunPatterns(const Args& args);
int RunReplicate(const Args& args);
int RunStreams(const Args& args);
int RunShell(const Args& args);
int RunBackup(const Args& args);
int RunRestore(const Args& args);
int RunExport(const Args& args);  // tools/transfer_command.cc
int RunImport(const Args& args);  // tools/transfer_command.cc
int RunReport(const Args& args);  // tools/report_command.cc

// Prints "dynarock <command>: <message>" and a pointer to --help on stderr;
// returns kExitUsage.
inline int UsageError(std::string_view command, std::string_view message) {
  std::fprintf(stderr, "dynarock %.*s: %.*s\nRun 'dynarock %.*s --help' for usage.\n",
               static_cast<int>(command.size()), command.data(),
               static_cast<int>(message.size()), message.data(),
               static_cast<int>(command.size()), command.data());
  return kExitUsage;
}

// Walks "--flag value", "--flag=value" and bare "--switch" arguments.
//
//   ArgReader r(args);
//   while (r.Next()) {
//     if (r.flag() == "--port") { std::string v; if (!r.Value(&v)) return UsageError(...); }
//     else if (r.flag() == "--sync") { ... }
//     else return UsageError("serve", "unknown flag '" + std::string(r.flag()) + "'");
//   }
class ArgReader {
 public:
  explicit ArgReader(const Args& args) : args_(args) {}

  // Advances to the next argument; false at the end.
  bool Next() {
    if (pos_ >= args_.size()) return false;
    std::string_view a = args_[pos_++];
    inline_value_.reset();
    size_t eq = a.find('=');
    if (a.substr(0, 2) == "--" && eq != std::string_view::npos) {
      flag_ = a.substr(0, eq);
      inline_value_ = a.substr(eq + 1);
    } else {
      flag_ = a;
    }
    return true;
  }

  // The current argument ("--port" for both "--port 1" and "--port=1").
  std::string_view flag() const { return flag_; }

  // The current flag's value (inline or the next argument); false when missing.
  bool Value(std::string* out) {
    if (inline_value_) {
      *out = std::string(*inline_value_);
      return true;
    }
    if (pos_ >= args_.size()) return false;
    *out = std::string(args_[pos_++]);
    return true;
  }

  // True when the current flag was given as "--flag=value" (for switches that
  // take no value).
  bool HasInlineValue() const { return inline_value_.has_value(); }

  // True when an argument follows that is not a flag (an optional value).
  bool PeekIsValue() const {
    return pos_ < args_.size() && !args_[pos_].empty() && args_[pos_][0] != '-';
  }

 private:
  const Args& args_;
  size_t pos_ = 0;
  std::string_view flag_;
  std::optional<std::string_view> inline_value_;
};

// For commands that run until interrupted: from the call on, SIGINT and
// SIGTERM set the returned flag instead of ending the process, so the command
// can stop cleanly (its checkpoint saved, its database closed).
inline const std::atomic<bool>& StopOnSignals() {
  static std::atomic<bool> stop{false};
  struct sigaction sa {};
  sa.sa_handler = [](int) { stop = true; };
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  return stop;
}

// Parses a whole decimal number in [min, max].
inline bool ParseInt(std::string_view s, long long min, long long max, long long* out) {
  if (s.empty() || s.size() > 18) return false;
  long long v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  if (v < min || v > max) return false;
  *out = v;
  return true;
}

// Parses a size in bytes: a whole number, optionally followed by K, M or G
// (powers of 1024, either case): "1048576", "64M", "1g".
// A number of seconds from 0 to 600 ("0.5", "2").
inline bool ParseSeconds(std::string_view s, double* out) {
  if (s.empty() || s.size() > 12) return false;
  std::string text(s);
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !(v >= 0 && v <= 600)) return false;
  *out = v;
  return true;
}

inline bool ParseByteSize(std::string_view s, uint64_t* out) {
  uint64_t unit = 1;
  if (!s.empty()) {
    switch (s.back()) {
      case 'k': case 'K': unit = 1ull << 10; break;
      case 'm': case 'M': unit = 1ull << 20; break;
      case 'g': case 'G': unit = 1ull << 30; break;
      default: break;
    }
    if (unit != 1) s.remove_suffix(1);
  }
  long long n = 0;
  if (!ParseInt(s, 0, static_cast<long long>((1ull << 40) / unit), &n)) return false;
  *out = static_cast<uint64_t>(n) * unit;
  return true;
}

}  // namespace dynarock::tools

#endif  // DYNAROCK_TOOLS_COMMAND_H_
