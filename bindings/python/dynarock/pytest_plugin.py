"""pytest fixtures for code that talks to DynamoDB (registered when the package
is installed; or list "dynarock.pytest_plugin" in a conftest's pytest_plugins):

    def test_orders(dynarock_client):          # in process, boto3's client shapes
        dynarock_client.create_table(...)

    def test_with_boto3(dynarock_url):          # an endpoint for any AWS SDK
        client = boto3.client("dynamodb", endpoint_url=dynarock_url, ...)

Each test gets a fresh in-memory database. The replacement for moto's
mock_aws: DynamoDB's own validation and semantics, and no patching.
"""

import pytest

import dynarock


@pytest.fixture
def dynarock_db():
    """A fresh in-memory dynarock.Database, closed after the test."""
    db = dynarock.open()
    try:
        yield db
    finally:
        db.close()


@pytest.fixture
def dynarock_client(dynarock_db):
    """An in-process client with boto3.client("dynamodb")'s methods and shapes."""
    return dynarock_db.client()


@pytest.fixture
def dynarock_url(dynarock_db):
    """The URL of an endpoint inside this process over the test's database."""
    with dynarock_db.serve() as url:
        yield url
