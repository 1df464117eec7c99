/**
 * Procurement (issue 37, item 2): the two samples USAspending publishes, read from excerpts
 * of the real files and, with the mirror, whole (163 + 126 records, every one schema-valid
 * and linking to its award on USAspending); the live award search on assembled fixtures
 * (test/fixtures/procurement/README.md).
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import source, { type AwardRecord } from '../sources/procurement/index.ts';
import { AWARDS_URL, FIELDS, awardPages, requestBody } from '../sources/procurement/award-search.ts';
import { AWARDS_2008_URL, TREASURY_2016_URL } from '../sources/procurement/samples.ts';
import { sha256 } from '../pipeline/inputs.ts';
import { mirrorLocation } from '../pipeline/paths.ts';
import { MIRROR_ROOT, NEEDS_MIRROR, fakeUpstream, loopbackGet } from './helpers.ts';

const fixtureText = (name: string) => fs.readFileSync(new URL(`./fixtures/procurement/${name}`, import.meta.url), 'utf8');
const fixture = (name: string) => JSON.parse(fixtureText(name));
const pages = () => [fixture('spending-by-award-page-1.json'), fixture('spending-by-award-page-2.json')];
const byId = (records: AwardRecord[]) => new Map(records.map((r) => [r.id, r]));

function expectValid(records: AwardRecord[]) {
  const check = new Ajv2020({ strict: true, allowUnionTypes: true }).compile(source.schema);
  for (const r of records) {
    expect(check(r), `${r.id}: ${JSON.stringify(check.errors)}`).toBe(true);
    expect(Object.keys(r)).toEqual(Object.keys(source.schema.properties));
  }
}

describe('procurement source', () => {
  it('declares the live award search and the two pinned samples, all optional, the awards view and valid filters', () => {
    expect(source.id).toBe('procurement');
    expect(source.contractVersion).toBe('0.2.0');
    expect(source.inputs.awards).toMatchObject({ kind: 'live', url: AWARDS_URL, format: 'json', optional: true });
    expect(source.inputs.last_updated).toEqual({ kind: 'live', url: 'https://api.usaspending.gov/api/v2/awards/last_updated/', format: 'json', optional: true });
    expect(source.inputs.awards_2008).toMatchObject({ kind: 'url', url: AWARDS_2008_URL, format: 'text', optional: true });
    expect(source.inputs.treasury_2016).toMatchObject({ kind: 'url', url: TREASURY_2016_URL, format: 'text', optional: true });
    expect(AWARDS_2008_URL).toMatch(/^https:\/\/raw\.githubusercontent\.com\/fedspendingtransparency\/usaspending-api\/[0-9a-f]{40}\//);
    expect(source.views).toEqual([{ segment: 'awards', summary: 'List recent federal contract awards', filter: {} }]);
    for (const f of source.search.fields) expect(Object.keys(source.schema.properties)).toContain(f);
    for (const f of source.filters) expect(Object.keys(source.schema.properties)).toContain(f.field);
    expect(source.filters.map((f) => f.param)).toEqual(['agency', 'sub_agency', 'recipient', 'award_type', 'naics', 'psc', 'form', 'from', 'to', 'min_amount', 'max_amount']);
    expect(source.filters.find((f) => f.param === 'min_amount')!.compare).toEqual({ op: 'min', type: 'number' });
    expect(source.provenance[0].licence.spdx).toBe('CC0-1.0');
  });
});

describe('procurement: the FY2008 award summaries (excerpt of 2008_awards.csv)', () => {
  const records = source.normalise({ awards_2008: fixtureText('2008_awards.csv') });
  const map = byId(records);

  it('reads every row as an award summary, schema-valid, each linking to its award page', () => {
    expect(records).toHaveLength(7);
    expectValid(records);
    for (const r of records) {
      expect(r).toMatchObject({ form: 'award-summary', usaspending_award_id: r.id, modification: null });
      expect(r.url).toBe(`https://www.usaspending.gov/award/${encodeURIComponent(r.id)}`);
    }
  });

  it('maps an award field by field, its type named from the code (the file writes DO and DELIVERY ORDER)', () => {
    expect(map.get('CONT_AWD_8001_9700_HDEC0104G3005_9700')).toEqual({
      id: 'CONT_AWD_8001_9700_HDEC0104G3005_9700', form: 'award-summary', award_id: '8001', usaspending_award_id: 'CONT_AWD_8001_9700_HDEC0104G3005_9700',
      modification: null, recipient: 'PROCTER & GAMBLE DISTRIBUTING LLC, THE', amount: 54334454.08, action_date: '2008-01-31',
      start_date: '2007-12-01', end_date: '2008-01-31', agency: 'Department of Defense', sub_agency: 'Defense Commissary Agency',
      award_type: 'DELIVERY ORDER', naics: '424410', naics_description: 'GENERAL LINE GROCERY MERCHANT WHOLESALERS', psc: '8999',
      psc_description: 'FOOD ITEMS FOR RESALE', description: 'RESALE - ASSORTED GROCERY',
      url: 'https://www.usaspending.gov/award/CONT_AWD_8001_9700_HDEC0104G3005_9700',
    });
    expect(map.get('CONT_AWD_NNM06AB18T_8000_NAS802002_8000')!.award_type).toBe('DELIVERY ORDER');
    expect(map.get('CONT_AWD_HHSP233200800003_7555_HHSP233200430012B_7555')!.award_type).toBe('BPA CALL');
    expect(map.get('CONT_AWD_JC005200004D5JC97617_1630_-NONE-_-NONE-')!.award_type).toBe('DEFINITIVE CONTRACT');
    expect(map.get('CONT_AWD_GS10B0611708274_4740_GS10B06117_4740')).toMatchObject({ naics: null, naics_description: null, description: 'LEASE' });
    expect(map.get('CONT_AWD_W911NF06C0015_9700_-NONE-_-NONE-')!.description).toBeNull();
  });

  it('fails naming the file, line and field on a value it does not know', () => {
    const bad = fixtureText('2008_awards.csv').replace('CONT_AWD_8001_9700_HDEC0104G3005_9700', 'AWD_8001');
    expect(() => source.normalise({ awards_2008: bad })).toThrow(/procurement: 2008_awards\.csv line 2 field generated_unique_award_id: unexpected "AWD_8001"/);
    const noColumn = fixtureText('2008_awards.csv').replace('naics_code', 'naics');
    expect(() => source.normalise({ awards_2008: noColumn })).toThrow(/2008_awards\.csv header field column naics_code/);
  });
});

describe('procurement: the 2016 Treasury transactions (excerpt of the legacy download)', () => {
  const records = source.normalise({ treasury_2016: fixtureText('usaspending_treasury_contracts.csv') });

  it('reads every transaction, schema-valid, with its modification, signed date and the award USAspending keys it under', () => {
    expect(records).toHaveLength(7);
    expectValid(records);
    const closeout = records.find((r) => r.award_id === 'TEPS111408')!;
    expect(closeout).toEqual({
      id: '9486682e-ab29-4b1e-b154-d2c9b9a1d4e0', form: 'legacy-transaction', award_id: 'TEPS111408',
      usaspending_award_id: 'CONT_AWD_TEPS111408_2041_GS06F0062S_4730', modification: 'M0001',
      recipient: 'JOHN SHORB LANDSCAPING INCORPORATED', amount: -6000, action_date: '2016-09-08', start_date: '2013-09-10',
      end_date: '2016-09-08', agency: 'Department of the Treasury', sub_agency: 'BUREAU OF ENGRAVING AND PRINTING',
      award_type: 'DELIVERY ORDER', naics: '561730', naics_description: null, psc: '3825',
      psc_description: 'ROAD CLEARING, CLEANING, AND MARKING EQUIPMENT', description: 'IGF::OT:;IGF CONTRACT CLOSEOUT',
      url: 'https://www.usaspending.gov/award/CONT_AWD_TEPS111408_2041_GS06F0062S_4730',
    });
  });

  it('keys an action on a vehicle (IDC, BPA) under the vehicle, CONT_IDV_; two actions on one award share its page', () => {
    expect(records.filter((r) => r.award_type === 'IDC' || r.award_type === 'BPA').map((r) => r.usaspending_award_id).sort())
      .toEqual(['CONT_IDV_TMHQ12C0043_2044', 'CONT_IDV_TPDCFPBPA13017A_2036']);
    const twice = records.filter((r) => r.award_id === 'TIRSE13C00003');
    expect(twice).toHaveLength(2);
    expect(new Set(twice.map((r) => r.url))).toEqual(new Set(['https://www.usaspending.gov/award/CONT_AWD_TIRSE13C00003_2050_-NONE-_-NONE-']));
    expect(new Set(twice.map((r) => r.id)).size).toBe(2);
  });

  it('fails naming the line and field of an action type it does not know', () => {
    const bad = fixtureText('usaspending_treasury_contracts.csv').replace('"C: DELIVERY ORDER"', '"X: SOMETHING"');
    expect(() => source.normalise({ treasury_2016: bad })).toThrow(/usaspending_treasury_contracts\.csv line \d+ field contractactiontype: unexpected "X: SOMETHING"/);
  });
});

describe('procurement: the forms together', () => {
  const raw = () => ({ awards: pages(), awards_2008: fixtureText('2008_awards.csv'), treasury_2016: fixtureText('usaspending_treasury_contracts.csv') });

  it('serves every form, each record naming it; an award the live search and the 2008 file share is served as it is now', () => {
    const all = source.normalise(raw());
    expect(all).toHaveLength(3 + 7 + 7);
    const live = pages();
    live[0].results[0].generated_internal_id = 'CONT_AWD_8001_9700_HDEC0104G3005_9700';
    const merged = byId(source.normalise({ ...raw(), awards: live }));
    expect(merged.size).toBe(16);
    expect(merged.get('CONT_AWD_8001_9700_HDEC0104G3005_9700')).toMatchObject({ form: 'award-search', amount: 292700000 });
    expect(() => source.normalise({ last_updated: fixture('last-updated.json') })).toThrow(/none of the inputs/);
  });

  it('the NAICS and PSC filters take a code or its group', () => {
    const naics = source.filters.find((f) => f.param === 'naics')!.valueAliases!({});
    expect(naics('541330', {})).toEqual(['54', '541', '5413', '54133']);
    const psc = source.filters.find((f) => f.param === 'psc')!.valueAliases!({});
    expect(psc('D399', {})).toEqual(['D', 'D3', 'D39']);
  });

  it('dates the data by awards/last_updated, else by the newest change the files record', () => {
    expect(source.upstreamTime!({ ...raw(), last_updated: fixture('last-updated.json') })).toBe('2026-02-14T00:00:00Z');
    expect(source.upstreamTime!({ awards_2008: fixtureText('2008_awards.csv') })).toMatch(/^20(18|19|20)-/);
    expect(source.upstreamTime!({ treasury_2016: fixtureText('usaspending_treasury_contracts.csv') })).toMatch(/^2016-09-(09|10)T00:00:00\.000Z$/);
    expect(source.upstreamTime!({ awards: pages() })).toBeNull();
  });
});

describe.skipIf(!MIRROR_ROOT)(`procurement from the whole mirrored samples ${NEEDS_MIRROR}`, () => {
  it('serves 163 award summaries and 126 transactions, every one schema-valid and linking to USAspending', () => {
    const read = (url: string, pin: string) => {
      const buf = fs.readFileSync(mirrorLocation(url, MIRROR_ROOT!));
      expect(sha256(buf)).toBe(pin);
      return buf.toString('utf8');
    };
    const raw = {
      awards_2008: read(AWARDS_2008_URL, (source.inputs.awards_2008 as { sha256: string }).sha256),
      treasury_2016: read(TREASURY_2016_URL, (source.inputs.treasury_2016 as { sha256: string }).sha256),
    };
    const records = source.normalise(raw);
    expectValid(records);
    expect(records.filter((r) => r.form === 'award-summary')).toHaveLength(163);
    expect(records.filter((r) => r.form === 'legacy-transaction')).toHaveLength(126);
    for (const r of records) expect(r.url).toMatch(/^https:\/\/www\.usaspending\.gov\/award\/CONT_(AWD|IDV)_/);
    // The rule that keys a legacy transaction is the one the 2008 file's own ids follow.
    expect(records.filter((r) => r.form === 'award-summary').every((r) => r.id.startsWith(`CONT_AWD_${r.award_id}_`))).toBe(true);
    expect(source.upstreamTime!(raw)).toBe('2020-05-15T00:18:19.496Z');
  });
});

describe('procurement: the live award search (assembled fixtures)', () => {
  const records = source.normalise({ awards: pages() });
  const map = byId(records);

  it('maps every result of every page, schema-valid, keys in schema order', () => {
    expect(records.map((r) => r.award_id)).toEqual(['W911QX24F0053', 'DENE0009234', 'W91ZLK24P0063']);
    expectValid(records);
  });

  it('maps the fields of an award', () => {
    expect(map.get('CONT_AWD_DENE0009234_8900_-NONE-_-NONE-')).toEqual({
      id: 'CONT_AWD_DENE0009234_8900_-NONE-_-NONE-', form: 'award-search', award_id: 'DENE0009234',
      usaspending_award_id: 'CONT_AWD_DENE0009234_8900_-NONE-_-NONE-', modification: null, recipient: 'VALAR ATOMICS, INC.',
      amount: 28000000, action_date: null, start_date: '2026-06-01', end_date: '2029-05-31', agency: 'Department of Energy',
      sub_agency: 'Department of Energy', award_type: 'DEFINITIVE CONTRACT', naics: null, naics_description: null, psc: null, psc_description: null,
      description: 'REACTOR PILOT PROGRAM - ADVANCED REACTOR DEMONSTRATION',
      url: 'https://www.usaspending.gov/award/CONT_AWD_DENE0009234_8900_-NONE-_-NONE-',
    });
  });

  it('serves null and empty values as null', () => {
    expect(map.get('CONT_AWD_W91ZLK24P0063_9700_-NONE-_-NONE-')).toMatchObject({ end_date: null, description: null, amount: 18800000 });
    const blank = pages();
    blank[0].results[0]['Recipient Name'] = '';
    expect(source.normalise({ awards: blank })[0].recipient).toBeNull();
  });

  it('orders by amount, largest first', () => {
    const shuffled = [...records].reverse().sort(source.order);
    expect(shuffled.map((r) => r.amount)).toEqual([292700000, 28000000, 18800000]);
  });

  it('keeps the first copy of an award seen on two pages', () => {
    const again = fixture('spending-by-award-page-1.json');
    again.results[1]['Award Amount'] = 1;
    const out = source.normalise({ awards: [fixture('spending-by-award-page-1.json'), again] });
    expect(out).toHaveLength(2);
    expect(byId(out).get('CONT_AWD_DENE0009234_8900_-NONE-_-NONE-')!.amount).toBe(28000000);
  });

  it('throws naming page, result and field', () => {
    const bad = pages();
    bad[1].results[0]['Award Amount'] = '18800000.0';
    expect(() => source.normalise({ awards: bad })).toThrow(/procurement: awards page 1 result 0 \(CONT_AWD_W91ZLK24P0063_9700_-NONE-_-NONE-\) field Award Amount: unexpected "18800000.0"/);
    const badDate = pages();
    badDate[0].results[0]['Start Date'] = '06/18/2024';
    expect(() => source.normalise({ awards: badDate })).toThrow(/awards page 0 result 0 .* field Start Date/);
    const noId = pages();
    delete noId[0].results[1].generated_internal_id;
    expect(() => source.normalise({ awards: noId })).toThrow(/awards page 0 result 1 field generated_internal_id: unexpected undefined/);
    expect(() => source.normalise({ awards: [{ detail: 'Field \'filters\' is missing' }] })).toThrow(/awards page 0 field results/);
    expect(() => source.normalise({ awards: {} })).toThrow(/field \(pages\)/);
  });
});

describe('procurement upstreamTime', () => {
  it('reads awards/last_updated MM/DD/YYYY as midnight UTC, null without it', () => {
    expect(source.upstreamTime!({ last_updated: fixture('last-updated.json') })).toBe('2026-02-14T00:00:00Z');
    expect(() => source.upstreamTime!({ last_updated: { last_updated: '2026-02-14' } })).toThrow(/last_updated/);
    expect(() => source.upstreamTime!({ last_updated: { last_updated: '02/30/2026' } })).toThrow(/last_updated/);
  });
});

describe('procurement pages', () => {
  it('POSTs the contract search for the last 90 days, page by page, until hasNext is false', async () => {
    const up = await fakeUpstream((req) => ({ body: fixtureText(`spending-by-award-page-${JSON.parse(req.body).page}.json`) }));
    try {
      const bodies: Buffer[] = [];
      for await (const b of awardPages(loopbackGet(up.base), new Date('2026-03-01T15:00:00Z'))) bodies.push(b);
      expect(bodies).toHaveLength(2);
      expect(up.requests.map((r) => [r.method, r.url])).toEqual([
        ['POST', '/api.usaspending.gov/api/v2/search/spending_by_award/'],
        ['POST', '/api.usaspending.gov/api/v2/search/spending_by_award/'],
      ]);
      expect(up.requests[0].headers['content-type']).toBe('application/json');
      expect(up.requests.map((r) => JSON.parse(r.body))).toEqual([1, 2].map((page) => ({
        filters: { award_type_codes: ['A', 'B', 'C', 'D'], time_period: [{ start_date: '2025-12-01', end_date: '2026-03-01' }] },
        fields: FIELDS, page, limit: 100, sort: 'Award Amount', order: 'desc',
      })));
      expect(FIELDS).toContain('generated_internal_id');
      expect(source.normalise({ awards: bodies.map((b) => JSON.parse(b.toString())) })).toHaveLength(3);
    } finally {
      await up.close();
    }
  });

  it('stops at the page cap even when hasNext stays true', async () => {
    const up = await fakeUpstream(() => ({ body: fixtureText('spending-by-award-page-1.json') }));
    try {
      let count = 0;
      for await (const _ of awardPages(loopbackGet(up.base), new Date('2026-03-01T00:00:00Z'), 4)) count++;
      expect(count).toBe(4);
      expect(up.requests.map((r) => JSON.parse(r.body).page)).toEqual([1, 2, 3, 4]);
      expect(requestBody(50, new Date('2026-03-01T00:00:00Z')).page).toBe(50);
    } finally {
      await up.close();
    }
  });
});
