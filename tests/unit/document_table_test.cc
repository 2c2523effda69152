// The document API's table handle (document/table.h), the same app code run
// embedded and over HTTP (an in-process endpoint on loopback) with the same
// answers: put/get/update/delete with conditions, paging queries and scans,
// batches past DynamoDB's per-request limits.

#include "document/table.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/api/faults.h"
#include "tests/unit/document_backends.h"

namespace dynarock::document {
namespace {

using DocumentTableTest = DocumentBackendTest;

// The app: the same code whatever the client.
TEST_P(DocumentTableTest, ATodoAppRunsTheSameOnBothBackends) {
  Table todos(client_, "todos");
  for (int due = 1; due <= 40; ++due) {
    ASSERT_TRUE(todos.Put(Map{{"user", "ann"}, {"due", due}, {"done", due % 4 == 0},
                              {"title", "task " + std::to_string(due)}})
                    .ok());
  }
  // A conditional put that loses: the item exists.
  Status again = todos.Put(Map{{"user", "ann"}, {"due", 1}}, Name("user").AttributeNotExists());
  EXPECT_EQ(again.type(), ErrorType::kConditionalCheckFailed) << again.ToString();

  auto got = todos.Get(Map{{"user", "ann"}, {"due", 3}}, /*consistent_read=*/true, {"title"});
  ASSERT_TRUE(got.ok() && got->has_value()) << got.status().ToString();
  EXPECT_EQ(Value(**got), Value(Map{{"title", "task 3"}}));
  auto none = todos.Get(Map{{"user", "bob"}, {"due", 1}});
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());

  auto after = todos.Update(Map{{"user", "ann"}, {"due", 3}},
                            document::Update().Set("done", true).Set("edits", IfNotExists("edits", 0) + 1),
                            Name("done").Eq(false));
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  EXPECT_EQ((*after)["edits"].AsInt().value(), 1);
  EXPECT_EQ((*after)["done"].AsBool().value(), true);
  EXPECT_EQ(todos.Update(Map{{"user", "ann"}, {"due", 3}}, document::Update().Set("done", true),
                         Name("done").Eq(false))
                .status()
                .type(),
            ErrorType::kConditionalCheckFailed);

  // Pages of 7 with their cursor, and the whole query at once.
  QueryOptions o;
  o.limit = 7;
  o.filter = Name("done").Eq(false);
  const KeyCondition ann = Key("user").Eq("ann").And(Key("due").Le(30));
  int pages = 0, seen = 0;
  std::optional<Value> cursor;
  do {
    auto page = todos.QueryPage(ann, o, cursor);
    ASSERT_TRUE(page.ok()) << page.status().ToString();
    ++pages;
    seen += static_cast<int>(page->items.size());
    cursor = page->next;
  } while (cursor);
  EXPECT_EQ(pages, 5);  // 30 items evaluated, 7 a page
  auto all = todos.QueryAll(ann, o);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(static_cast<int>(all->size()), seen);
  EXPECT_EQ(seen, 30 - 7 - 1);  // every fourth is done, and 3 was marked done
  EXPECT_EQ((*all)[0]["due"].AsInt().value(), 1);
  o.forward = false;
  o.filter.reset();
  o.limit.reset();
  EXPECT_EQ((*todos.QueryAll(ann, o))[0]["due"].AsInt().value(), 30);

  // Batches past DynamoDB's limits (25 writes, 100 keys a request).
  std::vector<Value> items, keys;
  for (int i = 0; i < 130; ++i) {
    items.push_back(Map{{"user", "bob"}, {"due", i}, {"n", i}});
    keys.push_back(Map{{"user", "bob"}, {"due", i}});
  }
  ASSERT_TRUE(todos.BatchPut(items).ok());
  auto fetched = todos.BatchGet(keys, /*consistent_read=*/true);
  ASSERT_TRUE(fetched.ok()) << fetched.status().ToString();
  EXPECT_EQ(fetched->size(), 130u);
  ASSERT_TRUE(todos.BatchDelete(std::vector<Value>(keys.begin(), keys.begin() + 60)).ok());
  auto scanned = todos.ScanAll();
  ASSERT_TRUE(scanned.ok());
  EXPECT_EQ(scanned->size(), 40u + 70u);

