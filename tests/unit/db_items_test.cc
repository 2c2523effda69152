// Pins PutItem, GetItem, DeleteItem and UpdateItem on the embedded API: key
// validation and its messages, limits, number normalisation, conditional writes
// and ReturnValues.

#include <thread>

#include "tests/unit/testutil.h"

namespace dynarock::testing {
namespace {

class ItemsTest : public DBTest {
 protected:
  void SetUp() override {
    DBTest::SetUp();
    CreateTable("tab", "pk", AttrType::kS, "sk", AttrType::kN);
  }
  PutItemRequest PutReq(Item item) {
    PutItemRequest req;
    req.table_name = "tab";
    req.item = std::move(item);
    return req;
  }
};

TEST_F(ItemsTest, RoundTripsAllTypesAndNormalisesNumbers) {
  Item item = MakeItem({{"pk", S("a")},
                        {"sk", N("01.500")},
                        {"n", N("1E+2")},
                        {"neg", N("-0")},
                        {"b", B(std::string("\x00\xff", 2))},
                        {"t", AttributeValue::Bool(true)},
                        {"z", AttributeValue::Null()},
                        {"l", AttributeValue::L({S("x"), N("2")})},
                        {"m", AttributeValue::M(MakeItem({{"k", S("v")}}))},
                        {"ss", AttributeValue::SS({"b", "a"})},
                        {"ns", AttributeValue::NS({"10", "1.0", "2E0"})},
                        {"bs", AttributeValue::BS({"x"})}});
  Put("tab", item);
  auto got = Get("tab", MakeItem({{"pk", S("a")}, {"sk", N("1.5")}}));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->at("sk"), N("1.5"));
  EXPECT_EQ(got->at("n"), N("100"));
  EXPECT_EQ(got->at("neg"), N("0"));
  EXPECT_EQ(got->at("b").scalar(), std::string("\x00\xff", 2));
  EXPECT_EQ(got->at("ns"), AttributeValue::NS({"1", "10", "2"}));
  EXPECT_EQ(got->at("m"), item.at("m"));
  EXPECT_EQ(got->at("l"), item.at("l"));
  EXPECT_EQ(got->size(), item.size());
}

// PutItem(PutItemRequest&&) takes the request's item into the write: the
// same item is stored, normalised, as by the copying form; a request refused
// before its item is read (a bad table name) leaves the item where it was,
// and one refused after it (a missing key) answers as the copying form does.
TEST_F(ItemsTest, PutItemTakingTheItemWritesTheSameItem) {
  PutItemRequest moved = PutReq(MakeItem({{"pk", S("m")}, {"sk", N("2.50")}, {"v", N("1E+1")}}));
  ASSERT_OK(db_->PutItem(std::move(moved)));
  EXPECT_TRUE(moved.item.empty());  // NOLINT(bugprone-use-after-move): taken, not copied
  auto got = Get("tab", MakeItem({{"pk", S("m")}, {"sk", N("2.5")}}));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->at("v"), N("10"));
  EXPECT_EQ(got->size(), 3u);

  PutItemRequest bad = PutReq(MakeItem({{"pk", S("m")}, {"sk", N("1")}}));
  bad.table_name = "x";  // too short a name: refused before the item
  EXPECT_EQ(db_->PutItem(std::move(bad)).status().type(), ErrorType::kValidation);
  EXPECT_EQ(bad.item.size(), 2u);  // NOLINT(bugprone-use-after-move): not taken

  PutItemRequest keyless = PutReq(MakeItem({{"pk", S("m")}}));
  PutItemRequest copy = keyless;
  auto a = db_->PutItem(copy);
  auto b = db_->PutItem(std::move(keyless));
  ASSERT_FALSE(a.ok());
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(a.status().type(), b.status().type());
  EXPECT_EQ(a.status().message(), b.status().message());
}

// The copying form reads the request's item where it is: the caller's item
// stays as sent, the stored one is normalised, and an item already normal is
// stored as it is.
TEST_F(ItemsTest, PutItemLeavesTheRequestsItemAsSent) {
  const PutItemRequest odd =
      PutReq(MakeItem({{"pk", S("c")}, {"sk", N("3.0")}, {"m", AttributeValue::M(MakeItem({{"x", N("1E1")}}))}}));
  const Item as_sent = odd.item;
  ASSERT_OK(db_->PutItem(odd));
  EXPECT_EQ(odd.item, as_sent);
  auto got = Get("tab", MakeItem({{"pk", S("c")}, {"sk", N("3")}}));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->at("m"), AttributeValue::M(MakeItem({{"x", N("10")}})));

  const PutItemRequest plain = PutReq(MakeItem({{"pk", S("c")}, {"sk", N("4")}, {"v", S("x")}}));
  ASSERT_OK(db_->PutItem(plain));
  EXPECT_EQ(Get("tab", MakeItem({{"pk", S("c")}, {"sk", N("4")}})), plain.item);
}

