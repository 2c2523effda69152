// Backups, restores, point-in-time recovery and table loads on the embedded DB.

#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <random>
#include <thread>

#include "engine/db_impl.h"
#include "engine/item_codec.h"
#include "tests/unit/testutil.h"

namespace dynarock::testing {
namespace {

using Model = std::map<std::string, Item>;  // by hash key

// Every item of `table`, by its "pk" attribute (a string).
Model ScanAll(DB* db, const std::string& table) {
  Model out;
  ScanRequest req;
  req.table_name = table;
  while (true) {
    auto r = db->Scan(req);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) return out;
    for (auto& item : r->items) out[item.at("pk").scalar()] = item;
    if (!r->last_evaluated_key) break;
    req.exclusive_start_key = r->last_evaluated_key;
  }
  return out;
}

// An in-memory DB on the clock `clock_ms` (milliseconds) with table "tbl"
// (CreateGsiTable) and point-in-time recovery on for `days`.
std::unique_ptr<DB> PitrDB(std::atomic<int64_t>* clock_ms, int64_t days) {
  Options options;
  options.in_memory = true;
  options.clock = [clock_ms] { return static_cast<double>(clock_ms->load()) / 1000.0; };
  auto opened = DB::Open(options, "");
  if (!opened.ok()) return nullptr;
  std::unique_ptr<DB> db = std::move(opened).value();
  CreateGsiTable(db.get(), "tbl");
  UpdateContinuousBackupsRequest enable;
  enable.table_name = "tbl";
  enable.point_in_time_recovery_enabled = true;
  enable.recovery_period_in_days = days;
  if (!db->UpdateContinuousBackups(enable).ok()) return nullptr;
  return db;
}

Item EveryType(int i) {
  Item item;
  item["pk"] = AttributeValue::S("k" + std::to_string(i));
  item["g"] = AttributeValue::S("g" + std::to_string(i % 3));
  item["n"] = AttributeValue::N(std::to_string(i));
  item["b"] = AttributeValue::B(std::string("\0\xff", 2) + std::to_string(i));
  item["ss"] = AttributeValue::SS({"a", "b" + std::to_string(i)});
  item["ns"] = AttributeValue::NS({"1", "2.5"});
  item["bs"] = AttributeValue::BS({std::string("\x01", 1), std::string("\x02", 1)});
  item["bool"] = AttributeValue::Bool(i % 2 == 0);
  item["null"] = AttributeValue::Null();
  item["l"] = AttributeValue::L({AttributeValue::S("x"), AttributeValue::N("3")});
  Item m;
  m["nested"] = AttributeValue::S("v" + std::to_string(i));
  item["m"] = AttributeValue::M(m);
  return item;
}

int64_t CountIndex(DB* db, const std::string& table, const std::string& g) {
  QueryRequest q;
  q.table_name = table;
  q.index_name = "by_g";
  q.key_condition_expression = "g = :g";
  q.expression_attribute_values[":g"] = AttributeValue::S(g);
  q.has_expression_attribute_values = true;
  auto r = db->Query(q);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? r->count : -1;
}

TEST_F(DBTest, BackupIsTheTableAtItsMomentAndRestoresWithItsIndexes) {
  CreateGsiTable(db_.get(), "src");
  Model model;
  for (int i = 0; i < 50; ++i) {
    Put("src", EveryType(i));
    model["k" + std::to_string(i)] = EveryType(i);
  }
  auto b = db_->CreateBackup({"src", "first-backup"});
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  const std::string arn = b->backup_details.backup_arn;
  EXPECT_NE(arn.find(":table/src/backup/"), std::string::npos) << arn;
  WaitAvailable(db_.get(), arn);
  // Later writes and the table's deletion change nothing in the backup.
  for (int i = 50; i < 60; ++i) Put("src", EveryType(i));
  ASSERT_OK(db_->DeleteTable({"src"}));

  auto d = db_->DescribeBackup({arn});
  ASSERT_OK(d);
  EXPECT_EQ(d->backup_description.backup_details.backup_name, "first-backup");
  EXPECT_EQ(d->backup_description.source_table_details.item_count, 50);
  EXPECT_GT(d->backup_description.backup_details.backup_size_bytes, 0);
  ASSERT_EQ(d->backup_description.source_table_feature_details.global_secondary_indexes.size(), 1u);

  RestoreTableFromBackupRequest restore;
  restore.target_table_name = "restored";
  restore.backup_arn = arn;
  auto r = db_->RestoreTableFromBackup(restore);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE(r->table_description.restore_summary.has_value());
  EXPECT_EQ(r->table_description.restore_summary->source_backup_arn, arn);
  WaitActive(db_.get(), "restored");
  EXPECT_EQ(ScanAll(db_.get(), "restored"), model);
  EXPECT_EQ(CountIndex(db_.get(), "restored", "g1"), 17);  // i % 3 == 1 for i < 50
  DescribeTableRequest dt;
  dt.table_name = "restored";
  auto desc = db_->DescribeTable(dt);
  ASSERT_OK(desc);
  EXPECT_EQ(desc->table.item_count, 50);
  EXPECT_FALSE(desc->table.restore_summary->restore_in_progress);
  auto check = db_->CheckConsistency();
  ASSERT_OK(check);
  EXPECT_TRUE(check->ok()) << (check->differences.empty() ? "" : check->differences.front());

  // The same target again: it exists.
  EXPECT_ERROR(db_->RestoreTableFromBackup(restore), ErrorType::kTableAlreadyExists,
               "Table already exists: restored");
}

TEST_F(DBTest, BackupErrorsAndListing) {
  CreateTable("tbl", "pk", AttrType::kS);
  EXPECT_ERROR(db_->CreateBackup({"nope", "name"}), ErrorType::kTableNotFound,
               "Table not found: nope");
  EXPECT_ERROR(db_->CreateBackup({"tbl", "a b"}), ErrorType::kValidation, "backupName");
  EXPECT_ERROR(db_->DescribeBackup({"arn:aws:dynamodb:us-east-1:000000000000:table/tbl/backup/"
                                    "01234567890123-abcdef01"}),
               ErrorType::kBackupNotFound, "Backup not found");
  std::vector<std::string> arns;
  for (int i = 0; i < 5; ++i) {
    auto b = db_->CreateBackup({"tbl", "b" + std::to_string(i) + "xx"});
    ASSERT_OK(b);
    arns.push_back(b->backup_details.backup_arn);
  }
  ListBackupsRequest list;
  list.limit = 2;
  std::vector<std::string> seen;
  while (true) {
    auto r = db_->ListBackups(list);
    ASSERT_OK(r);
    for (const auto& s : r->backup_summaries) seen.push_back(s.details.backup_arn);
    if (!r->last_evaluated_backup_arn) break;
    list.exclusive_start_backup_arn = r->last_evaluated_backup_arn;
  }
  EXPECT_EQ(seen, arns);
  ListBackupsRequest system;
  system.backup_type = "SYSTEM";
  EXPECT_TRUE(db_->ListBackups(system)->backup_summaries.empty());
  ListBackupsRequest other;
  other.table_name = "other";
  EXPECT_TRUE(db_->ListBackups(other)->backup_summaries.empty());

  auto deleted = db_->DeleteBackup({arns[0]});
  ASSERT_OK(deleted);
  EXPECT_EQ(deleted->backup_description.backup_details.backup_status, "DELETED");
  EXPECT_ERROR(db_->DescribeBackup({arns[0]}), ErrorType::kBackupNotFound, arns[0]);
  RestoreTableFromBackupRequest restore;
  restore.target_table_name = "xx1";
  restore.backup_arn = arns[0];
  EXPECT_ERROR(db_->RestoreTableFromBackup(restore), ErrorType::kBackupNotFound, "Backup not found");
  // An empty table backs up and restores as an empty table.
  restore.backup_arn = arns[1];
  ASSERT_OK(db_->RestoreTableFromBackup(restore));
  WaitActive(db_.get(), "xx1");
  EXPECT_TRUE(ScanAll(db_.get(), "xx1").empty());
}

// Two restores of one backup at once: it is in use until both end, then it
// can be deleted.
TEST_F(DBTest, ABackupRestoredTwiceAtOnceIsInUseUntilBothEnd) {
  CreateGsiTable(db_.get(), "src");
  for (int i = 0; i < 2000; ++i) Put("src", EveryType(i));
  auto b = db_->CreateBackup({"src", "twice"});
  ASSERT_OK(b);
  const std::string arn = b->backup_details.backup_arn;
  WaitAvailable(db_.get(), arn);
  for (const char* target : {"copy1", "copy2"}) {
    RestoreTableFromBackupRequest restore;
    restore.target_table_name = target;
    restore.backup_arn = arn;
    ASSERT_OK(db_->RestoreTableFromBackup(restore));
  }
  // While a restore runs the backup cannot go (either may be done already).
  auto early = db_->DeleteBackup({arn});
  if (!early.ok()) {
    EXPECT_EQ(early.status().type(), ErrorType::kBackupInUse);
  }
  WaitActive(db_.get(), "copy1");
  WaitActive(db_.get(), "copy2");
  EXPECT_EQ(ScanAll(db_.get(), "copy1").size(), 2000u);
  EXPECT_EQ(ScanAll(db_.get(), "copy2").size(), 2000u);
  if (early.ok()) return;
  // Both ended: the backup is free again.
  for (int i = 0; i < 100 && !db_->DeleteBackup({arn}).ok(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(db_->DescribeBackup({arn}).status().type(), ErrorType::kBackupNotFound);
}

TEST_F(DBTest, RestoreOverridesBillingAndDropsIndexes) {
  CreateGsiTable(db_.get(), "src");
  for (int i = 0; i < 10; ++i) Put("src", EveryType(i));
  auto b = db_->CreateBackup({"src", "bk1"});
  ASSERT_OK(b);
  WaitAvailable(db_.get(), b->backup_details.backup_arn);
  RestoreTableFromBackupRequest restore;
  restore.target_table_name = "prov";
  restore.backup_arn = b->backup_details.backup_arn;
  restore.overrides.billing_mode = "PROVISIONED";
  EXPECT_ERROR(db_->RestoreTableFromBackup(restore), ErrorType::kValidation,
               "ProvisionedThroughputOverride");
  restore.overrides.provisioned_throughput = ProvisionedThroughput{5, 7};
  restore.overrides.has_global_secondary_indexes = true;  // none
  restore.overrides.sse_enabled = true;
  auto r = db_->RestoreTableFromBackup(restore);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  WaitActive(db_.get(), "prov");
  DescribeTableRequest dt;
  dt.table_name = "prov";
  auto d = db_->DescribeTable(dt);
  ASSERT_OK(d);
  EXPECT_EQ(d->table.billing_mode, "PROVISIONED");
  EXPECT_EQ(d->table.provisioned_throughput.write_capacity_units, 7);
  EXPECT_TRUE(d->table.global_secondary_indexes.empty());
  EXPECT_EQ(d->table.sse_type, "KMS");
  EXPECT_EQ(d->table.item_count, 10);
}

// A backup keeps the source's on-demand maximums (SourceTableDetails and its
// GSIs), a restore gives them to the new table, OnDemandThroughputOverride
// changes them member by member (-1 removes one), and a PROVISIONED restore
// leaves them behind.
TEST_F(DBTest, RestoresCarryOnDemandThroughputAndItsOverride) {
  CreateGsiTable(db_.get(), "src");
  UpdateTableRequest up;
  up.table_name = "src";
  up.on_demand_throughput = OnDemandThroughput{10, 20};
  GlobalSecondaryIndexUpdate gsi;
  gsi.update.emplace();
  gsi.update->index_name = "by_g";
  gsi.update->on_demand_throughput = OnDemandThroughput{5, {}};
  up.global_secondary_index_updates = {gsi};
  ASSERT_OK(db_->UpdateTable(up));
  for (int i = 0; i < 4; ++i) Put("src", EveryType(i));
  auto b = db_->CreateBackup({"src", "bk2"});
  ASSERT_OK(b);
  const std::string arn = b->backup_details.backup_arn;
  WaitAvailable(db_.get(), arn);
  auto described = db_->DescribeBackup({arn});
  ASSERT_OK(described);
  const BackupDescription& bd = described->backup_description;
  ASSERT_TRUE(bd.source_table_details.on_demand_throughput);
  EXPECT_EQ(bd.source_table_details.on_demand_throughput->max_read_request_units, 10);
  EXPECT_EQ(bd.source_table_details.on_demand_throughput->max_write_request_units, 20);
  ASSERT_EQ(bd.source_table_feature_details.global_secondary_indexes.size(), 1u);
  ASSERT_TRUE(bd.source_table_feature_details.global_secondary_indexes[0].on_demand_throughput);
  EXPECT_EQ(bd.source_table_feature_details.global_secondary_indexes[0]
                .on_demand_throughput->max_read_request_units, 5);

  auto describe = [&](const std::string& name) {
    WaitActive(db_.get(), name);
    auto d = db_->DescribeTable({name});
    EXPECT_TRUE(d.ok()) << d.status().ToString();
    return d.ok() ? d->table : TableDescription{};
  };
  RestoreTableFromBackupRequest same;
  same.target_table_name = "same";
  same.backup_arn = arn;
  ASSERT_OK(db_->RestoreTableFromBackup(same));
  TableDescription t = describe("same");
  ASSERT_TRUE(t.on_demand_throughput);
  EXPECT_EQ(t.on_demand_throughput->max_read_request_units, 10);
  EXPECT_EQ(t.on_demand_throughput->max_write_request_units, 20);
  ASSERT_TRUE(t.global_secondary_indexes.at(0).on_demand_throughput);
  EXPECT_EQ(t.global_secondary_indexes[0].on_demand_throughput->max_read_request_units, 5);
  EXPECT_EQ(t.item_count, 4);

  RestoreTableFromBackupRequest changed = same;
  changed.target_table_name = "changed";
  changed.overrides.on_demand_throughput = OnDemandThroughput{-1, 30};
  ASSERT_OK(db_->RestoreTableFromBackup(changed));
  t = describe("changed");
  ASSERT_TRUE(t.on_demand_throughput);
  EXPECT_FALSE(t.on_demand_throughput->max_read_request_units);
  EXPECT_EQ(t.on_demand_throughput->max_write_request_units, 30);

  changed.target_table_name = "bad";
  changed.overrides.on_demand_throughput = OnDemandThroughput{0, {}};
  EXPECT_ERROR(db_->RestoreTableFromBackup(changed), ErrorType::kValidation,
               "Requested MaxReadRequestUnits for OnDemandThroughput for table is outside of "
               "valid range");
  RestoreTableFromBackupRequest prov = same;
  prov.target_table_name = "prov";
  prov.overrides.billing_mode = "PROVISIONED";
  prov.overrides.provisioned_throughput = ProvisionedThroughput{2, 3};
  prov.overrides.on_demand_throughput = OnDemandThroughput{4, {}};
  EXPECT_ERROR(db_->RestoreTableFromBackup(prov), ErrorType::kValidation,
               "MaxReadRequestUnits for OnDemandThroughput cannot be specified when table "
               "BillingMode is PROVISIONED.");
  EXPECT_ERROR(db_->DescribeTable({"bad"}), ErrorType::kResourceNotFound, "not found");
  EXPECT_ERROR(db_->DescribeTable({"prov"}), ErrorType::kResourceNotFound, "not found");
  prov.overrides.on_demand_throughput.reset();
  ASSERT_OK(db_->RestoreTableFromBackup(prov));
  t = describe("prov");
  EXPECT_EQ(t.billing_mode, "PROVISIONED");
  EXPECT_FALSE(t.on_demand_throughput);
  EXPECT_FALSE(t.global_secondary_indexes.at(0).on_demand_throughput);

  // Point-in-time restores take the same override.
  UpdateContinuousBackupsRequest pitr;
  pitr.table_name = "src";
  pitr.point_in_time_recovery_enabled = true;
  ASSERT_OK(db_->UpdateContinuousBackups(pitr));
  RestoreTableToPointInTimeRequest at;
  at.source_table_name = "src";
  at.target_table_name = "at_time";
  at.use_latest_restorable_time = true;
  at.overrides.on_demand_throughput = OnDemandThroughput{{}, -1};
  ASSERT_OK(db_->RestoreTableToPointInTime(at));
  t = describe("at_time");
  ASSERT_TRUE(t.on_demand_throughput);
  EXPECT_EQ(t.on_demand_throughput->max_read_request_units, 10);
  EXPECT_FALSE(t.on_demand_throughput->max_write_request_units);
}

TEST_F(DBTest, PitrNeedsEnablingAndRefusesTimesOutsideItsWindow) {
  CreateTable("tbl", "pk", AttrType::kS);
  RestoreTableToPointInTimeRequest req;
  req.source_table_name = "tbl";
  req.target_table_name = "tb2";
  req.use_latest_restorable_time = true;
  EXPECT_ERROR(db_->RestoreTableToPointInTime(req), ErrorType::kPointInTimeRecoveryUnavailable,
               "Point in time recovery is not enabled for table 'tbl'");
  UpdateContinuousBackupsRequest enable;
  enable.table_name = "tbl";
  enable.point_in_time_recovery_enabled = true;
  enable.recovery_period_in_days = 7;
  auto e = db_->UpdateContinuousBackups(enable);
  ASSERT_OK(e);
  EXPECT_EQ(e->description.point_in_time_recovery_status, "ENABLED");
  EXPECT_EQ(e->description.recovery_period_in_days, 7);
  req.use_latest_restorable_time = false;
  req.restore_date_time = *e->description.earliest_restorable_date_time - 60;
  EXPECT_ERROR(db_->RestoreTableToPointInTime(req), ErrorType::kInvalidRestoreTime,
               "Only RestoreDateTime between");
  req.restore_date_time.reset();
  EXPECT_ERROR(db_->RestoreTableToPointInTime(req), ErrorType::kValidation, "RestoreDateTime");
  req.source_table_name = "nope";
  req.use_latest_restorable_time = true;
  EXPECT_ERROR(db_->RestoreTableToPointInTime(req), ErrorType::kTableNotFound, "nope");
}

// Point-in-time restores to many instants while a writer keeps writing: each
// restored table must equal the model at its instant.
TEST(PitrTest, RestoresToRandomInstantsUnderAWriteLoadMatchTheModel) {
  std::atomic<int64_t> clock_ms{1'700'000'000'000};
  std::unique_ptr<DB> db = PitrDB(&clock_ms, 35);
  ASSERT_TRUE(db != nullptr);

  // The writer: each write at its own millisecond; the model after each.
  std::mutex mu;
  std::map<int64_t, Model> states;  // time (ms) -> the table after the writes up to it
  Model current;
  {
    std::lock_guard<std::mutex> lock(mu);
    states[clock_ms.load()] = current;
  }
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    std::mt19937 rng(7);
    for (int step = 0; step < 3000 && !stop; ++step) {
      const int64_t t = ++clock_ms;
      const std::string pk = "k" + std::to_string(rng() % 60);
      if (rng() % 4 == 0) {
        DeleteItemRequest del;
        del.table_name = "tbl";
        del.key["pk"] = AttributeValue::S(pk);
        ASSERT_OK(db->DeleteItem(del));
        current.erase(pk);
      } else {
        Item item;
        item["pk"] = AttributeValue::S(pk);
        item["g"] = AttributeValue::S("g" + std::to_string(rng() % 3));
        item["v"] = AttributeValue::N(std::to_string(step));
        PutItemRequest put;
        put.table_name = "tbl";
        put.item = item;
        ASSERT_OK(db->PutItem(put));
        current[pk] = item;
      }
      std::lock_guard<std::mutex> lock(mu);
      states[t] = current;
    }
  });
  std::mt19937 rng(11);
  int restored = 0;
  for (int round = 0; round < 12; ++round) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    int64_t lo, hi;
    {
      std::lock_guard<std::mutex> lock(mu);
      lo = states.begin()->first;
      hi = states.rbegin()->first;
    }
    const int64_t at = lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1));
    RestoreTableToPointInTimeRequest req;
    req.source_table_name = "tbl";
    req.target_table_name = "rr" + std::to_string(round);
    req.restore_date_time = static_cast<double>(at) / 1000.0;
    auto r = db->RestoreTableToPointInTime(req);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    WaitActive(db.get(), req.target_table_name);
    Model expected;
    {
      std::lock_guard<std::mutex> lock(mu);
      expected = std::prev(states.upper_bound(at))->second;
    }
    EXPECT_EQ(ScanAll(db.get(), req.target_table_name), expected) << "restored to " << at;
    ++restored;
  }
  stop = true;
  writer.join();
  EXPECT_EQ(restored, 12);
  // The latest restorable time is the table now.
  RestoreTableToPointInTimeRequest latest;
  latest.source_table_name = "tbl";
  latest.target_table_name = "latest";
  latest.use_latest_restorable_time = true;
  ASSERT_OK(db->RestoreTableToPointInTime(latest));
  WaitActive(db.get(), "latest");
  EXPECT_EQ(ScanAll(db.get(), "latest"), current);
  auto check = db->CheckConsistency();
  ASSERT_OK(check);
  EXPECT_TRUE(check->ok());
}

