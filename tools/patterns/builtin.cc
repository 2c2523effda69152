#include "tools/patterns/builtin.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <string>
#include <utility>

namespace dynarock::patterns {
namespace {

AttributeValue S(std::string s) { return AttributeValue::S(std::move(s)); }
AttributeValue N(int64_t n) { return AttributeValue::N(std::to_string(n)); }

std::string Num(int64_t n, int width = 6) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%0*lld", width, static_cast<long long>(n));
  return buf;
}

struct KeyDef {
  std::string name;
  AttrType type = AttrType::kS;
};

CreateTableRequest Table(std::string name, KeyDef hash, std::optional<KeyDef> range = std::nullopt) {
  CreateTableRequest req;
  req.table_name = std::move(name);
  req.billing_mode = "PAY_PER_REQUEST";
  req.key_schema.push_back({hash.name, KeyType::kHash});
  req.attribute_definitions.push_back({hash.name, hash.type});
  if (range) {
    req.key_schema.push_back({range->name, KeyType::kRange});
    req.attribute_definitions.push_back({range->name, range->type});
  }
  return req;
}

void AddGsi(CreateTableRequest* req, std::string index, KeyDef hash, std::optional<KeyDef> range) {
  auto define = [req](const KeyDef& k) {
    for (const auto& d : req->attribute_definitions) {
      if (d.attribute_name == k.name) return;
    }
    req->attribute_definitions.push_back({k.name, k.type});
  };
  GlobalSecondaryIndex gsi;
  gsi.index_name = std::move(index);
  gsi.key_schema.push_back({hash.name, KeyType::kHash});
  define(hash);
  if (range) {
    gsi.key_schema.push_back({range->name, KeyType::kRange});
    define(*range);
  }
  gsi.projection.projection_type = ProjectionType::kAll;
  req->global_secondary_indexes.push_back(std::move(gsi));
}

Status Create(DB* db, const CreateTableRequest& req) { return db->CreateTable(req).status(); }

// `k` distinct values of [0, n) other than `exclude`, in ascending order.
std::vector<int64_t> PickDistinct(Rng& rng, int64_t n, int64_t k, int64_t exclude) {
  k = std::min(k, n - 1);
  std::set<int64_t> picked;
  while (static_cast<int64_t>(picked.size()) < k) {
    int64_t v = rng.Uniform(n);
    if (v != exclude) picked.insert(v);
  }
  return {picked.begin(), picked.end()};
}

std::string Date(Rng& rng) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02d", 2015 + static_cast<int>(rng.Uniform(9)),
                1 + static_cast<int>(rng.Uniform(12)), 1 + static_cast<int>(rng.Uniform(28)));
  return buf;
}

// Every page of a Query (the caller's session counts each page as a request).
Status QueryAllPages(Session& s, QueryRequest req) {
  for (;;) {
    auto r = s.Query(req);
    if (!r.ok()) return r.status();
    if (!r->last_evaluated_key) return Status::Ok();
    req.exclusive_start_key = std::move(r->last_evaluated_key);
  }
}

Status ScanAllPages(Session& s, ScanRequest req) {
  for (;;) {
    auto r = s.Scan(req);
    if (!r.ok()) return r.status();
    if (!r->last_evaluated_key) return Status::Ok();
    req.exclusive_start_key = std::move(r->last_evaluated_key);
  }
}

// BatchGetItem of `keys` from `table`, 100 keys a request, retrying unprocessed keys.
Status BatchGetAll(Session& s, const std::string& table, std::vector<Item> keys) {
  size_t pos = 0;
  while (pos < keys.size()) {
    BatchGetItemRequest req;
    auto& ka = req.request_items[table];
    for (size_t n = 0; n < 100 && pos < keys.size(); ++n) ka.keys.push_back(std::move(keys[pos++]));
    for (int attempt = 0; !req.request_items.empty(); ++attempt) {
      if (attempt > 100) return InternalError("BatchGetItem keeps leaving keys unprocessed");
      auto r = s.BatchGetItem(req);
      if (!r.ok()) return r.status();
      req.request_items = std::move(r->unprocessed_keys);
    }
  }
  return Status::Ok();
}

// ---------------------------------------------------------------- adjacency (seeds 000, 003)

