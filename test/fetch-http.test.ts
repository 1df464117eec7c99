/**
 * The fetch step against an unreliable upstream (issue 29), on a loopback server: a
 * request that fails with 502, 503 or 429 is retried with backoff (a refused connection is
 * not: an offline machine fails fast); Retry-After
 * is honoured; a live input is asked conditionally (ETag / Last-Modified) and a 304 keeps
 * the cached copy and its record; a source past its deadline fails with that reason while
 * the last good copy stays.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatasetSource, LiveInput } from '../sources/contract.ts';
import { fetchAll, fetchOne, fetchPinned } from '../pipeline/fetch.ts';
import { fetchLive } from '../pipeline/fetch-live.ts';
import { getWithRetries, unreachableHosts } from '../pipeline/http-get.ts';
import { sha256 } from '../pipeline/inputs.ts';
import { cachedLocation, fetchRecordPath, viaPath } from '../pipeline/paths.ts';
import { fakeUpstream } from './helpers.ts';
import { tempDirs } from './temp.ts';

const dir = tempDirs('almanac-fetch-http-');
const URL_ONE = 'https://feed.example/v1/one.json';
const STATIC = 'https://files.example/data/codes.csv';
const BODY = JSON.stringify({ generated: '2026-11-26T00:00:00Z', items: [1, 2, 3] });
const CSV = 'code,title\n11,Agriculture\n';
const spec: LiveInput = { kind: 'live', url: URL_ONE, format: 'json' };

let fail: { left: number; status: number; headers?: Record<string, string> } = { left: 0, status: 503 };
let publisherBody = 'code,title\n11,Agriculture, Forestry\n';
/** The ETag /feed.example/v1/two.json sends with its (unchanging) body; none while null. */
let twoEtag: string | null = null;
let upstream: Awaited<ReturnType<typeof fakeUpstream>>;
beforeAll(async () => {
  upstream = await fakeUpstream((req) => {
    if (fail.left > 0) {
      fail.left--;
      return { status: fail.status, body: 'try later', headers: fail.headers };
    }
    if (req.url === '/files.example/data/codes.csv') return { body: CSV, type: 'text/csv' };
    if (req.url === '/publisher.example/codes.csv') return { body: publisherBody, type: 'text/csv' };
    if (req.url === '/copies.example/a/codes.csv') return { body: 'not the pinned bytes', type: 'text/csv' };
    if (req.url === '/copies.example/b/codes.csv') return { body: CSV, type: 'text/csv' };
    if (req.url === '/feed.example/v1/two.json') {
      if (twoEtag && req.headers['if-none-match'] === twoEtag) return { status: 304, body: '' };
      return { body: BODY, headers: (twoEtag ? { etag: twoEtag } : {}) as Record<string, string> };
    }
    if (req.url !== '/feed.example/v1/one.json') return { status: 404, body: 'no' };
    if (req.headers['if-none-match'] === '"v1"') return { status: 304, body: '' };
    return { body: BODY, headers: { etag: '"v1"', 'last-modified': 'Wed, 25 Nov 2026 12:00:00 GMT' } };
  });
});
afterAll(() => upstream?.close());

/** A loopback port nobody listens on (bound, then closed): connecting is refused. */
async function closedPort(): Promise<number> {
  const { createServer } = await import('node:net');
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const port = (probe.address() as { port: number }).port;
  await new Promise<void>((r) => probe.close(() => r()));
  return port;
}

const envFor = (extra: Record<string, string> = {}) => ({ ALMANAC_CACHE: dir(), ALMANAC_MIRROR: upstream.base, ALMANAC_FETCH_BACKOFF_MS: '20', ...extra });

