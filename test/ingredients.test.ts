import fs from 'node:fs';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { build } from '../server/cli/build.ts';
import { fetchAll } from '../pipeline/fetch.ts';
import { mirrorLocation } from '../pipeline/paths.ts';
import source, { inventoryDate, normaliseIngredients, type IngredientRecord } from '../sources/ingredients.ts';
import lawsRegulations from '../sources/laws-regulations.ts';
import { MIRROR_ROOT, NEEDS_MIRROR, cleanup, quiet, startServer, tempDir } from './helpers.ts';
import { serveFixtures, type FixtureServer } from './fixture-release.ts';

const FIXTURE = fileURLToPath(new URL('./fixtures/ingredients/FoodSubstances.csv', import.meta.url));
const text = () => fs.readFileSync(FIXTURE, 'utf8');
const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
const validate = ajv.compile(source.schema);

describe('ingredients normalise (fixture rows of FoodSubstances.csv)', () => {
  const records = normaliseIngredients(text());
  const by = new Map(records.map((r) => [r.id, r]));

  it('reads past FDA\'s preamble into one valid record per substance', () => {
    for (const r of records) {
      if (!validate(r as unknown)) expect.fail(`${r.id}: ${ajv.errorsText(validate.errors)}`);
      expect(Object.keys(r)).toEqual(Object.keys(source.schema.properties));
    }
    expect(records).toHaveLength(6);
    expect(inventoryDate(text())).toBe('2022-01-20');
  });

  it('splits names and effects out of the page markup and keeps the cited 21 CFR sections', () => {
    expect(by.get('9000-01-5')).toMatchObject({
      name: 'ACACIA, GUM (ACACIA SENEGAL (L.) WILLD.)', other_names: ['ACACIA', 'GUM ARABIC', 'ACACIA GUM', 'ARABIC GUM', 'GUM ACACIA'],
      cas_number: '9000-01-5', fda_id: null, cfr_title: 'title-21', cfr_sections: ['172.780', '184.1330', '169.179'], cfr_parts: ['172', '184', '169'],
      fema_number: '2001', gras_publication: '3',
    });
    expect(by.get('9000-01-5')!.technical_effects).toContain('STABILIZER OR THICKENER');
    expect(by.get('84775-39-3')).toMatchObject({ prohibited_sections: ['189.110'], technical_effects: [] });
    const riboflavin = by.get('6184-17-4')!; // its other names are joined by "</br >"
    expect(riboflavin.other_names.length).toBeGreaterThan(2);
    expect(JSON.stringify(records)).not.toMatch(/<|&diams;/);
  });

  it('treats 977… ids as FDA ids, not CAS numbers; keeps NLFG FEMA numbers as given', () => {
    expect(by.get('977164-02-5')).toMatchObject({ cas_number: null, fda_id: '977164-02-5' });
    expect(by.get('60-35-5')!.fema_number).toMatch(/^NLFG-\d+$/);
  });

  it('fails naming file, line and field on unknown markup, a changed header or a missing preamble', () => {
    expect(() => normaliseIngredients(text().replace('GUM ARABIC', '<b>GUM ARABIC</b>'))).toThrow(/FoodSubstances\.csv line 6 field Other Names/);
    expect(() => normaliseIngredients(text().replace('Other Names,', 'Synonyms,'))).toThrow(/FoodSubstances\.csv header field column 3/);
    expect(() => normaliseIngredients(text().replace('172.780', '172-780'))).toThrow(/line 6 field Reg col01|line 6 field Reg add0\d/);
    expect(() => normaliseIngredients(text().split('\r\n').slice(4).join('\r\n'))).toThrow(/FoodSubstances\.csv line 1 field \(preamble\)/);
  });
});

describe('ingredients served from the fixture (laws-regulations not in this release)', () => {
  let srv: FixtureServer;
  beforeAll(async () => {
    srv = await serveFixtures([{ source, files: { substances: FIXTURE } }]);
  }, 300_000);
  afterAll(() => srv?.stop());

  it('resolves a record by CAS number, by its name and by any other name, case-insensitively', async () => {
    for (const key of ['55589-62-3', 'acesulfame%20potassium', 'ACESULFAME-K', 'acesulfam-k']) {
      const r = await srv.get(`/apis/ingredients/${key}`);
      expect(r.status, key).toBe(200);
      expect(r.body.data.id).toBe('55589-62-3');
    }
    const found = await srv.get('/apis/ingredients/search?q=gum%20arabic');
    expect(found.body.data[0].id).toBe('9000-01-5');
    expect(found.body.meta.sources[0].licence.spdx).toBe('LicenseRef-US-Gov-PD');
  });

  it('filters by CFR part and technical effect; 404 and 400 envelopes', async () => {
    expect((await srv.get('/apis/ingredients?cfr_part=189')).body.data.map((r: IngredientRecord) => r.id)).toEqual(['84775-39-3']);
    expect((await srv.get('/apis/ingredients?technical_effect=non-nutritive%20sweetener')).body.meta.total).toBe(1);
    expect(await srv.get('/apis/ingredients/00-00-0')).toMatchObject({ status: 404, body: { error: { code: 'record_not_found' } } });
    expect(await srv.get('/apis/ingredients?cfr_part=999')).toMatchObject({ status: 400, body: { error: { details: { parameter: 'cfr_part' } } } });
  });

  it('a CFR link into a release without laws-regulations answers 503 with the reason, not a dangling 404', async () => {
    const link = (await srv.get('/apis/ingredients/9000-01-5')).body.data.cfr_title;
    expect(link).toBe('title-21');
    expect(await srv.get(`/apis/laws-regulations/${link}`)).toMatchObject({ status: 503, body: { error: { code: 'dataset_unavailable' } } });
  });
});

describe('ingredients from the mirrored FoodSubstances.csv, with laws-regulations', () => {
  it.skipIf(!MIRROR_ROOT)(`builds all 3,972 substances and every CFR link resolves to eCFR title 21 ${NEEDS_MIRROR}`, async () => {
    const spec = source.inputs.substances;
    if (spec.kind !== 'url') throw new Error('url input expected');
    expect(createHash('sha256').update(fs.readFileSync(mirrorLocation(spec.url, MIRROR_ROOT!))).digest('hex')).toBe(spec.sha256);
    const env = { ...process.env, ALMANAC_MIRROR: MIRROR_ROOT, ALMANAC_CACHE: tempDir(), ALMANAC_DIST: tempDir() };
    try {
      const sources = [lawsRegulations, source];
      await fetchAll(sources, env, quiet);
      const { reports } = await build({ env, sources, log: quiet }); // checkLinks: every cfr_title must be a laws-regulations record
      expect(reports.find((r) => r.id === 'ingredients')).toMatchObject({ status: 'built', records: 3972 });
      const srv = await startServer(env.ALMANAC_DIST);
      try {
        const key = srv.key();
        const get = async (p: string) => (await fetch(srv.base + p, { headers: { 'x-service-key': key } })).json() as Promise<any>;
        const acacia = (await get('/apis/ingredients/gum%20arabic')).data;
        expect(acacia.id).toBe('9000-01-5');
        expect((await get(`/apis/laws-regulations/${acacia.cfr_title}`)).data).toMatchObject({ id: 'title-21', number: 21 });
        expect((await get('/apis/ingredients?cfr_part=189')).meta.total).toBeGreaterThan(10);
      } finally {
        await srv.close();
        cleanup(srv.stateDir);
      }
    } finally {
      cleanup(env.ALMANAC_CACHE, env.ALMANAC_DIST);
    }
  }, 300_000);
});
