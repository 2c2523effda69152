// The Replicator with an embedded remote: everything ships in order, a second
// run resumes from the checkpoint, the version policy keeps newer remote items,
// and a table without new images is refused.

#include "tools/replicate/replicator.h"

#include "client/embedded_client.h"
#include "tests/unit/testutil.h"
#include "tools/replicate/stream_reader.h"

namespace dynarock {
namespace {

using testing::MakeItem;
using testing::N;
using testing::S;

class ReplicatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Options options;
    options.in_memory = true;
    local_ = std::move(DB::Open(options, "").value());
    remote_db_ = std::move(DB::Open(options, "").value());
    remote_ = std::make_unique<client::EmbeddedClient>(remote_db_.get());
  }

  void CreateLocal(const std::string& view) {
    CreateTableRequest req;
    req.table_name = "notes";
    req.billing_mode = "PAY_PER_REQUEST";
    req.attribute_definitions = {{"id", AttrType::kS}};
    req.key_schema = {{"id", KeyType::kHash}};
    req.stream_specification = StreamSpecification{true, view};
    ASSERT_OK(local_->CreateTable(req));
  }

  void Put(DB* db, Item item) {
    PutItemRequest req;
    req.table_name = "notes";
    req.item = std::move(item);
    ASSERT_OK(db->PutItem(req));
  }

  std::map<std::string, Item> All(DB* db) {
    ScanRequest req;
    req.table_name = "notes";
    auto r = db->Scan(req);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::map<std::string, Item> out;
    if (r.ok())
      for (auto& item : r->items) out[item.at("id").scalar()] = item;
    return out;
  }

  std::unique_ptr<DB> local_, remote_db_;
  std::unique_ptr<client::EmbeddedClient> remote_;
};

TEST_F(ReplicatorTest, ShipsInOrderAndResumesFromTheCheckpoint) {
  CreateLocal("NEW_AND_OLD_IMAGES");
  for (int i = 0; i < 60; ++i) Put(local_.get(), MakeItem({{"id", S("k" + std::to_string(i % 7))}, {"n", N(std::to_string(i))}}));
  DeleteItemRequest del;
  del.table_name = "notes";
  del.key = MakeItem({{"id", S("k3")}});
  ASSERT_OK(local_->DeleteItem(del));

  ReplicatorOptions options;
  options.table = "notes";
  Replicator first(local_.get(), remote_.get(), options);
  auto shipped = first.RunOnce();  // creates the remote table too
  ASSERT_OK(shipped);
  EXPECT_EQ(*shipped, 61);
  EXPECT_EQ(All(remote_db_.get()), All(local_.get()));
  EXPECT_EQ(All(remote_db_.get()).count("k3"), 0u);

  // A new replicator resumes after the checkpoint: only the new change ships.
  Put(local_.get(), MakeItem({{"id", S("k9")}, {"n", N("100")}}));
  Replicator second(local_.get(), remote_.get(), options);
  shipped = second.RunOnce();
  ASSERT_OK(shipped);
  EXPECT_EQ(*shipped, 1);
  EXPECT_EQ(All(remote_db_.get()), All(local_.get()));
}

TEST_F(ReplicatorTest, VersionPolicyKeepsNewerRemoteItems) {
  CreateLocal("NEW_AND_OLD_IMAGES");
  ReplicatorOptions options;
  options.table = "notes";
  options.version_attribute = "v";
  Replicator replicator(local_.get(), remote_.get(), options);
  ASSERT_OK(replicator.RunOnce());  // the remote table exists from here on
  Put(remote_db_.get(), MakeItem({{"id", S("a")}, {"v", N("5")}, {"who", S("remote")}}));
  Put(local_.get(), MakeItem({{"id", S("a")}, {"v", N("3")}, {"who", S("local")}}));
  Put(local_.get(), MakeItem({{"id", S("b")}, {"v", N("1")}, {"who", S("local")}}));
  ASSERT_OK(replicator.RunOnce());
  auto remote = All(remote_db_.get());
  EXPECT_EQ(remote.at("a").at("who"), S("remote"));
  EXPECT_EQ(remote.at("b").at("who"), S("local"));
  EXPECT_EQ(replicator.progress().conflicts, 1);
}

TEST_F(ReplicatorTest, KeysOnlyStreamsShipTheItemReadBack) {
  CreateLocal("KEYS_ONLY");
  Put(local_.get(), MakeItem({{"id", S("a")}, {"n", N("1")}}));
  Put(local_.get(), MakeItem({{"id", S("a")}, {"n", N("2")}}));
  Put(local_.get(), MakeItem({{"id", S("b")}, {"n", N("3")}}));
  DeleteItemRequest del;
  del.table_name = "notes";
  del.key = MakeItem({{"id", S("b")}});
  ASSERT_OK(local_->DeleteItem(del));
  ReplicatorOptions options;
  options.table = "notes";
  Replicator replicator(local_.get(), remote_.get(), options);
  ASSERT_OK(replicator.RunOnce());
  EXPECT_EQ(All(remote_db_.get()), All(local_.get()));
  EXPECT_EQ(All(remote_db_.get()).at("a").at("n"), N("2"));
}

TEST_F(ReplicatorTest, RefusesATableWithoutAStream) {
  CreateTableRequest req;
  req.table_name = "notes";
  req.billing_mode = "PAY_PER_REQUEST";
  req.attribute_definitions = {{"id", AttrType::kS}};
  req.key_schema = {{"id", KeyType::kHash}};
  ASSERT_OK(local_->CreateTable(req));
  ReplicatorOptions options;
  options.table = "notes";
  Replicator replicator(local_.get(), remote_.get(), options);
  EXPECT_ERROR(replicator.RunOnce(), ErrorType::kValidation, "has no stream enabled");
}

TEST(SequenceNumbers, CompareAsNumbers) {
  EXPECT_TRUE(SequenceNumberLess("000000000000000000009", "000000000000000000010"));
  EXPECT_TRUE(SequenceNumberLess("999999999999999999999", "1000000000000000000000"));
  EXPECT_FALSE(SequenceNumberLess("000000000000000000010", "10"));
}

}  // namespace
}  // namespace dynarock
