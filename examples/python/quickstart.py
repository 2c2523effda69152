"""The Python package: the same calls in process and, over HTTP, through boto3.

    pip install --no-build-isolation ./bindings/python
    python3 examples/python/quickstart.py
"""
import dynarock


def exercise(client):
    client.create_table(TableName="notes", BillingMode="PAY_PER_REQUEST",
                        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
                        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}])
    client.put_item(TableName="notes", Item={"id": {"S": "1"}, "body": {"B": b"\x00hi"}})
    item = client.get_item(TableName="notes", Key={"id": {"S": "1"}})["Item"]
    try:
        client.put_item(TableName="notes", Item={"id": {"S": "1"}},
                        ConditionExpression="attribute_not_exists(id)")
    except client.exceptions.ConditionalCheckFailedException as e:
        refused = e.response["Error"]["Code"]
    return item["body"]["B"], refused


with dynarock.open() as db:
    print("in process:", *exercise(db.client()))

try:
    import boto3
except ImportError:
    boto3 = None
if boto3 is not None:
    with dynarock.serve() as url:
        client = boto3.client("dynamodb", endpoint_url=url, region_name="us-east-1",
                              aws_access_key_id="x", aws_secret_access_key="x")
        print("over HTTP:", *exercise(client))
