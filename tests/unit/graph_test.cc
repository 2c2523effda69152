// File: tests/unit/graph_test.cc
//
// The graph layer on the seeds' worked examples (../shared/seeds/), run twice by
// one parameterised fixture: on an EmbeddedClient over an in-memory DB, and on an
// HttpClient against `dynarock serve --in-memory --require-auth KEY:SECRET` started
// on a free port (so SigV4 signing is verified end to end).
//
// The server binary: $DYNAROCK_BIN, else ../dynarock next to this test binary
// (build/tests/dynarock_tests -> build/dynarock).

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "dynarock/db.h"
#include "graph/embedded_client.h"
#include "graph/graph.h"
#include "graph/http_client.h"
#include "graph/sigv4_signer.h"
#include "engine/api/sigv4.h"

namespace dynarock::graph {
namespace {

#define G_OK(expr)                                           \
  do {                                                       \
    ::dynarock::Status g_s_ = (expr);                        \
    ASSERT_TRUE(g_s_.ok()) << g_s_.ToString();               \
  } while (0)
#define G_ASSIGN(lhs, expr)                                  \
  auto G_CONCAT_(g_r_, __LINE__) = (expr);                   \
  ASSERT_TRUE(G_CONCAT_(g_r_, __LINE__).ok()) << G_CONCAT_(g_r_, __LINE__).status().ToString(); \
  lhs = std::move(G_CONCAT_(g_r_, __LINE__)).value()
#define G_CONCAT_INNER_(a, b) a##b
#define G_CONCAT_(a, b) G_CONCAT_INNER_(a, b)

AttributeValue S(std::string s) { return AttributeValue::S(std::move(s)); }
AttributeValue N(int64_t n) { return AttributeValue::N(std::to_string(n)); }

std::vector<std::string> Targets(const std::vector<Edge>& edges) {
  std::vector<std::string> out;
  for (const Edge& e : edges) out.push_back(e.target);
  return out;
}
std::vector<std::string> Sources(const std::vector<Edge>& edges) {
  std::vector<std::string> out;
  for (const Edge& e : edges) out.push_back(e.source);
  return out;
}
std::string Str(const Item& item, const std::string& name) {
  auto it = item.find(name);
  return it == item.end() ? "<missing>" : it->second.scalar();
}

// Seconds since the epoch of a date (UTC midnight), as seed 004 stores them.
int64_t Epoch(int y, int m, int d) {
  // Days from civil (H. Hinnant's algorithm).
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return (era * 146097 + doe - 719468) * 86400;
}

// ---------------------------------------------------------------- the server

constexpr char kKey[] = "GRAPHTESTKEY";
constexpr char kSecret[] = "graph/test+secret";

class ServerProcess {
 public:
  ~ServerProcess() { Stop(); }

  bool Start(std::string* error) {
    std::string bin;
    if (const char* env = std::getenv("DYNAROCK_BIN"); env && *env) {
      bin = env;
    } else {
      std::error_code ec;
      auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
      bin = (self.parent_path().parent_path() / "dynarock").string();
    }
    if (access(bin.c_str(), X_OK) != 0) {
      *error = "server binary not found at " + bin + " (set DYNAROCK_BIN)";
      return false;
    }
    int fds[2];
    if (pipe(fds) != 0) return false;
    std::string auth = std::string(kKey) + ":" + kSecret;
    std::vector<std::string> args = {bin,         "serve",          "--port", "0", "--in-memory",
                                     "--threads", "2", "--require-auth", auth};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const pid_t parent = getpid();
    pid_ = fork();
    if (pid_ < 0) {
      *error = "fork failed";
      return false;
    }
    if (pid_ == 0) {
      // The server dies with the test binary, even when a test crashes.
      prctl(PR_SET_PDEATHSIG, SIGTERM);
      if (getppid() != parent) _exit(1);
      dup2(fds[1], 1);
      close(fds[0]);
      close(fds[1]);
      execv(bin.c_str(), argv.data());
      _exit(127);
    }
    close(fds[1]);
    // Read "dynarock listening on http://127.0.0.1:PORT ..." (10 s at most).
    std::string out;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    while (std::chrono::steady_clock::now() < deadline) {
      char buf[256];
      ssize_t n = read(fds[0], buf, sizeof(buf));
      if (n > 0) out.append(buf, static_cast<size_t>(n));
      size_t p = out.find("http://");
      if (p != std::string::npos) {
        size_t end = out.find_first_of(" \n", p);
        if (end != std::string::npos) {
          endpoint_ = out.substr(p, end - p);
          break;
        }
      }
      if (n <= 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    close(fds[0]);
    if (endpoint_.empty()) {
      *error = "server did not print its address; output: " + out;
      return false;
    }
    return true;
  }

  void Stop() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      int status;
      waitpid(pid_, &status, 0);
      pid_ = 0;
    }
  }

  const std::string& endpoint() const { return endpoint_; }

 private:
  pid_t pid_ = 0;
  std::string endpoint_;
};

// ---------------------------------------------------------------- the fixture

enum class Backend { kEmbedded, kHttp };

class GraphSeedTest : public ::testing::TestWithParam<Backend> {
 protected:
  static void TearDownTestSuite() { server_.reset(); }

  void SetUp() override {
    if (GetParam() == Backend::kEmbedded) {
      Options o;
      o.in_memory = true;
      auto db = DB::Open(o, "");
      ASSERT_TRUE(db.ok()) << db.status().ToString();
      db_ = std::move(*db);
      client_ = std::make_unique<EmbeddedClient>(db_.get());
    } else {
      if (!server_) {
        server_ = std::make_unique<ServerProcess>();
        std::string error;
        if (!server_->Start(&error)) {
          server_.reset();
          FAIL() << error;
        }
      }
      HttpClientOptions o;
      o.endpoint = server_->endpoint();
      o.credentials = {kKey, kSecret, ""};
      auto c = HttpClient::Create(o);
      ASSERT_TRUE(c.ok()) << c.status().ToString();
      client_ = std::move(*c);
    }
  }

