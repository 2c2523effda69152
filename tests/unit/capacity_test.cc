// Pins consumed capacity as DynamoDB bills it, using the worked examples of the
// Developer Guide ("Read/write capacity mode", "Item sizes and formats"): 4 KB
// read units rounded per item for GetItem/BatchGetItem and per request for
// Query/Scan, eventual consistency at half, 1 KB write units on the larger of the
// old and new item, per-index write units of 0, 1 or 2, transactions doubled.

#include "engine/capacity.h"
#include "tests/unit/testutil.h"

namespace dynarock::testing {
namespace {

// An item of about `bytes` bytes (attribute names and values counted).
Item Sized(const std::string& id, size_t bytes, Item extra = {}) {
  Item item = MakeItem({{"id", S(id)}});
  size_t used = 2 + id.size() + 4;  // "id" + value + "pad"
  for (const auto& [k, v] : extra) used += k.size() + v.scalar().size();
  item["pad"] = S(std::string(bytes > used ? bytes - used : 1, 'x'));
  for (auto& [k, v] : extra) item[k] = v;
  return item;
}

TEST(Capacity, Units) {
  EXPECT_EQ(ReadUnits(0, true), 1);
  EXPECT_EQ(ReadUnits(3584, true), 1);      // 3.5 KB
  EXPECT_EQ(ReadUnits(3584, false), 0.5);
  EXPECT_EQ(ReadUnits(10 * 1024, true), 3);  // 10 KB -> 2.5 -> 3
  EXPECT_EQ(ReadUnits(4096, true), 1);
  EXPECT_EQ(ReadUnits(4097, true), 2);
  EXPECT_EQ(WriteUnits(0), 1);
  EXPECT_EQ(WriteUnits(1536), 2);  // 1.5 KB
  EXPECT_EQ(WriteUnits(1024), 1);
}

class CapacityTest : public DBTest {
 protected:
  void SetUp() override {
    DBTest::SetUp();
    CreateTableRequest req;
    req.table_name = "cap";
    req.billing_mode = "PAY_PER_REQUEST";
    req.attribute_definitions = {{"id", AttrType::kS}, {"g", AttrType::kS}};
    req.key_schema = {{"id", KeyType::kHash}};
    GlobalSecondaryIndex gsi;
    gsi.index_name = "by_g";
    gsi.key_schema = {{"g", KeyType::kHash}};
    gsi.projection.projection_type = ProjectionType::kKeysOnly;
    req.global_secondary_indexes = {gsi};
    ASSERT_TRUE(db_->CreateTable(req).ok());
  }
  ConsumedCapacity PutWith(Item item, ReturnConsumedCapacity mode = ReturnConsumedCapacity::kIndexes) {
    PutItemRequest put;
    put.table_name = "cap";
    put.item = std::move(item);
    put.return_consumed_capacity = mode;
    auto r = db_->PutItem(put);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() && r->consumed_capacity ? *r->consumed_capacity : ConsumedCapacity();
  }
};

TEST_F(CapacityTest, GetItemRoundsPerItemAndHalvesEventualReads) {
  PutWith(Sized("a", 3584));
  GetItemRequest get;
  get.table_name = "cap";
  get.key = MakeItem({{"id", S("a")}});
  get.return_consumed_capacity = ReturnConsumedCapacity::kTotal;
  auto r = db_->GetItem(get);
  ASSERT_OK(r);
  ASSERT_TRUE(r->consumed_capacity.has_value());
  EXPECT_EQ(r->consumed_capacity->table_name, "cap");
  EXPECT_EQ(r->consumed_capacity->capacity_units, 0.5);
  EXPECT_FALSE(r->consumed_capacity->read_capacity_units.has_value());  // transactions only
  EXPECT_FALSE(r->consumed_capacity->table.has_value());  // TOTAL has no breakdown
  get.consistent_read = true;
  EXPECT_EQ(db_->GetItem(get)->consumed_capacity->capacity_units, 1);
  // A projection does not make a read cheaper; a missing item costs the minimum.
  PutWith(Sized("big", 10 * 1024));
  get.key = MakeItem({{"id", S("big")}});
  get.projection_expression = "id";
  EXPECT_EQ(db_->GetItem(get)->consumed_capacity->capacity_units, 3);
  get.key = MakeItem({{"id", S("nobody")}});
  EXPECT_EQ(db_->GetItem(get)->consumed_capacity->capacity_units, 1);
  get.return_consumed_capacity = ReturnConsumedCapacity::kNone;
  EXPECT_FALSE(db_->GetItem(get)->consumed_capacity.has_value());
}

TEST_F(CapacityTest, WritesBillTheLargerItemAndEachIndex) {
  // New item with an index key: 2 KB -> 2 units on the table, 1 on the index.
  auto c = PutWith(Sized("w", 2048, MakeItem({{"g", S("x")}})));
  EXPECT_EQ(c.table->capacity_units, 2);
  ASSERT_EQ(c.global_secondary_indexes.count("by_g"), 1u);
  EXPECT_EQ(c.global_secondary_indexes.at("by_g").capacity_units, 1);
  EXPECT_EQ(c.capacity_units, 3);
  EXPECT_FALSE(c.write_capacity_units.has_value());
  // Shrinking it to 100 bytes is billed on the old 2 KB; the KEYS_ONLY entry is
  // unchanged, so the index costs nothing.
  c = PutWith(Sized("w", 100, MakeItem({{"g", S("x")}})));
  EXPECT_EQ(c.table->capacity_units, 2);
  EXPECT_EQ(c.global_secondary_indexes.count("by_g"), 0u);
  // Changing the index key deletes one entry and writes another: 2 units.
  c = PutWith(Sized("w", 100, MakeItem({{"g", S("y")}})));
  EXPECT_EQ(c.global_secondary_indexes.at("by_g").capacity_units, 2);
  // Deleting a missing item still costs one unit.
  DeleteItemRequest del;
  del.table_name = "cap";
  del.key = MakeItem({{"id", S("nobody")}});
  del.return_consumed_capacity = ReturnConsumedCapacity::kTotal;
  auto d = db_->DeleteItem(del);
  ASSERT_OK(d);
  EXPECT_EQ(d->consumed_capacity->capacity_units, 1);
}

// A table without indexes or a stream: an unconditional PutItem or DeleteItem
// knows the old item by the size in its header, without decoding it. Units,
// statistics and ReturnValues must come out as with the item decoded.
TEST_F(DBTest, WritesWithoutIndexesBillAndCountTheOldItemBySize) {
  CreateTableRequest create;
  create.table_name = "plain";
  create.billing_mode = "PAY_PER_REQUEST";
  create.attribute_definitions = {{"id", AttrType::kS}};
  create.key_schema = {{"id", KeyType::kHash}};
  ASSERT_OK(db_->CreateTable(create));
  auto put = [&](const std::string& id, size_t bytes, ReturnValue rv = ReturnValue::kNone) {
    PutItemRequest req;
    req.table_name = "plain";
    req.item = MakeItem({{"id", S(id)}, {"data", S(std::string(bytes, 'x'))}});
    req.return_consumed_capacity = ReturnConsumedCapacity::kTotal;
    req.return_values = rv;
    auto r = db_->PutItem(req);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : PutItemResponse();
  };
  EXPECT_EQ(put("a", 3000).consumed_capacity->capacity_units, 3);
  // Shrinking: billed on the old ~3 KB, which was not decoded.
  EXPECT_EQ(put("a", 10).consumed_capacity->capacity_units, 3);
  EXPECT_EQ(put("a", 20).consumed_capacity->capacity_units, 1);
  put("b", 500);
  auto described = db_->DescribeTable({"plain"});
  ASSERT_OK(described);
  EXPECT_EQ(described->table.item_count, 2);
  const int64_t a_size = 2 + 1 + 4 + 20, b_size = 2 + 1 + 4 + 500;  // "id" "a", "data" ...
  EXPECT_EQ(described->table.table_size_bytes, a_size + b_size);
  // ALL_OLD still returns the old item.
  auto r = put("b", 7, ReturnValue::kAllOld);
  ASSERT_TRUE(r.attributes.has_value());
  EXPECT_EQ(r.attributes->at("data").scalar().size(), 500u);
  DeleteItemRequest del;
  del.table_name = "plain";
  del.key = MakeItem({{"id", S("a")}});
  del.return_consumed_capacity = ReturnConsumedCapacity::kTotal;
  auto d = db_->DeleteItem(del);
  ASSERT_OK(d);
  EXPECT_EQ(d->consumed_capacity->capacity_units, 1);
  EXPECT_FALSE(d->attributes.has_value());
  described = db_->DescribeTable({"plain"});
  ASSERT_OK(described);
  EXPECT_EQ(described->table.item_count, 1);
  EXPECT_EQ(described->table.table_size_bytes, 2 + 1 + 4 + 7);
}

TEST_F(CapacityTest, QueryRoundsOncePerRequestOnItemsEvaluated) {
  CreateTable("qcap", "pk", AttrType::kS, "sk", AttrType::kN);
  // Ten items of about 4.08 KB: 40.8 KB read -> 11 units strong, 5.5 eventual.
  for (int i = 0; i < 10; ++i) {
    Item item = MakeItem({{"pk", S("p")}, {"sk", N(std::to_string(i))}});
    item["pad"] = S(std::string(4178 - 2 - 1 - 2 - 2 - 3, 'x'));
    Put("qcap", item);
  }
  QueryRequest q;
  q.table_name = "qcap";
  q.key_condition_expression = "pk = :p";
  q.filter_expression = "attribute_exists(nothing) OR :none = :p";  // matches nothing: filters do not reduce the bill
  q.expression_attribute_values = MakeItem({{":p", S("p")}, {":none", N("100")}});
  q.has_expression_attribute_values = true;
  q.return_consumed_capacity = ReturnConsumedCapacity::kTotal;
  auto r = db_->Query(q);
  ASSERT_OK(r);
  EXPECT_EQ(r->count, 0);
  EXPECT_EQ(r->consumed_capacity->capacity_units, 5.5);
  q.consistent_read = true;
  EXPECT_EQ(db_->Query(q)->consumed_capacity->capacity_units, 11);

  // An index query is billed to the index.
  PutWith(Sized("i1", 100, MakeItem({{"g", S("k")}})));
  QueryRequest iq;
  iq.table_name = "cap";
  iq.index_name = "by_g";
  iq.key_condition_expression = "g = :g";
  iq.expression_attribute_values = MakeItem({{":g", S("k")}});
  iq.has_expression_attribute_values = true;
  iq.return_consumed_capacity = ReturnConsumedCapacity::kIndexes;
  auto ir = db_->Query(iq);
  ASSERT_OK(ir);
  EXPECT_EQ(ir->consumed_capacity->capacity_units, 0.5);
  EXPECT_EQ(ir->consumed_capacity->global_secondary_indexes.at("by_g").capacity_units, 0.5);
  EXPECT_EQ(ir->consumed_capacity->table->capacity_units, 0);
}

TEST_F(CapacityTest, BatchesAndTransactions) {
  PutWith(Sized("a", 3584));
  PutWith(Sized("b", 5000));
  BatchGetItemRequest bg;
  bg.request_items["cap"].keys = {MakeItem({{"id", S("a")}}), MakeItem({{"id", S("b")}}),
                                  MakeItem({{"id", S("zz")}})};
  bg.return_consumed_capacity = ReturnConsumedCapacity::kTotal;
  auto r = db_->BatchGetItem(bg);
  ASSERT_OK(r);
  ASSERT_EQ(r->consumed_capacity.size(), 1u);
  EXPECT_EQ(r->consumed_capacity[0].capacity_units, 0.5 + 1 + 0.5);  // per item, eventual

  TransactWriteItemsRequest tw;
  TransactWriteItem put;
  put.kind = TransactWriteItem::Kind::kPut;
  put.table_name = "cap";
  put.item = Sized("t", 500);
  tw.transact_items = {put};
  tw.return_consumed_capacity = ReturnConsumedCapacity::kTotal;
  auto t = db_->TransactWriteItems(tw);
  ASSERT_OK(t);
  ASSERT_EQ(t->consumed_capacity.size(), 1u);
  EXPECT_EQ(t->consumed_capacity[0].capacity_units, 2);  // 1 unit, doubled

  TransactGetItemsRequest tg;
  TransactGetItem g;
  g.table_name = "cap";
  g.key = MakeItem({{"id", S("b")}});
  tg.transact_items = {g};
  tg.return_consumed_capacity = ReturnConsumedCapacity::kTotal;
  auto tr = db_->TransactGetItems(tg);
  ASSERT_OK(tr);
  EXPECT_EQ(tr->consumed_capacity[0].capacity_units, 4);  // 5000 B -> 2 units, doubled

  BatchWriteItemRequest bw;
  WriteRequest w1, w2;
  w1.put_item = Sized("c", 1500);
  w2.delete_key = MakeItem({{"id", S("a")}});
  bw.request_items["cap"] = {w1, w2};
  bw.return_consumed_capacity = ReturnConsumedCapacity::kTotal;
  auto b = db_->BatchWriteItem(bw);
  ASSERT_OK(b);
  EXPECT_EQ(b->consumed_capacity[0].capacity_units, 2 + 4);  // 1.5 KB new + 3.5 KB deleted
}

}  // namespace
}  // namespace dynarock::testing

