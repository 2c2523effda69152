// Tests of `dynarock patterns` (tools/patterns/): the built-in comparisons give
// sane, deterministic counts; the pattern file format (placeholders, setup,
// errors); the CSV/JSON/SVG outputs parse.

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tools/patterns/builtin.h"
#include "tools/patterns/json.h"
#include "tools/patterns/report.h"
#include "tools/patterns/runner.h"
#include "tools/patterns/user_file.h"

namespace dynarock::patterns {
namespace {

constexpr int64_t kSize = 40;
constexpr int64_t kFanout = 6;

RunOptions SmallRun() {
  RunOptions o;
  o.iterations = 20;
  o.warmup = 2;
  o.seed = 7;
  return o;
}

std::vector<Suite> SmallSuites() {
  BuiltinOptions b;
  b.size = kSize;
  b.fanout = kFanout;
  return BuiltinSuites(b);
}

std::vector<PatternResult> RunAll(const std::vector<Suite>& suites, const RunOptions& o) {
  std::vector<PatternResult> results;
  for (const Suite& s : suites) {
    Status st = RunSuite(s, o, &results);
    EXPECT_TRUE(st.ok()) << st.ToString();
  }
  return results;
}

const PatternResult& Find(const std::vector<PatternResult>& results, const std::string& name) {
  for (const auto& r : results) {
    if (r.pattern == name) return r;
  }
  static PatternResult none;
  ADD_FAILURE() << "no result for pattern " << name;
  return none;
}

class BuiltinTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { results_ = new std::vector<PatternResult>(RunAll(SmallSuites(), SmallRun())); }
  static void TearDownTestSuite() {
    delete results_;
    results_ = nullptr;
  }
  static const PatternResult& R(const std::string& name) { return Find(*results_, name); }
  static std::vector<PatternResult>* results_;
};
std::vector<PatternResult>* BuiltinTest::results_ = nullptr;

TEST_F(BuiltinTest, EveryPatternRanWithoutErrors) {
  ASSERT_EQ(results_->size(), 14u);
  for (const auto& r : *results_) {
    EXPECT_EQ(r.executions, 20) << r.pattern;
    EXPECT_EQ(r.errors, 0) << r.pattern;
    EXPECT_GE(r.p99_us, r.p50_us) << r.pattern;
    EXPECT_GT(r.p50_us, 0) << r.pattern;
    // cost = RCU * read price + WCU * write price (per million executions).
    EXPECT_DOUBLE_EQ(r.cost_per_million, r.rcu * 0.125 + r.wcu * 0.625) << r.pattern;
  }
}

TEST_F(BuiltinTest, AdjacencyListVsNestedList) {
  const auto& adj = R("adjacency-list");
  EXPECT_EQ(adj.requests, 1);
  EXPECT_EQ(adj.items_read, kFanout);  // only the FRIEND# edges are evaluated
  EXPECT_EQ(adj.items_returned, kFanout);
  const auto& nested = R("nested-list");
  EXPECT_EQ(nested.requests, 1);
  EXPECT_EQ(nested.items_read, 1);
  // Small items: both round up to one eventually consistent read unit.
  EXPECT_EQ(adj.rcu, 0.5);
  EXPECT_EQ(nested.rcu, 0.5);
  EXPECT_EQ(R("adjacency-add-friend").wcu, 1);
  EXPECT_EQ(R("adjacency-add-friend").rcu, 0);
  EXPECT_GE(R("nested-add-friend").wcu, 1);
}

TEST_F(BuiltinTest, EdgeSetBatchVsNPlusOne) {
  const auto& batch = R("edge-set-batch");
  EXPECT_EQ(batch.requests, 2);  // GetItem + BatchGetItem
  EXPECT_EQ(batch.items_returned, 1 + kFanout);
  const auto& n1 = R("n-plus-1");
  EXPECT_EQ(n1.requests, kFanout + 1);  // Query + one GetItem per member
  // The Query returns the goal node and its edges, then each user is read.
  EXPECT_EQ(n1.items_read, 1 + kFanout + kFanout);
  // Same users read, per item rounding in both: 0.5 per node read.
  EXPECT_EQ(batch.rcu, 0.5 * (1 + kFanout));
  EXPECT_EQ(n1.rcu, 0.5 * (1 + kFanout));
}

TEST_F(BuiltinTest, GsiQueryVsScanFilter) {
  const auto& gsi = R("gsi-query");
  const auto& scan = R("scan-filter");
  EXPECT_EQ(gsi.items_read, kSize);
  EXPECT_EQ(gsi.items_returned, kSize);
  EXPECT_EQ(scan.items_read, 4 * kSize);  // persons, addresses, 2x links
  EXPECT_EQ(scan.items_returned, kSize);
  EXPECT_EQ(gsi.bytes_returned, scan.bytes_returned);
  // The scan reads (and pays for) every item of the table, not just the matches.
  EXPECT_EQ(gsi.bytes_read, gsi.bytes_returned);
  EXPECT_GT(scan.bytes_read, 3 * gsi.bytes_read);
  EXPECT_GT(scan.rcu, gsi.rcu);
  EXPECT_GT(scan.cost_per_million, gsi.cost_per_million);
}

TEST_F(BuiltinTest, CompositeKeyVsGsiPerLevel) {
  // Both draw the same places, so they find the same stores.
  EXPECT_EQ(R("composite-city").items_returned, R("gsi-city").items_returned);
  EXPECT_EQ(R("composite-state").items_returned, R("gsi-state").items_returned);
  EXPECT_GT(R("composite-state").items_returned, R("composite-city").items_returned);
  EXPECT_EQ(R("composite-put-store").wcu, 1);
  EXPECT_EQ(R("gsi-put-store").wcu, 4);  // the item and one entry in each of 3 GSIs
}

TEST(PatternsRunTest, DeterministicForASeed) {
  auto a = RunAll(SmallSuites(), SmallRun());
  auto b = RunAll(SmallSuites(), SmallRun());
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].pattern, b[i].pattern);
    EXPECT_EQ(a[i].requests, b[i].requests) << a[i].pattern;
    EXPECT_EQ(a[i].items_read, b[i].items_read) << a[i].pattern;
    EXPECT_EQ(a[i].items_returned, b[i].items_returned) << a[i].pattern;
    EXPECT_EQ(a[i].bytes_returned, b[i].bytes_returned) << a[i].pattern;
    EXPECT_EQ(a[i].rcu, b[i].rcu) << a[i].pattern;
    EXPECT_EQ(a[i].wcu, b[i].wcu) << a[i].pattern;
  }
}

