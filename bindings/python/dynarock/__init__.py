"""Dynarock for Python: DynamoDB inside your process.

    import dynarock
    db = dynarock.open()                  # in memory (dynarock.open("./data") keeps files)
    client = db.client()                  # boto3.client("dynamodb")'s shapes, in process
    client.put_item(TableName="t", Item={"pk": {"S": "a"}})

    with dynarock.serve() as url:         # an endpoint for any AWS SDK, in this process
        boto3.client("dynamodb", endpoint_url=url, ...)

The client's methods are boto3's low-level DynamoDB client's: the same names
(put_item, query, transact_write_items, ...), keyword arguments and response
dictionaries (with ResponseMetadata), bytes for B and BS values, and errors
raised as ClientError (botocore's own class when botocore is installed) with
response["Error"]["Code"] and ["Message"] as DynamoDB's. So code written for
boto3 runs unchanged against either.

Everything goes through Dynarock's C ABI (libdynarock, include/dynarock/dynarock.h)
with ctypes: no compiled extension, no dependency outside the standard library.
"""

import base64
import contextlib
import ctypes
import ctypes.util
import json
import os
import re
import threading
import time
import uuid

__all__ = ["open", "serve", "Database", "Client", "ClientError", "DynarockError", "library_version"]

_HERE = os.path.dirname(os.path.abspath(__file__))


# ---------------------------------------------------------------- the library

def _find_library():
    candidates = []
    env = os.environ.get("DYNAROCK_LIBRARY")
    if env:
        candidates.append(env)
    candidates.append(os.path.join(_HERE, "_lib", "libdynarock.so"))
    found = ctypes.util.find_library("dynarock")
    if found:
        candidates.append(found)
    for prefix in ("/usr/local/lib", "/usr/lib", "/usr/local/lib64"):
        candidates.append(os.path.join(prefix, "libdynarock.so"))
    for c in candidates:
        try:
            return ctypes.CDLL(c)
        except OSError:
            continue
    raise OSError("libdynarock not found: set DYNAROCK_LIBRARY to its path, install it "
                  "(cmake --install), or install this package with DYNAROCK_LIBRARY set")


_lib = None
_lib_lock = threading.Lock()


def _library():
    global _lib
    with _lib_lock:
        if _lib is None:
            lib = _find_library()
            c_char_pp = ctypes.POINTER(ctypes.c_void_p)
            lib.dynarock_version.restype = ctypes.c_char_p
            lib.dynarock_version.argtypes = []
            for name in ("dynarock_error_type", "dynarock_error_message", "dynarock_error_json"):
                getattr(lib, name).restype = ctypes.c_char_p
                getattr(lib, name).argtypes = [ctypes.c_void_p]
            lib.dynarock_error_http_status.restype = ctypes.c_int
            lib.dynarock_error_http_status.argtypes = [ctypes.c_void_p]
            lib.dynarock_error_free.argtypes = [ctypes.c_void_p]
            lib.dynarock_free.argtypes = [ctypes.c_void_p]
            lib.dynarock_open.restype = ctypes.c_int
            lib.dynarock_open.argtypes = [ctypes.c_char_p, ctypes.c_char_p, c_char_pp, c_char_pp]
            lib.dynarock_close.argtypes = [ctypes.c_void_p]
            for name in ("dynarock_execute", "dynarock_graph_execute"):
                getattr(lib, name).restype = ctypes.c_int
                getattr(lib, name).argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p,
                                               c_char_pp, c_char_pp]
            lib.dynarock_serve_start.restype = ctypes.c_int
            lib.dynarock_serve_start.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                                 ctypes.POINTER(ctypes.c_uint16), c_char_pp,
                                                 c_char_pp]
            lib.dynarock_serve_stop.argtypes = [ctypes.c_void_p]
            if hasattr(lib, "dynarock_set_capacity"):
                lib.dynarock_set_capacity.restype = ctypes.c_int
                lib.dynarock_set_capacity.argtypes = [ctypes.c_void_p, ctypes.c_char_p, c_char_pp,
                                                      c_char_pp]
            if hasattr(lib, "dynarock_set_faults"):  # libdynarock 0.14 on
                lib.dynarock_set_faults.restype = ctypes.c_int
                lib.dynarock_set_faults.argtypes = [ctypes.c_void_p, ctypes.c_char_p, c_char_pp,
                                                    c_char_pp]
                lib.dynarock_get_faults.restype = ctypes.c_int
                lib.dynarock_get_faults.argtypes = [ctypes.c_void_p, c_char_pp, c_char_pp]
            _lib = lib
        return _lib


