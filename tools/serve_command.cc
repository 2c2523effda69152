// File: tools/serve_command.cc
//
// `dynarock serve`: opens the database, serves DynamoDB's JSON protocol over
// HTTP until SIGINT/SIGTERM, then stops the server (in-flight requests finish),
// closes the database and exits 0.

#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "dynarock/db.h"
#include <simdjson.h>

#include "client/http_client.h"
#include "engine/api/handler.h"
#include "engine/api/json_writer.h"
#include "engine/storage_env.h"
#include "tools/command.h"
#include "tools/console/console_routes.h"
#include "tools/replicate/replicator.h"
#include "tools/serve_faults.h"
#include "tools/server/capacity_routes.h"
#include "tools/server/control_api.h"
#include "tools/server/global_tables.h"
#include "tools/server/idle_memory.h"
#include "tools/server/http_server.h"
#include "tools/server/metrics.h"
#include "tools/server/namespaces.h"
#include "tools/server/state_routes.h"

namespace dynarock::tools {
namespace {

constexpr char kServeHelp[] =
    "Usage: dynarock serve [flags]\n"
    "\n"
    "Serves DynamoDB's HTTP API (JSON protocol, X-Amz-Target DynamoDB_20120810.*) so\n"
    "that any AWS SDK or the AWS CLI can use Dynarock instead of DynamoDB: point the\n"
    "client's endpoint at the printed URL. GET / answers a health check.\n"
    "\n"
    "Flags:\n"
    "  --host ADDR            Address to listen on (default 127.0.0.1; 0.0.0.0 for all)\n"
    "  --port N               Port (default 8000; 0 picks a free one)\n"
    "  --data DIR             Database directory, created if missing (default ./data)\n"
    "  --in-memory            Keep everything in memory; nothing is written to disk\n"
    "  --shared-db            One namespace for every client. Without it, as DynamoDB\n"
    "                         Local does, each access key and region has its own tables\n"
    "                         (<data>/namespaces/KEY_REGION; unsigned requests and\n"
    "                         --shared-db use the data directory itself)\n"
    "  --delay-transient-statuses [SECONDS]\n"
    "                         Tables and indexes stay CREATING, UPDATING or DELETING for\n"
    "                         SECONDS (default 0.5) before they settle, as DynamoDB's do,\n"
    "                         so that SDK waiters are exercised\n"
    "  --gsi-lag SECONDS|MIN:MAX\n"
    "                         Apply each write's global secondary index entries that\n"
    "                         long after it (random within MIN:MAX, seeded by\n"
    "                         --consistency-seed N), so that a GSI Query right after a\n"
    "                         write may miss it, as on DynamoDB\n"
    "  --stale-reads SECONDS[:PROBABILITY]\n"
    "                         An eventually consistent read of a table (GetItem,\n"
    "                         BatchGetItem, Query, Scan) of an item written less\n"
    "                         than SECONDS ago sees it as it was before that write\n"
    "                         (with PROBABILITY, default 1; seeded by\n"
    "                         --consistency-seed N); ConsistentRead=true always\n"
    "                         reads the latest\n"
    "  --enforce-capacity     Throttle requests beyond their tables' throughput, as\n"
    "                         DynamoDB does: provisioned tables and GSIs at their\n"
    "                         read and write capacity units per second with up to\n"
    "                         300 s of unused capacity as burst (a GSI short of write\n"
    "                         capacity throttles its table's writes), on-demand tables\n"
    "                         at their MaxRead/MaxWriteRequestUnits; throttled requests\n"
    "                         get ProvisionedThroughputExceededException (or\n"
    "                         ThrottlingException), batches UnprocessedItems/Keys.\n"
    "                         Off by default; /_dynarock/capacity turns it on or off\n"
    "  --partition-limits     With --enforce-capacity, also limit each partition key\n"
    "                         to 3,000 read and 1,000 write units per second, so that\n"
    "                         hot keys are throttled\n"
    "  --no-control-api       Refuse the control API (/_dynarock/: reset, snapshots,\n"
    "                         faults, capacity, clock)\n"
    "  --no-console           Do not serve the web console (/_dynarock/console/: tables,\n"
    "                         items, queries with their plan and cost, the graph\n"
    "                         layer's data, streams, metrics). On by default when\n"
    "                         listening on a loopback address; under --require-auth\n"
    "                         it signs in with a KEY:SECRET of the list\n"
    "  --console              Serve it on another address too\n"
    "  --console-dir DIR      Serve the console's files from DIR (tools/console of a\n"
    "                         checkout) instead of the compiled-in ones: for working\n"
    "                         on the console without rebuilding\n"
    "  --s3-root DIR          The folder exports and imports use for S3: bucket B is\n"
    "                         DIR/B (default: the folder s3 in the data directory;\n"
    "                         none in memory)\n"
    "  --replication-lag-ms N How long a write to a global table takes to reach its\n"
    "                         replicas in the other regions (default 300; 0: at once)\n"
    "  --kinesis-dir DIR      Where Kinesis streaming destinations' records go: one\n"
    "                         file of JSON lines per Kinesis stream, DIR/<stream\n"
    "                         name>.jsonl, each line a record as DynamoDB puts it\n"
    "                         into Kinesis (default: not delivered)\n"
    "  --memory-budget SIZE   Bound RocksDB's block cache and memtables together\n"
    "                         (bytes, or with K, M or G: 64M); default none\n"
    "  --threads N            Server io threads (default: one per core); a connection\n"
    "                         stays on one thread, so a slow request delays the other\n"
    "                         connections of its thread (a fault rule's latency does\n"
    "                         not: while one is set, requests run on threads of\n"
    "                         their own)\n"
    "  --tls-cert FILE        Serve HTTPS instead of HTTP, with this PEM certificate\n"
    "                         (chain) and --tls-key FILE its private key (TLS 1.2 or\n"
    "                         later); clients then trust the certificate (boto3\n"
    "                         verify=FILE, aws --ca-bundle FILE)\n"
    "  --max-connections N    Connections open at once (default 1024, at most half the\n"
    "                         open-file limit, which serve raises to its hard limit);\n"
    "                         one more is reset as soon as it is accepted\n"
    "  --max-in-flight N      Requests in flight at once, each holding up to 16 MiB of\n"
    "                         body (default 256); past it a request gets a\n"
    "                         ThrottlingException (HTTP 400), which the SDKs retry\n"
    "  --max-header-bytes SIZE\n"
    "                         Largest request header (default 16K; 1K to 1M); a larger\n"
    "                         one gets HTTP 431 and the connection is closed\n"
    "  --header-timeout-seconds N\n"
    "                         A new connection's TLS handshake and first request header,\n"
    "                         and any header once its first byte came, must each\n"
    "                         arrive within N seconds (default 10), or the connection\n"
    "                         is closed (slowloris)\n"
    "  --idle-timeout-seconds N\n"
    "                         A keep-alive connection waiting for its next request is\n"
    "                         closed after N seconds (default 120)\n"
    "  --body-timeout-seconds N\n"
    "                         A request body must arrive, and a response be written,\n"
    "                         within N seconds (default 60), or the connection is closed\n"
    "  --shutdown-grace-seconds N\n"
    "                         On SIGINT/SIGTERM, requests in flight get N seconds to\n"
    "                         finish (default 10) before their connections are cut\n"
    "  --require-auth KEY:SECRET\n"
    "                         Verify AWS Signature V4 and accept only these credentials\n"
    "                         (repeatable). Without it any credentials are accepted, as\n"
    "                         DynamoDB Local does.\n"
    "  --require-auth-file FILE\n"
    "                         The same, one KEY:SECRET a line ('#' comments), so that\n"
    "                         no secret shows in the process list; so does the\n"
    "                         environment's DYNAROCK_REQUIRE_AUTH (KEY:SECRET,KEY:SECRET)\n"
    "  --region NAME          The region in table ARNs and the health reply (default\n"
    "                         us-east-1); tag ARNs must name it\n"
    "  --ttl-sweep-seconds N  How often items whose TimeToLive has passed are deleted\n"
    "                         (default 5; 0 never deletes them)\n"
    "  --replicate TABLE=URL  Ship TABLE's changes (its stream) to the table of that\n"
    "                         name on another DynamoDB endpoint for as long as the\n"
    "                         server runs, resuming\n"
    "                         from a checkpoint after a restart (repeatable; see\n"
    "                         'dynarock replicate --help')\n"
    "  --stream-retention-seconds N\n"
    "                         How long stream records are kept (default 86400, as\n"
    "                         DynamoDB Streams; shorter for tests)\n"
    "  --stream-shard-seconds N\n"
    "                         How often a stream's open shard is closed and succeeded\n"
    "                         by a child (default 14400, DynamoDB's four hours)\n"
    "  --sync                 fsync the write-ahead log before acknowledging each write\n"
    "                         (survives power loss; slower)\n"
    "  --no-group-commit      Hand each write's log record to the operating system\n"
    "                         as the write is made, rather than those of the writes\n"
    "                         that arrive together in one write before answering\n"
    "                         them (the default: faster under load; either way an\n"
    "                         answered write survives a crash of the process)\n"
    "  --metrics-port N       Also serve Prometheus metrics (text format 0.0.4) at\n"
    "                         GET http://HOST:N/metrics, on this separate port (0 picks\n"
    "                         a free one): dynarock_requests_total{operation},\n"
    "                         dynarock_errors_total{operation,type},\n"
    "                         dynarock_request_duration_seconds{operation} (histogram,\n"
    "                         10us..1s), dynarock_consumed_capacity_units_total{table,kind}\n"
    "                         (kind read|write, as DynamoDB bills the requests)\n"
    "  --metrics-host ADDR    Address of the metrics listener (default: the --host)\n"
    "  --faults FILE          Fault-injection rules to start with (JSON {\"seed\":N,\n"
    "                         \"rules\":[...]}: docs/architecture.md, \"Fault injection\n"
    "                         and the request log\"); changed while serving with\n"
    "                         PUT/GET/DELETE /_dynarock/faults\n"
    "  --fault-seed N         The seed of the rules' probabilities (default: the file's\n"
    "                         \"seed\", else random; GET /_dynarock/faults shows it)\n"
    "  --request-log FILE     Append one JSON line per request to FILE (operation,\n"
    "                         table, index, key, items read and returned, why a page\n"
    "                         ended, capacity, latency, error); 'dynarock report FILE'\n"
    "                         summarises it\n"
    "  -h, --help             Show this help\n"
    "\n"
    "DynamoDB Local's flags are accepted too, so that its command line can be swapped\n"
    "for this one: -port N, -inMemory, -dbPath DIR, -sharedDb, -delayTransientStatuses,\n"
    "-cors ORIGINS (every origin is allowed anyway), -optimizeDbBeforeStartup and\n"
    "-disableTelemetry (accepted, nothing to do), -help.\n"
    "\n"
    "Prints one line 'dynarock listening on http://HOST:PORT (data: DIR)' once ready\n"
    "(https:// with --tls-cert), the first line on standard output (with --port 0,\n"
    "read the port from it); with --metrics-port a line 'dynarock metrics on\n"
    "http://HOST:PORT/metrics' follows.\n"
    "SIGINT/SIGTERM shut down cleanly: no new connections, requests in flight finish\n"
    "(--shutdown-grace-seconds), the database is flushed and closed, exit 0.\n"
    "\n"
    "Example:\n"
    "  dynarock serve --port 8000 --data ./data\n"
    "  aws dynamodb list-tables --endpoint-url http://127.0.0.1:8000\n"
    "  dynarock serve --tls-cert cert.pem --tls-key key.pem\n"
    "  aws dynamodb list-tables --endpoint-url https://127.0.0.1:8000 --ca-bundle cert.pem\n";

// /_dynarock/clock: GET {"now","offsetSeconds"}; POST {"advanceSeconds": N}
// moves every namespace's clock (TTL, streams, PITR, transient statuses)
// forward, {"set": EPOCH_SECONDS} to a time, {"reset": true} back to the
// system's.
void RegisterClockRoutes(server::ControlApi* control, std::shared_ptr<std::atomic<double>> offset) {
  control->Register("clock", [offset](const server::ControlRequest& r) -> server::ControlReply {
    using namespace std::chrono;
    const double system_now =
        duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count() / 1000.0;
    if (r.method == "POST" || r.method == "PUT") {
      simdjson::dom::parser p;
      simdjson::dom::element e;
      if (p.parse(r.body.data(), r.body.size()).get(e) != simdjson::SUCCESS || !e.is_object()) {
        return server::ControlApi::Error(
            Status(ErrorType::kSerialization, "The body must be a JSON object"));
      }
      double v = 0;
      bool b = false;
      if (e["advanceSeconds"].get(v) == simdjson::SUCCESS) {
        if (!(v >= 0 && v <= 10 * 365 * 86400.0)) {
          return server::ControlApi::Error(
              ValidationError("advanceSeconds must be from 0 to ten years of seconds"));
        }
        offset->store(offset->load() + v);
      } else if (e["set"].get(v) == simdjson::SUCCESS) {
        if (!(v > 0 && v < 4e9) || v < system_now + offset->load()) {
          return server::ControlApi::Error(ValidationError(
              "set must be epoch seconds no earlier than the clock's time now"));
        }
        offset->store(v - system_now);
      } else if (e["reset"].get(b) == simdjson::SUCCESS && b) {
        offset->store(0);
      } else {
        return server::ControlApi::Error(
            ValidationError("Give advanceSeconds, set or reset"));
      }
    } else if (r.method != "GET") {
      return server::ControlApi::Error(ValidationError("GET or POST /_dynarock/clock"));
    }
    api::JsonWriter w;
    w.BeginObject();
    w.MemberDouble("now", system_now + offset->load());
    w.MemberDouble("offsetSeconds", offset->load());
    w.EndObject();
    return server::JsonReply(w.Release());
  });
}

// Each connection is a file descriptor, and so is each of RocksDB's open table
// files: raises the soft open-file limit to the hard one, then keeps the
// connections to half of it so that a flood of them cannot starve the database
// (which would fail writes). Says so when it lowers a --max-connections given.
void FitConnectionsToFileLimit(server::HttpServerOptions* opts, bool given) {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
  if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < limit.rlim_max) {
    rlimit raised = limit;
    raised.rlim_cur = std::min<rlim_t>(limit.rlim_max, rlim_t{1} << 20);
    if (raised.rlim_cur > limit.rlim_cur && setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  }
  if (limit.rlim_cur == RLIM_INFINITY) return;
  const size_t most = std::max<size_t>(static_cast<size_t>(limit.rlim_cur / 2), 16);
  if (opts->max_connections > most) {
    if (given) {
      std::fprintf(stderr,
                   "dynarock serve: --max-connections lowered to %zu, half the open-file "
                   "limit (%llu)\n",
                   most, static_cast<unsigned long long>(limit.rlim_cur));
    }
    opts->max_connections = most;
  }
}

std::string UrlHost(const std::string& host) {
  if (host.find(':') != std::string::npos) return "[" + host + "]";
  return host;
}

// 127.0.0.0/8, ::1 and localhost: only this machine can reach the console.
bool IsLoopbackHost(const std::string& host) {
  return host == "localhost" || host == "::1" || host == "[::1]" || host.rfind("127.", 0) == 0;
}

}  // namespace

int RunServe(const Args& args) {
  server::HttpServerOptions server_opts;
  server_opts.port = 8000;
  Options db_opts;
  // Answers to writes that arrive together leave after one write of their
  // log records (dynarock/group_commit.h, tools/server/reply_round.h).
  db_opts.group_commit = true;
  std::string data_dir = "./data";
  bool data_given = false;
  std::string s3_root;  // empty: <data>/s3 on disk, none in memory
  std::string kinesis_dir;  // --kinesis-dir
  int64_t replication_lag_ms = 300;  // --replication-lag-ms
  bool shared_db = false;
  bool region_given = false;
  bool control_api = true;
  int console = -1;  // -1: on when listening on a loopback address
  console::ConsoleOptions console_options;
  api::CapacityLimitOptions capacity_options;  // --enforce-capacity, --partition-limits
  capacity_options.enforce = false;
  ServeFaults serve_faults;  // --faults, --fault-seed, --request-log (tools/serve_faults.h)
  long long metrics_port = -1;  // -1: no metrics listener
  bool max_connections_given = false;
  std::string metrics_host;     // empty: server_opts.host
  std::vector<std::pair<std::string, std::string>> replicate;  // (table, endpoint)

  ArgReader r(args);
  std::string v;
  while (r.Next()) {
    const std::string_view flag = r.flag();
    auto need_value = [&]() -> bool { return r.Value(&v); };
    auto no_value = [&]() -> bool { return !r.HasInlineValue(); };
    if (int code; serve_faults.ParseFlag(r, &code)) {
      if (code >= 0) return code;
      continue;
    }
    if (flag == "--help" || flag == "-h" || flag == "-help") {
      std::fputs(kServeHelp, stdout);
      return kExitOk;
    } else if (flag == "--shared-db" || flag == "-sharedDb") {
      shared_db = true;
    } else if (flag == "--no-control-api") {
      control_api = false;
    } else if (flag == "--no-console") {
      console = 0;
    } else if (flag == "--console") {
      console = 1;
    } else if (flag == "--console-dir") {
      if (!need_value() || v.empty()) return UsageError("serve", "--console-dir needs a directory");
      console_options.files_dir = v;
    } else if (flag == "--enforce-capacity") {
      if (!no_value()) return UsageError("serve", "--enforce-capacity takes no value");
      capacity_options.enforce = true;
    } else if (flag == "--partition-limits") {
      if (!no_value()) return UsageError("serve", "--partition-limits takes no value");
      capacity_options.partition_limits = true;
    } else if (flag == "--delay-transient-statuses" || flag == "-delayTransientStatuses") {
      db_opts.transient_status_seconds = 0.5;
      if (r.HasInlineValue()) {
        double secs = 0;
        if (!need_value() || !ParseSeconds(v, &secs)) {
          return UsageError("serve", std::string(flag) + " takes a number of seconds (0 to 600)");
        }
        db_opts.transient_status_seconds = secs;
      } else if (r.PeekIsValue()) {
        double secs = 0;
        if (need_value() && ParseSeconds(v, &secs)) db_opts.transient_status_seconds = secs;
      }
    } else if (flag == "--gsi-lag") {
      // SECONDS or MIN:MAX
      const size_t colon = need_value() ? v.find(':') : std::string::npos;
      double lo = 0, hi = 0;
      const bool ok = colon == std::string::npos
                          ? ParseSeconds(v, &lo) && ParseSeconds(v, &hi)
                          : ParseSeconds(v.substr(0, colon), &lo) &&
                                ParseSeconds(v.substr(colon + 1), &hi) && lo <= hi;
      if (!ok) return UsageError("serve", "--gsi-lag is SECONDS or MIN:MAX (0 to 600)");
      db_opts.gsi_lag_min_seconds = lo;
      db_opts.gsi_lag_max_seconds = hi;
    } else if (flag == "--stale-reads") {
      // SECONDS or SECONDS:PROBABILITY
      const size_t colon = need_value() ? v.find(':') : std::string::npos;
      double secs = 0, p = 1;
      bool ok = ParseSeconds(v.substr(0, colon), &secs);
      if (ok && colon != std::string::npos) {
        char* end = nullptr;
        const std::string text = v.substr(colon + 1);
        p = std::strtod(text.c_str(), &end);
        ok = end == text.c_str() + text.size() && !text.empty() && p >= 0 && p <= 1;
      }
      if (!ok) return UsageError("serve", "--stale-reads is SECONDS or SECONDS:PROBABILITY (0 to 1)");
      db_opts.stale_read_seconds = secs;
      db_opts.stale_read_probability = p;
    } else if (flag == "--consistency-seed") {
      long long n;
      if (!need_value() || !ParseInt(v, 0, (1LL << 62), &n)) {
        return UsageError("serve", "--consistency-seed needs a number");
      }
      db_opts.consistency_seed = static_cast<uint64_t>(n);
    } else if (flag == "-cors") {
      if (!need_value()) return UsageError("serve", "-cors needs origins ('*')");
    } else if (flag == "-optimizeDbBeforeStartup" || flag == "-disableTelemetry") {
      // DynamoDB Local's; nothing to do here.
    } else if (flag == "--host") {
      if (!need_value() || v.empty()) return UsageError("serve", "--host needs an address");
      server_opts.host = v;
    } else if (flag == "--port" || flag == "-port") {
      long long port;
      if (!need_value()) return UsageError("serve", "--port needs a number");
      if (!ParseInt(v, 0, 65535, &port)) {
        return UsageError("serve", "--port must be a number from 0 to 65535, not '" + v + "'");
      }
      server_opts.port = static_cast<uint16_t>(port);
    } else if (flag == "--data" || flag == "-dbPath") {
      if (!need_value() || v.empty()) return UsageError("serve", "--data needs a directory");
      data_dir = v;
      data_given = true;
    } else if (flag == "--in-memory" || flag == "-inMemory") {
      if (!no_value()) return UsageError("serve", "--in-memory takes no value");
      db_opts.in_memory = true;
    } else if (flag == "--replication-lag-ms") {
      long long n = 0;
      if (!need_value() || !ParseInt(v, 0, 3600000, &n)) {
        return UsageError("serve", "--replication-lag-ms needs milliseconds, 0 to 3600000");
      }
      replication_lag_ms = n;
    } else if (flag == "--kinesis-dir") {
      if (!need_value() || v.empty()) return UsageError("serve", "--kinesis-dir needs a directory");
      kinesis_dir = v;
    } else if (flag == "--s3-root") {
      if (!need_value() || v.empty()) return UsageError("serve", "--s3-root needs a directory");
      s3_root = v;
    } else if (flag == "--memory-budget") {
      if (!need_value()) return UsageError("serve", "--memory-budget needs a size (64M)");
      uint64_t bytes = 0;
      if (!ParseByteSize(v, &bytes) || bytes < (1u << 20) || bytes > (1ull << 40)) {
        return UsageError("serve", "--memory-budget must be a size from 1M to 1T (64M, 1G), not '" +
                                       v + "'");
      }
      db_opts.memory_budget_bytes = static_cast<size_t>(bytes);
    } else if (flag == "--threads") {
      long long n;
      if (!need_value()) return UsageError("serve", "--threads needs a number");
      if (!ParseInt(v, 1, 1024, &n)) {
        return UsageError("serve", "--threads must be a number from 1 to 1024, not '" + v + "'");
      }
      server_opts.threads = static_cast<int>(n);
    } else if (flag == "--tls-cert" || flag == "--tls-key") {
      if (!need_value() || v.empty()) return UsageError("serve", std::string(flag) + " needs a file");
      (flag == "--tls-cert" ? server_opts.tls_cert_file : server_opts.tls_key_file) = v;
    } else if (flag == "--max-connections" || flag == "--max-in-flight") {
      long long n;
      if (!need_value() || !ParseInt(v, 1, 1000000, &n)) {
        return UsageError("serve", std::string(flag) + " must be a number from 1 to 1000000");
      }
      if (flag == "--max-connections") {
        server_opts.max_connections = static_cast<size_t>(n);
        max_connections_given = true;
      } else {
        server_opts.max_in_flight = static_cast<size_t>(n);
      }
    } else if (flag == "--max-header-bytes") {
      uint64_t bytes = 0;
      if (!need_value() || !ParseByteSize(v, &bytes) || bytes < 1024 || bytes > (1u << 20)) {
        return UsageError("serve", "--max-header-bytes must be a size from 1K to 1M (16K)");
      }
      server_opts.max_header_bytes = static_cast<size_t>(bytes);
    } else if (flag == "--header-timeout-seconds" || flag == "--idle-timeout-seconds" ||
               flag == "--body-timeout-seconds") {
      long long n;
      if (!need_value() || !ParseInt(v, 1, 86400, &n)) {
        return UsageError("serve", std::string(flag) + " must be a number from 1 to 86400");
      }
      (flag == "--header-timeout-seconds" ? server_opts.header_timeout_seconds
       : flag == "--idle-timeout-seconds" ? server_opts.idle_timeout_seconds
                                          : server_opts.io_timeout_seconds) = static_cast<int>(n);
    } else if (flag == "--shutdown-grace-seconds") {
      long long n;
      if (!need_value() || !ParseInt(v, 0, 3600, &n)) {
        return UsageError("serve", "--shutdown-grace-seconds must be a number from 0 to 3600");
      }
      server_opts.stop_grace_seconds = static_cast<int>(n);
    } else if (flag == "--require-auth") {
      api::AccessKey key;
      if (!need_value() || !api::AuthConfig::ParseKeySecret(v, &key)) {
        return UsageError("serve", "--require-auth needs KEY:SECRET");
      }
      server_opts.auth.keys.push_back(std::move(key));
    } else if (flag == "--require-auth-file") {
      if (!need_value() || v.empty()) return UsageError("serve", "--require-auth-file needs a file");
      std::ifstream in(v);
      if (!in) return UsageError("serve", "cannot read --require-auth-file '" + v + "'");
      int line_no = 0, found = 0;
      for (std::string line; std::getline(in, line);) {
        ++line_no;
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
        const size_t start = line.find_first_not_of(" \t");
        if (start == std::string::npos || line[start] == '#') continue;
        api::AccessKey key;
        if (!api::AuthConfig::ParseKeySecret(line.substr(start), &key)) {
          return UsageError("serve", "--require-auth-file " + v + ", line " +
                                         std::to_string(line_no) + ": not KEY:SECRET");
        }
        server_opts.auth.keys.push_back(std::move(key));
        ++found;
      }
      if (found == 0) return UsageError("serve", "--require-auth-file " + v + " holds no KEY:SECRET");
    } else if (flag == "--no-group-commit") {
      if (!no_value()) return UsageError("serve", "--no-group-commit takes no value");
      db_opts.group_commit = false;
    } else if (flag == "--sync") {
      if (!no_value()) return UsageError("serve", "--sync takes no value");
      db_opts.sync_writes = true;
    } else if (flag == "--region") {
      if (!need_value() || v.empty()) return UsageError("serve", "--region needs a name");
      for (char c : v) {
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-')) {
          return UsageError("serve", "--region must be letters, digits and '-', not '" + v + "'");
        }
      }
      db_opts.region = v;
      server_opts.region = v;
      region_given = true;
    } else if (flag == "--ttl-sweep-seconds") {
      long long n;
      if (!need_value() || !ParseInt(v, 0, 86400, &n)) {
        return UsageError("serve", "--ttl-sweep-seconds must be a number from 0 to 86400");
      }
      db_opts.ttl_sweep_seconds = static_cast<double>(n);
    } else if (flag == "--stream-retention-seconds" || flag == "--stream-shard-seconds") {
      long long n;
      if (!need_value() || !ParseInt(v, 1, 30LL * 86400, &n)) {
        return UsageError("serve", std::string(flag) + " must be a number from 1 to 2592000");
      }
      (flag == "--stream-retention-seconds" ? db_opts.stream_retention_seconds
                                            : db_opts.stream_shard_seconds) = static_cast<double>(n);
    } else if (flag == "--replicate") {
      size_t eq = std::string::npos;
      if (!need_value() || (eq = v.find('='), eq == std::string::npos) || eq == 0 ||
          eq + 1 == v.size()) {
        return UsageError("serve", "--replicate needs TABLE=URL");
      }
      replicate.emplace_back(v.substr(0, eq), v.substr(eq + 1));
    } else if (flag == "--metrics-port") {
      if (!need_value()) return UsageError("serve", "--metrics-port needs a number");
      if (!ParseInt(v, 0, 65535, &metrics_port)) {
        return UsageError("serve",
                          "--metrics-port must be a number from 0 to 65535, not '" + v + "'");
      }
    } else if (flag == "--metrics-host") {
      if (!need_value() || v.empty()) return UsageError("serve", "--metrics-host needs an address");
      metrics_host = v;
    } else if (!flag.empty() && flag.front() == '-') {
      return UsageError("serve", "unknown flag '" + std::string(flag) + "'");
    } else {
      return UsageError("serve", "unexpected argument '" + std::string(flag) + "'");
    }
  }
  if (const char* env = std::getenv("DYNAROCK_REQUIRE_AUTH"); env != nullptr && *env) {
    std::string list = env;
    size_t from = 0;
    while (from <= list.size()) {
      const size_t comma = std::min(list.find(',', from), list.size());
      api::AccessKey key;
      if (!api::AuthConfig::ParseKeySecret(list.substr(from, comma - from), &key)) {
        return UsageError("serve", "DYNAROCK_REQUIRE_AUTH must be KEY:SECRET[,KEY:SECRET...]");
      }
      server_opts.auth.keys.push_back(std::move(key));
      from = comma + 1;
    }
  }
  if (db_opts.in_memory && data_given) {
    return UsageError("serve", "--data and --in-memory are mutually exclusive");
  }
  if (!metrics_host.empty() && metrics_port < 0) {
    return UsageError("serve", "--metrics-host needs --metrics-port");
  }
  if (metrics_host.empty()) metrics_host = server_opts.host;
  if (capacity_options.partition_limits && !capacity_options.enforce) {
    return UsageError("serve", "--partition-limits needs --enforce-capacity");
  }
  if (server_opts.tls_cert_file.empty() != server_opts.tls_key_file.empty()) {
    return UsageError("serve", "--tls-cert and --tls-key go together");
  }
  FitConnectionsToFileLimit(&server_opts, max_connections_given);
  if (console < 0) console = IsLoopbackHost(server_opts.host) ? 1 : 0;
  if (!console_options.files_dir.empty()) {
    if (console == 0) return UsageError("serve", "--console-dir and --no-console are exclusive");
    std::error_code ec;
    if (!std::filesystem::is_regular_file(console_options.files_dir + "/index.html", ec)) {
      return UsageError("serve", "--console-dir " + console_options.files_dir + " holds no index.html");
    }
  }

