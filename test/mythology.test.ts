import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import mythology, { normaliseMythology } from '../sources/mythology/index.ts';
import { roscherRows } from '../sources/mythology/roscher.ts';
import { FIXTURES, buildInChild, fixtureSource, serveSources, type FixtureServer } from './fixture-release.ts';
import { MIRROR_ROOT, NEEDS_MIRROR, cleanup, tempDir } from './helpers.ts';
import { fetchAll } from '../pipeline/fetch.ts';

/** Fixtures: real rows of RLM_Index_tab_A.csv (tab-separated, CRLF) and real lines of WordNet 3.1 data.noun. */
const file = (f: string) => fs.readFileSync(path.join(FIXTURES, 'mythology', f), 'utf8');
const raw = (roscherA = file('RLM_Index_tab_A.csv')) => ({ roscherA, wordnet: file('data.noun') });
const check = new Ajv2020({ strict: true, allowUnionTypes: true }).compile(mythology.schema);

describe('mythology normalise (fixtures)', () => {
  const records = normaliseMythology(raw());
  const byId = new Map(records.map((r) => [r.id, r]));

  it('reads Roscher headwords with the index\'s type, volume, columns, date, authors and scan; no pantheon', () => {
    for (const r of records) expect(check(r), `${r.id}: ${JSON.stringify(check.errors)}`).toBe(true);
    expect(byId.get('RLM00001')).toMatchObject({
      name: 'Aba', source: 'roscher', types: ['nymph'], volume: '1.1', columns: '1', published: '1884', authors: ['Roscher', 'Crusius'],
      entry_type: 'article', wikidata: ['Q304227'], pantheons: [], scan_url: expect.stringMatching(/^https:\/\/www\.archive\.org\//),
    });
    expect(byId.get('RLM00032')).toMatchObject({ entry_type: 'cross-reference', cross_reference_to: 'Akakallis, Akantho', types: [] });
    expect(byId.get('RLM13022')!.types).toEqual(['river', 'deity']);
    expect(byId.get('RLM10090')!.published).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('takes WordNet deities and mythical beings with the pantheon WordNet states, leaving out people and planets', () => {
    expect(byId.get('wordnet-09596860')).toMatchObject({
      name: 'Zeus', source: 'wordnet', types: ['deity'], individual: true, pantheons: ['Greek'],
      pantheon_basis: ['WordNet domain "Greek mythology"', 'WordNet: instance of "Greek deity"'],
    });
    expect(byId.get('wordnet-09606124')).toMatchObject({ name: 'Odin', pantheons: ['Norse'] });
    expect(byId.get('wordnet-09516693')).toMatchObject({ name: 'Chimera', types: ['mythical being'], pantheons: ['Greek'] });
    expect(byId.get('wordnet-09574485')).toMatchObject({ name: 'Greek deity', individual: false, pantheons: ['Greek'] });
    // Saint Peter sits under "deity" through "saint", but he is a person; Jupiter here is the planet.
    expect(byId.has('wordnet-11251147')).toBe(false);
    expect(byId.has('wordnet-09345360')).toBe(false);
    expect(byId.has('wordnet-09528550')).toBe(false); // "deity" itself is the root, not an entity
  });

  it('fails naming file, row and field on an unexpected header or value', () => {
    const text = file('RLM_Index_tab_A.csv');
    expect(() => roscherRows(text.replace('subject_type', 'type'))).toThrow(/RLM_Index_tab_A\.csv header field subject_type/);
    expect(() => roscherRows(text.replace('\tarticle\t', '\tessay\t'))).toThrow(/RLM_Index_tab_A\.csv row 1 field entry_type: unexpected "essay"/);
    expect(() => roscherRows(text.replace('\t1884\t', '\tMay 1884\t'))).toThrow(/row 1 field date/);
  });
});

describe('mythology over HTTP (fixture release)', () => {
  let srv: FixtureServer;
  const get = (p: string) => srv.get(p);
  beforeAll(async () => {
    const wordnet = { kind: 'url' as const, url: 'https://fixture.example/wordnet/data.noun', sha256: '', format: 'text' as const };
    srv = await serveSources((cache) => [fixtureSource({ ...mythology, inputs: { ...mythology.inputs, wordnet } }, cache, { roscherA: 'mythology/RLM_Index_tab_A.csv', wordnet: 'mythology/data.noun' })], { openapi: true });
  }, 300_000);
  afterAll(() => srv?.stop());

  it('lists entities, filters by source, type and pantheon; licences in meta', async () => {
    const all = await get('/apis/mythology/entities?limit=100');
    expect(all.status).toBe(200);
    expect(all.body.meta.sources.map((s: any) => s.licence.spdx)).toEqual(['CC0-1.0', 'LicenseRef-WordNet']);
    expect((await get('/apis/mythology/entities?pantheon=greek')).body.data.every((r: any) => r.pantheons.includes('Greek'))).toBe(true);
    expect((await get('/apis/mythology/entities?type=deity&source=roscher')).body.data.map((r: any) => r.name).sort()).toEqual(['Skamandros', 'Zeus']);
  });

  it('gets one entity by id or unambiguous WordNet name, under / and /entities; 404 for unknown', async () => {
    expect((await get('/apis/mythology/RLM15279')).body.data.name).toBe('Zeus');
    expect((await get('/apis/mythology/entities/wordnet-09606124')).body.data.name).toBe('Odin');
    expect((await get('/apis/mythology/entities/odin')).body.data.id).toBe('wordnet-09606124');
    expect(await get('/apis/mythology/entities/RLM99999')).toMatchObject({ status: 404, body: { error: { code: 'record_not_found' } } });
  });

  it('searches names and glosses; bad filters are a 400 naming the parameter', async () => {
    const zeus = await get('/apis/mythology/search?q=zeus');
    expect(zeus.body.data.map((r: any) => r.id)).toEqual(expect.arrayContaining(['RLM15279', 'wordnet-09596860']));
    for (const [q, param] of [['pantheon=Klingon', 'pantheon'], ['source=wikipedia', 'source'], ['culture=Greek', 'culture']]) {
      const { status, body } = await get(`/apis/mythology/entities?${q}`);
      expect(status, q).toBe(400);
      expect(body.error.details.parameter, q).toBe(param);
    }
  });
});

describe('mythology on the mirrored Roscher index', () => {
  it.skipIf(!MIRROR_ROOT)(`builds all 15,478 Roscher headwords with the WordNet beings ${NEEDS_MIRROR}`, async () => {
    const dist = tempDir('almanac-myth-mirror-');
    try {
      // Fetched as a machine without network would: Zenodo's address is not in the mirror, the known copy is.
      const cache = tempDir('almanac-myth-cache-');
      const lines: string[] = [];
      await fetchAll([mythology], { ALMANAC_CACHE: cache, ALMANAC_MIRROR: MIRROR_ROOT! }, (l) => lines.push(l));
      expect(lines).toEqual([expect.stringMatching(/^fetch: mythology: https:\/\/zenodo\.org\/records\/11113695\/files\/RLM_Index_tab_A\.csv from the known copy https:\/\/raw\.githubusercontent\.com\/JohnCrafton\//)]);
      const { reports } = await buildInChild(['mythology'], { ALMANAC_DIST: dist, ALMANAC_CACHE: cache });
      cleanup(cache);
      expect(reports[0]).toMatchObject({ status: 'built', records: 15_478 + 525 });
    } finally {
      cleanup(dist);
    }
  }, 300_000);
});
