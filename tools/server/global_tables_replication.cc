// File: tools/server/global_tables_replication.cc
//
// Eventual replication of global tables (global_tables.h): each member's
// change log read in order, last writer wins, writes sent `lag` after they
// were made, checkpoints, and the stamps each member saves so that the
// last-writer state survives restarts.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "dynarock/streams.h"
#include "engine/coding.h"
#include "tools/server/global_tables_group.h"

namespace dynarock::server {

using global_tables::CheckpointName;

namespace {

using Stamp = GlobalTables::KeyState::Stamp;
using Saved = GlobalTables::KeyState::Saved;

// An image's hash, as saved with its stamp (0: no item).
uint64_t ImageHash(const std::optional<Item>& image) {
  return image ? (Fnv1a64(DebugString(*image)) | 1) : 0;
}

// Every stamp of one table (by its id: a table made again is another).
std::string StampPrefix(const std::string& table_id) {
  return "global-table-stamp/" + table_id + "/";
}

// The name of the stamp a member saves for one item: its table's prefix and
// the key's hash.
std::string StampName(const std::string& table_id, const std::string& key) {
  char text[32];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(Fnv1a64(key)));
  return StampPrefix(table_id) + text;
}

// "<time> <hash> <state> <region>;...": state "-" pending, "=" read with no
// record, else the record's sequence number (digits; a region's name has no
// ';' or space).
std::string FormatSaved(const std::vector<Saved>& list) {
  std::string out;
  for (const Saved& s : list) {
    char text[96];
    std::snprintf(text, sizeof text, "%.3f %016llx ", s.stamp.first, static_cast<unsigned long long>(s.image));
    if (!out.empty()) out += ';';
    out += text;
    out += s.pending ? "-" : s.record.empty() ? "=" : s.record;
    out += ' ';
    out += s.stamp.second;
  }
  return out;
}

std::vector<Saved> ParseSaved(const std::string& v) {
  std::vector<Saved> out;
  size_t at = 0;
  while (at < v.size()) {
    size_t end = v.find(';', at);
    if (end == std::string::npos) end = v.size();
    std::istringstream one(v.substr(at, end - at));
    at = end + 1;
    Saved s;
    std::string hash, state;
    if (!(one >> s.stamp.first >> hash >> state >> s.stamp.second)) continue;
    char* stop = nullptr;
    s.image = std::strtoull(hash.c_str(), &stop, 16);
    if (stop == hash.c_str() || *stop != '\0') continue;
    s.pending = state == "-";
    if (state != "-" && state != "=") s.record = state;
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

void global_tables::DropStamps(DB* db, const std::string& table_id) {
  if (db == nullptr || table_id.empty()) return;
  (void)db->DeleteCheckpoints(StampPrefix(table_id));
}

Status GlobalTables::Subscribe(const std::shared_ptr<Group>& group, const std::string& region, DB* db,
                               bool from_checkpoint) {
  // Where to read from: after the checkpoint; or, for a member that joined
  // and has no record applied everywhere yet ("since:<time>"), its whole
  // stream from the time it joined (the copy made when it joined holds what
  // came before; a second of margin, as what it re-sends is the same item).
  SubscribeOptions so;
  so.start = SubscribeOptions::Start::kLatest;
  double since = 0;
  const std::string name = CheckpointName(group->table);
  if (from_checkpoint) {
    auto at = db->LoadCheckpoint(name);
    if (at.ok() && *at && at->value().rfind("since:", 0) == 0) {
      so.start = SubscribeOptions::Start::kTrimHorizon;
      since = std::strtod(at->value().c_str() + 6, nullptr) - 1.0;
    } else if (at.ok() && *at) {
      so.start = SubscribeOptions::Start::kAfterSequenceNumber;
      so.after_sequence_number = **at;
    }
  } else {
    char text[64];
    std::snprintf(text, sizeof text, "since:%.3f", options_.clock());
    DR_RETURN_IF_ERROR(db->SaveCheckpoint(name, text));
  }
  DR_ASSIGN_OR_RETURN(DescribeTableResponse d, db->DescribeTable({group->table}));
  {
    std::lock_guard<std::mutex> lock(group->mu);  // a member before its first record
    group->members[region].db = db;
    group->members[region].table_id = d.table.table_id;
  }
  std::weak_ptr<Group> weak = group;
  auto handler = [this, weak, region, db, since](const StreamRecord& rec) {
    if (rec.approximate_creation_date_time < since) return;  // before it joined
    auto g = weak.lock();
    if (g && !stopping_) OnRecord(g, region, db, rec);
  };
  auto sub = db->Subscribe(group->table, so, handler);
  if (!sub.ok() && so.start == SubscribeOptions::Start::kAfterSequenceNumber) {
    Log(group->table + " in " + region + ": " + sub.status().ToString() + "; replicating from now on");
    so.start = SubscribeOptions::Start::kLatest;
    sub = db->Subscribe(group->table, so, handler);
  }
  std::lock_guard<std::mutex> lock(group->mu);
  if (!sub.ok()) {
    group->members.erase(region);
    return sub.status();
  }
  group->members[region].subscription = std::move(sub).value();
  return Status();
}

// An item the group holds no state for (first seen since the start, or
// forgotten once settled): what each member saved of it, where the member
// still holds that item, tells who holds which write, and the newest is the
// winner. A member whose item is not the one it saved holds a write whose
// record is still to be read (it is then stamped by its record).
void GlobalTables::LoadKey(Group& g, const std::string& key, const Item& item_key, KeyState* st) {
  for (auto& [region, m] : g.members) {
    auto at = m.db->LoadCheckpoint(StampName(m.table_id, key));
    if (!at.ok() || !*at) continue;
    std::vector<Saved> saved = ParseSaved(**at);
    if (saved.empty()) continue;
    st->saved[region] = saved;
    GetItemRequest read;
    read.table_name = g.table;
    read.key = item_key;
    read.consistent_read = true;
    auto now = m.db->GetItem(read);
    if (!now.ok()) continue;
    const Saved* held = &saved.back();
    if (held->image != ImageHash(now->item)) continue;  // a write whose record is still to be read
    st->current[region] = held->stamp;
    if (st->winner.second.empty() || held->stamp > st->winner) {
      st->winner = held->stamp;
      st->image = std::move(now->item);
    }
  }
}

// Saves a write member `region` holds or is about to (see KeyState::Saved),
// unless it is saved already: the newest entry; a pending entry of the same
// image, or the entry of the same record, gives way to it.
void GlobalTables::SaveStamp(Group& g, KeyState& st, const std::string& region, const std::string& key,
                             const Stamp& stamp, const std::optional<Item>& image, bool pending,
                             const std::string& record) {
  const Saved s{stamp, ImageHash(image), pending, pending ? std::string() : record};
  std::vector<Saved>& list = st.saved[region];
  if (!list.empty()) {
    const Saved& last = list.back();
    if (last.stamp == s.stamp && last.image == s.image && last.pending == s.pending && last.record == s.record) return;
  }
  auto m = g.members.find(region);
  if (m == g.members.end()) return;
  std::vector<Saved> next = list;
  std::erase_if(next, [&](const Saved& x) {
    return (x.pending && x.image == s.image) || (!s.record.empty() && x.record == s.record);
  });
  next.push_back(s);
  // Bounded: the pending entries (writes on their way) and the newest read ones.
  size_t read = 0;
  for (auto it = next.rbegin(); it != next.rend(); ++it) read += it->pending ? 0 : 1;
  for (auto it = next.begin(); it != next.end() && read > KeyState::kSavedKept;) {
    if (!it->pending && &*it != &next.back()) {
      it = next.erase(it);
      --read;
    } else {
      ++it;
    }
  }
  Status saved = m->second.db->SaveCheckpoint(StampName(m->second.table_id, key), FormatSaved(next));
  if (!saved.ok()) {
    Log(g.table + " in " + region + ": stamp: " + saved.ToString());
    return;
  }
  list = std::move(next);
}

// Drops an item's state once every member holds the winner and nothing is
// on its way: what the members saved tells it again when needed.
void GlobalTables::Forget(Group& g, const std::string& key) {
  auto it = g.keys.find(key);
  if (it == g.keys.end() || it->second.tasks > 0) return;
  for (const auto& [region, m] : g.members) {
    auto c = it->second.current.find(region);
    if (c == it->second.current.end() || c->second != it->second.winner) return;
    auto s = g.sent.find(region);
    if (s != g.sent.end() && s->second.count(key) > 0) return;
  }
  g.keys.erase(it);
}

void GlobalTables::OnRecord(const std::shared_ptr<Group>& g, const std::string& region, DB* db,
                            const StreamRecord& rec) {
  const std::string key = DebugString(rec.keys);
  std::optional<Item> image;
  if (rec.event_name != "REMOVE") image = rec.new_image;
  std::vector<std::string> targets;
  Stamp winner;
  uint64_t id = 0;
  bool done = false;
  {
    std::lock_guard<std::mutex> lock(g->mu);
    if (!g->members.count(region)) return;  // left the group
    auto [entry, fresh] = g->keys.try_emplace(key);
    Group::KeyState& st = entry->second;
    if (fresh) LoadKey(*g, key, rec.keys, &st);
    Stamp mine{rec.approximate_creation_date_time, region};
    auto& sent = g->sent[region];
    auto [b, e] = sent.equal_range(key);
    bool known = false;
    for (auto it = b; it != e; ++it) {
      if (it->second.image == image) {  // a write this group sent here: its own time
        mine = it->second.stamp;
        sent.erase(it);
        known = true;
        break;
      }
    }
    if (!known) {
      // The same record read again (after a restart), or the record of a
      // write sent here before a restart: the stamp saved for it.
      // A pending entry older than a write this member has read since is
      // stale (its write never landed, or was overtaken): not this record's.
      const uint64_t hash = ImageHash(image);
      const std::vector<Saved>& saved = st.saved[region];
      std::optional<Stamp> newest_read;
      for (const Saved& s : saved)
        if (!s.pending && (!newest_read || s.stamp > *newest_read)) newest_read = s.stamp;
      bool saved_stamp = false;
      for (const Saved& s : saved) {
        if (s.record == rec.sequence_number ||
            (s.pending && s.image == hash && (!newest_read || s.stamp >= *newest_read))) {
          mine = s.stamp;
          saved_stamp = true;
          break;
        }
      }
      // A write made here after the winner, also made here, in the same
      // millisecond (stamps are whole milliseconds): the change log's order
      // says it is the later one, so it gets the next millisecond, and wins.
      if (!saved_stamp && st.winner.second == region && !(st.winner < mine)) {
        mine.first = static_cast<double>(std::llround(st.winner.first * 1000) + 1) / 1000.0;
      }
    }
    SaveStamp(*g, st, region, key, mine, image, /*pending=*/false, rec.sequence_number);
    const bool first = st.winner.second.empty();
    if (first || (image != st.image && mine > st.winner)) {
      st.winner = mine;
      st.image = image;
    }
    // What this member holds now: the winner when it is the same item. A
    // member left holding an older write (its own, or one sent to it that
    // landed on a newer one) gets the winner again, as the others do.
    st.current[region] = image == st.image ? st.winner : mine;
    for (const auto& [q, m] : g->members) {
      auto c = st.current.find(q);
      if (c == st.current.end() || c->second != st.winner) targets.push_back(q);
    }
    winner = st.winner;
    st.tasks += static_cast<int>(targets.size());
    id = ++g->next_record;
    auto& inflight = g->inflight[region];
    inflight.push_back(Group::Inflight{id, rec.sequence_number, static_cast<int>(targets.size()), db});
    done = targets.empty();
    if (done) Forget(*g, key);
  }
  if (done) {
    Complete(g, region, id, /*applied=*/0);
    return;
  }
  // A write reaches the others `lag` after it was made (on the namespaces'
  // clock, which the control API moves: never longer than the lag from now).
  const double lag = options_.lag.count() / 1000.0;
  const double delay = std::clamp(winner.first + lag - options_.clock(), 0.0, lag);
  const auto due = std::chrono::steady_clock::now() +
                   std::chrono::microseconds(static_cast<int64_t>(delay * 1e6));
  std::lock_guard<std::mutex> lock(queue_mu_);
  if (dropping_) return;  // Detach: the record is read again after Attach
  for (const std::string& q : targets) {
    queue_.emplace(due, Task{g, region, id, key, rec.keys, q, winner});
  }
  queue_cv_.notify_all();
}

void GlobalTables::Apply(const Task& t) {
  auto g = t.group.lock();
  if (!g) return;
  DB* target = nullptr;
  std::optional<Item> image;
  {
    std::lock_guard<std::mutex> lock(g->mu);
    auto m = g->members.find(t.target);
    auto [entry, fresh] = g->keys.try_emplace(t.key);
    Group::KeyState& st = entry->second;
    if (fresh) LoadKey(*g, t.key, t.keys, &st);
    auto c = st.current.find(t.target);
    // Left the group, a newer write won (its own task sends it), or it is there.
    if (m == g->members.end() || st.winner != t.stamp || (c != st.current.end() && c->second == t.stamp)) {
      target = nullptr;
    } else {
      target = m->second.db;
      image = st.image;
      g->sent[t.target].emplace(t.key, Group::Sent{image, t.stamp});
      // Saved before the write: after a restart, its record is known as this one.
      SaveStamp(*g, st, t.target, t.key, t.stamp, image, /*pending=*/true, "");
    }
  }
  if (target != nullptr) {
    Status applied;
    bool changed = true;  // the write made a record in the target's stream
    if (image) {
      PutItemRequest put;
      put.table_name = g->table;
      put.item = *image;
      put.return_values = ReturnValue::kAllOld;
      auto r = target->PutItem(put);
      applied = r.status();
      changed = r.ok() && r->attributes != image;
    } else {
      DeleteItemRequest del;
      del.table_name = g->table;
      del.key = t.keys;
      del.return_values = ReturnValue::kAllOld;
      auto r = target->DeleteItem(del);
      applied = r.status();
      changed = r.ok() && r->attributes.has_value();
    }
    if (!applied.ok() || !changed) {
      std::lock_guard<std::mutex> lock(g->mu);
      if (!applied.ok()) {  // not there: its pending stamp goes, and comes back with the next try
        KeyState& st = g->keys[t.key];
        auto& list = st.saved[t.target];
        const uint64_t hash = ImageHash(image);
        if (std::erase_if(list, [&](const Saved& x) { return x.pending && x.image == hash; }) > 0) {
          auto m = g->members.find(t.target);
          if (m != g->members.end()) {
            (void)m->second.db->SaveCheckpoint(StampName(m->second.table_id, t.key), FormatSaved(list));
          }
        }
      }
      auto& sent = g->sent[t.target];
      auto [b, e] = sent.equal_range(t.key);
      for (auto it = b; it != e; ++it) {
        if (it->second.stamp == t.stamp && it->second.image == image) {
          sent.erase(it);
          break;
        }
      }
      if (applied.ok()) {  // it held it already: no record will show it
        KeyState& st = g->keys[t.key];
        st.current[t.target] = t.stamp;
        SaveStamp(*g, st, t.target, t.key, t.stamp, image, /*pending=*/false, "");
      }
    }
    if (!applied.ok() && applied.type() != ErrorType::kResourceNotFound) {
      // Tried again in a second: the record's checkpoint waits for it.
      Log(g->table + " -> " + t.target + ": " + applied.ToString() + " (retrying)");
      std::lock_guard<std::mutex> lock(queue_mu_);
      if (!dropping_) queue_.emplace(std::chrono::steady_clock::now() + std::chrono::seconds(1), t);
      queue_cv_.notify_all();
      return;
    }
  }
  {
    std::lock_guard<std::mutex> lock(g->mu);
    auto it = g->keys.find(t.key);
    if (it != g->keys.end()) {
      --it->second.tasks;
      Forget(*g, t.key);
    }
  }
  Complete(g, t.from, t.record, 1);
}

// One of record `id`'s writes is done (`applied` of them): the member's
// checkpoint moves past every record whose writes are all done.
void GlobalTables::Complete(const std::shared_ptr<Group>& g, const std::string& region, uint64_t id, int applied) {
  std::string position;
  DB* db = nullptr;
  {
    std::lock_guard<std::mutex> lock(g->mu);
    auto& inflight = g->inflight[region];
    for (Group::Inflight& r : inflight) {
      if (r.id == id) {
        r.pending -= applied;
        break;
      }
    }
    while (!inflight.empty() && inflight.front().pending <= 0) {
      position = inflight.front().sequence_number;
      db = inflight.front().db;
      inflight.pop_front();
    }
  }
  if (db == nullptr) return;
  Status saved = db->SaveCheckpoint(CheckpointName(g->table), position);
  if (!saved.ok()) Log(g->table + " in " + region + ": checkpoint: " + saved.ToString());
}

void GlobalTables::Work() {
  std::unique_lock<std::mutex> lock(queue_mu_);
  while (!stopping_) {
    if (queue_.empty()) {
      queue_cv_.wait(lock);
      continue;
    }
    if (held_) {  // Pause: no write starts
      queue_cv_.wait(lock);
      continue;
    }
    if (queue_.begin()->first > std::chrono::steady_clock::now()) {
      queue_cv_.wait_until(lock, queue_.begin()->first);
      continue;
    }
    Task t = std::move(queue_.begin()->second);
    queue_.erase(queue_.begin());
    applying_ = true;
    lock.unlock();
    Apply(t);
    lock.lock();
    applying_ = false;
    queue_cv_.notify_all();
  }
}

}  // namespace dynarock::server
