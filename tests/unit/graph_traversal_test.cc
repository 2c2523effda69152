// Graph::Traverse as users compose it, on the seed articles' graphs: steps by
// edge type and direction, rank ranges on incoming steps (seed 001's roles),
// edge filters pushed down, validity "as of" a time (seed 004's addresses),
// node filters, pages with cursors, each step's plan and cost, and the
// refusals of bad traversals before any request.

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <set>

#include "client/embedded_client.h"
#include "graph/graph.h"
#include "graph/seed_graphs.h"
#include "tests/unit/graph_fixture.h"

namespace dynarock::graph {
namespace {

class TraversalTest : public EmbeddedGraphTest {
 protected:
  void SetUp() override {
    EmbeddedGraphTest::SetUp();
    koan_ = std::make_unique<Graph>(client_.get(), seeds::KoanSchema("records"));
    ASSERT_TRUE(koan_->EnsureTable().ok());
    ASSERT_TRUE(seeds::LoadKoan(*koan_).ok());
    contact_ = std::make_unique<Graph>(client_.get(), seeds::ContactSchema("Contact"));
    ASSERT_TRUE(contact_->EnsureTable().ok());
    ASSERT_TRUE(seeds::LoadContact(*contact_).ok());
  }

  static std::set<std::string> Set(const std::vector<std::string>& v) { return {v.begin(), v.end()}; }

  std::unique_ptr<Graph> koan_, contact_;
};

Hop In(std::string type) {
  Hop h;
  h.direction = Direction::kIn;
  h.edge_types = {std::move(type)};
  return h;
}

Hop Out(std::string type) {
  Hop h;
  h.edge_types = {std::move(type)};
  return h;
}

Filter Where(std::string expression, NameMap names, ValueMap values) {
  return Filter{std::move(expression), std::move(names), std::move(values)};
}

// Seed 001: the goals Dora (U1) contributes to, by the rank of her membership
// (the inverted index's sort key), then who leads them.
TEST_F(TraversalTest, RankRangesAndPushedDownEdgeFilters) {
  TraversalRequest r;
  r.start = {"USER-U1"};
  Hop goals = In("GOALMEMBERSHIP");
  goals.key = KeyCondition::Eq("400-CONTRIBUTOR");
  r.hops = {goals};
  auto t = koan_->Traverse(r);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->results, (std::vector<std::string>{"GOAL-G3"}));

  goals.key = KeyCondition::Ge("400-CONTRIBUTOR");  // contributor or lead
  r.hops = {goals};
  t = koan_->Traverse(r);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(Set(t->results), (std::set<std::string>{"GOAL-G1", "GOAL-G2", "GOAL-G3"}));

  // Then the leads of the goals she contributes to: the edge filter goes out
  // as the Query's FilterExpression.
  goals.key = KeyCondition::Eq("400-CONTRIBUTOR");
  Hop leads = Out("GOALMEMBERSHIP");
  leads.filter = Where("#role = :lead", {{"#role", "memberRole"}}, {{":lead", AttributeValue::S("LEAD")}});
  r.hops = {goals, leads};
  t = koan_->Traverse(r);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->results, (std::vector<std::string>{"USER-U3"}));
  ASSERT_EQ(t->steps.size(), 3u);
  EXPECT_NE(t->steps[1].plan.find("index gsi0-index"), std::string::npos) << t->steps[1].plan;
  EXPECT_NE(t->steps[1].plan.find("gsi0 = 400-CONTRIBUTOR"), std::string::npos) << t->steps[1].plan;
  EXPECT_NE(t->steps[2].plan.find("FilterExpression: #role = :lead"), std::string::npos) << t->steps[2].plan;
  for (const TraversalStep& s : t->steps) {
    EXPECT_GE(s.requests, 1) << s.plan;
    EXPECT_GT(s.read_units, 0) << s.plan;
  }
  // The lead's step evaluated G3's three memberships, kept one.
  EXPECT_EQ(t->steps[2].items_read, 3);
  EXPECT_EQ(t->steps[2].reached, 1);

  // A node filter: who among all G1's members is called Ravi Shah.
  TraversalRequest named;
  named.start = {"GOAL-G1"};
  Hop members = Out("GOALMEMBERSHIP");
  members.node_filter = Where("#n = :n", {{"#n", "name"}}, {{":n", AttributeValue::S("Ravi Shah")}});
  named.hops = {members};
  t = koan_->Traverse(named);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->results, (std::vector<std::string>{"USER-U2"}));
  EXPECT_NE(t->steps[1].plan.find("node filter #n = :n"), std::string::npos) << t->steps[1].plan;
}

// Seed 004: addresses as of a date, and who shared one with Bob then.
TEST_F(TraversalTest, ValidityAsOfATime) {
  const int64_t in_2005 = seeds::UtcMidnight(2005, 6, 1);
  const int64_t in_2012 = seeds::UtcMidnight(2012, 6, 1);
  TraversalRequest r;
  r.start = {"Person#bob"};
  Hop where = Out("PersonAddress");
  where.valid_at = in_2005;
  r.hops = {where};
  auto t = contact_->Traverse(r);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(Set(t->results), (std::set<std::string>{seeds::AddressId("1850 Wazee Street"),
                                                     seeds::AddressId("1600 15th Street")}));
  where.valid_at = in_2012;
  r.hops = {where};
  t = contact_->Traverse(r);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(Set(t->results), (std::set<std::string>{seeds::AddressId("1420 Stout Street"),
                                                     seeds::AddressId("1600 15th Street")}));

  // Who lived or worked at one of Bob's addresses of mid-2005, at that time:
  // Sally joined him at Wazee Street that year; Joe came in 2009.
  where.valid_at = in_2005;
  Hop who = In("PersonAddress");
  who.valid_at = in_2005;
  r.hops = {where, who};
  t = contact_->Traverse(r);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->results, (std::vector<std::string>{"Person#sally"}));
  who.valid_at = seeds::UtcMidnight(2009, 6, 1);
  r.hops = {where, who};
  t = contact_->Traverse(r);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(Set(t->results), (std::set<std::string>{"Person#sally", "Person#joe"}));
}

