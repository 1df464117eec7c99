import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import source, { AWARDS_URL, FIELDS, awardPages, requestBody, type AwardRecord } from '../sources/procurement.ts';
import { fakeUpstream, loopbackGet } from './helpers.ts';

// Not mirrored: fixtures only (see test/fixtures/procurement/README.md).
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
  it('declares the paged POST input, the optional last_updated input, the awards view and valid filters', () => {
    expect(source.id).toBe('procurement');
    expect(source.contractVersion).toBe('0.1.0');
    expect(source.inputs.awards).toMatchObject({ kind: 'live', url: AWARDS_URL, format: 'json' });
    expect(source.inputs.last_updated).toEqual({ kind: 'live', url: 'https://api.usaspending.gov/api/v2/awards/last_updated/', format: 'json', optional: true });
    expect(source.views).toEqual([{ segment: 'awards', summary: 'List recent federal contract awards', filter: {} }]);
    for (const f of source.search.fields) expect(Object.keys(source.schema.properties)).toContain(f);
    for (const f of source.filters) expect(Object.keys(source.schema.properties)).toContain(f.field);
    expect(source.filters.map((f) => f.param)).toEqual(['agency', 'sub_agency', 'recipient', 'award_type', 'from', 'to', 'min_amount', 'max_amount']);
    expect(source.filters.find((f) => f.param === 'min_amount')!.compare).toEqual({ op: 'min', type: 'number' });
  });
});

describe('procurement normalise', () => {
  const records = source.normalise({ awards: pages() });
  const map = byId(records);

  it('maps every result of every page, schema-valid, keys in schema order', () => {
    expect(records.map((r) => r.award_id)).toEqual(['W911QX24F0053', 'DENE0009234', 'W91ZLK24P0063']);
    expectValid(records);
  });

  it('maps the fields of an award', () => {
    expect(map.get('CONT_AWD_DENE0009234_8900_-NONE-_-NONE-')).toEqual({
      id: 'CONT_AWD_DENE0009234_8900_-NONE-_-NONE-', award_id: 'DENE0009234', recipient: 'VALAR ATOMICS, INC.',
      amount: 28000000, start_date: '2026-06-01', end_date: '2029-05-31', agency: 'Department of Energy',
      sub_agency: 'Department of Energy', award_type: 'DEFINITIVE CONTRACT',
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
    expect(() => source.normalise({})).toThrow(/field \(pages\)/);
  });
});

describe('procurement upstreamTime', () => {
  it('reads awards/last_updated MM/DD/YYYY as midnight UTC, null without it', () => {
    expect(source.upstreamTime!({ last_updated: fixture('last-updated.json') })).toBe('2026-02-14T00:00:00Z');
    expect(source.upstreamTime!({ awards: pages() })).toBeNull();
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
