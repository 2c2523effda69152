// The on-disk format marker: written on first open, a newer format refused with
// a clear message (never misread), an unreadable marker refused, a directory
// from before the marker opened as format 1; and a new directory's column
// families: all four after the first open, and a directory left with the first
// alone (a crash between creating the database and its other families) opened
// whole.

#include <rocksdb/db.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <string_view>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "dynarock/db.h"
#include "dynarock/item_size.h"
#include "engine/coding.h"
#include "engine/item_codec.h"
#include "tests/unit/testutil.h"

namespace dynarock {
namespace {

// Sets (or, with an empty value, deletes) the catalog's format marker.
void SetMarker(const std::string& dir, const std::string& value) {
  rocksdb::DBOptions options;
  std::vector<rocksdb::ColumnFamilyDescriptor> families;
  std::vector<std::string> names;
  ASSERT_TRUE(rocksdb::DB::ListColumnFamilies(options, dir, &names).ok());
  for (const auto& n : names) families.emplace_back(n, rocksdb::ColumnFamilyOptions());
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  ASSERT_TRUE(rocksdb::DB::Open(options, dir, families, &handles, &raw).ok());
  rocksdb::ColumnFamilyHandle* catalog = handles[0];  // "default"
  if (value.empty()) {
    ASSERT_TRUE(raw->Delete(rocksdb::WriteOptions(), catalog, "m/format").ok());
  } else {
    ASSERT_TRUE(raw->Put(rocksdb::WriteOptions(), catalog, "m/format", value).ok());
  }
  for (auto* h : handles) raw->DestroyColumnFamilyHandle(h);
  delete raw;
}

std::string GetMarker(const std::string& dir) {
  rocksdb::DBOptions options;
  std::vector<std::string> names;
  std::vector<rocksdb::ColumnFamilyDescriptor> families;
  EXPECT_TRUE(rocksdb::DB::ListColumnFamilies(options, dir, &names).ok());
  for (const auto& n : names) families.emplace_back(n, rocksdb::ColumnFamilyOptions());
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  EXPECT_TRUE(rocksdb::DB::OpenForReadOnly(options, dir, families, &handles, &raw).ok());
  std::string value;
  raw->Get(rocksdb::ReadOptions(), handles[0], "m/format", &value).PermitUncheckedError();
  for (auto* h : handles) raw->DestroyColumnFamilyHandle(h);
  delete raw;
  return value;
}

TEST(DiskFormat, ANewDirectoryGetsEveryFamilyAndOneLeftWithTheFirstIsCompleted) {
  const std::string dir = (std::filesystem::temp_directory_path() /
                           ("dynarock_families_" + std::to_string(::getpid()))).string();
  std::filesystem::remove_all(dir);
  auto families = [&] {
    std::vector<std::string> names;
    EXPECT_TRUE(rocksdb::DB::ListColumnFamilies(rocksdb::DBOptions(), dir, &names).ok());
    return names;
  };
  {
    auto db = DB::Open(Options(), dir);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
  }
  EXPECT_EQ(families(), (std::vector<std::string>{"default", "items", "indexes", "streams"}));
  std::filesystem::remove_all(dir);

  // What a crash right after creating the database leaves: the first family.
  {
    rocksdb::Options o;
    o.create_if_missing = true;
    rocksdb::DB* raw = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(o, dir, &raw).ok());
    delete raw;
  }
  EXPECT_EQ(families(), (std::vector<std::string>{"default"}));
  {
    auto db = DB::Open(Options(), dir);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    testing::CreateGsiTable(db->get(), "tbl");
    PutItemRequest put;
    put.table_name = "tbl";
    put.item = testing::MakeItem({{"pk", testing::S("a")}, {"g", testing::S("x")}});
    ASSERT_TRUE((*db)->PutItem(put).ok());
  }
  EXPECT_EQ(families(), (std::vector<std::string>{"default", "items", "indexes", "streams"}));
  auto db = DB::Open(Options(), dir);
  ASSERT_TRUE(db.ok());
  GetItemRequest get;
  get.table_name = "tbl";
  get.key = testing::MakeItem({{"pk", testing::S("a")}});
  auto got = (*db)->GetItem(get);
  ASSERT_TRUE(got.ok() && got->item.has_value());
  EXPECT_EQ(got->item->at("g").scalar(), "x");
  db->reset();
  std::filesystem::remove_all(dir);
}

TEST(DiskFormat, MarkedRefusedWhenNewerAndKeptWhenOlder) {
  const std::string dir = (std::filesystem::temp_directory_path() /
                           ("dynarock_format_" + std::to_string(::getpid()))).string();
  std::filesystem::remove_all(dir);
  {
    auto db = DB::Open(Options(), dir);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
  }
  EXPECT_EQ(GetMarker(dir), "2");

  SetMarker(dir, "3");
  auto newer = DB::Open(Options(), dir);
  ASSERT_FALSE(newer.ok());
  EXPECT_NE(newer.status().message().find("written by a newer Dynarock (on-disk format 3; this "
                                          "build reads format 2 and older)"),
            std::string::npos)
      << newer.status().message();

  // Format 1 (items without their size) is read, and marked 2 on a writable open.
  SetMarker(dir, "1");
  {
    auto db = DB::Open(Options(), dir);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
  }
  EXPECT_EQ(GetMarker(dir), "2");

  SetMarker(dir, "x");
  auto garbled = DB::Open(Options(), dir);
  ASSERT_FALSE(garbled.ok());
  EXPECT_NE(garbled.status().message().find("unreadable format marker"), std::string::npos);

  // A directory from before the marker: format 1, marked on open.
  SetMarker(dir, "");
  {
    auto db = DB::Open(Options(), dir);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
  }
  EXPECT_EQ(GetMarker(dir), "2");
  std::filesystem::remove_all(dir);
}

// Replaces every item record of the (closed) directory with what `rewrite`
// makes of it; `*count` says how many there were.
void RewriteItems(const std::string& dir,
                  const std::function<std::string(std::string_view stored)>& rewrite, int* count) {
  rocksdb::DBOptions options;
  std::vector<std::string> names;
  ASSERT_TRUE(rocksdb::DB::ListColumnFamilies(options, dir, &names).ok());
  std::vector<rocksdb::ColumnFamilyDescriptor> families;
  for (const auto& n : names) families.emplace_back(n, rocksdb::ColumnFamilyOptions());
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  ASSERT_TRUE(rocksdb::DB::Open(options, dir, families, &handles, &raw).ok());
  rocksdb::ColumnFamilyHandle* items = nullptr;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == "items") items = handles[i];
  }
  ASSERT_NE(items, nullptr);
  *count = 0;
  std::unique_ptr<rocksdb::Iterator> it(raw->NewIterator(rocksdb::ReadOptions(), items));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const std::string value = rewrite(std::string_view(it->value().data(), it->value().size()));
    ASSERT_TRUE(raw->Put(rocksdb::WriteOptions(), items, it->key(), value).ok());
    ++*count;
  }
  it.reset();
  for (auto* h : handles) raw->DestroyColumnFamilyHandle(h);
  delete raw;
}