TEST_F(TraversalTest, PagesWithCursors) {
  TraversalRequest r;
  r.start = {"GOAL-G1"};
  r.hops = {Out("GOALMEMBERSHIP"), In("GOALMEMBERSHIP")};
  auto whole = koan_->Traverse(r);
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  ASSERT_GE(whole->results.size(), 2u);
  EXPECT_TRUE(whole->next_cursor.empty());

  std::vector<std::string> paged;
  r.limit = 1;
  std::string first_cursor;
  for (int page = 0; page < 10; ++page) {
    auto t = koan_->Traverse(r);
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    ASSERT_LE(t->results.size(), 1u);
    paged.insert(paged.end(), t->results.begin(), t->results.end());
    if (t->next_cursor.empty()) break;
    if (first_cursor.empty()) first_cursor = t->next_cursor;
    r.cursor = t->next_cursor;
  }
  EXPECT_EQ(paged, whole->results);

  // Another traversal's cursor, or something that is not a cursor: refused.
  TraversalRequest other = r;
  other.start = {"GOAL-G2"};
  other.cursor = first_cursor;
  auto refused = koan_->Traverse(other);
  EXPECT_EQ(refused.status().type(), ErrorType::kValidation);
  EXPECT_NE(refused.status().message().find("does not belong to this traversal"), std::string::npos);
  other = r;
  other.cursor = "not-a-cursor";
  EXPECT_EQ(koan_->Traverse(other).status().type(), ErrorType::kValidation);
  // The same traversal with another page size continues where the cursor says.
  r.cursor = first_cursor;
  r.limit = 0;
  auto rest = koan_->Traverse(r);
  ASSERT_TRUE(rest.ok());
  EXPECT_EQ(rest->results, std::vector<std::string>(whole->results.begin() + 1, whole->results.end()));
}

// max_visited stops the reading, not only the answer: a step's queries stop
// once it is reached (a round of max_concurrent_requests at a time).
TEST_F(TraversalTest, MaxVisitedStopsTheQueries) {
  TraversalRequest r;
  r.start = {"GOAL-G1"};
  Hop members = Out("GOALMEMBERSHIP");
  members.use_edge_sets = false;
  r.hops = {members, In("GOALMEMBERSHIP")};
  auto whole = koan_->Traverse(r);
  ASSERT_TRUE(whole.ok());
  ASSERT_EQ(whole->levels[1].size(), 3u);
  EXPECT_EQ(whole->steps[2].requests, 3);  // one query per member
  r.max_visited = 5;  // the goal, its three members, one more
  auto t = koan_->Traverse(r);
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE(t->truncated);
  EXPECT_EQ(t->levels[2].size(), 1u);
  // The first member's query finds the fifth node, the second's a sixth that
  // does not fit: the third member is never queried.
  EXPECT_EQ(t->steps[2].requests, 2);
  r.max_visited = 0;
  EXPECT_EQ(koan_->Traverse(r).status().type(), ErrorType::kValidation);
}

TEST_F(TraversalTest, BadTraversalsAreRefusedBeforeAnyRequest) {
  const GraphStats before = koan_->stats();
  auto refuse = [&](TraversalRequest r, ErrorType type, const std::string& words) {
    auto t = koan_->Traverse(r);
    EXPECT_EQ(t.status().type(), type) << words;
    EXPECT_NE(t.status().message().find(words), std::string::npos) << t.status().message();
  };
  TraversalRequest r;
  r.start = {"GOAL-G1"};
  Hop bad = Out("GOALMEMBERSHIP");
  bad.filter = Where("#role = ", {{"#role", "memberRole"}}, {});
  r.hops = {bad};
  refuse(r, ErrorType::kValidation, "the edge filter is not valid");
  bad = Out("GOALMEMBERSHIP");
  bad.node_filter = Where("#n = :n", {{"#n", "name"}}, {});
  r.hops = {bad};
  refuse(r, ErrorType::kValidation, "the node filter is not valid");
  bad = Out("GOALMEMBERSHIP");
  bad.node_filter = Where("#n = :n", {{"#n", "name"}, {"#unused", "x"}}, {{":n", AttributeValue::S("a")}});
  r.hops = {bad};
  refuse(r, ErrorType::kValidation, "#unused");
  bad = Out("GOALMEMBERSHIP");
  bad.edge_types.push_back("GOALSUBSCRIBER");
  bad.key = KeyCondition::BeginsWith("USER");
  r.hops = {bad};
  refuse(r, ErrorType::kValidation, "a key condition applies to one edge type");
  Hop in;
  in.direction = Direction::kIn;
  r.hops = {in};
  refuse(r, ErrorType::kValidation, "an incoming step needs its edge types");
  r.hops = {Out("BAD-TYPE")};  // the separator inside a type
  refuse(r, ErrorType::kValidation, "");
  r.hops = {Out("GOALMEMBERSHIP")};
  r.start = {};
  refuse(r, ErrorType::kValidation, "needs start nodes");
  EXPECT_EQ(koan_->stats().requests, before.requests);

  // A start node that is not there: one read, then a clear error.
  r.start = {"GOAL-G9"};
  refuse(r, ErrorType::kResourceNotFound, "the start node GOAL-G9 does not exist in records");
}

}  // namespace
}  // namespace dynarock::graph
