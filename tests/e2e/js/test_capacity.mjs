// End-to-end: capacity enforcement (/_dynarock/capacity) seen through the AWS
// SDK for JavaScript v3: a provisioned table beyond its write capacity answers
// ProvisionedThroughputExceededException with ThrottlingReasons the SDK
// exposes, the SDK's standard retries wait it out and succeed, and a batch
// comes back with the throttled writes in UnprocessedItems.
//
//   DYNAROCK_BIN=build/dynarock node tests/e2e/js/test_capacity.mjs
//
// Needs the control API, so it is skipped against DYNAROCK_E2E_ENDPOINT.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createTable, disconnect, uniq } from './harness.mjs';

const ddb = await import('@aws-sdk/client-dynamodb');
const { DynamoDBClient, PutItemCommand, BatchWriteItemCommand, ProvisionedThroughputExceededException } = ddb;

const external = Boolean(process.env.DYNAROCK_E2E_ENDPOINT);
let endpoint;
const T = uniq('js-capacity');
const FAST = uniq('js-capacity-fast');

async function capacity(body) {
  const r = await fetch(`${endpoint}/_dynarock/capacity`, {
    method: 'PUT', body: JSON.stringify(body), headers: { 'content-type': 'application/json' },
  });
  return { status: r.status, json: await r.json() };
}

const key = (pk) => ({ pk: { S: pk } });
const provisioned = (rcu, wcu) => ({
  BillingMode: 'PROVISIONED',
  ProvisionedThroughput: { ReadCapacityUnits: rcu, WriteCapacityUnits: wcu },
});

describe('capacity enforcement', { skip: external && 'needs the control API of its own server' }, () => {
  let client;
  let arn;
  before(async () => {
    ({ client, endpoint } = await connect());
    assert.equal((await capacity({ enforce: true })).status, 200);
    arn = (await createTable(T, ['pk', 'S'], undefined, provisioned(1, 2))).TableArn;
    await createTable(FAST, ['pk', 'S'], undefined, provisioned(1, 100));
  });
  after(async () => {
    await capacity({ enforce: false });
    await disconnect();
  });

  test('beyond its write capacity a table throttles, with the reason', async () => {
    await client.send(new PutItemCommand({ TableName: T, Item: key('a') }));
    await client.send(new PutItemCommand({ TableName: T, Item: key('b') }));
    await assert.rejects(client.send(new PutItemCommand({ TableName: T, Item: key('c') })), (err) => {
      assert.ok(err instanceof ProvisionedThroughputExceededException, err.name);
      assert.deepEqual(err.ThrottlingReasons,
        [{ reason: 'TableWriteProvisionedThroughputExceeded', resource: arn }]);
      return true;
    });
  });

  test("the SDK's standard retries wait the throttling out", async () => {
    const retrying = new DynamoDBClient({
      endpoint, region: 'us-east-1', maxAttempts: 8,
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
    let attempts = 0;
    for (let i = 0; i < 6; i++) {
      const r = await retrying.send(new PutItemCommand({ TableName: T, Item: key(`r${i}`) }));
      attempts += r.$metadata.attempts;
    }
    retrying.destroy();
    assert.ok(attempts > 6, `no retry in ${attempts} attempts`);
  });

  test('a batch returns the throttled writes unprocessed', async () => {
    // Drain what the table earned while the last test ran, with an item of
    // ~390 write units: the one admitted last leaves the bucket hundreds of
    // units short, so no refill between the drain and the batch (a few ms at
    // 2 units a second) can admit the batch's write. (Drained with 1-unit
    // items, the bucket could stand a hair under one unit and refill in time.)
    const big = { ...key('drain'), pad: { S: 'x'.repeat(390000) } };
    for (;;) {
      try {
        await client.send(new PutItemCommand({ TableName: T, Item: big }));
      } catch (err) {
        if (!(err instanceof ProvisionedThroughputExceededException)) throw err;
        break;
      }
    }
    const r = await client.send(new BatchWriteItemCommand({ RequestItems: {
      [T]: [{ PutRequest: { Item: key('u1') } }],
      [FAST]: [{ PutRequest: { Item: key('f1') } }],
    } }));
    assert.deepEqual(r.UnprocessedItems, { [T]: [{ PutRequest: { Item: key('u1') } }] });
  });
});