// History older than the recovery period goes; the window's start moves with
// it, and restores inside the window stay exact.
TEST(PitrTest, HistoryOlderThanTheWindowIsTrimmed) {
  std::atomic<int64_t> clock_ms{1'700'000'000'000};
  std::unique_ptr<DB> db = PitrDB(&clock_ms, 1);
  ASSERT_TRUE(db != nullptr);
  auto put = [&](const std::string& v) {
    PutItemRequest p;
    p.table_name = "tbl";
    p.item = {{"pk", AttributeValue::S("a")}, {"v", AttributeValue::S(v)}};
    ASSERT_OK(db->PutItem(p));
  };
  for (int i = 0; i < 5; ++i) {
    clock_ms += 1000;
    put("old" + std::to_string(i));
  }
  clock_ms += 2 * 86'400'000LL;  // two days on: every record so far is out of the window
  put("new");
  auto* impl = static_cast<DBImpl*>(db.get());
  EXPECT_EQ(impl->TrimStreams(), 5);
  EXPECT_EQ(impl->TrimStreams(), 0);
  DescribeContinuousBackupsRequest d;
  d.table_name = "tbl";
  auto described = db->DescribeContinuousBackups(d);
  ASSERT_OK(described);
  const double earliest = *described->description.earliest_restorable_date_time;
  EXPECT_NEAR(earliest, static_cast<double>(clock_ms.load()) / 1000.0 - 86400, 0.01);
  // Just before the last write: the item as the trimmed records left it.
  clock_ms += 10;
  RestoreTableToPointInTimeRequest req;
  req.source_table_name = "tbl";
  req.target_table_name = "before";
  req.restore_date_time = static_cast<double>(clock_ms.load() - 20) / 1000.0;
  ASSERT_OK(db->RestoreTableToPointInTime(req));
  WaitActive(db.get(), "before");
  Model got = ScanAll(db.get(), "before");
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got.at("a").at("v").scalar(), "old4");
  req.restore_date_time = earliest - 60;
  req.target_table_name = "toolate";
  EXPECT_ERROR(db->RestoreTableToPointInTime(req), ErrorType::kInvalidRestoreTime, "between");
}

