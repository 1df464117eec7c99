/**
 * The platform pieces live upstreams need, on a test-only feed (fixtures/live-source.ts):
 * fetching live and paged inputs (loopback server and folder mirror, never the network),
 * keeping the last good copy, bound/geo/expiry filters, the upstream time and age in
 * meta, carry-forward, and a streamed build with sharded search.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../server/cli/build.ts';
import { fetchAll } from '../pipeline/fetch.ts';
import { fetchLive } from '../pipeline/fetch-live.ts';
import { sha256 } from '../pipeline/inputs.ts';
import { cachedLocation, fetchRecordPath, releaseDir, searchBinaryPath, termsPath } from '../pipeline/paths.ts';
import { readCurrent } from '../pipeline/writer.ts';
import { FEED_URL, FEED_VARIANT, MIRROR, feed, streamed } from './fixtures/live-source.ts';
import { fakeUpstream, quiet, startServer, type Running } from './helpers.ts';
import { tempDirs } from './temp.ts';

const dir = tempDirs();
const NOW = Date.now();
const iso = (ms: number) => new Date(ms).toISOString();
const EVENTS = [
  { code: 'a1', time: '2024-05-01T10:00:00.000Z', mag: 5.1, lat: 35.0, lon: 139.0, expires: iso(NOW + 86_400_000), region: 'japan' },
  { code: 'a2', time: '2024-05-02T00:30:00.000Z', mag: 2.0, lat: 37.7, lon: -122.4, expires: iso(NOW - 60_000), region: 'california' },
  { code: 'a3', time: '2024-05-03T00:00:00.000Z', mag: null, lat: -17.7, lon: 179.9, expires: null, region: 'fiji' },
  { code: 'a4', time: '2024-04-30T23:59:59.000Z', mag: 4.5, lat: -17.0, lon: -179.5, expires: null, region: 'fiji' },
];
const GENERATED = '2024-05-03T01:00:00Z';
const PAGES = [
  { generated: GENERATED, events: EVENTS.slice(0, 2), next: true },
  { generated: GENERATED, events: EVENTS.slice(2), next: false },
];

let upstream: Awaited<ReturnType<typeof fakeUpstream>>;
let failing = false;
beforeAll(async () => {
  upstream = await fakeUpstream((req) => {
    if (failing) return { status: 500, body: 'down' };
    const m = /^\/feed\.example\/v1\/events\?page=(\d+)$/.exec(req.url);
    return m && PAGES[Number(m[1]) - 1] ? { body: JSON.stringify(PAGES[Number(m[1]) - 1]) } : { status: 404, body: 'no' };
  });
});
afterAll(() => upstream.close());

describe('fetching a live, paged input', () => {
  it('pages through an http(s) mirror (loopback), storing the pages and a fetch record', async () => {
    const env = { ALMANAC_CACHE: dir(), ALMANAC_MIRROR: upstream.base };
    upstream.requests.length = 0;
    expect(await fetchLive(feed.inputs.events as any, env)).toBe('fetched');
    expect(upstream.requests.map((r) => r.url)).toEqual(['/feed.example/v1/events?page=1', '/feed.example/v1/events?page=2']);
    expect(upstream.requests[0].headers['user-agent']).toMatch(/^almanac-data-build\//);
    const cached = cachedLocation(FEED_URL, env);
    expect(JSON.parse(readFileSync(cached, 'utf8'))).toEqual(PAGES);
    const record = JSON.parse(readFileSync(fetchRecordPath(cached), 'utf8'));
    expect(record).toMatchObject({ url: FEED_URL, pages: 2, bytes: readFileSync(cached).length, via: `mirror:${upstream.base}` });
    expect(Date.parse(record.fetched_at)).toBeGreaterThanOrEqual(NOW - 1000);
    // Same bytes again: the copy and its record are kept (no rebuild for an unchanged feed).
    expect(await fetchLive(feed.inputs.events as any, env)).toBe('cached');
    expect(JSON.parse(readFileSync(fetchRecordPath(cached), 'utf8'))).toEqual(record);
  });

  it('keeps the last good copy when the upstream fails, and says so in one line', async () => {
    const env = { ALMANAC_CACHE: dir(), ALMANAC_MIRROR: upstream.base, ALMANAC_FETCH_BACKOFF_MS: '10' };
    await fetchLive(feed.inputs.events as any, env);
    const before = readFileSync(cachedLocation(FEED_URL, env));
    const recordBefore = readFileSync(fetchRecordPath(cachedLocation(FEED_URL, env)));
    failing = true;
    const lines: string[] = [];
    try {
      const out = await fetchAll([feed], env, (l) => lines.push(l));
      expect(out).toEqual([expect.objectContaining({ status: 'failed', reason: expect.stringMatching(/HTTP 500/) })]);
    } finally {
      failing = false;
    }
    expect(lines).toEqual([expect.stringMatching(/^fetch: feed: skipped, 1 of 1 inputs unavailable .*HTTP 500/)]);
    expect(readFileSync(cachedLocation(FEED_URL, env))).toEqual(before);
    expect(readFileSync(fetchRecordPath(cachedLocation(FEED_URL, env)))).toEqual(recordBefore);
    expect(readdirSync(path.dirname(cachedLocation(FEED_URL, env))).filter((f) => f.includes('.part-'))).toEqual([]);
  });

  it('from a folder mirror, uses a published variant when the URL itself is not mirrored', async () => {
    const env = { ALMANAC_CACHE: dir(), ALMANAC_MIRROR: MIRROR };
    await fetchLive(feed.inputs.events as any, env);
    const cached = cachedLocation(FEED_URL, env);
    expect(JSON.parse(readFileSync(cached, 'utf8'))).toEqual([JSON.parse(readFileSync(path.join(MIRROR, 'feed.example/v1/events-export.json'), 'utf8'))]);
    expect(JSON.parse(readFileSync(fetchRecordPath(cached), 'utf8'))).toMatchObject({ via: `mirror:${FEED_VARIANT}`, pages: 1 });
    const { reports, dist } = await build({ env: { ...env, ALMANAC_DIST: dir() }, sources: [feed], log: quiet });
    expect(reports[0]).toMatchObject({ status: 'built', records: 1 });
    const manifest = JSON.parse(readFileSync(path.join(releaseDir(dist, readCurrent(dist)!), 'manifest.json'), 'utf8'));
    // The export form carries no generation time: upstream_time is null, the age falls back to the fetch.
    expect(manifest.datasets.feed).toMatchObject({ upstream_time: null, live: true });
  });

  it('refuses a cached copy that no longer matches its fetch record', async () => {
    const env = { ALMANAC_CACHE: dir(), ALMANAC_MIRROR: upstream.base, ALMANAC_DIST: dir() };
    await fetchLive(feed.inputs.events as any, env);
    writeFileSync(cachedLocation(FEED_URL, env), '[]');
    const { reports } = await build({ env, sources: [feed], log: quiet });
    expect(reports[0]).toMatchObject({ status: 'absent', reason: expect.stringMatching(/the fetch recorded/) });
  });
});

describe('a live feed with pinned snapshots (issue 37, item 6: the newer USGS and NWS copies)', () => {
  const FEED = 'https://snap.example/feed.json';
  const COPY_NEW = 'https://copies.example/a/feed.json';
  const COPY_OLD = 'https://copies.example/b/feed.json';
  const body = (generated: string, n: number) => Buffer.from(JSON.stringify({ generated, events: Array.from({ length: n }, (_, i) => i) }));
  const own = body('2024-05-04T07:06:48Z', 1);
  const newer = body('2025-05-04T14:38:52Z', 2);
  const older = body('2023-01-01T00:00:00Z', 3);
  const spec = (copies: { url: string; sha256: string }[]) => ({
    kind: 'live' as const, url: FEED, format: 'json' as const, copies,
    dataTime: (b: unknown) => (b as { generated: string }).generated,
  });
  const pins = [{ url: COPY_OLD, sha256: sha256(older) }, { url: COPY_NEW, sha256: sha256(newer) }];
  /** A folder mirror holding the feed's own (older) file and the given snapshots. */
  function mirror(files: Record<string, Buffer>) {
    const root = dir();
    for (const [url, bytes] of Object.entries(files)) {
      const loc = path.join(root, new URL(url).host, new URL(url).pathname);
      mkdirSync(path.dirname(loc), { recursive: true });
      writeFileSync(loc, bytes);
    }
    return root;
  }
  const cachedOf = (env: NodeJS.ProcessEnv) => readFileSync(cachedLocation(FEED, env));
  const recordOf = (env: NodeJS.ProcessEnv) => JSON.parse(readFileSync(fetchRecordPath(cachedLocation(FEED, env)), 'utf8'));

  it('from a folder mirror, takes whichever form has the newest data: the 2025 snapshot over the mirror\'s own 2024 file', async () => {
    const env = { ALMANAC_CACHE: dir(), ALMANAC_MIRROR: mirror({ [FEED]: own, [COPY_OLD]: older, [COPY_NEW]: newer }) };
    expect(await fetchLive(spec(pins), env)).toBe('fetched');
    expect(cachedOf(env)).toEqual(newer);
    expect(recordOf(env)).toMatchObject({ via: `mirror:${COPY_NEW}`, sha256: sha256(newer) });
    // Without the newer snapshot, the feed's own file is newer than the old one.
    const env2 = { ALMANAC_CACHE: dir(), ALMANAC_MIRROR: mirror({ [FEED]: own, [COPY_OLD]: older }) };
    await fetchLive(spec(pins), env2);
    expect(cachedOf(env2)).toEqual(own);
  });

  it('refuses a snapshot whose bytes are not the pinned ones', async () => {
    const env = { ALMANAC_CACHE: dir(), ALMANAC_MIRROR: mirror({ [FEED]: own, [COPY_NEW]: body('2026-01-01T00:00:00Z', 9) }) };
    await fetchLive(spec(pins), env);
    expect(cachedOf(env)).toEqual(own);
    const only = { ALMANAC_CACHE: dir(), ALMANAC_MIRROR: mirror({ [COPY_NEW]: older }) };
    await expect(fetchLive(spec(pins), only)).rejects.toThrow(/sha256 mismatch for https:\/\/copies\.example\/a\/feed\.json/);
    expect(existsSync(cachedLocation(FEED, only))).toBe(false);
  });

  it('over the network: a failing publisher with no last good copy is stood in for by the newest snapshot, and the fetch says so', async () => {
    let publisherUp = false;
    const up = await fakeUpstream((req) => (req.url === '/snap.example/feed.json' ? (publisherUp ? { body: own } : { status: 503, body: 'down' })
      : req.url === '/copies.example/a/feed.json' ? { body: newer } : req.url === '/copies.example/b/feed.json' ? { body: older } : { status: 404, body: '' }));
    try {
      const env = { ALMANAC_CACHE: dir(), ALMANAC_MIRROR: up.base, ALMANAC_FETCH_BACKOFF_MS: '1' };
      const heard: string[] = [];
      expect(await fetchLive(spec(pins), env, undefined, (copy, why) => heard.push(`${copy} | ${why}`))).toBe('fetched');
      expect(cachedOf(env)).toEqual(newer);
      expect(recordOf(env).via).toBe(`copy:${COPY_NEW}`);
      expect(heard).toEqual([expect.stringMatching(/^https:\/\/copies\.example\/a\/feed\.json \| HTTP 503/)]);
      // The publisher back: its feed replaces the snapshot.
      publisherUp = true;
      await fetchLive(spec(pins), env);
      expect(cachedOf(env)).toEqual(own);
      expect(recordOf(env).via).toMatch(/^mirror:/);
      // Down again: the last good copy stays; no snapshot replaces it.
      publisherUp = false;
      await expect(fetchLive(spec(pins), env)).rejects.toThrow(/HTTP 503/);
      expect(cachedOf(env)).toEqual(own);
    } finally {
      await up.close();
    }
  });
});

