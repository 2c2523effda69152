// graph::Explore, WholeGraph and DetectSchema (graph/explore.h) and
// graph::Survey (graph/survey.h) on the seed articles' graphs, embedded: what
// the console's graph view draws and `dynarock graph export` / `stats` print.

#include "graph/explore.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>

#include "client/embedded_client.h"
#include "graph/paths.h"
#include "graph/seed_graphs.h"
#include "graph/survey.h"
#include "tests/unit/graph_fixture.h"

namespace dynarock::graph {
namespace {

class ExploreTest : public EmbeddedGraphTest {
 protected:
  // A graph of `schema`, created and loaded by `load`.
  std::unique_ptr<Graph> Load(Schema schema, StatusOr<WriteReport> (*load)(Graph&)) {
    auto g = std::make_unique<Graph>(client_.get(), std::move(schema));
    EXPECT_TRUE(g->EnsureTable().ok());
    EXPECT_TRUE(load(*g).ok());
    return g;
  }
  static std::map<std::string, int> Depths(const Neighbourhood& n) {
    std::map<std::string, int> out;
    for (const auto& node : n.nodes) out[node.id] = node.depth;
    return out;
  }
};

TEST_F(ExploreTest, OneHopOutFollowsEveryTypeAndMarksEdgeSetEntries) {
  auto g = Load(seeds::MiddleEarthSchema("earth"), seeds::LoadMiddleEarth);
  NeighbourhoodRequest req;
  req.start = "USER#Frodo";
  req.ways = Ways::kOut;
  auto n = Explore(*g, req);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  const auto depths = Depths(*n);
  EXPECT_EQ(depths.at("USER#Frodo"), 0);
  EXPECT_EQ(depths.at("USER#Gandalf"), 1);
  EXPECT_EQ(depths.at("PLACE#TheShire"), 1);
  EXPECT_EQ(n->edge_types, (std::set<std::string>{"FRIEND", "VISITED"}));
  ASSERT_FALSE(n->edges.empty());
  for (const auto& e : n->edges) {
    EXPECT_EQ(e.edge.source, "USER#Frodo");
    EXPECT_TRUE(e.in_edge_set) << e.edge.type << " " << e.edge.target;  // FRIEND entries carry a rank
  }
  const auto frodo = std::find_if(n->nodes.begin(), n->nodes.end(),
                                  [](const NeighbourhoodNode& x) { return x.id == "USER#Frodo"; });
  ASSERT_TRUE(frodo->node.has_value());
  EXPECT_EQ(frodo->node->attributes.at("username").scalar(), "ringBearer");
}

TEST_F(ExploreTest, InEdgesComeThroughTheInvertedIndexAndTypesFilter) {
  auto g = Load(seeds::MiddleEarthSchema("earth"), seeds::LoadMiddleEarth);
  NeighbourhoodRequest req;
  req.start = "PLACE#TheShire";
  req.ways = Ways::kIn;
  req.types = {"VISITED"};
  auto n = Explore(*g, req);
  ASSERT_TRUE(n.ok());
  std::set<std::string> visitors;
  for (const auto& e : n->edges) {
    EXPECT_EQ(e.edge.type, "VISITED");
    EXPECT_EQ(e.edge.target, "PLACE#TheShire");
    visitors.insert(e.edge.source);
  }
  EXPECT_EQ(visitors, (std::set<std::string>{"USER#Frodo", "USER#Gandalf", "USER#Samwise"}));
}

TEST_F(ExploreTest, TypesOptedOutOfTheEdgeSetAreMarkedSo) {
  auto g = Load(seeds::KoanSchema("records"), seeds::LoadKoan);
  NeighbourhoodRequest req;
  req.start = "GOAL-G1";
  auto n = Explore(*g, req);
  ASSERT_TRUE(n.ok());
  std::map<std::string, std::set<bool>> by_type;
  for (const auto& e : n->edges) by_type[e.edge.type].insert(e.in_edge_set);
  EXPECT_EQ(by_type["GOALMEMBERSHIP"], (std::set<bool>{true}));
  EXPECT_EQ(by_type["GOALSUBSCRIBER"], (std::set<bool>{false}));
}

TEST_F(ExploreTest, HopsDepthsAndTheNodeLimit) {
  // Seed 001: a user's goals one hop away (in-edges), their other members two.
  auto g = Load(seeds::KoanSchema("records"), seeds::LoadKoan);
  NeighbourhoodRequest req;
  req.start = "USER-U1";
  req.hops = 1;
  auto one = Explore(*g, req);
  ASSERT_TRUE(one.ok());
  req.hops = 2;
  auto two = Explore(*g, req);
  ASSERT_TRUE(two.ok());
  EXPECT_FALSE(two->truncated);
  int deepest = 0;
  for (const auto& node : two->nodes) deepest = std::max(deepest, node.depth);
  EXPECT_EQ(deepest, 2);
  EXPECT_GT(two->nodes.size(), one->nodes.size());
  req.max_nodes = 2;
  auto capped = Explore(*g, req);
  ASSERT_TRUE(capped.ok());
  EXPECT_EQ(capped->nodes.size(), 2u);
  EXPECT_TRUE(capped->truncated);
  for (const auto& e : capped->edges) {  // only edges between the nodes kept
    EXPECT_TRUE(Depths(*capped).count(e.edge.source) && Depths(*capped).count(e.edge.target));
  }
}

TEST_F(ExploreTest, BadRequestsAreValidationErrors) {
  auto g = Load(seeds::MiddleEarthSchema("earth"), seeds::LoadMiddleEarth);
  NeighbourhoodRequest req;
  req.start = "no-separator";
  EXPECT_EQ(Explore(*g, req).status().type(), ErrorType::kValidation);
  req.start = "USER#Frodo";
  req.hops = 0;
  EXPECT_EQ(Explore(*g, req).status().type(), ErrorType::kValidation);
  req.hops = 1;
  req.start = "USER#Nobody";  // no such node: itself alone, not an error
  auto alone = Explore(*g, req);
  ASSERT_TRUE(alone.ok());
  ASSERT_EQ(alone->nodes.size(), 1u);
  EXPECT_FALSE(alone->nodes[0].node.has_value());
}

TEST_F(ExploreTest, WholeGraphDetectionAndSurveyOfSeed001) {
  auto g = Load(seeds::KoanSchema("records"), seeds::LoadKoan);
  auto d = DetectSchema(client_.get(), "records");
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->reason.empty()) << d->reason;
  EXPECT_EQ(d->schema.pk_attribute, "source");
  EXPECT_EQ(d->schema.separator, "-");
  EXPECT_EQ(d->schema.inverted_index, "gsi0-index");
  EXPECT_EQ(d->schema.rank_attribute, "gsi0");
  EXPECT_EQ(d->schema.edge_set_attribute, "edgeSet");
  Graph detected(client_.get(), d->schema);
  auto whole = WholeGraph(detected);
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(whole->nodes.size(), 8u);
  EXPECT_EQ(whole->edges.size(), 9u);
  EXPECT_TRUE(std::is_sorted(whole->nodes.begin(), whole->nodes.end(),
                             [](const auto& a, const auto& b) { return a.id < b.id; }));
  auto capped = WholeGraph(detected, 3);
  ASSERT_TRUE(capped.ok());
  EXPECT_TRUE(capped->truncated);
  EXPECT_LE(capped->nodes.size(), 3u);
  auto survey = Survey(detected, 2);
  ASSERT_TRUE(survey.ok());
  EXPECT_EQ(survey->nodes(), 8);
  EXPECT_EQ(survey->edges_by_type, (std::map<std::string, int64_t>{{"GOALMEMBERSHIP", 8}, {"GOALSUBSCRIBER", 1}}));
  ASSERT_EQ(survey->largest_edge_sets.size(), 2u);
  EXPECT_EQ(survey->largest_edge_sets[0].entries, 3);  // G1 and G3: three members each
  EXPECT_EQ(survey->DegreeQuantile(1.0), survey->out_degrees.rbegin()->first);

