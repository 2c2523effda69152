// File: tools/api_target.h
//
// Where a CLI command sends DynamoDB operations: a data directory (the DB
// opened in this process, behind an api::Handler) or an endpoint (HTTP,
// signed with the environment's or the profile's credentials). Both take and
// give the operations' JSON bodies, so a command is written once for both.

#ifndef DYNAROCK_TOOLS_API_TARGET_H_
#define DYNAROCK_TOOLS_API_TARGET_H_

#include <memory>
#include <string>
#include <string_view>

#include "dynarock/db.h"
#include "dynarock/status.h"

namespace dynarock::api {
class Handler;
}
namespace dynarock::client {
class HttpClient;
}

namespace dynarock::tools {

class ApiTarget {
 public:
  // Exactly one of `data_dir` and `endpoint` (or neither with `in_memory`).
  static StatusOr<std::unique_ptr<ApiTarget>> Open(const std::string& data_dir,
                                                   const std::string& endpoint,
                                                   bool in_memory = false,
                                                   bool create_if_missing = true);
  ~ApiTarget();

  // One operation: the JSON response body, or DynamoDB's error.
  StatusOr<std::string> Call(std::string_view operation, const std::string& body);
  // The embedded database (null for an endpoint).
  DB* db() const { return db_.get(); }
  // Sets the folder exports and imports use for S3 (embedded only).
  void SetS3Root(std::string dir);

 private:
  ApiTarget() = default;
  std::unique_ptr<DB> db_;
  std::unique_ptr<api::Handler> handler_;
  std::unique_ptr<client::HttpClient> http_;
};

}  // namespace dynarock::tools

#endif  // DYNAROCK_TOOLS_API_TARGET_H_
