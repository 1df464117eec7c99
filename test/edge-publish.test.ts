/**
 * Publishing to the edge through failures (issue 39, item 1) and the operator endpoints'
 * answers to malformed input (item 5), against the Worker in workerd. Faults are real
 * ones, injected by an HTTP proxy between the publisher and the Worker: connections
 * dropped mid-request (what workerd did to kept-alive connections: ECONNRESET, EPIPE) and
 * 503s; a publisher that gives up halfway through a large file; an upload left open by an
 * earlier run of another release.
 */
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import Database from 'better-sqlite3';
import { readdirSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { startLocalEdge, type LocalEdge } from '../edge/local.ts';
import { publishRelease } from '../edge/publish.ts';
import { edgeCall } from '../server/cli/edge-push.ts';
import { fsRelease } from '../server/release/fs-reader.ts';
import { cleanup, quiet, tempDir } from './helpers.ts';

const dist = inject('sharedDist');
const MiB = 2 ** 20;
// The largest file of the test release (geography/places/search.bin, 7.2 MB) goes up in
// two parts of R2's smallest size: the resumable path, on real data.
const PARTS = { maxSingle: 6 * MiB, partBytes: 5 * MiB };

type Fault = 'drop' | '503' | undefined;
interface Proxy { url: string; seen: string[]; close(): Promise<void> }

/**
 * An HTTP proxy to `target` that applies `fault(n, req, attempt)` to the n-th request
 * (`attempt`: how often this method and URL came before): drop the connection, or answer 503.
 */
async function flakyProxy(target: () => string, fault: (n: number, req: IncomingMessage, attempt: number) => Fault): Promise<Proxy> {
  let n = 0;
  const seen: string[] = [];
  const attempts = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const id = `${req.method} ${req.url}`;
    attempts.set(id, (attempts.get(id) ?? 0) + 1);
    const f = fault(++n, req, attempts.get(id)! - 1);
    seen.push(`${f ?? 'ok'} ${req.method} ${req.url}`);
    if (f === 'drop') return void req.socket.destroy();
    if (f === '503') {
      req.resume();
      res.writeHead(503, { 'content-type': 'application/json' });
      return void res.end('{"error":{"code":"internal_error","message":"injected","status":503}}');
    }
    const u = request(target() + req.url, { method: req.method, headers: req.headers }, (ur) => {
      res.writeHead(ur.statusCode!, ur.headers);
      ur.pipe(res);
    });
    u.on('error', () => res.destroy());
    req.pipe(u);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise((r) => {
      server.close(() => r());
      server.closeAllConnections();
    }),
  };
}

