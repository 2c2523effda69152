// Pins the expression parser's acceptance and its error messages, which are
// DynamoDB's (see engine/expr/parser.h): syntax errors with token and "near"
// text, reserved words, undefined and unused #names/:values, function checks,
// limits, key-condition shapes, and projection path overlap.

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/expr/ast.h"
#include "engine/expr/expression.h"
#include "engine/number.h"

namespace dynarock::expr {
namespace {

NameMap TestNames() {
  return {{"#n", "name"}, {"#a", "a"}, {"#b", "b"}, {"#k", "key"}};
}

ValueMap TestValues() {
  return {{":s", AttributeValue::S("x")},
          {":s2", AttributeValue::S("y")},
          {":n", AttributeValue::N("1")},
          {":n5", AttributeValue::N("5")},
          {":b", AttributeValue::B("\x01\x02")},
          {":l", AttributeValue::L({AttributeValue::N("1")})},
          {":ss", AttributeValue::SS({"a", "b"})},
          {":t", AttributeValue::S("SS")},
          {":bad", AttributeValue::S("X")},
          {":bool", AttributeValue::Bool(true)}};
}

// Parses `text` as `kind` with the test maps; returns "" on success or the
// error message.
std::string ParseError(std::string_view text, ExpressionKind kind) {
  NameMap names = TestNames();
  ValueMap values = TestValues();
  ExpressionContext ctx(&names, &values, true, true);
  Status s;
  switch (kind) {
    case ExpressionKind::kUpdate:
      s = ParseUpdate(text, &ctx).status();
      break;
    case ExpressionKind::kProjection:
      s = ParseProjection(text, &ctx).status();
      break;
    case ExpressionKind::kKeyCondition:
      s = ParseKeyCondition(text, &ctx).status();
      break;
    default:
      s = ParseCondition(text, kind, &ctx).status();
      break;
  }
  if (!s.ok()) {
    EXPECT_EQ(s.type(), ErrorType::kValidation) << s.ToString();
  }
  return s.ok() ? "" : s.message();
}

struct Case {
  ExpressionKind kind;
  std::string text;
  std::string error;  // "" = accepted
};

constexpr auto C = ExpressionKind::kCondition;
constexpr auto F = ExpressionKind::kFilter;
constexpr auto U = ExpressionKind::kUpdate;
constexpr auto P = ExpressionKind::kProjection;
constexpr auto K = ExpressionKind::kKeyCondition;

const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = {
      // Accepted conditions.
      {C, "a = :s", ""},
      {C, "a <> :s AND b < :n OR c <= :n", ""},
      {C, "a > :n and b >= :n or not c = :s", ""},
      {C, "NOT NOT a = :s", ""},
      {C, "a BETWEEN :n AND :n5", ""},
      {C, "a between :n and :n5 AND b IN (:s, :s2)", ""},
      {C, "a.b[1].c = :s", ""},
      {C, "#a.#b[0] = :s", ""},
      {C, "(a = :s)", ""},
      {C, "((a = :s) AND (b = :s)) OR (c = :s)", ""},
      // Parentheses directly around parentheses are refused (DynamoDB's
      // "redundant parentheses"), before any other semantic error.
      {C, "((a = :s) AND (b = :s)) OR ((c = :s))",
       "Invalid ConditionExpression: The expression has redundant parentheses;"},
      {C, "((attribute_exists(a)))",
       "Invalid ConditionExpression: The expression has redundant parentheses;"},
      {F, "((a)) = :s", "Invalid FilterExpression: The expression has redundant parentheses;"},
      {C, "a = ((:s))", "Invalid ConditionExpression: The expression has redundant parentheses;"},
      {C, "((nope(a) = :s))",
       "Invalid ConditionExpression: The expression has redundant parentheses;"},
      {K, "((a = :s))",
       "Invalid KeyConditionExpression: The expression has redundant parentheses;"},
      {C, "(a = :s) AND (b = :s)", ""},
      // < <= > >= and BETWEEN refuse literals that cannot be ordered.
      {C, "a > :bool",
       "Invalid ConditionExpression: Incorrect operand type for operator or function; operator "
       "or function: >, operand type: BOOL"},
      {C, ":ss <= a",
       "Invalid ConditionExpression: Incorrect operand type for operator or function; operator "
       "or function: <=, operand type: SS"},
      {F, "a BETWEEN :l AND :l",
       "Invalid FilterExpression: Incorrect operand type for operator or function; operator or "
       "function: BETWEEN, operand type: L"},
      {C, "a = :bool OR a <> :l", ""},
      // List indexes run to 2^32 - 2.
      {U, "SET a[4294967294] = :s", ""},
      {U, "SET a[4294967295] = :s",
       "Invalid UpdateExpression: List index is not within the allowable range; index: "
       "[4294967295]"},
      {P, "a[99999999999999999999]",
       "Invalid ProjectionExpression: List index is not within the allowable range; index: "
       "[99999999999999999999]"},
      {C, "(a) = :s", ""},
      {C, "a = (:s)", ""},
      {C, "attribute_exists(a) AND attribute_not_exists(b.c)", ""},
      {C, "attribute_type(a, :t)", ""},
      {C, "begins_with(a, :s) AND contains(b, :n)", ""},
      {C, "size(a) > :n", ""},
      {C, "(size(a)) > :n", ""},
      {C, ":n < size(a)", ""},
      {C, "(attribute_exists(a))", ""},
      {C, "NOT attribute_exists(a)", ""},
      {C, "contains(size(a), :n)", ""},
      {C, "a IN (b, c)", ""},
      {C, "a_1 = :s AND _b = :s", ""},
      {C, "a[0][1] = :s", ""},
      {C, "  a\t=\n:s  ", ""},
      // Syntax errors: token and the text from the token before to the one after.
      {C, "foo", "Invalid ConditionExpression: Syntax error; token: \"<EOF>\", near: \"foo\""},
      {C, "a =", "Invalid ConditionExpression: Syntax error; token: \"<EOF>\", near: \"=\""},
      {C, "attribute_not_exists(",
       "Invalid ConditionExpression: Syntax error; token: \"<EOF>\", near: \"(\""},
      {C, "attribute_type()",
       "Invalid ConditionExpression: Syntax error; token: \")\", near: \"()\""},
      {C, "a = = :s", "Invalid ConditionExpression: Syntax error; token: \"=\", near: \"= = :s\""},
      {C, "a ! :s", "Invalid ConditionExpression: Syntax error; token: \"!\", near: \"a ! :s\""},
      {F, "a = :s AND", "Invalid FilterExpression: Syntax error; token: \"<EOF>\", near: \"AND\""},
      {C, "a = :s b", "Invalid ConditionExpression: Syntax error; token: \"b\", near: \":s b\""},
      {C, "a AND b = :s",
       "Invalid ConditionExpression: Syntax error; token: \"AND\", near: \"a AND b\""},
      {C, "NOT a", "Invalid ConditionExpression: Syntax error; token: \"<EOF>\", near: \"a\""},
      {C, "a = 5", "Invalid ConditionExpression: Syntax error; token: \"5\", near: \"= 5\""},
      {C, "a[x] = :s", "Invalid ConditionExpression: Syntax error; token: \"x\", near: \"[x]\""},
      {C, "a.[1] = :s", "Invalid ConditionExpression: Syntax error; token: \"[\", near: \".[1\""},
      {C, "a BETWEEN :n OR :n5",
       "Invalid ConditionExpression: Syntax error; token: \"OR\", near: \":n OR :n5\""},
      {C, "a IN ()", "Invalid ConditionExpression: Syntax error; token: \")\", near: \"()\""},
      {C, "(a = :s", "Invalid ConditionExpression: Syntax error; token: \"<EOF>\", near: \":s\""},
      {C, "a = :s)", "Invalid ConditionExpression: Syntax error; token: \")\", near: \":s)\""},
      {C, "a # b", "Invalid ConditionExpression: Syntax error; token: \"#\", near: \"a # b\""},
      {C, "", "Invalid ConditionExpression: The expression can not be empty;"},
      {C, "   ", "Invalid ConditionExpression: The expression can not be empty;"},
      // Reserved words, names and values.
      {C, "name = :s",
       "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: name"},
      {C, "a.Status = :s",
       "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: "
       "Status"},
      {C, "#n = :s", ""},
      {C, "#zz = :s",
       "Invalid ConditionExpression: An expression attribute name used in the document path is "
       "not defined; attribute name: #zz"},
      {C, "a = :zz",
       "Invalid ConditionExpression: An expression attribute value used in expression is not "
       "defined; attribute value: :zz"},
      // Functions.
      {C, "foo(a)", "Invalid ConditionExpression: Invalid function name; function: foo"},
      {C, "SIZE(a) > :n", "Invalid ConditionExpression: Invalid function name; function: SIZE"},
      {C, "if_not_exists(a, :s) = :s",
       "Invalid ConditionExpression: Invalid function name; function: if_not_exists"},
      {C, "size(a)",
       "Invalid ConditionExpression: The function is not allowed to be used this way in an "
       "expression; function: size"},
      {C, "begins_with(a, :s) = :s",
       "Invalid ConditionExpression: The function is not allowed to be used this way in an "
       "expression; function: begins_with"},
      {C, "attribute_exists(a, b)",
       "Invalid ConditionExpression: Incorrect number of operands for operator or function; "
       "operator or function: attribute_exists, number of operands: 2"},
      {C, "contains(a)",
       "Invalid ConditionExpression: Incorrect number of operands for operator or function; "
       "operator or function: contains, number of operands: 1"},
      {C, "attribute_exists(:s)",
       "Invalid ConditionExpression: Operator or function requires a document path; operator or "
       "function: attribute_exists"},
      {C, "attribute_type(a, :bad)",
       "Invalid ConditionExpression: Invalid attribute type name found; type: X, valid types: "
       "{B,NULL,SS,BOOL,L,BS,N,NS,S,M}"},
      {C, "attribute_type(a, :n)",
       "Invalid ConditionExpression: Incorrect operand type for operator or function; operator "
       "or function: attribute_type, operand type: N"},
      {C, "begins_with(a, :n)",
       "Invalid ConditionExpression: Incorrect operand type for operator or function; operator "
       "or function: begins_with, operand type: N"},
      {C, "size(:n) > :n",
       "Invalid ConditionExpression: Incorrect operand type for operator or function; operator "
       "or function: size, operand type: N"},
      {C, "a = a",
       "Invalid ConditionExpression: The first operand must be distinct from the remaining "
       "operands for this operator or function; operator: =, first operand: [a]"},
      // Undefined names and values, operand counts, distinctness and operand
      // types are reported operator by operator, left to right (captured from
      // DynamoDB).
      {C, "attribute_exists(:n) and a = a",
       "Invalid ConditionExpression: Operator or function requires a document path; operator "
       "or function: attribute_exists"},
      {C, "a = a AND b = :zz",
       "Invalid ConditionExpression: The first operand must be distinct from the remaining "
       "operands for this operator or function; operator: =, first operand: [a]"},
      {C, "b = :zz AND a = a",
       "Invalid ConditionExpression: An expression attribute value used in expression is not "
       "defined; attribute value: :zz"},
      {C, "contains(a.b, a.b)",
       "Invalid ConditionExpression: The first operand must be distinct from the remaining "
       "operands for this operator or function; operator: contains, first operand: [a, b]"},
      {C, "a BETWEEN :n5 AND :n",
       "Invalid ConditionExpression: The BETWEEN operator requires upper bound to be greater "
       "than or equal to lower bound; lower bound operand: AttributeValue: {N:5}, upper bound "
       "operand: AttributeValue: {N:1}"},
      {C, "a BETWEEN :n AND :s",
       "Invalid ConditionExpression: The BETWEEN operator requires same data type for lower and "
       "upper bounds; lower bound operand: AttributeValue: {N:1}, upper bound operand: "
       "AttributeValue: {S:x}"},
      // Error order: unknown function before reserved word before undefined value.
      {C, "name = :zz AND foo(a)",
       "Invalid ConditionExpression: Invalid function name; function: foo"},
      {C, "name = :zz",
       "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: name"},
      // Projections.
      {P, "a, b.c, d[1], #n", ""},
      {P, "a b", "Invalid ProjectionExpression: Syntax error; token: \"b\", near: \"a b\""},
      {P, "a,", "Invalid ProjectionExpression: Syntax error; token: \"<EOF>\", near: \",\""},
      {P, "!!!", "Invalid ProjectionExpression: Syntax error; token: \"!\", near: \"!!\""},
      {P, "a, a.b",
       "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or "
       "rewrite one of these paths; path one: [a], path two: [a, b]"},
      {P, "a.b, a[1]",
       "Invalid ProjectionExpression: Two document paths conflict with each other; must remove "
       "or rewrite one of these paths; path one: [a, b], path two: [a, [1]]"},
      {P, "a[1], a[2], a.b",
       "Invalid ProjectionExpression: Two document paths conflict with each other; must remove "
       "or rewrite one of these paths; path one: [a, [1]], path two: [a, b]"},
      {P, "size",
       "Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved keyword: "
       "size"},
      // Updates.
      {U, "SET a = :s, b = b + :n, c = c - :n REMOVE d, e[1] ADD f :n DELETE g :ss", ""},
      {U, "set a = if_not_exists(a, :n), b = list_append(b, :l)", ""},
      {U, "SET a = list_append(if_not_exists(a, :l), :l)", ""},
      {U, "SET a = (b + :n)", ""},
      {U, "SET a = (b) + :n", ""},
      {U, "SET a.b[2].c = :s", ""},
      {U, "SET a = = :s", "Invalid UpdateExpression: Syntax error; token: \"=\", near: \"= = :s\""},
      {U, "SET a = :s,", "Invalid UpdateExpression: Syntax error; token: \"<EOF>\", near: \",\""},
      {U, "SET", "Invalid UpdateExpression: Syntax error; token: \"<EOF>\", near: \"SET\""},
      {U, "SET a = b + ", "Invalid UpdateExpression: Syntax error; token: \"<EOF>\", near: \"+\""},
      {U, "SET a = b / :n", "Invalid UpdateExpression: Syntax error; token: \"/\", near: \"b / :n\""},
      {U, "SET a = b + :n + :n",
       "Invalid UpdateExpression: Syntax error; token: \"+\", near: \":n + :n\""},
      {U, "a = :s", "Invalid UpdateExpression: Syntax error; token: \"a\", near: \"a =\""},
      {U, "ADD a b", "Invalid UpdateExpression: Syntax error; token: \"b\", near: \"a b\""},
      {U, "SET a = :s SET b = :s",
       "Invalid UpdateExpression: The \"SET\" section can only be used once in an update "
       "expression;"},
      {U, "SET a = :s, a.b = :s",
       "Invalid UpdateExpression: Two document paths overlap with each other; must remove or "
       "rewrite one of these paths; path one: [a], path two: [a, b]"},
      {U, "SET a = :s REMOVE a",
       "Invalid UpdateExpression: Two document paths overlap with each other; must remove or "
       "rewrite one of these paths; path one: [a], path two: [a]"},
      {U, "SET a.b = :s REMOVE a[1]",
       "Invalid UpdateExpression: Two document paths conflict with each other; must remove or "
       "rewrite one of these paths; path one: [a, b], path two: [a, [1]]"},
      {U, "SET a[1] = :s, a[2] = :s", ""},
      {U, "SET a = :s + :n",
       "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or "
       "function: +, operand type: S"},
      {U, "SET a = list_append(a, :s)",
       "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or "
       "function: list_append, operand type: S"},
      {U, "SET a = if_not_exists(:s, a)",
       "Invalid UpdateExpression: Operator or function requires a document path; operator or "
       "function: if_not_exists"},
      {U, "SET a = size(b)", "Invalid UpdateExpression: Invalid function name; function: size"},
      {U, "SET a = list_append(a)",
       "Invalid UpdateExpression: Incorrect number of operands for operator or function; "
       "operator or function: list_append, number of operands: 1"},
      {U, "ADD a :s",
       "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: "
       "ADD, operand type: STRING"},
      {U, "DELETE a :n",
       "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: "
       "DELETE, operand type: NUMBER"},
      {U, "SET name = :s",
       "Invalid UpdateExpression: Attribute name is a reserved keyword; reserved keyword: name"},
      {U, "REMOVE #zz",
       "Invalid UpdateExpression: An expression attribute name used in the document path is not "
       "defined; attribute name: #zz"},
      // Key conditions (messages without the "Invalid ..." prefix, as DynamoDB sends them).
      {K, "#k = :s AND b BETWEEN :n AND :n5", ""},
      {K, "#k = :s AND begins_with(b, :s)", ""},
      {K, ":s = #k", ""},
      {K, "#k = :s OR b = :s", "Invalid operator used in KeyConditionExpression: OR"},
      {K, "NOT #k = :s", "Invalid operator used in KeyConditionExpression: NOT"},
      {K, "#k IN (:s, :s2)", "Invalid operator used in KeyConditionExpression: IN"},
      {K, "#k <> :s", "Invalid operator used in KeyConditionExpression: <>"},
      {K, "attribute_exists(#k)",
       "Invalid operator used in KeyConditionExpression: attribute_exists"},
      {K, "size(#k) = :n", "KeyConditionExpressions cannot contain nested operations"},
      {K, "a.b = :s", "KeyConditionExpressions cannot have conditions on nested attributes"},
      {K, "a = b",
       "Invalid condition in KeyConditionExpression: Multiple attribute names used in one "
       "condition"},
      {K, ":s = :s2", "Invalid condition in KeyConditionExpression: No key attribute specified"},
      {K, "a = :s AND a > :s", "KeyConditionExpressions must only contain one condition per key"},
      {K, ":n BETWEEN a AND :n5",
       "Invalid condition in KeyConditionExpression: BETWEEN operator must have the key "
       "attribute as its first operand"},
      {K, "a = :s AND", "Invalid KeyConditionExpression: Syntax error; token: \"<EOF>\", near: "
                        "\"AND\""},
  };
  return cases;
}

TEST(ExprParser, Table) {
  for (const Case& c : Cases()) {
    EXPECT_EQ(ParseError(c.text, c.kind), c.error)
        << ExpressionKindName(c.kind) << ": " << c.text;
  }
}

TEST(ExprParser, SizeLimit) {
  std::string text = "a = :s";
  text.append(4096 - text.size(), ' ');
  EXPECT_EQ(ParseError(text, C), "");
  text.push_back(' ');
  EXPECT_EQ(ParseError(text, F),
            "Invalid FilterExpression: Expression size has exceeded the maximum allowed size; "
            "expression size: 4097");
  // Only condition and filter expressions say how large they were.
  std::string update = "SET a = :s";
  update.append(4097 - update.size(), ' ');
  EXPECT_EQ(ParseError(update, U),
            "Invalid UpdateExpression: Expression size has exceeded the maximum allowed size;");
  std::string projection = "a";
  projection.append(4096, ' ');
  EXPECT_EQ(ParseError(projection, P),
            "Invalid ProjectionExpression: Expression size has exceeded the maximum allowed "
            "size;");
}

TEST(ExprParser, OperatorLimit) {
  std::string ok = "a = :s";
  for (int i = 1; i < 150; ++i) ok += " OR a = :s";  // 299 operators
  EXPECT_EQ(ParseError(ok, C), "");
  ok += " OR a = :s";  // 301
  EXPECT_EQ(ParseError(ok, F),
            "Invalid FilterExpression: The expression contains too many operators; operator "
            "count: 301");
}

TEST(ExprParser, InOperandLimit) {
  std::string text = "a IN (:s";
  for (int i = 1; i < 100; ++i) text += ",:s";
  EXPECT_EQ(ParseError(text + ")", C), "");
  EXPECT_EQ(ParseError(text + ",:s)", C),
            "Invalid ConditionExpression: The IN operator is provided with too many operands; "
            "number of operands: 101");
}

TEST(ExprParser, DeepNestingIsRejectedNotCrashing) {
  // As deep as the operator limit allows is accepted: each level of
  // "a = :s AND (...)" costs two operators.
  std::string nested;
  for (int i = 0; i < 149; ++i) nested += "a = :s AND (";
  nested += "a = :s" + std::string(149, ')');
  EXPECT_EQ(ParseError(nested, C), "");
  for (int depth : {2, 200, 2000}) {
    std::string text = std::string(depth, '(') + "a = :s" + std::string(depth, ')');
    EXPECT_NE(ParseError(text, C), "") << depth;
    std::string ops = "a = ";
    for (int i = 0; i < depth; ++i) ops += "(";
    ops += ":s";
    EXPECT_NE(ParseError(ops, C), "");
  }
  std::string alternating;
  for (int i = 0; i < 2000; ++i) alternating += "(a = :s AND ";
  EXPECT_NE(ParseError(alternating + "a = :s" + std::string(2000, ')'), C), "");
  std::string update = "SET a = ";
  for (int i = 0; i < 2000; ++i) update += "list_append(";
  EXPECT_NE(ParseError(update, U), "");
}

TEST(ExprContext, UnusedAndInvalidMaps) {
  NameMap names = {{"#a", "a"}, {"#x", "x"}};
  ValueMap values = {{":v", AttributeValue::S("v")}, {":w", AttributeValue::S("w")}};
  {
    ExpressionContext ctx(&names, &values, true, true);
    ASSERT_TRUE(ctx.ValidateMaps().ok());
    ASSERT_TRUE(ParseCondition("#a = :v", C, &ctx).ok());
    EXPECT_EQ(ctx.CheckAllUsed().message(),
              "Value provided in ExpressionAttributeNames unused in expressions: keys: {#x}");
  }
  {
    ExpressionContext ctx(&names, &values, true, true);
    ASSERT_TRUE(ParseCondition("#a = :v AND #x = :v", C, &ctx).ok());
    EXPECT_EQ(ctx.CheckAllUsed().message(),
              "Value provided in ExpressionAttributeValues unused in expressions: keys: {:w}");
  }
  {
    NameMap empty_names;
    ExpressionContext ctx(&empty_names, nullptr, true, false);
    EXPECT_EQ(ctx.ValidateMaps().message(), "ExpressionAttributeNames must not be empty");
  }
  {
    ValueMap empty_values;
    ExpressionContext ctx(nullptr, &empty_values, false, true);
    EXPECT_EQ(ctx.ValidateMaps().message(), "ExpressionAttributeValues must not be empty");
  }
  {
    NameMap bad = {{"x", "x"}};
    ExpressionContext ctx(&bad, nullptr, true, false);
    EXPECT_EQ(ctx.ValidateMaps().message(),
              "ExpressionAttributeNames contains invalid key: Syntax error; key: \"x\"");
  }
  {
    ValueMap bad = {{":a-b", AttributeValue::S("x")}};
    ExpressionContext ctx(nullptr, &bad, false, true);
    EXPECT_EQ(ctx.ValidateMaps().message(),
              "ExpressionAttributeValues contains invalid key: Syntax error; key: \":a-b\"");
  }
  {
    ExpressionContext ctx(nullptr, nullptr, false, false);
    EXPECT_TRUE(ctx.ValidateMaps().ok());
    EXPECT_TRUE(ctx.CheckAllUsed().ok());
  }
}

TEST(ExprParser, KeyConditionTerms) {
  NameMap names = TestNames();
  ValueMap values = TestValues();
  ExpressionContext ctx(&names, &values, true, true);
  auto terms = ParseKeyCondition(":n5 > r AND #k = :s", &ctx);
  ASSERT_TRUE(terms.ok()) << terms.status().ToString();
  ASSERT_EQ(terms->size(), 2u);
  EXPECT_EQ((*terms)[0].attribute_name, "r");
  EXPECT_EQ((*terms)[0].op, KeyOp::kLt);
  EXPECT_EQ((*terms)[0].value1, AttributeValue::N("5"));
  EXPECT_EQ((*terms)[1].attribute_name, "key");
  EXPECT_EQ((*terms)[1].op, KeyOp::kEq);
  auto between = ParseKeyCondition("r BETWEEN :n AND :n5", &ctx);
  ASSERT_TRUE(between.ok());
  EXPECT_EQ((*between)[0].op, KeyOp::kBetween);
  EXPECT_EQ((*between)[0].value2, AttributeValue::N("5"));
  auto begins = ParseKeyCondition("begins_with(r, :s)", &ctx);
  ASSERT_TRUE(begins.ok());
  EXPECT_EQ((*begins)[0].op, KeyOp::kBeginsWith);
}

TEST(ExprParser, ProjectionPaths) {
  NameMap names = TestNames();
  ExpressionContext ctx(&names, nullptr, true, false);
  auto spec = ParseProjection("#n.x[3], y", &ctx);
  ASSERT_TRUE(spec.ok());
  ASSERT_EQ(spec->paths.size(), 2u);
  EXPECT_EQ(PathToString(spec->paths[0]), "name.x[3]");
  EXPECT_EQ(PathToString(spec->paths[1]), "y");
}

TEST(ExprParser, ReservedWordList) {
  EXPECT_TRUE(IsReservedWord("ABORT"));
  EXPECT_TRUE(IsReservedWord("zone"));
  EXPECT_TRUE(IsReservedWord("Name"));
  EXPECT_TRUE(IsReservedWord("TTL"));
  EXPECT_FALSE(IsReservedWord("pk"));
  EXPECT_FALSE(IsReservedWord("names1"));
  EXPECT_FALSE(IsReservedWord(""));
}

TEST(ExprParser, ConditionAttributeNames) {
  NameMap names = TestNames();
  ValueMap values = TestValues();
  ExpressionContext ctx(&names, &values, true, true);
  auto cond = ParseCondition("a.b = :s AND (size(c[1]) > :n OR #n = :s) AND a = :s", F, &ctx);
  ASSERT_TRUE(cond.ok());
  EXPECT_EQ(ConditionAttributeNames(**cond), (std::vector<std::string>{"a", "c", "name"}));
}

}  // namespace
}  // namespace dynarock::expr
