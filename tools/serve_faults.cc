// File: tools/serve_faults.cc

#include "tools/serve_faults.h"

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "tools/server/fault_routes.h"

namespace dynarock::tools {

bool ServeFaults::ParseFlag(ArgReader& r, int* exit_code) {
  *exit_code = -1;
  const std::string_view flag = r.flag();
  std::string v;
  if (flag == "--faults") {
    if (!r.Value(&v) || v.empty()) *exit_code = UsageError("serve", "--faults needs a file");
    faults_file_ = v;
  } else if (flag == "--fault-seed") {
    long long n = 0;
    if (!r.Value(&v) || !ParseInt(v, 0, INT64_MAX, &n)) {
      *exit_code = UsageError("serve", "--fault-seed must be a whole number from 0");
    }
    seed_ = static_cast<uint64_t>(n);
  } else if (flag == "--request-log") {
    if (!r.Value(&v) || v.empty()) *exit_code = UsageError("serve", "--request-log needs a file");
    request_log_path_ = v;
  } else {
    return false;
  }
  return true;
}

bool ServeFaults::Start() {
  if (!faults_file_.empty()) {
    std::ifstream in(faults_file_, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "dynarock serve: cannot read --faults '%s'\n", faults_file_.c_str());
      return false;
    }
    std::stringstream text;
    text << in.rdbuf();
    Status s = faults_->SetRulesJson(text.str());
    if (!s.ok()) {
      std::fprintf(stderr, "dynarock serve: --faults %s: %s\n", faults_file_.c_str(), s.message().c_str());
      return false;
    }
  }
  if (seed_) faults_->SetSeed(*seed_);  // the flag wins over the file's seed
  if (!request_log_path_.empty()) {
    auto log = api::RequestLog::Open(request_log_path_);
    if (!log.ok()) {
      std::fprintf(stderr, "dynarock serve: %s\n", log.status().message().c_str());
      return false;
    }
    request_log_ = std::shared_ptr<api::RequestLog>(std::move(log).value());
  }
  return true;
}

void ServeFaults::Configure(api::Handler* handler) const {
  handler->SetFaults(faults_);
  if (request_log_) handler->SetRequestLog(request_log_);
}

void ServeFaults::RegisterRoutes(server::ControlApi* control) const {
  server::RegisterFaultRoutes(control, faults_);
}

void ServeFaults::Flush() const {
  if (request_log_) request_log_->Flush();
}

}  // namespace dynarock::tools
