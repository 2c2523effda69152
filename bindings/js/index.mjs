// dynarock-test: Dynarock (`dynarock serve`) as a DynamoDB test double for
// Node test runners. Starts the server on a free loopback port, drives its
// control API (/_dynarock/: reset, snapshots, clock, fault rules) and stops it.
// Node's child_process and global fetch only; no build step.
//
//   import { startDynarock } from 'dynarock-test';
//   const dynarock = await startDynarock();          // dynarock serve --port 0 --in-memory
//   const client = new DynamoDBClient(dynarock.clientConfig());
//   await dynarock.snapshot('seeded'); ... await dynarock.restore('seeded');
//   await dynarock.stop();
//
//   // Jest, or Vitest with globals (else pass its hooks: { hooks: { beforeAll, ... } })
//   import { setupDynarock } from 'dynarock-test';
//   const dynarock = setupDynarock();                // start once, reset before each test
//
// The binary: options.binary, else DYNAROCK_BIN, else `dynarock` on PATH, else
// build/dynarock of a Dynarock checkout above this package or the working directory.

import { spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;
const STDERR_KEEP = 64 * 1024;
const READY = /dynarock listening on (http:\/\/\S+)/;

/** The control API refused a request: status (HTTP), type ("__type"), message. */
export class DynarockControlError extends Error {
  constructor(status, type, message, route) {
    super(`${status} ${route}: ${type}: ${message}`);
    this.name = 'DynarockControlError';
    this.status = status;
    this.type = type;
    this.route = route;
    this.detail = message;
  }
}

/** The binary is missing or `dynarock serve` failed to start (message has its stderr). */
export class DynarockStartError extends Error {
  constructor(message) {
    super(message);
    this.name = 'DynarockStartError';
  }
}

function isExecutable(p) {
  try {
    if (!statSync(p).isFile()) return false;
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The dynarock executable to run, or throws DynarockStartError saying where it looked. */
export function findBinary(binary) {
  for (const [candidate, source] of [[binary, 'the binary option'], [process.env.DYNAROCK_BIN, 'DYNAROCK_BIN']]) {
    if (!candidate) continue;
    if (isExecutable(candidate)) return path.resolve(candidate);
    if (!candidate.includes(path.sep)) {
      const onPath = whichSync(candidate);
      if (onPath) return onPath;
    }
    throw new DynarockStartError(`${source} names '${candidate}', which is not an executable file`);
  }
  const onPath = whichSync('dynarock');
  if (onPath) return onPath;
  for (const start of [HERE, process.cwd()]) {
    let dir = start;
    for (let i = 0; i < 6; i++) {
      const p = path.join(dir, 'build', 'dynarock');
      if (isExecutable(p)) return p;
      const parent = path.dirname(dir);
      if (parent === dir) break;
      dir = parent;
    }
  }
  throw new DynarockStartError(
    'dynarock binary not found: set DYNAROCK_BIN to its path, put it on PATH, or pass { binary }');
}

function whichSync(name) {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && isExecutable(path.join(dir, name))) return path.join(dir, name);
  }
  return null;
}

// ------------------------------------------------------------ the control API

/**
 * The control API of a running `dynarock serve` at `url` (no process of its
 * own: see startDynarock for one).
 */
export class DynarockControl {
  constructor(url, { requestTimeoutMs = REQUEST_TIMEOUT_MS, region = 'us-east-1' } = {}) {
    this.url = String(url).replace(/\/+$/, '');
    this.port = Number(new URL(this.url).port);
    this.requestTimeoutMs = requestTimeoutMs;
    this.region = region;
  }

  async #call(method, route, body) {
    const init = { method, signal: AbortSignal.timeout(this.requestTimeoutMs) };
    if (body !== undefined) {
      init.body = JSON.stringify(body);
      init.headers = { 'content-type': 'application/json' };
    }
    const res = await fetch(`${this.url}/_dynarock/${route}`, init);
    const text = await res.text();
    if (!res.ok) {
      let type = 'Error';
      let message = text.trim();
      try {
        const e = JSON.parse(text);
        type = e.__type ?? type;
        message = e.message ?? message;
      } catch { /* not JSON */ }
      throw new DynarockControlError(res.status, type, message, `${method} /_dynarock/${route}`);
    }
    return text.trim() ? JSON.parse(text) : {};
  }

  /** Drops every table of every namespace (or of one, "KEY_REGION"); the namespaces reset. */
  async reset(namespace) {
    return (await this.#call('POST', 'reset', namespace === undefined ? {} : { namespace })).reset ?? [];
  }

  /** Between tests: no tables, no fault rules, the real clock (snapshots stay). */
  async resetAll() {
    await this.reset();
    for (const f of [() => this.clearFaults(), () => this.resetClock()]) {
      try {
        await f();
      } catch (e) {
        if (!(e instanceof DynarockControlError && e.status === 404)) throw e;
      }
    }
  }

  /** Saves every namespace as snapshot `name`. */
  snapshot(name) { return this.#call('POST', 'snapshots', { name }); }
  /** Puts every namespace back to snapshot `name`. */
  restore(name) { return this.#call('POST', `snapshots/${encodeURIComponent(name)}/restore`, {}); }
  async snapshots() { return (await this.#call('GET', 'snapshots')).snapshots ?? []; }
  deleteSnapshot(name) { return this.#call('DELETE', `snapshots/${encodeURIComponent(name)}`); }

  /** { now: epoch seconds as the server sees them, offsetSeconds } */
  clock() { return this.#call('GET', 'clock'); }
  advanceClock(seconds) { return this.#call('POST', 'clock', { advanceSeconds: seconds }); }
  setClock(epochSeconds) { return this.#call('POST', 'clock', { set: epochSeconds }); }
  resetClock() { return this.#call('POST', 'clock', { reset: true }); }

  /**
   * Replaces the fault rules (an array of rules, or a whole {seed, rules}
   * document; the format is the server's, engine/api/faults.h) and resets
   * their counters.
   */
  setFaults(rules, { seed } = {}) {
    const doc = Array.isArray(rules) ? { rules } : { ...rules };
    if (seed !== undefined) doc.seed = seed;
    return this.#call('PUT', 'faults', doc);
  }
  /** The rules with their counters: { seed, rules: [{ ..., matched, fired }] } */
  faults() { return this.#call('GET', 'faults'); }
  clearFaults() { return this.#call('DELETE', 'faults'); }

  /** A DynamoDBClient configuration for this endpoint (any credentials do). */
  clientConfig(extra = {}) {
    return {
      endpoint: this.url,
      region: this.region,
      credentials: { accessKeyId: 'dynarock', secretAccessKey: 'dynarock' },
      ...extra,
    };
  }
}

// ------------------------------------------------------------ the process

const live = new Set();
let exitHooked = false;

function killAllSync() {
  for (const child of live) {
    try { child.kill('SIGTERM'); } catch { /* gone */ }
  }
  live.clear();
}

function hookExit() {
  if (exitHooked) return;
  exitHooked = true;
  process.on('exit', killAllSync);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    const onSignal = () => {
      killAllSync();
      // Ours was the only handler: die of the signal as without it.
      if (process.listenerCount(sig) === 1) {
        process.removeListener(sig, onSignal);
        process.kill(process.pid, sig);
      }
    };
    process.on(sig, onSignal);
  }
}

/** A `dynarock serve` child process with its control API; from startDynarock. */
export class Dynarock extends DynarockControl {
  #child;
  #stderr;
  #exited;

  constructor(url, child, stderr, exited, options) {
    super(url, options);
    this.#child = child;
    this.#stderr = stderr;
    this.#exited = exited;
    this.pid = child.pid;
  }

  get running() { return this.#child.exitCode === null && this.#child.signalCode === null; }
  /** What the server wrote to stderr so far (the last 64 KiB). */
  stderr() { return this.#stderr(); }

  /** Stops the server: SIGTERM, SIGKILL after 10 s. Resolves to { code, signal }. */
  async stop() {
    const child = this.#child;
    if (this.running) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      try { await this.#exited; } finally { clearTimeout(timer); }
    }
    live.delete(child);
    return this.#exited;
  }
}

/**
 * Starts `dynarock serve --host 127.0.0.1 --port 0 --in-memory [...args]` and
 * resolves once it printed its ready line; rejects with DynarockStartError
 * (with its stderr) if it exits first or stays silent for startTimeoutMs.
 * Servers still running when Node exits (or gets SIGINT/SIGTERM/SIGHUP) are
 * killed.
 */
export async function startDynarock({
  binary, args = [], env, startTimeoutMs = START_TIMEOUT_MS, requestTimeoutMs = REQUEST_TIMEOUT_MS,
  region = 'us-east-1',
} = {}) {
  const bin = findBinary(binary);
  hookExit();
  const child = spawn(bin, ['serve', '--host', '127.0.0.1', '--port', '0', '--in-memory', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'], env: env ?? process.env,
  });
  live.add(child);
  let stderrText = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d) => {
    stderrText += d;
    if (stderrText.length > STDERR_KEEP) stderrText = stderrText.slice(-STDERR_KEEP);
  });
  const stderr = () => stderrText.trim();
  const exited = new Promise((resolve) => {
    child.on('exit', (code, signal) => { live.delete(child); resolve({ code, signal }); });
  });
  const describe = () => (stderr() ? `; its stderr:\n${stderr()}` : ' (no stderr)');

  let url;
  try {
    url = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new DynarockStartError(
        `dynarock serve printed no ready line within ${startTimeoutMs} ms${describe()}`)), startTimeoutMs);
      child.on('error', (e) => {
        clearTimeout(timer);
        reject(new DynarockStartError(`cannot run ${bin}: ${e.message}`));
      });
      // 'close' comes after stdout and stderr ended: the whole of stderr is in.
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        reject(new DynarockStartError(
          `dynarock serve exited (${signal ?? `status ${code}`}) before it was ready${describe()}`));
      });
      // Lines after the ready one are read and dropped, so the pipe never fills.
      readline.createInterface({ input: child.stdout }).on('line', (line) => {
        const m = READY.exec(line);
        if (m && url === undefined) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
    });
  } catch (e) {
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
    live.delete(child);
    throw e;
  }
  // A server left running must not keep Node alive; the exit hook kills it.
  child.unref();
  child.stdout.unref?.();
  child.stderr.unref?.();
  return new Dynarock(url, child, stderr, exited, { requestTimeoutMs, region });
}

// ------------------------------------------------------------ Jest / Vitest

/**
 * Registers hooks with the test runner: beforeAll starts a server (or, with
 * options.url or DYNAROCK_URL set, connects to that one and leaves it
 * running), beforeEach resets it (resetAll: no tables, no fault rules, the
 * real clock), afterAll stops what it started. Jest's globals (and Vitest's
 * with `globals: true`) are used unless options.hooks gives them:
 *   import { beforeAll, afterAll, beforeEach } from 'vitest';
 *   const dynarock = setupDynarock({ hooks: { beforeAll, afterAll, beforeEach } });
 * Returns a handle whose url, port and control methods work once beforeAll ran.
 * options.reset: false skips the reset before each test.
 */
export function setupDynarock(options = {}) {
  const { hooks = globalThis, reset = true, url = process.env.DYNAROCK_URL, ...startOptions } = options;
  for (const name of ['beforeAll', 'afterAll', 'beforeEach']) {
    if (typeof hooks[name] !== 'function') {
      throw new Error(`setupDynarock: no ${name} (run under Jest, Vitest with globals: true, or pass ` +
        'hooks: { beforeAll, afterAll, beforeEach })');
    }
  }
  let server = null;
  const current = () => {
    if (!server) throw new Error('dynarock is not started yet (use it in tests or hooks, after beforeAll)');
    return server;
  };
  const handle = {
    get server() { return current(); },
    get url() { return current().url; },
    get port() { return current().port; },
    clientConfig: (extra) => current().clientConfig(extra),
  };
  for (const m of ['reset', 'resetAll', 'snapshot', 'restore', 'snapshots', 'deleteSnapshot', 'clock',
    'advanceClock', 'setClock', 'resetClock', 'setFaults', 'faults', 'clearFaults']) {
    handle[m] = (...a) => current()[m](...a);
  }
  hooks.beforeAll(async () => {
    server = url ? new DynarockControl(url, startOptions) : await startDynarock(startOptions);
  }, startOptions.startTimeoutMs ?? START_TIMEOUT_MS + 5_000);
  if (reset) hooks.beforeEach(() => current().resetAll());
  hooks.afterAll(async () => {
    if (server instanceof Dynarock) await server.stop();
    server = null;
  });
  return handle;
}

/** The same as setupDynarock (Jest's name for it). */
export const dynarockJest = setupDynarock;

/**
 * For Jest's globalSetup (one server for the whole run): starts it and sets
 * process.env.DYNAROCK_URL, which setupDynarock in the test files then uses.
 * Pair with globalTeardown. Tests sharing one server should run serially
 * (--runInBand) when they reset it. createGlobalSetup(options) gives one with
 * startDynarock's options.
 *   // jest.config.mjs: globalSetup: './dynarock-setup.mjs', globalTeardown: './dynarock-teardown.mjs'
 *   // dynarock-setup.mjs:    export { globalSetup as default } from 'dynarock-test';
 *   // dynarock-teardown.mjs: export { globalTeardown as default } from 'dynarock-test';
 */
export function createGlobalSetup(options = {}) {
  return async () => {
    const server = await startDynarock(options);
    globalThis.__DYNAROCK_SERVER__ = server;
    process.env.DYNAROCK_URL = server.url;
    return server;
  };
}

export const globalSetup = createGlobalSetup();

export async function globalTeardown() {
  const server = globalThis.__DYNAROCK_SERVER__;
  delete globalThis.__DYNAROCK_SERVER__;
  delete process.env.DYNAROCK_URL;
  if (server) await server.stop();
}
