#include "tools/server/namespaces.h"

#include <cctype>
#include <filesystem>

namespace dynarock::server {
namespace {

constexpr const char* kShared = "shared";

bool Alnum(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) return false;
  return true;
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
    std::error_code ec;
    std::filesystem::create_directories(path, ec);  // its parents too (-dbPath)
  } else {
    path = config_.data_dir + "/namespaces/" + name;
    std::error_code ec;
    std::filesystem::create_directories(path, ec);
    if (ec) return InternalError("Cannot create " + path + ": " + ec.message());
  }
  if (name != kShared) {
    options.region = config_.arn_region.empty() ? std::string(region) : config_.arn_region;
  }
  auto db = DB::Open(options, path);
  if (!db.ok()) return db.status();
  auto space = std::make_unique<Space>();
  space->db = std::move(db).value();
  space->handler = std::make_unique<api::Handler>(space->db.get());
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
  return (*space)->handler->Handle(operation, body);
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

}  // namespace dynarock::server
