#include "tools/server/control_api.h"

#include "engine/api/json_writer.h"

namespace dynarock::server {

void ControlApi::Register(std::string name, Route route) { routes_[std::move(name)] = std::move(route); }

ControlReply ControlApi::Error(const Status& status) {
  api::JsonWriter w;
  w.BeginObject();
  w.Member("__type", ErrorTypeName(status.type()));
  w.Member("message", status.message());
  w.EndObject();
  return ControlReply{ErrorHttpStatus(status.type()), w.Release()};
}

ControlReply ControlApi::NotFound(std::string_view what) {
  ControlReply r = Error(Status(ErrorType::kResourceNotFound, std::string(what)));
  r.http_status = 404;
  return r;
}

ControlReply ControlApi::Handle(std::string_view method, std::string_view target,
                                std::string_view body) const {
  if (target.substr(0, kControlPathPrefix.size()) != kControlPathPrefix) {
    return NotFound("Not a control API path");
  }
  std::string_view path = target.substr(kControlPathPrefix.size());
  std::string_view query;
  if (size_t q = path.find('?'); q != std::string_view::npos) {
    query = path.substr(q + 1);
    path = path.substr(0, q);
  }
  const size_t slash = path.find('/');
  const std::string_view name = path.substr(0, slash);
  const std::string_view rest = slash == std::string_view::npos ? std::string_view() : path.substr(slash + 1);
  auto it = routes_.find(name);
  if (it == routes_.end()) {
    return NotFound("No control API route /_dynarock/" + std::string(name));
  }
  return it->second(ControlRequest{method, rest, query, body});
}

}  // namespace dynarock::server
