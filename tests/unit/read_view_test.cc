// The read path over stored bytes (dynarock/item_view.h): Query and Scan asked
// for encoded_items return exactly what `items` holds otherwise, on random
// items, for every filter and projection form, on the table, a GSI and an LSI
// that fetches from the table, with Limit paging and Select COUNT; the JSON
// written from stored bytes equals the JSON written from the Items.

#include <gtest/gtest.h>

#include "dynarock/item_size.h"
#include "engine/api/json_encode.h"
#include "engine/expr/expression.h"
#include "engine/item_codec.h"
#include "tests/unit/item_gen.h"
#include "tests/unit/testutil.h"

namespace dynarock::testing {
namespace {

TEST(ReadView, JsonFromStoredBytesMatchesJsonFromItems) {
  ItemGen gen(31);
  for (int i = 0; i < 2000; ++i) {
    Item item = gen.Map(0);
    api::JsonWriter from_item, from_bytes;
    api::WriteItem(&from_item, item);
    std::string bytes = EncodeItem(item);
    ASSERT_TRUE(api::WriteEncodedItem(&from_bytes, ItemView(bytes)));
    ASSERT_EQ(from_bytes.Release(), from_item.Release()) << DebugString(item);
  }
  api::JsonWriter w;
  EXPECT_FALSE(api::WriteEncodedItem(&w, ItemView("\x01\x05")));  // five attributes promised
}

TEST(ReadView, ItemViewReadsOneAttributeOrAll) {
  Item item = MakeItem({{"a", S("x")}, {"m", AttributeValue::M(MakeItem({{"n", N("1")}}))}});
  std::string bytes = EncodeItem(item);
  ItemView view(bytes);
  EXPECT_EQ(view.Get("m"), item.at("m"));
  EXPECT_FALSE(view.Get("zz").has_value());
  EXPECT_EQ(view.ToItem(), item);
  EXPECT_EQ(view.Size(), ItemSize(item));
  EncodedItems page;
  page.Append(bytes);
  page.Append(MakeItem({{"b", AttributeValue::Bool(true)}}));
  ASSERT_EQ(page.size(), 2u);
  EXPECT_EQ(page.ToItems()[1].at("b"), AttributeValue::Bool(true));
  EXPECT_EQ(page[0].ToItem(), item);
}

class ReadViewTest : public DBTest {
 protected:
  void SetUp() override {
    DBTest::SetUp();
    CreateTableRequest req;
    req.table_name = "views";
    req.billing_mode = "PAY_PER_REQUEST";
    req.attribute_definitions = {{"pk", AttrType::kS}, {"sk", AttrType::kN}, {"g", AttrType::kS},
                                 {"l", AttrType::kN}};
    req.key_schema = {{"pk", KeyType::kHash}, {"sk", KeyType::kRange}};
    GlobalSecondaryIndex gsi;
    gsi.index_name = "by_g";
    gsi.key_schema = {{"g", KeyType::kHash}};
    gsi.projection.projection_type = ProjectionType::kAll;
    req.global_secondary_indexes = {gsi};
    LocalSecondaryIndex lsi;
    lsi.index_name = "by_l";
    lsi.key_schema = {{"pk", KeyType::kHash}, {"l", KeyType::kRange}};
    lsi.projection.projection_type = ProjectionType::kKeysOnly;
    req.local_secondary_indexes = {lsi};
    ASSERT_TRUE(db_->CreateTable(req).ok());
    ItemGen gen(7);
    for (int i = 0; i < 120; ++i) {
      Item item = gen.Map(0);
      item["pk"] = S(i % 3 == 0 ? "p0" : "p1");
      item["sk"] = N(std::to_string(i));
      if (i % 2 == 0) item["g"] = S("g" + std::to_string(i % 4));
      if (i % 5 != 0) item["l"] = N(std::to_string(i % 7));
      Put("views", std::move(item));
    }
  }

