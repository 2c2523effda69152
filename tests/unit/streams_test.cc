// DynamoDB Streams through the embedded DB: the records each kind of write
// makes (and the writes that make none), view types, the stream lifecycle,
// trimming, iterator expiry and shard rollover under an injected clock, the
// Streams API's errors, and embedded subscriptions.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <thread>

#include "engine/db_impl.h"
#include "tests/unit/testutil.h"

namespace dynarock {
namespace {

using testing::MakeItem;
using testing::N;
using testing::S;

class StreamsTest : public ::testing::Test {
 protected:
  void SetUp() override { Open(); }

  void Open(const std::string& dir = "") {
    db_.reset();
    Options options;
    options.in_memory = dir.empty();
    options.clock = [this] { return now_.load(); };
    options.stream_retention_seconds = retention_;
    options.stream_shard_seconds = shard_seconds_;
    options.ttl_sweep_seconds = 0;
    auto db = DB::Open(options, dir);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(*db);
  }

  void CreateTable(const std::string& name, const std::string& view) {
    CreateTableRequest req;
    req.table_name = name;
    req.billing_mode = "PAY_PER_REQUEST";
    req.attribute_definitions = {{"pk", AttrType::kS}, {"sk", AttrType::kN}};
    req.key_schema = {{"pk", KeyType::kHash}, {"sk", KeyType::kRange}};
    if (!view.empty()) req.stream_specification = StreamSpecification{true, view};
    ASSERT_OK(db_->CreateTable(req));
  }

  void Put(const std::string& table, Item item) {
    PutItemRequest req;
    req.table_name = table;
    req.item = std::move(item);
    ASSERT_OK(db_->PutItem(req));
  }

  void Delete(const std::string& table, Item key) {
    DeleteItemRequest req;
    req.table_name = table;
    req.key = std::move(key);
    ASSERT_OK(db_->DeleteItem(req));
  }

  std::string StreamArn(const std::string& table) {
    DescribeTableRequest req;
    req.table_name = table;
    auto r = db_->DescribeTable(req);
    EXPECT_TRUE(r.ok() && r->table.latest_stream_arn);
    return r.ok() && r->table.latest_stream_arn ? *r->table.latest_stream_arn : "";
  }

  StreamDescription Describe(const std::string& arn) {
    DescribeStreamRequest req;
    req.stream_arn = arn;
    auto r = db_->DescribeStream(req);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r->stream_description : StreamDescription{};
  }

  std::string Iterator(const std::string& arn, const std::string& shard,
                       ShardIteratorType type = ShardIteratorType::kTrimHorizon,
                       std::optional<std::string> seq = std::nullopt) {
    GetShardIteratorRequest req;
    req.stream_arn = arn;
    req.shard_id = shard;
    req.shard_iterator_type = type;
    req.sequence_number = seq;
    auto r = db_->GetShardIterator(req);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() && r->shard_iterator ? *r->shard_iterator : "";
  }

  // Every record of the stream, following the shards in order.
  std::vector<StreamRecord> ReadAll(const std::string& arn) {
    std::vector<StreamRecord> out;
    for (const Shard& shard : Describe(arn).shards) {
      std::string it = Iterator(arn, shard.shard_id);
      for (int i = 0; i < 100 && !it.empty(); ++i) {
        GetRecordsRequest req;
        req.shard_iterator = it;
        auto r = db_->GetRecords(req);
        EXPECT_TRUE(r.ok()) << r.status().ToString();
        if (!r.ok()) break;
        for (auto& rec : r->records) out.push_back(std::move(rec));
        if (!r->next_shard_iterator || (r->records.empty() && !shard.sequence_number_range
                                                                   .ending_sequence_number)) {
          break;
        }
        it = *r->next_shard_iterator;
      }
    }
    return out;
  }

