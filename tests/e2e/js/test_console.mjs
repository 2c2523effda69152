// The web console (tools/console, served by `dynarock serve` at
// /_dynarock/console) walked through in Debian's Chromium, headless, driven
// by puppeteer-core: create a table with a multi-attribute GSI, put items
// through the editor (DynamoDB JSON and plain JSON, a refused one showing the
// API's error), query the index with "Explain and cost", read the equivalent
// AWS CLI command, boto3 call and PartiQL statement (and run each: they must
// find what the console found), edit an item, delete one and two more
// (bulk), export JSON lines and CSV, scroll 3,000 items in the virtualised
// grid, move around by keyboard, lay out at phone width, and draw the graph
// view over `dynarock graph demo`'s tables. It asserts what the page shows,
// saves a screenshot of each screen and prints the page's load time.
//
//   DYNAROCK_BIN=build/dynarock node tests/e2e/js/test_console.mjs
//   DYNAROCK_TEST_OUT=DIR       screenshots and downloads (default build/test-output/console)
//   DYNAROCK_CONSOLE_DIR=DIR    serve the console's files from DIR (serve --console-dir)
//
// Needs /usr/bin/chromium; network: loopback only (the browser cannot resolve
// any other host). The AWS CLI and boto3 checks are skipped, with a message,
// where those are not installed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BIN, REPO, ddb as ddbAt, pageHelpers, startServer, stopServers } from './console_walk.mjs';

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const OUT = process.env.DYNAROCK_TEST_OUT ?? path.join(REPO, 'build/test-output/console');
const DOWNLOADS = path.join(OUT, 'downloads');
const TABLE = 'ConsoleOrders';
const BULK = 'ConsoleBulk';
const BULK_ITEMS = 3000;

const puppeteer = (await import('puppeteer-core')).default;

// The whole walk must finish within a minute.
const watchdog = setTimeout(() => {
  console.error('test_console: still running after 60 s; giving up');
  process.exit(1);
}, 60_000);
watchdog.unref();

let endpoint;
let browser;
let page;
let profile;
const requests = [];       // every URL the page asked for
const consoleErrors = [];  // console.error and uncaught exceptions of the page
const expectedErrors = []; // API errors the walk provokes on purpose (HTTP 400s)
const ddb = (op, body, accessKey) => ddbAt(endpoint, op, body, accessKey);
let shot, text, waitForText, clickHandle, click, clickText, setTextarea, fillByLabel, gridCount, runQueryBuilder;

// ---- Setup --------------------------------------------------------------------------

before(async () => {
  mkdirSync(DOWNLOADS, { recursive: true });
  for (const f of readdirSync(DOWNLOADS)) rmSync(path.join(DOWNLOADS, f));
  endpoint = await startServer();
  profile = mkdtempSync(path.join(os.tmpdir(), 'dynarock-console-'));
  browser = await puppeteer.launch({
    executablePath: CHROMIUM, headless: true, userDataDir: profile,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-quic', '--disable-sync',
      '--disable-background-networking', '--disable-component-update', '--disable-default-apps',
      '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'],
  });
  page = await browser.newPage();
  ({ shot, text, waitForText, clickHandle, click, clickText, setTextarea, fillByLabel, gridCount, runQueryBuilder } = pageHelpers(page, OUT));
  await page.setViewport({ width: 1280, height: 800 });
  page.on('request', (r) => requests.push(r.url()));
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    const t = m.text();
    // The browser logs each 4xx reply; the ones the walk provokes are expected.
    if (/Failed to load resource: the server responded with a status of 400/.test(t) && expectedErrors.length) return;
    consoleErrors.push(t);
  });
  page.on('pageerror', (e) => consoleErrors.push(`uncaught: ${e.message}`));
  const cdp = await browser.target().createCDPSession();
  await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: DOWNLOADS });
});

after(async () => {
  await browser?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
  stopServers();
});

// ---- The walk -----------------------------------------------------------------------