// Backups taken while a writer writes are each one consistent moment: equal
// to the table after some prefix of the writer's writes, never a mix.
TEST(BackupLoadTest, BackupsUnderAWriteLoadAreNeverTorn) {
  Options options;
  options.in_memory = true;
  auto opened = DB::Open(options, "");
  ASSERT_TRUE(opened.ok());
  std::unique_ptr<DB> db = std::move(opened).value();
  CreateGsiTable(db.get(), "tbl");
  std::mutex mu;
  std::vector<Model> states{Model()};  // after each write
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    Model current;
    std::mt19937 rng(3);
    for (int step = 0; !stop && step < 20000; ++step) {
      // Each write moves "total" and one item together, in one transaction.
      const std::string pk = "k" + std::to_string(rng() % 40);
      Item item{{"pk", AttributeValue::S(pk)}, {"g", AttributeValue::S("g")},
                {"v", AttributeValue::N(std::to_string(step))}};
      Item total{{"pk", AttributeValue::S("total")}, {"g", AttributeValue::S("g")},
                 {"v", AttributeValue::N(std::to_string(step))}};
      TransactWriteItemsRequest t;
      for (const Item* i : {&item, &total}) {
        TransactWriteItem w;
        w.kind = TransactWriteItem::Kind::kPut;
        w.table_name = "tbl";
        w.item = *i;
        t.transact_items.push_back(std::move(w));
      }
      ASSERT_OK(db->TransactWriteItems(t));
      current[pk] = item;
      current["total"] = total;
      std::lock_guard<std::mutex> lock(mu);
      states.push_back(current);
    }
  });
  std::vector<std::string> arns;
  for (int i = 0; i < 8; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(15));
    auto b = db->CreateBackup({"tbl", "load" + std::to_string(i)});
    ASSERT_OK(b);
    arns.push_back(b->backup_details.backup_arn);
  }
  stop = true;
  writer.join();
  for (size_t i = 0; i < arns.size(); ++i) {
    WaitAvailable(db.get(), arns[i]);
    RestoreTableFromBackupRequest restore;
    restore.target_table_name = "rb" + std::to_string(i);
    restore.backup_arn = arns[i];
    ASSERT_OK(db->RestoreTableFromBackup(restore));
    WaitActive(db.get(), restore.target_table_name);
    const Model got = ScanAll(db.get(), restore.target_table_name);
    // The state of the writer's step named by "total" (none: before any).
    size_t step = 0;
    if (got.count("total")) step = std::stoul(got.at("total").at("v").scalar()) + 1;
    ASSERT_LT(step, states.size());
    EXPECT_EQ(got, states[step]) << "backup " << i << " is not the table after write " << step;
  }
}

