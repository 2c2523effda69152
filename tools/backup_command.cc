// File: tools/backup_command.cc
//
// `dynarock backup` and `dynarock restore`: on-demand backups and restores
// (from a backup, or of a table to a point in time) on a data directory or
// an endpoint, through DynamoDB's own operations (tools/api_target.h), with
// progress while the work runs.

#include <simdjson.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <string>
#include <thread>

#include "engine/api/json_writer.h"
#include "tools/api_target.h"
#include "tools/command.h"
#include "tools/progress.h"

namespace dynarock::tools {
namespace {

constexpr const char kBackupHelp[] =
    "Usage: dynarock backup TABLE [--name NAME] (--data DIR | --endpoint URL)\n"
    "       dynarock backup --list [TABLE] (--data DIR | --endpoint URL)\n"
    "       dynarock backup --delete BACKUP_ARN (--data DIR | --endpoint URL)\n"
    "\n"
    "Takes an on-demand backup of TABLE (CreateBackup) and waits until it is\n"
    "AVAILABLE, then prints its ARN; lists backups (ListBackups) or deletes one.\n"
    "A backup is the table at one moment, kept in the data directory\n"
    "(backups/), apart from the table: later writes and deleting the table\n"
    "change nothing in it.\n"
    "\n"
    "  --name NAME         The backup's name (default TABLE-YYYYMMDD-HHMMSS)\n"
    "  --data DIR          Work on this data directory (the database opened here)\n"
    "  --endpoint URL      Work on this endpoint (dynarock serve, DynamoDB Local, AWS)\n";

constexpr const char kRestoreHelp[] =
    "Usage: dynarock restore --backup BACKUP_ARN --to TABLE (--data DIR | --endpoint URL)\n"
    "       dynarock restore --table SOURCE --to TABLE [--time TIME | --latest]\n"
    "                        (--data DIR | --endpoint URL)\n"
    "\n"
    "Restores a backup (RestoreTableFromBackup), or a table with point-in-time\n"
    "recovery as it was at TIME (RestoreTableToPointInTime), into the new table\n"
    "TABLE, and waits until it is ACTIVE, showing the items restored.\n"
    "\n"
    "  --time TIME         Seconds since the epoch, or UTC 'YYYY-MM-DDTHH:MM:SS[Z]'\n"
    "  --latest            The latest restorable time (the default)\n"
    "  --data DIR, --endpoint URL   as for 'dynarock backup'\n";

struct Target {
  std::string data, endpoint;
};

// Reads --data / --endpoint; false when the flag is neither.
bool TargetFlag(std::string_view command, ArgReader& r, Target* t, int* usage) {
  std::string v;
  if (r.flag() == "--data") {
    if (!r.Value(&v) || v.empty()) *usage = UsageError(command, "--data needs a directory");
    t->data = v;
    return true;
  }
  if (r.flag() == "--endpoint") {
    if (!r.Value(&v) || v.empty()) *usage = UsageError(command, "--endpoint needs a URL");
    t->endpoint = v;
    return true;
  }
  return false;
}

StatusOr<std::unique_ptr<ApiTarget>> OpenTarget(std::string_view command, const Target& t,
                                                int* usage) {
  if (t.data.empty() == t.endpoint.empty()) {
    *usage = UsageError(command, "give one of --data DIR and --endpoint URL");
    return Status(ErrorType::kValidation, "");
  }
  return ApiTarget::Open(t.data, t.endpoint, false, /*create_if_missing=*/false);
}

int Fail(std::string_view command, const Status& s) {
  std::fprintf(stderr, "dynarock %.*s: %s\n", static_cast<int>(command.size()), command.data(),
               s.ToString().c_str());
  return kExitFailure;
}

// A member of a parsed response by a path of keys ("" when absent).
std::string StrAt(simdjson::dom::element e, std::initializer_list<const char*> path) {
  for (const char* k : path) {
    if (e[k].get(e) != simdjson::SUCCESS) return "";
  }
  std::string_view s;
  return e.get(s) == simdjson::SUCCESS ? std::string(s) : std::string();
}
int64_t IntAt(simdjson::dom::element e, std::initializer_list<const char*> path) {
  for (const char* k : path) {
    if (e[k].get(e) != simdjson::SUCCESS) return 0;
  }
  int64_t i = 0;
  double d = 0;
  if (e.get(i) == simdjson::SUCCESS) return i;
  return e.get(d) == simdjson::SUCCESS ? static_cast<int64_t>(d) : 0;
}

StatusOr<simdjson::dom::element> Parse(simdjson::dom::parser& p, const std::string& body) {
  simdjson::dom::element e;
  if (p.parse(body).get(e) != simdjson::SUCCESS) return InternalError("unreadable response");
  return e;
}

std::string Body(const std::function<void(api::JsonWriter&)>& fill) {
  api::JsonWriter w;
  w.BeginObject();
  fill(w);
  w.EndObject();
  return w.Release();
}

// Waits until `table` is ACTIVE, showing its item count against `total`.
Status WaitRestored(ApiTarget& target, const std::string& table, int64_t total) {
  ProgressBar progress("restore " + table, total);
  simdjson::dom::parser p;
  const std::string body = Body([&](api::JsonWriter& w) { w.Member("TableName", table); });
  while (true) {
    DR_ASSIGN_OR_RETURN(std::string reply, target.Call("DescribeTable", body));
    DR_ASSIGN_OR_RETURN(simdjson::dom::element e, Parse(p, reply));
    const int64_t items = IntAt(e, {"Table", "ItemCount"});
    const int64_t bytes = IntAt(e, {"Table", "TableSizeBytes"});
    if (StrAt(e, {"Table", "TableStatus"}) == "ACTIVE") {
      progress.Finish(items, bytes);
      return Status();
    }
    progress.Update(items, bytes);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

bool ParseTime(const std::string& text, double* out) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() && *end == '\0' && std::isfinite(v)) {
    *out = v;
    return true;
  }
  struct tm tm {};
  const char* rest = strptime(text.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  if (rest == nullptr || !(*rest == '\0' || (rest[0] == 'Z' && rest[1] == '\0'))) return false;
  *out = static_cast<double>(timegm(&tm));
  return true;
}

}  // namespace

int RunBackup(const Args& args) {
  Target t;
  std::string table, name, delete_arn;
  bool list = false;
  int usage = 0;
  ArgReader r(args);
  std::string v;
  while (r.Next()) {
    const std::string_view flag = r.flag();
    if (flag == "--help" || flag == "-h") {
      std::fputs(kBackupHelp, stdout);
      return kExitOk;
    } else if (TargetFlag("backup", r, &t, &usage)) {
      if (usage) return usage;
    } else if (flag == "--name") {
      if (!r.Value(&name) || name.empty()) return UsageError("backup", "--name needs a name");
    } else if (flag == "--list") {
      list = true;
    } else if (flag == "--delete") {
      if (!r.Value(&delete_arn) || delete_arn.empty())
        return UsageError("backup", "--delete needs a backup ARN");
    } else if (!flag.empty() && flag[0] != '-' && table.empty()) {
      table = std::string(flag);
    } else {
      return UsageError("backup", "unknown argument '" + std::string(flag) + "'");
    }
  }
  if (!list && delete_arn.empty() && table.empty()) return UsageError("backup", "which TABLE?");
  auto target = OpenTarget("backup", t, &usage);
  if (usage) return usage;
  if (!target.ok()) return Fail("backup", target.status());
  simdjson::dom::parser p;

  if (list) {
    std::string start;
    std::printf("%-40s %-10s %-10s %12s  %s\n", "NAME", "STATUS", "TABLE", "BYTES", "ARN");
    do {
      const std::string body = Body([&](api::JsonWriter& w) {
        if (!table.empty()) w.Member("TableName", table);
        if (!start.empty()) w.Member("ExclusiveStartBackupArn", start);
      });
      auto reply = (*target)->Call("ListBackups", body);
      if (!reply.ok()) return Fail("backup", reply.status());
      auto e = Parse(p, *reply);
      if (!e.ok()) return Fail("backup", e.status());
      simdjson::dom::array summaries;
      if ((*e)["BackupSummaries"].get(summaries) == simdjson::SUCCESS) {
        for (simdjson::dom::element s : summaries) {
          std::printf("%-40s %-10s %-10s %12lld  %s\n", StrAt(s, {"BackupName"}).c_str(),
                      StrAt(s, {"BackupStatus"}).c_str(), StrAt(s, {"TableName"}).c_str(),
                      static_cast<long long>(IntAt(s, {"BackupSizeBytes"})),
                      StrAt(s, {"BackupArn"}).c_str());
        }
      }
      start = StrAt(*e, {"LastEvaluatedBackupArn"});
    } while (!start.empty());
    return kExitOk;
  }
  if (!delete_arn.empty()) {
    auto reply = (*target)->Call(
        "DeleteBackup", Body([&](api::JsonWriter& w) { w.Member("BackupArn", delete_arn); }));
    if (!reply.ok()) return Fail("backup", reply.status());
    std::printf("deleted %s\n", delete_arn.c_str());
    return kExitOk;
  }
  if (name.empty()) {
    char stamp[32];
    const time_t now = time(nullptr);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    name = table + "-" + stamp;
  }
  // The table's size, for the progress line.
  int64_t total = 0;
  auto described = (*target)->Call("DescribeTable",
                                    Body([&](api::JsonWriter& w) { w.Member("TableName", table); }));
  if (described.ok()) {
    auto e = Parse(p, *described);
    if (e.ok()) total = IntAt(*e, {"Table", "ItemCount"});
  }
  ProgressBar progress("backup " + table, total);
  auto reply = (*target)->Call("CreateBackup", Body([&](api::JsonWriter& w) {
                                 w.Member("TableName", table);
                                 w.Member("BackupName", name);
                               }));
  if (!reply.ok()) return Fail("backup", reply.status());
  auto e = Parse(p, *reply);
  if (!e.ok()) return Fail("backup", e.status());
  const std::string arn = StrAt(*e, {"BackupDetails", "BackupArn"});
  std::string status = StrAt(*e, {"BackupDetails", "BackupStatus"});
  while (status == "CREATING") {
    progress.Update(0, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    auto d = (*target)->Call("DescribeBackup",
                             Body([&](api::JsonWriter& w) { w.Member("BackupArn", arn); }));
    if (!d.ok()) return Fail("backup", d.status());
    auto de = Parse(p, *d);
    if (!de.ok()) return Fail("backup", de.status());
    status = StrAt(*de, {"BackupDescription", "BackupDetails", "BackupStatus"});
  }
  auto d = (*target)->Call("DescribeBackup",
                           Body([&](api::JsonWriter& w) { w.Member("BackupArn", arn); }));
  if (d.ok()) {
    auto de = Parse(p, *d);
    if (de.ok()) {
      progress.Finish(IntAt(*de, {"BackupDescription", "SourceTableDetails", "ItemCount"}),
                      IntAt(*de, {"BackupDescription", "BackupDetails", "BackupSizeBytes"}));
    }
  }
  std::printf("%s\n", arn.c_str());
  return kExitOk;
}

int RunRestore(const Args& args) {
  Target t;
  std::string backup, source, to, when;
  bool latest = false;
  int usage = 0;
  ArgReader r(args);
  while (r.Next()) {
    const std::string_view flag = r.flag();
    if (flag == "--help" || flag == "-h") {
      std::fputs(kRestoreHelp, stdout);
      return kExitOk;
    } else if (TargetFlag("restore", r, &t, &usage)) {
      if (usage) return usage;
    } else if (flag == "--backup") {
      if (!r.Value(&backup) || backup.empty()) return UsageError("restore", "--backup needs an ARN");
    } else if (flag == "--table") {
      if (!r.Value(&source) || source.empty()) return UsageError("restore", "--table needs a table");
    } else if (flag == "--to") {
      if (!r.Value(&to) || to.empty()) return UsageError("restore", "--to needs a table name");
    } else if (flag == "--time") {
      if (!r.Value(&when) || when.empty()) return UsageError("restore", "--time needs a time");
    } else if (flag == "--latest") {
      latest = true;
    } else {
      return UsageError("restore", "unknown argument '" + std::string(flag) + "'");
    }
  }
  if (backup.empty() == source.empty()) {
    return UsageError("restore", "give one of --backup BACKUP_ARN and --table SOURCE");
  }
  if (to.empty()) return UsageError("restore", "--to TABLE is required");
  if (!backup.empty() && (latest || !when.empty())) {
    return UsageError("restore", "--time and --latest go with --table, not --backup");
  }
  if (latest && !when.empty()) return UsageError("restore", "--time excludes --latest");
  double at = 0;
  if (!when.empty() && !ParseTime(when, &at)) {
    return UsageError("restore", "--time must be seconds since the epoch or "
                                 "YYYY-MM-DDTHH:MM:SSZ, not '" + when + "'");
  }
  auto target = OpenTarget("restore", t, &usage);
  if (usage) return usage;
  if (!target.ok()) return Fail("restore", target.status());
  simdjson::dom::parser p;
  int64_t total = 0;
  StatusOr<std::string> reply = Status();
  if (!backup.empty()) {
    auto d = (*target)->Call("DescribeBackup",
                             Body([&](api::JsonWriter& w) { w.Member("BackupArn", backup); }));
    if (!d.ok()) return Fail("restore", d.status());
    auto e = Parse(p, *d);
    if (e.ok()) total = IntAt(*e, {"BackupDescription", "SourceTableDetails", "ItemCount"});
    reply = (*target)->Call("RestoreTableFromBackup", Body([&](api::JsonWriter& w) {
                              w.Member("TargetTableName", to);
                              w.Member("BackupArn", backup);
                            }));
  } else {
    auto d = (*target)->Call("DescribeTable",
                             Body([&](api::JsonWriter& w) { w.Member("TableName", source); }));
    if (d.ok()) {
      auto e = Parse(p, *d);
      if (e.ok()) total = IntAt(*e, {"Table", "ItemCount"});  // now: an estimate
    }
    reply = (*target)->Call("RestoreTableToPointInTime", Body([&](api::JsonWriter& w) {
                              w.Member("SourceTableName", source);
                              w.Member("TargetTableName", to);
                              if (when.empty()) {
                                w.MemberBool("UseLatestRestorableTime", true);
                              } else {
                                w.MemberDouble("RestoreDateTime", at);
                              }
                            }));
  }
  if (!reply.ok()) return Fail("restore", reply.status());
  Status waited = WaitRestored(**target, to, total);
  if (!waited.ok()) return Fail("restore", waited);
  std::printf("restored %s\n", to.c_str());
  return kExitOk;
}

}  // namespace dynarock::tools
