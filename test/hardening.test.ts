/**
 * Issue 9 faults 1, 8 and 9 against a real server: bounded search, releases verified
 * before and while they serve, and the HTTP edges (Host, header timeout, repeated
 * credentials, revocation on the next request).
 */
import { connect } from 'node:net';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { build } from '../server/cli/build.ts';
import { packPath, releaseDir } from '../pipeline/paths.ts';
import { readCurrent } from '../pipeline/writer.ts';
import { createApp } from '../server/node/server.ts';
import { runKeys } from '../server/cli/keys-commands.ts';
import type { Release } from '../server/release/release.ts';
import { fsRelease } from '../server/release/fs-reader.ts';
import { MAX_RANKED_POSTINGS, MAX_SEARCH_WORDS, fitBudget, runSync } from '../server/search/search-bounds.ts';
import { indexEntries, matchRanked } from '../server/search/search-index.ts';
import { termSearchBounded, type TermShard } from '../pipeline/term-index.ts';
import elements from '../sources/elements.ts';
import { KeyStore } from '../server/state/keys.ts';
import { quiet, startServer, type Running } from './helpers.ts';
import { tempDirs } from './temp.ts';

const dir = tempDirs('almanac-harden-');
let srv: Running;
let key: string;

beforeAll(async () => {
  srv = await startServer(inject('sharedDist'), dir());
  key = srv.key('development');
});
afterAll(() => srv?.close());

const get = async (p: string, headers: Record<string, string> = { 'x-service-key': key }) => {
  const r = await fetch(srv.base + p, { headers });
  return { status: r.status, body: await r.json() };
};

/** Sends raw bytes and resolves with what the server answers before closing (or after `waitMs`). */
function raw(base: string, bytes: string, waitMs = 5000): Promise<{ text: string; ms: number }> {
  const { port } = new URL(base);
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const s = connect(Number(port), '127.0.0.1', () => s.write(bytes));
    let text = '';
    s.on('data', (c) => {
      text += c;
    });
    s.on('error', reject);
    s.on('close', () => resolve({ text, ms: Date.now() - t0 }));
    setTimeout(() => s.destroy(), waitMs);
  });
}
const bodyOf = (text: string) => JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));

