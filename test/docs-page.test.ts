/**
 * The docs page (`/docs`) in a real browser: Debian's chromium, driven by playwright-core
 * (no browser download of its own). It must render every operation of both OpenAPI
 * documents after its scripts run, with no console error, no page error and no failed
 * request; a screenshot is kept at .cache/docs-screenshot.png for a person to look at.
 * Without chromium the browser test skips, saying so in its name (CI installs it, and
 * fails instead of skipping when CI=true).
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { PROJECT_ROOT } from '../pipeline/paths.ts';
import { cleanup, startServer, type Running } from './helpers.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
export const SCREENSHOT = path.join(PROJECT_ROOT, '.cache', 'docs-screenshot.png');

let srv: Running;
let key: string;
beforeAll(async () => {
  srv = await startServer(inject('sharedDist') ?? process.env.ALMANAC_TEST_DIST!);
  key = srv.key('development');
});
afterAll(async () => {
  await srv?.close();
  cleanup(srv.stateDir);
});

const operations = async (p: string) => {
  const doc = await (await fetch(srv.base + p)).json();
  return Object.values<Record<string, { operationId: string }>>(doc.paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
};

describe('docs page over HTTP', () => {
  it('is served without a key, not counted, with hashed immutable assets and compressed variants', async () => {
    const id = srv.app.keys.verify(key)!.id;
    const before = srv.app.quota.used(id);
    const page = await fetch(`${srv.base}/docs`, { headers: { 'x-service-key': key } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('ratelimit')).toBeNull();
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
    const html = await page.text();
    expect(srv.app.quota.used(id)).toBe(before);
    const assets = [...html.matchAll(/(?:src|href)="(\/docs\/[^"]+)"/g)].map((m) => m[1]);
    expect(assets.filter((a) => /\.[0-9a-f]{16}\.(js|css|png)$/.test(a)).length).toBeGreaterThanOrEqual(4);
    for (const a of assets) {
      const res = await fetch(srv.base + a, { headers: { 'accept-encoding': 'br' } });
      expect(res.status, a).toBe(200);
      if (/\.[0-9a-f]{16}\./.test(a)) expect(res.headers.get('cache-control'), a).toBe('public, max-age=31536000, immutable');
      if (a.includes('swagger-ui-bundle')) { // 1.7 MB: it has br and gzip variants
        expect(res.headers.get('content-encoding'), a).toBe('br');
        const plain = await fetch(srv.base + a, { headers: { 'accept-encoding': 'identity' } });
        expect(plain.headers.get('etag')).not.toBe(res.headers.get('etag'));
        expect(Buffer.from(await plain.arrayBuffer()).equals(Buffer.from(await res.arrayBuffer()))).toBe(true); // fetch decodes br
        const again = await fetch(srv.base + a, { headers: { 'accept-encoding': 'br', 'if-none-match': res.headers.get('etag')! } });
        expect(again.status).toBe(304);
      }
    }
    expect((await fetch(`${srv.base}/docs/nothing.js`)).status).toBe(404);
    expect((await fetch(`${srv.base}/docs/..%2Fmanifest.json`)).status).toBe(404);
    expect(srv.app.quota.used(id)).toBe(before);
  });
});

const browserTitle = HAVE_CHROMIUM
  ? 'renders every operation of both documents in headless chromium with no console errors'
  : process.env.CI
    ? `renders in headless chromium (FAILS: no chromium at ${CHROMIUM}; .ci/run must install Debian's chromium)`
    : `renders in headless chromium (skipped: no chromium at ${CHROMIUM}; apt-get install chromium, as .ci/run does)`;

describe('docs page in a browser', () => {
  it.skipIf(!HAVE_CHROMIUM && !process.env.CI)(browserTitle, { timeout: 240_000 }, async () => {
    expect(existsSync(CHROMIUM), `chromium at ${CHROMIUM}`).toBe(true);
    const expected = [...await operations('/apis/openapi.json'), ...await operations('/api/v1/openapi')];
    let browser: Browser | undefined;
    try {
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        // No sandbox as root; no background traffic on a machine without internet.
        args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
      });
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const problems: string[] = [];
      page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
      page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
      page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
      page.on('response', (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`); });
      await page.goto(`${srv.base}/docs`, { waitUntil: 'load' });
      // Both Swagger UIs have fetched their document and drawn one block per operation.
      await page.waitForFunction((n) => document.querySelectorAll('.opblock').length >= n, expected.length, { timeout: 150_000 });
      const shown = await page.$$eval('.opblock-summary-operation-id', (els) => els.map((e) => e.textContent?.trim() ?? ''));
      expect(new Set(shown)).toEqual(new Set(expected));
      const sections = await page.$$eval('section.almanac-doc', (els) => els.map((e) => ({ title: e.querySelector('h2')?.textContent, ops: e.querySelectorAll('.opblock').length })));
      expect(sections.map((s) => s.title)).toEqual(['Reference-data platform (/apis)', 'Scripture text and word study (/api/v1)']);
      for (const s of sections) expect(s.ops, s.title ?? '').toBeGreaterThan(0);
      expect(await page.locator('#scripture-ui .opblock-summary-path[data-path="/api/v1/text/{translation}/{book}/{chapter}/{verse}"]').count()).toBe(1);
      expect(await page.locator('#platform-ui .opblock-summary-path[data-path="/apis/elements/{id}"]').count()).toBe(1);
      mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
      await page.screenshot({ path: SCREENSHOT });
      expect(problems).toEqual([]);
    } finally {
      await browser?.close();
    }
  });
});
