// graph::BulkLoader's two ways in: straight into a new table's files
// (LoadNewGraph, on a database on disk, where the table files are sorted and
// ingested) and through the client into a table that may already hold the
// graph (BatchWriteItem, reading the nodes it rewrites first); and the reads
// of a large graph: requests in flight together, projections.

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <string>

#include "client/embedded_client.h"
#include "graph/graph.h"

namespace dynarock::graph {

using client::Client;
using client::EmbeddedClient;
namespace {

AttributeValue Text(std::string s) { return AttributeValue::S(std::move(s)); }
AttributeValue Number(int n) { return AttributeValue::N(std::to_string(n)); }

class BulkLoadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("dynarock_bulk_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    Options o;
    auto db = DB::Open(o, dir_.string());
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(db).value();
    client_ = std::make_unique<EmbeddedClient>(db_.get());
  }
  void TearDown() override {
    client_.reset();
    db_.reset();
    std::filesystem::remove_all(dir_);
  }

  // Every item of `table`, by its keys (items are compared whole).
  std::map<std::string, Item> Items(const std::string& table) {
    std::map<std::string, Item> out;
    ScanRequest req;
    req.table_name = table;
    do {
      auto r = db_->Scan(req);
      EXPECT_TRUE(r.ok()) << r.status().ToString();
      if (!r.ok()) break;
      for (Item& item : r->items) {
        out[item.at("PK").scalar() + "|" + item.at("SK").scalar()] = std::move(item);
      }
      req.exclusive_start_key = r->last_evaluated_key;
    } while (req.exclusive_start_key && !req.exclusive_start_key->empty());
    return out;
  }

  std::filesystem::path dir_;
  std::unique_ptr<DB> db_;
  std::unique_ptr<EmbeddedClient> client_;
};

// A random graph with repeated edges (a later version with another weight),
// reverse edges and self-references, loaded both ways: the same items, and
// the database consistent.
TEST_F(BulkLoadTest, TableFilesAndBatchWritesLoadTheSameGraph) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> node(0, 299);
  struct E {
    int src, dst, w;
  };
  std::vector<E> edges;
  for (int i = 0; i < 6000; ++i) edges.push_back({node(rng), node(rng), i});
  auto fill = [&](BulkLoader& loader) -> Status {
    for (int i = 0; i < 300; i += 2) {
      DR_RETURN_IF_ERROR(loader.AddNode("N#" + std::to_string(i), {{"name", Text("node " + std::to_string(i))}}));
    }
    for (const E& e : edges) {
      DR_RETURN_IF_ERROR(loader.AddEdge({"N#" + std::to_string(e.src), e.w % 3 ? "LINK" : "LIKES",
                                         "N#" + std::to_string(e.dst), {{"w", Number(e.w)}}},
                                        /*with_reverse=*/e.w % 5 == 0));
    }
    return Status::Ok();
  };
  Schema files;
  files.table_name = "by_files";
  int64_t written = 0;
  auto loaded = LoadNewGraph(db_.get(), files, [&](BulkLoader& loader) -> Status {
    DR_RETURN_IF_ERROR(fill(loader));
    DR_RETURN_IF_ERROR(loader.Finish());
    written = loader.items_written();
    return Status::Ok();
  });
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(loaded->table_status, "ACTIVE");
  EXPECT_GT(written, 6000);

