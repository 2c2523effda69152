// Reads over many table files: the items and indexes column families keep a
// Bloom filter of each key's table and partition hash, and a Query (one
// partition) reads in prefix mode while every other iterator reads in total
// order. With small write buffers a shuffled load of overwrites and deletes
// lands in many files; every Query (both directions, paged, with a sort key
// range, on the table, an LSI and a GSI) and a paged Scan must return exactly what
// a model of the data holds. A second table does the same for string sort
// keys under begins_with, a GSI whose partition key is two attributes, and
// the same reads of the table restored from a backup. A GSI added after the
// load is backfilled across partitions and indexes every item. A database
// compacted to one file a column family (internal::CompactAll) reads the same.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "dynarock/db.h"
#include "engine/storage_env.h"
#include "tests/unit/testutil.h"

namespace dynarock {
namespace {

constexpr int kPartitions = 40;
constexpr int kPerPartition = 30;

std::string Part(int p) { return "part#" + std::to_string(p); }

class PrefixSeekTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Options o;
    o.in_memory = true;
    o.write_buffer_bytes = 64u << 10;  // the smallest: a flush every ~200 items
    auto db = DB::Open(o, "");
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(*db);
    CreateTableRequest c;
    c.table_name = "tbl";
    c.billing_mode = "PAY_PER_REQUEST";
    c.attribute_definitions = {{"pk", AttrType::kS},
                               {"sk", AttrType::kN},
                               {"g", AttrType::kS},
                               {"round", AttrType::kN}};
    c.key_schema = {{"pk", KeyType::kHash}, {"sk", KeyType::kRange}};
    GlobalSecondaryIndex gsi;
    gsi.index_name = "by_g";
    gsi.key_schema = {{"g", KeyType::kHash}, {"sk", KeyType::kRange}};
    gsi.projection.projection_type = ProjectionType::kAll;
    c.global_secondary_indexes = {gsi};
    c.has_global_secondary_indexes = true;
    LocalSecondaryIndex lsi;
    lsi.index_name = "by_round";
    lsi.key_schema = {{"pk", KeyType::kHash}, {"round", KeyType::kRange}};
    lsi.projection.projection_type = ProjectionType::kAll;
    c.local_secondary_indexes = {lsi};
    c.has_local_secondary_indexes = true;
    auto r = db_->CreateTable(c);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }

  // Writes every (partition, sort key) in a shuffled order, three rounds:
  // puts, then overwrites that move some items to another GSI partition, then
  // deletes; `model_` follows.
  void Load() {
    std::vector<std::pair<int, int>> keys;
    for (int p = 0; p < kPartitions; ++p) {
      for (int s = 0; s < kPerPartition; ++s) keys.emplace_back(p, s);
    }
    std::mt19937 rng(15);
    for (int round = 0; round < 3; ++round) {
      std::shuffle(keys.begin(), keys.end(), rng);
      for (const auto& [p, s] : keys) {
        const std::string id = Part(p) + "/" + std::to_string(s);
        if (round == 2) {
          if ((p + s) % 5 != 0) continue;
          DeleteItemRequest d;
          d.table_name = "tbl";
          d.key = {{"pk", AttributeValue::S(Part(p))}, {"sk", AttributeValue::N(std::to_string(s))}};
          ASSERT_TRUE(db_->DeleteItem(d).ok());
          model_.erase(id);
          continue;
        }
        if (round == 1 && s % 3 != 0) continue;
        model_[id] = Put(Part(p), s, (p + s + round) % 7, round, static_cast<char>('a' + round));
        if (HasFailure()) return;
      }
    }
  }

  // Puts one item of table "tbl" and returns it.
  Item Put(const std::string& pk, int s, int g, int round, char pad) {
    PutItemRequest put;
    put.table_name = "tbl";
    put.item = {{"pk", AttributeValue::S(pk)},
                {"sk", AttributeValue::N(std::to_string(s))},
                {"g", AttributeValue::S("g#" + std::to_string(g))},
                {"round", AttributeValue::N(std::to_string(round))},
                {"pad", AttributeValue::S(std::string(200, pad))}};
    auto r = db_->PutItem(put);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return put.item;
  }

