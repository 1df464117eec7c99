import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import earthquakes, { SNAPSHOT_COPIES, type EarthquakeRecord } from '../sources/earthquakes.ts';
import { sha256 } from '../pipeline/inputs.ts';
import { mirrorLocation } from '../pipeline/paths.ts';
import { MIRROR_ROOT, NEEDS_MIRROR } from './helpers.ts';

/** Fixtures in the feeds' own format: all_week (2024, api 1.10.3, real events), 4.5_month (2014, api 1.0.13, real
 * events), and all_month (not mirrored; built from real all_week events: a newer copy of us6000mw9y, an older
 * copy of hv74212797, and two events whose times sit exactly on and 1 ms outside the 30-day window). */
const fixture = (name: string) => JSON.parse(fs.readFileSync(new URL(`./fixtures/earthquakes/${name}`, import.meta.url), 'utf8'));
const raw = () => ({ all_month: fixture('all_month.geojson'), all_week: fixture('all_week.geojson'), m45_month: fixture('4.5_month.geojson') });
const byId = (records: EarthquakeRecord[]) => new Map(records.map((r) => [r.id, r]));
const check = new Ajv2020({ strict: true, allowUnionTypes: true }).compile(earthquakes.schema);

function expectValid(records: EarthquakeRecord[]) {
  for (const r of records) expect(check(r), `${r.id}: ${JSON.stringify(check.errors)}`).toBe(true);
  for (const r of records) expect(Object.keys(r)).toEqual(Object.keys(earthquakes.schema.properties));
}

describe('earthquakes source definition', () => {
  it('declares four optional live feeds (two with their pinned 2025 snapshots), filters and search on schema fields', () => {
    expect(earthquakes.id).toBe('earthquakes');
    expect(earthquakes.contractVersion).toBe('0.1.0');
    const base = 'https://earthquake.usgs.gov/earthquakes/feed/v1.0/summary/';
    expect(earthquakes.inputs).toEqual({
      all_month: { kind: 'live', url: `${base}all_month.geojson`, format: 'json', optional: true, missingNote: expect.stringMatching(/live only/) },
      all_week: { kind: 'live', url: `${base}all_week.geojson`, format: 'json', optional: true, copies: [SNAPSHOT_COPIES.all_week], dataTime: expect.any(Function) },
      significant_month: { kind: 'live', url: `${base}significant_month.geojson`, format: 'json', optional: true, copies: [SNAPSHOT_COPIES.significant_month], dataTime: expect.any(Function) },
      m45_month: { kind: 'live', url: `${base}4.5_month.geojson`, format: 'json', optional: true },
    });
    // Which of a mirror's copies is newest: the feed's own generated time.
    const dataTime = (earthquakes.inputs.all_week as { dataTime: (b: unknown) => string | null }).dataTime;
    expect(dataTime(fixture('snapshot-2025-all_week.json'))).toBe('2025-05-04T14:38:52.000Z');
    expect(dataTime(fixture('all_week.geojson'))).toMatch(/^2024-05-04T/);
    expect(dataTime({ type: 'FeatureCollection' })).toBeNull();
    const fields = Object.keys(earthquakes.schema.properties);
    expect(fields[0]).toBe('id');
    expect(earthquakes.schema.required).toEqual(fields);
    for (const f of earthquakes.filters) expect(fields).toContain(f.field);
    for (const f of earthquakes.search.fields) expect(fields).toContain(f);
    expect(earthquakes.filters.map((f) => f.param)).toEqual(['from', 'to', 'min_magnitude', 'max_magnitude', 'event_type', 'status', 'alert']);
    expect(earthquakes.filters.find((f) => f.param === 'min_magnitude')!.compare).toEqual({ op: 'min', type: 'number' });
    expect(earthquakes.filters.find((f) => f.param === 'to')!.compare).toEqual({ op: 'max', type: 'date' });
    expect(earthquakes.geo).toEqual({ lat: 'latitude', lon: 'longitude' });
    expect(earthquakes.provenance[0].licence.spdx).toBe('LicenseRef-US-Gov-PD');
  });
});

