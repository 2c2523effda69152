// File: graph/seed_graphs.cc

#include "graph/seed_graphs.h"

#include <algorithm>
#include <chrono>
#include <utility>
#include <vector>

namespace dynarock::graph::seeds {
namespace {

AttributeValue S(std::string s) { return AttributeValue::S(std::move(s)); }
AttributeValue N(int64_t n) { return AttributeValue::N(std::to_string(n)); }

}  // namespace

int64_t UtcMidnight(int year, unsigned month, unsigned day) {
  const std::chrono::sys_days date{std::chrono::year{year} / std::chrono::month{month} /
                                   std::chrono::day{day}};
  return std::chrono::duration_cast<std::chrono::seconds>(date.time_since_epoch()).count();
}

Schema MiddleEarthSchema(std::string table) {
  Schema s;
  s.table_name = std::move(table);
  s.RankByAttribute("FRIEND", "createdDate");  // the inverted index orders by createdDate
  s.Edge("VISITED");
  return s;
}

StatusOr<WriteReport> LoadMiddleEarth(Graph& g) {
  const struct {
    const char *id, *username, *first, *last;
  } users[] = {{"USER#Frodo", "ringBearer", "Frodo", "Baggins"},
               {"USER#Samwise", "theBrave", "Samwise", "Gamgee"},
               {"USER#Gandalf", "theWhite", "Gandalf", nullptr}};
  std::vector<EdgeSpec> edges = {
      {"USER#Frodo", "FRIEND", "USER#Gandalf", {{"createdDate", S("3004")}}},
      {"USER#Frodo", "FRIEND", "USER#Samwise", {{"createdDate", S("UNKNOWN")}}},
      {"USER#Samwise", "FRIEND", "USER#Gandalf", {{"createdDate", S("UNKNOWN")}}}};
  for (const auto& u : users) {
    Item a{{"username", S(u.username)}, {"firstName", S(u.first)}};
    if (u.last) a["lastName"] = S(u.last);
    DR_RETURN_IF_ERROR(g.PutNode(u.id, a));
    edges.push_back({u.id, "VISITED", "PLACE#Gondor", {}});
    edges.push_back({u.id, "VISITED", "PLACE#TheShire", {}});
  }
  DR_RETURN_IF_ERROR(g.PutNode("PLACE#TheShire"));
  DR_RETURN_IF_ERROR(g.PutNode("PLACE#Gondor"));
  return g.AddEdges(edges);
}

Schema KoanSchema(std::string table) {
  Schema s;
  s.table_name = std::move(table);
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

StatusOr<WriteReport> LoadKoan(Graph& g) {
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
    DR_RETURN_IF_ERROR(g.PutNode(id, {{id[0] == 'G' ? "title" : "name", S(name)}}));
  }
  auto member = [](const char* goal, const char* who, const char* role) {
    return EdgeSpec{goal, "GOALMEMBERSHIP", who, {{"memberRole", S(role)}, {"date", S("2020-07-01")}}};
  };
  return g.AddEdges({member("GOAL-G1", "USER-U1", "LEAD"), member("GOAL-G1", "USER-U2", "CONTRIBUTOR"),
                     member("GOAL-G1", "TEAM-T1", "TEAM"), member("GOAL-G2", "USER-U1", "LEAD"),
                     member("GOAL-G2", "TEAM-T1", "TEAM"), member("GOAL-G3", "USER-U3", "LEAD"),
                     member("GOAL-G3", "USER-U1", "CONTRIBUTOR"), member("GOAL-G3", "TEAM-T2", "TEAM"),
                     {"GOAL-G1", "GOALSUBSCRIBER", "USER-U3", {}}});
}

Schema FriendsSchema(std::string table) {
  Schema s;
  s.table_name = std::move(table);
  s.RankByAttribute("FRIEND", "friendship_since");
  return s;
}

StatusOr<WriteReport> LoadFriends(Graph& g) {
  for (const char* u : {"Alice", "Bob", "Charlie", "David"}) {
    DR_RETURN_IF_ERROR(g.PutNode(std::string("USER#") + u, {{"name", S(u)}}));
  }
  auto friends = [](const char* a, const char* b, const char* since) {
    return EdgeSpec{std::string("USER#") + a, "FRIEND", std::string("USER#") + b,
                    {{"friendship_since", S(since)}}};
  };
  return g.AddEdges({friends("Alice", "Bob", "2023-01-15"), friends("Alice", "Charlie", "2023-02-20"),
                     friends("Bob", "Alice", "2023-01-15"), friends("Bob", "David", "2023-03-10"),
                     friends("Charlie", "Alice", "2023-02-20")});
}

Schema ContactSchema(std::string table) {
  Schema s;
  s.table_name = std::move(table);
  s.type_attribute = "Type";
  s.type_index = "ContactTypeIndex";
  s.valid_from_attribute = "StartTimestampUTC";
  s.valid_to_attribute = "EndTimestampUTC";
  return s;
}

std::string AddressId(std::string_view street) {
  std::string id = "Address#" + std::string(street);
  std::replace(id.begin(), id.end(), ' ', '-');
  return id;
}

StatusOr<WriteReport> LoadContact(Graph& g) {
  struct Row {
    const char *person, *first, *last, *street, *relationship;
    int64_t start, end;  // end 0: current
  };
  const Row rows[] = {
      {"bob", "Bob", "Smith", "1850 Wazee Street", "Business", UtcMidnight(2000, 1, 1),
       UtcMidnight(2010, 12, 31)},
      {"bob", "Bob", "Smith", "1420 Stout Street", "Business", UtcMidnight(2011, 1, 1), 0},
      {"bob", "Bob", "Smith", "1600 15th Street", "Residential", UtcMidnight(2000, 1, 1), 0},
      {"sally", "Sally", "Wilson", "1850 Wazee Street", "Business", UtcMidnight(2005, 1, 1),
       UtcMidnight(2015, 12, 31)},
      {"sally", "Sally", "Wilson", "4000 Larimer Street", "Business", UtcMidnight(2016, 1, 1), 0},
      {"sally", "Sally", "Wilson", "2000 21st Street", "Residential", UtcMidnight(2005, 1, 1), 0},
      {"joe", "Joe", "Penton", "1850 Wazee Street", "Business", UtcMidnight(2009, 1, 1),
       UtcMidnight(2009, 12, 31)},
      {"joe", "Joe", "Penton", "4050 Logan Street", "Business", UtcMidnight(2010, 1, 1), 0},
      {"joe", "Joe", "Penton", "5000 Blake Street", "Residential", UtcMidnight(2009, 1, 1), 0}};
  std::vector<EdgeSpec> edges;
  for (const Row& r : rows) {
    const std::string person = std::string("Person#") + r.person;
    DR_RETURN_IF_ERROR(g.PutNode(person, {{"FirstName", S(r.first)}, {"LastName", S(r.last)}}));
    DR_RETURN_IF_ERROR(g.PutNode(AddressId(r.street), {{"StreetAddress", S(r.street)},
                                                       {"City", S("Denver")},
                                                       {"State", S("CO")},
                                                       {"ZipCode", S("80202")}}));
    Item props{{"Relationship", S(r.relationship)}, {"StartTimestampUTC", N(r.start)}};
    if (r.end != 0) props["EndTimestampUTC"] = N(r.end);
    edges.push_back({person, "PersonAddress", AddressId(r.street), std::move(props)});
  }
  return g.AddEdges(edges);
}

}  // namespace dynarock::graph::seeds