describe('fetching a plain live file (the Census subcounty totals, not mirrored)', () => {
  it('downloads it over loopback, keeps the Last-Modified, and the build serves it as the upstream time', async () => {
    const population = (await import('../sources/population.ts')).default;
    const spec = population.inputs.subcounties;
    expect(spec.kind).toBe('live');
    const fixtures = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures/population');
    const sub = readFileSync(path.join(fixtures, 'sub-est2024.csv'));
    const counties = readFileSync(path.join(fixtures, 'co-est2024-alldata.csv'));
    const census = await fakeUpstream((req) =>
      req.url.endsWith('/sub-est2024.csv') ? { body: sub, type: 'text/csv', headers: { 'last-modified': 'Thu, 15 May 2025 13:00:00 GMT' } }
        : req.url.endsWith('/co-est2024-alldata.csv') ? { body: counties, type: 'text/csv' } : { status: 404, body: '' });
    try {
      const env = { ALMANAC_CACHE: dir(), ALMANAC_DIST: dir(), ALMANAC_MIRROR: census.base };
      expect(await fetchLive(spec as any, env)).toBe('fetched');
      const record = JSON.parse(readFileSync(fetchRecordPath(cachedLocation((spec as any).url, env)), 'utf8'));
      expect(record).toMatchObject({ last_modified: '2025-05-15T13:00:00.000Z', pages: null, bytes: sub.length });
      expect(census.requests.map((r) => r.url)).toEqual(['/www2.census.gov/programs-surveys/popest/datasets/2020-2024/cities/totals/sub-est2024.csv']);
      // The county file (names for the FIPS codes) is pinned to the real bytes, which this
      // fixture is not: here it comes through the same loopback upstream as a live input.
      const countiesSpec = { ...(population.inputs.counties as any), kind: 'live' as const };
      await fetchLive(countiesSpec, env);
      const { reports, dist } = await build({ env, sources: [{ ...population, inputs: { ...population.inputs, counties: countiesSpec, subcounties: spec } }], log: quiet });
      expect(reports[0].status).toBe('built');
      const manifest = JSON.parse(readFileSync(path.join(releaseDir(dist, readCurrent(dist)!), 'manifest.json'), 'utf8'));
      expect(manifest.datasets['population-demographics']).toMatchObject({ upstream_time: '2025-05-15T13:00:00.000Z', live: true });
    } finally {
      await census.close();
    }
  });
});

