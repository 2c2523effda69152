// Typed records (document/record.h): every member kind to its DynamoDB form
// and back, refusals that name the field, keys, and the version attribute's
// optimistic locking on both backends, including two threads racing.

#include "document/record.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "document/table.h"
#include "tests/unit/document_backends.h"

namespace app {  // a user's own namespace: the declarations work outside dynarock's

namespace doc = dynarock::document;

enum class Priority : uint8_t { kLow = 1, kHigh = 9 };

struct Address {
  std::string city;
  std::optional<std::string> zip;
  bool operator==(const Address&) const = default;
};
DYNAROCK_RECORD(Address, DYNAROCK_FIELD(city), DYNAROCK_FIELD(zip));

struct Todo {
  std::string user;
  int64_t due = 0;
  bool done = false;
  std::optional<std::string> note;
  std::vector<std::string> steps;
  std::set<std::string> tags;
  std::set<int> scores;
  std::map<std::string, int> counts;
  Address address;
  std::vector<Address> places;
  std::chrono::system_clock::time_point created;
  std::chrono::system_clock::time_point touched;
  Priority priority = Priority::kLow;
  double estimate = 0;
  uint8_t small = 0;
  doc::Number exact;
  doc::Bytes blob;
  int64_t version = 0;
  bool operator==(const Todo&) const = default;
};
DYNAROCK_RECORD(Todo,
                DYNAROCK_FIELD(user, doc::kPartitionKey),
                DYNAROCK_FIELD(due, doc::kSortKey),
                DYNAROCK_FIELD(done),
                DYNAROCK_FIELD(note, doc::As("noteText")),
                DYNAROCK_FIELD(steps), DYNAROCK_FIELD(tags), DYNAROCK_FIELD(scores),
                DYNAROCK_FIELD(counts), DYNAROCK_FIELD(address), DYNAROCK_FIELD(places),
                DYNAROCK_FIELD(created, doc::kEpochSeconds),
                DYNAROCK_FIELD(touched),
                DYNAROCK_FIELD(priority), DYNAROCK_FIELD(estimate), DYNAROCK_FIELD(small),
                DYNAROCK_FIELD(exact), DYNAROCK_FIELD(blob),
                DYNAROCK_FIELD(version, doc::kVersion));

// A record whose attribute names the path syntax would misread.
struct Odd {
  std::string id;
  int rev = 0;
  std::optional<int> dotted;
  int64_t v = 0;
};
DYNAROCK_RECORD(Odd, DYNAROCK_FIELD(id, doc::As("user"), doc::kPartitionKey),
                DYNAROCK_FIELD(rev, doc::As("due"), doc::kSortKey),
                DYNAROCK_FIELD(dotted, doc::As("a.b[0]")), DYNAROCK_FIELD(v, doc::kVersion, doc::As("v.1")));

struct KeyOnly {
  std::string user;
  int64_t due = 0;
};
DYNAROCK_RECORD(KeyOnly, DYNAROCK_FIELD(user, doc::kPartitionKey), DYNAROCK_FIELD(due, doc::kSortKey));

struct Measure {
  float small = 0;
  std::chrono::system_clock::time_point at;
};
DYNAROCK_RECORD(Measure, DYNAROCK_FIELD(small), DYNAROCK_FIELD(at));

struct Keyless {
  std::string name;
};
DYNAROCK_RECORD(Keyless, DYNAROCK_FIELD(name));

}  // namespace app

