// Kinesis streaming destinations' delivery in the engine
// (DB::DeliverKinesisRecords, engine/kinesis_destinations.cc): records of the
// writes made while a destination is ACTIVE, in order, both images; a batch a
// deliverer refuses is offered again; after Disable the log is delivered to
// its end and nothing later is; the sink's line shape (api::KinesisSink).

#include <gtest/gtest.h>
#include <simdjson.h>

#include <set>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>
#include <string>
#include <vector>

#include "dynarock/db.h"
#include "engine/api/kinesis_sink.h"

namespace dynarock {
namespace {

constexpr char kStream[] = "arn:aws:kinesis:us-east-1:000000000000:stream/feed";

class KinesisDeliveryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Options options;
    options.in_memory = true;
    db_ = std::move(DB::Open(options, "").value());
    CreateTableRequest c;
    c.table_name = "orders";
    c.attribute_definitions = {{"pk", AttrType::kS}};
    c.key_schema = {{"pk", KeyType::kHash}};
    c.billing_mode = "PAY_PER_REQUEST";
    ASSERT_TRUE(db_->CreateTable(c).ok());
  }
  void Put(const std::string& pk, const std::string& v) {
    PutItemRequest p;
    p.table_name = "orders";
    p.item = {{"pk", AttributeValue::S(pk)}, {"v", AttributeValue::S(v)}};
    ASSERT_TRUE(db_->PutItem(p).ok());
  }
  KinesisStreamingDestinationRequest Destination() {
    KinesisStreamingDestinationRequest r;
    r.table_name = "orders";
    r.stream_arn = kStream;
    return r;
  }
  // Everything deliverable now, as (event, pk, new v, old v).
  std::vector<std::string> Drain() {
    std::vector<std::string> out;
    int64_t n = 0;
    Status s = db_->DeliverKinesisRecords(
        [&](const DB::KinesisRecords& batch) {
          EXPECT_EQ(batch.stream_arn, kStream);
          EXPECT_EQ(batch.table_name, "orders");
          for (const StreamRecord& r : batch.records) {
            out.push_back(r.event_name + " " + r.keys.at("pk").scalar() + " " +
                          (r.new_image ? r.new_image->at("v").scalar() : "-") + " " +
                          (r.old_image ? r.old_image->at("v").scalar() : "-"));
          }
          return Status();
        },
        &n);
    EXPECT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(n, static_cast<int64_t>(out.size()));
    return out;
  }
  std::unique_ptr<DB> db_;
};

TEST_F(KinesisDeliveryTest, DeliversWritesWhileActiveInOrderAtLeastOnce) {
  Put("before", "0");
  EXPECT_TRUE(Drain().empty());
  ASSERT_TRUE(db_->EnableKinesisStreamingDestination(Destination()).ok());
  Put("a", "1");
  Put("a", "2");
  DeleteItemRequest d;
  d.table_name = "orders";
  d.key = {{"pk", AttributeValue::S("a")}};
  ASSERT_TRUE(db_->DeleteItem(d).ok());

  // A deliverer that fails: the batch is offered again.
  int64_t n = 0;
  Status refused = db_->DeliverKinesisRecords(
      [](const DB::KinesisRecords&) { return InternalError("the sink is full"); }, &n);
  EXPECT_FALSE(refused.ok());
  EXPECT_EQ(n, 0);
  EXPECT_EQ(Drain(), (std::vector<std::string>{"INSERT a 1 -", "MODIFY a 2 1", "REMOVE a - 2"}));
  EXPECT_TRUE(Drain().empty());  // delivered once

  Put("b", "3");
  ASSERT_TRUE(db_->DisableKinesisStreamingDestination(Destination()).ok());
  Put("c", "4");  // after Disable: never delivered
  EXPECT_EQ(Drain(), (std::vector<std::string>{"INSERT b 3 -"}));
  EXPECT_TRUE(Drain().empty());

  // Enabled again: a new log, from then on.
  ASSERT_TRUE(db_->EnableKinesisStreamingDestination(Destination()).ok());
  Put("d", "5");
  EXPECT_EQ(Drain(), (std::vector<std::string>{"INSERT d 5 -"}));
}

// Disabled with many records waiting, then enabled again: the new log's
// records come after every one of the old log's.
TEST_F(KinesisDeliveryTest, ADestinationEnabledAgainKeepsItsOrder) {
  ASSERT_TRUE(db_->EnableKinesisStreamingDestination(Destination()).ok());
  for (int i = 0; i < 2500; ++i) Put("k" + std::to_string(i), "v");
  ASSERT_TRUE(db_->DisableKinesisStreamingDestination(Destination()).ok());
  ASSERT_TRUE(db_->EnableKinesisStreamingDestination(Destination()).ok());
  Put("last", "v");
  std::vector<std::string> all;
  for (int pass = 0; pass < 10; ++pass) {
    std::vector<std::string> more = Drain();
    all.insert(all.end(), more.begin(), more.end());
  }
  ASSERT_EQ(all.size(), 2501u);
  EXPECT_EQ(all.front(), "INSERT k0 v -");
  EXPECT_EQ(all.back(), "INSERT last v -");
}