  std::atomic<double> now_{1.7e9};
  double retention_ = 24 * 3600;
  double shard_seconds_ = 4 * 3600;
  std::unique_ptr<DB> db_;
};

Item Key(const std::string& pk, const std::string& sk) {
  return MakeItem({{"pk", S(pk)}, {"sk", N(sk)}});
}

TEST_F(StreamsTest, EachWriteMakesOneRecordAndNoOpWritesNone) {
  CreateTable("tbl", "NEW_AND_OLD_IMAGES");
  Put("tbl", MakeItem({{"pk", S("a")}, {"sk", N("1")}, {"v", S("x")}}));   // INSERT
  Put("tbl", MakeItem({{"pk", S("a")}, {"sk", N("1")}, {"v", S("x")}}));   // identical: none
  Put("tbl", MakeItem({{"pk", S("a")}, {"sk", N("1")}, {"v", S("y")}}));   // MODIFY
  Delete("tbl", Key("missing", "1"));                                      // none
  UpdateItemRequest same;
  same.table_name = "tbl";
  same.key = Key("a", "1");
  same.update_expression = "SET v = :v";
  same.expression_attribute_values[":v"] = S("y");
  same.has_expression_attribute_values = true;
  ASSERT_OK(db_->UpdateItem(same));                                      // same value: none
  Delete("tbl", Key("a", "1"));                                            // REMOVE

  std::vector<StreamRecord> records = ReadAll(StreamArn("tbl"));
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].event_name, "INSERT");
  EXPECT_FALSE(records[0].old_image);
  EXPECT_EQ(records[0].new_image->at("v"), S("x"));
  EXPECT_EQ(records[1].event_name, "MODIFY");
  EXPECT_EQ(records[1].old_image->at("v"), S("x"));
  EXPECT_EQ(records[1].new_image->at("v"), S("y"));
  EXPECT_EQ(records[2].event_name, "REMOVE");
  EXPECT_FALSE(records[2].new_image);
  EXPECT_EQ(records[2].old_image->at("v"), S("y"));
  for (size_t i = 0; i < records.size(); ++i) {
    const StreamRecord& r = records[i];
    EXPECT_EQ(r.keys, Key("a", "1"));
    EXPECT_EQ(r.event_source, "aws:dynamodb");
    EXPECT_EQ(r.event_version, "1.1");
    EXPECT_EQ(r.aws_region, "us-east-1");
    EXPECT_EQ(r.stream_view_type, "NEW_AND_OLD_IMAGES");
    EXPECT_EQ(r.event_id.size(), 32u);
    EXPECT_GE(r.sequence_number.size(), 21u);
    EXPECT_DOUBLE_EQ(r.approximate_creation_date_time, 1.7e9);
    if (i > 0) {
      EXPECT_LT(records[i - 1].sequence_number, r.sequence_number);  // same width: text order
      EXPECT_NE(records[i - 1].event_id, r.event_id);
    }
  }
  // SizeBytes: keys + the images the record carries (DynamoDB item sizes).
  EXPECT_EQ(records[0].size_bytes, (2 + 1 + 2 + 2) + (2 + 1 + 2 + 2 + 1 + 1));
}

TEST_F(StreamsTest, ViewTypesDecideTheImages) {
  for (const std::string view : {"KEYS_ONLY", "NEW_IMAGE", "OLD_IMAGE"}) {
    CreateTable("tbl_" + view, view);
    Put("tbl_" + view, MakeItem({{"pk", S("a")}, {"sk", N("1")}, {"v", S("x")}}));
    Put("tbl_" + view, MakeItem({{"pk", S("a")}, {"sk", N("1")}, {"v", S("y")}}));
    auto records = ReadAll(StreamArn("tbl_" + view));
    ASSERT_EQ(records.size(), 2u) << view;
    EXPECT_EQ(records[1].stream_view_type, view);
    EXPECT_EQ(records[1].keys, Key("a", "1"));
    EXPECT_EQ(records[1].new_image.has_value(), view == "NEW_IMAGE") << view;
    EXPECT_EQ(records[1].old_image.has_value(), view == "OLD_IMAGE") << view;
  }
}