describe('fault 1: every search has a cost bound independent of how the query is written', () => {
  const many = (w: string, n = 100) => Array.from({ length: n }, () => w).join(' ').slice(0, 200);

  it('answers 100 one-letter words on places, holidays and scripture with a bounded, flagged or plain result', async () => {
    for (const p of [`/apis/geography/places?q=${encodeURIComponent(many('s'))}`, `/apis/holidays?q=${encodeURIComponent(many('e'))}`,
      `/api/v1/search?translation=kjv&q=${encodeURIComponent(many('s'))}`]) {
      const r = await get(p, { authorization: `Bearer ${key}` });
      expect([200, 400], p).toContain(r.status);
      if (r.status === 400) expect(r.body.error.code).toBe('invalid_parameter');
    }
  });

  it(`searches at most ${MAX_SEARCH_WORDS} distinct words and names the rest in meta.ignored_words`, async () => {
    const words = ['zanzibar', 'quixotic', 'xylograph', 'jodhpur', 'kvetch', 'zugzwang', 'fjord', 'pyjama', 'wyvern', 'qwerty'];
    const r = await get(`/apis/geography/places?q=${words.join('+')}`);
    expect(r.status).toBe(200);
    expect(r.body.meta.partial).toBe(true);
    expect(r.body.meta.ignored_words).toEqual(expect.arrayContaining(words.slice(MAX_SEARCH_WORDS)));
  });

  it('ranks a query too broad to score by match kind then list order, flagged meta.order "match"', async () => {
    const r = await get('/apis/holidays?q=day&limit=5');
    expect(r.status).toBe(200);
    expect(r.body.meta.order).toBe('match');
    expect(r.body.meta.total).toBeGreaterThan(MAX_RANKED_POSTINGS);
    const v = await get('/api/v1/search?translation=kjv&q=the+of&limit=3', { authorization: `Bearer ${key}` });
    expect(v.body.meta.order).toBe('match');
    expect(v.body.data.map((x: { reference: string }) => x.reference)).toEqual(['gen.1.2', 'gen.1.6', 'gen.1.10']);
  });

  it('ranks a query within the budget by relevance, as before', async () => {
    const r = await get('/api/v1/search?translation=kjv&q=jesus+wept', { authorization: `Bearer ${key}` });
    expect(r.body.meta.order).toBe('relevance');
  });

  it('keeps ordinary searches complete and unflagged', async () => {
    const r = await get('/api/v1/search?translation=kjv&q=jesus+wept', { authorization: `Bearer ${key}` });
    expect(r.body.meta.partial).toBeUndefined();
    expect(r.body.data[0].reference).toBe('john.11.35');
  });

  it('fitBudget keeps the rarest words that fit, narrows an over-budget prefix, and refuses when none fits', () => {
    const cost = (w: string, expand: boolean) => ({ rare: 5, mid: 40, common: 90, pre: expand ? 500 : 10 }[w] ?? 1);
    expect(fitBudget(['common', 'rare', 'mid'], cost, 50)).toEqual({ keep: ['rare', 'mid'], ignored: ['common'], unexpanded: [], total: 45 });
    expect(fitBudget(['pre', 'rare'], cost, 50)).toEqual({ keep: ['pre', 'rare'], ignored: [], unexpanded: ['pre'], total: 15 });
    expect(() => fitBudget(['common'], cost, 50)).toThrow(/matches too many index entries/);
  });

  it('matching from the postings finds exactly what minisearch finds, and counts at least as many entries', async () => {
    const release = srv.app.release();
    // The KJV index is one binary file (pipeline/search-binary.ts); indexFile gives it for every word.
    type Index = Parameters<typeof indexEntries>[0];
    type Internal = { loadIndex(i: unknown, f: unknown): Promise<Index>; indexFile(i: unknown, n: number, w: string): unknown };
    const r = (release as unknown as { searching: Internal }).searching;
    const info = release.datasets.get('bible/kjv')!;
    expect(info.search_format).toBe('binary');
    for (const q of ['jesus wept', 'shepherd sheep', 'begotten world', 'pharaoh egypt']) {
      const words = q.split(' ');
      const parts = new Map(await Promise.all(words.map(async (w) => [w, await r.loadIndex(info, r.indexFile(info, 0, w))] as const)));
      const msFor = (w: string) => parts.get(w)!;
      const fromPostings = [...runSync(matchRanked(msFor, words, new Set())).values()].flat().sort((a, b) => a - b);
      const fromMinisearch = await release.searchWithin('bible/kjv', q);
      expect(fromMinisearch.ranked, q).toBeUndefined();
      expect(fromPostings, q).toEqual([...fromMinisearch.ordinals].sort((a, b) => a - b));
      for (const w of words) expect(indexEntries(msFor(w), w, true)).toBeGreaterThanOrEqual(fromPostings.length);
    }
  });

  it('a term-index search reads the rarest word first and caps its candidates', () => {
    const shard: TermShard = [['common', Array.from({ length: 1000 }, (_, i) => i)], ['rare', [3, 500, 999]]];
    const r = termSearchBounded(['common', 'rare'], () => shard, { maxCandidates: 2 });
    expect(r).toEqual({ ordinals: [3, 500], truncated: true });
    expect(termSearchBounded(['rare', 'common'], () => shard).ordinals).toEqual([3, 500, 999]);
  });
});

/** A server on `dist` listening on a free loopback port, with its log lines kept. */
async function listening(dist: string) {
  const logs: string[] = [];
  const app = createApp({ dist, stateDir: dir(), log: (m) => logs.push(m) });
  await new Promise<void>((r) => app.server.listen(0, '127.0.0.1', r));
  return { app, logs, base: `http://127.0.0.1:${(app.server.address() as { port: number }).port}` };
}

