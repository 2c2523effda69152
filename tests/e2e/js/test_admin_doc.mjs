// End-to-end tests through the AWS SDK for JavaScript v3 of the table
// administration operations (TagResource / UntagResource / ListTagsOfResource,
// UpdateTimeToLive / DescribeTimeToLive, Describe/UpdateContinuousBackups,
// DescribeLimits, DescribeEndpoints, UpdateTable: billing mode, throughput,
// GSI create with backfill / update / delete) and of DynamoDBDocumentClient
// (paginateQuery, ScanCommand with FilterExpression, UpdateCommand with
// ReturnValues UPDATED_NEW) and the SDK's modelled error classes.
// Assertions follow real Amazon DynamoDB behaviour (API reference).
//
//   DYNAROCK_BIN=build/dynarock node tests/e2e/js/test_admin_doc.mjs
//   DYNAROCK_E2E_ENDPOINT=http://127.0.0.1:5055 node tests/e2e/js/test_admin_doc.mjs
//
// Dependencies: `npm ci` in tests/e2e/js (scripts/install-deps.sh does this).
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createTable, disconnect, rejectsWith, uniq } from './harness.mjs';

const ddb = await import('@aws-sdk/client-dynamodb');
const lib = await import('@aws-sdk/lib-dynamodb');
const {
  DescribeTableCommand, UpdateTableCommand,
  TagResourceCommand, UntagResourceCommand, ListTagsOfResourceCommand, UpdateTimeToLiveCommand,
  DescribeTimeToLiveCommand, DescribeContinuousBackupsCommand, UpdateContinuousBackupsCommand,
  DescribeLimitsCommand, DescribeEndpointsCommand, PutItemCommand,
  ConditionalCheckFailedException, TransactionCanceledException,
  ResourceNotFoundException, TableNotFoundException,
} = ddb;
const {
  PutCommand, GetCommand, UpdateCommand, BatchWriteCommand, TransactWriteCommand,
  QueryCommand: DocQueryCommand, ScanCommand: DocScanCommand, paginateQuery: docPaginateQuery,
} = lib;

let client;
let doc;
const PK = ['pk', 'S'];
const SK = ['sk', 'N'];

// Polls DescribeTable until pred(Table) holds (10 s at most); returns the Table.
async function waitForTable(name, pred, what) {
  let last;
  for (let i = 0; i < 100; i++) {
    last = (await client.send(new DescribeTableCommand({ TableName: name }))).Table;
    if (pred(last)) return last;
    await sleep(100);
  }
  assert.fail(`timed out waiting for ${what}: ${JSON.stringify(last)}`);
}

const payload = (out) => Object.fromEntries(Object.entries(out).filter(([k]) => k !== '$metadata'));
const byKey = (tags) => [...tags].sort((a, b) => a.Key.localeCompare(b.Key));

before(async () => ({ client, doc } = await connect()));
after(disconnect);

