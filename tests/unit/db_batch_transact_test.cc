// Pins BatchGetItem, BatchWriteItem, TransactWriteItems and TransactGetItems on
// the embedded API: limits, duplicates, all-or-nothing with cancellation reasons
// in request order, idempotency tokens, and concurrent transfers that keep the
// total exact.

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <thread>

#include "dynarock/item_size.h"
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

// A put's numbers are stored in their normal form, nested ones too, while the
// request keeps what its caller wrote; a number that is not one, or a set that
// normalising makes hold a duplicate, refuses the whole batch and writes nothing.
TEST_F(BatchTest, BatchWriteStoresNumbersNormalized) {
  BatchWriteItemRequest w;
  WriteRequest plain, odd;
  plain.put_item = MakeItem({{"id", S("plain")}, {"n", N("12")}});
  odd.put_item = MakeItem({{"id", S("odd")},
                           {"n", N("012.50")},
                           {"l", AttributeValue::L({N("1E2"), S("1E2")})},
                           {"m", AttributeValue::M(MakeItem({{"x", N("7.000")}}))},
                           {"ns", AttributeValue::NS({"1.0", "2"})}});
  const Item as_sent = *odd.put_item;
  w.request_items["acct"] = {plain, odd};
  ASSERT_OK(db_->BatchWriteItem(w));
  EXPECT_EQ(*w.request_items["acct"][1].put_item, as_sent);
  const Item stored = Get("acct", MakeItem({{"id", S("odd")}})).value();
  EXPECT_EQ(stored.at("n"), N("12.5"));
  EXPECT_EQ(stored.at("l"), AttributeValue::L({N("100"), S("1E2")}));
  EXPECT_EQ(stored.at("m"), AttributeValue::M(MakeItem({{"x", N("7")}})));
  EXPECT_EQ(stored.at("ns"), AttributeValue::NS({"1", "2"}));
  EXPECT_EQ(Get("acct", MakeItem({{"id", S("plain")}})).value().at("n"), N("12"));
  // The stored size is the normalised item's: what the table's statistics add up.
  auto described = db_->DescribeTable({"acct"});
  ASSERT_OK(described);
  EXPECT_EQ(described->table.table_size_bytes,
            static_cast<int64_t>(ItemSize(stored) +
                                 ItemSize(Get("acct", MakeItem({{"id", S("plain")}})).value())));

  const std::pair<AttributeValue, const char*> refusals[] = {
      {AttributeValue::M(MakeItem({{"x", N("1.2.3")}})), "The parameter cannot be converted to a numeric value"},
      {AttributeValue::NS({"1", "1.0"}), "Input collection contains duplicates"},
  };
  for (const auto& [bad, message] : refusals) {
    BatchWriteItemRequest refused;
    WriteRequest first, second;
    first.put_item = MakeItem({{"id", S("first")}});
    second.put_item = MakeItem({{"id", S("second")}, {"bad", bad}});
    refused.request_items["acct"] = {first, second};
    auto r = db_->BatchWriteItem(refused);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().type(), ErrorType::kValidation) << r.status().ToString();
    EXPECT_NE(r.status().message().find(message), std::string::npos) << r.status().message();
    EXPECT_FALSE(Get("acct", MakeItem({{"id", S("first")}})).has_value());
    EXPECT_FALSE(Get("acct", MakeItem({{"id", S("second")}})).has_value());
  }
}