  // SIGINT/SIGTERM are taken synchronously by this thread (sigwait below): block
  // them before any other thread exists (RocksDB's, the server's), which inherit
  // the mask.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  // Listen first: a port in use must not leave a new data directory behind.
  std::unique_ptr<server::Namespaces> namespaces;
  // Global tables: replicas in the other region namespaces. Declared between
  // the namespaces and the server, so that on every return the server (which
  // calls its hooks) goes first and its subscriptions go before the databases.
  server::GlobalTablesOptions gto;
  gto.lag = std::chrono::milliseconds(replication_lag_ms);
  server::GlobalTables global_tables(gto);
  // A fault rule's latency sleeps on the thread that runs the request: while
  // one is set, each request gets a thread of its own, so that the sleep does
  // not hold up the io thread's other connections.
  server_opts.thread_per_request = [faults = serve_faults.faults()] { return faults->delays(); };
  auto server = std::make_unique<server::HttpServer>(
      server_opts, [&namespaces](std::string_view op, std::string_view body,
                                 const server::RequestContext& context) {
        return namespaces->Handle(op, body, context);
      });
  uint16_t port = 0;
  Status s = server->Bind(&port);
  if (!s.ok()) {
    std::fprintf(stderr, "dynarock serve: %s\n", s.message().c_str());
    return kExitFailure;
  }