namespace dynarock::testing {
namespace {

TEST_F(DBTest, ItemCollectionMetricsForTablesWithLocalIndexes) {
  CreateTableRequest req;
  req.table_name = "lsi_metrics";
  req.billing_mode = "PAY_PER_REQUEST";
  req.attribute_definitions = {{"pk", AttrType::kS}, {"sk", AttrType::kS}, {"d", AttrType::kN}};
  req.key_schema = {{"pk", KeyType::kHash}, {"sk", KeyType::kRange}};
  LocalSecondaryIndex lsi;
  lsi.index_name = "by_d";
  lsi.key_schema = {{"pk", KeyType::kHash}, {"d", KeyType::kRange}};
  lsi.projection.projection_type = ProjectionType::kAll;
  req.local_secondary_indexes = {lsi};
  ASSERT_OK(db_->CreateTable(req));
  PutItemRequest put;
  put.table_name = "lsi_metrics";
  put.item = MakeItem({{"pk", S("p")}, {"sk", S("a")}, {"d", N("1")}});
  put.return_item_collection_metrics = true;
  auto r = db_->PutItem(put);
  ASSERT_OK(r);
  ASSERT_TRUE(r->item_collection_metrics.has_value());
  EXPECT_EQ(r->item_collection_metrics->item_collection_key.at("pk"), S("p"));
  EXPECT_EQ(r->item_collection_metrics->size_estimate_range_gb, (std::vector<double>{0, 1}));
  put.return_item_collection_metrics = false;
  EXPECT_FALSE(db_->PutItem(put)->item_collection_metrics.has_value());
  // A table without local indexes reports none.
  CreateTable("plain_metrics", "pk", AttrType::kS);
  put.table_name = "plain_metrics";
  put.item = MakeItem({{"pk", S("p")}});
  put.return_item_collection_metrics = true;
  EXPECT_FALSE(db_->PutItem(put)->item_collection_metrics.has_value());
}

}  // namespace
}  // namespace dynarock::testing