describe('fault 8: releases are verified before they serve', () => {
  async function tinyRelease() {
    const dist = dir();
    await build({ env: { ALMANAC_DIST: dist, ALMANAC_CACHE: dir() }, sources: [elements], log: quiet });
    return { dist, rel: releaseDir(dist, readCurrent(dist)!) };
  }

  it('refuses a release with a manifest file missing, naming it', async () => {
    const { dist, rel } = await tinyRelease();
    rmSync(path.join(rel, packPath('elements', 0)));
    expect(() => fsRelease(dist)).toThrow(/incomplete.*elements\/packs\/0\.ndjson \(missing\)/);
    expect(() => createApp({ dist, stateDir: dir(), log: quiet })).toThrow(/incomplete/);
  });

  it('answers 503 release_corrupt for a shard whose bytes differ from its sha256, logs it, and /healthz says degraded', async () => {
    const { dist, rel } = await tinyRelease();
    const file = path.join(rel, packPath('elements', 0));
    const bytes = readFileSync(file);
    const i = bytes.indexOf('Hydrogen');
    bytes.write('Hydrogem', i);
    writeFileSync(file, bytes);
    const { app, base, logs } = await listening(dist);
    try {
      const k = app.keys.create('development').secret;
      const r = await fetch(`${base}/apis/elements/H`, { headers: { 'x-service-key': k } });
      expect(r.status).toBe(503);
      expect((await r.json()).error.code).toBe('release_corrupt');
      expect(logs.join('\n')).toMatch(/elements\/packs\/0\.ndjson does not match its manifest checksum/);
      const h = await (await fetch(`${base}/healthz`)).json();
      expect(h).toMatchObject({ status: 'degraded', corrupt_files: ['elements/packs/0.ndjson'] });
    } finally {
      await app.close();
    }
  });
});

describe('issue 26 item 12: a prebuilt compressed variant is checked by its contents, not its size alone', () => {
  it('a flipped byte in docs/index.html.br (same size) answers 503 release_corrupt and is logged, never a 200', async () => {
    const dist = dir();
    await build({ env: { ALMANAC_DIST: dist, ALMANAC_CACHE: dir() }, sources: [elements], log: quiet });
    const file = path.join(releaseDir(dist, readCurrent(dist)!), 'docs', 'index.html.br');
    const bytes = readFileSync(file);
    bytes[bytes.length >> 1] ^= 0x20;
    writeFileSync(file, bytes);
    const { app, base, logs } = await listening(dist);
    try {
      const gz = await fetch(`${base}/docs/`, { headers: { 'accept-encoding': 'gzip' } });
      expect(gz.status).toBe(200); // the gzip variant is intact
      const br = await fetch(`${base}/docs/`, { headers: { 'accept-encoding': 'br' } });
      expect(br.status).toBe(503);
      expect((await br.json()).error.code).toBe('release_corrupt');
      expect(logs.join('\n')).toMatch(/docs\/index\.html\.br does not match its manifest/);
    } finally {
      await app.close();
    }
  });
});

