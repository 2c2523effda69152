// File: tools/server/global_tables.h
//
// Global tables, version 2019.11.21, across the endpoint's region namespaces
// (tools/server/namespaces.h): one `dynarock serve` holds each (access key,
// region)'s tables, so a table and its replicas in other regions live in one
// process, and an application can be run against several regions at once,
// with the replication lag and the write conflicts it will meet on DynamoDB.
//
// UpdateTable with ReplicaUpdates, in any member's region:
//   - Create {RegionName, settings}: the table gets a stream
//     (NEW_AND_OLD_IMAGES, which DynamoDB turns on too), the replica table is
//     made in that region with the same keys, indexes and table class (or its
//     TableClassOverride) and its own read maximums
//     (OnDemandThroughputOverride, of the table and of its GSIs), the items
//     are copied, and every member's DescribeTable lists the others as
//     Replicas with their settings (GlobalTableVersion 2019.11.21). A Create
//     that fails part-way is undone.
//   - Update {RegionName, TableClassOverride, settings}: that replica's.
//   - Delete {RegionName}: that replica's table is deleted and leaves the
//     group. DeleteTable of a member does the same for its own region.
// The table must be ACTIVE and on demand (provisioned capacity needs auto
// scaling on DynamoDB, which a local endpoint does not run); one replica is
// created or deleted per request; the table's own region is not a replica.
//
// MultiRegionConsistency STRONG (MRSC): two Creates in one request, or one
// Create and a witness (GlobalTableWitnessUpdates: a region listed as
// GlobalTableWitnesses, holding no table), on an empty table. A write to one
// (Handler::GlobalTableHooks::claim) claims its items after the policy checks,
// before fault injection and the write; a write in
// another region to a claimed item is refused with
// ReplicatedWriteConflictException; after the write each item, as it is now,
// is copied to the other replica(s) before the reply, so a strongly consistent read
// anywhere sees every acknowledged write (PartiQL writes too). The items a
// region is writing are saved first and copied again at the next start, so a
// crash between a write and its copy leaves the replicas alike. Deleting one
// replica alone is refused (DynamoDB's message); both others together (the
// replica and the witness) make the table regional again.
//
// Replication: each member's change log (DB::Subscribe) is read in order; a
// write reaches the other members `lag` after it was made (0: at once), as a
// PutItem of its new image or a DeleteItem of its key. Concurrent writes to
// one item in two regions resolve by last writer wins on the writes' times
// (their stream records' ApproximateCreationDateTime, in milliseconds; the
// region's name breaks a tie), so every member ends with the same item:
//   - a write that arrives later than a newer one is not applied (the newer
//     one is sent to where the older one landed instead);
//   - a replicated write that lands on top of a newer local write is seen as
//     such in that member's stream, and the newer one is written again.
// A replicated write keeps the time of the write it copies (the group
// remembers what it sent where), so it never wins over what came after; a
// write of what a member already holds is not sent on.
//
// Durability: each member's position in its change log is saved in its
// database (checkpoint "global-table/<table>") after the record is applied
// everywhere it had to go, so after a restart or kill -9 replication resumes
// there: no acknowledged write is lost from any replica (records applied but
// not yet checkpointed are applied again, which leaves the same items). The
// last-writer state is kept too: each member saves, per item, the stamps of
// the writes it made or was sent (a replicated one "pending" before it is
// applied, each read one by its record's sequence number), and an item the
// group does not hold in memory is loaded from each member's newest stamp
// where the item still matches it (global_tables_replication.cc).

#ifndef DYNAROCK_TOOLS_SERVER_GLOBAL_TABLES_H_
#define DYNAROCK_TOOLS_SERVER_GLOBAL_TABLES_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "dynarock/db.h"
#include "dynarock/streams.h"
#include "engine/api/handler.h"

namespace dynarock::server {

class Namespaces;

struct GlobalTablesOptions {
  // How long after a write it reaches the other replicas (serve --replication-lag-ms).
  std::chrono::milliseconds lag{300};
  // Seconds since the epoch on the namespaces' clock (null: the system's).
  std::function<double()> clock;
  // One line per problem met while replicating (null: stderr).
  std::function<void(const std::string&)> log;
};

class GlobalTables {
 public:
  explicit GlobalTables(GlobalTablesOptions options);
  ~GlobalTables();
  GlobalTables(const GlobalTables&) = delete;
  GlobalTables& operator=(const GlobalTables&) = delete;