  // A table without the inverted index is not a graph table, and says why.
  CreateTableRequest plain;
  plain.table_name = "plain";
  plain.attribute_definitions = {{"PK", AttrType::kS}, {"SK", AttrType::kS}};
  plain.key_schema = {{"PK", KeyType::kHash}, {"SK", KeyType::kRange}};
  plain.billing_mode = "PAY_PER_REQUEST";
  ASSERT_TRUE(client_->CreateTable(plain).ok());
  auto none = DetectSchema(client_.get(), "plain");
  ASSERT_TRUE(none.ok());
  EXPECT_NE(none->reason.find("inverted index"), std::string::npos) << none->reason;
}

// A chain N#1 -> ... -> N#6 with a shortcut N#1 -> N#5: the shortest path takes
// it, in either search direction; a bound shorter than it finds nothing.
TEST_F(ExploreTest, ShortestPathTakesTheShortcutAndKeepsItsBounds) {
  Schema s;
  s.table_name = "chain";
  Graph g(client_.get(), s);
  ASSERT_TRUE(g.EnsureTable().ok());
  std::vector<EdgeSpec> edges;
  for (int i = 1; i <= 6; ++i) ASSERT_TRUE(g.PutNode("N#" + std::to_string(i)).ok());
  for (int i = 1; i < 6; ++i) edges.push_back({"N#" + std::to_string(i), "NEXT", "N#" + std::to_string(i + 1), {}});
  edges.push_back({"N#1", "JUMP", "N#5", {}});
  ASSERT_TRUE(g.AddEdges(edges).ok());

  PathRequest req;
  req.from = "N#1";
  req.to = "N#6";
  auto p = ShortestPath(g, req);
  ASSERT_TRUE(p.ok());
  ASSERT_TRUE(p->found);
  EXPECT_EQ(p->nodes, (std::vector<std::string>{"N#1", "N#5", "N#6"}));
  ASSERT_EQ(p->edges.size(), 2u);
  EXPECT_EQ(p->edges[0].type, "JUMP");
  req.types = {"NEXT"};  // without the shortcut: the whole chain
  p = ShortestPath(g, req);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->nodes.size(), 6u);
  req.max_hops = 4;
  p = ShortestPath(g, req);
  ASSERT_TRUE(p.ok());
  EXPECT_FALSE(p->found);
  req = PathRequest{};
  req.from = "N#6";
  req.to = "N#1";
  EXPECT_FALSE(ShortestPath(g, req)->found);  // out-edges only lead away from N#1
  req.ways = Ways::kIn;
  p = ShortestPath(g, req);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->nodes, (std::vector<std::string>{"N#6", "N#5", "N#1"}));
  req.max_hops = 0;
  EXPECT_EQ(ShortestPath(g, req).status().type(), ErrorType::kValidation);

  auto d = NodeDegree(g, "N#5");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->out_by_type, (std::map<std::string, int64_t>{{"NEXT", 1}}));
  EXPECT_EQ(d->in_by_type, (std::map<std::string, int64_t>{{"JUMP", 1}, {"NEXT", 1}}));
}

}  // namespace
}  // namespace dynarock::graph