  Schema batches;
  batches.table_name = "by_batches";
  Graph g(client_.get(), batches);
  ASSERT_TRUE(g.EnsureTable().ok());
  {
    BulkLoader loader(&g, 2);
    ASSERT_TRUE(fill(loader).ok());
    ASSERT_TRUE(loader.Finish().ok());
  }
  auto a = Items("by_files");
  auto b = Items("by_batches");
  EXPECT_EQ(a.size(), b.size());
  EXPECT_TRUE(a == b);
  DescribeTableRequest dt;
  dt.table_name = "by_files";
  auto d = db_->DescribeTable(dt);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->table.item_count, static_cast<int64_t>(a.size()));

  // The loaded graph answers like the other, out and in.
  Graph f(client_.get(), files);
  for (const char* id : {"N#0", "N#17", "N#298"}) {
    auto x = f.AllOutEdges(id, "");
    auto y = g.AllOutEdges(id, "");
    ASSERT_TRUE(x.ok() && y.ok());
    EXPECT_EQ(x->size(), y->size()) << id;
    EdgeQuery q;
    auto in_x = f.InEdges(id, "LINK", q);
    auto in_y = g.InEdges(id, "LINK", q);
    ASSERT_TRUE(in_x.ok() && in_y.ok());
    EXPECT_EQ(in_x->edges.size(), in_y->edges.size()) << id;
    auto set = f.VerifyEdgeSet(id);
    ASSERT_TRUE(set.ok());
    EXPECT_TRUE(set->ok()) << id;
  }
  auto check = db_->CheckConsistency();
  ASSERT_TRUE(check.ok());
  EXPECT_TRUE(check->ok());

  // The table survives a reopen (the loaded files are durable).
  client_.reset();
  db_.reset();
  auto reopened = DB::Open(Options(), dir_.string());
  ASSERT_TRUE(reopened.ok());
  db_ = std::move(reopened).value();
  client_ = std::make_unique<EmbeddedClient>(db_.get());
  EXPECT_TRUE(Items("by_files") == a);
}

TEST_F(BulkLoadTest, AFailedLoadLeavesNoTableAndAnExistingTableIsRefused) {
  Schema s;
  s.table_name = "broken";
  auto r = LoadNewGraph(db_.get(), s, [](BulkLoader& loader) -> Status {
    DR_RETURN_IF_ERROR(loader.AddEdge({"A#1", "LINK", "A#2", {}}));
    return Status(ErrorType::kValidation, "the source broke");
  });
  EXPECT_EQ(r.status().message(), "the source broke");
  DescribeTableRequest dt;
  dt.table_name = "broken";
  EXPECT_EQ(db_->DescribeTable(dt).status().type(), ErrorType::kResourceNotFound);

  // A node whose edge set would pass 400 KB is written with it in edge pages.
  Schema hubs = s;
  hubs.table_name = "hubs";
  auto big = LoadNewGraph(db_.get(), hubs, [](BulkLoader& loader) -> Status {
    for (int i = 0; i < 30000; ++i) {
      DR_RETURN_IF_ERROR(loader.AddEdge({"HUB#h", "LINK", "LEAF#" + std::string(12, 'x') + std::to_string(i), {}}));
    }
    return Status::Ok();
  });
  ASSERT_TRUE(big.ok()) << big.status().ToString();
  Graph hub_graph(client_.get(), hubs);
  auto hub = hub_graph.GetNode("HUB#h");
  ASSERT_TRUE(hub.ok() && hub->has_value());
  EXPECT_EQ((*hub)->edge_set.size(), 30000u);
  auto verified = hub_graph.VerifyEdgeSet("HUB#h");
  ASSERT_TRUE(verified.ok()) << verified.status().ToString();
  EXPECT_TRUE(verified->ok());
  auto leaf = hub_graph.GetNode("LEAF#" + std::string(12, 'x') + "29999");
  ASSERT_TRUE(leaf.ok() && leaf->has_value());
  EXPECT_EQ((*leaf)->incoming_types, std::vector<std::string>{"LINK"});

  Graph g(client_.get(), s);
  ASSERT_TRUE(g.EnsureTable().ok());
  auto again = LoadNewGraph(db_.get(), s, [](BulkLoader&) { return Status::Ok(); });
  EXPECT_EQ(again.status().type(), ErrorType::kTableAlreadyExists);
}

