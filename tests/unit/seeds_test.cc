// The articles the project grew from (../shared/seeds/), loaded through the
// embedded DB API exactly as the articles lay their tables out, and their
// queries answered with the articles' own requests: seed 000 (Frodo, Samwise
// and Gandalf: nodes and edges in one partition, begins_with on the edge type,
// an inverted index ordered by createdDate), seed 002 (a publication index:
// hierarchical and composite sort keys, a GSI for a title's tags) and seed 003
// (Alice's profile and friendships, mutual friends).

#include <algorithm>
#include <string>
#include <vector>

#include "tests/unit/testutil.h"

namespace dynarock::testing {
namespace {

std::vector<std::string> Strings(const std::vector<Item>& items, const std::string& attribute) {
  std::vector<std::string> out;
  for (const auto& item : items) out.push_back(item.at(attribute).scalar());
  return out;
}

class SeedsTest : public DBTest {
 protected:
  QueryResponse Query(QueryRequest req) {
    auto r = db_->Query(req);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : QueryResponse{};
  }
};

// ---------------------------------------------------------------- seed 000

class Seed000Test : public SeedsTest {
 protected:
  void SetUp() override {
    SeedsTest::SetUp();
    CreateTableRequest ct;
    ct.table_name = "GraphTable";
    ct.billing_mode = "PAY_PER_REQUEST";
    ct.attribute_definitions = {{"PartitionKey", AttrType::kS},
                                {"SortKey", AttrType::kS},
                                {"createdDate", AttrType::kS}};
    ct.key_schema = {{"PartitionKey", KeyType::kHash}, {"SortKey", KeyType::kRange}};
    // "a second index with the sort key as the partition key", ordered by createdDate.
    GlobalSecondaryIndex inverted;
    inverted.index_name = "SortKeyIndex";
    inverted.key_schema = {{"SortKey", KeyType::kHash}, {"createdDate", KeyType::kRange}};
    inverted.projection.projection_type = ProjectionType::kKeysOnly;
    GlobalSecondaryIndex by_sort_key;
    by_sort_key.index_name = "SortKeyOnly";
    by_sort_key.key_schema = {{"SortKey", KeyType::kHash}};
    by_sort_key.projection.projection_type = ProjectionType::kKeysOnly;
    ct.global_secondary_indexes = {inverted, by_sort_key};
    ASSERT_OK(db_->CreateTable(ct));

    // The article's final table, VISITED edges included.
    auto edge = [](const std::string& pk, const std::string& sk) {
      return MakeItem({{"PartitionKey", S(pk)}, {"SortKey", S(sk)}});
    };
    auto user = [](const std::string& name, const std::string& username,
                   const std::string& last) {
      Item item = MakeItem({{"PartitionKey", S("USER#" + name)},
                            {"SortKey", S("USER#" + name)},
                            {"username", S(username)},
                            {"firstName", S(name)}});
      if (!last.empty()) item["lastName"] = S(last);
      return item;
    };
    Put("GraphTable", user("Frodo", "ringBearer", "Baggins"));
    Put("GraphTable", user("Samwise", "theBrave", "Gamgee"));
    Put("GraphTable", user("Gandalf", "theWhite", ""));
    Item f1 = edge("USER#Frodo", "FRIEND-USER#Gandalf");
    f1["createdDate"] = S("3004");
    Put("GraphTable", f1);
    Item f2 = edge("USER#Frodo", "FRIEND-USER#Samwise");
    f2["createdDate"] = S("UNKNOWN");
    Put("GraphTable", f2);
    Item f3 = edge("USER#Samwise", "FRIEND-USER#Gandalf");
    f3["createdDate"] = S("UNKNOWN");
    Put("GraphTable", f3);
    for (const char* place : {"TheShire", "Gondor"}) {
      Put("GraphTable", edge(std::string("PLACE#") + place, std::string("PLACE#") + place));
      for (const char* who : {"Frodo", "Samwise", "Gandalf"}) {
        Put("GraphTable", edge(std::string("USER#") + who, std::string("VISITED-PLACE#") + place));
      }
    }
  }
};

TEST_F(Seed000Test, FrodosAttributes) {
  GetItemRequest get;
  get.table_name = "GraphTable";
  get.key = MakeItem({{"PartitionKey", S("USER#Frodo")}, {"SortKey", S("USER#Frodo")}});
  get.projection_expression = "username,firstName,lastName,createdDate";
  auto r = db_->GetItem(get);
  ASSERT_OK(r);
  ASSERT_TRUE(r->item.has_value());
  EXPECT_EQ(*r->item, MakeItem({{"username", S("ringBearer")},
                                {"firstName", S("Frodo")},
                                {"lastName", S("Baggins")}}));
}

TEST_F(Seed000Test, FrodosFriendsWithBeginsWith) {
  QueryRequest q;
  q.table_name = "GraphTable";
  q.key_condition_expression = "PartitionKey = :field1 AND begins_with(SortKey, :field2)";
  q.expression_attribute_values = {{":field1", S("USER#Frodo")}, {":field2", S("FRIEND-")}};
  q.has_expression_attribute_values = true;
  QueryResponse r = Query(q);
  EXPECT_EQ(Strings(r.items, "SortKey"),
            (std::vector<std::string>{"FRIEND-USER#Gandalf", "FRIEND-USER#Samwise"}));
  EXPECT_EQ(Strings(r.items, "createdDate"), (std::vector<std::string>{"3004", "UNKNOWN"}));

  // The article writes BEGINS_WITH; DynamoDB's function names are case-sensitive.
  q.key_condition_expression = "PartitionKey = :field1 AND BEGINS_WITH(SortKey, :field2)";
  EXPECT_ERROR(db_->Query(q), ErrorType::kValidation,
               "Invalid KeyConditionExpression: Invalid function name; function: BEGINS_WITH");
}

TEST_F(Seed000Test, WhoConsidersGandalfAFriendOrderedByCreatedDate) {
  QueryRequest q;
  q.table_name = "GraphTable";
  q.index_name = "SortKeyIndex";
  q.key_condition_expression = "SortKey = :edge";
  q.expression_attribute_values = {{":edge", S("FRIEND-USER#Gandalf")}};
  q.has_expression_attribute_values = true;
  QueryResponse r = Query(q);
  EXPECT_EQ(Strings(r.items, "PartitionKey"),
            (std::vector<std::string>{"USER#Frodo", "USER#Samwise"}));  // "3004" < "UNKNOWN"
  q.scan_index_forward = false;
  r = Query(q);
  EXPECT_EQ(Strings(r.items, "PartitionKey"),
            (std::vector<std::string>{"USER#Samwise", "USER#Frodo"}));
}

TEST_F(Seed000Test, WhoVisitedGondor) {
  QueryRequest q;
  q.table_name = "GraphTable";
  q.index_name = "SortKeyOnly";
  q.key_condition_expression = "SortKey = :edge";
  q.expression_attribute_values = {{":edge", S("VISITED-PLACE#Gondor")}};
  q.has_expression_attribute_values = true;
  std::vector<std::string> who = Strings(Query(q).items, "PartitionKey");
  std::sort(who.begin(), who.end());
  EXPECT_EQ(who, (std::vector<std::string>{"USER#Frodo", "USER#Gandalf", "USER#Samwise"}));
  // Edges without createdDate are not in the createdDate-ordered index (sparse).
  q.index_name = "SortKeyIndex";
  EXPECT_TRUE(Query(q).items.empty());
}

TEST_F(Seed000Test, AFrodoPartitionHoldsTheNodeAndItsEdges) {
  QueryRequest q;
  q.table_name = "GraphTable";
  q.key_condition_expression = "PartitionKey = :p";
  q.expression_attribute_values = {{":p", S("USER#Frodo")}};
  q.has_expression_attribute_values = true;
  EXPECT_EQ(Strings(Query(q).items, "SortKey"),
            (std::vector<std::string>{"FRIEND-USER#Gandalf", "FRIEND-USER#Samwise", "USER#Frodo",
                                      "VISITED-PLACE#Gondor", "VISITED-PLACE#TheShire"}));
}

// ---------------------------------------------------------------- seed 002

class Seed002Test : public SeedsTest {
 protected:
  void SetUp() override {
    SeedsTest::SetUp();
    CreateTableRequest ct;
    ct.table_name = "Publications";
    ct.billing_mode = "PAY_PER_REQUEST";
    ct.attribute_definitions = {{"PK", AttrType::kS}, {"SK", AttrType::kS}, {"GSIPK", AttrType::kS}};
    ct.key_schema = {{"PK", KeyType::kHash}, {"SK", KeyType::kRange}};
    GlobalSecondaryIndex tags;
    tags.index_name = "GSI1";
    tags.key_schema = {{"GSIPK", KeyType::kHash}, {"SK", KeyType::kRange}};
    tags.projection.projection_type = ProjectionType::kAll;
    ct.global_secondary_indexes = {tags};
    ASSERT_OK(db_->CreateTable(ct));

    // Hierarchical: PK = the publication, SK = Metadata / Title / Tag.
    const std::string pub = "PublicationName#TheBetterProgramming";
    Put("Publications", MakeItem({{"PK", S(pub)}, {"SK", S("#Metadata#P1")},
                                  {"followers", N("1200")}}));
    for (const char* title : {"ModelingInDynamoDB", "GraphsOnDynamoDB", "CppTips"}) {
      Put("Publications", MakeItem({{"PK", S(pub)}, {"SK", S(std::string("Title#") + title)}}));
    }
    // A tag item names its title in GSIPK, so a title's tags are one GSI query.
    auto tag = [&](const std::string& title, const std::string& name) {
      Put("Publications", MakeItem({{"PK", S(pub)}, {"SK", S("Tag#" + name + "#" + title)},
                                    {"GSIPK", S("Title#" + title)}}));
    };
    tag("ModelingInDynamoDB", "AWS");
    tag("ModelingInDynamoDB", "NoSQL");
    tag("GraphsOnDynamoDB", "AWS");
    tag("CppTips", "Cpp");

    // Composite sort key: one partition, the hierarchy in the sort key.
    const std::string uuid = "7c0d1f02";
    for (const char* sk : {"PublicationName#TheBetterProgramming#Metadata#P1",
                           "PublicationName#TheBetterProgramming#Title#ModelingInDynamoDB",
                           "PublicationName#TheBetterProgramming#Title#ModelingInDynamoDB#Tag#AWS",
                           "PublicationName#TheBetterProgramming#Title#CppTips",
                           "PublicationName#TheBetterProgramming#Title#CppTips#Tag#Cpp",
                           "PublicationName#Other#Metadata#P2"}) {
      const std::string key(sk);
      const std::string type = key.find("#Tag#") != std::string::npos     ? "Tag"
                               : key.find("#Title#") != std::string::npos ? "Title"
                                                                           : "Publication";
      Put("Publications", MakeItem({{"PK", S(uuid)}, {"SK", S(key)}, {"EntityType", S(type)}}));
    }
  }
  QueryRequest Q(const std::string& expression, Item values) {
    QueryRequest q;
    q.table_name = "Publications";
    q.key_condition_expression = expression;
    q.expression_attribute_values = std::move(values);
    q.has_expression_attribute_values = true;
    return q;
  }
};

TEST_F(Seed002Test, RetrieveAPublication) {
  auto item = Get("Publications", MakeItem({{"PK", S("PublicationName#TheBetterProgramming")},
                                            {"SK", S("#Metadata#P1")}}));
  ASSERT_TRUE(item.has_value());
  EXPECT_EQ(item->at("followers"), N("1200"));
}

TEST_F(Seed002Test, AllTitlesAndAllTagsOfAPublication) {
  QueryResponse titles = Query(Q("PK = :p AND begins_with(SK, :t)",
                                 MakeItem({{":p", S("PublicationName#TheBetterProgramming")},
                                           {":t", S("Title#")}})));
  EXPECT_EQ(Strings(titles.items, "SK"),
            (std::vector<std::string>{"Title#CppTips", "Title#GraphsOnDynamoDB",
                                      "Title#ModelingInDynamoDB"}));
  QueryResponse tags = Query(Q("PK = :p AND begins_with(SK, :t)",
                               MakeItem({{":p", S("PublicationName#TheBetterProgramming")},
                                         {":t", S("Tag#")}})));
  EXPECT_EQ(tags.count, 4);
}

TEST_F(Seed002Test, CompositeSortKeyHierarchy) {
  QueryResponse pub = Query(Q("PK = :p AND begins_with(SK, :s)",
                              MakeItem({{":p", S("7c0d1f02")},
                                        {":s", S("PublicationName#TheBetterProgramming#Metadata")}})));
  EXPECT_EQ(pub.count, 1);
  // All titles of the publication come with their tags...
  QueryRequest q = Q("PK = :p AND begins_with(SK, :s)",
                     MakeItem({{":p", S("7c0d1f02")},
                               {":s", S("PublicationName#TheBetterProgramming#Title#")}}));
  EXPECT_EQ(Query(q).count, 4);
  // ...so a FilterExpression is needed to keep the titles alone, as the article
  // says. It cannot test the sort key itself (DynamoDB refuses key attributes in
  // a Query's filter): the items carry their entity type.
  q.filter_expression = "NOT contains(SK, :tag)";
  q.expression_attribute_values[":tag"] = S("#Tag#");
  EXPECT_ERROR(db_->Query(q), ErrorType::kValidation,
               "Filter Expression can only contain non-primary key attributes: Primary key "
               "attribute: SK");
  q.filter_expression = "EntityType = :type";
  q.expression_attribute_values.erase(":tag");
  q.expression_attribute_values[":type"] = S("Title");
  QueryResponse titles = Query(q);
  EXPECT_EQ(titles.count, 2);
  EXPECT_EQ(titles.scanned_count, 4);
}

TEST_F(Seed002Test, ATitlesTagsThroughTheGsi) {
  QueryRequest q = Q("GSIPK = :title", MakeItem({{":title", S("Title#ModelingInDynamoDB")}}));
  q.index_name = "GSI1";
  EXPECT_EQ(Strings(Query(q).items, "SK"),
            (std::vector<std::string>{"Tag#AWS#ModelingInDynamoDB", "Tag#NoSQL#ModelingInDynamoDB"}));
}

// ---------------------------------------------------------------- seed 003

class Seed003Test : public SeedsTest {
 protected:
  void SetUp() override {
    SeedsTest::SetUp();
    CreateTable("Users", "PK", AttrType::kS, "SK", AttrType::kS);
    Put("Users", MakeItem({{"PK", S("USER#Alice")}, {"SK", S("PROFILE")},
                           {"name", S("Alice Wonderland")}}));
    auto friends = [&](const std::string& a, const std::string& b, const std::string& since) {
      Put("Users", MakeItem({{"PK", S("USER#" + a)}, {"SK", S("FRIEND#" + b)},
                             {"friendship_since", S(since)}}));
    };
    friends("Alice", "Bob", "2023-01-15");
    friends("Alice", "Charlie", "2023-02-20");
    Put("Users", MakeItem({{"PK", S("USER#Bob")}, {"SK", S("PROFILE")}, {"name", S("Bob")}}));
    friends("Bob", "Alice", "2023-01-15");
    friends("Bob", "Charlie", "2023-03-01");
    Put("Users", MakeItem({{"PK", S("USER#Charlie")}, {"SK", S("PROFILE")},
                           {"name", S("Charlie")}}));
    friends("Charlie", "Alice", "2023-02-20");
    Put("Users", MakeItem({{"PK", S("USER#Alice")}, {"SK", S("LIKES#POST#12345")},
                           {"timestamp", S("2023-04-01T10:00:00Z")}}));
  }
  std::vector<std::string> FriendsOf(const std::string& user) {
    QueryRequest q;
    q.table_name = "Users";
    q.key_condition_expression = "PK = :pk AND begins_with(SK, :friend)";
    q.expression_attribute_values = {{":pk", S("USER#" + user)}, {":friend", S("FRIEND#")}};
    q.has_expression_attribute_values = true;
    std::vector<std::string> out;
    for (const auto& sk : Strings(Query(q).items, "SK")) out.push_back(sk.substr(7));
    return out;
  }
};

TEST_F(Seed003Test, AlicesProfileAndFriendships) {
  auto profile = Get("Users", MakeItem({{"PK", S("USER#Alice")}, {"SK", S("PROFILE")}}));
  ASSERT_TRUE(profile.has_value());
  EXPECT_EQ(profile->at("name"), S("Alice Wonderland"));
  EXPECT_EQ(FriendsOf("Alice"), (std::vector<std::string>{"Bob", "Charlie"}));
  // "is Alice friends with Bob": one GetItem.
  EXPECT_TRUE(Get("Users", MakeItem({{"PK", S("USER#Alice")}, {"SK", S("FRIEND#Bob")}})));
  EXPECT_FALSE(Get("Users", MakeItem({{"PK", S("USER#Charlie")}, {"SK", S("FRIEND#Bob")}})));
}

TEST_F(Seed003Test, MutualFriendsByTwoQueries) {
  std::vector<std::string> alice = FriendsOf("Alice"), bob = FriendsOf("Bob"), mutual;
  std::set_intersection(alice.begin(), alice.end(), bob.begin(), bob.end(),
                        std::back_inserter(mutual));
  EXPECT_EQ(mutual, (std::vector<std::string>{"Charlie"}));
}

}  // namespace
}  // namespace dynarock::testing
