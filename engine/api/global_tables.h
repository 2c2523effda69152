// File: engine/api/global_tables.h
//
// The operations of global tables outside UpdateTable: the version
// 2017.11.29 (legacy) operations and the replica auto scaling ones, as
// DynamoDB answers them today (2026); replica auto scaling of a global table
// lists its replicas, this region first, and refuses updates (on demand). DynamoDB no longer creates
// 2017.11.29 global tables in any region: CreateGlobalTable, and
// UpdateGlobalTable adding a replica, are ValidationException ("version
// 2017.11.29 is not supported"); a group that cannot exist is not found
// (GlobalTableNotFoundException); ListGlobalTables lists none. A table that is
// not a global table of version 2019.11.21 has no replica auto scaling
// (ResourceNotFoundException "Global table with name: '<t>' does not exist."),
// such as a table without replicas (UpdateTable's ReplicaUpdates make them:
// tools/server/global_tables.h). Requests are checked for shape first, as
// DynamoDB does.

#ifndef DYNAROCK_API_GLOBAL_TABLES_H_
#define DYNAROCK_API_GLOBAL_TABLES_H_

#include <string>
#include <string_view>

#include "dynarock/db.h"
#include "dynarock/status.h"

namespace dynarock::api {

// The reply body of global-table operation `op` (one of the eight), or its
// error. `region`: the database's region (empty: its tables' ARNs').
StatusOr<std::string> HandleGlobalTableOperation(DB* db, std::string_view op, std::string_view body,
                                                 const std::string& region = "");

}  // namespace dynarock::api

#endif  // DYNAROCK_API_GLOBAL_TABLES_H_