TEST_F(StreamsTest, TransactionsBatchesAndTtlRecordEveryItem) {
  CreateTable("tbl", "NEW_IMAGE");
  TransactWriteItemsRequest tx;
  for (int i = 0; i < 3; ++i) {
    TransactWriteItem w;
    w.kind = TransactWriteItem::Kind::kPut;
    w.table_name = "tbl";
    w.item = MakeItem({{"pk", S("tx")}, {"sk", N(std::to_string(i))}});
    tx.transact_items.push_back(std::move(w));
  }
  ASSERT_OK(db_->TransactWriteItems(tx));
  // A cancelled transaction leaves no record.
  TransactWriteItemsRequest failed = tx;
  failed.transact_items[0].condition_expression = "attribute_not_exists(pk)";
  EXPECT_FALSE(db_->TransactWriteItems(failed).ok());

  BatchWriteItemRequest batch;
  for (int i = 0; i < 2; ++i) {
    WriteRequest w;
    w.put_item = MakeItem({{"pk", S("batch")}, {"sk", N(std::to_string(i))}});
    batch.request_items["tbl"].push_back(std::move(w));
  }
  ASSERT_OK(db_->BatchWriteItem(batch));

  UpdateTimeToLiveRequest ttl;
  ttl.table_name = "tbl";
  ttl.time_to_live_specification = {true, "expires"};
  ASSERT_OK(db_->UpdateTimeToLive(ttl));
  Put("tbl", MakeItem({{"pk", S("old")}, {"sk", N("1")}, {"expires", N("1000")}}));
  const double now = now_.load();  // time to live reads the database's clock
  Put("tbl", MakeItem({{"pk", S("gone")}, {"sk", N("1")},
                     {"expires", N(std::to_string(static_cast<int64_t>(now) - 60))}}));
  EXPECT_EQ(static_cast<DBImpl*>(db_.get())->SweepExpiredItems(), 1);

  auto records = ReadAll(StreamArn("tbl"));
  ASSERT_EQ(records.size(), 3u + 2u + 2u + 1u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(records[i].keys, Key("tx", std::to_string(i)));
  EXPECT_EQ(records[3].keys.at("pk"), S("batch"));
  EXPECT_EQ(records.back().event_name, "REMOVE");
  EXPECT_EQ(records.back().keys, Key("gone", "1"));
  EXPECT_TRUE(records.back().by_time_to_live);
  EXPECT_FALSE(records.back().new_image);  // NEW_IMAGE: a removal has none
  for (size_t i = 0; i + 1 < records.size(); ++i) EXPECT_FALSE(records[i].by_time_to_live);
}

TEST_F(StreamsTest, TablesWithoutAStreamRecordNothing) {
  CreateTable("plain", "");
  Put("plain", Key("a", "1"));
  ListStreamsRequest req;
  auto r = db_->ListStreams(req);
  ASSERT_OK(r);
  EXPECT_TRUE(r->streams.empty());
}

TEST_F(StreamsTest, LifecycleDisableEnableAndDeleteTable) {
  CreateTable("tbl", "KEYS_ONLY");
  Put("tbl", Key("a", "1"));
  const std::string first = StreamArn("tbl");

  UpdateTableRequest off;
  off.table_name = "tbl";
  off.stream_specification = StreamSpecification{false, ""};
  ASSERT_OK(db_->UpdateTable(off));
  EXPECT_ERROR(db_->UpdateTable(off), ErrorType::kValidation, "Table has no stream to disable");
  Put("tbl", Key("a", "2"));  // no stream: no record
  StreamDescription d = Describe(first);
  EXPECT_EQ(d.stream_status, "DISABLED");
  ASSERT_EQ(d.shards.size(), 1u);
  EXPECT_TRUE(d.shards[0].sequence_number_range.ending_sequence_number);
  {
    DescribeTableRequest dt;
    dt.table_name = "tbl";
    auto r = db_->DescribeTable(dt);
    ASSERT_OK(r);
    EXPECT_FALSE(r->table.stream_specification);  // gone from the description once disabled
    EXPECT_EQ(r->table.latest_stream_arn, first);
  }

  now_ = now_ + 1;
  UpdateTableRequest on;
  on.table_name = "tbl";
  on.stream_specification = StreamSpecification{true, "NEW_IMAGE"};
  ASSERT_OK(db_->UpdateTable(on));
  EXPECT_ERROR(db_->UpdateTable(on), ErrorType::kValidation,
               "Table already has an enabled stream: TableName: tbl");
  const std::string second = StreamArn("tbl");
  EXPECT_NE(first, second);
  Put("tbl", Key("a", "3"));

  ListStreamsRequest list;
  list.table_name = "tbl";
  auto streams = db_->ListStreams(list);
  ASSERT_OK(streams);
  ASSERT_EQ(streams->streams.size(), 2u);
  EXPECT_EQ(ReadAll(first).size(), 1u);
  auto second_records = ReadAll(second);
  ASSERT_EQ(second_records.size(), 1u);
  EXPECT_EQ(second_records[0].keys, Key("a", "3"));

  // Paging.
  list.limit = 1;
  auto page = db_->ListStreams(list);
  ASSERT_OK(page);
  ASSERT_EQ(page->streams.size(), 1u);
  ASSERT_TRUE(page->last_evaluated_stream_arn);
  list.exclusive_start_stream_arn = page->last_evaluated_stream_arn;
  auto page2 = db_->ListStreams(list);
  ASSERT_OK(page2);
  ASSERT_EQ(page2->streams.size(), 1u);
  EXPECT_NE(page2->streams[0].stream_arn, page->streams[0].stream_arn);

  // DeleteTable leaves the stream readable, disabled; a REMOVE is not recorded.
  DeleteTableRequest del;
  del.table_name = "tbl";
  ASSERT_OK(db_->DeleteTable(del));
  EXPECT_EQ(Describe(second).stream_status, "DISABLED");
  EXPECT_EQ(ReadAll(second).size(), 1u);

  // Once past the retention, both go.
  now_ = now_ + retention_ + 1;
  static_cast<DBImpl*>(db_.get())->TrimStreams();
  DescribeStreamRequest gone;
  gone.stream_arn = second;
  EXPECT_ERROR(db_->DescribeStream(gone), ErrorType::kResourceNotFound, "not found");
}

TEST_F(StreamsTest, TrimmingAndIteratorExpiry) {
  retention_ = 100;
  Open();
  CreateTable("tbl", "NEW_IMAGE");
  Put("tbl", Key("a", "1"));
  const std::string arn = StreamArn("tbl");
  const std::string shard = Describe(arn).shards.at(0).shard_id;
  const std::string old_seq = ReadAll(arn).at(0).sequence_number;
  const std::string iterator = Iterator(arn, shard);

  now_ = now_ + 16 * 60;  // iterators last 15 minutes
  GetRecordsRequest expired;
  expired.shard_iterator = iterator;
  EXPECT_ERROR(db_->GetRecords(expired), ErrorType::kExpiredIterator, "expired");

  Put("tbl", Key("a", "2"));
  EXPECT_EQ(static_cast<DBImpl*>(db_.get())->TrimStreams(), 1);
  GetShardIteratorRequest at;
  at.stream_arn = arn;
  at.shard_id = shard;
  at.shard_iterator_type = ShardIteratorType::kAtSequenceNumber;
  at.sequence_number = old_seq;
  EXPECT_ERROR(db_->GetShardIterator(at), ErrorType::kTrimmedDataAccess, "trimmed");
  auto kept = ReadAll(arn);
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].keys, Key("a", "2"));
}

