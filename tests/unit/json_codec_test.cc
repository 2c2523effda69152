// Pins the protocol codec (engine/api): the JSON writer and base64 helpers, every
// operation's request decoding from DynamoDB-shaped JSON (the shapes of the AWS
// API reference examples), the SerializationException / ValidationException texts
// for malformed bodies, wrong JSON types, missing members, bad enums and bad
// AttributeValues, the exact JSON of encoded responses and errors, and the client
// direction: request -> JSON -> request and response -> JSON -> response round trips.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include <string>
#include <vector>

#include "engine/api/base64.h"
#include "engine/api/json_backups.h"
#include "engine/api/json_decode.h"
#include "engine/api/json_encode.h"
#include "engine/api/json_writer.h"

namespace dynarock::api {
namespace {

template <typename T>
T Must(StatusOr<T> r) {
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok()) return T{};
  return std::move(r).value();
}

template <typename T>
Status ErrorOf(const StatusOr<T>& r) {
  EXPECT_FALSE(r.ok());
  return r.status();
}

#define EXPECT_CODEC_ERROR(expr, type_, message_)                  \
  do {                                                       \
    Status s_ = ErrorOf(expr);                               \
    EXPECT_EQ(s_.type(), ErrorType::type_) << s_.ToString(); \
    EXPECT_EQ(s_.message(), message_);                       \
  } while (0)

AttributeValue S(std::string s) { return AttributeValue::S(std::move(s)); }
AttributeValue N(std::string s) { return AttributeValue::N(std::move(s)); }

// ---------------------------------------------------------------- writer, base64

TEST(JsonWriter, NestingAndCommas) {
  JsonWriter w;
  w.BeginObject();
  w.Key("a");
  w.BeginArray();
  w.Int(1);
  w.Int(-2);
  w.BeginObject();
  w.EndObject();
  w.BeginArray();
  w.EndArray();
  w.EndArray();
  w.MemberBool("b", true);
  w.Key("c");
  w.Null();
  w.MemberDouble("d", 1.5);
  w.Member("e", "x");
  w.EndObject();
  EXPECT_EQ(w.Release(), R"({"a":[1,-2,{},[]],"b":true,"c":null,"d":1.5,"e":"x"})");
}

TEST(JsonWriter, EscapesQuotesBackslashAndControlCharacters) {
  std::string out;
  AppendJsonString(std::string("a\"b\\c\n\t\r\b\f\x01\x1f", 12) + std::string(1, '\0'), &out);
  EXPECT_EQ(out, R"("a\"b\\c\n\t\r\b\f\u0001\u001f\u0000")");
  out.clear();
  AppendJsonString("h\xc3\xa9llo \xe2\x82\xac / \x7f", &out);  // UTF-8 and DEL as is
  EXPECT_EQ(out, "\"h\xc3\xa9llo \xe2\x82\xac / \x7f\"");
}

// The writer skips eight bytes at a time while none needs escaping: every
// byte value, at every offset of a long string, escapes as a byte-by-byte
// reference does.
TEST(JsonWriter, EscapingAtEveryOffsetMatchesAByteByByteReference) {
  auto reference = [](std::string_view s) {
    std::string out = "\"";
    for (unsigned char c : s) {
      switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
          if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof(buf), "\\u%04x", c);
            out += buf;
          } else {
            out.push_back(static_cast<char>(c));
          }
      }
    }
    return out + "\"";
  };
  // Every length from 0 to 20, and 31-33 and 47 (the word-wide checks' short, overlapping and
  // whole-word cases, 8 and 16 bytes wide), every byte at every offset, through AppendJsonString
  // and the writer's three ways of writing a string, into one writer that
  // keeps growing.
  JsonWriter w;
  std::string expected;
  w.BeginArray();
  expected = "[";
  bool first = true;
  std::vector<size_t> lengths;
  for (size_t len = 0; len <= 20; ++len) lengths.push_back(len);
  for (size_t len : {31, 32, 33, 47}) lengths.push_back(len);
  for (size_t len : lengths) {
    for (int c = 0; c < 256; ++c) {
      for (size_t at = 0; at < std::max<size_t>(len, 1); ++at) {
        std::string s(len, 'a');
        if (len > 0) s[at] = static_cast<char>(c);
        if (at + 1 < s.size()) s[at + 1] = static_cast<char>(0xC3);  // UTF-8 lead bytes stay as they are
        std::string out;
        AppendJsonString(s, &out);
        ASSERT_EQ(out, reference(s)) << "byte " << c << " at " << at << " of " << len;
        w.String(s);
        w.ObjectWithString("{\"S\":", s);
        w.BeginObject();
        w.Key(s);
        w.Int(1);
        w.EndObject();
        expected += std::string(first ? "" : ",") + reference(s) + ",{\"S\":" + reference(s) +
                    "},{" + reference(s) + ":1}";
        first = false;
      }
    }
  }
  w.EndArray();
  expected += "]";
  EXPECT_EQ(w.str().size(), expected.size());
  EXPECT_TRUE(w.str() == expected);
  w.String("after str()");  // the writer goes on after str() cut it
  EXPECT_EQ(w.Release(), expected + ",\"after str()\"");
}

TEST(JsonWriter, Doubles) {
  std::string out;
  AppendJsonDouble(1707091234.25, &out);
  EXPECT_EQ(out, "1707091234.25");
  out.clear();
  AppendJsonDouble(0.5, &out);
  EXPECT_EQ(out, "0.5");
  out.clear();
  AppendJsonDouble(2, &out);
  EXPECT_EQ(out, "2");
  out.clear();
  AppendJsonDouble(1.7e9, &out);
  EXPECT_EQ(out, "1700000000");
  out.clear();
  AppendJsonDouble(1e-7, &out);
  EXPECT_EQ(out, "1e-07");
  out.clear();
  AppendJsonDouble(-0.25, &out);
  EXPECT_EQ(out, "-0.25");
}

TEST(Base64, EncodeDecodeVectors) {
  const std::pair<std::string, std::string> kCases[] = {
      {"", ""}, {"f", "Zg=="}, {"fo", "Zm8="}, {"foo", "Zm9v"},
      {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"},
      {std::string("\x00\xff\xfe", 3), "AP/+"}};
  for (const auto& [raw, text] : kCases) {
    EXPECT_EQ(Base64Encode(raw), text);
    std::string back;
    ASSERT_TRUE(Base64Decode(text, &back)) << text;
    EXPECT_EQ(back, raw);
  }
}

TEST(Base64, RejectsInvalidText) {
  std::string out, error;
  EXPECT_FALSE(Base64Decode("abc", &out, &error));
  EXPECT_EQ(error, "Base64 encoded length is expected a multiple of 4 bytes but found: 3");
  EXPECT_FALSE(Base64Decode("ab$d", &out, &error));
  EXPECT_FALSE(Base64Decode("a===", &out, &error));
  EXPECT_FALSE(Base64Decode("ab=d", &out, &error));
  EXPECT_FALSE(Base64Decode("Zm9=Zm9v", &out, &error));
  EXPECT_FALSE(Base64Decode("Zh==", &out, &error));  // non-zero unused bits
  EXPECT_FALSE(Base64Decode("Zm9 ", &out, &error));
}

// ---------------------------------------------------------------- attribute values

TEST(JsonDecode, AllTenAttributeTypes) {
  Item item = Must(DecodeItemJson(R"({
    "s": {"S": "Frodo"}, "n": {"N": "-01.50"}, "b": {"B": "AAEC"},
    "t": {"BOOL": true}, "z": {"NULL": true},
    "l": {"L": [{"S": "a"}, {"N": "1"}, {"L": []}]},
    "m": {"M": {"x": {"M": {}}, "y": {"SS": ["b", "a"]}}},
    "ss": {"SS": ["z", "y"]}, "ns": {"NS": ["10", "9"]}, "bs": {"BS": ["Ag==", "AQ=="]}
  })"));
  ASSERT_EQ(item.size(), 10u);
  EXPECT_EQ(item["s"], S("Frodo"));
  EXPECT_EQ(item["n"].scalar(), "-01.50");  // kept as received
  EXPECT_EQ(item["b"], AttributeValue::B(std::string("\x00\x01\x02", 3)));
  EXPECT_EQ(item["t"], AttributeValue::Bool(true));
  EXPECT_EQ(item["z"], AttributeValue::Null());
  EXPECT_EQ(item["l"], AttributeValue::L({S("a"), N("1"), AttributeValue::L({})}));
  EXPECT_EQ(item["m"].map().at("y"), AttributeValue::SS({"a", "b"}));
  EXPECT_EQ(item["ss"].set(), (std::vector<std::string>{"y", "z"}));
  EXPECT_EQ(item["ns"].type(), AttrType::kNS);
  EXPECT_EQ(item["bs"], AttributeValue::BS({"\x01", "\x02"}));
}

TEST(JsonDecode, AttributeValueEncodeDecodeRoundTrip) {
  Item item;
  item["pk"] = S("USER#Frodo \"the\" \\ brave\n");
  item["bin"] = AttributeValue::B(std::string("\0\xff\x10", 3));
  item["nested"] = AttributeValue::M(
      {{"list", AttributeValue::L({AttributeValue::Null(), AttributeValue::Bool(false)})},
       {"bs", AttributeValue::BS({"a", "bc"})},
       {"ns", AttributeValue::NS({"1", "2.5"})}});
  std::string json = EncodeItemJson(item);
  EXPECT_EQ(Must(DecodeItemJson(json)), item);
  EXPECT_EQ(EncodeAttributeValueJson(S("x")), R"({"S":"x"})");
  EXPECT_EQ(Must(DecodeAttributeValueJson(R"({"N":"7"})")), N("7"));
}

TEST(JsonDecode, StructurallyInvalidAttributeValues) {
  const char* kEmpty =
      "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes";
  const char* kMany =
      "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the "
      "supported datatypes";
  EXPECT_CODEC_ERROR(DecodeItemJson(R"({"a":{}})"), kValidation, kEmpty);
  EXPECT_CODEC_ERROR(DecodeItemJson(R"({"a":{"X":"1"}})"), kValidation, kEmpty);
  EXPECT_CODEC_ERROR(DecodeItemJson(R"({"a":{"S":null}})"), kValidation, kEmpty);
  EXPECT_CODEC_ERROR(DecodeItemJson(R"({"a":{"L":[{}]}})"), kValidation, kEmpty);
  EXPECT_CODEC_ERROR(DecodeItemJson(R"({"a":{"S":"x","N":"1"}})"), kValidation, kMany);
  EXPECT_CODEC_ERROR(DecodeItemJson(R"({"a":{"M":{"b":{"S":"x","S":"y"}}}})"), kValidation, kMany);
  EXPECT_CODEC_ERROR(DecodeItemJson(R"({"a":{"NULL":false}})"), kValidation,
               "One or more parameter values were invalid: Null attribute value types must "
               "have the value of true");
  EXPECT_CODEC_ERROR(DecodeItemJson(R"({"a":{"B":"not base64"}})"), kSerialization,
               "Base64 encoded length is expected a multiple of 4 bytes but found: 10");
  EXPECT_CODEC_ERROR(DecodeItemJson(R"({"a":{"BS":["AA=="," AA="]}})"), kSerialization,
               "Invalid Base64 character: ' '");
  EXPECT_CODEC_ERROR(DecodeItemJson(R"({"a":{"S":5}})"), kSerialization,
               "NUMBER_VALUE cannot be converted to String");
  EXPECT_CODEC_ERROR(DecodeItemJson(R"({"a":{"N":5}})"), kSerialization,
               "NUMBER_VALUE cannot be converted to String");
  EXPECT_CODEC_ERROR(DecodeItemJson(R"({"a":{"BOOL":"true"}})"), kSerialization,
               "STRING_VALUE cannot be converted to Boolean");
  EXPECT_CODEC_ERROR(DecodeItemJson(R"({"a":{"SS":"x"}})"), kSerialization, "Unexpected field type");
  EXPECT_CODEC_ERROR(DecodeItemJson(R"({"a":{"M":[]}})"), kSerialization,
               "Start of list found where not expected");
  EXPECT_CODEC_ERROR(DecodeItemJson(R"({"a":{"L":{}}})"), kSerialization,
               "Start of structure or map found where not expected");
  EXPECT_CODEC_ERROR(DecodeItemJson(R"({"a":"x"})"), kSerialization, "Unexpected field type");
  // A serialization error anywhere wins over an earlier invalid value.
  EXPECT_CODEC_ERROR(DecodeItemJson(R"({"a":{},"b":{"S":true}})"), kSerialization,
               "TRUE_VALUE cannot be converted to String");
}

// ---------------------------------------------------------------- requests: tables

TEST(JsonDecode, CreateTable) {
  auto r = Must(DecodeCreateTableRequest(R"({
    "AttributeDefinitions": [
      {"AttributeName": "ForumName", "AttributeType": "S"},
      {"AttributeName": "Subject", "AttributeType": "S"},
      {"AttributeName": "LastPostDateTime", "AttributeType": "S"},
      {"AttributeName": "Views", "AttributeType": "N"}
    ],
    "TableName": "Thread",
    "KeySchema": [
      {"AttributeName": "ForumName", "KeyType": "HASH"},
      {"AttributeName": "Subject", "KeyType": "RANGE"}
    ],
    "LocalSecondaryIndexes": [{
      "IndexName": "LastPostIndex",
      "KeySchema": [
        {"AttributeName": "ForumName", "KeyType": "HASH"},
        {"AttributeName": "LastPostDateTime", "KeyType": "RANGE"}
      ],
      "Projection": {"ProjectionType": "KEYS_ONLY"}
    }],
    "GlobalSecondaryIndexes": [{
      "IndexName": "ByViews",
      "KeySchema": [{"AttributeName": "Views", "KeyType": "HASH"}],
      "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["Subject"]},
      "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 2}
    }],
    "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5},
    "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_IMAGE"},
    "Tags": [{"Key": "team", "Value": "forums"}],
    "TableClass": "STANDARD",
    "DeletionProtectionEnabled": false,
    "SSESpecification": {"Enabled": true}
  })"));
  EXPECT_EQ(r.table_name, "Thread");
  ASSERT_EQ(r.attribute_definitions.size(), 4u);
  EXPECT_EQ(r.attribute_definitions[3].attribute_name, "Views");
  EXPECT_EQ(r.attribute_definitions[3].attribute_type, AttrType::kN);
  ASSERT_EQ(r.key_schema.size(), 2u);
  EXPECT_EQ(r.key_schema[1].key_type, KeyType::kRange);
  ASSERT_EQ(r.local_secondary_indexes.size(), 1u);
  EXPECT_EQ(r.local_secondary_indexes[0].projection.projection_type, ProjectionType::kKeysOnly);
  ASSERT_EQ(r.global_secondary_indexes.size(), 1u);
  const auto& g = r.global_secondary_indexes[0];
  EXPECT_EQ(g.index_name, "ByViews");
  EXPECT_EQ(g.projection.projection_type, ProjectionType::kInclude);
  EXPECT_EQ(g.projection.non_key_attributes, std::vector<std::string>{"Subject"});
  ASSERT_TRUE(g.provisioned_throughput);
  EXPECT_EQ(g.provisioned_throughput->write_capacity_units, 2);
  ASSERT_TRUE(r.provisioned_throughput);
  EXPECT_EQ(r.provisioned_throughput->read_capacity_units, 5);
  EXPECT_FALSE(r.billing_mode);
  ASSERT_TRUE(r.stream_specification);
  EXPECT_EQ(r.stream_specification->stream_view_type, "NEW_IMAGE");
  ASSERT_EQ(r.tags.size(), 1u);
  EXPECT_EQ(r.tags[0].value, "forums");
  EXPECT_EQ(r.table_class, "STANDARD");
  EXPECT_EQ(r.deletion_protection_enabled, false);
}

