import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import Holidays, { type HolidaysTypes } from 'date-holidays';
import source, { FIRST_YEAR, LAST_YEAR, type HolidayRecord } from '../sources/holidays.ts';
import { generateDataset, orderRecords } from '../pipeline/shards.ts';
import { PROJECT_ROOT } from '../pipeline/paths.ts';

const require = createRequire(import.meta.url);
const fixtureText = fs.readFileSync(new URL('./fixtures/holidays/holidays.json', import.meta.url), 'utf8');
const REAL_FILE = `${PROJECT_ROOT}/node_modules/date-holidays/data/holidays.json`;
/** The real data file, parsed afresh (tests may change it). */
const realData = () => JSON.parse(fs.readFileSync(REAL_FILE, 'utf8'));

const byId = (records: HolidayRecord[]) => new Map(records.map((r) => [r.id, r]));
const ajv = () => new Ajv2020({ strict: true, allowUnionTypes: true });
function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object') Object.values(Object.freeze(o)).forEach(deepFreeze);
  return o;
}

describe('holidays normalise (fixture in date-holidays\' own format)', () => {
  const records = source.normalise({ holidays: JSON.parse(fixtureText) });
  const r = byId(records);

  it('emits one record per occurrence per jurisdiction, fixed key order, schema-valid', () => {
    const check = ajv().compile(source.schema);
    for (const rec of records) expect(check(rec), JSON.stringify(check.errors)).toBe(true);
    expect(Object.keys(records[0])).toEqual(Object.keys(source.schema.properties));
    expect(r.get('CH-2026-08-01-swiss-national-day')).toEqual({
      id: 'CH-2026-08-01-swiss-national-day', country: 'CH', subdivision: null, scope: 'national', date: '2026-08-01', end_date: '2026-08-01', days: 1, year: 2026,
      name: 'Swiss National Day', local_name: 'Bundesfeiertag', type: 'public', substitute: false, rule: '08-01',
      country_names: ['Switzerland', 'Schweiz', 'Suisse'], subdivision_names: [],
    });
    // The country's and subdivision's names as the source gives them, English first (issue 36, item 6).
    expect(r.get('CH-GE-2026-08-01-swiss-national-day')!.subdivision_names).toEqual(['Canton of Geneva', 'Genève']);
    // Every generated year and no other: coverage is exactly FIRST_YEAR..LAST_YEAR.
    expect(new Set(records.map((x) => x.year))).toEqual(new Set(Array.from({ length: LAST_YEAR - FIRST_YEAR + 1 }, (_, i) => FIRST_YEAR + i)));
  });

  it('names: English from the translations, else the local name; local name in the subdivision\'s language', () => {
    expect(r.get('CH-GE-2026-08-01-swiss-national-day')).toMatchObject({ name: 'Swiss National Day', local_name: 'Fête nationale' });
    expect(r.get('CH-GE-2026-12-31-restauration-de-la-republique')).toMatchObject({ name: 'Restauration de la République', local_name: 'Restauration de la République' });
    expect(r.get('CH-GE-2026-09-10-genevan-fast')).toMatchObject({ local_name: 'Jeûne genevois', rule: 'thursday after 1st sunday in September' });
    expect(r.get('CH-2026-01-01-new-year-s-day')!.local_name).toBe('Neujahr'); // via the data's _name reference
  });

  it('marks substitute days, also for a rule the data forgot to flag', () => {
    // 2022-01-01 was a Saturday: the holiday stays and Monday is the substitute day.
    expect(r.get('GB-2022-01-01-new-year-s-day')!.substitute).toBe(false);
    expect(r.get('GB-2022-01-03-new-year-s-day-substitute-day')).toMatchObject({ substitute: true, name: "New Year's Day (substitute day)", type: 'public' });
    // "substitutes 12-25 …" has no substitute flag in the fixture; 2022-12-25 was a Sunday.
    expect(r.get('GB-2022-12-27-christmas-day-substitute-day')).toMatchObject({
      substitute: true, rule: 'substitutes 12-25 if saturday then next monday if sunday then next tuesday',
    });
    expect(records.filter((x) => x.substitute).every((x) => x.name.endsWith('(substitute day)'))).toBe(true);
  });

  it('gives each subdivision its complete list: national days included, removed ones absent', () => {
    const sct = records.filter((x) => x.subdivision === 'GB-SCT' && x.year === 2026).map((x) => x.name);
    expect(sct).toEqual(expect.arrayContaining(["New Year's Day", '2nd January', "St Andrew's Day", 'Christmas Day']));
    expect(sct).not.toContain("Mother's Day"); // "easter -21": false in SCT
    expect(r.get('GB-2026-03-15-mother-s-day')).toMatchObject({ type: 'observance', subdivision: null });
    expect(records.some((x) => x.subdivision === null && x.name === "St Andrew's Day")).toBe(false);
  });

  it('is deterministic, has unique ids and leaves its input untouched', () => {
    const frozen = deepFreeze(JSON.parse(fixtureText));
    const again = source.normalise({ holidays: frozen });
    expect(again).toEqual(records);
    expect(JSON.stringify(frozen)).toBe(JSON.stringify(JSON.parse(fixtureText)));
    expect(r.size).toBe(records.length);
  });

  it('lists a country-wide calendar before its subdivisions, and summarises coverage', () => {
    const ordered = orderRecords(source, records);
    expect(ordered.slice(0, 3).map((x) => x.id)).toEqual(['CH-2020-01-01-new-year-s-day', 'CH-2020-04-13-ostermontag', 'CH-2020-08-01-swiss-national-day']);
    const { info } = generateDataset(source, ordered, [], { countryCodes: JSON.parse(fs.readFileSync(new URL('../node_modules/cldr-core/supplemental/codeMappings.json', import.meta.url), 'utf8')) });
    expect(info.filters.find((f) => f.param === 'year')).toMatchObject({ max_span: 10, values: 11 });
    expect(ajv().validate(source.summaryView!.schema, info.summary)).toBe(true);
    expect(info.summary).toEqual({
      source: 'date-holidays', version: '3.37.0', data_licence: 'CC BY-SA 3.0', years: { from: 2020, to: 2030 },
      countries: [
        { code: 'CH', name: 'Switzerland', holidays: 88, subdivisions: [{ code: 'CH-GE', name: 'Canton of Geneva', holidays: 55 }] },
        { code: 'GB', name: 'United Kingdom', holidays: 89, subdivisions: [{ code: 'GB-SCT', name: 'Scotland', holidays: 50 }] },
      ],
    });
  });

  it('fails loudly on data that is not date-holidays\' format', () => {
    expect(() => source.normalise({ holidays: [] })).toThrow(/holidays\.json/);
    const bad = JSON.parse(fixtureText);
    bad.holidays.gb = bad.holidays.GB;
    expect(() => source.normalise({ holidays: bad })).toThrow(/country: unexpected code "gb"/);
  });
});

