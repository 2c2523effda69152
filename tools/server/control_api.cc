#include "tools/server/control_api.h"

#include "engine/api/json_writer.h"

namespace dynarock::server {

void ControlApi::Register(std::string name, Route route, Access access) {
  routes_[std::move(name)] = Entry{std::move(route), access};
}

ControlReply JsonReply(std::string body, int http_status) {
  ControlReply reply;
  reply.http_status = http_status;
  reply.body = std::move(body);
  return reply;
}

std::optional<std::string> QueryParam(std::string_view query, std::string_view name) {
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  auto decode = [&](std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '+') {
        out += ' ';
      } else if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
        out += static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2]));
        i += 2;
      } else {
        out += s[i];
      }
    }
    return out;
  };
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    const size_t eq = pair.find('=');
    if (decode(pair.substr(0, eq)) == name) {
      return eq == std::string_view::npos ? std::string() : decode(pair.substr(eq + 1));
    }
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return std::nullopt;
}

ControlReply ControlApi::Error(const Status& status) {
  api::JsonWriter w;
  w.BeginObject();
  w.Member("__type", ErrorTypeName(status.type()));
  w.Member("message", status.message());
  w.EndObject();
  return JsonReply(w.Release(), ErrorHttpStatus(status.type()));
}

ControlReply ControlApi::NotFound(std::string_view what) {
  ControlReply r = Error(Status(ErrorType::kResourceNotFound, std::string(what)));
  r.http_status = 404;
  return r;
}

bool ControlApi::Split(std::string_view target, std::string_view* name, std::string_view* rest,
                       std::string_view* query) {
  if (target.substr(0, kControlPathPrefix.size()) != kControlPathPrefix) return false;
  std::string_view path = target.substr(kControlPathPrefix.size());
  *query = std::string_view();
  if (size_t q = path.find('?'); q != std::string_view::npos) {
    *query = path.substr(q + 1);
    path = path.substr(0, q);
  }
  const size_t slash = path.find('/');
  *name = path.substr(0, slash);
  *rest = slash == std::string_view::npos ? std::string_view() : path.substr(slash + 1);
  return true;
}

bool ControlApi::IsPublic(std::string_view target) const {
  std::string_view name, rest, query;
  if (!Split(target, &name, &rest, &query)) return false;
  auto it = routes_.find(name);
  return it != routes_.end() && it->second.access == Access::kPublic;
}

ControlReply ControlApi::Handle(std::string_view target, ControlRequest request) const {
  std::string_view name;
  request.target = target;
  if (!Split(target, &name, &request.rest, &request.query)) {
    return NotFound("Not a control API path");
  }
  auto it = routes_.find(name);
  if (it == routes_.end()) {
    return NotFound("No control API route /_dynarock/" + std::string(name));
  }
  return it->second.route(request);
}

}  // namespace dynarock::server
