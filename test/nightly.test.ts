/**
 * The nightly job (issue 29) over four nights of a loopback upstream: elements (npm),
 * the test feed (fixtures/live-source.ts), and USGS earthquakes and NWS alerts in their
 * own formats (fixtures). Night 2: the feed shrinks from 30 events to 10 and the
 * earthquake feed goes stale; both keep night 1's version, marked held back with the
 * reason, while the alerts move on and the report lists their changes by id. Night 3: the
 * same inputs make no new release. Night 4: the operator accepts the shrink; releases are
 * pruned to the number kept.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT, nightly } from '../ops/nightly.ts';
import { MANIFEST, releaseDir, releasesDir } from '../pipeline/paths.ts';
import { markdown, nightlyReport, type NightlyReport } from '../pipeline/report.ts';
import { readCurrent } from '../pipeline/writer.ts';
import elements from '../sources/elements.ts';
import earthquakes from '../sources/earthquakes.ts';
import weatherAlerts from '../sources/weather-alerts.ts';
import { feed } from './fixtures/live-source.ts';
import { fakeUpstream, startServer } from './helpers.ts';
import { tempDirs } from './temp.ts';

const dir = tempDirs('almanac-nightly-');
const NOW = Date.now();
const fixture = (p: string) => JSON.parse(readFileSync(new URL(`./fixtures/${p}`, import.meta.url), 'utf8'));
const QUAKES = { all_month: fixture('earthquakes/all_month.geojson'), all_week: fixture('earthquakes/all_week.geojson'), '4.5_month': fixture('earthquakes/4.5_month.geojson') };
const ALERTS = fixture('weather-alerts/active.geojson');
const alertId = (n: number) => ALERTS.features[n].properties.id as string;
const event = (n: number) => ({ code: `e${n}`, time: '2026-11-01T00:00:00.000Z', mag: 3 + (n % 5) / 10, lat: 10 + n / 10, lon: 20, expires: null, region: `region ${n % 4}` });

/** What the upstream answers tonight. */
let night = { events: 30, quakesFresh: true, quakeMag: null as number | null, alerts: [0, 1, 2], alertHeadline: null as string | null };
let upstream: Awaited<ReturnType<typeof fakeUpstream>>;
let env: NodeJS.ProcessEnv;
const sources = [elements, feed, earthquakes, weatherAlerts];

beforeAll(async () => {
  upstream = await fakeUpstream((req) => {
    const u = new URL(req.url, 'http://x');
    if (u.pathname === '/feed.example/v1/events') {
      return { body: JSON.stringify({ generated: new Date(NOW - 3_600_000).toISOString(), events: Array.from({ length: night.events }, (_, i) => event(i + 1)), next: false }) };
    }
    const q = /^\/earthquake\.usgs\.gov\/earthquakes\/feed\/v1\.0\/summary\/(.+)\.geojson$/.exec(u.pathname);
    if (q && q[1] in QUAKES) {
      const body = structuredClone(QUAKES[q[1] as keyof typeof QUAKES]);
      if (night.quakesFresh) body.metadata.generated = NOW - 3_600_000;
      if (night.quakeMag !== null) body.features[0].properties.mag = night.quakeMag;
      return { body: JSON.stringify(body) };
    }
    if (u.pathname === '/api.weather.gov/alerts/active') {
      const body = structuredClone(ALERTS);
      body.updated = new Date(NOW - 1_800_000).toISOString();
      body.features = night.alerts.map((n) => ALERTS.features[n]).map((f: any) => structuredClone(f));
      if (night.alertHeadline) body.features[0].properties.headline = night.alertHeadline;
      return { body: JSON.stringify(body) };
    }
    return { status: 404, body: 'not here' };
  });
  const root = dir();
  env = { ALMANAC_DIST: path.join(root, 'dist'), ALMANAC_CACHE: path.join(root, 'cache'), ALMANAC_MIRROR: upstream.base, ALMANAC_FETCH_BACKOFF_MS: '5' };
});
afterAll(() => upstream?.close());

