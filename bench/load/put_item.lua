-- Unconditional PutItem of a ~250-byte item over a 100k-key space.
bench.op = "PutItem"
local DATA = string.rep("x", 200)
function bench.body()
  return string.format(
    '{"TableName":"%s","Item":{"pk":{"S":"P#%d"},"sk":{"S":"0"},"n":{"N":"%d"},"data":{"S":"%s"}}}',
    bench.table, math.random(0, bench.put_keys - 1), math.random(0, 1000000), DATA)
end
