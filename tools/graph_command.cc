// File: tools/graph_command.cc
//
// `dynarock graph demo [--endpoint URL | --data DIR]`: loads the seed articles'
// examples (../shared/seeds/) through the graph layer and prints each example's
// question and answer. Embedded in memory by default; --data keeps the tables in a
// database directory; --endpoint runs the very same code over HTTP against any
// DynamoDB-compatible endpoint (credentials from AWS_ACCESS_KEY_ID /
// AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN, or placeholders).

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "client/embedded_client.h"
#include "client/http_client.h"
#include "dynarock/db.h"
#include "graph/graph.h"
#include "graph/seed_graphs.h"
#include "tools/command.h"
#include "tools/graph_client.h"

namespace dynarock::tools {
namespace {

using graph::Edge;
using graph::EdgeQuery;
using graph::Filter;
using graph::Graph;
using graph::KeyCondition;
namespace seeds = graph::seeds;

constexpr char kGraphHelp[] =
    "Usage: dynarock graph demo [flags]\n"
    "       dynarock graph export --table T [flags]   (dynarock graph export --help)\n"
    "       dynarock graph stats --table T [flags]    (dynarock graph stats --help)\n"
    "       dynarock graph query QUESTION ... --table T (dynarock graph query --help)\n"
    "       dynarock graph import FILE --table T      (dynarock graph import --help)\n"
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

void Ask(const std::string& q, const std::string& a) {
  std::printf("  Q: %s\n  A: %s\n\n", q.c_str(), a.c_str());
}

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

Status Seed000(client::Client* client, const std::string& prefix) {
  std::printf("== Seed 000: Modeling a graph database on DynamoDB (Frodo, Samwise, Gandalf)\n\n");
  Graph g(client, seeds::MiddleEarthSchema(prefix + "middle_earth"));
  DR_RETURN_IF_ERROR(g.EnsureTable());
  DR_RETURN_IF_ERROR(seeds::LoadMiddleEarth(g).status());

  DR_ASSIGN_OR_RETURN(auto frodo, g.GetNode("USER#Frodo"));
  Ask("What are Frodo's attributes?  (GetItem PK = SK = USER#Frodo)",
      frodo ? "username=" + Str(frodo->attributes, "username") + ", firstName=" +
                  Str(frodo->attributes, "firstName") + ", lastName=" +
                  Str(frodo->attributes, "lastName")
            : "(missing)");
  DR_ASSIGN_OR_RETURN(auto friends, g.AllOutEdges("USER#Frodo", "FRIEND"));
  std::vector<std::string> fr;
  for (const auto& e : friends) fr.push_back(e.target + " (createdDate " + e.rank + ")");
  Ask("Who are Frodo's friends?  (Query PK = USER#Frodo, begins_with(SK, FRIEND#))", Join(fr));
  DR_ASSIGN_OR_RETURN(auto fans, g.AllInEdges("USER#Gandalf", "FRIEND"));
  Ask("Who considers Gandalf a friend, ordered by createdDate?  (inverted index)",
      Join(Sources(fans)));
  DR_ASSIGN_OR_RETURN(auto visitors, g.AllInEdges("PLACE#Gondor", "VISITED"));
  Ask("Who visited Gondor?", Join(Sources(visitors)));
  return Status::Ok();
}

Status Seed001(client::Client* client, const std::string& prefix) {
  std::printf("== Seed 001: Koan's records table (goals, leads, teams, edge sets)\n\n");
  Graph g(client, seeds::KoanSchema(prefix + "records"));
  DR_RETURN_IF_ERROR(g.EnsureTable());
  DR_RETURN_IF_ERROR(seeds::LoadKoan(g).status());

  g.ResetStats();
  graph::ExpandRequest x;
  x.node = "TEAM-T1";
  x.edge_type = "GOALMEMBERSHIP";
  x.expand_types = {"GOALMEMBERSHIP"};
  x.expand_filter = [](const graph::EdgeRef& r) {
    return r.rank == "500-LEAD" || r.rank == "300-TEAM";
  };
  DR_ASSIGN_OR_RETURN(graph::Expansion ex, g.Expand(x));
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
  DR_ASSIGN_OR_RETURN(auto led, g.AllInEdges("USER-U1", "GOALMEMBERSHIP", leads));
  Ask("Which goals does Dora Campos lead?  (gsi0 = 500-LEAD)", Join(Sources(led)));
  EdgeQuery atleast;
  atleast.key = KeyCondition::Ge("400-CONTRIBUTOR");
  DR_ASSIGN_OR_RETURN(auto inv, g.AllInEdges("USER-U1", "GOALMEMBERSHIP", atleast));
  Ask("Which goals does she lead or contribute to?  (gsi0 >= 400-CONTRIBUTOR)",
      Join(Sources(inv)));
  DR_ASSIGN_OR_RETURN(auto g1, g.GetNode("GOAL-G1"));
  std::vector<std::string> contributors;
  if (g1) {
    for (const auto& ref : g1->edge_set) {
      if (ref.rank == "400-CONTRIBUTOR") contributors.push_back(ref.target);
    }
  }
  Ask("Who contributes to goal G1?  (its edge set alone)", Join(contributors));
  return Status::Ok();
}

Status Seed003(client::Client* client, const std::string& prefix) {
  std::printf("== Seed 003: adjacency lists (Alice, Bob, Charlie, David)\n\n");
  Graph g(client, seeds::FriendsSchema(prefix + "users"));
  DR_RETURN_IF_ERROR(g.EnsureTable());
  DR_RETURN_IF_ERROR(seeds::LoadFriends(g).status());
  DR_ASSIGN_OR_RETURN(auto af, g.AllOutEdges("USER#Alice", "FRIEND"));
  Ask("Who are Alice's friends?", Join(Targets(af)));
  DR_ASSIGN_OR_RETURN(auto ab, g.GetEdge("USER#Alice", "FRIEND", "USER#Bob"));
  Ask("Is Alice friends with Bob?", ab ? "yes, since " + Str(ab->properties, "friendship_since")
                                       : "no");
  DR_ASSIGN_OR_RETURN(auto m1, g.MutualNeighbours("USER#Bob", "USER#Charlie", "FRIEND"));
  Ask("Mutual friends of Bob and Charlie?", Join(m1));
  DR_ASSIGN_OR_RETURN(auto m2, g.MutualNeighbours("USER#Alice", "USER#Bob", "FRIEND"));
  Ask("Mutual friends of Alice and Bob?", Join(m2));
  graph::TraversalRequest t;
  t.start = {"USER#Alice"};
  graph::Hop h;
  h.edge_types = {"FRIEND"};
  t.hops = {h, h};
  DR_ASSIGN_OR_RETURN(auto tr, g.Traverse(t));
  Ask("Friends of Alice's friends she does not know yet? (2 hops)",
      tr.levels.size() > 2 ? Join(tr.levels[2]) : "(none)");
  return Status::Ok();
}

Status Seed004(client::Client* client, const std::string& prefix) {
  std::printf("== Seed 004: the Contact table (Person, Address, PersonAddress, type index)\n\n");
  Graph g(client, seeds::ContactSchema(prefix + "Contact"));
  DR_RETURN_IF_ERROR(g.EnsureTable());
  DR_RETURN_IF_ERROR(seeds::LoadContact(g).status());
  DR_ASSIGN_OR_RETURN(auto persons, g.NodesByType("Person"));
  std::vector<std::string> names;
  for (const auto& n : persons.nodes) {
    names.push_back(Str(n.attributes, "FirstName") + " " + Str(n.attributes, "LastName"));
  }
  Ask("Who are all the persons?  (type index, Type = Person)", Join(names));
  EdgeQuery smith;
  smith.filter = Filter{"LastName = :l", {}, {{":l", S("Smith")}}};
  DR_ASSIGN_OR_RETURN(auto smiths, g.NodesByType("Person", smith));
  names.clear();
  for (const auto& n : smiths.nodes) names.push_back(n.id);
  Ask("Which persons are named Smith?", Join(names));
  auto street_of = [&](const std::vector<Edge>& es) -> std::string {
    auto nodes = g.GetNodes(Targets(es));
    if (!nodes.ok()) return nodes.status().ToString();
    std::vector<std::string> out;
    for (const auto& n : *nodes) {
      if (n) out.push_back(Str(n->attributes, "StreetAddress"));
    }
    return Join(out);
  };
  Filter business{"Relationship = :r", {}, {{":r", S("Business")}}};
  DR_ASSIGN_OR_RETURN(auto work, g.EdgesValidAt("Person#bob", "PersonAddress",
                                                seeds::UtcMidnight(2005, 1, 1), business));
  Ask("Where was Bob working on 1/1/2005?", street_of(work));
  Filter home{"Relationship = :r", {}, {{":r", S("Residential")}}};
  DR_ASSIGN_OR_RETURN(auto lives, g.CurrentEdges("Person#bob", "PersonAddress", home));
  Ask("Where is Bob living now?", street_of(lives));
  EdgeQuery at;
  at.filter = Filter{"StartTimestampUTC <= :t AND (attribute_not_exists(EndTimestampUTC) OR "
                     "EndTimestampUTC >= :t)",
                     {},
                     {{":t", N(seeds::UtcMidnight(2009, 6, 1))}}};
  DR_ASSIGN_OR_RETURN(auto there, g.AllInEdges(seeds::AddressId("1850 Wazee Street"),
                                               "PersonAddress", at));
  Ask("Who worked at 1850 Wazee Street on 6/1/2009?  (incoming edges)", Join(Sources(there)));
  return Status::Ok();
}

}  // namespace

int OpenGraphClient(const std::string& endpoint, const std::string& data,
                    const std::string& region, const std::string& ca_file,
                    std::unique_ptr<DB>* db, std::unique_ptr<client::Client>* client) {
  if (!endpoint.empty()) {
    client::HttpClientOptions o;
    o.endpoint = endpoint;
    o.region = region;  // empty: derived
    o.ca_file = ca_file;
    auto c = client::HttpClient::Create(o);
    if (!c.ok() && c.status().type() == ErrorType::kValidation) {
      return UsageError("graph", c.status().message());  // a bad URL or CA file
    }
    if (!c.ok()) {
      std::fprintf(stderr, "dynarock graph: %s\n", c.status().ToString().c_str());
      return kExitFailure;
    }
    *client = std::move(*c);
    return kExitOk;
  }
  Options o;
  o.in_memory = data.empty();
  auto opened = DB::Open(o, data);
  if (!opened.ok()) {
    std::fprintf(stderr, "dynarock graph: %s\n", opened.status().ToString().c_str());
    return kExitFailure;
  }
  *db = std::move(*opened);
  *client = std::make_unique<client::EmbeddedClient>(db->get());
  return kExitOk;
}

bool GraphPlace::Take(ArgReader& r, std::string_view command, int* rc) {
  const std::string_view flag = r.flag();
  std::string* into = flag == "--endpoint" ? &endpoint
                      : flag == "--data"   ? &data
                      : flag == "--region" ? &region
                      : flag == "--ca-file" ? &ca_file
                                            : nullptr;
  if (into == nullptr) return false;
  *rc = kExitOk;
  if (!r.Value(into) || into->empty()) *rc = UsageError(command, std::string(flag) + " needs a value");
  return true;
}

int GraphPlace::Open(std::string_view command, std::unique_ptr<DB>* db,
                     std::unique_ptr<client::Client>* client) const {
  if (endpoint.empty() == data.empty()) {
    return UsageError(command, "give the graph's place: --endpoint URL or --data DIR");
  }
  if (endpoint.empty() && (!region.empty() || !ca_file.empty())) {
    return UsageError(command, "--region and --ca-file apply to --endpoint only");
  }
  return OpenGraphClient(endpoint, data, region, ca_file, db, client);
}

int CommandFailed(std::string_view command, const Status& status) {
  std::fprintf(stderr, "dynarock %.*s: %s\n", static_cast<int>(command.size()), command.data(),
               status.ToString().c_str());
  return kExitFailure;
}

int GraphPlace::OpenTable(std::string_view command, const std::string& table,
                          std::unique_ptr<DB>* db, std::unique_ptr<client::Client>* client,
                          graph::DetectedSchema* detected, bool allow_not_graph) const {
  if (int rc = Open(command, db, client); rc != kExitOk) return rc;
  auto d = graph::DetectSchema(client->get(), table);
  if (!d.ok()) return CommandFailed(command, d.status());
  if (!d->reason.empty() && !allow_not_graph) {
    return CommandFailed(command, Status(ErrorType::kValidation, d->reason));
  }
  *detected = std::move(d).value();
  return kExitOk;
}

int RunGraph(const Args& args) {
  if (!args.empty() && args[0] == "export") return RunGraphExport(Args(args.begin() + 1, args.end()));
  if (!args.empty() && args[0] == "stats") return RunGraphStats(Args(args.begin() + 1, args.end()));
  if (!args.empty() && args[0] == "query") return RunGraphQuery(Args(args.begin() + 1, args.end()));
  if (!args.empty() && args[0] == "import") return RunGraphImport(Args(args.begin() + 1, args.end()));
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
  if (endpoint.empty() && (!region.empty() || !ca_file.empty())) {
    return UsageError("graph", std::string(region.empty() ? "--ca-file" : "--region") +
                                   " applies to --endpoint only");
  }

  std::unique_ptr<DB> db;
  std::unique_ptr<client::Client> client;
  if (int rc = OpenGraphClient(endpoint, data, region, ca_file, &db, &client); rc != kExitOk) {
    return rc;
  }
  std::printf("Graph demo on %s (tables prefixed '%s')\n\n",
              endpoint.empty() ? (data.empty() ? "an in-memory database" : data.c_str())
                               : endpoint.c_str(),
              prefix.c_str());
  for (auto* seed : {Seed000, Seed001, Seed003, Seed004}) {
    Status s = seed(client.get(), prefix);
    if (!s.ok()) {
      std::fprintf(stderr, "dynarock graph: %s\n", s.ToString().c_str());
      return kExitFailure;
    }
  }
  return kExitOk;
}

}  // namespace dynarock::tools