// Loading through the client into a graph that exists: nodes keep what they
// had unless AddNode says otherwise, and edge sets and incoming types gain
// the new edges beside the old.
TEST_F(BulkLoadTest, LoadingIntoAnExistingGraphKeepsItsNodesAndEdgeSets) {
  Schema s;
  s.table_name = "existing";
  Graph g(client_.get(), s);
  ASSERT_TRUE(g.EnsureTable().ok());
  ASSERT_TRUE(g.PutNode("USER#ann", {{"name", Text("Ann")}}).ok());
  ASSERT_TRUE(g.PutNode("USER#bob", {{"name", Text("Bob")}}).ok());
  ASSERT_TRUE(g.AddEdge({"USER#ann", "FRIEND", "USER#bob", {}}).ok());
  {
    BulkLoader loader(&g, 2);
    ASSERT_TRUE(loader.AddEdge({"USER#ann", "FOLLOWS", "USER#cy", {}}).ok());
    ASSERT_TRUE(loader.AddEdge({"USER#cy", "FOLLOWS", "USER#bob", {}}).ok());
    ASSERT_TRUE(loader.AddNode("USER#bob", {{"name", Text("Robert")}}).ok());
    ASSERT_TRUE(loader.Finish().ok());
  }
  auto ann = g.GetNode("USER#ann", true);
  ASSERT_TRUE(ann.ok() && ann->has_value());
  EXPECT_EQ((*ann)->attributes.at("name").scalar(), "Ann");
  std::set<std::string> refs;
  for (const EdgeRef& r : (*ann)->edge_set) refs.insert(r.type + ">" + r.target);
  EXPECT_EQ(refs, (std::set<std::string>{"FOLLOWS>USER#cy", "FRIEND>USER#bob"}));
  auto bob = g.GetNode("USER#bob", true);
  ASSERT_TRUE(bob.ok() && bob->has_value());
  EXPECT_EQ((*bob)->attributes.at("name").scalar(), "Robert");
  EXPECT_EQ((*bob)->incoming_types, (std::vector<std::string>{"FOLLOWS", "FRIEND"}));
  for (const char* id : {"USER#ann", "USER#bob", "USER#cy"}) {
    auto set = g.VerifyEdgeSet(id);
    ASSERT_TRUE(set.ok());
    EXPECT_TRUE(set->ok()) << id;
  }
}

// A client whose BatchWriteItem fails from the third call on; the rest
// goes to the database.
class FailingClient : public Client {
 public:
  explicit FailingClient(DB* db) : inner_(db) {}
  StatusOr<BatchWriteItemResponse> BatchWriteItem(const BatchWriteItemRequest& r) override {
    if (++calls_ > 2) return Status(ErrorType::kInternalServerError, "the disk is full");
    return inner_.BatchWriteItem(r);
  }
  StatusOr<CreateTableResponse> CreateTable(const CreateTableRequest& r) override { return inner_.CreateTable(r); }
  StatusOr<DescribeTableResponse> DescribeTable(const DescribeTableRequest& r) override {
    return inner_.DescribeTable(r);
  }
  StatusOr<DeleteTableResponse> DeleteTable(const DeleteTableRequest& r) override { return inner_.DeleteTable(r); }
  StatusOr<PutItemResponse> PutItem(const PutItemRequest& r) override { return inner_.PutItem(r); }
  StatusOr<GetItemResponse> GetItem(const GetItemRequest& r) override { return inner_.GetItem(r); }
  StatusOr<UpdateItemResponse> UpdateItem(const UpdateItemRequest& r) override { return inner_.UpdateItem(r); }
  StatusOr<DeleteItemResponse> DeleteItem(const DeleteItemRequest& r) override { return inner_.DeleteItem(r); }
  StatusOr<QueryResponse> Query(const QueryRequest& r) override { return inner_.Query(r); }
  StatusOr<ScanResponse> Scan(const ScanRequest& r) override { return inner_.Scan(r); }
  StatusOr<BatchGetItemResponse> BatchGetItem(const BatchGetItemRequest& r) override {
    return inner_.BatchGetItem(r);
  }
  StatusOr<TransactWriteItemsResponse> TransactWriteItems(const TransactWriteItemsRequest& r) override {
    return inner_.TransactWriteItems(r);
  }
  std::string Describe() const override { return "failing"; }

 private:
  EmbeddedClient inner_;
  std::atomic<int> calls_{0};
};