  // Every page of a Query, `limit` items a page.
  std::vector<Item> QueryAll(QueryRequest q, int64_t limit) {
    std::vector<Item> out;
    q.limit = limit;
    for (int pages = 0; pages < 1000; ++pages) {
      auto r = db_->Query(q);
      EXPECT_TRUE(r.ok()) << r.status().ToString();
      if (!r.ok()) break;
      out.insert(out.end(), r->items.begin(), r->items.end());
      if (!r->last_evaluated_key) break;
      q.exclusive_start_key = r->last_evaluated_key;
    }
    return out;
  }

  static std::vector<std::string> Ids(const std::vector<Item>& items) {
    std::vector<std::string> ids;
    for (const auto& i : items) ids.push_back(i.at("pk").scalar() + "/" + i.at("sk").scalar());
    return ids;
  }

  std::unique_ptr<DB> db_;
  std::map<std::string, Item> model_;
};

TEST_F(PrefixSeekTest, QueriesAndScansOverManyTableFilesMatchTheModel) {
  Load();
  auto files = db_->VerifyChecksums();
  ASSERT_TRUE(files.ok());
  // Flushes and compactions run in the background: at least the first
  // flushes have happened (a full memtable stalls the writes until one does),
  // how many files remain depends on when compaction ran.
  EXPECT_GE(files->files, 1) << "the load should reach table files";

  for (int p = 0; p < kPartitions; ++p) {
    std::vector<Item> expected;
    for (int s = 0; s < kPerPartition; ++s) {  // sort key order (numbers)
      auto it = model_.find(Part(p) + "/" + std::to_string(s));
      if (it != model_.end()) expected.push_back(it->second);
    }
    QueryRequest q;
    q.table_name = "tbl";
    q.key_condition_expression = "pk = :p";
    q.expression_attribute_values = {{":p", AttributeValue::S(Part(p))}};
    q.has_expression_attribute_values = true;
    for (int64_t limit : {1000, 7}) {
      q.scan_index_forward = true;
      std::vector<Item> got = QueryAll(q, limit);
      ASSERT_EQ(Ids(got), Ids(expected)) << Part(p) << " forward, limit " << limit;
      EXPECT_EQ(got, expected);
      q.scan_index_forward = false;
      std::vector<Item> reversed(expected.rbegin(), expected.rend());
      ASSERT_EQ(Ids(QueryAll(q, limit)), Ids(reversed)) << Part(p) << " backward, limit " << limit;
    }
    QueryRequest between = q;
    between.scan_index_forward = true;
    between.key_condition_expression = "pk = :p AND sk BETWEEN :a AND :b";
    between.expression_attribute_values[":a"] = AttributeValue::N("10");
    between.expression_attribute_values[":b"] = AttributeValue::N("19");
    std::vector<Item> in_range;
    for (const auto& i : expected) {
      const int s = std::stoi(i.at("sk").scalar());
      if (s >= 10 && s <= 19) in_range.push_back(i);
    }
    ASSERT_EQ(Ids(QueryAll(between, 4)), Ids(in_range)) << Part(p) << " BETWEEN";

    // The LSI: the partition's items of each round, both directions.
    for (int round : {0, 1}) {
      std::vector<std::string> of_round;
      for (const auto& i : expected) {
        if (i.at("round").scalar() == std::to_string(round)) {
          of_round.push_back(i.at("pk").scalar() + "/" + i.at("sk").scalar());
        }
      }
      std::sort(of_round.begin(), of_round.end());
      QueryRequest lsi = q;
      lsi.index_name = "by_round";
      lsi.key_condition_expression = "pk = :p AND #r = :r";
      lsi.expression_attribute_names = {{"#r", "round"}};
      lsi.has_expression_attribute_names = true;
      lsi.expression_attribute_values[":r"] = AttributeValue::N(std::to_string(round));
      for (bool forward : {true, false}) {
        lsi.scan_index_forward = forward;
        std::vector<std::string> ids = Ids(QueryAll(lsi, 3));
        std::sort(ids.begin(), ids.end());
        ASSERT_EQ(ids, of_round) << Part(p) << " LSI round " << round;
      }
    }
  }

  // The GSI: each g's items, by sort key then (equal sort keys) in any order.
  for (int g = 0; g < 7; ++g) {
    const std::string name = "g#" + std::to_string(g);
    std::vector<std::string> expected;
    for (const auto& [id, item] : model_) {
      if (item.at("g").scalar() == name) expected.push_back(id);
    }
    QueryRequest q;
    q.table_name = "tbl";
    q.index_name = "by_g";
    q.key_condition_expression = "g = :g";
    q.expression_attribute_values = {{":g", AttributeValue::S(name)}};
    q.has_expression_attribute_values = true;
    std::vector<Item> got = QueryAll(q, 9);
    for (size_t i = 1; i < got.size(); ++i) {
      EXPECT_LE(std::stoi(got[i - 1].at("sk").scalar()), std::stoi(got[i].at("sk").scalar()));
    }
    std::vector<std::string> ids = Ids(got);
    std::sort(ids.begin(), ids.end());
    ASSERT_EQ(ids, expected) << name;
  }

  // A paged Scan (across every partition: total order) sees every item once.
  std::vector<std::string> scanned;
  ScanRequest s;
  s.table_name = "tbl";
  s.limit = 50;
  for (int pages = 0; pages < 1000; ++pages) {
    auto r = db_->Scan(s);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    for (const auto& id : Ids(r->items)) scanned.push_back(id);
    if (!r->last_evaluated_key) break;
    s.exclusive_start_key = r->last_evaluated_key;
  }
  std::sort(scanned.begin(), scanned.end());
  std::vector<std::string> all;
  for (const auto& [id, item] : model_) all.push_back(id);
  EXPECT_EQ(scanned, all);

  // A GSI added now is backfilled by reading the table's items across
  // partitions (NewKeyOrderIterator), and the consistency check reads the
  // items and the index entries the same way: every item is indexed once.
  // First a few more flushes' worth of items in new partitions: the newest
  // table files then hold partitions the older ones lack, which a read in
  // prefix mode resuming at a key of an older partition would skip.
  for (int p = 0; p < 20; ++p) {
    for (int s = 0; s < 30; ++s) {
      Put("late#" + std::to_string(p), s, 0, s % 2, 'z');
      all.push_back("late#" + std::to_string(p) + "/" + std::to_string(s));
    }
  }
  std::sort(all.begin(), all.end());
  auto updated = db_->UpdateTable(testing::CreateGsiRequest(
      "tbl", "late_by_round", {{"round", KeyType::kHash}, {"sk", KeyType::kRange}},
      {{"round", AttrType::kN}, {"sk", AttrType::kN}}, ProjectionType::kKeysOnly));
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  ASSERT_NO_FATAL_FAILURE(testing::WaitIndexActive(db_.get(), "tbl", "late_by_round"));
  auto report = db_->CheckConsistency();
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_TRUE(report->ok()) << report->differences.size() << " differences";
  std::vector<std::string> indexed;
  for (int round : {0, 1}) {
    QueryRequest q;
    q.table_name = "tbl";
    q.index_name = "late_by_round";
    q.key_condition_expression = "#r = :r";
    q.expression_attribute_names = {{"#r", "round"}};
    q.has_expression_attribute_names = true;
    q.expression_attribute_values = {{":r", AttributeValue::N(std::to_string(round))}};
    q.has_expression_attribute_values = true;
    for (const auto& id : Ids(QueryAll(q, 100))) indexed.push_back(id);
  }
  std::sort(indexed.begin(), indexed.end());
  EXPECT_EQ(indexed, all);
}