  // Runs `req` both ways, page after page, and compares every page.
  template <typename Req, typename Op>
  void Compare(Req req, Op op, const std::string& what) {
    for (int page = 0; page < 50; ++page) {
      Req encoded = req;
      encoded.encoded_items = true;
      auto a = op(req);
      auto b = op(encoded);
      ASSERT_EQ(a.ok(), b.ok()) << what;
      if (!a.ok()) {
        EXPECT_EQ(a.status().message(), b.status().message()) << what;
        return;
      }
      EXPECT_TRUE(b->items.empty()) << what;
      ASSERT_EQ(b->encoded_items.ToItems(), a->items) << what << " page " << page;
      compared_ += a->items.size();
      EXPECT_EQ(a->count, b->count) << what;
      EXPECT_EQ(a->scanned_count, b->scanned_count) << what;
      EXPECT_EQ(a->last_evaluated_key, b->last_evaluated_key) << what;
      EXPECT_EQ(a->bytes_read, b->bytes_read) << what;
      EXPECT_EQ(api::EncodeQueryResponse(*a), api::EncodeQueryResponse(*b)) << what;
      if (!a->last_evaluated_key) return;
      req.exclusive_start_key = a->last_evaluated_key;
    }
  }
  size_t compared_ = 0;  // items compared, so that a run that compares nothing fails
};

TEST_F(ReadViewTest, QueryAndScanAgreeWithItems) {
  const std::vector<std::optional<std::string>> filters = {
      std::nullopt, "attribute_exists(a3)", "attribute_not_exists(a1) OR size(a2) > :two",
      "a4 = :x OR begins_with(a5, :x) OR contains(a6, :x)", "attribute_type(a7, :m)"};
  const std::vector<std::optional<std::string>> projections = {
      std::nullopt, "a1, a2", "a3.a4, a5[0], a6[1].a7", "pk, a8"};
  for (const auto& filter : filters) {
    for (const auto& projection : projections) {
      for (std::optional<int64_t> limit : {std::optional<int64_t>(), std::optional<int64_t>(7)}) {
        std::string what = filter.value_or("-") + " | " + projection.value_or("-") +
                           (limit ? " | limit" : "");
        auto values = [&](auto* r) {
          r->filter_expression = filter;
          r->projection_expression = projection;
          r->limit = limit;
          if (filter) {
            r->expression_attribute_values[":two"] = N("2");
            r->expression_attribute_values[":x"] = S("a");
            r->expression_attribute_values[":m"] = S("M");
            // Only the values the filter names.
            for (const char* k : {":two", ":x", ":m"}) {
              if (filter->find(k) == std::string::npos) r->expression_attribute_values.erase(k);
            }
            r->has_expression_attribute_values = !r->expression_attribute_values.empty();
          }
        };
        ScanRequest scan;
        scan.table_name = "views";
        values(&scan);
        Compare(scan, [&](const ScanRequest& r) { return db_->Scan(r); }, "scan " + what);

        QueryRequest query;
        query.table_name = "views";
        query.key_condition_expression = "pk = :p";
        values(&query);
        query.expression_attribute_values[":p"] = S("p1");
        query.has_expression_attribute_values = true;
        query.scan_index_forward = limit.has_value();
        Compare(query, [&](const QueryRequest& r) { return db_->Query(r); }, "query " + what);

        QueryRequest gsi = query;
        gsi.index_name = "by_g";
        gsi.key_condition_expression = "g = :p";
        gsi.expression_attribute_values[":p"] = S("g2");
        Compare(gsi, [&](const QueryRequest& r) { return db_->Query(r); }, "gsi " + what);

        QueryRequest lsi = query;  // fetches what KEYS_ONLY does not project
        lsi.index_name = "by_l";
        lsi.key_condition_expression = "pk = :p AND l > :p2";
        lsi.expression_attribute_values[":p2"] = N("1");
        if (!projection) lsi.select = Select::kAllAttributes;
        Compare(lsi, [&](const QueryRequest& r) { return db_->Query(r); }, "lsi " + what);
      }
    }
  }
  ScanRequest count;
  count.table_name = "views";
  count.select = Select::kCount;
  Compare(count, [&](const ScanRequest& r) { return db_->Scan(r); }, "count");
  EXPECT_GT(compared_, 2000u);
}

TEST_F(ReadViewTest, SingleItemReadsAgreeWithItems) {
  for (std::optional<std::string> projection :
       {std::optional<std::string>(), std::optional<std::string>("a1, a3.a4, pk"),
        std::optional<std::string>("nothing_here")}) {
    BatchGetItemRequest batch;
    auto& ka = batch.request_items["views"];
    ka.projection_expression = projection;
    for (int i = 0; i < 60; i += 3) {
      GetItemRequest get;
      get.table_name = "views";
      get.key = MakeItem({{"pk", S(i % 3 == 0 ? "p0" : "p1")}, {"sk", N(std::to_string(i))}});
      get.projection_expression = projection;
      get.return_consumed_capacity = ReturnConsumedCapacity::kTotal;
      GetItemRequest encoded = get;
      encoded.encoded_items = true;
      auto a = db_->GetItem(get);
      auto b = db_->GetItem(encoded);
      ASSERT_TRUE(a.ok() && b.ok());
      EXPECT_FALSE(b->item.has_value());
      ASSERT_EQ(a->item.has_value(), b->encoded_item.has_value());
      if (a->item) {
        EXPECT_EQ(ItemView(*b->encoded_item).ToItem(), *a->item);
      }
      EXPECT_EQ(a->bytes_read, b->bytes_read);
      EXPECT_EQ(api::EncodeGetItemResponse(*a), api::EncodeGetItemResponse(*b));
      ka.keys.push_back(get.key);
    }
    ka.keys.push_back(MakeItem({{"pk", S("nobody")}, {"sk", N("1")}}));  // missing
    BatchGetItemRequest encoded = batch;
    encoded.encoded_items = true;
    auto a = db_->BatchGetItem(batch);
    auto b = db_->BatchGetItem(encoded);
    ASSERT_TRUE(a.ok() && b.ok());
    ASSERT_EQ(a->responses.at("views").size(), 20u);
    EXPECT_TRUE(b->responses.at("views").empty());
    EXPECT_EQ(b->encoded_responses.at("views").ToItems(), a->responses.at("views"));
    EXPECT_EQ(a->bytes_read, b->bytes_read);
    EXPECT_EQ(api::EncodeBatchGetItemResponse(*a), api::EncodeBatchGetItemResponse(*b));

    TransactGetItemsRequest transact;
    for (size_t i = 0; i < 12; ++i) {
      TransactGetItem t;
      t.table_name = "views";
      t.key = ka.keys[i];
      t.projection_expression = projection;
      transact.transact_items.push_back(std::move(t));
    }
    TransactGetItemsRequest transact_encoded = transact;
    transact_encoded.encoded_items = true;
    auto ta = db_->TransactGetItems(transact);
    auto tb = db_->TransactGetItems(transact_encoded);
    ASSERT_TRUE(ta.ok() && tb.ok()) << ta.status().ToString() << tb.status().ToString();
    ASSERT_EQ(ta->responses.size(), tb->encoded_responses.size());
    EXPECT_TRUE(tb->responses.empty());
    for (size_t i = 0; i < ta->responses.size(); ++i) {
      ASSERT_EQ(ta->responses[i].has_value(), tb->encoded_responses[i].has_value());
      if (ta->responses[i]) {
        EXPECT_EQ(ItemView(*tb->encoded_responses[i]).ToItem(), *ta->responses[i]);
      }
    }
    EXPECT_EQ(ta->bytes_read, tb->bytes_read);
    EXPECT_EQ(api::EncodeTransactGetItemsResponse(*ta), api::EncodeTransactGetItemsResponse(*tb));
  }
}


// The read path against a straightforward decode: random filters of every
// expression form and random projections, run as Scans (paged by a random
// Limit, as Items and as stored bytes), must return what decoding every item
// whole and evaluating the filter and the projection on it returns, with the
// same counts and bytes read.
class RandomExpressionGen {
 public:
  RandomExpressionGen(uint32_t seed, std::vector<AttributeValue> pool)
      : rng_(seed), pool_(std::move(pool)) {}