describe('fetching with retries', () => {
  it('retries a 503 with backoff and gets the file on the third attempt', async () => {
    const env = envFor();
    fail = { left: 2, status: 503 };
    upstream.requests.length = 0;
    const t0 = performance.now();
    expect(await fetchOne(STATIC, sha256(CSV), env)).toBe('fetched');
    expect(upstream.requests.length).toBe(3);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(20 + 80); // 20 ms, then 4 × 20 ms
    expect(readFileSync(cachedLocation(STATIC, env), 'utf8')).toBe(CSV);
  });

  it('gives up after three attempts, naming the status; a 404 is not retried', async () => {
    const env = envFor();
    fail = { left: 5, status: 502 };
    upstream.requests.length = 0;
    await expect(fetchOne(STATIC, sha256(CSV), env)).rejects.toThrow(/HTTP 502/);
    expect(upstream.requests.length).toBe(3);
    fail = { left: 5, status: 404 };
    upstream.requests.length = 0;
    await expect(fetchOne(STATIC, sha256(CSV), env)).rejects.toThrow(/HTTP 404/);
    expect(upstream.requests.length).toBe(1);
    fail = { left: 0, status: 503 };
  });

  it('does not retry where nobody listens (an offline machine fails fast)', async () => {
    const port = await closedPort();
    // One attempt: a retried failure would end "(after 3 attempts)".
    await expect(fetchOne(STATIC, sha256(CSV), { ...envFor(), ALMANAC_MIRROR: `http://127.0.0.1:${port}`, ALMANAC_FETCH_BACKOFF_MS: '1000' })).rejects.toThrow(/ECONNREFUSED\): 127\.0\.0\.1:\d+$/);
  });

  it('waits as long as Retry-After says on a 429', async () => {
    fail = { left: 1, status: 429, headers: { 'retry-after': '1' } };
    const t0 = performance.now();
    expect(await fetchLive(spec, envFor())).toBe('fetched');
    expect(performance.now() - t0).toBeGreaterThanOrEqual(990);
  });
});

describe('conditional requests to a live feed', () => {
  it('sends If-None-Match and If-Modified-Since from the last fetch; a 304 keeps the copy and its record', async () => {
    const env = envFor();
    expect(await fetchLive(spec, env)).toBe('fetched');
    const record = JSON.parse(readFileSync(fetchRecordPath(cachedLocation(URL_ONE, env)), 'utf8'));
    expect(record).toMatchObject({ etag: '"v1"', last_modified: '2026-11-25T12:00:00.000Z' });
    upstream.requests.length = 0;
    expect(await fetchLive(spec, env)).toBe('cached');
    expect(upstream.requests[0].headers).toMatchObject({ 'if-none-match': '"v1"', 'if-modified-since': 'Wed, 25 Nov 2026 12:00:00 GMT' });
    expect(JSON.parse(readFileSync(fetchRecordPath(cachedLocation(URL_ONE, env)), 'utf8'))).toEqual(record);
    expect(readFileSync(cachedLocation(URL_ONE, env), 'utf8')).toBe(BODY);
  });
});

describe('a feed that starts sending an ETag (issue 40)', () => {
  it('records it even when the bytes are unchanged (fetched_at kept), so the next fetch is conditional and answered 304', async () => {
    const env = envFor();
    const two: LiveInput = { kind: 'live', url: 'https://feed.example/v1/two.json', format: 'json' };
    twoEtag = null;
    expect(await fetchLive(two, env)).toBe('fetched');
    const first = JSON.parse(readFileSync(fetchRecordPath(cachedLocation(two.url, env)), 'utf8'));
    expect(first.etag).toBeUndefined();
    twoEtag = '"v7"';
    try {
      expect(await fetchLive(two, env)).toBe('cached');
      expect(JSON.parse(readFileSync(fetchRecordPath(cachedLocation(two.url, env)), 'utf8'))).toEqual({ ...first, etag: '"v7"' });
      upstream.requests.length = 0;
      expect(await fetchLive(two, env)).toBe('cached');
      expect(upstream.requests[0].headers['if-none-match']).toBe('"v7"');
    } finally {
      twoEtag = null;
    }
  });
});

describe("a source's deadline", () => {
  it('stops a source whose upstream keeps failing once its deadline passes, and keeps the last good copy', async () => {
    const env = envFor({ ALMANAC_FETCH_SOURCE_TIMEOUT_S: '0.3', ALMANAC_FETCH_BACKOFF_MS: '200' });
    expect(await fetchLive(spec, env)).toBe('fetched');
    const source = { id: 'one', inputs: { one: spec } } as unknown as DatasetSource<any>;
    fail = { left: 10, status: 503 };
    const lines: string[] = [];
    upstream.requests.length = 0;
    const out = await fetchAll([source], env, (l) => lines.push(l));
    fail = { left: 0, status: 503 };
    expect(out).toEqual([expect.objectContaining({ status: 'failed', reason: "the source's fetch deadline passed" })]);
    // Cut short during a backoff: never the third attempt (200 ms, then 800 ms of waiting).
    expect(upstream.requests.length).toBeLessThan(3);
    expect(lines).toEqual([expect.stringMatching(/^fetch: one: skipped, 1 of 1 inputs unavailable .*deadline/)]);
    expect(readFileSync(cachedLocation(URL_ONE, env), 'utf8')).toBe(BODY);
  });
});