// One edge too big is that edge's refusal; a failed write stops the load:
// every later call says so, nothing is counted as written that was not.
TEST_F(BulkLoadTest, AnOversizeEdgeIsRefusedAloneAndAFailedWriteStopsTheLoad) {
  Schema s;
  s.table_name = "failing";
  Graph g(client_.get(), s);
  ASSERT_TRUE(g.EnsureTable().ok());
  {
    BulkLoader loader(&g, 1);
    Status big = loader.AddEdge({"A#1", "LINK", "A#2", {{"blob", Text(std::string(410 * 1024, 'x'))}}});
    EXPECT_EQ(big.type(), ErrorType::kValidation);
    EXPECT_NE(big.message().find("400 KB"), std::string::npos) << big.message();
    EXPECT_TRUE(loader.failed().ok());
    ASSERT_TRUE(loader.AddEdge({"A#1", "LINK", "A#3", {}}).ok());
    ASSERT_TRUE(loader.Finish().ok());
    auto out = g.AllOutEdges("A#1", "");
    ASSERT_TRUE(out.ok());
    EXPECT_EQ(out->size(), 1u);
  }
  FailingClient failing(db_.get());
  Graph f(&failing, s);
  BulkLoader loader(&f, 1);
  Status first_failure;
  int added = 0;
  for (int i = 0; i < 10000 && first_failure.ok(); ++i) {
    first_failure = loader.AddEdge({"B#1", "LINK", "B#" + std::to_string(i + 2), {}});
    if (first_failure.ok()) ++added;
  }
  EXPECT_EQ(first_failure.type(), ErrorType::kInternalServerError);
  EXPECT_EQ(loader.failed().message(), "the disk is full");
  EXPECT_EQ(loader.AddNode("B#9").type(), ErrorType::kInternalServerError);
  EXPECT_EQ(loader.AddEdge({"B#1", "LINK", "B#2", {}}).type(), ErrorType::kInternalServerError);
  EXPECT_EQ(loader.Finish().type(), ErrorType::kInternalServerError);
  EXPECT_LT(added, 10000);
}

// Into a table being loaded edges go encoded, their keys read on the
// loader's thread: an edge whose keys DynamoDB would refuse (an id or rank
// past the 1,024-byte sort key limit) or whose property is no number is
// refused alone when added, and the load goes on and is consistent. A
// property named as a layer attribute yields to the layer's value.
TEST_F(BulkLoadTest, EdgesWithKeysDynamoDBRefusesAreRefusedAloneWhenLoadingANewTable) {
  Schema s;
  s.table_name = "keys";
  s.Edge("RANKED").rank = [](const Item& p) {
    auto r = p.find("r");
    return r == p.end() ? std::string() : r->second.scalar();
  };
  const std::string long_id = "A#" + std::string(1100, 'x');
  std::vector<Status> refused;
  auto loaded = LoadNewGraph(db_.get(), s, [&](BulkLoader& loader) -> Status {
    refused.push_back(loader.AddEdge({"A#1", "LINK", long_id, {}}));
    refused.push_back(loader.AddEdge({long_id, "LINK", "A#1", {}}));
    refused.push_back(loader.AddEdge({"A#1", "RANKED", "A#2", {{"r", Text(std::string(1100, 'r'))}}}));
    refused.push_back(loader.AddEdge({"A#1", "LINK", "A#3", {{"w", AttributeValue::N("not a number")}}}));
    DR_RETURN_IF_ERROR(loader.AddEdge({"A#1", "LINK", "A#2", {{"w", AttributeValue::N("007.50")}}}));
    DR_RETURN_IF_ERROR(loader.AddEdge({"A#1", "RANKED", "A#3", {{"r", Text("b")}}}));
    DR_RETURN_IF_ERROR(loader.AddEdge({"A#1", "LINK", "A#4", {{s.pk_attribute, Text("A#9")}}}));
    return loader.Finish();
  });
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  ASSERT_EQ(refused.size(), 4u);
  for (const Status& r : refused) EXPECT_EQ(r.type(), ErrorType::kValidation) << r.ToString();
  EXPECT_NE(refused[0].message().find("1024-byte sort key limit"), std::string::npos) << refused[0].message();
  EXPECT_NE(refused[2].message().find("rank"), std::string::npos) << refused[2].message();
  Graph g(client_.get(), s);
  auto out = g.AllOutEdges("A#1", "LINK");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->size(), 2u);
  EXPECT_EQ((*out)[0].target, "A#2");
  EXPECT_EQ((*out)[0].properties.at("w").scalar(), "7.5");  // normalised
  EXPECT_EQ((*out)[1].target, "A#4");
  auto ranked = g.AllOutEdges("A#1", "RANKED");
  ASSERT_TRUE(ranked.ok());
  ASSERT_EQ(ranked->size(), 1u);
  EXPECT_EQ((*ranked)[0].rank, "b");
  auto check = db_->CheckConsistency();
  ASSERT_TRUE(check.ok());
  EXPECT_TRUE(check->ok());
}

