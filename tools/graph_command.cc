// File: tools/graph_command.cc
//
// `dynarock graph demo [--endpoint URL | --data DIR]`: loads the seed articles'
// examples (../shared/seeds/) through the graph layer and prints each example's
// question and answer. Embedded in memory by default; --data keeps the tables in a
// database directory; --endpoint runs the very same code over HTTP against any
// DynamoDB-compatible endpoint (credentials from AWS_ACCESS_KEY_ID /
// AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN, or placeholders).

#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "dynarock/db.h"
#include "graph/embedded_client.h"
#include "graph/graph.h"
#include "graph/http_client.h"
#include "tools/command.h"

namespace dynarock::tools {
namespace {

using graph::Edge;
using graph::EdgeQuery;
using graph::EdgeSpec;
using graph::Filter;
using graph::Graph;
using graph::KeyCondition;
using graph::Schema;

constexpr char kGraphHelp[] =
    "Usage: dynarock graph demo [flags]\n"
    "\n"
    "Loads the seed articles' graph examples (Frodo's friends, Koan's goals with\n"
    "edge sets, mutual friends, the Contact table with validity intervals) through\n"
    "the graph layer and prints each question with its answer.\n"
    "\n"
    "Flags:\n"
    "  --endpoint URL   Use a DynamoDB-compatible endpoint over HTTP or HTTPS (dynarock\n"
    "                   serve, DynamoDB Local, Alternator, https://dynamodb.REGION.amazonaws.com)\n"
    "  --region R       SigV4 region for --endpoint (default: the endpoint's AWS region,\n"
    "                   else $AWS_REGION, else $AWS_DEFAULT_REGION, else us-east-1)\n"
    "  --ca-file FILE   Also trust the CA certificates in FILE (PEM) for https endpoints\n"
    "  --data DIR       Use an embedded database in DIR (default: in memory)\n"
    "  --prefix P       Table name prefix (default demo_)\n"
    "  -h, --help       Show this help\n";

AttributeValue S(std::string s) { return AttributeValue::S(std::move(s)); }
AttributeValue N(int64_t n) { return AttributeValue::N(std::to_string(n)); }

std::string Str(const Item& item, const std::string& name) {
  auto it = item.find(name);
  return it == item.end() ? "" : it->second.scalar();
}

std::string Join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out.empty() ? "(none)" : out;
}

int64_t Epoch(int y, int m, int d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return (era * 146097 + doe - 719468) * 86400;
}

void Ask(const std::string& q, const std::string& a) {
  std::printf("  Q: %s\n  A: %s\n\n", q.c_str(), a.c_str());
}

#define DEMO_CHECK(expr)                                                     \
  do {                                                                       \
    ::dynarock::Status demo_s_ = (expr);                                     \
    if (!demo_s_.ok()) {                                                     \
      std::fprintf(stderr, "dynarock graph: %s\n", demo_s_.ToString().c_str()); \
      return false;                                                          \
    }                                                                        \
  } while (0)
#define DEMO_ASSIGN(lhs, expr)                                               \
  auto DR_CONCAT_(demo_r_, __LINE__) = (expr);                               \
  DEMO_CHECK(DR_CONCAT_(demo_r_, __LINE__).status());                        \
  lhs = std::move(DR_CONCAT_(demo_r_, __LINE__)).value()

std::vector<std::string> Sources(const std::vector<Edge>& edges) {
  std::vector<std::string> v;
  for (const auto& e : edges) v.push_back(e.source);
  return v;
}
std::vector<std::string> Targets(const std::vector<Edge>& edges) {
  std::vector<std::string> v;
  for (const auto& e : edges) v.push_back(e.target);
  return v;
}

bool Seed000(graph::Client* client, const std::string& prefix) {
  std::printf("== Seed 000: Modeling a graph database on DynamoDB (Frodo, Samwise, Gandalf)\n\n");
  Schema s;
  s.table_name = prefix + "middle_earth";
  s.RankByAttribute("FRIEND", "createdDate");
  Graph g(client, s);
  DEMO_CHECK(g.EnsureTable());
  DEMO_CHECK(g.PutNode("USER#Frodo", {{"username", S("ringBearer")}, {"firstName", S("Frodo")},
                                      {"lastName", S("Baggins")}}));
  DEMO_CHECK(g.PutNode("USER#Samwise", {{"username", S("theBrave")}, {"firstName", S("Samwise")},
                                        {"lastName", S("Gamgee")}}));
  DEMO_CHECK(g.PutNode("USER#Gandalf", {{"username", S("theWhite")}, {"firstName", S("Gandalf")}}));
  DEMO_CHECK(g.PutNode("PLACE#TheShire"));
  DEMO_CHECK(g.PutNode("PLACE#Gondor"));
  std::vector<EdgeSpec> edges = {
      {"USER#Frodo", "FRIEND", "USER#Gandalf", {{"createdDate", S("3004")}}},
      {"USER#Frodo", "FRIEND", "USER#Samwise", {{"createdDate", S("UNKNOWN")}}},
      {"USER#Samwise", "FRIEND", "USER#Gandalf", {{"createdDate", S("UNKNOWN")}}}};
  for (const char* u : {"USER#Frodo", "USER#Samwise", "USER#Gandalf"}) {
    edges.push_back({u, "VISITED", "PLACE#Gondor", {}});
    edges.push_back({u, "VISITED", "PLACE#TheShire", {}});
  }
  DEMO_CHECK(g.AddEdges(edges).status());

  DEMO_ASSIGN(auto frodo, g.GetNode("USER#Frodo"));
  Ask("What are Frodo's attributes?  (GetItem PK = SK = USER#Frodo)",
      frodo ? "username=" + Str(frodo->attributes, "username") + ", firstName=" +
                  Str(frodo->attributes, "firstName") + ", lastName=" +
                  Str(frodo->attributes, "lastName")
            : "(missing)");
  DEMO_ASSIGN(auto friends, g.AllOutEdges("USER#Frodo", "FRIEND"));
  std::vector<std::string> fr;
  for (const auto& e : friends) fr.push_back(e.target + " (createdDate " + e.rank + ")");
  Ask("Who are Frodo's friends?  (Query PK = USER#Frodo, begins_with(SK, FRIEND#))", Join(fr));
  DEMO_ASSIGN(auto fans, g.AllInEdges("USER#Gandalf", "FRIEND"));
  Ask("Who considers Gandalf a friend, ordered by createdDate?  (inverted index)",
      Join(Sources(fans)));
  DEMO_ASSIGN(auto visitors, g.AllInEdges("PLACE#Gondor", "VISITED"));
  Ask("Who visited Gondor?", Join(Sources(visitors)));
  return true;
}

bool Seed001(graph::Client* client, const std::string& prefix) {
  std::printf("== Seed 001: Koan's records table (goals, leads, teams, edge sets)\n\n");
  Schema s;
  s.table_name = prefix + "records";
  s.pk_attribute = "source";
  s.sk_attribute = "target";
  s.separator = "-";
  s.inverted_index = "gsi0-index";
  s.rank_attribute = "gsi0";
  s.edge_set_attribute = "edgeSet";
  s.RankByProperty("GOALMEMBERSHIP", "memberRole",
                   {{"LEAD", "500-LEAD"}, {"CONTRIBUTOR", "400-CONTRIBUTOR"}, {"TEAM", "300-TEAM"}});
  s.OptOutOfEdgeSet("GOALSUBSCRIBER");
  Graph g(client, s);
  DEMO_CHECK(g.EnsureTable());
  const std::pair<const char*, const char*> nodes[] = {
      {"GOAL-G1", "Release Next-Generation Augmented Reality Platform"},
      {"GOAL-G2", "10 nationwide press events"},
      {"GOAL-G3", "Hire a head of sales"},
      {"USER-U1", "Dora Campos"},
      {"USER-U2", "Ravi Shah"},
      {"USER-U3", "Mia Chen"},
      {"TEAM-T1", "Marketing"},
      {"TEAM-T2", "Sales"}};
  for (const auto& [id, name] : nodes) {
    DEMO_CHECK(g.PutNode(id, {{id[0] == 'G' ? "title" : "name", S(name)}}));
  }
  auto m = [](const char* goal, const char* who, const char* role) {
    return EdgeSpec{goal, "GOALMEMBERSHIP", who, {{"memberRole", S(role)}, {"date", S("2020-07-01")}}};
  };
  DEMO_CHECK(g.AddEdges({m("GOAL-G1", "USER-U1", "LEAD"), m("GOAL-G1", "USER-U2", "CONTRIBUTOR"),
                         m("GOAL-G1", "TEAM-T1", "TEAM"), m("GOAL-G2", "USER-U1", "LEAD"),
                         m("GOAL-G2", "TEAM-T1", "TEAM"), m("GOAL-G3", "USER-U3", "LEAD"),
                         m("GOAL-G3", "USER-U1", "CONTRIBUTOR"), m("GOAL-G3", "TEAM-T2", "TEAM"),
                         {"GOAL-G1", "GOALSUBSCRIBER", "USER-U3", {}}})
                 .status());

  g.ResetStats();
  graph::ExpandRequest x;
  x.node = "TEAM-T1";
  x.edge_type = "GOALMEMBERSHIP";
  x.expand_types = {"GOALMEMBERSHIP"};
  x.expand_filter = [](const graph::EdgeRef& r) {
    return r.rank == "500-LEAD" || r.rank == "300-TEAM";
  };
  DEMO_ASSIGN(graph::Expansion ex, g.Expand(x));
  std::string answer;
  for (const auto& goal : ex.roots) {
    std::vector<std::string> leads, teams;
    for (const auto& ref : ex.refs[goal.id]) {
      auto n = ex.neighbours.find(ref.target);
      std::string name = n == ex.neighbours.end() ? ref.target : Str(n->second.attributes, "name");
      (ref.rank == "500-LEAD" ? leads : teams).push_back(name);
    }
    answer += "\n     " + goal.id + " \"" + Str(goal.attributes, "title") + "\" lead: " +
              Join(leads) + "; teams: " + Join(teams);
  }
  answer += "\n     (" + std::to_string(g.stats().requests) +
            " requests: GSI query, batch get of the goals, batch get from their edge sets)";
  Ask("Team Marketing's goals with their leads and teams?", answer);

  EdgeQuery leads;
  leads.key = KeyCondition::Eq("500-LEAD");
  DEMO_ASSIGN(auto led, g.AllInEdges("USER-U1", "GOALMEMBERSHIP", leads));
  Ask("Which goals does Dora Campos lead?  (gsi0 = 500-LEAD)", Join(Sources(led)));
  EdgeQuery atleast;
  atleast.key = KeyCondition::Ge("400-CONTRIBUTOR");
  DEMO_ASSIGN(auto inv, g.AllInEdges("USER-U1", "GOALMEMBERSHIP", atleast));
  Ask("Which goals does she lead or contribute to?  (gsi0 >= 400-CONTRIBUTOR)",
      Join(Sources(inv)));
  DEMO_ASSIGN(auto g1, g.GetNode("GOAL-G1"));
  std::vector<std::string> contributors;
  if (g1) {
    for (const auto& ref : g1->edge_set) {
      if (ref.rank == "400-CONTRIBUTOR") contributors.push_back(ref.target);
    }
  }
  Ask("Who contributes to goal G1?  (its edge set alone)", Join(contributors));
  return true;
}

bool Seed003(graph::Client* client, const std::string& prefix) {
  std::printf("== Seed 003: adjacency lists (Alice, Bob, Charlie, David)\n\n");
  Schema s;
  s.table_name = prefix + "users";
  s.RankByAttribute("FRIEND", "friendship_since");
  Graph g(client, s);
  DEMO_CHECK(g.EnsureTable());
  for (const char* u : {"Alice", "Bob", "Charlie", "David"}) {
    DEMO_CHECK(g.PutNode(std::string("USER#") + u, {{"name", S(u)}}));
  }
  auto f = [](const char* a, const char* b, const char* since) {
    return EdgeSpec{std::string("USER#") + a, "FRIEND", std::string("USER#") + b,
                    {{"friendship_since", S(since)}}};
  };
  DEMO_CHECK(g.AddEdges({f("Alice", "Bob", "2023-01-15"), f("Alice", "Charlie", "2023-02-20"),
                         f("Bob", "Alice", "2023-01-15"), f("Bob", "David", "2023-03-10"),
                         f("Charlie", "Alice", "2023-02-20")})
                 .status());
  DEMO_ASSIGN(auto af, g.AllOutEdges("USER#Alice", "FRIEND"));
  Ask("Who are Alice's friends?", Join(Targets(af)));
  DEMO_ASSIGN(auto ab, g.GetEdge("USER#Alice", "FRIEND", "USER#Bob"));
  Ask("Is Alice friends with Bob?", ab ? "yes, since " + Str(ab->properties, "friendship_since")
                                       : "no");
  DEMO_ASSIGN(auto m1, g.MutualNeighbours("USER#Bob", "USER#Charlie", "FRIEND"));
  Ask("Mutual friends of Bob and Charlie?", Join(m1));
  DEMO_ASSIGN(auto m2, g.MutualNeighbours("USER#Alice", "USER#Bob", "FRIEND"));
  Ask("Mutual friends of Alice and Bob?", Join(m2));
  graph::TraversalRequest t;
  t.start = {"USER#Alice"};
  graph::Hop h;
  h.edge_types = {"FRIEND"};
  t.hops = {h, h};
  DEMO_ASSIGN(auto tr, g.Traverse(t));
  Ask("Friends of Alice's friends she does not know yet? (2 hops)",
      tr.levels.size() > 2 ? Join(tr.levels[2]) : "(none)");
  return true;
}

bool Seed004(graph::Client* client, const std::string& prefix) {
  std::printf("== Seed 004: the Contact table (Person, Address, PersonAddress, type index)\n\n");
  Schema s;
  s.table_name = prefix + "Contact";
  s.type_attribute = "Type";
  s.type_index = "ContactTypeIndex";
  s.valid_from_attribute = "StartTimestampUTC";
  s.valid_to_attribute = "EndTimestampUTC";
  Graph g(client, s);
  DEMO_CHECK(g.EnsureTable());
  struct Row {
    const char *person, *first, *last, *street, *rel;
    int64_t start, end;
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
      {"joe", "Joe", "Penton", "5000 Blake Street", "Residential", Epoch(2009, 1, 1), 0}};
  std::vector<EdgeSpec> edges;
  for (const Row& r : rows) {
    std::string addr = std::string("Address#") + r.street;
    for (char& c : addr) c = c == ' ' ? '-' : c;
    DEMO_CHECK(g.PutNode(std::string("Person#") + r.person,
                         {{"FirstName", S(r.first)}, {"LastName", S(r.last)}}));
    DEMO_CHECK(g.PutNode(addr, {{"StreetAddress", S(r.street)}, {"City", S("Denver")},
                                {"State", S("CO")}, {"ZipCode", S("80202")}}));
    Item p{{"Relationship", S(r.rel)}, {"StartTimestampUTC", N(r.start)}};
    if (r.end) p["EndTimestampUTC"] = N(r.end);
    edges.push_back({std::string("Person#") + r.person, "PersonAddress", addr, p});
  }
  DEMO_CHECK(g.AddEdges(edges).status());
  DEMO_ASSIGN(auto persons, g.NodesByType("Person"));
  std::vector<std::string> names;
  for (const auto& n : persons.nodes) {
    names.push_back(Str(n.attributes, "FirstName") + " " + Str(n.attributes, "LastName"));
  }
  Ask("Who are all the persons?  (type index, Type = Person)", Join(names));
  EdgeQuery smith;
  smith.filter = Filter{"LastName = :l", {}, {{":l", S("Smith")}}};
  DEMO_ASSIGN(auto smiths, g.NodesByType("Person", smith));
  names.clear();
  for (const auto& n : smiths.nodes) names.push_back(n.id);
  Ask("Which persons are named Smith?", Join(names));
  auto street_of = [&](const std::vector<Edge>& es) -> std::string {
    std::vector<std::string> ids = Targets(es);
    auto nodes = g.GetNodes(ids);
    if (!nodes.ok()) return nodes.status().ToString();
    std::vector<std::string> out;
    for (const auto& n : *nodes) {
      if (n) out.push_back(Str(n->attributes, "StreetAddress"));
    }
    return Join(out);
  };
  Filter business{"Relationship = :r", {}, {{":r", S("Business")}}};
  DEMO_ASSIGN(auto work, g.EdgesValidAt("Person#bob", "PersonAddress", Epoch(2005, 1, 1), business));
  Ask("Where was Bob working on 1/1/2005?", street_of(work));
  Filter home{"Relationship = :r", {}, {{":r", S("Residential")}}};
  DEMO_ASSIGN(auto lives, g.CurrentEdges("Person#bob", "PersonAddress", home));
  Ask("Where is Bob living now?", street_of(lives));
  EdgeQuery at;
  at.filter = Filter{"StartTimestampUTC <= :t AND (attribute_not_exists(EndTimestampUTC) OR "
                     "EndTimestampUTC >= :t)",
                     {},
                     {{":t", N(Epoch(2009, 6, 1))}}};
  DEMO_ASSIGN(auto there, g.AllInEdges("Address#1850-Wazee-Street", "PersonAddress", at));
  Ask("Who worked at 1850 Wazee Street on 6/1/2009?  (incoming edges)", Join(Sources(there)));
  return true;
}

}  // namespace