def library_version():
    """The version of the loaded libdynarock ("0.13.0")."""
    return _library().dynarock_version().decode()


# ---------------------------------------------------------------- errors

class DynarockError(Exception):
    """A failure of the library itself (a closed handle, bad options)."""


try:  # the very class boto3 code catches, when botocore is there
    from botocore.exceptions import ClientError as _BaseClientError
except ImportError:  # pragma: no cover - without botocore
    class _BaseClientError(Exception):
        def __init__(self, error_response, operation_name):
            self.response = error_response
            self.operation_name = operation_name
            err = error_response.get("Error", {})
            super().__init__("An error occurred (%s) when calling the %s operation: %s" % (
                err.get("Code", "Unknown"), operation_name, err.get("Message", "")))


class ClientError(_BaseClientError):
    """DynamoDB's error for a request, shaped as botocore's ClientError."""


_error_classes = {}


def _error_class(code):
    cls = _error_classes.get(code)
    if cls is None:
        cls = type(code, (ClientError,), {})
        _error_classes[code] = cls
    return cls


class _Exceptions:
    """client.exceptions.ConditionalCheckFailedException and the like, as boto3's."""

    ClientError = ClientError

    def __getattr__(self, code):
        if not code.endswith("Exception") and code not in ("InternalServerError",):
            raise AttributeError(code)
        return _error_class(code)


def _raise_error(lib, err, operation):
    try:
        code = lib.dynarock_error_type(err).decode()
        message = lib.dynarock_error_message(err).decode()
        status = lib.dynarock_error_http_status(err)
        body = json.loads(lib.dynarock_error_json(err).decode() or "{}")
    finally:
        lib.dynarock_error_free(err)
    if code in ("InvalidArgument", "ClosedHandle"):
        raise DynarockError("%s: %s" % (code, message))
    response = {"Error": {"Code": code, "Message": message},
                "ResponseMetadata": {"HTTPStatusCode": status, "RequestId": _request_id(),
                                     "HTTPHeaders": {}, "RetryAttempts": 0}}
    payload = {k: _from_wire(v) for k, v in body.items() if k not in ("__type", "message", "Message")}
    response.update(payload)
    if "message" in body or "Message" in body:
        response["message"] = message
    raise _error_class(code)(response, operation)


def _request_id():
    return uuid.uuid4().hex.upper()[:52]


# ---------------------------------------------------------------- JSON <-> boto3 shapes

def _to_wire(value):
    """boto3 parameters to DynamoDB JSON: bytes (B, BS) as base64."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode()
    if isinstance(value, dict):
        return {k: _to_wire(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_to_wire(v) for v in value]
    return value


def _from_wire(value):
    """DynamoDB JSON to boto3 shapes: B and BS members as bytes."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k == "B" and isinstance(v, str):
                out[k] = base64.b64decode(v)
            elif k == "BS" and isinstance(v, list) and all(isinstance(x, str) for x in v):
                out[k] = [base64.b64decode(x) for x in v]
            else:
                out[k] = _from_wire(v)
        return out
    if isinstance(value, list):
        return [_from_wire(v) for v in value]
    return value


def _operation_name(method):
    return "".join(part.capitalize() for part in method.split("_"))


# ---------------------------------------------------------------- the database