// Rewrites every item the directory holds in format V1 (no size in the
// header), as builds before format 2 stored them.
void RewriteItemsAsV1(const std::string& dir) {
  int rewritten = 0;
  RewriteItems(
      dir,
      [](std::string_view v2) {
        EXPECT_EQ(v2[0], static_cast<char>(kItemFormatV2));
        std::string_view rest = v2.substr(1);
        uint32_t size;
        EXPECT_TRUE(GetVarint32(&rest, &size));
        return "\x01" + std::string(rest);
      },
      &rewritten);
  EXPECT_EQ(rewritten, 2);
}

// A format-1 directory (items in V1) opens, reads and writes as before and is
// marked 2: reads size its items by walking them, writes replace them in V2.
TEST(DiskFormat, Format1ItemsAreReadAndRewritten) {
  const std::string dir = (std::filesystem::temp_directory_path() /
                           ("dynarock_format_v1_" + std::to_string(::getpid()))).string();
  std::filesystem::remove_all(dir);
  const Item a = testing::MakeItem({{"pk", testing::S("a")}, {"data", testing::S(std::string(3000, 'x'))},
                                    {"n", testing::N("7")}});
  const Item b = testing::MakeItem({{"pk", testing::S("b")}, {"data", testing::S("short")}});
  {
    auto db = DB::Open(Options(), dir);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    CreateTableRequest create;
    create.table_name = "old";
    create.billing_mode = "PAY_PER_REQUEST";
    create.attribute_definitions = {{"pk", AttrType::kS}};
    create.key_schema = {{"pk", KeyType::kHash}};
    ASSERT_TRUE((*db)->CreateTable(create).ok());
    for (const Item& item : {a, b}) {
      PutItemRequest put;
      put.table_name = "old";
      put.item = item;
      ASSERT_TRUE((*db)->PutItem(put).ok());
    }
    ScanRequest all;
    all.table_name = "old";
    ASSERT_EQ((*db)->Scan(all)->count, 2);
  }
  {
    auto db = DB::Open(Options(), dir);
    ScanRequest all;
    all.table_name = "old";
    ASSERT_EQ((*db)->Scan(all)->count, 2);  // (a reopen also flushes the log into table files)
  }
  RewriteItemsAsV1(dir);
  SetMarker(dir, "1");

  auto db = DB::Open(Options(), dir);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  GetItemRequest get;
  get.table_name = "old";
  get.key = testing::MakeItem({{"pk", testing::S("a")}});
  get.return_consumed_capacity = ReturnConsumedCapacity::kTotal;
  auto got = (*db)->GetItem(get);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->item, a);
  EXPECT_EQ(got->consumed_capacity->capacity_units, 0.5);  // 3 KB, eventually consistent
  ScanRequest scan;
  scan.table_name = "old";
  scan.filter_expression = "n = :n";
  scan.expression_attribute_values = {{":n", testing::N("7")}};
  scan.has_expression_attribute_values = true;
  for (bool encoded : {false, true}) {
    scan.encoded_items = encoded;
    auto r = (*db)->Scan(scan);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(encoded ? r->encoded_items.ToItems() : r->items, std::vector<Item>{a});
    EXPECT_EQ(r->scanned_count, 2);
    EXPECT_EQ(r->bytes_read, static_cast<int64_t>(ItemSize(a) + ItemSize(b)));
  }
  // An unconditional overwrite knows the old V1 item by walking it: billed on
  // its 3 KB, and the table's size follows.
  PutItemRequest put;
  put.table_name = "old";
  put.item = testing::MakeItem({{"pk", testing::S("a")}});
  put.return_consumed_capacity = ReturnConsumedCapacity::kTotal;
  auto written = (*db)->PutItem(put);
  ASSERT_TRUE(written.ok());
  EXPECT_EQ(written->consumed_capacity->capacity_units, 3.0);
  auto described = (*db)->DescribeTable({"old"});
  ASSERT_TRUE(described.ok());
  EXPECT_EQ(described->table.item_count, 2);
  EXPECT_EQ(described->table.table_size_bytes,
            static_cast<int64_t>(ItemSize(put.item) + ItemSize(b)));
  // A BatchWriteItem likewise: V1 item b deleted (its size found by walking
  // it), c put; the table's size follows.
  const Item c = testing::MakeItem({{"pk", testing::S("c")}, {"data", testing::S("new")}});
  BatchWriteItemRequest batch;
  WriteRequest del, add;
  del.delete_key = testing::MakeItem({{"pk", testing::S("b")}});
  add.put_item = c;
  batch.request_items["old"] = {del, add};
  ASSERT_TRUE((*db)->BatchWriteItem(batch).ok());
  described = (*db)->DescribeTable({"old"});
  ASSERT_TRUE(described.ok());
  EXPECT_EQ(described->table.item_count, 2);
  EXPECT_EQ(described->table.table_size_bytes,
            static_cast<int64_t>(ItemSize(put.item) + ItemSize(c)));
  db->reset();
  EXPECT_EQ(GetMarker(dir), "2");
  std::filesystem::remove_all(dir);
}

