// PartiQL: the parser's forms and refusals, and statements run on the embedded
// DB through ExecuteStatement (planning: GetItem, Query, Scan; writes).

#include <gtest/gtest.h>

#include "dynarock/partiql.h"
#include "engine/partiql/parser.h"
#include "tests/unit/testutil.h"

namespace dynarock::testing {
namespace {

using partiql::ParseStatement;
using partiql::Statement;

TEST(PartiqlParser, Forms) {
  auto s = ParseStatement(R"(select a.b[2], "c" FROM "t"."idx" WHERE x = ? AND y BETWEEN 1 AND 2 )"
                          R"(ORDER BY y desc)",
                          {AttributeValue::S("v")});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->kind, Statement::Kind::kSelect);
  EXPECT_EQ(s->table, "t");
  EXPECT_EQ(*s->index, "idx");
  ASSERT_EQ(s->projection.size(), 2u);
  EXPECT_EQ(s->projection[0].size(), 3u);
  EXPECT_TRUE(s->projection[0][2].is_index);
  ASSERT_EQ(s->order_by.size(), 1u);
  EXPECT_TRUE(s->order_by[0].descending);

  auto ins = ParseStatement("INSERT INTO t VALUE {'k': 'a''b', 'n': -12.50, 'l': [TRUE, NULL], "
                            "'s': <<1, 2>>}", {});
  ASSERT_TRUE(ins.ok()) << ins.status().ToString();
  EXPECT_EQ(ins->insert_value.at("k"), AttributeValue::S("a'b"));
  EXPECT_EQ(ins->insert_value.at("n"), AttributeValue::N("-12.5"));
  EXPECT_EQ(ins->insert_value.at("s"), AttributeValue::NS({"1", "2"}));

  auto up = ParseStatement("UPDATE t SET a = a + 1, b = 'x' REMOVE c WHERE k = 1 RETURNING MODIFIED NEW *", {});
  ASSERT_TRUE(up.ok()) << up.status().ToString();
  EXPECT_EQ(up->sets.size(), 2u);
  EXPECT_EQ(up->removes.size(), 1u);
  EXPECT_EQ(*up->returning, "MODIFIED NEW");
}

TEST(PartiqlParser, OrderByTermsAndBracketNames) {
  auto s = ParseStatement("SELECT m['a b'].c FROM t WHERE k = 1 ORDER BY k, s DESC", {});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_EQ(s->projection.size(), 1u);
  ASSERT_EQ(s->projection[0].size(), 3u);
  EXPECT_EQ(s->projection[0][1].name, "a b");
  EXPECT_FALSE(s->projection[0][1].is_index);
  ASSERT_EQ(s->order_by.size(), 2u);
  EXPECT_FALSE(s->order_by[0].descending);
  EXPECT_TRUE(s->order_by[1].descending);
}

TEST(PartiqlParser, Comments) {
  auto s = ParseStatement("/* a block\n comment */ SELECT * -- to the end of the line\n FROM t /**/;", {});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->table, "t");
  EXPECT_FALSE(ParseStatement("SELECT * FROM t /* unterminated", {}).ok());
}