/** Rows of R2's multipart tables in the local bucket's storage (what takes room on disk). */
function partsOnDisk(state: string): number {
  const dir = path.join(state, 'edge', 'r2', 'miniflare-R2BucketObject');
  const file = readdirSync(dir).find((f) => /^[0-9a-f]{64}\.sqlite$/.test(f))!;
  const db = new Database(path.join(dir, file), { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM _mf_multipart_parts WHERE object_key IS NULL').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe('publishing through failures', () => {
  let state: string;
  let edge: LocalEdge;
  let proxy: Proxy | undefined;
  const env = { retries: process.env.ALMANAC_EDGE_RETRIES, backoff: process.env.ALMANAC_EDGE_BACKOFF_MS };
  beforeAll(() => {
    process.env.ALMANAC_EDGE_BACKOFF_MS = '20';
  });
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
    await edge?.close(0);
    if (state) cleanup(state);
  });
  afterAll(() => {
    for (const [k, v] of [['ALMANAC_EDGE_RETRIES', env.retries], ['ALMANAC_EDGE_BACKOFF_MS', env.backoff]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });
  const fresh = async () => {
    state = tempDir('almanac-edge-publish-');
    edge = await startLocalEdge({ stateDir: state, dist, port: 0, log: quiet, bundled: true, publish: false, sync: false });
  };

  it('goes live through dropped connections and 503s, every file in the bucket with its size, the calls retried', async () => {
    await fresh();
    // Every 5th request's connection dropped, every 7th answered 503, and the first
    // retry of either fails once more: transient faults, as workerd's and Cloudflare's are.
    proxy = await flakyProxy(() => edge.direct(), (n, _req, attempt) => (attempt > 1 ? undefined : n % 5 === 0 ? 'drop' : n % 7 === 0 ? '503' : undefined));
    const r = await publishRelease({ url: proxy.url, token: edge.token, dist, log: quiet, ...PARTS });
    const release = fsRelease(dist);
    expect(r.switched).toBe(true);
    expect(r.id).toBe(release.id);
    expect(r.retries).toBeGreaterThan(100);
    expect(proxy.seen.filter((s) => s.startsWith('drop')).length).toBeGreaterThan(100);
    const listed = new Map<string, number>();
    for (let cursor: string | null = null; ;) {
      const page: { objects: { key: string; size: number }[]; cursor: string | null } = await edgeCall(edge, 'GET', `/_edge/list?prefix=releases/${r.id}/${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      for (const o of page.objects) listed.set(o.key, o.size);
      if (!(cursor = page.cursor)) break;
    }
    for (const [rel, e] of Object.entries(release.manifest.files)) expect(listed.get(`releases/${r.id}/${rel}`), rel).toBe(e.size);
    const health = await fetch(`${edge.url}/healthz`);
    expect(await health.json()).toMatchObject({ status: 'ok', release: r.id });
  }, 600_000);

  it('resumes a large file\'s upload where a failed run stopped: the parts already there are not sent again', async () => {
    await fresh();
    let broken = true;
    // While broken, every second part of a multipart upload is dropped: the run gives up there.
    proxy = await flakyProxy(() => edge.direct(), (_n, req) => (broken && /multipart\?.*&part=2\b/.test(req.url ?? '') ? 'drop' : undefined));
    process.env.ALMANAC_EDGE_RETRIES = '2';
    const failed = await publishRelease({ url: proxy.url, token: edge.token, dist, log: quiet, concurrency: 1, ...PARTS }).then(() => 'published', (e: Error) => e.message);
    delete process.env.ALMANAC_EDGE_RETRIES;
    expect(failed).toMatch(/^PUT \/_edge\/multipart: .* \(after 2 attempts\)$/);
    expect(failed).not.toMatch(/\n/);
    const open = (await edgeCall(edge, 'GET', '/_edge/multipart')).open as string[];
    expect(open).toEqual([expect.stringMatching(/geography\/places\/search\.bin$/)]);
    broken = false;
    const r = await publishRelease({ url: proxy.url, token: edge.token, dist, log: quiet, ...PARTS });
    expect(r.switched).toBe(true);
    expect(r.resumedParts).toBe(1);
    // Part 1 crossed the wire once in the two runs; part 2 twice dropped, then once sent.
    const parts = (n: number) => proxy!.seen.filter((s) => new RegExp(`^ok PUT /_edge/multipart\\?.*&part=${n}\\b`).test(s)).length;
    expect([parts(1), parts(2)]).toEqual([1, 1]);
    expect((await edgeCall(edge, 'GET', '/_edge/multipart')).open).toEqual([]);
    expect(partsOnDisk(state)).toBe(0);
  }, 600_000);

  it('aborts, once a publish succeeds, the uploads earlier runs of other releases left open: their parts leave the disk', async () => {
    await fresh();
    // An earlier run of another release began a large file, sent a part and died.
    const other = 'bundles/0123456789abcdef/all.tar.gz';
    const places = path.join(dist, 'releases', fsRelease(dist).id, 'geography', 'places', 'search.bin');
    const { readFileSync } = await import('node:fs');
    const { createHash } = await import('node:crypto');
    const chunk = readFileSync(places).subarray(0, 5 * MiB);
    const begun = await edgeCall(edge, 'POST', `/_edge/multipart?path=${encodeURIComponent(other)}&size=${12 * MiB}&part_bytes=${5 * MiB}`);
    await edgeCall(edge, 'PUT', `/_edge/multipart?path=${encodeURIComponent(other)}&upload=${encodeURIComponent(begun.upload)}&part=1`, chunk, { 'x-sha256': createHash('sha256').update(chunk).digest('hex') });
    expect(partsOnDisk(state)).toBe(1);
    const r = await publishRelease({ ...edge, dist, log: quiet });
    expect(r.abandoned).toBe(1);
    expect((await edgeCall(edge, 'GET', '/_edge/multipart')).open).toEqual([]);
    expect(partsOnDisk(state)).toBe(0);
  }, 600_000);
});

describe('the operator endpoints refuse malformed input with the envelope', () => {
  let state: string;
  let edge: LocalEdge;
  beforeAll(async () => {
    state = tempDir('almanac-edge-admin-');
    edge = await startLocalEdge({ stateDir: state, dist, port: 0, log: quiet, bundled: true, publish: false, sync: false });
  }, 300_000);
  afterAll(async () => {
    await edge?.close(0);
    cleanup(state);
  });

  const call = async (method: string, p: string, body?: string, headers: Record<string, string> = {}) => {
    const r = await fetch(edge.url + p, { method, body, headers: { authorization: `Bearer ${edge.token}`, ...headers } });
    const text = await r.text();
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = text;
    }
    return { status: r.status, json, type: r.headers.get('content-type') };
  };
  const id = (): string => fsRelease(dist).id;

  type Case = [string, string, () => string, string | undefined, Record<string, string>, number, string];
  const CASES: Case[] = [
    ['a file without X-Sha256', 'PUT', (): string => `/_edge/files/releases/${id()}/elements/meta.json`, '{}', {}, 400, 'bad_request'],
    ['a file whose body does not match X-Sha256', 'PUT', (): string => `/_edge/files/releases/${id()}/elements/meta.json`, '{}', { 'x-sha256': 'ab'.repeat(32) }, 400, 'bad_request'],
    ['a file outside a release or bundle', 'PUT', (): string => '/_edge/files/current', id(), { 'x-sha256': 'ab'.repeat(32) }, 400, 'bad_request'],
    ['a part of a bogus upload', 'PUT', (): string => `/_edge/multipart?path=bundles/${id()}/all.tar.gz&upload=bogus&part=1`, 'x', { 'x-sha256': 'ab'.repeat(32) }, 409, 'conflict'],
    ['completing a bogus upload', 'POST', (): string => `/_edge/multipart?path=bundles/${id()}/all.tar.gz&upload=bogus&done`, undefined, {}, 409, 'conflict'],
    ['an upload of no size', 'POST', (): string => `/_edge/multipart?path=bundles/${id()}/all.tar.gz&size=-3&part_bytes=5242880`, undefined, {}, 400, 'bad_request'],
    ['a keys document that is not JSON', 'POST', (): string => '/_edge/keys', '{"keys": ', {}, 400, 'bad_request'],
    ['a keys document of the wrong shape', 'POST', (): string => '/_edge/keys', '{"keys": []}', {}, 400, 'bad_request'],
    ['a reviews document of the wrong shape', 'POST', (): string => '/_edge/reviews', '[1]', {}, 400, 'bad_request'],
    ['a count of the wrong shape', 'POST', (): string => '/_edge/usage', '{"meter":"m","month":"2026-13-01","used":-1}', {}, 400, 'bad_request'],
    ['counts asked for a malformed month', 'GET', (): string => '/_edge/usage?month=May&meters=a', undefined, {}, 400, 'bad_request'],
    ['a switch to something not a release id', 'PUT', (): string => '/_edge/current', '../etc', {}, 400, 'bad_request'],
    ['a switch to a release never published', 'PUT', (): string => '/_edge/current', 'fedcba9876543210', {}, 409, 'conflict'],
    ['an unknown operator endpoint', 'GET', (): string => '/_edge/nothing', undefined, {}, 404, 'not_found'],
  ];
  it.each(CASES)('%s', async (_what, method, p, body, headers, status, code) => {
    const r = await call(method, p(), body, headers);
    expect([r.status, r.json?.error?.code, r.json?.error?.status]).toEqual([status, code, status]);
    expect(r.type).toMatch(/^application\/json/);
  }, 60_000);

  it('stores nothing a refused upload sent', async () => {
    const listed = await edgeCall(edge, 'GET', '/_edge/list?prefix=releases/');
    expect(listed.objects).toEqual([]);
  });
});