  // The clock every namespace reads: the system's, moved by the control API.
  auto clock_offset = std::make_shared<std::atomic<double>>(0.0);
  db_opts.clock = [clock_offset] {
    using namespace std::chrono;
    const double now =
        duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count() / 1000.0;
    return now + clock_offset->load();
  };
  if (s3_root.empty() && !db_opts.in_memory) s3_root = data_dir + "/s3";
  server::MetricsRegistry metrics;
  // What DescribeEndpoints reports: a wildcard address is no place to connect to.
  const std::string& h = server_opts.host;
  const std::string reachable = (h == "0.0.0.0" || h == "::" || h == "[::]") ? "localhost" : h;
  const std::string endpoint_address = UrlHost(reachable) + ":" + std::to_string(port);
  if (!serve_faults.Start()) return kExitFailure;
  // One set of buckets for every namespace (keyed by TableId), on the clock
  // the control API moves.
  capacity_options.clock = db_opts.clock;
  auto capacity = std::make_shared<api::CapacityLimits>(capacity_options);
  server::Namespaces::Config nc;
  nc.db_options = db_opts;
  nc.data_dir = data_dir;
  // --replicate ships tables of the shared namespace: it implies --shared-db.
  nc.shared = shared_db || !replicate.empty();
  if (region_given) nc.arn_region = db_opts.region;
  nc.evaluate_policies = server_opts.auth.enabled();
  global_tables.SetClock(db_opts.clock);
  nc.configure = [&](const std::string& name, DB*, api::Handler* handler) {
    handler->SetGlobalTableHooks(global_tables.HooksFor(name));
    handler->SetS3Root(s3_root);
    if (!kinesis_dir.empty()) handler->SetKinesisSink(kinesis_dir);
    handler->SetEndpointAddress(endpoint_address);
    serve_faults.Configure(handler);
    handler->SetCapacityLimits(capacity);
    if (metrics_port >= 0 || console == 1) {
      handler->SetObserver([&metrics](std::string_view op, const Status& st, double seconds,
                                      const std::vector<ConsumedCapacity>& consumed) {
        metrics.Record(op, st, seconds, consumed);
      });
    }
  };
  {
    auto opened = server::Namespaces::Open(nc);
    if (!opened.ok()) {
      std::fprintf(stderr, "dynarock serve: cannot open the database: %s\n",
                   opened.status().message().c_str());
      return kExitFailure;
    }
    namespaces = std::move(opened).value();
  }
  global_tables.Attach(namespaces.get());
  DB* database = namespaces->shared();
  server::ControlApi control;
  if (control_api) {
    RegisterClockRoutes(&control, clock_offset);
    server::RegisterStateRoutes(&control, namespaces.get(), &global_tables);
    serve_faults.RegisterRoutes(&control);
    server::RegisterCapacityRoutes(&control, capacity);
  }
  if (console == 1) {
    console_options.require_auth = server_opts.auth.enabled();
    console_options.control_api = control_api;
    console_options.region = db_opts.region;
    console::RegisterConsoleRoutes(&control, console_options, namespaces.get(), &metrics);
  }
  if (control_api || console == 1) server->SetControl(&control);
  std::unique_ptr<server::MetricsServer> metrics_server;
  std::string metrics_line;
  if (metrics_port >= 0) {
    metrics_server = std::make_unique<server::MetricsServer>(&metrics);
    uint16_t bound = 0;
    Status ms = metrics_server->Start(metrics_host, static_cast<uint16_t>(metrics_port), &bound);
    if (!ms.ok()) {
      std::fprintf(stderr, "dynarock serve: %s\n", ms.message().c_str());
      return kExitFailure;
    }
    metrics_line = "dynarock metrics on http://" + UrlHost(metrics_host) + ":" +
                   std::to_string(bound) + "/metrics\n";
  }
  s = server->Start();
  if (!s.ok()) {
    std::fprintf(stderr, "dynarock serve: %s\n", s.message().c_str());
    return kExitFailure;
  }
  // Replication threads: each ships its table until shutdown.
  std::atomic<bool> stop_replicating{false};
  std::vector<std::unique_ptr<client::HttpClient>> remotes;
  std::vector<std::unique_ptr<Replicator>> replicators;
  std::vector<std::thread> replicator_threads;
  for (const auto& [table, url] : replicate) {
    client::HttpClientOptions co;
    co.endpoint = url;
    auto remote = client::HttpClient::Create(co);
    if (!remote.ok()) {
      std::fprintf(stderr, "dynarock serve: --replicate %s=%s: %s\n", table.c_str(), url.c_str(),
                   remote.status().message().c_str());
      return kExitUsage;
    }
    ReplicatorOptions ro;
    ro.table = table;
    ro.keep_going = true;
    ro.on_error = [t = table, u = url](const Status& e) {
      std::fprintf(stderr, "dynarock serve: replicate %s -> %s: %s%s\n", t.c_str(), u.c_str(),
                   e.ToString().c_str(),
                   e.type() == ErrorType::kTrimmedDataAccess ? "" : " (retrying)");
    };
    remotes.push_back(std::move(remote).value());
    replicators.push_back(std::make_unique<Replicator>(database, remotes.back().get(), ro));
  }
  for (auto& r : replicators) {
    replicator_threads.emplace_back([r = r.get(), &stop_replicating] {
      (void)r->Run(stop_replicating);
    });
  }

