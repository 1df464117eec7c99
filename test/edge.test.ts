/**
 * The Worker (edge/), run in workerd from the npm registry (Miniflare: R2, KV, Durable
 * Objects and the Cache API, no network), against the Node server on the same release:
 * the same answers byte for byte, exact quotas across clients, revocation from the next
 * request, no data without a key, and the Cache API sparing R2.
 */
import { writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startLocalEdge, type LocalEdge } from '../edge/local.ts';
import { pullUsage, pushElsewhere, syncKeys } from '../edge/sync.ts';
import { runKeys } from '../server/cli/keys-commands.ts';
import { QuotaStore } from '../server/state/quota.ts';
import { edgeCall } from '../server/cli/edge-push.ts';
import { publishRelease } from '../edge/publish.ts';
import { build } from '../server/cli/build.ts';
import { writeBundle } from '../pipeline/bundle.ts';
import elements from '../sources/elements.ts';
import { fsRelease } from '../server/release/fs-reader.ts';
import { KeyStore } from '../server/state/keys.ts';
import { monthOf } from '../server/state/plans.ts';
import * as T from '../server/state/transitions.ts';
import { sampleRequests, random, type Sampled } from './edge-urls.ts';
import fc from 'fast-check';
import { SOURCES } from '../sources/index.ts';
import { hostileRequests, sendAll } from './hostile-requests.ts';
import { cleanup, quiet, startServer, tempDir, type Running } from './helpers.ts';

interface Raw { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }

