// Pins secondary indexes on the embedded API: entries follow every put, update
// and delete in the same commit; sparse indexes; projections; wrong index-key
// types refused; index queries page with table and index keys.

#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>

#include "tests/unit/testutil.h"

namespace dynarock::testing {
namespace {

class IndexTest : public DBTest {
 protected:
  void SetUp() override {
    DBTest::SetUp();
    CreateTableRequest req;
    req.table_name = "gtab";
    req.billing_mode = "PAY_PER_REQUEST";
    req.attribute_definitions = {{"PK", AttrType::kS}, {"SK", AttrType::kS}, {"gsi0", AttrType::kS},
                                 {"created", AttrType::kN}};
    req.key_schema = {{"PK", KeyType::kHash}, {"SK", KeyType::kRange}};
    GlobalSecondaryIndex inverted;
    inverted.index_name = "inverted";
    inverted.key_schema = {{"SK", KeyType::kHash}, {"gsi0", KeyType::kRange}};
    inverted.projection.projection_type = ProjectionType::kKeysOnly;
    req.global_secondary_indexes = {inverted};
    LocalSecondaryIndex by_created;
    by_created.index_name = "by_created";
    by_created.key_schema = {{"PK", KeyType::kHash}, {"created", KeyType::kRange}};
    by_created.projection.projection_type = ProjectionType::kInclude;
    by_created.projection.non_key_attributes = {"note"};
    req.local_secondary_indexes = {by_created};
    auto r = db_->CreateTable(req);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  QueryResponse QueryIndex(const std::string& index, const std::string& condition, Item values,
                           std::optional<Select> select = std::nullopt) {
    QueryRequest req;
    req.table_name = "gtab";
    req.index_name = index;
    req.key_condition_expression = condition;
    req.expression_attribute_values = std::move(values);
    req.has_expression_attribute_values = true;
    req.select = select;
    auto r = db_->Query(req);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : QueryResponse();
  }
};

TEST_F(IndexTest, InvertedIndexFollowsWrites) {
  Put("gtab", MakeItem({{"PK", S("USER#Frodo")}, {"SK", S("FRIEND#Gandalf")}, {"gsi0", S("500-LEAD")},
                     {"note", S("x")}}));
  Put("gtab", MakeItem({{"PK", S("USER#Sam")}, {"SK", S("FRIEND#Gandalf")}, {"gsi0", S("300-MEMBER")}}));
  Put("gtab", MakeItem({{"PK", S("USER#Merry")}, {"SK", S("FRIEND#Gandalf")}}));  // sparse: no gsi0

  auto r = QueryIndex("inverted", "SK = :s", MakeItem({{":s", S("FRIEND#Gandalf")}}));
  ASSERT_EQ(r.items.size(), 2u);
  EXPECT_EQ(r.items[0].at("PK"), S("USER#Sam"));  // 300-MEMBER sorts first
  EXPECT_EQ(r.items[0].count("note"), 0u);        // KEYS_ONLY
  r = QueryIndex("inverted", "SK = :s AND gsi0 >= :r",
                 MakeItem({{":s", S("FRIEND#Gandalf")}, {":r", S("400-CONTRIBUTOR")}}));
  ASSERT_EQ(r.items.size(), 1u);
  EXPECT_EQ(r.items[0].at("PK"), S("USER#Frodo"));

  // Moving the ranking value moves the entry; deleting the item removes it.
  UpdateItemRequest up;
  up.table_name = "gtab";
  up.key = MakeItem({{"PK", S("USER#Frodo")}, {"SK", S("FRIEND#Gandalf")}});
  up.update_expression = "SET gsi0 = :r";
  up.expression_attribute_values = MakeItem({{":r", S("100-GUEST")}});
  up.has_expression_attribute_values = true;
  ASSERT_OK(db_->UpdateItem(up));
  r = QueryIndex("inverted", "SK = :s", MakeItem({{":s", S("FRIEND#Gandalf")}}));
  ASSERT_EQ(r.items.size(), 2u);
  EXPECT_EQ(r.items[0].at("PK"), S("USER#Frodo"));
  DeleteItemRequest del;
  del.table_name = "gtab";
  del.key = up.key;
  ASSERT_OK(db_->DeleteItem(del));
  r = QueryIndex("inverted", "SK = :s", MakeItem({{":s", S("FRIEND#Gandalf")}}));
  ASSERT_EQ(r.items.size(), 1u);

  auto d = db_->DescribeTable({"gtab"});
  ASSERT_OK(d);
  ASSERT_EQ(d->table.global_secondary_indexes.size(), 1u);
  EXPECT_EQ(d->table.global_secondary_indexes[0].item_count, 1);
  EXPECT_EQ(d->table.global_secondary_indexes[0].index_status, "ACTIVE");
  EXPECT_EQ(d->table.global_secondary_indexes[0].index_arn,
            "arn:aws:dynamodb:us-east-1:000000000000:table/gtab/index/inverted");
  EXPECT_EQ(d->table.item_count, 2);
}

TEST_F(IndexTest, WrongIndexKeyTypeIsRefused) {
  PutItemRequest put;
  put.table_name = "gtab";
  put.item = MakeItem({{"PK", S("a")}, {"SK", S("b")}, {"gsi0", N("5")}});
  EXPECT_ERROR(db_->PutItem(put), ErrorType::kValidation,
               "One or more parameter values were invalid: Type mismatch for Index Key gsi0 "
               "Expected: S Actual: N IndexName: inverted");
  EXPECT_FALSE(Get("gtab", MakeItem({{"PK", S("a")}, {"SK", S("b")}})).has_value());
}

TEST_F(IndexTest, LocalIndexPagingAndProjection) {
  for (int i = 0; i < 7; ++i) {
    Put("gtab", MakeItem({{"PK", S("p")}, {"SK", S("s" + std::to_string(i))}, {"created", N(std::to_string(100 - i))},
                       {"note", S("n")}, {"secret", S("z")}}));
  }
  QueryRequest req;
  req.table_name = "gtab";
  req.index_name = "by_created";
  req.key_condition_expression = "PK = :p AND created > :c";
  req.expression_attribute_values = MakeItem({{":p", S("p")}, {":c", N("94")}});
  req.has_expression_attribute_values = true;
  req.limit = 2;
  std::vector<std::string> order;
  for (int guard = 0; guard < 10; ++guard) {
    auto r = db_->Query(req);
    ASSERT_OK(r);
    for (const auto& item : r->items) {
      order.push_back(item.at("created").scalar());
      EXPECT_EQ(item.count("secret"), 0u);  // INCLUDE projects only "note"
      EXPECT_EQ(item.count("note"), 1u);
    }
    if (!r->last_evaluated_key) break;
    EXPECT_EQ(r->last_evaluated_key->size(), 3u);  // table keys + index sort key
    req.exclusive_start_key = r->last_evaluated_key;
  }
  EXPECT_EQ(order, (std::vector<std::string>{"95", "96", "97", "98", "99", "100"}));

  req.exclusive_start_key.reset();
  req.limit.reset();
  req.select = Select::kAllAttributes;  // an LSI fetches what it does not project
  auto all = db_->Query(req);
  ASSERT_OK(all);
  ASSERT_FALSE(all->items.empty());
  EXPECT_EQ(all->items[0].count("secret"), 1u);

  QueryRequest gsi_all = req;
  gsi_all.index_name = "inverted";
  gsi_all.key_condition_expression = "SK = :p";
  gsi_all.expression_attribute_values = MakeItem({{":p", S("s1")}});
  EXPECT_ERROR(db_->Query(gsi_all), ErrorType::kValidation, "is not supported for global secondary index inverted");
  gsi_all.select.reset();
  gsi_all.consistent_read = true;
  EXPECT_ERROR(db_->Query(gsi_all), ErrorType::kValidation, "Consistent reads are not supported on global secondary indexes");
  gsi_all.index_name = "nope";
  EXPECT_ERROR(db_->Query(gsi_all), ErrorType::kValidation, "The table does not have the specified index: nope");
}

TEST_F(DBTest, OnlineIndexCreationMissesNoConcurrentWrite) {
  CreateTable("live", "id", AttrType::kS);
  for (int i = 0; i < 3000; ++i) {
    Put("live", MakeItem({{"id", S("i" + std::to_string(i))}, {"color", S(i % 2 ? "red" : "blue")}}));
  }
  // Writers change colours while the index is created and backfilled.
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    for (int n = 0; !stop; ++n) {
      PutItemRequest put;
      put.table_name = "live";
      put.item = MakeItem({{"id", S("i" + std::to_string(n % 4000))},
                           {"color", S(n % 3 ? "green" : "red")}});
      ASSERT_TRUE(db_->PutItem(put).ok());
    }
  });
  UpdateTableRequest up = CreateGsiRequest(
      "live", "by_color", {{"color", KeyType::kHash}, {"id", KeyType::kRange}}, {{"color", AttrType::kS}});
  auto r = db_->UpdateTable(up);
  ASSERT_OK(r);
  ASSERT_EQ(r->table_description.global_secondary_indexes.size(), 1u);
  EXPECT_EQ(r->table_description.global_secondary_indexes[0].index_status, "CREATING");
  EXPECT_TRUE(r->table_description.global_secondary_indexes[0].backfilling.value_or(false));
  // A second online index change at the same time is refused.
  up.global_secondary_index_updates[0].create->index_name = "other";
  auto second = db_->UpdateTable(up);
  if (!second.ok()) {
    EXPECT_EQ(second.status().type(), ErrorType::kLimitExceeded);
  }

