// File: tools/server/state_routes.h
//
// The control API's reset and snapshots (tools/server/control_api.h), over
// every namespace of the endpoint or one:
//   POST   /_dynarock/reset                     {"namespace": "KEY_REGION"}? -> {"reset": [...]}
//   GET    /_dynarock/snapshots                 -> {"snapshots": [{name, created, tables, items, bytes}]}
//   POST   /_dynarock/snapshots                 {"name": N} saves every namespace as N
//   POST   /_dynarock/snapshots/N/restore       every namespace back to N (one saved
//                                               since N is reset)
//   DELETE /_dynarock/snapshots/N
// Errors: {"__type": "...", "message": "..."} with 400 (ValidationException,
// SerializationException) or 404 (no such snapshot or namespace).

#ifndef DYNAROCK_TOOLS_SERVER_STATE_ROUTES_H_
#define DYNAROCK_TOOLS_SERVER_STATE_ROUTES_H_

#include "tools/server/control_api.h"
#include "tools/server/namespaces.h"

namespace dynarock::server {

class GlobalTables;

// `namespaces` (and `global_tables`, when given: its groups are found again
// after a reset or a restore) must outlive `control`'s use.
void RegisterStateRoutes(ControlApi* control, Namespaces* namespaces, GlobalTables* global_tables = nullptr);

}  // namespace dynarock::server

#endif  // DYNAROCK_TOOLS_SERVER_STATE_ROUTES_H_