describe('holidays does not depend on the machine\'s time zone', () => {
  // Countries using each of the engine's calendars (Easter, Chinese and Korean lunar, Hijri,
  // Hebrew, Jalaali, Bengali, equinoxes) and zones far apart. The full data gave identical
  // output under nine zones when this source was written; that takes too long for every run.
  const script = `
    import fs from 'node:fs'; import { createHash } from 'node:crypto';
    import source from './sources/holidays.ts';
    const data = JSON.parse(fs.readFileSync(${JSON.stringify(REAL_FILE)}, 'utf8'));
    const pick = ['US', 'NZ', 'CN', 'SA', 'IL', 'IR', 'JP', 'CL', 'BR', 'AU', 'ET', 'IN', 'KR', 'BD'];
    const records = source.normalise({ holidays: { ...data, holidays: Object.fromEntries(pick.map((c) => [c, data.holidays[c]])) } });
    process.stdout.write(records.length + ' ' + createHash('sha256').update(JSON.stringify(records)).digest('hex'));`;
  // Child processes run asynchronously: a synchronous wait would hold this worker's event
  // loop (and vitest's RPC with it) for the whole run (test/loop-watch.ts).
  const run = async (tz: string) => (await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: PROJECT_ROOT, env: { ...process.env, TZ: tz }, encoding: 'utf8',
  })).stdout;

  it('gives byte-identical records under TZ=UTC, Pacific/Auckland and America/Santiago', async () => {
    const [utc, akl, scl] = await Promise.all(['UTC', 'Pacific/Auckland', 'America/Santiago'].map(run));
    expect(Number(utc.split(' ')[0])).toBeGreaterThan(5000);
    expect(akl).toBe(utc);
    expect(scl).toBe(utc);
  });
});

