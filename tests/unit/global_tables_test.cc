// Global tables' MRSC writes cut short (tools/server/global_tables_strong.cc):
// a write claims its items and the region saves them as being written until
// the claim is released; at start, each item a region was writing is copied
// from it to the other replicas, and nothing else is.

#include "tools/server/global_tables.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "engine/api/json_encode.h"
#include "tests/unit/testutil.h"
#include "tools/server/namespaces.h"

namespace dynarock::server {
namespace {

Item Key(const std::string& pk) { return Item{{"pk", AttributeValue::S(pk)}}; }

std::optional<Item> Read(DB* db, const std::string& table, const std::string& pk) {
  GetItemRequest get;
  get.table_name = table;
  get.key = Key(pk);
  get.consistent_read = true;
  auto r = db->GetItem(get);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? r->item : std::nullopt;
}

TEST(GlobalTablesStrong, AWriteCutShortIsCopiedAtTheNextStart) {
  Namespaces::Config config;
  config.db_options.in_memory = true;
  auto ns = Namespaces::Open(config);
  ASSERT_OK(ns);
  GlobalTablesOptions options;
  options.lag = std::chrono::milliseconds(0);
  options.log = [](const std::string&) {};
  auto first = std::make_unique<GlobalTables>(options);
  first->Attach(ns->get());
  auto east = (*ns)->DatabaseOf("k", "us-east-1");
  ASSERT_OK(east);
  ASSERT_OK((*east)->CreateTable(testing::PkTableRequest("mrsc")));
  api::Handler::GlobalTableHooks hooks = first->HooksFor("k_us-east-1");
  UpdateTableRequest strong;
  strong.table_name = "mrsc";
  strong.multi_region_consistency = "STRONG";
  strong.replica_updates = {ReplicaUpdate{ReplicaUpdate::Action::kCreate, "eu-west-1", std::nullopt, {}},
                            ReplicaUpdate{ReplicaUpdate::Action::kCreate, "ap-south-1", std::nullopt, {}}};
  ASSERT_OK(hooks.update(**east, strong));
  DB* west = *(*ns)->DatabaseOf("k", "eu-west-1");
  DB* south = *(*ns)->DatabaseOf("k", "ap-south-1");
  ASSERT_TRUE(hooks.is_strong(**east, "mrsc"));

  // A claim saves its item as being written, until it is released.
  {
    auto claim = hooks.claim(**east, {{"mrsc", Key("a")}});
    ASSERT_OK(claim);
    auto writing = (*east)->LoadCheckpoint("global-table-writing/mrsc");
    ASSERT_OK(writing);
    ASSERT_TRUE(writing->has_value());
    EXPECT_EQ(**writing, api::EncodeItemJson(Key("a")) + "\n");
    // Another region's write to it is refused meanwhile.
    auto other = first->HooksFor("k_eu-west-1").claim(*west, {{"mrsc", Key("a")}});
    EXPECT_EQ(other.status().type(), ErrorType::kReplicatedWriteConflict);
  }
  EXPECT_EQ((*east)->LoadCheckpoint("global-table-writing/mrsc")->value_or("?"), "");

  // A crash between a write and its copy: the item is in us-east-1 only,
  // and us-east-1 had saved it as being written. Another item written there
  // outside any claim (not a write of the endpoint's) is not copied.
  PutItemRequest put;
  put.table_name = "mrsc";
  put.item = Key("cut");
  put.item["v"] = AttributeValue::N("1");
  ASSERT_OK((*east)->PutItem(put));
  put.item = Key("unclaimed");
  ASSERT_OK((*east)->PutItem(put));
  ASSERT_TRUE((*east)->SaveCheckpoint("global-table-writing/mrsc", api::EncodeItemJson(Key("cut")) + "\n").ok());
  first->Stop();
  first.reset();
  EXPECT_FALSE(Read(west, "mrsc", "cut"));

  GlobalTables second(options);
  second.Attach(ns->get());
  for (DB* other : {west, south}) {
    auto copied = Read(other, "mrsc", "cut");
    ASSERT_TRUE(copied);
    EXPECT_EQ(copied->at("v"), AttributeValue::N("1"));
    EXPECT_FALSE(Read(other, "mrsc", "unclaimed"));
  }
  EXPECT_EQ((*east)->LoadCheckpoint("global-table-writing/mrsc")->value_or("?"), "");
  second.Stop();
}

// Writes made in one region within one millisecond (a record's stamp is a
// whole millisecond: here the clock stands still) are ordered by that
// region's change log: v1 then v2 ends as v2 in every replica (v2 tied v1's
// stamp, lost to it, and us-east-1 kept v2 while eu-west-1 got v1), and
// v1, v2, v1 after it as v1.
TEST(GlobalTablesEventual, WritesOfOneRegionInOneMillisecondKeepTheirOrder) {
  const auto still = [] { return 1.7e9; };
  Namespaces::Config config;
  config.db_options.in_memory = true;
  config.db_options.clock = still;
  auto ns = Namespaces::Open(config);
  ASSERT_OK(ns);
  GlobalTablesOptions options;
  options.lag = std::chrono::milliseconds(0);
  options.log = [](const std::string&) {};
  options.clock = still;
  GlobalTables tables(options);
  tables.Attach(ns->get());
  auto east = (*ns)->DatabaseOf("k", "us-east-1");
  ASSERT_OK(east);
  ASSERT_OK((*east)->CreateTable(testing::PkTableRequest("eventual")));
  UpdateTableRequest replica;
  replica.table_name = "eventual";
  replica.replica_updates = {ReplicaUpdate{ReplicaUpdate::Action::kCreate, "eu-west-1", std::nullopt, {}}};
  ASSERT_OK(tables.HooksFor("k_us-east-1").update(**east, replica));
  DB* west = *(*ns)->DatabaseOf("k", "eu-west-1");

  PutItemRequest put;
  put.table_name = "eventual";
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"p", {"v1", "v2"}}, {"q", {"v1", "v2", "v1"}}};
  for (const auto& [pk, values] : cases) {
    for (const auto& v : values) {
      put.item = Key(pk);
      put.item["v"] = AttributeValue::S(v);
      ASSERT_OK((*east)->PutItem(put));
    }
  }
  for (const auto& [pk, values] : cases) {
    auto holds = [&, pk = pk, last = values.back()](DB* db) {
      auto item = Read(db, "eventual", pk);
      return item && item->at("v") == AttributeValue::S(last);
    };
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!holds(west) && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // nothing later undoes it
    auto got = Read(west, "eventual", pk);
    EXPECT_TRUE(holds(west)) << pk << ": " << (got ? DebugString(*got) : "none");
    EXPECT_TRUE(holds(*east)) << pk;
  }
  tables.Stop();
}

}  // namespace
}  // namespace dynarock::server
