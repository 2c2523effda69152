// The on-disk format marker: written on first open, a newer format refused with
// a clear message (never misread), an unreadable marker refused, a directory
// from before the marker opened as format 1.

#include <rocksdb/db.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "dynarock/db.h"

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

}  // namespace
}  // namespace dynarock