  auto deleted = todos.Delete(Map{{"user", "ann"}, {"due", 40}}, Name("done").Eq(true));
  ASSERT_TRUE(deleted.ok() && deleted->has_value());
  EXPECT_EQ((**deleted)["title"].AsString().value(), "task 40");
  // Bad input is refused before anything is sent.
  EXPECT_EQ(todos.Put(List{1}).type(), ErrorType::kValidation);
  EXPECT_EQ(todos.QueryAll(Key("user").Gt("a")).status().type(), ErrorType::kValidation);
  EXPECT_EQ(todos.Get(Map{{"user", "ann"}}).status().type(), ErrorType::kValidation);  // no sort key
}

// A transaction over two items: made whole, or, when one condition fails,
// not at all (TransactionCanceledException); one that cannot be built sends
// nothing.
TEST_P(DocumentTableTest, ATransactionWritesAllOrNothing) {
  Table todos(client_, "todos");
  ASSERT_TRUE(todos.Put(Map{{"user", "ann"}, {"due", 1}, {"points", 10}}).ok());
  ASSERT_TRUE(todos.Put(Map{{"user", "bob"}, {"due", 1}, {"points", 0}}).ok());
  ASSERT_TRUE(todos.Put(Map{{"user", "rules"}, {"due", 1}, {"open", true}}).ok());
  auto points = [&](const char* user) {
    auto got = todos.Get(Map{{"user", user}, {"due", 1}}, true);
    EXPECT_TRUE(got.ok() && got->has_value());
    if (!got.ok() || !got->has_value()) return std::string();
    auto n = (**got)["points"].AsNumber();
    return n.ok() ? n->text() : std::string();
  };
  // Moves n points from ann to bob, if ann has them and the rules are open;
  // a third write logs it.
  auto move = [&](int n) {
    Transaction tx(client_);
    tx.Update(todos, Map{{"user", "ann"}, {"due", 1}}, document::Update().Add("points", -n),
              Name("points").Ge(n))
        .Update(todos, Map{{"user", "bob"}, {"due", 1}}, document::Update().Add("points", n))
        .Put(todos, Map{{"user", "log"}, {"due", n}, {"moved", n}})
        .Check(todos, Map{{"user", "rules"}, {"due", 1}}, Name("open").Eq(true));
    EXPECT_EQ(tx.size(), 4u);
    return tx.Commit();
  };
  ASSERT_TRUE(move(4).ok());
  EXPECT_EQ(points("ann"), "6");
  EXPECT_EQ(points("bob"), "4");
  Status refused = move(7);  // ann has 6
  EXPECT_EQ(refused.type(), ErrorType::kTransactionCanceled) << refused.ToString();
  EXPECT_EQ(points("ann"), "6");
  EXPECT_EQ(points("bob"), "4");
  auto log = todos.Get(Map{{"user", "log"}, {"due", 7}}, true);
  ASSERT_TRUE(log.ok());
  EXPECT_FALSE(log->has_value());

  // A set with a duplicate cannot be built: Commit fails and nothing is sent.
  Transaction bad(client_);
  bad.Put(todos, Map{{"user", "carl"}, {"due", 1}})
      .Put(todos, Map{{"user", "carl"}, {"due", 2}, {"tags", Value::StringSet({"a", "a"})}});
  Status s = bad.Commit();
  EXPECT_EQ(s.type(), ErrorType::kValidation) << s.ToString();
  auto carl = todos.Get(Map{{"user", "carl"}, {"due", 1}}, true);
  ASSERT_TRUE(carl.ok());
  EXPECT_FALSE(carl->has_value());
}

// A GSI with a multi-attribute key (two partition and two sort attributes):
// the key condition's equalities left to right, a range on the last.
TEST_P(DocumentTableTest, AMultiAttributeIndexIsQueriedLeftToRight) {
  CreateTableRequest c;
  c.table_name = "orders";
  c.billing_mode = "PAY_PER_REQUEST";
  c.attribute_definitions = {{"id", AttrType::kS}, {"shop", AttrType::kS}, {"area", AttrType::kN},
                             {"dow", AttrType::kS}, {"amount", AttrType::kN}};
  c.key_schema = {{"id", KeyType::kHash}};
  GlobalSecondaryIndex g;
  g.index_name = "by_shop";
  g.key_schema = {{"shop", KeyType::kHash}, {"area", KeyType::kHash}, {"dow", KeyType::kRange},
                  {"amount", KeyType::kRange}};
  g.projection.projection_type = ProjectionType::kAll;
  c.global_secondary_indexes = {g};
  ASSERT_TRUE(client_->CreateTable(c).ok());
  Table orders(client_, "orders");
  for (int i = 0; i < 40; ++i) {
    ASSERT_TRUE(orders.Put(Map{{"id", "o" + std::to_string(100 + i)}, {"shop", i % 2 ? "s1" : "s0"},
                               {"area", i % 3}, {"dow", i % 4 ? "mon" : "tue"}, {"amount", 20 - i}})
                    .ok());
  }
  QueryOptions o;
  o.index = "by_shop";
  auto got = orders.QueryAll(
      Key("shop").Eq("s1").And(Key("area").Eq(2)).And(Key("dow").Eq("mon")).And(Key("amount").Gt(-3)), o);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  std::vector<std::string> ids;
  for (const Value& v : *got) ids.push_back(v["id"].AsString().value());
  std::vector<std::string> want;
  for (int i = 39; i >= 0; --i) {  // amount descends with i: index order is the ids' reverse
    if (i % 2 == 1 && i % 3 == 2 && i % 4 != 0 && 20 - i > -3) want.push_back("o" + std::to_string(100 + i));
  }
  ASSERT_FALSE(want.empty());
  EXPECT_EQ(ids, want);
}

// Batches against an endpoint that leaves parts unprocessed, and single
// writes it throttles: the helpers send the rest again until it is done, and
// give up with ProvisionedThroughputExceeded after `max_attempts` rounds.
TEST(DocumentBatchFaultsTest, UnprocessedPartsAreSentAgainUntilDoneOrOutOfAttempts) {
  Backend backend(/*http=*/true);
  ASSERT_TRUE(backend.ok());
  auto faults = std::make_shared<api::FaultInjector>();
  ASSERT_TRUE(faults
                  ->SetRulesJson(R"({"seed":3,"rules":[
      {"name":"half-writes","operation":"BatchWriteItem","first_n":4,"action":"unprocessed","fraction":0.5},
      {"name":"half-reads","operation":"BatchGetItem","first_n":3,"action":"unprocessed","fraction":0.5},
      {"name":"throttle","operation":"PutItem","first_n":2,"action":"error",
       "error":"ProvisionedThroughputExceededException"}]})")
                  .ok());
  backend.handler()->SetFaults(faults);
  Table todos(backend.client(), "todos");
  std::vector<Value> items, keys;
  for (int due = 0; due < 60; ++due) {
    items.push_back(Map{{"user", "ann"}, {"due", due}, {"n", due * 2}});
    keys.push_back(Map{{"user", "ann"}, {"due", due}});
  }
  ASSERT_TRUE(todos.BatchPut(items).ok());
  auto all = todos.QueryAll(Key("user").Eq("ann"));
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 60u);  // nothing lost to the unprocessed halves
  auto got = todos.BatchGet(keys, true);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->size(), 60u);
  // The throttled PutItem is retried by the HTTP client itself.
  ASSERT_TRUE(todos.Put(Map{{"user", "bob"}, {"due", 1}}).ok());
  auto counters = faults->Counters();
  ASSERT_EQ(counters.size(), 3u);
  EXPECT_EQ(counters[0].fired, 4u);
  EXPECT_EQ(counters[1].fired, 3u);
  EXPECT_EQ(counters[2].fired, 2u);

  // Always half unprocessed: out of attempts, with what DynamoDB would say.
  ASSERT_TRUE(faults
                  ->SetRulesJson(R"({"rules":[{"operation":"BatchWriteItem","action":"unprocessed","fraction":1}]})")
                  .ok());
  Status s = todos.BatchPut({Map{{"user", "carl"}, {"due", 1}}}, /*max_attempts=*/3);
  EXPECT_EQ(s.type(), ErrorType::kProvisionedThroughputExceeded) << s.ToString();
  EXPECT_EQ(faults->Counters()[0].fired, 3u);
  auto carl = todos.Get(Map{{"user", "carl"}, {"due", 1}}, true);
  ASSERT_TRUE(carl.ok());
  EXPECT_FALSE(carl->has_value());
}

INSTANTIATE_TEST_SUITE_P(Backends, DocumentTableTest, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "Http" : "Embedded"; });

}  // namespace
}  // namespace dynarock::document
