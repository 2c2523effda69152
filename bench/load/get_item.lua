-- GetItem of one of the bench.get_items preloaded items (a hit every time).
bench.op = "GetItem"
function bench.body()
  return string.format('{"TableName":"%s","Key":{"pk":{"S":"G#%d"},"sk":{"S":"0"}}}',
    bench.table, math.random(0, bench.get_items - 1))
end