/** One request over node:http: the bytes as sent (no decompression), every header. */
function raw(base: string, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(base + path, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const dist = inject('sharedDist');

function credentials(s: Sampled, key: string): { path: string; headers: Record<string, string> } {
  const sep = s.path.includes('?') ? '&' : '?';
  switch (s.auth) {
    case 'header': return { path: s.path, headers: { 'x-service-key': key } };
    case 'bearer': return { path: s.path, headers: { authorization: `Bearer ${key}` } };
    case 'query': return { path: `${s.path}${sep}key=${encodeURIComponent(key)}`, headers: {} };
    case 'wrong': return { path: s.path, headers: { authorization: 'Bearer alm_not-a-key-of-this-deployment', 'x-service-key': 'alm_not-a-key-of-this-deployment' } };
    default: return { path: s.path, headers: {} };
  }
}

/** What must be equal between the two: the status, the bytes, and the headers a client or cache acts on. */
function comparable(r: Raw, path: string) {
  let body = r.body;
  // /api/v1/key shows when the key was last counted, in seconds: the two count a moment apart.
  if (path.startsWith('/api/v1/key') && r.status === 200 && !r.headers['content-encoding']) {
    const j = JSON.parse(body.toString());
    j.data.last_used = j.data.last_used ? 'a time' : null;
    body = Buffer.from(JSON.stringify(j));
  }
  const remaining = /r=(\d+)/.exec(String(r.headers.ratelimit ?? ''))?.[1];
  return {
    status: r.status, body: body.toString('base64'),
    headers: {
      etag: r.headers.etag, 'content-encoding': r.headers['content-encoding'], 'content-type': r.headers['content-type'],
      'cache-control': r.headers['cache-control'], vary: r.headers.vary, 'ratelimit-policy': r.headers['ratelimit-policy'],
      'www-authenticate': r.headers['www-authenticate'], 'retry-after': r.headers['retry-after'], remaining,
    },
  };
}

describe('the Worker in workerd beside the Node server', () => {
  let state: string;
  let node: Running;
  let edge: LocalEdge;
  let key: string;

  beforeAll(async () => {
    state = tempDir('almanac-edge-');
    node = await startServer(dist, state);
    key = node.key('development');
    edge = await startLocalEdge({ stateDir: state, dist, port: 0, log: quiet });
  }, 300_000);
  afterAll(async () => {
    await edge?.close();
    await node?.close();
    cleanup(state);
  });

  it('compresses a 100-verse study range (over 1 MiB: streamed to the compressor, its stored texts inflated as it goes) to the same bytes as the Node server', async () => {
    const p = '/api/v1/study/kjv/range?from=gen.1.1&to=gen.4.20';
    const auth = { authorization: `Bearer ${key}` };
    // Each request asked of both, so their counts of the key stay equal (the sampled test compares them).
    const identity = await raw(node.base, p, auth);
    expect(identity.status).toBe(200);
    expect(identity.body.length).toBeGreaterThan(2 ** 20);
    expect((await raw(edge.url, p, auth)).body.equals(identity.body)).toBe(true);
    for (const coding of ['br', 'gzip']) {
      const a = await raw(node.base, p, { ...auth, 'accept-encoding': coding });
      const b = await raw(edge.url, p, { ...auth, 'accept-encoding': coding });
      expect([a.status, b.status]).toEqual([200, 200]);
      expect([a.headers['content-encoding'], b.headers['content-encoding']]).toEqual([coding, coding]);
      const decode = coding === 'br' ? brotliDecompressSync : gunzipSync;
      expect(decode(a.body).equals(identity.body), `node ${coding}`).toBe(true);
      expect(decode(b.body).equals(identity.body), `edge ${coding}`).toBe(true);
      expect(b.headers.etag).toBe(a.headers.etag);
      expect(b.body.equals(a.body), `the same ${coding} bytes under the same ETag`).toBe(true);
    }
  }, 120_000);

  it('gives the same status, body bytes and caching headers for 1,000 sampled requests (lists, lookups, searches, text, study, errors, 304s, br and gzip)', async () => {
    const sample = await sampleRequests(fsRelease(dist));
    expect(sample.length).toBeGreaterThanOrEqual(1000);
    const rnd = random(7);
    const seen = new Map<string, string>();
    const kinds = { conditional: 0, notModified: 0, br: 0, gzip: 0, head: 0, problem: 0, errors: 0 };
    const differ: string[] = [];
    for (const s of sample) {
      const { path, headers } = credentials(s, key);
      const coding = rnd();
      if (coding < 0.3) (headers['accept-encoding'] = 'br, gzip'), kinds.br++;
      else if (coding < 0.45) (headers['accept-encoding'] = 'gzip'), kinds.gzip++;
      if (rnd() < 0.05) (headers.accept = 'application/problem+json'), kinds.problem++;
      const etag = seen.get(`${path} ${headers['accept-encoding'] ?? ''}`);
      if (etag && rnd() < 0.5) (headers['if-none-match'] = etag), kinds.conditional++;
      const method = rnd() < 0.03 ? 'HEAD' : 'GET';
      if (method === 'HEAD') kinds.head++;
      const a = await raw(node.base, path, headers, method);
      const b = await raw(edge.url, path, headers, method);
      if (a.status === 304) kinds.notModified++;
      if (a.status >= 400) kinds.errors++;
      if (typeof a.headers.etag === 'string') seen.set(`${path} ${headers['accept-encoding'] ?? ''}`, a.headers.etag);
      const [x, y] = [comparable(a, path), comparable(b, path)];
      try {
        expect(y).toEqual(x);
      } catch {
        differ.push(`${method} ${path} ${JSON.stringify(headers)}: node ${a.status} ${a.body.subarray(0, 120)} | edge ${b.status} ${b.body.subarray(0, 120)}`);
      }
      expect(a.status, path).toBeLessThan(500);
    }
    if (differ.length) writeFileSync(path.join(tmpdir(), 'almanac-edge-differ.txt'), differ.join('\n'));
    expect(differ.slice(0, 5), `${differ.length} of ${sample.length} differ`).toEqual([]);
    // The sample holds each kind of request the test claims.
    expect(kinds.notModified).toBeGreaterThan(20);
    expect(kinds.br).toBeGreaterThan(200);
    expect(kinds.errors).toBeGreaterThan(50);
    expect(kinds.head).toBeGreaterThan(5);
  }, 600_000);

  it('answers 3,000 generated hostile requests with no 5xx and the envelope on every error', async () => {
    const other = node.key('development');
    await syncKeys(edge, state);
    const reqs = fc.sample(hostileRequests(key, other), { seed: 20261126, numRuns: 3000 });
    const absent = SOURCES.map((x) => x.id).filter((id) => !fsRelease(dist).datasets.has(id));
    const out = await sendAll(edge.url, reqs, 8, absent);
    const sent = out.filter((o) => o.status !== -1);
    expect(sent.length).toBeGreaterThan(3000 * 0.95);
    expect(sent.filter((o) => o.fault).map((o) => `${o.req.method} ${o.req.path.slice(0, 150)} → ${o.fault}`).slice(0, 10)).toEqual([]);
    const statuses = new Set(sent.map((o) => o.status));
    for (const st of [200, 400, 401, 403, 404, 405]) expect(statuses, `status ${st}`).toContain(st);
  }, 300_000);

  it('answers no data without a key, on any route of either surface', async () => {
    const sample = (await sampleRequests(fsRelease(dist))).slice(0, 400);
    const publicPaths = /^\/(healthz|apis\/openapi\.json|api\/v1\/openapi|docs)(\?|$)/;
    let refused = 0;
    for (const s of sample) {
      const r = await raw(edge.url, s.path);
      if (publicPaths.test(s.path) || s.path === '/nothing-here') continue;
      expect([401, 404].includes(r.status) && (r.status === 401 || !s.path.startsWith('/ap')), `${s.path}: ${r.status}`).toBe(true);
      expect(r.body.toString()).toMatch(/"error"/);
      refused++;
    }
    expect(refused).toBeGreaterThan(300);
  }, 300_000);
});

describe('keys and quotas at the edge', () => {
  let state: string;
  let edge: LocalEdge;
  let store: KeyStore;
  beforeAll(async () => {
    state = tempDir('almanac-edge-quota-');
    store = new KeyStore(state, quiet);
    edge = await startLocalEdge({ stateDir: state, dist, port: 0, log: quiet, bundled: true });
  }, 300_000);
  afterAll(async () => {
    await edge?.close();
    cleanup(state);
  });

  const get = (secret: string, path = '/apis/elements/Fe') => raw(edge.url, path, { 'x-service-key': secret });
  /** The key the quota test takes to its month's end. */
  let quotaSecret = '';
  /** A new key works once the isolate sees the new index in KV: at once, or after its once-a-second re-read. */
  const until200 = async (secret: string) => {
    for (const until = Date.now() + 5000; ;) {
      const r = await get(secret);
      if (r.status === 200 || Date.now() > until) return r.status;
      await new Promise((res) => setTimeout(res, 100));
    }
  };
  const meterOf = (secret: string) => {
    const rec = store.verify(secret)!;
    return store.doc().projects[rec.project!].meter ?? rec.id;
  };

  it('stops a basic key at exactly its monthly quota with two concurrent clients', async () => {
    const { secret } = store.create('basic', 'quota test');
    quotaSecret = secret;
    await syncKeys(edge, state);
    expect(await until200(secret)).toBe(200);
    // 25,000 a month: carry the month over to 40 short of it, then race two clients to the end.
    await new Promise((res) => setTimeout(res, 1100)); // a full burst bucket
    await edgeCall(edge, 'POST', '/_edge/usage', JSON.stringify({ meter: meterOf(secret), month: monthOf(Date.now()), used: 24_960 }), { 'content-type': 'application/json' });
    const served: number[] = [0, 0];
    const refusals = new Set<string>();
    await Promise.all([0, 1].map(async (c) => {
      for (;;) {
        const r = await get(secret);
        if (r.status === 200) served[c]++;
        else {
          const code = JSON.parse(r.body.toString()).error.code;
          refusals.add(code);
          if (code === 'monthly_quota_exceeded') return;
          await new Promise((res) => setTimeout(res, 120)); // rate_limited: wait for the bucket
        }
      }
    }));
    expect(served[0] + served[1]).toBe(40);
    expect(served[0]).toBeGreaterThan(0);
    expect(served[1]).toBeGreaterThan(0);
    const after = await get(secret);
    expect(after.status).toBe(429);
    expect(after.headers.ratelimit).toMatch(/^"monthly";r=0;t=\d+$/);
    expect(JSON.parse(after.body.toString()).error.details).toMatchObject({ plan: 'basic', monthly_quota: 25_000, used: 25_000 });
  }, 300_000);

  it('shows the edge\'s counts in npm run keys -- usage, and the Node server on the same state folder counts them against the same quota', async () => {
    // The key the test above took to its 25,000 at the edge.
    const rec = Object.values(store.doc().keys).find((k) => k.label === 'quota test')!;
    const usage = () => {
      const out: string[] = [];
      expect(runKeys(['usage', rec.id], { ...process.env, ALMANAC_STATE_DIR: state }, (l) => out.push(l))).toBe(0);
      return out.join('\n');
    };
    await pullUsage(edge, state);
    expect(usage()).toMatch(new RegExp(`^${rec.id}\t${monthOf(Date.now())}\t25000/25000\t.*\t\\(node 0, edge 25000 as of `));
    // One key, one quota: a Node server on this state folder refuses it too.
    const node = await startServer(dist, state);
    try {
      const secret = node.key('basic'); // a fresh key still works there
      expect((await raw(node.base, '/apis/elements/Fe', { 'x-service-key': secret })).status).toBe(200);
      const r = await raw(node.base, '/apis/elements/Fe', { 'x-service-key': quotaSecret });
      expect([r.status, JSON.parse(r.body.toString()).error.code]).toEqual([429, 'monthly_quota_exceeded']);
    } finally {
      await node.close();
    }
  }, 300_000);

  it('counts the Node server\'s requests against a key\'s quota at the edge: the sum is the quota', async () => {
    const { secret } = store.create('basic', 'shared quota');
    await syncKeys(edge, state);
    expect(await until200(secret)).toBe(200);
    // The Node server of this state folder has served the key 24,990 times this month.
    const quota = new QuotaStore(state, { log: quiet });
    quota.open();
    quota.countMany(Array.from({ length: 24_990 }, () => meterOf(secret)));
    quota.close();
    expect(await pushElsewhere(edge, state)).toBeGreaterThan(0);
    await new Promise((res) => setTimeout(res, 1100)); // a full burst bucket
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await get(secret)).status);
    expect(statuses.filter((st) => st === 200).length).toBe(9); // 24,990 + 1 (above) + 9 = 25,000
    await new Promise((res) => setTimeout(res, 1100)); // a full burst bucket: the refusal is the month's
    const last = await get(secret);
    expect(JSON.parse(last.body.toString()).error).toMatchObject({ code: 'monthly_quota_exceeded', details: { used: 25_000 } });
  }, 300_000);

  it('answers a burst over the plan with 429 rate_limited, as the Node server does', async () => {
    const { secret } = store.create('basic', 'burst test');
    await syncKeys(edge, state);
    expect(await until200(secret)).toBe(200);
    await new Promise((res) => setTimeout(res, 1100)); // a full bucket again
    const rs = await Promise.all(Array.from({ length: 30 }, () => get(secret)));
    const limited = rs.filter((r) => r.status === 429);
    expect(rs.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(10);
    expect(limited.length).toBeGreaterThan(10);
    const body = JSON.parse(limited[0].body.toString());
    expect(body.error).toMatchObject({ code: 'rate_limited', details: { limit_per_second: 10 } });
    expect(limited[0].headers['retry-after']).toBe('1');
    expect(limited[0].headers.ratelimit).toBe('"burst";r=0;t=1');
  }, 300_000);

  it('refuses a revoked key and a cancelled subscription from the next request after the sync', async () => {
    const a = store.create('standard', 'revoke test');
    const b = store.create('standard', 'cancel test');
    await syncKeys(edge, state);
    expect(await until200(a.secret)).toBe(200);
    expect(await until200(b.secret)).toBe(200);
    store.setStatus(a.secret, 'revoked');
    store.run((doc, tx) => T.cancel(doc, tx, { project: store.verify(b.secret)!.project!, now: true }));
    await syncKeys(edge, state);
    const ra = await get(a.secret);
    expect([ra.status, JSON.parse(ra.body.toString()).error.code]).toEqual([401, 'invalid_key']);
    for (const [rb, status] of [[await get(b.secret), 401], [await raw(edge.url, '/api/v1/translations', { authorization: `Bearer ${b.secret}` }), 403]] as const) {
      expect(rb.status).toBe(status);
      expect(JSON.parse(rb.body.toString()).error.code).toBe('subscription_inactive');
    }
    // The other keys of the deployment are untouched.
    const c = store.create('standard', 'still here');
    await syncKeys(edge, state);
    expect(await until200(c.secret)).toBe(200);
  }, 300_000);
});

describe('the Cache API in front of R2', () => {
  let state: string;
  let edge: LocalEdge;
  beforeAll(async () => {
    state = tempDir('almanac-edge-cache-');
    // No shard or body cache in the isolate: whatever spares R2 is the Cache API.
    edge = await startLocalEdge({ stateDir: state, dist, port: 0, log: quiet, bundled: true, vars: { CACHE_MB: '0', RESPONSE_CACHE_MB: '0' } });
  }, 300_000);
  afterAll(async () => {
    await edge?.close();
    cleanup(state);
  });

  /** Asks until the edge knows a key just synced (it re-reads the key index at most once a second); the last status. */
  const recognised = async (key: string) => {
    for (const until = Date.now() + 10_000; ;) {
      const r = await raw(edge.url, '/apis/elements/Na', { authorization: `Bearer ${key}` });
      if (r.status === 200 || Date.now() > until) return r.status;
      await new Promise((res) => setTimeout(res, 100));
    }
  };

  it('reads R2 once for a body twenty clients ask for at the same moment (the others wait for it)', async () => {
    const key = new KeyStore(state, quiet).create('development', 'coalescing test').secret;
    await syncKeys(edge, state);
    const stats = async () => (await edgeCall(edge, 'GET', '/_edge/stats')) as { r2_reads: number; cache_coalesced: number; cache_hits: number };
    const one = (p: string) => raw(edge.url, p, { authorization: `Bearer ${key}`, 'accept-encoding': 'br' });
    expect(await recognised(key)).toBe(200); // the release and the synced key index loaded
    // What one first ask of a body reads from R2 (no isolate caches here)…
    let before = await stats();
    expect((await one('/apis/elements/K')).status).toBe(200);
    const alone = (await stats()).r2_reads - before.r2_reads;
    // …is what twenty at once read.
    before = await stats();
    const rs = await Promise.all(Array.from({ length: 20 }, () => one('/apis/elements/Ca')));
    const after = await stats();
    expect(rs.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(new Set(rs.map((r) => r.body.toString('base64'))).size).toBe(1);
    expect(after.r2_reads - before.r2_reads).toBeLessThanOrEqual(alone + 1); // + the live pointer's re-read
    // The other nineteen took the first one's body: waiting for it, or from the Cache API once written.
    expect(after.cache_coalesced - before.cache_coalesced + after.cache_hits - before.cache_hits).toBe(19);
  }, 300_000);

  it('after a first pass, 10,000 requests over 100 URLs read R2 at most 100 times', async () => {
    const key = new KeyStore(state, quiet).create('development', 'cache test').secret;
    await syncKeys(edge, state);
    // The Worker re-reads the key index at most once a second: a pass made before it has
    // seen the new key answers 401 to every request (a pass can take under a second).
    expect(await recognised(key)).toBe(200);
    // Bodies the core may keep (not study, reviews, usage or expiring alerts: those are composed per request).
    const uncached = /\/(study|morphology)\/|source-coverage|\/api\/v1\/key|downloads|weather-alerts|^\/healthz|openapi|^\/docs/;
    const paths: string[] = [];
    for (const s of await sampleRequests(fsRelease(dist), 99)) {
      if (paths.length === 100 || uncached.test(s.path) || paths.includes(s.path) || s.auth === 'query') continue;
      const r = await raw(edge.url, s.path, { authorization: `Bearer ${key}`, 'accept-encoding': 'br' });
      if (r.status === 200) paths.push(s.path);
    }
    expect(paths.length).toBe(100);
    const stats = async () => (await edgeCall(edge, 'GET', '/_edge/stats')) as { r2_reads: number; cache_hits: number };
    await new Promise((res) => setTimeout(res, 500)); // the first pass's cache writes (waitUntil) settle
    const before = await stats();
    let next = 0;
    const statuses = new Map<number, number>();
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (next < 10_000) {
        const p = paths[next++ % 100];
        const r = await raw(edge.url, p, { authorization: `Bearer ${key}`, 'accept-encoding': 'br' });
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      }
    }));
    const after = await stats();
    expect(statuses.get(200)).toBe(10_000);
    console.log(`10,000 requests over 100 URLs: ${after.r2_reads - before.r2_reads} R2 reads, ${after.cache_hits - before.cache_hits} Cache API hits`);
    expect(after.r2_reads - before.r2_reads).toBeLessThanOrEqual(100);
    expect(after.cache_hits - before.cache_hits).toBeGreaterThanOrEqual(9_900);
  }, 600_000);
});

