/**
 * Acceptance for the live feeds: fetched from the upstream mirror (a folder, as CI has
 * it) into a fresh cache, built offline and served. Every dataset with a mirrored real
 * file serves real records with its upstream time and age, naming its source and licence;
 * the newer snapshots (USGS 2025, NWS 2025) win over the mirror's older feeds; recalls,
 * procurement and Federal Register documents serve the mirrored files (issue 37), each
 * with the upstream file's own count. Skips, saying why, without the mirror.
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

  it('builds every dataset from its mirrored files, with each upstream file\'s own count', () => {
    const by = Object.fromEntries(reports.map((r) => [r.id, r]));
    // USGS 2025-05-04: all_week's 1,761 events and 12 older significant ones of the month (19 in all).
    expect(by.earthquakes).toMatchObject({ status: 'built', records: 1761 + 12 });
    // NWS 2025-03-17, the complete response: 622 alerts.
    expect(by['weather-alerts']).toMatchObject({ status: 'built', records: 622 });
    // openFDA's drug file: meta.results.total 15,542.
    expect(by.recalls).toMatchObject({ status: 'built', records: 15_542 });
    // USAspending's samples: 163 award summaries + 126 transactions.
    expect(by.procurement).toMatchObject({ status: 'built', records: 163 + 126 });
    expect(by['clinical-trials']).toMatchObject({ status: 'built', records: 100 });
    expect(by['nonprofit-organizations']).toMatchObject({ status: 'built', records: 22_194 });
    expect(by['population-demographics']).toMatchObject({ status: 'built', records: 242_820 });
    expect(by['public-companies']).toMatchObject({ status: 'built', records: 19_215 });
    // 50 eCFR titles and the 20 documents of the saved search page.
    expect(by['laws-regulations']).toMatchObject({ status: 'built', records: 50 + 20 });
  });

  it('earthquakes: the 2025 snapshots, newest first, with the feed time, magnitude and geographic filters', async () => {
    const list = await ok('/apis/earthquakes?limit=100');
    // Earthquakes generated in 2025 are stale today (issue 12: stale past refresh.stale_after_seconds, two days).
    expect(list.meta).toMatchObject({ total: 1773, upstream_time: '2025-05-04T14:39:04.000Z', stale: true });
    expect(list.meta.age_seconds).toBeUndefined();
    expect(list.data[0].time.startsWith('2025-05-04')).toBe(true);
    const times = list.data.map((e: any) => e.time);
    expect([...times].sort().reverse()).toEqual(times);
    const big = await ok('/apis/earthquakes?min_magnitude=4.5&limit=100');
    expect(big.meta.total).toBe(149);
    expect(big.data.every((e: any) => e.magnitude >= 4.5)).toBe(true);
    const alaska = await ok('/apis/earthquakes?bbox=-170,50,-130,72&limit=100');
    expect(alaska.meta.total).toBeGreaterThan(0);
    expect(alaska.data.every((e: any) => e.latitude >= 50 && e.longitude <= -130)).toBe(true);
    const first = big.data[0];
    const near = await ok(`/apis/earthquakes?near=${first.latitude},${first.longitude}&radius_km=1`);
    expect(near.data.map((e: any) => e.id)).toContain(first.id);
    expect((await ok(`/apis/earthquakes/${first.id}`)).data).toEqual(first);
  });

  it('weather alerts: the complete 2025 response, each alert with its own id; all have ended, so by default none is listed', async () => {
    expect((await ok('/apis/weather-alerts')).meta.total).toBe(0);
    const all = await ok('/apis/weather-alerts?include_expired=true&limit=5');
    expect(all.meta).toMatchObject({ total: 622, upstream_time: '2025-03-17T17:09:31.000Z', stale: true });
    const one = await ok(`/apis/weather-alerts/${encodeURIComponent(all.data[0].id)}`);
    expect(one.meta.expired).toBe(true);
    expect(one.data.url).toBe(`https://api.weather.gov/alerts/${one.data.id}`);
    expect((await ok('/apis/weather-alerts?include_expired=true&state=tx&limit=1')).meta.total).toBe(34);
    expect((await ok('/apis/weather-alerts/search?q=red%20flag&include_expired=true')).meta.total).toBeGreaterThan(10);
  });

  it('recalls: every report of the drug file, newest first, naming openFDA and its licence, dated by the file\'s last_updated', async () => {
    const list = await ok('/apis/recalls?limit=3');
    expect(list.meta).toMatchObject({ total: 15_542, upstream_time: '2023-08-05T00:00:00.000Z' });
    expect(list.meta.sources[0]).toMatchObject({ licence: { spdx: 'CC0-1.0', url: 'https://open.fda.gov/license/' } });
    expect(list.meta.sources[0].attribution).toMatch(/openFDA/);
    expect(list.data[0]).toMatchObject({ center: 'drug', report_date: '2023-07-26' });
    const catalogue = (await ok('/apis')).data.find((d: any) => d.dataset === 'recalls');
    expect(catalogue).toMatchObject({ status: 'available', records: 15_542, data_date: '2023-08-05T00:00:00.000Z' });
    expect(catalogue.missing_inputs.map((m: any) => m.input)).toEqual(['device', 'food']);
    expect(catalogue.missing_inputs[0].reason).toMatch(/No copy of openFDA's device enforcement bulk file was reachable/);
    const total = async (q: string) => (await ok(`/apis/recalls?${q}`)).meta.total;
    // Filters, each checked against the records it keeps.
    const classI = await ok('/apis/recalls?classification=1&limit=100');
    expect(classI.meta.total).toBe(1523);
    expect(classI.data.every((r: any) => r.classification === 'Class I')).toBe(true);
    expect(await total('classification=class%20ii') + await total('classification=III') + classI.meta.total + await total('classification=not%20yet%20classified')).toBe(15_542);
    expect(await total('status=ongoing')).toBe(3038);
    expect(await total('state=nj')).toBe(1613);
    expect(await total('product_type=drugs')).toBe(15_542);
    const sandoz = await ok('/apis/recalls?firm=Sandoz%20Inc.&limit=100');
    expect(new Set(sandoz.data.map((r: any) => r.recalling_firm)).size).toBeGreaterThan(1);
    expect(sandoz.data.every((r: any) => /^sandoz\b/i.test(r.recalling_firm))).toBe(true);
    const year = await ok('/apis/recalls?from=2022-01-01&to=2022-12-31&limit=100');
    expect(year.meta.total).toBeGreaterThan(500);
    expect(year.data.every((r: any) => r.report_date.startsWith('2022-'))).toBe(true);
    expect((await ok('/apis/recalls/event-90638')).data).toMatchObject({ classification: 'Not Yet Classified', recalling_firm: 'Edgewell Personal Care Brands, LLC' });
    expect((await ok('/apis/recalls/search?q=benzene')).meta.total).toBeGreaterThan(20);
  });

  it('procurement: both samples, each record naming its form and linking to its award on USAspending, with the filters people use', async () => {
    const list = await ok('/apis/procurement/awards?limit=100');
    expect(list.meta.total).toBe(289);
    expect(list.meta.sources[0].licence.spdx).toBe('CC0-1.0');
    expect(list.data.every((r: any) => r.url === `https://www.usaspending.gov/award/${encodeURIComponent(r.usaspending_award_id)}`)).toBe(true);
    const amounts = list.data.map((r: any) => r.amount);
    expect([...amounts].sort((a: number, b: number) => b - a)).toEqual(amounts);
    const total = async (q: string) => (await ok(`/apis/procurement/awards?${q}`)).meta.total;
    expect(await total('form=award-summary')).toBe(163);
    expect(await total('form=legacy-transaction')).toBe(126);
    expect(await total('agency=department%20of%20the%20treasury')).toBe(126);
    expect(await total('agency=Department%20of%20Defense')).toBe(106);
    const eng = await ok('/apis/procurement/awards?naics=5413&limit=100');
    expect(eng.meta.total).toBeGreaterThan(5);
    expect(eng.data.every((r: any) => r.naics.startsWith('5413'))).toBe(true);
    const it = await ok('/apis/procurement/awards?psc=d&limit=100');
    expect(it.data.every((r: any) => r.psc.startsWith('D'))).toBe(true);
    const big = await ok('/apis/procurement/awards?min_amount=10000000&limit=100');
    expect(big.data.every((r: any) => r.amount >= 10_000_000)).toBe(true);
    const fy08 = await ok('/apis/procurement/awards?from=2007-10-01&to=2008-09-30&limit=100');
    expect(fy08.data.every((r: any) => r.start_date >= '2007-10-01' && r.start_date <= '2008-09-30')).toBe(true);
    expect((await ok('/apis/procurement/search?q=grocery')).data[0]).toMatchObject({ form: 'award-summary', psc_description: 'FOOD ITEMS FOR RESALE' });
    expect((await ok('/apis/procurement/CONT_AWD_8001_9700_HDEC0104G3005_9700')).data.amount).toBe(54334454.08);
  });

  it('laws and regulations: the saved page\'s 20 documents listed (no 503), and search finds documents as well as titles', async () => {
    const docs = await ok('/apis/laws-regulations/documents?limit=100');
    expect(docs.meta.total).toBe(20);
    expect(docs.data.every((d: any) => d.kind === 'document' && d.agency_slugs.includes('state-department'))).toBe(true);
    expect(docs.data[0]).toMatchObject({ id: '2024-31509', publication_date: '2025-01-03' });
    expect(docs.meta.sources.map((s: any) => s.licence.spdx)).toEqual(['LicenseRef-US-Gov-PD', 'LicenseRef-US-Gov-PD']);
    const gifts = await ok('/apis/laws-regulations/search?q=gifts%20foreign');
    expect(gifts.meta.total).toBeGreaterThanOrEqual(20);
    expect(gifts.data[0].kind).toBe('document');
    const env = await ok('/apis/laws-regulations/search?q=environment');
    expect(env.data.map((d: any) => d.id)).toContain('title-40');
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
  });
});
