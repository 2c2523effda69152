"""PartiQL through boto3: ExecuteStatement (SELECT planned as GetItem, Query or
Scan; INSERT, UPDATE, DELETE with RETURNING; parameters; paging),
BatchExecuteStatement and ExecuteTransaction, and their errors.

Run standalone: python3 tests/e2e/test_boto3_partiql.py
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from botocore.exceptions import ClientError  # noqa: E402

C = None
T = "pq_music"


def S(s):
    return {"S": s}


def N(n):
    return {"N": str(n)}


def setUpModule():
    global C
    harness.start()
    C = harness.client()
    C.create_table(
        TableName=T, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "artist", "KeyType": "HASH"},
                   {"AttributeName": "song", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "artist", "AttributeType": "S"},
                              {"AttributeName": "song", "AttributeType": "S"},
                              {"AttributeName": "genre", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{"IndexName": "by_genre",
                                 "KeySchema": [{"AttributeName": "genre", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "ALL"}}])
    for artist, song, year, genre in [("Acme", "Alpha", 1971, "rock"), ("Acme", "Beta", 1975, "pop"),
                                      ("Acme", "Gamma", 1980, "rock"), ("Zed", "Omega", 1990, "jazz")]:
        C.put_item(TableName=T, Item={"artist": S(artist), "song": S(song), "year": N(year),
                                      "genre": S(genre), "tags": {"SS": ["a", "b"]}})


def tearDownModule():
    harness.stop()


def run(statement, **kw):
    return C.execute_statement(Statement=statement, **kw)


class SelectTest(unittest.TestCase):
    def test_full_key_is_a_get(self):
        r = run('SELECT * FROM "pq_music" WHERE artist = ? AND song = ?',
                Parameters=[S("Acme"), S("Beta")], ReturnConsumedCapacity="TOTAL")
        self.assertEqual(len(r["Items"]), 1)
        self.assertEqual(r["Items"][0]["year"], N(1975))
        self.assertEqual(r["ConsumedCapacity"]["CapacityUnits"], 0.5)  # one eventually consistent read
        self.assertEqual(run("SELECT * FROM pq_music WHERE artist='Acme' AND song='Nope'")["Items"], [])

    def test_partition_is_a_query_with_key_conditions_and_a_filter(self):
        r = run("SELECT song, \"year\" FROM pq_music WHERE artist = 'Acme' AND song > 'Alpha' AND \"year\" < 1979")
        self.assertEqual(r["Items"], [{"song": S("Beta"), "year": N(1975)}])
        r = run("SELECT song FROM pq_music WHERE artist = 'Acme' ORDER BY song DESC")
        self.assertEqual([i["song"]["S"] for i in r["Items"]], ["Gamma", "Beta", "Alpha"])
        r = run("SELECT song FROM pq_music WHERE artist = 'Acme' AND begins_with(song, 'G')")
        self.assertEqual([i["song"]["S"] for i in r["Items"]], ["Gamma"])

    def test_several_partitions_are_queries_not_a_scan(self):
        # IN and OR of equalities on the partition key read those partitions
        # only: the capacity is that of the partitions' items, not the table's.
        r = run("SELECT song FROM pq_music WHERE artist IN ['Zed', 'Acme'] AND song <> 'Beta'",
                ReturnConsumedCapacity="TOTAL")
        self.assertEqual([i["song"]["S"] for i in r["Items"]], ["Omega", "Alpha", "Gamma"])
        r = run("SELECT song FROM pq_music WHERE artist = ? OR artist = 'Nobody'", Parameters=[S("Zed")])
        self.assertEqual(r["Items"], [{"song": S("Omega")}])
        # A condition on the sort key beyond the key condition still applies.
        r = run("SELECT \"year\" FROM pq_music WHERE artist = 'Acme' AND song IN ['Alpha', 'Gamma']")
        self.assertEqual(r["Items"], [{"year": N(1971)}, {"year": N(1980)}])

    def test_index_and_scan(self):
        r = run('SELECT song FROM "pq_music"."by_genre" WHERE genre = ?', Parameters=[S("rock")])
        self.assertEqual(sorted(i["song"]["S"] for i in r["Items"]), ["Alpha", "Gamma"])
        r = run("SELECT * FROM pq_music WHERE \"year\" BETWEEN 1974 AND 1985 AND contains(tags, 'a')")
        self.assertEqual(sorted(i["song"]["S"] for i in r["Items"]), ["Beta", "Gamma"])
        r = run("SELECT * FROM pq_music WHERE genre IN ['jazz', 'pop'] AND NOT artist = 'Zed'")
        self.assertEqual([i["song"]["S"] for i in r["Items"]], ["Beta"])
        r = run("SELECT * FROM pq_music WHERE lyrics IS MISSING AND genre IS NOT MISSING")
        self.assertEqual(len(r["Items"]), 4)

    def test_limit_and_next_token_page_through(self):
        seen, token = [], None
        while True:
            kw = {"Limit": 2}
            if token:
                kw["NextToken"] = token
            r = run("SELECT song FROM pq_music WHERE artist = 'Acme'", **kw)
            seen += [i["song"]["S"] for i in r["Items"]]
            token = r.get("NextToken")
            if not token:
                break
        self.assertEqual(seen, ["Alpha", "Beta", "Gamma"])
        with self.assertRaises(ClientError) as e:
            run("SELECT song FROM pq_music", NextToken="zz")
        self.assertEqual(e.exception.response["Error"]["Message"], "Invalid NextToken")


class WriteTest(unittest.TestCase):
    def test_insert_update_delete(self):
        run("INSERT INTO pq_music VALUE {'artist': 'New', 'song': 'One', 'plays': 1, "
            "'meta': {'len': 3.5, 'live': TRUE}, 'list': [1, 'x'], 'set': <<'p', 'q'>>}")
        item = C.get_item(TableName=T, Key={"artist": S("New"), "song": S("One")})["Item"]
        self.assertEqual(item["meta"], {"M": {"len": N("3.5"), "live": {"BOOL": True}}})
        self.assertEqual(item["set"], {"SS": ["p", "q"]})
        with self.assertRaises(ClientError) as e:
            run("INSERT INTO pq_music VALUE {'artist': 'New', 'song': 'One'}")
        self.assertEqual(e.exception.response["Error"]["Code"], "DuplicateItemException")

        r = run("UPDATE pq_music SET plays = plays + 2 SET \"list\" = list_append(\"list\", [2]) "
                "REMOVE meta WHERE artist = 'New' AND song = 'One' RETURNING ALL NEW *")
        self.assertEqual(r["Items"][0]["plays"], N(3))
        self.assertNotIn("meta", r["Items"][0])
        run("UPDATE pq_music SET \"set\" = set_add(\"set\", <<'r'>>) WHERE artist = 'New' AND song = 'One'")
        item = C.get_item(TableName=T, Key={"artist": S("New"), "song": S("One")})["Item"]
        self.assertEqual(item["set"], {"SS": ["p", "q", "r"]})

        # The WHERE beyond the key is a condition.
        with self.assertRaises(ClientError) as e:
            run("UPDATE pq_music SET plays = 0 WHERE artist = 'New' AND song = 'One' AND plays > 10")
        self.assertEqual(e.exception.response["Error"]["Code"], "ConditionalCheckFailedException")
        # An UPDATE of an item that does not exist fails; nothing is created.
        with self.assertRaises(ClientError) as e:
            run("UPDATE pq_music SET plays = 1 WHERE artist = 'Ghost' AND song = 'None'")
        self.assertEqual(e.exception.response["Error"]["Code"], "ConditionalCheckFailedException")
        self.assertNotIn("Item", C.get_item(TableName=T, Key={"artist": S("Ghost"), "song": S("None")}))

        r = run("DELETE FROM pq_music WHERE artist = 'New' AND song = 'One' RETURNING ALL OLD *")
        self.assertEqual(r["Items"][0]["plays"], N(3))
        self.assertNotIn("Item", C.get_item(TableName=T, Key={"artist": S("New"), "song": S("One")}))

    def test_writes_need_the_whole_key(self):
        with self.assertRaises(ClientError) as e:
            run("UPDATE pq_music SET plays = 1 WHERE artist = 'Acme'")
        self.assertEqual(e.exception.response["Error"]["Code"], "ValidationException")
        with self.assertRaises(ClientError) as e:
            run("DELETE FROM pq_music WHERE \"year\" = 1971")
        self.assertEqual(e.exception.response["Error"]["Code"], "ValidationException")


class ErrorTest(unittest.TestCase):
    def assertValidation(self, statement, contains, **kw):
        with self.assertRaises(ClientError) as e:
            run(statement, **kw)
        self.assertEqual(e.exception.response["Error"]["Code"], "ValidationException")
        self.assertIn(contains, e.exception.response["Error"]["Message"])

    def test_syntax_and_unsupported(self):
        self.assertValidation("SELECT * FRM pq_music", "Statement wasn't well formed")
        self.assertValidation("SELECT * FROM pq_music WHERE artist = 'x", "Statement wasn't well formed")
        self.assertValidation("SELECT COUNT(*) FROM pq_music", "Unexpected path component at 1:8:5")
        self.assertValidation("SELECT * FROM pq_music, other",
                              "Only select from a single table or index is supported.")
        self.assertValidation("SELECT * FROM pq_music GROUP BY artist", "Unsupported clause: GROUP BY")
        self.assertValidation("SELECT * FROM pq_music WHERE artist = ? AND song = ?",
                              "Number of parameters in request and statement don't match.",
                              Parameters=[S("a")])
        self.assertValidation("SELECT * FROM pq_music ORDER BY song",
                              "Must have WHERE clause in the statement when using ORDER BY clause.")
        self.assertValidation("SELECT * FROM pq_music WHERE song = 'x' ORDER BY song",
                              "Must have at least one non-optional hash key condition in WHERE "
                              "clause when using ORDER BY clause.")
        self.assertValidation("SELECT * FROM pq_music WHERE artist = 'x' ORDER BY genre",
                              "Variable reference genre in ORDER BY clause must be part of the "
                              "primary key")
        self.assertValidation("INSERT INTO pq_music VALUE {'artist': 'x'}",
                              "Key attribute should be present in the item: Key song")

    def test_unknown_table(self):
        with self.assertRaises(ClientError) as e:
            run("SELECT * FROM nowhere")
        self.assertEqual(e.exception.response["Error"]["Code"], "ResourceNotFoundException")


class BatchAndTransactionTest(unittest.TestCase):
    def test_batch_answers_each_statement(self):
        r = C.batch_execute_statement(Statements=[
            {"Statement": "INSERT INTO pq_music VALUE {'artist': 'B', 'song': '1'}"},
            {"Statement": "INSERT INTO pq_music VALUE {'artist': 'Acme', 'song': 'Alpha'}"},
        ])
        self.assertNotIn("Error", r["Responses"][0])
        self.assertEqual(r["Responses"][1]["Error"]["Code"], "DuplicateItem")
        r = C.batch_execute_statement(Statements=[
            {"Statement": "SELECT * FROM pq_music WHERE artist = ? AND song = ?",
             "Parameters": [S("B"), S("1")]},
            {"Statement": "SELECT * FROM pq_music WHERE artist = 'Nobody' AND song = 'x'"},
        ])
        self.assertEqual(r["Responses"][0]["Item"]["artist"], S("B"))
        self.assertNotIn("Item", r["Responses"][1])

    def test_transaction_is_all_or_nothing(self):
        C.execute_transaction(TransactStatements=[
            {"Statement": "INSERT INTO pq_music VALUE {'artist': 'Tx', 'song': '1'}"},
            {"Statement": "UPDATE pq_music SET plays = 7 WHERE artist = 'Acme' AND song = 'Alpha'"},
        ])
        self.assertEqual(C.get_item(TableName=T, Key={"artist": S("Acme"), "song": S("Alpha")})
                         ["Item"]["plays"], N(7))
        with self.assertRaises(ClientError) as e:
            C.execute_transaction(TransactStatements=[
                {"Statement": "INSERT INTO pq_music VALUE {'artist': 'Tx', 'song': '2'}"},
                {"Statement": "INSERT INTO pq_music VALUE {'artist': 'Tx', 'song': '1'}"},
            ])
        self.assertEqual(e.exception.response["Error"]["Code"], "TransactionCanceledException")
        codes = [r["Code"] for r in e.exception.response["CancellationReasons"]]
        self.assertEqual(codes, ["None", "DuplicateItem"])
        self.assertNotIn("Item", C.get_item(TableName=T, Key={"artist": S("Tx"), "song": S("2")}))
        r = C.execute_transaction(TransactStatements=[
            {"Statement": "SELECT * FROM pq_music WHERE artist = 'Tx' AND song = '1'"},
            {"Statement": "SELECT * FROM pq_music WHERE artist = 'Tx' AND song = 'none'"}])
        self.assertEqual(r["Responses"][0]["Item"]["artist"], S("Tx"))
        self.assertEqual(r["Responses"][1], {})


if __name__ == "__main__":
    unittest.main(verbosity=2)
