// File: tools/serve_faults.h
//
// `serve`'s fault-injection and request-log flags (--faults FILE,
// --fault-seed N, --request-log FILE), kept out of serve_command.cc: one
// ServeFaults parses them, opens what they name, and attaches the injector
// and the log to each namespace's Handler and the control API.

#ifndef DYNAROCK_TOOLS_SERVE_FAULTS_H_
#define DYNAROCK_TOOLS_SERVE_FAULTS_H_

#include <memory>
#include <optional>
#include <string>

#include "engine/api/faults.h"
#include "engine/api/handler.h"
#include "engine/api/request_log.h"
#include "tools/command.h"
#include "tools/server/control_api.h"

namespace dynarock::tools {

class ServeFaults {
 public:
  // Takes the current flag if it is one of these: true when taken; then
  // *exit_code is -1, or the usage error's exit code.
  bool ParseFlag(ArgReader& r, int* exit_code);
  // Reads --faults, opens --request-log: false (after a message on stderr) on
  // failure.
  bool Start();
  // Attaches the injector and the log to `handler` (every namespace's).
  void Configure(api::Handler* handler) const;
  // Adds /_dynarock/faults.
  void RegisterRoutes(server::ControlApi* control) const;
  // Writes out the request log's buffer (at shutdown; the destructor does too).
  void Flush() const;

  const std::shared_ptr<api::FaultInjector>& faults() const { return faults_; }

 private:
  std::string faults_file_;
  std::optional<uint64_t> seed_;
  std::string request_log_path_;
  std::shared_ptr<api::FaultInjector> faults_ = std::make_shared<api::FaultInjector>();
  std::shared_ptr<api::RequestLog> request_log_;
};

}  // namespace dynarock::tools

#endif  // DYNAROCK_TOOLS_SERVE_FAULTS_H_