TEST_F(StreamsTest, ShardsRollOverAndClosedShardsEnd) {
  shard_seconds_ = 10;
  Open();
  CreateTable("tbl", "KEYS_ONLY");
  Put("tbl", Key("a", "1"));
  now_ = now_ + 11;
  Put("tbl", Key("a", "2"));
  Put("tbl", Key("a", "3"));
  const std::string arn = StreamArn("tbl");
  StreamDescription d = Describe(arn);
  ASSERT_EQ(d.shards.size(), 2u);
  EXPECT_FALSE(d.shards[0].parent_shard_id);
  EXPECT_EQ(d.shards[1].parent_shard_id, d.shards[0].shard_id);
  EXPECT_TRUE(d.shards[0].sequence_number_range.ending_sequence_number);
  EXPECT_FALSE(d.shards[1].sequence_number_range.ending_sequence_number);
  EXPECT_EQ(d.shards[0].shard_id.size(), 37u);
  EXPECT_FALSE(d.last_evaluated_shard_id);
  {
    DescribeStreamRequest page;
    page.stream_arn = StreamArn("tbl");
    page.limit = 1;
    auto first = db_->DescribeStream(page);
    ASSERT_OK(first);
    ASSERT_EQ(first->stream_description.shards.size(), 1u);
    EXPECT_EQ(first->stream_description.last_evaluated_shard_id, d.shards[0].shard_id);
    page.exclusive_start_shard_id = first->stream_description.last_evaluated_shard_id;
    auto second = db_->DescribeStream(page);
    ASSERT_OK(second);
    ASSERT_EQ(second->stream_description.shards.size(), 1u);
    EXPECT_FALSE(second->stream_description.last_evaluated_shard_id);  // nothing after it
    // The children of the first shard: the second, and no page beyond.
    page.exclusive_start_shard_id.reset();
    page.child_shards_of = d.shards[0].shard_id;
    auto children = db_->DescribeStream(page);
    ASSERT_OK(children);
    ASSERT_EQ(children->stream_description.shards.size(), 1u);
    EXPECT_EQ(children->stream_description.shards[0].shard_id, d.shards[1].shard_id);
    EXPECT_FALSE(children->stream_description.last_evaluated_shard_id);
  }

  // The closed shard: its records, then no next iterator.
  GetRecordsRequest req;
  req.shard_iterator = Iterator(arn, d.shards[0].shard_id);
  auto r = db_->GetRecords(req);
  ASSERT_OK(r);
  ASSERT_EQ(r->records.size(), 1u);
  EXPECT_EQ(r->records[0].keys, Key("a", "1"));
  if (r->next_shard_iterator) {
    req.shard_iterator = *r->next_shard_iterator;
    r = db_->GetRecords(req);
    ASSERT_OK(r);
    EXPECT_TRUE(r->records.empty());
    EXPECT_FALSE(r->next_shard_iterator);
  }
  // The open shard, one record at a time, AFTER_SEQUENCE_NUMBER and LATEST.
  req.shard_iterator = Iterator(arn, d.shards[1].shard_id);
  req.limit = 1;
  r = db_->GetRecords(req);
  ASSERT_OK(r);
  ASSERT_EQ(r->records.size(), 1u);
  const std::string second = r->records[0].sequence_number;
  req.shard_iterator = Iterator(arn, d.shards[1].shard_id,
                                ShardIteratorType::kAfterSequenceNumber, second);
  r = db_->GetRecords(req);
  ASSERT_OK(r);
  ASSERT_EQ(r->records.size(), 1u);
  EXPECT_EQ(r->records[0].keys, Key("a", "3"));
  req.shard_iterator = Iterator(arn, d.shards[1].shard_id, ShardIteratorType::kLatest);
  r = db_->GetRecords(req);
  ASSERT_OK(r);
  EXPECT_TRUE(r->records.empty());
  ASSERT_TRUE(r->next_shard_iterator);
  Put("tbl", Key("a", "4"));
  req.shard_iterator = *r->next_shard_iterator;
  r = db_->GetRecords(req);
  ASSERT_OK(r);
  ASSERT_EQ(r->records.size(), 1u);
  EXPECT_EQ(r->records[0].keys, Key("a", "4"));
}

