"""The package's pytest fixtures (dynarock.pytest_plugin, registered by the
installed package): the same exercise through dynarock_client and, with boto3,
through dynarock_url. Run by tests/python/test_python_package.py under pytest."""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from same_code import exercise_orders  # noqa: E402


class _Asserts:
    """unittest's assertion methods for a plain function."""

    def __init__(self):
        import unittest
        self._t = unittest.TestCase()

    def __getattr__(self, name):
        return getattr(self._t, name)


def test_in_process(dynarock_client):
    exercise_orders(_Asserts(), dynarock_client)


def test_boto3_over_the_fixture_endpoint(dynarock_url):
    boto3 = pytest.importorskip("boto3")
    client = boto3.client("dynamodb", endpoint_url=dynarock_url, region_name="us-east-1",
                          aws_access_key_id="test", aws_secret_access_key="test")
    exercise_orders(_Asserts(), client)


def test_each_test_gets_a_fresh_database(dynarock_client):
    assert dynarock_client.list_tables()["TableNames"] == []
