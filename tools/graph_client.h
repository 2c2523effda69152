// File: tools/graph_client.h
//
// The `dynarock graph` commands' way to a graph table: a graph-layer client over
// HTTP(S) to --endpoint (SigV4 with the AWS_* credentials, or placeholders), or
// on an embedded database in --data (in memory when empty).

#ifndef DYNAROCK_TOOLS_GRAPH_CLIENT_H_
#define DYNAROCK_TOOLS_GRAPH_CLIENT_H_

#include <memory>
#include <string>

#include "client/client.h"
#include "dynarock/db.h"
#include "graph/explore.h"
#include "tools/command.h"

namespace dynarock::tools {

// kExitOk, or the exit code after saying what is wrong on stderr (a bad URL or
// CA file is a usage error). *db holds the embedded database, if any.
int OpenGraphClient(const std::string& endpoint, const std::string& data, const std::string& region,
                    const std::string& ca_file, std::unique_ptr<DB>* db,
                    std::unique_ptr<client::Client>* client);

// The flags that say where a graph table is, as `graph export` and `graph
// stats` take them: --endpoint URL (with --region, --ca-file) or --data DIR.
struct GraphPlace {
  std::string endpoint, data, region, ca_file;
  // When r's flag is one of them: takes its value and returns true (*rc is then
  // kExitUsage, after a message, when the value is missing; else kExitOk).
  bool Take(ArgReader& r, std::string_view command, int* rc);
  // Checks that exactly one of --endpoint and --data was given, then opens the
  // client (OpenGraphClient). kExitOk or the exit code.
  int Open(std::string_view command, std::unique_ptr<DB>* db,
           std::unique_ptr<client::Client>* client) const;
  // Open(), then `table`'s conventions (graph::DetectSchema). A failure, or a
  // table that is not a graph table (unless allow_not_graph: the caller then
  // reads detected->reason), is said on stderr: kExitFailure.
  int OpenTable(std::string_view command, const std::string& table, std::unique_ptr<DB>* db,
                std::unique_ptr<client::Client>* client, graph::DetectedSchema* detected,
                bool allow_not_graph = false) const;
};

// "dynarock <command>: <status>" on stderr; kExitFailure.
int CommandFailed(std::string_view command, const Status& status);

}  // namespace dynarock::tools

#endif  // DYNAROCK_TOOLS_GRAPH_CLIENT_H_