TEST(PitrTest, ChangesBetweenTwoTimesAreNetPerItem) {
  std::atomic<int64_t> clock_ms{1'700'000'000'000};
  std::unique_ptr<DB> db = PitrDB(&clock_ms, 35);
  ASSERT_TRUE(db != nullptr);
  auto put = [&](const std::string& pk, const std::string& v) {
    ++clock_ms;
    PutItemRequest p;
    p.table_name = "tbl";
    p.item = {{"pk", AttributeValue::S(pk)}, {"v", AttributeValue::S(v)}};
    ASSERT_OK(db->PutItem(p));
  };
  auto del = [&](const std::string& pk) {
    ++clock_ms;
    DeleteItemRequest d;
    d.table_name = "tbl";
    d.key["pk"] = AttributeValue::S(pk);
    ASSERT_OK(db->DeleteItem(d));
  };
  put("a", "1");
  put("b", "1");
  put("gone", "1");
  const double from = static_cast<double>(clock_ms.load()) / 1000.0;
  put("a", "2");
  put("a", "3");    // a: 1 -> 3
  del("b");         // b: removed
  put("c", "1");    // c: new
  put("tmp", "1");
  del("tmp");       // came and went: no change
  const double to = static_cast<double>(clock_ms.load()) / 1000.0;
  put("c", "2");  // after the span
  std::map<std::string, std::pair<std::string, std::string>> seen;  // pk -> (old v, new v)
  ASSERT_STATUS_OK(db->ReadTableChanges("tbl", from, to, [&](const TableChange& c) -> Status {
    Item keys;
    EXPECT_TRUE(DecodeItem(c.keys, &keys));
    auto v = [](const std::optional<std::string>& image) {
      if (!image) return std::string("-");
      Item item;
      EXPECT_TRUE(DecodeItem(*image, &item));
      return item.at("v").scalar();
    };
    seen[keys.at("pk").scalar()] = {v(c.old_image), v(c.new_image)};
    EXPECT_GT(c.write_micros, 0);
    return Status();
  }));
  std::map<std::string, std::pair<std::string, std::string>> want = {
      {"a", {"1", "3"}}, {"b", {"1", "-"}}, {"c", {"-", "1"}}};
  EXPECT_EQ(seen, want);
  // The table as it was at `from`, and now.
  Model at_from;
  ASSERT_STATUS_OK(db->ReadTableAt("tbl", from, [&](std::string_view stored) -> Status {
    Item item;
    EXPECT_TRUE(DecodeItem(stored, &item));
    at_from[item.at("pk").scalar()] = item;
    return Status();
  }));
  EXPECT_EQ(at_from.size(), 3u);
  EXPECT_EQ(at_from.at("a").at("v").scalar(), "1");
}