Suite Adjacency(const BuiltinOptions& o) {
  Suite suite;
  suite.name = "adjacency";
  suite.title = "adjacency-list edge items vs a nested friends list (seeds 000, 003)";
  suite.description =
      "Each user's friends as one item per edge (PK=USER#x, SK=FRIEND#y), read with one Query "
      "begins_with(SK, 'FRIEND#'), vs. one item per user holding the friends as a list of maps, "
      "read with one GetItem. Adding a friend is a 1 KB PutItem for an edge but rewrites the "
      "whole list item, so its write units grow with the list.";
  const int64_t users = std::max<int64_t>(o.size, 2);
  const int64_t fanout = std::max<int64_t>(o.fanout, 1);
  suite.setup = [users, fanout](DB* db, Rng& rng) -> Status {
    DR_RETURN_IF_ERROR(Create(db, Table("AdjacencyList", {"PK"}, KeyDef{"SK"})));
    DR_RETURN_IF_ERROR(Create(db, Table("NestedList", {"PK"}, KeyDef{"SK"})));
    std::vector<Item> edges, nested;
    for (int64_t u = 0; u < users; ++u) {
      const std::string pk = "USER#" + Num(u);
      Item profile;
      profile["PK"] = S(pk);
      profile["SK"] = S("PROFILE");
      profile["username"] = S("user" + Num(u));
      profile["name"] = S("User Number " + Num(u));
      edges.push_back(profile);
      std::vector<AttributeValue> friends;
      for (int64_t v : PickDistinct(rng, users, fanout, u)) {
        std::string since = Date(rng);
        Item edge;
        edge["PK"] = S(pk);
        edge["SK"] = S("FRIEND#USER#" + Num(v));
        edge["friendship_since"] = S(since);
        edges.push_back(std::move(edge));
        Item f;
        f["id"] = S("USER#" + Num(v));
        f["friendship_since"] = S(since);
        friends.push_back(AttributeValue::M(std::move(f)));
      }
      Item list;
      list["PK"] = S(pk);
      list["SK"] = S("FRIENDS");
      list["friends"] = AttributeValue::L(std::move(friends));
      nested.push_back(std::move(list));
    }
    DR_RETURN_IF_ERROR(BatchPut(db, "AdjacencyList", std::move(edges)));
    return BatchPut(db, "NestedList", std::move(nested));
  };

  suite.patterns.push_back(
      {"adjacency-list", "Query PK=USER#x AND begins_with(SK, 'FRIEND#'): one item per friend", 0,
       [users](Session& s, int64_t, Rng& rng) -> Status {
         QueryRequest q;
         q.table_name = "AdjacencyList";
         q.key_condition_expression = "PK = :pk AND begins_with(SK, :friend)";
         q.expression_attribute_values[":pk"] = S("USER#" + Num(rng.Uniform(users)));
         q.expression_attribute_values[":friend"] = S("FRIEND#");
         q.has_expression_attribute_values = true;
         return QueryAllPages(s, std::move(q));
       }});
  suite.patterns.push_back(
      {"nested-list", "GetItem of the user's friends item (a list of maps)", 0,
       [users](Session& s, int64_t, Rng& rng) -> Status {
         GetItemRequest g;
         g.table_name = "NestedList";
         g.key["PK"] = S("USER#" + Num(rng.Uniform(users)));
         g.key["SK"] = S("FRIENDS");
         return s.GetItem(std::move(g)).status();
       }});
  suite.patterns.push_back(
      {"adjacency-add-friend", "PutItem of one edge item", 0,
       [users](Session& s, int64_t, Rng& rng) -> Status {
         PutItemRequest p;
         p.table_name = "AdjacencyList";
         p.item["PK"] = S("USER#" + Num(rng.Uniform(users)));
         p.item["SK"] = S("FRIEND#USER#" + Num(rng.Uniform(users)));
         p.item["friendship_since"] = S(Date(rng));
         return s.PutItem(std::move(p)).status();
       }});
  suite.patterns.push_back(
      {"nested-add-friend", "UpdateItem SET friends = list_append(friends, :f)", 0,
       [users](Session& s, int64_t, Rng& rng) -> Status {
         UpdateItemRequest u;
         u.table_name = "NestedList";
         u.key["PK"] = S("USER#" + Num(rng.Uniform(users)));
         u.key["SK"] = S("FRIENDS");
         u.update_expression = "SET friends = list_append(friends, :f)";
         Item f;
         f["id"] = S("USER#" + Num(rng.Uniform(users)));
         f["friendship_since"] = S(Date(rng));
         u.expression_attribute_values[":f"] = AttributeValue::L({AttributeValue::M(std::move(f))});
         u.has_expression_attribute_values = true;
         return s.UpdateItem(std::move(u)).status();
       }});
  return suite;
}

