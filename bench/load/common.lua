-- bench/load/common.lua: shared by the request scripts. run.sh prepends this
-- file to one of get_item.lua, put_item.lua, query.lua, cond_put.lua and hands
-- the result to wrk.
--
-- Each wrk thread pre-generates PREGEN requests in init() (wrk's own advice:
-- building requests in request() costs more than a fast server does) and cycles
-- through them. The op script defines bench.op ("GetItem") and bench.body()
-- (a JSON body, using math.random for keys). done() prints one machine-readable
-- line that run.sh parses:
--   RESULT rps=... p50_ms=... p99_ms=... requests=... non2xx=... errors=...
--
-- The key spaces match setup.py: G#0..G#999 (one item each, sk "0"),
-- Q#0..Q#49 (20 items each), C#0..C#999 (sk "0", n >= 0); PutItem writes P#*.

bench = {
  table = "bench",
  get_items = 1000,
  query_partitions = 50,
  cond_items = 1000,
  put_keys = 100000,
}

local PREGEN = 2000
local requests = {}
local next_index = 0
local thread_counter = 0

-- All SDKs sign; servers that look at the credential scope (moto picks the
-- region from it) get a well-formed, unverified one.
local AUTHORIZATION = "AWS4-HMAC-SHA256 Credential=bench/20240101/us-east-1/dynamodb/aws4_request, " ..
  "SignedHeaders=content-type;host;x-amz-date;x-amz-target, " ..
  "Signature=0000000000000000000000000000000000000000000000000000000000000000"

function setup(thread)
  thread:set("thread_id", thread_counter)
  thread_counter = thread_counter + 1
end

function init(args)
  math.randomseed(4242 + (thread_id or 0) * 7919)
  for i = 1, PREGEN do
    local headers = {
      ["Host"] = wrk.headers["Host"] or wrk.host,
      ["Content-Type"] = "application/x-amz-json-1.0",
      ["X-Amz-Target"] = "DynamoDB_20120810." .. bench.op,
      ["X-Amz-Date"] = "20240101T000000Z",
      ["Authorization"] = AUTHORIZATION,
    }
    requests[i] = wrk.format("POST", "/", headers, bench.body())
  end
end

function request()
  next_index = next_index % PREGEN + 1
  return requests[next_index]
end

function done(summary, latency, reqs)
  local seconds = summary.duration / 1e6
  local e = summary.errors
  io.write(string.format(
    "RESULT rps=%.1f p50_ms=%.3f p99_ms=%.3f requests=%d non2xx=%d errors=%d\n",
    summary.requests / seconds, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    summary.requests, e.status, e.connect + e.read + e.write + e.timeout))
end