  // A fresh table name (the HTTP server is shared by the suite).
  static std::string Table(const std::string& base) {
    static std::atomic<int> n{0};
    return base + "_" + std::to_string(++n);
  }

  std::unique_ptr<Graph> MakeGraph(Schema schema) {
    auto g = std::make_unique<Graph>(client_.get(), std::move(schema));
    Status s = g->EnsureTable();
    EXPECT_TRUE(s.ok()) << s.ToString();
    return g;
  }

  static std::unique_ptr<ServerProcess> server_;
  std::unique_ptr<DB> db_;
  std::unique_ptr<Client> client_;
};

std::unique_ptr<ServerProcess> GraphSeedTest::server_;

// ---------------------------------------------------------------- seed 000

Schema Seed000Schema(const std::string& table) {
  Schema s;
  s.table_name = table;
  s.RankByAttribute("FRIEND", "createdDate");  // the inverted index orders by createdDate
  s.Edge("VISITED");
  return s;
}

void LoadSeed000(Graph* g) {
  auto user = [&](const std::string& name, const std::string& username, const std::string& first,
                  const std::string& last) {
    Item a{{"username", S(username)}, {"firstName", S(first)}};
    if (!last.empty()) a["lastName"] = S(last);
    Status s = g->PutNode("USER#" + name, a);
    ASSERT_TRUE(s.ok()) << s.ToString();
  };
  user("Frodo", "ringBearer", "Frodo", "Baggins");
  user("Samwise", "theBrave", "Samwise", "Gamgee");
  user("Gandalf", "theWhite", "Gandalf", "");
  ASSERT_TRUE(g->PutNode("PLACE#TheShire").ok());
  ASSERT_TRUE(g->PutNode("PLACE#Gondor").ok());
  std::vector<EdgeSpec> edges = {
      {"USER#Frodo", "FRIEND", "USER#Gandalf", {{"createdDate", S("3004")}}},
      {"USER#Frodo", "FRIEND", "USER#Samwise", {{"createdDate", S("UNKNOWN")}}},
      {"USER#Samwise", "FRIEND", "USER#Gandalf", {{"createdDate", S("UNKNOWN")}}},
  };
  for (const char* u : {"USER#Frodo", "USER#Samwise", "USER#Gandalf"}) {
    edges.push_back({u, "VISITED", "PLACE#Gondor", {}});
    edges.push_back({u, "VISITED", "PLACE#TheShire", {}});
  }
  for (const EdgeSpec& e : edges) {
    Status s = g->AddEdge(e);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
}

TEST_P(GraphSeedTest, Seed000FrodosFriendsAndWhoConsidersGandalfAFriend) {
  auto g = MakeGraph(Seed000Schema(Table("seed000")));
  LoadSeed000(g.get());

  // "Read the attributes for Frodo": a GetItem of the node.
  G_ASSIGN(std::optional<Node> frodo, g->GetNode("USER#Frodo"));
  ASSERT_TRUE(frodo.has_value());
  EXPECT_EQ(frodo->type, "USER");
  EXPECT_EQ(Str(frodo->attributes, "username"), "ringBearer");
  EXPECT_EQ(Str(frodo->attributes, "lastName"), "Baggins");
  EXPECT_EQ(frodo->edge_set.size(), 4u);  // 2 FRIEND + 2 VISITED entries

  // "Find all of Frodo's friends": begins_with(SK, "FRIEND#").
  G_ASSIGN(std::vector<Edge> friends, g->AllOutEdges("USER#Frodo", "FRIEND"));
  EXPECT_EQ(Targets(friends), (std::vector<std::string>{"USER#Gandalf", "USER#Samwise"}));
  EXPECT_EQ(Str(friends[0].properties, "createdDate"), "3004");

  // Frodo's whole adjacency list (nodes excluded).
  G_ASSIGN(std::vector<Edge> all, g->AllOutEdges("USER#Frodo", ""));
  EXPECT_EQ(all.size(), 4u);

  // "Who considers Gandalf a friend", through the inverted index, ordered by
  // createdDate ("3004" < "UNKNOWN").
  G_ASSIGN(std::vector<Edge> fans, g->AllInEdges("USER#Gandalf", "FRIEND"));
  EXPECT_EQ(Sources(fans), (std::vector<std::string>{"USER#Frodo", "USER#Samwise"}));
  EXPECT_EQ(fans[0].rank, "3004");
  EdgeQuery newest_first;
  newest_first.forward = false;
  G_ASSIGN(fans, g->AllInEdges("USER#Gandalf", "FRIEND", newest_first));
  EXPECT_EQ(Sources(fans), (std::vector<std::string>{"USER#Samwise", "USER#Frodo"}));
  EdgeQuery ranked;
  ranked.key = KeyCondition::Ge("A");
  G_ASSIGN(fans, g->AllInEdges("USER#Gandalf", "FRIEND", ranked));
  EXPECT_EQ(Sources(fans), (std::vector<std::string>{"USER#Samwise"}));

  // Who visited Gondor (VISITED has no rank function: ranked by source id).
  G_ASSIGN(std::vector<Edge> visitors, g->AllInEdges("PLACE#Gondor", "VISITED"));
  EXPECT_EQ(Sources(visitors),
            (std::vector<std::string>{"USER#Frodo", "USER#Gandalf", "USER#Samwise"}));

  // Sort-key conditions, filters, limits and page tokens.
  EdgeQuery q;
  q.key = KeyCondition::BeginsWith("PLACE#G");
  G_ASSIGN(std::vector<Edge> g_places, g->AllOutEdges("USER#Frodo", "VISITED", q));
  EXPECT_EQ(Targets(g_places), (std::vector<std::string>{"PLACE#Gondor"}));
  EdgeQuery f;
  f.filter = Filter{"#d = :d", {{"#d", "createdDate"}}, {{":d", S("3004")}}};
  G_ASSIGN(std::vector<Edge> old_friends, g->AllOutEdges("USER#Frodo", "FRIEND", f));
  EXPECT_EQ(Targets(old_friends), (std::vector<std::string>{"USER#Gandalf"}));
  EdgeQuery page;
  page.limit = 1;
  G_ASSIGN(EdgePage p1, g->OutEdges("USER#Frodo", "VISITED", page));
  ASSERT_EQ(p1.edges.size(), 1u);
  EXPECT_EQ(p1.edges[0].target, "PLACE#Gondor");
  ASSERT_FALSE(p1.next_page_token.empty());
  page.page_token = p1.next_page_token;
  G_ASSIGN(EdgePage p2, g->OutEdges("USER#Frodo", "VISITED", page));
  ASSERT_EQ(p2.edges.size(), 1u);
  EXPECT_EQ(p2.edges[0].target, "PLACE#TheShire");

  // Edge lookups.
  G_ASSIGN(std::optional<Edge> e, g->GetEdge("USER#Frodo", "FRIEND", "USER#Samwise"));
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->rank, "UNKNOWN");
  G_ASSIGN(e, g->GetEdge("USER#Gandalf", "FRIEND", "USER#Frodo"));
  EXPECT_FALSE(e.has_value());  // FRIEND is one-way here

  // Batch get keeps the order and reports missing nodes.
  G_ASSIGN(auto nodes, g->GetNodes({"USER#Samwise", "USER#Nobody", "PLACE#Gondor"}));
  ASSERT_EQ(nodes.size(), 3u);
  ASSERT_TRUE(nodes[0].has_value());
  EXPECT_EQ(Str(nodes[0]->attributes, "firstName"), "Samwise");
  EXPECT_FALSE(nodes[1].has_value());
  EXPECT_TRUE(nodes[2].has_value());

  // Updating a node keeps its edge set.
  G_OK(g->PutNode("USER#Frodo", {{"title", S("Ring-bearer")}}));
  G_OK(g->UpdateNode("USER#Frodo", {"SET #a = :a", std::nullopt, {{"#a", "age"}}, {{":a", N(50)}}}));
  G_ASSIGN(frodo, g->GetNode("USER#Frodo", true));
  EXPECT_EQ(frodo->edge_set.size(), 4u);
  EXPECT_EQ(Str(frodo->attributes, "title"), "Ring-bearer");
  EXPECT_EQ(Str(frodo->attributes, "age"), "50");
  EXPECT_EQ(Str(frodo->attributes, "firstName"), "Frodo");
  EXPECT_EQ(g->UpdateNode("USER#Nobody", {"SET #a = :a", std::nullopt, {{"#a", "x"}}, {{":a", N(1)}}})
                .type(),
            ErrorType::kConditionalCheckFailed);

  // Edges to missing nodes are refused by default.
  Status missing = g->AddEdge({"USER#Frodo", "FRIEND", "USER#Sauron", {}});
  EXPECT_EQ(missing.type(), ErrorType::kConditionalCheckFailed) << missing.ToString();
  EXPECT_NE(missing.message().find("USER#Sauron"), std::string::npos) << missing.message();
}

TEST_P(GraphSeedTest, Seed000DeleteNodeWithAllItsEdgesResumably) {
  auto g = MakeGraph(Seed000Schema(Table("seed000del")));
  LoadSeed000(g.get());
  // Gandalf: 2 outgoing VISITED edges, 2 incoming FRIEND edges (on Frodo's and
  // Samwise's edge sets). One edge per call: resumable, bounded work.
  DeleteNodeOptions o;
  o.max_edges = 1;
  int calls = 0;
  DeleteProgress p;
  do {
    G_ASSIGN(p, g->DeleteNode("USER#Gandalf", o));
    ASSERT_LT(++calls, 20);
  } while (!p.done);
  EXPECT_GE(calls, 4);
  G_ASSIGN(std::optional<Node> gandalf, g->GetNode("USER#Gandalf", true));
  EXPECT_FALSE(gandalf.has_value());
  G_ASSIGN(std::vector<Edge> fans, g->AllInEdges("USER#Gandalf", "FRIEND"));
  EXPECT_TRUE(fans.empty());
  G_ASSIGN(std::vector<Edge> visitors, g->AllInEdges("PLACE#Gondor", "VISITED"));
  EXPECT_EQ(Sources(visitors), (std::vector<std::string>{"USER#Frodo", "USER#Samwise"}));
  for (const char* n : {"USER#Frodo", "USER#Samwise"}) {
    G_ASSIGN(EdgeSetReport r, g->VerifyEdgeSet(n));
    EXPECT_TRUE(r.ok()) << n << " missing " << r.missing.size() << " stale " << r.stale.size();
  }
  G_ASSIGN(std::optional<Node> frodo, g->GetNode("USER#Frodo", true));
  EXPECT_EQ(frodo->edge_set.size(), 3u);
}

TEST_P(GraphSeedTest, Seed000VerifyAndRepairEdgeSets) {
  auto g = MakeGraph(Seed000Schema(Table("seed000fix")));
  LoadSeed000(g.get());
  // Break Frodo's edge set behind the graph layer's back.
  UpdateItemRequest u;
  u.table_name = g->schema().table_name;
  u.key = g->schema().NodeKey("USER#Frodo");
  u.update_expression = "DELETE #e :gone";
  u.expression_attribute_names["#e"] = "edges";
  u.expression_attribute_values[":gone"] = AttributeValue::SS({"VISITED#PLACE#Gondor"});
  u.has_expression_attribute_names = u.has_expression_attribute_values = true;
  G_OK(client_->UpdateItem(u).status());
  u.update_expression = "ADD #e :ghost";
  u.expression_attribute_values.clear();
  u.expression_attribute_values[":ghost"] = AttributeValue::SS({"VISITED#PLACE#Mordor"});
  G_OK(client_->UpdateItem(u).status());

  G_ASSIGN(EdgeSetReport r, g->VerifyEdgeSet("USER#Frodo"));
  EXPECT_EQ(r.missing, (std::vector<std::string>{"VISITED#PLACE#Gondor"}));
  EXPECT_EQ(r.stale, (std::vector<std::string>{"VISITED#PLACE#Mordor"}));
  G_ASSIGN(r, g->VerifyEdgeSet("USER#Frodo", /*repair=*/true));
  EXPECT_TRUE(r.repaired);
  G_ASSIGN(r, g->VerifyEdgeSet("USER#Frodo"));
  EXPECT_TRUE(r.ok());
}

// ---------------------------------------------------------------- seed 001

Schema KoanSchema(const std::string& table) {
  Schema s;
  s.table_name = table;
  s.pk_attribute = "source";
  s.sk_attribute = "target";
  s.separator = "-";
  s.inverted_index = "gsi0-index";
  s.rank_attribute = "gsi0";
  s.edge_set_attribute = "edgeSet";
  s.RankByProperty("GOALMEMBERSHIP", "memberRole",
                   {{"LEAD", "500-LEAD"}, {"CONTRIBUTOR", "400-CONTRIBUTOR"}, {"TEAM", "300-TEAM"}});
  s.OptOutOfEdgeSet("GOALSUBSCRIBER");  // supernode-prone: not in the edge set
  return s;
}

void LoadKoan(Graph* g) {
  auto node = [&](const std::string& id, Item a) {
    Status s = g->PutNode(id, a);
    ASSERT_TRUE(s.ok()) << s.ToString();
  };
  node("GOAL-G1", {{"title", S("Release Next-Generation Augmented Reality Platform")}});
  node("GOAL-G2", {{"title", S("10 nationwide press events")}});
  node("GOAL-G3", {{"title", S("Hire a head of sales")}});
  node("USER-U1", {{"name", S("Dora Campos")}});
  node("USER-U2", {{"name", S("Ravi Shah")}});
  node("USER-U3", {{"name", S("Mia Chen")}});
  node("TEAM-T1", {{"name", S("Marketing")}});
  node("TEAM-T2", {{"name", S("Sales")}});
  auto member = [](const std::string& goal, const std::string& who, const std::string& role) {
    return EdgeSpec{goal, "GOALMEMBERSHIP", who,
                    {{"memberRole", S(role)}, {"date", S("2020-07-01")}}};
  };
  std::vector<EdgeSpec> edges = {
      member("GOAL-G1", "USER-U1", "LEAD"),        member("GOAL-G1", "USER-U2", "CONTRIBUTOR"),
      member("GOAL-G1", "TEAM-T1", "TEAM"),        member("GOAL-G2", "USER-U1", "LEAD"),
      member("GOAL-G2", "TEAM-T1", "TEAM"),        member("GOAL-G3", "USER-U3", "LEAD"),
      member("GOAL-G3", "USER-U1", "CONTRIBUTOR"), member("GOAL-G3", "TEAM-T2", "TEAM"),
      {"GOAL-G1", "GOALSUBSCRIBER", "USER-U3", {}},
  };
  // All at once: one transaction (well under 100 items).
  auto r = g->AddEdges(edges);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->edges_committed, 9);
  EXPECT_EQ(r->transactions, 1);
}

TEST_P(GraphSeedTest, Seed001TeamGoalsWithLeadsAndTeamsInThreeRequests) {
  auto g = MakeGraph(KoanSchema(Table("records")));
  LoadKoan(g.get());

  G_ASSIGN(std::optional<Node> g1, g->GetNode("GOAL-G1"));
  std::set<std::string> entries;
  for (const EdgeRef& r : g1->edge_set) entries.insert(r.type + "-" + r.target + "|" + r.rank);
  EXPECT_EQ(entries, (std::set<std::string>{"GOALMEMBERSHIP-USER-U1|500-LEAD",
                                            "GOALMEMBERSHIP-USER-U2|400-CONTRIBUTOR",
                                            "GOALMEMBERSHIP-TEAM-T1|300-TEAM"}));

  // A team's goals, plus each goal's leads and teams: GSI query, batch get of the
  // goals, batch get of the nodes their edge sets name. Three requests.
  g->ResetStats();
  ExpandRequest x;
  x.node = "TEAM-T1";
  x.edge_type = "GOALMEMBERSHIP";
  x.expand_types = {"GOALMEMBERSHIP"};
  x.expand_filter = [](const EdgeRef& r) { return r.rank == "500-LEAD" || r.rank == "300-TEAM"; };
  G_ASSIGN(Expansion ex, g->Expand(x));
  EXPECT_EQ(g->stats().requests, 3);
  // (Index entries with equal keys come in no particular order, as in DynamoDB.)
  std::map<std::string, const Node*> goals;
  for (const Node& n : ex.roots) goals[n.id] = &n;
  ASSERT_EQ(goals.size(), 2u);
  ASSERT_TRUE(goals.count("GOAL-G1") && goals.count("GOAL-G2"));
  EXPECT_EQ(Str(goals["GOAL-G1"]->attributes, "title"),
            "Release Next-Generation Augmented Reality Platform");
  std::set<std::string> neighbours;
  for (const auto& [id, n] : ex.neighbours) neighbours.insert(id);
  EXPECT_EQ(neighbours, (std::set<std::string>{"USER-U1", "TEAM-T1"}));
  ASSERT_TRUE(ex.neighbours.count("USER-U1"));
  EXPECT_EQ(Str(ex.neighbours.at("USER-U1").attributes, "name"), "Dora Campos");
  ASSERT_EQ(ex.refs["GOAL-G1"].size(), 2u);

  // The goals a user leads: partition GOALMEMBERSHIP-USER-U1, gsi0 = 500-LEAD.
  EdgeQuery leads;
  leads.key = KeyCondition::Eq("500-LEAD");
  G_ASSIGN(std::vector<Edge> led, g->AllInEdges("USER-U1", "GOALMEMBERSHIP", leads));
  std::vector<std::string> led_sources = Sources(led);
  std::set<std::string> led_set(led_sources.begin(), led_sources.end());
  EXPECT_EQ(led_set, (std::set<std::string>{"GOAL-G1", "GOAL-G2"}));
  // ... contributes to or leads: gsi0 >= 400-CONTRIBUTOR.
  EdgeQuery at_least;
  at_least.key = KeyCondition::Ge("400-CONTRIBUTOR");
  G_ASSIGN(std::vector<Edge> involved, g->AllInEdges("USER-U1", "GOALMEMBERSHIP", at_least));
  std::vector<std::string> involved_sources = Sources(involved);
  std::set<std::string> inv(involved_sources.begin(), involved_sources.end());
  EXPECT_EQ(inv, (std::set<std::string>{"GOAL-G1", "GOAL-G2", "GOAL-G3"}));
  EdgeQuery above;  // strictly above contributor: leads only
  above.key = KeyCondition::Gt("400-CONTRIBUTOR");
  G_ASSIGN(std::vector<Edge> only_leads, g->AllInEdges("USER-U1", "GOALMEMBERSHIP", above));
  EXPECT_EQ(only_leads.size(), 2u);

  // Pagination through the index: Limit + page token.
  EdgeQuery one;
  one.limit = 1;
  G_ASSIGN(EdgePage p1, g->InEdges("TEAM-T1", "GOALMEMBERSHIP", one));
  ASSERT_EQ(p1.edges.size(), 1u);
  ASSERT_FALSE(p1.next_page_token.empty());
  one.page_token = p1.next_page_token;
  G_ASSIGN(EdgePage p2, g->InEdges("TEAM-T1", "GOALMEMBERSHIP", one));
  ASSERT_EQ(p2.edges.size(), 1u);
  EXPECT_NE(p1.edges[0].source, p2.edges[0].source);

  // The opted-out subscriber edge is a normal edge, just not in the edge set.
  G_ASSIGN(std::vector<Edge> subs, g->AllInEdges("USER-U3", "GOALSUBSCRIBER"));
  EXPECT_EQ(Sources(subs), (std::vector<std::string>{"GOAL-G1"}));

  // A role change moves the edge-set entry atomically.
  G_OK(g->AddEdge({"GOAL-G1", "GOALMEMBERSHIP", "USER-U2", {{"memberRole", S("LEAD")}}}));
  G_ASSIGN(g1, g->GetNode("GOAL-G1", true));
  entries.clear();
  for (const EdgeRef& r : g1->edge_set) entries.insert(r.target + "|" + r.rank);
  EXPECT_TRUE(entries.count("USER-U2|500-LEAD"));
  EXPECT_FALSE(entries.count("USER-U2|400-CONTRIBUTOR"));
  G_ASSIGN(EdgeSetReport rep, g->VerifyEdgeSet("GOAL-G1"));
  EXPECT_TRUE(rep.ok());

  // Removing an edge removes its entry.
  G_OK(g->RemoveEdge("GOAL-G1", "GOALMEMBERSHIP", "TEAM-T1"));
  G_ASSIGN(g1, g->GetNode("GOAL-G1", true));
  EXPECT_EQ(g1->edge_set.size(), 2u);
  G_ASSIGN(rep, g->VerifyEdgeSet("GOAL-G1"));
  EXPECT_TRUE(rep.ok());
}

// ---------------------------------------------------------------- seed 002

TEST_P(GraphSeedTest, Seed002HierarchicalSortKeyConditions) {
  Schema s;
  s.table_name = Table("publications");
  auto g = MakeGraph(s);
  const std::string pub = "PUBLICATION#TheBetterProgramming";
  G_OK(g->PutNode(pub, {{"name", S("The Better Programming")}}));
  std::vector<EdgeSpec> edges;
  for (const char* t : {"TITLE#graphs-on-dynamodb", "TITLE#single-table", "TAG#aws", "TAG#nosql"}) {
    G_OK(g->PutNode(t));
    edges.push_back({pub, "HAS", t, {}});
  }
  G_ASSIGN(WriteReport w, g->AddEdges(edges));
  EXPECT_EQ(w.edges_committed, 4);
  EdgeQuery q;
  q.key = KeyCondition::BeginsWith("TITLE#");
  G_ASSIGN(std::vector<Edge> titles, g->AllOutEdges(pub, "HAS", q));
  EXPECT_EQ(Targets(titles),
            (std::vector<std::string>{"TITLE#graphs-on-dynamodb", "TITLE#single-table"}));
  q.key = KeyCondition::Between("TAG#a", "TAG#z");
  G_ASSIGN(std::vector<Edge> tags, g->AllOutEdges(pub, "HAS", q));
  EXPECT_EQ(Targets(tags), (std::vector<std::string>{"TAG#aws", "TAG#nosql"}));
  q.key = KeyCondition::Lt("TITLE#single-table");
  G_ASSIGN(std::vector<Edge> lt, g->AllOutEdges(pub, "HAS", q));
  EXPECT_EQ(Targets(lt),
            (std::vector<std::string>{"TAG#aws", "TAG#nosql", "TITLE#graphs-on-dynamodb"}));
  q.key = KeyCondition::Gt("TAG#aws");
  G_ASSIGN(std::vector<Edge> gt, g->AllOutEdges(pub, "HAS", q));
  EXPECT_EQ(Targets(gt), (std::vector<std::string>{"TAG#nosql", "TITLE#graphs-on-dynamodb",
                                                   "TITLE#single-table"}));
  q.key = KeyCondition::Le("TAG#nosql");
  q.forward = false;
  G_ASSIGN(std::vector<Edge> le, g->AllOutEdges(pub, "HAS", q));
  EXPECT_EQ(Targets(le), (std::vector<std::string>{"TAG#nosql", "TAG#aws"}));
}

// ---------------------------------------------------------------- seed 003

TEST_P(GraphSeedTest, Seed003MutualFriendsAndTraversal) {
  Schema s;
  s.table_name = Table("users");
  s.RankByAttribute("FRIEND", "friendship_since");
  s.Reverse("BUDDY", "BUDDY");  // a symmetric relationship: both directions at once
  auto g = MakeGraph(s);
  for (const char* u : {"Alice", "Bob", "Charlie", "David"}) {
    G_OK(g->PutNode(std::string("USER#") + u, {{"name", S(u)}}));
  }
  auto f = [](const char* a, const char* b, const char* since) {
    return EdgeSpec{std::string("USER#") + a, "FRIEND", std::string("USER#") + b,
                    {{"friendship_since", S(since)}}};
  };
  G_ASSIGN(WriteReport w, g->AddEdges({f("Alice", "Bob", "2023-01-15"),
                                       f("Alice", "Charlie", "2023-02-20"),
                                       f("Bob", "Alice", "2023-01-15"),
                                       f("Bob", "David", "2023-03-10"),
                                       f("Charlie", "Alice", "2023-02-20")}));
  EXPECT_EQ(w.edges_committed, 5);

  // Is Alice friends with Bob? One GetItem.
  G_ASSIGN(std::optional<Edge> ab, g->GetEdge("USER#Alice", "FRIEND", "USER#Bob"));
  EXPECT_TRUE(ab.has_value());
  // Mutual friends: from the two edge sets (one batch get)...
  g->ResetStats();
  G_ASSIGN(std::vector<std::string> m, g->MutualNeighbours("USER#Bob", "USER#Charlie", "FRIEND"));
  EXPECT_EQ(m, (std::vector<std::string>{"USER#Alice"}));
  EXPECT_EQ(g->stats().requests, 1);
  G_ASSIGN(m, g->MutualNeighbours("USER#Alice", "USER#Bob", "FRIEND"));
  EXPECT_TRUE(m.empty());
  // ... and from incoming edges: who is friends with both Alice and David? Bob.
  G_ASSIGN(m, g->MutualNeighbours("USER#Alice", "USER#David", "FRIEND", Direction::kIn));
  EXPECT_EQ(m, (std::vector<std::string>{"USER#Bob"}));

  // Friends of friends, 2 hops, with and without edge sets.
  for (bool sets : {true, false}) {
    TraversalRequest t;
    t.start = {"USER#Alice"};
    Hop h;
    h.edge_types = {"FRIEND"};
    h.use_edge_sets = sets;
    t.hops = {h, h};
    t.fetch_nodes = true;
    G_ASSIGN(TraversalResult r, g->Traverse(t));
    ASSERT_EQ(r.levels.size(), 3u);
    EXPECT_EQ(r.levels[1], (std::vector<std::string>{"USER#Bob", "USER#Charlie"}));
    EXPECT_EQ(r.levels[2], (std::vector<std::string>{"USER#David"}));
    EXPECT_EQ(r.nodes.size(), 4u);
    EXPECT_FALSE(r.truncated);
    // Fan-out cap and visited limit.
    t.hops[0].fan_out = 1;
    t.max_visited = 2;
    G_ASSIGN(r, g->Traverse(t));
    EXPECT_EQ(r.levels[1], (std::vector<std::string>{"USER#Bob"}));
    EXPECT_TRUE(r.truncated);
  }
  // A filtered hop (edge properties): friendships since February.
  TraversalRequest t;
  t.start = {"USER#Alice"};
  Hop h;
  h.edge_types = {"FRIEND"};
  h.filter = Filter{"#s >= :s", {{"#s", "friendship_since"}}, {{":s", S("2023-02-01")}}};
  t.hops = {h};
  G_ASSIGN(TraversalResult r, g->Traverse(t));
  EXPECT_EQ(r.levels[1], (std::vector<std::string>{"USER#Charlie"}));
  // Incoming hop.
  Hop in;
  in.edge_types = {"FRIEND"};
  in.direction = Direction::kIn;
  t.start = {"USER#David"};
  t.hops = {in, in};
  G_ASSIGN(r, g->Traverse(t));
  EXPECT_EQ(r.levels[1], (std::vector<std::string>{"USER#Bob"}));
  EXPECT_EQ(r.levels[2], (std::vector<std::string>{"USER#Alice"}));

  // Reverse edges: one AddEdge writes both directions (and both edge sets).
  G_OK(g->AddEdge({"USER#Alice", "BUDDY", "USER#David", {}}));
  G_ASSIGN(std::optional<Edge> back, g->GetEdge("USER#David", "BUDDY", "USER#Alice", true));
  EXPECT_TRUE(back.has_value());
  G_ASSIGN(std::optional<Node> david, g->GetNode("USER#David", true));
  ASSERT_EQ(david->edge_set.size(), 1u);
  EXPECT_EQ(david->edge_set[0].target, "USER#Alice");
  G_OK(g->RemoveEdge("USER#David", "BUDDY", "USER#Alice"));
  G_ASSIGN(back, g->GetEdge("USER#Alice", "BUDDY", "USER#David", true));
  EXPECT_FALSE(back.has_value());
  for (const char* n : {"USER#Alice", "USER#David"}) {
    G_ASSIGN(EdgeSetReport rep, g->VerifyEdgeSet(n));
    EXPECT_TRUE(rep.ok()) << n;
  }
}

// ---------------------------------------------------------------- seeds 003/004

TEST_P(GraphSeedTest, Seed004ContactPersonAddressValidityIntervals) {
  Schema s;
  s.table_name = Table("Contact");
  s.type_attribute = "Type";
  s.type_index = "ContactTypeIndex";
  s.valid_from_attribute = "StartTimestampUTC";
  s.valid_to_attribute = "EndTimestampUTC";
  auto g = MakeGraph(s);

  struct Row {
    const char* person;
    const char* first;
    const char* last;
    const char* street;
    const char* relationship;
    int64_t start;
    int64_t end;  // 0: current
  };
  const Row rows[] = {
      {"bob", "Bob", "Smith", "1850 Wazee Street", "Business", Epoch(2000, 1, 1), Epoch(2010, 12, 31)},
      {"bob", "Bob", "Smith", "1420 Stout Street", "Business", Epoch(2011, 1, 1), 0},
      {"bob", "Bob", "Smith", "1600 15th Street", "Residential", Epoch(2000, 1, 1), 0},
      {"sally", "Sally", "Wilson", "1850 Wazee Street", "Business", Epoch(2005, 1, 1), Epoch(2015, 12, 31)},
      {"sally", "Sally", "Wilson", "4000 Larimer Street", "Business", Epoch(2016, 1, 1), 0},
      {"sally", "Sally", "Wilson", "2000 21st Street", "Residential", Epoch(2005, 1, 1), 0},
      {"joe", "Joe", "Penton", "1850 Wazee Street", "Business", Epoch(2009, 1, 1), Epoch(2009, 12, 31)},
      {"joe", "Joe", "Penton", "4050 Logan Street", "Business", Epoch(2010, 1, 1), 0},
      {"joe", "Joe", "Penton", "5000 Blake Street", "Residential", Epoch(2009, 1, 1), 0},
  };
  EXPECT_EQ(Epoch(2000, 1, 1), 946684800);  // the seed's StartTimestampUTC
  EXPECT_EQ(Epoch(2010, 12, 31), 1293753600);
  auto slug = [](std::string street) {
    std::replace(street.begin(), street.end(), ' ', '-');
    return "Address#" + street;
  };
  std::vector<EdgeSpec> edges;
  for (const Row& r : rows) {
    G_OK(g->PutNode(std::string("Person#") + r.person,
                    {{"FirstName", S(r.first)}, {"LastName", S(r.last)}}));
    G_OK(g->PutNode(slug(r.street), {{"StreetAddress", S(r.street)}, {"City", S("Denver")},
                                     {"State", S("CO")}, {"ZipCode", S("80202")}}));
    Item props{{"Relationship", S(r.relationship)}, {"StartTimestampUTC", N(r.start)}};
    if (r.end != 0) props["EndTimestampUTC"] = N(r.end);
    edges.push_back({std::string("Person#") + r.person, "PersonAddress", slug(r.street), props});
  }
  G_ASSIGN(WriteReport w, g->AddEdges(edges));
  EXPECT_EQ(w.edges_committed, 9);

  // "Find all of the persons": the type index.
  G_ASSIGN(NodePage persons, g->NodesByType("Person"));
  std::vector<std::string> names;
  for (const Node& n : persons.nodes) names.push_back(Str(n.attributes, "FirstName"));
  EXPECT_EQ(names, (std::vector<std::string>{"Bob", "Joe", "Sally"}));
  // "Retrieve a set of people by their last name".
  EdgeQuery by_last;
  by_last.filter = Filter{"LastName = :l", {}, {{":l", S("Smith")}}};
  G_ASSIGN(persons, g->NodesByType("Person", by_last));
  ASSERT_EQ(persons.nodes.size(), 1u);
  EXPECT_EQ(persons.nodes[0].id, "Person#bob");

  // "Where was Bob working on 1/1/2005?"
  Filter business{"Relationship = :r", {}, {{":r", S("Business")}}};
  G_ASSIGN(std::vector<Edge> work,
           g->EdgesValidAt("Person#bob", "PersonAddress", Epoch(2005, 1, 1), business));
  ASSERT_EQ(work.size(), 1u);
  G_ASSIGN(auto addr, g->GetNodes({work[0].target}));
  ASSERT_TRUE(addr[0].has_value());
  EXPECT_EQ(Str(addr[0]->attributes, "StreetAddress"), "1850 Wazee Street");
  EXPECT_EQ(Str(work[0].properties, "EndTimestampUTC"), "1293753600");

  // "Where is Bob currently living?"
  Filter residential{"Relationship = :r", {}, {{":r", S("Residential")}}};
  G_ASSIGN(std::vector<Edge> home, g->CurrentEdges("Person#bob", "PersonAddress", residential));
  ASSERT_EQ(home.size(), 1u);
  G_ASSIGN(addr, g->GetNodes({home[0].target}));
  EXPECT_EQ(Str(addr[0]->attributes, "StreetAddress"), "1600 15th Street");
  // ... and working now (valid today).
  G_ASSIGN(work, g->EdgesValidAt("Person#bob", "PersonAddress", Epoch(2024, 6, 1), business));
  ASSERT_EQ(work.size(), 1u);
  EXPECT_EQ(work[0].target, "Address#1420-Stout-Street");

  // Who worked at 1850 Wazee Street on 6/1/2009? On 1/1/2011? (incoming edges)
  auto at = [&](int64_t t) {
    EdgeQuery q;
    q.filter = Filter{"StartTimestampUTC <= :t AND (attribute_not_exists(EndTimestampUTC) OR "
                      "EndTimestampUTC >= :t)",
                      {},
                      {{":t", N(t)}}};
    auto r = g->AllInEdges("Address#1850-Wazee-Street", "PersonAddress", q);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? Sources(*r) : std::vector<std::string>{};
  };
  EXPECT_EQ(at(Epoch(2009, 6, 1)),
            (std::vector<std::string>{"Person#bob", "Person#joe", "Person#sally"}));
  EXPECT_EQ(at(Epoch(2011, 1, 1)), (std::vector<std::string>{"Person#sally"}));
}

// ---------------------------------------------------------------- limits

TEST_P(GraphSeedTest, LargeWritesAreSplitIntoTransactionsOfAtMost100Items) {
  Schema s;
  s.table_name = Table("split");
  s.Reverse("FOLLOWS", "FOLLOWED_BY");
  auto g = MakeGraph(s);
  G_OK(g->PutNode("USER#hub"));
  std::vector<EdgeSpec> edges;
  for (int i = 0; i < 120; ++i) {
    std::string leaf = "USER#leaf" + std::to_string(1000 + i);
    G_OK(g->PutNode(leaf));
    edges.push_back({"USER#hub", "FOLLOWS", leaf, {{"i", N(i)}}});
  }
  // Each edge: edge + reverse edge + the leaf's edge-set update (3 items) plus
  // the hub's update shared by the whole transaction: 33 edges per transaction.
  G_ASSIGN(WriteReport w, g->AddEdges(edges));
  EXPECT_EQ(w.edges_committed, 120);
  EXPECT_EQ(w.transactions, 4);
  G_ASSIGN(std::vector<Edge> out, g->AllOutEdges("USER#hub", "FOLLOWS"));
  EXPECT_EQ(out.size(), 120u);
  G_ASSIGN(std::vector<Edge> back, g->AllInEdges("USER#hub", "FOLLOWED_BY"));
  EXPECT_EQ(back.size(), 120u);
  G_ASSIGN(EdgeSetReport rep, g->VerifyEdgeSet("USER#hub"));
  EXPECT_TRUE(rep.ok());
  G_ASSIGN(std::optional<Node> hub, g->GetNode("USER#hub"));
  EXPECT_EQ(hub->edge_set.size(), 120u);

  // Delete the hub: 240 edges (120 out + their reverses), bounded batches.
  DeleteNodeOptions o;
  o.max_edges = 50;
  int calls = 0;
  DeleteProgress p;
  do {
    G_ASSIGN(p, g->DeleteNode("USER#hub", o));
    ASSERT_LT(++calls, 10);
  } while (!p.done);
  EXPECT_EQ(calls, 3);
  G_ASSIGN(rep, g->VerifyEdgeSet("USER#leaf1000"));
  EXPECT_TRUE(rep.ok());
  G_ASSIGN(std::optional<Node> leaf, g->GetNode("USER#leaf1000", true));
  EXPECT_TRUE(leaf->edge_set.empty());
}

TEST_P(GraphSeedTest, EdgeSetPastFourHundredKilobytesNamesTheEdgeTypeToOptOut) {
  Schema s;
  s.table_name = Table("bigsets");
  auto g = MakeGraph(s);
  G_OK(g->PutNode("GOAL#popular"));
  const std::string pad(900, 'x');
  std::vector<EdgeSpec> edges;
  for (int i = 0; i < 600; ++i) {
    edges.push_back({"GOAL#popular", "SUBSCRIBER", "USER#" + pad + std::to_string(100000 + i), {}});
  }
  AddEdgeOptions o;
  o.require_nodes = false;
  auto r = g->AddEdges(edges, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().type(), ErrorType::kValidation) << r.status().ToString();
  EXPECT_NE(r.status().message().find("OptOutOfEdgeSet(\"SUBSCRIBER\")"), std::string::npos)
      << r.status().message();
  EXPECT_NE(r.status().message().find("edges were committed"), std::string::npos)
      << r.status().message();

  // Opting the type out: the edges are written, the set stays as it was.
  s.OptOutOfEdgeSet("SUBSCRIBER");
  Graph opted(client_.get(), s);
  G_ASSIGN(WriteReport w, opted.AddEdges(edges, o));
  EXPECT_EQ(w.edges_committed, 600);
  G_ASSIGN(std::vector<Edge> subs, opted.AllOutEdges("GOAL#popular", "SUBSCRIBER"));
  EXPECT_EQ(subs.size(), 600u);
}

INSTANTIATE_TEST_SUITE_P(Graph, GraphSeedTest,
                         ::testing::Values(Backend::kEmbedded, Backend::kHttp),
                         [](const ::testing::TestParamInfo<Backend>& info) {
                           return info.param == Backend::kEmbedded ? "Embedded" : "Http";
                         });

// ---------------------------------------------------------------- SigV4 signing

TEST(GraphSigV4SignerTest, GetVanillaFromTheAwsTestSuite) {
  SigV4Signer signer({"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", ""}, "us-east-1",
                     "service");
  SigV4Signer::Headers h = {{"Host", "example.amazonaws.com"}};
  signer.Sign("GET", "/", "", std::chrono::system_clock::from_time_t(1440938160), &h);
  ASSERT_EQ(h.size(), 3u);
  EXPECT_EQ(h[1].second, "20150830T123600Z");
  EXPECT_EQ(h[2].second,
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
            "SignedHeaders=host;x-amz-date, "
            "Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
}

TEST(GraphSigV4SignerTest, TheServerVerifierAcceptsWhatTheSignerSigns) {
  SigV4Signer signer({"AKID", "secret", "session-token"}, "eu-west-1");
  SigV4Signer::Headers h = {{"host", "127.0.0.1:8000"},
                            {"content-type", "application/x-amz-json-1.0"},
                            {"x-amz-target", "DynamoDB_20120810.GetItem"}};
  const std::string body = R"({"TableName":"t","Key":{"PK":{"S":"a"}}})";
  signer.Sign("POST", "/", body, std::chrono::system_clock::now(), &h);
  api::AuthConfig config;
  config.keys.push_back({"AKID", "secret"});
  api::SigV4Verifier verifier(config);
  api::SigV4Request req{"POST", "/", {}};
  for (const auto& [k, v] : h) req.headers.emplace_back(k, v);
  Status ok = verifier.Verify(req, body);
  EXPECT_TRUE(ok.ok()) << ok.ToString();
  Status tampered = verifier.Verify(req, body + " ");
  EXPECT_EQ(tampered.type(), ErrorType::kInvalidSignature);
}

TEST(GraphHttpClientTest, RefusesHttpsAndBadEndpoints) {
  HttpClientOptions o;
  o.endpoint = "https://dynamodb.us-east-1.amazonaws.com";
  auto c = HttpClient::Create(o);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("http://dynamodb"), std::string::npos);
  o.endpoint = "ftp://x";
  EXPECT_FALSE(HttpClient::Create(o).ok());
}

TEST(GraphHttpClientTest, UnreachableEndpointFailsAfterBoundedRetries) {
  HttpClientOptions o;
  o.endpoint = "http://127.0.0.1:1";  // nothing listens on port 1
  o.max_attempts = 3;
  o.base_backoff = std::chrono::milliseconds(1);
  auto c = HttpClient::Create(o);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  DescribeTableRequest d;
  d.table_name = "t";
  auto r = (*c)->DescribeTable(d);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ((*c)->stats().attempts, 3);
}

}  // namespace
}  // namespace dynarock::graph