TEST(PatternsRunTest, PercentileIsNearestRank) {
  std::vector<double> v = {5, 1, 4, 2, 3};
  EXPECT_EQ(Percentile(&v, 0.5), 3);
  EXPECT_EQ(Percentile(&v, 0.99), 5);
  EXPECT_EQ(Percentile(&v, 0.2), 1);
  std::vector<double> empty;
  EXPECT_EQ(Percentile(&empty, 0.5), 0);
}

// ---------------------------------------------------------------- templates

TEST(TemplateTest, ExpandsPlaceholders) {
  Rng rng(1);
  auto t = Template::Compile(R"({"a":"USER#{i}","b":"{j+1}","c":"{i%10}","d":"{i%166*3+2}"})");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->Expand(1234, 4, rng), R"({"a":"USER#1234","b":"5","c":"4","d":"218"})");
}

TEST(TemplateTest, RandIsInRangeAndDeterministic) {
  auto t = Template::Compile("{rand:5}");
  ASSERT_TRUE(t.ok());
  Rng a(3), b(3);
  std::map<std::string, int> seen;
  for (int k = 0; k < 200; ++k) {
    std::string x = t->Expand(0, 0, a);
    EXPECT_EQ(x, t->Expand(0, 0, b));
    seen[x]++;
  }
  EXPECT_EQ(seen.size(), 5u);
  for (const auto& [v, n] : seen) EXPECT_TRUE(v >= "0" && v <= "4") << v;
}

TEST(TemplateTest, ArithmeticWrapsAroundInsteadOfOverflowing) {
  Rng rng(1);
  auto t = Template::Compile("{i*999999999999999*999999999999999}|{i-999999999999999*10000}");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  const uint64_t big = 999999999999999u;
  const int64_t product = static_cast<int64_t>(7u * big * big);
  const int64_t difference = static_cast<int64_t>((uint64_t{7} - big) * 10000u);
  EXPECT_EQ(t->Expand(7, 0, rng), std::to_string(product) + "|" + std::to_string(difference));
}

TEST(TemplateTest, LeavesJsonBracesAlone) {
  Rng rng(1);
  auto t = Template::Compile(R"({"k":{"S":"x"},"l":[{}]})");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->Expand(0, 0, rng), R"({"k":{"S":"x"},"l":[{}]})");
}

