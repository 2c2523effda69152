// The test double's reset and snapshots on the embedded DB.

#include <atomic>
#include <chrono>
#include <thread>
#include <map>

#include "tests/unit/testutil.h"

namespace dynarock::testing {
namespace {

std::map<std::string, Item> ScanAll(DB* db, const std::string& table) {
  std::map<std::string, Item> out;
  ScanRequest req;
  req.table_name = table;
  auto r = db->Scan(req);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (r.ok())
    for (auto& item : r->items) out[item.at("pk").scalar()] = item;
  return out;
}

std::vector<std::string> Tables(DB* db) {
  auto r = db->ListTables(ListTablesRequest());
  EXPECT_TRUE(r.ok());
  return r.ok() ? r->table_names : std::vector<std::string>{};
}

TEST_F(DBTest, SnapshotsPutTheWholeDatabaseBackAndResetEmptiesIt) {
  CreateGsiTable(db_.get(), "snap1", "NEW_AND_OLD_IMAGES");
  for (int i = 0; i < 100; ++i) {
    Put("snap1", {{"pk", S("k" + std::to_string(i))}, {"g", S("g" + std::to_string(i % 4))},
                  {"v", N(std::to_string(i))}});
  }
  const auto before = ScanAll(db_.get(), "snap1");
  ASSERT_TRUE(db_->SaveSnapshot("base").ok());

  // Changes after the snapshot: items, a new table, a deleted table.
  for (int i = 0; i < 50; ++i) {
    DeleteItemRequest d;
    d.table_name = "snap1";
    d.key["pk"] = S("k" + std::to_string(i));
    ASSERT_TRUE(db_->DeleteItem(d).ok());
  }
  CreateTable("later", "pk", AttrType::kS);
  Put("later", {{"pk", S("x")}});

  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(db_->RestoreSnapshot("base").ok());
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  RecordProperty("restore_ms", std::to_string(ms));
  EXPECT_EQ(Tables(db_.get()), std::vector<std::string>{"snap1"});
  EXPECT_EQ(ScanAll(db_.get(), "snap1"), before);
  QueryRequest q;
  q.table_name = "snap1";
  q.index_name = "by_g";
  q.key_condition_expression = "g = :g";
  q.expression_attribute_values[":g"] = S("g1");
  q.has_expression_attribute_values = true;
  EXPECT_EQ(db_->Query(q)->count, 25);
  DescribeTableRequest dt;
  dt.table_name = "snap1";
  auto described = db_->DescribeTable(dt);
  ASSERT_TRUE(described.ok());
  EXPECT_EQ(described->table.item_count, 100);
  ASSERT_TRUE(described->table.latest_stream_arn.has_value());
  // The stream is readable again, and writes go on after a restore.
  ListStreamsRequest ls;
  EXPECT_EQ(db_->ListStreams(ls)->streams.size(), 1u);
  Put("snap1", {{"pk", S("new")}, {"g", S("g1")}});
  EXPECT_EQ(db_->Query(q)->count, 26);
  CreateTable("again", "pk", AttrType::kS);  // ids are not reused
  auto check = db_->CheckConsistency();
  ASSERT_TRUE(check.ok());
  EXPECT_TRUE(check->ok()) << (check->differences.empty() ? "" : check->differences.front());

  auto listed = db_->ListSnapshots();
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].name, "base");
  EXPECT_EQ((*listed)[0].items, 100);

  ASSERT_TRUE(db_->Reset().ok());
  EXPECT_TRUE(Tables(db_.get()).empty());
  CreateTable("snap1", "pk", AttrType::kS);  // a fresh table of the old name
  EXPECT_TRUE(ScanAll(db_.get(), "snap1").empty());
  ASSERT_TRUE(db_->RestoreSnapshot("base").ok());
  EXPECT_EQ(ScanAll(db_.get(), "snap1"), before);

  EXPECT_EQ(db_->RestoreSnapshot("nope").type(), ErrorType::kResourceNotFound);
  EXPECT_EQ(db_->SaveSnapshot("a b").type(), ErrorType::kValidation);
  ASSERT_TRUE(db_->DeleteSnapshot("base").ok());
  EXPECT_EQ(db_->DeleteSnapshot("base").type(), ErrorType::kResourceNotFound);
  EXPECT_TRUE(db_->ListSnapshots()->empty());
}

