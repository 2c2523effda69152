-- Conditional PutItem over existing items: the condition reads the stored item
-- (attribute_not_exists(locked) AND n >= 0) and always holds, so every request
-- is a read, a condition evaluation and a write. A failed condition would show
-- up as non-2xx.
bench.op = "PutItem"
local DATA = string.rep("y", 200)
function bench.body()
  return string.format(
    '{"TableName":"%s","Item":{"pk":{"S":"C#%d"},"sk":{"S":"0"},"n":{"N":"%d"},"data":{"S":"%s"}},' ..
    '"ConditionExpression":"attribute_not_exists(#l) AND #n >= :zero",' ..
    '"ExpressionAttributeNames":{"#l":"locked","#n":"n"},' ..
    '"ExpressionAttributeValues":{":zero":{"N":"0"}}}',
    bench.table, math.random(0, bench.cond_items - 1), math.random(0, 1000000), DATA)
end