TEST(TemplateTest, RejectsBadPlaceholders) {
  EXPECT_FALSE(Template::Compile("{x}").ok());
  EXPECT_FALSE(Template::Compile("{rand:0}").ok());
  EXPECT_FALSE(Template::Compile("{i%0}").ok());
  EXPECT_FALSE(Template::Compile("{i:3}").ok());
  EXPECT_FALSE(Template::Compile("{i").ok());
}

// ---------------------------------------------------------------- pattern files

std::string SourceDir() {
  std::string f = __FILE__;  // .../tests/unit/patterns_test.cc
  return f.substr(0, f.rfind("/tests/unit/"));
}

std::string ReadExample() {
  std::ifstream in(SourceDir() + "/tests/data/patterns_example.json");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(PatternFileTest, ExampleFileRuns) {
  std::string text = ReadExample();
  ASSERT_FALSE(text.empty()) << "tests/data/patterns_example.json not found from " << SourceDir();
  auto suite = LoadPatternFile(text, "patterns_example.json");
  ASSERT_TRUE(suite.ok()) << suite.status().ToString();
  EXPECT_EQ(suite->name, "orders");
  ASSERT_EQ(suite->patterns.size(), 5u);
  RunOptions o = SmallRun();
  std::vector<PatternResult> results;
  Status s = RunSuite(*suite, o, &results);
  ASSERT_TRUE(s.ok()) << s.ToString();
  const auto& coll = Find(results, "orders-of-customer-collection");
  const auto& gsi = Find(results, "orders-of-customer-gsi");
  EXPECT_EQ(coll.executions, 100);  // the file's "iterations"
  EXPECT_EQ(coll.items_returned, 10);  // 500 orders over 50 customers
  EXPECT_EQ(gsi.items_returned, 10);
  const auto& one = Find(results, "three-orders-one-by-one");
  EXPECT_EQ(one.executions, 20);
  EXPECT_EQ(one.requests, 3);  // "repeat": 3
  EXPECT_EQ(one.items_returned, 3);
  EXPECT_EQ(one.rcu, 1.5);
  const auto& batch = Find(results, "three-orders-batch");
  EXPECT_EQ(batch.requests, 1);
  EXPECT_EQ(batch.items_returned, 3);
  EXPECT_EQ(batch.rcu, 1.5);
  const auto& put = Find(results, "place-order");
  EXPECT_EQ(put.wcu, 2);  // item + ByCustomer entry
  EXPECT_DOUBLE_EQ(put.cost_per_million, 2 * 0.625);
}

TEST(PatternFileTest, PagesAndErrors) {
  const std::string text = R"json({
    "setup": {
      "tables": [{"TableName": "tab", "BillingMode": "PAY_PER_REQUEST",
                  "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                           {"AttributeName": "sk", "AttributeType": "N"}],
                  "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                                {"AttributeName": "sk", "KeyType": "RANGE"}]}],
      "items": [{"table": "tab", "count": 30, "item": {"pk": {"S": "p"}, "sk": {"N": "{i}"}}}]
    },
    "patterns": [
      {"name": "paged", "iterations": 3, "requests": [{"operation": "Query", "all_pages": true,
        "body": {"TableName": "tab", "Limit": 10, "KeyConditionExpression": "pk = :p",
                 "ExpressionAttributeValues": {":p": {"S": "p"}}}}]},
      {"name": "one-page", "iterations": 3, "requests": [{"operation": "Query",
        "body": {"TableName": "tab", "Limit": 10, "KeyConditionExpression": "pk = :p",
                 "ExpressionAttributeValues": {":p": {"S": "p"}}}}]},
      {"name": "failing-condition", "iterations": 4, "continue_on_error": true,
       "requests": [{"operation": "PutItem", "body": {"TableName": "tab",
         "Item": {"pk": {"S": "p"}, "sk": {"N": "1"}},
         "ConditionExpression": "attribute_not_exists(pk)"}}]}
    ]})json";
  auto suite = LoadPatternFile(text, "inline");
  ASSERT_TRUE(suite.ok()) << suite.status().ToString();
  EXPECT_EQ(suite->name, "custom");
  RunOptions o = SmallRun();
  o.warmup = 0;
  std::vector<PatternResult> results;
  Status s = RunSuite(*suite, o, &results);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(Find(results, "paged").requests, 4);  // 10 + 10 + 10 + an empty last page
  EXPECT_EQ(Find(results, "paged").items_returned, 30);
  EXPECT_EQ(Find(results, "one-page").requests, 1);
  EXPECT_EQ(Find(results, "one-page").items_returned, 10);
  EXPECT_EQ(Find(results, "failing-condition").errors, 1);
  EXPECT_EQ(Find(results, "failing-condition").requests, 1);
  // DynamoDB bills the write whose condition failed (one unit: a small item).
  EXPECT_EQ(Find(results, "failing-condition").wcu, 1);
  EXPECT_GT(Find(results, "failing-condition").cost_per_million, 0);

  // Without continue_on_error a failed request stops the run.
  std::string strict = text;
  strict.replace(strict.find("\"continue_on_error\": true"), 25, "\"continue_on_error\": false");
  auto strict_suite = LoadPatternFile(strict, "inline");
  ASSERT_TRUE(strict_suite.ok());
  results.clear();
  s = RunSuite(*strict_suite, o, &results);
  EXPECT_EQ(s.type(), ErrorType::kConditionalCheckFailed) << s.ToString();
  EXPECT_NE(s.message().find("failing-condition"), std::string::npos) << s.message();
}

TEST(PatternFileTest, ReportsMistakesBeforeRunning) {
  auto err = [](const std::string& text) {
    auto s = LoadPatternFile(text, "f.json");
    EXPECT_FALSE(s.ok()) << text;
    return s.ok() ? std::string() : s.status().message();
  };
  EXPECT_NE(err("{").find("f.json: not JSON: line 1"), std::string::npos) << err("{");
  EXPECT_NE(err(R"({"patterns": []})").find("\"patterns\""), std::string::npos);
  std::string m = err(R"({"patterns": [{"name": "p", "requests": [
      {"operation": "Frobnicate", "body": {}}]}]})");
  EXPECT_NE(m.find("pattern 'p', request 0"), std::string::npos) << m;
  EXPECT_NE(m.find("Frobnicate"), std::string::npos) << m;
  m = err(R"({"patterns": [{"name": "p", "requests": [
      {"operation": "GetItem", "body": {"TableName": "tab", "Key": {"k": {"Q": "x"}}}}]}]})");
  EXPECT_NE(m.find("pattern 'p', request 0"), std::string::npos) << m;
  m = err(R"({"patterns": [{"name": "p", "requests": [
      {"operation": "GetItem", "body": {"TableName": "{table}", "Key": {}}}]}]})");
  EXPECT_NE(m.find("unknown placeholder"), std::string::npos) << m;
  m = err(R"({"patterns": [{"name": "p", "requests": [
      {"operation": "GetItem", "all_pages": true, "body": {"TableName": "tab", "Key": {}}}]}]})");
  EXPECT_NE(m.find("all_pages"), std::string::npos) << m;
  m = err(R"({"patterns": [{"name": "p", "iterations": 0, "requests": [
      {"operation": "GetItem", "body": {"TableName": "tab", "Key": {}}}]}]})");
  EXPECT_NE(m.find("iterations"), std::string::npos) << m;
  m = err(R"({"setup": {"items": [{"table": "t", "item": {"a": {"S": 1}}}]},
      "patterns": [{"name": "p", "requests": [
      {"operation": "GetItem", "body": {"TableName": "tab", "Key": {}}}]}]})");
  EXPECT_NE(m.find("setup.items[0]"), std::string::npos) << m;
  // Numbers past their bounds are refused before anything is allocated or run.
  const std::string get = R"({"operation": "GetItem", "body": {"TableName": "tab", "Key": {}}})";
  m = err(R"({"patterns": [{"name": "p", "iterations": 999999999999999, "requests": [)" + get + "]}]}");
  EXPECT_EQ(m, "f.json: pattern 'p': \"iterations\" must be a whole number from 1 to 100000000");
  m = err(R"({"patterns": [{"name": "p", "requests": [{"operation": "GetItem", "repeat": 100001,
      "body": {"TableName": "tab", "Key": {}}}]}]})");
  EXPECT_EQ(m, "f.json: pattern 'p', request 0: \"repeat\" must be a whole number from 1 to 100000");
  m = err(R"({"setup": {"items": [{"table": "t", "count": 10000001, "item": {"a": {"S": "x"}}}]},
      "patterns": [{"name": "p", "requests": [)" + get + "]}]}");
  EXPECT_EQ(m, "f.json: setup.items[0]: \"count\" must be a whole number from 0 to 10000000");
  m = err(R"({"patterns": [{"name": "p", "iterations": 1.5, "requests": [)" + get + "]}]}");
  EXPECT_NE(m.find("\"iterations\" must be a whole number"), std::string::npos) << m;
}