TEST(PartiqlParser, Refusals) {
  auto message = [](std::string_view text, std::vector<AttributeValue> p = {}) {
    auto s = ParseStatement(text, p);
    EXPECT_FALSE(s.ok()) << text;
    return s.ok() ? std::string() : s.status().message();
  };
  EXPECT_EQ(message("SELECT * FRM t").rfind("Statement wasn't well formed", 0), 0u);
  EXPECT_NE(message("SELECT * FROM t WHERE a = 'x").find("Unterminated string"), std::string::npos);
  EXPECT_EQ(message("SELECT COUNT(*) FROM t"), "Unexpected path component at 1:8:5");
  EXPECT_EQ(message("SELECT * FROM t GROUP BY a"), "Unsupported clause: GROUP BY");
  // DynamoDB points at LIMIT's value.
  EXPECT_EQ(message("SELECT * FROM t WHERE a = 1 LIMIT 5"), "Unsupported clause: LIMIT at 1:35:1");
  EXPECT_EQ(message("SELECT * FROM (SELECT * FROM t)"), "Unexpected from source");
  EXPECT_EQ(message("SELECT * FROM a, b"), "Only select from a single table or index is supported.");
  EXPECT_EQ(message("INSERT INTO t VALUE {'a': <<>>}"), "Empty bags are not supported at 1:27:2");
  EXPECT_EQ(message("INSERT INTO t VALUE {'a': 1, 'a': 2}"),
            "Duplicate keys in tuple. Key: a under root at 1:30:3");
  EXPECT_EQ(message("INSERT INTO t VALUE 'notamap'"),
            "Unsupported format in item expression. Please use struct format {...} to express item "
            "values for insert statement. at 1:21:9");
  EXPECT_EQ(message("INSERT INTO t VALUE {'k': -0.0}"),
            "Negative zero decimal is not supported under key root at 1:28:3");
  EXPECT_TRUE(ParseStatement("INSERT INTO t VALUE {'k': -0}", {}).ok());
  // PartiQL's reserved words are names only when quoted.
  EXPECT_NE(message("SELECT * FROM t WHERE pad = 'x'").find("'pad' (position 23) is a reserved word"),
            std::string::npos);
  EXPECT_NE(message("SELECT size, value FROM t").find("reserved word"), std::string::npos);
  EXPECT_NE(message("SELECT * FROM user").find("reserved word"), std::string::npos);
  EXPECT_NE(message("UPDATE t SET m.date = 1 WHERE k = 1").find("'date'"), std::string::npos);
  EXPECT_TRUE(ParseStatement("SELECT \"size\", \"value\" FROM \"user\" WHERE \"pad\" = 'x' "
                             "AND size(\"date\") > 1 AND name = 'n' AND year = 1", {}).ok());
  // Trailing words are syntax errors, not aliases; an alias follows the table.
  EXPECT_EQ(message("SELECT * FROM t WHERE a = 1 garbage").rfind("Statement wasn't well formed", 0), 0u);
  EXPECT_EQ(message("SELECT * FROM t WHERE a = 1.5e").rfind("Statement wasn't well formed", 0), 0u);
  EXPECT_EQ(message("SELECT * FROM t x WHERE a = 1"), "Aliasing is not supported");
  EXPECT_EQ(message("SELECT * FROM t WHERE a IN []"),
            "IN operator must have a left hand argument of type Variable Reference and right hand "
            "argument of type Seq with at least one member");
  EXPECT_EQ(message("SELECT * FROM t WHERE a IN ?"), message("SELECT * FROM t WHERE a IN []"));
  EXPECT_EQ(message("SELECT * FROM t WHERE foo(a) = 1"), "Unrecognized function: foo");
  EXPECT_EQ(message("CREATE TABLE foo"), "Unsupported operation: CreateTable");
  EXPECT_EQ(message("DROP INDEX i"), "Unsupported operation: DropIndex");
  EXPECT_EQ(message("SELECT ? FROM t"), "Unexpected path component at 1:8:1");
  EXPECT_EQ(message("SELECT a + 1 FROM t"), "Unexpected path component at 1:10:1");
  EXPECT_EQ(message("SELECT DISTINCT a FROM t"), "Unsupported token in expression: DISTINCT");
  EXPECT_EQ(message("SELECT * FROM t WHERE a = MISSING"), "MISSING must be compared using IS operator");
  EXPECT_EQ(message("INSERT INTO t VALUE {'k': 1} RETURNING ALL OLD *"),
            "RETURNING is not supported in INSERT");
  EXPECT_EQ(message("UPDATE \"t\".\"i\" SET a = 1 WHERE k = 1"),
            "This operation is not supported on an index");
  EXPECT_NE(message("SELECT * FROM t WHERE a = ?").find("parameters"), std::string::npos);
  // More parameters than `?` are ignored, as DynamoDB does.
  EXPECT_TRUE(ParseStatement("SELECT * FROM t", {AttributeValue::S("x")}).ok());
  // An empty quoted identifier names nothing (found by the fuzzer).
  EXPECT_NE(message("SELECT * FROM \"\" WHERE a = 1").find("Empty identifier"), std::string::npos);
  EXPECT_NE(message("SELECT \"\" FROM t").find("Empty identifier"), std::string::npos);
  // Deep nesting is refused, not a stack overflow.
  std::string deep = "SELECT * FROM t WHERE " + std::string(5000, '(') + "a = 1" +
                     std::string(5000, ')');
  EXPECT_FALSE(ParseStatement(deep, {}).ok());
  EXPECT_FALSE(ParseStatement(std::string(9000, ' ') + "SELECT * FROM t", {}).ok());
}