/**
 * A loopback upstream that hangs (issue 40, item 1): `/hang/…` accepts and never answers,
 * `/stall/…` sends its headers and half a body and then nothing; anything else answers.
 */
async function hangingUpstream() {
  const { createServer } = await import('node:http');
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(req.url ?? '');
    if (req.url?.startsWith('/hang/')) return;
    if (req.url?.startsWith('/stall/')) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"half": ');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(BODY);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    base: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    seen,
    close: () => new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}

/** Collects garbage every 100 ms while `fn` runs: the timeout must fire whatever is collected. */
async function underGc<T>(fn: () => Promise<T>): Promise<T> {
  const { setFlagsFromString } = await import('node:v8');
  const { runInNewContext } = await import('node:vm');
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const t = setInterval(gc, 100);
  try {
    return await fn();
  } finally {
    clearInterval(t);
  }
}

describe('an upstream that hangs (issue 40)', () => {
  const live = (host: string, name: string): LiveInput => ({ kind: 'live', url: `https://${host}/${name}.json`, format: 'json' });

  it('fails each attempt at its own timeout, headers or body, with garbage collected meanwhile, not at the source deadline', async () => {
    const up = await hangingUpstream();
    try {
      // A deadline far beyond the three attempts: before, the timeout was collected and only this cut the fetch.
      const env = { ALMANAC_CACHE: dir(), ALMANAC_MIRROR: up.base, ALMANAC_FETCH_TIMEOUT_S: '0.3', ALMANAC_FETCH_BACKOFF_MS: '20', ALMANAC_FETCH_SOURCE_TIMEOUT_S: '15' };
      const source = { id: 'slow', inputs: { a: live('hang', 'a'), b: live('stall', 'b') } } as unknown as DatasetSource<any>;
      const out = await underGc(() => fetchAll([source], env, () => {}));
      expect(out).toEqual([
        expect.objectContaining({ url: 'https://hang/a.json', status: 'failed', reason: expect.stringMatching(/^no answer within 0\.3 s \(ALMANAC_FETCH_TIMEOUT_S\): 127\.0\.0\.1:\d+ \(after 3 attempts\)$/) }),
        expect.objectContaining({ url: 'https://stall/b.json', status: 'failed', reason: expect.stringMatching(/^no answer within 0\.3 s .*\(after 3 attempts\)$/) }),
      ]);
      expect(up.seen.filter((u) => u.startsWith('/hang/')).length).toBe(3);
      expect(up.seen.filter((u) => u.startsWith('/stall/')).length).toBe(3);
    } finally {
      await up.close();
    }
  });

  it('a source past its deadline fails only the inputs that had not answered: the others are fetched', async () => {
    const up = await hangingUpstream();
    try {
      const env = { ALMANAC_CACHE: dir(), ALMANAC_MIRROR: up.base, ALMANAC_FETCH_TIMEOUT_S: '60', ALMANAC_FETCH_SOURCE_TIMEOUT_S: '3' };
      const source = { id: 'mixed', inputs: { a: live('hang', 'first'), b: live('ok', 'second'), c: { kind: 'url', url: 'https://ok/third.json', sha256: sha256(BODY), format: 'json' } } } as unknown as DatasetSource<any>;
      const lines: string[] = [];
      const out = await underGc(() => fetchAll([source], env, (l) => lines.push(l)));
      expect(out).toEqual([
        expect.objectContaining({ url: 'https://ok/second.json', status: 'fetched' }),
        expect.objectContaining({ url: 'https://ok/third.json', status: 'fetched' }),
        expect.objectContaining({ url: 'https://hang/first.json', status: 'failed', reason: "the source's fetch deadline passed" }),
      ]);
      expect(readFileSync(cachedLocation('https://ok/second.json', env), 'utf8')).toBe(BODY);
      expect(lines).toEqual([expect.stringMatching(/^fetch: mixed: skipped, 1 of 3 inputs unavailable \(https:\/\/hang\/first\.json: the source's fetch deadline passed\)$/)]);
    } finally {
      await up.close();
    }
  });
});

describe('the publisher first, then known copies', () => {
  const PUBLISHER = 'https://publisher.example/codes.csv';
  const copies = ['https://copies.example/a/codes.csv', 'https://copies.example/b/codes.csv'];

  it('asks the publisher first; bytes other than the pin fall back to the first copy that matches, which is recorded and reported', async () => {
    const env = envFor();
    upstream.requests.length = 0;
    const source = { id: 'codes', inputs: { codes: { kind: 'url', url: PUBLISHER, copies, sha256: sha256(CSV), format: 'text' } } } as unknown as DatasetSource<any>;
    const lines: string[] = [];
    expect(await fetchAll([source], env, (l) => lines.push(l))).toEqual([expect.objectContaining({ status: 'fetched' })]);
    expect(upstream.requests.map((r) => r.url)).toEqual(['/publisher.example/codes.csv', '/copies.example/a/codes.csv', '/copies.example/b/codes.csv']);
    expect(readFileSync(cachedLocation(PUBLISHER, env), 'utf8')).toBe(CSV);
    expect(readFileSync(viaPath(cachedLocation(PUBLISHER, env)), 'utf8')).toBe(`${copies[1]}\n`);
    expect(lines).toEqual([`fetch: codes: ${PUBLISHER} from the known copy ${copies[1]} (the publisher: sha256 mismatch for ${PUBLISHER} (the mirror's ${upstream.base}/publisher.example/codes.csv): got ${sha256(publisherBody)}, pinned ${sha256(CSV)})`]);
  });

  it('takes the publisher\'s bytes when they match the pin, and forgets the copy', async () => {
    const env = envFor();
    const spec = { url: PUBLISHER, copies, sha256: sha256(CSV) };
    expect(await fetchPinned(spec, env)).toMatchObject({ status: 'fetched', via: copies[1] });
    publisherBody = CSV;
    try {
      rmSync(cachedLocation(PUBLISHER, env)); // as on a fresh machine

      expect(await fetchPinned(spec, env)).toEqual({ status: 'fetched', via: PUBLISHER });
      expect(existsSync(viaPath(cachedLocation(PUBLISHER, env)))).toBe(false);
    } finally {
      publisherBody = 'code,title\n11,Agriculture, Forestry\n';
    }
  });

  it('fails naming the publisher and every copy when none has the pinned bytes', async () => {
    await expect(fetchPinned({ url: PUBLISHER, copies: [copies[0]], sha256: sha256(CSV) }, envFor()))
      .rejects.toThrow(/^sha256 mismatch for https:\/\/publisher\.example\/codes\.csv \(the mirror's http:\/\/127\.0\.0\.1:\d+\/publisher\.example\/codes\.csv\): .*; known copies: sha256 mismatch for https:\/\/copies\.example\/a\/codes\.csv/);
  });
});

describe('a machine without network (issue 28)', () => {
  it('tries each unreachable host once per run: the next URL of that host fails at once, without connecting', async () => {
    const { createServer } = await import('node:net');
    const port = await closedPort();
    const url = (p: string) => `http://127.0.0.1:${port}/${p}`;
    await unreachableHosts.run(new Map(), async () => {
      await expect(getWithRetries(url('a'), {}, { env: { ALMANAC_FETCH_BACKOFF_MS: '1' } })).rejects.toThrow(/ECONNREFUSED/);
      // Someone listens now; within this run the host is still known unreachable, so nothing connects.
      let connections = 0;
      const late = createServer((s) => { connections++; s.destroy(); });
      await new Promise<void>((r) => late.listen(port, '127.0.0.1', r));
      try {
        await expect(getWithRetries(url('b'), {}, { env: { ALMANAC_FETCH_BACKOFF_MS: '1' } })).rejects.toThrow(/ECONNREFUSED/);
        expect(connections).toBe(0);
      } finally {
        await new Promise<void>((r) => late.close(() => r()));
      }
    });
  });

  it('says so in one line for all the datasets it could not fetch, naming the hosts and how to supply the data', async () => {
    const base = `http://127.0.0.1:${await closedPort()}`; // nobody listens: refused
    const many = (id: string, n: number) => ({ id, inputs: Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, { kind: 'url', url: `https://files.example/${id}/${i}.csv`, sha256: '0'.repeat(64), format: 'text' }])) }) as unknown as DatasetSource<any>;
    const lines: string[] = [];
    const out = await fetchAll([many('alpha', 30), many('beta', 30)], { ALMANAC_CACHE: dir(), ALMANAC_MIRROR: base }, (l) => lines.push(l));
    expect(out.filter((o) => o.status === 'failed')).toHaveLength(60);
    expect(lines).toEqual([expect.stringMatching(/^fetch: 1 upstream host unreachable \(files\.example\): 2 datasets skipped \(alpha, beta\)\. To supply them: npm run fetch on a machine with network, or ALMANAC_MIRROR=/)]);
  });
});