describe('fault 9: HTTP edges answer with the envelope and the right status', () => {
  it('CONNECT gets 405 method_not_allowed in the envelope, not a closed connection (issue 26 item 11)', async () => {
    const { text } = await raw(srv.base, 'CONNECT 127.0.0.1:80 HTTP/1.1\r\nHost: 127.0.0.1:80\r\n\r\n');
    expect(text).toMatch(/^HTTP\/1\.1 405/);
    expect(text).toMatch(/\r\nallow: GET, HEAD, OPTIONS\r\n/i);
    expect(bodyOf(text).error.code).toBe('method_not_allowed');
  });

  it('a request without Host gets 400 bad_request in the envelope', async () => {
    const { text } = await raw(srv.base, 'GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n');
    expect(text).toMatch(/^HTTP\/1\.1 400/);
    expect(bodyOf(text).error.code).toBe('bad_request');
  });

  it('headers as node joins them: names in any case, repeated Accept-Encoding lines one list, X-Request-Id kept, an empty Host refused, HTTP/1.0 without Host served', async () => {
    const empty = await raw(srv.base, 'GET /healthz HTTP/1.1\r\nHost:\r\nConnection: close\r\n\r\n');
    expect(empty.text).toMatch(/^HTTP\/1\.1 400/);
    expect(bodyOf(empty.text).error.code).toBe('bad_request');
    // Two Accept-Encoding lines, in two spellings, are one list: br (the second line) is chosen.
    const two = await raw(srv.base, `GET /apis/elements/Fe HTTP/1.1\r\nHOST: x\r\nX-Service-Key: ${key}\r\nAccept-Encoding: identity\r\naccept-encoding: br\r\nX-REQUEST-ID: Trace.7\r\nConnection: close\r\n\r\n`);
    expect(two.text).toMatch(/^HTTP\/1\.1 200/);
    expect(two.text).toMatch(/\r\ncontent-encoding: br\r\n/i);
    expect(two.text).toMatch(/\r\nx-request-id: Trace\.7\r\n/i);
    // An HTTP/1.0 request may leave Host out.
    const old = await raw(srv.base, 'GET /healthz HTTP/1.0\r\n\r\n');
    expect(old.text).toMatch(/^HTTP\/1\.1 200/);
  });

  it('headers that do not arrive within the timeout get 408 request_timeout in the envelope, in time', async () => {
    const app = createApp({ dist: inject('sharedDist'), stateDir: dir(), log: quiet, headersTimeoutMs: 500 });
    await new Promise<void>((r) => app.server.listen(0, '127.0.0.1', r));
    try {
      // Answered at all means the server's own timeout fired (the client never ends its headers); a generous wait, not a time budget.
      const { text } = await raw(`http://127.0.0.1:${(app.server.address() as { port: number }).port}`, 'GET /healthz HTTP/1.1\r\nHost: x\r\n', 30_000);
      expect(text).toMatch(/^HTTP\/1\.1 408/);
      expect(bodyOf(text).error.code).toBe('request_timeout');
    } finally {
      await app.close();
    }
  });

  it('two Authorization headers with different keys get 401 on /apis and 403 on /api/v1 (each spec\'s status), and nothing is billed', async () => {
    const other = srv.key('basic');
    const before = srv.app.quota.used(srv.app.keys.verify(key)!.id);
    const two = (p: string) => `GET ${p} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nAuthorization: Bearer ${other}\r\nConnection: close\r\n\r\n`;
    const a = await raw(srv.base, two('/apis/elements/H'));
    expect(a.text).toMatch(/^HTTP\/1\.1 401/);
    expect(a.text).toMatch(/www-authenticate: Bearer realm="almanac", error="invalid_token"/i);
    expect(bodyOf(a.text).error.code).toBe('conflicting_credentials');
    const b = await raw(srv.base, two('/api/v1/translations'));
    expect(b.text).toMatch(/^HTTP\/1\.1 403/);
    expect(bodyOf(b.text).error.code).toBe('invalid_api_key');
    expect((await get('/apis/elements/H', { 'x-service-key': key, authorization: `Bearer ${other}` })).body.error.code).toBe('conflicting_credentials');
    expect(srv.app.quota.used(srv.app.keys.verify(key)!.id)).toBe(before);
  });

  it('a key revoked by the CLI fails within a second (keys.json is checked once a second, issue 41)', async () => {
    const k = srv.key('standard');
    const id = srv.app.keys.verify(k)!.id;
    const cli = (cmd: string) => runKeys([cmd, id], { ALMANAC_STATE_DIR: srv.stateDir }, () => {});
    const aSecond = () => new Promise((r) => setTimeout(r, KeyStore.CHECK_MS + 100));
    for (let i = 0; i < 2; i++) {
      expect((await get('/apis/elements/H', { 'x-service-key': k })).status).toBe(200);
      cli('revoke');
      await aSecond();
      expect((await get('/apis/elements/H', { 'x-service-key': k })).status).toBe(401);
      cli('reactivate');
      await aSecond();
    }
  });

  it('`keys revoke <secret>` against the wrong folder prints no part of the secret', () => {
    const secret = srv.key('basic');
    let message = '';
    try {
      runKeys(['revoke', secret], { ALMANAC_STATE_DIR: dir() }, () => {});
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/no key matching/);
    for (let i = 0; i + 6 <= secret.length; i++) expect(message).not.toContain(secret.slice(i, i + 6));
  });
});
