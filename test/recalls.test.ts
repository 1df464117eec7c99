import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import source, { CENTERS, enforcementPages, type RecallRecord } from '../sources/recalls.ts';
import { fakeUpstream, loopbackGet } from './helpers.ts';

// Not mirrored: fixtures only (see test/fixtures/recalls/README.md for where their records come from).
const fixtureText = (name: string) => fs.readFileSync(new URL(`./fixtures/recalls/${name}`, import.meta.url), 'utf8');
const fixture = (name: string) => JSON.parse(fixtureText(name));
const raw = () => ({
  food: [fixture('food-page-1.json'), fixture('food-page-2.json')],
  drug: [fixture('drug-page-1.json')],
  device: [fixture('device-page-1.json')],
});
const byId = (records: RecallRecord[]) => new Map(records.map((r) => [r.id, r]));

function expectValid(records: RecallRecord[]) {
  const check = new Ajv2020({ strict: true, allowUnionTypes: true }).compile(source.schema);
  for (const r of records) {
    expect(check(r), `${r.id}: ${JSON.stringify(check.errors)}`).toBe(true);
    expect(Object.keys(r)).toEqual(Object.keys(source.schema.properties));
  }
}

describe('recalls source', () => {
  it('declares three optional paged live inputs and filters on schema fields', () => {
    expect(source.id).toBe('recalls');
    expect(source.contractVersion).toBe('0.1.0');
    expect(Object.keys(source.inputs)).toEqual(['food', 'drug', 'device']);
    for (const c of CENTERS) {
      expect(source.inputs[c]).toMatchObject({ kind: 'live', url: `https://api.fda.gov/${c}/enforcement.json`, format: 'json', optional: true });
      expect(typeof (source.inputs[c] as { pages?: unknown }).pages).toBe('function');
    }
    for (const f of source.search.fields) expect(Object.keys(source.schema.properties)).toContain(f);
    for (const f of source.filters) expect(Object.keys(source.schema.properties)).toContain(f.field);
    expect(source.filters.map((f) => f.param)).toEqual(['agency', 'classification', 'status', 'product_type', 'state', 'from', 'to']);
    expect(source.provenance[0].licence.url).toBe('https://open.fda.gov/license/');
  });
});

describe('recalls normalise', () => {
  const records = source.normalise(raw());
  const map = byId(records);

  it('maps every report of every centre and page, schema-valid, keys in schema order', () => {
    expect(records.map((r) => r.id).sort()).toEqual(['D-0115-2026', 'D-0247-2026', 'D-0289-2026', 'F-0438-2025', 'F-1858-2012', 'Z-2095-2012']);
    expectValid(records);
  });

  it('maps a food report: ISO dates, no termination, agency and centre', () => {
    expect(map.get('F-0438-2025')).toEqual({
      id: 'F-0438-2025', agency: 'FDA', center: 'food', product_type: 'Food', classification: 'Class I', status: 'Ongoing',
      recalling_firm: 'GBC Food Services, LLC dba Yummi Sushi', city: 'Farmers Branch', state: 'TX', country: 'United States',
      voluntary_mandated: 'Voluntary: Firm initiated', distribution_pattern: 'CO',
      product_description: 'Cucumber w/ Ranch Snack Cup\t850065403144\tNet Wt: 9.5oz (269g)',
      product_quantity: '6088 units (total)', reason_for_recall: 'Potential Salmonella',
      code_info: 'Purchase Date: 11/22 to 11/29/2024', recall_initiation_date: '2024-11-29', report_date: '2025-02-05',
      termination_date: null, event_id: '95888',
    });
  });

  it('serves an empty string as null and a termination date as ISO', () => {
    expect(map.get('D-0289-2026')).toMatchObject({ center: 'drug', classification: 'Class I', product_quantity: null, report_date: '2026-01-14' });
    expect(map.get('Z-2095-2012')).toMatchObject({ center: 'device', product_type: 'Devices', status: 'Terminated', termination_date: '2012-12-19' });
  });

  it('orders newest report first', () => {
    expect([...records].sort(source.order).map((r) => r.id)).toEqual(['D-0289-2026', 'D-0247-2026', 'D-0115-2026', 'F-0438-2025', 'F-1858-2012', 'Z-2095-2012']);
  });

  it('builds from any one centre and keeps the newer copy of a repeated recall number', () => {
    expect(source.normalise({ drug: [fixture('drug-page-1.json')] }).map((r) => r.center)).toEqual(['drug', 'drug', 'drug']);
    const older = fixture('drug-page-1.json');
    older.results[0].report_date = '20251001';
    older.results[0].status = 'Pending';
    const out = byId(source.normalise({ drug: [fixture('drug-page-1.json'), older] }));
    expect(out.size).toBe(3);
    expect(out.get('D-0115-2026')).toMatchObject({ status: 'Ongoing', report_date: '2025-11-05' });
  });

  it('throws naming centre, page, result and field', () => {
    const bad = raw();
    bad.drug[0].results[2].report_date = '2026-01-07';
    expect(() => source.normalise(bad)).toThrow(/recalls: drug page 0 result 2 \(D-0247-2026\) field report_date: unexpected "2026-01-07"/);
    const badDate = raw();
    badDate.food[1].results[0].termination_date = '20130231';
    expect(() => source.normalise(badDate)).toThrow(/food page 1 result 0 \(F-1858-2012\) field termination_date/);
    const noNumber = raw();
    delete noNumber.device[0].results[0].recall_number;
    expect(() => source.normalise(noNumber)).toThrow(/device page 0 result 0 field recall_number: unexpected undefined/);
    const noFirm = raw();
    noFirm.food[0].results[0].recalling_firm = '';
    expect(() => source.normalise(noFirm)).toThrow(/food page 0 result 0 \(F-0438-2025\) field recalling_firm/);
    expect(() => source.normalise({ food: [{ error: { code: 'NOT_FOUND', message: 'No matches found!' } }] })).toThrow(/food page 0 field meta/);
    expect(() => source.normalise({})).toThrow(/none of the inputs/);
  });
});