TEST_F(DBTest, LoadedTableIsHiddenUntilWholeAndGoesWhenTheFillFails) {
  CreateTableRequest req;
  req.table_name = "loaded";
  req.billing_mode = "PAY_PER_REQUEST";
  req.attribute_definitions = {{"pk", AttrType::kS}};
  req.key_schema = {{"pk", KeyType::kHash}};
  int rejected = 0;
  auto r = db_->LoadTable(req, [&](TableLoader& loader) -> Status {
    // Not readable while loading, but described as CREATING.
    GetItemRequest get;
    get.table_name = "loaded";
    get.key["pk"] = AttributeValue::S("a");
    EXPECT_EQ(db_->GetItem(get).status().type(), ErrorType::kResourceNotFound);
    DescribeTableRequest dt;
    dt.table_name = "loaded";
    EXPECT_EQ(db_->DescribeTable(dt)->table.table_status, "CREATING");
    for (int i = 0; i < 2000; ++i) {
      DR_RETURN_IF_ERROR(loader.Add({{"pk", AttributeValue::S("k" + std::to_string(i % 1500))},
                                     {"v", AttributeValue::N(std::to_string(i))}}));
    }
    // A bad item is refused alone.
    Status bad = loader.Add({{"other", AttributeValue::S("x")}});
    if (bad.type() == ErrorType::kValidation) ++rejected;
    return Status();
  });
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(rejected, 1);
  EXPECT_EQ(r->table_status, "ACTIVE");
  EXPECT_EQ(r->item_count, 1500);
  auto got = Get("loaded", {{"pk", AttributeValue::S("k10")}});
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->at("v").scalar(), "1510");  // the later duplicate won
  auto check = db_->CheckConsistency();
  ASSERT_OK(check);
  EXPECT_TRUE(check->ok());

  req.table_name = "failed";
  auto f = db_->LoadTable(req, [&](TableLoader& loader) -> Status {
    DR_RETURN_IF_ERROR(loader.Add({{"pk", AttributeValue::S("x")}}));
    return Status(ErrorType::kValidation, "the source broke");
  });
  EXPECT_EQ(f.status().message(), "the source broke");
  DescribeTableRequest dt;
  dt.table_name = "failed";
  EXPECT_EQ(db_->DescribeTable(dt).status().type(), ErrorType::kResourceNotFound);
  req.table_name = "loaded";
  EXPECT_EQ(db_->LoadTable(req, [](TableLoader&) { return Status(); }).status().type(),
            ErrorType::kTableAlreadyExists);
}

