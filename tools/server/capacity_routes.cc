// File: tools/server/capacity_routes.cc

#include "tools/server/capacity_routes.h"

#include <utility>

namespace dynarock::server {

void RegisterCapacityRoutes(ControlApi* control, std::shared_ptr<api::CapacityLimits> limits) {
  control->Register("capacity", [limits = std::move(limits)](const ControlRequest& r) {
    if (!r.rest.empty()) {
      return ControlApi::NotFound("No control API route /_dynarock/capacity/" + std::string(r.rest));
    }
    if (r.method == "PUT" || r.method == "POST") {
      Status s = limits->EnforceJson(r.body);
      if (!s.ok()) return ControlApi::Error(s);
    } else if (r.method == "DELETE") {
      limits->Clear();
    } else if (r.method != "GET") {
      ControlReply reply = ControlApi::Error(ValidationError(
          "Method " + std::string(r.method) +
          " is not allowed on /_dynarock/capacity (GET, PUT, POST, DELETE)"));
      reply.http_status = 405;
      return reply;
    }
    return JsonReply(limits->StateJson());
  });
}

}  // namespace dynarock::server
