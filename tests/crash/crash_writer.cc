// File: tests/crash/crash_writer.cc
//
// The writer and verifier of the kill -9 crash test (tests/crash/test_crash_recovery.py,
// scripts/crash-loop.sh). Not a test itself: the Python test drives it and asserts on
// its exit codes and output. `verify` is that test's oracle; every check it makes
// reports a "problem: ..." line, and the Python test also feeds it a damaged database
// and forged acknowledgements to show that it fails when it should. The graph part
// of the workload is in crash_graph.{h,cc}, what both share in crash_workload.h.
//
//   crash_writer run    --data DIR [--sync] [--start N] [--accounts K] [--add-index]
//                       [--resume N] [--stream-retention SECONDS] [--ttl-sweep SECONDS]
//   crash_writer verify --data DIR [--acks FILE] [--accounts K] [--stream-retention SECONDS]
//   crash_writer corrupt --data DIR [--stream | --graph-edge]
//
// run: opens DIR (Options::sync_writes = --sync; the TTL sweeper every --ttl-sweep
// seconds, 0.5 by default; stream records kept --stream-retention seconds, a day by
// default), makes sure table "crash" exists with two GSIs, a NEW_AND_OLD_IMAGES
// stream and time to live on "exp", and holds K accounts (created by one
// transaction), and that the graph table "crash_graph" exists (crash_graph.h).
// With --resume N, when write N (the one the previous run was killed in) is a
// DeleteNode, it finishes it and prints "resumed N". It prints "start N T0" (T0:
// now, in whole seconds since the epoch), then loops forever over writes numbered
// N, N+1, ...; each write's content is a pure function of its number (splitmix64)
// and of its run's T0, so the verifier can recompute it. After each acknowledged
// write it prints "ack <n>" and flushes. With --add-index it first adds a third GSI
// "by_tag" (tag S, ver N, KEYS_ONLY) by UpdateTable, unless the table has it: the
// kill may then come while it is being backfilled (with --sync every backfill step
// is fsynced, so it is slow). The writes (crash::KindOf):
//   - transactions (TransactWriteItems): 2..4 accounts get amounts that sum to
//     0 (`SET bal = bal + :d`), the txn id "t<n>", new GSI keys, and `ADD cnt 1`;
//     in the same transaction an immutable log item "txn#<n>" records the
//     members and their amounts;
//   - single-item writes on 64 items "item#<j>": PutItem, UpdateItem (each of
//     the item's attributes SET or REMOVEd, so the result does not depend on the
//     item's previous state) or DeleteItem, moving them in and out of the GSIs;
//     half of them get an "exp" between T0 - 1 and T0 + 3, so the sweeper
//     deletes them during the run or after the restart;
//   - graph writes (crash_graph.h): AddEdge, RemoveEdge, AddEdges, PutNode,
//     DeleteNode.
//
// verify: reopens DIR (recovery; no TTL sweep, no stream trimming while it
// reads), and checks
//   - the sum of balances is K * 1000, every account present (or none at all);
//   - every transaction wholly present or wholly absent: each account's balance
//     and cnt equal what the committed log items imply, and its txn attribute
//     names the latest committed transaction that touched it;
//   - with --acks FILE (the concatenated stdout of the runs; crash::History):
//     every acknowledged transaction's log exists, and every item's state is the
//     one its last acknowledged write left, or that of a later unacknowledged
//     write (each run has at most one in flight when killed), or absent when
//     that state had expired and the item's last stream record is its deletion
//     by time to live;
//   - the stream, read through the Streams API over every shard: sequence
//     numbers increase, and each item's records chain (every record's old
//     image is the previous record's new image) from absent to the item's
//     state now, so every durable change has exactly one record and no
//     record stands for a change that is not there; with --acks, item#j's
//     records match its writes one to one, in order (CheckItemRecords), and
//     time to live deleted only expired items. With --stream-retention (the
//     runs'), records older than that may have been trimmed: a chain may then
//     start late, and writes of runs that began before it need no record;
//   - when "by_tag" exists, it becomes ACTIVE (the backfill resumes on open);
//   - every GSI, read back through Scan, holds exactly the entries the table
//     implies, and DB::CheckConsistency() reports nothing (for the graph's
//     inverted index too);
//   - the graph (crash::VerifyGraph): the model of its writes and its invariants.
// Prints "verify: OK ..." and exits 0, or prints each problem and exits 1.
//
// corrupt: deletes the first raw entry of RocksDB's "indexes" column family
// (with --stream: the last stream record), under the engine's feet, so that a
// test can see `dynarock check` and `verify` catch it. With --graph-edge it
// deletes one graph edge through the engine but not its edge-set entry, which
// only `verify` can see.
// Exit 2: usage error or the database cannot be opened; 3: a write failed.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "client/embedded_client.h"
#include "dynarock/db.h"
#include "graph/graph.h"
#include "rocksdb/db.h"
#include "tests/crash/crash_graph.h"
#include "tests/crash/crash_workload.h"