class Database:
    """An open database; use as a context manager or close() it."""

    def __init__(self, path=None, **options):
        lib = _library()
        handle = ctypes.c_void_p()
        err = ctypes.c_void_p()
        opts = json.dumps(options).encode() if options else None
        code = lib.dynarock_open(path.encode() if path is not None else None, opts,
                                 ctypes.byref(handle), ctypes.byref(err))
        if code != 0:
            message = lib.dynarock_error_message(err).decode()
            lib.dynarock_error_free(err)
            raise DynarockError(message)
        self._lib = lib
        self._handle = handle
        self._lock = threading.Lock()
        self.path = path

    def close(self):
        with self._lock:
            if self._handle:
                self._lib.dynarock_close(self._handle)
                self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def _handle_or_raise(self):
        handle = self._handle
        if not handle:
            raise DynarockError("ClosedHandle: the database is closed")
        return handle

    def execute(self, operation, request):
        """One DynamoDB operation with DynamoDB's JSON (dicts) in and out."""
        return self._call(self._lib.dynarock_execute, operation, request)

    def graph(self, operation, request):
        """One graph operation (docs/embedding.md: PutNode, AddEdge, OutEdges, ...)."""
        return self._call(self._lib.dynarock_graph_execute, operation, request)

    def _call(self, fn, operation, request):
        out = ctypes.c_void_p()
        err = ctypes.c_void_p()
        body = json.dumps(request).encode()
        code = fn(self._handle_or_raise(), operation.encode(), body, ctypes.byref(out),
                  ctypes.byref(err))
        if code != 0:
            _raise_error(self._lib, err, operation)
        try:
            return json.loads(ctypes.string_at(out.value).decode())
        finally:
            self._lib.dynarock_free(out)

    def set_faults(self, rules):
        """Replaces the fault-injection rules ({"seed": N, "rules": [...]}, the
        format of `dynarock serve --faults`; None removes them) of every request
        to this database, from execute(), client() and serve(). Returns the
        rules with their counters, as faults() does. A bad rule set raises
        DynarockError (ValidationException) and changes nothing."""
        out = ctypes.c_void_p()
        err = ctypes.c_void_p()
        body = None if rules is None else json.dumps(rules).encode()
        code = self._lib.dynarock_set_faults(self._handle_or_raise(), body, ctypes.byref(out),
                                             ctypes.byref(err))
        if code != 0:
            _raise_error(self._lib, err, "SetFaults")
        try:
            return json.loads(ctypes.string_at(out.value).decode())
        finally:
            self._lib.dynarock_free(out)

    def set_capacity(self, enforce=None, partition_limits=None):
        """Turns capacity enforcement on or off for every request to this
        database (off when it opens): with enforce=True, requests beyond their
        tables' provisioned throughput (or an on-demand table's maximum) raise
        ProvisionedThroughputExceededException or ThrottlingException and
        batches return the throttled requests unprocessed; partition_limits=True
        also limits each partition key to 3,000 read and 1,000 write units a
        second. None keeps a setting. Returns the state: {"enforce": B,
        "partitionLimits": B, "burstSeconds": N, "buckets": [...]}."""
        settings = {}
        if enforce is not None:
            settings["enforce"] = bool(enforce)
        if partition_limits is not None:
            settings["partitionLimits"] = bool(partition_limits)
        out = ctypes.c_void_p()
        err = ctypes.c_void_p()
        code = self._lib.dynarock_set_capacity(self._handle_or_raise(),
                                               json.dumps(settings).encode(), ctypes.byref(out),
                                               ctypes.byref(err))
        if code != 0:
            _raise_error(self._lib, err, "SetCapacity")
        try:
            return json.loads(ctypes.string_at(out.value).decode())
        finally:
            self._lib.dynarock_free(out)

    def faults(self):
        """The fault rules with their counters: {"seed": N, "rules": [{...,
        "matched": M, "fired": F}], "matched": M, "fired": F}."""
        out = ctypes.c_void_p()
        err = ctypes.c_void_p()
        code = self._lib.dynarock_get_faults(self._handle_or_raise(), ctypes.byref(out),
                                             ctypes.byref(err))
        if code != 0:
            _raise_error(self._lib, err, "GetFaults")
        try:
            return json.loads(ctypes.string_at(out.value).decode())
        finally:
            self._lib.dynarock_free(out)

    def client(self):
        """A client with boto3's low-level DynamoDB client's methods and shapes."""
        return Client(self)

    def streams_client(self):
        """A client with boto3's "dynamodbstreams" client's methods."""
        return Client(self, target_prefix="DynamoDBStreams_20120810.")

    @contextlib.contextmanager
    def serve(self, address="127.0.0.1:0"):
        """Serves this database over DynamoDB's HTTP protocol inside this process;
        yields the endpoint URL ("http://127.0.0.1:PORT")."""
        server = ctypes.c_void_p()
        err = ctypes.c_void_p()
        port = ctypes.c_uint16()
        code = self._lib.dynarock_serve_start(self._handle_or_raise(), address.encode(),
                                              ctypes.byref(port), ctypes.byref(server),
                                              ctypes.byref(err))
        if code != 0:
            message = self._lib.dynarock_error_message(err).decode()
            self._lib.dynarock_error_free(err)
            raise DynarockError(message)
        host = address.rsplit(":", 1)[0] or "127.0.0.1"
        try:
            yield "http://%s:%d" % (host, port.value)
        finally:
            self._lib.dynarock_serve_stop(server)


