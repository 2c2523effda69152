-- Mixed: GetItem or PutItem, 50/50 at random, each of a key drawn uniformly
-- from the bench.mixed_items (100,000) items setup.py loads as M#0..M#99999
-- (sk "0", ~200 bytes of data) into table bench_mixed: every read is a hit,
-- every write overwrites an item of the same size, so the table stays as
-- loaded. Each wrk thread pregenerates 20,000 requests (instead of
-- common.lua's 2,000), so that the threads together touch a good part of the
-- table (two threads: ~33,000 keys) rather than a few thousand; that takes
-- ~50 ms and ~10 MB per thread.
bench.pregen = 20000
local DATA = string.rep("m", 200)
function bench.next()
  local key = math.random(0, bench.mixed_items - 1)
  if math.random(0, 1) == 0 then
    return "GetItem", string.format('{"TableName":"%s","Key":{"pk":{"S":"M#%d"},"sk":{"S":"0"}}}',
      bench.mixed_table, key)
  end
  return "PutItem", string.format(
    '{"TableName":"%s","Item":{"pk":{"S":"M#%d"},"sk":{"S":"0"},"n":{"N":"%d"},"data":{"S":"%s"}}}',
    bench.mixed_table, key, math.random(0, 1000000), DATA)
end