namespace {

using crash::History;
using crash::Kind;
using crash::KindOf;
using crash::N;
using crash::Problems;
using crash::Rng;
using crash::S;
using dynarock::AttributeValue;
using dynarock::AttrType;
using dynarock::DB;
using dynarock::Item;

constexpr char kTable[] = "crash";
constexpr char kTtlAttribute[] = "exp";
constexpr int64_t kStartBalance = 1000;
constexpr int kItems = 64;

std::string AccountKey(int i) { return "acct#" + std::to_string(i); }
std::string ItemKey(int j) { return "item#" + std::to_string(j); }
std::string TxnId(int64_t n) { return "t" + std::to_string(n); }

// ---------------------------------------------------------------- the writes

struct Transfer {
  std::vector<std::pair<int, int64_t>> members;  // account, amount
};

Transfer TransferOf(int64_t n, int accounts) {
  Rng r(static_cast<uint64_t>(n) ^ 0xabcdefULL);
  r.Next();
  int k = static_cast<int>(r.Uniform(2, std::min(4, accounts)));
  std::set<int> chosen;
  while (static_cast<int>(chosen.size()) < k) chosen.insert(static_cast<int>(r.Uniform(0, accounts - 1)));
  Transfer t;
  int64_t sum = 0;
  int i = 0;
  for (int a : chosen) {
    int64_t d = (++i == k) ? -sum : r.Uniform(-50, 50);
    sum += d;
    t.members.emplace_back(a, d);
  }
  return t;
}

// The item a single-item write n targets, and the state it leaves it in
// (nullopt: deleted).
struct ItemWrite {
  int item = 0;
  Kind kind = Kind::kPut;
  std::optional<Item> result;
  // For kUpdate: attributes SET (in result) and REMOVEd.
  std::vector<std::string> removed;
};

// `t0`: the start of write n's run (History::T0Of), in whole seconds the base of
// its TTL: half the items written expire between a second before it and three
// seconds after it, so the TTL sweeper deletes some during the run, some after
// the restart, and some items are written already expired.
ItemWrite ItemWriteOf(int64_t n, double t0) {
  Rng r(static_cast<uint64_t>(n) ^ 0x5151ULL);
  ItemWrite w;
  w.kind = KindOf(n);
  w.item = static_cast<int>(r.Uniform(0, kItems - 1));
  if (w.kind == Kind::kDelete) return w;
  Item it;
  it["pk"] = S(ItemKey(w.item));
  it["ver"] = N(n);
  it["tag"] = S("tag" + std::to_string(r.Uniform(0, 4)));
  bool has_gk = r.Uniform(0, 9) < 8;  // some items stay out of the GSIs (sparse)
  bool has_gr = r.Uniform(0, 9) < 8;
  if (has_gk) it["gk"] = S("g" + std::to_string(r.Uniform(0, 7)));
  else w.removed.push_back("gk");
  if (has_gr) it["gr"] = N(r.Uniform(-1000, 1000));
  else w.removed.push_back("gr");
  if (r.Uniform(0, 1)) it["pad"] = S(std::string(static_cast<size_t>(r.Uniform(1, 300)), 'p'));
  else w.removed.push_back("pad");
  if (r.Uniform(0, 1)) it[kTtlAttribute] = N(static_cast<int64_t>(t0) + r.Uniform(-1, 3));
  else w.removed.push_back(kTtlAttribute);
  w.result = std::move(it);
  return w;
}

// ---------------------------------------------------------------- helpers

[[noreturn]] void Die(const std::string& what, const dynarock::Status& s) {
  std::fprintf(stderr, "crash_writer: %s: %s\n", what.c_str(), s.ToString().c_str());
  std::fflush(stderr);
  std::exit(3);
}

int64_t Num(const AttributeValue& v) { return std::stoll(v.scalar()); }

dynarock::KeySchemaElement KS(std::string name, dynarock::KeyType type) {
  dynarock::KeySchemaElement e;
  e.attribute_name = std::move(name);
  e.key_type = type;
  return e;
}
dynarock::AttributeDefinition AD(std::string name, AttrType type) {
  dynarock::AttributeDefinition d;
  d.attribute_name = std::move(name);
  d.attribute_type = type;
  return d;
}

bool WaitActive(DB* db) {
  for (int i = 0; i < 600; ++i) {
    dynarock::DescribeTableRequest d;
    d.table_name = kTable;
    auto r = db->DescribeTable(d);
    if (!r.ok()) return false;
    bool active = r->table.table_status == "ACTIVE";
    for (const auto& g : r->table.global_secondary_indexes)
      if (g.index_name != "by_tag") active &= g.index_status == "ACTIVE";
    if (active) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

void EnsureTable(DB* db, int accounts) {
  dynarock::CreateTableRequest c;
  c.table_name = kTable;
  c.billing_mode = "PAY_PER_REQUEST";
  c.key_schema = {KS("pk", dynarock::KeyType::kHash)};
  c.attribute_definitions = {AD("pk", AttrType::kS), AD("gk", AttrType::kS),
                             AD("gr", AttrType::kN), AD("txn", AttrType::kS)};
  dynarock::GlobalSecondaryIndex g1;
  g1.index_name = "by_gk";
  g1.key_schema = {KS("gk", dynarock::KeyType::kHash), KS("gr", dynarock::KeyType::kRange)};
  g1.projection.projection_type = dynarock::ProjectionType::kAll;
  dynarock::GlobalSecondaryIndex g2;
  g2.index_name = "by_txn";
  g2.key_schema = {KS("txn", dynarock::KeyType::kHash)};
  g2.projection.projection_type = dynarock::ProjectionType::kInclude;
  g2.projection.non_key_attributes = {"bal"};
  c.global_secondary_indexes = {g1, g2};
  c.stream_specification = dynarock::StreamSpecification{true, "NEW_AND_OLD_IMAGES"};
  auto r = db->CreateTable(c);
  if (!r.ok() && r.status().type() != dynarock::ErrorType::kResourceInUse) Die("CreateTable", r.status());
  if (!WaitActive(db)) Die("table not ACTIVE", dynarock::Status());

  // Time to live on "exp" (a kill may have come between the two calls).
  dynarock::DescribeTimeToLiveRequest dt;
  dt.table_name = kTable;
  auto ttl = db->DescribeTimeToLive(dt);
  if (!ttl.ok()) Die("DescribeTimeToLive", ttl.status());
  if (ttl->time_to_live_status != "ENABLED") {
    dynarock::UpdateTimeToLiveRequest ut;
    ut.table_name = kTable;
    ut.time_to_live_specification = {true, kTtlAttribute};
    auto u = db->UpdateTimeToLive(ut);
    if (!u.ok()) Die("UpdateTimeToLive", u.status());
  }

  // The accounts, all in one transaction (a crash leaves all or none).
  dynarock::GetItemRequest g;
  g.table_name = kTable;
  g.key["pk"] = S(AccountKey(0));
  g.consistent_read = true;
  auto got = db->GetItem(g);
  if (!got.ok()) Die("GetItem", got.status());
  if (got->item) return;
  dynarock::TransactWriteItemsRequest t;
  for (int i = 0; i < accounts; ++i) {
    dynarock::TransactWriteItem w;
    w.kind = dynarock::TransactWriteItem::Kind::kPut;
    w.table_name = kTable;
    w.item["pk"] = S(AccountKey(i));
    w.item["bal"] = N(kStartBalance);
    w.item["cnt"] = N(0);
    w.item["gk"] = S("acct");
    w.item["gr"] = N(i);
    w.condition_expression = "attribute_not_exists(pk)";
    t.transact_items.push_back(std::move(w));
  }
  auto tr = db->TransactWriteItems(t);
  if (!tr.ok()) Die("creating the accounts", tr.status());
}

std::optional<dynarock::IndexDescription> FindGsi(DB* db, const std::string& name) {
  dynarock::DescribeTableRequest d;
  d.table_name = kTable;
  auto r = db->DescribeTable(d);
  if (!r.ok()) return std::nullopt;
  for (const auto& g : r->table.global_secondary_indexes)
    if (g.index_name == name) return g;
  return std::nullopt;
}

void AddTagIndex(DB* db) {
  if (FindGsi(db, "by_tag")) return;
  dynarock::UpdateTableRequest u;
  u.table_name = kTable;
  u.attribute_definitions = {AD("pk", AttrType::kS), AD("gk", AttrType::kS),
                             AD("gr", AttrType::kN), AD("txn", AttrType::kS),
                             AD("tag", AttrType::kS), AD("ver", AttrType::kN)};
  dynarock::GlobalSecondaryIndex g;
  g.index_name = "by_tag";
  g.key_schema = {KS("tag", dynarock::KeyType::kHash), KS("ver", dynarock::KeyType::kRange)};
  g.projection.projection_type = dynarock::ProjectionType::kKeysOnly;
  dynarock::GlobalSecondaryIndexUpdate up;
  up.create = g;
  u.global_secondary_index_updates = {up};
  auto r = db->UpdateTable(u);
  if (!r.ok()) Die("UpdateTable (create by_tag)", r.status());
}

dynarock::Status DoWrite(DB* db, dynarock::graph::Graph* graph, int64_t n, int accounts,
                         double t0) {
  Kind kind = KindOf(n);
  if (crash::IsGraphWrite(kind)) return crash::DoGraphWrite(graph, n);
  if (kind == Kind::kTxn) {
    Transfer tr = TransferOf(n, accounts);
    Rng r(static_cast<uint64_t>(n) ^ 0x77ULL);
    dynarock::TransactWriteItemsRequest req;
    Item members;
    for (auto [acct, amount] : tr.members) {
      dynarock::TransactWriteItem w;
      w.kind = dynarock::TransactWriteItem::Kind::kUpdate;
      w.table_name = kTable;
      w.key["pk"] = S(AccountKey(acct));
      w.update_expression = "SET bal = bal + :d, txn = :t, gk = :g, gr = :r ADD cnt :one";
      w.condition_expression = "attribute_exists(pk)";
      w.expression_attribute_values[":d"] = N(amount);
      w.expression_attribute_values[":t"] = S(TxnId(n));
      w.expression_attribute_values[":g"] = S("g" + std::to_string(r.Uniform(0, 7)));
      w.expression_attribute_values[":r"] = N(r.Uniform(-1000, 1000));
      w.expression_attribute_values[":one"] = N(1);
      w.has_expression_attribute_values = true;
      req.transact_items.push_back(std::move(w));
      members[AccountKey(acct)] = N(amount);
    }
    dynarock::TransactWriteItem log;
    log.kind = dynarock::TransactWriteItem::Kind::kPut;
    log.table_name = kTable;
    log.item["pk"] = S("txn#" + std::to_string(n));
    log.item["members"] = AttributeValue::M(std::move(members));
    log.item["txn"] = S(TxnId(n));
    log.item["tag"] = S("log");
    log.item["ver"] = N(n);
    log.condition_expression = "attribute_not_exists(pk)";
    req.transact_items.push_back(std::move(log));
    return db->TransactWriteItems(req).status();
  }
  ItemWrite w = ItemWriteOf(n, t0);
  Item key;
  key["pk"] = S(ItemKey(w.item));
  if (kind == Kind::kDelete) {
    dynarock::DeleteItemRequest d;
    d.table_name = kTable;
    d.key = key;
    return db->DeleteItem(d).status();
  }
  if (kind == Kind::kPut) {
    dynarock::PutItemRequest p;
    p.table_name = kTable;
    p.item = *w.result;
    return db->PutItem(p).status();
  }
  dynarock::UpdateItemRequest u;
  u.table_name = kTable;
  u.key = key;
  std::string set, remove;
  int i = 0;
  for (const auto& [name, value] : *w.result) {
    if (name == "pk") continue;
    std::string ph = std::to_string(i++);
    set += (set.empty() ? "" : ", ") + ("#n" + ph) + " = :v" + ph;
    u.expression_attribute_names["#n" + ph] = name;
    u.expression_attribute_values[":v" + ph] = value;
  }
  for (const auto& name : w.removed) {
    std::string ph = "#n" + std::to_string(i++);
    remove += (remove.empty() ? "" : ", ") + ph;
    u.expression_attribute_names[ph] = name;
  }
  u.update_expression = "SET " + set + (remove.empty() ? "" : " REMOVE " + remove);
  u.has_expression_attribute_names = true;
  u.has_expression_attribute_values = true;
  return db->UpdateItem(u).status();
}

// ---------------------------------------------------------------- verify

std::vector<Item> ScanAll(DB* db, const std::optional<std::string>& index) {
  std::vector<Item> out;
  dynarock::ScanRequest s;
  s.table_name = kTable;
  s.index_name = index;
  s.consistent_read = !index.has_value();
  while (true) {
    auto r = db->Scan(s);
    if (!r.ok()) Die("Scan", r.status());
    for (auto& it : r->items) out.push_back(std::move(it));
    if (!r->last_evaluated_key) break;
    s.exclusive_start_key = r->last_evaluated_key;
  }
  return out;
}

bool SeqLess(const std::string& a, const std::string& b) {
  return a.size() != b.size() ? a.size() < b.size() : a < b;
}

// The TTL attribute of an item (nullopt: none).
std::optional<double> ExpOf(const Item& item) {
  auto it = item.find(kTtlAttribute);
  if (it == item.end() || !it->second.is(AttrType::kN)) return std::nullopt;
  return std::stod(it->second.scalar());
}

// The stream records of item#j against the writes (when the history is known):
//   - a record by time to live is a REMOVE of an item whose TTL had passed when
//     it was written;
//   - a record with a new image is the result of a put or update of item#j that
//     was acknowledged or in flight, and these come in the order of the writes;
//   - every other REMOVE stands for a delete of item#j (acknowledged or in
//     flight) between the writes whose records surround it;
//   - every acknowledged put or update has its record, and around every
//     acknowledged delete the item was absent at some point (its REMOVE, or an
//     earlier one), unless its run began longer ago than the stream's retention
//     (`retained_since`): its records may have been trimmed.
struct Write {
  int64_t n;
  bool acked;
};

// `writes`: item#j's writes (acknowledged or in flight), in order.
void CheckItemRecords(int j, const std::vector<dynarock::StreamRecord>& records,
                      const std::vector<Write>& writes, const History& h, double retained_since,
                      bool absent_now, Problems* p) {
  const std::string who = "stream: " + ItemKey(j);
  auto is_write = [&](int64_t n) {
    auto it = std::lower_bound(writes.begin(), writes.end(), n,
                               [](const Write& w, int64_t v) { return w.n < v; });
    return it != writes.end() && it->n == n;
  };
  // Identified records (with a new image) split the records into gaps; gap g
  // lies before identified record g (the last gap after them all). absent[g]:
  // the item was absent at some point of gap g.
  std::vector<int64_t> ids;
  std::vector<bool> absent(1, false);
  std::vector<std::vector<const dynarock::StreamRecord*>> removes(1);
  for (const auto& r : records) {
    if (r.by_time_to_live) {
      std::optional<double> exp = r.old_image ? ExpOf(*r.old_image) : std::nullopt;
      if (r.event_name != "REMOVE" || r.new_image) {
        p->Add(who + " record " + r.sequence_number + " by time to live is a " + r.event_name);
      } else if (!exp || *exp > r.approximate_creation_date_time) {
        p->Add(who + " record " + r.sequence_number + ": time to live deleted an item that had " +
               "not expired at " + std::to_string(r.approximate_creation_date_time) + ": " +
               (r.old_image ? dynarock::DebugString(*r.old_image) : "(no image)"));
      }
    }
    if (!r.new_image) {
      absent.back() = true;
      if (!r.by_time_to_live) removes.back().push_back(&r);
      continue;
    }
    if (!r.old_image) absent.back() = true;  // an INSERT: absent just before it
    auto ver = r.new_image->find("ver");
    int64_t v = ver == r.new_image->end() ? -1 : std::stoll(ver->second.scalar());
    ItemWrite w = ItemWriteOf(v, h.T0Of(v));
    if (v < 0 || !is_write(v) || KindOf(v) == Kind::kDelete || w.result != r.new_image) {
      p->Add(who + " record " + r.sequence_number + " is no write's result: " +
             dynarock::DebugString(*r.new_image));
    } else if (!ids.empty() && v <= ids.back()) {
      p->Add(who + " record " + r.sequence_number + " of write " + std::to_string(v) +
             " comes after that of write " + std::to_string(ids.back()));
    }
    ids.push_back(v);
    absent.push_back(false);
    removes.emplace_back();
  }
  if (absent_now) absent.back() = true;
  // The gap write n falls in.
  auto gap_of = [&](int64_t n) {
    return static_cast<size_t>(std::upper_bound(ids.begin(), ids.end(), n) - ids.begin());
  };
  for (size_t g = 0; g < removes.size(); ++g) {
    for (const dynarock::StreamRecord* r : removes[g]) {
      bool justified = false;
      for (const Write& w : writes) {
        justified |= KindOf(w.n) == Kind::kDelete && gap_of(w.n) == g;
      }
      if (!justified) {
        p->Add(who + " REMOVE " + r->sequence_number + " stands for no delete of it");
      }
    }
  }
  for (const Write& w : writes) {
    if (!w.acked || h.T0Of(w.n) < retained_since) continue;
    if (KindOf(w.n) == Kind::kDelete) {
      if (!absent[gap_of(w.n)]) {
        p->Add(who + ": acknowledged delete " + std::to_string(w.n) + " left no trace: the item " +
               "was never absent between the writes around it");
      }
    } else if (!std::binary_search(ids.begin(), ids.end(), w.n)) {
      p->Add(who + ": acknowledged write " + std::to_string(w.n) + " has no stream record");
    }
  }
}

}  // namespace

namespace crash {

StreamSummary CheckStream(DB* db, const std::string& table,
                          const std::function<std::string(const Item&)>& key_of,
                          const std::map<std::string, Item>& now_by_key, bool trimmed,
                          const std::function<bool(const std::string&)>& keep, Problems* p) {
  StreamSummary out;
  dynarock::DescribeTableRequest d;
  d.table_name = table;
  auto desc = db->DescribeTable(d);
  if (!desc.ok() || !desc->table.latest_stream_arn) {
    p->Add("stream: table " + table + " has none");
    return out;
  }
  const std::string arn = *desc->table.latest_stream_arn;
  dynarock::DescribeStreamRequest ds;
  ds.stream_arn = arn;
  auto sd = db->DescribeStream(ds);
  if (!sd.ok()) {
    p->Add("DescribeStream: " + sd.status().ToString());
    return out;
  }
  std::map<std::string, std::optional<Item>> state;  // each item after its records
  std::string last;
  auto take = [&](dynarock::StreamRecord& r) {
    out.records++;
    if (r.by_time_to_live) out.ttl_removes++;
    if (!last.empty() && !SeqLess(last, r.sequence_number)) {
      p->Add("stream: sequence number " + r.sequence_number + " after " + last);
    }
    last = r.sequence_number;
    const std::string key = key_of(r.keys);
    auto [it, first] = state.try_emplace(key);
    std::optional<Item>& before = it->second;
    const char* want = !before ? "INSERT" : !r.new_image ? "REMOVE" : "MODIFY";
    bool follows = r.event_name == want && r.old_image == before;
    if (!follows && first && trimmed) {
      // Its earlier records may have been trimmed: the record must only be whole.
      follows = r.event_name == (!r.old_image ? "INSERT" : !r.new_image ? "REMOVE" : "MODIFY") &&
                (r.old_image || r.new_image);
    }
    if (!follows) {
      p->Add("stream: " + key + " record " + r.sequence_number + " (" + r.event_name +
             ") does not follow its previous state " +
             (before ? dynarock::DebugString(*before) : "absent"));
    }
    before = r.new_image;
    if (keep(key)) out.by_key[key].push_back(std::move(r));
  };
  for (const auto& shard : sd->stream_description.shards) {
    dynarock::GetShardIteratorRequest gi;
    gi.stream_arn = arn;
    gi.shard_id = shard.shard_id;
    auto it = db->GetShardIterator(gi);
    if (!it.ok()) {
      p->Add("GetShardIterator: " + it.status().ToString());
      return out;
    }
    std::optional<std::string> next = it->shard_iterator;
    while (next) {
      dynarock::GetRecordsRequest gr;
      gr.shard_iterator = *next;
      auto page = db->GetRecords(gr);
      if (!page.ok()) {
        p->Add("GetRecords: " + page.status().ToString());
        return out;
      }
      if (page->records.empty()) break;
      for (auto& r : page->records) take(r);
      next = page->next_shard_iterator;
    }
  }
  for (const auto& [key, item] : now_by_key) {
    auto f = state.find(key);
    if (f == state.end() ? !trimmed : f->second != item) {
      p->Add("stream: " + key + "'s records do not end in its state " + dynarock::DebugString(item));
    }
  }
  for (const auto& [key, image] : state) {
    if (image && !now_by_key.count(key)) p->Add("stream: " + key + "'s records end in an item not there");
  }
  return out;
}

}  // namespace crash

namespace {

int Verify(DB* db, int accounts, const std::string& acks_file, double retention_seconds) {
  Problems p;
  const double now = std::chrono::duration<double>(
                         std::chrono::system_clock::now().time_since_epoch()).count();
  dynarock::DescribeTableRequest d;
  d.table_name = kTable;
  auto desc = db->DescribeTable(d);

  // The history (the runs' stdout).
  History h;
  if (!acks_file.empty()) {
    std::ifstream in(acks_file);
    if (!in) {
      std::fprintf(stderr, "crash_writer verify: cannot read %s\n", acks_file.c_str());
      return 2;
    }
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    h.Parse(lines);
    for (const auto& e : h.errors) p.Add(e);
  }
  // Stream records older than the retention may have been trimmed by a run.
  const double retained_since = retention_seconds > 0 ? now - retention_seconds : 0;
  const bool trimmed = retention_seconds > 0 && (h.runs.empty() || h.runs.front().t0 < retained_since + 1);

  if (!desc.ok()) {
    if (!h.acked.empty()) p.Add("table missing after acknowledged writes: " + desc.status().ToString());
    std::printf("verify: %s (no table)\n", p.list.empty() ? "OK" : "FAILED");
    return p.list.empty() ? 0 : 1;
  }

  // A by_tag index left CREATING by a kill is backfilled again from the open on.
  std::optional<std::string> tag_state;
  if (auto g = FindGsi(db, "by_tag")) {
    tag_state = g->index_status;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(300);
    while (g && g->index_status != "ACTIVE" && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      g = FindGsi(db, "by_tag");
    }
    if (!g || g->index_status != "ACTIVE") {
      p.Add("by_tag not ACTIVE after its backfill resumed: " + (g ? g->index_status : "gone"));
      tag_state.reset();
    }
  }

  std::vector<Item> items = ScanAll(db, std::nullopt);
  std::map<std::string, Item> by_pk;
  for (auto& it : items) by_pk[it.at("pk").scalar()] = it;

  // Accounts and transaction logs.
  struct Expect {
    int64_t bal = kStartBalance;
    int64_t cnt = 0;
    int64_t last_txn = -1;
  };
  std::map<std::string, Expect> expect;
  std::set<int64_t> logs;
  for (const auto& [pk, it] : by_pk) {
    if (pk.rfind("txn#", 0) != 0) continue;
    int64_t n = std::stoll(pk.substr(4));
    logs.insert(n);
    Transfer tr = TransferOf(n, accounts);
    const Item& members = it.at("members").map();
    int64_t sum = 0;
    if (members.size() != tr.members.size()) p.Add(pk + ": wrong member count");
    for (const auto& [acct, amount] : members) {
      Expect& e = expect[acct];
      e.bal += Num(amount);
      e.cnt += 1;
      e.last_txn = std::max(e.last_txn, n);
      sum += Num(amount);
    }
    if (sum != 0) p.Add(pk + ": amounts do not sum to 0");
  }
  int present = 0;
  int64_t total = 0;
  for (int i = 0; i < accounts; ++i) {
    auto f = by_pk.find(AccountKey(i));
    if (f == by_pk.end()) continue;
    present++;
    const Item& a = f->second;
    const Expect& e = expect[AccountKey(i)];
    int64_t bal = Num(a.at("bal")), cnt = Num(a.at("cnt"));
    total += bal;
    if (bal != e.bal || cnt != e.cnt) {
      p.Add(AccountKey(i) + ": bal " + std::to_string(bal) + " cnt " + std::to_string(cnt) +
            ", committed logs imply bal " + std::to_string(e.bal) + " cnt " + std::to_string(e.cnt));
    }
    std::string txn = a.count("txn") ? a.at("txn").scalar() : "";
    std::string want = e.last_txn >= 0 ? TxnId(e.last_txn) : "";
    if (txn != want) p.Add(AccountKey(i) + ": txn '" + txn + "', latest committed '" + want + "'");
  }
  if (present != 0 && present != accounts) {
    p.Add("only " + std::to_string(present) + " of " + std::to_string(accounts) + " accounts exist");
  }
  if (present == 0 && !logs.empty()) p.Add("transaction logs without accounts");
  if (present == accounts && total != accounts * kStartBalance) {
    p.Add("sum of balances " + std::to_string(total) + " != " +
          std::to_string(accounts * kStartBalance));
  }

  // The stream, read once: every item's records chain to its state now; the
  // records of item#j are kept for the checks against the writes below.
  crash::StreamSummary stream = crash::CheckStream(
      db, kTable, [](const Item& keys) { return keys.at("pk").scalar(); }, by_pk, trimmed,
      [](const std::string& key) { return key.rfind("item#", 0) == 0; }, &p);
  for (const auto& r : stream.by_key) {
    for (const auto& rec : r.second) {
      if (rec.by_time_to_live && r.first.rfind("item#", 0) != 0) {
        p.Add("stream: time to live deleted " + r.first + ", which has no TTL");
      }
    }
  }

  // Acknowledged writes are there (or overwritten by a later one, or deleted
  // by time to live once expired).
  int64_t acked_txns = 0, acked_item_writes = 0, expired_present = 0, swept = 0;
  if (h.given) {
    std::map<int, int64_t> last_acked;  // item -> write number
    std::map<int, std::vector<Write>> writes_of;  // item -> its writes, in order
    for (auto [n, acked] : h.Ordered()) {
      if (crash::IsItemWrite(KindOf(n))) writes_of[ItemWriteOf(n, h.T0Of(n)).item].push_back({n, acked});
    }
    for (int64_t n : h.acked) {
      if (KindOf(n) == Kind::kTxn) {
        acked_txns++;
        if (!logs.count(n)) p.Add("acknowledged transaction " + std::to_string(n) + " missing");
      } else if (crash::IsItemWrite(KindOf(n))) {
        acked_item_writes++;
        int j = ItemWriteOf(n, h.T0Of(n)).item;
        last_acked[j] = std::max(last_acked.count(j) ? last_acked[j] : INT64_MIN, n);
      }
    }
    for (int j = 0; j < kItems; ++j) {
      std::vector<std::optional<Item>> candidates;
      bool initial_ok = !last_acked.count(j);
      int64_t floor = initial_ok ? INT64_MIN : last_acked[j];
      if (initial_ok) candidates.push_back(std::nullopt);
      else candidates.push_back(ItemWriteOf(floor, h.T0Of(floor)).result);
      for (int64_t n : h.in_flight) {
        if (n > floor && crash::IsItemWrite(KindOf(n)) && ItemWriteOf(n, h.T0Of(n)).item == j) {
          candidates.push_back(ItemWriteOf(n, h.T0Of(n)).result);
        }
      }
      auto f = by_pk.find(ItemKey(j));
      std::optional<Item> actual;
      if (f != by_pk.end()) actual = f->second;
      bool ok = std::find(candidates.begin(), candidates.end(), actual) != candidates.end();
      if (!ok && !actual) {
        // Deleted by time to live: an expired candidate, and the item's last
        // record is its TTL REMOVE (or every record is trimmed).
        const auto& recs = stream.by_key[ItemKey(j)];
        for (const auto& c : candidates) {
          std::optional<double> exp = c ? ExpOf(*c) : std::nullopt;
          if (!exp || *exp >= now) continue;
          if (recs.empty() ? trimmed : recs.back().by_time_to_live && recs.back().old_image == c) {
            ok = true;
            swept++;
          }
        }
      }
      if (actual) {
        std::optional<double> exp = ExpOf(*actual);
        if (exp && *exp < now) expired_present++;
      }
      if (!ok) {
        p.Add(ItemKey(j) + ": state " + (actual ? dynarock::DebugString(*actual) : "absent") +
              " is not what acknowledged write " + (initial_ok ? "(none)" : std::to_string(floor)) +
              " or a later unacknowledged one left");
      }
      CheckItemRecords(j, stream.by_key[ItemKey(j)], writes_of[j], h, retained_since, !actual, &p);
    }
  }

  // The GSIs through the read path: exactly the entries the table implies.
  // projected: empty = ALL; otherwise the non-key attributes INCLUDEd ("" for
  // KEYS_ONLY).
  auto check_index = [&](const std::string& index, const std::vector<std::string>& keys,
                         const std::set<std::string>& projected_or_all) {
    std::map<std::string, Item> want;
    for (const auto& [pk, it] : by_pk) {
      bool in = true;
      for (const auto& k : keys) in &= it.count(k) > 0;
      if (!in) continue;
      Item e;
      for (const auto& [name, v] : it) {
        if (projected_or_all.empty() || projected_or_all.count(name) || name == "pk" ||
            std::find(keys.begin(), keys.end(), name) != keys.end()) {
          e[name] = v;
        }
      }
      want[pk] = std::move(e);
    }
    std::map<std::string, Item> got;
    for (auto& it : ScanAll(db, index)) {
      std::string pk = it.at("pk").scalar();
      if (got.count(pk)) p.Add("index " + index + ": two entries for " + pk);
      got[pk] = std::move(it);
    }
    for (const auto& [pk, e] : want) {
      auto f = got.find(pk);
      if (f == got.end()) p.Add("index " + index + ": missing " + pk);
      else if (!(f->second == e)) p.Add("index " + index + ": stale " + pk + " " + dynarock::DebugString(f->second));
    }
    for (const auto& [pk, e] : got) {
      if (!want.count(pk)) p.Add("index " + index + ": extra " + pk);
    }
    return got.size();
  };
  size_t e1 = check_index("by_gk", {"gk", "gr"}, {});
  size_t e2 = check_index("by_txn", {"txn"}, {"bal"});
  std::string tag_index = "no by_tag";
  if (tag_state) {
    size_t e3 = check_index("by_tag", {"tag", "ver"}, {""});
    tag_index = "by_tag " + *tag_state + " at open, " + std::to_string(e3) + " entries";
  }

  std::string graph = crash::VerifyGraph(db, h, trimmed, &p);

  auto report = db->CheckConsistency();
  if (!report.ok()) {
    p.Add("CheckConsistency failed: " + report.status().ToString());
  } else {
    for (const auto& dif : report->differences) p.Add("CheckConsistency: " + dif);
  }

  std::printf("verify: %s: %zu items, %d accounts (sum %lld), %zu committed transactions, "
              "%zu + %zu index entries, %s, %zu stream records (%zu by TTL%s); "
              "%lld expired items not yet swept, %lld swept since their last write; %s; "
              "%lld acknowledged transactions and %lld acknowledged item writes over %zu runs\n",
              p.list.empty() ? "OK" : "FAILED", by_pk.size(), present,
              static_cast<long long>(total), logs.size(), e1, e2, tag_index.c_str(),
              stream.records, stream.ttl_removes, trimmed ? ", older ones may be trimmed" : "",
              static_cast<long long>(expired_present), static_cast<long long>(swept),
              graph.c_str(), static_cast<long long>(acked_txns),
              static_cast<long long>(acked_item_writes), h.runs.size());
  if (!p.list.empty()) std::printf("%zu problems\n", p.list.size());
  std::fflush(stdout);
  return p.list.empty() ? 0 : 1;
}

// Deletes the first key of the "indexes" column family. The catalog column
// family has a merge operator this program does not know, so the write-ahead
// log (which may hold merges) is first recovered and flushed by opening the
// database through the engine; then nothing here may flush or compact, and
// recovery and shutdown flushes and compactions are off.
int Corrupt(const std::string& dir, bool stream) {
  {
    dynarock::Options options;
    options.create_if_missing = false;
    auto db = DB::Open(options, dir);
    if (!db.ok()) {
      std::fprintf(stderr, "crash_writer corrupt: %s\n", db.status().ToString().c_str());
      return 2;
    }
  }
  rocksdb::DBOptions dbo;
  dbo.avoid_flush_during_recovery = true;
  dbo.avoid_flush_during_shutdown = true;
  std::vector<std::string> names;
  rocksdb::Status s = rocksdb::DB::ListColumnFamilies(dbo, dir, &names);
  if (!s.ok()) {
    std::fprintf(stderr, "crash_writer corrupt: %s\n", s.ToString().c_str());
    return 2;
  }
  std::vector<rocksdb::ColumnFamilyDescriptor> families;
  for (const auto& n : names) {
    rocksdb::ColumnFamilyOptions co;
    co.disable_auto_compactions = true;
    co.write_buffer_size = 256u << 20;
    families.emplace_back(n, co);
  }
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  s = rocksdb::DB::Open(dbo, dir, families, &handles, &raw);
  if (!s.ok()) {
    std::fprintf(stderr, "crash_writer corrupt: %s\n", s.ToString().c_str());
    return 2;
  }
  int rc = 1;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] != (stream ? "streams" : "indexes")) continue;
    std::unique_ptr<rocksdb::Iterator> it(raw->NewIterator(rocksdb::ReadOptions(), handles[i]));
    if (stream) it->SeekToLast(); else it->SeekToFirst();
    if (!it->Valid()) break;
    std::string key = it->key().ToString();
    it.reset();
    rocksdb::WriteOptions wo;
    wo.sync = true;
    s = raw->Delete(wo, handles[i], key);
    if (s.ok()) {
      std::printf("deleted %s %s\n", stream ? "stream record" : "index entry",
                  rocksdb::Slice(key).ToString(true).c_str());
      rc = 0;
    }
  }
  if (rc != 0) std::fprintf(stderr, "crash_writer corrupt: nothing to delete\n");
  for (auto* h : handles) raw->DestroyColumnFamilyHandle(h);
  delete raw;
  return rc;
}

