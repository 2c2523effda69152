// File: tests/unit/graph_test.cc
//
// The graph layer on the seeds' worked examples (../shared/seeds/), run twice by
// one parameterised fixture: on an EmbeddedClient over an in-memory DB, and on an
// HttpClient against `dynarock serve --in-memory --require-auth KEY:SECRET` started
// on a free port (so SigV4 signing is verified end to end).
//
// The server binary: $DYNAROCK_BIN, else ../dynarock next to this test binary
// (build/tests/dynarock_tests -> build/dynarock).
//
// The HttpClient's own failure modes are tested in client_http_test.cc.

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "client/embedded_client.h"
#include "client/http_client.h"
#include "dynarock/db.h"
#include "dynarock/item_size.h"
#include "graph/graph.h"
#include "graph/seed_graphs.h"

namespace dynarock::graph {

using client::Client;
using client::EmbeddedClient;
using client::HttpClient;
using client::HttpClientOptions;
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

using seeds::UtcMidnight;

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

// ---------------------------------------------------------------- test doubles

// A Client that forwards to another one, with a hook run before each
// TransactWriteItems (to inject a concurrent writer) and a record of every
// transaction's aggregate item size (DynamoDB's 4 MB rule).
class HookClient final : public Client {
 public:
  explicit HookClient(Client* inner) : inner_(inner) {}

  std::function<void(const TransactWriteItemsRequest&)> before_transact;
  std::vector<size_t> transact_bytes;
  std::vector<size_t> transact_items;

  StatusOr<CreateTableResponse> CreateTable(const CreateTableRequest& r) override {
    return inner_->CreateTable(r);
  }
  StatusOr<DescribeTableResponse> DescribeTable(const DescribeTableRequest& r) override {
    return inner_->DescribeTable(r);
  }
  StatusOr<DeleteTableResponse> DeleteTable(const DeleteTableRequest& r) override {
    return inner_->DeleteTable(r);
  }
  StatusOr<PutItemResponse> PutItem(const PutItemRequest& r) override { return inner_->PutItem(r); }
  StatusOr<GetItemResponse> GetItem(const GetItemRequest& r) override { return inner_->GetItem(r); }
  StatusOr<UpdateItemResponse> UpdateItem(const UpdateItemRequest& r) override {
    return inner_->UpdateItem(r);
  }
  StatusOr<DeleteItemResponse> DeleteItem(const DeleteItemRequest& r) override {
    return inner_->DeleteItem(r);
  }
  StatusOr<QueryResponse> Query(const QueryRequest& r) override { return inner_->Query(r); }
  StatusOr<ScanResponse> Scan(const ScanRequest& r) override { return inner_->Scan(r); }
  // The next `defer_batch_gets` BatchGetItem calls read only their first key
  // and return the others as UnprocessedKeys, as a throttled DynamoDB may.
  StatusOr<BatchGetItemResponse> BatchGetItem(const BatchGetItemRequest& r) override {
    for (const auto& [table, ka] : r.request_items) batch_get_consistent.push_back(ka.consistent_read);
    if (defer_batch_gets <= 0) return inner_->BatchGetItem(r);
    --defer_batch_gets;
    BatchGetItemRequest first = r;
    std::map<std::string, KeysAndAttributes> deferred;
    for (auto& [table, ka] : first.request_items) {
      KeysAndAttributes rest = ka;
      rest.keys.erase(rest.keys.begin());
      ka.keys.resize(1);
      if (!rest.keys.empty()) deferred[table] = std::move(rest);
    }
    auto out = inner_->BatchGetItem(first);
    if (out.ok()) out->unprocessed_keys = std::move(deferred);
    return out;
  }
  int defer_batch_gets = 0;
  std::vector<bool> batch_get_consistent;
  StatusOr<BatchWriteItemResponse> BatchWriteItem(const BatchWriteItemRequest& r) override {
    return inner_->BatchWriteItem(r);
  }
  StatusOr<TransactWriteItemsResponse> TransactWriteItems(
      const TransactWriteItemsRequest& r) override {
    if (before_transact) before_transact(r);
    size_t bytes = 0;
    for (const TransactWriteItem& t : r.transact_items) {
      bytes += ItemSize(t.kind == TransactWriteItem::Kind::kPut ? t.item : t.key);
      for (const auto& [name, value] : t.expression_attribute_values) {
        bytes += AttributeValueSize(value);
      }
    }
    transact_bytes.push_back(bytes);
    transact_items.push_back(r.transact_items.size());
    return inner_->TransactWriteItems(r);
  }
  std::string Describe() const override { return "hook:" + inner_->Describe(); }

