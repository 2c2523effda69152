"""The differential tester's corpus (run.py): scenarios of DynamoDB requests.

A scenario is {"id": str, "steps": [step, ...]}; a step is {"op": Operation,
"body": {...}} or {"op": ..., "raw": "bytes as sent"} (malformed bodies), with
"compare": False for setup whose response is not compared. Each scenario works
on tables named after it, so scenarios do not see each other's data.

scenarios() yields the hand-written ones, then the generated ones: every
valid request in BASES mutated member by member (dropped, null, empty, of the
wrong type, numbers out of range, names too long).
"""

import copy
import json


def S(v):
    return {"S": v}


def N(v):
    return {"N": str(v)}


def ks(*hashes, ranges=()):
    return ([{"AttributeName": h, "KeyType": "HASH"} for h in hashes] +
            [{"AttributeName": r, "KeyType": "RANGE"} for r in ranges])


def ad(**types):
    return [{"AttributeName": n, "AttributeType": t} for n, t in types.items()]


def table(name, hashes=("pk",), ranges=(), defs=None, **extra):
    body = {"TableName": name, "KeySchema": ks(*hashes, ranges=ranges),
            "AttributeDefinitions": ad(**(defs or {k: "S" for k in list(hashes) + list(ranges)})),
            "BillingMode": "PAY_PER_REQUEST"}
    body.update(extra)
    return body


def step(op, body, compare=True):
    return {"op": op, "body": body, "compare": compare}


def setup(op, body):
    return step(op, body, compare=False)


def items(name, n):
    """Setup puts of n items into a pk/sk table."""
    out = []
    for i in range(n):
        out.append(setup("PutItem", {"TableName": name, "Item": {
            "pk": S("p%d" % (i % 3)), "sk": S("s%02d" % i), "n": N(i), "g": S("g%d" % (i % 2)),
            "m": {"M": {"a": N(i), "l": {"L": [S("x"), N(i)]}}}}}))
    return out


# ---------------------------------------------------------------- hand-written