// Keys are duplicates when they are equal once normalized: numbers written two
// ways are one key, and any two of a hundred keys are found, wherever they are.
TEST_F(BatchTest, BatchGetFindsDuplicatesAsNormalizedKeys) {
  CreateTable("nums", "n", AttrType::kN);
  BatchGetItemRequest g;
  auto& keys = g.request_items["nums"].keys;
  for (int i = 0; i < 100; ++i) keys.push_back(MakeItem({{"n", N(std::to_string(i))}}));
  auto distinct = db_->BatchGetItem(g);
  ASSERT_OK(distinct);
  EXPECT_TRUE(distinct->responses["nums"].empty());
  EXPECT_TRUE(distinct->unprocessed_keys.empty());
  for (const char* twin : {"7.0", "0.7E1", "70e-1"}) {
    keys[99] = MakeItem({{"n", N(twin)}});  // the same number as keys[7]
    EXPECT_ERROR(db_->BatchGetItem(g), ErrorType::kValidation,
                 "Provided list of item keys contains duplicates");
  }
  keys[99] = MakeItem({{"n", N("7.5")}});
  ASSERT_OK(db_->BatchGetItem(g));
  keys[0] = keys[98];
  EXPECT_ERROR(db_->BatchGetItem(g), ErrorType::kValidation,
               "Provided list of item keys contains duplicates");
}

// A batch's statistics go in as one delta a table and index (WriteSet::stats):
// counts and sizes stay exact through puts, overwrites that move an index
// entry, and deletes, and agree with the items and entries themselves.
TEST_F(BatchTest, BatchStatisticsStayExact) {
  CreateGsiTable(db_.get(), "stats");
  // A table without indexes or a stream: its writes know an old item by its
  // stored size alone, without decoding it.
  ASSERT_OK(db_->CreateTable(PkTableRequest("plain")));
  auto batch = [&](int from, int to, const std::string& g, bool del) {
    for (const char* table : {"stats", "plain"}) {
      BatchWriteItemRequest req;
      for (int i = from; i < to; ++i) {
        WriteRequest w;
        if (del) {
          w.delete_key = MakeItem({{"pk", S("k" + std::to_string(i))}});
        } else {
          w.put_item = MakeItem(
              {{"pk", S("k" + std::to_string(i))}, {"g", S(g)}, {"v", S(std::string(i, 'x'))}});
        }
        req.request_items[table].push_back(std::move(w));
      }
      ASSERT_OK(db_->BatchWriteItem(req));
    }
  };
  batch(0, 25, "a", false);
  batch(10, 35, "b", false);  // 15 overwrites (index key moves), 10 new
  batch(0, 5, "", true);
  auto d = db_->DescribeTable({"stats"});
  ASSERT_OK(d);
  EXPECT_EQ(d->table.item_count, 30);
  EXPECT_EQ(d->table.global_secondary_indexes.at(0).item_count, 30);
  int64_t bytes = 0;
  for (int i = 5; i < 35; ++i) {
    bytes += static_cast<int64_t>(ItemSize(MakeItem(
        {{"pk", S("k" + std::to_string(i))}, {"g", S(i < 10 ? "a" : "b")}, {"v", S(std::string(i, 'x'))}})));
  }
  EXPECT_EQ(d->table.table_size_bytes, bytes);
  auto plain = db_->DescribeTable({"plain"});
  ASSERT_OK(plain);
  EXPECT_EQ(plain->table.item_count, 30);
  EXPECT_EQ(plain->table.table_size_bytes, bytes);
  auto check = db_->CheckConsistency();
  ASSERT_OK(check);
  EXPECT_TRUE(check->ok()) << (check->differences.empty() ? "" : check->differences.front());
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

TEST_F(BatchTest, ConcurrentRetriesWithOneTokenApplyOnce) {
  Put("acct", MakeItem({{"id", S("c")}, {"n", N("0")}}));
  // Rounds of identical requests sent at once with the same token: each round
  // adds one, whatever the interleaving; the losers are told the first is in
  // progress or are answered as its retry.
  constexpr int kRounds = 60, kThreads = 4;
  std::atomic<int> unexpected{0};
  for (int round = 0; round < kRounds; ++round) {
    TransactWriteItemsRequest req;
    req.transact_items = {Update("c", "ADD n :one", MakeItem({{":one", N("1")}}))};
    req.client_request_token = "round-" + std::to_string(round);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&] {
        auto r = db_->TransactWriteItems(req);
        if (!r.ok() && r.status().type() != ErrorType::kTransactionInProgress) unexpected++;
      });
    }
    for (auto& t : threads) t.join();
  }
  EXPECT_EQ(unexpected.load(), 0);
  EXPECT_EQ(Get("acct", MakeItem({{"id", S("c")}}))->at("n"), N(std::to_string(kRounds)));
}