class PartiqlTest : public DBTest {
 protected:
  StatusOr<ExecuteStatementResponse> Run(const std::string& statement,
                                         std::vector<AttributeValue> params = {}) {
    ExecuteStatementRequest r;
    r.statement = statement;
    r.parameters = std::move(params);
    return ExecuteStatement(*db_, r);
  }
};

TEST_F(PartiqlTest, SelectInsertUpdateDelete) {
  CreateTable("songs", "artist", AttrType::kS, "n", AttrType::kN);
  for (int i = 1; i <= 3; ++i) {
    ASSERT_TRUE(Run("INSERT INTO songs VALUE {'artist': 'a', 'n': ?, 'v': 'x'}",
                    {AttributeValue::N(std::to_string(i))}).ok());
  }
  auto dup = Run("INSERT INTO songs VALUE {'artist': 'a', 'n': 1}");
  EXPECT_EQ(dup.status().type(), ErrorType::kDuplicateItem);
  auto q = Run("SELECT n FROM songs WHERE artist = 'a' AND n >= 2");
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_EQ(q->items.size(), 2u);
  auto get = Run("SELECT * FROM songs WHERE artist = 'a' AND n = 3");
  ASSERT_TRUE(get.ok());
  ASSERT_EQ(get->items.size(), 1u);
  auto upd = Run("UPDATE songs SET v = 'y' WHERE artist = 'a' AND n = 3 RETURNING MODIFIED OLD *");
  ASSERT_TRUE(upd.ok()) << upd.status().ToString();
  ASSERT_EQ(upd->items.size(), 1u);
  EXPECT_EQ(upd->items[0], (Item{{"v", AttributeValue::S("x")}}));
  auto missing = Run("UPDATE songs SET v = 'y' WHERE artist = 'b' AND n = 1");
  EXPECT_EQ(missing.status().type(), ErrorType::kConditionalCheckFailed);
  ASSERT_TRUE(Run("DELETE FROM songs WHERE artist = 'a' AND n = 1").ok());
  auto scan = Run("SELECT * FROM songs");
  ASSERT_TRUE(scan.ok());
  EXPECT_EQ(scan->items.size(), 2u);
  auto partial = Run("DELETE FROM songs WHERE artist = 'a'");
  EXPECT_EQ(partial.status().type(), ErrorType::kValidation);
}

