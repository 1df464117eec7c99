/**
 * Recalls from openFDA's enforcement bulk files (issue 37, item 1): the reader and the
 * source on an excerpt of the real drug file (test/fixtures/recalls/README.md), and the
 * whole mirrored file when the mirror is there: every report of it, as its own count says.
 */
import fs from 'node:fs';
import path from 'node:path';
import { zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import source, { CENTERS, DRUG_COPY, bulkUrl, firmKey, type RecallRecord } from '../sources/recalls.ts';
import { bulkLastUpdated, readOpenFdaBulk } from '../sources/readers/openfda-bulk.ts';
import { sha256 } from '../pipeline/inputs.ts';
import { mirrorLocation } from '../pipeline/paths.ts';
import { MIRROR_ROOT, NEEDS_MIRROR } from './helpers.ts';

const MEMBER = 'drug-enforcement-0001-of-0001.json';
const excerpt = () => JSON.parse(fs.readFileSync(new URL(`./fixtures/recalls/${MEMBER}`, import.meta.url), 'utf8'));
/** A bulk file as openFDA ships it: a zip with one JSON member. */
const zipOf = (body: unknown, member = MEMBER) => Buffer.from(zipSync({ [member]: Buffer.from(JSON.stringify(body)) }));
const byId = (records: RecallRecord[]) => new Map(records.map((r) => [r.id, r]));
const check = new Ajv2020({ strict: true, allowUnionTypes: true }).compile(source.schema);

function expectValid(records: RecallRecord[]) {
  for (const r of records) {
    expect(check(r), `${r.id}: ${JSON.stringify(check.errors)}`).toBe(true);
    expect(Object.keys(r)).toEqual(Object.keys(source.schema.properties));
  }
}

describe('recalls source', () => {
  it('reads the three openFDA bulk files, each optional: the drug file with its pinned copy, food and device saying why they may be missing', () => {
    expect(source.contractVersion).toBe('0.2.0');
    expect(Object.keys(source.inputs)).toEqual([...CENTERS]);
    for (const c of CENTERS) {
      expect(source.inputs[c]).toMatchObject({ kind: 'live', url: `https://download.open.fda.gov/${c}/enforcement/${c}-enforcement-0001-of-0001.json.zip`, format: 'buffer', optional: true });
    }
    expect(source.inputs.drug).toMatchObject({ copies: [DRUG_COPY] });
    expect(source.inputs.food).toMatchObject({ missingNote: expect.stringMatching(/No copy of openFDA's food enforcement bulk file was reachable/) });
    expect(source.filters.map((f) => f.param)).toEqual(['agency', 'classification', 'status', 'firm', 'product_type', 'state', 'from', 'to']);
    for (const f of source.filters) expect(Object.keys(source.schema.properties)).toContain(f.field);
    expect(source.provenance[0].licence).toMatchObject({ spdx: 'CC0-1.0', url: 'https://open.fda.gov/license/' });
  });
});

describe('the openFDA bulk reader', () => {
  it('reads the zip\'s one JSON member, its last_updated and its results', () => {
    const f = readOpenFdaBulk(zipOf(excerpt()), 'drug.zip');
    expect(f).toMatchObject({ member: MEMBER, lastUpdated: '2023-08-05', total: 7 });
    expect(f.results).toHaveLength(7);
    expect(bulkLastUpdated(zipOf(excerpt()))).toBe('2023-08-05T00:00:00Z');
  });

  it('refuses a file whose results are fewer than its own total, a second member, and what is not a zip', () => {
    const torn = excerpt();
    torn.results.pop();
    expect(() => readOpenFdaBulk(zipOf(torn), 'drug.zip')).toThrow(/drug\.zip drug-enforcement-0001-of-0001\.json: field meta\.results\.total \(the file holds 6 results\): unexpected 7/);
    const two = Buffer.from(zipSync({ 'a.json': Buffer.from('{}'), 'b.json': Buffer.from('{}') }));
    expect(() => readOpenFdaBulk(two, 'x.zip')).toThrow(/x\.zip: field \(zip members\)/);
    expect(() => readOpenFdaBulk(Buffer.from('<html>not found</html>'), 'x.zip')).toThrow(/x\.zip: not a readable zip/);
    const noDate = excerpt();
    noDate.meta.last_updated = '08/05/2023';
    expect(() => readOpenFdaBulk(zipOf(noDate), 'x.zip')).toThrow(/field meta\.last_updated/);
  });
});

describe('recalls normalise (excerpt of the real drug file)', () => {
  const records = source.normalise({ drug: zipOf(excerpt()) });
  const map = byId(records);

  it('serves every report of the file, schema-valid, keys in schema order', () => {
    expect(records).toHaveLength(7);
    expect([...map.keys()].sort()).toEqual(['D-0286-2022', 'D-0929-2023', 'D-1046-2016', 'D-1445-2020', 'D-923-2013', 'D0033-2015', 'event-90638']);
    expectValid(records);
  });

  it('names a report FDA has not numbered yet by its event, and keeps numbers FDA wrote in another shape', () => {
    expect(map.get('event-90638')).toMatchObject({
      classification: 'Not Yet Classified', status: 'Ongoing', recalling_firm: 'Edgewell Personal Care Brands, LLC', event_id: '90638',
      reason_for_recall: 'Chemical contamination: presence of Benzene', report_date: '2022-09-21', termination_date: null,
    });
    expect(map.get('D0033-2015')).toMatchObject({ center: 'drug', product_type: 'Drugs', state: null, country: 'Guyana', report_date: '2014-10-29' });
  });

  it('maps a report field by field: ISO dates, "" as null, a missing termination date as null', () => {
    const r = map.get('D-0929-2023')!;
    expect(r).toMatchObject({ agency: 'FDA', center: 'drug', classification: 'Class II', status: 'Ongoing', state: 'MA', report_date: '2023-07-26', termination_date: null });
    expect(r.recall_initiation_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(map.get('D-923-2013')).toMatchObject({ state: null, country: 'Canada', status: 'Terminated', termination_date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) });
  });

  it('orders newest report first; the data date is the file\'s last_updated', () => {
    expect([...records].sort(source.order)[0].id).toBe('D-0929-2023');
    expect(source.upstreamTime!({ drug: zipOf(excerpt()) })).toBe('2023-08-05T00:00:00Z');
    expect(source.upstreamTime!({})).toBeNull();
  });

  it('keeps the newer copy of a recall number two files share, and builds from any one centre', () => {
    const older = excerpt();
    older.results = [{ ...older.results[2], status: 'Ongoing', report_date: '20200101' }];
    older.meta.results = { skip: 0, limit: 1, total: 1 };
    const out = byId(source.normalise({ drug: zipOf(excerpt()), food: zipOf(older, 'food-enforcement-0001-of-0001.json') }));
    expect(out.size).toBe(7);
    expect(out.get('D-0286-2022')).toMatchObject({ center: 'drug', status: 'Completed' });
  });

  it('throws naming the file, the result and the field', () => {
    const bad = excerpt();
    bad.results[2].report_date = '2021-12-08';
    expect(() => source.normalise({ drug: zipOf(bad) })).toThrow(/recalls: drug-enforcement-0001-of-0001\.json result 2 \(D-0286-2022\) field report_date: unexpected "2021-12-08"/);
    const noFirm = excerpt();
    noFirm.results[4].recalling_firm = '';
    expect(() => source.normalise({ drug: zipOf(noFirm) })).toThrow(/result 4 \(D-0929-2023\) field recalling_firm/);
    const odd = excerpt();
    odd.results[1].recall_number = 'not a number';
    expect(() => source.normalise({ drug: zipOf(odd) })).toThrow(/result 1 field recall_number: unexpected "not a number"/);
    expect(() => source.normalise({})).toThrow(/none of the inputs/);
  });
});

describe('the firm filter', () => {
  it('matches a firm as people write it: case, punctuation, & and trailing legal forms aside', () => {
    for (const n of ['Sandoz Inc', 'Sandoz, Inc', 'Sandoz Incorporated', 'SANDOZ', 'sandoz inc.']) expect(firmKey(n), n).toBe('sandoz');
    expect(firmKey('Eli Lilly & Co')).toBe(firmKey('Eli Lilly and Company'));
    expect(firmKey('Fougera Pharmaceuticals  Inc.')).toBe('fougera pharmaceuticals');
    // Words other than a trailing legal form still count; a name that is only a legal form is kept.
    expect(firmKey('Pfizer Laboratories Div Pfizer Inc')).toBe('pfizer laboratories div pfizer');
    expect(firmKey('Co.')).toBe('co');
    const firm = source.filters.find((f) => f.param === 'firm')!;
    expect(firm.valueAliases!({})('Sandoz, Inc', {})).toEqual(['sandoz']);
    expect(firm.normalise!('Sandoz Inc.')).toBe('sandoz');
  });
});

describe.skipIf(!MIRROR_ROOT)(`recalls from the whole mirrored drug file ${NEEDS_MIRROR}`, () => {
  it('serves all 15,542 reports of meta.results.total, each schema-valid, with unique ids', () => {
    const zip = fs.readFileSync(mirrorLocation(DRUG_COPY.url, MIRROR_ROOT!));
    expect(sha256(zip)).toBe(DRUG_COPY.sha256);
    const file = readOpenFdaBulk(zip, path.basename(DRUG_COPY.url));
    const records = source.normalise({ drug: zip });
    expect(file.total).toBe(15_542);
    expect(records).toHaveLength(file.total);
    expect(new Set(records.map((r) => r.id)).size).toBe(records.length);
    expectValid(records);
    expect(records.filter((r) => r.id.startsWith('event-')).map((r) => r.id)).toEqual(['event-90638']);
    // FDA's spellings of a firm fold to fewer firms (1,365 spellings, 1,222 firms).
    expect(new Set(records.map((r) => r.recalling_firm)).size).toBe(1365);
    expect(new Set(records.map((r) => firmKey(r.recalling_firm))).size).toBe(1222);
    expect(bulkUrl('drug')).toBe(source.inputs.drug.kind === 'live' ? source.inputs.drug.url : '');
  });
});
