// The npm package dynarock-test (bindings/js): startDynarock starts
// `dynarock serve` on a free loopback port and stops it; the control helpers
// reset, snapshot/restore, move the clock and set fault rules, checked through
// the AWS SDK; setupDynarock registers Jest/Vitest-style hooks (here given
// explicitly) that start once, reset before each test and stop at the end; a
// missing binary or a failing start is a clear error; a Node process that
// exits without stop() leaves no server behind.
//
//   DYNAROCK_BIN=build/dynarock node tests/e2e/js/test_dynarock_test_package.mjs
//
// Dependencies: `npm ci` in tests/e2e/js (for @aws-sdk/client-dynamodb).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';

import {
  DynarockControlError, DynarockStartError, findBinary, setupDynarock, startDynarock,
} from '../../../bindings/js/index.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PACKAGE = path.join(HERE, '..', '..', '..', 'bindings', 'js', 'index.mjs');
const BIN = process.env.DYNAROCK_BIN ?? path.join(HERE, '..', '..', '..', 'build', 'dynarock');
if (!existsSync(BIN)) {
  console.log(`skipped: no dynarock binary at ${BIN} (set DYNAROCK_BIN)`);
  process.exit(0);
}
if (!existsSync(path.join(HERE, 'node_modules', '@aws-sdk', 'client-dynamodb'))) {
  console.error('missing @aws-sdk/client-dynamodb: run `npm ci` in tests/e2e/js (scripts/install-deps.sh)');
  process.exit(1);
}
const {
  DynamoDBClient, CreateTableCommand, ListTablesCommand, PutItemCommand, ScanCommand,
  DeleteItemCommand, ProvisionedThroughputExceededException,
} = await import('@aws-sdk/client-dynamodb');

function alive(pid) {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try { // a zombie is gone for our purposes
    return spawnSync('ps', ['-o', 'stat=', '-p', String(pid)]).stdout.toString().trim()[0] !== 'Z';
  } catch {
    return true;
  }
}

async function createTable(client, name) {
  await client.send(new CreateTableCommand({
    TableName: name, BillingMode: 'PAY_PER_REQUEST',
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
    AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
  }));
}

const put = (client, pk) => client.send(new PutItemCommand({ TableName: 'orders', Item: { pk: { S: pk } } }));
const keys = async (client) =>
  ((await client.send(new ScanCommand({ TableName: 'orders' }))).Items ?? []).map((i) => i.pk.S).sort();
const tables = async (client) => (await client.send(new ListTablesCommand({}))).TableNames;

describe('startDynarock', () => {
  let dynarock;
  let client;
  before(async () => {
    dynarock = await startDynarock({ binary: BIN });
    client = new DynamoDBClient(dynarock.clientConfig({ maxAttempts: 1 }));
  });
  after(async () => {
    client?.destroy();
    await dynarock?.stop();
  });

  test('listens on a free loopback port', async () => {
    assert.match(dynarock.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(dynarock.url, `http://127.0.0.1:${dynarock.port}`);
    assert.ok(dynarock.port > 0 && dynarock.running);
    assert.match(await (await fetch(dynarock.url + '/')).text(), /healthy/);
  });

  test('reset drops every table', async () => {
    await createTable(client, 'orders');
    await put(client, 'a');
    assert.deepEqual(await tables(client), ['orders']);
    assert.ok((await dynarock.reset()).includes('dynarock_us-east-1'));
    assert.deepEqual(await tables(client), []);
  });

  test('snapshot and restore', async () => {
    await dynarock.reset();
    await createTable(client, 'orders');
    await put(client, 'seed');
    await dynarock.snapshot('seeded');
    assert.ok((await dynarock.snapshots()).some((s) => s.name === 'seeded'));
    await put(client, 'later');
    await client.send(new DeleteItemCommand({ TableName: 'orders', Key: { pk: { S: 'seed' } } }));
    assert.deepEqual(await keys(client), ['later']);
    await dynarock.restore('seeded');
    assert.deepEqual(await keys(client), ['seed']);
    await dynarock.deleteSnapshot('seeded');
    await assert.rejects(dynarock.restore('seeded'), (e) => e instanceof DynarockControlError &&
      e.status === 404 && e.type === 'ResourceNotFoundException');
  });

  test('clock', async () => {
    const before = await dynarock.clock();
    const moved = await dynarock.advanceClock(3600);
    assert.equal(moved.offsetSeconds, before.offsetSeconds + 3600);
    assert.ok(moved.now - before.now >= 3600);
    assert.equal((await dynarock.resetClock()).offsetSeconds, 0);
    await assert.rejects(dynarock.advanceClock(-1), (e) => e instanceof DynarockControlError && e.status === 400);
  });

  test('fault rules pass through', async () => {
    await dynarock.reset();
    await createTable(client, 'orders');
    const set = await dynarock.setFaults([{ operation: 'PutItem', first_n: 1 }], { seed: 7 });
    assert.equal(set.seed, 7);
    await assert.rejects(put(client, 'x'), ProvisionedThroughputExceededException);
    await put(client, 'x');
    const got = await dynarock.faults();
    assert.equal(got.rules[0].fired, 1);
    assert.equal(got.rules[0].matched, 2);
    await dynarock.clearFaults();
    assert.deepEqual((await dynarock.faults()).rules, []);
    await assert.rejects(dynarock.setFaults([{ action: 'no-such-action' }]),
      (e) => e instanceof DynarockControlError && e.status === 400);
  });

  test('resetAll: no tables, no rules, the real clock', async () => {
    await dynarock.reset();
    await createTable(client, 'orders');
    await dynarock.advanceClock(60);
    await dynarock.setFaults({ rules: [{ operation: 'GetItem' }] });
    await dynarock.resetAll();
    assert.deepEqual(await tables(client), []);
    assert.equal((await dynarock.clock()).offsetSeconds, 0);
    assert.deepEqual((await dynarock.faults()).rules, []);
  });
});

describe('stop', () => {
  test('stops the process and is idempotent', async () => {
    const d = await startDynarock({ binary: BIN });
    assert.ok(alive(d.pid));
    const first = await d.stop();
    assert.ok(first.code === 0 || first.signal !== null || first.code !== null);
    assert.equal(d.running, false);
    assert.equal(alive(d.pid), false);
    assert.deepEqual(await d.stop(), first);
    await assert.rejects(d.reset(), TypeError); // fetch fails: nothing listens
  });

  test('a Node process that exits without stop() leaves no server', async () => {
    const script = `import { startDynarock } from ${JSON.stringify(PACKAGE)};
      const d = await startDynarock({ binary: ${JSON.stringify(BIN)} });
      console.log(d.pid);`; // no stop(): the process must still exit, and kill it
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { timeout: 60_000 });
    assert.equal(r.status, 0, r.stderr.toString());
    const pid = Number(r.stdout.toString().trim());
    assert.ok(pid > 0);
    for (let i = 0; i < 100 && alive(pid); i++) await sleep(100);
    assert.equal(alive(pid), false, `server ${pid} outlived its Node process`);
  });
});

