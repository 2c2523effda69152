// The test double's reset and snapshots on the embedded DB, and its
// consistency simulation: GSI lag and stale eventually consistent reads.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <thread>

#include "dynarock/item_size.h"
#include "engine/consistency.h"

#include "tests/unit/testutil.h"

namespace dynarock::testing {
namespace {

std::map<std::string, Item> ScanAll(DB* db, const std::string& table) {
  std::map<std::string, Item> out;
  ScanRequest req;
  req.table_name = table;
  auto r = db->Scan(req);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (r.ok())
    for (auto& item : r->items) out[item.at("pk").scalar()] = item;
  return out;
}

std::vector<std::string> Tables(DB* db) {
  auto r = db->ListTables(ListTablesRequest());
  EXPECT_TRUE(r.ok());
  return r.ok() ? r->table_names : std::vector<std::string>{};
}

TEST_F(DBTest, SnapshotsPutTheWholeDatabaseBackAndResetEmptiesIt) {
  CreateGsiTable(db_.get(), "snap1", "NEW_AND_OLD_IMAGES");
  for (int i = 0; i < 100; ++i) {
    Put("snap1", {{"pk", S("k" + std::to_string(i))}, {"g", S("g" + std::to_string(i % 4))},
                  {"v", N(std::to_string(i))}});
  }
  const auto before = ScanAll(db_.get(), "snap1");
  ASSERT_TRUE(db_->SaveSnapshot("base").ok());

  // Changes after the snapshot: items, a new table, a deleted table.
  for (int i = 0; i < 50; ++i) {
    DeleteItemRequest d;
    d.table_name = "snap1";
    d.key["pk"] = S("k" + std::to_string(i));
    ASSERT_TRUE(db_->DeleteItem(d).ok());
  }
  CreateTable("later", "pk", AttrType::kS);
  Put("later", {{"pk", S("x")}});

  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(db_->RestoreSnapshot("base").ok());
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  RecordProperty("restore_ms", std::to_string(ms));
  EXPECT_EQ(Tables(db_.get()), std::vector<std::string>{"snap1"});
  EXPECT_EQ(ScanAll(db_.get(), "snap1"), before);
  QueryRequest q;
  q.table_name = "snap1";
  q.index_name = "by_g";
  q.key_condition_expression = "g = :g";
  q.expression_attribute_values[":g"] = S("g1");
  q.has_expression_attribute_values = true;
  EXPECT_EQ(db_->Query(q)->count, 25);
  DescribeTableRequest dt;
  dt.table_name = "snap1";
  auto described = db_->DescribeTable(dt);
  ASSERT_TRUE(described.ok());
  EXPECT_EQ(described->table.item_count, 100);
  ASSERT_TRUE(described->table.latest_stream_arn.has_value());
  // The stream is readable again, and writes go on after a restore.
  ListStreamsRequest ls;
  EXPECT_EQ(db_->ListStreams(ls)->streams.size(), 1u);
  Put("snap1", {{"pk", S("new")}, {"g", S("g1")}});
  EXPECT_EQ(db_->Query(q)->count, 26);
  CreateTable("again", "pk", AttrType::kS);  // ids are not reused
  auto check = db_->CheckConsistency();
  ASSERT_TRUE(check.ok());
  EXPECT_TRUE(check->ok()) << (check->differences.empty() ? "" : check->differences.front());

  auto listed = db_->ListSnapshots();
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].name, "base");
  EXPECT_EQ((*listed)[0].items, 100);

  ASSERT_TRUE(db_->Reset().ok());
  EXPECT_TRUE(Tables(db_.get()).empty());
  CreateTable("snap1", "pk", AttrType::kS);  // a fresh table of the old name
  EXPECT_TRUE(ScanAll(db_.get(), "snap1").empty());
  ASSERT_TRUE(db_->RestoreSnapshot("base").ok());
  EXPECT_EQ(ScanAll(db_.get(), "snap1"), before);

