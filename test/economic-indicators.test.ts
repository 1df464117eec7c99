import fs from 'node:fs';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { build } from '../server/cli/build.ts';
import { fetchAll } from '../pipeline/fetch.ts';
import { mirrorLocation } from '../pipeline/paths.ts';
import source, { normaliseIndicators, type IndicatorRecord } from '../sources/economic-indicators.ts';
import { MIRROR_ROOT, NEEDS_MIRROR, cleanup, quiet, startServer, tempDir } from './helpers.ts';
import { serveFixtures, type FixtureServer } from './fixture-release.ts';

const FIXTURE = fileURLToPath(new URL('./fixtures/economic-indicators/WDISeries.csv', import.meta.url));
const text = () => fs.readFileSync(FIXTURE, 'utf8');
const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
const validate = ajv.compile(source.schema);
function expectValid(records: IndicatorRecord[]) {
  for (const r of records) {
    if (!validate(r as unknown)) expect.fail(`${r.id}: ${ajv.errorsText(validate.errors)}`);
    expect(Object.keys(r)).toEqual(Object.keys(source.schema.properties));
  }
}

describe('economic-indicators normalise (fixture rows of WDISeries.csv)', () => {
  const records = normaliseIndicators(text());
  const by = new Map(records.map((r) => [r.id, r]));

  it('makes one valid record per series with its definitions', () => {
    expectValid(records);
    expect([...by.keys()].sort()).toEqual(['EG.ELC.COAL.ZS', 'MS.MIL.XPND.CD', 'NY.GDP.MKTP.CD', 'SN.ITK.MSFI.ZS', 'SP.POP.TOTL']);
    expect(by.get('NY.GDP.MKTP.CD')).toMatchObject({
      name: 'GDP (current US$)', topic_group: 'Economic Policy & Debt', periodicity: 'Annual', aggregation_method: 'Gap-filled total',
    });
  });

  it('keeps each series\' own licence: CC BY 4.0, third-party terms, or not stated (never assumed)', () => {
    expect(by.get('SP.POP.TOTL')).toMatchObject({ licence: 'CC BY 4.0', licence_type: 'CC BY-4.0', third_party_terms: false });
    expect(by.get('EG.ELC.COAL.ZS')).toMatchObject({ licence: 'IEA terms and conditions', licence_url: 'https://www.iea.org/', third_party_terms: true });
    expect(by.get('MS.MIL.XPND.CD')!.licence).toBe('Stockholm International Peace Research Institute (SIPRI) terms and conditions');
    expect(by.get('SN.ITK.MSFI.ZS')).toMatchObject({ licence: 'not stated', licence_url: null, licence_type: null, third_party_terms: true });
  });

  it('fails naming file, line and field on an unknown licence, a changed header or a short row', () => {
    expect(() => normaliseIndicators(text().replace('IEA terms', 'ACME terms'))).toThrow(/WDISeries\.csv line \d+ field License Type/);
    expect(() => normaliseIndicators(text().replace('Series Code,Topic', 'Code,Topic'))).toThrow(/WDISeries\.csv header field column 1/);
    expect(() => normaliseIndicators(`${text()}"X.Y","a"\r\n`)).toThrow(/WDISeries\.csv line \d+ field \(field count\)/);
  });
});

describe('economic-indicators served from the fixture', () => {
  let srv: FixtureServer;
  beforeAll(async () => {
    srv = await serveFixtures([{ source, files: { series: FIXTURE } }]);
  }, 300_000);
  afterAll(() => srv?.stop());

  it('lists, gets by code in any case, filters by licence, names every third-party holder in meta.sources', async () => {
    const list = await srv.get('/apis/economic-indicators?third_party_terms=true');
    expect(list.status).toBe(200);
    expect(list.body.data.map((r: IndicatorRecord) => r.id).sort()).toEqual(['EG.ELC.COAL.ZS', 'MS.MIL.XPND.CD', 'SN.ITK.MSFI.ZS']);
    expect(list.body.meta.sources.map((s: { licence: { name: string } }) => s.licence.name)).toEqual(expect.arrayContaining([
      expect.stringMatching(/Creative Commons Attribution 4\.0/), 'IEA terms and conditions', 'ITU terms and conditions',
    ]));
    const one = await srv.get('/apis/economic-indicators/ny.gdp.mktp.cd');
    expect(one.body.data).toMatchObject({ id: 'NY.GDP.MKTP.CD', licence: 'CC BY 4.0' });
    const found = await srv.get('/apis/economic-indicators/search?q=military%20expenditure');
    expect(found.body.data[0].id).toBe('MS.MIL.XPND.CD');
  });

  it('answers 404 for an unknown code and 400 naming a bad filter', async () => {
    expect(await srv.get('/apis/economic-indicators/NO.SUCH.CODE')).toMatchObject({ status: 404, body: { error: { code: 'record_not_found' } } });
    const bad = await srv.get('/apis/economic-indicators?periodicity=Hourly');
    expect(bad).toMatchObject({ status: 400, body: { error: { code: 'invalid_parameter', details: { parameter: 'periodicity' } } } });
  });

  it('shows its coverage in the catalogue', async () => {
    const cat = await srv.get('/apis');
    const entry = cat.body.data.find((d: { dataset: string }) => d.dataset === 'economic-indicators');
    expect(entry).toMatchObject({ records: 5, coverage: expect.stringMatching(/2024\/25 edition.*30/s) });
  });
});

describe('economic-indicators from the mirrored WDISeries.csv', () => {
  it.skipIf(!MIRROR_ROOT)(`pinned sha256 matches the mirror and every series builds ${NEEDS_MIRROR}`, async () => {
    const spec = source.inputs.series;
    if (spec.kind !== 'url') throw new Error('url input expected');
    const file = mirrorLocation(spec.url, MIRROR_ROOT!);
    expect(createHash('sha256').update(fs.readFileSync(file)).digest('hex')).toBe(spec.sha256);
    const env = { ...process.env, ALMANAC_MIRROR: MIRROR_ROOT, ALMANAC_CACHE: tempDir(), ALMANAC_DIST: tempDir() };
    try {
      await fetchAll([source], env, quiet);
      const { reports } = await build({ env, sources: [source], log: quiet });
      expect(reports[0]).toMatchObject({ id: 'economic-indicators', status: 'built', records: 1496 });
      const srv = await startServer(env.ALMANAC_DIST);
      try {
        const key = srv.key();
        const get = async (p: string) => (await fetch(srv.base + p, { headers: { 'x-service-key': key } })).json() as Promise<any>;
        expect((await get('/apis/economic-indicators?third_party_terms=true')).meta.total).toBe(30);
        expect((await get('/apis/economic-indicators?licence=IEA%20terms%20and%20conditions')).meta.total).toBe(19);
        expect((await get('/apis/economic-indicators/NY.GDP.MKTP.CD')).data.name).toBe('GDP (current US$)');
      } finally {
        await srv.close();
        cleanup(srv.stateDir);
      }
    } finally {
      cleanup(env.ALMANAC_CACHE, env.ALMANAC_DIST);
    }
  }, 300_000);
});