// A GSI with a multi-attribute key: a SELECT naming every partition attribute
// (and sort attributes left to right, equalities before the last condition)
// is a Query of the index with all of them in its key condition; without one
// partition attribute it is a Scan; conditions on key attributes outside the
// key condition apply to the Query's items.
TEST_F(PartiqlTest, MultiAttributeIndexKeysPlanAQuery) {
  CreateTableRequest req;
  req.table_name = "orders";
  req.billing_mode = "PAY_PER_REQUEST";
  req.attribute_definitions = {{"id", AttrType::kS}, {"shop", AttrType::kS},
                               {"area", AttrType::kS}, {"dow", AttrType::kS},
                               {"amount", AttrType::kN}};
  req.key_schema = {{"id", KeyType::kHash}};
  GlobalSecondaryIndex g;
  g.index_name = "byStatus";
  g.key_schema = {{"shop", KeyType::kHash}, {"area", KeyType::kHash},
                  {"dow", KeyType::kRange}, {"amount", KeyType::kRange}};
  g.projection.projection_type = ProjectionType::kAll;
  req.global_secondary_indexes = {g};
  ASSERT_TRUE(db_->CreateTable(req).ok());
  const char* rows[][5] = {{"o1", "open", "eu", "mon", "10"}, {"o2", "open", "eu", "mon", "25"},
                           {"o3", "open", "eu", "tue", "30"}, {"o4", "open", "us", "mon", "40"},
                           {"o5", "shut", "eu", "mon", "50"}};
  for (const auto& r : rows) {
    ASSERT_TRUE(Run("INSERT INTO orders VALUE {'id': ?, 'shop': ?, 'area': ?, 'dow': ?, 'amount': ?}",
                    {AttributeValue::S(r[0]), AttributeValue::S(r[1]), AttributeValue::S(r[2]),
                     AttributeValue::S(r[3]), AttributeValue::N(r[4])}).ok());
  }
  auto ids = [&](const std::string& statement) {
    auto r = Run(statement);
    EXPECT_TRUE(r.ok()) << statement << ": " << r.status().ToString();
    std::set<std::string> out;
    if (r.ok()) for (const auto& item : r->items) out.insert(item.at("id").scalar());
    return out;
  };
  EXPECT_EQ(ids("SELECT * FROM orders.byStatus WHERE shop = 'open' AND area = 'eu'"),
            (std::set<std::string>{"o1", "o2", "o3"}));
  EXPECT_EQ(ids("SELECT * FROM orders.byStatus WHERE area = 'eu' AND shop = 'open' AND "
                "dow = 'mon' AND amount >= 20"),
            (std::set<std::string>{"o2"}));
  // amount without an equality on dow: not in the key condition, applied after.
  EXPECT_EQ(ids("SELECT * FROM orders.byStatus WHERE shop = 'open' AND area = 'eu' AND amount > 20"),
            (std::set<std::string>{"o2", "o3"}));
  EXPECT_EQ(ids("SELECT * FROM orders.byStatus WHERE shop = 'open'"),  // a Scan
            (std::set<std::string>{"o1", "o2", "o3", "o4"}));
  auto describe = [&](const std::string& t) { return db_->DescribeKeys(t); };
  auto query = ExplainStatement("SELECT * FROM orders.byStatus WHERE shop = 'open' AND area = 'eu' "
                                "AND dow = 'mon' AND amount > 5", {}, describe);
  ASSERT_TRUE(query.ok()) << query.status().ToString();
  EXPECT_NE(query->find("Query on orders (index byStatus)"), std::string::npos) << *query;
  EXPECT_NE(query->find("area = 'eu'"), std::string::npos) << *query;
  EXPECT_NE(query->find("amount > 5"), std::string::npos) << *query;
  auto scan = ExplainStatement("SELECT * FROM orders.byStatus WHERE shop = 'open'", {}, describe);
  ASSERT_TRUE(scan.ok());
  EXPECT_NE(scan->find("Scan on orders"), std::string::npos) << *scan;
}

// The planners' schema lookup: keys and indexes, no statistics; a missing
// table is ResourceNotFoundException.
TEST_F(PartiqlTest, DescribeKeys) {
  CreateTable("keys", "h", AttrType::kS, "r", AttrType::kN);
  Put("keys", {{"h", AttributeValue::S("a")}, {"r", AttributeValue::N("1")}});
  auto d = db_->DescribeKeys("keys");
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  ASSERT_EQ(d->key_schema.size(), 2u);
  EXPECT_EQ(d->key_schema[1].attribute_name, "r");
  EXPECT_EQ(d->attribute_definitions.size(), 2u);
  EXPECT_EQ(d->item_count, 0);  // not read: DescribeTable's job
  EXPECT_EQ(db_->DescribeKeys("nope").status().type(), ErrorType::kResourceNotFound);
  auto explained = ExplainStatement("SELECT * FROM keys WHERE v = 1", {},
                                    [&](const std::string& t) { return db_->DescribeKeys(t); });
  ASSERT_TRUE(explained.ok());
  EXPECT_NE(explained->find("Scan on keys"), std::string::npos);
  EXPECT_NE(explained->find("warning:"), std::string::npos);
}