// ---------------------------------------------------------------- edge-set (seed 001)

Suite EdgeSet(const BuiltinOptions& o) {
  Suite suite;
  suite.name = "edge-set";
  suite.title = "edge-set batch fetch vs N+1 requests (seed 001)";
  suite.description =
      "A goal and its members' user nodes. The edge set (a string set on the goal node "
      "replicating its membership edges) needs one GetItem and one BatchGetItem per 100 "
      "members; without it, one Query of the goal's partition (node and edges) and one "
      "GetItem per member: N+1 requests. Read units are about the same, requests and "
      "latency are not.";
  const int64_t n = std::max<int64_t>(o.size, 2);
  const int64_t fanout = std::max<int64_t>(o.fanout, 1);
  suite.setup = [n, fanout](DB* db, Rng& rng) -> Status {
    DR_RETURN_IF_ERROR(Create(db, Table("Records", {"source"}, KeyDef{"target"})));
    std::vector<Item> items;
    for (int64_t u = 0; u < n; ++u) {
      Item user;
      user["source"] = S("USER-" + Num(u));
      user["target"] = S("USER-" + Num(u));
      user["name"] = S("User Number " + Num(u));
      user["email"] = S("user" + Num(u) + "@example.com");
      items.push_back(std::move(user));
    }
    for (int64_t g = 0; g < n; ++g) {
      const std::string goal = "GOAL-" + Num(g);
      std::vector<std::string> edge_set;
      for (int64_t u : PickDistinct(rng, n, fanout, -1)) {
        const bool lead = rng.Uniform(4) == 0;
        const std::string role = lead ? "LEAD" : "CONTRIBUTOR";
        Item edge;
        edge["source"] = S(goal);
        edge["target"] = S("GOALMEMBERSHIP-USER-" + Num(u));
        edge["memberRole"] = S(role);
        edge["date"] = S(Date(rng));
        edge["gsi0"] = S(lead ? "500-LEAD" : "400-CONTRIBUTOR");
        items.push_back(std::move(edge));
        edge_set.push_back("GOALMEMBERSHIP-USER-" + Num(u) + "-" + role);
      }
      Item node;
      node["source"] = S(goal);
      node["target"] = S(goal);
      node["title"] = S("Goal number " + Num(g) + ": ship the next release");
      node["edges"] = AttributeValue::SS(std::move(edge_set));
      items.push_back(std::move(node));
    }
    return BatchPut(db, "Records", std::move(items));
  };

  suite.patterns.push_back(
      {"edge-set-batch", "GetItem of the goal node, BatchGetItem of the users in its edge set", 0,
       [n](Session& s, int64_t, Rng& rng) -> Status {
         const std::string goal = "GOAL-" + Num(rng.Uniform(n));
         GetItemRequest g;
         g.table_name = "Records";
         g.key["source"] = S(goal);
         g.key["target"] = S(goal);
         auto node = s.GetItem(std::move(g));
         if (!node.ok()) return node.status();
         if (!node->item) return InternalError("goal " + goal + " not found");
         auto it = node->item->find("edges");
         if (it == node->item->end() || !it->second.is(AttrType::kSS)) return Status::Ok();
         std::vector<Item> keys;
         constexpr std::string_view kPrefix = "GOALMEMBERSHIP-";
         for (const std::string& e : it->second.set()) {
           // "GOALMEMBERSHIP-USER-000042-LEAD" -> "USER-000042"
           size_t dash = e.rfind('-');
           if (e.compare(0, kPrefix.size(), kPrefix) != 0 || dash <= kPrefix.size()) continue;
           std::string user = e.substr(kPrefix.size(), dash - kPrefix.size());
           Item key;
           key["source"] = S(user);
           key["target"] = S(user);
           keys.push_back(std::move(key));
         }
         return BatchGetAll(s, "Records", std::move(keys));
       }});
  suite.patterns.push_back(
      {"n-plus-1", "Query of the goal's partition, then one GetItem per member edge", 0,
       [n](Session& s, int64_t, Rng& rng) -> Status {
         QueryRequest q;
         q.table_name = "Records";
         q.key_condition_expression = "#s = :goal";
         q.expression_attribute_names["#s"] = "source";
         q.has_expression_attribute_names = true;
         q.expression_attribute_values[":goal"] = S("GOAL-" + Num(rng.Uniform(n)));
         q.has_expression_attribute_values = true;
         std::vector<std::string> users;
         for (;;) {
           auto r = s.Query(q);
           if (!r.ok()) return r.status();
           for (const Item& item : r->items) {
             auto t = item.find("target");
             if (t == item.end() || !t->second.is(AttrType::kS)) continue;
             constexpr std::string_view kPrefix = "GOALMEMBERSHIP-";
             const std::string& target = t->second.scalar();
             if (target.compare(0, kPrefix.size(), kPrefix) == 0) {
               users.push_back(target.substr(kPrefix.size()));
             }
           }
           if (!r->last_evaluated_key) break;
           q.exclusive_start_key = std::move(r->last_evaluated_key);
         }
         for (const std::string& user : users) {
           GetItemRequest g;
           g.table_name = "Records";
           g.key["source"] = S(user);
           g.key["target"] = S(user);
           auto r = s.GetItem(std::move(g));
           if (!r.ok()) return r.status();
         }
         return Status::Ok();
       }});
  return suite;
}