// internal::CompactAll (the benchmarks' settled database) leaves one table
// file a column family, written with the engine's table options (filters,
// hashed data blocks): every item is then found by a point read and by its
// partition's Query, a missing one is not, and the statistics and index
// entries still agree with the items.
TEST_F(PrefixSeekTest, CompactAllKeepsEveryItemAndTheStatistics) {
  Load();
  ASSERT_FALSE(HasFailure());
  auto before = db_->DescribeTable({"tbl"});
  ASSERT_TRUE(before.ok());
  auto loaded = db_->VerifyChecksums();
  ASSERT_TRUE(loaded.ok());
  uint64_t items_bytes = 0;
  Status compacted = internal::CompactAll(db_.get(), &items_bytes);
  ASSERT_TRUE(compacted.ok()) << compacted.ToString();
  EXPECT_GT(items_bytes, 0u);
  auto files = db_->VerifyChecksums();
  ASSERT_TRUE(files.ok());
  // One file a column family with data (items, indexes, catalog). The load
  // leaves about a dozen, unless background compactions (on a busy machine)
  // got there first, so the count before is not compared.
  EXPECT_LE(files->files, 4) << loaded->files << " before";
  auto after = db_->DescribeTable({"tbl"});
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->table.item_count, before->table.item_count);
  EXPECT_EQ(after->table.table_size_bytes, before->table.table_size_bytes);
  EXPECT_EQ(after->table.item_count, static_cast<int64_t>(model_.size()));
  auto report = db_->CheckConsistency();  // statistics and index entries against the items
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE(report->ok()) << (report->differences.empty() ? "" : report->differences[0]);
  for (int p = 0; p < kPartitions; ++p) {
    std::vector<Item> expected;
    for (int s = 0; s < kPerPartition; ++s) {
      GetItemRequest g;
      g.table_name = "tbl";
      g.key = {{"pk", AttributeValue::S(Part(p))}, {"sk", AttributeValue::N(std::to_string(s))}};
      auto got = db_->GetItem(g);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      const std::string id = Part(p) + "/" + std::to_string(s);
      auto it = model_.find(id);
      if (it == model_.end()) {
        EXPECT_FALSE(got->item.has_value()) << id;
        continue;
      }
      ASSERT_TRUE(got->item.has_value()) << id;
      EXPECT_EQ(*got->item, it->second);
      expected.push_back(it->second);
    }
    QueryRequest q;
    q.table_name = "tbl";
    q.key_condition_expression = "pk = :p";
    q.expression_attribute_values = {{":p", AttributeValue::S(Part(p))}};
    q.has_expression_attribute_values = true;
    EXPECT_EQ(QueryAll(q, 1000), expected) << Part(p);
  }
}

