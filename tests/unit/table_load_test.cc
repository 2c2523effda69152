// Loading a new table (DB::LoadTable, engine/table_load.cc): items added as
// maps and as encodings, on disk (table files, a stager thread) and in memory;
// their index entries, repeated keys and refusals; the table files' sort.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "dynarock/backups.h"
#include "dynarock/db.h"
#include "dynarock/item_size.h"
#include "engine/item_codec.h"
#include "engine/table_load.h"
#include "tests/unit/testutil.h"

namespace dynarock {
namespace {

class TableLoadTest : public ::testing::TestWithParam<bool> {  // on disk?
 protected:
  void SetUp() override {
    Options o;
    if (GetParam()) {
      dir_ = std::filesystem::temp_directory_path() /
             ("dynarock_table_load_" + std::to_string(::getpid()));
      std::filesystem::remove_all(dir_);
    } else {
      o.in_memory = true;
    }
    auto db = DB::Open(o, dir_.string());
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(*db);
  }
  void TearDown() override {
    db_.reset();
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  // pk (S) / sk (N); "all" indexes g (S) / sk, projecting everything;
  // "keys" indexes g too, keeping only the keys.
  static CreateTableRequest Request(const std::string& name) {
    CreateTableRequest req;
    req.table_name = name;
    req.billing_mode = "PAY_PER_REQUEST";
    req.attribute_definitions = {{"pk", AttrType::kS}, {"sk", AttrType::kN}, {"g", AttrType::kS}};
    req.key_schema = {{"pk", KeyType::kHash}, {"sk", KeyType::kRange}};
    for (const char* index : {"all", "keys"}) {
      GlobalSecondaryIndex gsi;
      gsi.index_name = index;
      gsi.key_schema = {{"g", KeyType::kHash}, {"sk", KeyType::kRange}};
      gsi.projection.projection_type =
          std::string(index) == "all" ? ProjectionType::kAll : ProjectionType::kKeysOnly;
      req.global_secondary_indexes.push_back(gsi);
    }
    return req;
  }

  // Item i as an encoding: pk "p<i % 50>", sk i, g and v given.
  static std::string Encoded(int i, const std::string& g, const std::string& v) {
    const std::string pk = "p" + std::to_string(i % 50), sk = std::to_string(i);
    std::string out;
    Item rest = {{"sk", AttributeValue::N(sk)}, {"v", AttributeValue::S(v)}};
    EncodeItemWithStrings(rest, std::vector<std::pair<std::string_view, std::string_view>>{{"g", g}, {"pk", pk}},
                          &out);
    return out;
  }

  std::vector<Item> QueryIndex(const std::string& table, const std::string& index,
                               const std::string& g) {
    QueryRequest q;
    q.table_name = table;
    q.index_name = index;
    q.key_condition_expression = "g = :g";
    q.expression_attribute_values[":g"] = AttributeValue::S(g);
    std::vector<Item> out;
    for (;;) {
      auto r = db_->Query(q);
      EXPECT_TRUE(r.ok()) << r.status().ToString();
      if (!r.ok()) break;
      out.insert(out.end(), r->items.begin(), r->items.end());
      if (!r->last_evaluated_key) break;
      q.exclusive_start_key = *r->last_evaluated_key;
    }
    return out;
  }

  std::filesystem::path dir_;
  std::unique_ptr<DB> db_;
};

// Items added encoded and as maps, some twice (the second time under another
// index key): each key keeps its last version, the indexes hold exactly the
// last versions' entries, and the counts add up.
TEST_P(TableLoadTest, EncodedAndMappedItemsLoadWithTheirIndexEntries) {
  constexpr int kItems = 6000;  // over one batch
  auto r = db_->LoadTable(Request("mixed"), [&](TableLoader& loader) -> Status {
    for (int i = 0; i < kItems; ++i) {
      if (i % 2 == 0) {
        DR_RETURN_IF_ERROR(loader.AddEncoded(Encoded(i, "even", "first")));
      } else {
        DR_RETURN_IF_ERROR(loader.Add({{"pk", AttributeValue::S("p" + std::to_string(i % 50))},
                                       {"sk", AttributeValue::N(std::to_string(i))},
                                       {"g", AttributeValue::S("odd")},
                                       {"v", AttributeValue::S("first")}}));
      }
    }
    // Every tenth item again, moved to index key "again".
    for (int i = 0; i < kItems; i += 10) {
      DR_RETURN_IF_ERROR(loader.AddEncoded(Encoded(i, "again", "second")));
    }
    return Status();
  });
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->item_count, kItems);