// ---------------------------------------------------------------- type-index (seeds 003, 004)

std::string Uuid(Rng& rng) {
  uint64_t a = rng.Next(), b = rng.Next();
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                static_cast<unsigned>((a >> 16) & 0xFFFF), static_cast<unsigned>(a & 0xFFFF),
                static_cast<unsigned>(b >> 48),
                static_cast<unsigned long long>(b & 0xFFFFFFFFFFFFull));
  return buf;
}

Suite TypeIndex(const BuiltinOptions& o) {
  Suite suite;
  suite.name = "type-index";
  suite.title = "GSI query on the type index vs Scan + FilterExpression on Type (seeds 003, 004)";
  suite.description =
      "The Contact table of seed 004 (Id, Type) holding persons, addresses and person-address "
      "links (1:1:2). Listing every person: a Query of ContactTypeIndex (Type, Id) reads only "
      "the persons; a Scan filtered on Type reads, and is billed for, the whole table.";
  const int64_t persons = std::max<int64_t>(o.size, 1);
  suite.setup = [persons](DB* db, Rng& rng) -> Status {
    CreateTableRequest t = Table("Contact", {"Id"}, KeyDef{"Type"});
    AddGsi(&t, "ContactTypeIndex", {"Type"}, KeyDef{"Id"});
    DR_RETURN_IF_ERROR(Create(db, t));
    static const char* kFirst[] = {"Bob", "Sally", "Joe", "Ann", "Raj", "Mei", "Olga", "Tom"};
    static const char* kLast[] = {"Smith", "Wilson", "Penton", "Garcia", "Khan", "Chen"};
    static const char* kStreet[] = {"Wazee Street", "Stout Street", "15th Street",
                                    "Larimer Street", "Logan Street", "Blake Street"};
    std::vector<Item> items;
    std::vector<std::string> person_ids, address_ids;
    for (int64_t i = 0; i < persons; ++i) {
      Item p;
      person_ids.push_back(Uuid(rng));
      p["Id"] = S(person_ids.back());
      p["Type"] = S("Person");
      p["FirstName"] = S(kFirst[rng.Uniform(8)]);
      p["LastName"] = S(kLast[rng.Uniform(6)]);
      items.push_back(std::move(p));
    }
    for (int64_t i = 0; i < persons; ++i) {
      Item a;
      address_ids.push_back(Uuid(rng));
      a["Id"] = S(address_ids.back());
      a["Type"] = S("Address");
      a["StreetAddress"] = S(std::to_string(100 + rng.Uniform(9900)) + " " + kStreet[rng.Uniform(6)]);
      a["City"] = S("Denver");
      a["State"] = S("CO");
      a["ZipCode"] = S("80202");
      items.push_back(std::move(a));
    }
    for (int64_t i = 0; i < 2 * persons; ++i) {
      Item l;
      l["Id"] = S(Uuid(rng));
      l["Type"] = S("PersonAddress");
      l["PersonId"] = S(person_ids[static_cast<size_t>(i / 2)]);
      l["AddressId"] = S(address_ids[static_cast<size_t>(rng.Uniform(persons))]);
      l["Relationship"] = S(i % 2 == 0 ? "Business" : "Residential");
      l["StartTimestampUTC"] = N(946684800 + rng.Uniform(300000000));
      if (rng.Uniform(2) == 0) l["EndTimestampUTC"] = N(1293753600 + rng.Uniform(300000000));
      items.push_back(std::move(l));
    }
    return BatchPut(db, "Contact", std::move(items));
  };

  suite.patterns.push_back(
      {"gsi-query", "Query ContactTypeIndex Type = 'Person', every page", 0,
       [](Session& s, int64_t, Rng&) -> Status {
         QueryRequest q;
         q.table_name = "Contact";
         q.index_name = "ContactTypeIndex";
         q.key_condition_expression = "#t = :type";
         q.expression_attribute_names["#t"] = "Type";
         q.has_expression_attribute_names = true;
         q.expression_attribute_values[":type"] = S("Person");
         q.has_expression_attribute_values = true;
         return QueryAllPages(s, std::move(q));
       }});
  suite.patterns.push_back(
      {"scan-filter", "Scan with FilterExpression #t = 'Person', every page", 0,
       [](Session& s, int64_t, Rng&) -> Status {
         ScanRequest q;
         q.table_name = "Contact";
         q.filter_expression = "#t = :type";
         q.expression_attribute_names["#t"] = "Type";
         q.has_expression_attribute_names = true;
         q.expression_attribute_values[":type"] = S("Person");
         q.has_expression_attribute_values = true;
         return ScanAllPages(s, std::move(q));
       }});
  return suite;
}