// A stored item that is not one (an unknown version byte) is refused by
// every write that reads it, whether it decodes the old item (a condition)
// or only needs its size (an unconditional put, a batch on a table without
// indexes): InternalServerError "Corrupt item record", and the record stays.
TEST(DiskFormat, WritesOverACorruptRecordAreRefused) {
  const std::string dir = (std::filesystem::temp_directory_path() /
                           ("dynarock_corrupt_" + std::to_string(::getpid()))).string();
  std::filesystem::remove_all(dir);
  const Item a = testing::MakeItem({{"pk", testing::S("a")}, {"n", testing::N("1")}});
  {
    auto db = DB::Open(Options(), dir);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    ASSERT_TRUE((*db)->CreateTable(testing::PkTableRequest("bad")).ok());
    PutItemRequest put;
    put.table_name = "bad";
    put.item = a;
    ASSERT_TRUE((*db)->PutItem(put).ok());
  }
  const std::string garbage = "\x7f not an item";
  int count = 0;
  RewriteItems(dir, [&](std::string_view) { return garbage; }, &count);
  ASSERT_EQ(count, 1);

  {
    auto db = DB::Open(Options(), dir);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    auto refused = [](const Status& s) {
      EXPECT_EQ(s.type(), ErrorType::kInternalServerError);
      EXPECT_EQ(s.message(), "Corrupt item record");
    };
    PutItemRequest put;
    put.table_name = "bad";
    put.item = testing::MakeItem({{"pk", testing::S("a")}, {"n", testing::N("2")}});
    refused((*db)->PutItem(put).status());
    put.condition_expression = "attribute_exists(pk)";
    refused((*db)->PutItem(put).status());
    BatchWriteItemRequest batch;
    WriteRequest w;
    w.put_item = put.item;
    batch.request_items["bad"] = {w};
    refused((*db)->BatchWriteItem(batch).status());
    WriteRequest del;
    del.delete_key = testing::MakeItem({{"pk", testing::S("a")}});
    batch.request_items["bad"] = {del};
    refused((*db)->BatchWriteItem(batch).status());
  }
  // Nothing was written over it.
  RewriteItems(dir, [&](std::string_view stored) {
    EXPECT_EQ(stored, garbage);
    return std::string(stored);
  }, &count);
  EXPECT_EQ(count, 1);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace dynarock
