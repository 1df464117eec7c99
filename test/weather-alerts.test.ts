import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import alerts, { ALERTS_SNAPSHOT, type WeatherAlertRecord } from '../sources/weather-alerts.ts';
import { sha256 } from '../pipeline/inputs.ts';
import { mirrorLocation } from '../pipeline/paths.ts';
import { MIRROR_ROOT, NEEDS_MIRROR } from './helpers.ts';

/** active.geojson: the live response shape (real alerts from the mirror, with feature id/type and the top-level
 * @context/title/updated the API sends); active.json: the mirrored trimmed + wrapped shape (PROVENANCE row 1);
 * snapshot-2025-03-17.json: 3 of the 622 features of the complete response saved in RuthannO/Weather-Alerts at
 * dbbdd001…, copied whole with the response's @context, type, title and updated. */
const fixture = (name: string) => JSON.parse(fs.readFileSync(new URL(`./fixtures/weather-alerts/${name}`, import.meta.url), 'utf8'));
const live = () => ({ alerts: fixture('active.geojson') });
const wrapped = () => ({ alerts: fixture('active.json') });
const byId = (records: WeatherAlertRecord[]) => new Map(records.map((r) => [r.id.replace('urn:oid:2.49.0.1.840.0.', ''), r]));
const check = new Ajv2020({ strict: true, allowUnionTypes: true }).compile(alerts.schema);

function expectValid(records: WeatherAlertRecord[]) {
  for (const r of records) expect(check(r), `${r.id}: ${JSON.stringify(check.errors)}`).toBe(true);
  for (const r of records) expect(Object.keys(r)).toEqual(Object.keys(alerts.schema.properties));
}

describe('weather-alerts source definition', () => {
  it('declares the live endpoint with the mirrored .json variant, filters, search and expiry', () => {
    expect(alerts.id).toBe('weather-alerts');
    expect(alerts.contractVersion).toBe('0.1.0');
    expect(alerts.inputs).toEqual({
      alerts: {
        kind: 'live', url: 'https://api.weather.gov/alerts/active', format: 'json', variants: ['https://api.weather.gov/alerts/active.json'],
        copies: [ALERTS_SNAPSHOT], dataTime: expect.any(Function),
      },
    });
    const fields = Object.keys(alerts.schema.properties);
    expect(fields[0]).toBe('id');
    expect(alerts.schema.required).toEqual(fields);
    for (const f of alerts.filters) expect(fields).toContain(f.field);
    for (const f of alerts.search.fields) expect(fields).toContain(f);
    expect(alerts.filters.map((f) => f.param)).toEqual(['state', 'zone', 'event', 'severity', 'urgency', 'certainty', 'status', 'message_type', 'from', 'to']);
    expect(alerts.filters.find((f) => f.param === 'from')).toMatchObject({ field: 'sent', compare: { op: 'min', type: 'date' } });
    expect(alerts.expires).toEqual({ field: 'in_effect_until' });
    expect(alerts.provenance[0].licence.spdx).toBe('LicenseRef-US-Gov-PD');
  });
});

describe('weather-alerts from the complete response of 2025-03-17 (issue 37, item 6; an excerpt of the snapshot)', () => {
  const snapshot = () => fixture('snapshot-2025-03-17.json');

  it('is newer than the trimmed variant by its own `updated`, which the variant lacks', () => {
    const dataTime = (alerts.inputs.alerts as { dataTime: (b: unknown) => string | null }).dataTime;
    expect(dataTime(snapshot())).toBe('2025-03-17T17:09:31+00:00');
    expect(dataTime(fixture('active.json'))).toBeNull();
  });

  it('keeps each alert\'s own id (the feature id is its @id), with the response time as upstream time', () => {
    const records = alerts.normalise({ alerts: snapshot() });
    expectValid(records);
    expect(records).toHaveLength(3);
    for (const [i, f] of snapshot().features.entries()) {
      expect(records[i].id).toBe(f.properties.id);
      expect(records[i].url).toBe(f.id);
    }
    expect(records.map((r) => r.event)).toEqual(['Flood Warning', 'High Wind Watch', 'Small Craft Advisory']);
    expect(records[2]).toMatchObject({ states: [], zones: expect.arrayContaining([expect.stringMatching(/^PK/)]) });
    expect(alerts.upstreamTime!({ alerts: snapshot() })).toBe('2025-03-17T17:09:31Z');
    const bad = snapshot();
    bad.features[1].id = bad.features[0].id;
    expect(() => alerts.normalise({ alerts: bad })).toThrow(/feature 1 .* field id/);
  });

  it.skipIf(!MIRROR_ROOT)(`the whole snapshot: 622 alerts with their ids, all in effect when it was taken ${NEEDS_MIRROR}`, () => {
    const buf = fs.readFileSync(mirrorLocation(ALERTS_SNAPSHOT.url, MIRROR_ROOT!));
    expect(sha256(buf)).toBe(ALERTS_SNAPSHOT.sha256);
    const body = JSON.parse(buf.toString('utf8'));
    const records = alerts.normalise({ alerts: body });
    expectValid(records);
    expect(records).toHaveLength(622);
    expect(new Set(records.map((r) => r.id)).size).toBe(622);
    expect(records.every((r, i) => r.url === body.features[i].id)).toBe(true);
    expect(records.filter((r) => r.in_effect_until > '2025-03-17T17:09:31Z')).toHaveLength(622);
  });
});

