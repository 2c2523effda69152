#include "tools/data_dir.h"

#include <cstdlib>
#include <filesystem>
#include <vector>

namespace dynarock::tools {

StatusOr<std::unique_ptr<DB>> OpenDataDir(const std::string& data_dir, Options options) {
  namespace fs = std::filesystem;
  const std::string spaces = data_dir + "/namespaces";
  if (const char* chosen = std::getenv("DYNAROCK_NAMESPACE"); chosen != nullptr && *chosen) {
    const std::string name = chosen;
    if (name == "shared") return DB::Open(options, data_dir);
    if (name.find('/') != std::string::npos || name.find("..") != std::string::npos) {
      return Status(ErrorType::kValidation, "DYNAROCK_NAMESPACE is KEY_REGION or shared");
    }
    options.create_if_missing = false;
    return DB::Open(options, spaces + "/" + name);
  }
  std::error_code ec;
  std::vector<std::string> found;
  for (const auto& entry : fs::directory_iterator(spaces, ec)) {
    if (entry.is_directory(ec)) found.push_back(entry.path().filename().string());
  }
  if (found.size() == 1) {
    // The shared namespace, unless it is empty.
    bool empty = true;
    {
      Options probe = options;
      probe.create_if_missing = false;
      probe.read_only = true;
      auto shared = DB::Open(probe, data_dir);  // closed before the chosen one opens
      if (shared.ok()) {
        auto tables = (*shared)->ListTables(ListTablesRequest());
        empty = tables.ok() && tables->table_names.empty();
      }
    }
    if (empty) return DB::Open(options, spaces + "/" + found[0]);
  }
  return DB::Open(options, data_dir);
}

}  // namespace dynarock::tools
