// End-to-end tests of batches and transactions through the AWS SDK for
// JavaScript v3's DynamoDBDocumentClient (BatchWrite, BatchGet, TransactWrite,
// TransactGet). Assertions follow real Amazon DynamoDB behaviour.
//
//   DYNAROCK_BIN=build/dynarock node tests/e2e/js/test_batch_transact.mjs
//   DYNAROCK_E2E_ENDPOINT=http://127.0.0.1:5055 node tests/e2e/js/test_batch_transact.mjs
//
// Dependencies: `npm ci` in tests/e2e/js (scripts/install-deps.sh does this).
//
// moto 5.x fails some of these on purpose: it does not refuse duplicate keys in
// BatchWriteItem.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createTable, disconnect, rejectsWith, uniq } from './harness.mjs';

const ddb = await import('@aws-sdk/client-dynamodb');
const lib = await import('@aws-sdk/lib-dynamodb');
const { TransactionCanceledException } = ddb;
const {
  BatchWriteCommand, BatchGetCommand, TransactWriteCommand,
  TransactGetCommand, GetCommand, PutCommand, QueryCommand,
} = lib;

let client;
let doc;

const T1 = uniq('js-bt1'); // pk S
const T2 = uniq('js-bt2'); // pk S, sk N
const TG = uniq('js-btg'); // pk S, GSI byg on g (S)

before(async () => {
  ({ client, doc } = await connect());
  await createTable(T1, ['pk', 'S']);
  await createTable(T2, ['pk', 'S'], ['sk', 'N']);
  await createTable(TG, ['pk', 'S'], null, {
    AttributeDefinitions: [{ AttributeName: 'g', AttributeType: 'S' }],
    GlobalSecondaryIndexes: [{
      IndexName: 'byg', KeySchema: [{ AttributeName: 'g', KeyType: 'HASH' }],
      Projection: { ProjectionType: 'ALL' },
    }],
  });
});

after(disconnect);

const get = async (TableName, Key) => (await doc.send(new GetCommand({ TableName, Key, ConsistentRead: true }))).Item;

describe('BatchWrite / BatchGet (DynamoDBDocumentClient)', () => {
  test('puts and deletes over two tables, then reads them back', async () => {
    const p = uniq('bw');
    await doc.send(new PutCommand({ TableName: T1, Item: { pk: `${p}-old`, v: 0 } }));
    const out = await doc.send(new BatchWriteCommand({
      RequestItems: {
        [T1]: [
          ...[0, 1, 2, 3].map((i) => ({ PutRequest: { Item: { pk: `${p}-${i}`, v: i, tags: new Set(['a', 'b']) } } })),
          { DeleteRequest: { Key: { pk: `${p}-old` } } },
        ],
        [T2]: [0, 1, 2].map((i) => ({ PutRequest: { Item: { pk: p, sk: i, nested: { list: [i, 'x'] } } } })),
      },
    }));
    assert.deepEqual(out.UnprocessedItems, {});
    assert.equal(await get(T1, { pk: `${p}-old` }), undefined);

    const got = await doc.send(new BatchGetCommand({
      RequestItems: {
        [T1]: { Keys: [0, 1, 2, 3, 9].map((i) => ({ pk: `${p}-${i}` })), ConsistentRead: true },
        [T2]: { Keys: [0, 2].map((i) => ({ pk: p, sk: i })), ProjectionExpression: 'sk, nested.#l',
          ExpressionAttributeNames: { '#l': 'list' } },
      },
    }));
    assert.deepEqual(got.UnprocessedKeys, {});
    const r1 = got.Responses[T1].sort((a, b) => a.v - b.v);
    assert.deepEqual(r1.map((x) => x.v), [0, 1, 2, 3]);
    assert.deepEqual([...r1[0].tags].sort(), ['a', 'b']);
    const r2 = got.Responses[T2].sort((a, b) => a.sk - b.sk);
    assert.deepEqual(r2, [{ sk: 0, nested: { list: [0, 'x'] } }, { sk: 2, nested: { list: [2, 'x'] } }]);
  });

  test('duplicate keys in one BatchWrite are refused', async () => {
    const p = uniq('dup');
    await rejectsWith(
      doc.send(new BatchWriteCommand({
        RequestItems: { [T1]: [{ PutRequest: { Item: { pk: p, v: 1 } } }, { PutRequest: { Item: { pk: p, v: 2 } } }] },
      })),
      'ValidationException', 'Provided list of item keys contains duplicates');
    assert.equal(await get(T1, { pk: p }), undefined);
  });

  test('more than 25 requests are refused', async () => {
    const p = uniq('b26');
    await rejectsWith(
      doc.send(new BatchWriteCommand({
        RequestItems: { [T1]: Array.from({ length: 26 }, (_, i) => ({ PutRequest: { Item: { pk: `${p}-${i}` } } })) },
      })),
      'ValidationException', /Member must have length less than or equal to 25/);
  });

  test('BatchGet of more than 100 keys is refused', async () => {
    await rejectsWith(
      doc.send(new BatchGetCommand({
        RequestItems: { [T1]: { Keys: Array.from({ length: 101 }, (_, i) => ({ pk: `k${i}` })) } },
      })),
      'ValidationException', 'Too many items requested for the BatchGetItem call');
  });

  test('BatchWrite maintains the GSI', async () => {
    const g = uniq('g');
    await doc.send(new BatchWriteCommand({
      RequestItems: { [TG]: Array.from({ length: 5 }, (_, i) => ({ PutRequest: { Item: { pk: `${g}-${i}`, g } } })) },
    }));
    const q = await doc.send(new QueryCommand({
      TableName: TG, IndexName: 'byg', KeyConditionExpression: 'g = :g', ExpressionAttributeValues: { ':g': g },
    }));
    assert.equal(q.Count, 5);
  });
});