TEST_F(StreamsTest, BadInputGetsStreamsErrors) {
  CreateTable("tbl", "KEYS_ONLY");
  const std::string arn = StreamArn("tbl");
  const std::string shard = Describe(arn).shards.at(0).shard_id;

  DescribeStreamRequest unknown;
  unknown.stream_arn = arn + "0";
  EXPECT_ERROR(db_->DescribeStream(unknown), ErrorType::kResourceNotFound,
               "Requested resource not found: Stream: ");
  unknown.stream_arn = "x";
  EXPECT_ERROR(db_->DescribeStream(unknown), ErrorType::kValidation, "streamArn");
  unknown.stream_arn = std::string(40, 'x');
  EXPECT_ERROR(db_->DescribeStream(unknown), ErrorType::kValidation, "Invalid StreamArn");
  DescribeStreamRequest limit;
  limit.stream_arn = arn;
  limit.limit = 0;
  EXPECT_ERROR(db_->DescribeStream(limit), ErrorType::kValidation,
               "Member must have value greater than or equal to 1");

  GetShardIteratorRequest it;
  it.stream_arn = arn;
  it.shard_id = shard;
  it.shard_iterator_type = ShardIteratorType::kAtSequenceNumber;
  EXPECT_ERROR(db_->GetShardIterator(it), ErrorType::kValidation, "sequence number");
  it.shard_iterator_type = ShardIteratorType::kLatest;
  it.sequence_number = std::string(21, '1');
  EXPECT_ERROR(db_->GetShardIterator(it), ErrorType::kValidation, "must not be specified");
  it.sequence_number.reset();
  it.shard_id = "shardId-00000000000000000000-00000000";
  EXPECT_ERROR(db_->GetShardIterator(it), ErrorType::kResourceNotFound, "Shard does not exist");

  GetRecordsRequest records;
  records.shard_iterator = Iterator(arn, shard);
  records.shard_iterator.back() = records.shard_iterator.back() == '0' ? '1' : '0';  // forged
  EXPECT_ERROR(db_->GetRecords(records), ErrorType::kValidation, "Invalid ShardIterator");
  records.shard_iterator = "garbage";
  EXPECT_ERROR(db_->GetRecords(records), ErrorType::kValidation, "Invalid ShardIterator");
  records.shard_iterator = Iterator(arn, shard);
  records.limit = 1001;
  EXPECT_ERROR(db_->GetRecords(records), ErrorType::kValidation, "less than or equal to 1000");

  ListStreamsRequest list;
  list.limit = 0;
  EXPECT_ERROR(db_->ListStreams(list), ErrorType::kValidation,
               "Member must have value greater than or equal to 1");
  list.limit = 101;
  EXPECT_ERROR(db_->ListStreams(list), ErrorType::kValidation, "less than or equal to 100");
  list.limit.reset();
  list.table_name = "no";
  EXPECT_ERROR(db_->ListStreams(list), ErrorType::kValidation, "tableName");
  list.table_name = "nosuchtable";
  EXPECT_ERROR(db_->ListStreams(list), ErrorType::kResourceNotFound, "nosuchtable");
  EXPECT_ERROR(db_->Subscribe("nosuchtable", SubscribeOptions{}, [](const StreamRecord&) {}),
               ErrorType::kResourceNotFound, "not found");

  CreateTableRequest bad;
  bad.table_name = "ubl";
  bad.attribute_definitions = {{"pk", AttrType::kS}};
  bad.key_schema = {{"pk", KeyType::kHash}};
  bad.billing_mode = "PAY_PER_REQUEST";
  bad.stream_specification = StreamSpecification{true, ""};
  EXPECT_ERROR(db_->CreateTable(bad), ErrorType::kValidation, "UpdateViewType is required");
}

