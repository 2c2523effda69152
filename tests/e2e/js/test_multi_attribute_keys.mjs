// Multi-attribute GSI keys through the AWS SDK for JavaScript v3: the document
// client writes natural attributes, a GSI keyed by two HASH and two RANGE
// attributes indexes them, and paginateQuery walks it in the sort attributes'
// order (each by its own type), carrying every key attribute in
// LastEvaluatedKey. Assertions follow AWS's "Multi-attribute keys pattern"
// guide; messages as in tests/e2e/test_boto3_multi_attribute_keys.py.
//
//   DYNAROCK_BIN=build/dynarock node tests/e2e/js/test_multi_attribute_keys.mjs
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createTable, disconnect, rejectsWith, uniq } from './harness.mjs';

const ddb = await import('@aws-sdk/client-dynamodb');
const lib = await import('@aws-sdk/lib-dynamodb');
const { DescribeTableCommand } = ddb;
const { PutCommand, QueryCommand, UpdateCommand, paginateQuery } = lib;

let doc;
let client;
let table;
const items = [];

function keySchema(hashes, ranges) {
  return [...hashes.map((AttributeName) => ({ AttributeName, KeyType: 'HASH' })),
    ...ranges.map((AttributeName) => ({ AttributeName, KeyType: 'RANGE' }))];
}

before(async () => {
  ({ client, doc } = await connect());
  table = uniq('mak');
  await createTable(table, ['pk', 'S'], undefined, {
    AttributeDefinitions: [
      { AttributeName: 'org', AttributeType: 'S' }, { AttributeName: 'dept', AttributeType: 'N' },
      { AttributeName: 'level', AttributeType: 'N' }, { AttributeName: 'name', AttributeType: 'S' },
    ],
    GlobalSecondaryIndexes: [{
      IndexName: 'byOrgDept', KeySchema: keySchema(['org', 'dept'], ['level', 'name']),
      Projection: { ProjectionType: 'ALL' },
    }],
  });
  for (let i = 0; i < 25; i++) {
    const it = { pk: `e${i}`, org: `o${i % 2}`, dept: i % 3, level: (i * 7) % 5 - 2, name: `n${(i * 11) % 13}` };
    if (i === 24) delete it.name;  // not indexed
    items.push(it);
    await doc.send(new PutCommand({ TableName: table, Item: it }));
  }
});
after(disconnect);

function expected(org, dept, pred = () => true) {
  return items.filter((it) => it.name !== undefined && it.org === org && it.dept === dept && pred(it))
    .sort((a, b) => a.level - b.level || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) ||
      (a.pk < b.pk ? -1 : 1))
    .map((it) => it.pk);
}

describe('multi-attribute GSI keys', () => {
  test('DescribeTable shows the key schema as created', async () => {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: table }));
    assert.deepEqual(Table.GlobalSecondaryIndexes[0].KeySchema,
      keySchema(['org', 'dept'], ['level', 'name']));
  });

  test('paginateQuery returns the partition in sort order, page after page', async () => {
    for (const org of ['o0', 'o1']) {
      for (const dept of [0, 1, 2]) {
        const got = [];
        for await (const page of paginateQuery({ client: doc, pageSize: 2 }, {
          TableName: table, IndexName: 'byOrgDept',
          KeyConditionExpression: 'org = :o AND dept = :d',
          ExpressionAttributeValues: { ':o': org, ':d': dept },
        })) {
          got.push(...page.Items.map((it) => it.pk));
          if (page.LastEvaluatedKey) {
            assert.deepEqual(Object.keys(page.LastEvaluatedKey).sort(), ['dept', 'level', 'name', 'org', 'pk']);
          }
        }
        assert.deepEqual(got, expected(org, dept));
      }
    }
  });

  test('equality on the first sort attribute and a range on the second, in reverse', async () => {
    const r = await doc.send(new QueryCommand({
      TableName: table, IndexName: 'byOrgDept', ScanIndexForward: false,
      KeyConditionExpression: 'dept = :d AND org = :o AND #l = :l AND #n BETWEEN :a AND :b',
      ExpressionAttributeNames: { '#l': 'level', '#n': 'name' },
      ExpressionAttributeValues: { ':o': 'o0', ':d': 1, ':l': 0, ':a': 'n1', ':b': 'n5' },
    }));
    assert.deepEqual(r.Items.map((it) => it.pk),
      expected('o0', 1, (it) => it.level === 0 && it.name >= 'n1' && it.name <= 'n5').reverse());
  });

  test('refused conditions name the attributes DynamoDB names', async () => {
    await rejectsWith(doc.send(new QueryCommand({
      TableName: table, IndexName: 'byOrgDept', KeyConditionExpression: 'org = :o',
      ExpressionAttributeValues: { ':o': 'o0' },
    })), 'ValidationException',
    'HASH key attributes dept must have equality conditions specified in the query');
    await rejectsWith(doc.send(new QueryCommand({
      TableName: table, IndexName: 'byOrgDept',
      KeyConditionExpression: 'org = :o AND dept = :d AND #n = :n',
      ExpressionAttributeNames: { '#n': 'name' },
      ExpressionAttributeValues: { ':o': 'o0', ':d': 1, ':n': 'n1' },
    })), 'ValidationException',
    'RANGE key attributes level must have equality conditions specified in the query because a ' +
    'condition is present on key attribute name');
  });

  test('an update that removes a key attribute takes the item out of the index', async () => {
    const key = { pk: 'e0' };
    const before = expected('o0', 0);
    assert.ok(before.includes('e0'));
    await doc.send(new UpdateCommand({ TableName: table, Key: key, UpdateExpression: 'REMOVE #n',
      ExpressionAttributeNames: { '#n': 'name' } }));
    const r = await doc.send(new QueryCommand({
      TableName: table, IndexName: 'byOrgDept', KeyConditionExpression: 'org = :o AND dept = :d',
      ExpressionAttributeValues: { ':o': 'o0', ':d': 0 },
    }));
    assert.deepEqual(r.Items.map((it) => it.pk), before.filter((pk) => pk !== 'e0'));
  });
});
