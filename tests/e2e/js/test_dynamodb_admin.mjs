// The third-party dynamodb-admin GUI (npm, pinned in package.json), which
// many DynamoDB Local users run, against `dynarock serve`: its own server on
// a free loopback port with DYNAMO_ENDPOINT pointing at dynarock and fake
// credentials, driven in headless Chromium (Debian's, puppeteer-core): the
// table list, a table's items (Scan), a Query through its filter form, an
// item read by its key, the table's description; an item added, edited and
// deleted through its editor; a table created (with a GSI) through its form;
// a table purged and deleted from its list. Each is checked on the page and
// through the SDK. Screenshots of each screen go to $DYNAROCK_TEST_OUT, else
// build/test-output/dynamodb-admin/. dynamodb-admin reaches dynarock through a
// recording proxy, so that a failed step prints the requests it sent last and
// what dynarock answered.
//
//   DYNAROCK_BIN=build/dynarock node --test tests/e2e/js/test_dynamodb_admin.mjs
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BatchWriteItemCommand, CreateTableCommand, DescribeTableCommand, GetItemCommand, ListTablesCommand,
  ScanCommand, waitUntilTableExists } from '@aws-sdk/client-dynamodb';
import { freePort, launchBrowser, outputDir, sdkClient, spawnUntil, startDynarock, stopAll } from './browser_harness.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ADMIN = path.join(HERE, 'node_modules', 'dynamodb-admin', 'dist', 'dynamodb-admin.js');
const OUT = outputDir('dynamodb-admin');
for (const f of readdirSync(OUT)) if (/^failed-.*\.png$/.test(f)) rmSync(path.join(OUT, f));
const TABLE = 'admin_books';

let endpoint;
let client;
let admin;  // dynamodb-admin's URL
let chromium;
let page;
let proxy;
const exchanges = [];  // the last requests dynamodb-admin sent dynarock, with the answers
const pageErrors = [];

// Forwards to dynarock and keeps the last exchanges.
function recordingProxy(target) {
  return http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const out = http.request(`${target}${req.url}`, { method: req.method,
        headers: { ...req.headers, host: new URL(target).host, 'accept-encoding': 'identity' } }, (r) => {
        const back = [];
        r.on('data', (c) => back.push(c));
        r.on('end', () => {
          const answer = Buffer.concat(back);
          exchanges.push({ target: String(req.headers['x-amz-target'] ?? '').split('.').pop(),
            request: body.toString().slice(0, 600), status: r.statusCode, answer: answer.toString().slice(0, 400) });
          if (exchanges.length > 8) exchanges.shift();
          res.writeHead(r.statusCode, r.headers).end(answer);
        });
      });
      out.on('error', (e) => res.writeHead(502).end(String(e)));
      out.end(body);
    });
  });
}

before(async () => {
  if (!existsSync(ADMIN)) throw new Error(`no ${ADMIN}: run scripts/install-deps.sh (npm ci in tests/e2e/js)`);
  endpoint = await startDynarock();
  client = await sdkClient(endpoint);
  await client.send(new CreateTableCommand({ TableName: TABLE, BillingMode: 'PAY_PER_REQUEST',
    KeySchema: [{ AttributeName: 'author', KeyType: 'HASH' }, { AttributeName: 'year', KeyType: 'RANGE' }],
    AttributeDefinitions: [{ AttributeName: 'author', AttributeType: 'S' }, { AttributeName: 'year', AttributeType: 'N' },
      { AttributeName: 'genre', AttributeType: 'S' }],
    GlobalSecondaryIndexes: [{ IndexName: 'byGenre', Projection: { ProjectionType: 'ALL' },
      KeySchema: [{ AttributeName: 'genre', KeyType: 'HASH' }, { AttributeName: 'year', KeyType: 'RANGE' }] }] }));
  await waitUntilTableExists({ client, maxWaitTime: 10, minDelay: 1 }, { TableName: TABLE });
  const books = [['Tolkien', 1937, 'The Hobbit', 'fantasy'], ['Tolkien', 1954, 'The Fellowship of the Ring', 'fantasy'],
    ['Le Guin', 1968, 'A Wizard of Earthsea', 'fantasy'], ['Le Guin', 1974, 'The Dispossessed', 'science fiction']];
  await client.send(new BatchWriteItemCommand({ RequestItems: { [TABLE]: books.map(([author, year, title, genre]) => ({
    PutRequest: { Item: { author: { S: author }, year: { N: String(year) }, title: { S: title }, genre: { S: genre },
      tags: { SS: ['classic', genre] } } } })) } }));

  proxy = recordingProxy(endpoint);
  const proxyPort = await new Promise((resolve) => proxy.listen(0, '127.0.0.1', () => resolve(proxy.address().port)));
  const port = await freePort();
  const env = { ...process.env, DYNAMO_ENDPOINT: `http://127.0.0.1:${proxyPort}`, AWS_ACCESS_KEY_ID: 'admin', AWS_SECRET_ACCESS_KEY: 'secret',
    AWS_REGION: 'us-east-1', NO_COLOR: '1', FORCE_COLOR: '0' };
  const { match } = await spawnUntil(process.execPath, [ADMIN, '--host', '127.0.0.1', '--port', String(port)],
    /listening on (http:\/\/\S+)/, { env });
  admin = match[1].replace(/\/$/, '');
  chromium = await launchBrowser();
  page = await chromium.browser.newPage();
  await page.setViewport({ width: 1280, height: 800 });
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('dialog', (d) => d.accept());  // its confirm() before deleting
});