TEST(JsonDecode, CreateTableErrors) {
  EXPECT_CODEC_ERROR(DecodeCreateTableRequest("{}"), kValidation,
               "3 validation errors detected: "
               "Value null at 'attributeDefinitions' failed to satisfy constraint: Member must not be null; "
               "Value null at 'tableName' failed to satisfy constraint: Member must not be null; "
               "Value null at 'keySchema' failed to satisfy constraint: Member must not be null");
  EXPECT_CODEC_ERROR(DecodeCreateTableRequest(R"({"TableName":"tbl",
      "AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"X"}],
      "KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"KeyType":"SORT"}],
      "BillingMode":"ON_DEMAND"})"),
               kValidation,
               "4 validation errors detected: "
               "Value 'X' at 'attributeDefinitions.1.member.attributeType' failed to satisfy "
               "constraint: Member must satisfy enum value set: [B, N, S]; "
               "Value null at 'keySchema.2.member.attributeName' failed to satisfy constraint: "
               "Member must not be null; "
               "Value 'SORT' at 'keySchema.2.member.keyType' failed to satisfy constraint: "
               "Member must satisfy enum value set: [HASH, RANGE]; "
               "Value 'ON_DEMAND' at 'billingMode' failed to satisfy constraint: Member must "
               "satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]");
  EXPECT_CODEC_ERROR(DecodeCreateTableRequest(R"({"TableName":"tbl","AttributeDefinitions":[],
      "KeySchema":[],"ProvisionedThroughput":{"ReadCapacityUnits":0}})"),
               kValidation,
               "3 validation errors detected: "
               "Value '[]' at 'keySchema' failed to satisfy constraint: Member must have length "
               "greater than or equal to 1; "
               "Value '0' at 'provisionedThroughput.readCapacityUnits' failed to satisfy "
               "constraint: Member must have value greater than or equal to 1; "
               "Value null at 'provisionedThroughput.writeCapacityUnits' failed to satisfy "
               "constraint: Member must not be null");
  EXPECT_CODEC_ERROR(DecodeCreateTableRequest(R"({"TableName":"tbl","AttributeDefinitions":{},
      "KeySchema":[]})"),
               kSerialization, "Start of structure or map found where not expected");
  EXPECT_CODEC_ERROR(DecodeCreateTableRequest(R"({"TableName":"tbl","AttributeDefinitions":[],
      "KeySchema":[],"ProvisionedThroughput":{"ReadCapacityUnits":"5","WriteCapacityUnits":5}})"),
               kSerialization, "STRING_VALUE cannot be converted to Long");
  EXPECT_CODEC_ERROR(DecodeCreateTableRequest(R"({"TableName":"tbl","AttributeDefinitions":[],
      "KeySchema":[{"AttributeName":"a","KeyType":"HASH"}],
      "GlobalSecondaryIndexes":[{"IndexName":"i","KeySchema":[]}]})"),
               kValidation,
               "3 validation errors detected: Value 'i' at "
               "'globalSecondaryIndexes.1.member.indexName' failed to satisfy constraint: Member "
               "must have length greater than or equal to 3; Value '[]' at "
               "'globalSecondaryIndexes.1.member.keySchema' failed to satisfy constraint: Member "
               "must have length greater than or equal to 1; Value null at "
               "'globalSecondaryIndexes.1.member.projection' failed to satisfy constraint: "
               "Member must not be null");
}

// DynamoDB lists, and counts, at most ten constraint violations.
TEST(JsonDecode, ViolationsListedAtMostTen) {
  std::string lsis;
  for (int i = 0; i < 9; ++i) lsis += std::string(i ? "," : "") + "{}";
  StatusOr<CreateTableRequest> r = DecodeCreateTableRequest(
      R"({"TableName":"tbl","AttributeDefinitions":[],"KeySchema":[{"AttributeName":"a","KeyType":"HASH"}],
          "LocalSecondaryIndexes":[)" + lsis + "]}");
  ASSERT_FALSE(r.ok());
  const std::string& m = r.status().message();
  EXPECT_EQ(m.rfind("10 validation errors detected: ", 0), 0u) << m;
  size_t listed = 0;
  for (size_t at = m.find("Value null at"); at != std::string::npos; at = m.find("Value null at", at + 1)) {
    ++listed;
  }
  EXPECT_EQ(listed, 10u);
  // Each index's members in DynamoDB's order: key schema, projection, name.
  EXPECT_NE(m.find("'localSecondaryIndexes.4.member.keySchema'"), std::string::npos);
  EXPECT_EQ(m.find("'localSecondaryIndexes.4.member.projection'"), std::string::npos);
}

// Empty lists and maps whose shape wants an entry, shown as DynamoDB shows them.
TEST(JsonDecode, EmptyListsAndMaps) {
  EXPECT_CODEC_ERROR(DecodeBatchWriteItemRequest(R"({"RequestItems":{}})"), kValidation,
               "1 validation error detected: Value '{}' at 'requestItems' failed to satisfy "
               "constraint: Member must have length greater than or equal to 1");
  EXPECT_CODEC_ERROR(DecodeTransactWriteItemsRequest(R"({"TransactItems":[]})"), kValidation,
               "1 validation error detected: Value '[]' at 'transactItems' failed to satisfy "
               "constraint: Member must have length greater than or equal to 1");
  EXPECT_CODEC_ERROR(DecodeGetItemRequest(R"({"TableName":"tbl","Key":{},"AttributesToGet":[]})"),
               kValidation,
               "1 validation error detected: Value '[]' at 'attributesToGet' failed to satisfy "
               "constraint: Member must have length greater than or equal to 1");
  EXPECT_CODEC_ERROR(DecodeListTablesRequest(R"({"ExclusiveStartTableName":"a;"})"), kValidation,
               "2 validation errors detected: Value 'a;' at 'exclusiveStartTableName' failed to "
               "satisfy constraint: Member must satisfy regular expression pattern: "
               "[a-zA-Z0-9_.-]+; Value 'a;' at 'exclusiveStartTableName' failed to satisfy "
               "constraint: Member must have length greater than or equal to 3");
}

// An N member's number is read before the members are counted.
TEST(JsonDecode, NumberBeforeDatatypeCount) {
  EXPECT_CODEC_ERROR(DecodeGetItemRequest(R"({"TableName":"tbl","Key":{"a":{"S":"a","N":"b"}}})"),
               kValidation, "The parameter cannot be converted to a numeric value: b");
  EXPECT_CODEC_ERROR(DecodeGetItemRequest(R"({"TableName":"tbl","Key":{"a":{"S":"a","N":"1"}}})"),
               kValidation,
               "Supplied AttributeValue has more than one datatypes set, must contain exactly "
               "one of the supported datatypes");
}