describe('TagResource / UntagResource / ListTagsOfResource', () => {
  const table = uniq('js-tags');
  let arn;

  before(async () => {
    arn = (await createTable(table, PK, SK, { Tags: [{ Key: 'created', Value: 'at-create' }] })).TableArn;
  });

  test('tags given to CreateTable are listed', async () => {
    const out = await client.send(new ListTagsOfResourceCommand({ ResourceArn: arn }));
    assert.deepEqual(out.Tags, [{ Key: 'created', Value: 'at-create' }]);
    assert.equal(out.NextToken, undefined);
  });

  test('TagResource adds and overwrites, UntagResource removes (unknown keys ignored)', async () => {
    const tagged = await client.send(new TagResourceCommand({
      ResourceArn: arn,
      Tags: [{ Key: 'env', Value: 'test' }, { Key: 'team', Value: 'storage' }, { Key: 'created', Value: 'changed' },
        { Key: 'empty', Value: '' }],
    }));
    assert.deepEqual(payload(tagged), {});
    assert.deepEqual(byKey((await client.send(new ListTagsOfResourceCommand({ ResourceArn: arn }))).Tags), [
      { Key: 'created', Value: 'changed' }, { Key: 'empty', Value: '' }, { Key: 'env', Value: 'test' },
      { Key: 'team', Value: 'storage' }]);
    const untagged = await client.send(new UntagResourceCommand({ ResourceArn: arn, TagKeys: ['env', 'never-set', 'empty'] }));
    assert.deepEqual(payload(untagged), {});
    assert.deepEqual(byKey((await client.send(new ListTagsOfResourceCommand({ ResourceArn: arn }))).Tags), [
      { Key: 'created', Value: 'changed' }, { Key: 'team', Value: 'storage' }]);
  });

  test('a missing table is ResourceNotFoundException, a malformed ARN ValidationException, another account\'s AccessDeniedException', async () => {
    const missing = arn.replace(/table\/.*$/, `table/${uniq('missing')}`);
    await rejectsWith(client.send(new ListTagsOfResourceCommand({ ResourceArn: missing })),
      'ResourceNotFoundException', /^Requested resource not found/, ResourceNotFoundException);
    await rejectsWith(client.send(new TagResourceCommand({ ResourceArn: missing, Tags: [{ Key: 'a', Value: 'b' }] })),
      'ResourceNotFoundException', /^Requested resource not found/, ResourceNotFoundException);
    await rejectsWith(client.send(new UntagResourceCommand({ ResourceArn: missing, TagKeys: ['a'] })),
      'ResourceNotFoundException', /^Requested resource not found/, ResourceNotFoundException);
    await rejectsWith(client.send(new ListTagsOfResourceCommand({ ResourceArn: 'not-an-arn' })), 'ValidationException');
    // The same table name in another region is invalid input here; another
    // account's table is not this caller's to see (no resource-based policy).
    const otherRegion = arn.replace(':us-east-1:', ':eu-west-1:');
    assert.notEqual(otherRegion, arn);
    await rejectsWith(client.send(new ListTagsOfResourceCommand({ ResourceArn: otherRegion })),
      'ValidationException', `Invalid TableArn: Invalid ResourceArn provided as input ${otherRegion}`);
    const otherAccount = arn.replace(/:\d{12}:/, ':111111111111:');
    await rejectsWith(client.send(new ListTagsOfResourceCommand({ ResourceArn: otherAccount })),
      'AccessDeniedException', /is not authorized to perform: dynamodb:ListTagsOfResource/);
  });
});

describe('UpdateTimeToLive / DescribeTimeToLive', () => {
  const table = uniq('js-ttl');
  before(async () => { await createTable(table, PK, SK); });

  test('DISABLED, then enabled on an attribute', async () => {
    assert.deepEqual(payload(await client.send(new DescribeTimeToLiveCommand({ TableName: table }))),
      { TimeToLiveDescription: { TimeToLiveStatus: 'DISABLED' } });
    const out = await client.send(new UpdateTimeToLiveCommand({
      TableName: table, TimeToLiveSpecification: { Enabled: true, AttributeName: 'expires' },
    }));
    assert.deepEqual(payload(out), { TimeToLiveSpecification: { Enabled: true, AttributeName: 'expires' } });
    const d = (await client.send(new DescribeTimeToLiveCommand({ TableName: table }))).TimeToLiveDescription;
    assert.ok(['ENABLING', 'ENABLED'].includes(d.TimeToLiveStatus), d.TimeToLiveStatus);
    assert.equal(d.AttributeName, 'expires');
  });

  test('enabling again is a ValidationException', async () => {
    await rejectsWith(client.send(new UpdateTimeToLiveCommand({
      TableName: table, TimeToLiveSpecification: { Enabled: true, AttributeName: 'expires' },
    })), 'ValidationException', 'TimeToLive is already enabled');
  });

  test('invalid specification and missing table', async () => {
    await rejectsWith(client.send(new UpdateTimeToLiveCommand({
      TableName: table, TimeToLiveSpecification: { Enabled: true, AttributeName: '' },
    })), 'ValidationException', 'TimeToLiveSpecification.AttributeName must be non empty');
    const missing = uniq('missing');
    await rejectsWith(client.send(new DescribeTimeToLiveCommand({ TableName: missing })),
      'ResourceNotFoundException', /^Requested resource not found/, ResourceNotFoundException);
    await rejectsWith(client.send(new UpdateTimeToLiveCommand({
      TableName: missing, TimeToLiveSpecification: { Enabled: true, AttributeName: 'e' },
    })), 'ResourceNotFoundException', /^Requested resource not found/, ResourceNotFoundException);
  });
});