  uint32_t Next(uint32_t n) { return rng_() % n; }

  // A document path over ItemGen's names, sometimes through #names, with
  // nested members and list indexes.
  std::string Path() {
    std::string p = Name();
    for (uint32_t i = Next(4) == 0 ? 1 + Next(2) : 0; i > 0; --i) {
      p += Next(2) ? "[" + std::to_string(Next(3)) + "]" : "." + Name();
    }
    return p;
  }
  std::string Name() {
    const std::string name = "a" + std::to_string(Next(50));
    if (Next(3) == 0) {
      const std::string token = "#n" + std::to_string(names_.size());
      names_[token] = name;
      return token;
    }
    return name;
  }
  std::string Value() {
    const std::string token = ":v" + std::to_string(values_.size());
    values_[token] = pool_[Next(static_cast<uint32_t>(pool_.size()))];
    return token;
  }
  std::string Literal(AttributeValue v) {
    const std::string token = ":v" + std::to_string(values_.size());
    values_[token] = std::move(v);
    return token;
  }
  std::string Condition(int depth) {
    static const char* kCmp[] = {"=", "<>", "<", "<=", ">", ">="};
    static const char* kTypes[] = {"S", "N", "B", "BOOL", "NULL", "L", "M", "SS", "NS", "BS"};
    switch (depth > 2 ? 3 + Next(9) : Next(12)) {
      case 0: return Condition(depth + 1) + " AND " + Condition(depth + 1);
      case 1: return Condition(depth + 1) + " OR " + Condition(depth + 1);
      case 2: return "NOT (" + Condition(depth + 1) + ")";
      case 3: return "attribute_exists(" + Path() + ")";
      case 4: return "attribute_not_exists(" + Path() + ")";
      case 5: return "attribute_type(" + Path() + ", " + Literal(AttributeValue::S(kTypes[Next(10)])) + ")";
      case 6: return "begins_with(" + Path() + ", " + Value() + ")";
      case 7: return "contains(" + Path() + ", " + Value() + ")";
      case 8:
        return "size(" + Path() + ") " + kCmp[Next(6)] + " " +
               Literal(AttributeValue::N(std::to_string(Next(6))));
      case 9: return Path() + " BETWEEN " + Value() + " AND " + Value();
      case 10: return Path() + " IN (" + Value() + ", " + Value() + ")";
      default: return Path() + " " + kCmp[Next(6)] + " " + (Next(4) == 0 ? Path() : Value());
    }
  }
  std::string Projection() {
    std::string p = Path();
    for (uint32_t i = Next(3); i > 0; --i) p += ", " + Path();
    return p;
  }
  void Reset() {
    names_.clear();
    values_.clear();
  }
  const std::map<std::string, std::string, std::less<>>& names() const { return names_; }
  const std::map<std::string, AttributeValue, std::less<>>& values() const { return values_; }