def hand_written():
    out = []

    def sc(id_, steps):
        out.append({"id": id_, "steps": steps})

    # Tables.
    t = "tables_basic"
    sc(t, [
        step("CreateTable", table(t, ranges=("sk",))),
        step("DescribeTable", {"TableName": t}),
        step("CreateTable", table(t, ranges=("sk",))),
        step("UpdateTable", {"TableName": t}),
        step("DescribeTable", {"TableName": "tables_missing"}),
        step("DeleteTable", {"TableName": "tables_missing"}),
        step("DeleteTable", {"TableName": t}),
    ])
    sc("tables_invalid", [
        step("CreateTable", table("ab")),
        step("CreateTable", table("bad name!")),
        step("CreateTable", table("x" * 256)),
        step("CreateTable", {"TableName": "tables_invalid", "KeySchema": [],
                             "AttributeDefinitions": [], "BillingMode": "PAY_PER_REQUEST"}),
        step("CreateTable", table("tables_invalid", defs={"pk": "S", "extra": "S"})),
        step("CreateTable", table("tables_invalid", defs={"pk": "BOOL"})),
        step("CreateTable", table("tables_invalid", defs={"other": "S"})),
        step("CreateTable", {**table("tables_invalid"), "BillingMode": "PROVISIONED"}),
        step("CreateTable", {**table("tables_invalid"), "BillingMode": "FREE"}),
        step("CreateTable", {**table("tables_invalid"), "BillingMode": "PROVISIONED",
                             "ProvisionedThroughput": {"ReadCapacityUnits": 0,
                                                       "WriteCapacityUnits": 0}}),
        step("CreateTable", {**table("tables_invalid"),
                             "ProvisionedThroughput": {"ReadCapacityUnits": 1,
                                                       "WriteCapacityUnits": 1}}),
        step("CreateTable", table("tables_invalid", hashes=("pk", "pk"))),
        step("CreateTable", table("tables_invalid", hashes=(), ranges=("pk",))),
        step("CreateTable", table("tables_invalid", ranges=("sk",), LocalSecondaryIndexes=[{
            "IndexName": "lsi", "KeySchema": ks("pk", ranges=("sk",)),
            "Projection": {"ProjectionType": "ALL"}}])),
        step("CreateTable", table("tables_invalid", LocalSecondaryIndexes=[{
            "IndexName": "lsix", "KeySchema": ks("pk", ranges=("sk",)),
            "Projection": {"ProjectionType": "ALL"}}], defs={"pk": "S", "sk": "S"})),
        step("CreateTable", table("tables_invalid", defs={"pk": "S", "g": "S"},
                                  GlobalSecondaryIndexes=[{
                                      "IndexName": "gsi", "KeySchema": ks("g"),
                                      "Projection": {"ProjectionType": "INCLUDE"}}])),
        step("CreateTable", table("tables_invalid", defs={"pk": "S", "g": "S"},
                                  GlobalSecondaryIndexes=[{
                                      "IndexName": "gsi", "KeySchema": ks("g"),
                                      "Projection": {"ProjectionType": "ALL",
                                                     "NonKeyAttributes": ["a"]}}])),
        step("CreateTable", table("tables_invalid", defs={"pk": "S", "g": "S"},
                                  GlobalSecondaryIndexes=[])),
    ])
    t = "tables_update"
    sc(t, [
        setup("CreateTable", table(t)),
        step("UpdateTable", {"TableName": t, "BillingMode": "PAY_PER_REQUEST"}),
        step("UpdateTable", {"TableName": t, "ProvisionedThroughput": {
            "ReadCapacityUnits": 5, "WriteCapacityUnits": 5}}),
        step("UpdateTable", {"TableName": t, "GlobalSecondaryIndexUpdates": [
            {"Delete": {"IndexName": "nothere"}}]}),
        step("UpdateTable", {"TableName": t, "StreamSpecification": {"StreamEnabled": False}}),
        step("UpdateTable", {"TableName": t, "StreamSpecification": {
            "StreamEnabled": True, "StreamViewType": "SIDEWAYS"}}),
        step("DescribeTimeToLive", {"TableName": t}),
        step("UpdateTimeToLive", {"TableName": t, "TimeToLiveSpecification": {
            "Enabled": True, "AttributeName": "ttl"}}),
        step("DescribeTimeToLive", {"TableName": t}),
        step("UpdateTimeToLive", {"TableName": t, "TimeToLiveSpecification": {
            "Enabled": True, "AttributeName": "ttl"}}),
        step("DescribeContinuousBackups", {"TableName": t}),
        step("DescribeContinuousBackups", {"TableName": "tables_nope"}),
    ])

    # Items.
    t = "items_crud"
    sc(t, [
        setup("CreateTable", table(t, ranges=("sk",))),
        step("PutItem", {"TableName": t, "Item": {"pk": S("a"), "sk": S("1"), "v": N("01.50")},
                         "ReturnValues": "ALL_OLD"}),
        step("PutItem", {"TableName": t, "Item": {"pk": S("a"), "sk": S("1"), "v": N(2)},
                         "ReturnValues": "ALL_OLD"}),
        step("PutItem", {"TableName": t, "Item": {"pk": S("a"), "sk": S("1")},
                         "ReturnValues": "ALL_NEW"}),
        step("PutItem", {"TableName": t, "Item": {"pk": S("a")}}),
        step("PutItem", {"TableName": t, "Item": {"pk": N(1), "sk": S("1")}}),
        step("PutItem", {"TableName": t, "Item": {"pk": S(""), "sk": S("1")}}),
        step("PutItem", {"TableName": t, "Item": {"pk": S("a"), "sk": S("2"), "ss": {"SS": []}}}),
        step("PutItem", {"TableName": t, "Item": {"pk": S("a"), "sk": S("2"),
                                                  "ss": {"SS": ["x", "x"]}}}),
        step("PutItem", {"TableName": t, "Item": {"pk": S("a"), "sk": S("2"), "n": N("abc")}}),
        step("PutItem", {"TableName": t, "Item": {"pk": S("a"), "sk": S("2"),
                                                  "n": N("1" * 39)}}),
        step("PutItem", {"TableName": t, "Item": {"pk": S("a"), "sk": S("2"),
                                                  "x": {"S": "a", "N": "1"}}}),
        step("PutItem", {"TableName": t, "Item": {"pk": S("a"), "sk": S("2"), "x": {}}}),
        step("PutItem", {"TableName": t, "Item": {"pk": S("a"), "sk": S("3")},
                         "ConditionExpression": "attribute_exists(pk)"}),
        step("PutItem", {"TableName": t, "Item": {"pk": S("a"), "sk": S("1")},
                         "ConditionExpression": "attribute_not_exists(pk)",
                         "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}),
        step("GetItem", {"TableName": t, "Key": {"pk": S("a"), "sk": S("1")}}),
        step("GetItem", {"TableName": t, "Key": {"pk": S("a")}}),
        step("GetItem", {"TableName": t, "Key": {"pk": S("a"), "sk": S("1"), "x": S("y")}}),
        step("GetItem", {"TableName": t, "Key": {"pk": S("a"), "sk": N(1)}}),
        step("GetItem", {"TableName": t, "Key": {"pk": S("a"), "sk": S("1")},
                         "ProjectionExpression": "#a", "ExpressionAttributeNames": {"#b": "v"}}),
        step("GetItem", {"TableName": t, "Key": {"pk": S("a"), "sk": S("1")},
                         "ProjectionExpression": "v, v"}),
        step("GetItem", {"TableName": t, "Key": {"pk": S("a"), "sk": S("1")},
                         "AttributesToGet": ["v"], "ProjectionExpression": "v"}),
        step("GetItem", {"TableName": t, "Key": {"pk": S("zz"), "sk": S("1")},
                         "ReturnConsumedCapacity": "TOTAL"}),
        step("DeleteItem", {"TableName": t, "Key": {"pk": S("a"), "sk": S("1")},
                            "ReturnValues": "ALL_OLD"}),
        step("DeleteItem", {"TableName": t, "Key": {"pk": S("a"), "sk": S("1")},
                            "ReturnValues": "ALL_NEW"}),
        step("DeleteItem", {"TableName": t, "Key": {"pk": S("a"), "sk": S("1")},
                            "ConditionExpression": "attribute_exists(v)"}),
    ])
    t = "items_update"
    sc(t, [
        setup("CreateTable", table(t)),
        step("UpdateItem", {"TableName": t, "Key": {"pk": S("new")}, "ReturnValues": "ALL_NEW"}),
        step("UpdateItem", {"TableName": t, "Key": {"pk": S("u")},
                            "UpdateExpression": "SET a = :a, b = if_not_exists(b, :z) ADD c :one",
                            "ExpressionAttributeValues": {":a": S("x"), ":z": N(0), ":one": N(1)},
                            "ReturnValues": "ALL_NEW"}),
        step("UpdateItem", {"TableName": t, "Key": {"pk": S("u")},
                            "UpdateExpression": "SET a = :a", "ExpressionAttributeValues": {
                                ":a": S("y")}, "ReturnValues": "UPDATED_OLD"}),
        step("UpdateItem", {"TableName": t, "Key": {"pk": S("u")},
                            "UpdateExpression": "SET l = list_append(if_not_exists(l, :e), :v)",
                            "ExpressionAttributeValues": {":e": {"L": []}, ":v": {"L": [N(1)]}},
                            "ReturnValues": "UPDATED_NEW"}),
        step("UpdateItem", {"TableName": t, "Key": {"pk": S("u")},
                            "UpdateExpression": "REMOVE a, nothere", "ReturnValues": "ALL_OLD"}),
        step("UpdateItem", {"TableName": t, "Key": {"pk": S("u")},
                            "UpdateExpression": "SET pk = :v",
                            "ExpressionAttributeValues": {":v": S("z")}}),
        step("UpdateItem", {"TableName": t, "Key": {"pk": S("u")},
                            "UpdateExpression": "SET a = :v, a = :v",
                            "ExpressionAttributeValues": {":v": S("z")}}),
        step("UpdateItem", {"TableName": t, "Key": {"pk": S("u")},
                            "UpdateExpression": "SET a = :v REMOVE a.b",
                            "ExpressionAttributeValues": {":v": S("z")}}),
        step("UpdateItem", {"TableName": t, "Key": {"pk": S("u")},
                            "UpdateExpression": "SET a = :v", "ExpressionAttributeValues": {
                                ":v": S("z"), ":unused": S("q")}}),
        step("UpdateItem", {"TableName": t, "Key": {"pk": S("u")},
                            "UpdateExpression": "SET a = :missing"}),
        step("UpdateItem", {"TableName": t, "Key": {"pk": S("u")},
                            "UpdateExpression": "ADD c :s",
                            "ExpressionAttributeValues": {":s": S("str")}}),
        step("UpdateItem", {"TableName": t, "Key": {"pk": S("u")},
                            "UpdateExpression": "SET c = c + :s",
                            "ExpressionAttributeValues": {":s": S("str")}}),
        step("UpdateItem", {"TableName": t, "Key": {"pk": S("u")},
                            "UpdateExpression": "SET nope.x = :v",
                            "ExpressionAttributeValues": {":v": S("str")}}),
        step("UpdateItem", {"TableName": t, "Key": {"pk": S("u")},
                            "UpdateExpression": "DELETE c :v",
                            "ExpressionAttributeValues": {":v": {"SS": ["a"]}}}),
        step("UpdateItem", {"TableName": t, "Key": {"pk": S("u")},
                            "UpdateExpression": "SET a = :v", "ConditionExpression": "b > :zero",
                            "ExpressionAttributeValues": {":v": S("w"), ":zero": N(0)},
                            "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}),
        step("UpdateItem", {"TableName": t, "Key": {"pk": S("u")},
                            "AttributeUpdates": {"x": {"Action": "PUT", "Value": N(5)}},
                            "ReturnValues": "ALL_NEW"}),
        step("UpdateItem", {"TableName": t, "Key": {"pk": S("u")},
                            "AttributeUpdates": {"x": {"Action": "PUT", "Value": N(5)}},
                            "UpdateExpression": "SET y = :v",
                            "ExpressionAttributeValues": {":v": N(1)}}),
    ])

    # Query and Scan.
    t = "reads_query"
    sc(t, [setup("CreateTable", table(t, ranges=("sk",), defs={"pk": "S", "sk": "S", "g": "S"},
                                      GlobalSecondaryIndexes=[{
                                          "IndexName": "byg", "KeySchema": ks("g", ranges=("sk",)),
                                          "Projection": {"ProjectionType": "KEYS_ONLY"}}]))] +
       items(t, 12) + [
        step("Query", {"TableName": t, "KeyConditionExpression": "pk = :p",
                       "ExpressionAttributeValues": {":p": S("p1")}}),
        step("Query", {"TableName": t, "KeyConditionExpression": "pk = :p AND sk > :s",
                       "ExpressionAttributeValues": {":p": S("p1"), ":s": S("s04")},
                       "ScanIndexForward": False, "Limit": 2}),
        step("Query", {"TableName": t, "KeyConditionExpression": "pk = :p AND begins_with(sk, :s)",
                       "ExpressionAttributeValues": {":p": S("p0"), ":s": S("s0")},
                       "FilterExpression": "n > :n", "ProjectionExpression": "sk, m.l[1]",
                       "ReturnConsumedCapacity": "TOTAL"}),
        step("Query", {"TableName": t, "KeyConditionExpression": "pk = :p",
                       "ExpressionAttributeValues": {":p": S("p0")}, "Select": "COUNT",
                       "ReturnConsumedCapacity": "INDEXES"}),
        step("Query", {"TableName": t, "IndexName": "byg", "KeyConditionExpression": "g = :g",
                       "ExpressionAttributeValues": {":g": S("g1")},
                       "ReturnConsumedCapacity": "INDEXES"}),
        step("Query", {"TableName": t, "IndexName": "byg", "KeyConditionExpression": "g = :g",
                       "ExpressionAttributeValues": {":g": S("g1")}, "Select": "ALL_ATTRIBUTES"}),
        step("Query", {"TableName": t, "IndexName": "byg", "KeyConditionExpression": "g = :g",
                       "ExpressionAttributeValues": {":g": S("g1")}, "ConsistentRead": True}),
        step("Query", {"TableName": t, "IndexName": "nope", "KeyConditionExpression": "g = :g",
                       "ExpressionAttributeValues": {":g": S("g1")}}),
        step("Query", {"TableName": t, "KeyConditionExpression": "sk = :s",
                       "ExpressionAttributeValues": {":s": S("s01")}}),
        step("Query", {"TableName": t, "KeyConditionExpression": "pk = :p OR sk = :s",
                       "ExpressionAttributeValues": {":p": S("p1"), ":s": S("s01")}}),
        step("Query", {"TableName": t, "KeyConditionExpression": "pk = :p AND sk > :s AND sk < :t",
                       "ExpressionAttributeValues": {":p": S("p1"), ":s": S("a"), ":t": S("z")}}),
        step("Query", {"TableName": t, "KeyConditionExpression": "pk < :p",
                       "ExpressionAttributeValues": {":p": S("p1")}}),
        step("Query", {"TableName": t, "KeyConditionExpression": "pk = :p",
                       "ExpressionAttributeValues": {":p": N(1)}}),
        step("Query", {"TableName": t, "KeyConditionExpression": "pk = :p", "Limit": 0,
                       "ExpressionAttributeValues": {":p": S("p1")}}),
        step("Query", {"TableName": t}),
        step("Query", {"TableName": t, "KeyConditionExpression": "pk = :p",
                       "ExpressionAttributeValues": {":p": S("p1")}, "FilterExpression": "sk = :p"}),
        step("Query", {"TableName": t, "KeyConditionExpression": "pk = :p AND sk BETWEEN :b AND :a",
                       "ExpressionAttributeValues": {":p": S("p1"), ":a": S("a"), ":b": S("b")}}),
        step("Query", {"TableName": t, "KeyConditionExpression": "pk = :p",
                       "ExpressionAttributeValues": {":p": S("p1")},
                       "ExclusiveStartKey": {"pk": S("p2"), "sk": S("s02")}}),
        step("Scan", {"TableName": t, "FilterExpression": "n >= :n",
                      "ExpressionAttributeValues": {":n": N(6)}, "ReturnConsumedCapacity": "TOTAL"}),
        step("Scan", {"TableName": t, "Segment": 1, "TotalSegments": 1}),
        step("Scan", {"TableName": t, "Segment": 0}),
        step("Scan", {"TableName": t, "TotalSegments": 1000001, "Segment": 0}),
        step("Scan", {"TableName": t, "IndexName": "byg", "Select": "COUNT"}),
        step("Scan", {"TableName": t, "ScanFilter": {"n": {"ComparisonOperator": "GT",
                                                           "AttributeValueList": [N(8)]}}}),
        step("Scan", {"TableName": t, "ScanFilter": {"n": {"ComparisonOperator": "BETWEEN",
                                                           "AttributeValueList": [N(8)]}}}),
        step("Scan", {"TableName": t, "Limit": 3, "Select": "SPECIFIC_ATTRIBUTES"}),
    ])

    # Batches and transactions.
    t = "batch_ops"
    sc(t, [setup("CreateTable", table(t))] + [
        step("BatchWriteItem", {"RequestItems": {t: [
            {"PutRequest": {"Item": {"pk": S("b%d" % i), "v": N(i)}}} for i in range(5)]}}),
        step("BatchGetItem", {"RequestItems": {t: {"Keys": [{"pk": S("b%d" % i)}
                                                            for i in range(6)]}}}),
        step("BatchGetItem", {"RequestItems": {t: {"Keys": [{"pk": S("b1")}, {"pk": S("b1")}]}}}),
        step("BatchGetItem", {"RequestItems": {t: {"Keys": [{"pk": S("b%d" % i)}
                                                            for i in range(101)]}}}),
        step("BatchGetItem", {"RequestItems": {}}),
        step("BatchGetItem", {"RequestItems": {"batch_missing": {"Keys": [{"pk": S("x")}]}}}),
        step("BatchWriteItem", {"RequestItems": {t: [
            {"PutRequest": {"Item": {"pk": S("c%d" % i)}}} for i in range(26)]}}),
        step("BatchWriteItem", {"RequestItems": {t: [
            {"PutRequest": {"Item": {"pk": S("d")}}}, {"DeleteRequest": {"Key": {"pk": S("d")}}}]}}),
        step("BatchWriteItem", {"RequestItems": {t: [{}]}}),
        step("BatchWriteItem", {"RequestItems": {t: [
            {"PutRequest": {"Item": {"pk": S("e")}}, "DeleteRequest": {"Key": {"pk": S("e")}}}]}}),
        step("BatchWriteItem", {"RequestItems": {}}),
        step("TransactWriteItems", {"TransactItems": [
            {"Put": {"TableName": t, "Item": {"pk": S("t1"), "v": N(1)}}},
            {"Update": {"TableName": t, "Key": {"pk": S("t2")}, "UpdateExpression": "SET v = :v",
                        "ExpressionAttributeValues": {":v": N(2)}}},
            {"ConditionCheck": {"TableName": t, "Key": {"pk": S("b1")},
                                "ConditionExpression": "attribute_exists(pk)"}}]}),
        step("TransactWriteItems", {"TransactItems": [
            {"Put": {"TableName": t, "Item": {"pk": S("t3")}}},
            {"ConditionCheck": {"TableName": t, "Key": {"pk": S("nothere")},
                                "ConditionExpression": "attribute_exists(pk)",
                                "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}}]}),
        step("TransactWriteItems", {"TransactItems": [
            {"Put": {"TableName": t, "Item": {"pk": S("t4")}}},
            {"Delete": {"TableName": t, "Key": {"pk": S("t4")}}}]}),
        step("TransactWriteItems", {"TransactItems": []}),
        step("TransactWriteItems", {"TransactItems": [{}]}),
        step("TransactWriteItems", {"TransactItems": [
            {"Put": {"TableName": t, "Item": {"pk": S("t5")}},
             "Delete": {"TableName": t, "Key": {"pk": S("t5")}}}]}),
        step("TransactWriteItems", {"TransactItems": [
            {"Put": {"TableName": t, "Item": {"pk": N(5)}}}]}),
        step("TransactGetItems", {"TransactItems": [
            {"Get": {"TableName": t, "Key": {"pk": S("t1")}}},
            {"Get": {"TableName": t, "Key": {"pk": S("zz")}}}]}),
        step("TransactGetItems", {"TransactItems": [
            {"Get": {"TableName": t, "Key": {"pk": S("t1")}}},
            {"Get": {"TableName": t, "Key": {"pk": S("t1")}}}]}),
        step("TransactGetItems", {"TransactItems": [
            {"Get": {"TableName": "batch_missing", "Key": {"pk": S("t1")}}}]}),
        step("TransactWriteItems", {"ClientRequestToken": "tok-1", "TransactItems": [
            {"Put": {"TableName": t, "Item": {"pk": S("i1")}}}]}),
        step("TransactWriteItems", {"ClientRequestToken": "tok-1", "TransactItems": [
            {"Put": {"TableName": t, "Item": {"pk": S("i1")}}}]}),
        step("TransactWriteItems", {"ClientRequestToken": "tok-1", "TransactItems": [
            {"Put": {"TableName": t, "Item": {"pk": S("i2")}}}]}),
    ])

    # Tags, backups settings, endpoints (ARNs as DynamoDB writes them; DynamoDB
    # Local's own use another region, so its answers differ there).
    t = "admin_ops"
    arn = "arn:aws:dynamodb:us-east-1:000000000000:table/" + t
    sc(t, [
        setup("CreateTable", table(t)),
        step("TagResource", {"ResourceArn": arn, "Tags": [{"Key": "k", "Value": "v"}]}),
        step("ListTagsOfResource", {"ResourceArn": arn}),
        step("UntagResource", {"ResourceArn": arn, "TagKeys": ["k"]}),
        step("TagResource", {"ResourceArn": arn, "Tags": []}),
        step("TagResource", {"ResourceArn": "not-an-arn", "Tags": [{"Key": "k", "Value": "v"}]}),
        step("ListTagsOfResource", {"ResourceArn": arn + "/index/nope"}),
        step("UntagResource", {"ResourceArn": arn}),
        step("UpdateContinuousBackups", {"TableName": t, "PointInTimeRecoverySpecification": {
            "PointInTimeRecoveryEnabled": True}}),
        step("UpdateContinuousBackups", {"TableName": t}),
        step("DescribeEndpoints", {}),
    ])
    # DynamoDB Streams: the listing, and stream ARNs that name nothing.
    sc("streams_ops", [
        # Which streams exist depends on what earlier scenarios made: errors only.
        {"op": "ListStreams", "target": "DynamoDBStreams_20120810.ListStreams", "body": {},
         "compare": "error"},
        {"op": "ListStreams", "target": "DynamoDBStreams_20120810.ListStreams",
         "body": {"Limit": 0}},
        {"op": "DescribeStream", "target": "DynamoDBStreams_20120810.DescribeStream",
         "body": {"StreamArn": "arn:aws:dynamodb:us-east-1:000000000000:table/x/stream/"
                               "2026-01-01T00:00:00.000"}},
        {"op": "GetShardIterator", "target": "DynamoDBStreams_20120810.GetShardIterator",
         "body": {"StreamArn": "bad", "ShardId": "shardId-1", "ShardIteratorType": "LATEST"}},
        {"op": "GetRecords", "target": "DynamoDBStreams_20120810.GetRecords",
         "body": {"ShardIterator": "not-an-iterator"}},
    ])

    # The protocol: bodies that are not valid requests, unknown operations.
    sc("protocol", [
        {"op": "ListTables", "raw": "{not json"},
        {"op": "ListTables", "raw": "[]"},
        {"op": "ListTables", "raw": ""},
        {"op": "ListTables", "raw": "{\"Limit\": \"ten\"}"},
        {"op": "ListTables", "raw": "{\"Limit\": 0}"},
        {"op": "ListTables", "raw": "{\"Limit\": 101}"},
        {"op": "GetItem", "raw": "{\"TableName\": 5, \"Key\": {}}"},
        {"op": "PutItem", "raw": "{\"TableName\": \"protocol_t\", \"Item\": {\"pk\": {\"S\": 5}}}"},
        {"op": "NoSuchOperation", "body": {}},
        {"op": "DescribeLimits", "body": {}},
    ])
    return out


# ---------------------------------------------------------------- generated

BASES = [
    ("CreateTable", lambda t: table(t, ranges=("sk",), defs={"pk": "S", "sk": "N", "g": "S"},
                                    GlobalSecondaryIndexes=[{
                                        "IndexName": "gsi1", "KeySchema": ks("g"),
                                        "Projection": {"ProjectionType": "INCLUDE",
                                                       "NonKeyAttributes": ["a"]}}])),
    ("PutItem", lambda t: {"TableName": t, "Item": {"pk": S("k"), "sk": N(1), "a": S("x")},
                           "ConditionExpression": "attribute_not_exists(a) OR a <> :v",
                           "ExpressionAttributeValues": {":v": S("y")}, "ReturnValues": "ALL_OLD"}),
    ("GetItem", lambda t: {"TableName": t, "Key": {"pk": S("k"), "sk": N(1)},
                           "ProjectionExpression": "#a", "ExpressionAttributeNames": {"#a": "a"},
                           "ConsistentRead": True}),
    ("UpdateItem", lambda t: {"TableName": t, "Key": {"pk": S("k"), "sk": N(1)},
                              "UpdateExpression": "SET a = :v", "ReturnValues": "UPDATED_NEW",
                              "ExpressionAttributeValues": {":v": S("z")}}),
    ("DeleteItem", lambda t: {"TableName": t, "Key": {"pk": S("k"), "sk": N(2)},
                              "ReturnValues": "ALL_OLD"}),
    ("Query", lambda t: {"TableName": t, "KeyConditionExpression": "pk = :p AND sk >= :s",
                         "ExpressionAttributeValues": {":p": S("k"), ":s": N(0)}, "Limit": 5,
                         "Select": "ALL_ATTRIBUTES", "ReturnConsumedCapacity": "TOTAL"}),
    ("Scan", lambda t: {"TableName": t, "Limit": 5, "Segment": 0, "TotalSegments": 1,
                        "FilterExpression": "a = :a", "ExpressionAttributeValues": {":a": S("z")}}),
    ("BatchGetItem", lambda t: {"RequestItems": {t: {"Keys": [{"pk": S("k"), "sk": N(1)}],
                                                     "ProjectionExpression": "a"}}}),
    ("BatchWriteItem", lambda t: {"RequestItems": {t: [
        {"PutRequest": {"Item": {"pk": S("w"), "sk": N(1)}}},
        {"DeleteRequest": {"Key": {"pk": S("w"), "sk": N(2)}}}]}}),
    ("TransactWriteItems", lambda t: {"TransactItems": [
        {"Put": {"TableName": t, "Item": {"pk": S("x"), "sk": N(1)}}},
        {"Update": {"TableName": t, "Key": {"pk": S("x"), "sk": N(2)},
                    "UpdateExpression": "SET a = :a", "ExpressionAttributeValues": {":a": S("1")}}}]}),
    ("TransactGetItems", lambda t: {"TransactItems": [
        {"Get": {"TableName": t, "Key": {"pk": S("x"), "sk": N(1)}}}]}),
    ("UpdateTimeToLive", lambda t: {"TableName": t, "TimeToLiveSpecification": {
        "Enabled": True, "AttributeName": "exp"}}),
    ("DescribeTable", lambda t: {"TableName": t}),
    ("ListTables", lambda t: {"Limit": 5, "ExclusiveStartTableName": t}),
]


def paths(v, prefix=()):
    """Every member path of a JSON value (dicts and lists), deepest last."""
    if isinstance(v, dict):
        for k, x in v.items():
            yield prefix + (k,)
            yield from paths(x, prefix + (k,))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            yield prefix + (i,)
            yield from paths(x, prefix + (i,))


def mutate(body, path, how):
    b = copy.deepcopy(body)
    parent = b
    for p in path[:-1]:
        parent = parent[p]
    last = path[-1]
    old = parent[last]
    if how == "drop":
        if isinstance(parent, list):
            parent.pop(last)
        else:
            del parent[last]
    elif how == "null":
        parent[last] = None
    elif how == "empty":
        parent[last] = type(old)() if isinstance(old, (str, list, dict)) else None
    elif how == "type":
        parent[last] = 7 if isinstance(old, str) else "seven"
    elif how == "long":
        parent[last] = old * (300 // max(len(old), 1) + 1)
    elif how == "zero":
        parent[last] = 0
    elif how == "big":
        parent[last] = 10 ** 7
    return b


def generated():
    out = []
    for op, make in BASES:
        tname = "gen_" + op.lower()
        base = make(tname)
        # The table each base request works on (not compared).
        pre = [] if op in ("CreateTable", "ListTables") else [
            setup("CreateTable", table(tname, ranges=("sk",), defs={"pk": "S", "sk": "N"})),
            setup("PutItem", {"TableName": tname, "Item": {"pk": S("k"), "sk": N(1), "a": S("y")}})]
        out.append({"id": "gen_%s_valid" % op, "steps": pre + [step(op, base)]})
        seen = {json.dumps(base, sort_keys=True)}  # a "mutation" that changes nothing is no case
        for path in paths(base):
            parent = base
            for p in path[:-1]:
                parent = parent[p]
            value = parent[path[-1]]
            hows = ["drop", "null"]
            if isinstance(value, (str, list, dict)):
                hows.append("empty")
            if isinstance(value, (str, int, bool)) and not isinstance(value, dict):
                hows.append("type")
            if isinstance(value, str) and path[-1] in ("TableName", "IndexName", "AttributeName"):
                hows.append("long")
            if isinstance(value, int) and not isinstance(value, bool):
                hows += ["zero", "big"]
            for how in hows:
                mutated = mutate(base, path, how)
                sig = json.dumps(mutated, sort_keys=True)
                if sig in seen:
                    continue
                seen.add(sig)
                name = "gen_%s_%s_%s" % (op, ".".join(str(p) for p in path), how)
                if op == "CreateTable":
                    # A fresh name each time: a valid mutation creates the table.
                    mutated = json.loads(sig.replace(tname, "gc%d" % len(seen)))
                last = step(op, mutated)
                if op == "ListTables":
                    last["compare"] = "error"  # the table set depends on earlier cases
                out.append({"id": name, "steps": pre + [last]})
    return out


def check_scenario(s, seen):
    """A scenario's shape, checked as the corpus is read, so that run.py and
    test_differential_corpus.py never compare a malformed one: a new id, steps,
    each naming an operation with a JSON object body or raw bytes."""
    assert isinstance(s.get("id"), str) and s["id"], s
    assert s["id"] not in seen, "duplicate scenario id %s" % s["id"]
    seen.add(s["id"])
    assert s.get("steps"), "scenario %s has no steps" % s["id"]
    for st in s["steps"]:
        assert isinstance(st.get("op") or st.get("target"), str), (s["id"], st)
        assert ("raw" in st) != ("body" in st), "%s: a step has a body or raw bytes" % s["id"]
        if "body" in st:
            assert isinstance(st["body"], dict), (s["id"], st)
    return s


def scenarios():
    seen = set()
    for s in hand_written():
        yield check_scenario(s, seen)
    for s in generated():
        yield check_scenario(s, seen)