  GetItemRequest get;
  get.table_name = "mixed";
  get.key = {{"pk", AttributeValue::S("p20")}, {"sk", AttributeValue::N("20")}};
  auto got = db_->GetItem(get);
  ASSERT_TRUE(got.ok() && got->item.has_value());
  EXPECT_EQ(got->item->at("v").scalar(), "second");
  EXPECT_EQ(got->item->at("g").scalar(), "again");
  get.key = {{"pk", AttributeValue::S("p2")}, {"sk", AttributeValue::N("2")}};
  got = db_->GetItem(get);
  ASSERT_TRUE(got.ok() && got->item.has_value());
  EXPECT_EQ(got->item->at("v").scalar(), "first");

  EXPECT_EQ(QueryIndex("mixed", "all", "again").size(), static_cast<size_t>(kItems / 10));
  EXPECT_EQ(QueryIndex("mixed", "all", "even").size(), static_cast<size_t>(kItems / 2 - kItems / 10));
  EXPECT_EQ(QueryIndex("mixed", "all", "odd").size(), static_cast<size_t>(kItems / 2));
  auto keys_only = QueryIndex("mixed", "keys", "again");
  ASSERT_EQ(keys_only.size(), static_cast<size_t>(kItems / 10));
  EXPECT_EQ(keys_only[0].count("v"), 0u);  // projected away
  EXPECT_EQ(keys_only[0].size(), 3u);
  for (const Item& item : QueryIndex("mixed", "all", "again")) EXPECT_EQ(item.at("v").scalar(), "second");