  std::string status;
  for (int i = 0; i < 500 && status != "ACTIVE"; ++i) {
    auto d = db_->DescribeTable({"live"});
    ASSERT_OK(d);
    for (const auto& ix : d->table.global_secondary_indexes)
      if (ix.index_name == "by_color") status = ix.index_status;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  stop = true;
  writer.join();
  ASSERT_EQ(status, "ACTIVE");
  auto report = db_->CheckConsistency();
  ASSERT_OK(report);
  EXPECT_TRUE(report->ok()) << report->differences.size() << " differences, first: "
                            << report->differences[0];
  EXPECT_GE(report->index_entries, 3000);

  QueryRequest q;
  q.table_name = "live";
  q.index_name = "by_color";
  q.key_condition_expression = "color = :c";
  q.expression_attribute_values = MakeItem({{":c", S("blue")}});
  q.has_expression_attribute_values = true;
  q.select = Select::kCount;
  ASSERT_OK(db_->Query(q));

  // Deleting the index removes it and its entries.
  UpdateTableRequest del;
  del.table_name = "live";
  GlobalSecondaryIndexUpdate drop;
  drop.delete_index_name = "by_color";
  del.global_secondary_index_updates = {drop};
  ASSERT_OK(db_->UpdateTable(del));
  EXPECT_ERROR(db_->Query(q), ErrorType::kValidation, "The table does not have the specified index");
  report = db_->CheckConsistency();
  ASSERT_OK(report);
  EXPECT_TRUE(report->ok());
  drop.delete_index_name = "by_color";
  del.global_secondary_index_updates = {drop};
  EXPECT_ERROR(db_->UpdateTable(del), ErrorType::kResourceNotFound, "by_color");
}

TEST_F(IndexTest, CheckConsistencyPassesAfterMixedWrites) {
  for (int i = 0; i < 50; ++i) {
    Put("gtab", MakeItem({{"PK", S("p" + std::to_string(i % 7))}, {"SK", S("s" + std::to_string(i))},
                          {"gsi0", S("r" + std::to_string(i % 3))}, {"created", N(std::to_string(i))},
                          {"note", S("n")}}));
  }
  for (int i = 0; i < 50; i += 3) {
    DeleteItemRequest del;
    del.table_name = "gtab";
    del.key = MakeItem({{"PK", S("p" + std::to_string(i % 7))}, {"SK", S("s" + std::to_string(i))}});
    ASSERT_OK(db_->DeleteItem(del));
  }
  auto report = db_->CheckConsistency();
  ASSERT_OK(report);
  EXPECT_TRUE(report->ok()) << report->differences[0];
  EXPECT_EQ(report->items, 33);
  EXPECT_EQ(report->index_entries, 33 * 2);
}

// A GSI keyed by two HASH and two RANGE attributes survives a reopen (its key
// schema is in the catalog), keeps its entries consistent with the table, and
// answers queries in the sort attributes' order after it.
TEST(MultiAttributeIndex, SurvivesReopenAndStaysConsistent) {
  auto dir = std::filesystem::temp_directory_path() /
             ("dynarock_multikey_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  auto query = [](DB* db) {
    QueryRequest q;
    q.table_name = "orders";
    q.index_name = "by_shop";
    q.key_condition_expression = "shop = :s AND area = :r AND dow = :d AND amount > :a";
    q.expression_attribute_values = MakeItem({{":s", S("s1")}, {":r", N("2")}, {":d", S("mon")},
                                              {":a", N("-3")}});
    q.has_expression_attribute_values = true;
    auto r = db->Query(q);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::vector<std::string> ids;
    if (r.ok()) for (const auto& it : r->items) ids.push_back(it.at("id").scalar());
    return ids;
  };
  std::vector<std::string> want;
  {
    auto db = DB::Open(Options(), dir.string());
    ASSERT_OK(db);
    CreateTableRequest req;
    req.table_name = "orders";
    req.billing_mode = "PAY_PER_REQUEST";
    req.attribute_definitions = {{"id", AttrType::kS}, {"shop", AttrType::kS},
                                 {"area", AttrType::kN}, {"dow", AttrType::kS},
                                 {"amount", AttrType::kN}};
    req.key_schema = {{"id", KeyType::kHash}};
    GlobalSecondaryIndex g;
    g.index_name = "by_shop";
    g.key_schema = {{"shop", KeyType::kHash}, {"area", KeyType::kHash},
                    {"dow", KeyType::kRange}, {"amount", KeyType::kRange}};
    g.projection.projection_type = ProjectionType::kAll;
    req.global_secondary_indexes = {g};
    ASSERT_OK((*db)->CreateTable(req));
    // amount descends with i, so the index order is the reverse of the ids'.
    for (int i = 0; i < 40; ++i) {
      Item it = MakeItem({{"id", S("o" + std::to_string(100 + i))}, {"shop", S("s" + std::to_string(i % 2))},
                          {"area", N(std::to_string(i % 3))}, {"dow", S(i % 4 ? "mon" : "tue")},
                          {"amount", N(std::to_string(20 - i))}});
      PutItemRequest put;
      put.table_name = "orders";
      put.item = it;
      ASSERT_OK((*db)->PutItem(put));
    }
    for (int i = 39; i >= 0; --i) {
      if (i % 2 == 1 && i % 3 == 2 && i % 4 != 0 && 20 - i > -3) want.push_back("o" + std::to_string(100 + i));
    }
    EXPECT_EQ(query(db->get()), want);
    ASSERT_FALSE(want.empty());
    DeleteItemRequest del;
    del.table_name = "orders";
    del.key = MakeItem({{"id", S(want.front())}});
    ASSERT_OK((*db)->DeleteItem(del));
    want.erase(want.begin());
  }
  {
    auto db = DB::Open(Options(), dir.string());
    ASSERT_OK(db);
    auto d = (*db)->DescribeTable({"orders"});
    ASSERT_OK(d);
    ASSERT_EQ(d->table.global_secondary_indexes.size(), 1u);
    const auto& ks = d->table.global_secondary_indexes[0].key_schema;
    ASSERT_EQ(ks.size(), 4u);
    EXPECT_EQ(ks[1].attribute_name, "area");
    EXPECT_EQ(ks[1].key_type, KeyType::kHash);
    EXPECT_EQ(ks[3].attribute_name, "amount");
    EXPECT_EQ(query(db->get()), want);
    auto report = (*db)->CheckConsistency();
    ASSERT_OK(report);
    EXPECT_TRUE(report->ok()) << report->differences[0];
    EXPECT_EQ(report->index_entries, 39);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace dynarock::testing