TEST_F(BatchTest, TokensBelongToTheirDatabase) {
  Options options;
  options.in_memory = true;
  auto other = DB::Open(options, "");
  ASSERT_OK(other);
  for (DB* db : {db_.get(), other->get()}) {
    if (db != db_.get()) {
      CreateTableRequest ct;
      ct.table_name = "acct";
      ct.key_schema = {{"id", KeyType::kHash}};
      ct.attribute_definitions = {{"id", AttrType::kS}};
      ct.billing_mode = "PAY_PER_REQUEST";
      ASSERT_OK(db->CreateTable(ct));
    }
    TransactWriteItemsRequest req;
    req.transact_items = {Update("d", "ADD n :one", MakeItem({{":one", N("1")}}))};
    req.client_request_token = "shared-token";
    ASSERT_OK(db->TransactWriteItems(req));
    GetItemRequest get;
    get.table_name = "acct";
    get.key = MakeItem({{"id", S("d")}});
    auto got = db->GetItem(get);
    ASSERT_OK(got);
    ASSERT_TRUE(got->item.has_value());  // applied on each database
    EXPECT_EQ(got->item->at("n"), N("1"));
  }
}

TEST(TokenPersistenceTest, ARetryAfterReopenIsStillARetry) {
  const std::string dir = ::testing::TempDir() + "/dynarock-token-" + std::to_string(::getpid());
  std::filesystem::remove_all(dir);
  auto open = [&] {
    Options options;
    auto db = DB::Open(options, dir);
    EXPECT_TRUE(db.ok()) << db.status().ToString();
    return std::move(db).value();
  };
  TransactWriteItemsRequest req;
  TransactWriteItem t;
  t.kind = TransactWriteItem::Kind::kUpdate;
  t.table_name = "acct";
  t.key = MakeItem({{"id", S("a")}});
  t.update_expression = "ADD n :one";
  t.expression_attribute_values = MakeItem({{":one", N("1")}});
  t.has_expression_attribute_values = true;
  req.transact_items = {t};
  req.client_request_token = "restart-token";
  auto n_of = [](DB* db) {
    GetItemRequest get;
    get.table_name = "acct";
    get.key = MakeItem({{"id", S("a")}});
    return db->GetItem(get)->item->at("n").scalar();
  };
  {
    auto db = open();
    CreateTableRequest ct;
    ct.table_name = "acct";
    ct.key_schema = {{"id", KeyType::kHash}};
    ct.attribute_definitions = {{"id", AttrType::kS}};
    ct.billing_mode = "PAY_PER_REQUEST";
    ASSERT_OK(db->CreateTable(ct));
    ASSERT_OK(db->TransactWriteItems(req));
    EXPECT_EQ(n_of(db.get()), "1");
  }
  {
    auto db = open();
    ASSERT_OK(db->TransactWriteItems(req));  // a retry: applied once only
    EXPECT_EQ(n_of(db.get()), "1");
    // A retry asking for capacity is told what reading the item costs.
    req.return_consumed_capacity = ReturnConsumedCapacity::kTotal;
    auto r = db->TransactWriteItems(req);
    ASSERT_OK(r);
    ASSERT_EQ(r->consumed_capacity.size(), 1u);
    EXPECT_EQ(r->consumed_capacity[0].read_capacity_units.value_or(-1), 1);
    req.return_consumed_capacity = ReturnConsumedCapacity::kNone;
    TransactWriteItemsRequest other = req;
    other.transact_items[0].expression_attribute_values[":one"] = N("2");
    EXPECT_ERROR(db->TransactWriteItems(other), ErrorType::kIdempotentParameterMismatch,
                 "ClientRequestToken");
  }
  std::filesystem::remove_all(dir);
}