  auto check = db_->CheckConsistency();
  ASSERT_TRUE(check.ok()) << check.status().ToString();
  EXPECT_TRUE(check->ok());
}

// An encoded item's keys are read on the loader's own thread on disk: one
// without its sort key fails the load (and the table goes); in memory they
// are read at once, and the item alone is refused. Over 400 KB is refused at
// once either way.
TEST_P(TableLoadTest, AnEncodedItemWithoutItsKeyIsRefused) {
  int refused = 0;
  auto r = db_->LoadTable(Request("keyless"), [&](TableLoader& loader) -> Status {
    DR_RETURN_IF_ERROR(loader.AddEncoded(Encoded(1, "g", "v")));
    std::string big;
    Item huge = {{"sk", AttributeValue::N("2")}, {"v", AttributeValue::S(std::string(410 * 1024, 'x'))}};
    EncodeItemWithStrings(huge, std::vector<std::pair<std::string_view, std::string_view>>{{"pk", "p"}}, &big);
    if (loader.AddEncoded(big).type() == ErrorType::kValidation) ++refused;
    std::string keyless;
    Item no_sk = {{"v", AttributeValue::S("x")}};
    EncodeItemWithStrings(no_sk, std::vector<std::pair<std::string_view, std::string_view>>{{"pk", "p"}},
                          &keyless);
    Status s = loader.AddEncoded(keyless);
    if (!s.ok()) {
      EXPECT_EQ(s.type(), ErrorType::kValidation);
      ++refused;
    }
    return Status();
  });
  DescribeTableRequest dt;
  dt.table_name = "keyless";
  if (GetParam()) {
    EXPECT_EQ(refused, 1);
    EXPECT_EQ(r.status().type(), ErrorType::kValidation) << r.status().ToString();
    EXPECT_EQ(db_->DescribeTable(dt).status().type(), ErrorType::kResourceNotFound);
  } else {
    EXPECT_EQ(refused, 2);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->item_count, 1);
  }
  // Bytes that are no item: refused at once in memory, failing the load on
  // disk (whose first look reads only the size the encoding starts with).
  const std::string garbage = "\x02" "\x05" "not an item";
  Status added;
  auto g = db_->LoadTable(Request("garbage"), [&](TableLoader& loader) -> Status {
    added = loader.AddEncoded(garbage);
    return Status();
  });
  if (GetParam()) {
    EXPECT_TRUE(added.ok());
    EXPECT_EQ(g.status().type(), ErrorType::kValidation) << g.status().ToString();
  } else {
    EXPECT_EQ(added.type(), ErrorType::kValidation);
    EXPECT_TRUE(g.ok()) << g.status().ToString();
  }
}

// A checkpoint saved with the table lands only with it: after a load that
// succeeds it is there (the last value given), after one that fails it is not
// (and a bad name is refused at once).
TEST_P(TableLoadTest, ACheckpointSavedWithTheTableLandsOnlyWithIt) {
  auto r = db_->LoadTable(Request("kept"), [&](TableLoader& loader) -> Status {
    DR_RETURN_IF_ERROR(loader.AddEncoded(Encoded(1, "g", "v")));
    EXPECT_EQ(loader.SaveCheckpointWithTable("", "x").type(), ErrorType::kValidation);
    DR_RETURN_IF_ERROR(loader.SaveCheckpointWithTable("job/kept", "running"));
    return loader.SaveCheckpointWithTable("job/kept", "done");
  });
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto kept = db_->LoadCheckpoint("job/kept");
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(kept->value_or("<none>"), "done");

  auto failed = db_->LoadTable(Request("dropped"), [&](TableLoader& loader) -> Status {
    DR_RETURN_IF_ERROR(loader.AddEncoded(Encoded(1, "g", "v")));
    DR_RETURN_IF_ERROR(loader.SaveCheckpointWithTable("job/dropped", "done"));
    return Status(ErrorType::kValidation, "the source went bad");
  });
  EXPECT_EQ(failed.status().type(), ErrorType::kValidation);
  auto dropped = db_->LoadCheckpoint("job/dropped");
  ASSERT_TRUE(dropped.ok());
  EXPECT_FALSE(dropped->has_value());
}

// A database whose global indexes lag (Options::gsi_lag_*): a key loaded
// twice still gets its index entry at once (nobody reads a loading table, so
// nothing is held back), and the earlier version's is gone.
TEST(TableLoadLagTest, RepeatedKeysKeepTheirIndexEntriesWhenIndexesLag) {
  Options o;
  o.in_memory = true;
  o.gsi_lag_min_seconds = 30;
  o.gsi_lag_max_seconds = 30;
  auto db = std::move(DB::Open(o, "").value());
  CreateTableRequest req;
  req.table_name = "lagging";
  req.billing_mode = "PAY_PER_REQUEST";
  req.attribute_definitions = {{"pk", AttrType::kS}, {"g", AttrType::kS}};
  req.key_schema = {{"pk", KeyType::kHash}};
  GlobalSecondaryIndex gsi;
  gsi.index_name = "by_g";
  gsi.key_schema = {{"g", KeyType::kHash}};
  gsi.projection.projection_type = ProjectionType::kAll;
  req.global_secondary_indexes.push_back(gsi);
  auto r = db->LoadTable(req, [](TableLoader& loader) -> Status {
    DR_RETURN_IF_ERROR(loader.Add({{"pk", AttributeValue::S("a")}, {"g", AttributeValue::S("first")}}));
    return loader.Add({{"pk", AttributeValue::S("a")}, {"g", AttributeValue::S("second")}});
  });
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  for (const char* g : {"first", "second"}) {
    QueryRequest q;
    q.table_name = "lagging";
    q.index_name = "by_g";
    q.key_condition_expression = "g = :g";
    q.expression_attribute_values[":g"] = AttributeValue::S(g);
    q.has_expression_attribute_values = true;
    auto found = db->Query(q);
    ASSERT_TRUE(found.ok()) << found.status().ToString();
    EXPECT_EQ(found->items.size(), std::string(g) == "second" ? 1u : 0u) << g;
  }
}

INSTANTIATE_TEST_SUITE_P(Load, TableLoadTest, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "OnDisk" : "InMemory"; });