describe('recalls upstreamTime', () => {
  it('is the newest meta.last_updated of all pages, as midnight UTC', () => {
    expect(source.upstreamTime!(raw())).toBe('2026-01-28T00:00:00Z');
    expect(source.upstreamTime!({ food: [fixture('food-page-1.json')] })).toBe('2025-02-11T00:00:00Z');
    expect(source.upstreamTime!({})).toBeNull();
    const bad = { device: [fixture('device-page-1.json')] };
    bad.device[0].meta.last_updated = '01/27/2026';
    expect(() => source.upstreamTime!(bad)).toThrow(/device page 0 field meta.last_updated/);
  });
});

describe('recalls pages', () => {
  it('asks for two years of reports, newest first, 1000 a page, until total', async () => {
    const up = await fakeUpstream((req) => {
      const skip = new URL(req.url, 'http://x').searchParams.get('skip');
      return { body: fixtureText(skip === '0' ? 'food-page-1.json' : 'food-page-2.json') };
    });
    try {
      const bodies: Buffer[] = [];
      for await (const b of enforcementPages(loopbackGet(up.base), 'food', new Date('2026-03-01T12:00:00Z'))) bodies.push(b);
      expect(bodies).toHaveLength(2);
      // total 1001: skip 0 and skip 1000, then stop.
      expect(up.requests.map((r) => r.method)).toEqual(['GET', 'GET']);
      expect(up.requests.map((r) => r.url)).toEqual([0, 1000].map((skip) =>
        `/api.fda.gov/food/enforcement.json?search=report_date:[20240301+TO+20260301]&sort=report_date:desc&limit=1000&skip=${skip}`));
      expect(source.normalise({ food: bodies.map((b) => JSON.parse(b.toString())) })).toHaveLength(2);
    } finally {
      await up.close();
    }
  });

  it('stops at openFDA\'s skip limit of 25,000 and on an empty page', async () => {
    const up = await fakeUpstream(() => ({ body: JSON.stringify({ meta: { last_updated: '2026-01-28', results: { skip: 0, limit: 1000, total: 90000 } }, results: [{}] }) }));
    try {
      let count = 0;
      for await (const _ of enforcementPages(loopbackGet(up.base), 'device', new Date('2026-03-01T00:00:00Z'))) count++;
      expect(count).toBe(26);
      expect(new URL(up.requests.at(-1)!.url, 'http://x').searchParams.get('skip')).toBe('25000');
    } finally {
      await up.close();
    }
    const empty = await fakeUpstream(() => ({ body: JSON.stringify({ meta: { results: { skip: 0, limit: 1000, total: 5000 } }, results: [] }) }));
    try {
      for await (const _ of enforcementPages(loopbackGet(empty.base), 'drug')) { /* drain */ }
      expect(empty.requests).toHaveLength(1);
      expect(empty.requests[0].url).toMatch(/^\/api\.fda\.gov\/drug\/enforcement\.json\?search=report_date:\[\d{8}\+TO\+\d{8}\]&/);
    } finally {
      await empty.close();
    }
  });

  it('computes the window on leap days without skipping a date', async () => {
    const up = await fakeUpstream(() => ({ body: JSON.stringify({ meta: { results: { total: 0 } }, results: [] }) }));
    try {
      for await (const _ of enforcementPages(loopbackGet(up.base), 'food', new Date('2028-02-29T08:00:00Z'))) { /* drain */ }
      expect(up.requests[0].url).toContain('search=report_date:[20260301+TO+20280229]');
    } finally {
      await up.close();
    }
  });
});
