// The graph layer on the embedded DB, with seed 000's Middle-earth: who are
// Frodo's friends, and who visited the Shire (the inverted index).

#include <cstdio>

#include "client/embedded_client.h"
#include "dynarock/db.h"
#include "graph/graph.h"

int main() {
  dynarock::Options options;
  options.in_memory = true;
  auto db = dynarock::DB::Open(options, "");
  if (!db.ok()) return 1;
  dynarock::client::EmbeddedClient client(db->get());
  dynarock::graph::Graph g(&client, dynarock::graph::Schema{});
  if (!g.EnsureTable().ok()) return 1;

  const char* users[] = {"USER#Frodo", "USER#Samwise", "USER#Gandalf"};
  for (const char* u : users) g.PutNode(u, {{"name", dynarock::AttributeValue::S(u + 5)}});
  g.PutNode("PLACE#TheShire");
  g.AddEdge({"USER#Frodo", "FRIEND", "USER#Samwise", {}});
  g.AddEdge({"USER#Frodo", "FRIEND", "USER#Gandalf", {}});
  for (const char* u : users) g.AddEdge({u, "VISITED", "PLACE#TheShire", {}});

  auto friends = g.OutEdges("USER#Frodo", "FRIEND");
  if (!friends.ok()) return 1;
  for (const auto& e : friends->edges) std::printf("Frodo's friend: %s\n", e.target.c_str());
  auto visitors = g.InEdges("PLACE#TheShire", "VISITED");
  if (!visitors.ok()) return 1;
  std::printf("visited the Shire: %zu\n", visitors->edges.size());
  return 0;
}
