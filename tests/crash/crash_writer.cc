// File: tests/crash/crash_writer.cc
//
// The writer and verifier of the kill -9 crash test (tests/crash/test_crash_recovery.py).
// Not a test itself: the Python test drives it and asserts on its exit codes and
// output. `verify` is that test's oracle; every check it makes reports a
// "problem: ..." line, and the Python test also feeds it a damaged database and
// forged acknowledgements to show that it fails when it should.
//
//   crash_writer run    --data DIR [--sync] [--start N] [--accounts K] [--add-index]
//   crash_writer verify --data DIR [--acks FILE] [--accounts K]
//   crash_writer corrupt --data DIR [--stream]
//
// run: opens DIR (Options::sync_writes = --sync), makes sure table "crash"
// exists with two GSIs and a NEW_AND_OLD_IMAGES stream and holds K accounts (created by one transaction), prints
// "start N", then loops forever over writes numbered N, N+1, ...; each write's
// content is a pure function of its number (splitmix64), so the verifier can
// recompute it. After each acknowledged write it prints "ack <n>" and flushes.
// With --add-index it first adds a third GSI "by_tag" (tag S, ver N, KEYS_ONLY)
// by UpdateTable, unless the table has it: the kill may then come while it is
// being backfilled (with --sync every backfill step is fsynced, so it is slow).
//   - transactions (TransactWriteItems): 2..4 accounts get amounts that sum to
//     0 (`SET bal = bal + :d`), the txn id "t<n>", new GSI keys, and `ADD cnt 1`;
//     in the same transaction an immutable log item "txn#<n>" records the
//     members and their amounts;
//   - single-item writes on 64 items "item#<j>": PutItem, UpdateItem (each of
//     the item's attributes SET or REMOVEd, so the result does not depend on the
//     item's previous state) or DeleteItem, moving them in and out of the GSIs.
//
// verify: reopens DIR (recovery), and checks
//   - the sum of balances is K * 1000, every account present (or none at all);
//   - every transaction wholly present or wholly absent: each account's balance
//     and cnt equal what the committed log items imply, and its txn attribute
//     names the latest committed transaction that touched it;
//   - with --acks FILE (the concatenated stdout of the runs): every acknowledged
//     transaction's log exists, and every item's state is the one its last
//     acknowledged write left, or that of a later unacknowledged write (each run
//     has at most one in flight when killed);
//   - when "by_tag" exists, it becomes ACTIVE (the backfill resumes on open);
//   - every GSI, read back through Scan, holds exactly the entries the table
//     implies, and DB::CheckConsistency() reports nothing;
//   - the stream, read through the Streams API over every shard: sequence
//     numbers increase, and each item's records chain (every record's old
//     image is the previous record's new image) from absent to the item's
//     state now, so every durable change has exactly one record and no
//     record stands for a change that is not there.
// Prints "verify: OK ..." and exits 0, or prints each problem and exits 1.
//
// corrupt: deletes the first raw entry of RocksDB's "indexes" column family
// (with --stream: the last stream record), under the engine's feet, so that a
// test can see `dynarock check` and `verify` catch it.
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

#include "dynarock/db.h"
#include "rocksdb/db.h"