namespace dynarock::document {
namespace {

using app::Todo;
using std::chrono::milliseconds;
using std::chrono::system_clock;

Todo Sample() {
  Todo t;
  t.user = "ann";
  t.due = 3;
  t.note = "buy milk";
  t.steps = {"go", "buy", "go"};
  t.tags = {"home", "urgent"};
  t.scores = {3, 1};
  t.counts = {{"a", 1}, {"b", -2}};
  t.address = {"Oslo", std::nullopt};
  t.places = {{"Rome", "00100"}, {"Oslo", std::nullopt}};
  t.created = system_clock::time_point(milliseconds(1764230400250));
  t.touched = system_clock::time_point(milliseconds(1764230400000));
  t.priority = app::Priority::kHigh;
  t.estimate = 2.5;
  t.small = 200;
  t.exact = Number::Parse("12345678901234567890123456789.25").value();
  t.blob = Bytes{std::string("\x00\x01\xff", 3)};
  return t;
}

TEST(DocumentRecordTest, EveryMemberKindHasItsDynamoDbFormAndComesBackEqual) {
  const Todo t = Sample();
  auto v = ToValue(t);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  auto item = v->ToItem();
  ASSERT_TRUE(item.ok()) << item.status().ToString();

  EXPECT_EQ(item->at("user"), AttributeValue::S("ann"));
  EXPECT_EQ(item->at("due"), AttributeValue::N("3"));
  EXPECT_EQ(item->at("done"), AttributeValue::Bool(false));
  EXPECT_EQ(item->at("noteText"), AttributeValue::S("buy milk"));  // renamed
  EXPECT_FALSE(item->count("note"));
  EXPECT_EQ(item->at("steps").type(), AttrType::kL);  // a vector is a list, repeats kept
  EXPECT_EQ(item->at("steps").list().size(), 3u);
  EXPECT_EQ(item->at("tags").type(), AttrType::kSS);  // a std::set is a set
  EXPECT_EQ(item->at("scores").type(), AttrType::kNS);
  EXPECT_EQ(item->at("counts").type(), AttrType::kM);
  EXPECT_EQ(item->at("address").map().count("zip"), 0u);  // nullopt: absent
  EXPECT_EQ(item->at("places").list()[0].map().at("zip"), AttributeValue::S("00100"));
  EXPECT_EQ(item->at("created"), AttributeValue::N("1764230400.25"));  // epoch seconds
  EXPECT_EQ(item->at("touched"), AttributeValue::S("2025-11-27T08:00:00.000Z"));
  EXPECT_EQ(item->at("priority"), AttributeValue::N("9"));
  EXPECT_EQ(item->at("estimate"), AttributeValue::N("2.5"));
  EXPECT_EQ(item->at("small"), AttributeValue::N("200"));
  EXPECT_EQ(item->at("exact"), AttributeValue::N("12345678901234567890123456789.25"));
  EXPECT_EQ(item->at("blob").type(), AttrType::kB);
  EXPECT_EQ(item->at("version"), AttributeValue::N("0"));

  auto back = FromValue<Todo>(Value::From(*item));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, t);
}

TEST(DocumentRecordTest, EmptySetsAndAbsentOptionalsAreLeftOutAndReadBackEmpty) {
  Todo t;
  t.user = "bob";
  auto v = ToValue(t);
  ASSERT_TRUE(v.ok());
  for (const char* absent : {"noteText", "tags", "scores"}) EXPECT_TRUE((*v)[absent].is_absent()) << absent;
  EXPECT_EQ((*v)["steps"], Value(List{}));  // an empty list is a value
  ASSERT_TRUE(v->ToItem().ok());            // and DynamoDB takes it
  auto back = FromValue<Todo>(*v);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, t);
  // NULL reads as absent; attributes the record does not declare are ignored.
  Value m = Map{{"user", "bob"}, {"noteText", nullptr}, {"extra", 1}};
  auto n = FromValue<Todo>(m);
  ASSERT_TRUE(n.ok());
  EXPECT_FALSE(n->note.has_value());
}

TEST(DocumentRecordTest, AValueThatDoesNotFitItsMemberIsRefusedNamingTheField) {
  auto expect = [](Value v, const std::string& message) {
    auto r = FromValue<Todo>(v);
    ASSERT_FALSE(r.ok()) << message;
    EXPECT_EQ(r.status().type(), ErrorType::kValidation);
    EXPECT_EQ(r.status().message(), message);
  };
  expect(Map{{"due", "3"}}, "due: expected a number, found a string");
  expect(Map{{"due", 1.5}}, "due: the number 1.5 does not fit its integer member");
  expect(Map{{"small", 300}}, "small: the number 300 does not fit its unsigned integer member");
  expect(Map{{"small", -1}}, "small: the number -1 does not fit its unsigned integer member");
  expect(Map{{"address", Map{{"city", 7}}}}, "address.city: expected a string, found a number");
  expect(Map{{"places", List{Map{{"city", "x"}}, Map{{"zip", false}}}}},
         "places[1].zip: expected a string, found a boolean");
  expect(Map{{"counts", Map{{"a", "x"}}}}, "counts.a: expected a number, found a string");
  expect(Map{{"tags", List{"a"}}}, "tags: expected a string set, found a list");  // sets are explicit
  expect(Map{{"tags", Value::NumberSet({1})}}, "tags: expected a string set, found a number set");
  expect(Map{{"steps", Value::NumberSet({1})}}, "steps: expected a list, found a number set");
  expect(Map{{"touched", "yesterday"}}, "touched: 'yesterday' is not an ISO-8601 UTC time");
  expect(Value("x"), "Todo: expected a map, found a string");
}