def open(path=None, **options):  # noqa: A001 - the module's verb, as sqlite3.connect
    """Opens a database: in memory when `path` is None, else in that directory.
    Options are dynarock_open's (sync_writes, small_device, block_cache_bytes, ...)."""
    return Database(path, **options)


@contextlib.contextmanager
def serve(db=None, address="127.0.0.1:0"):
    """An endpoint inside this process for any AWS SDK; yields its URL. Without
    `db`, over a fresh in-memory database that is closed afterwards."""
    own = db is None
    if own:
        db = Database(None)
    try:
        with db.serve(address) as url:
            yield url
    finally:
        if own:
            db.close()


# ---------------------------------------------------------------- the client

class _Paginator:
    _TOKENS = {
        "Scan": ("ExclusiveStartKey", "LastEvaluatedKey"),
        "Query": ("ExclusiveStartKey", "LastEvaluatedKey"),
        "ListTables": ("ExclusiveStartTableName", "LastEvaluatedTableName"),
        "ListTagsOfResource": ("NextToken", "NextToken"),
        "ListStreams": ("ExclusiveStartStreamArn", "LastEvaluatedStreamArn"),
    }

    def __init__(self, client, operation):
        if operation not in self._TOKENS:
            raise ValueError("no paginator for %s" % operation)
        self._client = client
        self._operation = operation

    def paginate(self, **kwargs):
        start, last = self._TOKENS[self._operation]
        kwargs.pop("PaginationConfig", None)
        while True:
            page = self._client._call(self._operation, kwargs)
            yield page
            token = page.get(last)
            if not token:
                return
            kwargs = dict(kwargs)
            kwargs[start] = token


class _Waiter:
    def __init__(self, client, name):
        if name not in ("table_exists", "table_not_exists"):
            raise ValueError("no waiter named %s" % name)
        self._client = client
        self._exists = name == "table_exists"

    def wait(self, TableName, WaiterConfig=None):
        config = WaiterConfig or {}
        delay = config.get("Delay", 0.05)
        for _ in range(config.get("MaxAttempts", 200)):
            try:
                status = self._client.describe_table(TableName=TableName)["Table"]["TableStatus"]
                if self._exists and status == "ACTIVE":
                    return
            except ClientError as e:
                if e.response["Error"]["Code"] != "ResourceNotFoundException":
                    raise
                if not self._exists:
                    return
            time.sleep(delay)
        raise DynarockError("Waiter %s for %s gave up" % (
            "table_exists" if self._exists else "table_not_exists", TableName))


class Client:
    """boto3.client("dynamodb")'s methods, in process: client.put_item(TableName=...)."""

    def __init__(self, db, target_prefix=""):
        self._db = db
        self._prefix = target_prefix
        self.exceptions = _Exceptions()
        self.meta = type("Meta", (), {"service_model": None, "region_name": "us-east-1",
                                      "endpoint_url": "dynarock://in-process"})()

    def _call(self, operation, params):
        response = _from_wire(self._db.execute(self._prefix + operation, _to_wire(params)))
        response["ResponseMetadata"] = {"RequestId": _request_id(), "HTTPStatusCode": 200,
                                        "HTTPHeaders": {}, "RetryAttempts": 0}
        return response

    def __getattr__(self, method):
        if method.startswith("_") or not re.fullmatch(r"[a-z][a-z0-9_]*", method):
            raise AttributeError(method)
        operation = _operation_name(method)

        def call(**kwargs):
            return self._call(operation, kwargs)

        call.__name__ = method
        return call

    def get_paginator(self, method):
        return _Paginator(self, _operation_name(method))

    def get_waiter(self, name):
        return _Waiter(self, name)

    def can_paginate(self, method):
        return _operation_name(method) in _Paginator._TOKENS

    def close(self):
        pass