// ---------------------------------------------------------------- hierarchy (seed 002)

constexpr const char* kCountries[] = {"US", "CA", "DE", "IN"};
constexpr int kStatesPerCountry = 5;
constexpr int kCitiesPerState = 5;

struct Place {
  std::string country, state, city;  // "US", "US#S2", "US#S2#C4"
};

Place RandomPlace(Rng& rng) {
  Place p;
  p.country = kCountries[rng.Uniform(4)];
  p.state = p.country + "#S" + std::to_string(rng.Uniform(kStatesPerCountry));
  p.city = p.state + "#C" + std::to_string(rng.Uniform(kCitiesPerState));
  return p;
}

Item CompositeStore(const Place& p, const std::string& id, const std::string& name) {
  Item item;
  item["country"] = S(p.country);
  item["location"] = S(p.city + "#" + id);  // COUNTRY#STATE#CITY#STORE
  item["name"] = S(name);
  item["address"] = S("1850 Wazee Street, " + p.city);
  return item;
}

Item GsiStore(const Place& p, const std::string& id, const std::string& name) {
  Item item;
  item["storeId"] = S(id);
  item["country"] = S(p.country);
  item["state"] = S(p.state);
  item["city"] = S(p.city);
  item["name"] = S(name);
  item["address"] = S("1850 Wazee Street, " + p.city);
  return item;
}

