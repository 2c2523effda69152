"""pytest fixtures for code that talks to DynamoDB (registered when the package
is installed; or list "dynarock.pytest_plugin" in a conftest's pytest_plugins):

    def test_orders(dynarock_client):          # in process, boto3's client shapes
        dynarock_client.create_table(...)

    def test_with_boto3(dynarock_url):          # an endpoint for any AWS SDK
        client = boto3.client("dynamodb", endpoint_url=dynarock_url, ...)

Each test gets a fresh in-memory database. The replacement for moto's
mock_aws: DynamoDB's own validation and semantics, and no patching.

And `dynarock serve` in its own process, started once per session (the
binary: --dynarock-bin, DYNAROCK_BIN, `dynarock` on PATH, or a checkout's
build/dynarock; see dynarock.testing):

    def test_orders(dynarock_boto3_client):     # boto3 bound to the server
        dynarock_boto3_client.create_table(...)

    def test_retries(dynarock_server_reset, dynarock_boto3_client):
        dynarock_server_reset.set_faults([{"operation": "PutItem", "first_n": 1,
                                           "error": "ThrottlingException"}])
        dynarock_server_reset.advance_clock(86400)

dynarock_server (session) is the process and its control API;
dynarock_server_reset (per test) is the same server after a reset: no tables
in any namespace, no fault rules, the real clock. Snapshots are kept, so a
session fixture may seed data, save_snapshot() it, and tests restore it.
"""

import pytest

import dynarock
from dynarock.testing import DynarockServer


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


# ---------------------------------------------------------------- a server process

def pytest_addoption(parser):
    group = parser.getgroup("dynarock")
    group.addoption("--dynarock-bin", default=None,
                    help="the dynarock binary for dynarock_server (default: DYNAROCK_BIN, "
                         "dynarock on PATH, a checkout's build/dynarock)")
    parser.addini("dynarock_serve_args", type="args", default=[],
                  help="more `dynarock serve` flags for dynarock_server (e.g. --shared-db)")


@pytest.fixture(scope="session")
def dynarock_server(pytestconfig):
    """`dynarock serve --port 0 --in-memory` on loopback for the whole session:
    a dynarock.testing.DynarockServer (.url, .port, reset(), save_snapshot(),
    restore_snapshot(), advance_clock(), set_faults(), ...), stopped at the end."""
    server = DynarockServer(binary=pytestconfig.getoption("dynarock_bin"),
                            args=pytestconfig.getini("dynarock_serve_args"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def dynarock_server_reset(dynarock_server):
    """dynarock_server, reset before this test: no tables, no fault rules, the
    real clock (snapshots stay)."""
    dynarock_server.reset_all()
    return dynarock_server


def _boto3_kwargs(server):
    return dict(endpoint_url=server.url,
                region_name="us-east-1",
                aws_access_key_id="dynarock", aws_secret_access_key="dynarock")


@pytest.fixture
def dynarock_boto3_client(dynarock_server_reset):
    """boto3.client("dynamodb") bound to the reset server (skips without boto3)."""
    boto3 = pytest.importorskip("boto3")
    return boto3.client("dynamodb", **_boto3_kwargs(dynarock_server_reset))


@pytest.fixture
def dynarock_boto3_resource(dynarock_server_reset):
    """boto3.resource("dynamodb") bound to the reset server (skips without boto3)."""
    boto3 = pytest.importorskip("boto3")
    return boto3.resource("dynamodb", **_boto3_kwargs(dynarock_server_reset))