describe('weather-alerts normalise (fixtures)', () => {
  const fromLive = byId(alerts.normalise(live()));
  const fromMirror = byId(alerts.normalise(wrapped()));

  it('reads the live response', () => {
    expect(fromLive.size).toBe(4);
    expectValid([...fromLive.values()]);
    const wind = fromLive.get('243e72ebba2792657717a88fc5a59ee7db662b1e.001.1')!;
    expect({ ...wind, description: wind.description!.slice(0, 40), instruction: wind.instruction!.slice(0, 40), area_desc: wind.area_desc.slice(0, 30) }).toEqual({
      id: 'urn:oid:2.49.0.1.840.0.243e72ebba2792657717a88fc5a59ee7db662b1e.001.1',
      event: 'Wind Advisory',
      headline: 'Wind Advisory issued December 8 at 1:41PM PST until December 10 at 4:00PM PST by NWS Las Vegas NV',
      severity: 'Moderate', urgency: 'Expected', certainty: 'Likely', status: 'Actual', message_type: 'Update', category: 'Met', response: 'Execute',
      // Local offsets (-08:00) become UTC.
      sent: '2024-12-08T21:41:00Z', effective: '2024-12-08T21:41:00Z', onset: '2024-12-09T18:00:00Z',
      expires: '2024-12-09T10:00:00Z', ends: '2024-12-11T00:00:00Z', in_effect_until: '2024-12-11T00:00:00Z',
      area_desc: 'Lake Havasu and Fort Mohave; L',
      states: ['AZ', 'CA', 'NV'], zones: ['AZZ002', 'AZZ036', 'CAZ527', 'NVZ021'], same_codes: ['004015', '006071', '032003'],
      sender_name: 'NWS Las Vegas NV',
      references: ['urn:oid:2.49.0.1.840.0.e3f6587c865005a367ba798cdb905e2d7752dfc8.001.1'],
      vtec: ['/O.CON.KVEF.WI.Y.0033.241209T1800Z-241211T0000Z/'],
      has_geometry: false,
      description: '* WHAT...North winds 20 to 30 mph with g',
      instruction: 'Winds this strong can make driving diffi',
      url: 'https://api.weather.gov/alerts/urn:oid:2.49.0.1.840.0.243e72ebba2792657717a88fc5a59ee7db662b1e.001.1',
    });
    // Marine zones are not states; ends earlier than expires still wins.
    expect(fromLive.get('75bfa62e77a111263c753c35998fbc2f35b9ddc7.001.1')).toMatchObject({
      states: [], zones: expect.arrayContaining(['ANZ530', 'ANZ543']), expires: '2024-12-08T23:45:00Z', ends: '2024-12-08T23:00:00Z',
      in_effect_until: '2024-12-08T23:00:00Z', instruction: null,
      references: ['urn:oid:2.49.0.1.840.0.d413b025c2ba317e149e3d8cca7ca74ec088b542.001.1', 'urn:oid:2.49.0.1.840.0.a9a1d71f1dcc14b6ec6bc7990cc6359327609b15.001.1'],
    });
    // A polygon alert without ends: expires is the expiry. Below, +10:00 (Chamorro time) becomes UTC.
    expect(fromLive.get('196b6ac393394a898c4f2fc2157bf729ed66a07a.001.1')).toMatchObject({ has_geometry: true, ends: null, in_effect_until: '2024-12-09T17:00:00Z', states: ['LA'] });
    expect(fromLive.get('1d317ddd31d99c5bf26a5c87e94bc51b8358d42e.001.1')).toMatchObject({ sent: '2024-12-08T16:58:00Z', states: ['FM'], zones: ['FMZ001'] });
  });

  it('reads the mirrored trimmed copy (no feature id/type, no top-level updated)', () => {
    expect(fromMirror.size).toBe(3);
    expectValid([...fromMirror.values()]);
    expect(fromMirror.get('urn:oid:2.49.0.1.840.0-KEEPALIVE-53757')).toMatchObject({
      event: 'Test Message', status: 'Test', headline: null, onset: null, ends: null, in_effect_until: '2024-12-08T22:56:06Z',
      states: ['MD'], zones: ['MDC031'], same_codes: ['024031'], sender_name: 'NWS', references: [], vtec: [],
    });
    // Listed by NWS as active although its message expired the day before: ends decides.
    expect(fromMirror.get('4094bae75a74be4100bba402e998259d71ae5e46.001.1')).toMatchObject({
      event: 'High Wind Watch', expires: '2024-12-07T20:09:55Z', ends: '2024-12-09T06:00:00Z', in_effect_until: '2024-12-09T06:00:00Z', states: ['NM', 'TX'],
    });
    expect(fromMirror.get('da35ccfd5b79f858b98103a681a61bb058aab76d.001.1')).toMatchObject({ has_geometry: true, zones: ['TXC005', 'TXC073', 'TXC347'] });
  });

  it('also takes page bodies (an array), as a paged fetch would store them', () => {
    expect(alerts.normalise({ alerts: [fixture('active.geojson'), fixture('active.json')] })).toHaveLength(7);
    expect(alerts.upstreamTime!({ alerts: [fixture('active.json'), fixture('active.geojson')] })).toBe('2024-12-08T22:47:00Z');
  });

  it('orders newest sent first', () => {
    const sorted = [...fromLive.values(), ...fromMirror.values()].sort(alerts.order!).map((r) => r.sent);
    expect(sorted).toEqual([...sorted].sort().reverse());
    expect(sorted[0]).toBe('2024-12-08T22:46:06Z');
  });

  it('upstreamTime is the response\'s updated; for the mirrored copy, which has none, its newest alert\'s sent (issue 36, item 10)', () => {
    expect(alerts.upstreamTime!(live())).toBe('2024-12-08T22:47:00Z');
    const newestSent = [...fromMirror.values()].map((r) => r.sent).sort().pop();
    expect(alerts.upstreamTime!(wrapped())).toBe(newestSent);
    expect(newestSent).toBe('2024-12-08T22:46:06Z');
    expect(alerts.upstreamTime!({ alerts: { type: 'FeatureCollection', features: [] } })).toBeNull();
  });

  it('fails naming feature and field on unexpected shapes', () => {
    const r1 = live();
    r1.alerts.features[1].properties.severity = 'Catastrophic';
    expect(() => alerts.normalise(r1)).toThrow(/alerts\/active feature 1 \(urn:oid:\S+196b6ac3\S+\) field properties.severity: unexpected "Catastrophic"/);
    const r2 = wrapped();
    r2.alerts.features[0].properties.geocode.UGC = ['XXZ001'];
    expect(() => alerts.normalise(r2)).toThrow(/feature 0 \(urn:oid:2.49.0.1.840.0-KEEPALIVE-53757\) field properties.geocode.UGC \(unknown area\): unexpected "XXZ001"/);
    const r3 = live();
    r3.alerts.features[2].id = 'https://api.weather.gov/alerts/other';
    expect(() => alerts.normalise(r3)).toThrow(/feature 2 \(\S+\) field id/);
    const r4 = wrapped();
    r4.alerts.features[2].properties.sent = '8 Dec 2024';
    expect(() => alerts.normalise(r4)).toThrow(/feature 2 \(\S+\) field properties.sent: unexpected "8 Dec 2024"/);
    const r5 = wrapped();
    r5.alerts.features.push(r5.alerts.features[0]);
    expect(() => alerts.normalise(r5)).toThrow(/feature 3 field properties.id \(duplicate\)/);
    expect(() => alerts.normalise({ alerts: { features: [] } })).toThrow(/alerts\/active field type/);
  });
});

