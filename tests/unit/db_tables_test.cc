// Pins the table operations of the embedded API: CreateTable's validations and
// messages, DescribeTable's fields, ListTables' paging, DeleteTable, and the
// catalog surviving a reopen.

#include <filesystem>

#include "tests/unit/testutil.h"

namespace dynarock::testing {
namespace {

CreateTableRequest Simple(const std::string& name) {
  CreateTableRequest req;
  req.table_name = name;
  req.billing_mode = "PAY_PER_REQUEST";
  req.attribute_definitions = {{"pk", AttrType::kS}};
  req.key_schema = {{"pk", KeyType::kHash}};
  return req;
}

TEST_F(DBTest, CreateDescribeDelete) {
  CreateTableRequest req = Simple("people");
  req.attribute_definitions.push_back({"sk", AttrType::kN});
  req.key_schema.push_back({"sk", KeyType::kRange});
  auto created = db_->CreateTable(req);
  ASSERT_OK(created);
  EXPECT_EQ(created->table_description.table_status, "CREATING");
  EXPECT_EQ(created->table_description.table_arn,
            "arn:aws:dynamodb:us-east-1:000000000000:table/people");
  EXPECT_FALSE(created->table_description.table_id.empty());

  auto described = db_->DescribeTable({"people"});
  ASSERT_OK(described);
  EXPECT_EQ(described->table.table_status, "ACTIVE");
  EXPECT_EQ(described->table.key_schema.size(), 2u);
  EXPECT_EQ(described->table.billing_mode.value_or(""), "PAY_PER_REQUEST");
  EXPECT_GT(described->table.creation_date_time, 1.6e9);
  EXPECT_EQ(described->table.item_count, 0);

  Put("people", MakeItem({{"pk", S("a")}, {"sk", N("1")}, {"x", S("hello")}}));
  described = db_->DescribeTable({"people"});
  EXPECT_EQ(described->table.item_count, 1);
  // pk: 2 + 1, sk: 2 + (1 digit: 1 + 1), x: 1 + 5.
  EXPECT_EQ(described->table.table_size_bytes, 3 + 4 + 6);

  ASSERT_OK(db_->DeleteTable({"people"}));
  EXPECT_ERROR(db_->DescribeTable({"people"}), ErrorType::kResourceNotFound,
               "Requested resource not found: Table: people not found");
  EXPECT_ERROR(db_->DeleteTable({"people"}), ErrorType::kResourceNotFound, "not found");

  // A table of the same name starts empty: the old data went with the range delete.
  ASSERT_OK(db_->CreateTable(req));
  EXPECT_FALSE(Get("people", MakeItem({{"pk", S("a")}, {"sk", N("1")}})).has_value());
}

TEST_F(DBTest, CreateTableValidation) {
  EXPECT_ERROR(db_->CreateTable(Simple("ab")), ErrorType::kValidation,
               "1 validation error detected: Value 'ab' at 'tableName' failed to satisfy "
               "constraint: Member must have length greater than or equal to 3");
  EXPECT_ERROR(db_->CreateTable(Simple("a b!")), ErrorType::kValidation,
               "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+");
  EXPECT_ERROR(db_->CreateTable(Simple("x!")), ErrorType::kValidation,
               "2 validation errors detected");
  EXPECT_ERROR(db_->CreateTable(Simple(std::string(256, 'a'))), ErrorType::kValidation,
               "Member must have length less than or equal to 255");

  CreateTableRequest undefined = Simple("tbl");
  undefined.key_schema = {{"other", KeyType::kHash}};
  EXPECT_ERROR(db_->CreateTable(undefined), ErrorType::kValidation,
               "One or more parameter values were invalid: Some index key attributes are not "
               "defined in AttributeDefinitions. Keys: [other], AttributeDefinitions: [pk]");
  undefined.key_schema.push_back({"sk", KeyType::kRange});
  EXPECT_ERROR(db_->CreateTable(undefined), ErrorType::kValidation,
               "Invalid KeySchema: Some index key attribute have no definition");

  CreateTableRequest unused = Simple("tbl");
  unused.attribute_definitions.push_back({"extra", AttrType::kS});
  EXPECT_ERROR(db_->CreateTable(unused), ErrorType::kValidation,
               "Number of attributes in KeySchema does not exactly match number of attributes "
               "defined in AttributeDefinitions");

  CreateTableRequest provisioned = Simple("tbl");
  provisioned.billing_mode.reset();
  EXPECT_ERROR(db_->CreateTable(provisioned), ErrorType::kValidation,
               "ReadCapacityUnits and WriteCapacityUnits must both be specified");
  CreateTableRequest both = Simple("tbl");
  both.provisioned_throughput = ProvisionedThroughput{5, 5};
  EXPECT_ERROR(db_->CreateTable(both), ErrorType::kValidation,
               "Neither ReadCapacityUnits nor WriteCapacityUnits can be specified");

  CreateTableRequest range_first = Simple("tbl");
  range_first.key_schema[0].key_type = KeyType::kRange;
  EXPECT_ERROR(db_->CreateTable(range_first), ErrorType::kValidation, "not a HASH key type");

  ASSERT_OK(db_->CreateTable(Simple("tbl")));
  EXPECT_ERROR(db_->CreateTable(Simple("tbl")), ErrorType::kResourceInUse,
               "Table already exists: tbl");
  // Nothing of the failed attempts was created.
  auto list = db_->ListTables({});
  ASSERT_OK(list);
  EXPECT_EQ(list->table_names, std::vector<std::string>{"tbl"});
}

TEST_F(DBTest, ProvisionedThroughputIsEchoed) {
  CreateTableRequest req = Simple("prov");
  req.billing_mode.reset();
  req.provisioned_throughput = ProvisionedThroughput{7, 3};
  ASSERT_OK(db_->CreateTable(req));
  auto d = db_->DescribeTable({"prov"});
  ASSERT_OK(d);
  EXPECT_EQ(d->table.provisioned_throughput.read_capacity_units, 7);
  EXPECT_EQ(d->table.provisioned_throughput.write_capacity_units, 3);
  EXPECT_EQ(d->table.billing_mode.value_or(""), "PROVISIONED");
}

TEST_F(DBTest, ListTablesPages) {
  for (const char* name : {"delta", "alpha", "charlie", "bravo", "echo"}) {
    ASSERT_OK(db_->CreateTable(Simple(name)));
  }
  ListTablesRequest req;
  req.limit = 2;
  auto page = db_->ListTables(req);
  ASSERT_OK(page);
  EXPECT_EQ(page->table_names, (std::vector<std::string>{"alpha", "bravo"}));
  ASSERT_TRUE(page->last_evaluated_table_name.has_value());
  req.exclusive_start_table_name = page->last_evaluated_table_name;
  page = db_->ListTables(req);
  EXPECT_EQ(page->table_names, (std::vector<std::string>{"charlie", "delta"}));
  req.exclusive_start_table_name = page->last_evaluated_table_name;
  page = db_->ListTables(req);
  EXPECT_EQ(page->table_names, (std::vector<std::string>{"echo"}));
  EXPECT_FALSE(page->last_evaluated_table_name.has_value());

  req.limit = 0;
  EXPECT_ERROR(db_->ListTables(req), ErrorType::kValidation,
               "Member must have value greater than or equal to 1");
}

// UpdateTable's checks that need no table come before the table is looked up,
// as DynamoDB orders them: a malformed request on a missing table is a
// ValidationException, and nothing changes.
TEST_F(DBTest, UpdateTableChecksTheRequestBeforeTheTable) {
  UpdateTableRequest req;
  req.table_name = "missing_table";
  EXPECT_ERROR(db_->UpdateTable(req), ErrorType::kValidation, "At least one of ProvisionedThroughput");
  req.provisioned_throughput = ProvisionedThroughput{1000000000001, 1};
  EXPECT_ERROR(db_->UpdateTable(req), ErrorType::kValidation,
               "Given value 1000000000001 for ReadCapacityUnits is out of bounds");
  req.provisioned_throughput.reset();
  GlobalSecondaryIndexUpdate both;
  both.delete_index_name = "gsi";
  both.update = std::make_pair(std::string("gsi"), ProvisionedThroughput{1, 1});
  req.global_secondary_index_updates = {both};
  EXPECT_ERROR(db_->UpdateTable(req), ErrorType::kValidation,
               "Only one of GlobalSecondaryIndexUpdate.Update, GlobalSecondaryIndexUpdate.Create, "
               "GlobalSecondaryIndexUpdate.Delete may be set");
  req.global_secondary_index_updates = {GlobalSecondaryIndexUpdate{}};
  EXPECT_ERROR(db_->UpdateTable(req), ErrorType::kValidation, "must not be null");
  GlobalSecondaryIndexUpdate high;
  high.update = std::make_pair(std::string("gsi"), ProvisionedThroughput{1, 1000000000001});
  req.global_secondary_index_updates = {high};
  EXPECT_ERROR(db_->UpdateTable(req), ErrorType::kValidation,
               "Given value 1000000000001 for WriteCapacityUnits is out of bounds for index gsi");
  GlobalSecondaryIndexUpdate del;
  del.delete_index_name = "gsi";
  req.global_secondary_index_updates = {del, del};
  EXPECT_ERROR(db_->UpdateTable(req), ErrorType::kValidation,
               "Only one global secondary index update per index is allowed simultaneously. "
               "Index: gsi");
  // A well-formed request on the missing table: now the lookup answers.
  req.global_secondary_index_updates = {del};
  EXPECT_ERROR(db_->UpdateTable(req), ErrorType::kResourceNotFound, "missing_table");
}

TEST(DBPersistence, CatalogAndItemsSurviveReopen) {
  auto dir = std::filesystem::temp_directory_path() /
             ("dynarock_reopen_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  {
    auto db = DB::Open(Options(), dir.string());
    ASSERT_OK(db);
    ASSERT_OK((*db)->CreateTable(Simple("kept")));
    PutItemRequest put;
    put.table_name = "kept";
    put.item = MakeItem({{"pk", S("k1")}, {"v", N("42")}});
    ASSERT_OK((*db)->PutItem(put));
  }
  {
    auto db = DB::Open(Options(), dir.string());
    ASSERT_OK(db);
    auto d = (*db)->DescribeTable({"kept"});
    ASSERT_OK(d);
    EXPECT_EQ(d->table.item_count, 1);
    GetItemRequest get;
    get.table_name = "kept";
    get.key = MakeItem({{"pk", S("k1")}});
    auto got = (*db)->GetItem(get);
    ASSERT_OK(got);
    ASSERT_TRUE(got->item.has_value());
    EXPECT_EQ(got->item->at("v"), N("42"));
    // New tables get fresh ids: the next one does not see the first one's items.
    ASSERT_OK((*db)->CreateTable(Simple("second")));
    get.table_name = "second";
    got = (*db)->GetItem(get);
    ASSERT_OK(got);
    EXPECT_FALSE(got->item.has_value());
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace dynarock::testing
