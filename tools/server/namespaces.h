// File: tools/server/namespaces.h
//
// The endpoint's namespaces. DynamoDB Local keeps each (access key, region)'s
// tables apart, each in a database of its own, unless started with -sharedDb;
// `dynarock serve` does the same. The shared namespace is the data directory
// itself (every request, with --shared-db; unsigned requests otherwise); the
// namespace of access key K and region R is the database in
// <data>/namespaces/K_R, or a database in memory, opened at its first request.
// ARNs are built from the namespace's region.
//
// Each namespace has its own api::Handler; `configure` sets each new one up
// (observer, S3 root, endpoint address, faults, request log) the same way.

#ifndef DYNAROCK_TOOLS_SERVER_NAMESPACES_H_
#define DYNAROCK_TOOLS_SERVER_NAMESPACES_H_

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "dynarock/db.h"
#include "engine/api/handler.h"
#include "tools/server/http_server.h"

namespace dynarock::server {

class Namespaces {
 public:
  struct Config {
    Options db_options;     // of every namespace's DB (region: the namespace's own)
    std::string data_dir;   // unused in memory
    bool shared = false;    // one namespace for everyone
    // The region of every namespace's ARNs (serve --region); empty: each
    // namespace's own, the region its requests are signed for.
    std::string arn_region;
    // serve --require-auth: a request's signing key acts as the IAM user
    // arn:aws:iam::ACCOUNT:user/KEY, whom tables' resource-based policies may
    // deny requests (engine/api/policy_evaluation.h).
    bool evaluate_policies = false;
    // Called once per namespace, before its first request.
    std::function<void(const std::string& name, DB* db, api::Handler* handler)> configure;
  };
  // Opens the shared namespace (the data directory) at once.
  static StatusOr<std::unique_ptr<Namespaces>> Open(Config config);
  ~Namespaces();  // handlers, then databases

  // The name of (access key, region)'s namespace: "shared", or "K_R".
  std::string NameOf(std::string_view access_key, std::string_view region) const;
  // Serves a request in its sender's namespace.
  api::ApiReply Handle(std::string_view operation, std::string_view body,
                       const RequestContext& context);
  // The shared namespace's database.
  DB* shared() const;
  // Every namespace opened so far (the shared one first).
  std::vector<std::pair<std::string, DB*>> List() const;
  // The namespace of that name, opened when it exists on disk (null: none).
  DB* Find(const std::string& name);
  // The database of (access key, region)'s namespace, opened (or created) as
  // its first request would.
  StatusOr<DB*> DatabaseOf(std::string_view access_key, std::string_view region);
  // Every namespace's name, opened or on disk: "shared" first, then "K_R"s.
  std::vector<std::string> Names() const;
  // Whether everyone shares one namespace (serve --shared-db).
  bool shared_only() const { return config_.shared; }

 private:
  struct Space {
    std::unique_ptr<DB> db;
    std::unique_ptr<api::Handler> handler;
  };
  explicit Namespaces(Config config) : config_(std::move(config)) {}
  StatusOr<Space*> Get(const std::string& name, std::string_view region);

  Config config_;
  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<Space>> spaces_;  // GUARDED_BY(mu_)
};

}  // namespace dynarock::server

#endif  // DYNAROCK_TOOLS_SERVER_NAMESPACES_H_