  // The first line on standard output: harnesses read the port from it.
  std::printf("dynarock listening on %s://%s:%u (data: %s)\n",
              server_opts.tls_cert_file.empty() ? "http" : "https",
              UrlHost(server_opts.host).c_str(), static_cast<unsigned>(port),
              db_opts.in_memory ? "in-memory" : data_dir.c_str());
  std::fputs(metrics_line.c_str(), stdout);
  std::fflush(stdout);
  // Idle, the server holds only what it uses (tools/server/idle_memory.h),
  // once a new data directory's creation is durable (its syncs run in the
  // background, engine/fresh_directory.h, and fault in code of their own).
  (void)internal::WaitForCreation(database);
  server::ReleaseStartupPages();

  int sig = 0;
  while (sigwait(&stop_signals, &sig) != 0) {
  }
  std::fprintf(stderr, "dynarock: %s received, shutting down\n",
               sig == SIGINT ? "SIGINT" : "SIGTERM");
  server->Stop();
  server.reset();
  stop_replicating = true;
  for (auto& t : replicator_threads) t.join();
  global_tables.Stop();
  if (metrics_server) metrics_server->Stop();
  namespaces.reset();  // handlers (exports, imports stop), then the databases
  return kExitOk;
}

}  // namespace dynarock::tools
