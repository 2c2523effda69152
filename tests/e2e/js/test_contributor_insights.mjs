// End-to-end: Contributor Insights through the AWS SDK for JavaScript v3:
// UpdateContributorInsights, DescribeContributorInsights and
// ListContributorInsights, DynamoDB's rule names, a GSI's insights apart from
// its table's, and the SDK's ResourceNotFoundException for an unknown index.
//
//   DYNAROCK_BIN=build/dynarock node tests/e2e/js/test_contributor_insights.mjs
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createTable, disconnect, rejectsWith, uniq } from './harness.mjs';

const ddb = await import('@aws-sdk/client-dynamodb');
const {
  UpdateContributorInsightsCommand, DescribeContributorInsightsCommand,
  ListContributorInsightsCommand, PutItemCommand, ResourceNotFoundException,
} = ddb;

const T = uniq('js-insights');

describe('contributor insights', () => {
  let client;
  before(async () => {
    ({ client } = await connect());
    await createTable(T, ['pk', 'S'], ['sk', 'N'], {
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' }, { AttributeName: 'sk', AttributeType: 'N' },
        { AttributeName: 'g', AttributeType: 'S' }],
      GlobalSecondaryIndexes: [{ IndexName: 'by-g', KeySchema: [{ AttributeName: 'g', KeyType: 'HASH' }],
        Projection: { ProjectionType: 'KEYS_ONLY' } }],
    });
  });
  after(disconnect);

  test('a table is DISABLED until enabled, then ENABLED with its four rules', async () => {
    let d = await client.send(new DescribeContributorInsightsCommand({ TableName: T }));
    assert.equal(d.ContributorInsightsStatus, 'DISABLED');
    assert.equal(d.ContributorInsightsRuleList, undefined);
    const u = await client.send(new UpdateContributorInsightsCommand({
      TableName: T, ContributorInsightsAction: 'ENABLE' }));
    assert.equal(u.ContributorInsightsStatus, 'ENABLING');
    await client.send(new PutItemCommand({ TableName: T, Item: { pk: { S: 'a' }, sk: { N: '1' } } }));
    d = await client.send(new DescribeContributorInsightsCommand({ TableName: T }));
    assert.equal(d.ContributorInsightsStatus, 'ENABLED');
    assert.equal(d.ContributorInsightsMode, 'ACCESSED_AND_THROTTLED_KEYS');
    assert.ok(d.LastUpdateDateTime instanceof Date);
    assert.deepEqual(d.ContributorInsightsRuleList.map((r) => r.split('-')[1]), ['PKC', 'PKT', 'SKC', 'SKT']);
    for (const r of d.ContributorInsightsRuleList) assert.match(r, new RegExp(`^DynamoDBContributorInsights-[A-Z]{3}-${T}-\\d{13}$`));
  });

  test('a GSI has its own insights, listed after its table', async () => {
    await client.send(new UpdateContributorInsightsCommand({
      TableName: T, IndexName: 'by-g', ContributorInsightsAction: 'ENABLE', ContributorInsightsMode: 'THROTTLED_KEYS' }));
    const g = await client.send(new DescribeContributorInsightsCommand({ TableName: T, IndexName: 'by-g' }));
    assert.equal(g.IndexName, 'by-g');
    assert.deepEqual(g.ContributorInsightsRuleList.map((r) => r.split('-')[1]), ['PKT']);
    const l = await client.send(new ListContributorInsightsCommand({ TableName: T }));
    assert.deepEqual(l.ContributorInsightsSummaries.map((s) => [s.IndexName, s.ContributorInsightsMode]),
      [[undefined, 'ACCESSED_AND_THROTTLED_KEYS'], ['by-g', 'THROTTLED_KEYS']]);
  });

  test('an unknown index is ResourceNotFoundException, and nothing changes', async () => {
    await rejectsWith(client.send(new UpdateContributorInsightsCommand({
      TableName: T, IndexName: 'nope', ContributorInsightsAction: 'ENABLE' })), 'ResourceNotFoundException',
    /Index: nope not found for table/, ResourceNotFoundException);
    const l = await client.send(new ListContributorInsightsCommand({ TableName: T }));
    assert.equal(l.ContributorInsightsSummaries.length, 2);
  });
});