TEST(JsonDecode, SimpleTableOperations) {
  EXPECT_EQ(Must(DecodeDescribeTableRequest(R"({"TableName":"Music"})")).table_name, "Music");
  EXPECT_EQ(Must(DecodeDeleteTableRequest(R"({"TableName":"Music"})")).table_name, "Music");
  // DescribeTable, DeleteTable and DescribeTimeToLive word a missing or
  // ill-sized TableName their own way (captured from DynamoDB).
  EXPECT_CODEC_ERROR(DecodeDescribeTableRequest("{}"), kValidation,
               "The parameter 'TableName' is required but was not present in the request");
  EXPECT_CODEC_ERROR(DecodeDeleteTableRequest(R"({"TableName":null})"), kValidation,
               "The parameter 'TableName' is required but was not present in the request");
  EXPECT_CODEC_ERROR(DecodeDescribeTimeToLiveRequest(R"({"TableName":"ab"})"), kValidation,
               "TableName must be at least 3 characters long and at most 255 characters long");
  EXPECT_CODEC_ERROR(DecodeDescribeTableRequest(R"({"TableName":"abc;"})"), kValidation,
               "1 validation error detected: Value 'abc;' at 'tableName' failed to satisfy "
               "constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+");
  EXPECT_CODEC_ERROR(DecodeDeleteTableRequest(R"({"TableName":12})"), kSerialization,
               "NUMBER_VALUE cannot be converted to String");
  EXPECT_CODEC_ERROR(DecodeDeleteTableRequest(R"({"TableName":false})"), kSerialization,
               "FALSE_VALUE cannot be converted to String");
  EXPECT_CODEC_ERROR(DecodeDeleteTableRequest(R"({"TableName":["a"]})"), kSerialization,
               "Start of list found where not expected");

  auto l = Must(DecodeListTablesRequest(R"({"ExclusiveStartTableName":"Forum","Limit":3})"));
  EXPECT_EQ(l.exclusive_start_table_name, "Forum");
  EXPECT_EQ(l.limit, 3);
  auto empty = Must(DecodeListTablesRequest("{}"));
  EXPECT_FALSE(empty.limit);
  EXPECT_CODEC_ERROR(DecodeListTablesRequest(""), kSerialization, "");
  EXPECT_CODEC_ERROR(DecodeListTablesRequest(" \n"), kSerialization, "");
  EXPECT_CODEC_ERROR(DecodeListTablesRequest(R"({"Limit":0})"), kValidation,
               "1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: "
               "Member must have value greater than or equal to 1");
  EXPECT_CODEC_ERROR(DecodeListTablesRequest(R"({"Limit":101})"), kValidation,
               "1 validation error detected: Value '101' at 'limit' failed to satisfy "
               "constraint: Member must have value less than or equal to 100");
  EXPECT_CODEC_ERROR(DecodeListTablesRequest(R"({"Limit":"3"})"), kSerialization,
               "STRING_VALUE cannot be converted to Integer");
  EXPECT_CODEC_ERROR(DecodeListTablesRequest(R"({"Limit":2.5})"), kSerialization,
               "NUMBER_VALUE cannot be converted to Integer");
}

TEST(JsonDecode, UpdateTable) {
  auto r = Must(DecodeUpdateTableRequest(R"({
    "TableName": "Thread",
    "AttributeDefinitions": [{"AttributeName": "Author", "AttributeType": "S"}],
    "BillingMode": "PAY_PER_REQUEST",
    "GlobalSecondaryIndexUpdates": [
      {"Create": {"IndexName": "ByAuthor",
                  "KeySchema": [{"AttributeName": "Author", "KeyType": "HASH"}],
                  "Projection": {"ProjectionType": "ALL"}}},
      {"Update": {"IndexName": "ByViews",
                  "ProvisionedThroughput": {"ReadCapacityUnits": 10, "WriteCapacityUnits": 10}}},
      {"Delete": {"IndexName": "Old"}}
    ],
    "StreamSpecification": {"StreamEnabled": false},
    "DeletionProtectionEnabled": true
  })"));
  EXPECT_EQ(r.table_name, "Thread");
  EXPECT_EQ(r.billing_mode, "PAY_PER_REQUEST");
  ASSERT_EQ(r.global_secondary_index_updates.size(), 3u);
  ASSERT_TRUE(r.global_secondary_index_updates[0].create);
  EXPECT_EQ(r.global_secondary_index_updates[0].create->index_name, "ByAuthor");
  ASSERT_TRUE(r.global_secondary_index_updates[1].update);
  EXPECT_EQ(r.global_secondary_index_updates[1].update->provisioned_throughput->read_capacity_units, 10);
  EXPECT_EQ(r.global_secondary_index_updates[2].delete_index_name, "Old");
  ASSERT_TRUE(r.stream_specification);
  EXPECT_FALSE(r.stream_specification->stream_enabled);
  EXPECT_EQ(r.deletion_protection_enabled, true);
  EXPECT_CODEC_ERROR(DecodeUpdateTableRequest(R"({"TableName":"tbl","GlobalSecondaryIndexUpdates":
      [{"Update":{"IndexName":"idx"}}]})"),
               kValidation,
               "1 validation error detected: Value null at "
               "'globalSecondaryIndexUpdates.1.member.update.provisionedThroughput' failed to "
               "satisfy constraint: Member must not be null");
}

// ---------------------------------------------------------------- requests: items

TEST(JsonDecode, PutItem) {
  auto r = Must(DecodePutItemRequest(R"({
    "TableName": "Thread",
    "Item": {
      "LastPostDateTime": {"S": "201303190422"},
      "Tags": {"SS": ["Update", "Multiple Items", "HelpMe"]},
      "ForumName": {"S": "Amazon DynamoDB"},
      "Message": {"S": "I want to update multiple items in a single call."},
      "Subject": {"S": "How do I update multiple items?"},
      "LastPostedBy": {"S": "fred@example.com"}
    },
    "ConditionExpression": "ForumName <> :f and Subject <> :s",
    "ExpressionAttributeValues": {":f": {"S": "Amazon DynamoDB"},
                                  ":s": {"S": "How do I update multiple items?"}},
    "ReturnValues": "ALL_OLD",
    "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
    "ReturnConsumedCapacity": "TOTAL",
    "ReturnItemCollectionMetrics": "SIZE"
  })"));
  EXPECT_EQ(r.table_name, "Thread");
  EXPECT_EQ(r.item.size(), 6u);
  EXPECT_EQ(r.item["Tags"].set().size(), 3u);
  EXPECT_EQ(r.condition_expression, "ForumName <> :f and Subject <> :s");
  EXPECT_TRUE(r.has_expression_attribute_values);
  EXPECT_FALSE(r.has_expression_attribute_names);
  EXPECT_EQ(r.expression_attribute_values.size(), 2u);
  EXPECT_EQ(r.return_values, ReturnValue::kAllOld);
  EXPECT_TRUE(r.return_values_on_condition_check_failure_all_old);
  EXPECT_EQ(r.return_consumed_capacity, ReturnConsumedCapacity::kTotal);
  EXPECT_TRUE(r.return_item_collection_metrics);
}

TEST(JsonDecode, PutItemLegacyExpectedAndEmptyMaps) {
  auto r = Must(DecodePutItemRequest(R"({
    "TableName": "tbl", "Item": {"pk": {"S": "a"}},
    "Expected": {"pk": {"Exists": false},
                 "n": {"ComparisonOperator": "BETWEEN",
                       "AttributeValueList": [{"N": "1"}, {"N": "5"}]},
                 "v": {"Value": {"S": "x"}}},
    "ConditionalOperator": "OR",
    "ExpressionAttributeNames": {}, "ExpressionAttributeValues": {}
  })"));
  ASSERT_EQ(r.expected.size(), 3u);
  EXPECT_EQ(r.expected["pk"].exists, false);
  EXPECT_EQ(r.expected["n"].comparison_operator, "BETWEEN");
  EXPECT_EQ(r.expected["n"].attribute_value_list->size(), 2u);
  EXPECT_EQ(r.expected["v"].value, S("x"));
  EXPECT_EQ(r.conditional_operator, "OR");
  EXPECT_TRUE(r.has_expression_attribute_names);
  EXPECT_TRUE(r.has_expression_attribute_values);
}

TEST(JsonDecode, PutItemErrors) {
  EXPECT_CODEC_ERROR(DecodePutItemRequest(R"({"TableName":"tbl"})"), kValidation,
               "1 validation error detected: Value null at 'item' failed to satisfy "
               "constraint: Member must not be null");
  EXPECT_CODEC_ERROR(DecodePutItemRequest(R"({"TableName":"tbl","Item":{},"ReturnValues":"ALL"})"),
               kValidation,
               "1 validation error detected: Value 'ALL' at 'returnValues' failed to satisfy "
               "constraint: Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, "
               "NONE, UPDATED_NEW]");
  EXPECT_CODEC_ERROR(DecodePutItemRequest(R"({"Item":{},"ReturnConsumedCapacity":"SOME",
      "ReturnItemCollectionMetrics":"ALL"})"),
               kValidation,
               "3 validation errors detected: "
               "Value null at 'tableName' failed to satisfy constraint: Member must not be null; "
               "Value 'SOME' at 'returnConsumedCapacity' failed to satisfy constraint: Member "
               "must satisfy enum value set: [INDEXES, TOTAL, NONE]; "
               "Value 'ALL' at 'returnItemCollectionMetrics' failed to satisfy constraint: "
               "Member must satisfy enum value set: [SIZE, NONE]");
  EXPECT_CODEC_ERROR(DecodePutItemRequest(R"({"TableName":"tbl","Item":{"a":{}},
      "Expected":{"a":{"ComparisonOperator":"EQUALS"}}})"),
               kValidation,
               "1 validation error detected: Value 'EQUALS' at "
               "'expected.a.member.comparisonOperator' failed to satisfy constraint: Member must "
               "satisfy enum value set: [IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, "
               "NE, LE, BEGINS_WITH, GE, CONTAINS]");
  EXPECT_CODEC_ERROR(DecodePutItemRequest(R"({"TableName":"tbl","Item":[]})"), kSerialization,
               "Start of list found where not expected");
  EXPECT_CODEC_ERROR(DecodePutItemRequest(R"({"TableName":"tbl","Item":{},
      "ExpressionAttributeNames":"{\"#a\":\"a\"}"})"),
               kSerialization, "Unexpected field type");
  EXPECT_CODEC_ERROR(DecodePutItemRequest(R"({"TableName":"tbl","Item":{},
      "ExpressionAttributeNames":{"#a":1}})"),
               kSerialization, "NUMBER_VALUE cannot be converted to String");
}

TEST(JsonDecode, MalformedJson) {
  for (const char* body : {"{", "{\"TableName\":}", "nope", "{\"a\":1,}", "{\"a\" 1}",
                           "{\"TableName\":\"tbl\"} trailing", "\"\\x\""}) {
    auto r = DecodePutItemRequest(body);
    ASSERT_FALSE(r.ok()) << body;
    EXPECT_EQ(r.status().type(), ErrorType::kSerialization) << body;
    EXPECT_EQ(r.status().message(), "") << body;
  }
  EXPECT_CODEC_ERROR(DecodeGetItemRequest("[]"), kSerialization,
               "Start of list found where not expected");
  EXPECT_CODEC_ERROR(DecodeGetItemRequest(std::string("{\"TableName\":\"\xff\"}")), kSerialization, "");
}

TEST(JsonDecode, GetItem) {
  auto r = Must(DecodeGetItemRequest(R"({
    "TableName": "Thread",
    "Key": {"ForumName": {"S": "Amazon DynamoDB"},
            "Subject": {"S": "How do I update multiple items?"}},
    "ProjectionExpression": "LastPostDateTime, Message, #t",
    "ExpressionAttributeNames": {"#t": "Tags"},
    "ConsistentRead": true,
    "ReturnConsumedCapacity": "INDEXES",
    "Unknown": {"ignored": [1, 2, 3]}
  })"));
  EXPECT_EQ(r.key.size(), 2u);
  EXPECT_EQ(r.projection_expression, "LastPostDateTime, Message, #t");
  EXPECT_TRUE(r.has_expression_attribute_names);
  EXPECT_EQ(r.expression_attribute_names.at("#t"), "Tags");
  EXPECT_TRUE(r.consistent_read);
  EXPECT_EQ(r.return_consumed_capacity, ReturnConsumedCapacity::kIndexes);
  EXPECT_CODEC_ERROR(DecodeGetItemRequest(R"({"TableName":"tbl","Key":{},"ConsistentRead":"yes"})"),
               kSerialization, "STRING_VALUE cannot be converted to Boolean");
  EXPECT_CODEC_ERROR(DecodeGetItemRequest(R"({"TableName":"tbl","Key":{},"ConsistentRead":1})"),
               kSerialization, "NUMBER_VALUE cannot be converted to Boolean");
  EXPECT_CODEC_ERROR(DecodeGetItemRequest(R"({"TableName":"tbl","Key":{},"AttributesToGet":"a"})"),
               kSerialization, "Unexpected field type");
}