after(async () => {
  await chromium?.close();
  client?.destroy();
  stopAll();
  proxy?.close();
});

// The last requests dynamodb-admin sent and dynarock's answers, for a failure's message.
function lastExchanges(n = 4) {
  return exchanges.slice(-n).map((x) => `${x.target} ${x.request}\n    -> ${x.status} ${x.answer}`).join('\n  ');
}

// What `promise` gives, or `otherwise` once `ms` have passed or when it fails.
function within(ms, promise, otherwise) {
  let timer;
  const late = new Promise((resolve) => { timer = setTimeout(() => resolve(otherwise), ms); });
  return Promise.race([promise.catch(() => otherwise), late]).finally(() => clearTimeout(timer));
}

// Runs a step; on failure adds what dynarock answered last.
async function step(name, fn) {
  try {
    await fn();
  } catch (e) {
    // Bounded: a page stuck in a navigation never answers.
    await within(5_000, page.screenshot({ path: path.join(OUT, `failed-${name}.png`), fullPage: true }), undefined);
    const alert = await within(5_000, page.$eval('.alert-danger', (a) => a.textContent.trim()), '');
    e.message += `\n  the page's error: ${alert || '(none)'}\n  dynamodb-admin's last requests to dynarock:\n  ${lastExchanges()}`;
    throw e;
  }
}

const shot = (name) => page.screenshot({ path: path.join(OUT, `${name}.png`), fullPage: true });

// Clicks and waits for the page dynamodb-admin goes to on success, or fails
// at once with the error it shows instead.
async function clickThrough(selector) {
  const navigated = page.waitForNavigation({ waitUntil: 'load' }).then(() => null);
  const refused = page.waitForSelector('#error-wrapper .alert-danger', { timeout: 20_000 })
    .then((a) => a.evaluate((x) => x.textContent.trim()));
  await page.click(selector);
  const error = await Promise.race([navigated, refused]);
  if (error) assert.fail(`dynamodb-admin shows an error: ${error}`);
}
// The item editor's text (its ace editor is the page's global `editor`).
const editorValue = () => page.evaluate(() => editor.getValue());  // eslint-disable-line no-undef
async function getItem(author, year) {
  const r = await client.send(new GetItemCommand({ TableName: TABLE, ConsistentRead: true,
    Key: { author: { S: author }, year: { N: String(year) } } }));
  return r.Item;
}