// Several partitions (IN, OR of equalities) are a Query of each, paged
// across them; conditions on key attributes that a Query's filter cannot
// hold are applied to its items, with the projection as asked.
TEST_F(PartiqlTest, PartitionSetsAndKeyConditionsOutsideTheKey) {
  CreateTable("parts", "k", AttrType::kS, "n", AttrType::kN);
  for (const char* k : {"a", "b", "c"}) {
    for (int n = 0; n < 4; ++n) {
      Put("parts", {{"k", AttributeValue::S(k)}, {"n", AttributeValue::N(std::to_string(n))},
                    {"v", AttributeValue::S(std::string(k) + std::to_string(n))}});
    }
  }
  auto in = Run("SELECT v FROM parts WHERE k IN ['c', 'a', 'zz', 'a']");
  ASSERT_TRUE(in.ok()) << in.status().ToString();
  ASSERT_EQ(in->items.size(), 8u);
  EXPECT_EQ(in->items.front().at("v"), AttributeValue::S("c0"));  // partitions as written
  EXPECT_EQ(in->items.back().at("v"), AttributeValue::S("a3"));
  auto ors = Run("SELECT * FROM parts WHERE (k = 'a' OR k = ?) AND n >= 2", {AttributeValue::S("b")});
  ASSERT_TRUE(ors.ok()) << ors.status().ToString();
  EXPECT_EQ(ors->items.size(), 4u);
  // Limit counts items read; pages continue into the next partition.
  ExecuteStatementRequest paged;
  paged.statement = "SELECT * FROM parts WHERE k IN ['a', 'b', 'c'] AND v <> 'b1'";
  paged.limit = 3;
  std::vector<std::string> seen;
  for (int page = 0; page < 10; ++page) {
    auto r = ExecuteStatement(*db_, paged);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    for (const auto& item : r->items) seen.push_back(item.at("v").scalar());
    if (!r->next_token) break;
    paged.next_token = r->next_token;
  }
  EXPECT_EQ(seen.size(), 11u);
  EXPECT_EQ(seen.front(), "a0");
  EXPECT_EQ(seen.back(), "c3");
  // Without a Limit, pages of several partitions hold at most 10 items.
  auto first = Run("SELECT * FROM parts WHERE k IN ['a', 'b', 'c']");
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->items.size(), 10u);
  ASSERT_TRUE(first->next_token.has_value());
  ExecuteStatementRequest rest;
  rest.statement = "SELECT * FROM parts WHERE k IN ['a', 'b', 'c']";
  rest.next_token = first->next_token;
  auto second = ExecuteStatement(*db_, rest);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(second->items.size(), 2u);
  paged.next_token = "9:";
  EXPECT_EQ(ExecuteStatement(*db_, paged).status().type(), ErrorType::kValidation);
  // The sort key in IN, and <> on it: applied to the partition's items; the
  // projection leaves the key out.
  auto sk = Run("SELECT v FROM parts WHERE k = 'b' AND n IN [1, 3] AND n <> 3");
  ASSERT_TRUE(sk.ok()) << sk.status().ToString();
  ASSERT_EQ(sk->items.size(), 1u);
  EXPECT_EQ(sk->items[0], (Item{{"v", AttributeValue::S("b1")}}));
  auto explained = ExplainStatement("SELECT * FROM parts WHERE k IN ['a', 'b'] AND n IN [1, 3]", {},
                                    [&](const std::string& t) { return db_->DescribeKeys(t); });
  ASSERT_TRUE(explained.ok()) << explained.status().ToString();
  EXPECT_NE(explained->find("Query on parts of each of 2 partitions"), std::string::npos) << *explained;
  EXPECT_EQ(explained->find("warning:"), std::string::npos) << *explained;
  // Still a Scan: a partition condition that is not equality, or an OR with other attributes.
  for (const char* scan : {"SELECT * FROM parts WHERE k > 'a'",
                           "SELECT * FROM parts WHERE k = 'a' OR v = 'b1'"}) {
    auto e = ExplainStatement(scan, {}, [&](const std::string& t) { return db_->DescribeKeys(t); });
    ASSERT_TRUE(e.ok());
    EXPECT_NE(e->find("Scan on parts"), std::string::npos) << scan;
  }
  EXPECT_EQ(Run("SELECT * FROM parts WHERE k = 'a' OR v = 'b1'")->items.size(), 5u);
  // ORDER BY the partition key orders the partitions; the sort key, each one.
  auto ordered = Run("SELECT v FROM parts WHERE k IN ['b', 'c', 'a'] AND n < 2 ORDER BY k DESC, n DESC");
  ASSERT_TRUE(ordered.ok()) << ordered.status().ToString();
  std::vector<std::string> order;
  for (const auto& item : ordered->items) order.push_back(item.at("v").scalar());
  EXPECT_EQ(order, (std::vector<std::string>{"c1", "c0", "b1", "b0", "a1", "a0"}));
  // The DB's "Invalid FilterExpression: " prefix names a parameter the
  // statement's author never wrote: it is dropped.
  std::string many = "SELECT * FROM parts WHERE v IN [";
  for (int i = 0; i <= 100; ++i) many += (i ? ", '" : "'") + std::to_string(i) + "'";
  EXPECT_EQ(Run(many + "]").status().message(),
            "The IN operator is provided with too many operands; number of operands: 101");
  // A key value of the wrong type, in DynamoDB's PartiQL words.
  auto typed = Run("SELECT * FROM parts WHERE k = 'a' AND n = '1'");
  EXPECT_EQ(typed.status().message(),
            "Key attribute's data type should match its data type in table's schema: Key n");
  EXPECT_EQ(Run("SELECT * FROM parts WHERE k = ?", {AttributeValue::Null()}).status().message(),
            "Key attribute's data type should match its data type in table's schema: Key k");
}

