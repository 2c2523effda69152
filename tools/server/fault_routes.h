// File: tools/server/fault_routes.h
//
// The control API's fault-injection routes (engine/api/faults.h has the rule
// format):
//
//   PUT or POST /_dynarock/faults   {"seed":N,"rules":[...]}: replaces the rules
//                                   and resets the counters; a bad rule is a 400
//                                   ValidationException and changes nothing
//   GET         /_dynarock/faults   {"seed":N,"rules":[{...,"matched":M,"fired":F}],
//                                    "matched":M,"fired":F}
//   DELETE      /_dynarock/faults   removes every rule
//
// Each answers with the rules and counters as GET does.

#ifndef DYNAROCK_TOOLS_SERVER_FAULT_ROUTES_H_
#define DYNAROCK_TOOLS_SERVER_FAULT_ROUTES_H_

#include <memory>

#include "engine/api/faults.h"
#include "tools/server/control_api.h"

namespace dynarock::server {

void RegisterFaultRoutes(ControlApi* control, std::shared_ptr<api::FaultInjector> faults);

}  // namespace dynarock::server

#endif  // DYNAROCK_TOOLS_SERVER_FAULT_ROUTES_H_