// A key given with its number spelled otherwise ("30.0", "3E1") finds the
// item stored under "30", for GetItem, UpdateItem and DeleteItem alike; an
// UpdateItem that creates its item stores the key's normal form ("4E1" as
// "40"); each request's key is left as it was sent.
TEST_F(ItemsTest, KeysWithNumbersSpelledOtherwiseFindTheItem) {
  ASSERT_OK(db_->PutItem(PutReq(MakeItem({{"pk", S("k")}, {"sk", N("30")}, {"v", N("1")}}))));
  GetItemRequest get;
  get.table_name = "tab";
  get.key = MakeItem({{"pk", S("k")}, {"sk", N("30.0")}});
  const Item get_key = get.key;
  auto got = db_->GetItem(get);
  ASSERT_OK(got);
  ASSERT_TRUE(got->item.has_value());
  EXPECT_EQ(got->item->at("v"), N("1"));
  EXPECT_EQ(get.key, get_key);

  UpdateItemRequest update;
  update.table_name = "tab";
  update.key = MakeItem({{"pk", S("k")}, {"sk", N("3E1")}});
  update.update_expression = "SET v = :v";
  update.expression_attribute_values = MakeItem({{":v", N("2")}});
  update.has_expression_attribute_values = true;
  const Item update_key = update.key;
  ASSERT_OK(db_->UpdateItem(update));
  EXPECT_EQ(update.key, update_key);
  auto updated = Get("tab", MakeItem({{"pk", S("k")}, {"sk", N("30")}}));
  ASSERT_TRUE(updated.has_value());
  EXPECT_EQ(updated->at("v"), N("2"));
  EXPECT_EQ(updated->at("sk"), N("30"));
  // An update that creates its item stores the key in its normal form.
  update.key = MakeItem({{"pk", S("k")}, {"sk", N("4E1")}});
  ASSERT_OK(db_->UpdateItem(update));
  auto created = Get("tab", MakeItem({{"pk", S("k")}, {"sk", N("40")}}));
  ASSERT_TRUE(created.has_value());
  EXPECT_EQ(created->at("sk"), N("40"));

  DeleteItemRequest del;
  del.table_name = "tab";
  del.key = MakeItem({{"pk", S("k")}, {"sk", N("030.00")}});
  const Item del_key = del.key;
  ASSERT_OK(db_->DeleteItem(del));
  EXPECT_EQ(del.key, del_key);
  EXPECT_FALSE(Get("tab", MakeItem({{"pk", S("k")}, {"sk", N("30")}})).has_value());
  // A key that is no number is refused as before.
  get.key = MakeItem({{"pk", S("k")}, {"sk", N("3x")}});
  EXPECT_ERROR(db_->GetItem(get), ErrorType::kValidation, "The parameter cannot be converted");
}

TEST_F(ItemsTest, KeyValidation) {
  EXPECT_ERROR(db_->PutItem(PutReq(MakeItem({{"sk", N("1")}}))), ErrorType::kValidation,
               "One or more parameter values were invalid: Missing the key pk in the item");
  EXPECT_ERROR(db_->PutItem(PutReq(MakeItem({{"pk", N("1")}, {"sk", N("1")}}))),
               ErrorType::kValidation,
               "One or more parameter values were invalid: Type mismatch for key pk expected: S "
               "actual: N");
  EXPECT_ERROR(db_->PutItem(PutReq(MakeItem({{"pk", S("")}, {"sk", N("1")}}))),
               ErrorType::kValidation,
               "One or more parameter values are not valid. The AttributeValue for a key "
               "attribute cannot contain an empty string value. Key: pk");
  EXPECT_ERROR(db_->PutItem(PutReq(MakeItem({{"pk", S(std::string(2049, 'x'))}, {"sk", N("1")}}))),
               ErrorType::kValidation, "Size of hashkey has exceeded the maximum size limit of2048 bytes");
  EXPECT_ERROR(db_->PutItem(PutReq(MakeItem({{"pk", S("a")}, {"sk", N("1")}, {"big", S(std::string(410000, 'x'))}}))),
               ErrorType::kValidation, "Item size has exceeded the maximum allowed size");

  GetItemRequest get;
  get.table_name = "tab";
  get.key = MakeItem({{"pk", S("a")}});
  EXPECT_ERROR(db_->GetItem(get), ErrorType::kValidation,
               "The provided key element does not match the schema");
  get.key = MakeItem({{"pk", S("a")}, {"sk", N("1")}, {"extra", S("x")}});
  EXPECT_ERROR(db_->GetItem(get), ErrorType::kValidation,
               "The provided key element does not match the schema");
  get.key = MakeItem({{"pk", S("a")}, {"sk", S("1")}});
  EXPECT_ERROR(db_->GetItem(get), ErrorType::kValidation,
               "The provided key element does not match the schema");
  get.table_name = "missing";
  get.key = MakeItem({{"pk", S("a")}, {"sk", N("1")}});
  EXPECT_ERROR(db_->GetItem(get), ErrorType::kResourceNotFound, "Requested resource not found");
}

