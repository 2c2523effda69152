// File: tools/server/idle_memory.h
//
// What `dynarock serve` holds once it is ready and idle. Start-up runs code
// the server never runs again (static initialisers, option parsing, opening
// the databases), and the kernel maps each page of it, plus the pages around
// it (fault-around, 64 KiB a fault), into the process: about 8 MB of the
// tool's code and read-only data were resident after start.
// Once ready, the server drops those mappings of its own executable's
// read-only, never-written segments (madvise MADV_DONTNEED); the pages stay
// in the page cache, and the ones the server uses fault back in as cheap
// minor faults on first use. Writable segments, read-only ones with any
// private page (written, resident or swapped out), and the executable's
// relocated RELRO segment (found by its program header, whatever smaps says)
// are left alone: dropping them would lose what was written.

#ifndef DYNAROCK_TOOLS_SERVER_IDLE_MEMORY_H_
#define DYNAROCK_TOOLS_SERVER_IDLE_MEMORY_H_

#include <cstddef>

namespace dynarock::server {

// Drops the start-up pages of the executable's clean read-only mappings;
// returns the bytes of mappings released (0 when /proc is not there).
size_t ReleaseStartupPages();

}  // namespace dynarock::server

#endif  // DYNAROCK_TOOLS_SERVER_IDLE_MEMORY_H_