describe('earthquakes from the 2025 snapshots (excerpts: api 1.14.1, test/fixtures/earthquakes/README.md)', () => {
  const raw = () => ({ all_week: fixture('snapshot-2025-all_week.json'), significant_month: fixture('snapshot-2025-significant_month.json') });

  it('merges the week with the month\'s significant events: an event in both once, the older ones added', () => {
    const records = earthquakes.normalise(raw());
    expectValid(records);
    expect(records.map((r) => r.id).sort()).toEqual(['ci41144664', 'nc75176351', 'pr2025124000', 'us7000pufs', 'us7000pv06']);
    expect(byId(records).get('us7000pufs')).toMatchObject({ magnitude: 6.2, place: '21 km SE of Marmara Ereğlisi, Turkey', time: '2025-04-23T09:49:10.874Z' });
    expect(earthquakes.upstreamTime!(raw())).toBe('2025-05-04T14:39:04.000Z');
  });

  it.skipIf(!MIRROR_ROOT)(`the whole snapshots: 1,761 events of the week and 12 more of the month's 19 significant ${NEEDS_MIRROR}`, () => {
    const read = (c: { url: string; sha256: string }) => {
      const buf = fs.readFileSync(mirrorLocation(c.url, MIRROR_ROOT!));
      expect(sha256(buf)).toBe(c.sha256);
      return JSON.parse(buf.toString('utf8'));
    };
    const week = read(SNAPSHOT_COPIES.all_week);
    const sig = read(SNAPSHOT_COPIES.significant_month);
    expect([week.metadata.count, sig.metadata.count]).toEqual([1761, 19]);
    const records = earthquakes.normalise({ all_week: week, significant_month: sig });
    expectValid(records);
    expect(records).toHaveLength(1761 + 12);
  });
});

describe('earthquakes normalise (fixtures)', () => {
  const records = earthquakes.normalise(raw());
  const ids = byId(records);

  it('merges the feeds, keeps the newest copy of each event and only the 30-day window', () => {
    expect([...ids.keys()].sort()).toEqual(['ak0245p867wh', 'ci40737736', 'ci40738208', 'hv74212797', 'nc75000901', 'ok2024isfv', 'us6000mw9y']);
    expectValid(records);
    // all_month's copy is newer (DYFI reports arrived) …
    expect(ids.get('us6000mw9y')).toMatchObject({ updated: '2024-05-04T07:00:00.000Z', felt: 3, cdi: 2.2, significance: 519, alert: 'green' });
    // … all_week's is newer here, although all_month comes first.
    expect(ids.get('hv74212797')).toMatchObject({ status: 'reviewed', felt: 1, associated_ids: ['hv74212797', 'us6000mw98'] });
    // Window = 30 days before the newest generated (all_month, 2024-05-04T07:07:48Z), inclusive.
    expect(ids.get('ci40738208')!.time).toBe('2024-04-04T07:07:48.000Z');
    expect(ids.has('ak0245qu1amj')).toBe(false);
    // The 2014 feed is entirely outside the window.
    expect(records.some((r) => r.time.startsWith('2014'))).toBe(false);
  });

  it('maps a feature field by field', () => {
    expect(ids.get('nc75000901')).toEqual({
      id: 'nc75000901', time: '2024-05-04T07:00:05.430Z', updated: '2024-05-04T07:01:43.445Z', magnitude: 0.76,
      magnitude_type: 'md', place: '7 km NW of The Geysers, CA', latitude: 38.8173332214355, longitude: -122.822998046875,
      depth_km: 2.33999991416931, event_type: 'earthquake', status: 'automatic', tsunami: false, significance: 9, alert: null,
      felt: null, cdi: null, mmi: null, network: 'nc', associated_ids: ['nc75000901'],
      url: 'https://earthquake.usgs.gov/earthquakes/eventpage/nc75000901', title: 'M 0.8 - 7 km NW of The Geysers, CA',
    });
    expect(ids.get('ak0245p867wh')).toMatchObject({ tsunami: true, felt: 97, mmi: 3.362, associated_ids: ['ak0245p867wh', 'at00scwl17', 'us6000mvxz'] });
    expect(ids.get('ok2024isfv')).toMatchObject({ event_type: 'quarry blast', depth_km: 0 });
  });

  it('reads the 2014 (api 1.0.13) feed: upper-case status, null tsunami flag, http URLs', () => {
    const old = byId(earthquakes.normalise({ m45_month: fixture('4.5_month.geojson') }));
    expectValid([...old.values()]);
    expect(old.get('nc72182306')).toMatchObject({
      time: '2014-03-10T10:28:18.500Z', status: 'reviewed', tsunami: false, magnitude_type: 'Mw', alert: 'green',
      url: 'http://earthquake.usgs.gov/earthquakes/eventpage/nc72182306', associated_ids: ['nc72182306', 'usc000n6bq'],
    });
    expect(old.get('usc000ndnj')).toMatchObject({ magnitude: 6.7, tsunami: true, alert: 'yellow', place: '60km WNW of Iquique, Chile' });
    expect(old.get('usc000njtg')).toMatchObject({ felt: 0, cdi: 1, mmi: null });
  });

  it('orders newest first, ties by id', () => {
    const sorted = [...records].sort(earthquakes.order!).map((r) => r.id);
    expect(sorted).toEqual(['nc75000901', 'us6000mw9y', 'hv74212797', 'ci40737736', 'ok2024isfv', 'ak0245p867wh', 'ci40738208']);
    const a = { ...ids.get('nc75000901')! }, b = { ...a, id: 'aa000001' };
    expect(earthquakes.order!(a, b)).toBeGreaterThan(0);
  });

  it('upstreamTime is the newest present feed\'s metadata.generated', () => {
    expect(earthquakes.upstreamTime!(raw())).toBe('2024-05-04T07:07:48.000Z');
    expect(earthquakes.upstreamTime!({ all_week: fixture('all_week.geojson') })).toBe('2024-05-04T07:06:48.000Z');
    expect(earthquakes.upstreamTime!({ m45_month: fixture('4.5_month.geojson') })).toBe('2014-03-21T15:21:43.000Z');
    expect(earthquakes.upstreamTime!({})).toBeNull();
  });

  it('fails naming feed, feature and field on unexpected shapes', () => {
    const r1 = raw();
    r1.all_week.features[2].properties.mag = '3.1';
    expect(() => earthquakes.normalise(r1)).toThrow(/all_week.geojson feature 2 \(hv74212797\) field properties.mag: unexpected "3.1"/);
    const r2 = raw();
    r2.m45_month.features[1].properties.status = 'preliminary';
    expect(() => earthquakes.normalise(r2)).toThrow(/4.5_month.geojson feature 1 \(nc72182306\) field properties.status/);
    const r3 = raw();
    r3.all_month.features[0].geometry.coordinates = [10, 95, 1];
    expect(() => earthquakes.normalise(r3)).toThrow(/all_month.geojson feature 0 \(us6000mw9y\) field geometry.coordinates/);
    const r4 = raw();
    r4.all_week.features[0].properties.alert = 'purple';
    expect(() => earthquakes.normalise(r4)).toThrow(/feature 0 \(nc75000901\) field properties.alert: unexpected "purple"/);
    const r5 = raw();
    delete r5.all_week.metadata.generated;
    expect(() => earthquakes.normalise(r5)).toThrow(/all_week.geojson field metadata.generated/);
    expect(() => earthquakes.normalise({})).toThrow(/no feed present/);
  });
});