TEST_F(StreamsTest, SubscriptionsDeliverInOrderAndResume) {
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("dynarock_streams_" + std::to_string(::getpid())))
          .string();
  std::filesystem::remove_all(dir);
  Open(dir);
  CreateTable("tbl", "NEW_IMAGE");
  std::mutex mu;
  std::condition_variable cv;
  std::vector<StreamRecord> got;
  auto handler = [&](const StreamRecord& r) {
    std::lock_guard<std::mutex> lock(mu);
    got.push_back(r);
    cv.notify_all();
  };
  auto wait_for = [&](size_t n) {
    std::unique_lock<std::mutex> lock(mu);
    return cv.wait_for(lock, std::chrono::seconds(10), [&] { return got.size() >= n; });
  };
  {
    auto sub = db_->Subscribe("tbl", SubscribeOptions{}, handler);
    ASSERT_OK(sub);
    // Writers on several threads; each item's records stay in its write order.
    std::vector<std::thread> writers;
    for (int w = 0; w < 4; ++w) {
      writers.emplace_back([&, w] {
        for (int i = 0; i < 50; ++i) {
          PutItemRequest req;
          req.table_name = "tbl";
          req.item = MakeItem({{"pk", S("w" + std::to_string(w))}, {"sk", N("1")},
                               {"n", N(std::to_string(i))}});
          EXPECT_TRUE(db_->PutItem(req).ok());
        }
      });
    }
    for (auto& t : writers) t.join();
    ASSERT_TRUE(wait_for(200));
    std::map<std::string, int> last;
    for (size_t i = 0; i < got.size(); ++i) {
      const std::string pk = got[i].keys.at("pk").scalar();
      const int n = std::stoi(got[i].new_image->at("n").scalar());
      EXPECT_EQ(n, last.count(pk) ? last[pk] + 1 : 0);
      last[pk] = n;
      if (i) {
        EXPECT_LT(got[i - 1].sequence_number, got[i].sequence_number);
      }
    }
    // The position moves once the handler has returned.
    for (int i = 0; i < 100 && (*sub)->position() != got.back().sequence_number; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_EQ((*sub)->position(), got.back().sequence_number);
  }
  const std::string saved = got[99].sequence_number;
  Put("tbl", MakeItem({{"pk", S("after")}, {"sk", N("1")}}));
  Open(dir);  // a restart
  got.clear();
  SubscribeOptions resume;
  resume.start = SubscribeOptions::Start::kAfterSequenceNumber;
  resume.after_sequence_number = saved;
  auto sub = db_->Subscribe("tbl", resume, handler);
  ASSERT_OK(sub);
  ASSERT_TRUE(wait_for(101));
  {
    std::lock_guard<std::mutex> lock(mu);
    EXPECT_EQ(got.size(), 101u);
    EXPECT_GT(got.front().sequence_number, saved);
    EXPECT_EQ(got.back().keys.at("pk"), S("after"));
  }
  (*sub)->Cancel();
  sub->reset();
  db_.reset();
  std::filesystem::remove_all(dir);

  Open();
  CreateTable("plain", "");
  EXPECT_ERROR(db_->Subscribe("plain", SubscribeOptions{}, handler), ErrorType::kValidation,
               "no stream enabled");
}

