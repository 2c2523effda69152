// File: tools/console/console_routes.h
//
// The web console of `dynarock serve`, under the control API's prefix:
//
//   GET /_dynarock/console/            the page (index.html), its scripts and styles
//   GET /_dynarock/console/info        {"require_auth","shared_db","region","version",
//                                       "control_api"}
//   GET /_dynarock/namespaces          {"shared_db", "namespaces": [{"name": "shared"},
//                                       {"name": "K_R", "access_key": "K", "region": "R"}]}
//   GET /_dynarock/metrics             MetricsRegistry::RenderJson()
//   GET /_dynarock/graph/...           graph_routes.h
//
// The page and its files are public (they hold no data); every other route,
// like the DynamoDB API itself, takes a SigV4 signature under
// serve --require-auth, which the page computes from the key the user signs in
// with. The files are the compiled-in ones (console_assets.h), or, with
// serve --console-dir, read from that folder at each request (for working on
// the console without rebuilding). Each is sent with an ETag (a 304 when the
// browser has it), no-cache (revalidated each load), and a content-security
// policy allowing nothing but this origin.

#ifndef DYNAROCK_TOOLS_CONSOLE_CONSOLE_ROUTES_H_
#define DYNAROCK_TOOLS_CONSOLE_CONSOLE_ROUTES_H_

#include <string>

#include "tools/server/control_api.h"
#include "tools/server/metrics.h"
#include "tools/server/namespaces.h"

namespace dynarock::console {

struct ConsoleOptions {
  std::string files_dir;  // serve --console-dir; empty: the compiled-in files
  bool require_auth = false;
  bool control_api = true;  // the test-double controls are on (not --no-control-api)
  std::string region;
};

// Registers the routes above. `namespaces` and `metrics` must outlive `api`.
void RegisterConsoleRoutes(server::ControlApi* api, const ConsoleOptions& options,
                           server::Namespaces* namespaces, const server::MetricsRegistry* metrics);

// The Content-Type of a console file, by its extension.
std::string_view ContentTypeOf(std::string_view path);

}  // namespace dynarock::console

#endif  // DYNAROCK_TOOLS_CONSOLE_CONSOLE_ROUTES_H_