// Options::gsi_lag_*: a GSI Query right after a write sees the index as it
// was; once the lag has passed (on the database's clock) it sees the write;
// local indexes and the table are never behind.
TEST(ConsistencyTest, GsiEntriesLagTheirWritesInOrder) {
  std::atomic<double> now{1.7e9};
  Options options;
  options.in_memory = true;
  options.clock = [&] { return now.load(); };
  options.gsi_lag_min_seconds = 5;
  options.gsi_lag_max_seconds = 5;
  auto opened = DB::Open(options, "");
  ASSERT_TRUE(opened.ok());
  std::unique_ptr<DB> db = std::move(opened).value();
  CreateGsiTable(db.get(), "lagged");
  auto count = [&](const std::string& g) {
    QueryRequest q;
    q.table_name = "lagged";
    q.index_name = "by_g";
    q.key_condition_expression = "g = :g";
    q.expression_attribute_values[":g"] = S(g);
    q.has_expression_attribute_values = true;
    auto r = db->Query(q);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r->count : -1;
  };
  PutItemRequest put;
  put.table_name = "lagged";
  put.item = {{"pk", S("a")}, {"g", S("one")}};
  ASSERT_TRUE(db->PutItem(put).ok());
  GetItemRequest get;
  get.table_name = "lagged";
  get.key = {{"pk", S("a")}};
  get.consistent_read = true;
  EXPECT_TRUE(db->GetItem(get)->item.has_value());  // the table is current
  EXPECT_EQ(count("one"), 0);                       // its GSI is not yet
  now = now.load() + 3;
  put.item = {{"pk", S("a")}, {"g", S("two")}};  // moves the item to "two"
  ASSERT_TRUE(db->PutItem(put).ok());
  now = now.load() + 2.5;  // the first write's lag has passed, not the second's
  for (int i = 0; i < 100 && count("one") != 1; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(count("one"), 1);  // the stale state: the item still under "one"
  EXPECT_EQ(count("two"), 0);
  now = now.load() + 5;
  for (int i = 0; i < 100 && count("two") != 1; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(count("one"), 0);
  EXPECT_EQ(count("two"), 1);
  auto check = db->CheckConsistency();
  ASSERT_TRUE(check.ok());
  EXPECT_TRUE(check->ok());
}

// Options::stale_read_seconds: an eventually consistent GetItem of an item
// just written sees it as it was; a consistent one, the latest; after the
// window, both the latest.
TEST(ConsistencyTest, EventuallyConsistentGetItemMayReturnThePreviousVersion) {
  std::atomic<double> now{1.7e9};
  Options options;
  options.in_memory = true;
  options.clock = [&] { return now.load(); };
  options.stale_read_seconds = 2;
  auto opened = DB::Open(options, "");
  ASSERT_TRUE(opened.ok());
  std::unique_ptr<DB> db = std::move(opened).value();
  CreateTableRequest req;
  req.table_name = "stale";
  req.billing_mode = "PAY_PER_REQUEST";
  req.attribute_definitions = {{"pk", AttrType::kS}};
  req.key_schema = {{"pk", KeyType::kHash}};
  ASSERT_TRUE(db->CreateTable(req).ok());
  auto put = [&](const std::string& v) {
    PutItemRequest p;
    p.table_name = "stale";
    p.item = {{"pk", S("a")}, {"v", S(v)}};
    ASSERT_TRUE(db->PutItem(p).ok());
  };
  auto get = [&](bool consistent) -> std::string {
    GetItemRequest g;
    g.table_name = "stale";
    g.key = {{"pk", S("a")}};
    g.consistent_read = consistent;
    auto r = db->GetItem(g);
    EXPECT_TRUE(r.ok());
    return r.ok() && r->item ? r->item->at("v").scalar() : std::string("-");
  };
  put("1");
  EXPECT_EQ(get(false), "-");  // created just now: not there yet
  EXPECT_EQ(get(true), "1");
  now = now.load() + 3;
  EXPECT_EQ(get(false), "1");
  put("2");
  EXPECT_EQ(get(false), "1");
  EXPECT_EQ(get(true), "2");
  now = now.load() + 3;
  EXPECT_EQ(get(false), "2");
}

}  // namespace
}  // namespace dynarock::testing