const run = async (extra: Parameters<typeof nightly>[0] = {}) => {
  const lines: string[] = [];
  const out = await nightly({ env, sources, downloads: false, log: (l) => lines.push(l), ...extra });
  return { ...out, lines };
};
const manifest = (id: string) => JSON.parse(readFileSync(path.join(releaseDir(env.ALMANAC_DIST!, id), MANIFEST), 'utf8'));
const byId = (r: NightlyReport, id: string) => r.datasets.find((d) => d.id === id)!;

describe('npm run nightly', () => {
  let first: string, second: string;

  it('night 1: builds every dataset and exits 0', async () => {
    const { code, report } = await run();
    expect(code).toBe(EXIT.ok);
    expect(report!.new_release).toBe(true);
    expect(report!.datasets.map((d) => [d.id, d.status, d.records])).toEqual([
      ['elements', 'built', 118], ['feed', 'built', 30], ['earthquakes', 'built', expect.any(Number)], ['weather-alerts', 'built', 3],
    ]);
    first = report!.release;
    expect(readCurrent(env.ALMANAC_DIST!)).toBe(first);
    expect(existsSync(path.join(env.ALMANAC_DIST!, 'reports', `${first}.md`))).toBe(true);
  });

  it('night 2: holds back a feed that shrank to 10 and a stale one, moves the rest on, reports changes by id, exits 3', async () => {
    night = { events: 10, quakesFresh: false, quakeMag: 9.9, alerts: [1, 2, 3], alertHeadline: 'Headline changed tonight' };
    const { code, report, lines } = await run();
    expect(code).toBe(EXIT.heldBack);
    second = report!.release;
    expect(second).not.toBe(first);
    const m = manifest(second);
    expect(m.datasets.feed).toMatchObject({ records: 30, carried_forward_from: first, held_back: { reason: expect.stringMatching(/^records fell from 30 to 10 \(-66\.7 %\), more than the 10 % allowed$/), since: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/) } });
    expect(Date.parse(m.datasets.feed.held_back.since)).toBeGreaterThanOrEqual(NOW);
    expect(m.datasets.earthquakes).toMatchObject({ carried_forward_from: first, held_back: { reason: expect.stringMatching(/^live feed is stale: its data is from 2024-.*older than the 48 h it allows$/) } });
    expect(manifest(first).datasets.earthquakes.records).toBe(m.datasets.earthquakes.records);
    // The held-back datasets serve night 1's files, byte for byte.
    for (const p of Object.keys(m.files).filter((p) => p.startsWith('feed/') || p.startsWith('earthquakes/'))) expect(m.files[p].sha256).toBe(manifest(first).files[p]?.sha256);
    expect(m.datasets['weather-alerts'].held_back).toBeUndefined();
    expect(report!.held_back).toEqual(['feed', 'earthquakes']);
    // The OpenAPI document carries real answers of its release as examples (server/api/examples.ts).
    expect(report!.release_files).toEqual(['openapi.json']);
    expect(byId(report!, 'weather-alerts')).toMatchObject({ status: 'built', added: 1, removed: 1, changed: 1, ids: { added: [alertId(3)], removed: [alertId(0)], changed: [alertId(1)] } });
    expect(byId(report!, 'elements')).toMatchObject({ status: 'unchanged', added: 0, removed: 0, changed: 0 });
    expect(byId(report!, 'feed')).toMatchObject({ status: 'held-back', records: 30, reason: expect.stringMatching(/records fell/) });
    const md = readFileSync(path.join(env.ALMANAC_DIST!, 'reports', `${second}.md`), 'utf8');
    expect(md).toContain(`- weather-alerts changed (1): ${alertId(1)}`);
    expect(md).toMatch(/\*\*feed\*\* \(held-back, since .*\): records fell from 30 to 10/);
    expect(lines.join('\n')).toMatch(/earthquakes held-back: live feed is stale/);
  });

  it('serves the held-back data with the reason in meta and the catalogue, and each dataset\'s data date', async () => {
    const srv = await startServer(env.ALMANAC_DIST!, undefined, [feed]);
    try {
      const key = srv.key();
      const get = async (p: string) => (await fetch(srv.base + p, { headers: { 'x-service-key': key } })).json();
      const list = await get('/apis/feed?limit=1');
      expect(list.meta.total).toBe(30);
      expect(list.meta.held_back).toEqual({ reason: expect.stringMatching(/records fell from 30 to 10/), since: expect.any(String), data_from: first });
      const cat = (await get('/apis')).data;
      // Night 1's earthquakes are served, so their date is night 1's feed time.
      expect(cat.find((d: any) => d.dataset === 'earthquakes')).toMatchObject({ held_back: { reason: expect.stringMatching(/stale/) }, data_date: new Date(NOW - 3_600_000).toISOString() });
      expect(cat.find((d: any) => d.dataset === 'weather-alerts')).toMatchObject({ data_date: expect.any(String) });
      expect(cat.find((d: any) => d.dataset === 'weather-alerts').held_back).toBeUndefined();
      expect(cat.find((d: any) => d.dataset === 'elements')).toMatchObject({ data_date: null });
    } finally {
      await srv.close();
    }
  });

  it('night 3, same inputs: no new release, says so, still exits 3 for the datasets held back', async () => {
    const releases = readdirSync(releasesDir(env.ALMANAC_DIST!)).sort();
    const { code, report, lines } = await run();
    expect(code).toBe(EXIT.heldBack);
    expect(report).toMatchObject({ release: second, previous: second, new_release: false });
    expect(report!.datasets.filter((d) => d.added + d.removed + d.changed > 0)).toEqual([]);
    expect(lines.at(-3)).toMatch(/^nightly: no change — release \w+ is already live; nothing written$/);
    expect(readdirSync(releasesDir(env.ALMANAC_DIST!)).sort()).toEqual(releases);
    expect(manifest(second).datasets.feed.held_back.since).toBe(report!.datasets.find((d) => d.id === 'feed')!.held_back!.since);
  });

  it('night 4: --accept lets the shrink through once; keep 2 prunes the oldest release and its report', async () => {
    const { code, report } = await run({ accept: ['feed'], keep: 2 });
    expect(code).toBe(EXIT.heldBack); // the earthquake feed is still stale
    expect(byId(report!, 'feed')).toMatchObject({ status: 'built', records: 10, removed: 20 });
    expect(report!.held_back).toEqual(['earthquakes']);
    expect(readdirSync(releasesDir(env.ALMANAC_DIST!)).filter((d) => !d.startsWith('.')).sort()).toEqual([report!.release, second].sort());
    expect(readdirSync(path.join(env.ALMANAC_DIST!, 'reports')).sort()).toEqual([`${report!.release}.json`, `${report!.release}.md`, `${second}.json`, `${second}.md`].sort());
  });

  it('a second nightly at the same time refuses (exit 2) and names the holder', async () => {
    const a = run();
    const b = await run();
    await a;
    expect(b.code).toBe(EXIT.usage);
    expect(b.error).toMatch(/nightly\.lock/);
  });
});

describe('the report of a release in which no dataset changed', () => {
  it('names the release files that made it new (an OpenAPI document after a code change)', () => {
    const f = (sha: string) => ({ size: 1, sha256: sha });
    const before = { release: 'a', pipeline_version: '1', datasets: {}, absent: {}, files: { 'openapi.json': f('1'), 'licences.json': f('2'), 'old.json': f('3') } };
    const after = { release: 'b', pipeline_version: '1', datasets: {}, absent: {}, files: { 'openapi.json': f('9'), 'licences.json': f('2'), 'openapi-v1.json': f('4') } };
    const r = nightlyReport({ dist: dir(), before: before as any, after: after as any, builds: [], started: NOW, now: NOW });
    expect(r).toMatchObject({ new_release: true, release_files: ['old.json', 'openapi-v1.json', 'openapi.json'].sort() });
    expect(markdown(r)).toContain('## Release files that changed\n\n- old.json\n- openapi-v1.json\n- openapi.json');
  });
});
