// File: graph/seed_graphs.h
//
// The seed articles' example graphs (../shared/seeds/), the graph layer's
// acceptance data, in one place: `dynarock graph demo` loads and questions
// them, and tests/unit/graph_test.cc loads them and asserts the articles'
// answers. Each Load*() puts the nodes, then writes every edge with one
// AddEdges call and returns its report; the table must exist (EnsureTable).

#ifndef DYNAROCK_GRAPH_SEED_GRAPHS_H_
#define DYNAROCK_GRAPH_SEED_GRAPHS_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "dynarock/status.h"
#include "graph/graph.h"
#include "graph/schema.h"

namespace dynarock::graph::seeds {

// Seconds since the Unix epoch at a date's UTC midnight (seed 004's timestamps).
int64_t UtcMidnight(int year, unsigned month, unsigned day);

// Seed 000, "Modeling a graph database on DynamoDB": USER#Frodo, USER#Samwise,
// USER#Gandalf, PLACE#TheShire, PLACE#Gondor; FRIEND edges ranked by their
// createdDate ("3004" or "UNKNOWN"), every user VISITED both places.
Schema MiddleEarthSchema(std::string table);
StatusOr<WriteReport> LoadMiddleEarth(Graph& g);

// Seed 001, Koan's records table: source/target keys, "-" separator, the
// gsi0-index inverted index, GOALMEMBERSHIP ranked by memberRole (500-LEAD,
// 400-CONTRIBUTOR, 300-TEAM) in the goals' edge sets, GOALSUBSCRIBER left out
// of them. Goals G1-G3, users U1-U3 (Dora Campos, Ravi Shah, Mia Chen), teams
// T1 (Marketing), T2 (Sales).
Schema KoanSchema(std::string table);
StatusOr<WriteReport> LoadKoan(Graph& g);

// Seed 003, adjacency lists: USER#Alice, Bob, Charlie, David; one-way FRIEND
// edges ranked by friendship_since (Alice->Bob, Alice->Charlie, Bob->Alice,
// Bob->David, Charlie->Alice).
Schema FriendsSchema(std::string table);
StatusOr<WriteReport> LoadFriends(Graph& g);

// Seed 004, the Contact table: Person#bob/sally/joe, their addresses (nodes
// AddressId(street)) and PersonAddress edges with a Relationship (Business or
// Residential) valid from StartTimestampUTC to EndTimestampUTC (absent: now);
// nodes typed by the Type attribute, listed by ContactTypeIndex.
Schema ContactSchema(std::string table);
StatusOr<WriteReport> LoadContact(Graph& g);
std::string AddressId(std::string_view street);  // "Address#1850-Wazee-Street"

}  // namespace dynarock::graph::seeds

#endif  // DYNAROCK_GRAPH_SEED_GRAPHS_H_
