// Shared by the JavaScript end-to-end tests (test_*.mjs); not a test itself.
// It checks that the pinned SDK packages are installed, starts `dynarock serve`
// on a free loopback port (or uses DYNAROCK_E2E_ENDPOINT) and stops it when the
// test process exits, gives each suite its DynamoDBClient and document client,
// creates tables it deletes again at the end, and holds the one assertion every
// suite makes about a refused request (rejectsWith).
import { existsSync } from 'node:fs';
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import readline from 'node:readline';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const READY_TIMEOUT_MS = 10_000;

// Exits with a clear message when an SDK package is missing (before the
// imports below would fail with a bare ERR_MODULE_NOT_FOUND).
for (const pkg of ['@aws-sdk/client-dynamodb', '@aws-sdk/client-dynamodb-streams', '@aws-sdk/lib-dynamodb']) {
  if (!existsSync(path.join(HERE, 'node_modules', ...pkg.split('/')))) {
    console.error(
      `${path.basename(process.argv[1] ?? 'harness.mjs')}: missing dependency ${pkg} ` +
        `(no ${path.join(HERE, 'node_modules')}).\n` +
        'Run scripts/install-deps.sh (it runs `npm ci` in tests/e2e/js) and retry.');
    process.exit(1);
  }
}
const { DynamoDBClient, CreateTableCommand, DeleteTableCommand, waitUntilTableExists, DynamoDBServiceException } =
  await import('@aws-sdk/client-dynamodb');
const { DynamoDBDocumentClient } = await import('@aws-sdk/lib-dynamodb');

let child = null;

// A free TCP port on 127.0.0.1 (bound to port 0, then released).
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

// The endpoint's URL, once `dynarock serve --in-memory` printed its ready line.
async function startServer(extraArgs = []) {
  if (process.env.DYNAROCK_E2E_ENDPOINT) return process.env.DYNAROCK_E2E_ENDPOINT.replace(/\/$/, '');
  const bin = process.env.DYNAROCK_BIN;
  if (!bin) throw new Error('set DYNAROCK_BIN to the dynarock binary or DYNAROCK_E2E_ENDPOINT to an endpoint');
  const port = await freePort();
  child = spawn(bin, ['serve', '--port', String(port), '--in-memory', ...extraArgs], {
    stdio: ['ignore', 'pipe', 'inherit'], detached: true,
  });
  return await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`dynarock not ready within ${READY_TIMEOUT_MS} ms`)),
      READY_TIMEOUT_MS);
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`dynarock exited early (${code})`)); });
    child.on('error', (e) => { clearTimeout(timer); reject(e); });
    const rl = readline.createInterface({ input: child.stdout });
    rl.on('line', (line) => {
      if (line.startsWith('dynarock listening on ')) {
        clearTimeout(timer);
        resolve(line.split(/\s+/)[3].replace(/\/$/, ''));
      }
    });
  });
}

function stopServer() {
  if (!child || child.exitCode !== null) return;
  try { process.kill(-child.pid, 'SIGTERM'); } catch { child.kill('SIGTERM'); }
}
process.on('exit', stopServer);

let session = null;
const created = [];

// Starts the endpoint (with `extraArgs` for `dynarock serve`); returns
// { endpoint, client, doc } (one attempt per call, so an error reaches the
// test instead of being retried).
export async function connect(extraArgs = []) {
  const endpoint = await startServer(extraArgs);
  const client = new DynamoDBClient({
    endpoint, region: 'us-east-1', maxAttempts: 1,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  const doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  session = { endpoint, client, doc };
  return session;
}

// Deletes the tables createTable made, closes the client, stops the endpoint.
export async function disconnect() {
  if (session) {
    for (const t of created) {
      try { await session.client.send(new DeleteTableCommand({ TableName: t })); } catch { /* gone */ }
    }
    session.client.destroy();
    session = null;
  }
  stopServer();
}

// Creates an on-demand table keyed by hash = [name, type] (and range, if given),
// waits until it is ACTIVE and returns its TableDescription. `extra` adds to the
// request; its AttributeDefinitions join the key attributes' (a name once).
export async function createTable(name, hash, range, extra = {}) {
  const KeySchema = [{ AttributeName: hash[0], KeyType: 'HASH' }];
  const defs = new Map([[hash[0], hash[1]]]);
  if (range) {
    KeySchema.push({ AttributeName: range[0], KeyType: 'RANGE' });
    defs.set(range[0], range[1]);
  }
  for (const d of extra.AttributeDefinitions ?? []) defs.set(d.AttributeName, d.AttributeType);
  const AttributeDefinitions = [...defs].map(([AttributeName, AttributeType]) => ({ AttributeName, AttributeType }));
  const { client } = session;
  const out = await client.send(new CreateTableCommand({
    TableName: name, KeySchema, BillingMode: 'PAY_PER_REQUEST', ...extra, AttributeDefinitions,
  }));
  created.push(name);
  await waitUntilTableExists({ client, maxWaitTime: 30, minDelay: 1 }, { TableName: name });
  return out.TableDescription;
}

// Asserts that `promise` rejects with the modelled client error `name` (HTTP 400,
// a DynamoDBServiceException, an instance of `cls` when given) and `message`
// (string: exact, RegExp: match, undefined: any); `more(err)` checks the rest.
export async function rejectsWith(promise, name, message, cls, more) {
  await assert.rejects(promise, (err) => {
    assert.equal(err.name, name, `expected ${name}, got ${err.name}: ${err.message}`);
    assert.ok(err instanceof DynamoDBServiceException, 'errors extend DynamoDBServiceException');
    if (cls) assert.ok(err instanceof cls, `${name} is an instance of the SDK's ${cls.name}`);
    assert.equal(err.$fault, 'client');
    assert.equal(err.$metadata.httpStatusCode, 400);
    if (message instanceof RegExp) assert.match(err.message, message);
    else if (message !== undefined) assert.equal(err.message, message);
    if (more) more(err);
    return true;
  });
}

// A table name unique to this run.
export const uniq = (p) => `${p}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