describe('dynamodb-admin against dynarock serve', { timeout: 60_000 }, () => {
  test('lists the tables and shows a table\'s items, a query and the description', async () => {
    await step('tables', async () => {
      await page.goto(`${admin}/`, { waitUntil: 'load' });
      const tables = await page.$$eval('#table-list li', (els) => els.map((li) => li.dataset.tableName));
      assert.deepEqual(tables, [TABLE]);
      const count = await page.$eval(`#table-list li[data-table-name="${TABLE}"] .badge-secondary`, (b) => b.textContent.trim());
      assert.equal(count, '4', 'the item count DescribeTable gives');
      await shot('tables');
    });

    await step('items', async () => {
      await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click(`#table-list a[href="/tables/${TABLE}"]`)]);
      await page.waitForFunction(() => document.querySelectorAll('#items-container tr').length > 0, { timeout: 10_000 });
      const rows = await page.$$eval('#items-container tr', (trs) => trs.map((tr) => tr.innerText));
      assert.equal(rows.length, 4, rows.join(' | '));
      const text = rows.join('\n');
      for (const title of ['The Hobbit', 'The Fellowship of the Ring', 'A Wizard of Earthsea', 'The Dispossessed']) {
        assert.ok(text.includes(title), `the items show ${title}`);
      }
      await shot('items');
    });

    await step('query', async () => {
      await page.select('select[name="operationType"]', 'query');
      await page.waitForSelector('#filters-table .filter-row-key');
      const keys = await page.$$eval('#filters-table tr', (trs) => trs.map((tr) => tr.querySelector('.filter-row-key')?.value));
      assert.ok(keys.includes('author'), `a filter row for the partition key: ${keys}`);
      await page.evaluate(() => {
        for (const tr of document.querySelectorAll('#filters-table tr')) {
          if (tr.querySelector('.filter-row-key')?.value === 'author') tr.querySelector('.filter-row-value').value = 'Le Guin';
        }
      });
      await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('#form button[type="submit"]')]);
      await page.waitForFunction(() => document.querySelectorAll('#items-container tr').length > 0, { timeout: 10_000 });
      const rows = await page.$$eval('#items-container tr', (trs) => trs.map((tr) => tr.innerText).join('\n'));
      assert.ok(rows.includes('A Wizard of Earthsea') && rows.includes('The Dispossessed'), rows);
      assert.ok(!rows.includes('The Hobbit'), 'only Le Guin\'s books');
      await shot('query');
    });

    await step('get', async () => {
      await page.goto(`${admin}/tables/${TABLE}/get`, { waitUntil: 'load' });
      await page.type('input[name="hash"]', 'Tolkien');
      await page.type('input[name="range"]', '1954');
      await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('#form button[type="submit"]')]);
      const item = JSON.parse(await editorValue());
      assert.deepEqual(item, { author: 'Tolkien', year: 1954, title: 'The Fellowship of the Ring', genre: 'fantasy',
        tags: {} }, 'its document client shows a String Set as {} (a JS Set in JSON)');
      await shot('get-item');
    });

    await step('meta', async () => {
      await page.goto(`${admin}/tables/${TABLE}/meta`, { waitUntil: 'load' });
      // The description is the text of an ace editor over #documentArea.
      const described = JSON.parse(await page.evaluate(() => ace.edit('documentArea').getValue()));  // eslint-disable-line no-undef
      assert.equal(described.TableName, TABLE);
      assert.equal(described.TableStatus, 'ACTIVE');
      assert.deepEqual(described.GlobalSecondaryIndexes.map((g) => g.IndexName), ['byGenre']);
      assert.equal(described.ItemCount, 4);
      await shot('meta');
    });
  });

  test('adds, edits and deletes an item through its editor', async () => {
    await step('add-item', async () => {
      await page.goto(`${admin}/tables/${TABLE}/add-item`, { waitUntil: 'load' });
      await page.waitForFunction(() => typeof editor !== 'undefined');  // eslint-disable-line no-undef
      await page.evaluate((item) => editor.setValue(JSON.stringify(item, null, 2)), {  // eslint-disable-line no-undef
        author: 'Pratchett', year: 1983, title: 'The Colour of Magic', genre: 'fantasy', pages: 206 });
      await clickThrough('#saveButton');
      assert.match(decodeURIComponent(page.url()), /\/tables\/admin_books\/items\/Pratchett,1983$/);
      const shown = JSON.parse(await editorValue());
      assert.equal(shown.title, 'The Colour of Magic');
      const item = await getItem('Pratchett', 1983);
      assert.equal(item?.pages?.N, '206');
      await shot('item-added');
    });

    await step('edit-item', async () => {
      await page.evaluate(() => {
        /* global editor */
        const item = JSON.parse(editor.getValue());
        item.pages = 288;
        item.series = 'Discworld';
        editor.setValue(JSON.stringify(item, null, 2));
      });
      const saved = page.waitForResponse((r) => r.request().method() === 'PUT');
      await page.click('#saveButton');
      assert.equal((await saved).status(), 200);
      await page.waitForFunction(() => JSON.parse(editor.getValue()).series === 'Discworld');  // eslint-disable-line no-undef
      const item = await getItem('Pratchett', 1983);
      assert.equal(item?.pages?.N, '288');
      assert.equal(item?.series?.S, 'Discworld');
      await shot('item-edited');
    });

    await step('delete-item', async () => {
      await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('button.btn-danger')]);
      assert.match(page.url(), /\/tables\/admin_books$/);
      assert.equal(await getItem('Pratchett', 1983), undefined);
    });
  });

  // dynamodb-admin's create-table form sends the capacity units as JSON strings
  // ("ReadCapacityUnits": "3"). DynamoDB refuses that (SerializationException
  // "STRING_VALUE cannot be converted to Long", as recorded from the service in
  // tests/differential/captured.json) and so does Dynarock; DynamoDB Local lets
  // it through. The form then shows DynamoDB's error and creates nothing.
  test('shows DynamoDB\'s error for its create-table form, as against AWS', async () => {
    const name = 'admin_created';
    await step('create-table', async () => {
      await page.goto(`${admin}/create-table`, { waitUntil: 'load' });
      await page.type('#TableName', name);
      await page.type('#HashAttributeName', 'id');
      await page.select('select[name="HashAttributeType"]', 'S');
      await page.type('#RangeAttributeName', 'at');
      await page.select('select[name="RangeAttributeType"]', 'N');
      await page.click('#new-index');
      await page.type('input[name="secondary-index-1-IndexName"]', 'byKind');
      await page.type('input[name="secondary-index-1-HashAttributeName"]', 'kind');
      await page.select('select[name="secondary-index-1-HashAttributeType"]', 'S');
      await shot('create-table-form');
      const shown = page.waitForSelector('#error-wrapper .alert-danger', { timeout: 20_000 })
        .then((a) => a.evaluate((x) => x.textContent.trim()));
      await page.click('#saveButton');
      assert.match(await shown, /cannot be converted to Long/);
      await shot('create-table-refused');
      await assert.rejects(client.send(new DescribeTableCommand({ TableName: name })),
        (e) => e.name === 'ResourceNotFoundException');
    });
  });

  test('purges a table and deletes it from its list', async () => {
    const name = 'admin_doomed';
    await client.send(new CreateTableCommand({ TableName: name, BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }], AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }] }));
    await waitUntilTableExists({ client, maxWaitTime: 10, minDelay: 1 }, { TableName: name });
    for (let i = 0; i < 60; i += 25) {
      await client.send(new BatchWriteItemCommand({ RequestItems: { [name]: Array.from({ length: Math.min(25, 60 - i) },
        (_, j) => ({ PutRequest: { Item: { id: { S: `item-${i + j}` }, n: { N: String(i + j) } } } })) } }));
    }
    await step('purge-table', async () => {
      // Its purge: a Scan of the keys, then BatchWriteItem deletes of 25.
      await page.goto(`${admin}/`, { waitUntil: 'load' });
      await page.evaluate(() => { window.beforePurge = true; });
      await page.click(`#table-list li[data-table-name="${name}"] a.badge-warning`);
      // Its confirm() is accepted; once its server has deleted every item the
      // page reloads itself. The reloaded page is waited for (a document
      // without the mark): a navigation started while that reload is under
      // way (the next step's) never loads, and puppeteer's waitForNavigation
      // sometimes returns before the purge has begun.
      await page.waitForFunction(() => !window.beforePurge && document.readyState === 'complete' &&
        document.querySelector('#table-list'), { timeout: 10_000 });
      const left = (await client.send(new ScanCommand({ TableName: name, Select: 'COUNT', ConsistentRead: true }))).Count;
      assert.equal(left, 0, 'the purge deleted every item');
    });
    await step('delete-table', async () => {
      await page.goto(`${admin}/`, { waitUntil: 'load' });
      // Its confirm() is accepted; then it deletes the table and reloads the list.
      await page.click(`#table-list li[data-table-name="${name}"] a.badge-danger`);
      await page.waitForFunction((n) => document.readyState === 'complete' && document.querySelector('#table-list') &&
        ![...document.querySelectorAll('#table-list li')].some((li) => li.dataset.tableName === n), { timeout: 10_000 }, name);
      const left = (await client.send(new ListTablesCommand({}))).TableNames;
      assert.ok(!left.includes(name), left.join(', '));
      const listed = await page.$$eval('#table-list li', (els) => els.map((li) => li.dataset.tableName));
      assert.ok(!listed.includes(name) && listed.includes(TABLE), listed.join(', '));
      assert.deepEqual(pageErrors, [], 'no script error on dynamodb-admin\'s pages');
    });
  });
});