describe('the web console in Chromium', { timeout: 58_000 }, () => {
  test('opens at /_dynarock/console and lists no tables yet; load time', async () => {
    // Load time, as the browser's navigation timing has it: the first load
    // (a fresh browser profile, nothing cached) and a reload.
    const timing = async (label) => {
      await page.waitForSelector('.tables-list[aria-busy="false"]');
      const t = await page.evaluate(() => {
        const nav = performance.getEntriesByType('navigation')[0];
        return { dcl: nav.domContentLoadedEventEnd, load: nav.loadEventEnd, ready: performance.now(), url: location.href };
      });
      console.log(`# console page load (${label}): DOMContentLoaded ${t.dcl.toFixed(1)} ms, load event ${t.load.toFixed(1)} ms, ` +
        `tables listed ${t.ready.toFixed(1)} ms after navigation start (${t.url})`);
      return t;
    };
    await page.goto(`${endpoint}/_dynarock/console`, { waitUntil: 'load' });
    const t = await timing('first');
    await page.reload({ waitUntil: 'load' });
    await timing('reload');
    assert.match(t.url, /\/_dynarock\/console\/?#?/);
    assert.match(await text('main h1'), /^Tables/);
    assert.match(await text('.tables-list'), /No tables in this namespace yet/);
    assert.equal(await page.$eval('#namespace', (s) => s.selectedOptions[0].textContent), 'shared (unsigned)');
    await shot('01-tables-empty');
  });

  test('creates a table with a multi-attribute GSI, a stream and TTL', async () => {
    await clickText('.view-head button', 'Create table');
    await page.waitForSelector('dialog[open]');
    await page.type('dialog[open] input', TABLE);  // the name field has the focus first
    const keyInputs = await page.$$('dialog[open] .create-table > .field .key-attr');
    await (await keyInputs[0].$('input')).type('pk');
    await (await keyInputs[1].$('input')).type('sk');
    await (await keyInputs[1].$('select')).select('N');
    await clickText('dialog[open] button', 'Add global index');
    await page.keyboard.type('byStatus');  // the new index's name field has the focus
    await clickText('dialog[open] fieldset.index button', 'Add partition attribute');
    await clickText('dialog[open] fieldset.index button', 'Add sort attribute');
    const attrs = await page.$$('dialog[open] fieldset.index .key-attr');
    assert.equal(attrs.length, 3);
    await (await attrs[0].$('input')).type('status');
    await (await attrs[1].$('input')).type('region');
    await (await attrs[2].$('input')).type('total');
    await (await attrs[2].$('select')).select('N');
    const selects = await page.$$('dialog[open] .create-table > .row select');
    await selects[0].select('NEW_AND_OLD_IMAGES');
    await fillByLabel('Time to live attribute', 'expiresAt');
    await page.$eval('dialog[open] details', (d) => { d.open = true; });
    const preview = JSON.parse(await text('dialog[open] details pre'));
    assert.deepEqual(preview.GlobalSecondaryIndexes[0].KeySchema, [
      { AttributeName: 'status', KeyType: 'HASH' }, { AttributeName: 'region', KeyType: 'HASH' },
      { AttributeName: 'total', KeyType: 'RANGE' }]);
    await shot('02-create-table');
    await clickText('dialog[open] button', 'Create table');
    await page.waitForSelector(`tr[data-table="${TABLE}"]`);
    const row = await text(`tr[data-table="${TABLE}"]`);
    assert.match(row, /ACTIVE/);
    assert.match(row, /byStatus.*status\u00a0\(partition\u00a0S\), region\u00a0\(partition\u00a0S\), total\u00a0\(sort\u00a0N\)/s);
    assert.match(row, /On · NEW_AND_OLD_IMAGES/);
    assert.match(row, /ENABLED · expiresAt/);
    assert.match(row, /On-demand/);
    await shot('03-tables');

    // The same name again: the API's refusal, as it gives it, in the dialog.
    expectedErrors.push('ResourceInUseException');
    await clickText('.view-head button', 'Create table');
    await page.waitForSelector('dialog[open]');
    await page.type('dialog[open] input', TABLE);
    await (await page.$('dialog[open] .key-attr input')).type('pk');
    await clickText('dialog[open] button', 'Create table');
    await waitForText('dialog[open] .error', /ResourceInUseException/);
    assert.match(await text('dialog[open] .error'), new RegExp(`ResourceInUseException: .*${TABLE}`));
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => !document.querySelector('dialog[open]'));
  });

  test('puts items through the editor, in DynamoDB JSON and plain JSON', async () => {
    await click(`tr[data-table="${TABLE}"] th a`);
    await page.waitForSelector('.view-items .grid');
    await waitForText('.result-info', /0 items loaded/);
    const put = async (mode, body) => {
      await clickText('.view-head button', 'New item');
      await page.waitForSelector('dialog[open] textarea');
      await click(`dialog[open] input[value="${mode}"]`);
      await setTextarea('dialog[open] textarea', body);
      await clickText('dialog[open] button', 'Save (PutItem)');
    };
    const closed = () => page.waitForFunction(() => !document.querySelector('dialog[open]'), { timeout: 5000 });

    // Refused by the API: its type and message, shown as given.
    expectedErrors.push('ValidationException');
    await put('dynamodb', '{"pk": {"S": "c#1"}, "status": {"S": "open"}}');
    await waitForText('dialog[open] .error', /ValidationException/);
    assert.match(await text('dialog[open] .error'), /ValidationException: One or more parameter values (were|are) invalid: Missing the key sk in the item/);
    await shot('04-editor-error');
    // Refused before sending: bad JSON, with line and column.
    await setTextarea('dialog[open] textarea', '{"pk": {"S": "c#1"},\n "sk": {"N": 1}}');
    await clickText('dialog[open] button', 'Validate');
    await waitForText('dialog[open] .error', /sk: N takes a string, got 1/);
    await page.keyboard.press('Escape');
    await closed();

    await put('dynamodb', JSON.stringify({ pk: { S: 'c#1' }, sk: { N: '1' }, status: { S: 'open' }, region: { S: 'eu' }, total: { N: '25' } }));
    await closed();
    await put('dynamodb', JSON.stringify({ pk: { S: 'c#1' }, sk: { N: '2' }, status: { S: 'open' }, region: { S: 'eu' }, total: { N: '5' } }));
    await closed();
    await put('plain', JSON.stringify({ pk: 'c#2', sk: 1, status: 'open', region: 'us', total: 40 }));
    await closed();
    await put('dynamodb', JSON.stringify({ pk: { S: 'c#2' }, sk: { N: '2' }, status: { S: 'shipped' }, region: { S: 'eu' }, total: { N: '70' }, tags: { SS: ['gift', 'fragile'] } }));
    await closed();
    await put('plain', '{"pk": "c#3", "sk": 1, "status": "open", "region": "eu", "total": 90.5, "note": null, ' +
      '"big": 123456789012345678901234567890, "address": {"city": "Lyon", "zip": 69001}, "lines": ["a", 2, true]}');
    await closed();
    assert.equal(await gridCount(), 5, 'the grid shows the five items put');
    const stored = await ddb('GetItem', { TableName: TABLE, Key: { pk: { S: 'c#3' }, sk: { N: '1' } } });
    assert.deepEqual(stored.Item.big, { N: '123456789012345678901234567890' }, 'plain JSON numbers keep every digit');
    assert.deepEqual(stored.Item.address, { M: { city: { S: 'Lyon' }, zip: { N: '69001' } } });
    assert.deepEqual(stored.Item.lines, { L: [{ S: 'a' }, { N: '2' }, { BOOL: true }] });
    assert.deepEqual(stored.Item.note, { NULL: true });
    // The explain panel shows the last write.
    assert.match(await text('.explain'), /PutItem on table ConsoleOrders/);
    assert.match(await text('.explain [data-fact="consumed"]'), /WCU/);
  });

  test('shows every attribute as a column with its DynamoDB type', async () => {
    await runQueryBuilder();  // a Scan of everything
    const headers = await page.$$eval('.grid-header .col-name', (els) => els.map((e) => e.textContent));
    assert.deepEqual(headers.slice(0, 2), ['pk', 'sk'], 'key attributes first');
    for (const a of ['status', 'region', 'total', 'tags', 'note', 'address', 'lines', 'big']) assert.ok(headers.includes(a), `column ${a}`);
    const types = await page.$$eval('.grid-row .t', (els) => [...new Set(els.map((e) => e.textContent))].sort());
    assert.deepEqual(types, ['L', 'M', 'N', 'NULL', 'S', 'SS']);
    await shot('05-scan');
  });

  test('queries the GSI by its two partition attributes with Explain and cost', async () => {
    await click('.query-builder input[value="Query"]');
    await page.select('.query-builder select', 'byStatus');
    await page.type('.key-conditions input[data-key="status"]', 'open');
    await page.type('.key-conditions input[data-key="region"]', 'eu');
    await page.select('.sort-cond select', '>=');
    await page.type('.key-conditions input[data-key="total"]', '10');
    await runQueryBuilder();
    await waitForText('.explain [data-fact="operation"]', /Query on index byStatus/);
    const pks = await page.$$eval('.grid-row', (rows) => rows.map((r) => r.querySelector('.cell .v')?.textContent));
    assert.deepEqual(pks, ['c#1', 'c#3'], 'open orders in eu with total >= 10, by total');
    assert.equal(await text('.explain [data-fact="scanned"]'), '2');
    assert.match(await text('.explain [data-fact="returned"]'), /^2 \(100% of scanned\)/);
    assert.match(await text('.explain [data-fact="page-end"]'), /^end/);
    const consumed = await text('.explain [data-fact="consumed"]');
    assert.match(consumed, /ConsoleOrders: [\d.]+ RCU/);
    assert.match(consumed, /index byStatus: [\d.]+ RCU/);
    assert.match(await text('.explain [data-fact="latency"]'), /server [\d.]+ ms/);
    assert.doesNotMatch(await text('.explain'), /no explain facts/, 'the facts came from the server');
    await page.$eval('.explain', (e) => e.scrollIntoView());
    await shot('06-query-explain');
  });

  test('shows the equivalent AWS CLI, boto3 and PartiQL, and they find the same items', async () => {
    await page.$eval('details.equivalent', (d) => { d.open = true; d.scrollIntoView(); });
    const tab = async (name) => {
      await clickText('details.equivalent [role=tab]', name);
      return text('details.equivalent pre');
    };
    const cli = await tab('AWS CLI');
    assert.match(cli, /aws dynamodb query/);
    assert.match(cli, /--index-name byStatus/);
    assert.match(cli, /--key-condition-expression '#status = :status AND #region = :region AND #total >= :total'/);
    assert.match(cli, /--no-sign-request/);
    assert.match(cli, new RegExp(`--endpoint-url ${endpoint.replace(/[.]/g, '\\.')}`));
    const boto3 = await tab('boto3');
    assert.match(boto3, /client\.query\(/);
    assert.match(boto3, /IndexName="byStatus"/);
    const partiql = await tab('PartiQL');
    assert.match(partiql, /SELECT \* FROM "ConsoleOrders"\."byStatus"/);
    assert.match(partiql, /WHERE "status" = 'open' AND "region" = 'eu' AND "total" >= 10/);
    await shot('07-equivalents');

    // Run them: each must find the two items the console found.
    const env = { PATH: process.env.PATH, HOME: os.tmpdir(), AWS_CONFIG_FILE: '/dev/null', AWS_SHARED_CREDENTIALS_FILE: '/dev/null' };
    if (spawnSync('aws', ['--version'], { env }).status === 0) {
      const r = spawnSync('bash', ['-c', cli], { env, encoding: 'utf8', timeout: 20_000 });
      assert.equal(r.status, 0, `the CLI command ran: ${r.stderr}`);
      assert.deepEqual(JSON.parse(r.stdout).Items.map((i) => i.pk.S), ['c#1', 'c#3']);
    } else {
      console.log('# skip: the AWS CLI is not installed; its command was not run');
    }
    if (spawnSync('python3', ['-c', 'import boto3'], { env }).status === 0) {
      const r = spawnSync('python3', ['-c', boto3], { env, encoding: 'utf8', timeout: 20_000 });
      assert.equal(r.status, 0, `the boto3 call ran: ${r.stderr}`);
      const lines = r.stdout.trim().split('\n');
      assert.equal(lines.length, 3, r.stdout);
      assert.match(lines[0], /'pk': \{'S': 'c#1'\}/);
      assert.match(lines[1], /'pk': \{'S': 'c#3'\}/);
    } else {
      console.log('# skip: boto3 is not installed; its call was not run');
    }
    const runPartiql = async (shown) => {
      const statement = shown.split('\n').filter((l) => !l.startsWith('--')).join('\n');
      return (await ddb('ExecuteStatement', { Statement: statement })).Items.map((i) => i.pk.S).sort();
    };
    assert.deepEqual(await runPartiql(partiql), ['c#1', 'c#3']);
    // The table's own key, descending, with a filter: PartiQL with ORDER BY.
    await page.select('.query-builder select', '');
    await page.$eval('.key-conditions input[data-key="pk"]', (e) => { e.value = ''; });
    await page.type('.key-conditions input[data-key="pk"]', 'c#2');
    await click('.query-builder input[type=checkbox]');  // Descending
    const [filter, names, values] = await page.$$('.query-builder .row input.mono');
    await filter.type('attribute_exists(tags) OR #r IN (:a, :b)');
    await names.type('{"#r": "region"}');
    await values.type('{":a": "us", ":b": {"S": "ap"}}');
    await runQueryBuilder();
    const shownPks = await page.$$eval('.grid-row', (rows) => rows.map((r) => r.querySelector('.cell:nth-child(4) .v')?.textContent));
    assert.deepEqual(shownPks, ['2', '1'], 'c#2, sort key descending');
    const statement = await tab('PartiQL');
    assert.match(statement, /WHERE "pk" = 'c#2'\n  AND \("tags" IS NOT MISSING OR "region" IN \['us', 'ap'\]\)\nORDER BY "sk" DESC/);
    assert.deepEqual(await runPartiql(statement), ['c#2', 'c#2']);
    if (spawnSync('aws', ['--version'], { env }).status === 0) {
      const r = spawnSync('bash', ['-c', await tab('AWS CLI')], { env, encoding: 'utf8', timeout: 20_000 });
      assert.equal(r.status, 0, `the CLI command ran: ${r.stderr}`);
      assert.deepEqual(JSON.parse(r.stdout).Items.map((i) => i.sk.N), ['2', '1']);
    }
    // Clear the form for what follows.
    await click('.query-builder input[type=checkbox]');
    await page.$$eval('.query-builder .row input.mono', (els) => els.slice(0, 3).forEach((e) => { e.value = ''; }));
  });

  test('warns about a Scan and a filter that discards most of what it read', async () => {
    await click('.query-builder input[value="Scan"]');
    await page.select('.query-builder select', '');
    const [filter, , values] = await page.$$('.query-builder .row input.mono');
    await filter.type('#total > :min');
    const names = (await page.$$('.query-builder .row input.mono'))[1];
    await names.type('{"#total": "total"}');
    await values.type('{":min": 80}');
    await runQueryBuilder();
    await waitForText('.explain [data-fact="operation"]', /Scan of table ConsoleOrders/);
    const explain = await text('.explain');
    assert.match(explain, /Scan: reads the table/);
    assert.match(explain, /Wasteful filter: it discarded 4 of the 5 items read \(kept 20%\)/);
    assert.equal(await gridCount(), 1);
    await page.$eval('.explain', (e) => e.scrollIntoView());
    await shot('08-scan-warnings');
  });

  test('edits an item by keyboard (grid, Enter, plain JSON, Ctrl+Enter)', async () => {
    // Back to a Scan without the filter.
    await page.$$eval('.query-builder .row input.mono', (els) => els.slice(0, 3).forEach((e) => { e.value = ''; }));
    await runQueryBuilder();
    assert.equal(await gridCount(), 5);
    await page.focus('.grid');
    await page.keyboard.press('Home');
    const first = await page.$eval('.grid-row.active .cell .v', (e) => e.textContent);
    await page.keyboard.press('Enter');
    await page.waitForSelector('dialog[open] textarea');
    assert.equal(await page.evaluate(() => document.activeElement.tagName), 'TEXTAREA', 'the editor has the focus');
    await click('dialog[open] input[value="plain"]');
    const plain = await page.$eval('dialog[open] textarea', (t) => t.value);
    const item = JSON.parse(plain);
    assert.equal(item.pk, first);
    await setTextarea('dialog[open] textarea', plain.replace(/"status": "[a-z]+"/, '"status": "edited"'));
    await shot('09-edit');
    await page.focus('dialog[open] textarea');
    await page.keyboard.down('Control');
    await page.keyboard.press('Enter');
    await page.keyboard.up('Control');
    await page.waitForFunction(() => !document.querySelector('dialog[open]'));
    await waitForText('.grid-row.active', /edited/);
    const got = await ddb('GetItem', { TableName: TABLE, Key: { pk: { S: item.pk }, sk: { N: String(item.sk) } } });
    assert.equal(got.Item.status.S, 'edited');
    assert.match(await text('.explain'), /PutItem on table ConsoleOrders/);
    assert.match(await text('.explain [data-fact="consumed"]'), /ConsoleOrders: [\d.]+ WCU/);
  });

  test('deletes one item (Delete key) and two more (bulk)', async () => {
    await page.focus('.grid');
    await page.keyboard.press('End');
    await page.keyboard.press('Delete');
    await page.waitForSelector('dialog[open]');
    assert.match(await text('dialog[open]'), /Delete this item\?/);
    // Cancel has the focus (the safe default); Tab to Delete, Enter.
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement.textContent), 'Delete');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => !document.querySelector('dialog[open]'));
    await waitForText('.result-info', /^4 items loaded/);
    assert.equal((await ddb('Scan', { TableName: TABLE, Select: 'COUNT' })).Count, 4);

    const checks = await page.$$('.grid-row .cell.sel input');
    await clickHandle(checks[0]);
    await clickHandle(checks[1]);
    await waitForText('.results button.danger', /Delete selected \(2\)/);
    await clickText('.results button', 'Delete selected (2)');
    await page.waitForSelector('dialog[open]');
    await shot('10-bulk-delete');
    await clickText('dialog[open] button', 'Delete 2 items');
    await page.waitForFunction(() => !document.querySelector('dialog[open]'));
    await waitForText('.result-info', /^2 items loaded/);
    assert.equal((await ddb('Scan', { TableName: TABLE, Select: 'COUNT' })).Count, 2);
    assert.match(await text('.explain'), /BatchWriteItem on table ConsoleOrders/);
  });

  test('exports the result as JSON lines and CSV', async () => {
    await clickText('.results button', 'Export JSON lines');
    await clickText('.results button', 'Export CSV');
    const deadline = Date.now() + 5000;
    let files = [];
    while (Date.now() < deadline) {
      files = readdirSync(DOWNLOADS).filter((f) => !f.endsWith('.crdownload'));
      if (files.some((f) => f.endsWith('.jsonl')) && files.some((f) => f.endsWith('.csv'))) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const jsonl = files.find((f) => f.endsWith('.jsonl'));
    const csv = files.find((f) => f.endsWith('.csv'));
    assert.ok(jsonl && csv, `both files downloaded (${files.join(', ')})`);
    const lines = readFileSync(path.join(DOWNLOADS, jsonl), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(lines.length, 2);
    for (const it of lines) assert.ok(it.pk?.S && it.sk?.N, 'each line is a DynamoDB JSON item');
    const rows = readFileSync(path.join(DOWNLOADS, csv), 'utf8').trim().split('\r\n');
    assert.equal(rows.length, 3);
    assert.match(rows[0], /^pk \(S\),sk \(N\),/);
    await shot('11-exported');
  });

  test('scrolls 3,000 items with only the rows in view in the DOM', async () => {
    await ddb('CreateTable', { TableName: BULK, BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }], AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }] });
    for (let b = 0; b < BULK_ITEMS; b += 25) {
      const RequestItems = { [BULK]: Array.from({ length: 25 }, (_, i) => ({ PutRequest: { Item: {
        id: { S: `item-${String(b + i).padStart(5, '0')}` }, n: { N: String(b + i) }, flag: { BOOL: (b + i) % 2 === 0 } } } })) };
      await ddb('BatchWriteItem', { RequestItems });
    }
    await page.goto(`${endpoint}/_dynarock/console/#/table/${BULK}/items`);
    await page.waitForSelector('.grid-row');
    await page.$eval('.query-builder input[type=number]', (e) => { e.value = ''; });
    await page.type('.query-builder input[type=number]', '1000');
    await runQueryBuilder();
    for (let i = 0; i < 2; i++) {
      const n = await gridCount();
      await clickText('.result-foot button', 'Load more');
      await page.waitForFunction((m) => Number(document.querySelector('.grid').getAttribute('aria-rowcount')) - 1 > m, {}, n);
    }
    assert.equal(await gridCount(), BULK_ITEMS);
    assert.match(await text('.explain'), /page 3/i);
    const inDom = await page.$$eval('.grid-row', (r) => r.length);
    assert.ok(inDom < 60, `${inDom} rows in the DOM for ${BULK_ITEMS} items`);
    // Scroll as a fast wheel does (200 px a frame) for 60 frames from the
    // middle, timing the frames; then jump to the end.
    const frames = await page.evaluate(async () => {
      const s = document.querySelector('.grid-scroll');
      const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
      s.scrollTop = s.scrollHeight / 2;
      await frame();
      const times = [];
      let last = performance.now();
      for (let i = 0; i < 60; i++) {
        s.scrollTop += 200;
        await frame();
        const now = performance.now();
        times.push(now - last);
        last = now;
      }
      s.scrollTop = s.scrollHeight;
      await frame();
      times.sort((a, b) => a - b);
      return { n: times.length, median: times[times.length >> 1], p95: times[Math.floor(times.length * 0.95)] };
    });
    console.log(`# grid scroll over ${BULK_ITEMS} items, 200 px a frame: median ${frames.median.toFixed(1)} ms, ` +
      `p95 ${frames.p95.toFixed(1)} ms a frame`);
    await page.waitForSelector(`.grid-row[aria-rowindex="${BULK_ITEMS + 1}"]`);
    assert.ok(await page.$$eval('.grid-row', (r) => r.length) < 60);
    await shot('12-virtual-grid');
  });

  test('is usable by keyboard: skip link, one tab stop per widget, visible focus', async () => {
    await page.goto('about:blank');
    await page.goto(`${endpoint}/_dynarock/console/#/table/${TABLE}/items`);
    await page.waitForSelector('.grid-row');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement.className), 'skip-link');
    const stops = [];
    for (let i = 0; i < 45; i++) {
      await page.keyboard.press('Tab');
      stops.push(await page.evaluate(() => {
        const a = document.activeElement;
        const cs = getComputedStyle(a);
        return { tag: a.tagName, role: a.getAttribute('role'), text: (a.getAttribute('aria-label') || a.textContent || a.value || '').trim().slice(0, 30),
          outline: cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) > 0, inGrid: Boolean(a.closest('.grid')) && !a.classList.contains('grid') };
      }));
    }
    const labels = stops.map((s) => s.text);
    for (const l of ['Tables', 'Items / Query', 'Graph', 'Streams', 'Metrics', 'Run', 'New item']) assert.ok(labels.includes(l), `Tab reaches ${l}`);
    assert.equal(stops.filter((s) => s.role === 'grid').length, 1, 'the grid is one tab stop');
    assert.equal(stops.filter((s) => s.inGrid && s.tag !== 'INPUT').length, 0, 'no row control is a tab stop of its own');
    // (Past the last control, focus leaves the page for the browser: BODY.)
    const noOutline = stops.filter((s) => !s.outline && s.tag !== 'BODY');
    assert.deepEqual(noOutline, [], 'every focused control shows its focus');
    // Back to the grid, and show it focused.
    await page.focus('.grid');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowUp');
    assert.ok(await page.$eval('.grid', (g) => g.getAttribute('aria-activedescendant')));
    await shot('13-keyboard');
  });

  test('lays out at phone width (390 x 844) without sideways scrolling', async () => {
    await page.setViewport({ width: 390, height: 844, isMobile: true, hasTouch: true });
    await page.goto(`${endpoint}/_dynarock/console/#/tables`);
    await page.waitForSelector(`tr[data-table="${TABLE}"]`);
    const tables = await page.evaluate(() => ({ width: document.documentElement.scrollWidth,
      thead: getComputedStyle(document.querySelector('table.data thead')).display }));
    assert.ok(tables.width <= 390, `the tables page is ${tables.width} px wide`);
    assert.equal(tables.thead, 'none', 'tables become cards');
    await shot('14-phone-tables');
    await page.goto(`${endpoint}/_dynarock/console/#/table/${TABLE}/items`);
    await page.waitForSelector('.grid-row');
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= 390, 'the items page fits');
    await shot('15-phone-items');
    await page.$eval('.results', (e) => e.scrollIntoView());
    await shot('16-phone-results');
    await page.setViewport({ width: 1280, height: 800 });
  });

  test('sends nothing while the user does nothing', async () => {
    await page.goto(`${endpoint}/_dynarock/console/#/table/${TABLE}/items`);
    await page.waitForSelector('.grid-row');
    const before = requests.length;
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(requests.length, before, `requests while idle: ${requests.slice(before).join(', ')}`);
  });

  test('draws the graph view over the graph demo tables', async (t) => {
    const probe = await fetch(`${endpoint}/_dynarock/console/js/graph_view.js`);
    if (probe.status !== 200) {
      t.skip(`the graph view is not in this build (GET js/graph_view.js: ${probe.status})`);
      return;
    }
    const demo = spawnSync(BIN, ['graph', 'demo', '--endpoint', endpoint], {
      encoding: 'utf8', timeout: 20_000, env: { PATH: process.env.PATH, HOME: os.tmpdir() } });
    assert.equal(demo.status, 0, `graph demo: ${demo.stderr}`);
    // The demo signs as "dynarock": its tables are in that namespace.
    const { TableNames } = await ddb('ListTables', {}, 'dynarock');
    assert.ok(TableNames.includes('demo_middle_earth'), TableNames.join(', '));
    await page.goto('about:blank');  // a fresh page: it lists the namespaces as it starts
    await page.goto(`${endpoint}/_dynarock/console/#/tables`);
    await page.waitForSelector('#namespace option[value^="dynarock"]');
    await page.select('#namespace', 'dynarock\u0000us-east-1');
    await page.waitForSelector('tr[data-table="demo_middle_earth"]');
    await page.evaluate(() => { location.hash = `#/graph/demo_middle_earth?node=${encodeURIComponent('USER#Frodo')}`; });
    await page.waitForSelector('[data-node]', { timeout: 10_000 });
    const nodes = await page.$$eval('[data-node]', (els) => [...new Set(els.map((e) => e.dataset.node))]);
    assert.ok(nodes.includes('USER#Frodo') && nodes.length >= 3, `nodes drawn: ${nodes.join(', ')}`);
    await waitForText('main', /\d+ nodes?, \d+ edges?/);
    await new Promise((r) => setTimeout(r, 300));  // the layout's animation
    await shot('17-graph');
  });

  test('signs every request with SigV4 when the server requires it', async () => {
    const authEndpoint = await startServer(['--require-auth', 'CONSOLEKEY:console/secret+1']);
    const statuses = [];
    const onResponse = (r) => { if (r.url().startsWith(authEndpoint)) statuses.push(`${r.status()} ${new URL(r.url()).pathname}`); };
    page.on('response', onResponse);
    await page.goto(`${authEndpoint}/_dynarock/console/#/tables`);
    await page.waitForSelector('form.signin');
    assert.match(await text('main'), /This server verifies AWS Signature V4/);
    await page.type('input[name=access-key]', 'CONSOLEKEY');
    await page.type('input[name=secret-key]', 'not the secret');
    expectedErrors.push('InvalidSignatureException');
    await page.keyboard.press('Enter');
    await waitForText('form.signin .error', /InvalidSignatureException: The request signature we calculated does not match/);
    await shot('18-signin-refused');
    await page.$eval('input[name=secret-key]', (e) => { e.value = ''; });
    await page.type('input[name=secret-key]', 'console/secret+1');
    await page.keyboard.press('Enter');
    await page.waitForSelector('.tables-list[aria-busy="false"]');
    assert.match(await text('#session'), /Sign out CONSOLEKEY/);
    // A signed CreateTable through the dialog, and the list (signed control API).
    await clickText('.view-head button', 'Create table');
    await page.waitForSelector('dialog[open]');
    await page.type('dialog[open] input', 'SignedTable');
    await (await page.$('dialog[open] .key-attr input')).type('id');
    await clickText('dialog[open] button', 'Create table');
    await page.waitForSelector('tr[data-table="SignedTable"]');
    assert.ok(statuses.includes('200 /_dynarock/namespaces'), `the signed namespaces request was accepted: ${statuses.join(', ')}`);
    assert.equal(await page.$eval('#namespace', (e) => e.selectedOptions[0].textContent), 'CONSOLEKEY · us-east-1');
    await shot('19-signed-in');
    page.off('response', onResponse);
  });

  test('logged no error in the page and asked nothing of any other host', () => {
    const foreign = requests.filter((u) => !/^http:\/\/127\.0\.0\.1:\d+\//.test(u) && !u.startsWith('blob:') &&
      !u.startsWith('data:') && u !== 'about:blank');
    assert.deepEqual(foreign, []);
    assert.deepEqual(consoleErrors, []);
    console.log(`# screenshots in ${OUT}`);
  });
});