// A line cut short in the sink's file (a crash mid-write) is dropped before
// the next batch: every line reads as JSON.
TEST_F(KinesisDeliveryTest, TheSinkDropsALineCutShort) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("dynarock-sink-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    std::ofstream f(dir / "feed.jsonl");
    f << "{\"eventName\":\"INSERT\"}\n{\"awsRegion\":\"x";
  }
  ASSERT_TRUE(db_->EnableKinesisStreamingDestination(Destination()).ok());
  Put("a", "1");
  std::vector<std::string> lines;
  {
    api::KinesisSink sink(db_.get(), dir.string());
    for (int i = 0; i < 200 && lines.size() < 2; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      std::ifstream f(dir / "feed.jsonl");
      lines.clear();
      for (std::string l; std::getline(f, l);) lines.push_back(l);
    }
  }
  ASSERT_EQ(lines.size(), 2u);
  simdjson::dom::parser parser;
  for (const std::string& l : lines) {
    simdjson::dom::element e;
    EXPECT_EQ(parser.parse(l).get(e), simdjson::SUCCESS) << l;
  }
  EXPECT_NE(lines[1].find("\"Keys\":{\"pk\":{\"S\":\"a\"}}"), std::string::npos) << lines[1];
  std::filesystem::remove_all(dir);
}

// Databases (namespaces of one endpoint) streaming to one Kinesis stream
// append to one file: every line whole, none lost. (Without one writer a
// file, two sinks' appends land on the same offset.)
TEST_F(KinesisDeliveryTest, SinksOfSeveralDatabasesShareAFileWholeLines) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("dynarock-sinks-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  constexpr int kDatabases = 4, kEach = 400;
  std::vector<std::unique_ptr<DB>> dbs;
  for (int d = 0; d < kDatabases; ++d) {
    Options options;
    options.in_memory = true;
    dbs.push_back(std::move(DB::Open(options, "").value()));
    CreateTableRequest c;
    c.table_name = "orders";
    c.attribute_definitions = {{"pk", AttrType::kS}};
    c.key_schema = {{"pk", KeyType::kHash}};
    c.billing_mode = "PAY_PER_REQUEST";
    ASSERT_TRUE(dbs.back()->CreateTable(c).ok());
    ASSERT_TRUE(dbs.back()->EnableKinesisStreamingDestination(Destination()).ok());
  }
  std::vector<std::string> lines;
  {
    std::vector<std::unique_ptr<api::KinesisSink>> sinks;
    for (auto& db : dbs) sinks.push_back(std::make_unique<api::KinesisSink>(db.get(), dir.string()));
    std::vector<std::thread> writers;
    for (int d = 0; d < kDatabases; ++d) {
      writers.emplace_back([&, d] {
        for (int i = 0; i < kEach; ++i) {
          PutItemRequest p;
          p.table_name = "orders";
          p.item = {{"pk", AttributeValue::S(std::to_string(d) + "-" + std::to_string(i))}};
          ASSERT_TRUE(dbs[static_cast<size_t>(d)]->PutItem(p).ok());
          if (i % 20 == 0) std::this_thread::yield();
        }
      });
    }
    for (auto& w : writers) w.join();
    for (int i = 0; i < 500 && lines.size() < size_t{kDatabases} * kEach; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      std::ifstream f(dir / "feed.jsonl");
      lines.clear();
      for (std::string l; std::getline(f, l);) lines.push_back(l);
    }
  }
  simdjson::dom::parser parser;
  std::set<std::string> keys;
  for (const std::string& l : lines) {
    simdjson::dom::element e;
    ASSERT_EQ(parser.parse(l).get(e), simdjson::SUCCESS) << l;
    std::string_view pk;
    ASSERT_EQ(e["dynamodb"]["Keys"]["pk"]["S"].get(pk), simdjson::SUCCESS) << l;
    keys.insert(std::string(pk));
  }
  EXPECT_EQ(keys.size(), size_t{kDatabases} * kEach);  // every record, at least once
  std::filesystem::remove_all(dir);
}

TEST_F(KinesisDeliveryTest, SinkLinesHaveDynamoDBsKinesisShape) {
  StreamRecord r;
  r.event_id = "0123456789abcdef0123456789abcdef";
  r.event_name = "INSERT";
  r.aws_region = "eu-west-1";
  r.approximate_creation_date_time = 1700000000.123;
  r.keys = {{"pk", AttributeValue::S("a")}};
  r.new_image = Item{{"pk", AttributeValue::S("a")}};
  r.size_bytes = 4;
  EXPECT_EQ(api::KinesisSink::RecordJson(r, "orders", false),
            R"({"awsRegion":"eu-west-1","eventID":"01234567-89ab-4def-8123-456789abcdef",)"
            R"("eventName":"INSERT","userIdentity":null,"recordFormat":"application/json",)"
            R"("tableName":"orders","dynamodb":{"ApproximateCreationDateTime":1700000000123,)"
            R"("Keys":{"pk":{"S":"a"}},"NewImage":{"pk":{"S":"a"}},"SizeBytes":4},)"
            R"("eventSource":"aws:dynamodb"})");
  r.by_time_to_live = true;
  const std::string ttl = api::KinesisSink::RecordJson(r, "orders", true);
  EXPECT_NE(ttl.find(R"("userIdentity":{"type":"Service","principalId":"dynamodb.amazonaws.com"})"),
            std::string::npos) << ttl;
  EXPECT_NE(ttl.find(R"("ApproximateCreationDateTime":1700000000123000,)"
                     R"("ApproximateCreationDateTimePrecision":"MICROSECOND")"),
            std::string::npos) << ttl;
  EXPECT_EQ(api::KinesisSink::FileName(kStream), "feed.jsonl");
  EXPECT_EQ(api::KinesisSink::FileName("arn:aws:kinesis:x:1:stream/../etc"), "_.._etc.jsonl");
}

}  // namespace
}  // namespace dynarock
