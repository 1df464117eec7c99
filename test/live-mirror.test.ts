/**
 * Acceptance for the live feeds: fetched from the upstream mirror (a folder, as CI has
 * it) into a fresh cache, built offline and served. Every dataset with a mirrored real
 * file serves real records with its upstream time and age; the ones with nothing
 * mirrored (recalls, procurement) answer 503. Skips, saying why, without the mirror.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildInChild, type ChildBuild } from './fixture-release.ts';
import { fetchAll } from '../pipeline/fetch.ts';
import { SOURCES } from '../sources/index.ts';
import { MIRROR_ROOT, NEEDS_MIRROR, cleanup, quiet, startServer, tempDir, type Running } from './helpers.ts';

const LIVE = ['earthquakes', 'weather-alerts', 'clinical-trials', 'recalls', 'procurement', 'public-companies', 'laws-regulations', 'nonprofit-organizations', 'population-demographics'];

describe.skipIf(!MIRROR_ROOT)(`live feeds built from the upstream mirror ${NEEDS_MIRROR}`, () => {
  let srv: Running;
  let key: string;
  let reports: ChildBuild['reports'];
  const dirs: string[] = [];
  const call = async (p: string) => {
    const res = await fetch(srv.base + p, { headers: { 'x-service-key': key } });
    return { status: res.status, body: (await res.json()) as any };
  };
  const ok = async (p: string) => {
    const r = await call(p);
    expect(r.status, `${p}: ${JSON.stringify(r.body).slice(0, 300)}`).toBe(200);
    return r.body;
  };

  beforeAll(async () => {
    const env = { ...process.env, ALMANAC_MIRROR: MIRROR_ROOT, ALMANAC_CACHE: tempDir(), ALMANAC_DIST: tempDir() };
    dirs.push(env.ALMANAC_CACHE, env.ALMANAC_DIST);
    const sources = SOURCES.filter((s) => LIVE.includes(s.id));
    expect(sources.map((s) => s.id).sort()).toEqual([...LIVE].sort());
    await fetchAll(sources, env, quiet);
    ({ reports } = await buildInChild(sources.map((s) => s.id), env)); // a child: a long build must not block the worker's RPC
    srv = await startServer(env.ALMANAC_DIST);
    key = srv.key();
  }, 300_000);
  afterAll(async () => {
    await srv?.close();
    cleanup(...dirs, srv?.stateDir);
  });

  it('builds every dataset that has a mirrored file; the others are absent with the reason', () => {
    const by = Object.fromEntries(reports.map((r) => [r.id, r]));
    expect(by.earthquakes).toMatchObject({ status: 'built', records: 2588 });
    expect(by['weather-alerts']).toMatchObject({ status: 'built', records: 444 });
    expect(by['clinical-trials']).toMatchObject({ status: 'built', records: 100 });
    expect(by['nonprofit-organizations']).toMatchObject({ status: 'built', records: 22_194 });
    expect(by['population-demographics']).toMatchObject({ status: 'built', records: 242_820 });
    expect(by['public-companies']).toMatchObject({ status: 'built', records: 19_215 });
    expect(by['laws-regulations']).toMatchObject({ status: 'built', records: 50 });
    for (const id of ['recalls', 'procurement']) expect(by[id]).toMatchObject({ status: 'absent', reason: expect.stringMatching(/was not fetched: npm run fetch needs network to .*, or ALMANAC_MIRROR=/) });
  });

  it('earthquakes: newest first, with the feed time, magnitude and geographic filters', async () => {
    const list = await ok('/apis/earthquakes?limit=100');
    // 30 days of earthquakes generated in 2024 are stale today (issue 12: stale past refresh.stale_after_seconds, two days).
    expect(list.meta).toMatchObject({ total: 2588, upstream_time: '2024-05-04T07:06:48.000Z', stale: true });
    expect(list.meta.age_seconds).toBeUndefined();
    const times = list.data.map((e: any) => e.time);
    expect([...times].sort().reverse()).toEqual(times);
    const big = await ok('/apis/earthquakes?min_magnitude=4.5&limit=100');
    expect(big.meta.total).toBe(97);
    expect(big.data.every((e: any) => e.magnitude >= 4.5)).toBe(true);
    const alaska = await ok('/apis/earthquakes?bbox=-170,50,-130,72&limit=100');
    expect(alaska.meta.total).toBeGreaterThan(0);
    expect(alaska.data.every((e: any) => e.latitude >= 50 && e.longitude <= -130)).toBe(true);
    const first = big.data[0];
    const near = await ok(`/apis/earthquakes?near=${first.latitude},${first.longitude}&radius_km=1`);
    expect(near.data.map((e: any) => e.id)).toContain(first.id);
    expect((await ok(`/apis/earthquakes/${first.id}`)).data).toEqual(first);
  });

  it('weather alerts: all of the 2024 alerts have ended, so by default none is listed, and the data says it is stale', async () => {
    expect((await ok('/apis/weather-alerts')).meta.total).toBe(0);
    const all = await ok('/apis/weather-alerts?include_expired=true&limit=5');
    // The copy has no `updated`: its newest alert's sent is its time, and two years old is stale
    // (issue 36, item 10: it said upstream_time null and stale false, judged by the fetch time).
    expect(all.meta).toMatchObject({ total: 444, upstream_time: '2024-12-08T22:46:06.000Z', stale: true });
    const one = await ok(`/apis/weather-alerts/${encodeURIComponent(all.data[0].id)}`);
    expect(one.meta.expired).toBe(true);
    expect((await ok('/apis/weather-alerts/search?q=gale&include_expired=true')).meta.total).toBeGreaterThan(100);
  });

  it('clinical trials, nonprofits and population serve real records', async () => {
    expect((await ok('/apis/clinical-trials?status=COMPLETED')).meta.total).toBe(100);
    // The country filter takes the registry's name in any case and the country's codes (issue 36, item 11).
    for (const c of ['United%20States', 'united%20states', 'US', 'USA', '840']) expect((await ok(`/apis/clinical-trials?country=${c}`)).meta.total, c).toBe(12);
    expect((await ok('/apis/nonprofit-organizations?state=DE')).meta.total).toBe(7483);
    const np = (await ok('/apis/nonprofit-organizations?state=VT&limit=1')).data[0];
    expect((await ok(`/apis/nonprofit-organizations/${np.ein}`)).data.name).toBe(np.name);
    expect((await ok('/apis/nonprofit-organizations/search?q=' + encodeURIComponent(np.name.split(' ')[0]))).meta.total).toBeGreaterThan(0);
    expect((await ok('/apis/population-demographics/06037.2024.population')).data).toMatchObject({ value: 9_757_179, county_name: 'Los Angeles County', vintage: 2024 });
    const counties = await ok('/apis/population-demographics/counties?year=2024&state=35&limit=100');
    expect(counties.data.map((c: any) => c.name)).toContain('Doña Ana County');
    expect(counties.data.every((c: any) => c.level === 'county' && c.measure === 'population' && c.year === 2024)).toBe(true);
    // The subcounty file is not mirrored: the view says its input was not fetched (503), not
    // a 400 naming a parameter the caller never sent, nor 200 with nothing (issue 26, item 9).
    const sub = await call('/apis/population-demographics/subcounties');
    expect(sub).toMatchObject({ status: 503, body: { error: { code: 'dataset_unavailable', details: { missing_inputs: ['subcounties'] } } } });
  });

  it('takes filter values as people type them, and refuses values outside a closed set (issue 13)', async () => {
    const total = async (p: string) => (await ok(p)).meta.total;
    expect(await total('/apis/clinical-trials?status=completed')).toBe(100);
    expect(await total('/apis/clinical-trials?phase=n%2Fa')).toBe(await total('/apis/clinical-trials?phase=NA'));
    expect(await total('/apis/clinical-trials?phase=1')).toBe(await total('/apis/clinical-trials?phase=PHASE1'));
    expect(await total('/apis/clinical-trials?phase=1')).toBeGreaterThan(0);
    expect(await total('/apis/clinical-trials?study_type=interventional')).toBe(80);
    expect(await total('/apis/public-companies/filings?cik=2012383')).toBe(await total('/apis/public-companies/filings?cik=0002012383'));
    expect(await total('/apis/public-companies/filings?cik=2012383')).toBeGreaterThan(0);
    expect(await total('/apis/weather-alerts?severity=minor&include_expired=true')).toBe(await total('/apis/weather-alerts?severity=Minor&include_expired=true'));
    expect((await call('/apis/weather-alerts?severity=catastrophic')).body.error).toMatchObject({ code: 'invalid_parameter', details: { parameter: 'severity', allowed: ['Extreme', 'Severe', 'Moderate', 'Minor', 'Unknown'] } });
  });

  it('public companies: filers by ticker or CIK, filings by form and date; eCFR titles', async () => {
    expect((await ok('/apis/public-companies/filers')).meta.total).toBe(7881);
    expect((await ok('/apis/public-companies/filings')).meta.total).toBe(11_334);
    const blk = (await ok('/apis/public-companies/0002012383')).data;
    expect(blk).toMatchObject({ kind: 'filer', name: expect.stringMatching(/BlackRock/i) });
    expect((await ok('/apis/public-companies/BLK')).data.id).toBe('0002012383');
    const filings = await ok('/apis/public-companies/filings?cik=0002012383&from=2025-07-01&to=2025-07-31&limit=100');
    expect(filings.meta.total).toBeGreaterThan(0);
    expect(filings.data.every((f: any) => f.filing_date >= '2025-07-01' && f.filing_date <= '2025-07-31')).toBe(true);
    expect((await ok('/apis/public-companies/search?q=blackrock')).meta.total).toBeGreaterThan(0);
    const titles = await ok('/apis/laws-regulations/titles?limit=100');
    expect(titles.meta).toMatchObject({ total: 50, upstream_time: '2025-02-13T00:00:00.000Z' });
    expect(await call('/apis/laws-regulations/documents')).toMatchObject({ status: 503, body: { error: { code: 'dataset_unavailable', details: { missing_inputs: ['documents'] } } } });
  });

  it('datasets with nothing fetched answer 503 with a stable code', async () => {
    for (const p of ['/apis/recalls', '/apis/procurement/awards', '/apis/recalls/search?q=salmonella']) {
      const r = await call(p);
      expect(r.status, p).toBe(503);
      expect(r.body.error.code).toBe('dataset_unavailable');
    }
  });
});