// Reads with several requests in flight give the answers of one at a time,
// in the same order; projected neighbours carry only what was asked.
TEST_F(BulkLoadTest, ConcurrentAndProjectedReadsAnswerAlike) {
  Schema s;
  s.table_name = "wide";
  auto loaded = LoadNewGraph(db_.get(), s, [](BulkLoader& loader) -> Status {
    for (int i = 0; i < 700; ++i) {
      DR_RETURN_IF_ERROR(loader.AddNode("N#" + std::to_string(i), {{"n", Number(i)}}));
      for (int k = 1; k <= 5; ++k) {
        DR_RETURN_IF_ERROR(loader.AddEdge({"N#" + std::to_string(i), "LINK",
                                           "N#" + std::to_string((i * 7 + k * 13) % 700), {}}));
      }
    }
    return Status::Ok();
  });
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  Graph one(client_.get(), s), many(client_.get(), s);
  EXPECT_EQ(one.max_concurrent_requests(), 1);  // embedded
  many.set_max_concurrent_requests(8);
  EXPECT_EQ(many.max_concurrent_requests(), 8);
  std::vector<std::string> ids;
  for (int i = 699; i >= 0; i -= 1) ids.push_back("N#" + std::to_string(i));
  ids.push_back("N#missing");
  auto a = one.GetNodes(ids);
  auto b = many.GetNodes(ids);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->size(), b->size());
  for (size_t i = 0; i < a->size(); ++i) {
    ASSERT_EQ((*a)[i].has_value(), (*b)[i].has_value()) << i;
    if ((*a)[i]) {
      EXPECT_EQ((*a)[i]->id, ids[i]);
      EXPECT_EQ((*b)[i]->id, ids[i]);
      EXPECT_EQ((*a)[i]->edge_set, (*b)[i]->edge_set);
    }
  }
  EXPECT_FALSE(a->back().has_value());

  for (bool sets : {true, false}) {
    TraversalRequest t;
    t.start = {"N#1", "N#2"};
    Hop hop;
    hop.edge_types = {"LINK"};
    hop.use_edge_sets = sets;
    t.hops = {hop, hop, hop};
    t.fetch_nodes = true;
    auto x = one.Traverse(t);
    auto y = many.Traverse(t);
    ASSERT_TRUE(x.ok() && y.ok());
    EXPECT_EQ(x->levels, y->levels);
    EXPECT_GT(x->levels.back().size(), 50u);
    ASSERT_EQ(x->nodes.size(), y->nodes.size());
    // Nodes asked for come whole, even those read for their edge sets.
    EXPECT_EQ(x->nodes.at("N#1").attributes.at("n").scalar(), "1");
  }

  ExpandRequest e;
  e.node = "N#13";
  e.edge_type = "LINK";
  e.neighbour_attributes = {"n"};
  auto projected = many.Expand(e);
  e.neighbour_attributes.clear();
  auto whole = one.Expand(e);
  ASSERT_TRUE(projected.ok() && whole.ok());
  ASSERT_EQ(projected->neighbours.size(), whole->neighbours.size());
  ASSERT_FALSE(whole->neighbours.empty());
  for (const auto& [id, node] : projected->neighbours) {
    EXPECT_TRUE(node.edge_set.empty()) << id;
    EXPECT_FALSE(whole->neighbours.at(id).edge_set.empty()) << id;
    EXPECT_EQ(node.attributes, whole->neighbours.at(id).attributes) << id;
  }
  // Only the neighbours' ids: the roots and their edge sets, two requests.
  e.read_neighbours = false;
  const GraphStats before = one.stats();
  auto refs_only = one.Expand(e);
  ASSERT_TRUE(refs_only.ok());
  EXPECT_EQ(one.stats().requests - before.requests, 2);
  EXPECT_TRUE(refs_only->neighbours.empty());
  EXPECT_EQ(refs_only->refs, whole->refs);
  EXPECT_EQ(refs_only->roots.size(), whole->roots.size());
}

}  // namespace
}  // namespace dynarock::graph
