// File: tools/graph_client.h
//
// The `dynarock graph` commands' way to a graph table: a graph-layer client over
// HTTP(S) to --endpoint (SigV4 with the AWS_* credentials, or placeholders), or
// on an embedded database in --data (in memory when empty).

#ifndef DYNAROCK_TOOLS_GRAPH_CLIENT_H_
#define DYNAROCK_TOOLS_GRAPH_CLIENT_H_

#include <memory>
#include <string>

#include "dynarock/db.h"
#include "graph/client.h"

namespace dynarock::tools {

// kExitOk, or the exit code after saying what is wrong on stderr (a bad URL or
// CA file is a usage error). *db holds the embedded database, if any.
int OpenGraphClient(const std::string& endpoint, const std::string& data, const std::string& region,
                    const std::string& ca_file, std::unique_ptr<DB>* db,
                    std::unique_ptr<graph::Client>* client);

}  // namespace dynarock::tools

#endif  // DYNAROCK_TOOLS_GRAPH_CLIENT_H_
