// The test double's reset and snapshots on the embedded DB.

#include <chrono>
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

void MakeGsiTable(DB* db, const std::string& name) {
  CreateTableRequest req;
  req.table_name = name;
  req.billing_mode = "PAY_PER_REQUEST";
  req.attribute_definitions = {{"pk", AttrType::kS}, {"g", AttrType::kS}};
  req.key_schema = {{"pk", KeyType::kHash}};
  GlobalSecondaryIndex gsi;
  gsi.index_name = "by_g";
  gsi.key_schema = {{"g", KeyType::kHash}};
  gsi.projection.projection_type = ProjectionType::kAll;
  req.global_secondary_indexes.push_back(gsi);
  req.has_global_secondary_indexes = true;
  req.stream_specification = StreamSpecification{true, "NEW_AND_OLD_IMAGES"};
  ASSERT_TRUE(db->CreateTable(req).ok());
}

TEST_F(DBTest, SnapshotsPutTheWholeDatabaseBackAndResetEmptiesIt) {
  MakeGsiTable(db_.get(), "snap1");
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

}  // namespace
}  // namespace dynarock::testing
