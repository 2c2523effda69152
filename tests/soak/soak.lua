-- tests/soak/soak.lua: the soak's request mix, appended to bench/load/common.lua
-- (which pregenerates bench.pregen requests per wrk thread and cycles them).
-- Table "soak" (soak.py creates it): pk S + sk S, a stream (NEW_AND_OLD_IMAGES),
-- TimeToLive on "expires", a GSI "by_g" on g. Keys S#0..S#(soak_keys-1), sk 0..3.
--   35% PutItem     with g (one of 50) and expires: a time from 30 s ago to 10
--                   minutes ahead when the request was generated, so that the
--                   sweeper keeps deleting items all through the run
--   20% UpdateItem  ADD n :one, SET g, SET expires
--   30% GetItem
--   10% Query       by_g, g = one of 50, Limit 20
--    5% DeleteItem
bench.soak_keys = 20000
bench.pregen = 10000
local DATA = string.rep("s", 300)
function bench.next()
  local pk = string.format("S#%d", math.random(0, bench.soak_keys - 1))
  local sk = tostring(math.random(0, 3))
  local g = string.format("G#%d", math.random(0, 49))
  local expires = os.time() + math.random(-30, 600)
  local key = string.format('"pk":{"S":"%s"},"sk":{"S":"%s"}', pk, sk)
  local r = math.random(1, 100)
  if r <= 35 then
    return "PutItem", string.format(
      '{"TableName":"soak","Item":{%s,"g":{"S":"%s"},"expires":{"N":"%d"},"data":{"S":"%s"}}}',
      key, g, expires, DATA)
  elseif r <= 55 then
    return "UpdateItem", string.format(
      '{"TableName":"soak","Key":{%s},"UpdateExpression":"ADD n :one SET g = :g, expires = :e",' ..
      '"ExpressionAttributeValues":{":one":{"N":"1"},":g":{"S":"%s"},":e":{"N":"%d"}}}',
      key, g, expires)
  elseif r <= 85 then
    return "GetItem", string.format('{"TableName":"soak","Key":{%s}}', key)
  elseif r <= 95 then
    return "Query", string.format(
      '{"TableName":"soak","IndexName":"by_g","KeyConditionExpression":"g = :g",' ..
      '"ExpressionAttributeValues":{":g":{"S":"%s"}},"Limit":20}', g)
  end
  return "DeleteItem", string.format('{"TableName":"soak","Key":{%s}}', key)
end