describe('TransactWrite / TransactGet (DynamoDBDocumentClient)', () => {
  test('Put, Update, Delete and ConditionCheck commit together', async () => {
    const [a, b, c] = [uniq('a'), uniq('b'), uniq('c')];
    await doc.send(new PutCommand({ TableName: T1, Item: { pk: b, n: 5 } }));
    await doc.send(new PutCommand({ TableName: T1, Item: { pk: c, n: 1 } }));
    await doc.send(new PutCommand({ TableName: T2, Item: { pk: a, sk: 1, state: 'open' } }));
    await doc.send(new TransactWriteCommand({
      TransactItems: [
        { Put: { TableName: T1, Item: { pk: a, n: 10, m: { deep: [1, 2] } }, ConditionExpression: 'attribute_not_exists(pk)' } },
        { Update: { TableName: T1, Key: { pk: b }, UpdateExpression: 'SET n = n + :d', ExpressionAttributeValues: { ':d': 3 } } },
        { Delete: { TableName: T1, Key: { pk: c } } },
        { ConditionCheck: { TableName: T2, Key: { pk: a, sk: 1 }, ConditionExpression: '#s = :o',
          ExpressionAttributeNames: { '#s': 'state' }, ExpressionAttributeValues: { ':o': 'open' } } },
      ],
    }));
    assert.deepEqual(await get(T1, { pk: a }), { pk: a, n: 10, m: { deep: [1, 2] } });
    assert.equal((await get(T1, { pk: b })).n, 8);
    assert.equal(await get(T1, { pk: c }), undefined);

    const tg = await doc.send(new TransactGetCommand({
      TransactItems: [
        { Get: { TableName: T1, Key: { pk: a }, ProjectionExpression: 'm.deep[1], n' } },
        { Get: { TableName: T1, Key: { pk: c } } },
        { Get: { TableName: T2, Key: { pk: a, sk: 1 } } },
      ],
    }));
    assert.equal(tg.Responses.length, 3);
    assert.deepEqual(tg.Responses[0].Item, { n: 10, m: { deep: [2] } });
    assert.equal(tg.Responses[1].Item, undefined);
    assert.deepEqual(tg.Responses[2].Item, { pk: a, sk: 1, state: 'open' });
  });

  test('cancellation: nothing applied, CancellationReasons in request order', async () => {
    const [a, b, c] = [uniq('a'), uniq('b'), uniq('c')];
    await doc.send(new PutCommand({ TableName: T1, Item: { pk: b, n: 1 } }));
    await doc.send(new PutCommand({ TableName: T1, Item: { pk: c, n: 7, note: 'keep' } }));
    await rejectsWith(
      doc.send(new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: T1, Item: { pk: a, n: 1 } } },
          { Update: { TableName: T1, Key: { pk: b }, UpdateExpression: 'SET n = :v', ExpressionAttributeValues: { ':v': 2 } } },
          { ConditionCheck: { TableName: T1, Key: { pk: c }, ConditionExpression: 'n = :x',
            ExpressionAttributeValues: { ':x': 8 }, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } },
        ],
      })),
      'TransactionCanceledException',
      'Transaction cancelled, please refer cancellation reasons for specific reasons [None, None, ConditionalCheckFailed]',
      TransactionCanceledException,
      (err) => {
        const reasons = err.CancellationReasons;
        assert.ok(Array.isArray(reasons), 'CancellationReasons exposed on the exception');
        assert.deepEqual(reasons.map((r) => r.Code), ['None', 'None', 'ConditionalCheckFailed']);
        assert.equal(reasons[0].Message, undefined);
        assert.equal(reasons[2].Message, 'The conditional request failed');
        // The document client leaves error payloads in AttributeValue form.
        assert.deepEqual(reasons[2].Item, { pk: { S: c }, n: { N: '7' }, note: { S: 'keep' } });
      });
    assert.equal(await get(T1, { pk: a }), undefined);
    assert.equal((await get(T1, { pk: b })).n, 1);
  });

  test('two actions on one item are refused', async () => {
    const a = uniq('a');
    await rejectsWith(
      doc.send(new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: T1, Item: { pk: a } } },
          { Delete: { TableName: T1, Key: { pk: a } } },
        ],
      })),
      'ValidationException', 'Transaction request cannot include multiple operations on one item');
  });

  test('ClientRequestToken makes a retried TransactWrite idempotent', async () => {
    const k = uniq('idem');
    const token = `tok-${Math.random().toString(36).slice(2)}`;
    const items = (d) => [{ Update: { TableName: T1, Key: { pk: k }, UpdateExpression: 'ADD n :d', ExpressionAttributeValues: { ':d': d } } }];
    await doc.send(new TransactWriteCommand({ TransactItems: items(1), ClientRequestToken: token }));
    await doc.send(new TransactWriteCommand({ TransactItems: items(1), ClientRequestToken: token }));
    assert.equal((await get(T1, { pk: k })).n, 1);
    await rejectsWith(
      doc.send(new TransactWriteCommand({ TransactItems: items(5), ClientRequestToken: token })),
      'IdempotentParameterMismatchException',
      'Request parameters do not match the previous request with the same ClientRequestToken');
    assert.equal((await get(T1, { pk: k })).n, 1);
  });

  test('transactions keep the GSI in step', async () => {
    const [a, g1, g2] = [uniq('a'), uniq('g'), uniq('g')];
    await doc.send(new PutCommand({ TableName: TG, Item: { pk: a, g: g1 } }));
    await doc.send(new TransactWriteCommand({
      TransactItems: [{ Update: { TableName: TG, Key: { pk: a }, UpdateExpression: 'SET g = :g', ExpressionAttributeValues: { ':g': g2 } } }],
    }));
    const q = async (g) => (await doc.send(new QueryCommand({
      TableName: TG, IndexName: 'byg', KeyConditionExpression: 'g = :g', ExpressionAttributeValues: { ':g': g },
    }))).Items.map((i) => i.pk);
    assert.deepEqual(await q(g1), []);
    assert.deepEqual(await q(g2), [a]);
  });
});