TEST(DocumentRecordTest, NumbersAndTimesThatCannotBeHeldAreRefused) {
  auto bad = [](Value v) { return FromValue<app::Measure>(v).status(); };
  const std::string huge = "1" + std::string(40, '0');  // past a float's 3.4E+38
  EXPECT_EQ(bad(Map{{"small", Number::Parse(huge).value()}}).message(),
            "small: the number " + huge + " does not fit its floating-point member");
  EXPECT_EQ(bad(Map{{"at", "2300-01-01T00:00:00.000Z"}}).message(),
            "at: the time 2300-01-01T00:00:00.000Z is outside what std::chrono::system_clock holds (1678 to 2261)");
  EXPECT_EQ(bad(Map{{"at", Number::Parse("1E+20").value()}}).type(), ErrorType::kValidation);
  // A NaN given as a double is a Value that holds no number: refused, not thrown.
  auto nan = FromValue<Todo>(Map{{"exact", std::nan("")}});
  ASSERT_FALSE(nan.ok());
  EXPECT_EQ(nan.status().message(), "exact: The parameter cannot be converted to a numeric value: NaN or Infinity");
  auto ok = FromValue<app::Measure>(Map{{"small", 2.5}, {"at", "1970-01-01T00:00:01.500Z"}});
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->small, 2.5f);
  EXPECT_EQ(ok->at, system_clock::time_point(milliseconds(1500)));
}

TEST(DocumentRecordTest, KeysComeFromTheMarkedMembers) {
  auto key = KeyOf(Sample());
  ASSERT_TRUE(key.ok());
  EXPECT_EQ(*key, Value(Map{{"user", "ann"}, {"due", 3}}));
  auto none = KeyOf(app::Keyless{"x"});
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("Keyless declares no partition key"), std::string::npos)
      << none.status().message();
}

using DocumentRecordBackendTest = DocumentBackendTest;

TEST_P(DocumentRecordBackendTest, TheVersionAttributeRefusesAStaleWriter) {
  Table todos(client_, "todos");
  Todo mine = Sample();
  ASSERT_TRUE(todos.Put(mine).ok());
  EXPECT_EQ(mine.version, 1);
  // A second new record under the same key: another writer got there first.
  Todo stale = Sample();
  Status s = todos.Put(stale);
  EXPECT_EQ(s.type(), ErrorType::kConditionalCheckFailed) << s.ToString();
  EXPECT_EQ(stale.version, 0);

  auto got = todos.Get<Todo>(Map{{"user", "ann"}, {"due", 3}}, true);
  ASSERT_TRUE(got.ok() && got->has_value()) << got.status().ToString();
  EXPECT_EQ(**got, mine);

  // Two copies read at version 1: the first update wins, the second is refused.
  Todo a = **got, b = **got;
  a.done = true;
  a.note.reset();  // REMOVEd
  ASSERT_TRUE(todos.Update(a).ok());
  EXPECT_EQ(a.version, 2);
  EXPECT_FALSE(a.note.has_value());
  b.estimate = 9;
  EXPECT_EQ(todos.Update(b).type(), ErrorType::kConditionalCheckFailed);
  EXPECT_EQ(todos.Delete(b).type(), ErrorType::kConditionalCheckFailed);
  EXPECT_EQ(todos.Put(b).type(), ErrorType::kConditionalCheckFailed);

  auto now = todos.Get<Todo>(Map{{"user", "ann"}, {"due", 3}}, true);
  ASSERT_TRUE(now.ok() && now->has_value());
  EXPECT_EQ(**now, a);
  auto raw = todos.Get(Map{{"user", "ann"}, {"due", 3}}, true);
  EXPECT_TRUE((**raw)["noteText"].is_absent());

  // An extra condition is ANDed with the version's.
  a.estimate = 4;
  EXPECT_EQ(todos.Update(a, Name("done").Eq(false)).type(), ErrorType::kConditionalCheckFailed);
  EXPECT_EQ(a.version, 2);
  ASSERT_TRUE(todos.Put(a, Name("done").Eq(true)).ok());
  EXPECT_EQ(a.version, 3);

  ASSERT_TRUE(todos.Delete(a).ok());
  auto gone = todos.Get<Todo>(Map{{"user", "ann"}, {"due", 3}}, true);
  ASSERT_TRUE(gone.ok());
  EXPECT_FALSE(gone->has_value());
}