describe('serving a live dataset', () => {
  let srv: Running;
  let key: string;
  const env = { ALMANAC_CACHE: dir(), ALMANAC_DIST: dir() };
  beforeAll(async () => {
    await fetchLive(feed.inputs.events as any, { ...env, ALMANAC_MIRROR: upstream.base });
    await build({ env, sources: [feed], log: quiet });
    srv = await startServer(env.ALMANAC_DIST, undefined, [feed]);
    key = srv.key();
  });
  afterAll(() => srv.close());
  const get = async (p: string) => {
    const res = await fetch(`${srv.base}${p}`, { headers: { 'x-service-key': key } });
    return { status: res.status, body: (await res.json()) as any };
  };
  const ids = async (p: string) => {
    const r = await get(p);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.data.map((d: { id: string }) => d.id);
  };

  it('lists newest first and leaves out what expired before the request', async () => {
    expect(await ids('/apis/feed')).toEqual(['a3', 'a1', 'a4']);
    expect(await ids('/apis/feed?include_expired=true')).toEqual(['a3', 'a2', 'a1', 'a4']);
    expect(await ids('/apis/feed/search?q=fiji')).toEqual(expect.arrayContaining(['a3', 'a4']));
    expect((await get('/apis/feed/search?q=california')).body.data).toEqual([]);
    const one = await get('/apis/feed/a2');
    expect(one.status).toBe(200);
    expect(one.body.meta.expired).toBe(true);
    expect((await get('/apis/feed/a1')).body.meta.expired).toBe(false);
  });

  it('gives the upstream time and the fetch time in meta, the age in the Data-Age header', async () => {
    const res = await fetch(`${srv.base}/apis/feed`, { headers: { 'x-service-key': key } });
    const body = (await res.json()) as any;
    // Generated in 2024: older than the feed's refresh allows (two days by default), so stale (issue 12).
    expect(body.meta).toMatchObject({ upstream_time: new Date(GENERATED).toISOString(), stale: true });
    expect(Date.parse(body.meta.fetched_at)).toBeGreaterThanOrEqual(NOW - 1000);
    const expectedAge = (Date.now() - Date.parse(GENERATED)) / 1000;
    expect(body.meta.age_seconds).toBeUndefined();
    expect(Math.abs(Number(res.headers.get('data-age')) - expectedAge)).toBeLessThan(5);
    expect(body.meta.sources[0].licence.spdx).toBe('CC0-1.0');
  });

  it('filters by numeric and date bounds (a bare upper date includes the whole day)', async () => {
    expect(await ids('/apis/feed?min_mag=4.5')).toEqual(['a1', 'a4']);
    expect(await ids('/apis/feed?from=2024-05-01')).toEqual(['a3', 'a1']);
    expect(await ids('/apis/feed?to=2024-05-01')).toEqual(['a1', 'a4']);
    expect(await ids('/apis/feed?to=2024-05-01T09:00:00Z')).toEqual(['a4']);
    expect(await ids('/apis/feed?from=2024-05-01&to=2024-05-02&include_expired=true')).toEqual(['a2', 'a1']);
    expect(await ids('/apis/feed?min_mag=4.5&region=fiji')).toEqual(['a4']);
  });

  it('filters by bounding box (also across the antimeridian) and by distance', async () => {
    expect(await ids('/apis/feed?bbox=170,-20,-170,-10')).toEqual(['a3', 'a4']);
    expect(await ids('/apis/feed?bbox=130,30,145,40')).toEqual(['a1']);
    expect(await ids('/apis/feed?near=35.1,139.1&radius_km=20')).toEqual(['a1']);
    expect(await ids('/apis/feed?near=-17.5,180&radius_km=100')).toEqual(['a3', 'a4']);
  });

  it('an equality filter value no current record has is an empty list, not a 400', async () => {
    const r = await get('/apis/feed?region=atlantis');
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual([]);
    expect(r.body.meta.total).toBe(0);
  });

  it.each([
    ['/apis/feed?min_mag=big', 'min_mag'],
    ['/apis/feed?from=2024-13-01', 'from'],
    ['/apis/feed?from=2024-02-30', 'from'],
    ['/apis/feed?to=yesterday', 'to'],
    ['/apis/feed?bbox=1,2,3', 'bbox'],
    ['/apis/feed?bbox=0,10,5,5', 'bbox'],
    ['/apis/feed?near=95,0', 'near'],
    ['/apis/feed?radius_km=5', 'radius_km'],
    ['/apis/feed?near=0,0&radius_km=0', 'radius_km'],
    ['/apis/feed?include_expired=yes', 'include_expired'],
  ])('%s is a 400 naming %s', async (p, param) => {
    const r = await get(p);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'invalid_parameter', details: { parameter: param } });
  });

  it('when the upstream cannot be had, the last good data keeps serving, marked stale', async () => {
    const env2 = { ...env, ALMANAC_CACHE: dir() };
    const { reports } = await build({ env: env2, sources: [feed], log: quiet });
    expect(reports[0].status).toBe('carried-forward');
    await new Promise((r) => setTimeout(r, 1500)); // the server polls dist/current every second
    const { body } = await get('/apis/feed');
    expect(body.meta).toMatchObject({ stale: true, upstream_time: new Date(GENERATED).toISOString(), carried_forward_from: expect.any(String) });
    expect(body.data.map((d: { id: string }) => d.id)).toEqual(['a3', 'a1', 'a4']);
  });
});