 private:
  std::mt19937 rng_;
  std::vector<AttributeValue> pool_;
  std::map<std::string, std::string, std::less<>> names_;
  std::map<std::string, AttributeValue, std::less<>> values_;
};

TEST_F(DBTest, RandomExpressionsAgreeWithAStraightforwardDecode) {
  CreateTableRequest create;
  create.table_name = "diff";
  create.billing_mode = "PAY_PER_REQUEST";
  create.attribute_definitions = {{"pk", AttrType::kS}};
  create.key_schema = {{"pk", KeyType::kHash}};
  ASSERT_TRUE(db_->CreateTable(create).ok());
  ItemGen gen(31);
  std::vector<AttributeValue> pool;  // values that occur in the items, for the expressions
  for (int i = 0; i < 150; ++i) {
    Item item = gen.Map(0);
    for (const auto& [n, v] : item) {
      pool.push_back(v);
      if (v.is(AttrType::kL) && !v.list().empty()) pool.push_back(v.list()[0]);
      if (v.is(AttrType::kS) && !v.scalar().empty()) pool.push_back(AttributeValue::S(v.scalar().substr(0, 1)));
    }
    item["pk"] = S("k" + std::to_string(i));
    Put("diff", std::move(item));
  }
  pool.push_back(N("1"));

  // The reference: every item, decoded whole.
  std::vector<Item> all;
  {
    ScanRequest scan;
    scan.table_name = "diff";
    auto r = db_->Scan(scan);
    ASSERT_TRUE(r.ok());
    all = r->items;
    ASSERT_EQ(all.size(), 150u);
  }

  RandomExpressionGen rex(17, pool);
  size_t matched = 0, projected = 0, evaluated = 0;
  for (int round = 0; round < 400; ++round) {
    rex.Reset();
    std::optional<std::string> filter, projection;
    if (round % 5 != 4) filter = rex.Condition(0);
    if (round % 3 == 0) projection = rex.Projection();
    const std::string what = filter.value_or("-") + " | " + projection.value_or("-");

    // Expected: parse as the engine does, evaluate on each whole item.
    expr::ExpressionContext ctx(&rex.names(), &rex.values(), !rex.names().empty(),
                                !rex.values().empty());
    expr::ConditionPtr cond;
    std::optional<expr::ProjectionSpec> spec;
    Status parsed;
    if (filter) {
      auto c = expr::ParseCondition(*filter, expr::ExpressionKind::kFilter, &ctx);
      if (c.ok()) cond = *c; else parsed = c.status();
    }
    if (parsed.ok() && projection) {
      auto p = expr::ParseProjection(*projection, &ctx);
      if (p.ok()) spec = *p; else parsed = p.status();
    }
    std::vector<Item> expected;
    size_t expected_bytes = 0;
    Status evaluation;
    if (parsed.ok()) {
      for (const Item& item : all) {
        expected_bytes += ItemSize(item);
        bool keep = true;
        if (cond) {
          auto k = expr::EvaluateCondition(*cond, item);
          if (!k.ok()) {
            evaluation = k.status();
            break;
          }
          keep = *k;
        }
        if (keep) expected.push_back(spec ? expr::Project(*spec, item) : item);
      }
    }

    for (bool encoded : {false, true}) {
      ScanRequest scan;
      scan.table_name = "diff";
      scan.filter_expression = filter;
      scan.projection_expression = projection;
      scan.expression_attribute_names = rex.names();
      scan.expression_attribute_values = rex.values();
      scan.has_expression_attribute_names = !rex.names().empty();
      scan.has_expression_attribute_values = !rex.values().empty();
      scan.encoded_items = encoded;
      if (round % 2 == 1) scan.limit = 1 + round % 40;
      std::vector<Item> got;
      int64_t count = 0, scanned = 0, bytes = 0;
      Status status;
      for (int page = 0; page < 200; ++page) {
        auto r = db_->Scan(scan);
        if (!r.ok()) {
          status = r.status();
          break;
        }
        auto items = encoded ? r->encoded_items.ToItems() : r->items;
        got.insert(got.end(), items.begin(), items.end());
        count += r->count;
        scanned += r->scanned_count;
        bytes += r->bytes_read;
        if (!r->last_evaluated_key) break;
        scan.exclusive_start_key = r->last_evaluated_key;
      }
      if (!parsed.ok() || !evaluation.ok()) {
        // An error from the parse (or from evaluation, such as an invalid
        // attribute_type operand) is the request's error, either way.
        ASSERT_FALSE(status.ok()) << what;
        continue;
      }
      ASSERT_TRUE(status.ok()) << what << ": " << status.ToString();
      ++evaluated;
      ASSERT_EQ(got, expected) << what << (encoded ? " (stored bytes)" : " (Items)");
      EXPECT_EQ(count, static_cast<int64_t>(expected.size())) << what;
      EXPECT_EQ(scanned, 150) << what;
      EXPECT_EQ(bytes, static_cast<int64_t>(expected_bytes)) << what;
    }
    if (filter && !expected.empty() && expected.size() < all.size()) ++matched;
    if (projection) projected += expected.size();
  }
  // The generator must exercise something: filters that select some items but
  // not all, and projections of returned items.
  EXPECT_GT(evaluated, 500u);
  EXPECT_GT(matched, 50u);
  EXPECT_GT(projected, 1000u);
}

}  // namespace
}  // namespace dynarock::testing
