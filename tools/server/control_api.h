// File: tools/server/control_api.h
//
// The endpoint's control API: test-double controls (reset, snapshots, fault
// rules, the clock) under paths no DynamoDB client uses, `/_dynarock/...`,
// JSON in and out. Each feature registers the routes of its prefix; the HTTP
// server hands every request under /_dynarock/ to Handle (when the API is on:
// `serve --no-control-api` turns it off, and then such paths are 404s).
//
//   ControlApi control;
//   control.Register("reset", [&](const ControlRequest& r) { ... });
//   // POST /_dynarock/reset         -> the route, r.rest == ""
//   // GET  /_dynarock/snapshots/a   -> route "snapshots", r.rest == "a"

#ifndef DYNAROCK_TOOLS_SERVER_CONTROL_API_H_
#define DYNAROCK_TOOLS_SERVER_CONTROL_API_H_

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "dynarock/status.h"

namespace dynarock::server {

inline constexpr std::string_view kControlPathPrefix = "/_dynarock/";

struct ControlRequest {
  std::string_view method;  // "GET", "POST", "PUT", "DELETE"
  std::string_view rest;    // the path after "/_dynarock/<route>/", without a query
  std::string_view query;   // after '?', raw
  std::string_view body;
  // The sender's credential scope (empty when unsigned): the namespace a
  // route about tables reads (Namespaces::NameOf).
  std::string_view access_key;
  std::string_view region;
  // The request's If-None-Match header (a file route answers 304 when its
  // ETag is there).
  std::string_view if_none_match;
  // The whole request target ("/_dynarock/console/?x=1").
  std::string_view target;
};

struct ControlReply {
  int http_status = 200;
  std::string body = "{}";  // JSON, unless content_type says otherwise
  std::string content_type = "application/json";
  // More response header lines, each "\r\nName: value" (the console's files:
  // caching and content-security policy).
  std::string headers;
};

// A JSON reply.
ControlReply JsonReply(std::string body, int http_status = 200);

// The value of `name` in a raw query string ("a=1&b=x%20y"), percent-decoded
// ('+' is a space); nullopt when absent.
std::optional<std::string> QueryParam(std::string_view query, std::string_view name);

class ControlApi {
 public:
  using Route = std::function<ControlReply(const ControlRequest&)>;
  enum class Access : uint8_t {
    kSigned,  // under serve --require-auth, only SigV4-signed requests
    kPublic,  // anyone (the console's own files, which hold no data)
  };
  // Routes /_dynarock/<name> and /_dynarock/<name>/... to `route`.
  void Register(std::string name, Route route, Access access = Access::kSigned);
  // Whether the route of `target` ("/_dynarock/console/app.js") is kPublic.
  bool IsPublic(std::string_view target) const;
  // `target`: the request's whole target ("/_dynarock/reset?x=1"). `request`'s
  // method, body and credential scope are passed on; rest and query are set
  // from `target`.
  ControlReply Handle(std::string_view target, ControlRequest request) const;

  // A JSON error reply: {"__type":"<type>","message":"..."} with the HTTP
  // status DynamoDB gives the type (400, 500).
  static ControlReply Error(const Status& status);
  static ControlReply NotFound(std::string_view what);

 private:
  struct Entry {
    Route route;
    Access access;
  };
  // The route name of a target, and the rest and query after it.
  static bool Split(std::string_view target, std::string_view* name, std::string_view* rest,
                    std::string_view* query);
  std::map<std::string, Entry, std::less<>> routes_;
};

}  // namespace dynarock::server

#endif  // DYNAROCK_TOOLS_SERVER_CONTROL_API_H_