describe('downloads at the edge', () => {
  let work: string;
  let edge: LocalEdge;
  let node: Running;
  beforeAll(async () => {
    work = tempDir('almanac-edge-bundle-');
    const small = path.join(work, 'dist');
    await build({ env: { ALMANAC_DIST: small, ALMANAC_CACHE: path.join(work, 'cache') }, sources: [elements], log: quiet });
    await writeBundle({ env: { ALMANAC_DIST: small }, log: quiet });
    node = await startServer(small, path.join(work, 'state'));
    edge = await startLocalEdge({ stateDir: path.join(work, 'state'), dist: small, publish: false, port: 0, log: quiet, bundled: true });
    // Every bundle file over 1 KiB goes up in parts, as a large archive would.
    await publishRelease({ ...edge, dist: small, log: quiet, maxSingle: 1024 });
  }, 300_000);
  afterAll(async () => {
    await edge?.close();
    await node?.close();
    cleanup(work);
  });

  it('lists and serves the bundle (published in parts) as the Node server does, with Range', async () => {
    const key = node.key('development');
    await syncKeys(edge, path.join(work, 'state'));
    const list = await raw(edge.url, '/apis/downloads', { 'x-service-key': key });
    expect(list.body.equals((await raw(node.base, '/apis/downloads', { 'x-service-key': key })).body)).toBe(true);
    const files = JSON.parse(list.body.toString()).data as { file: string; size: number }[];
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      const whole = await raw(edge.url, `/apis/downloads/${f.file}`, { 'x-service-key': key });
      expect(whole.status).toBe(200);
      expect(whole.body.equals((await raw(node.base, `/apis/downloads/${f.file}`, { 'x-service-key': key })).body)).toBe(true);
      expect(whole.body.length).toBe(f.size);
      const part = await raw(edge.url, `/apis/downloads/${f.file}`, { 'x-service-key': key, range: 'bytes=10-19' });
      expect([part.status, part.headers['content-range']]).toEqual([206, `bytes 10-19/${f.size}`]);
      expect(part.body.equals(whole.body.subarray(10, 20))).toBe(true);
    }
  }, 300_000);
});
