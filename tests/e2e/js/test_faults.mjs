// End-to-end: fault injection (/_dynarock/faults) seen through the AWS SDK for
// JavaScript v3: its standard retry strategy rides out injected throttling
// (the counters show every fire), a connection dropped before the write is
// applied leaves no item while one dropped after it does, and a partial
// BatchWriteItem comes back with UnprocessedItems the SDK user can resend.
//
//   DYNAROCK_BIN=build/dynarock node tests/e2e/js/test_faults.mjs
//
// Needs the control API, so it is skipped against DYNAROCK_E2E_ENDPOINT.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createTable, disconnect, uniq } from './harness.mjs';

const ddb = await import('@aws-sdk/client-dynamodb');
const { DynamoDBClient, PutItemCommand, GetItemCommand, BatchWriteItemCommand } = ddb;

const external = Boolean(process.env.DYNAROCK_E2E_ENDPOINT);
let endpoint;
const T = uniq('js-faults');

async function faults(method, body) {
  const r = await fetch(`${endpoint}/_dynarock/faults`, {
    method, body: body === undefined ? undefined : JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
  return { status: r.status, json: await r.json() };
}

function clientWith(maxAttempts) {
  return new DynamoDBClient({
    endpoint, region: 'us-east-1', maxAttempts,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
}

const key = (pk) => ({ pk: { S: pk } });

async function exists(client, pk) {
  const r = await client.send(new GetItemCommand({ TableName: T, Key: key(pk), ConsistentRead: true }));
  return r.Item !== undefined;
}

describe('fault injection', { skip: external && 'needs the control API of its own server' }, () => {
  let client;
  before(async () => {
    ({ client, endpoint } = await connect());
    await createTable(T, ['pk', 'S']);
  });
  after(async () => {
    await faults('DELETE');
    await disconnect();
  });

  test('standard retries ride out two throttles', async () => {
    const set = await faults('PUT', { rules: [{ name: 'thr', operation: 'PutItem', first_n: 2,
      error: 'ProvisionedThroughputExceededException' }] });
    assert.equal(set.status, 200);
    const retrying = clientWith(4);
    const r = await retrying.send(new PutItemCommand({ TableName: T, Item: key('retried') }));
    assert.equal(r.$metadata.attempts, 3);
    retrying.destroy();
    const { json } = await faults('GET');
    assert.deepEqual([json.rules[0].matched, json.rules[0].fired], [3, 2]);
    await faults('DELETE');
    assert.equal(await exists(client, 'retried'), true);
  });

  test('drop before apply is not applied, drop after apply is', async () => {
    await faults('PUT', { rules: [
      { key_prefix: 'before', action: 'drop_before_apply' },
      { key_prefix: 'after', action: 'drop_after_apply' }] });
    for (const pk of ['before', 'after']) {
      await assert.rejects(client.send(new PutItemCommand({ TableName: T, Item: key(pk) })));
    }
    await faults('DELETE');
    assert.equal(await exists(client, 'before'), false);
    assert.equal(await exists(client, 'after'), true);
  });

  test('partial BatchWriteItem returns UnprocessedItems', async () => {
    await faults('PUT', { rules: [{ operation: 'BatchWriteItem', action: 'unprocessed', keep: 1, first_n: 1 }] });
    const puts = ['w0', 'w1', 'w2'].map((pk) => ({ PutRequest: { Item: key(pk) } }));
    const r = await client.send(new BatchWriteItemCommand({ RequestItems: { [T]: puts } }));
    assert.deepEqual(r.UnprocessedItems[T], puts.slice(1));
    assert.equal(await exists(client, 'w0'), true);
    assert.equal(await exists(client, 'w2'), false);
    const again = await client.send(new BatchWriteItemCommand({ RequestItems: r.UnprocessedItems }));
    assert.deepEqual(again.UnprocessedItems, {});
    assert.equal(await exists(client, 'w2'), true);
  });
});