describe('weather-alerts on the mirrored response', () => {
  it.skipIf(!MIRROR_ROOT)(`normalises every alert of api.weather.gov/alerts/active.json ${NEEDS_MIRROR}`, () => {
    const body = JSON.parse(fs.readFileSync(path.join(MIRROR_ROOT!, 'api.weather.gov/alerts/active.json'), 'utf8'));
    const records = alerts.normalise({ alerts: body });
    expectValid(records);
    expect(records.length).toBe(444);
    expect(alerts.upstreamTime!({ alerts: body })).toBe('2024-12-08T22:46:06Z');
    const count = (f: (r: WeatherAlertRecord) => boolean) => records.filter(f).length;
    expect(count((r) => r.event === 'Gale Warning')).toBe(154);
    expect(count((r) => r.severity === 'Severe')).toBe(51);
    expect(count((r) => r.status === 'Test')).toBe(1);
    expect(count((r) => r.has_geometry)).toBe(2);
    expect(count((r) => r.states.length === 0)).toBe(349); // marine-only alerts
    expect(count((r) => r.states.includes('CA'))).toBe(13);
    // Past expires but not past ends at the newest sent (a lower bound for the fetch time).
    expect(count((r) => r.expires < '2024-12-08T22:46:06Z')).toBe(181);
    expect(count((r) => r.in_effect_until < '2024-12-08T22:46:06Z')).toBe(0);
    expect([...records].sort(alerts.order!)[0].id).toBe('urn:oid:2.49.0.1.840.0-KEEPALIVE-53757');
  });
});