TEST_F(ItemsTest, ValueValidation) {
  EXPECT_ERROR(db_->PutItem(PutReq(MakeItem({{"pk", S("a")}, {"sk", N("1")}, {"s", AttributeValue::SS({})}}))),
               ErrorType::kValidation, "may not be empty");
  EXPECT_ERROR(db_->PutItem(PutReq(MakeItem({{"pk", S("a")}, {"sk", N("1")}, {"s", AttributeValue::SS({"a", "a"})}}))),
               ErrorType::kValidation, "contains duplicates");
  EXPECT_ERROR(db_->PutItem(PutReq(MakeItem({{"pk", S("a")}, {"sk", N("1")}, {"n", N("1" + std::string(38, '1'))}}))),
               ErrorType::kValidation, "Attempting to store more than 38 significant digits in a Number");
  EXPECT_ERROR(db_->PutItem(PutReq(MakeItem({{"pk", S("a")}, {"sk", N("abc")}}))),
               ErrorType::kValidation, "The parameter cannot be converted to a numeric value");
  AttributeValue deep = S("leaf");
  for (int i = 0; i < 33; ++i) deep = AttributeValue::L({deep});
  EXPECT_ERROR(db_->PutItem(PutReq(MakeItem({{"pk", S("a")}, {"sk", N("1")}, {"d", deep}}))),
               ErrorType::kValidation, "Nesting Levels have exceeded supported limits");
  // Nothing was written by any of the rejected requests.
  auto d = db_->DescribeTable({"tab"});
  EXPECT_EQ(d->table.item_count, 0);
}

TEST_F(ItemsTest, ConditionalPutAndReturnValues) {
  PutItemRequest req = PutReq(MakeItem({{"pk", S("a")}, {"sk", N("1")}, {"v", N("1")}}));
  req.condition_expression = "attribute_not_exists(pk)";
  ASSERT_OK(db_->PutItem(req));
  req.item["v"] = N("2");
  req.return_values_on_condition_check_failure_all_old = true;
  auto failed = db_->PutItem(req);
  EXPECT_EQ(failed.status().type(), ErrorType::kConditionalCheckFailed);
  EXPECT_EQ(failed.status().message(), "The conditional request failed");
  ASSERT_TRUE(failed.status().item().has_value());
  EXPECT_EQ(failed.status().item()->at("v"), N("1"));

  PutItemRequest overwrite = PutReq(MakeItem({{"pk", S("a")}, {"sk", N("1")}, {"v", N("3")}}));
  overwrite.return_values = ReturnValue::kAllOld;
  auto r = db_->PutItem(overwrite);
  ASSERT_OK(r);
  ASSERT_TRUE(r->attributes.has_value());
  EXPECT_EQ(r->attributes->at("v"), N("1"));

  overwrite.return_values = ReturnValue::kAllNew;
  EXPECT_ERROR(db_->PutItem(overwrite), ErrorType::kValidation, "ReturnValues can only be ALL_OLD or NONE");

  DeleteItemRequest del;
  del.table_name = "tab";
  del.key = MakeItem({{"pk", S("a")}, {"sk", N("1")}});
  del.condition_expression = "v = :v";
  del.expression_attribute_values[":v"] = N("99");
  del.has_expression_attribute_values = true;
  EXPECT_ERROR(db_->DeleteItem(del), ErrorType::kConditionalCheckFailed, "conditional request failed");
  del.expression_attribute_values[":v"] = N("3");
  del.return_values = ReturnValue::kAllOld;
  auto deleted = db_->DeleteItem(del);
  ASSERT_OK(deleted);
  EXPECT_EQ(deleted->attributes->at("v"), N("3"));
  EXPECT_FALSE(Get("tab", MakeItem({{"pk", S("a")}, {"sk", N("1")}})).has_value());
}

