// The web console's graph view, stream viewer and metrics charts in headless
// Chromium (Debian's, driven by puppeteer-core) against `dynarock serve`:
// the seed graphs loaded by `dynarock graph demo`; a node's neighbourhood
// drawn (Cytoscape.js, the instance the view exposes as window.dynarockGraph),
// an edge type filtered out, attributes on hover, a click re-centring, the
// edge set told apart from an opted-out type, k hops, the keyboard path, an
// API error shown with its type; a stream enabled from the viewer, records of
// a put, an update and a delete with their old and new images, pause and
// resume; the metrics charts showing non-zero request and error rates; and no
// request while the page is hidden or after a view is left. Screenshots of
// each screen go to $DYNAROCK_TEST_OUT, else build/test-output/console/.
//
//   DYNAROCK_BIN=build/dynarock node --test tests/e2e/js/test_console_live.mjs
//
// The console's files are the binary's compiled-in ones (DYNAROCK_CONSOLE_DIR:
// a folder's, through serve --console-dir).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { CreateTableCommand, DeleteItemCommand, GetItemCommand, PutItemCommand, UpdateItemCommand,
  waitUntilTableExists } from '@aws-sdk/client-dynamodb';
import { BIN, consoleUrl, launchBrowser, outputDir, sdkClient, startDynarock, stopAll } from './browser_harness.mjs';

const OUT = outputDir('console');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let endpoint;
let client;
let ui;
let chromium;
let page;
const requests = [];  // [{ at, path, target }] the page sent to the endpoint
const pageErrors = [];

before(async () => {
  endpoint = await startDynarock();
  await promisify(execFile)(BIN, ['graph', 'demo', '--endpoint', endpoint], { timeout: 20_000 });
  client = await sdkClient(endpoint);
  ui = consoleUrl(endpoint);
  chromium = await launchBrowser();
  page = await chromium.browser.newPage();
  await page.setViewport({ width: 1280, height: 800 });
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') pageErrors.push(m.text()); });
  const origin = new URL(endpoint).origin;
  page.on('request', (req) => {
    const url = new URL(req.url());
    if (url.origin !== origin || req.method() === 'OPTIONS') return;
    requests.push({ at: Date.now(), path: url.pathname, target: req.headers()['x-amz-target'] ?? '' });
  });
});

after(async () => {
  await chromium?.close();
  client?.destroy();
  stopAll();
});

// A full-page screenshot, scrolled to the top first (else the sticky header
// is drawn where the page was scrolled to).
async function shot(name) {
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: path.join(OUT, `${name}.png`), fullPage: true });
}

// The same at a phone's width (390 px), then back to 1280 × 800.
async function phoneShot(name) {
  await page.setViewport({ width: 390, height: 844 });
  await sleep(200);
  await shot(name);
  await page.setViewport({ width: 1280, height: 800 });
}

// What the drawing holds: node ids and edges (from the Cytoscape instance).
function drawing() {
  return page.evaluate(() => {
    const cy = window.dynarockGraph;
    if (!cy) return null;
    return {
      nodes: cy.nodes().map((n) => n.id()).sort(),
      edges: cy.edges().map((e) => ({ source: e.data('source'), target: e.data('target'), type: e.data('type'),
        inSet: e.data('inSet') })),
      centre: cy.nodes('[?centre]').map((n) => n.id())[0] ?? null,
    };
  });
}

async function waitForDrawing(pred, what) {
  const deadline = Date.now() + 8000;
  let last = null;
  while (Date.now() < deadline) {
    last = await drawing();
    if (last && pred(last)) return last;
    await sleep(100);
  }
  assert.fail(`the drawing never showed ${what}: ${JSON.stringify(last)}`);
}