TEST_F(BatchTest, TransactionLimits) {
  TransactWriteItemsRequest req;
  req.transact_items = {Update("e", "ADD n :one", MakeItem({{":one", N("1")}}))};
  req.client_request_token = std::string(37, 't');
  EXPECT_ERROR(db_->TransactWriteItems(req), ErrorType::kValidation,
               "at 'clientRequestToken' failed to satisfy constraint: Member must have length "
               "less than or equal to 36");
  req.client_request_token = "";
  EXPECT_ERROR(db_->TransactWriteItems(req), ErrorType::kValidation,
               "Member must have length greater than or equal to 1");

  // 4 MB in all: ten puts of 390 KB pass, eleven do not.
  TransactWriteItemsRequest big;
  for (int i = 0; i < 11; ++i) {
    TransactWriteItem t;
    t.kind = TransactWriteItem::Kind::kPut;
    t.table_name = "acct";
    t.item = MakeItem({{"id", S("big" + std::to_string(i))}, {"pad", S(std::string(390 * 1024, 'x'))}});
    big.transact_items.push_back(std::move(t));
  }
  EXPECT_ERROR(db_->TransactWriteItems(big), ErrorType::kValidation,
               "The aggregate size of the items in the transaction cannot exceed 4 MB");
  EXPECT_FALSE(Get("acct", MakeItem({{"id", S("big0")}})).has_value());
  big.transact_items.pop_back();
  ASSERT_OK(db_->TransactWriteItems(big));
  // Reading them back in one transaction is under 4 MB too; one more is not.
  Put("acct", MakeItem({{"id", S("big10")}, {"pad", S(std::string(390 * 1024, 'x'))}}));
  TransactGetItemsRequest get;
  for (int i = 0; i < 11; ++i) {
    TransactGetItem g;
    g.table_name = "acct";
    g.key = MakeItem({{"id", S("big" + std::to_string(i))}});
    get.transact_items.push_back(std::move(g));
  }
  EXPECT_ERROR(db_->TransactGetItems(get), ErrorType::kValidation,
               "The aggregate size of the items in the transaction cannot exceed 4 MB");
  get.transact_items.pop_back();
  ASSERT_OK(db_->TransactGetItems(get));
}

TEST_F(BatchTest, FailedWritesCarryWhatTheyAreBilled) {
  Put("acct", MakeItem({{"id", S("f")}, {"pad", S(std::string(1500, 'x'))}}));
  PutItemRequest put;
  put.table_name = "acct";
  put.item = MakeItem({{"id", S("f")}});
  put.condition_expression = "attribute_not_exists(id)";
  auto r = db_->PutItem(put);
  ASSERT_EQ(r.status().type(), ErrorType::kConditionalCheckFailed);
  ASSERT_EQ(r.status().billed().size(), 1u);
  EXPECT_EQ(r.status().billed()[0].table_name, "acct");
  EXPECT_EQ(r.status().billed()[0].write_units, 2);  // the ~1.5 KB item it read

  TransactWriteItemsRequest txn;
  txn.transact_items = {Update("f", "SET v = :x", MakeItem({{":x", N("1")}}), "attribute_not_exists(id)"),
                        Update("g", "SET v = :x", MakeItem({{":x", N("1")}}))};
  auto t = db_->TransactWriteItems(txn);
  ASSERT_EQ(t.status().type(), ErrorType::kTransactionCanceled);
  ASSERT_EQ(t.status().billed().size(), 1u);
  EXPECT_EQ(t.status().billed()[0].write_units, 2 * 2 + 2 * 1);  // both items, twice
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
