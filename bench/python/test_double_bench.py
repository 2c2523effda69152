"""The Python test double, timed: one workload (create a table, 500 puts, 500
gets, 50 queries, 20 transactions) through
  - moto's mock_aws with boto3 (when moto is installed),
  - boto3 against dynarock.serve() (an endpoint inside the process),
  - the package's in-process client (dynarock.open().client()),
each run three times, best reported, with the ratios.

    DYNAROCK_LIBRARY=build/libdynarock.so PYTHONPATH=bindings/python \\
        python3 bench/python/test_double_bench.py
"""

import os
import time

import dynarock

N = 500


def workload(client):
    client.create_table(TableName="bench", BillingMode="PAY_PER_REQUEST",
                        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                                   {"AttributeName": "sk", "KeyType": "RANGE"}],
                        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                              {"AttributeName": "sk", "AttributeType": "N"}])
    for i in range(N):
        client.put_item(TableName="bench", Item={"pk": {"S": "p%d" % (i % 10)},
                                                 "sk": {"N": str(i)},
                                                 "v": {"S": "value %d" % i}})
    for i in range(N):
        client.get_item(TableName="bench", Key={"pk": {"S": "p%d" % (i % 10)}, "sk": {"N": str(i)}})
    for i in range(50):
        client.query(TableName="bench", KeyConditionExpression="pk = :p AND sk > :s",
                     ExpressionAttributeValues={":p": {"S": "p%d" % (i % 10)}, ":s": {"N": "100"}})
    for i in range(20):
        client.transact_write_items(TransactItems=[
            {"Update": {"TableName": "bench", "Key": {"pk": {"S": "p1"}, "sk": {"N": str(i)}},
                        "UpdateExpression": "SET n = :n", "ExpressionAttributeValues": {":n": {"N": "1"}}}},
            {"Put": {"TableName": "bench", "Item": {"pk": {"S": "t"}, "sk": {"N": str(i)}}}}])


def best_of(make, runs=3):
    times = []
    for _ in range(runs):
        with make() as client:
            start = time.perf_counter()
            workload(client)
            times.append(time.perf_counter() - start)
    return min(times)


class _InProcess:
    def __enter__(self):
        self.db = dynarock.open()
        return self.db.client()

    def __exit__(self, *exc):
        self.db.close()


class _Served:
    def __enter__(self):
        import boto3
        self.ctx = dynarock.serve()
        url = self.ctx.__enter__()
        return boto3.client("dynamodb", endpoint_url=url, region_name="us-east-1",
                            aws_access_key_id="x", aws_secret_access_key="x")

    def __exit__(self, *exc):
        self.ctx.__exit__(*exc)


class _Moto:
    def __enter__(self):
        import boto3
        from moto import mock_aws
        os.environ.setdefault("AWS_ACCESS_KEY_ID", "x")
        os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "x")
        self.mock = mock_aws()
        self.mock.start()
        return boto3.client("dynamodb", region_name="us-east-1")

    def __exit__(self, *exc):
        self.mock.stop()


def main():
    ops = 2 * N + 50 + 20 + 1
    results = {}
    results["dynarock in-process client"] = best_of(_InProcess)
    try:
        import boto3  # noqa: F401
        results["boto3 + dynarock.serve()"] = best_of(_Served)
    except ImportError:
        pass
    try:
        import moto  # noqa: F401
        results["boto3 + moto mock_aws"] = best_of(_Moto)
    except ImportError:
        print("moto is not installed: no moto figure")
    base = results.get("boto3 + moto mock_aws")
    for name, t in results.items():
        line = "%-28s %7.3f s  %8.0f ops/s" % (name, t, ops / t)
        if base:
            line += "  %6.1fx moto" % (base / t)
        print(line)


if __name__ == "__main__":
    main()