namespace {

using dynarock::AttributeValue;
using dynarock::AttrType;
using dynarock::DB;
using dynarock::Item;

constexpr char kTable[] = "crash";
constexpr int64_t kStartBalance = 1000;
constexpr int kItems = 64;

AttributeValue S(std::string s) { return AttributeValue::S(std::move(s)); }
AttributeValue N(int64_t v) { return AttributeValue::N(std::to_string(v)); }

uint64_t SplitMix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// A small deterministic stream of random numbers for write number n.
struct Rng {
  explicit Rng(uint64_t n) : s(SplitMix(n * 0x2545F4914F6CDD1DULL + 17)) {}
  uint64_t Next() { return s = SplitMix(s); }
  int64_t Uniform(int64_t lo, int64_t hi) {  // inclusive
    return lo + static_cast<int64_t>(Next() % static_cast<uint64_t>(hi - lo + 1));
  }
  uint64_t s;
};

std::string AccountKey(int i) { return "acct#" + std::to_string(i); }
std::string ItemKey(int j) { return "item#" + std::to_string(j); }
std::string TxnId(int64_t n) { return "t" + std::to_string(n); }

// ---------------------------------------------------------------- the writes

enum class Kind { kTxn, kPut, kUpdate, kDelete };

Kind KindOf(int64_t n) {
  Rng r(static_cast<uint64_t>(n));
  int64_t k = r.Uniform(0, 99);
  if (k < 40) return Kind::kTxn;
  if (k < 65) return Kind::kPut;
  if (k < 85) return Kind::kUpdate;
  return Kind::kDelete;
}

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

ItemWrite ItemWriteOf(int64_t n) {
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

dynarock::Status DoWrite(DB* db, int64_t n, int accounts) {
  Kind kind = KindOf(n);
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
  ItemWrite w = ItemWriteOf(n);
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

struct Problems {
  std::vector<std::string> list;
  void Add(std::string s) {
    if (list.size() < 200) std::printf("problem: %s\n", s.c_str());
    list.push_back(std::move(s));
  }
};

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

// Every record of the table's stream, over all its shards in order.
std::vector<dynarock::StreamRecord> ReadStream(DB* db, const std::string& arn, Problems* p) {
  std::vector<dynarock::StreamRecord> out;
  dynarock::DescribeStreamRequest ds;
  ds.stream_arn = arn;
  auto desc = db->DescribeStream(ds);
  if (!desc.ok()) {
    p->Add("DescribeStream: " + desc.status().ToString());
    return out;
  }
  for (const auto& shard : desc->stream_description.shards) {
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
      for (auto& r : page->records) out.push_back(std::move(r));
      next = page->next_shard_iterator;
    }
  }
  return out;
}

bool SeqLess(const std::string& a, const std::string& b) {
  return a.size() != b.size() ? a.size() < b.size() : a < b;
}

size_t CheckStream(DB* db, const dynarock::DescribeTableResponse& table,
                   const std::map<std::string, Item>& by_pk, Problems* p) {
  if (!table.table.latest_stream_arn) {
    p->Add("stream: the table has none");
    return 0;
  }
  std::vector<dynarock::StreamRecord> records = ReadStream(db, *table.table.latest_stream_arn, p);
  std::map<std::string, std::optional<Item>> state;  // each item after its records
  std::string last;
  for (const auto& r : records) {
    if (!last.empty() && !SeqLess(last, r.sequence_number)) {
      p->Add("stream: sequence number " + r.sequence_number + " after " + last);
    }
    last = r.sequence_number;
    auto pk = r.keys.find("pk");
    if (pk == r.keys.end()) {
      p->Add("stream: record " + r.sequence_number + " without its key");
      continue;
    }
    std::optional<Item>& before = state[pk->second.scalar()];
    const char* want = !before ? "INSERT" : !r.new_image ? "REMOVE" : "MODIFY";
    if (r.event_name != want || r.old_image != before) {
      p->Add("stream: " + pk->second.scalar() + " record " + r.sequence_number + " (" +
             r.event_name + ") does not follow its previous state " +
             (before ? dynarock::DebugString(*before) : "absent"));
    }
    before = r.new_image;
  }
  for (const auto& [pk, item] : by_pk) {
    auto f = state.find(pk);
    if (f == state.end() || f->second != item) {
      p->Add("stream: " + pk + "'s records do not end in its state " + dynarock::DebugString(item));
    }
  }
  for (const auto& [pk, image] : state) {
    if (image && !by_pk.count(pk)) p->Add("stream: " + pk + "'s records end in an item not there");
  }
  return records.size();
}

int Verify(DB* db, int accounts, const std::string& acks_file) {
  Problems p;
  dynarock::DescribeTableRequest d;
  d.table_name = kTable;
  auto desc = db->DescribeTable(d);

  // Acknowledged writes (from the runs' stdout).
  std::vector<int64_t> acked;
  std::vector<std::pair<int64_t, int64_t>> runs;  // start, last ack (start-1 if none)
  if (!acks_file.empty()) {
    std::ifstream in(acks_file);
    if (!in) {
      std::fprintf(stderr, "crash_writer verify: cannot read %s\n", acks_file.c_str());
      return 2;
    }
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream ls(line);
      std::string word;
      int64_t v;
      if (!(ls >> word >> v)) continue;
      if (word == "start") runs.emplace_back(v, v - 1);
      if (word == "ack") {
        acked.push_back(v);
        if (runs.empty() || v < runs.back().first) {
          p.Add("ack " + std::to_string(v) + " outside any run");
        } else {
          runs.back().second = std::max(runs.back().second, v);
        }
      }
    }
  }

  if (!desc.ok()) {
    if (!acked.empty()) p.Add("table missing after acknowledged writes: " + desc.status().ToString());
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

  // Acknowledged writes are there (or overwritten by a later one).
  int64_t acked_txns = 0, acked_item_writes = 0;
  if (!acks_file.empty()) {
    std::vector<int64_t> in_flight;
    for (auto [start, last] : runs) in_flight.push_back(last + 1);
    std::map<int, int64_t> last_acked;  // item -> write number
    for (int64_t n : acked) {
      if (KindOf(n) == Kind::kTxn) {
        acked_txns++;
        if (!logs.count(n)) p.Add("acknowledged transaction " + std::to_string(n) + " missing");
      } else {
        acked_item_writes++;
        int j = ItemWriteOf(n).item;
        last_acked[j] = std::max(last_acked.count(j) ? last_acked[j] : INT64_MIN, n);
      }
    }
    for (int j = 0; j < kItems; ++j) {
      std::vector<int64_t> candidates;
      bool initial_ok = !last_acked.count(j);
      int64_t floor = initial_ok ? INT64_MIN : last_acked[j];
      if (!initial_ok) candidates.push_back(floor);
      for (int64_t n : in_flight) {
        if (n > floor && KindOf(n) != Kind::kTxn && ItemWriteOf(n).item == j) candidates.push_back(n);
      }
      auto f = by_pk.find(ItemKey(j));
      std::optional<Item> actual;
      if (f != by_pk.end()) actual = f->second;
      bool ok = initial_ok && !actual;
      for (int64_t n : candidates) ok |= ItemWriteOf(n).result == actual;
      if (!ok) {
        p.Add(ItemKey(j) + ": state " + (actual ? dynarock::DebugString(*actual) : "absent") +
              " is not what acknowledged write " + (initial_ok ? "(none)" : std::to_string(floor)) +
              " or a later unacknowledged one left");
      }
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

  size_t stream_records = CheckStream(db, *desc, by_pk, &p);

  auto report = db->CheckConsistency();
  if (!report.ok()) {
    p.Add("CheckConsistency failed: " + report.status().ToString());
  } else {
    for (const auto& dif : report->differences) p.Add("CheckConsistency: " + dif);
  }

  std::printf("verify: %s: %zu items, %d accounts (sum %lld), %zu committed transactions, "
              "%zu + %zu index entries, %s, %zu stream records; %lld acknowledged transactions "
              "and %lld acknowledged item writes over %zu runs\n",
              p.list.empty() ? "OK" : "FAILED", by_pk.size(), present,
              static_cast<long long>(total), logs.size(), e1, e2, tag_index.c_str(), stream_records,
              static_cast<long long>(acked_txns), static_cast<long long>(acked_item_writes),
              runs.size());
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
               "       crash_writer verify --data DIR [--acks FILE] [--accounts K]\n"
               "       crash_writer corrupt --data DIR [--stream]\n");
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
  bool sync = false, add_index = false, stream = false;
  int accounts = 16;
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
    else if (a == "--start") start = std::stoll(value());
    else if (a == "--accounts") accounts = std::stoi(value());
    else if (a == "--acks") acks = value();
    else return Usage(("unknown flag " + a).c_str());
  }
  if (data.empty()) return Usage("--data is required");
  if (accounts < 2 || accounts > 1000) return Usage("--accounts must be 2..1000");

  if (mode == "corrupt") return Corrupt(data, stream);

  dynarock::Options options;
  options.sync_writes = sync;
  options.create_if_missing = mode == "run";
  auto opened = DB::Open(options, data);
  if (!opened.ok()) {
    std::fprintf(stderr, "crash_writer: cannot open %s: %s\n", data.c_str(),
                 opened.status().ToString().c_str());
    return 2;
  }
  std::unique_ptr<DB> db = std::move(*opened);

  if (mode == "verify") return Verify(db.get(), accounts, acks);

  EnsureTable(db.get(), accounts);
  if (add_index) AddTagIndex(db.get());
  std::printf("start %lld\n", static_cast<long long>(start));
  std::fflush(stdout);
  for (int64_t n = start;; ++n) {
    dynarock::Status s = DoWrite(db.get(), n, accounts);
    if (!s.ok()) Die("write " + std::to_string(n), s);
    std::printf("ack %lld\n", static_cast<long long>(n));
    std::fflush(stdout);
  }
}
