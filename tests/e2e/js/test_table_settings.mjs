// End-to-end: table settings and resource-based policies through the AWS SDK
// for JavaScript v3: SSESpecification described as SSEDescription,
// WarmThroughput with DynamoDB's defaults, TableClassSummary, and
// Put/Get/DeleteResourcePolicy with revisions and the SDK's own
// PolicyNotFoundException class.
//
//   DYNAROCK_BIN=build/dynarock node tests/e2e/js/test_table_settings.mjs
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createTable, disconnect, rejectsWith, uniq } from './harness.mjs';

const ddb = await import('@aws-sdk/client-dynamodb');
const {
  DescribeTableCommand, UpdateTableCommand, PutResourcePolicyCommand, GetResourcePolicyCommand,
  DeleteResourcePolicyCommand, PolicyNotFoundException, waitUntilTableExists,
} = ddb;

const T = uniq('js-settings');

const policyFor = (arn, effect = 'Allow') => JSON.stringify({
  Version: '2012-10-17',
  Statement: [{ Effect: effect, Principal: { AWS: 'arn:aws:iam::123456789012:role/app' },
    Action: ['dynamodb:GetItem', 'dynamodb:PutItem'], Resource: arn }],
});

describe('table settings and resource-based policies', () => {
  let client;
  let arn;
  before(async () => {
    ({ client } = await connect());
    const d = await createTable(T, ['pk', 'S'], undefined, {
      SSESpecification: { Enabled: true, SSEType: 'KMS', KMSMasterKeyId: 'alias/app' },
      WarmThroughput: { ReadUnitsPerSecond: 20000 },
    });
    arn = d.TableArn;
  });
  after(disconnect);

  test('SSEDescription, WarmThroughput and TableClassSummary are described', async () => {
    let t = (await client.send(new DescribeTableCommand({ TableName: T }))).Table;
    assert.equal(t.SSEDescription.Status, 'ENABLED');
    assert.equal(t.SSEDescription.SSEType, 'KMS');
    assert.match(t.SSEDescription.KMSMasterKeyArn, /^arn:aws:kms:[^:]+:\d+:alias\/app$/);
    assert.deepEqual(t.WarmThroughput, { ReadUnitsPerSecond: 20000, WriteUnitsPerSecond: 4000, Status: 'ACTIVE' });
    await client.send(new UpdateTableCommand({ TableName: T, TableClass: 'STANDARD_INFREQUENT_ACCESS' }));
    await waitUntilTableExists({ client, maxWaitTime: 30, minDelay: 1 }, { TableName: T });
    t = (await client.send(new DescribeTableCommand({ TableName: T }))).Table;
    assert.equal(t.TableClassSummary.TableClass, 'STANDARD_INFREQUENT_ACCESS');
    assert.ok(t.TableClassSummary.LastUpdateDateTime instanceof Date);
  });

  test('policies: put, get, conditional put and delete', async () => {
    await rejectsWith(client.send(new GetResourcePolicyCommand({ ResourceArn: arn })), 'PolicyNotFoundException',
      `Resource-based policy not found for the provided ResourceArn: ${arn}`, PolicyNotFoundException);
    const { RevisionId: first } = await client.send(new PutResourcePolicyCommand({ ResourceArn: arn, Policy: policyFor(arn) }));
    const got = await client.send(new GetResourcePolicyCommand({ ResourceArn: arn }));
    assert.equal(got.RevisionId, first);
    assert.deepEqual(JSON.parse(got.Policy), JSON.parse(policyFor(arn)));
    await rejectsWith(client.send(new PutResourcePolicyCommand({
      ResourceArn: arn, Policy: policyFor(arn, 'Deny'), ExpectedRevisionId: 'NO_POLICY',
    })), 'PolicyNotFoundException', /a policy exists with revision id/, PolicyNotFoundException);
    const { RevisionId: second } = await client.send(new PutResourcePolicyCommand({
      ResourceArn: arn, Policy: policyFor(arn, 'Deny'), ExpectedRevisionId: first,
    }));
    assert.notEqual(second, first);
    const deleted = await client.send(new DeleteResourcePolicyCommand({ ResourceArn: arn, ExpectedRevisionId: second }));
    assert.equal(deleted.RevisionId, second);
    await rejectsWith(client.send(new PutResourcePolicyCommand({ ResourceArn: arn, Policy: '{"Statement": []}' })),
      'ValidationException', /Invalid policy document: Statement must not be empty/);
  });
});