int RunGraph(const Args& args) {
  std::string endpoint, data, region, ca_file, prefix = "demo_";
  bool demo = false;
  ArgReader r(args);
  std::string v;
  while (r.Next()) {
    const std::string_view flag = r.flag();
    if (flag == "--help" || flag == "-h") {
      std::fputs(kGraphHelp, stdout);
      return kExitOk;
    } else if (flag == "demo" && !demo) {
      demo = true;
    } else if (flag == "--endpoint") {
      if (!r.Value(&endpoint) || endpoint.empty()) return UsageError("graph", "--endpoint needs a URL");
    } else if (flag == "--data") {
      if (!r.Value(&data) || data.empty()) return UsageError("graph", "--data needs a directory");
    } else if (flag == "--region") {
      if (!r.Value(&region) || region.empty()) return UsageError("graph", "--region needs a name");
    } else if (flag == "--ca-file") {
      if (!r.Value(&ca_file) || ca_file.empty()) {
        return UsageError("graph", "--ca-file needs a file");
      }
    } else if (flag == "--prefix") {
      if (!r.Value(&prefix)) return UsageError("graph", "--prefix needs a value");
    } else {
      return UsageError("graph", "unknown argument '" + std::string(flag) + "'");
    }
  }
  if (!demo) return UsageError("graph", "expected a subcommand: demo");
  if (!endpoint.empty() && !data.empty()) {
    return UsageError("graph", "--endpoint and --data are exclusive");
  }

  std::unique_ptr<DB> db;
  std::unique_ptr<graph::Client> client;
  if (!endpoint.empty()) {
    graph::HttpClientOptions o;
    o.endpoint = endpoint;
    o.region = region;  // empty: derived
    o.ca_file = ca_file;
    auto c = graph::HttpClient::Create(o);
    if (!c.ok()) {
      std::fprintf(stderr, "dynarock graph: %s\n", c.status().ToString().c_str());
      return kExitFailure;
    }
    client = std::move(*c);
  } else {
    Options o;
    o.in_memory = data.empty();
    auto opened = DB::Open(o, data);
    if (!opened.ok()) {
      std::fprintf(stderr, "dynarock graph: %s\n", opened.status().ToString().c_str());
      return kExitFailure;
    }
    db = std::move(*opened);
    client = std::make_unique<graph::EmbeddedClient>(db.get());
  }
  std::printf("Graph demo on %s (tables prefixed '%s')\n\n",
              endpoint.empty() ? (data.empty() ? "an in-memory database" : data.c_str())
                               : endpoint.c_str(),
              prefix.c_str());
  bool ok = Seed000(client.get(), prefix) && Seed001(client.get(), prefix) &&
            Seed003(client.get(), prefix) && Seed004(client.get(), prefix);
  return ok ? kExitOk : kExitFailure;
}

}  // namespace dynarock::tools