describe('errors', () => {
  test('a missing binary', async () => {
    await assert.rejects(startDynarock({ binary: path.join(HERE, 'no-such-dynarock') }),
      (e) => e instanceof DynarockStartError && /not an executable file/.test(e.message));
    const saved = process.env.DYNAROCK_BIN;
    process.env.DYNAROCK_BIN = '/nonexistent/dynarock';
    try {
      assert.throws(() => findBinary(), /DYNAROCK_BIN names '\/nonexistent\/dynarock'/);
    } finally {
      if (saved === undefined) delete process.env.DYNAROCK_BIN; else process.env.DYNAROCK_BIN = saved;
    }
  });

  test('a failing start shows the server\'s stderr', async () => {
    await assert.rejects(startDynarock({ binary: BIN, args: ['--no-such-flag'] }),
      (e) => e instanceof DynarockStartError && /before it was ready/.test(e.message) &&
        /--no-such-flag/.test(e.message));
  });
});

describe('setupDynarock (Jest/Vitest hooks)', () => {
  test('starts once, resets before each test, stops after all', async () => {
    const hooks = { beforeAll: [], afterAll: [], beforeEach: [] };
    const handle = setupDynarock({
      binary: BIN, url: undefined,
      hooks: {
        beforeAll: (fn) => hooks.beforeAll.push(fn),
        afterAll: (fn) => hooks.afterAll.push(fn),
        beforeEach: (fn) => hooks.beforeEach.push(fn),
      },
    });
    assert.deepEqual([hooks.beforeAll.length, hooks.afterAll.length, hooks.beforeEach.length], [1, 1, 1]);
    assert.throws(() => handle.url, /not started yet/);
    await hooks.beforeAll[0]();
    const { pid } = handle.server;
    const client = new DynamoDBClient(handle.clientConfig({ maxAttempts: 1 }));
    try {
      // "test 1"
      await hooks.beforeEach[0]();
      await createTable(client, 'orders');
      await handle.advanceClock(10);
      await handle.setFaults([{ operation: 'GetItem' }]);
      // "test 2": a clean server, the same process
      await hooks.beforeEach[0]();
      assert.equal(handle.server.pid, pid);
      assert.deepEqual(await tables(client), []);
      assert.equal((await handle.clock()).offsetSeconds, 0);
      assert.deepEqual((await handle.faults()).rules, []);
    } finally {
      client.destroy();
      await hooks.afterAll[0]();
    }
    assert.equal(alive(pid), false);
  });

  test('without hooks it says so', () => {
    assert.throws(() => setupDynarock({ hooks: {} }), /no beforeAll/);
  });
});