int Usage(const char* msg) {
  if (msg) std::fprintf(stderr, "crash_writer: %s\n", msg);
  std::fprintf(stderr,
               "usage: crash_writer run --data DIR [--sync] [--start N] [--accounts K] [--add-index]\n"
               "                        [--resume N] [--stream-retention SECONDS] [--ttl-sweep SECONDS]\n"
               "       crash_writer verify --data DIR [--acks FILE] [--accounts K]\n"
               "                        [--stream-retention SECONDS]\n"
               "       crash_writer corrupt --data DIR [--stream | --graph-edge]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return Usage(nullptr);
  std::string mode = argv[1];
  if (mode == "--help" || mode == "-h") {
    Usage(nullptr);
    return 0;
  }
  if (mode != "run" && mode != "verify" && mode != "corrupt") return Usage("unknown mode");
  std::string data, acks;
  bool sync = false, add_index = false, stream = false, tear_edge = false;
  int accounts = 16;
  int64_t resume = -1;
  double retention_seconds = 0, ttl_sweep_seconds = 0.5;
  int64_t start = std::chrono::duration_cast<std::chrono::microseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count();
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        Usage(("missing value for " + a).c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--data") data = value();
    else if (a == "--sync") sync = true;
    else if (a == "--add-index") add_index = true;
    else if (a == "--stream") stream = true;
    else if (a == "--graph-edge") tear_edge = true;
    else if (a == "--start") start = std::stoll(value());
    else if (a == "--accounts") accounts = std::stoi(value());
    else if (a == "--acks") acks = value();
    else if (a == "--resume") resume = std::stoll(value());
    else if (a == "--stream-retention") retention_seconds = std::stod(value());
    else if (a == "--ttl-sweep") ttl_sweep_seconds = std::stod(value());
    else return Usage(("unknown flag " + a).c_str());
  }
  if (data.empty()) return Usage("--data is required");
  if (accounts < 2 || accounts > 1000) return Usage("--accounts must be 2..1000");

  if (mode == "corrupt" && tear_edge) {
    dynarock::Options options;
    options.create_if_missing = false;
    options.ttl_sweep_seconds = 0;
    auto db = DB::Open(options, data);
    if (!db.ok()) return Usage(db.status().ToString().c_str());
    std::string which;
    dynarock::Status s = crash::TearOneEdge(db->get(), &which);
    if (!s.ok()) {
      std::fprintf(stderr, "crash_writer corrupt: %s\n", s.ToString().c_str());
      return 1;
    }
    std::printf("deleted %s, not its edge-set entry\n", which.c_str());
    return 0;
  }
  if (mode == "corrupt") return Corrupt(data, stream);

  dynarock::Options options;
  options.sync_writes = sync;
  options.create_if_missing = mode == "run";
  // Verifying must not move the data: no expiry (nor trimming: the default
  // retention of a day) while it reads.
  options.ttl_sweep_seconds = mode == "run" ? ttl_sweep_seconds : 0;
  if (mode == "run" && retention_seconds > 0) options.stream_retention_seconds = retention_seconds;
  auto opened = DB::Open(options, data);
  if (!opened.ok()) {
    std::fprintf(stderr, "crash_writer: cannot open %s: %s\n", data.c_str(),
                 opened.status().ToString().c_str());
    return 2;
  }
  std::unique_ptr<DB> db = std::move(*opened);

  if (mode == "verify") return Verify(db.get(), accounts, acks, retention_seconds);

  EnsureTable(db.get(), accounts);
  if (add_index) AddTagIndex(db.get());
  dynarock::client::EmbeddedClient client(db.get());
  dynarock::graph::Graph graph(&client, crash::GraphSchema());
  dynarock::Status gs = crash::EnsureGraph(db.get(), &graph);
  if (!gs.ok()) Die("creating the graph table", gs);
  // The previous run was killed in write `resume`: a DeleteNode is finished, as
  // an application must (it leaves the dying node's edge set stale until done).
  if (resume >= 0 && KindOf(resume) == Kind::kDeleteNode) {
    dynarock::Status s = crash::DoGraphWrite(&graph, resume);
    if (!s.ok()) Die("resuming write " + std::to_string(resume), s);
    std::printf("resumed %lld\n", static_cast<long long>(resume));
  }
  const int64_t t0 = std::chrono::duration_cast<std::chrono::seconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
  std::printf("start %lld %lld\n", static_cast<long long>(start), static_cast<long long>(t0));
  std::fflush(stdout);
  for (int64_t n = start;; ++n) {
    dynarock::Status s = DoWrite(db.get(), &graph, n, accounts, static_cast<double>(t0));
    if (!s.ok()) Die("write " + std::to_string(n), s);
    std::printf("ack %lld\n", static_cast<long long>(n));
    std::fflush(stdout);
  }
}
