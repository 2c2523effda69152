// File: tools/graph_import_mapping.cc
//
// CSV column mappings for `dynarock graph import` (tools/graph_import_mapping.h).

#include "tools/graph_import_mapping.h"

#include <simdjson.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace dynarock::tools {
namespace {

constexpr const char* kNames[] = {"id",        "source",      "target",     "type",
                                  "edge_type", "id_type",     "source_type", "target_type"};

Status Bad(const std::string& path, const std::string& what) {
  return Status(ErrorType::kValidation, "mapping " + path + ": " + what);
}

// One object of settings (the top level, or a file's entry).
Status ReadSettings(simdjson::dom::object obj, const std::string& path, const std::string& where,
                    bool top, CsvSettings* out) {
  for (auto [key, value] : obj) {
    const std::string k(key);
    if (top && k == "files") continue;
    if (k == "numbers") {
      simdjson::dom::array list;
      if (value.get(list) != simdjson::SUCCESS) return Bad(path, where + "\"numbers\" must be an array of column names");
      for (simdjson::dom::element c : list) {
        std::string_view name;
        if (c.get(name) != simdjson::SUCCESS || name.empty()) {
          return Bad(path, where + "\"numbers\" must be an array of column names");
        }
        out->numbers.emplace_back(name);
      }
      continue;
    }
    std::string_view text;
    if (value.get(text) != simdjson::SUCCESS || text.empty()) {
      return Bad(path, where + "\"" + k + "\" must be a non-empty string");
    }
    if (k == "delimiter") {
      if (text.size() != 1 || text[0] == '"' || text[0] == '\n' || text[0] == '\r') {
        return Bad(path, where + "\"delimiter\" must be one character (not a quote or a newline)");
      }
      out->delimiter = text[0];
      continue;
    }
    if (!out->Set(k, std::string(text))) {
      return Bad(path, where + "unknown member \"" + k +
                           "\" (id, source, target, type, edge_type, id_type, source_type, "
                           "target_type, numbers, delimiter" + (top ? ", files" : "") + ")");
    }
  }
  return Status::Ok();
}

}  // namespace

bool CsvSettings::Set(const std::string& key, std::string value) {
  for (const char* n : kNames) {
    if (key == n) {
      names[key] = std::move(value);
      return true;
    }
  }
  return false;
}

void CsvSettings::ApplyTo(CsvColumns* c) const {
  const std::pair<const char*, std::string*> fields[] = {
      {"id", &c->id},           {"source", &c->source},           {"target", &c->target},
      {"type", &c->type},       {"edge_type", &c->edge_type},     {"id_type", &c->id_type},
      {"source_type", &c->source_type}, {"target_type", &c->target_type}};
  for (const auto& [name, field] : fields) {
    if (auto it = names.find(name); it != names.end()) *field = it->second;
  }
  for (const std::string& n : numbers) c->types[n] = "N";
  if (delimiter) c->delimiter = *delimiter;
}

CsvColumns CsvMapping::For(const std::string& file, const CsvSettings& flags) const {
  CsvColumns c;
  all.ApplyTo(&c);
  flags.ApplyTo(&c);
  auto it = files.find(file);
  if (it == files.end()) it = files.find(std::filesystem::path(file).filename().string());
  if (it != files.end()) it->second.ApplyTo(&c);
  return c;
}

StatusOr<CsvMapping> ReadCsvMapping(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Bad(path, "cannot read it");
  std::ostringstream ss;
  ss << in.rdbuf();
  const std::string text = std::move(ss).str();
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (auto err = parser.parse(text).get(doc); err != simdjson::SUCCESS) {
    return Bad(path, std::string("not JSON: ") + simdjson::error_message(err));
  }
  simdjson::dom::object top;
  if (doc.get(top) != simdjson::SUCCESS) return Bad(path, "must be a JSON object");
  CsvMapping m;
  DR_RETURN_IF_ERROR(ReadSettings(top, path, "", true, &m.all));
  simdjson::dom::element files;
  if (top["files"].get(files) == simdjson::SUCCESS) {
    simdjson::dom::object per_file;
    if (files.get(per_file) != simdjson::SUCCESS) return Bad(path, "\"files\" must be an object (file name -> settings)");
    for (auto [name, value] : per_file) {
      simdjson::dom::object settings;
      const std::string where = "files[\"" + std::string(name) + "\"]: ";
      if (value.get(settings) != simdjson::SUCCESS) return Bad(path, where + "must be an object");
      DR_RETURN_IF_ERROR(ReadSettings(settings, path, where, false, &m.files[std::string(name)]));
    }
  }
  return m;
}

}  // namespace dynarock::tools
