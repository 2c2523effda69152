// End-to-end tests through the AWS SDK for JavaScript v3 (DynamoDBClient and
// DynamoDBDocumentClient). Assertions follow real Amazon DynamoDB behaviour.
//
//   DYNAROCK_BIN=build/dynarock node tests/e2e/js/test_sdk.mjs
//   DYNAROCK_E2E_ENDPOINT=http://127.0.0.1:5055 node tests/e2e/js/test_sdk.mjs
//
// Dependencies: `npm ci` in tests/e2e/js (scripts/install-deps.sh does this).
//
// moto 5.x fails three tests here on purpose: it does not normalise numbers
// ("01.500" stays verbatim), answers a key mismatch with "Validation
// Exception", and returns Items for Select=COUNT.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createTable, disconnect, rejectsWith, uniq } from './harness.mjs';

const ddb = await import('@aws-sdk/client-dynamodb');
const lib = await import('@aws-sdk/lib-dynamodb');
const {
  DescribeTableCommand, DeleteTableCommand,
  ListTablesCommand, PutItemCommand, GetItemCommand, QueryCommand, ScanCommand,
  DeleteItemCommand, waitUntilTableNotExists, paginateQuery,
  paginateScan, ConditionalCheckFailedException, ResourceNotFoundException,
} = ddb;
const {
  PutCommand, GetCommand, QueryCommand: DocQueryCommand,
  ScanCommand: DocScanCommand, DeleteCommand, UpdateCommand, paginateQuery: docPaginateQuery,
} = lib;

let client;
let doc;

before(async () => ({ client, doc } = await connect()));
after(disconnect);