describe('a sharded search index', () => {
  it('is searched shard by shard and merged by score', async () => {
    const env = { ALMANAC_CACHE: dir(), ALMANAC_DIST: dir(), ALMANAC_MIRROR: upstream.base, ALMANAC_SEARCH_SHARD_SIZE: '2' };
    await fetchLive(feed.inputs.events as any, env);
    const { dist } = await build({ env, sources: [feed], log: quiet });
    const rel = releaseDir(dist, readCurrent(dist)!);
    expect(existsSync(path.join(rel, searchBinaryPath('feed', 1)))).toBe(true);
    const srv = await startServer(dist, undefined, [feed]);
    try {
      const res = await fetch(`${srv.base}/apis/feed/search?q=fiji`, { headers: { 'x-service-key': srv.key() } });
      expect(((await res.json()) as any).data.map((d: { id: string }) => d.id).sort()).toEqual(['a3', 'a4']);
    } finally {
      await srv.close();
    }
  });
});

describe('a streamed dataset', () => {
  it('is written in its own order, with ids spilled to disk and a word index by prefix', async () => {
    const mirror = dir();
    mkdirSync(path.join(mirror, 'feed.example/v1'), { recursive: true });
    writeFileSync(path.join(mirror, 'feed.example/v1/events.ndjson'), EVENTS.map((e) => JSON.stringify(e)).join('\n') + '\n');
    const env = { ALMANAC_CACHE: dir(), ALMANAC_DIST: dir(), ALMANAC_MIRROR: mirror };
    await fetchAll([streamed], env, quiet);
    const { reports, dist } = await build({ env, sources: [streamed], log: quiet });
    expect(reports[0]).toMatchObject({ status: 'built', records: 4 });
    const rel = releaseDir(dist, readCurrent(dist)!);
    expect(existsSync(path.join(rel, searchBinaryPath('feed-streamed')))).toBe(false);
    expect(JSON.parse(readFileSync(path.join(rel, termsPath('feed-streamed', 'fi')), 'utf8'))).toEqual([['fiji', [2, 3]]]);
    const srv = await startServer(dist, undefined, [streamed]);
    try {
      const key = srv.key();
      const res = await fetch(`${srv.base}/apis/feed-streamed?include_expired=true`, { headers: { 'x-service-key': key } });
      expect(((await res.json()) as any).data.map((d: { id: string }) => d.id)).toEqual(['a1', 'a2', 'a3', 'a4']);
      const s = await fetch(`${srv.base}/apis/feed-streamed/search?q=FIJ`, { headers: { 'x-service-key': key } });
      expect(((await s.json()) as any).data.map((d: { id: string }) => d.id)).toEqual(['a3', 'a4']);
      // No record has both words: the records with one of them, flagged partial (issue 26, item 1).
      const some = (await (await fetch(`${srv.base}/apis/feed-streamed/search?q=fiji%20japan`, { headers: { 'x-service-key': key } })).json()) as any;
      expect(some.data.map((d: { id: string }) => d.id).sort()).toEqual(['a1', 'a3', 'a4']);
      expect(some.meta).toMatchObject({ match: 'partial', unmatched_words: [] });
      const none = await fetch(`${srv.base}/apis/feed-streamed/search?q=tonga%20peru`, { headers: { 'x-service-key': key } });
      expect(((await none.json()) as any).data).toEqual([]);
      // Keys were spilled to disk and bucketed per partition: ids resolve, in any case.
      for (const id of ['a1', 'A4']) {
        const one = await fetch(`${srv.base}/apis/feed-streamed/${id}`, { headers: { 'x-service-key': key } });
        expect(((await one.json()) as any).data.id).toBe(id.toLowerCase());
      }
      const missing = await fetch(`${srv.base}/apis/feed-streamed/zz`, { headers: { 'x-service-key': key } });
      expect(missing.status).toBe(404);
    } finally {
      await srv.close();
    }
  });
});