describe('holidays on the real date-holidays 3.37.0', () => {
  let records: HolidayRecord[];
  let r: Map<string, HolidayRecord>;
  // One normalise of the real file (seconds of synchronous work). That a second run gives
  // the same records is checked on the fixture above, and on the real file across
  // processes by test/pipeline.test.ts (the whole release, byte for byte).
  beforeAll(async () => {
    records = source.normalise({ holidays: realData() });
    r = byId(records);
  });

  it('covers 206 countries and 357 subdivisions, 2020–2030, with unique schema-valid records', () => {
    // 107,962 one-day-per-rule records before consecutive days of one holiday were joined (1,153 joined records).
    expect(records.length).toBe(106_722);
    expect(r.size).toBe(records.length);
    expect(new Set(records.map((x) => x.country)).size).toBe(206);
    expect(new Set(records.map((x) => x.subdivision).filter(Boolean)).size).toBe(357);
    const check = ajv().compile(source.schema);
    expect(records.every((x) => check(x)), JSON.stringify(check.errors)).toBe(true);
  });

  it('knows Germany and Bavaria: New Year nationwide, Epiphany in DE-BY only', () => {
    expect(r.get('DE-2026-01-01-new-year-s-day')).toMatchObject({ local_name: 'Neujahr', type: 'public', subdivision: null });
    expect(records.some((x) => x.country === 'DE' && x.subdivision === null && x.date === '2026-01-06')).toBe(false);
    expect(r.get('DE-BY-2026-01-06-epiphany')).toMatchObject({ name: 'Epiphany', local_name: 'Heilige Drei Könige', type: 'public' });
    expect(r.get('DE-BY-2026-01-01-new-year-s-day')).toBeDefined(); // complete list per subdivision
  });

  it('carries a holiday of several days as one record with its whole span (Seollal, "P3D")', () => {
    const seollal = records.filter((x) => x.country === 'KR' && !x.subdivision && x.year === 2026 && x.local_name === '설날');
    expect(seollal).toEqual([expect.objectContaining({ local_name: '설날', date: '2026-02-17', end_date: '2026-02-19', days: 3, rule: 'korean 01-0-01 P3D' })]);
    // date-holidays starts the three days on New Year's Day itself; the public holiday is 02-16 to 02-18 (see README)
    expect(records.filter((x) => x.days > 1).length).toBeGreaterThan(50);
    expect(records.every((x) => x.end_date >= x.date)).toBe(true);
    expect(r.get('AU-NT-2026-12-24-christmas-eve')).toMatchObject({ days: 1, end_date: '2026-12-24' }); // from 19:00: one calendar day
  });

  it('joins a holiday the source gives one day per rule into one record (China\'s Spring Festival), its other days\' ids kept as aliases', () => {
    const spring = records.filter((x) => x.country === 'CN' && !x.subdivision && x.year === 2026 && x.name === 'Spring Festival');
    expect(spring).toEqual([expect.objectContaining({ id: 'CN-2026-02-16-spring-festival', date: '2026-02-16', end_date: '2026-02-18', days: 3, rule: 'chinese 01-0-00; chinese 01-0-01; chinese 01-0-02' })]);
    expect(source.aliases!(spring[0])).toEqual(['CN-2026-02-17-spring-festival', 'CN-2026-02-18-spring-festival']);
    // Substitute days and holidays of other names on the next day stay apart.
    expect(r.get('GB-2026-12-28-boxing-day-substitute-day')!.days).toBe(1);
    expect(r.get('GB-2026-12-25-christmas-day')!.days).toBe(1);
  });

  it('names US holidays in US English, GB ones in British English', () => {
    expect(r.get('US-2026-09-07-labor-day')).toMatchObject({ name: 'Labor Day', local_name: 'Labor Day' });
    expect(records.some((x) => x.country === 'US' && /Labour/.test(x.name))).toBe(false);
    expect(records.find((x) => x.country === 'CA' && !x.subdivision && x.date === '2026-09-07')!.name).toBe('Labour Day');
  });

  it('declares from/to as an overlap: a holiday is found by any of its days; scope defaults to both', () => {
    expect(source.filters.find((f) => f.param === 'from')).toMatchObject({ field: 'end_date', compare: { op: 'min', type: 'date' } });
    expect(source.filters.find((f) => f.param === 'to')).toMatchObject({ field: 'date', compare: { op: 'max', type: 'date' } });
    expect(source.filters.find((f) => f.param === 'scope')!.description).toMatch(/Default: both/);
  });

  it('has the observed days of the US and GB', () => {
    // 2026-07-04 is a Saturday; 2027-12-25 and 2028-01-01 are Saturdays; 2026-12-26 is a Saturday.
    expect(r.get('US-2026-07-03-independence-day-substitute-day')).toMatchObject({ substitute: true, type: 'public' });
    expect(r.get('US-2027-12-24-christmas-day-substitute-day')!.substitute).toBe(true);
    expect(r.get('US-2027-12-31-new-year-s-day-substitute-day')!.year).toBe(2027);
    expect(r.get('GB-2026-12-28-boxing-day-substitute-day')).toMatchObject({ substitute: true, name: 'Boxing Day (substitute day)' });
  });

  it('drops IC, whose list is ES-CN\'s, so every country links to world-countries', () => {
    const cca2 = new Set((require('world-countries/countries.json') as { cca2: string }[]).map((c) => c.cca2));
    const countries = new Set(records.map((x) => x.country));
    expect([...countries].filter((c) => !cca2.has(c))).toEqual([]);
    expect(Object.keys(realData().holidays).filter((c) => !countries.has(c))).toEqual(['IC']);
    const data = realData();
    const list = (...args: string[]) => {
      const hd = new Holidays(...(args as [string]), { data } as HolidaysTypes.Options);
      return hd.getHolidays(2026).map((h) => [h.date, h.name, h.type, h.rule]);
    };
    expect(list('IC')).toEqual(list('ES', 'CN'));
  });

  it('summarises coverage: ~200 countries with subdivisions, source and version, small', () => {
    const summary = source.summary!(orderRecords(source, records)) as { years: unknown; version: string; countries: { code: string; name: string; subdivisions: { code: string; name: string }[] }[] };
    expect(ajv().validate(source.summaryView!.schema, summary)).toBe(true);
    expect(summary.version).toBe('3.37.0');
    expect(summary.years).toEqual({ from: 2020, to: 2030 });
    expect(summary.countries).toHaveLength(206);
    const de = summary.countries.find((c) => c.code === 'DE')!;
    expect(de.name).toBe('Germany');
    expect(de.subdivisions).toHaveLength(16);
    expect(de.subdivisions).toContainEqual(expect.objectContaining({ code: 'DE-BY', name: 'Bayern' }));
    expect(JSON.stringify(summary).length).toBeLessThan(64 * 1024);
    // Names come from the library's bundled copy, which must be this very data file.
    expect(require('date-holidays/data').data).toEqual(realData());
  });
});