  // The namespaces' clock, before Attach (GlobalTablesOptions::clock).
  void SetClock(std::function<double()> clock) { options_.clock = std::move(clock); }
  // Where replicas live. Global tables found in the namespaces on disk
  // replicate again from their checkpoints.
  void Attach(Namespaces* namespaces);
  // The hooks of the handler of namespace `name` ("KEY_REGION", or "shared").
  api::Handler::GlobalTableHooks HooksFor(const std::string& name);
  // Stops replicating (before the namespaces close).
  void Stop();
  // Holds replication still (item writes in region namespaces wait, claims
  // in flight finish their copies, the worker finishes the write it is
  // making and starts no other) until Resume: for a snapshot to see every
  // region at one point of the replication.
  void Pause();
  void Resume();
  // Pauses and forgets every group (writes on their way are dropped; their
  // records are read again), before the namespaces' tables are reset or
  // restored from a snapshot; Attach then finds the groups the tables now
  // describe, and resumes.
  void Detach();

  struct Group;     // one global table (implementation detail)
  struct KeyState;  // one item's last writer in a group (implementation detail)

 private:
  // A write due to a member: the item's winning write, sent `lag` after it was made.
  struct Task {
    std::weak_ptr<Group> group;
    std::string from;  // the member whose record asked for it
    uint64_t record = 0;
    std::string key;   // the item's key, as text
    Item keys;
    std::string target;
    std::pair<double, std::string> stamp;  // the winning write's time and region
  };
  void OnRecord(const std::shared_ptr<Group>& g, const std::string& region, DB* db, const StreamRecord& rec);
  void Apply(const Task& t);
  void Complete(const std::shared_ptr<Group>& g, const std::string& region, uint64_t id, int applied);
  void Work();
  class StrongClaim;
  StatusOr<std::unique_ptr<api::Handler::GlobalTableHooks::Claim>> ClaimItems(
      const std::string& access_key, const std::string& region, DB& db,
      const std::vector<std::pair<std::string, Item>>& keys);

  // Last writer wins' state (global_tables_replication.cc).
  void LoadKey(Group& g, const std::string& key, const Item& item_key, KeyState* st);
  void SaveStamp(Group& g, KeyState& st, const std::string& region, const std::string& key,
                 const std::pair<double, std::string>& stamp, const std::optional<Item>& image, bool pending,
                 const std::string& record);
  void Forget(Group& g, const std::string& key);
  // MRSC (global_tables_strong.cc).
  void SaveWriting(Group& g, const std::string& region);
  Status CopyItem(Group& g, const std::string& region, DB& db, const Item& item_key);
  void Repair(Group& g);

  StatusOr<UpdateTableResponse> Update(const std::string& name, DB& db, const UpdateTableRequest& req);
  Status CreateReplica(const std::string& access_key, const std::string& region, DB& db, const TableDescription& d,
                       const ReplicaUpdate& u, std::shared_ptr<Group>* group);
  void Deleted(const std::string& name, DB& db, const std::string& table);
  std::shared_ptr<Group> GroupOf(const std::string& access_key, const std::string& table, bool create);
  Status Subscribe(const std::shared_ptr<Group>& group, const std::string& region, DB* db, bool from_checkpoint);
  Status SetLists(Group& group);
  void Log(const std::string& line) const;

  GlobalTablesOptions options_;
  Namespaces* namespaces_ = nullptr;
  std::atomic<bool> stopping_{false};
  std::mutex mu_;  // groups_, and one replica change at a time
  std::map<std::string, std::shared_ptr<Group>> groups_;  // by access key + "\n" + table
  // Writes waiting for their time, applied in order by one thread.
  std::mutex queue_mu_;
  std::condition_variable queue_cv_;
  std::multimap<std::chrono::steady_clock::time_point, Task> queue_;  // GUARDED_BY(queue_mu_)
  std::thread worker_;
  // Pause (or Detach) to Resume (or Attach): item writes to any table of a region namespace wait
  // (is_strong says yes, the claim waits), the worker finishes its write.
  std::mutex pause_mu_;
  std::condition_variable pause_cv_;
  bool paused_ = false;         // GUARDED_BY(pause_mu_)
  int claims_in_flight_ = 0;    // GUARDED_BY(pause_mu_)
  std::atomic<bool> pausing_{false};
  bool applying_ = false;       // GUARDED_BY(queue_mu_): the worker is in Apply
  bool held_ = false;           // GUARDED_BY(queue_mu_): the worker starts no write
  bool dropping_ = false;       // GUARDED_BY(queue_mu_): Detach to Attach, nothing is queued
  // MRSC groups, asked on every item write: none (the usual case) costs an atomic load.
  std::mutex strong_mu_;
  std::map<std::string, std::shared_ptr<Group>> strong_groups_;  // GUARDED_BY(strong_mu_)
  std::atomic<int> strong_count_{0};
};

}  // namespace dynarock::server

#endif  // DYNAROCK_TOOLS_SERVER_GLOBAL_TABLES_H_