// ---------------------------------------------------------------- outputs

std::vector<PatternResult> SampleResults() {
  PatternResult a;
  a.comparison = "cmp";
  a.pattern = "first";
  a.description = "has, a comma and \"quotes\"";
  a.executions = 10;
  a.requests = 2;
  a.items_read = 21;
  a.items_returned = 21;
  a.bytes_returned = 2469;
  a.rcu = 10.5;
  a.p50_us = 12.5;
  a.p99_us = 40;
  a.mean_us = 15;
  a.cost_per_million = 1.3125;
  PatternResult b = a;
  b.comparison = "other <&> group";
  b.pattern = "second";
  b.rcu = 0;
  b.wcu = 4;
  b.cost_per_million = 2.5;
  return {a, b};
}

ReportInfo SampleInfo() {
  ReportInfo info;
  info.options.iterations = 10;
  info.titles = {{"cmp", "a comparison"}, {"other <&> group", "another"}};
  return info;
}

std::vector<std::string> SplitCsvLine(const std::string& line) {
  std::vector<std::string> fields;
  std::string cur;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cur.push_back('"');
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cur.push_back(c);
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  fields.push_back(cur);
  return fields;
}

TEST(ReportTest, CsvParses) {
  std::string csv = FormatCsv(SampleResults());
  std::istringstream in(csv);
  std::string line;
  std::vector<std::vector<std::string>> rows;
  while (std::getline(in, line)) rows.push_back(SplitCsvLine(line));
  ASSERT_EQ(rows.size(), 3u);
  ASSERT_EQ(rows[0].size(), 15u);
  EXPECT_EQ(rows[0][0], "comparison");
  EXPECT_EQ(rows[0][5], "bytes_read");
  EXPECT_EQ(rows[0][14], "cost_per_million_usd");
  for (size_t r = 1; r < rows.size(); ++r) ASSERT_EQ(rows[r].size(), 15u) << r;
  EXPECT_EQ(rows[1][1], "first");
  EXPECT_EQ(rows[1][3], "2");
  EXPECT_EQ(rows[1][8], "10.5");
  EXPECT_EQ(rows[1][14], "1.3125");
  EXPECT_EQ(rows[2][0], "other <&> group");
  EXPECT_EQ(rows[2][9], "4");
}

