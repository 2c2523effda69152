// End-to-end: global tables (version 2019.11.21) through the AWS SDK for
// JavaScript v3, as a two-region application uses them: one endpoint, a
// client per region (the SigV4 region picks the region's tables); UpdateTable
// with ReplicaUpdates makes the eu-west-1 replica; an app in each region
// writes, the writes cross after the replication lag, and writes racing on
// the same items in both regions converge on the last writer's everywhere.
//
//   DYNAROCK_BIN=build/dynarock node tests/e2e/js/test_global_tables.mjs
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, disconnect, rejectsWith, uniq } from './harness.mjs';

const ddb = await import('@aws-sdk/client-dynamodb');
const {
  DynamoDBClient, CreateTableCommand, UpdateTableCommand, DescribeTableCommand, PutItemCommand,
  GetItemCommand, UpdateItemCommand, DeleteTableCommand,
} = ddb;

const T = uniq('js-global');
const LAG_MS = 400;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function until(fn, timeoutMs = 10000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v || Date.now() > end) return v;
    await sleep(50);
  }
}

describe('global tables across two regions', () => {
  let east, west, south;
  before(async () => {
    const { endpoint } = await connect(['--replication-lag-ms', String(LAG_MS)]);
    const regional = (region) => new DynamoDBClient({
      endpoint, region, maxAttempts: 1, credentials: { accessKeyId: 'jsapp', secretAccessKey: 'secret' } });
    east = regional('us-east-1');
    west = regional('eu-west-1');
    south = regional('ap-south-1');
    await east.send(new CreateTableCommand({
      TableName: T, BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }] }));
  });
  after(async () => {
    for (const c of [west, east]) {
      try { await c.send(new DeleteTableCommand({ TableName: T })); } catch { /* gone */ }
    }
    await disconnect();
  });

  const get = async (c, id) =>
    (await c.send(new GetItemCommand({ TableName: T, Key: { id: { S: id } }, ConsistentRead: true }))).Item;

  test('a replica is made and both regions report it', async () => {
    await east.send(new PutItemCommand({ TableName: T, Item: { id: { S: 'before' }, n: { N: '1' } } }));
    const u = await east.send(new UpdateTableCommand({
      TableName: T, ReplicaUpdates: [{ Create: { RegionName: 'eu-west-1' } }] }));
    assert.deepEqual(u.TableDescription.Replicas, [{ RegionName: 'eu-west-1', ReplicaStatus: 'ACTIVE' }]);
    assert.equal(u.TableDescription.GlobalTableVersion, '2019.11.21');
    const w = (await west.send(new DescribeTableCommand({ TableName: T }))).Table;
    assert.deepEqual(w.Replicas, [{ RegionName: 'us-east-1', ReplicaStatus: 'ACTIVE' }]);
    assert.deepEqual((await get(west, 'before')).n, { N: '1' });
    await rejectsWith(east.send(new UpdateTableCommand({
      TableName: T, ReplicaUpdates: [{ Create: { RegionName: 'eu-west-1' } }] })),
    'ValidationException',
    `Failed to create a the new replica of table with name: '${T}' because one or more replicas already existed as tables.`);
  });

  test('each region\'s writes reach the other after the lag', async () => {
    const start = Date.now();
    await west.send(new PutItemCommand({ TableName: T, Item: { id: { S: 'w1' }, by: { S: 'west' } } }));
    const early = await get(east, 'w1');
    if (Date.now() - start < LAG_MS * 0.8) assert.equal(early, undefined);  // not yet: the lag
    assert.ok(await until(() => get(east, 'w1')));
    assert.ok(Date.now() - start >= LAG_MS * 0.9);
    await east.send(new UpdateItemCommand({
      TableName: T, Key: { id: { S: 'w1' } }, UpdateExpression: 'SET seen = :t',
      ExpressionAttributeValues: { ':t': { BOOL: true } } }));
    assert.ok(await until(async () => (await get(west, 'w1'))?.seen?.BOOL === true));
  });

  test('MultiRegionConsistency STRONG: three replicas, a write is everywhere when acknowledged', async () => {
    const S = uniq('js-mrsc');
    await east.send(new CreateTableCommand({
      TableName: S, BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }] }));
    const u = await east.send(new UpdateTableCommand({
      TableName: S, MultiRegionConsistency: 'STRONG',
      ReplicaUpdates: [{ Create: { RegionName: 'eu-west-1' } }, { Create: { RegionName: 'ap-south-1' } }] }));
    assert.equal(u.TableDescription.MultiRegionConsistency, 'STRONG');
    await south.send(new PutItemCommand({ TableName: S, Item: { id: { S: 'm1' }, n: { N: '7' } } }));
    for (const c of [east, west]) {
      const got = await c.send(new GetItemCommand({ TableName: S, Key: { id: { S: 'm1' } }, ConsistentRead: true }));
      assert.deepEqual(got.Item.n, { N: '7' });
    }
    await rejectsWith(east.send(new UpdateTableCommand({
      TableName: S, ReplicaUpdates: [{ Delete: { RegionName: 'ap-south-1' } }] })),
    'ValidationException',
    'Deletion of only one table replica is not supported for global tables with MultiRegionConsistency set to STRONG.');
    await east.send(new UpdateTableCommand({
      TableName: S, ReplicaUpdates: [{ Delete: { RegionName: 'ap-south-1' } }, { Delete: { RegionName: 'eu-west-1' } }] }));
    await east.send(new DeleteTableCommand({ TableName: S }));
  });

  test('a witness and each replica\'s own settings', async () => {
    const W = uniq('js-witness');
    await east.send(new CreateTableCommand({
      TableName: W, BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }] }));
    const u = await east.send(new UpdateTableCommand({
      TableName: W, MultiRegionConsistency: 'STRONG',
      ReplicaUpdates: [{ Create: { RegionName: 'eu-west-1', OnDemandThroughputOverride: { MaxReadRequestUnits: 300 } } }],
      GlobalTableWitnessUpdates: [{ Create: { RegionName: 'ap-south-1' } }] }));
    assert.deepEqual(u.TableDescription.GlobalTableWitnesses, [{ RegionName: 'ap-south-1', WitnessStatus: 'ACTIVE' }]);
    assert.deepEqual(u.TableDescription.Replicas, [{
      RegionName: 'eu-west-1', ReplicaStatus: 'ACTIVE', OnDemandThroughputOverride: { MaxReadRequestUnits: 300 } }]);
    const w = (await west.send(new DescribeTableCommand({ TableName: W }))).Table;
    assert.equal(w.OnDemandThroughput.MaxReadRequestUnits, 300);
    await rejectsWith(south.send(new DescribeTableCommand({ TableName: W })), 'ResourceNotFoundException');
    await west.send(new PutItemCommand({ TableName: W, Item: { id: { S: 'w1' } } }));
    const got = await east.send(new GetItemCommand({ TableName: W, Key: { id: { S: 'w1' } }, ConsistentRead: true }));
    assert.ok(got.Item, 'in both replicas when acknowledged');
    await rejectsWith(east.send(new UpdateTableCommand({
      TableName: W, GlobalTableWitnessUpdates: [{ Delete: { RegionName: 'ap-south-1' } }] })),
    'ValidationException');
    await east.send(new UpdateTableCommand({
      TableName: W, ReplicaUpdates: [{ Delete: { RegionName: 'eu-west-1' } }],
      GlobalTableWitnessUpdates: [{ Delete: { RegionName: 'ap-south-1' } }] }));
    const after = (await east.send(new DescribeTableCommand({ TableName: W }))).Table;
    assert.equal(after.GlobalTableWitnesses, undefined);
    assert.equal(after.Replicas, undefined);
    await east.send(new DeleteTableCommand({ TableName: W }));
  });

  test('racing writes converge on the last writer in both regions', async () => {
    const ids = Array.from({ length: 8 }, (_, i) => `race${i}`);
    await Promise.all(ids.map(async (id, i) => {
      const [first, second] = i % 2 ? [east, west] : [west, east];
      await first.send(new PutItemCommand({ TableName: T, Item: { id: { S: id }, v: { S: 'first' } } }));
      await sleep(60);
      await second.send(new PutItemCommand({ TableName: T, Item: { id: { S: id }, v: { S: 'second' } } }));
    }));
    const converged = async () => {
      for (const id of ids) {
        const [a, b] = [await get(east, id), await get(west, id)];
        if (!a || !b || a.v.S !== 'second' || b.v.S !== 'second') return false;
      }
      return true;
    };
    assert.ok(await until(converged, 15000));
    await sleep(LAG_MS * 2);
    assert.ok(await converged(), 'still converged after another lag');
  });
});