describe('DescribeContinuousBackups / UpdateContinuousBackups', () => {
  const table = uniq('js-pitr');
  before(async () => { await createTable(table, PK, SK); });

  test('PITR is off on a new table; enabling it sets the recovery window', async () => {
    assert.deepEqual(payload(await client.send(new DescribeContinuousBackupsCommand({ TableName: table }))), {
      ContinuousBackupsDescription: {
        ContinuousBackupsStatus: 'ENABLED', PointInTimeRecoveryDescription: { PointInTimeRecoveryStatus: 'DISABLED' },
      },
    });
    const t0 = Date.now();
    const out = await client.send(new UpdateContinuousBackupsCommand({
      TableName: table, PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true, RecoveryPeriodInDays: 7 },
    }));
    const p = out.ContinuousBackupsDescription.PointInTimeRecoveryDescription;
    assert.equal(out.ContinuousBackupsDescription.ContinuousBackupsStatus, 'ENABLED');
    assert.equal(p.PointInTimeRecoveryStatus, 'ENABLED');
    assert.equal(p.RecoveryPeriodInDays, 7);
    assert.ok(p.EarliestRestorableDateTime instanceof Date && p.LatestRestorableDateTime instanceof Date);
    assert.ok(p.EarliestRestorableDateTime <= p.LatestRestorableDateTime);
    assert.ok(Math.abs(p.LatestRestorableDateTime.getTime() - t0) < 60_000, 'LatestRestorableDateTime is about now');
    const d = (await client.send(new DescribeContinuousBackupsCommand({ TableName: table })))
      .ContinuousBackupsDescription.PointInTimeRecoveryDescription;
    assert.equal(d.PointInTimeRecoveryStatus, 'ENABLED');
    assert.equal(d.RecoveryPeriodInDays, 7);
  });

  test('RecoveryPeriodInDays must be 1..35; disabling', async () => {
    for (const days of [0, 36]) {
      await rejectsWith(client.send(new UpdateContinuousBackupsCommand({
        TableName: table,
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true, RecoveryPeriodInDays: days },
      })), 'ValidationException', /pointInTimeRecoverySpecification\.recoveryPeriodInDays/);
    }
    const off = await client.send(new UpdateContinuousBackupsCommand({
      TableName: table, PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: false },
    }));
    assert.equal(off.ContinuousBackupsDescription.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus, 'DISABLED');
  });

  test('a missing table is TableNotFoundException (not ResourceNotFoundException)', async () => {
    const missing = uniq('missing');
    await rejectsWith(client.send(new DescribeContinuousBackupsCommand({ TableName: missing })),
      'TableNotFoundException', undefined, TableNotFoundException);
    await rejectsWith(client.send(new UpdateContinuousBackupsCommand({
      TableName: missing, PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    })), 'TableNotFoundException', undefined, TableNotFoundException);
  });
});

