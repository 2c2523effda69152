// The document API's table handle (document/table.h), the same app code run
// embedded and over HTTP (an in-process endpoint on loopback) with the same
// answers: put/get/update/delete with conditions, paging queries and scans,
// batches past DynamoDB's per-request limits.

#include "document/table.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "dynarock/db.h"
#include "engine/api/handler.h"
#include "graph/embedded_client.h"
#include "graph/http_client.h"
#include "tools/server/http_server.h"

namespace dynarock::document {
namespace {

class DocumentTableTest : public ::testing::TestWithParam<bool> {  // over HTTP?
 protected:
  void SetUp() override {
    Options o;
    o.in_memory = true;
    db_ = std::move(DB::Open(o, "").value());
    if (GetParam()) {
      handler_ = std::make_unique<api::Handler>(db_.get());
      server::HttpServerOptions so;
      so.port = 0;
      so.threads = 1;
      server_ = std::make_unique<server::HttpServer>(so, handler_.get());
      uint16_t port = 0;
      ASSERT_TRUE(server_->Start(&port).ok());
      graph::HttpClientOptions ho;
      ho.endpoint = "http://127.0.0.1:" + std::to_string(port);
      client_ = std::move(graph::HttpClient::Create(ho).value());
    } else {
      client_ = std::make_unique<graph::EmbeddedClient>(db_.get());
    }
    CreateTableRequest c;
    c.table_name = "todos";
    c.billing_mode = "PAY_PER_REQUEST";
    c.attribute_definitions = {{"user", AttrType::kS}, {"due", AttrType::kN}};
    c.key_schema = {{"user", KeyType::kHash}, {"due", KeyType::kRange}};
    ASSERT_TRUE(client_->CreateTable(c).ok());
  }
  void TearDown() override {
    client_.reset();
    server_.reset();
    handler_.reset();
    db_.reset();
  }

  std::unique_ptr<DB> db_;
  std::unique_ptr<api::Handler> handler_;
  std::unique_ptr<server::HttpServer> server_;
  std::unique_ptr<graph::Client> client_;
};

// The app: the same code whatever the client.
TEST_P(DocumentTableTest, ATodoAppRunsTheSameOnBothBackends) {
  Table todos(client_.get(), "todos");
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
  Table todos(client_.get(), "todos");
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
    Transaction tx(client_.get());
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
  Transaction bad(client_.get());
  bad.Put(todos, Map{{"user", "carl"}, {"due", 1}})
      .Put(todos, Map{{"user", "carl"}, {"due", 2}, {"tags", Value::StringSet({"a", "a"})}});
  Status s = bad.Commit();
  EXPECT_EQ(s.type(), ErrorType::kValidation) << s.ToString();
  auto carl = todos.Get(Map{{"user", "carl"}, {"due", 1}}, true);
  ASSERT_TRUE(carl.ok());
  EXPECT_FALSE(carl->has_value());
}

INSTANTIATE_TEST_SUITE_P(Backends, DocumentTableTest, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "Http" : "Embedded"; });

}  // namespace
}  // namespace dynarock::document
