// End-to-end: Kinesis streaming destinations through the AWS SDK for
// JavaScript v3: Enable, Describe, Update and Disable, the SDK's
// ValidationException for a second live destination, and the records
// `serve --kinesis-dir` writes, read back as a consumer would.
//
//   DYNAROCK_BIN=build/dynarock node tests/e2e/js/test_kinesis.mjs
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect, createTable, disconnect, rejectsWith, uniq } from './harness.mjs';

const ddb = await import('@aws-sdk/client-dynamodb');
const {
  EnableKinesisStreamingDestinationCommand, DescribeKinesisStreamingDestinationCommand,
  UpdateKinesisStreamingDestinationCommand, DisableKinesisStreamingDestinationCommand,
  PutItemCommand,
} = ddb;

const T = uniq('js-kinesis');
const STREAM = 'arn:aws:kinesis:us-east-1:000000000000:stream/js-feed';
const SINK = fs.mkdtempSync(path.join(os.tmpdir(), 'dynarock-js-kinesis-'));
const external = Boolean(process.env.DYNAROCK_E2E_ENDPOINT);

async function records(count) {
  const file = path.join(SINK, 'js-feed.jsonl');
  for (let i = 0; i < 200; i++) {
    const lines = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
    if (lines.length >= count) return lines.map((l) => JSON.parse(l));
    await new Promise((r) => setTimeout(r, 50));
  }
  return [];
}

describe('kinesis streaming destinations', () => {
  let client;
  before(async () => {
    ({ client } = await connect(['--kinesis-dir', SINK]));
    await createTable(T, ['pk', 'S']);
  });
  after(async () => {
    await disconnect();
    fs.rmSync(SINK, { recursive: true, force: true });
  });

  test('enable, describe, update and disable', async () => {
    const e = await client.send(new EnableKinesisStreamingDestinationCommand({ TableName: T, StreamArn: STREAM }));
    assert.equal(e.DestinationStatus, 'ENABLING');
    let d = await client.send(new DescribeKinesisStreamingDestinationCommand({ TableName: T }));
    assert.deepEqual(d.KinesisDataStreamDestinations.map((x) => [x.StreamArn, x.DestinationStatus]),
      [[STREAM, 'ACTIVE']]);
    await rejectsWith(client.send(new EnableKinesisStreamingDestinationCommand({ TableName: T, StreamArn: STREAM })),
      'ValidationException',
      'Table is not in a valid state to enable Kinesis Streaming Destination: EnableKinesisStreamingDestination ' +
      'must be DISABLED or ENABLE_FAILED to perform ENABLE operation.');
    const u = await client.send(new UpdateKinesisStreamingDestinationCommand({
      TableName: T, StreamArn: STREAM,
      UpdateKinesisStreamingConfiguration: { ApproximateCreationDateTimePrecision: 'MICROSECOND' } }));
    assert.equal(u.DestinationStatus, 'UPDATING');
    assert.equal(u.UpdateKinesisStreamingConfiguration.ApproximateCreationDateTimePrecision, 'MICROSECOND');

    await client.send(new PutItemCommand({ TableName: T, Item: { pk: { S: 'x' }, n: { N: '7' } } }));
    if (!external) {
      const [r] = await records(1);
      assert.equal(r.eventName, 'INSERT');
      assert.equal(r.tableName, T);
      assert.equal(r.recordFormat, 'application/json');
      assert.deepEqual(r.dynamodb.Keys, { pk: { S: 'x' } });
      assert.deepEqual(r.dynamodb.NewImage, { pk: { S: 'x' }, n: { N: '7' } });
      assert.equal(r.dynamodb.ApproximateCreationDateTimePrecision, 'MICROSECOND');
      assert.ok(Math.abs(r.dynamodb.ApproximateCreationDateTime / 1e6 - Date.now() / 1000) < 120);
    }

    const off = await client.send(new DisableKinesisStreamingDestinationCommand({ TableName: T, StreamArn: STREAM }));
    assert.equal(off.DestinationStatus, 'DISABLING');
    d = await client.send(new DescribeKinesisStreamingDestinationCommand({ TableName: T }));
    assert.equal(d.KinesisDataStreamDestinations[0].DestinationStatus, 'DISABLED');
    await rejectsWith(client.send(new DisableKinesisStreamingDestinationCommand({ TableName: T, StreamArn: STREAM })),
      'ValidationException');
  });
});