describe('earthquakes on the mirrored feeds', () => {
  const dir = MIRROR_ROOT && path.join(MIRROR_ROOT, 'earthquake.usgs.gov/earthquakes/feed/v1.0/summary');
  const read = (name: string) => JSON.parse(fs.readFileSync(path.join(dir!, name), 'utf8'));

  it.skipIf(!MIRROR_ROOT)(`normalises all_week (2024) and 4.5_month (2014) ${NEEDS_MIRROR}`, () => {
    const week = read('all_week.geojson');
    const month45 = read('4.5_month.geojson');
    const both = earthquakes.normalise({ all_week: week, m45_month: month45 });
    expectValid(both);
    expect(both.length).toBe(2588); // every all_week event; the 2014 feed is outside the window
    expect(earthquakes.upstreamTime!({ all_week: week, m45_month: month45 })).toBe('2024-05-04T07:06:48.000Z');
    const count = (rs: EarthquakeRecord[], f: (r: EarthquakeRecord) => boolean) => rs.filter(f).length;
    expect(count(both, (r) => r.event_type === 'quarry blast')).toBe(26);
    expect(count(both, (r) => r.event_type === 'explosion')).toBe(14);
    expect(count(both, (r) => r.status === 'reviewed')).toBe(1580);
    expect(count(both, (r) => r.tsunami)).toBe(4);
    expect(count(both, (r) => r.alert === 'green')).toBe(11);
    expect(count(both, (r) => (r.magnitude ?? 0) >= 4.5)).toBe(97);
    expect([...both].sort(earthquakes.order!)[0].id).toBe('nc75000901');

    const old = earthquakes.normalise({ m45_month: month45 });
    expectValid(old);
    expect(old.length).toBe(409); // 2014-02-19 .. 2014-03-21: all within 30 days of its generated time
    expect(count(old, (r) => r.tsunami)).toBe(12);
    expect(count(old, (r) => r.alert === 'yellow')).toBe(2);
    expect(count(old, (r) => r.status === 'reviewed')).toBe(409); // 3 were "REVIEWED"
  });
});