TEST(ReportTest, JsonParses) {
  std::string text = FormatJson(SampleResults(), SampleInfo());
  auto doc = ParseJson(text);
  ASSERT_TRUE(doc.ok()) << doc.status().ToString() << "\n" << text;
  ASSERT_NE(doc->Find("read_price_per_million"), nullptr);
  EXPECT_EQ(doc->Find("read_price_per_million")->text, "0.125");
  EXPECT_EQ(doc->Find("write_price_per_million")->text, "0.625");
  const Json* results = doc->Find("results");
  ASSERT_NE(results, nullptr);
  ASSERT_EQ(results->array.size(), 2u);
  const Json& first = results->array[0];
  EXPECT_EQ(first.Find("pattern")->text, "first");
  EXPECT_EQ(first.Find("description")->text, "has, a comma and \"quotes\"");
  EXPECT_EQ(first.Find("rcu")->text, "10.5");
  EXPECT_EQ(first.Find("cost_per_million_usd")->text, "1.3125");
  EXPECT_EQ(results->array[1].Find("wcu")->text, "4");
}

// A small well-formedness check: balanced tags, quoted attributes, no raw '<'
// or bare '&' in text, one root element.
bool WellFormedXml(const std::string& s, std::string* error) {
  std::vector<std::string> stack;
  size_t i = 0;
  int roots = 0;
  auto fail = [&](const std::string& m) {
    *error = m + " at offset " + std::to_string(i);
    return false;
  };
  auto check_text = [&](std::string_view text) {
    for (size_t k = 0; k < text.size(); ++k) {
      if (text[k] == '&') {
        size_t semi = text.find(';', k);
        if (semi == std::string_view::npos) return false;
        std::string_view ent = text.substr(k, semi - k + 1);
        if (ent != "&amp;" && ent != "&lt;" && ent != "&gt;" && ent != "&quot;" && ent != "&apos;") {
          return false;
        }
      }
    }
    return true;
  };
  while (i < s.size()) {
    size_t lt = s.find('<', i);
    if (lt == std::string::npos) {
      if (!check_text(std::string_view(s).substr(i))) return fail("bad entity");
      break;
    }
    if (!check_text(std::string_view(s).substr(i, lt - i))) return fail("bad entity in text");
    if (stack.empty() && s.substr(i, lt - i).find_first_not_of(" \n\t\r") != std::string::npos) {
      return fail("text outside the root");
    }
    i = lt;
    if (s.compare(i, 5, "<?xml") == 0) {
      size_t end = s.find("?>", i);
      if (end == std::string::npos) return fail("unterminated declaration");
      i = end + 2;
      continue;
    }
    size_t gt = s.find('>', i);
    if (gt == std::string::npos) return fail("unterminated tag");
    std::string tag = s.substr(i + 1, gt - i - 1);
    i = gt + 1;
    if (!tag.empty() && tag[0] == '/') {
      if (stack.empty() || stack.back() != tag.substr(1)) return fail("mismatched </" + tag + ">");
      stack.pop_back();
      continue;
    }
    bool self_closing = !tag.empty() && tag.back() == '/';
    if (self_closing) tag.pop_back();
    std::string name = tag.substr(0, tag.find_first_of(" \n\t"));
    if (name.empty()) return fail("empty tag name");
    // Attributes: name="value" pairs.
    std::string rest = tag.substr(name.size());
    size_t k = 0;
    while (true) {
      k = rest.find_first_not_of(" \n\t", k);
      if (k == std::string::npos) break;
      size_t eq = rest.find('=', k);
      if (eq == std::string::npos || eq + 1 >= rest.size() || rest[eq + 1] != '"') {
        return fail("unquoted attribute in <" + name + ">");
      }
      size_t close = rest.find('"', eq + 2);
      if (close == std::string::npos) return fail("unterminated attribute");
      if (rest.substr(eq + 2, close - eq - 2).find('<') != std::string::npos) {
        return fail("'<' in attribute");
      }
      if (!check_text(rest.substr(eq + 2, close - eq - 2))) return fail("bad entity in attribute");
      k = close + 1;
    }
    if (stack.empty()) ++roots;
    if (!self_closing) stack.push_back(name);
  }
  if (!stack.empty()) return fail("unclosed <" + stack.back() + ">");
  if (roots != 1) return fail("expected one root element");
  return true;
}