describe('DescribeLimits / DescribeEndpoints', () => {
  test('DescribeLimits reports the default quotas', async () => {
    // Service quotas (us-east-1 defaults): 40,000 units per table, 80,000 per account.
    assert.deepEqual(payload(await client.send(new DescribeLimitsCommand({}))), {
      AccountMaxReadCapacityUnits: 80000, AccountMaxWriteCapacityUnits: 80000,
      TableMaxReadCapacityUnits: 40000, TableMaxWriteCapacityUnits: 40000,
    });
  });

  test('DescribeEndpoints returns one address cached for 1440 minutes', async () => {
    const { Endpoints } = await client.send(new DescribeEndpointsCommand({}));
    assert.equal(Endpoints.length, 1);
    assert.equal(Endpoints[0].CachePeriodInMinutes, 1440);
    assert.equal(typeof Endpoints[0].Address, 'string');
    assert.ok(Endpoints[0].Address.length > 0 && !Endpoints[0].Address.includes('://'), Endpoints[0].Address);
  });
});

describe('UpdateTable', () => {
  test('billing mode and throughput, table and GSI', async () => {
    const table = uniq('js-billing');
    await createTable(table, PK, SK, {
      BillingMode: 'PROVISIONED', ProvisionedThroughput: { ReadCapacityUnits: 2, WriteCapacityUnits: 2 },
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }, { AttributeName: 'sk', AttributeType: 'N' },
        { AttributeName: 'g', AttributeType: 'S' }],
      GlobalSecondaryIndexes: [{
        IndexName: 'byg', KeySchema: [{ AttributeName: 'g', KeyType: 'HASH' }], Projection: { ProjectionType: 'KEYS_ONLY' },
        ProvisionedThroughput: { ReadCapacityUnits: 1, WriteCapacityUnits: 1 },
      }],
    });
    let t = (await client.send(new UpdateTableCommand({
      TableName: table, ProvisionedThroughput: { ReadCapacityUnits: 6, WriteCapacityUnits: 8 },
    }))).TableDescription;
    assert.ok(['UPDATING', 'ACTIVE'].includes(t.TableStatus));
    assert.deepEqual([t.ProvisionedThroughput.ReadCapacityUnits, t.ProvisionedThroughput.WriteCapacityUnits], [6, 8]);
    await waitForTable(table, (x) => x.TableStatus === 'ACTIVE', 'table ACTIVE');

    t = (await client.send(new UpdateTableCommand({
      TableName: table,
      GlobalSecondaryIndexUpdates: [{ Update: { IndexName: 'byg', ProvisionedThroughput: { ReadCapacityUnits: 3, WriteCapacityUnits: 4 } } }],
    }))).TableDescription;
    const g = t.GlobalSecondaryIndexes[0];
    assert.deepEqual([g.ProvisionedThroughput.ReadCapacityUnits, g.ProvisionedThroughput.WriteCapacityUnits], [3, 4]);
    await waitForTable(table, (x) => x.TableStatus === 'ACTIVE' && x.GlobalSecondaryIndexes[0].IndexStatus === 'ACTIVE',
      'table and index ACTIVE');

    t = (await client.send(new UpdateTableCommand({ TableName: table, BillingMode: 'PAY_PER_REQUEST' }))).TableDescription;
    assert.equal(t.BillingModeSummary.BillingMode, 'PAY_PER_REQUEST');
    assert.ok(t.BillingModeSummary.LastUpdateToPayPerRequestDateTime instanceof Date);
    t = await waitForTable(table, (x) => x.TableStatus === 'ACTIVE', 'table ACTIVE');
    assert.deepEqual([t.ProvisionedThroughput.ReadCapacityUnits, t.ProvisionedThroughput.WriteCapacityUnits], [0, 0]);
    assert.equal(t.BillingModeSummary.BillingMode, 'PAY_PER_REQUEST');

    await rejectsWith(client.send(new UpdateTableCommand({ TableName: table })), 'ValidationException',
      /^At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates/);
    await rejectsWith(client.send(new UpdateTableCommand({
      TableName: uniq('missing'), BillingMode: 'PAY_PER_REQUEST',
    })), 'ResourceNotFoundException', /^Requested resource not found/, ResourceNotFoundException);
  });

  describe('GSI create (backfill), query, delete', () => {
    const table = uniq('js-gsi');
    let arn;

    before(async () => {
      arn = (await createTable(table, PK, SK)).TableArn;
      const items = [
        { pk: 'p1', sk: 1, team: 'a', name: 'n1', secret: 's' },
        { pk: 'p2', sk: 2, team: 'a', name: 'n2', secret: 's' },
        { pk: 'p3', sk: 3, team: 'a', name: 'n3', secret: 's' },
        { pk: 'p4', sk: 4, team: 'b', name: 'n4', secret: 's' },
        { pk: 'p5', sk: 5, team: 7, name: 'wrong type: not indexed' },
        { pk: 'p6', sk: 6, name: 'no team: not indexed' },
      ];
      await doc.send(new BatchWriteCommand({ RequestItems: { [table]: items.map((Item) => ({ PutRequest: { Item } })) } }));
    });

    const queryTeam = async (team, extra = {}) => (await doc.send(new DocQueryCommand({
      TableName: table, IndexName: 'byteam', KeyConditionExpression: 'team = :t', ExpressionAttributeValues: { ':t': team },
      ...extra,
    })));

    test('UpdateTable adds the index; it backfills the existing items and becomes ACTIVE', async () => {
      const out = (await client.send(new UpdateTableCommand({
        TableName: table,
        AttributeDefinitions: [{ AttributeName: 'team', AttributeType: 'S' }],
        GlobalSecondaryIndexUpdates: [{
          Create: {
            IndexName: 'byteam',
            KeySchema: [{ AttributeName: 'team', KeyType: 'HASH' }, { AttributeName: 'sk', KeyType: 'RANGE' }],
            Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['name'] },
          },
        }],
      }))).TableDescription;
      assert.equal(out.TableStatus, 'UPDATING');
      assert.deepEqual(out.AttributeDefinitions.find((a) => a.AttributeName === 'team'),
        { AttributeName: 'team', AttributeType: 'S' });
      assert.equal(out.GlobalSecondaryIndexes.length, 1);
      assert.equal(out.GlobalSecondaryIndexes[0].IndexName, 'byteam');
      assert.equal(out.GlobalSecondaryIndexes[0].IndexStatus, 'CREATING');
      assert.equal(out.GlobalSecondaryIndexes[0].IndexArn, `${arn}/index/byteam`);
      await waitForTable(table,
        (x) => x.TableStatus === 'ACTIVE' && x.GlobalSecondaryIndexes?.[0]?.IndexStatus === 'ACTIVE', 'index ACTIVE');
    });

    test('Query on the new index returns the backfilled items with its projection', async () => {
      const a = await queryTeam('a');
      assert.deepEqual(a.Items, [
        { team: 'a', sk: 1, pk: 'p1', name: 'n1' }, { team: 'a', sk: 2, pk: 'p2', name: 'n2' },
        { team: 'a', sk: 3, pk: 'p3', name: 'n3' }]);
      assert.deepEqual((await queryTeam('b')).Items.map((i) => i.sk), [4]);
      // Only items with a string `team` are in the index.
      const s = await doc.send(new DocScanCommand({ TableName: table, IndexName: 'byteam' }));
      assert.deepEqual(s.Items.map((i) => i.pk).sort(), ['p1', 'p2', 'p3', 'p4']);
    });

    test('paginated Query on the index: LastEvaluatedKey carries index and table keys', async () => {
      const pages = [];
      for await (const page of docPaginateQuery({ client: doc, pageSize: 2 }, {
        TableName: table, IndexName: 'byteam', KeyConditionExpression: 'team = :t',
        ExpressionAttributeValues: { ':t': 'a' }, ScanIndexForward: false,
      })) pages.push(page);
      assert.deepEqual(pages.map((p) => p.Items.map((i) => i.sk)), [[3, 2], [1]]);
      assert.deepEqual(pages[0].LastEvaluatedKey, { team: 'a', sk: 2, pk: 'p2' });
      assert.equal(pages[1].LastEvaluatedKey, undefined);
    });

    test('writes after creation maintain the index; its key type is enforced', async () => {
      await doc.send(new PutCommand({ TableName: table, Item: { pk: 'p7', sk: 7, team: 'b', name: 'n7' } }));
      await doc.send(new UpdateCommand({
        TableName: table, Key: { pk: 'p6', sk: 6 }, UpdateExpression: 'SET team = :t', ExpressionAttributeValues: { ':t': 'b' },
      }));
      assert.deepEqual((await queryTeam('b')).Items.map((i) => i.pk), ['p4', 'p6', 'p7']);
      await rejectsWith(client.send(new PutItemCommand({
        TableName: table, Item: { pk: { S: 'p8' }, sk: { N: '8' }, team: { N: '8' } },
      })), 'ValidationException',
      'One or more parameter values were invalid: Type mismatch for Index Key team Expected: S Actual: N IndexName: byteam');
      await rejectsWith(queryTeam('a', { ConsistentRead: true }), 'ValidationException',
        'Consistent reads are not supported on global secondary indexes');
      await rejectsWith(client.send(new UpdateTableCommand({
        TableName: table,
        AttributeDefinitions: [{ AttributeName: 'team', AttributeType: 'S' }],
        GlobalSecondaryIndexUpdates: [{
          Create: { IndexName: 'byteam', KeySchema: [{ AttributeName: 'team', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' } },
        }],
      })), 'ValidationException', 'Attempting to create an index which already exists');
    });

    test('UpdateTable deletes the index', async () => {
      const out = (await client.send(new UpdateTableCommand({
        TableName: table, GlobalSecondaryIndexUpdates: [{ Delete: { IndexName: 'byteam' } }],
      }))).TableDescription;
      assert.deepEqual(out.GlobalSecondaryIndexes.map((g) => [g.IndexName, g.IndexStatus]), [['byteam', 'DELETING']]);
      await waitForTable(table, (x) => x.TableStatus === 'ACTIVE' && x.GlobalSecondaryIndexes === undefined, 'index gone');
      await rejectsWith(queryTeam('a'), 'ValidationException', 'The table does not have the specified index: byteam');
      await rejectsWith(client.send(new UpdateTableCommand({
        TableName: table, GlobalSecondaryIndexUpdates: [{ Delete: { IndexName: 'byteam' } }],
      })), 'ResourceNotFoundException', undefined, ResourceNotFoundException);
    });
  });
});

