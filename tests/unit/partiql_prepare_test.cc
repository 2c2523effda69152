// PartiQL's statement cache (engine/partiql/prepare.h): a statement parsed
// once runs with any parameters exactly as one parsed with them; what a
// template learnt of its table is dropped when the catalog changes (a table
// recreated with another key, an index added, another DB); the cache is
// bounded; concurrent runs of one template do not mix their parameters.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "dynarock/partiql.h"
#include "engine/partiql/parser.h"
#include "engine/partiql/prepare.h"
#include "tests/unit/testutil.h"

namespace dynarock::testing {
namespace {

class PartiqlPrepareTest : public DBTest {
 protected:
  StatusOr<ExecuteStatementResponse> Run(const std::string& statement,
                                         std::vector<AttributeValue> params = {},
                                         DB* db = nullptr) {
    ExecuteStatementRequest r;
    r.statement = statement;
    r.parameters = std::move(params);
    return ExecuteStatement(db ? *db : *db_, r);
  }
  static AttributeValue S(const std::string& s) { return AttributeValue::S(s); }
  static AttributeValue N(int n) { return AttributeValue::N(std::to_string(n)); }
};

TEST(PartiqlTemplate, SlotsWhereOperandsAndInsertMembersAre) {
  auto t = partiql::ParseTemplate("SELECT * FROM t WHERE a = ? AND b BETWEEN ? AND 3");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->param_count, 2u);
  auto ins = partiql::ParseTemplate("INSERT INTO t VALUE {'k': ?, 'm': {'x': 1}, 'v': ?}");
  ASSERT_TRUE(ins.has_value());
  ASSERT_EQ(ins->insert_params.size(), 2u);
  EXPECT_EQ(ins->insert_params[0], (std::pair<std::string, size_t>{"k", 0}));
  EXPECT_EQ(ins->insert_params[1], (std::pair<std::string, size_t>{"v", 1}));
  // A `?` inside a literal is checked with its value (a set's element types):
  // no template, the statement is parsed with its parameters.
  EXPECT_FALSE(partiql::ParseTemplate("SELECT * FROM t WHERE a = [?, 1]").has_value());
  EXPECT_TRUE(partiql::ParseTemplate("SELECT * FROM t WHERE a IN [?, 1]").has_value());
  EXPECT_FALSE(partiql::ParseTemplate("UPDATE t SET s = <<?>> WHERE k = 1").has_value());
  EXPECT_FALSE(partiql::ParseTemplate("INSERT INTO t VALUE {'k': 1, 'l': [?]}").has_value());
  // Errors are not templates either.
  EXPECT_FALSE(partiql::ParseTemplate("SELECT * FROM").has_value());
}

TEST_F(PartiqlPrepareTest, CachedStatementsTakeEachRunsParameters) {
  CreateTable("cached", "k", AttrType::kS, "n", AttrType::kN);
  const std::string insert = "INSERT INTO cached VALUE {'k': ?, 'n': ?, 'tags': ?}";
  for (int i = 0; i < 5; ++i) {
    auto r = Run(insert, {S("a"), N(i), AttributeValue::SS({"t" + std::to_string(i)})});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  auto dup = Run(insert, {S("a"), N(2), AttributeValue::SS({"x"})});
  EXPECT_EQ(dup.status().type(), ErrorType::kDuplicateItem);
  const std::string get = "SELECT tags FROM cached WHERE k = ? AND n = ?";
  for (int i = 0; i < 5; ++i) {
    auto r = Run(get, {S("a"), N(i)});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_EQ(r->items.size(), 1u);
    EXPECT_EQ(r->items[0].at("tags"), AttributeValue::SS({"t" + std::to_string(i)}));
  }
  // Too few parameters on the cached path, as on the first parse; more are ignored.
  auto few = Run(get, {S("a")});
  EXPECT_EQ(few.status().type(), ErrorType::kValidation);
  EXPECT_EQ(few.status().message(), "Number of parameters in request and statement don't match.");
  EXPECT_TRUE(Run(get, {S("a"), N(1), S("extra")}).ok());
  // A parameter's type is checked by the operation it runs as, each time.
  auto wrong = Run(get, {S("a"), S("not a number")});
  EXPECT_EQ(wrong.status().type(), ErrorType::kValidation);
  // A `?` inside a literal runs through the parse with its parameters.
  auto in = Run("SELECT * FROM cached WHERE k = 'a' AND tags = <<?>>",
                 {AttributeValue::S("t4")});
  ASSERT_TRUE(in.ok()) << in.status().ToString();
  EXPECT_EQ(in->items.size(), 1u);
  auto upd = Run("UPDATE cached SET n2 = ? WHERE k = ? AND n = ? RETURNING ALL NEW *",
                 {N(7), S("a"), N(3)});
  ASSERT_TRUE(upd.ok()) << upd.status().ToString();
  EXPECT_EQ(upd->items.at(0).at("n2"), N(7));
  EXPECT_TRUE(Run("DELETE FROM cached WHERE k = ? AND n = ?", {S("a"), N(3)}).ok());
  EXPECT_EQ(Run(get, {S("a"), N(3)})->items.size(), 0u);
}

TEST_F(PartiqlPrepareTest, CatalogChangesReplan) {
  const std::string by_k = "SELECT * FROM replanned WHERE k = ?";
  CreateTable("replanned", "k", AttrType::kS);
  Put("replanned", {{"k", S("a")}, {"v", N(1)}});
  ASSERT_EQ(Run(by_k, {S("a")})->items.size(), 1u);  // a GetItem
  // The same name with a sort key: the statement is now a Query of the partition.
  ASSERT_TRUE(db_->DeleteTable({"replanned"}).ok());
  EXPECT_EQ(Run(by_k, {S("a")}).status().type(), ErrorType::kResourceNotFound);
  CreateTable("replanned", "k", AttrType::kS, "n", AttrType::kN);
  for (int i = 0; i < 3; ++i) Put("replanned", {{"k", S("a")}, {"n", N(i)}});
  auto q = Run(by_k, {S("a")});
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_EQ(q->items.size(), 3u);
  // An index added later is seen by a statement that first failed on it.
  const std::string on_index = "SELECT * FROM \"replanned\".\"by_v\" WHERE v = ?";
  EXPECT_EQ(Run(on_index, {S("x")}).status().type(), ErrorType::kValidation);
  auto updated = db_->UpdateTable(
      CreateGsiRequest("replanned", "by_v", {{"v", KeyType::kHash}}, {{"v", AttrType::kS}}));
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  Put("replanned", {{"k", S("b")}, {"n", N(9)}, {"v", S("x")}});
  ASSERT_NO_FATAL_FAILURE(WaitIndexActive(db_.get(), "replanned", "by_v"));
  auto ix = Run(on_index, {S("x")});
  ASSERT_TRUE(ix.ok()) << ix.status().ToString();
  EXPECT_EQ(ix->items.size(), 1u);
}

TEST_F(PartiqlPrepareTest, TwoDatabasesOneStatement) {
  CreateTable("shared", "k", AttrType::kS);
  Put("shared", {{"k", S("a")}});
  Options o;
  o.in_memory = true;
  auto other = DB::Open(o, "");
  ASSERT_TRUE(other.ok());
  CreateTableRequest c;
  c.table_name = "shared";
  c.key_schema = {{"k", KeyType::kHash}, {"n", KeyType::kRange}};
  c.attribute_definitions = {{"k", AttrType::kS}, {"n", AttrType::kN}};
  c.billing_mode = "PAY_PER_REQUEST";
  ASSERT_TRUE((*other)->CreateTable(c).ok());
  for (int i = 0; i < 2; ++i) {
    PutItemRequest p;
    p.table_name = "shared";
    p.item = {{"k", S("a")}, {"n", N(i)}};
    ASSERT_TRUE((*other)->PutItem(p).ok());
  }
  const std::string st = "SELECT * FROM shared WHERE k = ?";
  for (int round = 0; round < 2; ++round) {
    EXPECT_EQ(Run(st, {S("a")})->items.size(), 1u);
    auto r = Run(st, {S("a")}, other->get());
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->items.size(), 2u);
  }
}

TEST_F(PartiqlPrepareTest, TheCacheIsBounded) {
  CreateTable("bounded", "k", AttrType::kS);
  for (size_t i = 0; i < partiql::kPreparedStatementsMax + 40; ++i) {
    ASSERT_TRUE(Run("SELECT * FROM bounded WHERE k = ? AND v" + std::to_string(i) + " = 1",
                    {S("a")}).ok());
  }
  EXPECT_EQ(partiql::PreparedStatementsCached(), partiql::kPreparedStatementsMax);
}

TEST_F(PartiqlPrepareTest, ConcurrentRunsKeepTheirParameters) {
  CreateTable("threads", "k", AttrType::kS);
  for (int i = 0; i < 50; ++i) Put("threads", {{"k", S("k" + std::to_string(i))}, {"v", N(i)}});
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 500; ++i) {
        int n = (i * 7 + t) % 50;
        auto r = Run("SELECT v FROM threads WHERE k = ?", {S("k" + std::to_string(n))});
        if (!r.ok() || r->items.size() != 1 || r->items[0].at("v") != N(n)) ++wrong;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
}  // namespace dynarock::testing
