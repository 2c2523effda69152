// File: tools/graph_import_mapping.h
//
// How `dynarock graph import` reads a CSV file's columns: which hold node ids,
// edge ends and edge types, which are numbers, the node type that prefixes
// bare ids, the delimiter. Set by flags, or by a mapping file (--mapping FILE):
//
//   {"delimiter": ",", "numbers": ["age"],                  every file
//    "files": {
//      "people.csv":  {"id": "user_id", "id_type": "USER"},
//      "follows.csv": {"source": "from", "source_type": "USER",
//                      "target": "to", "target_type": "USER",
//                      "edge_type": "FOLLOWS", "numbers": ["weight"]}}}
//
// Members: id, source, target, type (column names), edge_type (the type of
// every edge of a file without a type column), id_type, source_type,
// target_type (a node type put before bare ids: 42 -> USER#42), numbers
// (columns read as numbers), delimiter (one character). A file's entry is
// found by the name given on the command line, or else by its base name.
// Each setting comes from, last wins: the defaults, the mapping's top level,
// the command's flags, the file's entry in the mapping.

#ifndef DYNAROCK_TOOLS_GRAPH_IMPORT_MAPPING_H_
#define DYNAROCK_TOOLS_GRAPH_IMPORT_MAPPING_H_

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "dynarock/status.h"

namespace dynarock::tools {

// Where a CSV file's columns are, and how its values are typed.
struct CsvColumns {
  std::string id = "id", source = "source", target = "target", type = "type", edge_type;
  std::string id_type, source_type, target_type;  // empty: ids are whole (TYPE#id)
  std::map<std::string, std::string, std::less<>> types;  // numbers: "N"
  char delimiter = ',';
};

// Settings given for some files (a flag, a mapping member), over the ones
// below them.
struct CsvSettings {
  std::map<std::string, std::string> names;  // "id", "source_type", ... -> value
  std::vector<std::string> numbers;
  std::optional<char> delimiter;
  void ApplyTo(CsvColumns* c) const;
  // Sets member `key` ("id", "edge_type", ...); false for an unknown one.
  bool Set(const std::string& key, std::string value);
};

struct CsvMapping {
  CsvSettings all;
  std::map<std::string, CsvSettings> files;
  CsvColumns For(const std::string& file, const CsvSettings& flags) const;
};

// Reads a mapping file; a ValidationException names what is wrong in it.
StatusOr<CsvMapping> ReadCsvMapping(const std::string& path);

}  // namespace dynarock::tools

#endif  // DYNAROCK_TOOLS_GRAPH_IMPORT_MAPPING_H_