// A load that gives most keys twice: past 65,536 waiting repeats they are
// written during the load, and every key keeps its last version.
TEST_F(DBTest, LoadWithManyRepeatedKeysKeepsEachKeysLastVersion) {
  CreateTableRequest req;
  req.table_name = "twice";
  req.billing_mode = "PAY_PER_REQUEST";
  req.attribute_definitions = {{"pk", AttrType::kS}};
  req.key_schema = {{"pk", KeyType::kHash}};
  constexpr int kKeys = 70000;
  auto r = db_->LoadTable(req, [&](TableLoader& loader) -> Status {
    for (int round = 0; round < 2; ++round) {
      for (int i = 0; i < kKeys; ++i) {
        DR_RETURN_IF_ERROR(loader.Add({{"pk", AttributeValue::S("k" + std::to_string(i))},
                                       {"v", AttributeValue::N(std::to_string(round))}}));
      }
    }
    return Status();
  });
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->item_count, kKeys);
  for (int i : {0, 12345, kKeys - 1}) {
    auto got = Get("twice", {{"pk", AttributeValue::S("k" + std::to_string(i))}});
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(got->at("v").scalar(), "1") << i;
  }
  auto check = db_->CheckConsistency();
  ASSERT_OK(check);
  EXPECT_TRUE(check->ok());
}