// The page position of a node drawn on the canvas (scrolled into view).
function nodePoint(id) {
  return page.evaluate((nodeId) => {
    const cy = window.dynarockGraph;
    cy.container().scrollIntoView({ block: 'center' });
    const p = cy.getElementById(nodeId).renderedPosition();
    const r = cy.container().getBoundingClientRect();
    return { x: r.left + p.x, y: r.top + p.y };
  }, id);
}

const text = (sel) => page.$eval(sel, (e) => e.textContent.replace(/\s+/g, ' ').trim());

describe('the console in a browser: graph, streams, metrics', { timeout: 60_000 }, () => {
  test('the graph view draws a node\'s neighbourhood, filters types, shows attributes, re-centres', async () => {
    await page.goto(`${ui}#/graph/demo_middle_earth`, { waitUntil: 'load' });
    await page.waitForSelector('.dv-graph button.dv-chip');
    assert.match(await text('.dv-schema summary'), /^Graph table: keys PK \/ SK, separator #, inverted index inverted, edge set edges/);
    const chips = await page.$$eval('.dv-graph button.dv-chip', (els) => els.map((e) => e.textContent));
    assert.deepEqual(chips.sort(), ['PLACE#Gondor', 'PLACE#TheShire', 'USER#Frodo', 'USER#Gandalf', 'USER#Samwise']);

    await page.$$eval('.dv-graph button.dv-chip', (els) => els.find((e) => e.textContent === 'USER#Frodo').click());
    let g = await waitForDrawing((d) => d.centre === 'USER#Frodo' && d.edges.length > 0, 'Frodo');
    assert.deepEqual(g.nodes, ['PLACE#Gondor', 'PLACE#TheShire', 'USER#Frodo', 'USER#Gandalf', 'USER#Samwise']);
    const frodoOut = g.edges.filter((e) => e.source === 'USER#Frodo').map((e) => `${e.type}>${e.target}`).sort();
    assert.deepEqual(frodoOut, ['FRIEND>USER#Gandalf', 'FRIEND>USER#Samwise', 'VISITED>PLACE#Gondor', 'VISITED>PLACE#TheShire']);
    assert.ok(g.edges.every((e) => e.inSet), 'every Middle-earth edge is in its edge set');
    assert.match(await text('.dv-graph .dv-status'), /^USER#Frodo: 5 nodes, \d+ edges within 1 hop \(both ways\)/);
    const types = await page.$$eval('.dv-types input[type=checkbox]', (els) => els.map((e) => `${e.value}:${e.checked}`));
    assert.deepEqual(types, ['FRIEND:true', 'VISITED:true']);
    assert.match(await text('.dv-graph-panel'), /Node USER#Frodo.*firstName\s*S\s*Frodo/);

    // Attributes on hover.
    const gandalf = await nodePoint('USER#Gandalf');
    await page.mouse.move(gandalf.x - 4, gandalf.y - 4);
    await page.mouse.move(gandalf.x, gandalf.y, { steps: 3 });
    await page.waitForSelector('.dv-tooltip:not([hidden])');
    const tip = await text('.dv-tooltip');
    assert.match(tip, /USER#Gandalf/);
    assert.match(tip, /username\s*theWhite/);
    await shot('graph-hover');

    // An edge type filtered out: the neighbourhood is read again without it.
    await page.click('.dv-types input[value="FRIEND"]');
    g = await waitForDrawing((d) => d.edges.length > 0 && d.edges.every((e) => e.type === 'VISITED'), 'VISITED edges only');
    assert.ok(g.edges.some((e) => e.source === 'USER#Frodo' && e.target === 'PLACE#Gondor'));
    assert.match(await text('.dv-graph .dv-status'), /types VISITED/);
    await shot('graph-filtered');
    await page.click('.dv-types input[value="FRIEND"]');
    await waitForDrawing((d) => d.edges.some((e) => e.type === 'FRIEND'), 'FRIEND edges again');

    // A click on a node re-centres on it.
    await page.mouse.move(5, 5);
    const gondor = await nodePoint('PLACE#Gondor');
    await page.mouse.move(gondor.x - 4, gondor.y - 4);
    await page.mouse.click(gondor.x, gondor.y);
    g = await waitForDrawing((d) => d.centre === 'PLACE#Gondor', 'Gondor at the centre');
    assert.deepEqual(g.nodes, ['PLACE#Gondor', 'USER#Frodo', 'USER#Gandalf', 'USER#Samwise']);
    assert.match(await text('.dv-graph-panel'), /Node PLACE#Gondor/);
    assert.equal(await page.$eval('.dv-graph-controls button.secondary', (b) => b.disabled), false, 'Back is enabled');
  });

  test('edge sets are told apart, k hops reach further, the keyboard re-centres, errors show their type', async () => {
    await page.goto(`${ui}#/graph/demo_records`, { waitUntil: 'load' });
    await page.waitForSelector('.dv-graph button.dv-chip');
    assert.match(await text('.dv-schema summary'), /keys source \/ target, separator -, inverted index gsi0-index, edge set edgeSet/);
    await page.type('.dv-graph-controls input[name=node]', 'GOAL-G1');
    await page.keyboard.press('Enter');
    let g = await waitForDrawing((d) => d.centre === 'GOAL-G1', 'GOAL-G1');
    const kinds = Object.fromEntries(g.edges.map((e) => [`${e.type}>${e.target}`, e.inSet]));
    assert.equal(kinds['GOALMEMBERSHIP>USER-U1'], true, 'a membership is in the goal\'s edge set');
    assert.equal(kinds['GOALSUBSCRIBER>USER-U3'], false, 'subscribers are opted out of the edge set');
    const dashed = await page.evaluate(() => window.dynarockGraph.edges('[!inSet]').map((e) => e.style('line-style')));
    assert.ok(dashed.length > 0 && dashed.every((s) => s === 'dashed'), 'edges outside the set are dashed');
    await shot('graph-edge-sets');

    await page.select('.dv-graph-controls select[name=hops]', '2');
    g = await waitForDrawing((d) => d.nodes.includes('GOAL-G2'), 'two hops');
    assert.ok(g.nodes.includes('GOAL-G2') && g.nodes.includes('GOAL-G3'), 'goals sharing a member are two hops away');

    // The lists are the keyboard's way in: Enter on a node re-centres.
    await page.click('.dv-graph-lists summary');
    await page.focus('.dv-graph-lists button[data-node="USER-U2"]');
    await page.keyboard.press('Enter');
    g = await waitForDrawing((d) => d.centre === 'USER-U2', 'USER-U2 at the centre');
    assert.ok(g.nodes.includes('GOAL-G1'));
    await phoneShot('graph-phone');

    // Dark: the drawing takes the console's colours when it is created.
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'dark' }]);
    await page.goto(`${ui}#/graph/demo_middle_earth?node=${encodeURIComponent('USER#Frodo')}&hops=2`, { waitUntil: 'load' });
    await waitForDrawing((d) => d.centre === 'USER#Frodo' && d.edges.length > 4, 'Frodo, two hops, in the dark');
    await shot('graph-dark');
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }]);

    await page.goto(`${ui}#/graph/no_such_table`, { waitUntil: 'load' });
    await page.waitForSelector('.dv-graph .error:not([hidden])');
    assert.match(await text('.dv-graph .error'), /ResourceNotFoundException: .*not found/i);
  });

  test('the stream viewer enables a stream and shows records with old and new images', async () => {
    const table = 'console_stream';
    await client.send(new CreateTableCommand({ TableName: table, BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }] }));
    await waitUntilTableExists({ client, maxWaitTime: 10, minDelay: 1 }, { TableName: table });
    await page.goto(`${ui}#/streams/${table}`, { waitUntil: 'load' });
    await page.waitForSelector('.dv-streams form button.primary');
    assert.match(await text('.dv-streams .view-head'), /no stream enabled/);
    await page.click('.dv-streams form button.primary');
    await page.waitForSelector('.dv-streams .badge[data-state="live"]', { timeout: 8000 });

    await client.send(new PutItemCommand({ TableName: table,
      Item: { pk: { S: 'ring' }, n: { N: '1' }, owner: { S: 'Frodo' }, gone: { BOOL: true } } }));
    await client.send(new UpdateItemCommand({ TableName: table, Key: { pk: { S: 'ring' } },
      UpdateExpression: 'SET n = :n, #o = :o, colour = :c REMOVE gone',
      ExpressionAttributeNames: { '#o': 'owner' },
      ExpressionAttributeValues: { ':n': { N: '2' }, ':o': { S: 'Sam' }, ':c': { S: 'gold' } } }));
    await client.send(new DeleteItemCommand({ TableName: table, Key: { pk: { S: 'ring' } } }));
    await page.waitForFunction(() => document.querySelectorAll('.dv-record').length === 3, { timeout: 8000 });
    const records = await page.$$eval('.dv-record', (els) => els.map((li) => ({
      event: li.dataset.event,
      keys: li.querySelector('.dv-record-keys').textContent,
      seq: li.dataset.seq,
      rows: Object.fromEntries([...li.querySelectorAll('tbody tr')].map((tr) => [tr.querySelector('th').firstChild.textContent,
        [tr.className.replace('dv-row-', ''), tr.querySelector('.dv-old').textContent, tr.querySelector('.dv-new').textContent]])),
    })));
    assert.deepEqual(records.map((r) => r.event), ['REMOVE', 'MODIFY', 'INSERT'], 'newest first');
    assert.ok(records.every((r) => r.keys === 'pk = ring'));
    assert.ok(BigInt(records[0].seq) > BigInt(records[2].seq), 'sequence numbers grow');
    const modify = records[1].rows;
    assert.deepEqual(modify.n, ['changed', 'N 1', 'N 2']);
    assert.deepEqual(modify.owner, ['changed', 'S Frodo', 'S Sam']);
    assert.deepEqual(modify.colour, ['added', '—', 'S gold']);
    assert.deepEqual(modify.gone, ['removed', 'BOOL true', '—']);
    assert.deepEqual(modify.pk, ['same', 'S ring', 'S ring']);
    assert.deepEqual(records[2].rows.n, ['same', '—', 'N 1'], 'an INSERT has no old image');
    assert.deepEqual(records[0].rows.owner, ['same', 'S Sam', '—'], 'a REMOVE has no new image');
    await shot('streams');
    await phoneShot('streams-phone');

    // Paused: nothing is read; resumed: what was written meanwhile arrives.
    await page.click('.dv-streams .dv-toolbar button[aria-pressed]');
    await page.waitForSelector('.dv-streams .badge[data-state="paused"]');
    const readsBefore = requests.filter((r) => r.target.endsWith('.GetRecords')).length;
    await client.send(new PutItemCommand({ TableName: table, Item: { pk: { S: 'later' } } }));
    await sleep(2500);
    assert.equal(await page.$$eval('.dv-record', (els) => els.length), 3);
    assert.equal(requests.filter((r) => r.target.endsWith('.GetRecords')).length, readsBefore, 'no GetRecords while paused');
    await page.click('.dv-streams .dv-toolbar button[aria-pressed]');
    await page.waitForFunction(() => document.querySelectorAll('.dv-record').length === 4, { timeout: 5000 });

    // From the oldest record kept (TRIM_HORIZON): the same four, read again.
    await page.$$eval('.dv-streams .dv-toolbar button', (bs) => bs.find((b) => b.textContent === 'Read from the oldest').click());
    await page.waitForFunction(() => document.querySelectorAll('.dv-record').length === 4 &&
      /from the oldest kept/.test(document.querySelector('.dv-streams .dv-toolbar').textContent), { timeout: 5000 });
    assert.deepEqual(await page.$$eval('.dv-record', (els) => els.map((li) => li.dataset.event)),
      ['INSERT', 'REMOVE', 'MODIFY', 'INSERT']);
  });

  test('the metrics charts show request and error rates, and polling stops when hidden or left', async () => {
    const streamReads = () => requests.filter((r) => r.target.endsWith('.GetRecords')).length;
    await page.goto(`${ui}#/metrics`, { waitUntil: 'load' });
    await page.waitForSelector('.dv-metrics .badge[data-state="live"]');
    const streamReadsAfterLeaving = streamReads();
    const until = Date.now() + 7000;  // three or four samples
    let i = 0;
    while (Date.now() < until) {
      await client.send(new PutItemCommand({ TableName: 'console_stream', Item: { pk: { S: `m${i % 20}` }, i: { N: String(i) } } }));
      await client.send(new GetItemCommand({ TableName: 'console_stream', Key: { pk: { S: `m${i % 20}` } } }));
      if (i % 10 === 0) {
        await client.send(new GetItemCommand({ TableName: 'no_such_table', Key: { pk: { S: 'x' } } })).catch(() => {});
      }
      i++;
    }
    const latest = (sel) => page.$eval(sel, (f) => JSON.parse(f.dataset.latest ?? '[]'));
    await page.waitForFunction(() => {
      const figs = document.querySelectorAll('.dv-metrics .dv-chart-row > .dv-chart');
      const v = (f) => JSON.parse(f.dataset.latest ?? '[]');
      return figs.length === 3 && v(figs[0])[0] > 0 && v(figs[1])[0] > 0 && v(figs[2])[0] > 0;
    }, { timeout: 8000 });
    const [rate] = await latest('.dv-metrics .dv-chart-row > .dv-chart:nth-child(1)');
    const [p50, p95, p99] = await latest('.dv-metrics .dv-chart-row > .dv-chart:nth-child(2)');
    assert.ok(rate > 5, `requests/s ${rate}`);
    assert.ok(p50 > 0 && p50 <= p95 && p95 <= p99, `p50 ${p50} p95 ${p95} p99 ${p99}`);
    const ops = await page.$$eval('.dv-ops tbody tr', (rows) => rows.map((r) => r.dataset.operation));
    for (const op of ['PutItem', 'GetItem']) assert.ok(ops.includes(op), `a row for ${op}: ${ops}`);
    const getItemRate = await latest('.dv-ops tr[data-operation="GetItem"] td:nth-child(2) .dv-chart');
    assert.ok(getItemRate[0] > 0, 'GetItem has a rate of its own');
    assert.match(await text('.dv-metrics .dv-toolbar'), /Live.*requests, [1-9]\d* errors since start/);
    await shot('metrics');
    await phoneShot('metrics-phone');

    // Hidden: no request; visible again: sampling resumes at once.
    const metricsReads = () => requests.filter((r) => r.path === '/_dynarock/metrics').length;
    const setVisibility = (state) => page.evaluate((s) => {
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => s });
      document.dispatchEvent(new Event('visibilitychange'));
    }, state);
    await setVisibility('hidden');
    await page.waitForSelector('.dv-metrics .badge[data-state="hidden"]');
    let n = metricsReads();
    await sleep(4500);
    assert.equal(metricsReads(), n, 'no metrics request while the page is hidden');
    await setVisibility('visible');
    await sleep(600);
    assert.ok(metricsReads() > n, 'sampling resumes when the page is visible');

    // Left: the view stops for good.
    await page.evaluate(() => { location.hash = '#/tables'; });
    await sleep(300);
    n = metricsReads();
    await sleep(4500);
    assert.equal(metricsReads(), n, 'no metrics request after leaving the view');
    assert.equal(streamReads(), streamReadsAfterLeaving, 'no GetRecords after leaving the stream viewer');
    assert.deepEqual(pageErrors.filter((e) => !/status of 4\d\d/.test(e)), [], 'no script error on the page');
  });
});