  EXPECT_EQ(db_->RestoreSnapshot("nope").type(), ErrorType::kResourceNotFound);
  EXPECT_EQ(db_->SaveSnapshot("a b").type(), ErrorType::kValidation);
  ASSERT_TRUE(db_->DeleteSnapshot("base").ok());
  EXPECT_EQ(db_->DeleteSnapshot("base").type(), ErrorType::kResourceNotFound);
  EXPECT_TRUE(db_->ListSnapshots()->empty());
}

// Options::gsi_lag_*: a GSI Query right after a write sees the index as it
// was; once the lag has passed (on the database's clock) it sees the write;
// local indexes and the table are never behind.
// The lag thread applies due batches while Clear() (DB::Reset, a snapshot's
// restore) empties the queue: both take the apply lock before the queue's, so
// neither waits for the other forever. (The thread once took them the other way
// round; TSan reported the lock-order inversion.)
TEST(ConsistencyTest, ClearingTheLagQueueWhileBatchesApplyNeverDeadlocks) {
  IndexLag lag(0, 0, 1, [](rocksdb::WriteBatch*) { return Status(); }, [] { return 0.0; });
  std::atomic<bool> done{false};
  std::thread clearer([&] {
    while (!done.load()) lag.Clear();
  });
  for (int i = 0; i < 20000; ++i) lag.Enqueue(rocksdb::WriteBatch());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (lag.pending() > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  done = true;
  clearer.join();
  EXPECT_EQ(lag.pending(), 0u);  // applied or cleared, and nobody stuck
}

TEST(ConsistencyTest, GsiEntriesLagTheirWritesInOrder) {
  std::atomic<double> now{1.7e9};
  Options options;
  options.in_memory = true;
  options.clock = [&] { return now.load(); };
  options.gsi_lag_min_seconds = 5;
  options.gsi_lag_max_seconds = 5;
  auto opened = DB::Open(options, "");
  ASSERT_TRUE(opened.ok());
  std::unique_ptr<DB> db = std::move(opened).value();
  CreateGsiTable(db.get(), "lagged");
  auto count = [&](const std::string& g) {
    QueryRequest q;
    q.table_name = "lagged";
    q.index_name = "by_g";
    q.key_condition_expression = "g = :g";
    q.expression_attribute_values[":g"] = S(g);
    q.has_expression_attribute_values = true;
    auto r = db->Query(q);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r->count : -1;
  };
  PutItemRequest put;
  put.table_name = "lagged";
  put.item = {{"pk", S("a")}, {"g", S("one")}};
  ASSERT_TRUE(db->PutItem(put).ok());
  GetItemRequest get;
  get.table_name = "lagged";
  get.key = {{"pk", S("a")}};
  get.consistent_read = true;
  EXPECT_TRUE(db->GetItem(get)->item.has_value());  // the table is current
  EXPECT_EQ(count("one"), 0);                       // its GSI is not yet
  now = now.load() + 3;
  put.item = {{"pk", S("a")}, {"g", S("two")}};  // moves the item to "two"
  ASSERT_TRUE(db->PutItem(put).ok());
  now = now.load() + 2.5;  // the first write's lag has passed, not the second's
  for (int i = 0; i < 100 && count("one") != 1; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(count("one"), 1);  // the stale state: the item still under "one"
  EXPECT_EQ(count("two"), 0);
  now = now.load() + 5;
  for (int i = 0; i < 100 && count("two") != 1; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(count("one"), 0);
  EXPECT_EQ(count("two"), 1);
  auto check = db->CheckConsistency();
  ASSERT_TRUE(check.ok());
  EXPECT_TRUE(check->ok());
}

// Options::stale_read_seconds: an eventually consistent GetItem of an item
// just written sees it as it was; a consistent one, the latest; after the
// window, both the latest.
TEST(ConsistencyTest, EventuallyConsistentGetItemMayReturnThePreviousVersion) {
  std::atomic<double> now{1.7e9};
  Options options;
  options.in_memory = true;
  options.clock = [&] { return now.load(); };
  options.stale_read_seconds = 2;
  auto opened = DB::Open(options, "");
  ASSERT_TRUE(opened.ok());
  std::unique_ptr<DB> db = std::move(opened).value();
  CreateTableRequest req;
  req.table_name = "stale";
  req.billing_mode = "PAY_PER_REQUEST";
  req.attribute_definitions = {{"pk", AttrType::kS}};
  req.key_schema = {{"pk", KeyType::kHash}};
  ASSERT_TRUE(db->CreateTable(req).ok());
  auto put = [&](const std::string& v) {
    PutItemRequest p;
    p.table_name = "stale";
    p.item = {{"pk", S("a")}, {"v", S(v)}};
    ASSERT_TRUE(db->PutItem(p).ok());
  };
  auto get = [&](bool consistent) -> std::string {
    GetItemRequest g;
    g.table_name = "stale";
    g.key = {{"pk", S("a")}};
    g.consistent_read = consistent;
    auto r = db->GetItem(g);
    EXPECT_TRUE(r.ok());
    return r.ok() && r->item ? r->item->at("v").scalar() : std::string("-");
  };
  put("1");
  EXPECT_EQ(get(false), "-");  // created just now: not there yet
  EXPECT_EQ(get(true), "1");
  now = now.load() + 3;
  EXPECT_EQ(get(false), "1");
  put("2");
  EXPECT_EQ(get(false), "1");
  EXPECT_EQ(get(true), "2");
  now = now.load() + 3;
  EXPECT_EQ(get(false), "2");
}

// A database with stale reads of 2 s on a clock the test moves, and table
// "stale2": pk (S) and sk (N).
struct StaleDB {
  std::shared_ptr<std::atomic<double>> now = std::make_shared<std::atomic<double>>(1.7e9);
  std::unique_ptr<DB> db;
  void Advance(double seconds) { *now = now->load() + seconds; }
  void Put(const std::string& pk, int sk, const std::string& v) {
    PutItemRequest p;
    p.table_name = "stale2";
    p.item = {{"pk", S(pk)}, {"sk", N(std::to_string(sk))}, {"v", S(v)}};
    ASSERT_OK(db->PutItem(p));
  }
  void Delete(const std::string& pk, int sk) {
    DeleteItemRequest d;
    d.table_name = "stale2";
    d.key = {{"pk", S(pk)}, {"sk", N(std::to_string(sk))}};
    ASSERT_OK(db->DeleteItem(d));
  }
};

std::unique_ptr<StaleDB> OpenStaleDB(double probability = 1.0, uint64_t seed = 0) {
  auto s = std::make_unique<StaleDB>();
  Options options;
  options.in_memory = true;
  options.clock = [now = s->now] { return now->load(); };
  options.stale_read_seconds = 2;
  options.stale_read_probability = probability;
  options.consistency_seed = seed;
  auto opened = DB::Open(options, "");
  EXPECT_TRUE(opened.ok());
  if (!opened.ok()) return nullptr;
  s->db = std::move(opened).value();
  CreateTableRequest req;
  req.table_name = "stale2";
  req.billing_mode = "PAY_PER_REQUEST";
  req.attribute_definitions = {{"pk", AttrType::kS}, {"sk", AttrType::kN}};
  req.key_schema = {{"pk", KeyType::kHash}, {"sk", KeyType::kRange}};
  EXPECT_TRUE(s->db->CreateTable(req).ok());
  return s;
}

// "pk/sk=v" of each item, in the order read.
std::vector<std::string> Rows(const std::vector<Item>& items) {
  std::vector<std::string> rows;
  for (const Item& item : items) {
    auto v = item.find("v");
    rows.push_back(item.at("pk").scalar() + "/" + item.at("sk").scalar() + "=" +
                   (v == item.end() ? std::string() : v->second.scalar()));
  }
  return rows;
}

std::vector<std::string> Sorted(std::vector<std::string> rows) {
  std::sort(rows.begin(), rows.end());
  return rows;
}

QueryRequest QueryOf(const std::string& pk, bool consistent) {
  QueryRequest q;
  q.table_name = "stale2";
  q.key_condition_expression = "pk = :p";
  q.expression_attribute_values[":p"] = S(pk);
  q.has_expression_attribute_values = true;
  q.consistent_read = consistent;
  return q;
}

ScanRequest ScanOf(bool consistent) {
  ScanRequest s;
  s.table_name = "stale2";
  s.consistent_read = consistent;
  return s;
}

// Every page of a Query or Scan, until no LastEvaluatedKey: the rows read.
template <typename Request, typename Read>
std::vector<std::string> AllPages(Request req, Read read, int* pages) {
  std::vector<std::string> rows;
  *pages = 0;
  for (;;) {
    auto r = read(req);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok() || ++*pages > 50) break;
    for (auto& row : Rows(r->items)) rows.push_back(row);
    if (!r->last_evaluated_key) break;
    req.exclusive_start_key = r->last_evaluated_key;
  }
  return rows;
}

// Options::stale_read_seconds on a table's Query and Scan: within the window
// an eventually consistent read sees an updated item's previous image, not a
// created one, still a deleted one, in either direction, filtered, counted
// and billed as read; a consistent read, the latest; after the window, both
// the latest.
TEST(ConsistencyTest, EventuallyConsistentQueryAndScanSeeItemsAsTheyWere) {
  auto s = OpenStaleDB();
  ASSERT_TRUE(s);
  DB* db = s->db.get();
  s->Put("p", 1, "a");
  s->Put("p", 2, "b");
  s->Put("p", 3, "c");
  s->Put("q", 1, std::string(5000, 'q'));
  s->Advance(3);
  s->Put("p", 1, "a2");  // updated
  s->Put("p", 4, "d");   // created
  s->Delete("p", 2);     // deleted
  s->Put("q", 1, "short");
  s->Put("r", 1, "new");  // a new partition

  const std::vector<std::string> before = {"p/1=a", "p/2=b", "p/3=c"};
  const std::vector<std::string> latest = {"p/1=a2", "p/3=c", "p/4=d"};
  auto query = [&](QueryRequest q) {
    auto r = db->Query(q);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? std::move(r).value() : QueryResponse();
  };
  EXPECT_EQ(Rows(query(QueryOf("p", false)).items), before);
  EXPECT_EQ(Rows(query(QueryOf("p", true)).items), latest);
  QueryRequest backward = QueryOf("p", false);
  backward.scan_index_forward = false;
  EXPECT_EQ(Rows(query(backward).items),
            (std::vector<std::string>{"p/3=c", "p/2=b", "p/1=a"}));
  // A key condition's range holds only its own stale images.
  QueryRequest range = QueryOf("p", false);
  range.key_condition_expression = "pk = :p AND sk BETWEEN :lo AND :hi";
  range.expression_attribute_values[":lo"] = N("2");
  range.expression_attribute_values[":hi"] = N("4");
  EXPECT_EQ(Rows(query(range).items), (std::vector<std::string>{"p/2=b", "p/3=c"}));
  EXPECT_TRUE(query(QueryOf("r", false)).items.empty());

  // Filters, counts and projections apply to the images read.
  QueryRequest filtered = QueryOf("p", false);
  filtered.filter_expression = "v IN (:a, :b)";
  filtered.expression_attribute_values[":a"] = S("a");
  filtered.expression_attribute_values[":b"] = S("b");
  QueryResponse f = query(filtered);
  EXPECT_EQ(Rows(f.items), (std::vector<std::string>{"p/1=a", "p/2=b"}));
  EXPECT_EQ(f.count, 2);
  EXPECT_EQ(f.scanned_count, 3);
  QueryRequest counted = QueryOf("p", false);
  counted.select = Select::kCount;
  EXPECT_EQ(query(counted).count, 3);
  QueryRequest projected = QueryOf("p", false);
  projected.projection_expression = "sk, v";
  QueryResponse pr = query(projected);
  ASSERT_EQ(pr.items.size(), 3u);
  EXPECT_EQ(pr.items[1], (Item{{"sk", N("2")}, {"v", S("b")}}));
  QueryRequest encoded = QueryOf("p", false);
  encoded.encoded_items = true;
  EXPECT_EQ(Rows(query(encoded).encoded_items.ToItems()), before);
  projected.encoded_items = true;
  EXPECT_EQ(query(projected).encoded_items.ToItems(), pr.items);

  // Billed on the sizes read: q/1's old 5000-byte image (two 4 KB units at
  // half a unit each), not its new one.
  QueryRequest billed = QueryOf("q", false);
  billed.return_consumed_capacity = ReturnConsumedCapacity::kTotal;
  QueryResponse b = query(billed);
  ASSERT_EQ(b.items.size(), 1u);
  EXPECT_EQ(b.bytes_read, static_cast<int64_t>(ItemSize(b.items[0])));
  EXPECT_GT(b.bytes_read, 5000);
  ASSERT_TRUE(b.consumed_capacity);
  EXPECT_DOUBLE_EQ(b.consumed_capacity->capacity_units, 1.0);
  billed.consistent_read = true;
  QueryResponse bc = query(billed);
  EXPECT_EQ(Rows(bc.items), (std::vector<std::string>{"q/1=short"}));
  EXPECT_LT(bc.bytes_read, 100);

  // Scan, whole and in segments, sees the same.
  auto scan = [&](ScanRequest req) {
    auto r = db->Scan(req);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? Sorted(Rows(r->items)) : std::vector<std::string>();
  };
  const std::vector<std::string> scan_before = {"p/1=a", "p/2=b", "p/3=c",
                                                "q/1=" + std::string(5000, 'q')};
  EXPECT_EQ(scan(ScanOf(false)), scan_before);
  EXPECT_EQ(scan(ScanOf(true)),
            (std::vector<std::string>{"p/1=a2", "p/3=c", "p/4=d", "q/1=short", "r/1=new"}));
  std::vector<std::string> segments;
  for (int i = 0; i < 3; ++i) {
    ScanRequest seg = ScanOf(false);
    seg.segment = i;
    seg.total_segments = 3;
    for (auto& row : scan(seg)) segments.push_back(row);
  }
  EXPECT_EQ(Sorted(segments), scan_before);

  // Past the window every read is current.
  s->Advance(3);
  EXPECT_EQ(Rows(query(QueryOf("p", false)).items), latest);
  EXPECT_EQ(scan(ScanOf(false)), scan(ScanOf(true)));
}

// Paging through a stale overlay: Limit, ExclusiveStartKey and the 1 MB page
// count the images read, forward and backward, and every item is read once.
TEST(ConsistencyTest, StaleQueryAndScanPageThroughTheOverlay) {
  auto s = OpenStaleDB();
  ASSERT_TRUE(s);
  DB* db = s->db.get();
  for (int sk = 1; sk <= 8; ++sk) s->Put("p", sk, "old" + std::to_string(sk));
  s->Advance(3);
  for (int sk : {2, 5, 8}) s->Put("p", sk, "new" + std::to_string(sk));
  for (int sk : {3, 6}) s->Delete("p", sk);
  for (int sk : {9, 10}) s->Put("p", sk, "new" + std::to_string(sk));
  std::vector<std::string> before;
  for (int sk = 1; sk <= 8; ++sk) before.push_back("p/" + std::to_string(sk) + "=old" + std::to_string(sk));
  auto query = [&](const QueryRequest& q) { return db->Query(q); };
  auto scan = [&](const ScanRequest& q) { return db->Scan(q); };
  for (int64_t limit : {1, 2, 3}) {
    SCOPED_TRACE(limit);
    int pages = 0;
    QueryRequest q = QueryOf("p", false);
    q.limit = limit;
    EXPECT_EQ(AllPages(q, query, &pages), before);
    EXPECT_GE(pages, static_cast<int>(before.size() / limit));
    q.scan_index_forward = false;
    std::vector<std::string> reversed(before.rbegin(), before.rend());
    EXPECT_EQ(AllPages(q, query, &pages), reversed);
    ScanRequest sc = ScanOf(false);
    sc.limit = limit;
    EXPECT_EQ(AllPages(sc, scan, &pages), before);  // one partition: in key order
  }
  QueryRequest q = QueryOf("p", false);
  q.limit = 3;
  auto first = db->Query(q);
  ASSERT_OK(first);
  EXPECT_EQ(Rows(first->items), (std::vector<std::string>{"p/1=old1", "p/2=old2", "p/3=old3"}));
  ASSERT_TRUE(first->last_evaluated_key);
  EXPECT_EQ(first->last_evaluated_key->at("sk"), N("3"));  // a deleted item's key
  int pages = 0;
  q.consistent_read = true;
  EXPECT_EQ(AllPages(q, query, &pages),
            (std::vector<std::string>{"p/1=old1", "p/2=new2", "p/4=old4", "p/5=new5",
                                      "p/7=old7", "p/8=new8", "p/9=new9", "p/10=new10"}));

  // The 1 MB page counts the stale images' sizes: three items of ~390 KB,
  // now small, fill one in an eventually consistent read.
  for (int sk = 1; sk <= 3; ++sk) s->Put("big", sk, std::string(390000, 'x'));
  s->Advance(3);
  for (int sk = 1; sk <= 3; ++sk) s->Put("big", sk, "small");
  auto big = db->Query(QueryOf("big", false));
  ASSERT_OK(big);
  EXPECT_EQ(big->count, 3);
  EXPECT_TRUE(big->last_evaluated_key);
  EXPECT_GT(big->bytes_read, 1000000);
  auto small = db->Query(QueryOf("big", true));
  ASSERT_OK(small);
  EXPECT_EQ(small->count, 3);
  EXPECT_FALSE(small->last_evaluated_key);
}

// BatchGetItem: each key of a table read with ConsistentRead false may be
// stale, as GetItem's; another table's consistent keys are current.
TEST(ConsistencyTest, EventuallyConsistentBatchGetItemMayReturnThePreviousVersion) {
  auto s = OpenStaleDB();
  ASSERT_TRUE(s);
  DB* db = s->db.get();
  s->Put("p", 1, "a");
  s->Put("p", 2, "b");
  s->Put("p", 3, "c");
  s->Advance(3);
  s->Put("p", 1, "a2");
  s->Put("p", 4, "d");
  s->Delete("p", 2);
  auto batch = [&](bool consistent, bool encoded) {
    BatchGetItemRequest req;
    KeysAndAttributes& ka = req.request_items["stale2"];
    for (int sk = 1; sk <= 4; ++sk) ka.keys.push_back({{"pk", S("p")}, {"sk", N(std::to_string(sk))}});
    ka.consistent_read = consistent;
    req.encoded_items = encoded;
    req.return_consumed_capacity = ReturnConsumedCapacity::kTotal;
    auto r = db->BatchGetItem(req);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) return std::vector<std::string>();
    EXPECT_EQ(r->consumed_capacity.size(), 1u);
    return Sorted(Rows(encoded ? r->encoded_responses["stale2"].ToItems() : r->responses["stale2"]));
  };
  const std::vector<std::string> before = {"p/1=a", "p/2=b", "p/3=c"};
  const std::vector<std::string> latest = {"p/1=a2", "p/3=c", "p/4=d"};
  EXPECT_EQ(batch(false, false), before);
  EXPECT_EQ(batch(false, true), before);
  EXPECT_EQ(batch(true, false), latest);
  EXPECT_EQ(batch(true, true), latest);
  s->Advance(3);
  EXPECT_EQ(batch(false, false), latest);
}

// With a probability below 1, which items a read sees stale is drawn from
// the seeded generator: the same seed and requests read the same items.
TEST(ConsistencyTest, StaleRangeReadsAreDeterministicUnderTheSeed) {
  auto run = [](uint64_t seed) {
    auto s = OpenStaleDB(0.5, seed);
    EXPECT_TRUE(s);
    if (!s) return std::vector<std::vector<std::string>>();
    for (int sk = 0; sk < 40; ++sk) s->Put("p", sk, "v");
    std::vector<std::vector<std::string>> reads;
    for (int i = 0; i < 3; ++i) {
      auto r = s->db->Query(QueryOf("p", false));
      EXPECT_TRUE(r.ok());
      if (r.ok()) reads.push_back(Rows(r->items));
    }
    return reads;
  };
  auto a = run(11), b = run(11);
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a, b);
  for (const auto& rows : a) {
    EXPECT_GT(rows.size(), 0u);  // some new items seen
    EXPECT_LT(rows.size(), 40u);  // some not yet
  }
  EXPECT_NE(a[0], a[1]);  // each read draws again
}

}  // namespace
}  // namespace dynarock::testing