TEST_F(StreamsTest, SubscriptionsDeliverAnOldStreamsWholeBacklogFirst) {
  CreateTable("tbl", "KEYS_ONLY");
  for (int i = 0; i < 1500; ++i) Put("tbl", Key("a", std::to_string(i)));
  UpdateTableRequest off;
  off.table_name = "tbl";
  off.stream_specification = StreamSpecification{false, ""};
  ASSERT_OK(db_->UpdateTable(off));
  UpdateTableRequest on;
  on.table_name = "tbl";
  on.stream_specification = StreamSpecification{true, "KEYS_ONLY"};
  ASSERT_OK(db_->UpdateTable(on));
  for (int i = 0; i < 5; ++i) Put("tbl", Key("b", std::to_string(i)));

  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::string> seqs;
  SubscribeOptions from;
  from.start = SubscribeOptions::Start::kTrimHorizon;
  auto sub = db_->Subscribe("tbl", from, [&](const StreamRecord& r) {
    std::lock_guard<std::mutex> lock(mu);
    seqs.push_back(r.sequence_number);
    cv.notify_all();
  });
  ASSERT_OK(sub);
  std::unique_lock<std::mutex> lock(mu);
  ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return seqs.size() >= 1505; }));
  lock.unlock();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  lock.lock();
  EXPECT_EQ(seqs.size(), 1505u);
  EXPECT_TRUE(std::is_sorted(seqs.begin(), seqs.end()));
}

TEST_F(StreamsTest, AHandlerMayCancelAndDestroyItsOwnSubscription) {
  CreateTable("tbl", "KEYS_ONLY");
  std::atomic<int> calls{0};
  std::unique_ptr<Subscription> holder;
  std::mutex mu;
  SubscribeOptions from;
  from.start = SubscribeOptions::Start::kTrimHorizon;
  auto sub = db_->Subscribe("tbl", from, [&](const StreamRecord&) {
    calls++;
    std::unique_ptr<Subscription> mine;
    {
      std::lock_guard<std::mutex> lock(mu);
      mine = std::move(holder);
    }
    mine.reset();  // destroys the subscription from its own thread
  });
  ASSERT_OK(sub);
  {
    std::lock_guard<std::mutex> lock(mu);
    holder = std::move(*sub);
  }
  for (int i = 0; i < 20; ++i) Put("tbl", Key("a", std::to_string(i)));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(calls.load(), 1);

  // A subscription that outlives its database: the DB stops it on close.
  auto outliving = db_->Subscribe("tbl", from, [](const StreamRecord&) {});
  ASSERT_OK(outliving);
  db_.reset();
  outliving->reset();
}

TEST_F(StreamsTest, TheLargestSequenceNumberDoesNotWrap) {
  CreateTable("tbl", "KEYS_ONLY");
  Put("tbl", Key("a", "1"));
  const std::string arn = StreamArn("tbl");
  GetShardIteratorRequest after;
  after.stream_arn = arn;
  after.shard_id = Describe(arn).shards.at(0).shard_id;
  after.shard_iterator_type = ShardIteratorType::kAfterSequenceNumber;
  after.sequence_number = "018446744073709551615";
  EXPECT_ERROR(db_->GetShardIterator(after), ErrorType::kValidation, "Invalid SequenceNumber");
  SubscribeOptions from;
  from.start = SubscribeOptions::Start::kAfterSequenceNumber;
  from.after_sequence_number = "018446744073709551615";
  EXPECT_ERROR(db_->Subscribe("tbl", from, [](const StreamRecord&) {}), ErrorType::kValidation,
               "Invalid SequenceNumber");
}

}  // namespace
}  // namespace dynarock