describe('DynamoDBDocumentClient', () => {
  const table = uniq('js-docx');

  before(async () => {
    await createTable(table, PK, SK);
    const items = Array.from({ length: 20 }, (_, k) => {
      const i = k + 1;
      return { pk: 'p', sk: i, even: i % 2 === 0, info: { level: i % 3 }, tags: new Set(i % 4 === 0 ? ['x', 'four'] : ['x']) };
    });
    for (let k = 0; k < items.length; k += 10) {
      const out = await doc.send(new BatchWriteCommand({
        RequestItems: { [table]: items.slice(k, k + 10).map((Item) => ({ PutRequest: { Item } })) },
      }));
      assert.deepEqual(out.UnprocessedItems, {});
    }
  });

  test('paginateQuery: a page per Limit, LastEvaluatedKey while Limit was reached', async () => {
    const pages = [];
    for await (const page of docPaginateQuery({ client: doc, pageSize: 5 }, {
      TableName: table, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': 'p' },
    })) pages.push(page);
    // Query stops at Limit and returns LastEvaluatedKey even when nothing is left,
    // so 20 items in pages of 5 take a fifth, empty request.
    assert.deepEqual(pages.map((p) => p.Count), [5, 5, 5, 5, 0]);
    assert.deepEqual(pages.map((p) => p.LastEvaluatedKey), [
      { pk: 'p', sk: 5 }, { pk: 'p', sk: 10 }, { pk: 'p', sk: 15 }, { pk: 'p', sk: 20 }, undefined]);
    assert.deepEqual(pages.flatMap((p) => p.Items.map((i) => i.sk)), Array.from({ length: 20 }, (_, i) => i + 1));
  });

  test('paginateQuery with a FilterExpression: Limit counts items read, not items returned', async () => {
    const pages = [];
    for await (const page of docPaginateQuery({ client: doc, pageSize: 6 }, {
      TableName: table, KeyConditionExpression: 'pk = :p AND sk <= :hi', FilterExpression: 'even = :t',
      ExpressionAttributeValues: { ':p': 'p', ':hi': 20, ':t': true }, ScanIndexForward: false,
    })) pages.push(page);
    assert.deepEqual(pages.map((p) => [p.Count, p.ScannedCount]), [[3, 6], [3, 6], [3, 6], [1, 2]]);
    assert.deepEqual(pages.flatMap((p) => p.Items.map((i) => i.sk)), [20, 18, 16, 14, 12, 10, 8, 6, 4, 2]);
  });

  test('ScanCommand with a FilterExpression on nested paths and sets', async () => {
    const s = await doc.send(new DocScanCommand({
      TableName: table, FilterExpression: 'info.#lv = :l AND contains(tags, :t) AND sk BETWEEN :a AND :b',
      ExpressionAttributeNames: { '#lv': 'level' }, ExpressionAttributeValues: { ':l': 0, ':t': 'four', ':a': 1, ':b': 20 },
    }));
    assert.deepEqual(s.Items.map((i) => i.sk).sort((x, y) => x - y), [12]);
    assert.equal(s.Count, 1);
    assert.equal(s.ScannedCount, 20);
    assert.deepEqual(s.Items[0], { pk: 'p', sk: 12, even: true, info: { level: 0 }, tags: new Set(['x', 'four']) });
    const limited = await doc.send(new DocScanCommand({
      TableName: table, Limit: 7, FilterExpression: 'even = :f', ExpressionAttributeValues: { ':f': false },
    }));
    assert.equal(limited.ScannedCount, 7);
    assert.ok(limited.Count <= 7 && limited.LastEvaluatedKey, 'Limit stops the scan after 7 items read');
  });

  test('UpdateCommand with ReturnValues UPDATED_NEW returns only the updated attributes', async () => {
    const r = await doc.send(new UpdateCommand({
      TableName: table, Key: { pk: 'p', sk: 1 },
      UpdateExpression: 'SET info.#lv = :nine, n = if_not_exists(n, :z) + :one, l = list_append(if_not_exists(l, :e), :v) ' +
        'ADD tags :t REMOVE even',
      ExpressionAttributeNames: { '#lv': 'level' },
      ExpressionAttributeValues: { ':nine': 9, ':z': 0, ':one': 1, ':e': [], ':v': ['a'], ':t': new Set(['y']) },
      ReturnValues: 'UPDATED_NEW',
    }));
    assert.deepEqual(r.Attributes, { info: { level: 9 }, n: 1, l: ['a'], tags: new Set(['x', 'y']) });
    const again = await doc.send(new UpdateCommand({
      TableName: table, Key: { pk: 'p', sk: 1 }, UpdateExpression: 'SET n = n + :one, l[0] = :b',
      ExpressionAttributeValues: { ':one': 1, ':b': 'b' }, ReturnValues: 'UPDATED_NEW',
    }));
    assert.deepEqual(again.Attributes, { n: 2, l: ['b'] });
    // An update that creates the item returns the new attributes, never the key.
    const upsert = await doc.send(new UpdateCommand({
      TableName: table, Key: { pk: 'new', sk: 1 }, UpdateExpression: 'SET a = :a', ExpressionAttributeValues: { ':a': 1 },
      ReturnValues: 'UPDATED_NEW',
    }));
    assert.deepEqual(upsert.Attributes, { a: 1 });
    const got = (await doc.send(new GetCommand({ TableName: table, Key: { pk: 'p', sk: 1 }, ConsistentRead: true }))).Item;
    assert.deepEqual(got, { pk: 'p', sk: 1, info: { level: 9 }, n: 2, l: ['b'], tags: new Set(['x', 'y']) });
  });

  test('ConditionalCheckFailedException', async () => {
    await rejectsWith(doc.send(new PutCommand({
      TableName: table, Item: { pk: 'p', sk: 2 }, ConditionExpression: 'attribute_not_exists(pk)',
    })), 'ConditionalCheckFailedException', 'The conditional request failed', ConditionalCheckFailedException);
    await rejectsWith(doc.send(new UpdateCommand({
      TableName: table, Key: { pk: 'p', sk: 2 }, UpdateExpression: 'SET even = :f', ConditionExpression: 'even = :f',
      ExpressionAttributeValues: { ':f': false }, ReturnValues: 'UPDATED_NEW', ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    })), 'ConditionalCheckFailedException', 'The conditional request failed', ConditionalCheckFailedException, (err) => {
      // Error payloads stay in AttributeValue form, even through the document client.
      assert.deepEqual(err.Item.sk, { N: '2' });
      assert.deepEqual(err.Item.even, { BOOL: true });
    });
    assert.equal((await doc.send(new GetCommand({ TableName: table, Key: { pk: 'p', sk: 2 } }))).Item.even, true);
  });

  test('TransactionCanceledException with CancellationReasons', async () => {
    await rejectsWith(doc.send(new TransactWriteCommand({
      TransactItems: [
        { Put: { TableName: table, Item: { pk: 'tx', sk: 1 } } },
        { ConditionCheck: { TableName: table, Key: { pk: 'p', sk: 3 }, ConditionExpression: 'even = :t',
          ExpressionAttributeValues: { ':t': true } } },
        { Update: { TableName: table, Key: { pk: 'p', sk: 4 }, UpdateExpression: 'SET touched = :t',
          ExpressionAttributeValues: { ':t': true } } },
      ],
    })), 'TransactionCanceledException', 'Transaction cancelled, please refer cancellation reasons for specific ' +
      'reasons [None, ConditionalCheckFailed, None]', TransactionCanceledException, (err) => {
      assert.deepEqual(err.CancellationReasons.map((r) => r.Code), ['None', 'ConditionalCheckFailed', 'None']);
      assert.equal(err.CancellationReasons[1].Message, 'The conditional request failed');
    });
    assert.equal((await doc.send(new GetCommand({ TableName: table, Key: { pk: 'tx', sk: 1 } }))).Item, undefined);
    assert.equal((await doc.send(new GetCommand({ TableName: table, Key: { pk: 'p', sk: 4 } }))).Item.touched, undefined);
  });

  test('ResourceNotFoundException for a missing table', async () => {
    const missing = uniq('missing');
    await rejectsWith(doc.send(new GetCommand({ TableName: missing, Key: { pk: 'p', sk: 1 } })),
      'ResourceNotFoundException', 'Requested resource not found', ResourceNotFoundException);
    await rejectsWith(doc.send(new DocQueryCommand({
      TableName: missing, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': 'p' },
    })), 'ResourceNotFoundException', 'Requested resource not found', ResourceNotFoundException);
    await rejectsWith(doc.send(new TransactWriteCommand({
      TransactItems: [{ Put: { TableName: missing, Item: { pk: 'p', sk: 1 } } }],
    })), 'ResourceNotFoundException', /^Requested resource not found/, ResourceNotFoundException);
  });
});
