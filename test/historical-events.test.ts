import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import events, { EVENT_INPUTS, parseYear, readEvents } from '../sources/historical-events/index.ts';
import { FIXTURES, buildInChild, fixtureSource, serveSources, type FixtureServer } from './fixture-release.ts';
import { MIRROR_ROOT, NEEDS_MIRROR, cleanup, tempDir } from './helpers.ts';

/** Fixtures: real day files of the mirrored copy, cut down to a few events each (same shape). */
const DAYS = ['1/1', '1/4', '1/30', '7/21', '8/17', '10/25'];
const fixture = (md: string) => JSON.parse(fs.readFileSync(path.join(FIXTURES, 'historical-events', `${md}.json`), 'utf8'));
const raw = () => Object.fromEntries(DAYS.map((md) => [`day_${md.replace('/', '_')}`, fixture(md)]));
const check = new Ajv2020({ strict: true, allowUnionTypes: true }).compile(events.schema);

describe('historical-events source definition', () => {
  it('pins all 362 mirrored days (no March 16–19) by sha256', () => {
    const inputs = Object.values(EVENT_INPUTS);
    expect(inputs).toHaveLength(362);
    for (const d of [16, 17, 18, 19]) expect(EVENT_INPUTS[`day_3_${d}`]).toBeUndefined();
    for (const i of inputs) expect(i).toMatchObject({ kind: 'url', sha256: expect.stringMatching(/^[0-9a-f]{64}$/), format: 'json' });
    expect(events.coverage).toMatch(/March 16, 17, 18 and 19 are missing/);
    expect(events.provenance[0]).toMatchObject({ licence: { spdx: 'CC-BY-SA-4.0' }, attribution: expect.stringMatching(/Wikipedia contributors/) });
  });

  it('reads the year forms of the pages, BCE as negative years without a year 0', () => {
    expect(parseYear('1969')).toEqual({ year: 1969, era: 'CE' });
    expect(parseYear('153 BC')).toEqual({ year: -153, era: 'BCE' });
    expect(parseYear('516 BCE')).toEqual({ year: -516, era: 'BCE' });
    expect(parseYear('AD 79')).toEqual({ year: 79, era: 'CE' });
    expect(parseYear('79 AD')).toEqual({ year: 79, era: 'CE' });
    expect(parseYear('309/310')).toEqual({ year: 309, era: 'CE' });
    expect(parseYear('285 (or 286)')).toEqual({ year: 285, era: 'CE' });
    expect(parseYear('0')).toBeNull();
    expect(parseYear('1925 Scopes Trial')).toBeNull();
  });
});

describe('historical-events normalise (fixtures)', () => {
  const quirks = { textInYearField: 0, noYear: 0 };
  const records = readEvents(raw(), quirks);
  const byId = new Map(records.map((r) => [r.id, r]));

  it('gives each event its date, year, text and linked articles; records match the schema', () => {
    for (const r of records) expect(check(r), `${r.id}: ${JSON.stringify(check.errors)}`).toBe(true);
    expect(byId.get('01-01-2')).toMatchObject({
      month: 1, day: 1, year: -45, era: 'BCE', year_text: '45 BC', date: 'January 1, 45 BC',
      text: expect.stringMatching(/^The Julian calendar takes effect/),
      articles: [{ title: 'Julian calendar', url: 'https://wikipedia.org/wiki/Julian_calendar' }],
      source_page: 'https://wikipedia.org/wiki/January_1',
    });
    expect(byId.get('01-30-1')).toMatchObject({ year: -516, year_text: '516 BCE' });
    expect(byId.get('08-17-1')).toMatchObject({ year: 309, year_text: '309/310' });
  });

  it('splits the year off text scraped into the year field, and skips entries without a year, counting both', () => {
    // Ids number the events of the (cut-down) file: 1/4's second event here is the page's 41st.
    expect(byId.get('01-04-2')).toMatchObject({ year: 2010, year_text: '2010', text: expect.stringMatching(/^The Burj Khalifa/) });
    expect(byId.get('07-21-2')).toMatchObject({ year: 1925, text: expect.stringMatching(/^Scopes Trial[\s\S]*Malcolm Campbell/) });
    expect(byId.has('07-21-3')).toBe(false);
    expect(byId.has('07-21-4')).toBe(false);
    expect(quirks).toEqual({ textInYearField: 2, noYear: 2 });
  });

  it('fails naming file, event and field on a shape it does not know', () => {
    const bad = raw();
    (bad.day_1_1 as any).events[0].year = 'sometime';
    expect(() => readEvents(bad)).toThrow(/events\/1\/1\.json event 0 field year/);
    const extra = raw();
    (extra.day_1_30 as any).events[0].source = 'x';
    expect(() => readEvents(extra)).toThrow(/events\/1\/30\.json event 0 field source/);
    const date = raw();
    (date.day_1_4 as any).date = 'January 5';
    expect(() => readEvents(date)).toThrow(/events\/1\/4\.json field date/);
  });
});

