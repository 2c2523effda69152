// File: tools/console/console_assets.h
//
// The console's files as the build compiled them in (cmake/console_assets.cmake
// generates the table from tools/console/ and tools/console/vendor.txt).
//
//   for (const Asset& a : CompiledAssets()) ...   // {"js/app.js", bytes}

#ifndef DYNAROCK_TOOLS_CONSOLE_CONSOLE_ASSETS_H_
#define DYNAROCK_TOOLS_CONSOLE_CONSOLE_ASSETS_H_

#include <cstddef>
#include <span>
#include <string_view>

namespace dynarock::console {

struct Asset {
  std::string_view path;  // relative to the console's root: "index.html", "vendor/x.mjs"
  std::string_view data;
};

// Every compiled-in file, sorted by path within the console's own files, then
// the vendor files in vendor.txt's order.
std::span<const Asset> CompiledAssets();

}  // namespace dynarock::console

#endif  // DYNAROCK_TOOLS_CONSOLE_CONSOLE_ASSETS_H_