TEST(JsonDecode, DeleteItem) {
  auto r = Must(DecodeDeleteItemRequest(R"j({
    "TableName": "Thread",
    "Key": {"ForumName": {"S": "Amazon DynamoDB"}, "Subject": {"S": "How do I update?"}},
    "ConditionExpression": "attribute_not_exists(Replies)",
    "ReturnValues": "ALL_OLD"
  })j"));
  EXPECT_EQ(r.key.size(), 2u);
  EXPECT_EQ(r.condition_expression, "attribute_not_exists(Replies)");
  EXPECT_EQ(r.return_values, ReturnValue::kAllOld);
  EXPECT_CODEC_ERROR(DecodeDeleteItemRequest(R"({"TableName":"tbl"})"), kValidation,
               "1 validation error detected: Value null at 'key' failed to satisfy constraint: "
               "Member must not be null");
}

TEST(JsonDecode, UpdateItem) {
  auto r = Must(DecodeUpdateItemRequest(R"({
    "TableName": "Thread",
    "Key": {"ForumName": {"S": "Amazon DynamoDB"}, "Subject": {"S": "Maximum number?"}},
    "UpdateExpression": "set LastPostedBy = :val1 ADD Views :one",
    "ConditionExpression": "LastPostedBy = :val2",
    "ExpressionAttributeValues": {":val1": {"S": "alice@example.com"},
                                  ":val2": {"S": "fred@example.com"}, ":one": {"N": "1"}},
    "ReturnValues": "UPDATED_NEW"
  })"));
  EXPECT_EQ(r.update_expression, "set LastPostedBy = :val1 ADD Views :one");
  EXPECT_EQ(r.expression_attribute_values.size(), 3u);
  EXPECT_EQ(r.return_values, ReturnValue::kUpdatedNew);
  EXPECT_FALSE(r.has_attribute_updates);

  auto legacy = Must(DecodeUpdateItemRequest(R"({
    "TableName": "tbl", "Key": {"pk": {"S": "a"}},
    "AttributeUpdates": {"n": {"Value": {"N": "3"}, "Action": "ADD"}, "gone": {"Action": "DELETE"},
                         "p": {"Value": {"S": "x"}}}
  })"));
  EXPECT_TRUE(legacy.has_attribute_updates);
  ASSERT_EQ(legacy.attribute_updates.size(), 3u);
  EXPECT_EQ(legacy.attribute_updates["n"].action, "ADD");
  EXPECT_EQ(legacy.attribute_updates["n"].value, N("3"));
  EXPECT_FALSE(legacy.attribute_updates["gone"].value);
  EXPECT_EQ(legacy.attribute_updates["p"].action, "PUT");
  EXPECT_CODEC_ERROR(DecodeUpdateItemRequest(R"({"TableName":"tbl","Key":{},
      "AttributeUpdates":{"n":{"Action":"REMOVE"}}})"),
               kValidation,
               "1 validation error detected: Value 'REMOVE' at "
               "'attributeUpdates.n.member.action' failed to satisfy constraint: Member must "
               "satisfy enum value set: [ADD, PUT, DELETE]");
  auto empty = Must(DecodeUpdateItemRequest(R"({"TableName":"tbl","Key":{},"AttributeUpdates":{}})"));
  EXPECT_TRUE(empty.has_attribute_updates);
}

// ---------------------------------------------------------------- requests: reads

TEST(JsonDecode, Query) {
  auto r = Must(DecodeQueryRequest(R"({
    "TableName": "Reply",
    "IndexName": "PostedBy-Index",
    "Limit": 3,
    "ConsistentRead": true,
    "ProjectionExpression": "Id, PostedBy, ReplyDateTime",
    "KeyConditionExpression": "Id = :v1 AND PostedBy BETWEEN :v2a AND :v2b",
    "FilterExpression": "#n > :zero",
    "ExpressionAttributeNames": {"#n": "Votes"},
    "ExpressionAttributeValues": {":v1": {"S": "Amazon DynamoDB#DynamoDB Thread 1"},
                                  ":v2a": {"S": "User A"}, ":v2b": {"S": "User C"},
                                  ":zero": {"N": "0"}},
    "ScanIndexForward": false,
    "ExclusiveStartKey": {"Id": {"S": "x"}, "PostedBy": {"S": "User B"}},
    "Select": "ALL_PROJECTED_ATTRIBUTES",
    "ReturnConsumedCapacity": "TOTAL"
  })"));
  EXPECT_EQ(r.table_name, "Reply");
  EXPECT_EQ(r.index_name, "PostedBy-Index");
  EXPECT_EQ(r.limit, 3);
  EXPECT_TRUE(r.consistent_read);
  EXPECT_EQ(r.key_condition_expression, "Id = :v1 AND PostedBy BETWEEN :v2a AND :v2b");
  EXPECT_EQ(r.filter_expression, "#n > :zero");
  EXPECT_EQ(r.expression_attribute_values.size(), 4u);
  EXPECT_FALSE(r.scan_index_forward);
  ASSERT_TRUE(r.exclusive_start_key);
  EXPECT_EQ(r.exclusive_start_key->size(), 2u);
  EXPECT_EQ(r.select, Select::kAllProjectedAttributes);
  EXPECT_FALSE(r.has_key_conditions);

  auto legacy = Must(DecodeQueryRequest(R"({
    "TableName": "Reply",
    "KeyConditions": {"Id": {"AttributeValueList": [{"S": "a"}], "ComparisonOperator": "EQ"}},
    "QueryFilter": {},
    "AttributesToGet": ["Id", "Message"],
    "Select": "SPECIFIC_ATTRIBUTES"
  })"));
  EXPECT_TRUE(legacy.has_key_conditions);
  EXPECT_EQ(legacy.key_conditions["Id"].comparison_operator, "EQ");
  EXPECT_EQ(legacy.key_conditions["Id"].attribute_value_list[0], S("a"));
  EXPECT_TRUE(legacy.has_query_filter);
  EXPECT_TRUE(legacy.has_attributes_to_get);
  EXPECT_EQ(legacy.attributes_to_get.size(), 2u);
  EXPECT_TRUE(legacy.scan_index_forward);

  EXPECT_CODEC_ERROR(DecodeQueryRequest(R"({"TableName":"tbl","Limit":0,"Select":"EVERYTHING"})"),
               kValidation,
               "2 validation errors detected: "
               "Value 'EVERYTHING' at 'select' failed to satisfy constraint: Member must satisfy "
               "enum value set: [SPECIFIC_ATTRIBUTES, COUNT, ALL_ATTRIBUTES, "
               "ALL_PROJECTED_ATTRIBUTES]; "
               "Value '0' at 'limit' failed to satisfy constraint: Member must have value "
               "greater than or equal to 1");
  EXPECT_CODEC_ERROR(DecodeQueryRequest(R"({"TableName":"tbl","KeyConditions":{"a":{}}})"), kValidation,
               "1 validation error detected: Value null at "
               "'keyConditions.a.member.comparisonOperator' failed to satisfy constraint: "
               "Member must not be null");
}

TEST(JsonDecode, Scan) {
  auto r = Must(DecodeScanRequest(R"({
    "TableName": "Reply",
    "FilterExpression": "PostedBy = :val",
    "ExpressionAttributeValues": {":val": {"S": "joe@example.com"}},
    "Segment": 1, "TotalSegments": 4, "Limit": 100,
    "ScanFilter": {"Votes": {"ComparisonOperator": "NOT_NULL"}},
    "ConditionalOperator": "AND",
    "Select": "COUNT"
  })"));
  EXPECT_EQ(r.segment, 1);
  EXPECT_EQ(r.total_segments, 4);
  EXPECT_EQ(r.limit, 100);
  EXPECT_TRUE(r.has_scan_filter);
  EXPECT_EQ(r.scan_filter["Votes"].comparison_operator, "NOT_NULL");
  EXPECT_EQ(r.conditional_operator, "AND");
  EXPECT_EQ(r.select, Select::kCount);
  EXPECT_CODEC_ERROR(DecodeScanRequest(R"({"TableName":"tbl","Segment":-1,"TotalSegments":1000001})"),
               kValidation,
               "2 validation errors detected: "
               "Value '-1' at 'segment' failed to satisfy constraint: Member must have value "
               "greater than or equal to 0; "
               "Value '1000001' at 'totalSegments' failed to satisfy constraint: Member must "
               "have value less than or equal to 1000000");
  EXPECT_CODEC_ERROR(DecodeScanRequest(R"({"TableName":"tbl","ConditionalOperator":"XOR"})"),
               kValidation,
               "1 validation error detected: Value 'XOR' at 'conditionalOperator' failed to "
               "satisfy constraint: Member must satisfy enum value set: [AND, OR]");
}

// ---------------------------------------------------------------- requests: batches

TEST(JsonDecode, BatchGetItem) {
  auto r = Must(DecodeBatchGetItemRequest(R"({
    "RequestItems": {
      "Forum": {
        "Keys": [{"Name": {"S": "Amazon DynamoDB"}}, {"Name": {"S": "Amazon RDS"}},
                 {"Name": {"S": "Amazon Redshift"}}],
        "ProjectionExpression": "Name, Threads, Messages, #v",
        "ExpressionAttributeNames": {"#v": "Views"}
      },
      "Thread": {
        "Keys": [{"ForumName": {"S": "Amazon DynamoDB"}, "Subject": {"S": "Concurrent reads"}}],
        "ProjectionExpression": "Tags, Message",
        "ConsistentRead": true
      }
    },
    "ReturnConsumedCapacity": "TOTAL"
  })"));
  ASSERT_EQ(r.request_items.size(), 2u);
  EXPECT_EQ(r.request_items["Forum"].keys.size(), 3u);
  EXPECT_TRUE(r.request_items["Forum"].has_expression_attribute_names);
  EXPECT_TRUE(r.request_items["Thread"].consistent_read);
  EXPECT_EQ(r.return_consumed_capacity, ReturnConsumedCapacity::kTotal);
  EXPECT_CODEC_ERROR(DecodeBatchGetItemRequest("{}"), kValidation,
               "1 validation error detected: Value null at 'requestItems' failed to satisfy "
               "constraint: Member must not be null");
  EXPECT_CODEC_ERROR(DecodeBatchGetItemRequest(R"({"RequestItems":{"T":{}}})"), kValidation,
               "1 validation error detected: Value null at 'requestItems.T.member.keys' failed "
               "to satisfy constraint: Member must not be null");
}

TEST(JsonDecode, BatchWriteItem) {
  auto r = Must(DecodeBatchWriteItemRequest(R"({
    "RequestItems": {
      "Forum": [
        {"PutRequest": {"Item": {"Name": {"S": "Amazon DynamoDB"}, "Category": {"S": "AWS"}}}},
        {"PutRequest": {"Item": {"Name": {"S": "Amazon RDS"}, "Category": {"S": "AWS"}}}},
        {"DeleteRequest": {"Key": {"Name": {"S": "Amazon Redshift"}}}}
      ]
    },
    "ReturnConsumedCapacity": "TOTAL",
    "ReturnItemCollectionMetrics": "SIZE"
  })"));
  ASSERT_EQ(r.request_items["Forum"].size(), 3u);
  EXPECT_TRUE(r.request_items["Forum"][0].put_item);
  EXPECT_FALSE(r.request_items["Forum"][0].delete_key);
  EXPECT_EQ(r.request_items["Forum"][2].delete_key->at("Name"), S("Amazon Redshift"));
  EXPECT_TRUE(r.return_item_collection_metrics);
  EXPECT_CODEC_ERROR(DecodeBatchWriteItemRequest(R"({"RequestItems":{"F":[{"PutRequest":{}}]}})"),
               kValidation,
               "1 validation error detected: Value null at "
               "'requestItems.F.member.1.member.putRequest.item' failed to satisfy constraint: "
               "Member must not be null");
  EXPECT_CODEC_ERROR(DecodeBatchWriteItemRequest(R"({"RequestItems":{"F":{}}})"), kSerialization,
               "Start of structure or map found where not expected");
}