describe('DynamoDBClient (low level)', () => {
  const table = uniq('js-low');

  test('create, describe and list the table', async () => {
    const out = await createTable(table, ['pk', 'S'], ['sk', 'N']);
    assert.equal(out.TableName, table);
    assert.ok(['CREATING', 'ACTIVE'].includes(out.TableStatus));
    const d = await client.send(new DescribeTableCommand({ TableName: table }));
    assert.equal(d.Table.TableStatus, 'ACTIVE');
    assert.deepEqual(d.Table.KeySchema, [
      { AttributeName: 'pk', KeyType: 'HASH' }, { AttributeName: 'sk', KeyType: 'RANGE' }]);
    assert.equal(d.Table.BillingModeSummary.BillingMode, 'PAY_PER_REQUEST');
    assert.match(d.Table.TableArn, new RegExp(`^arn:aws:dynamodb:us-east-1:\\d{12}:table/${table}$`));
    assert.ok(d.Table.CreationDateTime instanceof Date);
    const names = [];
    let start;
    do {
      const page = await client.send(new ListTablesCommand({ ExclusiveStartTableName: start, Limit: 100 }));
      names.push(...page.TableNames);
      start = page.LastEvaluatedTableName;
    } while (start);
    assert.ok(names.includes(table));
  });

  test('put / get / delete with typed attribute values', async () => {
    const item = {
      pk: { S: 'a' }, sk: { N: '1' }, s: { S: 'héllo' }, n: { N: '01.500' },
      b: { B: new Uint8Array([0, 1, 255]) }, ss: { SS: ['x', 'y'] }, ns: { NS: ['1', '2'] },
      l: { L: [{ S: 'a' }, { N: '1' }] }, m: { M: { k: { BOOL: true } } }, z: { NULL: true },
    };
    assert.equal((await client.send(new PutItemCommand({ TableName: table, Item: item }))).Attributes,
      undefined);
    try {
      await checkTyped(item);
    } finally {
      await client.send(new DeleteItemCommand({ TableName: table, Key: { pk: { S: 'a' }, sk: { N: '1' } } }));
    }
  });

  async function checkTyped(item) {
    const got = (await client.send(new GetItemCommand({
      TableName: table, Key: { pk: { S: 'a' }, sk: { N: '1' } }, ConsistentRead: true,
    }))).Item;
    assert.deepEqual([...got.b.B], [0, 1, 255]);
    assert.deepEqual([...got.ss.SS].sort(), ['x', 'y']);
    assert.deepEqual(got.l, item.l);
    assert.deepEqual(got.m, item.m);
    assert.deepEqual(got.z, { NULL: true });
    assert.equal(got.n.N, '1.5', 'numbers come back normalised (01.500 -> 1.5)');
    const del = await client.send(new DeleteItemCommand({
      TableName: table, Key: { pk: { S: 'a' }, sk: { N: '1' } }, ReturnValues: 'ALL_OLD',
    }));
    assert.equal(del.Attributes.s.S, 'héllo');
    const after = await client.send(new GetItemCommand({
      TableName: table, Key: { pk: { S: 'a' }, sk: { N: '1' } },
    }));
    assert.equal(after.Item, undefined);
  }

  test('query and scan', async () => {
    for (let i = 0; i < 6; i++) {
      await client.send(new PutItemCommand({
        TableName: table, Item: { pk: { S: 'q' }, sk: { N: String(i - 2) }, even: { BOOL: i % 2 === 0 } },
      }));
    }
    const q = await client.send(new QueryCommand({
      TableName: table, KeyConditionExpression: '#p = :p AND #s >= :lo',
      ExpressionAttributeNames: { '#p': 'pk', '#s': 'sk' },
      ExpressionAttributeValues: { ':p': { S: 'q' }, ':lo': { N: '-1' } }, ScanIndexForward: false,
    }));
    assert.deepEqual(q.Items.map((i) => i.sk.N), ['3', '2', '1', '0', '-1']);
    assert.equal(q.Count, 5);
    // The table only holds the six 'q' items here (the previous test deleted its item).
    const s = await client.send(new ScanCommand({
      TableName: table, FilterExpression: 'pk = :q AND even = :t',
      ExpressionAttributeValues: { ':q': { S: 'q' }, ':t': { BOOL: true } },
    }));
    assert.equal(s.Count, 3);
    assert.ok(s.ScannedCount >= 6);
  });

  test('paginateQuery walks every page', async () => {
    const pages = [];
    for await (const page of paginateQuery({ client, pageSize: 2 }, {
      TableName: table, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'q' } },
    })) {
      assert.ok(page.Items.length <= 2);
      pages.push(page);
    }
    assert.ok(pages.length >= 3);
    assert.deepEqual(pages.flatMap((p) => p.Items.map((i) => i.sk.N)), ['-2', '-1', '0', '1', '2', '3']);
  });

  test('paginateScan covers the table', async () => {
    const keys = [];
    let pages = 0;
    for await (const page of paginateScan({ client, pageSize: 4 }, { TableName: table })) {
      pages += 1;
      assert.ok(page.Items.length <= 4);
      keys.push(...page.Items.filter((i) => i.pk.S === 'q').map((i) => Number(i.sk.N)));
    }
    assert.deepEqual(keys.sort((a, b) => a - b), [-2, -1, 0, 1, 2, 3]);
    assert.ok(pages >= 2);
  });

  test('ConditionalCheckFailedException with ReturnValuesOnConditionCheckFailure', async () => {
    await rejectsWith(
      client.send(new PutItemCommand({
        TableName: table, Item: { pk: { S: 'q' }, sk: { N: '0' } },
        ConditionExpression: 'attribute_not_exists(pk)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      })),
      'ConditionalCheckFailedException', 'The conditional request failed', ConditionalCheckFailedException,
      (err) => assert.deepEqual(err.Item, { pk: { S: 'q' }, sk: { N: '0' }, even: { BOOL: true } }));
  });

  test('ValidationException for a key that does not match the schema', async () => {
    await rejectsWith(client.send(new GetItemCommand({ TableName: table, Key: { pk: { S: 'q' } } })),
      'ValidationException', 'The provided key element does not match the schema');
  });

  test('ResourceNotFoundException for a missing table', async () => {
    const missing = uniq('missing');
    await rejectsWith(client.send(new DescribeTableCommand({ TableName: missing })),
      'ResourceNotFoundException', `Requested resource not found: Table: ${missing} not found`, ResourceNotFoundException);
    await rejectsWith(client.send(new GetItemCommand({ TableName: missing, Key: { pk: { S: 'x' } } })),
      'ResourceNotFoundException', 'Requested resource not found', ResourceNotFoundException);
  });
});

describe('DynamoDBDocumentClient', () => {
  const table = uniq('js-doc');

  before(async () => { await createTable(table, ['pk', 'S'], ['sk', 'N']); });

  test('put / get with native JS values', async () => {
    const item = {
      pk: 'u1', sk: 1, name: 'Ada', age: 36, tags: new Set(['a', 'b']), nested: { l: [1, 'two', null, true] },
      bin: new Uint8Array([9, 8, 7]), nothing: null,
    };
    await doc.send(new PutCommand({ TableName: table, Item: item }));
    const got = (await doc.send(new GetCommand({ TableName: table, Key: { pk: 'u1', sk: 1 } }))).Item;
    assert.equal(got.name, 'Ada');
    assert.equal(got.age, 36);
    assert.deepEqual([...got.tags].sort(), ['a', 'b']);
    assert.deepEqual(got.nested, { l: [1, 'two', null, true] });
    assert.deepEqual([...got.bin], [9, 8, 7]);
    assert.equal(got.nothing, null);
    const missing = await doc.send(new GetCommand({ TableName: table, Key: { pk: 'nope', sk: 1 } }));
    assert.equal(missing.Item, undefined);
  });

  test('update with ReturnValues and condition', async () => {
    const r = await doc.send(new UpdateCommand({
      TableName: table, Key: { pk: 'u1', sk: 1 },
      UpdateExpression: 'SET age = age + :one, #n = :n ADD tags :t REMOVE nothing',
      ExpressionAttributeNames: { '#n': 'name' },
      ExpressionAttributeValues: { ':one': 1, ':n': 'Ada L.', ':t': new Set(['c']) },
      ConditionExpression: 'attribute_exists(pk)', ReturnValues: 'UPDATED_NEW',
    }));
    assert.equal(r.Attributes.age, 37);
    assert.equal(r.Attributes.name, 'Ada L.');
    assert.deepEqual([...r.Attributes.tags].sort(), ['a', 'b', 'c']);
    assert.equal('nothing' in r.Attributes, false);
    await rejectsWith(doc.send(new UpdateCommand({
      TableName: table, Key: { pk: 'u1', sk: 1 }, UpdateExpression: 'SET age = :a',
      ConditionExpression: 'age < :a', ExpressionAttributeValues: { ':a': 10 },
    })), 'ConditionalCheckFailedException', 'The conditional request failed');
  });

  test('query, scan and delete', async () => {
    for (let i = 2; i <= 30; i++) await doc.send(new PutCommand({ TableName: table, Item: { pk: 'u1', sk: i } }));
    const q = await doc.send(new DocQueryCommand({
      TableName: table, KeyConditionExpression: 'pk = :p AND sk BETWEEN :a AND :b',
      ExpressionAttributeValues: { ':p': 'u1', ':a': 5, ':b': 7 },
    }));
    assert.deepEqual(q.Items.map((i) => i.sk), [5, 6, 7]);
    const d = await doc.send(new DeleteCommand({
      TableName: table, Key: { pk: 'u1', sk: 30 }, ReturnValues: 'ALL_OLD',
    }));
    assert.deepEqual(d.Attributes, { pk: 'u1', sk: 30 });
    const s = await doc.send(new DocScanCommand({ TableName: table, Select: 'COUNT' }));
    assert.equal(s.Count, 29);
    assert.equal(s.Items, undefined);
  });

  test('paginateQuery (lib-dynamodb) with Limit pages and LastEvaluatedKey', async () => {
    const seen = [];
    let pages = 0;
    for await (const page of docPaginateQuery({ client: doc, pageSize: 7 }, {
      TableName: table, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': 'u1' },
    })) {
      pages += 1;
      seen.push(...page.Items.map((i) => i.sk));
      if (page.LastEvaluatedKey) assert.deepEqual(Object.keys(page.LastEvaluatedKey).sort(), ['pk', 'sk']);
    }
    assert.deepEqual(seen, Array.from({ length: 29 }, (_, i) => i + 1));
    assert.ok(pages >= 5);
  });

  test('delete table then ResourceNotFoundException', async () => {
    await client.send(new DeleteTableCommand({ TableName: table }));
    await waitUntilTableNotExists({ client, maxWaitTime: 30, minDelay: 1 }, { TableName: table });
    await rejectsWith(doc.send(new GetCommand({ TableName: table, Key: { pk: 'u1', sk: 1 } })),
      'ResourceNotFoundException', 'Requested resource not found');
  });
});