TEST_P(DocumentRecordBackendTest, AKeyOnlyRecordIsMadeByUpdateAndBadItemsWriteNothing) {
  Table todos(client_, "todos");
  app::KeyOnly k{"kim", 7};
  ASSERT_TRUE(todos.Update(k).ok());  // UpdateItem without an expression makes the item
  auto got = todos.Get(Map{{"user", "kim"}, {"due", 7}}, true);
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ(**got, Value(Map{{"user", "kim"}, {"due", 7}}));
  // What DynamoDB refuses is refused with its words, by the DB or the
  // endpoint (the document API sends it unchecked), and nothing is written.
  Status empty = todos.Put(Map{{"user", "kim"}, {"due", 8}, {"tags", Value::StringSet({})}});
  EXPECT_EQ(empty.type(), ErrorType::kValidation);
  EXPECT_NE(empty.message().find("An string set  may not be empty"), std::string::npos) << empty.message();
  Status twice = todos.Put(Map{{"user", "kim"}, {"due", 8}, {"tags", Value::StringSet({"a", "a"})}});
  EXPECT_EQ(twice.type(), ErrorType::kValidation);
  EXPECT_NE(twice.message().find("duplicate"), std::string::npos) << twice.message();
  auto none = todos.Get(Map{{"user", "kim"}, {"due", 8}}, true);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

TEST_P(DocumentRecordBackendTest, QueriesAndScansReturnRecordsPageByPage) {
  Table todos(client_, "todos");
  for (int due = 1; due <= 25; ++due) {
    Todo t;
    t.user = due % 5 == 0 ? "bob" : "ann";
    t.due = due;
    t.done = due % 2 == 0;
    ASSERT_TRUE(todos.Put(t).ok());
  }
  QueryOptions o;
  o.filter = Name("done").Eq(true);
  auto anns = todos.Query<Todo>(Key("user").Eq("ann"), o);
  ASSERT_TRUE(anns.ok()) << anns.status().ToString();
  ASSERT_EQ(anns->size(), 10u);  // the even dues not divisible by 5
  for (const Todo& t : *anns) {
    EXPECT_EQ(t.user, "ann");
    EXPECT_TRUE(t.done);
    EXPECT_EQ(t.version, 1);
  }
  QueryOptions paged;
  paged.limit = 4;
  std::optional<Value> cursor;
  size_t seen = 0, pages = 0;
  do {
    auto p = todos.ScanPage<Todo>(paged, cursor);
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    seen += p->items.size();
    cursor = p->next;
    ++pages;
  } while (cursor);
  EXPECT_EQ(seen, 25u);
  EXPECT_GE(pages, 7u);
  auto first = todos.QueryPage<Todo>(Key("user").Eq("bob"), paged);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_EQ(first->items.size(), 4u);
  EXPECT_EQ(first->items[0].due, 5);
  auto rest = todos.QueryPage<Todo>(Key("user").Eq("bob"), paged, first->next);
  ASSERT_TRUE(rest.ok());
  ASSERT_EQ(rest->items.size(), 1u);
  EXPECT_EQ(rest->items[0].due, 25);
  // An item that is not the record's shape is refused, naming the field.
  ASSERT_TRUE(todos.Put(Map{{"user", "ann"}, {"due", 99}, {"done", "yes"}}).ok());
  auto bad = todos.Query<Todo>(Key("user").Eq("ann"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "done: expected a boolean, found a string");
}

TEST_P(DocumentRecordBackendTest, NamesThePathSyntaxWouldMisreadAreUsedLiterally) {
  Table todos(client_, "todos");
  app::Odd o{"ann", 1, 5, 0};
  ASSERT_TRUE(todos.Put(o).ok());
  EXPECT_EQ(o.v, 1);
  o.dotted = 6;
  ASSERT_TRUE(todos.Update(o).ok());  // SET #n0 = :v0 on the one attribute "a.b[0]"
  EXPECT_EQ(o.v, 2);
  auto raw = todos.Get(Map{{"user", "ann"}, {"due", 1}}, true);
  ASSERT_TRUE(raw.ok() && raw->has_value());
  EXPECT_EQ(**raw, Value(Map{{"user", "ann"}, {"due", 1}, {"a.b[0]", 6}, {"v.1", 2}}));
  o.dotted.reset();
  ASSERT_TRUE(todos.Update(o).ok());  // REMOVE of it
  auto removed = todos.Get<app::Odd>(Map{{"user", "ann"}, {"due", 1}}, true);
  ASSERT_TRUE(removed.ok() && removed->has_value());
  EXPECT_FALSE((**removed).dotted.has_value());
  EXPECT_EQ((**removed).v, 3);
}

TEST_P(DocumentRecordBackendTest, TwoThreadsIncrementingOneRecordLoseNoIncrement) {
  Table todos(client_, "todos");
  Todo counter;
  counter.user = "counter";
  counter.due = 1;
  ASSERT_TRUE(todos.Put(counter).ok());
  constexpr int kEach = 40;
  std::atomic<int> conflicts{0}, failures{0};
  auto work = [&] {
    for (int i = 0; i < kEach; ++i) {
      for (;;) {  // read, change, write; again when another writer won
        auto got = todos.Get<Todo>(Map{{"user", "counter"}, {"due", 1}}, true);
        if (!got.ok() || !got->has_value()) {
          ++failures;
          return;
        }
        Todo t = **got;
        t.counts["n"] += 1;
        Status s = todos.Update(t);
        if (s.ok()) break;
        if (s.type() != ErrorType::kConditionalCheckFailed) {
          ++failures;
          return;
        }
        ++conflicts;
      }
    }
  };
  std::thread a(work), b(work);
  a.join();
  b.join();
  EXPECT_EQ(failures.load(), 0);
  auto end = todos.Get<Todo>(Map{{"user", "counter"}, {"due", 1}}, true);
  ASSERT_TRUE(end.ok() && end->has_value());
  EXPECT_EQ((**end).counts["n"], 2 * kEach);
  EXPECT_EQ((**end).version, 1 + 2 * kEach);
  std::printf("[ info ] %d conflicts refused and retried\n", conflicts.load());
}

// The same app code on both backends gives the same transcript, compared.
std::string RunApp(client::Client* client) {
  std::string out;
  Table todos(client, "todos");
  Todo t = Sample();
  out += todos.Put(t).ToString() + ";";
  Todo stale = Sample();
  out += todos.Put(stale).ToString() + ";";
  t.done = true;
  out += todos.Update(t).ToString();
  out += ";v" + std::to_string(t.version) + ";";
  auto all = todos.Query<Todo>(Key("user").Eq("ann"));
  out += all.status().ToString() + ";" + std::to_string(all.ok() ? all->size() : 0) + ";";
  auto got = todos.Get(Map{{"user", "ann"}, {"due", 3}}, true);
  if (got.ok() && got->has_value()) out += ToValue(FromValue<Todo>(**got).value()).value() == **got ? "same" : "diff";
  out += todos.Delete(stale).ToString();
  return out;
}

TEST(DocumentRecordBackendsTest, TheSameAppCodeGivesTheSameAnswersEmbeddedAndOverHttp) {
  std::string transcripts[2];
  for (bool http : {false, true}) {
    Backend backend(http);
    ASSERT_TRUE(backend.ok());
    transcripts[http] = RunApp(backend.client());
  }
  EXPECT_EQ(transcripts[0], transcripts[1]);
  EXPECT_NE(transcripts[0].find("ConditionalCheckFailed"), std::string::npos) << transcripts[0];
  EXPECT_NE(transcripts[0].find(";v2;"), std::string::npos) << transcripts[0];
}

INSTANTIATE_TEST_SUITE_P(Backends, DocumentRecordBackendTest, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "Http" : "Embedded"; });

}  // namespace
}  // namespace dynarock::document