TEST(JsonDecode, TransactGetItems) {
  auto r = Must(DecodeTransactGetItemsRequest(R"({
    "TransactItems": [
      {"Get": {"TableName": "Orders", "Key": {"id": {"S": "o1"}}}},
      {"Get": {"TableName": "Customers", "Key": {"id": {"S": "c1"}},
               "ProjectionExpression": "#n", "ExpressionAttributeNames": {"#n": "name"}}}
    ],
    "ReturnConsumedCapacity": "TOTAL"
  })"));
  ASSERT_EQ(r.transact_items.size(), 2u);
  EXPECT_EQ(r.transact_items[1].table_name, "Customers");
  EXPECT_EQ(r.transact_items[1].projection_expression, "#n");
  EXPECT_TRUE(r.transact_items[1].has_expression_attribute_names);
  EXPECT_CODEC_ERROR(DecodeTransactGetItemsRequest(R"({"TransactItems":[{},{"Get":{"Key":{}}}]})"),
               kValidation,
               "2 validation errors detected: "
               "Value null at 'transactItems.1.member.get' failed to satisfy constraint: Member "
               "must not be null; "
               "Value null at 'transactItems.2.member.get.tableName' failed to satisfy "
               "constraint: Member must not be null");
}

TEST(JsonDecode, TransactWriteItems) {
  auto r = Must(DecodeTransactWriteItemsRequest(R"j({
    "TransactItems": [
      {"ConditionCheck": {"TableName": "Customers", "Key": {"id": {"S": "c1"}},
                          "ConditionExpression": "attribute_exists(id)",
                          "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}},
      {"Put": {"TableName": "Orders", "Item": {"id": {"S": "o1"}, "total": {"N": "12.5"}},
               "ConditionExpression": "attribute_not_exists(id)"}},
      {"Delete": {"TableName": "Carts", "Key": {"id": {"S": "c1"}}}},
      {"Update": {"TableName": "Stock", "Key": {"sku": {"S": "s1"}},
                  "UpdateExpression": "SET #q = #q - :one",
                  "ExpressionAttributeNames": {"#q": "qty"},
                  "ExpressionAttributeValues": {":one": {"N": "1"}}}}
    ],
    "ClientRequestToken": "token-1",
    "ReturnConsumedCapacity": "INDEXES",
    "ReturnItemCollectionMetrics": "NONE"
  })j"));
  ASSERT_EQ(r.transact_items.size(), 4u);
  EXPECT_EQ(r.transact_items[0].kind, TransactWriteItem::Kind::kConditionCheck);
  EXPECT_TRUE(r.transact_items[0].return_values_on_condition_check_failure_all_old);
  EXPECT_EQ(r.transact_items[1].kind, TransactWriteItem::Kind::kPut);
  EXPECT_EQ(r.transact_items[1].item.size(), 2u);
  EXPECT_EQ(r.transact_items[2].kind, TransactWriteItem::Kind::kDelete);
  EXPECT_EQ(r.transact_items[3].kind, TransactWriteItem::Kind::kUpdate);
  EXPECT_EQ(r.transact_items[3].update_expression, "SET #q = #q - :one");
  EXPECT_TRUE(r.transact_items[3].has_expression_attribute_values);
  EXPECT_EQ(r.client_request_token, "token-1");
  EXPECT_FALSE(r.return_item_collection_metrics);

  EXPECT_CODEC_ERROR(DecodeTransactWriteItemsRequest(R"({"TransactItems":[
      {"Update":{"TableName":"tbl","Key":{}}},
      {"ConditionCheck":{"TableName":"tbl","Key":{}}}]})"),
               kValidation,
               "2 validation errors detected: "
               "Value null at 'transactItems.1.member.update.updateExpression' failed to satisfy "
               "constraint: Member must not be null; "
               "Value null at 'transactItems.2.member.conditionCheck.conditionExpression' failed "
               "to satisfy constraint: Member must not be null");
  EXPECT_CODEC_ERROR(DecodeTransactWriteItemsRequest(R"({"TransactItems":[{}]})"), kValidation,
               "TransactItems can only contain one of Check, Put, Update or Delete");
  EXPECT_CODEC_ERROR(DecodeTransactWriteItemsRequest(R"({"TransactItems":[
      {"Put":{"TableName":"tbl","Item":{}},"Delete":{"TableName":"tbl","Key":{}}}]})"),
               kValidation, "TransactItems can only contain one of Check, Put, Update or Delete");
  EXPECT_CODEC_ERROR(DecodeTransactWriteItemsRequest("{}"), kValidation,
               "1 validation error detected: Value null at 'transactItems' failed to satisfy "
               "constraint: Member must not be null");
}

// ---------------------------------------------------------------- responses

TableDescription SampleTable() {
  TableDescription t;
  t.table_name = "Thread";
  t.table_status = "ACTIVE";
  t.attribute_definitions = {{"ForumName", AttrType::kS}, {"Views", AttrType::kN}};
  t.key_schema = {{"ForumName", KeyType::kHash}};
  t.creation_date_time = 1707091234.5;
  t.provisioned_throughput.read_capacity_units = 5;
  t.provisioned_throughput.write_capacity_units = 5;
  t.table_size_bytes = 100;
  t.item_count = 2;
  t.table_arn = "arn:aws:dynamodb:us-east-1:000000000000:table/Thread";
  t.table_id = "5a1f4b6c-0000-4000-8000-000000000001";
  IndexDescription g;
  g.index_name = "ByViews";
  g.key_schema = {{"Views", KeyType::kHash}};
  g.projection.projection_type = ProjectionType::kKeysOnly;
  g.index_status = "ACTIVE";
  g.provisioned_throughput = ProvisionedThroughputDescription{1, 1, 0, {}, {}};
  g.index_arn = t.table_arn + "/index/ByViews";
  t.global_secondary_indexes.push_back(g);
  return t;
}

TEST(JsonEncode, DescribeTableResponse) {
  DescribeTableResponse r;
  r.table = SampleTable();
  EXPECT_EQ(EncodeDescribeTableResponse(r),
            R"({"Table":{"AttributeDefinitions":[{"AttributeName":"ForumName","AttributeType":"S"},)"
            R"({"AttributeName":"Views","AttributeType":"N"}],"TableName":"Thread",)"
            R"("KeySchema":[{"AttributeName":"ForumName","KeyType":"HASH"}],"TableStatus":"ACTIVE",)"
            R"("CreationDateTime":1707091234.5,"ProvisionedThroughput":{"NumberOfDecreasesToday":0,)"
            R"("ReadCapacityUnits":5,"WriteCapacityUnits":5},"TableSizeBytes":100,"ItemCount":2,)"
            R"("TableArn":"arn:aws:dynamodb:us-east-1:000000000000:table/Thread",)"
            R"("TableId":"5a1f4b6c-0000-4000-8000-000000000001",)"
            R"("GlobalSecondaryIndexes":[{"IndexName":"ByViews",)"
            R"("KeySchema":[{"AttributeName":"Views","KeyType":"HASH"}],)"
            R"("Projection":{"ProjectionType":"KEYS_ONLY"},"IndexStatus":"ACTIVE",)"
            R"("ProvisionedThroughput":{"NumberOfDecreasesToday":0,"ReadCapacityUnits":1,)"
            R"("WriteCapacityUnits":1},"IndexSizeBytes":0,"ItemCount":0,)"
            R"("IndexArn":"arn:aws:dynamodb:us-east-1:000000000000:table/Thread/index/ByViews"}],)"
            R"("DeletionProtectionEnabled":false}})");
}

TEST(JsonEncode, OnDemandTableWithStreamsAndClass) {
  CreateTableResponse r;
  r.table_description.table_name = "t";
  r.table_description.table_status = "CREATING";
  r.table_description.creation_date_time = 1700000000;
  r.table_description.billing_mode = "PAY_PER_REQUEST";
  r.table_description.last_update_to_pay_per_request_date_time = 1700000000;
  r.table_description.stream_specification = StreamSpecification{true, "KEYS_ONLY"};
  r.table_description.table_class = "STANDARD";
  r.table_description.deletion_protection_enabled = true;
  IndexDescription l;
  l.index_name = "lsi";
  l.projection.projection_type = ProjectionType::kInclude;
  l.projection.non_key_attributes = {"a", "b"};
  l.index_status = "ACTIVE";  // not part of an LSI description
  r.table_description.local_secondary_indexes.push_back(l);
  EXPECT_EQ(EncodeCreateTableResponse(r),
            R"({"TableDescription":{"AttributeDefinitions":[],"TableName":"t","KeySchema":[],)"
            R"("TableStatus":"CREATING","CreationDateTime":1700000000,)"
            R"("ProvisionedThroughput":{"NumberOfDecreasesToday":0,"ReadCapacityUnits":0,)"
            R"("WriteCapacityUnits":0},"TableSizeBytes":0,"ItemCount":0,)"
            R"("BillingModeSummary":{"BillingMode":"PAY_PER_REQUEST",)"
            R"("LastUpdateToPayPerRequestDateTime":1700000000},)"
            R"("LocalSecondaryIndexes":[{"IndexName":"lsi","KeySchema":[],)"
            R"("Projection":{"ProjectionType":"INCLUDE","NonKeyAttributes":["a","b"]},)"
            R"("IndexSizeBytes":0,"ItemCount":0}],)"
            R"("StreamSpecification":{"StreamEnabled":true,"StreamViewType":"KEYS_ONLY"},)"
            R"("TableClassSummary":{"TableClass":"STANDARD"},"DeletionProtectionEnabled":true}})");
}

TEST(JsonEncode, ItemResponses) {
  GetItemResponse none;
  EXPECT_EQ(EncodeGetItemResponse(none), "{}");
  GetItemResponse got;
  got.item = Item{{"pk", S("a")}, {"n", N("1.5")}};
  got.consumed_capacity = ConsumedCapacity{"t", 0.5, {}, {}, {}, {}, {}};
  EXPECT_EQ(EncodeGetItemResponse(got),
            R"({"Item":{"n":{"N":"1.5"},"pk":{"S":"a"}},)"
            R"("ConsumedCapacity":{"TableName":"t","CapacityUnits":0.5}})");
  EXPECT_EQ(EncodePutItemResponse(PutItemResponse{}), "{}");
  UpdateItemResponse u;
  u.attributes = Item{{"v", AttributeValue::NS({"2", "10"})}};
  EXPECT_EQ(EncodeUpdateItemResponse(u), R"({"Attributes":{"v":{"NS":["10","2"]}}})");
  DeleteItemResponse d;
  d.item_collection_metrics = ItemCollectionMetrics{{{"pk", S("a")}}, {0, 1}};
  EXPECT_EQ(EncodeDeleteItemResponse(d),
            R"({"ItemCollectionMetrics":{"ItemCollectionKey":{"pk":{"S":"a"}},)"
            R"("SizeEstimateRangeGB":[0,1]}})");
}

TEST(JsonEncode, QueryAndScanResponses) {
  QueryResponse q;
  q.items = {Item{{"pk", S("a")}}, Item{{"pk", S("b")}}};
  q.count = 2;
  q.scanned_count = 3;
  q.last_evaluated_key = Item{{"pk", S("b")}};
  EXPECT_EQ(EncodeQueryResponse(q),
            R"({"Items":[{"pk":{"S":"a"}},{"pk":{"S":"b"}}],"Count":2,"ScannedCount":3,)"
            R"("LastEvaluatedKey":{"pk":{"S":"b"}}})");
  ScanResponse c;
  c.count = 7;
  c.scanned_count = 7;
  ConsumedCapacity cap;
  cap.table_name = "t";
  cap.capacity_units = 2;
  cap.table = Capacity{2, 0, 2};
  cap.global_secondary_indexes["g"] = Capacity{0, 0, 1};
  c.consumed_capacity = cap;
  EXPECT_EQ(EncodeScanResponse(c, /*select_count=*/true),
            R"({"Count":7,"ScannedCount":7,"ConsumedCapacity":{"TableName":"t","CapacityUnits":2,)"
            R"("Table":{"ReadCapacityUnits":2,"CapacityUnits":2},)"
            R"("GlobalSecondaryIndexes":{"g":{"CapacityUnits":1}}}})");
  EXPECT_EQ(EncodeScanResponse(ScanResponse{}), R"({"Items":[],"Count":0,"ScannedCount":0})");
}

