// Shared by the browser tests of the web console (test_console_live.mjs) and
// of the third-party dynamodb-admin GUI (test_dynamodb_admin.mjs); not a test
// itself (the tests that import it assert). Starts `dynarock serve` (in
// memory, one shared namespace, a free loopback port, the console's
// compiled-in files or DYNAROCK_CONSOLE_DIR's) and stops it at exit, launches
// Debian's Chromium headless through puppeteer-core, and saves screenshots
// under $DYNAROCK_TEST_OUT (else build/test-output/<suite>).
import { existsSync, mkdirSync, rmSync, mkdtempSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { freePort } from './harness.mjs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(HERE, '../../..');
export const BIN = process.env.DYNAROCK_BIN ?? path.join(ROOT, 'build', 'dynarock');
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const READY_TIMEOUT_MS = 10_000;

const children = [];
// Stops every process started here (also at exit).
export function stopAll() {
  for (const c of children) {
    if (c.exitCode !== null || c.signalCode !== null) continue;
    try { process.kill(-c.pid, 'SIGTERM'); } catch { try { c.kill('SIGTERM'); } catch { /* gone */ } }
  }
}
process.on('exit', stopAll);
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => { stopAll(); process.exit(130); });

export { freePort };

// Spawns a process in its own group (stopped at exit); resolves when a line of
// its standard output matches `ready` (to the match), rejects if it exits.
export function spawnUntil(cmd, args, ready, { env = process.env, timeoutMs = READY_TIMEOUT_MS, stderr = 'inherit' } = {}) {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', stderr], detached: true, env });
  children.push(child);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${path.basename(cmd)} not ready within ${timeoutMs} ms`)), timeoutMs);
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`${path.basename(cmd)} exited early (${code})`)); });
    child.on('error', (e) => { clearTimeout(timer); reject(e); });
    const rl = readline.createInterface({ input: child.stdout });
    rl.on('line', (line) => {
      const m = line.match(ready);
      if (m) {
        clearTimeout(timer);
        resolve({ child, match: m });
      }
    });
  });
}

export function stopChild(child) {
  if (!child || child.exitCode !== null) return;
  try { process.kill(-child.pid, 'SIGTERM'); } catch { child.kill('SIGTERM'); }
}

// `dynarock serve --in-memory --shared-db` on a free loopback port, serving
// the console's compiled-in files (or, with DYNAROCK_CONSOLE_DIR, that folder's:
// serve --console-dir, for working on the console); its URL.
export async function startDynarock(extra = []) {
  if (!existsSync(BIN)) throw new Error(`no dynarock binary at ${BIN} (set DYNAROCK_BIN)`);
  const args = ['serve', '--host', '127.0.0.1', '--port', '0', '--in-memory', '--shared-db', ...extra];
  if (process.env.DYNAROCK_CONSOLE_DIR) args.push('--console-dir', process.env.DYNAROCK_CONSOLE_DIR);
  const { match } = await spawnUntil(BIN, args, /^dynarock listening on (\S+)/);
  return match[1].replace(/\/$/, '');
}

// The console's URL on an endpoint.
export function consoleUrl(endpoint) {
  return `${endpoint}/_dynarock/console/`;
}

// Headless Chromium with a throwaway profile; close() removes it.
export async function launchBrowser() {
  const puppeteer = (await import('puppeteer-core')).default;
  const profile = mkdtempSync(path.join(os.tmpdir(), 'dynarock-chromium-'));
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM, headless: true, userDataDir: profile,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-renderer-backgrounding',
      '--disable-background-timer-throttling', '--disable-backgrounding-occluded-windows'],
  });
  return {
    browser,
    async close() {
      await browser.close().catch(() => {});
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

// Where screenshots go: $DYNAROCK_TEST_OUT, else build/test-output/<suite>/.
export function outputDir(suite) {
  const dir = process.env.DYNAROCK_TEST_OUT ?? path.join(ROOT, 'build', 'test-output', suite);
  mkdirSync(dir, { recursive: true });
  return dir;
}

// An SDK client of the endpoint (fake credentials, no retries).
export async function sdkClient(endpoint) {
  const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
  return new DynamoDBClient({ endpoint, region: 'us-east-1', maxAttempts: 1,
    credentials: { accessKeyId: 'console-test', secretAccessKey: 'secret' } });
}
