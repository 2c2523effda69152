#include "tools/api_target.h"

#include "tools/data_dir.h"

#include <cstdlib>

#include "client/http_client.h"
#include "engine/api/handler.h"
#include "engine/api/json_decode.h"

namespace dynarock::tools {

StatusOr<std::unique_ptr<ApiTarget>> ApiTarget::Open(const std::string& data_dir,
                                                     const std::string& endpoint, bool in_memory,
                                                     bool create_if_missing) {
  std::unique_ptr<ApiTarget> t(new ApiTarget());
  if (!endpoint.empty()) {
    client::HttpClientOptions o;  // credentials from the environment or the profile
    o.endpoint = endpoint;
    if (const char* r = std::getenv("AWS_REGION")) o.region = r;
    DR_ASSIGN_OR_RETURN(t->http_, client::HttpClient::Create(o));
    return t;
  }
  Options options;
  options.in_memory = in_memory || data_dir.empty();
  options.create_if_missing = create_if_missing;
  DR_ASSIGN_OR_RETURN(t->db_, options.in_memory ? DB::Open(options, "/dynarock-in-memory")
                                                : OpenDataDir(data_dir, options));
  t->handler_ = std::make_unique<api::Handler>(t->db_.get());
  if (!options.in_memory) t->handler_->SetS3Root(data_dir + "/s3");
  return t;
}

ApiTarget::~ApiTarget() {
  // Jobs of the handler (exports, imports) stop before the database closes.
  if (handler_) handler_->SetDatabase(nullptr);
}

void ApiTarget::SetS3Root(std::string dir) {
  if (handler_) handler_->SetS3Root(std::move(dir));
}

StatusOr<std::string> ApiTarget::Call(std::string_view operation, const std::string& body) {
  if (http_) return http_->Call(operation, body);
  api::ApiReply r = handler_->Handle(operation, body);
  if (r.http_status != 200) return api::DecodeErrorResponse(r.http_status, r.body);
  return std::move(r.body);
}

}  // namespace dynarock::tools