// Backups survive a restart; a restore cut short by closing the database is
// finished at the next open.
TEST(BackupDiskTest, BackupsSurviveRestartsAndCutRestoresResume) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("dynarock_backups_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  Options options;
  std::string arn;
  Model model;
  {
    auto opened = DB::Open(options, dir.string());
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    std::unique_ptr<DB> db = std::move(opened).value();
    CreateGsiTable(db.get(), "tbl");
    for (int i = 0; i < 3000; ++i) {
      PutItemRequest p;
      p.table_name = "tbl";
      p.item = EveryType(i);
      ASSERT_OK(db->PutItem(p));
      model["k" + std::to_string(i)] = p.item;
    }
    auto b = db->CreateBackup({"tbl", "disk-backup"});
    ASSERT_OK(b);
    arn = b->backup_details.backup_arn;
    WaitAvailable(db.get(), arn);
  }
  {
    auto opened = DB::Open(options, dir.string());
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    std::unique_ptr<DB> db = std::move(opened).value();
    auto d = db->DescribeBackup({arn});
    ASSERT_OK(d);
    EXPECT_EQ(d->backup_description.backup_details.backup_status, "AVAILABLE");
    RestoreTableFromBackupRequest restore;
    restore.target_table_name = "again";
    restore.backup_arn = arn;
    ASSERT_OK(db->RestoreTableFromBackup(restore));
    // Closed at once: the restore may be cut short.
  }
  {
    auto opened = DB::Open(options, dir.string());
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    std::unique_ptr<DB> db = std::move(opened).value();
    WaitActive(db.get(), "again");
    EXPECT_EQ(ScanAll(db.get(), "again"), model);
    EXPECT_EQ(CountIndex(db.get(), "again", "g0"), 1000);
    auto check = db->CheckConsistency();
    ASSERT_OK(check);
    EXPECT_TRUE(check->ok());
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace dynarock::testing
