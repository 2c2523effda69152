// Pins BatchGetItem, BatchWriteItem, TransactWriteItems and TransactGetItems on
// the embedded API: limits, duplicates, all-or-nothing with cancellation reasons
// in request order, idempotency tokens, and concurrent transfers that keep the
// total exact.

#include <atomic>
#include <thread>

#include "tests/unit/testutil.h"

namespace dynarock::testing {
namespace {

class BatchTest : public DBTest {
 protected:
  void SetUp() override {
    DBTest::SetUp();
    CreateTable("acct", "id", AttrType::kS);
  }
  TransactWriteItem Update(const std::string& id, const std::string& expr, Item values,
                           std::optional<std::string> condition = std::nullopt) {
    TransactWriteItem t;
    t.kind = TransactWriteItem::Kind::kUpdate;
    t.table_name = "acct";
    t.key = MakeItem({{"id", S(id)}});
    t.update_expression = expr;
    t.condition_expression = std::move(condition);
    t.expression_attribute_values = std::move(values);
    t.has_expression_attribute_values = true;
    return t;
  }
};

TEST_F(BatchTest, BatchWriteThenGet) {
  BatchWriteItemRequest w;
  for (int i = 0; i < 25; ++i) {
    WriteRequest r;
    r.put_item = MakeItem({{"id", S("k" + std::to_string(i))}, {"v", N(std::to_string(i))}});
    w.request_items["acct"].push_back(r);
  }
  auto wr = db_->BatchWriteItem(w);
  ASSERT_OK(wr);
  EXPECT_TRUE(wr->unprocessed_items.empty());
  WriteRequest extra;
  extra.put_item = MakeItem({{"id", S("k99")}});
  w.request_items["acct"].push_back(extra);
  EXPECT_ERROR(db_->BatchWriteItem(w), ErrorType::kValidation, "Member must have length less than or equal to 25");

  BatchWriteItemRequest dup;
  WriteRequest a, b;
  a.put_item = MakeItem({{"id", S("same")}});
  b.delete_key = MakeItem({{"id", S("same")}});
  dup.request_items["acct"] = {a, b};
  EXPECT_ERROR(db_->BatchWriteItem(dup), ErrorType::kValidation, "Provided list of item keys contains duplicates");

  BatchGetItemRequest g;
  g.request_items["acct"].keys = {MakeItem({{"id", S("k1")}}), MakeItem({{"id", S("k2")}}),
                                  MakeItem({{"id", S("absent")}})};
  g.request_items["acct"].projection_expression = "v";
  auto gr = db_->BatchGetItem(g);
  ASSERT_OK(gr);
  ASSERT_EQ(gr->responses["acct"].size(), 2u);
  EXPECT_EQ(gr->responses["acct"][0].size(), 1u);  // projected to v only
  g.request_items["acct"].keys.push_back(MakeItem({{"id", S("k1")}}));
  EXPECT_ERROR(db_->BatchGetItem(g), ErrorType::kValidation, "Provided list of item keys contains duplicates");
  g.request_items["missing"].keys = {MakeItem({{"id", S("k1")}})};
  g.request_items["acct"].keys.pop_back();
  EXPECT_ERROR(db_->BatchGetItem(g), ErrorType::kResourceNotFound, "Requested resource not found");
}

TEST_F(BatchTest, TransactionIsAllOrNothing) {
  Put("acct", MakeItem({{"id", S("a")}, {"bal", N("10")}}));
  Put("acct", MakeItem({{"id", S("b")}, {"bal", N("0")}}));
  TransactWriteItemsRequest req;
  req.transact_items = {
      Update("a", "SET bal = bal - :x", MakeItem({{":x", N("20")}}), "bal >= :x"),
      Update("b", "SET bal = bal + :x", MakeItem({{":x", N("20")}})),
  };
  req.transact_items[0].return_values_on_condition_check_failure_all_old = true;
  auto r = db_->TransactWriteItems(req);
  ASSERT_EQ(r.status().type(), ErrorType::kTransactionCanceled) << r.status().ToString();
  EXPECT_NE(r.status().message().find("[ConditionalCheckFailed, None]"), std::string::npos);
  const auto& reasons = r.status().cancellation_reasons();
  ASSERT_EQ(reasons.size(), 2u);
  EXPECT_EQ(reasons[0].code, "ConditionalCheckFailed");
  ASSERT_TRUE(reasons[0].item.has_value());
  EXPECT_EQ(reasons[0].item->at("bal"), N("10"));
  EXPECT_EQ(reasons[1].code, "None");
  EXPECT_EQ(Get("acct", MakeItem({{"id", S("b")}}))->at("bal"), N("0"));

  req.transact_items[0].expression_attribute_values[":x"] = N("4");
  req.transact_items[1].expression_attribute_values[":x"] = N("4");
  req.client_request_token = "token-1";
  ASSERT_OK(db_->TransactWriteItems(req));
  ASSERT_OK(db_->TransactWriteItems(req));  // an idempotent retry applies nothing
  EXPECT_EQ(Get("acct", MakeItem({{"id", S("a")}}))->at("bal"), N("6"));
  EXPECT_EQ(Get("acct", MakeItem({{"id", S("b")}}))->at("bal"), N("4"));
  req.transact_items[0].expression_attribute_values[":x"] = N("1");
  EXPECT_ERROR(db_->TransactWriteItems(req), ErrorType::kIdempotentParameterMismatch, "ClientRequestToken");

  TransactWriteItemsRequest twice;
  twice.transact_items = {Update("a", "SET x = :x", MakeItem({{":x", N("1")}})),
                          Update("a", "SET y = :x", MakeItem({{":x", N("1")}}))};
  EXPECT_ERROR(db_->TransactWriteItems(twice), ErrorType::kValidation,
               "Transaction request cannot include multiple operations on one item");

  TransactGetItemsRequest get;
  TransactGetItem ga, gb;
  ga.table_name = gb.table_name = "acct";
  ga.key = MakeItem({{"id", S("a")}});
  gb.key = MakeItem({{"id", S("nobody")}});
  get.transact_items = {ga, gb};
  auto got = db_->TransactGetItems(get);
  ASSERT_OK(got);
  ASSERT_EQ(got->responses.size(), 2u);
  EXPECT_TRUE(got->responses[0].has_value());
  EXPECT_FALSE(got->responses[1].has_value());
}

TEST_F(BatchTest, ConflictsAreReportedAsDynamoDBDoes) {
  // Many threads hammer the same two items with transactions and single writes:
  // every outcome is success, a TransactionConflict cancellation or a
  // TransactionConflictException, never a deadlock or a lost update.
  Put("acct", MakeItem({{"id", S("x")}, {"n", N("0")}}));
  Put("acct", MakeItem({{"id", S("y")}, {"n", N("0")}}));
  std::atomic<int> committed{0}, conflicts{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 300; ++i) {
        if (t % 2 == 0) {
          TransactWriteItemsRequest req;
          req.transact_items = {Update("x", "ADD n :one", MakeItem({{":one", N("1")}})),
                                Update("y", "ADD n :one", MakeItem({{":one", N("1")}}))};
          auto r = db_->TransactWriteItems(req);
          if (r.ok()) {
            committed++;
          } else {
            ASSERT_EQ(r.status().type(), ErrorType::kTransactionCanceled) << r.status().ToString();
            bool conflict = false;
            for (const auto& reason : r.status().cancellation_reasons())
              conflict |= reason.code == "TransactionConflict";
            ASSERT_TRUE(conflict);
            conflicts++;
          }
        } else {
          UpdateItemRequest up;
          up.table_name = "acct";
          up.key = MakeItem({{"id", S("x")}});
          up.update_expression = "ADD n :one";
          up.expression_attribute_values = MakeItem({{":one", N("1")}});
          up.has_expression_attribute_values = true;
          auto r = db_->UpdateItem(up);
          if (r.ok()) {
            committed++;
          } else {
            ASSERT_EQ(r.status().type(), ErrorType::kTransactionConflict) << r.status().ToString();
            conflicts++;
          }
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  int x = std::stoi(Get("acct", MakeItem({{"id", S("x")}}))->at("n").scalar());
  int y = std::stoi(Get("acct", MakeItem({{"id", S("y")}}))->at("n").scalar());
  EXPECT_EQ(committed + conflicts, 1200);
  EXPECT_EQ(x, committed.load());  // x moves with every success, y with transactions only
  EXPECT_LE(y, x);
}

TEST_F(BatchTest, ConcurrentTransfersKeepTheTotal) {
  constexpr int kAccounts = 5;
  for (int i = 0; i < kAccounts; ++i) Put("acct", MakeItem({{"id", S(std::to_string(i))}, {"bal", N("100")}}));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 150; ++i) {
        int from = (t + i) % kAccounts, to = (t + 2 * i + 1) % kAccounts;
        if (from == to) continue;
        TransactWriteItemsRequest req;
        req.transact_items = {
            Update(std::to_string(from), "SET bal = bal - :x", MakeItem({{":x", N("7")}}), "bal >= :x"),
            Update(std::to_string(to), "SET bal = bal + :x", MakeItem({{":x", N("7")}}))};
        auto r = db_->TransactWriteItems(req);
        ASSERT_TRUE(r.ok() || r.status().type() == ErrorType::kTransactionCanceled) << r.status().ToString();
      }
    });
  }
  for (auto& th : threads) th.join();
  int total = 0;
  for (int i = 0; i < kAccounts; ++i) {
    auto item = Get("acct", MakeItem({{"id", S(std::to_string(i))}}));
    int bal = std::stoi(item->at("bal").scalar());
    EXPECT_GE(bal, 0);
    total += bal;
  }
  EXPECT_EQ(total, kAccounts * 100);
}

}  // namespace
}  // namespace dynarock::testing
