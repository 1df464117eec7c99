/**
 * Delivery (issue 12, responses): content codings chosen by Accept-Encoding with one ETag
 * per representation, the cache policy table, what is not billed (304, /api/v1/key), 401
 * challenges and RFC 9457 problem details, a constant RateLimit-Policy, and live bodies
 * that stay the same between fetches with `stale` meaning "older than the feed's refresh".
 * Raw HTTP (node:http) is used where bytes matter: fetch would decompress behind our back.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { build } from '../server/cli/build.ts';
import { sha256 } from '../pipeline/inputs.ts';
import { PROJECT_ROOT, cachedLocation, fetchRecordPath } from '../pipeline/paths.ts';
import { Limits } from '../server/state/limits.ts';
import { MONTHLY_WINDOW_SECONDS } from '../server/state/plans.ts';
import { CACHE_POLICY } from '../server/http/cache-policy.ts';
import { Encoded, negotiate, type Deferred } from '../server/http/encoding.ts';
import { hashOf } from '../server/http/respond.ts';
import { FEED_URL, feed } from './fixtures/live-source.ts';
import { cleanup, quiet, startServer, type Running } from './helpers.ts';
import { tempDirs } from './temp.ts';

interface Raw { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }

function raw(base: string, p: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(base + p, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const decode = (r: Raw) => {
  const enc = r.headers['content-encoding'];
  return enc === 'br' ? brotliDecompressSync(r.body) : enc === 'gzip' ? gunzipSync(r.body) : r.body;
};

describe('Accept-Encoding negotiation (RFC 9110 §12.5.3)', () => {
  const both = ['br', 'gzip'] as const;
  it.each([
    [undefined, ''],
    ['', ''],
    ['gzip, deflate, br', 'br'],
    ['br;q=0.5, gzip', 'gzip'],
    ['gzip;q=0.5, identity;q=0.8', ''],
    ['BR', 'br'],
    ['x-gzip', 'gzip'],
    ['*', 'br'],
    ['br;q=0, *', 'gzip'],
    ['br;q=0, gzip;q=0', ''],
    ['identity;q=0', ''],
    ['*;q=0, identity', ''],
    ['br;q=2, gzip', 'gzip'], // an invalid qvalue makes its member unusable
    ['deflate', ''],
  ])('%j → %j', (header, want) => {
    expect(negotiate(header, both)).toBe(want);
  });

  it('answers a repeated header from its memo per set of offered codings, alike to the first parse', () => {
    for (let round = 0; round < 2; round++) {
      expect(negotiate('gzip, br', both)).toBe('br');
      expect(negotiate('gzip, br', ['gzip'])).toBe('gzip');
      expect(negotiate('gzip, br', ['br'])).toBe('br');
      expect(negotiate('br;q=0.1, gzip;q=0.2', both)).toBe(''); // identity, unlisted, has q=1
      expect(negotiate('br;q=0.1, gzip;q=0.2, identity;q=0', both)).toBe('gzip');
    }
    // Headers past the memo's bounds (long, or a thousand distinct ones) are parsed every time, alike.
    const long = `${'x-custom;q=0.1, '.repeat(30)}gzip`;
    expect(negotiate(long, both)).toBe('gzip');
    for (let i = 0; i < 1000; i++) expect(negotiate(`br;q=0.${String(i).padStart(3, '0')}, gzip;q=0.5, identity;q=0`, both)).toBe(i >= 500 ? 'br' : 'gzip');
  });

  it('compresses a composed body once per coding, shared by concurrent requests', async () => {
    const e = new Encoded(JSON.stringify({ data: Array.from({ length: 200 }, (_, i) => ({ i, text: 'In the beginning' })) }), 'h');
    const [a, b] = await Promise.all([e.get('br'), e.get('br')]);
    expect(a.coding).toBe('br');
    expect(a.body).toBe(b.body); // the same Buffer: one compression
    const again = e.get('br');
    expect(again).not.toBeInstanceOf(Promise); // once made, a coding is answered without a promise
    expect((await again).body).toBe(a.body);
    expect(brotliDecompressSync(a.body as Buffer).toString()).toBe(e.body);
    expect(new Encoded('{"a":1}', 'h').offered).toEqual([]); // under 1 KB: identity only
  });

  it('compresses a body given in parts as the bytes they join into, with concurrent compressions kept apart', async () => {
    // Parts share reused scratch buffers (http/encoding.ts): eight bodies of different
    // sizes compressed at once, each must decode to its own bytes, in every coding.
    const bodies = Array.from({ length: 8 }, (_, k) => Array.from({ length: 50 + 40 * k }, (_, i) => Buffer.from(`{"k":${k},"i":${i},"t":"${'w'.repeat((i * 7 + k) % 300)}"},`)));
    const joined = bodies.map((parts) => Buffer.concat(parts));
    const es = bodies.map((parts, k) => new Encoded(parts, `h${k}`));
    const got = await Promise.all(es.flatMap((e) => [e.get('br'), e.get('gzip')]));
    for (let k = 0; k < es.length; k++) {
      expect(got[2 * k].coding).toBe('br');
      expect(brotliDecompressSync(got[2 * k].body as Buffer).equals(joined[k])).toBe(true);
      expect(gunzipSync(got[2 * k + 1].body as Buffer).equals(joined[k])).toBe(true);
      const id = es[k].get('');
      expect(id).not.toBeInstanceOf(Promise);
      expect(((await id).body as Buffer).equals(joined[k])).toBe(true);
      expect(es[k].bytes).toBe(joined[k].length + (got[2 * k].body as Buffer).length + (got[2 * k + 1].body as Buffer).length);
    }
    expect(hashOf(bodies[3])).toBe(hashOf(joined[3]));
  });

  it('streams a large body of parts to the compressor, several at once, each decoding to its own bytes', async () => {
    // Over 1 MiB (a study range is ~4 MB): compressed 256 KB at a time while the rest is made (http/encoding.ts compressStreamed).
    const big = (k: number) => Array.from({ length: 4000 + 500 * k }, (_, i) => Buffer.from(`{"k":${k},"i":${i},"t":"${'abcdefgh'.repeat(20 + ((i * 13 + k) % 40))}"},`));
    const bodies = [0, 1, 2].map(big);
    const joined = bodies.map((parts) => Buffer.concat(parts));
    for (const j of joined) expect(j.length).toBeGreaterThan(2 ** 20);
    const es = bodies.map((parts, k) => new Encoded(parts, `b${k}`));
    const got = await Promise.all(es.flatMap((e) => [e.get('br'), e.get('gzip')]));
    for (let k = 0; k < es.length; k++) {
      expect(got[2 * k].coding).toBe('br');
      expect(brotliDecompressSync(got[2 * k].body as Buffer).equals(joined[k])).toBe(true);
      expect(got[2 * k + 1].coding).toBe('gzip');
      expect(gunzipSync(got[2 * k + 1].body as Buffer).equals(joined[k])).toBe(true);
    }
  });

  it('makes a deferred part only when its body is written, in every coding, and not when a made form is adopted', async () => {
    // A stored panel text stays deflated until written (api/v1/study-panels.ts); here, parts
    // that count how often they were made.
    let made = 0;
    const deferred = (text: string): Deferred => ({ length: Buffer.byteLength(text), held: 1, bytes: () => (made++, Buffer.from(text)) });
    const texts = Array.from({ length: 120 }, (_, i) => `{"i":${i},"t":"${'x'.repeat(i % 90)}"}`);
    const parts = () => [Buffer.from('['), ...texts.flatMap((t, i) => [deferred(t), Buffer.from(i < texts.length - 1 ? ',' : ']')])];
    const joined = Buffer.from(`[${texts.join(',')}]`);
    const e = new Encoded(parts(), 'h');
    expect(made).toBe(0);
    expect(e.bytes).toBe(joined.length);
    const br = await e.get('br');
    expect(made).toBe(texts.length);
    expect(brotliDecompressSync(br.body as Buffer).equals(joined)).toBe(true);
    expect(gunzipSync((await e.get('gzip')).body as Buffer).equals(joined)).toBe(true);
    expect(((await e.get('')).body as Buffer).equals(joined)).toBe(true);
    expect(hashOf(parts())).toBe(hashOf(joined));
    made = 0;
    // The same body again, its compressed forms known by its ETag (core/app.ts byEtag): nothing made.
    const again = new Encoded(parts(), 'h');
    again.adopt(e.forms());
    expect((again.get('br') as { body: Buffer }).body).toBe(br.body);
    expect(made).toBe(0);
  });
});

describe('over the shared release', () => {
  let srv: Running;
  let key: string;
  beforeAll(async () => {
    srv = await startServer(inject('sharedDist'));
    key = srv.key('development');
  });
  afterAll(async () => {
    await srv?.close();
    cleanup(srv.stateDir);
  });
  const auth = () => ({ authorization: `Bearer ${key}` });
  const PSALM = '/api/v1/text/kjv/ps/119';

  it('done-when: a psalm with --compressed is under 20 % of its identity size and byte-identical after decompression', async () => {
    const identity = await raw(srv.base, PSALM, auth());
    expect(identity.status).toBe(200);
    expect(identity.headers['content-encoding']).toBeUndefined();
    const br = await raw(srv.base, PSALM, { ...auth(), 'accept-encoding': 'br;q=1.0, gzip;q=0.8, deflate' });
    const gz = await raw(srv.base, PSALM, { ...auth(), 'accept-encoding': 'gzip' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(decode(br).equals(identity.body)).toBe(true);
    expect(decode(gz).equals(identity.body)).toBe(true);
    expect(br.body.length / identity.body.length).toBeLessThan(0.2);
    expect(gz.body.length / identity.body.length).toBeLessThan(0.25);
    expect(Number(br.headers['content-length'])).toBe(br.body.length);
    for (const r of [identity, br, gz]) expect(String(r.headers.vary)).toMatch(/Accept-Encoding/);
  });

  it('gives each representation its own ETag, and If-None-Match works for each', async () => {
    const id = await raw(srv.base, PSALM, auth());
    const br = await raw(srv.base, PSALM, { ...auth(), 'accept-encoding': 'br' });
    const gz = await raw(srv.base, PSALM, { ...auth(), 'accept-encoding': 'gzip' });
    const etag = String(id.headers.etag);
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(br.headers.etag).toBe(etag.replace(/"$/, '-br"'));
    expect(gz.headers.etag).toBe(etag.replace(/"$/, '-gz"'));
    for (const [enc, tag] of [['identity', etag], ['br', br.headers.etag], ['gzip', gz.headers.etag]] as const) {
      const again = await raw(srv.base, PSALM, { ...auth(), 'accept-encoding': enc, 'if-none-match': String(tag) });
      expect(again.status, enc).toBe(304);
      expect(again.body.length).toBe(0);
      expect(again.headers.etag).toBe(tag);
      expect(again.headers['cache-control']).toBe('private, max-age=86400');
    }
    // Another representation's ETag does not match: the client gets the one it asked for.
    const other = await raw(srv.base, PSALM, { ...auth(), 'accept-encoding': 'br', 'if-none-match': etag });
    expect(other.status).toBe(200);
    expect(other.headers['content-encoding']).toBe('br');
    // Weak comparison: W/"…" matches too.
    expect((await raw(srv.base, PSALM, { ...auth(), 'if-none-match': `W/${etag}` })).status).toBe(304);
  });

  it('HEAD answers what GET would, without a body', async () => {
    for (const enc of ['br', 'gzip', 'identity']) {
      const get = await raw(srv.base, PSALM, { ...auth(), 'accept-encoding': enc });
      const head = await raw(srv.base, PSALM, { ...auth(), 'accept-encoding': enc }, 'HEAD');
      expect(head.status).toBe(200);
      expect(head.body.length).toBe(0);
      for (const h of ['etag', 'content-length', 'content-encoding', 'cache-control', 'vary', 'content-type']) expect(head.headers[h], `${enc} ${h}`).toBe(get.headers[h]);
    }
  });

  it('serves files from their prebuilt variants (the OpenAPI documents), byte-identical after decompression', async () => {
    const id = await raw(srv.base, '/api/v1/openapi');
    const br = await raw(srv.base, '/api/v1/openapi', { 'accept-encoding': 'br' });
    const gz = await raw(srv.base, '/api/v1/openapi', { 'accept-encoding': 'gzip' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(decode(br).equals(id.body)).toBe(true);
    expect(decode(gz).equals(id.body)).toBe(true);
    expect(br.headers.etag).toBe(String(id.headers.etag).replace(/"$/, '-br"'));
    expect((await raw(srv.base, '/api/v1/openapi', { 'accept-encoding': 'gzip', 'if-none-match': String(gz.headers.etag) })).status).toBe(304);
  });

  it('leaves a body under 1 KB as identity, with Vary all the same', async () => {
    const r = await raw(srv.base, '/healthz', { 'accept-encoding': 'br, gzip' });
    expect(r.body.length).toBeLessThan(1024);
    expect(r.headers['content-encoding']).toBeUndefined();
    expect(r.headers.vary).toBe('Accept-Encoding');
  });

  it('follows the cache policy table: keyed data private with Vary on the credentials, counters and health no-store, documents public', async () => {
    const cc = async (p: string, h: Record<string, string> = auth()) => (await raw(srv.base, p, h)).headers;
    const data = await cc('/api/v1/text/kjv/john/3/16');
    expect(data['cache-control']).toBe('private, max-age=86400');
    expect(data.vary).toBe('Accept-Encoding, Authorization, X-Service-Key, X-Scripture-Key');
    expect((await cc('/apis/elements/Fe', { 'x-service-key': key }))['cache-control']).toBe('private, max-age=86400');
    expect((await cc('/apis', { 'x-service-key': key }))['cache-control']).toBe('private, max-age=60');
    expect((await cc('/api/v1/key'))['cache-control']).toBe('no-store');
    expect((await cc('/healthz', {}))['cache-control']).toBe('no-store');
    expect((await cc('/apis/openapi.json', {}))['cache-control']).toBe('public, max-age=300');
    const err = await cc('/apis/elements/Xx', { 'x-service-key': key });
    expect(err['cache-control']).toBe('no-store');
    expect(err.vary).toBe('Accept');
  });

  it('the docs show the same cache policy table as server/cache-policy.ts', () => {
    const readme = readFileSync(path.join(PROJECT_ROOT, 'docs', 'platform-api.md'), 'utf8');
    for (const row of CACHE_POLICY) {
      expect(readme, row.kind).toContain(`| \`${row.kind}\` | ${row.applies} | \`${row.cacheControl}\` | ${row.vary} |`);
    }
  });

  it('does not bill a 304 or /api/v1/key; /key answers when the month is used up, other paths 429', async () => {
    const basic = srv.key('basic');
    const id = srv.app.keys.verify(basic)!.id;
    const h = { authorization: `Bearer ${basic}` };
    const first = await raw(srv.base, '/api/v1/text/kjv/john/3/16', h);
    const used = srv.app.quota.used(id);
    const cond = await raw(srv.base, '/api/v1/text/kjv/john/3/16', { ...h, 'if-none-match': String(first.headers.etag) });
    expect(cond.status).toBe(304);
    expect(cond.headers.ratelimit).toMatch(/^"monthly";r=\d+;t=\d+$/);
    const k = await raw(srv.base, '/api/v1/key', h);
    expect(k.status).toBe(200);
    expect(JSON.parse(k.body.toString()).data.current_usage).toBe(used);
    expect(srv.app.quota.used(id)).toBe(used);
    // A changed resource is billed as usual.
    await raw(srv.base, '/api/v1/text/kjv/john/3/16', { ...h, 'if-none-match': '"other"' });
    expect(srv.app.quota.used(id)).toBe(used + 1);

    for (let i = srv.app.quota.used(id); i < 25_000; i++) srv.app.quota.count(id);
    expect((await raw(srv.base, '/api/v1/text/kjv/john/3/16', h)).status).toBe(429);
    expect((await raw(srv.base, '/api/v1/text/kjv/nosuchbook/1/1', h)).status).toBe(429);
    const still = await raw(srv.base, '/api/v1/key', h);
    expect(still.status).toBe(200);
    expect(JSON.parse(still.body.toString()).data).toMatchObject({ current_usage: 25_000, remaining_calls: 0 });
    // A cached copy can still be revalidated for free.
    expect((await raw(srv.base, '/api/v1/text/kjv/john/3/16', { ...h, 'if-none-match': String(first.headers.etag) })).status).toBe(304);
    expect(srv.app.quota.used(id)).toBe(25_000);
  });

  it('401 carries WWW-Authenticate on both surfaces', async () => {
    const none = await raw(srv.base, '/apis/elements/Fe');
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Bearer realm="almanac", ServiceKey realm="almanac", header="X-Service-Key"');
    const bad = await raw(srv.base, '/apis/elements/Fe', { 'x-service-key': 'alm_wrong' });
    expect(bad.status).toBe(401);
    expect(bad.headers['www-authenticate']).toMatch(/^Bearer realm="almanac", error="invalid_token", error_description="[^"]+", ServiceKey /);
    const v1 = await raw(srv.base, '/api/v1/translations');
    expect(v1.status).toBe(401);
    expect(v1.headers['www-authenticate']).toBe('Bearer realm="almanac", ServiceKey realm="almanac", header="X-Scripture-Key", query="key"');
  });

  it('answers RFC 9457 problem details for Accept: application/problem+json, the envelope otherwise', async () => {
    const q = await raw(srv.base, '/apis/elements?bogus=1', { 'x-service-key': key, accept: 'application/problem+json' });
    expect(JSON.parse(q.body.toString())).toMatchObject({ status: 400, code: 'unknown_parameter', instance: '/apis/elements' }); // never the query
    const p = await raw(srv.base, '/apis/elements/Xx', { 'x-service-key': key, accept: 'application/problem+json' });
    expect(p.status).toBe(404);
    expect(p.headers['content-type']).toBe('application/problem+json');
    expect(JSON.parse(p.body.toString())).toEqual({
      type: 'urn:almanac:error:record_not_found', title: expect.any(String), status: 404, detail: expect.stringMatching(/Xx/),
      instance: '/apis/elements/Xx', code: 'record_not_found', details: { dataset: 'elements', id: 'Xx' },
    });
    const noKey = await raw(srv.base, `/api/v1/translations?key=`, { accept: 'application/problem+json, application/json;q=0.5' });
    expect(JSON.parse(noKey.body.toString())).toMatchObject({ status: 401, code: 'api_key_required' });
    const env = await raw(srv.base, '/apis/elements/Xx', { 'x-service-key': key, accept: 'application/json, application/problem+json;q=0.1' });
    expect(env.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(env.body.toString()).error).toMatchObject({ code: 'record_not_found', status: 404 });
  });

  it('keeps RateLimit-Policy constant for a key; the time left is in RateLimit', async () => {
    const a = await raw(srv.base, '/apis/elements/Fe', { 'x-service-key': key });
    const b = await raw(srv.base, '/apis/elements/H', { 'x-service-key': key });
    expect(a.headers['ratelimit-policy']).toBe(`"monthly";q=10000000;w=${MONTHLY_WINDOW_SECONDS}, "burst";q=100000;w=1`);
    expect(b.headers['ratelimit-policy']).toBe(a.headers['ratelimit-policy']);
    // At two moments of the month (different seconds to the reset) the policy is the same.
    const fresh = () => {
      let n = 0;
      return new Limits({ usedIn: () => n, countMany: (ids: string[]) => void (n += ids.length) } as any);
    };
    const k = { id: 'k', plan: 'basic' } as any;
    const early = fresh().charge(k, Date.UTC(2026, 10, 2)).headers;
    const late = fresh().charge(k, Date.UTC(2026, 10, 29, 12)).headers;
    expect(early[1]).toBe(late[1]);
    expect(early[3]).not.toBe(late[3]);
    expect(late[3]).toBe(`"monthly";r=24999;t=${36 * 3600}`);
  });
});

describe('live feeds: stable bodies, Data-Age, stale by the feed refresh', () => {
  const dir = tempDirs();
  /** A release of the test feed whose data was generated and fetched `ageMs` ago. */
  async function feedRelease(ageMs: number) {
    const env = { ALMANAC_CACHE: dir(), ALMANAC_DIST: dir() };
    const at = new Date(Date.now() - ageMs).toISOString();
    const body = Buffer.from(JSON.stringify([{ generated: at, events: [{ code: 'q1', time: at, mag: 4.2, lat: 1, lon: 2, expires: null, region: 'fiji' }], next: false }]));
    const file = cachedLocation(FEED_URL, env);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, body);
    writeFileSync(fetchRecordPath(file), JSON.stringify({ url: FEED_URL, fetched_at: at, sha256: sha256(body), bytes: body.length, via: 'upstream', last_modified: null, pages: 1 }));
    await build({ env, sources: [feed], log: quiet });
    const srv = await startServer(env.ALMANAC_DIST, undefined, [feed]);
    return { srv, key: srv.key() };
  }
  let fresh: Awaited<ReturnType<typeof feedRelease>>;
  let old: Awaited<ReturnType<typeof feedRelease>>;
  beforeAll(async () => {
    fresh = await feedRelease(60_000);
    old = await feedRelease(2 * 365 * 86_400_000);
  });
  afterAll(async () => {
    await fresh?.srv.close();
    await old?.srv.close();
  });

  it('two fetches a second apart give the same body and ETag; the age moves to Data-Age', async () => {
    const get = () => raw(fresh.srv.base, '/apis/feed', { 'x-service-key': fresh.key });
    const a = await get();
    await new Promise((r) => setTimeout(r, 1100));
    const b = await get();
    expect(a.status).toBe(200);
    expect(b.headers.etag).toBe(a.headers.etag);
    expect(b.body.equals(a.body)).toBe(true);
    const meta = JSON.parse(a.body.toString()).meta;
    expect(meta.age_seconds).toBeUndefined();
    expect(meta.stale).toBe(false);
    expect(Number(a.headers['data-age'])).toBeGreaterThanOrEqual(60);
    expect(Number(b.headers['data-age'])).toBeGreaterThan(Number(a.headers['data-age']));
    expect(a.headers['cache-control']).toBe('private, max-age=300');
    const one = () => raw(fresh.srv.base, '/apis/feed/q1', { 'x-service-key': fresh.key });
    expect((await one()).headers.etag).toBe((await one()).headers.etag);
  });

  it('data older than the feed refresh allows is stale, and the catalogue gives each feed its refresh', async () => {
    const r = await raw(old.srv.base, '/apis/feed', { 'x-service-key': old.key });
    expect(JSON.parse(r.body.toString()).meta).toMatchObject({ stale: true });
    expect(Number(r.headers['data-age'])).toBeGreaterThan(2 * 365 * 86_400 - 10);
    const cat = JSON.parse((await raw(old.srv.base, '/apis', { 'x-service-key': old.key })).body.toString());
    const entry = cat.data.find((d: any) => d.dataset === 'feed');
    expect(entry).toMatchObject({ stale: true, refresh: { expected_seconds: 86_400, stale_after_seconds: 172_800 } });
    const freshCat = JSON.parse((await raw(fresh.srv.base, '/apis', { 'x-service-key': fresh.key })).body.toString());
    expect(freshCat.data.find((d: any) => d.dataset === 'feed').stale).toBe(false);
  });
});