TEST(ReportTest, SvgIsWellFormed) {
  std::string svg = RenderSvg(SampleResults(), SampleInfo());
  std::string error;
  EXPECT_TRUE(WellFormedXml(svg, &error)) << error << "\n" << svg;
  EXPECT_NE(svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos);
  EXPECT_NE(svg.find("other &lt;&amp;&gt; group"), std::string::npos);
  EXPECT_NE(svg.find(">first</text>"), std::string::npos);
  EXPECT_NE(svg.find(">second</text>"), std::string::npos);
  // The checker itself rejects broken documents.
  EXPECT_FALSE(WellFormedXml("<svg><g></svg>", &error));
  EXPECT_FALSE(WellFormedXml("<svg a=b/>", &error));
  EXPECT_FALSE(WellFormedXml("<svg>a & b</svg>", &error));
}

TEST(ReportTest, SvgOfRealRunIsWellFormed) {
  BuiltinOptions b;
  b.size = 10;
  b.fanout = 3;
  RunOptions o = SmallRun();
  o.iterations = 3;
  std::vector<PatternResult> results = RunAll(BuiltinSuites(b), o);
  ReportInfo info;
  info.options = o;
  std::string error;
  std::string svg = RenderSvg(results, info);
  EXPECT_TRUE(WellFormedXml(svg, &error)) << error;
}