TEST(JsonEncode, BatchAndTransactResponses) {
  BatchWriteItemResponse bw;
  EXPECT_EQ(EncodeBatchWriteItemResponse(bw), R"({"UnprocessedItems":{}})");
  bw.unprocessed_items["t"].push_back(WriteRequest{Item{{"pk", S("a")}}, {}});
  bw.unprocessed_items["t"].push_back(WriteRequest{{}, Item{{"pk", S("b")}}});
  bw.has_consumed_capacity = true;
  bw.consumed_capacity.push_back(ConsumedCapacity{"t", 1, {}, {}, {}, {}, {}});
  EXPECT_EQ(EncodeBatchWriteItemResponse(bw),
            R"({"UnprocessedItems":{"t":[{"PutRequest":{"Item":{"pk":{"S":"a"}}}},)"
            R"({"DeleteRequest":{"Key":{"pk":{"S":"b"}}}}]},)"
            R"("ConsumedCapacity":[{"TableName":"t","CapacityUnits":1}]})");

  BatchGetItemResponse bg;
  EXPECT_EQ(EncodeBatchGetItemResponse(bg), R"({"Responses":{},"UnprocessedKeys":{}})");
  bg.responses["t"] = {Item{{"pk", S("a")}}};
  KeysAndAttributes k;
  k.keys = {Item{{"pk", S("b")}}};
  k.projection_expression = "pk";
  bg.unprocessed_keys["t"] = k;
  EXPECT_EQ(EncodeBatchGetItemResponse(bg),
            R"({"Responses":{"t":[{"pk":{"S":"a"}}]},)"
            R"("UnprocessedKeys":{"t":{"Keys":[{"pk":{"S":"b"}}],"ProjectionExpression":"pk"}}})");

  TransactGetItemsResponse tg;
  tg.responses = {Item{{"pk", S("a")}}, std::nullopt};
  EXPECT_EQ(EncodeTransactGetItemsResponse(tg), R"({"Responses":[{"Item":{"pk":{"S":"a"}}},{}]})");
  EXPECT_EQ(EncodeTransactWriteItemsResponse(TransactWriteItemsResponse{}), "{}");

  ListTablesResponse lt;
  lt.table_names = {"a", "b"};
  lt.last_evaluated_table_name = "b";
  EXPECT_EQ(EncodeListTablesResponse(lt), R"({"LastEvaluatedTableName":"b","TableNames":["a","b"]})");
  EXPECT_EQ(EncodeListTablesResponse(ListTablesResponse{}), R"({"TableNames":[]})");
}

TEST(JsonEncode, Errors) {
  EXPECT_EQ(EncodeErrorBody(ResourceNotFound("Requested resource not found")),
            R"({"__type":"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException",)"
            R"("message":"Requested resource not found"})");
  EXPECT_EQ(EncodeErrorBody(ValidationError("1 validation error detected: x")),
            R"({"__type":"com.amazon.coral.validate#ValidationException",)"
            R"("message":"1 validation error detected: x"})");
  EXPECT_EQ(EncodeErrorBody(SerializationError("")),
            R"({"__type":"com.amazon.coral.service#SerializationException"})");
  EXPECT_EQ(EncodeErrorBody(SerializationError("Unexpected field type")),
            R"({"__type":"com.amazon.coral.service#SerializationException",)"
            R"("Message":"Unexpected field type"})");
  Status ccf = ConditionalCheckFailed();
  ccf.WithItem(Item{{"pk", S("a")}});
  EXPECT_EQ(EncodeErrorBody(ccf),
            R"({"__type":"com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException",)"
            R"("message":"The conditional request failed","Item":{"pk":{"S":"a"}}})");
  Status tc(ErrorType::kTransactionCanceled, "");
  tc.WithCancellationReasons(
      {CancellationReason{"None", "", {}},
       CancellationReason{"ConditionalCheckFailed", "The conditional request failed",
                          Item{{"pk", S("a")}}}});
  EXPECT_EQ(EncodeErrorBody(tc),
            R"({"__type":"com.amazonaws.dynamodb.v20120810#TransactionCanceledException",)"
            R"("CancellationReasons":[{"Code":"None"},{"Item":{"pk":{"S":"a"}},)"
            R"("Code":"ConditionalCheckFailed","Message":"The conditional request failed"}],)"
            R"("Message":"Transaction cancelled, please refer cancellation reasons for specific )"
            R"(reasons [None, ConditionalCheckFailed]"})");
  EXPECT_EQ(EncodeErrorBody(Status()), "{}");
}

// ---------------------------------------------------------------- client direction

