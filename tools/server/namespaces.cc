#include "tools/server/namespaces.h"

#include <sys/stat.h>

#include <cctype>
#include <cerrno>
#include <filesystem>
#include <set>

namespace dynarock::server {
namespace {

constexpr const char* kShared = "shared";

bool Alnum(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) return false;
  return true;
}

// Creates `path`'s missing parents, then `path` itself owner-only (0700): a
// data directory holds every item in clear. An existing one keeps its mode.
std::error_code MakeDataDir(const std::string& path) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::path(path).lexically_normal();
  if (!p.has_filename()) p = p.parent_path();  // "data/"
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path(), ec);
  if (::mkdir(p.c_str(), 0700) != 0 && errno != EEXIST) {
    return std::error_code(errno, std::generic_category());
  }
  return {};
}

bool RegionName(std::string_view s) {
  if (s.empty() || s.size() > 32) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-')) return false;
  return true;
}

}  // namespace

StatusOr<std::unique_ptr<Namespaces>> Namespaces::Open(Config config) {
  std::unique_ptr<Namespaces> n(new Namespaces(std::move(config)));
  DR_RETURN_IF_ERROR(n->Get(kShared, n->config_.db_options.region).status());
  return n;
}

Namespaces::~Namespaces() {
  // Handlers first: their exports and imports stop before the databases close.
  for (auto& [name, space] : spaces_) space->handler.reset();
  spaces_.clear();
}

std::string Namespaces::NameOf(std::string_view access_key, std::string_view region) const {
  // DynamoDB Local's names: <access key>_<region>; keys of letters and digits.
  if (config_.shared || !Alnum(access_key) || !RegionName(region)) return kShared;
  return std::string(access_key) + "_" + std::string(region);
}

StatusOr<Namespaces::Space*> Namespaces::Get(const std::string& name, std::string_view region) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = spaces_.find(name);
  if (it != spaces_.end()) return it->second.get();
  Options options = config_.db_options;
  std::string path;
  if (options.in_memory) {
    path = "/dynarock-in-memory";
  } else if (name == kShared) {
    path = config_.data_dir;
    MakeDataDir(path);  // its parents too (-dbPath); the open reports failures
  } else {
    path = config_.data_dir + "/namespaces/" + name;
    if (std::error_code ec = MakeDataDir(path)) {
      return InternalError("Cannot create " + path + ": " + ec.message());
    }
  }
  if (name != kShared) {
    options.region = config_.arn_region.empty() ? std::string(region) : config_.arn_region;
  }
  auto db = DB::Open(options, path);
  if (!db.ok()) return db.status();
  auto space = std::make_unique<Space>();
  space->db = std::move(db).value();
  space->handler = std::make_unique<api::Handler>(space->db.get());
  space->handler->SetResourceArnPrefix("arn:aws:dynamodb:" + options.region + ":" + options.account_id + ":");
  if (config_.configure) config_.configure(name, space->db.get(), space->handler.get());
  Space* out = space.get();
  spaces_[name] = std::move(space);
  return out;
}

api::ApiReply Namespaces::Handle(std::string_view operation, std::string_view body,
                                 const RequestContext& context) {
  const std::string name = NameOf(context.access_key, context.region);
  auto space = Get(name, context.region);
  if (!space.ok()) return api::Handler::ErrorReply(space.status());
  if (config_.evaluate_policies && !context.access_key.empty()) {
    const std::string principal =
        "arn:aws:iam::" + config_.db_options.account_id + ":user/" + std::string(context.access_key);
    return (*space)->handler->Handle(operation, body, context.explain, principal);
  }
  return (*space)->handler->Handle(operation, body, context.explain);
}

DB* Namespaces::shared() const {
  std::lock_guard<std::mutex> lock(mu_);
  return spaces_.at(kShared)->db.get();
}

std::vector<std::pair<std::string, DB*>> Namespaces::List() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::pair<std::string, DB*>> out;
  out.emplace_back(kShared, spaces_.at(kShared)->db.get());
  for (const auto& [name, space] : spaces_)
    if (name != kShared) out.emplace_back(name, space->db.get());
  return out;
}

DB* Namespaces::Find(const std::string& name) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = spaces_.find(name);
    if (it != spaces_.end()) return it->second->db.get();
  }
  if (config_.db_options.in_memory) return nullptr;
  const size_t sep = name.rfind('_');
  if (sep == std::string::npos) return nullptr;
  std::error_code ec;
  if (!std::filesystem::exists(config_.data_dir + "/namespaces/" + name, ec)) return nullptr;
  auto space = Get(name, std::string_view(name).substr(sep + 1));
  return space.ok() ? (*space)->db.get() : nullptr;
}

StatusOr<DB*> Namespaces::DatabaseOf(std::string_view access_key, std::string_view region) {
  auto space = Get(NameOf(access_key, region), region);
  if (!space.ok()) return space.status();
  return (*space)->db.get();
}

std::vector<std::string> Namespaces::Names() const {
  std::set<std::string> names;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [name, space] : spaces_) names.insert(name);
  }
  if (!config_.db_options.in_memory && !config_.shared) {
    std::error_code ec;
    for (const auto& entry :
         std::filesystem::directory_iterator(config_.data_dir + "/namespaces", ec)) {
      const std::string name = entry.path().filename().string();
      const size_t sep = name.rfind('_');
      if (entry.is_directory(ec) && sep != std::string::npos &&
          Alnum(std::string_view(name).substr(0, sep)) &&
          RegionName(std::string_view(name).substr(sep + 1))) {
        names.insert(name);
      }
    }
  }
  names.erase(kShared);
  std::vector<std::string> out = {kShared};
  out.insert(out.end(), names.begin(), names.end());
  return out;
}

}  // namespace dynarock::server
