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
};

struct ControlReply {
  int http_status = 200;
  std::string body = "{}";  // JSON
};

class ControlApi {
 public:
  using Route = std::function<ControlReply(const ControlRequest&)>;
  // Routes /_dynarock/<name> and /_dynarock/<name>/... to `route`.
  void Register(std::string name, Route route);
  // `target`: the request's whole target ("/_dynarock/reset?x=1").
  ControlReply Handle(std::string_view method, std::string_view target, std::string_view body) const;

  // A JSON error reply: {"__type":"<type>","message":"..."} with the HTTP
  // status DynamoDB gives the type (400, 500).
  static ControlReply Error(const Status& status);
  static ControlReply NotFound(std::string_view what);

 private:
  std::map<std::string, Route, std::less<>> routes_;
};

}  // namespace dynarock::server

#endif  // DYNAROCK_TOOLS_SERVER_CONTROL_API_H_