// Encode -> decode -> encode must reproduce the first JSON exactly: every member
// the encoder writes is read back into the same struct field.
#define EXPECT_ROUND_TRIP(Kind, value)                                        \
  do {                                                                      \
    std::string first_ = Encode##Kind(value);                               \
    auto decoded_ = Decode##Kind(first_);                                   \
    ASSERT_TRUE(decoded_.ok()) << decoded_.status().ToString() << "\n" << first_; \
    EXPECT_EQ(Encode##Kind(*decoded_), first_);                             \
  } while (0)

Item Key(std::string pk) { return Item{{"pk", S(std::move(pk))}}; }

TEST(JsonClient, RequestRoundTrips) {
  CreateTableRequest ct;
  ct.table_name = "Thread";
  ct.attribute_definitions = {{"pk", AttrType::kS}, {"n", AttrType::kN}, {"b", AttrType::kB}};
  ct.key_schema = {{"pk", KeyType::kHash}, {"n", KeyType::kRange}};
  ct.local_secondary_indexes.push_back({"lsi", {{"pk", KeyType::kHash}, {"b", KeyType::kRange}},
                                        {ProjectionType::kInclude, {"x", "y"}}});
  GlobalSecondaryIndex ct_gsi;
  ct_gsi.index_name = "gsi";
  ct_gsi.key_schema = {{"n", KeyType::kHash}};
  ct_gsi.projection = {ProjectionType::kAll, {}};
  ct_gsi.provisioned_throughput = ProvisionedThroughput{3, 4};
  ct.global_secondary_indexes.push_back(ct_gsi);
  ct.billing_mode = "PROVISIONED";
  ct.provisioned_throughput = ProvisionedThroughput{5, 6};
  ct.stream_specification = StreamSpecification{true, "NEW_AND_OLD_IMAGES"};
  ct.table_class = "STANDARD_INFREQUENT_ACCESS";
  ct.deletion_protection_enabled = true;
  ct.tags = {{"k", "v"}};
  EXPECT_ROUND_TRIP(CreateTableRequest, ct);
  // The settings an HTTP client sends, read back as sent.
  ct.sse_specification = SseSpecification{true, "KMS", "alias/k"};
  ct.warm_throughput = WarmThroughput{15000, std::nullopt};
  ct.resource_policy = R"({"Statement":[]})";
  ct.global_secondary_indexes[0].warm_throughput = WarmThroughput{std::nullopt, 5000};
  EXPECT_ROUND_TRIP(CreateTableRequest, ct);
  {
    auto back = DecodeCreateTableRequest(EncodeCreateTableRequest(ct));
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    ASSERT_TRUE(back->sse_specification.has_value());
    EXPECT_EQ(back->sse_specification->kms_master_key_id, "alias/k");
    EXPECT_EQ(back->warm_throughput->read_units_per_second, 15000);
    EXPECT_FALSE(back->warm_throughput->write_units_per_second.has_value());
    EXPECT_EQ(back->resource_policy, ct.resource_policy);
    EXPECT_EQ(back->global_secondary_indexes[0].warm_throughput->write_units_per_second, 5000);
  }

  EXPECT_ROUND_TRIP(DescribeTableRequest, DescribeTableRequest{"Music"});
  EXPECT_ROUND_TRIP(DeleteTableRequest, DeleteTableRequest{"Music"});
  EXPECT_ROUND_TRIP(ListTablesRequest, (ListTablesRequest{"Forum", 10}));
  EXPECT_ROUND_TRIP(ListTablesRequest, ListTablesRequest{});

  UpdateTableRequest ut;
  ut.table_name = "Thread";
  ut.attribute_definitions = {{"a", AttrType::kS}};
  ut.billing_mode = "PAY_PER_REQUEST";
  GlobalSecondaryIndexUpdate c, u, d;
  c.create.emplace();
  c.create->index_name = "gsi";
  c.create->key_schema = {{"a", KeyType::kHash}};
  c.create->projection = {ProjectionType::kKeysOnly, {}};
  u.update.emplace();
  u.update->index_name = "hsi";
  u.update->provisioned_throughput = ProvisionedThroughput{1, 2};
  d.delete_index_name = "old";
  ut.global_secondary_index_updates = {c, u, d};
  ut.stream_specification = StreamSpecification{false, ""};
  ut.deletion_protection_enabled = false;
  EXPECT_ROUND_TRIP(UpdateTableRequest, ut);

  PutItemRequest put;
  put.table_name = "Tbl";
  put.item = Item{{"pk", S("a")}, {"b", AttributeValue::B("\xff")}, {"l", AttributeValue::L({N("1")})}};
  put.condition_expression = "attribute_not_exists(pk)";
  put.has_expression_attribute_names = true;  // present but empty
  put.expression_attribute_values = Item{{":v", N("3")}};
  put.has_expression_attribute_values = true;
  put.expected["x"] = ExpectedAttributeValue{S("1"), true, "EQ", std::vector<AttributeValue>{S("1")}};
  put.conditional_operator = "AND";
  put.return_values = ReturnValue::kAllOld;
  put.return_values_on_condition_check_failure_all_old = true;
  put.return_consumed_capacity = ReturnConsumedCapacity::kIndexes;
  put.return_item_collection_metrics = true;
  EXPECT_ROUND_TRIP(PutItemRequest, put);
  auto put2 = Must(DecodePutItemRequest(EncodePutItemRequest(put)));
  EXPECT_TRUE(put2.has_expression_attribute_names);
  EXPECT_TRUE(put2.expression_attribute_names.empty());
  EXPECT_EQ(put2.item, put.item);

  GetItemRequest get;
  get.table_name = "Tbl";
  get.key = Key("a");
  get.consistent_read = true;
  get.projection_expression = "#a";
  get.expression_attribute_names = {{"#a", "a"}};
  get.has_expression_attribute_names = true;
  get.attributes_to_get = {"a"};
  get.return_consumed_capacity = ReturnConsumedCapacity::kTotal;
  EXPECT_ROUND_TRIP(GetItemRequest, get);

  DeleteItemRequest del;
  del.table_name = "Tbl";
  del.key = Key("a");
  del.condition_expression = "a = :a";
  del.expression_attribute_values = Item{{":a", AttributeValue::Bool(true)}};
  del.has_expression_attribute_values = true;
  del.return_values = ReturnValue::kAllOld;
  EXPECT_ROUND_TRIP(DeleteItemRequest, del);

  UpdateItemRequest upd;
  upd.table_name = "Tbl";
  upd.key = Key("a");
  upd.update_expression = "SET a = :a";
  upd.expression_attribute_values = Item{{":a", AttributeValue::Null()}};
  upd.has_expression_attribute_values = true;
  upd.attribute_updates["n"] = AttributeValueUpdate{N("1"), "ADD"};
  upd.has_attribute_updates = true;
  upd.return_values = ReturnValue::kUpdatedNew;
  EXPECT_ROUND_TRIP(UpdateItemRequest, upd);

  QueryRequest q;
  q.table_name = "Tbl";
  q.index_name = "gsi";
  q.select = Select::kSpecificAttributes;
  q.key_condition_expression = "pk = :p";
  q.filter_expression = "n > :n";
  q.projection_expression = "pk";
  q.expression_attribute_values = Item{{":p", S("a")}, {":n", N("2")}};
  q.has_expression_attribute_values = true;
  q.key_conditions["pk"] = LegacyCondition{"EQ", {S("a")}};
  q.has_key_conditions = true;
  q.has_query_filter = true;
  q.conditional_operator = "OR";
  q.attributes_to_get = {"pk"};
  q.has_attributes_to_get = true;
  q.scan_index_forward = false;
  q.limit = 10;
  q.exclusive_start_key = Key("z");
  q.consistent_read = true;
  q.return_consumed_capacity = ReturnConsumedCapacity::kTotal;
  EXPECT_ROUND_TRIP(QueryRequest, q);
  auto q2 = Must(DecodeQueryRequest(EncodeQueryRequest(q)));
  EXPECT_TRUE(q2.has_query_filter);
  EXPECT_FALSE(q2.scan_index_forward);

  ScanRequest sc;
  sc.table_name = "Tbl";
  sc.segment = 0;
  sc.total_segments = 2;
  sc.scan_filter["n"] = LegacyCondition{"BETWEEN", {N("1"), N("9")}};
  sc.has_scan_filter = true;
  sc.select = Select::kCount;
  EXPECT_ROUND_TRIP(ScanRequest, sc);

  BatchGetItemRequest bg;
  bg.request_items["T"].keys = {Key("a"), Key("b")};
  bg.request_items["T"].consistent_read = true;
  bg.request_items["U"].keys = {Key("c")};
  bg.request_items["U"].projection_expression = "#p";
  bg.request_items["U"].expression_attribute_names = {{"#p", "pk"}};
  bg.request_items["U"].has_expression_attribute_names = true;
  bg.return_consumed_capacity = ReturnConsumedCapacity::kTotal;
  EXPECT_ROUND_TRIP(BatchGetItemRequest, bg);

  BatchWriteItemRequest bw;
  bw.request_items["T"] = {WriteRequest{Key("a"), {}}, WriteRequest{{}, Key("b")}};
  bw.return_item_collection_metrics = true;
  EXPECT_ROUND_TRIP(BatchWriteItemRequest, bw);

  TransactGetItemsRequest tg;
  tg.transact_items.push_back(TransactGetItem{"T", Key("a"), "pk", {}, false});
  tg.transact_items.push_back(TransactGetItem{"U", Key("b"), {}, {{"#x", "x"}}, true});
  EXPECT_ROUND_TRIP(TransactGetItemsRequest, tg);

  TransactWriteItemsRequest tw;
  TransactWriteItem check;
  check.kind = TransactWriteItem::Kind::kConditionCheck;
  check.table_name = "Tbl";
  check.key = Key("a");
  check.condition_expression = "attribute_exists(pk)";
  check.return_values_on_condition_check_failure_all_old = true;
  TransactWriteItem tput;
  tput.kind = TransactWriteItem::Kind::kPut;
  tput.table_name = "Tbl";
  tput.item = Key("b");
  TransactWriteItem tdel;
  tdel.kind = TransactWriteItem::Kind::kDelete;
  tdel.table_name = "Tbl";
  tdel.key = Key("c");
  TransactWriteItem tupd;
  tupd.kind = TransactWriteItem::Kind::kUpdate;
  tupd.table_name = "Tbl";
  tupd.key = Key("d");
  tupd.update_expression = "SET #n = :v";
  tupd.expression_attribute_names = {{"#n", "n"}};
  tupd.has_expression_attribute_names = true;
  tupd.expression_attribute_values = Item{{":v", AttributeValue::SS({"x"})}};
  tupd.has_expression_attribute_values = true;
  tw.transact_items = {check, tput, tdel, tupd};
  tw.client_request_token = "tok";
  tw.return_consumed_capacity = ReturnConsumedCapacity::kIndexes;
  tw.return_item_collection_metrics = true;
  EXPECT_ROUND_TRIP(TransactWriteItemsRequest, tw);
  auto tw2 = Must(DecodeTransactWriteItemsRequest(EncodeTransactWriteItemsRequest(tw)));
  ASSERT_EQ(tw2.transact_items.size(), 4u);
  EXPECT_EQ(tw2.transact_items[3].kind, TransactWriteItem::Kind::kUpdate);
  EXPECT_EQ(tw2.transact_items[3].expression_attribute_values, tupd.expression_attribute_values);
}

TEST(JsonClient, ResponseRoundTrips) {
  CreateTableResponse ct;
  ct.table_description = SampleTable();
  ct.table_description.billing_mode = "PAY_PER_REQUEST";
  ct.table_description.last_update_to_pay_per_request_date_time = 1700000000.125;
  ct.table_description.stream_specification = StreamSpecification{true, "NEW_IMAGE"};
  ct.table_description.table_class = "STANDARD";
  ct.table_description.provisioned_throughput.last_increase_date_time = 1700000001;
  ct.table_description.global_secondary_indexes[0].backfilling = false;
  IndexDescription lsi;
  lsi.index_name = "lsi";
  lsi.key_schema = {{"ForumName", KeyType::kHash}, {"Views", KeyType::kRange}};
  lsi.projection.projection_type = ProjectionType::kAll;
  lsi.item_count = 4;
  ct.table_description.local_secondary_indexes.push_back(lsi);
  EXPECT_ROUND_TRIP(CreateTableResponse, ct);
  EXPECT_ROUND_TRIP(DescribeTableResponse, DescribeTableResponse{SampleTable()});
  EXPECT_ROUND_TRIP(DeleteTableResponse, DeleteTableResponse{SampleTable()});
  EXPECT_ROUND_TRIP(UpdateTableResponse, UpdateTableResponse{SampleTable()});
  auto described = Must(DecodeDescribeTableResponse(EncodeDescribeTableResponse({SampleTable()})));
  EXPECT_EQ(described.table.creation_date_time, 1707091234.5);
  EXPECT_EQ(described.table.global_secondary_indexes.at(0).index_arn,
            SampleTable().global_secondary_indexes[0].index_arn);
  // What an HTTP client of a global table sees.
  TableDescription global = SampleTable();
  global.replicas.resize(2);  // ACTIVE, as a replica starts
  global.replicas[0].region_name = "eu-west-1";
  global.replicas[1].region_name = "ap-south-1";
  global.replicas[0].settings.max_read_request_units = 120;
  global.replicas[0].settings.kms_master_key_id = "alias/k";
  global.replicas[0].settings.global_secondary_indexes = {ReplicaGlobalSecondaryIndex{"g1", 4, 60}};
  global.replicas[0].table_class = "STANDARD";
  global.global_table_witnesses = {GlobalTableWitness{"us-east-2", "ACTIVE"}};
  global.global_table_version = "2019.11.21";
  global.multi_region_consistency = "STRONG";
  EXPECT_ROUND_TRIP(DescribeTableResponse, DescribeTableResponse{global});
  auto replicated = Must(DecodeDescribeTableResponse(EncodeDescribeTableResponse({global})));
  ASSERT_EQ(replicated.table.replicas.size(), 2u);
  EXPECT_EQ(replicated.table.replicas[1].region_name, "ap-south-1");
  EXPECT_EQ(replicated.table.global_table_version, "2019.11.21");
  EXPECT_EQ(replicated.table.multi_region_consistency, "STRONG");
  EXPECT_EQ(replicated.table.replicas[0].settings.max_read_request_units, 120);
  EXPECT_EQ(replicated.table.replicas[0].settings.kms_master_key_id, "alias/k");
  ASSERT_EQ(replicated.table.replicas[0].settings.global_secondary_indexes.size(), 1u);
  EXPECT_EQ(replicated.table.replicas[0].settings.global_secondary_indexes[0].read_capacity_units, 4);
  EXPECT_EQ(replicated.table.replicas[0].settings.global_secondary_indexes[0].max_read_request_units, 60);
  EXPECT_EQ(replicated.table.replicas[0].table_class, "STANDARD");
  ASSERT_EQ(replicated.table.global_table_witnesses.size(), 1u);
  EXPECT_EQ(replicated.table.global_table_witnesses[0].region_name, "us-east-2");
  // A request with replica settings and a witness, as the HTTP client sends it.
  UpdateTableRequest up;
  up.table_name = "Tab";
  up.multi_region_consistency = "STRONG";
  ReplicaUpdate create;
  create.region_name = "eu-west-1";
  create.table_class_override = "STANDARD_INFREQUENT_ACCESS";
  create.settings.max_read_request_units = 90;
  create.settings.global_secondary_indexes = {ReplicaGlobalSecondaryIndex{"gsi1", std::nullopt, 30}};
  up.replica_updates = {create};
  up.witness_updates = {WitnessUpdate{WitnessUpdate::Action::kCreate, "us-east-2"}};
  auto decoded = Must(DecodeUpdateTableRequest(EncodeUpdateTableRequest(up)));
  ASSERT_EQ(decoded.replica_updates.size(), 1u);
  EXPECT_EQ(decoded.replica_updates[0].region_name, "eu-west-1");
  EXPECT_EQ(decoded.replica_updates[0].table_class_override, "STANDARD_INFREQUENT_ACCESS");
  EXPECT_EQ(decoded.replica_updates[0].settings.max_read_request_units, 90);
  ASSERT_EQ(decoded.replica_updates[0].settings.global_secondary_indexes.size(), 1u);
  EXPECT_EQ(decoded.replica_updates[0].settings.global_secondary_indexes[0].max_read_request_units, 30);
  ASSERT_EQ(decoded.witness_updates.size(), 1u);
  EXPECT_EQ(decoded.witness_updates[0].region_name, "us-east-2");
  EXPECT_EQ(decoded.witness_updates[0].members, 1);
  EXPECT_EQ(decoded.multi_region_consistency, "STRONG");

  EXPECT_ROUND_TRIP(ListTablesResponse, (ListTablesResponse{{"a", "b"}, "b"}));

  ConsumedCapacity cap;
  cap.table_name = "T";
  cap.capacity_units = 3;
  cap.read_capacity_units = 1;
  cap.write_capacity_units = 2;
  cap.table = Capacity{1, 1, 2};
  cap.local_secondary_indexes["l"] = Capacity{0.5, 0, 0.5};
  cap.global_secondary_indexes["g"] = Capacity{0, 1, 1};
  ItemCollectionMetrics metrics{Key("a"), {0, 1}};

  PutItemResponse put;
  put.attributes = Key("a");
  put.consumed_capacity = cap;
  put.item_collection_metrics = metrics;
  EXPECT_ROUND_TRIP(PutItemResponse, put);
  EXPECT_ROUND_TRIP(DeleteItemResponse, (DeleteItemResponse{Key("b"), {}, {}}));
  EXPECT_ROUND_TRIP(UpdateItemResponse, UpdateItemResponse{});
  GetItemResponse got;
  got.item = Key("a");
  got.consumed_capacity = cap;
  EXPECT_ROUND_TRIP(GetItemResponse, got);
  EXPECT_ROUND_TRIP(GetItemResponse, GetItemResponse{});

  QueryResponse q;
  q.items = {Key("a"), Item{{"m", AttributeValue::M({{"x", AttributeValue::BS({"\x01"})}})}}};
  q.count = 2;
  q.scanned_count = 5;
  q.last_evaluated_key = Key("a");
  q.consumed_capacity = cap;
  EXPECT_ROUND_TRIP(QueryResponse, q);
  EXPECT_ROUND_TRIP(ScanResponse, ScanResponse{});

  BatchGetItemResponse bg;
  bg.responses["T"] = {Key("a")};
  bg.unprocessed_keys["T"].keys = {Key("b")};
  bg.has_consumed_capacity = true;
  bg.consumed_capacity = {cap};
  EXPECT_ROUND_TRIP(BatchGetItemResponse, bg);

  BatchWriteItemResponse bw;
  bw.unprocessed_items["T"] = {WriteRequest{Key("a"), {}}};
  bw.item_collection_metrics["T"] = {metrics};
  bw.has_consumed_capacity = true;
  EXPECT_ROUND_TRIP(BatchWriteItemResponse, bw);
  EXPECT_TRUE(Must(DecodeBatchWriteItemResponse(EncodeBatchWriteItemResponse(bw))).has_consumed_capacity);

  TransactGetItemsResponse tg;
  tg.responses = {std::nullopt, Key("a")};
  EXPECT_ROUND_TRIP(TransactGetItemsResponse, tg);
  auto tg2 = Must(DecodeTransactGetItemsResponse(EncodeTransactGetItemsResponse(tg)));
  ASSERT_EQ(tg2.responses.size(), 2u);
  EXPECT_FALSE(tg2.responses[0]);
  EXPECT_EQ(tg2.responses[1], Key("a"));

  TransactWriteItemsResponse tw;
  tw.has_consumed_capacity = true;
  tw.consumed_capacity = {cap};
  EXPECT_ROUND_TRIP(TransactWriteItemsResponse, tw);
}

TEST(JsonClient, ErrorResponses) {
  Status s = DecodeErrorResponse(
      400, R"({"__type":"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException",)"
           R"("message":"Requested resource not found"})");
  EXPECT_EQ(s.type(), ErrorType::kResourceNotFound);
  EXPECT_EQ(s.message(), "Requested resource not found");

  s = DecodeErrorResponse(400, R"({"__type":"com.amazon.coral.validate#ValidationException",)"
                               R"("Message":"bad"})");
  EXPECT_EQ(s.type(), ErrorType::kValidation);
  EXPECT_EQ(s.message(), "bad");

  s = DecodeErrorResponse(400, R"({"__type":"ConditionalCheckFailedException",)"
                               R"("message":"The conditional request failed",)"
                               R"("Item":{"pk":{"S":"a"}}})");
  EXPECT_EQ(s.type(), ErrorType::kConditionalCheckFailed);
  ASSERT_TRUE(s.item());
  EXPECT_EQ(*s.item(), Key("a"));

  // Whatever the server encodes, the client decodes back.
  Status tc(ErrorType::kTransactionCanceled, "");
  tc.WithCancellationReasons({CancellationReason{"None", "", {}},
                              CancellationReason{"ConditionalCheckFailed",
                                                 "The conditional request failed", Key("x")}});
  s = DecodeErrorResponse(400, EncodeErrorBody(tc));
  EXPECT_EQ(s.type(), ErrorType::kTransactionCanceled);
  EXPECT_EQ(s.message(),
            "Transaction cancelled, please refer cancellation reasons for specific reasons "
            "[None, ConditionalCheckFailed]");
  ASSERT_EQ(s.cancellation_reasons().size(), 2u);
  EXPECT_EQ(s.cancellation_reasons()[0].code, "None");
  EXPECT_EQ(s.cancellation_reasons()[1].message, "The conditional request failed");
  EXPECT_EQ(s.cancellation_reasons()[1].item, Key("x"));

  s = DecodeErrorResponse(400, R"({"__type":"com.amazon.coral.availability#ThrottlingException",)"
                               R"("message":"slow down"})");
  EXPECT_EQ(s.type(), ErrorType::kThrottling);
  EXPECT_EQ(s.message(), "slow down");
  // A type the error model does not know: ValidationException naming it.
  s = DecodeErrorResponse(400, R"({"__type":"com.amazonaws.dynamodb.v20120810#ReplicaNotFoundException",)"
                               R"("message":"no replica"})");
  EXPECT_EQ(s.type(), ErrorType::kValidation);
  EXPECT_EQ(s.message(), "ReplicaNotFoundException: no replica");
  s = DecodeErrorResponse(503, "<html>Service Unavailable</html>");
  EXPECT_EQ(s.type(), ErrorType::kInternalServerError);
  EXPECT_EQ(s.message(), "HTTP 503: <html>Service Unavailable</html>");

  for (int i = 1; i <= static_cast<int>(ErrorType::kInternalServerError); ++i) {
    ErrorType t = static_cast<ErrorType>(i);
    Status back = DecodeErrorResponse(ErrorHttpStatus(t), EncodeErrorBody(Status(t, "m")));
    EXPECT_EQ(back.type(), t) << ErrorTypeName(t);
    EXPECT_EQ(back.message(), "m");
  }
}

// OnDemandThroughput on the wire: OnDemandThroughput (CreateTable, UpdateTable,
// a GSI, a GSI's Create and Update actions, TableDescription, a GSI's
// description, SourceTableDetails) and OnDemandThroughputOverride (restores),
// members MaxReadRequestUnits and MaxWriteRequestUnits, each a Long the
// engine checks (so -1 passes the codec), written only when set.
TEST(JsonCodec, OnDemandThroughput) {
  auto ct = Must(DecodeCreateTableRequest(R"({
    "TableName": "tbl", "BillingMode": "PAY_PER_REQUEST",
    "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
    "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
    "OnDemandThroughput": {"MaxReadRequestUnits": 100, "MaxWriteRequestUnits": -1},
    "GlobalSecondaryIndexes": [{"IndexName": "gsi",
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "Projection": {"ProjectionType": "ALL"},
        "OnDemandThroughput": {"MaxWriteRequestUnits": 7}}]
  })"));
  ASSERT_TRUE(ct.on_demand_throughput);
  EXPECT_EQ(ct.on_demand_throughput->max_read_request_units, 100);
  EXPECT_EQ(ct.on_demand_throughput->max_write_request_units, -1);
  ASSERT_TRUE(ct.global_secondary_indexes.at(0).on_demand_throughput);
  EXPECT_FALSE(ct.global_secondary_indexes[0].on_demand_throughput->max_read_request_units);
  EXPECT_EQ(ct.global_secondary_indexes[0].on_demand_throughput->max_write_request_units, 7);
  EXPECT_ROUND_TRIP(CreateTableRequest, ct);
  // Given empty, it is still given (the engine refuses it).
  auto empty = Must(DecodeCreateTableRequest(
      R"({"TableName":"tbl","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],)"
      R"("KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"OnDemandThroughput":{}})"));
  ASSERT_TRUE(empty.on_demand_throughput);
  EXPECT_FALSE(empty.on_demand_throughput->max_read_request_units);
  EXPECT_EQ(ErrorOf(DecodeCreateTableRequest(
                R"({"TableName":"tbl","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],)"
                R"("KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],)"
                R"("OnDemandThroughput":{"MaxReadRequestUnits":"10"}})")).type(),
            ErrorType::kSerialization);

  auto ut = Must(DecodeUpdateTableRequest(R"({
    "TableName": "tbl", "OnDemandThroughput": {"MaxReadRequestUnits": 5},
    "GlobalSecondaryIndexUpdates": [
      {"Update": {"IndexName": "gsi", "OnDemandThroughput": {"MaxReadRequestUnits": -1}}},
      {"Create": {"IndexName": "new", "KeySchema": [{"AttributeName": "a", "KeyType": "HASH"}],
                  "Projection": {"ProjectionType": "ALL"},
                  "OnDemandThroughput": {"MaxReadRequestUnits": 3, "MaxWriteRequestUnits": 4}}}]
  })"));
  ASSERT_TRUE(ut.on_demand_throughput);
  EXPECT_EQ(ut.on_demand_throughput->max_read_request_units, 5);
  EXPECT_FALSE(ut.on_demand_throughput->max_write_request_units);
  ASSERT_EQ(ut.global_secondary_index_updates.size(), 2u);
  const auto& update = ut.global_secondary_index_updates[0].update;
  ASSERT_TRUE(update);
  EXPECT_EQ(update->index_name, "gsi");
  EXPECT_FALSE(update->provisioned_throughput);  // no longer required
  ASSERT_TRUE(update->on_demand_throughput);
  EXPECT_EQ(update->on_demand_throughput->max_read_request_units, -1);
  ASSERT_TRUE(ut.global_secondary_index_updates[1].create);
  EXPECT_EQ(ut.global_secondary_index_updates[1].create->on_demand_throughput->max_write_request_units, 4);
  EXPECT_ROUND_TRIP(UpdateTableRequest, ut);

  // Descriptions: the members set, and no OnDemandThroughput without one.
  DescribeTableResponse r{SampleTable()};
  r.table.on_demand_throughput = OnDemandThroughput{std::nullopt, 9};
  r.table.global_secondary_indexes[0].on_demand_throughput = OnDemandThroughput{4, 6};
  const std::string body = EncodeDescribeTableResponse(r);
  EXPECT_NE(body.find(R"("OnDemandThroughput":{"MaxWriteRequestUnits":9})"), std::string::npos) << body;
  EXPECT_NE(body.find(R"("OnDemandThroughput":{"MaxReadRequestUnits":4,"MaxWriteRequestUnits":6})"),
            std::string::npos) << body;
  EXPECT_ROUND_TRIP(DescribeTableResponse, r);
  auto back = Must(DecodeDescribeTableResponse(body));
  ASSERT_TRUE(back.table.on_demand_throughput);
  EXPECT_EQ(back.table.on_demand_throughput->max_write_request_units, 9);
  ASSERT_TRUE(back.table.global_secondary_indexes.at(0).on_demand_throughput);
  EXPECT_EQ(back.table.global_secondary_indexes[0].on_demand_throughput->max_read_request_units, 4);
  EXPECT_EQ(EncodeDescribeTableResponse({SampleTable()}).find("OnDemandThroughput"),
            std::string::npos);

  // Restores and backups.
  auto restore = Must(DecodeRestoreTableFromBackupRequest(R"({
    "TargetTableName": "copy",
    "BackupArn": "arn:aws:dynamodb:us-east-1:000000000000:table/t/backup/01234567890123-abcdefgh",
    "OnDemandThroughputOverride": {"MaxReadRequestUnits": 11, "MaxWriteRequestUnits": -1},
    "GlobalSecondaryIndexOverride": [{"IndexName": "gsi",
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "Projection": {"ProjectionType": "ALL"},
        "OnDemandThroughput": {"MaxReadRequestUnits": 2}}]
  })"));
  ASSERT_TRUE(restore.overrides.on_demand_throughput);
  EXPECT_EQ(restore.overrides.on_demand_throughput->max_read_request_units, 11);
  EXPECT_EQ(restore.overrides.on_demand_throughput->max_write_request_units, -1);
  EXPECT_EQ(restore.overrides.global_secondary_indexes.at(0).on_demand_throughput->max_read_request_units, 2);
  auto pitr = Must(DecodeRestoreTableToPointInTimeRequest(R"({
    "SourceTableName": "tbl", "TargetTableName": "copy", "UseLatestRestorableTime": true,
    "OnDemandThroughputOverride": {"MaxWriteRequestUnits": 8}
  })"));
  ASSERT_TRUE(pitr.overrides.on_demand_throughput);
  EXPECT_EQ(pitr.overrides.on_demand_throughput->max_write_request_units, 8);

  DescribeBackupResponse backup;
  SourceTableDetails& src = backup.backup_description.source_table_details;
  src.table_name = "tbl";
  src.billing_mode = "PAY_PER_REQUEST";
  src.on_demand_throughput = OnDemandThroughput{12, std::nullopt};
  GlobalSecondaryIndex gsi;
  gsi.index_name = "gsi";
  gsi.projection.projection_type = ProjectionType::kAll;
  gsi.on_demand_throughput = OnDemandThroughput{std::nullopt, 13};
  backup.backup_description.source_table_feature_details.global_secondary_indexes = {gsi};
  const std::string described = EncodeDescribeBackupResponse(backup);
  EXPECT_NE(described.find(R"("ProvisionedThroughput":{"ReadCapacityUnits":0,"WriteCapacityUnits":0},)"
                           R"("OnDemandThroughput":{"MaxReadRequestUnits":12},"ItemCount")"),
            std::string::npos) << described;
  EXPECT_NE(described.find(R"("Projection":{"ProjectionType":"ALL"},)"
                           R"("OnDemandThroughput":{"MaxWriteRequestUnits":13}})"),
            std::string::npos) << described;
}

}  // namespace
}  // namespace dynarock::api
