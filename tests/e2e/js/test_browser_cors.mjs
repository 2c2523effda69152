// The AWS SDK for JavaScript v3 in a browser page served from another origin:
// headless Chromium (Debian's, driven by puppeteer-core) loads a page from a
// second local HTTP server, and the SDK, bundled for the browser with esbuild,
// talks to `dynarock serve` across origins. Every SDK request is preflighted
// (it sends Authorization, X-Amz-Target, X-Amz-Date, amz-sdk-* headers), so
// this passes only when the endpoint answers OPTIONS as DynamoDB does and puts
// Access-Control-Allow-Origin and Access-Control-Expose-Headers on every
// answer, errors included (DynamoDB's CORS support: "DynamoDB supports
// cross-origin resource sharing", the JavaScript SDK's browser guide).
//
//   DYNAROCK_BIN=build/dynarock node tests/e2e/js/test_browser_cors.mjs
//   SCREENSHOT=/tmp/cors.png ...   also saves what the page shows
//
// Needs /usr/bin/chromium (scripts/install-deps.sh installs Debian's chromium).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect, disconnect, uniq } from './harness.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const esbuild = await import('esbuild');
const puppeteer = (await import('puppeteer-core')).default;

// What the page runs: the SDK against the endpoint, each step's outcome shown
// on the page and returned to the test.
const PAGE_SCRIPT = `
import { DynamoDBClient, CreateTableCommand, PutItemCommand, GetItemCommand,
  QueryCommand, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
window.runSdk = async (endpoint, table) => {
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', maxAttempts: 1,
    credentials: { accessKeyId: 'browser', secretAccessKey: 'secret' } });
  const out = [];
  const show = (step, value) => {
    out.push({ step, value });
    const li = document.createElement('li');
    li.textContent = step + ': ' + JSON.stringify(value);
    document.getElementById('log').appendChild(li);
  };
  const created = await client.send(new CreateTableCommand({ TableName: table,
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }, { AttributeName: 'sk', KeyType: 'RANGE' }],
    AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }, { AttributeName: 'sk', AttributeType: 'N' }],
    BillingMode: 'PAY_PER_REQUEST' }));
  show('CreateTable', created.TableDescription.TableName);
  for (let i = 0; i < 3; i++) {
    await client.send(new PutItemCommand({ TableName: table,
      Item: { pk: { S: 'page' }, sk: { N: String(i) }, note: { S: 'x'.repeat(600) + i } } }));
  }
  show('PutItem', 3);
  const got = await client.send(new GetItemCommand({ TableName: table,
    Key: { pk: { S: 'page' }, sk: { N: '1' } } }));
  show('GetItem', got.Item.note.S.slice(-1));
  const q = await client.send(new QueryCommand({ TableName: table, KeyConditionExpression: 'pk = :p',
    ExpressionAttributeValues: { ':p': { S: 'page' } }, ScanIndexForward: false }));
  show('Query', q.Items.map((it) => it.sk.N));
  show('RequestId', typeof q.$metadata.requestId === 'string' && q.$metadata.requestId.length > 0);
  try {
    await client.send(new DescribeTableCommand({ TableName: table + '_missing' }));
    show('DescribeTable', 'no error');
  } catch (e) {
    show('DescribeTable', { name: e.name, status: e.$metadata.httpStatusCode, message: e.message });
  }
  return out;
};
`;

let endpoint;
let pageServer;
let pageOrigin;
let browser;
let profile;

function listen(server) {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
}

before(async () => {
  ({ endpoint } = await connect());
  const bundle = await esbuild.build({
    stdin: { contents: PAGE_SCRIPT, resolveDir: HERE, loader: 'js' },
    bundle: true, write: false, platform: 'browser', format: 'iife', target: 'chrome120',
    logLevel: 'error',
  });
  const js = bundle.outputFiles[0].text;
  const html = '<!doctype html><title>Dynarock from another origin</title>' +
    '<h1>AWS SDK for JavaScript v3, cross-origin</h1><ol id="log"></ol><script src="/sdk.js"></script>';
  pageServer = http.createServer((req, res) => {
    if (req.url === '/sdk.js') {
      res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(js);
    } else {
      res.writeHead(200, { 'Content-Type': 'text/html' }).end(html);
    }
  });
  // "localhost" for the page and 127.0.0.1 for the endpoint: two origins.
  pageOrigin = `http://localhost:${await listen(pageServer)}`;
  profile = mkdtempSync(path.join(os.tmpdir(), 'dynarock-chromium-'));
  browser = await puppeteer.launch({
    executablePath: CHROMIUM, headless: true, userDataDir: profile,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});

after(async () => {
  await browser?.close();
  pageServer?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
  await disconnect();
});

describe('the SDK in a browser page on another origin', () => {
  test('creates, writes, reads and gets DynamoDB errors across origins', async () => {
    const page = await browser.newPage();
    const failures = [];
    page.on('requestfailed', (r) => failures.push(`${r.method()} ${r.url()}: ${r.failure()?.errorText}`));
    const preflights = [];
    page.on('request', (r) => { if (r.method() === 'OPTIONS') preflights.push(r.url()); });
    await page.goto(`${pageOrigin}/`, { waitUntil: 'load' });
    assert.notEqual(new URL(pageOrigin).origin, new URL(endpoint).origin);
    const table = uniq('cors');
    const out = await page.evaluate((e, t) => window.runSdk(e, t), endpoint, table);
    if (process.env.SCREENSHOT) await page.screenshot({ path: process.env.SCREENSHOT });
    const byStep = Object.fromEntries(out.map(({ step, value }) => [step, value]));
    assert.equal(byStep.CreateTable, table);
    assert.equal(byStep.GetItem, '1');
    assert.deepEqual(byStep.Query, ['2', '1', '0']);
    assert.equal(byStep.RequestId, true, 'x-amzn-RequestId is exposed to the page');
    assert.equal(byStep.DescribeTable.name, 'ResourceNotFoundException');
    assert.equal(byStep.DescribeTable.status, 400);
    assert.deepEqual(failures, []);
    await page.close();
  });

  test('a preflight gets the methods and headers the SDK asks for', async () => {
    const page = await browser.newPage();
    await page.goto(`${pageOrigin}/`, { waitUntil: 'load' });
    // A raw fetch with the SDK's custom headers; the browser preflights it and
    // refuses the answer unless the endpoint allows them.
    const r = await page.evaluate(async (e) => {
      const res = await fetch(e, { method: 'POST', body: '{}', headers: {
        'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': 'DynamoDB_20120810.ListTables',
        'X-Amz-Date': '20260101T000000Z', 'amz-sdk-invocation-id': 'x',
        Authorization: 'AWS4-HMAC-SHA256 Credential=browser/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00' } });
      return { status: res.status, crc: res.headers.get('x-amz-crc32'), body: await res.json() };
    }, endpoint);
    assert.equal(r.status, 200);
    assert.ok(Array.isArray(r.body.TableNames));
    assert.match(r.crc ?? '', /^\d+$/, 'x-amz-crc32 is exposed');
    await page.close();
  });
});
