#include "tools/console/console_routes.h"

#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "dynarock/version.h"
#include "engine/api/json_writer.h"
#include "engine/coding.h"
#include "tools/console/console_assets.h"
#include "tools/console/graph_routes.h"

namespace dynarock::console {
namespace {

// Nothing but this origin: no inline script, no remote anything. Inline styles
// are allowed (the graph drawing and the grid set element styles).
constexpr std::string_view kFileHeaders =
    "\r\nCache-Control: no-cache"
    "\r\nX-Content-Type-Options: nosniff"
    "\r\nReferrer-Policy: no-referrer"
    "\r\nX-Frame-Options: DENY"
    "\r\nContent-Security-Policy: default-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'none'";

std::string ETagOf(std::string_view data) {
  static constexpr char kHex[] = "0123456789abcdef";
  uint64_t h = Fnv1a64(data);
  std::string tag = "\"";
  for (int i = 60; i >= 0; i -= 4) tag.push_back(kHex[(h >> i) & 15]);
  tag.push_back('"');
  return tag;
}

// A path inside the console's folder: no "..", no absolute path, no NUL.
bool SafePath(std::string_view path) {
  if (path.empty() || path.front() == '/' || path.find('\0') != std::string_view::npos ||
      path.find('\\') != std::string_view::npos) {
    return false;
  }
  size_t from = 0;
  while (from <= path.size()) {
    const size_t slash = std::min(path.find('/', from), path.size());
    const std::string_view part = path.substr(from, slash - from);
    if (part.empty() || part == "." || part == "..") return false;
    from = slash + 1;
  }
  return true;
}

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  *out = std::move(ss).str();
  return true;
}

// --console-dir: a file of the folder, or a vendor file as vendor.txt maps it.
bool ReadFromDir(const std::string& dir, std::string_view path, std::string* out) {
  if (path.substr(0, 7) == "vendor/") {
    std::ifstream list(dir + "/vendor.txt");
    std::string line;
    while (std::getline(list, line)) {
      std::istringstream words(line);
      std::string to, arrow, from;
      if (words >> to >> arrow >> from && to == path && arrow == "<-" && SafePath(from)) {
        return ReadFile(dir + "/" + from, out);
      }
    }
    return false;
  }
  if (path.find("node_modules") != std::string_view::npos) return false;
  return ReadFile(dir + "/" + std::string(path), out);
}

server::ControlReply FileReply(const server::ControlRequest& r, std::string_view path,
                               std::string_view data) {
  server::ControlReply reply;
  const std::string etag = ETagOf(data);
  reply.content_type = std::string(ContentTypeOf(path));
  reply.headers = std::string(kFileHeaders) + "\r\nETag: " + etag;
  if (!r.if_none_match.empty() && r.if_none_match.find(etag) != std::string_view::npos) {
    reply.http_status = 304;
    reply.body.clear();
    return reply;
  }
  reply.body = std::string(data);
  return reply;
}

server::ControlReply Info(const ConsoleOptions& options) {
  api::JsonWriter w;
  w.BeginObject();
  w.MemberBool("require_auth", options.require_auth);
  w.MemberBool("control_api", options.control_api);
  w.Member("region", options.region);
  w.Member("version", DYNAROCK_VERSION_STRING);
  w.MemberBool("files_from_disk", !options.files_dir.empty());
  w.EndObject();
  server::ControlReply reply;
  reply.body = w.Release();
  reply.headers = "\r\nCache-Control: no-store";
  return reply;
}

server::ControlReply ServeFile(const ConsoleOptions& options, const server::ControlRequest& r) {
  if (r.method != "GET") {
    return server::ControlApi::Error(Status(
        ErrorType::kValidation, "Method " + std::string(r.method) + " is not allowed on the console's files (GET)"));
  }
  // "/_dynarock/console" itself: relative links need the trailing slash.
  std::string_view target = r.target.substr(0, r.target.find('?'));
  if (target.back() != '/' && r.rest.empty()) {
    server::ControlReply reply;
    reply.http_status = 308;
    reply.content_type = "text/plain; charset=utf-8";
    reply.body = "The console is at /_dynarock/console/\n";
    reply.headers = "\r\nLocation: /_dynarock/console/";
    return reply;
  }
  if (r.rest == "info") return Info(options);
  const std::string_view path = r.rest.empty() ? std::string_view("index.html") : r.rest;
  if (SafePath(path)) {
    if (!options.files_dir.empty()) {
      std::string data;
      if (ReadFromDir(options.files_dir, path, &data)) return FileReply(r, path, data);
    } else {
      for (const Asset& a : CompiledAssets()) {
        if (a.path == path) return FileReply(r, path, a.data);
      }
    }
  }
  return server::ControlApi::NotFound("No console file " + std::string(path));
}

server::ControlReply Namespaces(server::Namespaces* namespaces) {
  api::JsonWriter w;
  w.BeginObject();
  w.MemberBool("shared_db", namespaces->shared_only());
  w.Key("namespaces");
  w.BeginArray();
  for (const std::string& name : namespaces->Names()) {
    w.BeginObject();
    w.Member("name", name);
    const size_t sep = name.rfind('_');
    if (name != "shared" && sep != std::string::npos) {
      w.Member("access_key", std::string_view(name).substr(0, sep));
      w.Member("region", std::string_view(name).substr(sep + 1));
    }
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  server::ControlReply reply;
  reply.body = w.Release();
  return reply;
}

server::ControlReply OnlyGet(const server::ControlRequest& r, std::string_view route) {
  return server::ControlApi::Error(Status(ErrorType::kValidation, "Method " + std::string(r.method) +
                                                                      " is not allowed on /_dynarock/" +
                                                                      std::string(route) + " (GET)"));
}

}  // namespace

std::string_view ContentTypeOf(std::string_view path) {
  const size_t dot = path.rfind('.');
  const std::string_view ext = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
  if (ext == "html") return "text/html; charset=utf-8";
  if (ext == "js" || ext == "mjs") return "text/javascript; charset=utf-8";
  if (ext == "css") return "text/css; charset=utf-8";
  if (ext == "svg") return "image/svg+xml";
  if (ext == "json") return "application/json";
  if (ext == "png") return "image/png";
  return "text/plain; charset=utf-8";
}

void RegisterConsoleRoutes(server::ControlApi* api, const ConsoleOptions& options,
                           server::Namespaces* namespaces, const server::MetricsRegistry* metrics) {
  api->Register(
      "console", [options](const server::ControlRequest& r) { return ServeFile(options, r); },
      server::ControlApi::Access::kPublic);
  api->Register("namespaces", [namespaces](const server::ControlRequest& r) {
    if (r.method != "GET") return OnlyGet(r, "namespaces");
    return Namespaces(namespaces);
  });
  api->Register("metrics", [metrics](const server::ControlRequest& r) {
    if (r.method != "GET") return OnlyGet(r, "metrics");
    server::ControlReply reply;
    reply.body = metrics->RenderJson();
    reply.headers = "\r\nCache-Control: no-store";
    return reply;
  });
  RegisterGraphRoutes(api, namespaces);
}

}  // namespace dynarock::console
