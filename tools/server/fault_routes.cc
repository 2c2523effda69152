// File: tools/server/fault_routes.cc

#include "tools/server/fault_routes.h"

#include <utility>

namespace dynarock::server {

void RegisterFaultRoutes(ControlApi* control, std::shared_ptr<api::FaultInjector> faults) {
  control->Register("faults", [faults = std::move(faults)](const ControlRequest& r) {
    if (!r.rest.empty()) return ControlApi::NotFound("No control API route /_dynarock/faults/" + std::string(r.rest));
    if (r.method == "PUT" || r.method == "POST") {
      Status s = faults->SetRulesJson(r.body);
      if (!s.ok()) return ControlApi::Error(s);
    } else if (r.method == "DELETE") {
      faults->Clear();
    } else if (r.method != "GET") {
      ControlReply reply = ControlApi::Error(
          ValidationError("Method " + std::string(r.method) + " is not allowed on /_dynarock/faults (GET, PUT, POST, DELETE)"));
      reply.http_status = 405;
      return reply;
    }
    return JsonReply(faults->ToJson());
  });
}

}  // namespace dynarock::server
