// File: tools/server/idle_memory.cc

#include "tools/server/idle_memory.h"

#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cctype>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace dynarock::server {

size_t ReleaseStartupPages() {
  char exe[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return 0;
  const std::string self(exe, static_cast<size_t>(n));
  std::ifstream smaps("/proc/self/smaps");
  if (!smaps) return 0;
  struct Mapping {
    uintptr_t start = 0, end = 0;
    bool candidate = false;  // the executable's, not writable
    bool written = false;    // a private page in it
  };
  std::vector<Mapping> found;
  std::string line;
  while (std::getline(smaps, line)) {
    if (line.empty()) continue;
    // "start-end perms offset dev inode path", or "Key:   value kB".
    const size_t colon = line.find(':');
    const size_t dash = line.find('-');
    if (dash != std::string::npos && (colon == std::string::npos || dash < colon) &&
        std::isxdigit(static_cast<unsigned char>(line[0]))) {
      std::istringstream in(line);
      std::string range, perms, offset, dev, inode, path;
      in >> range >> perms >> offset >> dev >> inode;
      std::getline(in, path);
      path.erase(0, path.find_first_not_of(' '));
      Mapping m;
      m.start = std::strtoull(range.c_str(), nullptr, 16);
      m.end = std::strtoull(range.c_str() + range.find('-') + 1, nullptr, 16);
      m.candidate = path == self && perms.size() == 4 && perms[1] == '-' && perms[3] == 'p';
      found.push_back(m);
      continue;
    }
    if (found.empty()) continue;
    // Any private page (written, or copied on write; resident or swapped
    // out) keeps the mapping.
    if (line.rfind("Anonymous:", 0) == 0 || line.rfind("Private_Dirty:", 0) == 0 ||
        line.rfind("Swap:", 0) == 0) {
      if (std::strtoull(line.c_str() + line.find(':') + 1, nullptr, 10) != 0) found.back().written = true;
    }
  }
  // The executable's RELRO segment (relocated, then made read-only) is
  // never released, whatever smaps says of it.
  struct Relro {
    uintptr_t start = 0, end = 0;
  } relro;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* out) {
        if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0') return 0;  // the executable only
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& ph = info->dlpi_phdr[i];
          if (ph.p_type != PT_GNU_RELRO) continue;
          auto* r = static_cast<Relro*>(out);
          r->start = info->dlpi_addr + ph.p_vaddr;
          r->end = r->start + ph.p_memsz;
        }
        return 1;
      },
      &relro);
  size_t released = 0;
  for (const Mapping& m : found) {
    if (!m.candidate || m.written || m.end <= m.start) continue;
    if (relro.end > relro.start && m.start < relro.end + 4096 && relro.start < m.end) continue;
    if (::madvise(reinterpret_cast<void*>(m.start), m.end - m.start, MADV_DONTNEED) == 0) {
      released += m.end - m.start;
    }
  }
  return released;
}

}  // namespace dynarock::server