Suite Hierarchy(const BuiltinOptions& o) {
  Suite suite;
  suite.name = "hierarchy";
  suite.title = "composite sort key COUNTRY#STATE#CITY vs a GSI per level (seed 002)";
  suite.description =
      "Stores located in 4 countries x 5 states x 5 cities. One table keyed (country, "
      "'COUNTRY#STATE#CITY#STORE') answers every level with begins_with on the sort key; the "
      "other keys stores by id and adds a GSI per level (ByCountry, ByState, ByCity). Reads "
      "cost the same; every write to the second also writes three index entries.";
  const int64_t stores = std::max<int64_t>(o.size, 1);
  suite.setup = [stores](DB* db, Rng& rng) -> Status {
    DR_RETURN_IF_ERROR(Create(db, Table("StoresComposite", {"country"}, KeyDef{"location"})));
    CreateTableRequest t = Table("StoresGsi", {"storeId"});
    AddGsi(&t, "ByCountry", {"country"}, KeyDef{"storeId"});
    AddGsi(&t, "ByState", {"state"}, KeyDef{"storeId"});
    AddGsi(&t, "ByCity", {"city"}, KeyDef{"storeId"});
    DR_RETURN_IF_ERROR(Create(db, t));
    std::vector<Item> composite, gsi;
    for (int64_t i = 0; i < stores; ++i) {
      Place p = RandomPlace(rng);
      const std::string id = "STORE-" + Num(i);
      const std::string name = "Store " + Num(i);
      composite.push_back(CompositeStore(p, id, name));
      gsi.push_back(GsiStore(p, id, name));
    }
    DR_RETURN_IF_ERROR(BatchPut(db, "StoresComposite", std::move(composite)));
    return BatchPut(db, "StoresGsi", std::move(gsi));
  };

  auto composite_query = [](bool city) {
    return [city](Session& s, int64_t, Rng& rng) -> Status {
      Place p = RandomPlace(rng);
      QueryRequest q;
      q.table_name = "StoresComposite";
      q.key_condition_expression = "country = :c AND begins_with(#l, :prefix)";
      q.expression_attribute_names["#l"] = "location";
      q.has_expression_attribute_names = true;
      q.expression_attribute_values[":c"] = S(p.country);
      q.expression_attribute_values[":prefix"] = S((city ? p.city : p.state) + "#");
      q.has_expression_attribute_values = true;
      return QueryAllPages(s, std::move(q));
    };
  };
  auto gsi_query = [](bool city) {
    return [city](Session& s, int64_t, Rng& rng) -> Status {
      Place p = RandomPlace(rng);
      QueryRequest q;
      q.table_name = "StoresGsi";
      q.index_name = city ? "ByCity" : "ByState";
      q.key_condition_expression = "#k = :v";
      q.expression_attribute_names["#k"] = city ? "city" : "state";
      q.has_expression_attribute_names = true;
      q.expression_attribute_values[":v"] = S(city ? p.city : p.state);
      q.has_expression_attribute_values = true;
      return QueryAllPages(s, std::move(q));
    };
  };
  suite.patterns.push_back({"composite-city",
                            "Query country = C AND begins_with(location, 'C#S#CITY#')", 0,
                            composite_query(true)});
  suite.patterns.push_back({"gsi-city", "Query ByCity city = 'C#S#CITY'", 0, gsi_query(true)});
  suite.patterns.push_back({"composite-state",
                            "Query country = C AND begins_with(location, 'C#S#')", 0,
                            composite_query(false)});
  suite.patterns.push_back({"gsi-state", "Query ByState state = 'C#S'", 0, gsi_query(false)});
  suite.patterns.push_back(
      {"composite-put-store", "PutItem of a new store (one item)", 0,
       [stores](Session& s, int64_t i, Rng& rng) -> Status {
         PutItemRequest p;
         p.table_name = "StoresComposite";
         const std::string id = "STORE-" + Num(stores + i);
         p.item = CompositeStore(RandomPlace(rng), id, "Store " + Num(stores + i));
         return s.PutItem(std::move(p)).status();
       }});
  suite.patterns.push_back(
      {"gsi-put-store", "PutItem of a new store (the item and 3 index entries)", 0,
       [stores](Session& s, int64_t i, Rng& rng) -> Status {
         PutItemRequest p;
         p.table_name = "StoresGsi";
         const std::string id = "STORE-" + Num(stores + i);
         p.item = GsiStore(RandomPlace(rng), id, "Store " + Num(stores + i));
         return s.PutItem(std::move(p)).status();
       }});
  return suite;
}

}  // namespace

std::vector<Suite> BuiltinSuites(const BuiltinOptions& options) {
  std::vector<Suite> suites;
  suites.push_back(Adjacency(options));
  suites.push_back(EdgeSet(options));
  suites.push_back(TypeIndex(options));
  suites.push_back(Hierarchy(options));
  return suites;
}

}  // namespace dynarock::patterns
