// Shared by test_console.mjs, not a test itself: starts `dynarock serve`
// (in memory, a free loopback port, --console-dir when DYNAROCK_CONSOLE_DIR
// is set) and stops it at exit, speaks DynamoDB's JSON protocol from the test
// (ddb), and the page helpers the walk uses, bound to one puppeteer page
// (pageHelpers): clicks as a user makes them, waits for text, screenshots.
import assert from 'node:assert/strict';
import path from 'node:path';
import { BIN, spawnUntil, stopAll } from './browser_harness.mjs';

export { BIN, ROOT as REPO } from './browser_harness.mjs';

// Starts `dynarock serve --in-memory` on a free loopback port (with `extra`
// flags); resolves to its URL once it printed its ready line.
export async function startServer(extra = []) {
  const args = ['serve', '--port', '0', '--in-memory', ...extra];
  if (process.env.DYNAROCK_CONSOLE_DIR) args.push('--console-dir', process.env.DYNAROCK_CONSOLE_DIR);
  const { match } = await spawnUntil(BIN, args, /^dynarock listening on (\S+)/);
  return match[1].replace(/\/$/, '');
}

export const stopServers = stopAll;

// DynamoDB's JSON protocol from the test itself (unsigned: the shared
// namespace, the console's default; or shaped for `accessKey`'s), for
// setting up and checking.
export async function ddb(endpoint, op, body, accessKey) {
  const headers = { 'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': `DynamoDB_20120810.${op}` };
  if (accessKey) {
    headers.Authorization = `AWS4-HMAC-SHA256 Credential=${accessKey}/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00`;
  }
  const res = await fetch(endpoint + '/', { method: 'POST', headers, body: JSON.stringify(body) });
  const json = await res.json();
  if (!res.ok) throw new Error(`${op}: ${json.__type}: ${json.message}`);
  return json;
}

// The page helpers, bound to `page`; screenshots go to `outDir`.
export function pageHelpers(page, outDir) {
  async function shot(name) {
    const file = path.join(outDir, `${name}.png`);
    await page.screenshot({ path: file });
    return file;
  }

  const text = (selector) => page.$eval(selector, (e) => e.innerText);

  async function waitForText(selector, pattern, timeout = 5000) {
    const re = pattern instanceof RegExp ? pattern : new RegExp(pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    try {
      await page.waitForFunction((sel, src, flags) => [...document.querySelectorAll(sel)]
        .some((e) => new RegExp(src, flags).test(e.innerText ?? e.textContent)), { timeout }, selector, re.source, re.flags);
    } catch {
      const seen = await page.$$eval(selector, (els) => els.map((e) => e.innerText).join(' | ')).catch(() => '(none)');
      throw new Error(`no ${selector} showing ${re} within ${timeout} ms; it shows: ${seen.slice(0, 600)}`);
    }
  }

  // Clicks an element as a user would: first scrolled to the middle of the
  // view (an element merely in the viewport may sit under the sticky header).
  async function clickHandle(handle) {
    await handle.evaluate((e) => e.scrollIntoView({ block: 'center', inline: 'center' }));
    await handle.click();
  }
  const click = async (selector) => clickHandle(await page.waitForSelector(selector, { timeout: 5000 }));

  // Clicks the element matching `selector` whose text is `label` (exactly, trimmed).
  async function clickText(selector, label) {
    const handle = await page.waitForFunction((sel, l) => [...document.querySelectorAll(sel)]
      .find((e) => e.textContent.trim() === l && !e.disabled && e.offsetParent !== null), { timeout: 5000 }, selector, label);
    await clickHandle(handle.asElement());
  }

  async function setTextarea(selector, value) {
    await page.$eval(selector, (t, v) => {
      t.value = v;
      t.dispatchEvent(new Event('input', { bubbles: true }));
    }, value);
  }

  // Fills the input of a dialog field by its label text.
  async function fillByLabel(label, value, scope = 'dialog[open]') {
    const id = await page.$$eval(`${scope} label`, (labels, l) => labels.find((x) => x.textContent.trim() === l)?.htmlFor, label);
    assert.ok(id, `a field labelled ${label}`);
    await click(`#${CSS_escape(id)}`);
    await page.type(`#${CSS_escape(id)}`, value);
  }
  const CSS_escape = (s) => s.replace(/[^A-Za-z0-9_-]/g, (c) => `\\${c}`);

  async function gridCount() {
    return page.$eval('.grid', (g) => Number(g.getAttribute('aria-rowcount')) - 1);
  }

  async function runQueryBuilder() {
    const before = await page.$eval('.explain', (e) => e.innerText);
    await click('.query-builder button[type=submit]');
    await page.waitForFunction((b) => document.querySelector('.explain').innerText !== b ||
      document.querySelector('.results .error'), { timeout: 5000 }, before);
  }

  return { shot, text, waitForText, clickHandle, click, clickText, setTextarea, fillByLabel, gridCount, runQueryBuilder };
}
