-- bench/load/common.lua: shared by the request scripts. run.sh prepends this
-- file to one of get_item.lua, put_item.lua, query.lua, cond_put.lua,
-- mixed.lua and hands the result to wrk.
--
-- Each wrk thread pre-generates bench.pregen requests (default 2000) in init()
-- (wrk's own advice: building requests in request() costs more than a fast
-- server does) and cycles through them. The op script defines bench.op
-- ("GetItem") and bench.body() (a JSON body, using math.random for keys), or
-- bench.next() returning both (the operation may then differ from one request
-- to the next: each pregenerated request carries its own X-Amz-Target).
-- done() prints one machine-readable line that run.sh parses:
--   RESULT rps=... p50_ms=... p99_ms=... p999_ms=... requests=... non2xx=... errors=...
--
-- The key spaces match setup.py: in table "bench", G#0..G#999 (one item each,
-- sk "0"), Q#0..Q#49 (20 items each), C#0..C#999 (sk "0", n >= 0), and P#*
-- written by put_item; in table "bench_mixed" (only loaded when the mixed op
-- is in the run), M#0..M#99999 (sk "0").
--
-- Arguments after wrk's "--" are NAME=NUMBER settings that replace the
-- numbers in the Lua table `bench` below (run.sh passes mixed_items=N).

bench = {
  table = "bench",
  mixed_table = "bench_mixed",
  get_items = 1000,
  query_partitions = 50,
  cond_items = 1000,
  put_keys = 100000,
  mixed_items = 100000,
  pregen = 2000,
  -- Requests sent back to back on a connection before its first answer is
  -- read (HTTP/1.1 pipelining; wrk counts each answer). 1: none. Deeper
  -- pipelines cost the load generator less CPU a request, which on a small
  -- machine leaves the server's threads the cores (run.sh --pipeline).
  pipeline = 1,
}

function bench.next()
  return bench.op, bench.body()
end

local requests = {}
local next_index = 0
local thread_counter = 0

-- All SDKs sign; servers that look at the credential scope (moto picks the
-- region from it) get a well-formed, unverified one.
local AUTHORIZATION = "AWS4-HMAC-SHA256 Credential=bench/20240101/us-east-1/dynamodb/aws4_request, " ..
  "SignedHeaders=content-type;host;x-amz-date;x-amz-target, " ..
  "Signature=0000000000000000000000000000000000000000000000000000000000000000"

-- Everything of a request up to its Content-Length value, built once per
-- operation: the same bytes as wrk.format, which would double the time init()
-- takes (wrk starts each thread as soon as its init() is done, so the first
-- threads already send requests while the later ones initialise).
local heads = {}
local function head(op)
  if heads[op] == nil then
    heads[op] = "POST / HTTP/1.1\r\n" ..
      "Host: " .. (wrk.headers["Host"] or wrk.host) .. "\r\n" ..
      "Content-Type: application/x-amz-json-1.0\r\n" ..
      "X-Amz-Target: DynamoDB_20120810." .. op .. "\r\n" ..
      "X-Amz-Date: 20240101T000000Z\r\n" ..
      "Authorization: " .. AUTHORIZATION .. "\r\n" ..
      "Content-Length: "
  end
  return heads[op]
end

function setup(thread)
  thread:set("thread_id", thread_counter)
  thread_counter = thread_counter + 1
end

function init(args)
  for _, arg in ipairs(args) do
    local name, value = string.match(arg, "^([%w_]+)=(%d+)$")
    if name == nil or bench[name] == nil then
      error("common.lua: bad argument '" .. arg .. "' (want NAME=NUMBER of a bench setting)")
    end
    bench[name] = tonumber(value)
  end
  math.randomseed(4242 + (thread_id or 0) * 7919)
  for i = 1, bench.pregen do
    local batch = {}
    for j = 1, math.max(1, bench.pipeline) do
      local op, body = bench.next()
      batch[j] = head(op) .. #body .. "\r\n\r\n" .. body
    end
    requests[i] = table.concat(batch)
  end
end

function request()
  next_index = next_index % bench.pregen + 1
  return requests[next_index]
end

function done(summary, latency, reqs)
  local seconds = summary.duration / 1e6
  local e = summary.errors
  io.write(string.format(
    "RESULT rps=%.1f p50_ms=%.3f p99_ms=%.3f p999_ms=%.3f requests=%d non2xx=%d errors=%d\n",
    summary.requests / seconds, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    latency:percentile(99.9) / 1000, summary.requests, e.status,
    e.connect + e.read + e.write + e.timeout))
end
