#include "tests/unit/testutil.h"

#include <chrono>
#include <thread>

namespace dynarock::testing {

Item MakeItem(std::initializer_list<std::pair<const std::string, AttributeValue>> attrs) {
  return Item(attrs.begin(), attrs.end());
}

CreateTableRequest PkTableRequest(const std::string& name) {
  CreateTableRequest req;
  req.table_name = name;
  req.billing_mode = "PAY_PER_REQUEST";
  req.attribute_definitions = {{"pk", AttrType::kS}};
  req.key_schema = {{"pk", KeyType::kHash}};
  return req;
}

void CreateGsiTable(DB* db, const std::string& name, const std::string& stream_view) {
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
  if (!stream_view.empty()) req.stream_specification = StreamSpecification{true, stream_view};
  auto r = db->CreateTable(req);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
}

void DBTest::SetUp() {
  Options options;
  options.in_memory = true;
  auto db = DB::Open(options, "");
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  db_ = std::move(*db);
}

void DBTest::CreateTable(const std::string& name, const std::string& hash, AttrType hash_type,
                         const std::string& range, AttrType range_type) {
  CreateTableRequest req;
  req.table_name = name;
  req.billing_mode = "PAY_PER_REQUEST";
  req.attribute_definitions.push_back({hash, hash_type});
  req.key_schema.push_back({hash, KeyType::kHash});
  if (!range.empty()) {
    req.attribute_definitions.push_back({range, range_type});
    req.key_schema.push_back({range, KeyType::kRange});
  }
  auto r = db_->CreateTable(req);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
}

void DBTest::Put(const std::string& table, Item item) {
  PutItemRequest req;
  req.table_name = table;
  req.item = std::move(item);
  auto r = db_->PutItem(req);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
}

std::optional<Item> DBTest::Get(const std::string& table, Item key) {
  GetItemRequest req;
  req.table_name = table;
  req.key = std::move(key);
  auto r = db_->GetItem(req);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? r->item : std::nullopt;
}

void WaitActive(DB* db, const std::string& name) {
  for (int i = 0; i < 3000; ++i) {
    DescribeTableRequest d;
    d.table_name = name;
    auto r = db->DescribeTable(d);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    if (r->table.table_status == "ACTIVE") return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  FAIL() << "table " << name << " never became ACTIVE";
}

UpdateTableRequest CreateGsiRequest(const std::string& table, const std::string& index,
                                    std::vector<KeySchemaElement> key_schema,
                                    std::vector<AttributeDefinition> definitions,
                                    ProjectionType projection) {
  UpdateTableRequest up;
  up.table_name = table;
  up.attribute_definitions = std::move(definitions);
  GlobalSecondaryIndexUpdate create;
  create.create.emplace();
  create.create->index_name = index;
  create.create->key_schema = std::move(key_schema);
  create.create->projection.projection_type = projection;
  up.global_secondary_index_updates = {create};
  return up;
}

void WaitIndexActive(DB* db, const std::string& table, const std::string& index) {
  std::string status;
  for (int i = 0; i < 3000; ++i) {
    auto r = db->DescribeTable({table});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    for (const auto& ix : r->table.global_secondary_indexes) {
      if (ix.index_name == index) status = ix.index_status;
    }
    if (status == "ACTIVE") return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  FAIL() << "index " << index << " of " << table << " never became ACTIVE (" << status << ")";
}

void WaitAvailable(DB* db, const std::string& arn) {
  for (int i = 0; i < 3000; ++i) {
    auto r = db->DescribeBackup({arn});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    if (r->backup_description.backup_details.backup_status == "AVAILABLE") return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  FAIL() << "backup " << arn << " never became AVAILABLE";
}

}  // namespace dynarock::testing
