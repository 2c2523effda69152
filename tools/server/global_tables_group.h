// File: tools/server/global_tables_group.h
//
// One global table's state (GlobalTables::Group), shared by the files of
// global tables: global_tables.cc (groups, Attach), global_tables_replicas.cc
// (UpdateTable's replica and witness requests), global_tables_replication.cc
// (eventual replication, last writer wins), global_tables_strong.cc (MRSC).
// Private to tools/server.

#ifndef DYNAROCK_TOOLS_SERVER_GLOBAL_TABLES_GROUP_H_
#define DYNAROCK_TOOLS_SERVER_GLOBAL_TABLES_GROUP_H_

#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tools/server/global_tables.h"

namespace dynarock::server {

// The last writer of an item, and what each member holds of it.
struct GlobalTables::KeyState {
  using Stamp = std::pair<double, std::string>;  // a write's time, its region
  // A write a member's database saved: its own, when its record is read, or
  // one sent to it, before it is applied ("pending" until its record is
  // read). `record` is the sequence number of the member's stream record of
  // it, once read (empty: pending, or a write that changed nothing), so the
  // same record read again after a restart is known; the image's hash (0:
  // no item) tells a pending write's record apart. The newest entry is what
  // the member holds, when the item read back has its hash.
  struct Saved {
    Stamp stamp;
    uint64_t image = 0;
    bool pending = false;
    std::string record;
  };
  static constexpr size_t kSavedKept = 4;  // entries read, beside the pending ones
  Stamp winner;
  std::optional<Item> image;             // the winner's new image; none: deleted
  std::map<std::string, Stamp> current;  // by region
  std::map<std::string, std::vector<Saved>> saved;  // by region, as saved in its database
  int tasks = 0;                         // writes of it queued
};

struct GlobalTables::Group {
  struct Member {
    DB* db = nullptr;
    std::unique_ptr<Subscription> subscription;
    std::string table_id;  // its table's TableId: names its saved stamps
  };
  using KeyState = GlobalTables::KeyState;
  using Stamp = KeyState::Stamp;
  using Saved = KeyState::Saved;
  // A write sent to a member, to know it when its stream shows it.
  struct Sent {
    std::optional<Item> image;
    Stamp stamp;
  };

  std::string access_key, table;
  bool strong = false;  // MRSC: writes copied before they are acknowledged; no change log read
  bool creating = false;  // MRSC: replicas being made; item writes refused  GUARDED_BY(mu)
  std::mutex mu;
  std::mutex copy_mu;  // MRSC: one item's read and copy at a time
  // MRSC: the items whose writes are in flight, and the region writing each.
  std::unordered_map<std::string, std::pair<std::string, int>> claims;  // GUARDED_BY(mu)
  // MRSC: the items each region is writing, by key text (the key and the
  // number of claims), saved in its database ("global-table-writing/<table>")
  // so that a write cut short by a crash is copied at the next start.
  std::map<std::string, std::map<std::string, std::pair<Item, int>>> writing;  // GUARDED_BY(mu)
  std::optional<std::string> witness;  // MRSC: the witness region (no table)  GUARDED_BY(mu)
  std::map<std::string, ReplicaSettings> settings;  // by region: Create/Update's  GUARDED_BY(mu)
  std::map<std::string, Member> members;             // by region  GUARDED_BY(mu)
  std::unordered_map<std::string, KeyState> keys;    // GUARDED_BY(mu)
  std::map<std::string, std::unordered_multimap<std::string, Sent>> sent;  // by region, key  GUARDED_BY(mu)
  // Each member's records read and not yet applied everywhere, in order.
  struct Inflight {
    uint64_t id;
    std::string sequence_number;
    int pending;  // writes to make
    DB* db;       // the member's, where its checkpoint goes
  };
  std::map<std::string, std::deque<Inflight>> inflight;  // GUARDED_BY(mu)
  uint64_t next_record = 0;                               // GUARDED_BY(mu)
};

namespace global_tables {

constexpr const char* kVersion = "2019.11.21";

// A member's position in its change log.
inline std::string CheckpointName(const std::string& table) { return "global-table/" + table; }
// MRSC: the items a region is writing.
inline std::string WritingName(const std::string& table) { return "global-table-writing/" + table; }
// A member's saved stamps (global_tables_replication.cc), all deleted when
// it leaves its group or the group becomes a table of its own again.
void DropStamps(DB* db, const std::string& table_id);
// "KEY_REGION" -> {KEY, REGION}; the shared namespace has neither.
bool SplitName(const std::string& name, std::string* access_key, std::string* region);

}  // namespace global_tables
}  // namespace dynarock::server

#endif  // DYNAROCK_TOOLS_SERVER_GLOBAL_TABLES_GROUP_H_