 private:
  Client* inner_;
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

TEST_P(GraphSeedTest, Seed000FrodosFriendsAndWhoConsidersGandalfAFriend) {
  auto g = MakeGraph(seeds::MiddleEarthSchema(Table("seed000")));
  G_OK(seeds::LoadMiddleEarth(*g).status());

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
  auto g = MakeGraph(seeds::MiddleEarthSchema(Table("seed000del")));
  G_OK(seeds::LoadMiddleEarth(*g).status());
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
  auto g = MakeGraph(seeds::MiddleEarthSchema(Table("seed000fix")));
  G_OK(seeds::LoadMiddleEarth(*g).status());
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

TEST_P(GraphSeedTest, Seed001TeamGoalsWithLeadsAndTeamsInThreeRequests) {
  auto g = MakeGraph(seeds::KoanSchema(Table("records")));
  G_ASSIGN(WriteReport loaded, seeds::LoadKoan(*g));
  EXPECT_EQ(loaded.edges_committed, 9);
  EXPECT_EQ(loaded.transactions, 1);  // all at once: one transaction (well under 100 items)

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
  Schema s = seeds::FriendsSchema(Table("users"));
  s.Reverse("BUDDY", "BUDDY");  // a symmetric relationship: both directions at once
  auto g = MakeGraph(s);
  G_ASSIGN(WriteReport w, seeds::LoadFriends(*g));
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
  auto g = MakeGraph(seeds::ContactSchema(Table("Contact")));
  EXPECT_EQ(UtcMidnight(2000, 1, 1), 946684800);  // the seed's StartTimestampUTC
  EXPECT_EQ(UtcMidnight(2010, 12, 31), 1293753600);
  EXPECT_EQ(UtcMidnight(1969, 12, 31), -86400);
  EXPECT_EQ(seeds::AddressId("1850 Wazee Street"), "Address#1850-Wazee-Street");
  G_ASSIGN(WriteReport w, seeds::LoadContact(*g));
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
           g->EdgesValidAt("Person#bob", "PersonAddress", UtcMidnight(2005, 1, 1), business));
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
  G_ASSIGN(work, g->EdgesValidAt("Person#bob", "PersonAddress", UtcMidnight(2024, 6, 1), business));
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
  EXPECT_EQ(at(UtcMidnight(2009, 6, 1)),
            (std::vector<std::string>{"Person#bob", "Person#joe", "Person#sally"}));
  EXPECT_EQ(at(UtcMidnight(2011, 1, 1)), (std::vector<std::string>{"Person#sally"}));
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

// Over a remote client a batch get of fewer than 100 keys is spread over the
// requests in flight (at least 8 keys each); embedded it is one request.
TEST_P(GraphSeedTest, BatchGetsSpreadOverTheRequestsInFlightOfARemoteClient) {
  Schema s;
  s.table_name = Table("spread");
  auto g = MakeGraph(s);
  std::vector<std::string> ids;
  for (int i = 0; i < 50; ++i) {
    ids.push_back("USER#" + std::to_string(i));
    G_OK(g->PutNode(ids.back(), {{"n", AttributeValue::N(std::to_string(i))}}));
  }
  g->ResetStats();
  G_ASSIGN(auto nodes, g->GetNodes(ids));
  ASSERT_EQ(nodes.size(), 50u);
  for (size_t i = 0; i < nodes.size(); ++i) {
    ASSERT_TRUE(nodes[i].has_value());
    EXPECT_EQ(nodes[i]->id, ids[i]);  // in the order asked
  }
  // 4 in flight over HTTP: 50 keys as 4 requests of 13; embedded: 1.
  EXPECT_EQ(g->stats().requests, GetParam() == Backend::kHttp ? 4 : 1);
  g->set_max_concurrent_requests(1);
  g->ResetStats();
  G_OK(g->GetNodes(ids).status());
  EXPECT_EQ(g->stats().requests, 1);
}

TEST_P(GraphSeedTest, EdgeSetPastFourHundredKilobytesSpillsIntoPagesThatReadersMerge) {
  Schema s;
  s.table_name = Table("bigsets");
  s.RankByAttribute("RATED", "stars");
  auto g = MakeGraph(s);
  G_OK(g->PutNode("GOAL#popular", {{"name", S("popular")}}));
  const std::string pad(900, 'x');
  std::vector<EdgeSpec> edges;
  for (int i = 0; i < 600; ++i) {
    edges.push_back({"GOAL#popular", "SUBSCRIBER", "USER#" + pad + std::to_string(100000 + i), {}});
  }
  AddEdgeOptions o;
  o.require_nodes = false;
  G_ASSIGN(WriteReport w, g->AddEdges(edges, o));
  EXPECT_EQ(w.edges_committed, 600);

  // ~550 KB of entries: the node item lists pages instead of holding the set.
  GetItemRequest raw;
  raw.table_name = s.table_name;
  raw.key = s.NodeKey("GOAL#popular");
  raw.consistent_read = true;
  G_ASSIGN(GetItemResponse item, client_->GetItem(raw));
  ASSERT_TRUE(item.item.has_value());
  EXPECT_FALSE(item.item->count(s.edge_set_attribute));
  ASSERT_TRUE(item.item->count(s.edge_pages_attribute));
  EXPECT_GE(item.item->at(s.edge_pages_attribute).set().size(), 4u);
  EXPECT_LT(ItemSize(*item.item), 4096u);

  // Readers see one whole set, and pages are neither edges nor attributes.
  G_ASSIGN(std::optional<Node> node, g->GetNode("GOAL#popular", true));
  ASSERT_TRUE(node.has_value());
  EXPECT_EQ(node->edge_set.size(), 600u);
  EXPECT_EQ(node->attributes.size(), 1u);  // name
  G_ASSIGN(auto nodes, g->GetNodes({"GOAL#popular"}));
  ASSERT_TRUE(nodes[0].has_value());
  EXPECT_EQ(nodes[0]->edge_set.size(), 600u);
  G_ASSIGN(std::vector<Edge> out, g->AllOutEdges("GOAL#popular", ""));
  EXPECT_EQ(out.size(), 600u);
  G_ASSIGN(EdgeSetReport report, g->VerifyEdgeSet("GOAL#popular"));
  EXPECT_TRUE(report.ok()) << report.missing.size() << " missing, " << report.stale.size() << " stale";

  // Removing edges deletes their entries from the pages.
  std::vector<EdgeSpec> half(edges.begin(), edges.begin() + 300);
  G_ASSIGN(WriteReport removed, g->RemoveEdges(half));
  EXPECT_EQ(removed.edges_committed, 300);
  G_ASSIGN(node, g->GetNode("GOAL#popular", true));
  EXPECT_EQ(node->edge_set.size(), 300u);

  // A ranked edge whose rank changes: its entry moves (maybe between pages).
  G_OK(g->AddEdge({"GOAL#popular", "RATED", "USER#critic", {{"stars", S("1")}}}, o));
  G_OK(g->AddEdge({"GOAL#popular", "RATED", "USER#critic", {{"stars", S("5")}}}, o));
  G_ASSIGN(node, g->GetNode("GOAL#popular", true));
  EXPECT_EQ(node->edge_set.size(), 301u);
  int rated = 0;
  for (const EdgeRef& ref : node->edge_set) {
    if (ref.type != "RATED") continue;
    ++rated;
    EXPECT_EQ(ref.rank, "5");
  }
  EXPECT_EQ(rated, 1);
  G_ASSIGN(report, g->VerifyEdgeSet("GOAL#popular"));
  EXPECT_TRUE(report.ok()) << report.missing.size() << " missing, " << report.stale.size() << " stale";

  // DeleteNode leaves nothing of the partition, pages included.
  DeleteNodeOptions d;
  d.max_edges = 1000;
  G_ASSIGN(DeleteProgress progress, g->DeleteNode("GOAL#popular", d));
  EXPECT_TRUE(progress.done);
  QueryRequest q;
  q.table_name = s.table_name;
  q.key_condition_expression = "PK = :p";
  q.expression_attribute_values[":p"] = S("GOAL#popular");
  q.has_expression_attribute_values = true;
  q.consistent_read = true;
  G_ASSIGN(QueryResponse left, client_->Query(q));
  EXPECT_EQ(left.items.size(), 0u);

  // Opting the type out stays a choice: the edges, and no set at all.
  s.OptOutOfEdgeSet("SUBSCRIBER");
  Graph opted(client_.get(), s);
  G_ASSIGN(w, opted.AddEdges(edges, o));
  EXPECT_EQ(w.edges_committed, 600);
  G_ASSIGN(std::vector<Edge> subs, opted.AllOutEdges("GOAL#popular", "SUBSCRIBER"));
  EXPECT_EQ(subs.size(), 600u);
  G_ASSIGN(node, opted.GetNode("GOAL#popular", true));
  EXPECT_TRUE(!node || node->edge_set.empty());
}

// ---------------------------------------------------------------- audit fixes

TEST_P(GraphSeedTest, RemoveEdgesSendsNoDuplicateKeys) {
  // Ranked and symmetric: removing needs the stored ranks, read by one batch get
  // that must not list a key twice (DynamoDB refuses duplicates).
  Schema s;
  s.table_name = Table("dupkeys");
  s.RankByAttribute("FRIEND", "since");
  s.Reverse("FRIEND", "FRIEND");
  auto g = MakeGraph(s);
  for (const char* n : {"USER#a", "USER#b", "USER#c"}) G_OK(g->PutNode(n));
  G_OK(g->AddEdge({"USER#a", "FRIEND", "USER#b", {{"since", S("2020")}}}));
  G_OK(g->AddEdge({"USER#a", "FRIEND", "USER#c", {{"since", S("2021")}}}));
  G_OK(g->AddEdge({"USER#a", "FRIEND", "USER#a", {{"since", S("2022")}}}));  // a self-loop
  // Both directions of a symmetric edge, an edge listed twice, and the self-loop.
  G_ASSIGN(WriteReport w, g->RemoveEdges({{"USER#a", "FRIEND", "USER#b", {}},
                                          {"USER#b", "FRIEND", "USER#a", {}},
                                          {"USER#a", "FRIEND", "USER#c", {}},
                                          {"USER#a", "FRIEND", "USER#c", {}},
                                          {"USER#a", "FRIEND", "USER#a", {}}}));
  EXPECT_EQ(w.edges_committed, 5);
  for (const char* n : {"USER#a", "USER#b", "USER#c"}) {
    G_ASSIGN(std::vector<Edge> out, g->AllOutEdges(n, ""));
    EXPECT_TRUE(out.empty()) << n << " still has " << out.size() << " edges";
    G_ASSIGN(std::optional<Node> node, g->GetNode(n, true));
    ASSERT_TRUE(node.has_value());
    EXPECT_TRUE(node->edge_set.empty()) << n;
  }
}

TEST_P(GraphSeedTest, DeleteNodeRemovesIncomingEdgesOfEveryType) {
  Schema s;  // no edge type is registered
  s.table_name = Table("anytype");
  auto g = MakeGraph(s);
  for (const char* n : {"USER#a", "USER#b", "PLACE#p"}) G_OK(g->PutNode(n));
  G_OK(g->AddEdge({"USER#a", "LIKES", "PLACE#p", {}}));
  G_OK(g->AddEdge({"USER#b", "VISITED", "PLACE#p", {}}));
  AddEdgeOptions both;
  both.reverse = true;  // NEAR has no reverse in the schema: USER#a -NEAR-> PLACE#p too
  G_OK(g->AddEdge({"PLACE#p", "NEAR", "USER#a", {}}, both));
  G_ASSIGN(std::optional<Edge> back, g->GetEdge("USER#a", "NEAR", "PLACE#p", true));
  ASSERT_TRUE(back.has_value());
  G_ASSIGN(std::optional<Node> place, g->GetNode("PLACE#p", true));
  EXPECT_EQ(place->incoming_types, (std::vector<std::string>{"LIKES", "NEAR", "VISITED"}));

  DeleteNodeOptions o;
  o.max_edges = 1;
  int calls = 0;
  DeleteProgress p;
  do {
    G_ASSIGN(p, g->DeleteNode("PLACE#p", o));
    ASSERT_LT(++calls, 20);
  } while (!p.done);
  for (const char* n : {"USER#a", "USER#b"}) {
    G_ASSIGN(std::vector<Edge> out, g->AllOutEdges(n, ""));
    EXPECT_TRUE(out.empty()) << n << " still has " << out.size() << " edges";
    G_ASSIGN(std::optional<Node> node, g->GetNode(n, true));
    ASSERT_TRUE(node.has_value());
    EXPECT_TRUE(node->edge_set.empty()) << n;
  }
  for (const char* t : {"LIKES", "VISITED", "NEAR"}) {
    G_ASSIGN(std::vector<Edge> in, g->AllInEdges("PLACE#p", t));
    EXPECT_TRUE(in.empty()) << t;
  }
}

TEST_P(GraphSeedTest, RemoveEdgeTakesTheReverseOptionOfAddEdge) {
  Schema s;
  s.table_name = Table("revopt");
  s.RankByAttribute("RATED", "stars");  // ranked, no reverse type in the schema
  auto g = MakeGraph(s);
  for (const char* n : {"USER#a", "BOOK#b"}) G_OK(g->PutNode(n));
  AddEdgeOptions both;
  both.reverse = true;
  G_OK(g->AddEdge({"USER#a", "RATED", "BOOK#b", {{"stars", N(4)}}}, both));
  G_ASSIGN(std::optional<Node> book, g->GetNode("BOOK#b", true));
  ASSERT_EQ(book->edge_set.size(), 1u);  // the reverse edge's entry
  EXPECT_EQ(book->incoming_types, (std::vector<std::string>{"RATED"}));
  // Without the option only the edge itself goes (the schema names no reverse).
  G_OK(g->RemoveEdge("USER#a", "RATED", "BOOK#b"));
  G_ASSIGN(std::optional<Edge> back, g->GetEdge("BOOK#b", "RATED", "USER#a", true));
  EXPECT_TRUE(back.has_value());
  G_OK(g->AddEdge({"USER#a", "RATED", "BOOK#b", {{"stars", N(5)}}}, both));
  RemoveEdgeOptions remove_both;
  remove_both.reverse = true;
  G_OK(g->RemoveEdge("USER#a", "RATED", "BOOK#b", remove_both));
  for (const char* n : {"USER#a", "BOOK#b"}) {
    G_ASSIGN(std::vector<Edge> out, g->AllOutEdges(n, ""));
    EXPECT_TRUE(out.empty()) << n;
    G_ASSIGN(std::optional<Node> node, g->GetNode(n, true));
    EXPECT_TRUE(node->edge_set.empty()) << n;
  }
}

TEST_P(GraphSeedTest, BulkLoadedNodesRecordTheirIncomingTypesToo) {
  Schema s;
  s.table_name = Table("bulkin");
  auto g = MakeGraph(s);
  {
    BulkLoader loader(g.get(), 2);
    G_OK(loader.AddNode("USER#a"));
    G_OK(loader.AddNode("TAG#t"));
    G_OK(loader.AddEdge({"USER#a", "FOLLOWS", "TAG#t", {}}));
    G_OK(loader.AddEdge({"TAG#t", "MENTIONS", "USER#a", {}}, /*with_reverse=*/true));
    G_OK(loader.Finish());
  }
  G_ASSIGN(std::optional<Node> tag, g->GetNode("TAG#t", true));
  ASSERT_TRUE(tag.has_value());
  EXPECT_EQ(tag->incoming_types, (std::vector<std::string>{"FOLLOWS", "MENTIONS"}));
  DeleteProgress p;
  do {
    G_ASSIGN(p, g->DeleteNode("TAG#t"));
  } while (!p.done);
  G_ASSIGN(std::vector<Edge> out, g->AllOutEdges("USER#a", ""));
  EXPECT_TRUE(out.empty());
  G_ASSIGN(std::optional<Node> a, g->GetNode("USER#a", true));
  EXPECT_TRUE(a->edge_set.empty());
}

TEST_P(GraphSeedTest, BulkLoadingAnEdgeTwiceKeepsItsLastVersion) {
  Schema s = seeds::KoanSchema(Table("bulkdup"));  // GOALMEMBERSHIP ranked by memberRole
  s.Reverse("KNOWS", "KNOWS");
  auto g = MakeGraph(s);
  {
    BulkLoader loader(g.get(), 2);
    auto member = [](const char* role) {
      return EdgeSpec{"GOAL-G1", "GOALMEMBERSHIP", "USER-U1", {{"memberRole", S(role)}}};
    };
    G_OK(loader.AddEdge(member("CONTRIBUTOR")));
    G_OK(loader.AddEdge(member("LEAD")));  // the same edge, promoted: a new rank
    // A symmetric type loaded from both ends: each direction twice.
    G_OK(loader.AddEdge({"USER-U1", "KNOWS", "USER-U2", {}}, /*with_reverse=*/true));
    G_OK(loader.AddEdge({"USER-U2", "KNOWS", "USER-U1", {}}, /*with_reverse=*/true));
    G_OK(loader.Finish());
  }
  G_ASSIGN(std::vector<Edge> out, g->AllOutEdges("GOAL-G1", "GOALMEMBERSHIP"));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].rank, "500-LEAD");
  G_ASSIGN(std::optional<Node> goal, g->GetNode("GOAL-G1", true));
  ASSERT_EQ(goal->edge_set.size(), 1u);
  EXPECT_EQ(goal->edge_set[0].rank, "500-LEAD");
  for (const char* n : {"GOAL-G1", "USER-U1", "USER-U2"}) {
    G_ASSIGN(EdgeSetReport rep, g->VerifyEdgeSet(n));
    EXPECT_TRUE(rep.ok()) << n << " missing " << rep.missing.size() << " stale " << rep.stale.size();
  }
  G_ASSIGN(std::vector<Edge> knows, g->AllOutEdges("USER-U1", "KNOWS"));
  EXPECT_EQ(Targets(knows), (std::vector<std::string>{"USER-U2"}));
}

// An application's own index over node attributes, with DynamoDB's
// multi-attribute keys: people by (country, city), ordered by (age, name).
TEST_P(GraphSeedTest, DeclaredMultiAttributeIndexIsCreatedCheckedAndQueried) {
  Schema s;
  s.table_name = Table("declared");
  s.DeclareIndex("byPlace", {{"country", AttrType::kS}, {"city", AttrType::kS}},
                 {{"age", AttrType::kN}, {"name", AttrType::kS}});
  auto g = MakeGraph(s);
  struct Person { const char* id; const char* country; const char* city; int age; };
  const Person people[] = {{"PERSON#1", "NZ", "Hobbiton", 33}, {"PERSON#2", "NZ", "Hobbiton", 50},
                           {"PERSON#3", "NZ", "Bree", 33}, {"PERSON#4", "NZ", "Hobbiton", 33},
                           {"PERSON#5", "IS", "Hobbiton", 20}};
  for (const auto& p : people) {
    G_OK(g->PutNode(p.id, {{"country", S(p.country)}, {"city", S(p.city)}, {"age", N(p.age)},
                          {"name", S(std::string("n") + p.id[7])}}));
  }
  G_OK(g->PutNode("PERSON#6", {{"country", S("NZ")}, {"city", S("Hobbiton")}}));  // no age: sparse
  QueryRequest q;
  q.table_name = s.table_name;
  q.index_name = "byPlace";
  q.key_condition_expression = "country = :c AND city = :t AND age = :a";
  q.expression_attribute_values = {{":c", S("NZ")}, {":t", S("Hobbiton")}, {":a", N(33)}};
  q.has_expression_attribute_values = true;
  G_ASSIGN(QueryResponse r, client_->Query(q));
  std::vector<std::string> ids;
  for (const auto& it : r.items) ids.push_back(it.at(s.pk_attribute).scalar());
  EXPECT_EQ(ids, (std::vector<std::string>{"PERSON#1", "PERSON#4"}));
  q.key_condition_expression = "country = :c AND city = :t";
  q.expression_attribute_values = {{":c", S("NZ")}, {":t", S("Hobbiton")}};
  q.scan_index_forward = false;
  G_ASSIGN(r, client_->Query(q));
  ids.clear();
  for (const auto& it : r.items) ids.push_back(it.at(s.pk_attribute).scalar());
  EXPECT_EQ(ids, (std::vector<std::string>{"PERSON#2", "PERSON#4", "PERSON#1"}));

  // The table now exists with the index: EnsureTable accepts it again, and a
  // schema that declares another key for it is refused with the key it wants.
  G_OK(Graph(client_.get(), s).EnsureTable());
  Schema other = s;
  other.indexes[0].sort.pop_back();
  Status wrong = Graph(client_.get(), other).EnsureTable();
  EXPECT_EQ(wrong.type(), ErrorType::kValidation);
  EXPECT_NE(wrong.message().find("does not have the key (country HASH, city HASH, age RANGE)"),
            std::string::npos) << wrong.message();
  // Declarations DynamoDB would refuse are refused before any request.
  Schema bad = s;
  bad.table_name = Table("declared_bad");
  bad.indexes[0].partition.push_back({"a", AttrType::kS});
  bad.indexes[0].partition.push_back({"b", AttrType::kS});
  bad.indexes[0].partition.push_back({"c", AttrType::kS});
  EXPECT_EQ(bad.Validate().type(), ErrorType::kValidation);
  Schema clash = s;
  clash.DeclareIndex("byAge", {{"age", AttrType::kS}});  // age is N in byPlace
  EXPECT_NE(clash.Validate().message().find("another type"), std::string::npos);
}

TEST_P(GraphSeedTest, TransactionsStayUnderFourMegabytes) {
  HookClient hook(client_.get());
  Schema s;
  s.table_name = Table("fourmb");
  Graph g(&hook, s);
  G_OK(g.EnsureTable());
  G_OK(g.PutNode("DOC#hub"));
  const std::string blob(200 * 1024, 'x');  // 200 KB per edge: 30 edges are ~6 MB
  std::vector<EdgeSpec> edges;
  for (int i = 0; i < 30; ++i) {
    std::string leaf = "DOC#leaf" + std::to_string(100 + i);
    G_OK(g.PutNode(leaf));
    edges.push_back({"DOC#hub", "CITES", leaf, {{"text", S(blob)}}});
  }
  G_ASSIGN(WriteReport w, g.AddEdges(edges));
  EXPECT_EQ(w.edges_committed, 30);
  EXPECT_GE(w.transactions, 2);
  ASSERT_FALSE(hook.transact_bytes.empty());
  for (size_t b : hook.transact_bytes) EXPECT_LE(b, size_t{4} << 20);
  G_ASSIGN(std::vector<Edge> out, g.AllOutEdges("DOC#hub", "CITES"));
  EXPECT_EQ(out.size(), 30u);
  G_ASSIGN(EdgeSetReport rep, g.VerifyEdgeSet("DOC#hub"));
  EXPECT_TRUE(rep.ok());
}

TEST_P(GraphSeedTest, BatchGetsRetryUnprocessedKeys) {
  HookClient hook(client_.get());
  Graph g(&hook, seeds::KoanSchema(Table("unprocessed")));
  G_OK(g.EnsureTable());
  G_OK(seeds::LoadKoan(g).status());

  // Node reads: three calls in a row leave all but one key unprocessed; the
  // fourth reads the rest. Order kept, a missing node reported as such.
  const std::vector<std::string> ids = {"USER-U3", "GOAL-G1", "TEAM-T2", "USER-U1", "GOAL-G3",
                                        "USER-U2", "TEAM-T1", "GOAL-G2", "USER-U9"};
  hook.defer_batch_gets = 3;
  hook.batch_get_consistent.clear();
  g.ResetStats();
  G_ASSIGN(auto nodes, g.GetNodes(ids));
  ASSERT_EQ(nodes.size(), ids.size());
  for (size_t i = 0; i + 1 < ids.size(); ++i) {
    ASSERT_TRUE(nodes[i].has_value()) << ids[i];
    EXPECT_EQ(nodes[i]->id, ids[i]);
  }
  EXPECT_FALSE(nodes.back().has_value());
  EXPECT_EQ(g.stats().requests, 4);
  EXPECT_EQ(hook.defer_batch_gets, 0);
  EXPECT_EQ(hook.batch_get_consistent, std::vector<bool>(4, false));

  // Rank reads before removing ranked edges: consistent, retried the same way.
  hook.defer_batch_gets = 1;
  hook.batch_get_consistent.clear();
  G_ASSIGN(WriteReport w, g.RemoveEdges({{"GOAL-G1", "GOALMEMBERSHIP", "USER-U1", {}},
                                         {"GOAL-G1", "GOALMEMBERSHIP", "USER-U2", {}}}));
  EXPECT_EQ(w.edges_committed, 2);
  EXPECT_EQ(hook.defer_batch_gets, 0);
  EXPECT_EQ(hook.batch_get_consistent, (std::vector<bool>{true, true}));
  G_ASSIGN(std::optional<Node> g1, g.GetNode("GOAL-G1", true));
  ASSERT_EQ(g1->edge_set.size(), 1u);
  EXPECT_EQ(g1->edge_set[0].target, "TEAM-T1");
  G_ASSIGN(EdgeSetReport rep, g.VerifyEdgeSet("GOAL-G1"));
  EXPECT_TRUE(rep.ok());
}

TEST_P(GraphSeedTest, RemoveEdgeOfARankedTypeSurvivesAConcurrentRankChange) {
  HookClient hook(client_.get());
  Schema s = seeds::KoanSchema(Table("rankrace"));
  Graph g(&hook, s);
  G_OK(g.EnsureTable());
  G_OK(seeds::LoadKoan(g).status());
  // Between RemoveEdge's read of the rank and its transaction, another writer
  // promotes U2 from CONTRIBUTOR to LEAD (a new edge-set entry).
  Graph other(client_.get(), s);
  bool injected = false;
  hook.before_transact = [&](const TransactWriteItemsRequest& r) {
    if (injected) return;
    for (const TransactWriteItem& t : r.transact_items) {
      if (t.kind == TransactWriteItem::Kind::kDelete) {
        injected = true;
        Status st = other.AddEdge({"GOAL-G1", "GOALMEMBERSHIP", "USER-U2",
                                   {{"memberRole", S("LEAD")}}});
        EXPECT_TRUE(st.ok()) << st.ToString();
        return;
      }
    }
  };
  G_OK(g.RemoveEdge("GOAL-G1", "GOALMEMBERSHIP", "USER-U2"));
  EXPECT_TRUE(injected);
  G_ASSIGN(std::optional<Edge> e, g.GetEdge("GOAL-G1", "GOALMEMBERSHIP", "USER-U2", true));
  EXPECT_FALSE(e.has_value());
  G_ASSIGN(EdgeSetReport rep, g.VerifyEdgeSet("GOAL-G1"));
  EXPECT_TRUE(rep.ok()) << "stale entries: " << rep.stale.size();
}

TEST_P(GraphSeedTest, LimitWithASparseFilterReadsFullPagesAndPagesExactly) {
  Schema s;
  s.table_name = Table("sparse");
  s.type_attribute = "Type";
  s.type_index = "TypeIndex";
  s.Reverse("TAG", "TAGGED_BY");  // 200 incoming edges on HUB#h too
  auto g = MakeGraph(s);
  G_OK(g->PutNode("HUB#h"));
  std::vector<EdgeSpec> edges;
  std::vector<std::string> all, want;
  for (int i = 1000; i < 1200; ++i) {
    const bool match = i % 40 == 0;  // 1000, 1040, 1080, 1120, 1160
    std::string id = "ITEM#" + std::to_string(i);
    G_OK(g->PutNode(id, {{"m", S(match ? "yes" : "no")}}));
    edges.push_back({"HUB#h", "TAG", id, {{"m", S(match ? "yes" : "no")}}});
    all.push_back(id);
    if (match) want.push_back(id);
  }
  G_ASSIGN(WriteReport w, g->AddEdges(edges));
  ASSERT_EQ(w.edges_committed, 200);

  // Pages of OutEdges (table), InEdges (inverted index) and NodesByType (type
  // index), each with and without a filter matching 1 item in 40.
  Filter yes{"#m = :m", {{"#m", "m"}}, {{":m", S("yes")}}};
  for (bool filtered : {true, false}) {
    for (int which = 0; which < 3; ++which) {
      EdgeQuery q;
      if (filtered) q.filter = yes;
      q.limit = filtered ? 2 : 7;
      std::vector<std::string> got;
      std::vector<size_t> sizes;
      int pages = 0;
      do {
        g->ResetStats();
        std::vector<std::string> ids;
        std::string next;
        if (which == 0) {
          G_ASSIGN(EdgePage p, g->OutEdges("HUB#h", "TAG", q));
          ids = Targets(p.edges);
          next = p.next_page_token;
        } else if (which == 1) {
          G_ASSIGN(EdgePage p, g->InEdges("HUB#h", "TAGGED_BY", q));
          ids = Sources(p.edges);
          next = p.next_page_token;
        } else {
          G_ASSIGN(NodePage p, g->NodesByType("ITEM", q));
          for (const Node& n : p.nodes) ids.push_back(n.id);
          next = p.next_page_token;
        }
        EXPECT_LE(g->stats().requests, 2) << "page " << pages << " of query " << which;
        sizes.push_back(ids.size());
        got.insert(got.end(), ids.begin(), ids.end());
        q.page_token = next;
        if (!filtered && pages == 2) break;  // three pages of 7 are enough
        ASSERT_LT(++pages, 10);
      } while (!q.page_token.empty());
      if (filtered) {
        EXPECT_EQ(got, want) << "query " << which;
        for (size_t i = 0; i + 1 < sizes.size(); ++i) {
          EXPECT_EQ(sizes[i], 2u) << "query " << which;
        }
      } else {
        EXPECT_EQ(got, std::vector<std::string>(all.begin(), all.begin() + 21))
            << "query " << which;
      }
    }
  }
}

TEST_P(GraphSeedTest, CurrentEdgesLeaveOutFutureDatedEdges) {
  Schema s;
  s.table_name = Table("future");
  auto g = MakeGraph(s);
  const int64_t now = static_cast<int64_t>(std::time(nullptr));
  for (const char* n : {"Person#bob", "Address#old", "Address#now", "Address#next"}) {
    G_OK(g->PutNode(n));
  }
  G_OK(g->AddEdge({"Person#bob", "LIVES", "Address#old",
                   {{"validFrom", N(now - 1000000)}, {"validTo", N(now - 1000)}}}));
  G_OK(g->AddEdge({"Person#bob", "LIVES", "Address#now", {{"validFrom", N(now - 999)}}}));
  G_OK(g->AddEdge({"Person#bob", "LIVES", "Address#next", {{"validFrom", N(now + 86400 * 365)}}}));
  G_ASSIGN(std::vector<Edge> current, g->CurrentEdges("Person#bob", "LIVES"));
  EXPECT_EQ(Targets(current), (std::vector<std::string>{"Address#now"}));
}

TEST_P(GraphSeedTest, NumericRanksSortAsNumbers) {
  Schema s;
  s.table_name = Table("numrank");
  s.RankByAttribute("SCORED", "points");
  auto g = MakeGraph(s);
  G_OK(g->PutNode("GAME#g"));
  const std::vector<std::pair<std::string, std::string>> scores = {
      {"USER#a", "999"}, {"USER#b", "1000"}, {"USER#c", "5"},   {"USER#d", "-3"},
      {"USER#e", "-20"}, {"USER#f", "0.5"},  {"USER#g", "0"},   {"USER#h", "999.5"},
      {"USER#i", "-0.25"}, {"USER#j", "12345678901234567890"}};
  for (const auto& [user, points] : scores) {
    G_OK(g->PutNode(user));
    G_OK(g->AddEdge({user, "SCORED", "GAME#g", {{"points", AttributeValue::N(points)}}}));
  }
  G_ASSIGN(std::vector<Edge> in, g->AllInEdges("GAME#g", "SCORED"));
  // -20 < -3 < -0.25 < 0 < 0.5 < 5 < 999 < 999.5 < 1000 < 1.2e19
  EXPECT_EQ(Sources(in), (std::vector<std::string>{"USER#e", "USER#d", "USER#i", "USER#g", "USER#f",
                                                   "USER#c", "USER#a", "USER#h", "USER#b",
                                                   "USER#j"}));
  // The edge set of a ranked type carries the same rank, and edges keep their N property.
  G_ASSIGN(std::optional<Edge> e, g->GetEdge("USER#b", "SCORED", "GAME#g"));
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(Str(e->properties, "points"), "1000");
  G_ASSIGN(EdgeSetReport rep, g->VerifyEdgeSet("USER#b"));
  EXPECT_TRUE(rep.ok());
}

TEST_P(GraphSeedTest, UpdateNodeRefusesLayerManagedAttributes) {
  Schema s;
  s.table_name = Table("managed");
  s.type_attribute = "Type";
  auto g = MakeGraph(s);
  G_OK(g->PutNode("USER#a"));
  G_OK(g->PutNode("USER#b"));
  G_OK(g->AddEdge({"USER#a", "KNOWS", "USER#b", {}}));
  const NodeUpdate bad[] = {
      {"SET #e = :x", std::nullopt, {{"#e", "edges"}},
       {{":x", AttributeValue::SS({"KNOWS#USER#z"})}}},
      {"REMOVE edges", std::nullopt, {}, {}},
      {"SET Type = :t", std::nullopt, {}, {{":t", S("PLACE")}}},
      {"SET #a = :a, #r = :r", std::nullopt, {{"#a", "age"}, {"#r", "rank"}},
       {{":a", N(1)}, {":r", S("x")}}},
      {"ADD edges :x", std::nullopt, {}, {{":x", AttributeValue::SS({"KNOWS#USER#z"})}}},
  };
  for (const NodeUpdate& u : bad) {
    Status st = g->UpdateNode("USER#a", u);
    EXPECT_EQ(st.type(), ErrorType::kValidation) << u.update_expression << ": " << st.ToString();
  }
  // Nested paths and conditions on managed attributes are fine.
  G_OK(g->UpdateNode("USER#a",
                     {"SET info = :i", std::nullopt, {}, {{":i", AttributeValue::M({})}}}));
  G_OK(g->UpdateNode("USER#a", {"SET info.edges = :x", std::string("#t = :t"), {{"#t", "Type"}},
                                {{":x", N(2)}, {":t", S("USER")}}}));
  G_ASSIGN(std::optional<Node> a, g->GetNode("USER#a", true));
  ASSERT_EQ(a->edge_set.size(), 1u);
  EXPECT_EQ(a->edge_set[0].target, "USER#b");
}

INSTANTIATE_TEST_SUITE_P(Graph, GraphSeedTest,
                         ::testing::Values(Backend::kEmbedded, Backend::kHttp),
                         [](const ::testing::TestParamInfo<Backend>& info) {
                           return info.param == Backend::kEmbedded ? "Embedded" : "Http";
                         });

}  // namespace
}  // namespace dynarock::graph
