// File: tests/unit/graph_supernode_test.cc
//
// Supernodes: edge sets that spill into edge pages (graph/edge_pages.cc) under
// concurrent writers, and a node of many outgoing edges (DYNAROCK_SUPERNODE_EDGES,
// default 200000; the README gives the 1M run).

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "graph/graph.h"
#include "graph/explore.h"
#include "graph/graph_internal.h"
#include "graph/survey.h"
#include "tests/unit/graph_fixture.h"

namespace dynarock::graph {
namespace {

class SupernodeTest : public EmbeddedGraphTest {
 protected:
  // The node's raw item: its page labels (empty: not spilled).
  std::vector<std::string> Labels(const Schema& s, const std::string& node) {
    GetItemRequest g;
    g.table_name = s.table_name;
    g.key = s.NodeKey(node);
    g.consistent_read = true;
    auto r = db_->GetItem(g);
    EXPECT_TRUE(r.ok() && r->item) << r.status().ToString();
    if (!r.ok() || !r->item) return {};
    auto pg = r->item->find(s.edge_pages_attribute);
    return pg == r->item->end() ? std::vector<std::string>() : pg->second.set();
  }

  void ExpectConsistent() {
    auto check = db_->CheckConsistency();
    ASSERT_TRUE(check.ok()) << check.status().ToString();
    EXPECT_TRUE(check->ok()) << check->differences.front();
  }
};

TEST(EdgePageRouting, EveryEntryHasExactlyOnePageAndSplitsKeepThemThere) {
  std::vector<std::string> entries;
  for (int i = 0; i < 5000; ++i) entries.push_back("LINK#LEAF#" + std::to_string(i));
  auto pages = internal::PartitionEdgeSet(entries, "", 0);
  ASSERT_GE(pages.size(), 4u);  // 5000 entries: at most 1024 a page
  std::vector<std::string> labels;
  size_t total = 0;
  for (const auto& [label, part] : pages) {
    labels.push_back(label);
    EXPECT_LE(part.size(), internal::kEdgePageSplitEntries) << label;
    total += part.size();
    for (const std::string& e : part) EXPECT_EQ(internal::EdgePageOf(labels.size() ? std::vector<std::string>{label} : labels, e), label);
  }
  EXPECT_EQ(total, entries.size());
  for (const std::string& e : entries) {
    const std::string home = internal::EdgePageOf(labels, e);
    ASSERT_FALSE(home.empty()) << e;
    EXPECT_EQ(std::count(pages[home].begin(), pages[home].end(), e), 1) << e;
  }
  // A split of one page leaves every other entry where it was.
  const std::string split = labels.front();
  auto halves = internal::PartitionEdgeSet(pages[split], split, 0);
  EXPECT_GE(halves.size(), 2u);
  std::vector<std::string> after;
  for (const std::string& l : labels) {
    if (l != split) after.push_back(l);
  }
  for (const auto& [l, part] : halves) {
    EXPECT_EQ(l.rfind(split, 0), 0u) << l;
    after.push_back(l);
  }
  for (const std::string& e : entries) {
    const std::string home = internal::EdgePageOf(after, e);
    if (home.rfind(split, 0) == 0) {
      EXPECT_EQ(std::count(halves[home].begin(), halves[home].end(), e), 1);
    } else {
      EXPECT_EQ(home, internal::EdgePageOf(labels, e));
    }
  }
  // Very short entries: a spill (one transaction) still writes at most 64 pages.
  std::vector<std::string> tiny;
  for (int i = 0; i < 70000; ++i) tiny.push_back("L#" + std::to_string(i));
  auto coarse = internal::PartitionEdgeSet(tiny, "", internal::kEdgePageMaxPartition);
  EXPECT_LE(coarse.size(), internal::kEdgePageMaxPartition);
  EXPECT_GE(coarse.size(), 2u);
  EXPECT_GT(internal::PartitionEdgeSet(tiny, "", 0).size(), internal::kEdgePageMaxPartition);
  // The hash is FNV-1a 64: fixed for every client that shares the table.
  EXPECT_EQ(internal::EdgeEntryHash(""), 14695981039346656037ull);
  EXPECT_EQ(internal::EdgeEntryHash("a"), 0xaf63dc4c8601ec8cull);
}

// Four writers, each with its own Graph (its own idea of the node's pages, as
// separate processes would have), add and remove edges of one node while its
// set spills and its pages split: every committed edge has its entry, no
// removed one does, and the database's indexes agree with its items.
TEST_F(SupernodeTest, ConcurrentWritersSpillAndSplitWithoutLosingAnEntry) {
  Schema s;
  s.table_name = "hub_graph";
  {
    Graph g(client_.get(), s);
    ASSERT_TRUE(g.EnsureTable().ok());
    ASSERT_TRUE(g.PutNode("HUB#h", {}).ok());
  }
  const std::string pad(60, 'p');
  constexpr int kWriters = 4, kPerWriter = 2500, kBatch = 50;
  std::atomic<int> failures{0};
  std::vector<std::set<std::string>> kept(kWriters);
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      Graph g(client_.get(), s);
      AddEdgeOptions o;
      o.require_nodes = false;
      for (int i = 0; i < kPerWriter; i += kBatch) {
        std::vector<EdgeSpec> batch;
        for (int j = i; j < i + kBatch; ++j) {
          batch.push_back({"HUB#h", "LINK", "LEAF#" + pad + std::to_string(w) + "_" + std::to_string(j), {}});
        }
        auto r = g.AddEdges(batch, o);
        if (!r.ok()) {
          ADD_FAILURE() << r.status().ToString();
          ++failures;
          return;
        }
        for (const EdgeSpec& e : batch) kept[w].insert(s.EdgeSetEntry(e.type, e.target, ""));
        // Every fifth batch loses its first ten edges again.
        if ((i / kBatch) % 5 == 4) {
          std::vector<EdgeSpec> gone(batch.begin(), batch.begin() + 10);
          auto d = g.RemoveEdges(gone);
          if (!d.ok()) {
            ADD_FAILURE() << d.status().ToString();
            ++failures;
            return;
          }
          for (const EdgeSpec& e : gone) kept[w].erase(s.EdgeSetEntry(e.type, e.target, ""));
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  ASSERT_EQ(failures.load(), 0);

  std::set<std::string> want;
  for (const auto& k : kept) want.insert(k.begin(), k.end());
  EXPECT_EQ(want.size(), static_cast<size_t>(kWriters * (kPerWriter - kPerWriter / kBatch / 5 * 10)));
  Graph g(client_.get(), s);
  const std::vector<std::string> labels = Labels(s, "HUB#h");
  EXPECT_GE(labels.size(), 8u);  // ~800 KB of entries, pages of at most 2048
  auto node = g.GetNode("HUB#h", true);
  ASSERT_TRUE(node.ok() && node->has_value()) << node.status().ToString();
  std::set<std::string> have;
  for (const EdgeRef& ref : (*node)->edge_set) have.insert(s.EdgeSetEntry(ref.type, ref.target, ref.rank));
  EXPECT_EQ(have.size(), want.size());
  EXPECT_TRUE(have == want);
  auto report = g.VerifyEdgeSet("HUB#h");
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_TRUE(report->ok()) << report->missing.size() << " missing, " << report->stale.size() << " stale";
  ExpectConsistent();
}

// A verification with repair puts a lost entry back into the page it hashes to
// and removes a stale one, without touching the other pages.
TEST_F(SupernodeTest, VerifyEdgeSetRepairsPages) {
  Schema s;
  s.table_name = "repair_graph";
  Graph g(client_.get(), s);
  ASSERT_TRUE(g.EnsureTable().ok());
  std::vector<EdgeSpec> edges;
  for (int i = 0; i < 6000; ++i) edges.push_back({"HUB#r", "LINK", "LEAF#" + std::string(60, 'q') + std::to_string(i), {}});
  AddEdgeOptions o;
  o.require_nodes = false;
  ASSERT_TRUE(g.AddEdges(edges, o).ok());
  const std::vector<std::string> labels = Labels(s, "HUB#r");
  ASSERT_FALSE(labels.empty());
  // Damage: one entry removed from its page, one made-up entry added to another.
  const std::string lost = s.EdgeSetEntry("LINK", edges[17].target, "");
  const std::string made_up = "LINK#LEAF#nobody";
  for (const auto& [entry, action] : {std::pair{lost, "DELETE"}, std::pair{made_up, "ADD"}}) {
    UpdateItemRequest u;
    u.table_name = s.table_name;
    u.key = s.EdgePageKey("HUB#r", internal::EdgePageOf(labels, entry));
    u.update_expression = std::string(action) + " edges :e";
    u.expression_attribute_values[":e"] = AttributeValue::SS({entry});
    u.has_expression_attribute_values = true;
    ASSERT_TRUE(db_->UpdateItem(u).ok());
  }
  auto report = g.VerifyEdgeSet("HUB#r", /*repair=*/true);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->missing, std::vector<std::string>{lost});
  EXPECT_EQ(report->stale, std::vector<std::string>{made_up});
  EXPECT_TRUE(report->repaired);
  report = g.VerifyEdgeSet("HUB#r");
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE(report->ok());
  EXPECT_EQ(Labels(s, "HUB#r"), labels);

  // Stats and the whole-graph export count the pages' entries, once each.
  auto survey = Survey(g);
  ASSERT_TRUE(survey.ok()) << survey.status().ToString();
  ASSERT_FALSE(survey->largest_edge_sets.empty());
  EXPECT_EQ(survey->largest_edge_sets[0].node, "HUB#r");
  EXPECT_EQ(survey->largest_edge_sets[0].entries, 6000);
  EXPECT_EQ(survey->largest_edge_sets[0].pages, static_cast<int64_t>(labels.size()));
  EXPECT_EQ(survey->edges(), 6000);
  auto whole = WholeGraph(g, 100000);
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  EXPECT_EQ(whole->edges.size(), 6000u);
  for (const auto& ne : whole->edges) {
    ASSERT_TRUE(ne.in_edge_set) << ne.edge.target;
  }
}

// Loading more edges of a spilled node through the client: the node's pages
// are read and merged with the new entries, written again, and the pages the
// new layout no longer lists are deleted (none left behind).
TEST_F(SupernodeTest, BulkLoadingIntoASpilledNodeMergesAndReplacesItsPages) {
  Schema s;
  s.table_name = "reload_graph";
  Graph g(client_.get(), s);
  ASSERT_TRUE(g.EnsureTable().ok());
  auto load = [&](int from, int to) {
    BulkLoader loader(&g, 2);
    for (int i = from; i < to; ++i) {
      ASSERT_TRUE(loader.AddEdge({"HUB#b", "LINK", "LEAF#" + std::string(40, 'r') + std::to_string(i), {}}).ok());
    }
    Status st = loader.Finish();
    ASSERT_TRUE(st.ok()) << st.ToString();
  };
  auto pages_in_partition = [&] {
    QueryRequest q;
    q.table_name = s.table_name;
    q.key_condition_expression = "PK = :p AND begins_with(SK, :e)";
    q.expression_attribute_values[":p"] = AttributeValue::S("HUB#b");
    q.expression_attribute_values[":e"] = AttributeValue::S(s.EdgePageSortKey(""));
    q.has_expression_attribute_values = true;
    q.consistent_read = true;
    size_t n = 0;
    while (true) {  // pages of up to 1 MB
      auto r = db_->Query(q);
      EXPECT_TRUE(r.ok()) << r.status().ToString();
      if (!r.ok()) return n;
      n += r->items.size();
      if (!r->last_evaluated_key) return n;
      q.exclusive_start_key = std::move(r->last_evaluated_key);
    }
  };
  load(0, 12000);
  const std::vector<std::string> first = Labels(s, "HUB#b");
  ASSERT_FALSE(first.empty());
  EXPECT_EQ(pages_in_partition(), first.size());
  load(12000, 30000);
  const std::vector<std::string> second = Labels(s, "HUB#b");
  EXPECT_GT(second.size(), first.size());
  EXPECT_EQ(pages_in_partition(), second.size());
  auto node = g.GetNode("HUB#b", true);
  ASSERT_TRUE(node.ok() && node->has_value());
  EXPECT_EQ((*node)->edge_set.size(), 30000u);
  auto report = g.VerifyEdgeSet("HUB#b");
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_TRUE(report->ok()) << report->missing.size() << " missing, " << report->stale.size() << " stale";
}

// One node with many outgoing edges (1M in the long run): loaded in bulk, read
// whole, written online, verified, and expanded through the edge set.
TEST_F(SupernodeTest, ANodeWithManyOutgoingEdges) {
  int64_t n = 200000;
  if (const char* env = std::getenv("DYNAROCK_SUPERNODE_EDGES")) n = std::atoll(env);
  Schema s;
  s.table_name = "super_graph";
  auto loaded = LoadNewGraph(db_.get(), s, [&](BulkLoader& loader) -> Status {
    for (int64_t i = 0; i < n; ++i) {
      DR_RETURN_IF_ERROR(loader.AddEdge({"HUB#big", "FOLLOWS", "USER#" + std::to_string(i), {}}));
    }
    return loader.AddEdge({"HUB#big", "MEMBER", "GROUP#g", {}});
  });
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  const std::vector<std::string> labels = Labels(s, "HUB#big");
  EXPECT_GE(static_cast<int64_t>(labels.size()), n / static_cast<int64_t>(internal::kEdgePageSplitEntries));

  Graph g(client_.get(), s);
  auto node = g.GetNode("HUB#big");
  ASSERT_TRUE(node.ok() && node->has_value());
  EXPECT_EQ(static_cast<int64_t>((*node)->edge_set.size()), n + 1);  // and MEMBER

  // Online writes land in the pages (splitting those that fill).
  std::vector<EdgeSpec> more;
  for (int i = 0; i < 3000; ++i) more.push_back({"HUB#big", "FOLLOWS", "USER#new" + std::to_string(i), {}});
  AddEdgeOptions o;
  o.require_nodes = false;
  auto added = g.AddEdges(more, o);
  ASSERT_TRUE(added.ok()) << added.status().ToString();
  std::vector<EdgeSpec> gone;
  for (int i = 0; i < 1000; ++i) gone.push_back({"HUB#big", "FOLLOWS", "USER#" + std::to_string(i), {}});
  ASSERT_TRUE(g.RemoveEdges(gone).ok());

  ExpandRequest x;  // the members of GROUP#g (the hub), expanded by their edge sets
  x.node = "GROUP#g";
  x.edge_type = "MEMBER";
  x.expand_types = {"FOLLOWS"};
  x.read_neighbours = false;
  auto expanded = g.Expand(x);
  ASSERT_TRUE(expanded.ok()) << expanded.status().ToString();
  ASSERT_EQ(expanded->roots.size(), 1u);
  EXPECT_EQ(static_cast<int64_t>(expanded->refs["HUB#big"].size()), n + 3000 - 1000);
  auto report = g.VerifyEdgeSet("HUB#big");
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_TRUE(report->ok()) << report->missing.size() << " missing, " << report->stale.size() << " stale";
  ExpectConsistent();
}

}  // namespace
}  // namespace dynarock::graph
