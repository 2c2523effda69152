// File: tools/replicate_command.cc
//
// `dynarock replicate --data DIR --table T --to URL`: ships the local table's
// changes (its DynamoDB stream) to a table on another DynamoDB-compatible
// endpoint, in order, resuming from the checkpoint kept in the local database
// (tools/replicate/replicator.h). `--once` ships what is there and exits;
// otherwise it keeps shipping until SIGINT/SIGTERM.

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "client/http_client.h"
#include "dynarock/db.h"
#include "tools/command.h"
#include "tools/data_dir.h"
#include "tools/replicate/replicator.h"

namespace dynarock::tools {
namespace {

constexpr char kReplicateHelp[] =
    "Usage: dynarock replicate --data DIR --table TABLE --to URL [flags]\n"
    "\n"
    "Ships the changes of a local table to a table on another DynamoDB-compatible\n"
    "endpoint (AWS, DynamoDB Local, Alternator, another `dynarock serve`), in the\n"
    "order they were made. The changes are read from the table's stream, which\n"
    "must be enabled (with NEW_IMAGE or NEW_AND_OLD_IMAGES the images are shipped;\n"
    "with KEYS_ONLY or OLD_IMAGE each changed item is read back); changes made\n"
    "before it was enabled are not shipped. A checkpoint kept in the local\n"
    "database after every applied batch lets a stopped or killed run resume\n"
    "where it was: nothing is lost, and a change applied twice does no harm.\n"
    "The local database must not be open in another process (stop `serve`).\n"
    "\n"
    "Flags:\n"
    "  --data DIR                 The local database directory\n"
    "  --table NAME               The local table\n"
    "  --to URL                   The endpoint, e.g. https://dynamodb.eu-west-1.amazonaws.com\n"
    "                             or http://127.0.0.1:8001\n"
    "  --remote-table NAME        The remote table (default: the same name); created\n"
    "                             with the local key schema when missing\n"
    "  --region NAME              SigV4 region (default: from the URL, $AWS_REGION,\n"
    "                             $AWS_DEFAULT_REGION, us-east-1)\n"
    "  --version-attribute NAME   Conflict policy: apply a change only when the remote\n"
    "                             item is absent or its NAME (a number) is not newer;\n"
    "                             without it the local side wins\n"
    "  --once                     Ship what is there, then exit\n"
    "  --quiet                    No progress line\n"
    "  -h, --help                 Show this help\n"
    "\n"
    "Credentials: $AWS_ACCESS_KEY_ID / $AWS_SECRET_ACCESS_KEY / $AWS_SESSION_TOKEN,\n"
    "else the profile $AWS_PROFILE (or default) of ~/.aws/credentials, else\n"
    "placeholders (fine for endpoints that do not check). Throttling and network\n"
    "errors are retried with backoff until they pass.\n"
    "\n"
    "Exit status: 0 done (or stopped by a signal), 1 failure, 2 usage error.\n"
    "\n"
    "Example:\n"
    "  dynarock replicate --data ./data --table notes --to http://127.0.0.1:8001 --once\n";


}  // namespace

int RunReplicate(const Args& args) {
  std::string data_dir, table, to, remote_table, region, version;
  bool once = false, quiet = false;
  ArgReader r(args);
  while (r.Next()) {
    const std::string_view flag = r.flag();
    auto value = [&](std::string* out) { return r.Value(out) && !out->empty(); };
    if (flag == "--help" || flag == "-h") {
      std::fputs(kReplicateHelp, stdout);
      return kExitOk;
    } else if (flag == "--data") {
      if (!value(&data_dir)) return UsageError("replicate", "--data needs a directory");
    } else if (flag == "--table") {
      if (!value(&table)) return UsageError("replicate", "--table needs a name");
    } else if (flag == "--to") {
      if (!value(&to)) return UsageError("replicate", "--to needs an endpoint URL");
    } else if (flag == "--remote-table") {
      if (!value(&remote_table)) return UsageError("replicate", "--remote-table needs a name");
    } else if (flag == "--region") {
      if (!value(&region)) return UsageError("replicate", "--region needs a name");
    } else if (flag == "--version-attribute") {
      if (!value(&version)) return UsageError("replicate", "--version-attribute needs a name");
    } else if (flag == "--once") {
      once = true;
    } else if (flag == "--quiet") {
      quiet = true;
    } else {
      return UsageError("replicate", "unknown flag '" + std::string(flag) + "'");
    }
  }
  if (data_dir.empty()) return UsageError("replicate", "--data DIR is required");
  if (table.empty()) return UsageError("replicate", "--table NAME is required");
  if (to.empty()) return UsageError("replicate", "--to URL is required");

  Options options;
  options.create_if_missing = false;
  auto db = OpenDataDir(data_dir, options);
  if (!db.ok()) {
    std::fprintf(stderr, "dynarock replicate: %s\n", db.status().ToString().c_str());
    return kExitFailure;
  }
  client::HttpClientOptions client_options;
  client_options.endpoint = to;
  client_options.region = region;
  auto remote = client::HttpClient::Create(client_options);
  if (!remote.ok()) {
    std::fprintf(stderr, "dynarock replicate: %s\n", remote.status().ToString().c_str());
    return kExitUsage;
  }

  const bool tty = isatty(STDERR_FILENO);
  auto last_line = std::chrono::steady_clock::now();
  auto print = [&](const ReplicatorProgress& p, bool final_line) {
    if (quiet) return;
    const auto now = std::chrono::steady_clock::now();
    if (!final_line && now - last_line < std::chrono::milliseconds(tty ? 100 : 2000)) return;
    last_line = now;
    std::fprintf(stderr, "%sreplicate %s -> %s: %lld shipped, %lld conflicts, %lld retries, at %s%s",
                 tty ? "\r" : "", table.c_str(), to.c_str(), static_cast<long long>(p.shipped),
                 static_cast<long long>(p.conflicts), static_cast<long long>(p.retries),
                 p.position.empty() ? "start" : p.position.c_str(),
                 tty && !final_line ? "" : "\n");
    std::fflush(stderr);
  };
  ReplicatorOptions ro;
  ro.table = table;
  ro.remote_table = remote_table;
  ro.version_attribute = version;
  ro.on_progress = [&](const ReplicatorProgress& p) { print(p, false); };
  ro.on_error = [&](const Status& e) {
    std::fprintf(stderr, "%sdynarock replicate: warning: %s\n", isatty(STDERR_FILENO) ? "\n" : "",
                 e.message().c_str());
  };
  Replicator replicator(db->get(), remote->get(), ro);

  const std::atomic<bool>& stop = StopOnSignals();

  Status s;
  if (once) {
    auto shipped = replicator.RunOnce();
    s = shipped.status();
  } else {
    s = replicator.Run(stop);
  }
  print(replicator.progress(), true);
  if (!s.ok() && !stop) {
    std::fprintf(stderr, "dynarock replicate: %s\n", s.ToString().c_str());
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace dynarock::tools