describe('historical-events over HTTP (fixture release)', () => {
  let srv: FixtureServer;
  const get = (p: string) => srv.get(p);
  beforeAll(async () => {
    const files = Object.fromEntries(DAYS.map((md) => [`day_${md.replace('/', '_')}`, `historical-events/${md}.json`]));
    srv = await serveSources((cache) => [fixtureSource(events, cache, files)]);
  }, 300_000);
  afterAll(() => srv?.stop());

  it('filters by month, day and year bounds (negative = BCE), in calendar order', async () => {
    const jan1 = await get('/apis/historical-events?month=1&day=1');
    expect(jan1.body.data.map((r: any) => r.year)).toEqual([-153, -45, -42]);
    expect((await get('/apis/historical-events?to=-100')).body.data.map((r: any) => r.id)).toEqual(['01-01-1', '01-30-1']);
    expect((await get('/apis/historical-events?from=-200&to=0')).body.data.map((r: any) => r.year)).toEqual([-153, -45, -42]);
    expect(jan1.body.meta.sources[0].licence.spdx).toBe('CC-BY-SA-4.0');
  });

  it('lists the dataset in the catalogue with its coverage note', async () => {
    const entry = (await get('/apis')).body.data.find((d: any) => d.dataset === 'historical-events');
    expect(entry).toMatchObject({ status: 'available', records: 11, contract_version: '0.1.0', coverage: expect.stringMatching(/March 16, 17, 18 and 19 are missing/) });
  });

  it('searches the text', async () => {
    expect((await get('/apis/historical-events/search?q=julian calendar')).body.data[0].id).toBe('01-01-2');
  });

  it('answers 400 naming the parameter for bad filters, 404 for an unknown id', async () => {
    for (const [q, param] of [['month=13', 'month'], ['day=0', 'day'], ['from=long ago', 'from'], ['year=1969', 'year']]) {
      const { status, body } = await get(`/apis/historical-events?${q}`);
      expect(status, q).toBe(400);
      expect(body.error.details.parameter, q).toBe(param);
    }
    expect(await get('/apis/historical-events/03-16-1')).toMatchObject({ status: 404, body: { error: { code: 'record_not_found' } } });
  });
});

describe('historical-events on the mirrored copy', () => {
  it.skipIf(!MIRROR_ROOT)(`builds 17,054 events of 362 days ${NEEDS_MIRROR}`, async () => {
    const dist = tempDir('almanac-events-mirror-');
    try {
      const { reports } = await buildInChild(['historical-events'], { ALMANAC_DIST: dist, ALMANAC_CACHE: MIRROR_ROOT! });
      // 17,056 events in the copy, less the 2 whose year the scrape lost.
      expect(reports[0]).toMatchObject({ status: 'built', records: 17_054 });
    } finally {
      cleanup(dist);
    }
  }, 300_000);
});
