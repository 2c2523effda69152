// Pins the table operations of the embedded API: CreateTable's validations and
// messages, DescribeTable's fields, ListTables' paging, DeleteTable, and the
// catalog surviving a reopen.

#include <filesystem>

#include "engine/table_info.h"
#include "tests/unit/testutil.h"

namespace dynarock::testing {
namespace {

TEST_F(DBTest, CreateDescribeDelete) {
  CreateTableRequest req = PkTableRequest("people");
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
  EXPECT_ERROR(db_->CreateTable(PkTableRequest("ab")), ErrorType::kValidation,
               "1 validation error detected: Value 'ab' at 'tableName' failed to satisfy "
               "constraint: Member must have length greater than or equal to 3");
  EXPECT_ERROR(db_->CreateTable(PkTableRequest("a b!")), ErrorType::kValidation,
               "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+");
  EXPECT_ERROR(db_->CreateTable(PkTableRequest("x!")), ErrorType::kValidation,
               "2 validation errors detected");
  EXPECT_ERROR(db_->CreateTable(PkTableRequest(std::string(256, 'a'))), ErrorType::kValidation,
               "Member must have length less than or equal to 255");

  CreateTableRequest undefined = PkTableRequest("tbl");
  undefined.key_schema = {{"other", KeyType::kHash}};
  EXPECT_ERROR(db_->CreateTable(undefined), ErrorType::kValidation,
               "One or more parameter values were invalid: Some index key attributes are not "
               "defined in AttributeDefinitions. Keys: [other], AttributeDefinitions: [pk]");
  undefined.key_schema.push_back({"sk", KeyType::kRange});
  EXPECT_ERROR(db_->CreateTable(undefined), ErrorType::kValidation,
               "Invalid KeySchema: Some index key attribute have no definition");

  CreateTableRequest unused = PkTableRequest("tbl");
  unused.attribute_definitions.push_back({"extra", AttrType::kS});
  EXPECT_ERROR(db_->CreateTable(unused), ErrorType::kValidation,
               "Number of attributes in KeySchema does not exactly match number of attributes "
               "defined in AttributeDefinitions");

  CreateTableRequest provisioned = PkTableRequest("tbl");
  provisioned.billing_mode.reset();
  EXPECT_ERROR(db_->CreateTable(provisioned), ErrorType::kValidation,
               "ReadCapacityUnits and WriteCapacityUnits must both be specified");
  CreateTableRequest both = PkTableRequest("tbl");
  both.provisioned_throughput = ProvisionedThroughput{5, 5};
  EXPECT_ERROR(db_->CreateTable(both), ErrorType::kValidation,
               "Neither ReadCapacityUnits nor WriteCapacityUnits can be specified");

  CreateTableRequest range_first = PkTableRequest("tbl");
  range_first.key_schema[0].key_type = KeyType::kRange;
  EXPECT_ERROR(db_->CreateTable(range_first), ErrorType::kValidation, "not a HASH key type");

  ASSERT_OK(db_->CreateTable(PkTableRequest("tbl")));
  EXPECT_ERROR(db_->CreateTable(PkTableRequest("tbl")), ErrorType::kResourceInUse,
               "Table already exists: tbl");
  // Nothing of the failed attempts was created.
  auto list = db_->ListTables({});
  ASSERT_OK(list);
  EXPECT_EQ(list->table_names, std::vector<std::string>{"tbl"});
}

TEST_F(DBTest, ProvisionedThroughputIsEchoed) {
  CreateTableRequest req = PkTableRequest("prov");
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
    ASSERT_OK(db_->CreateTable(PkTableRequest(name)));
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
  both.update = UpdateGlobalSecondaryIndexAction{"gsi", ProvisionedThroughput{1, 1}, {}, {}};
  req.global_secondary_index_updates = {both};
  EXPECT_ERROR(db_->UpdateTable(req), ErrorType::kValidation,
               "Only one of GlobalSecondaryIndexUpdate.Update, GlobalSecondaryIndexUpdate.Create, "
               "GlobalSecondaryIndexUpdate.Delete may be set");
  req.global_secondary_index_updates = {GlobalSecondaryIndexUpdate{}};
  EXPECT_ERROR(db_->UpdateTable(req), ErrorType::kValidation, "must not be null");
  GlobalSecondaryIndexUpdate high;
  high.update = UpdateGlobalSecondaryIndexAction{"gsi", ProvisionedThroughput{1, 1000000000001}, {}, {}};
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

// ---------------------------------------------------------------- OnDemandThroughput

OnDemandThroughput Max(std::optional<int64_t> read, std::optional<int64_t> write) {
  return OnDemandThroughput{read, write};
}

// The table's described maximums as "read/write" ("-" for none), and "none"
// without an OnDemandThroughput, for short expectations.
std::string Shown(const std::optional<OnDemandThroughput>& t) {
  if (!t) return "none";
  auto part = [](const std::optional<int64_t>& v) { return v ? std::to_string(*v) : "-"; };
  return part(t->max_read_request_units) + "/" + part(t->max_write_request_units);
}

TableDescription DescribeOk(DB* db, const std::string& name) {
  auto d = db->DescribeTable({name});
  EXPECT_TRUE(d.ok()) << d.status().ToString();
  return d.ok() ? d->table : TableDescription{};
}

CreateTableRequest WithGsi(const std::string& name) {
  CreateTableRequest req = PkTableRequest(name);
  req.attribute_definitions.push_back({"g", AttrType::kS});
  GlobalSecondaryIndex gsi;
  gsi.index_name = "by_g";
  gsi.key_schema = {{"g", KeyType::kHash}};
  gsi.projection.projection_type = ProjectionType::kAll;
  req.global_secondary_indexes.push_back(gsi);
  req.has_global_secondary_indexes = true;
  return req;
}

UpdateTableRequest UpdateGsi(const std::string& table, UpdateGlobalSecondaryIndexAction action) {
  UpdateTableRequest req;
  req.table_name = table;
  GlobalSecondaryIndexUpdate u;
  u.update = std::move(action);
  req.global_secondary_index_updates = {u};
  return req;
}

// An on-demand table's and its GSIs' maximums: set at creation, merged member
// by member by UpdateTable, -1 removing one (API reference, OnDemandThroughput;
// the merge as captured from the service), described only while set.
TEST_F(DBTest, OnDemandThroughputIsSetMergedAndRemoved) {
  CreateTableRequest req = WithGsi("capped");
  req.on_demand_throughput = Max(20, 15);
  req.global_secondary_indexes[0].on_demand_throughput = Max(200, std::nullopt);
  auto created = db_->CreateTable(req);
  ASSERT_OK(created);
  EXPECT_EQ(Shown(created->table_description.on_demand_throughput), "20/15");
  TableDescription d = DescribeOk(db_.get(), "capped");
  EXPECT_EQ(Shown(d.on_demand_throughput), "20/15");
  ASSERT_EQ(d.global_secondary_indexes.size(), 1u);
  EXPECT_EQ(Shown(d.global_secondary_indexes[0].on_demand_throughput), "200/-");

  UpdateTableRequest up;
  up.table_name = "capped";
  up.on_demand_throughput = Max(40, std::nullopt);  // the write maximum stays
  auto updated = db_->UpdateTable(up);
  ASSERT_OK(updated);
  EXPECT_EQ(Shown(updated->table_description.on_demand_throughput), "40/15");
  up.on_demand_throughput = Max(std::nullopt, -1);
  ASSERT_OK(db_->UpdateTable(up));
  EXPECT_EQ(Shown(DescribeOk(db_.get(), "capped").on_demand_throughput), "40/-");
  up.on_demand_throughput = Max(-1, -1);
  ASSERT_OK(db_->UpdateTable(up));
  EXPECT_EQ(Shown(DescribeOk(db_.get(), "capped").on_demand_throughput), "none");
  up.on_demand_throughput = Max(-1, std::nullopt);  // removing what is not set: no error
  ASSERT_OK(db_->UpdateTable(up));
  EXPECT_EQ(Shown(DescribeOk(db_.get(), "capped").on_demand_throughput), "none");

  ASSERT_OK(db_->UpdateTable(UpdateGsi("capped", {"by_g", std::nullopt, Max(std::nullopt, 3), std::nullopt})));
  d = DescribeOk(db_.get(), "capped");
  EXPECT_EQ(Shown(d.global_secondary_indexes[0].on_demand_throughput), "200/3");
  EXPECT_EQ(Shown(d.on_demand_throughput), "none");  // the table's are its own
  ASSERT_OK(db_->UpdateTable(UpdateGsi("capped", {"by_g", std::nullopt, Max(-1, std::nullopt), std::nullopt})));
  EXPECT_EQ(Shown(DescribeOk(db_.get(), "capped").global_secondary_indexes[0].on_demand_throughput),
            "-/3");

  // -1 at creation is out of range (it removes a maximum, an update's word);
  // a GSI created by UpdateTable takes its own.
  CreateTableRequest unset = PkTableRequest("unset");
  unset.on_demand_throughput = Max(-1, 5);
  EXPECT_ERROR(db_->CreateTable(unset), ErrorType::kValidation,
               "Requested MaxReadRequestUnits for OnDemandThroughput for table is outside of valid range");
  unset.on_demand_throughput = Max(std::nullopt, 5);
  ASSERT_OK(db_->CreateTable(unset));
  EXPECT_EQ(Shown(DescribeOk(db_.get(), "unset").on_demand_throughput), "-/5");
  UpdateTableRequest add;
  add.table_name = "unset";
  add.attribute_definitions = {{"h", AttrType::kS}};
  GlobalSecondaryIndex gsi;
  gsi.index_name = "by_h";
  gsi.key_schema = {{"h", KeyType::kHash}};
  gsi.projection.projection_type = ProjectionType::kKeysOnly;
  gsi.on_demand_throughput = Max(9, std::nullopt);
  GlobalSecondaryIndexUpdate create;
  create.create = gsi;
  add.global_secondary_index_updates = {create};
  ASSERT_OK(db_->UpdateTable(add));
  d = DescribeOk(db_.get(), "unset");
  ASSERT_EQ(d.global_secondary_indexes.size(), 1u);
  EXPECT_EQ(Shown(d.global_secondary_indexes[0].on_demand_throughput), "9/-");
}

// Bad maximums are ValidationExceptions and change nothing. Refused on a
// PROVISIONED table (the capacity mode decides, API reference) with the
// service's captured wording, before the values are looked at.
TEST_F(DBTest, OnDemandThroughputValidation) {
  CreateTableRequest req = PkTableRequest("odt");
  req.on_demand_throughput = Max(std::nullopt, std::nullopt);
  EXPECT_ERROR(db_->CreateTable(req), ErrorType::kValidation,
               "One or more parameter values were invalid: OnDemandThroughput must specify "
               "MaxReadRequestUnits, MaxWriteRequestUnits, or both");
  req.on_demand_throughput = Max(0, 5);
  EXPECT_ERROR(db_->CreateTable(req), ErrorType::kValidation,
               "One or more parameter values were invalid: Requested MaxReadRequestUnits for "
               "OnDemandThroughput for table is outside of valid range");
  req.on_demand_throughput = Max(5, -2);
  EXPECT_ERROR(db_->CreateTable(req), ErrorType::kValidation,
               "Requested MaxWriteRequestUnits for OnDemandThroughput for table is outside of "
               "valid range");

  CreateTableRequest prov = PkTableRequest("prov");
  prov.billing_mode.reset();  // PROVISIONED by default
  prov.provisioned_throughput = ProvisionedThroughput{1, 1};
  prov.on_demand_throughput = Max(-2, 5);  // refused for the mode, not the value
  EXPECT_ERROR(db_->CreateTable(prov), ErrorType::kValidation,
               "One or more parameter values were invalid: MaxReadRequestUnits for "
               "OnDemandThroughput cannot be specified when table BillingMode is PROVISIONED.");
  prov.on_demand_throughput = Max(std::nullopt, -1);
  EXPECT_ERROR(db_->CreateTable(prov), ErrorType::kValidation,
               "MaxWriteRequestUnits for OnDemandThroughput cannot be specified when table "
               "BillingMode is PROVISIONED.");

  CreateTableRequest gsi = WithGsi("gsi_odt");
  gsi.global_secondary_indexes[0].on_demand_throughput = Max(3, 0);
  EXPECT_ERROR(db_->CreateTable(gsi), ErrorType::kValidation,
               "Requested MaxWriteRequestUnits for OnDemandThroughput for index : by_g is outside "
               "of valid range");
  gsi.billing_mode = "PROVISIONED";
  gsi.provisioned_throughput = ProvisionedThroughput{1, 1};
  gsi.global_secondary_indexes[0].provisioned_throughput = ProvisionedThroughput{1, 1};
  gsi.global_secondary_indexes[0].on_demand_throughput = Max(3, std::nullopt);
  EXPECT_ERROR(db_->CreateTable(gsi), ErrorType::kValidation,
               "MaxReadRequestUnits for OnDemandThroughput cannot be specified for index: by_g "
               "when table BillingMode is PROVISIONED.");
  for (const char* name : {"odt", "prov", "gsi_odt"}) {
    EXPECT_ERROR(db_->DescribeTable({name}), ErrorType::kResourceNotFound, "not found");
  }

  // UpdateTable: nothing of a refused request is applied.
  CreateTableRequest table = WithGsi("live");
  table.on_demand_throughput = Max(10, 10);
  ASSERT_OK(db_->CreateTable(table));
  UpdateTableRequest up;
  up.table_name = "live";
  up.deletion_protection_enabled = true;
  up.on_demand_throughput = Max(std::nullopt, std::nullopt);
  EXPECT_ERROR(db_->UpdateTable(up), ErrorType::kValidation,
               "OnDemandThroughput must specify MaxReadRequestUnits, MaxWriteRequestUnits, or both");
  up.on_demand_throughput = Max(7, 0);
  EXPECT_ERROR(db_->UpdateTable(up), ErrorType::kValidation,
               "Requested MaxWriteRequestUnits for OnDemandThroughput for table is outside of "
               "valid range");
  TableDescription d = DescribeOk(db_.get(), "live");
  EXPECT_EQ(Shown(d.on_demand_throughput), "10/10");
  EXPECT_FALSE(d.deletion_protection_enabled);
  EXPECT_ERROR(db_->UpdateTable(UpdateGsi("live", {"by_g", std::nullopt, Max(-5, std::nullopt), std::nullopt})),
               ErrorType::kValidation,
               "Requested MaxReadRequestUnits for OnDemandThroughput for index : by_g is outside "
               "of valid range");
  EXPECT_ERROR(db_->UpdateTable(UpdateGsi("live", {"by_g", std::nullopt, std::nullopt, std::nullopt})),
               ErrorType::kValidation,
               "Value null at 'globalSecondaryIndexUpdates.member.update.provisionedThroughput' "
               "failed to satisfy constraint: Member must not be null");
  EXPECT_ERROR(db_->UpdateTable(UpdateGsi("live", {"by_g", ProvisionedThroughput{1, 1}, {}, {}})),
               ErrorType::kValidation,
               "ProvisionedThroughput should not be specified for index: by_g when BillingMode is "
               "PAY_PER_REQUEST");
  EXPECT_EQ(Shown(DescribeOk(db_.get(), "live").global_secondary_indexes[0].on_demand_throughput),
            "none");

  // A PROVISIONED table: UpdateTable's own wording.
  CreateTableRequest provisioned = PkTableRequest("provisioned");
  provisioned.billing_mode = "PROVISIONED";
  provisioned.provisioned_throughput = ProvisionedThroughput{1, 1};
  ASSERT_OK(db_->CreateTable(provisioned));
  UpdateTableRequest on_prov;
  on_prov.table_name = "provisioned";
  on_prov.on_demand_throughput = Max(std::nullopt, 4);
  EXPECT_ERROR(db_->UpdateTable(on_prov), ErrorType::kValidation,
               "One or more parameter values were invalid: MaxWriteRequestUnits for "
               "OnDemandThroughput cannot be specified when the table BillingMode is PROVISIONED");
  EXPECT_EQ(Shown(DescribeOk(db_.get(), "provisioned").on_demand_throughput), "none");
}

// Switching to PROVISIONED drops the table's and its GSIs' maximums, and they
// do not come back with PAY_PER_REQUEST (captured from the service); a switch
// to PAY_PER_REQUEST may set new ones in the same request.
TEST_F(DBTest, SwitchingBillingModeAndOnDemandThroughput) {
  CreateTableRequest req = WithGsi("switch");
  req.on_demand_throughput = Max(20, 15);
  req.global_secondary_indexes[0].on_demand_throughput = Max(200, std::nullopt);
  ASSERT_OK(db_->CreateTable(req));

  UpdateTableRequest to_prov = UpdateGsi("switch", {"by_g", ProvisionedThroughput{5, 5}, {}, {}});
  to_prov.billing_mode = "PROVISIONED";
  to_prov.provisioned_throughput = ProvisionedThroughput{5, 5};
  to_prov.on_demand_throughput = Max(30, std::nullopt);
  EXPECT_ERROR(db_->UpdateTable(to_prov), ErrorType::kValidation,
               "MaxReadRequestUnits for OnDemandThroughput cannot be specified when the table "
               "BillingMode is PROVISIONED");
  EXPECT_EQ(DescribeOk(db_.get(), "switch").billing_mode, "PAY_PER_REQUEST");
  to_prov.on_demand_throughput.reset();
  ASSERT_OK(db_->UpdateTable(to_prov));
  TableDescription d = DescribeOk(db_.get(), "switch");
  EXPECT_EQ(d.billing_mode, "PROVISIONED");
  EXPECT_EQ(Shown(d.on_demand_throughput), "none");
  EXPECT_EQ(Shown(d.global_secondary_indexes[0].on_demand_throughput), "none");
  EXPECT_ERROR(db_->UpdateTable(UpdateGsi("switch", {"by_g", std::nullopt, Max(1, 1), std::nullopt})),
               ErrorType::kValidation,
               "MaxReadRequestUnits for OnDemandThroughput cannot be specified for index: by_g "
               "when the table BillingMode is PROVISIONED");

  UpdateTableRequest to_ppr;
  to_ppr.table_name = "switch";
  to_ppr.billing_mode = "PAY_PER_REQUEST";
  to_ppr.on_demand_throughput = Max(std::nullopt, 8);
  ASSERT_OK(db_->UpdateTable(to_ppr));
  d = DescribeOk(db_.get(), "switch");
  EXPECT_EQ(d.billing_mode, "PAY_PER_REQUEST");
  EXPECT_EQ(Shown(d.on_demand_throughput), "-/8");
  EXPECT_EQ(Shown(d.global_secondary_indexes[0].on_demand_throughput), "none");
}

// TableInfo keeps the maximums in the catalog; a catalog entry written before
// they existed (no "odt") loads as a table without any.
TEST(TableInfoCatalog, OnDemandThroughputRoundTripsAndIsOptional) {
  TableInfo info;
  info.id = 7;
  info.name = "t";
  info.billing_mode = "PAY_PER_REQUEST";
  info.key_schema = {{"pk", KeyType::kHash}};
  info.attribute_definitions = {{"pk", AttrType::kS}};
  info.on_demand_throughput = Max(std::nullopt, 12);
  IndexInfo ix;
  ix.id = 8;
  ix.name = "gsi";
  ix.key_schema = {{"pk", KeyType::kHash}};
  ix.on_demand_throughput = Max(3, 4);
  info.indexes.push_back(ix);
  TableInfo back;
  ASSERT_TRUE(TableInfoFromItem(TableInfoToItem(info), &back));
  EXPECT_EQ(Shown(back.on_demand_throughput), "-/12");
  ASSERT_EQ(back.indexes.size(), 1u);
  EXPECT_EQ(Shown(back.indexes[0].on_demand_throughput), "3/4");

  Item old = TableInfoToItem(info);
  old.erase("odt");
  auto& indexes = old.at("indexes");
  Item index = indexes.list()[0].map();
  index.erase("odt");
  indexes = AttributeValue::L({AttributeValue::M(index)});
  TableInfo from_old;
  ASSERT_TRUE(TableInfoFromItem(old, &from_old));
  EXPECT_FALSE(from_old.on_demand_throughput.has_value());
  ASSERT_EQ(from_old.indexes.size(), 1u);
  EXPECT_FALSE(from_old.indexes[0].on_demand_throughput.has_value());
}

// Replicas are tables in other regions: a DB alone (one region) refuses to
// make them, after checking the request's shape; the replica list `dynarock
// serve` keeps (SetGlobalTable: replicas with their settings, the witness)
// is described and survives a reopen.
TEST(DBPersistence, ReplicaRegionsAreCheckedDescribedAndKept) {
  auto dir = std::filesystem::temp_directory_path() / ("dynarock_replicas_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  {
    auto db = DB::Open(Options(), dir.string());
    ASSERT_OK(db);
    ASSERT_OK((*db)->CreateTable(PkTableRequest("glob")));
    UpdateTableRequest up;
    up.table_name = "glob";
    up.replica_updates = {ReplicaUpdate{ReplicaUpdate::Action::kCreate, "eu-west-1", std::nullopt, {}}};
    EXPECT_ERROR((*db)->UpdateTable(up), ErrorType::kValidation, "this database holds one region");
    up.billing_mode = "PAY_PER_REQUEST";
    EXPECT_ERROR((*db)->UpdateTable(up), ErrorType::kValidation,
                 "Replica modification must be the only operation in the request");
    up.billing_mode.reset();
    up.replica_updates[0].members = 2;
    EXPECT_ERROR((*db)->UpdateTable(up), ErrorType::kValidation,
                 "Only one of ReplicationGroupUpdate.Create, ReplicationGroupUpdate.Update, "
                 "ReplicationGroupUpdate.Delete may be set");
    auto plain = (*db)->DescribeTable({"glob"});
    ASSERT_OK(plain);
    EXPECT_TRUE(plain->table.replicas.empty());
    EXPECT_FALSE(plain->table.global_table_version);
    up.replica_updates.clear();
    up.witness_updates = {WitnessUpdate{WitnessUpdate::Action::kCreate, "us-west-2", 0}};
    EXPECT_ERROR((*db)->UpdateTable(up), ErrorType::kValidation,
                 "One of GlobalTableWitnessGroupUpdate.Create, GlobalTableWitnessGroupUpdate.Delete must not be null");
    up.witness_updates = {WitnessUpdate{WitnessUpdate::Action::kCreate, "us-west-2", 1}};
    EXPECT_ERROR((*db)->UpdateTable(up), ErrorType::kValidation, "this database holds one region");
    GlobalTableMembers members;
    members.replicas = {ReplicaDescription{"eu-west-1", "ACTIVE", {}, "STANDARD_INFREQUENT_ACCESS", 1700000000.5},
                        ReplicaDescription{"ap-south-1", "ACTIVE", {}, std::nullopt, std::nullopt}};
    members.replicas[0].settings.max_read_request_units = 250;
    members.replicas[0].settings.global_secondary_indexes = {ReplicaGlobalSecondaryIndex{"byName", std::nullopt, 40}};
    members.replicas[0].settings.kms_master_key_id = "alias/mine";
    members.witnesses = {GlobalTableWitness{"us-west-2"}};
    members.strong = true;
    ASSERT_TRUE((*db)->SetGlobalTable("glob", members).ok());
    EXPECT_EQ((*db)->SetGlobalTable("nope", members).type(), ErrorType::kResourceNotFound);
  }
  {
    auto db = DB::Open(Options(), dir.string());
    ASSERT_OK(db);
    auto d = (*db)->DescribeTable({"glob"});
    ASSERT_OK(d);
    ASSERT_EQ(d->table.replicas.size(), 2u);
    EXPECT_EQ(d->table.replicas[0].region_name, "ap-south-1");  // kept as a set: sorted
    EXPECT_EQ(d->table.replicas[1].region_name, "eu-west-1");
    EXPECT_EQ(d->table.replicas[1].replica_status, "ACTIVE");
    const ReplicaDescription& eu = d->table.replicas[1];
    EXPECT_EQ(eu.settings.max_read_request_units, 250);
    ASSERT_EQ(eu.settings.global_secondary_indexes.size(), 1u);
    EXPECT_EQ(eu.settings.global_secondary_indexes[0].index_name, "byName");
    EXPECT_EQ(eu.settings.global_secondary_indexes[0].max_read_request_units, 40);
    EXPECT_FALSE(eu.settings.global_secondary_indexes[0].read_capacity_units);
    EXPECT_EQ(eu.settings.kms_master_key_id, "alias/mine");
    EXPECT_EQ(eu.table_class, "STANDARD_INFREQUENT_ACCESS");
    EXPECT_DOUBLE_EQ(eu.table_class_last_update.value_or(0), 1700000000.5);
    EXPECT_FALSE(d->table.replicas[0].settings.max_read_request_units);
    ASSERT_EQ(d->table.global_table_witnesses.size(), 1u);
    EXPECT_EQ(d->table.global_table_witnesses[0].region_name, "us-west-2");
    EXPECT_EQ(d->table.global_table_witnesses[0].witness_status, "ACTIVE");
    EXPECT_EQ(d->table.global_table_version, "2019.11.21");
    EXPECT_EQ(d->table.multi_region_consistency, "STRONG");
    ASSERT_TRUE((*db)->SetGlobalTable("glob", GlobalTableMembers()).ok());
    auto none = (*db)->DescribeTable({"glob"});
    ASSERT_OK(none);
    EXPECT_TRUE(none->table.replicas.empty());
    EXPECT_FALSE(none->table.global_table_version);
  }
  std::filesystem::remove_all(dir);
}

TEST(DBPersistence, CatalogAndItemsSurviveReopen) {
  auto dir = std::filesystem::temp_directory_path() /
             ("dynarock_reopen_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  {
    auto db = DB::Open(Options(), dir.string());
    ASSERT_OK(db);
    CreateTableRequest kept = PkTableRequest("kept");
    kept.on_demand_throughput = Max(50, std::nullopt);
    ASSERT_OK((*db)->CreateTable(kept));
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
    EXPECT_EQ(Shown(d->table.on_demand_throughput), "50/-");
    GetItemRequest get;
    get.table_name = "kept";
    get.key = MakeItem({{"pk", S("k1")}});
    auto got = (*db)->GetItem(get);
    ASSERT_OK(got);
    ASSERT_TRUE(got->item.has_value());
    EXPECT_EQ(got->item->at("v"), N("42"));
    // New tables get fresh ids: the next one does not see the first one's items.
    ASSERT_OK((*db)->CreateTable(PkTableRequest("second")));
    get.table_name = "second";
    got = (*db)->GetItem(get);
    ASSERT_OK(got);
    EXPECT_FALSE(got->item.has_value());
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace dynarock::testing