TEST(ReportTest, TableListsEveryPattern) {
  std::string table = FormatTable(SampleResults(), SampleInfo());
  EXPECT_NE(table.find("cmp: a comparison"), std::string::npos) << table;
  EXPECT_NE(table.find("first"), std::string::npos);
  EXPECT_NE(table.find("second"), std::string::npos);
  EXPECT_NE(table.find("$0.125 per million read request units"), std::string::npos) << table;
  EXPECT_NE(table.find("1.3125"), std::string::npos);
}

// ---------------------------------------------------------------- json

TEST(PatternsJsonTest, RoundTrips) {
  const std::string text = R"({"a":[1,-2.5e3,true,false,null],"b":"x\"\\\n\u00e9\ud83d\ude00","c":{}})";
  auto doc = ParseJson(text);
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  EXPECT_EQ(doc->Find("b")->text, "x\"\\\n\xC3\xA9\xF0\x9F\x98\x80");
  EXPECT_EQ(WriteJson(*doc), "{\"a\":[1,-2.5e3,true,false,null],\"b\":\"x\\\"\\\\\\n\xC3\xA9\xF0\x9F\x98\x80\",\"c\":{}}");
  EXPECT_FALSE(ParseJson("{\"a\":}").ok());
  EXPECT_FALSE(ParseJson("[1,]").ok());
  EXPECT_FALSE(ParseJson("\"unterminated").ok());
  EXPECT_FALSE(ParseJson("{} x").ok());
  // Not JSON either: a lone low surrogate, a leading zero, a member twice.
  auto fails = [](std::string_view text) {
    auto d = ParseJson(text);
    return d.ok() ? std::string("(parsed)") : d.status().message();
  };
  EXPECT_EQ(fails(R"(["\udc00"])"), "line 1, column 9: unpaired surrogate");
  EXPECT_EQ(fails(R"(["\ud800x"])"), "line 1, column 9: unpaired surrogate");
  EXPECT_EQ(fails("[01]"), "line 1, column 4: invalid number (leading zero)");
  EXPECT_TRUE(ParseJson("[0, -0, 0.5, 10]").ok());
  EXPECT_EQ(fails("{\"a\": 1,\n \"a\": 2}"), "line 2, column 5: duplicate member \"a\"");
}

}  // namespace
}  // namespace dynarock::patterns
