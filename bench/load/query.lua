-- Query of one whole partition: 20 items (~5 KB of response).
bench.op = "Query"
function bench.body()
  return string.format(
    '{"TableName":"%s","KeyConditionExpression":"pk = :p",' ..
    '"ExpressionAttributeValues":{":p":{"S":"Q#%d"}}}',
    bench.table, math.random(0, bench.query_partitions - 1))
end
