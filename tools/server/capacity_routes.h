// File: tools/server/capacity_routes.h
//
// The control API's capacity-enforcement route (engine/api/capacity_limits.h):
//
//   GET         /_dynarock/capacity   {"enforce":B,"partitionLimits":B,
//                                      "burstSeconds":N,"buckets":[{"table",
//                                      "index","kind","partitionKey","units",
//                                      "rate","burst"}]}
//   PUT or POST /_dynarock/capacity   {"enforce":B,"partitionLimits":B}: turns
//                                     enforcement on or off while serving (an
//                                     absent member keeps its value)
//   DELETE      /_dynarock/capacity   forgets every bucket: each starts again
//                                     with what its table left unused since it
//                                     was made (up to its burst)
//
// Each answers as GET does.

#ifndef DYNAROCK_TOOLS_SERVER_CAPACITY_ROUTES_H_
#define DYNAROCK_TOOLS_SERVER_CAPACITY_ROUTES_H_

#include <memory>

#include "engine/api/capacity_limits.h"
#include "tools/server/control_api.h"

namespace dynarock::server {

void RegisterCapacityRoutes(ControlApi* control, std::shared_ptr<api::CapacityLimits> limits);

}  // namespace dynarock::server

#endif  // DYNAROCK_TOOLS_SERVER_CAPACITY_ROUTES_H_