TEST_F(ItemsTest, UpdateItemCreatesAndReturnsValues) {
  UpdateItemRequest req;
  req.table_name = "tab";
  req.key = MakeItem({{"pk", S("u")}, {"sk", N("1")}});
  req.update_expression = "SET a = :a, c = :c ADD n :one";
  req.expression_attribute_values = MakeItem({{":a", S("x")}, {":c", N("0.1")}, {":one", N("1")}});
  req.has_expression_attribute_values = true;
  req.return_values = ReturnValue::kAllNew;
  auto r = db_->UpdateItem(req);
  ASSERT_OK(r);
  EXPECT_EQ(r->attributes->at("n"), N("1"));
  EXPECT_EQ(r->attributes->at("pk"), S("u"));

  req.update_expression = "SET c = c + :c ADD n :one";
  req.expression_attribute_values = MakeItem({{":c", N("0.2")}, {":one", N("1")}});
  req.return_values = ReturnValue::kUpdatedNew;
  r = db_->UpdateItem(req);
  ASSERT_OK(r);
  EXPECT_EQ(r->attributes->size(), 2u);
  EXPECT_EQ(r->attributes->at("c"), N("0.3"));  // exact decimal arithmetic
  EXPECT_EQ(r->attributes->at("n"), N("2"));

  req.return_values = ReturnValue::kUpdatedOld;
  r = db_->UpdateItem(req);
  ASSERT_OK(r);
  EXPECT_EQ(r->attributes->at("c"), N("0.3"));

  req.update_expression = "SET pk = :a";
  req.expression_attribute_values = MakeItem({{":a", S("x")}});
  EXPECT_ERROR(db_->UpdateItem(req), ErrorType::kValidation,
               "Cannot update attribute pk. This attribute is part of the key");

  req.update_expression = "SET a = :a";
  req.expression_attribute_values = MakeItem({{":a", S("x")}, {":unused", S("y")}});
  EXPECT_ERROR(db_->UpdateItem(req), ErrorType::kValidation,
               "Value provided in ExpressionAttributeValues unused in expressions: keys: {:unused}");

  req.expression_attribute_values = MakeItem({{":a", S("x")}});
  req.attribute_updates["x"] = AttributeValueUpdate{S("y"), "PUT"};
  req.has_attribute_updates = true;
  EXPECT_ERROR(db_->UpdateItem(req), ErrorType::kValidation,
               "Can not use both expression and non-expression parameters in the same request");
}

TEST_F(ItemsTest, ConcurrentConditionalIncrementsAreExact) {
  Put("tab", MakeItem({{"pk", S("counter")}, {"sk", N("0")}, {"n", N("0")}}));
  constexpr int kThreads = 4, kPerThread = 200;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kPerThread; ++i) {
        UpdateItemRequest req;
        req.table_name = "tab";
        req.key = MakeItem({{"pk", S("counter")}, {"sk", N("0")}});
        req.update_expression = "SET n = n + :one";
        req.condition_expression = "attribute_exists(n)";
        req.expression_attribute_values = MakeItem({{":one", N("1")}});
        req.has_expression_attribute_values = true;
        ASSERT_TRUE(db_->UpdateItem(req).ok());
      }
    });
  }
  for (auto& th : threads) th.join();
  auto got = Get("tab", MakeItem({{"pk", S("counter")}, {"sk", N("0")}}));
  EXPECT_EQ(got->at("n"), N(std::to_string(kThreads * kPerThread)));
}

// Checkpoints deleted by prefix: only the names under it, in one commit,
// counted; an empty prefix is refused and nothing is deleted.
TEST_F(DBTest, CheckpointsAreDeletedByPrefix) {
  for (const char* name : {"g/t1/a", "g/t1/b", "g/t10/a", "g/t2/a", "other"}) {
    ASSERT_TRUE(db_->SaveCheckpoint(name, "v").ok());
  }
  EXPECT_ERROR(db_->DeleteCheckpoints(""), ErrorType::kValidation,
               "A checkpoint name has 1 to 1024 characters");
  ASSERT_TRUE(db_->LoadCheckpoint("other")->has_value());
  auto deleted = db_->DeleteCheckpoints("g/t1/");
  ASSERT_OK(deleted);
  EXPECT_EQ(*deleted, 2u);
  EXPECT_FALSE(db_->LoadCheckpoint("g/t1/a")->has_value());
  EXPECT_FALSE(db_->LoadCheckpoint("g/t1/b")->has_value());
  EXPECT_TRUE(db_->LoadCheckpoint("g/t10/a")->has_value());
  EXPECT_TRUE(db_->LoadCheckpoint("g/t2/a")->has_value());
  EXPECT_EQ(*db_->DeleteCheckpoints("g/t1/"), 0u);
}

}  // namespace
}  // namespace dynarock::testing