// The table files' sort: by key bytewise (shorter first), then by arrival;
// an entry followed by a later one of the same key marked superseded.
// Few keys (sorted at once) and many (spread by their top bits first, as a
// table file's keys led by a hash are): the same order as a stable sort.
class SortLoadEntriesTest : public ::testing::TestWithParam<int> {};

TEST_P(SortLoadEntriesTest, SortsLikeStringsAndMarksEarlierVersions) {
  std::mt19937 rng(7);
  std::vector<std::string> keys;
  const std::string prefix(20, 'p');  // long shared prefixes, as table files have
  for (int i = 0; i < GetParam(); ++i) {
    std::string k = prefix;
    // Some keys go on with "hash" bytes (any value), then, as all do, with
    // bytes of a small alphabet: long runs that tie.
    if (i % 3 == 0) {
      for (int b = 0; b < 8; ++b) k.push_back(static_cast<char>(rng() % (i % 2 ? 256 : 3)));
    }
    const int len = static_cast<int>(rng() % 24);
    for (int b = 0; b < len; ++b) k.push_back(static_cast<char>("\0\1ab\xff"[rng() % 5]));
    keys.push_back(k);
    if (rng() % 7 == 0) keys.push_back(k);  // the same key again
  }
  keys.push_back(prefix);
  keys.push_back(prefix + std::string(1, '\0'));
  std::vector<uint32_t> order(keys.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<uint32_t>(i);
  SortLoadEntries([&](uint32_t i) { return std::string_view(keys[i]); }, &order);

  std::vector<uint32_t> want(keys.size());
  for (size_t i = 0; i < want.size(); ++i) want[i] = static_cast<uint32_t>(i);
  std::stable_sort(want.begin(), want.end(), [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
  ASSERT_EQ(order.size(), want.size());
  for (size_t i = 0; i < order.size(); ++i) {
    EXPECT_EQ(order[i] & ~kSuperseded, want[i]) << i;
    const bool later_same = i + 1 < want.size() && keys[want[i + 1]] == keys[want[i]];
    EXPECT_EQ((order[i] & kSuperseded) != 0, later_same) << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, SortLoadEntriesTest, ::testing::Values(3000, 40000));

TEST(EncodeItemWithStringsTest, EncodesAsTheWholeItemWould) {
  Item rest = {{"b", AttributeValue::N("1")},
               {"m", AttributeValue::M({{"x", AttributeValue::S("y")}})},
               {"zz", AttributeValue::SS({"q", "r"})}};
  std::string out;
  const size_t size = EncodeItemWithStrings(
      rest, std::vector<std::pair<std::string_view, std::string_view>>{{"a", "first"}, {"c", ""}, {"zzz", "last"}},
      &out);
  Item whole = rest;
  whole["a"] = AttributeValue::S("first");
  whole["c"] = AttributeValue::S("");
  whole["zzz"] = AttributeValue::S("last");
  EXPECT_EQ(out, EncodeItem(whole));
  EXPECT_EQ(size, ItemSize(whole));
  std::string none;
  EncodeItemWithStrings({}, {}, &none);
  EXPECT_EQ(none, EncodeItem({}));
}

}  // namespace
}  // namespace dynarock