TEST_F(PrefixSeekTest, BeginsWithAMultiAttributeIndexAndARestoredTableMatchTheModel) {
  CreateTableRequest c;
  c.table_name = "docs";
  c.billing_mode = "PAY_PER_REQUEST";
  c.attribute_definitions = {{"pk", AttrType::kS}, {"sk", AttrType::kS}, {"shop", AttrType::kS},
                             {"area", AttrType::kN}, {"dow", AttrType::kS}};
  c.key_schema = {{"pk", KeyType::kHash}, {"sk", KeyType::kRange}};
  GlobalSecondaryIndex gsi;
  gsi.index_name = "by_shop_area";
  gsi.key_schema = {{"shop", KeyType::kHash}, {"area", KeyType::kHash}, {"dow", KeyType::kRange}};
  gsi.projection.projection_type = ProjectionType::kAll;
  c.global_secondary_indexes = {gsi};
  c.has_global_secondary_indexes = true;
  ASSERT_TRUE(db_->CreateTable(c).ok());

  // Sort keys "a#07", "b#13"...: three prefixes in each partition. Two rounds
  // of shuffled puts (the second moves items between index partitions), then
  // deletes, over many small flushed files.
  std::map<std::pair<std::string, std::string>, Item> model;
  std::vector<std::pair<int, int>> keys;
  for (int p = 0; p < 25; ++p) {
    for (int s = 0; s < 36; ++s) keys.emplace_back(p, s);
  }
  auto sort_key = [](int s) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "%c#%02d", 'a' + s % 3, s);
    return std::string(buf);
  };
  std::mt19937 rng(42);
  for (int round = 0; round < 3; ++round) {
    std::shuffle(keys.begin(), keys.end(), rng);
    for (const auto& [p, s] : keys) {
      const auto id = std::make_pair(Part(p), sort_key(s));
      if (round == 2) {
        if ((p * 7 + s) % 6 != 0) continue;
        DeleteItemRequest d;
        d.table_name = "docs";
        d.key = {{"pk", AttributeValue::S(id.first)}, {"sk", AttributeValue::S(id.second)}};
        ASSERT_TRUE(db_->DeleteItem(d).ok());
        model.erase(id);
        continue;
      }
      if (round == 1 && s % 2 != 0) continue;
      PutItemRequest put;
      put.table_name = "docs";
      put.item = {{"pk", AttributeValue::S(id.first)},
                  {"sk", AttributeValue::S(id.second)},
                  {"shop", AttributeValue::S("shop" + std::to_string((p + s + round) % 4))},
                  {"area", AttributeValue::N(std::to_string((p * s + round) % 3))},
                  {"dow", AttributeValue::S(std::string(1, static_cast<char>('m' + s % 5)))},
                  {"pad", AttributeValue::S(std::string(180, static_cast<char>('a' + round)))}};
      ASSERT_TRUE(db_->PutItem(put).ok());
      model[id] = put.item;
    }
  }

  auto files = db_->VerifyChecksums();
  ASSERT_TRUE(files.ok());
  EXPECT_GE(files->files, 1) << "the load should reach table files";

  auto check_table = [&](const std::string& table) {
    for (int p = 0; p < 25; ++p) {
      for (const char* prefix : {"a#", "b#", "c#", "b#1", "d"}) {
        std::vector<std::string> expected;  // sort key order (bytes)
        for (const auto& [id, item] : model) {
          if (id.first == Part(p) && id.second.rfind(prefix, 0) == 0) expected.push_back(id.second);
        }
        QueryRequest q;
        q.table_name = table;
        q.key_condition_expression = "pk = :p AND begins_with(sk, :b)";
        q.expression_attribute_values = {{":p", AttributeValue::S(Part(p))},
                                         {":b", AttributeValue::S(prefix)}};
        q.has_expression_attribute_values = true;
        for (bool forward : {true, false}) {
          q.scan_index_forward = forward;
          std::vector<std::string> got;
          for (const auto& i : QueryAll(q, 4)) got.push_back(i.at("sk").scalar());
          std::vector<std::string> want = expected;
          if (!forward) std::reverse(want.begin(), want.end());
          ASSERT_EQ(got, want) << table << " " << Part(p) << " begins_with " << prefix
                               << (forward ? " forward" : " backward");
        }
      }
    }
    // The two-attribute index partition: every (shop, area) pair, and with a
    // sort key condition, paged.
    for (int shop = 0; shop < 4; ++shop) {
      for (int area = 0; area < 3; ++area) {
        std::set<std::string> all;
        std::set<std::string> from_p;
        for (const auto& [id, item] : model) {
          if (item.at("shop").scalar() != "shop" + std::to_string(shop) ||
              item.at("area").scalar() != std::to_string(area)) {
            continue;
          }
          all.insert(id.first + "/" + id.second);
          if (item.at("dow").scalar() >= "p") from_p.insert(id.first + "/" + id.second);
        }
        for (bool with_dow : {false, true}) {
          QueryRequest q;
          q.table_name = table;
          q.index_name = "by_shop_area";
          q.key_condition_expression =
              with_dow ? "shop = :s AND area = :a AND dow >= :d" : "shop = :s AND area = :a";
          q.expression_attribute_values = {{":s", AttributeValue::S("shop" + std::to_string(shop))},
                                           {":a", AttributeValue::N(std::to_string(area))}};
          if (with_dow) q.expression_attribute_values[":d"] = AttributeValue::S("p");
          q.has_expression_attribute_values = true;
          std::set<std::string> got;
          std::string last_dow;
          for (const auto& i : QueryAll(q, 5)) {
            EXPECT_LE(last_dow, i.at("dow").scalar()) << "index order";
            last_dow = i.at("dow").scalar();
            EXPECT_TRUE(got.insert(i.at("pk").scalar() + "/" + i.at("sk").scalar()).second);
          }
          ASSERT_EQ(got, with_dow ? from_p : all) << table << " shop" << shop << " area " << area
                                                  << (with_dow ? " dow >= p" : "");
        }
      }
    }
  };
  check_table("docs");
  if (HasFatalFailure()) return;

  // A backup restored under another name: its items and index entries are
  // written anew, and read the same way.
  auto b = db_->CreateBackup({"docs", "prefix-backup"});
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  const std::string arn = b->backup_details.backup_arn;
  ASSERT_NO_FATAL_FAILURE(testing::WaitAvailable(db_.get(), arn));
  RestoreTableFromBackupRequest restore;
  restore.target_table_name = "docs_restored";
  restore.backup_arn = arn;
  ASSERT_TRUE(db_->RestoreTableFromBackup(restore).ok());
  ASSERT_NO_FATAL_FAILURE(testing::WaitActive(db_.get(), "docs_restored"));
  check_table("docs_restored");
}

}  // namespace
}  // namespace dynarock