describe('a streamed dataset that fails mid-stream', () => {
  it('fails the build, leaves the live release, and removes its spilled temporary files', async () => {
    const mirror = dir();
    mkdirSync(path.join(mirror, 'feed.example/v1'), { recursive: true });
    // The third line is not JSON: the stream throws after two records were spilled.
    writeFileSync(path.join(mirror, 'feed.example/v1/events.ndjson'), [...EVENTS.slice(0, 2).map((e) => JSON.stringify(e)), '{broken'].join('\n') + '\n');
    const env = { ALMANAC_CACHE: dir(), ALMANAC_DIST: dir(), ALMANAC_MIRROR: mirror };
    await fetchAll([streamed], env, quiet);
    const tmp = dir();
    const before = process.env.TMPDIR;
    process.env.TMPDIR = tmp; // os.tmpdir() reads it on each call: the spills land here
    try {
      await expect(build({ env, sources: [streamed], log: quiet })).rejects.toThrow(/JSON/);
    } finally {
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
    }
    expect(readdirSync(tmp)).toEqual([]);
    expect(readCurrent(env.ALMANAC_DIST)).toBeNull();
  });
});

describe('the key spill of streamed datasets', () => {
  it('puts every key in the bucket the server will look in, drops shared lower-case forms, fails on duplicates', async () => {
    const { KeySpill, SPILL_PARTITIONS } = await import('../pipeline/key-spill.ts');
    const { aliasKey, bucketOf } = await import('../pipeline/paths.ts');
    const spill = new KeySpill('t');
    const ids = Array.from({ length: 3000 }, (_, i) => `id${i}`);
    ids.forEach((id, i) => spill.add(id, i));
    spill.add('ID0', 3000); // its lower-case form collides with id0's
    const nb = spill.buckets();
    expect(nb % SPILL_PARTITIONS).toBe(0);
    const buckets = new Map<number, [string, number][]>();
    const { ambiguous } = spill.finish(nb, (b, entries) => buckets.set(b, entries));
    expect(buckets.size).toBe(nb);
    expect(ambiguous).toBe(1);
    const found = (k: string) => new Map(buckets.get(bucketOf(k, nb))).get(k);
    expect(ids.every((id, i) => found(id) === i)).toBe(true);
    expect(found('ID0')).toBe(3000);
    expect(found(aliasKey('id7'))).toBe(7);
    expect(found(aliasKey('id0'))).toBeUndefined();

    const dup = new KeySpill('t');
    dup.add('x', 0);
    dup.add('x', 1);
    expect(() => dup.finish(dup.buckets(), () => {})).toThrow(/duplicate id "x"/);
  });
});

describe('the word index of streamed datasets', () => {
  it('matches every word by prefix, exact words first, then list order; ignores case and accents', async () => {
    const { TermSpill, termSearch, termPrefix, searchWords } = await import('../pipeline/term-index.ts');
    expect(searchWords('Café-Bar  St. Étienne 42')).toEqual(['cafe', 'bar', 'st', 'etienne', '42']);
    expect(termPrefix('church')).toBe('ch');
    expect(termPrefix('ĉu')).toMatch(/^x/);
    const spill = new TermSpill();
    const texts = ['First Church of Christ', 'Churchill Society', 'Christ Church', 'Friends of the Library'];
    texts.forEach((t, i) => spill.add(i, [t]));
    const shards = new Map<string, any>();
    spill.finish((p, s) => shards.set(p, s));
    const search = (q: string) => termSearch(q, (p) => shards.get(p));
    expect(search('church')).toEqual([0, 2, 1]);
    expect(search('chur christ')).toEqual([0, 2]);
    expect(search('LIBRARY')).toEqual([3]);
    expect(search('library church')).toEqual([]);
    expect(search('zzz')).toEqual([]);
    expect(search('  ')).toEqual([]);
  });
});
