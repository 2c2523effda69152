// Shared by the JavaScript end-to-end tests (test_*.mjs): checks that the pinned
// SDK packages are installed, and starts `dynarock serve` on a free loopback port
// (or uses DYNAROCK_E2E_ENDPOINT), stopping it when the test process exits.
import { existsSync } from 'node:fs';
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const READY_TIMEOUT_MS = 10_000;
let child = null;

// Exits with a clear message when an SDK package is missing.
export function requirePackages(testName, packages) {
  for (const pkg of packages) {
    if (!existsSync(path.join(HERE, 'node_modules', ...pkg.split('/')))) {
      console.error(
        `${testName}: missing dependency ${pkg} (no ${path.join(HERE, 'node_modules')}).\n` +
          'Run scripts/install-deps.sh (it runs `npm ci` in tests/e2e/js) and retry.');
      process.exit(1);
    }
  }
}

function freePort() {
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
export async function startServer() {
  if (process.env.DYNAROCK_E2E_ENDPOINT) return process.env.DYNAROCK_E2E_ENDPOINT.replace(/\/$/, '');
  const bin = process.env.DYNAROCK_BIN;
  if (!bin) throw new Error('set DYNAROCK_BIN to the dynarock binary or DYNAROCK_E2E_ENDPOINT to an endpoint');
  const port = await freePort();
  child = spawn(bin, ['serve', '--port', String(port), '--in-memory'], {
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

export function stopServer() {
  if (!child || child.exitCode !== null) return;
  try { process.kill(-child.pid, 'SIGTERM'); } catch { child.kill('SIGTERM'); }
}
process.on('exit', stopServer);

// A table name unique to this run.
export const uniq = (p) => `${p}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