// A DELETE's WHERE beyond the key is a condition; a missing item is deleted
// whatever it says. Batches refuse one item twice and carry the old item of
// a failed condition.
TEST_F(PartiqlTest, DeleteConditionsAndBatchRules) {
  CreateTable("dels", "k", AttrType::kS);
  Put("dels", {{"k", AttributeValue::S("a")}, {"n", AttributeValue::N("1")}});
  auto wrong = Run("DELETE FROM dels WHERE k = 'a' AND n = 2 AND n > 0");
  EXPECT_EQ(wrong.status().type(), ErrorType::kConditionalCheckFailed) << wrong.status().ToString();
  ASSERT_TRUE(Run("DELETE FROM dels WHERE k = 'a' AND n = 1").ok());
  EXPECT_FALSE(Get("dels", {{"k", AttributeValue::S("a")}}).has_value());
  EXPECT_TRUE(Run("DELETE FROM dels WHERE k = 'gone' AND n = 5").ok());

  Put("dels", {{"k", AttributeValue::S("b")}, {"n", AttributeValue::N("1")}});
  BatchExecuteStatementRequest twice;
  twice.statements.resize(2);
  twice.statements[0].statement = "UPDATE dels SET n = 2 WHERE k = 'b'";
  twice.statements[1].statement = "UPDATE dels SET n = 3 WHERE k = ?";
  twice.statements[1].parameters = {AttributeValue::S("b")};
  auto dup = BatchExecuteStatement(*db_, twice);
  EXPECT_EQ(dup.status().message(), "Provided list of item keys contains duplicates");
  EXPECT_EQ(Get("dels", {{"k", AttributeValue::S("b")}})->at("n"), AttributeValue::N("1"));
  twice.statements[1].statement = "INSERT INTO dels VALUE {'k': ?}";
  EXPECT_FALSE(BatchExecuteStatement(*db_, twice).ok());

  // A transaction's statement that the DB refuses: its message without the
  // DB's expression-parameter prefix, and nothing written.
  Put("dels", {{"k", AttributeValue::S("c")}, {"n", AttributeValue::N("1")}});
  ExecuteTransactionRequest bad;
  bad.transact_statements.resize(2);
  bad.transact_statements[0].statement = "UPDATE dels SET n = 7 WHERE k = 'b'";
  bad.transact_statements[1].statement = "UPDATE dels SET x = n + 'text' WHERE k = 'c'";
  auto refused = ExecuteTransaction(*db_, bad);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().type(), ErrorType::kValidation);
  EXPECT_EQ(refused.status().message().rfind("Invalid ", 0), std::string::npos)
      << refused.status().message();
  EXPECT_NE(refused.status().message().find("operand type"), std::string::npos)
      << refused.status().message();
  EXPECT_EQ(Get("dels", {{"k", AttributeValue::S("b")}})->at("n"), AttributeValue::N("1"));

  BatchExecuteStatementRequest old;
  old.statements.resize(1);
  old.statements[0].statement = "UPDATE dels SET x = 1 WHERE k = 'b' AND n = 99";
  old.statements[0].return_values_on_condition_check_failure_all_old = true;
  auto failed = BatchExecuteStatement(*db_, old);
  ASSERT_TRUE(failed.ok()) << failed.status().ToString();
  ASSERT_EQ(failed->responses.size(), 1u);
  EXPECT_EQ(failed->responses[0].error_code, "ConditionalCheckFailed");
  ASSERT_TRUE(failed->responses[0].error_item.has_value());
  EXPECT_EQ(failed->responses[0].error_item->at("n"), AttributeValue::N("1"));
}

}  // namespace
}  // namespace dynarock::testing
