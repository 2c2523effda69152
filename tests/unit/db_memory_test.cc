// Options::memory_budget_bytes: the block cache and the memtables stay within
// one bound while a write load would otherwise fill 64 MiB memtables, and the
// data stays whole.

#include <unistd.h>

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "dynarock/db.h"

namespace dynarock {
namespace {

struct TempDir {
  std::string path;
  TempDir() {
    path = (std::filesystem::temp_directory_path() /
            ("dynarock-memory-" + std::to_string(getpid()) + "-" + std::to_string(rand())))
               .string();
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

// Writes `n` items of about 4 KB; returns the largest memory use seen.
size_t WriteAndWatch(DB* db, int n) {
  CreateTableRequest c;
  c.table_name = "memory";
  c.key_schema = {{"k", KeyType::kHash}};
  c.attribute_definitions = {{"k", AttrType::kS}};
  c.billing_mode = "PAY_PER_REQUEST";
  EXPECT_TRUE(db->CreateTable(c).ok());
  size_t peak = 0;
  for (int i = 0; i < n; ++i) {
    PutItemRequest p;
    p.table_name = "memory";
    p.item = {{"k", AttributeValue::S("key" + std::to_string(i))},
              {"v", AttributeValue::S(std::string(4000, static_cast<char>('a' + i % 26)))}};
    EXPECT_TRUE(db->PutItem(p).ok());
    if (i % 100 == 0) {
      DB::MemoryUse use = db->MemoryInUse();
      peak = std::max(peak, use.memtable_bytes);
    }
  }
  return peak;
}

TEST(MemoryBudget, MemtablesStayWithinTheBudget) {
  const size_t budget = 4u << 20;
  TempDir dir;
  Options o;
  o.memory_budget_bytes = budget;
  auto db = DB::Open(o, dir.path);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  EXPECT_EQ((*db)->MemoryInUse().block_cache_capacity, budget);
  // ~24 MB written: without the budget all of it would sit in memtables.
  const size_t peak = WriteAndWatch(db->get(), 6000);
  EXPECT_LE(peak, budget) << "memtables peaked at " << peak << " bytes";
  GetItemRequest g;
  g.table_name = "memory";
  for (int i : {0, 2999, 5999}) {
    g.key = {{"k", AttributeValue::S("key" + std::to_string(i))}};
    auto r = (*db)->GetItem(g);
    ASSERT_TRUE(r.ok() && r->item);
    EXPECT_EQ(r->item->at("v").scalar().size(), 4000u);
  }
}

// The same load without a budget keeps it all in the (64 MiB) memtables:
// the bound above is the budget's doing.
TEST(MemoryBudget, WithoutABudgetTheMemtablesGrow) {
  TempDir dir;
  auto db = DB::Open(Options(), dir.path);
  ASSERT_TRUE(db.ok());
  EXPECT_GT(WriteAndWatch(db->get(), 6000), 8u << 20);
}

// In memory the table files are memory too: without a budget or explicit
// write buffers the memtables stay small (8 MiB buffers, 32 MiB in all, db.h)
// and the block cache is at most 8 MiB; with explicit buffers, they grow.
TEST(MemoryBudget, InMemoryDefaultsAreSmall) {
  Options o;
  o.in_memory = true;
  auto db = DB::Open(o, "");
  ASSERT_TRUE(db.ok());
  EXPECT_EQ((*db)->MemoryInUse().block_cache_capacity, 8u << 20);
  EXPECT_LE(WriteAndWatch(db->get(), 6000), 32u << 20);  // ~24 MB written
  GetItemRequest g;
  g.table_name = "memory";
  g.key = {{"k", AttributeValue::S("key0")}};
  auto r = (*db)->GetItem(g);
  ASSERT_TRUE(r.ok() && r->item);  // flushed into the in-memory files, still there

  Options explicit_buffers = o;
  explicit_buffers.write_buffer_bytes = 64u << 20;
  auto big = DB::Open(explicit_buffers, "");
  ASSERT_TRUE(big.ok());
  EXPECT_EQ((*big)->MemoryInUse().block_cache_capacity, 32u << 20);
  EXPECT_GT(WriteAndWatch(big->get(), 6000), 16u << 20);
}

}  // namespace
}  // namespace dynarock
