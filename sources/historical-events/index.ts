/**
 * historical-events: Wikipedia "On this day" events, one record per event.
 *
 * Upstream: lukaskunn/wikipedia-on-this-day-db (src/db/events/<month>/<day>.json, scraped
 * 2021-03..05 through the byabbe.se "On this day" API from English Wikipedia's date
 * pages). Each file: {wikipedia: <date page URL>, date: "January 1", events: [{year,
 * description, wikipedia: [{title, wikipedia}], url_image?}]}. 362 files: the repository
 * has none for March 16–19. Text CC BY-SA 4.0, Wikipedia contributors.
 *
 * Years: "1969", "153 BC", "516 BCE", "AD 79", "79 AD", "309/310" and "285 (or 286)" are
 * read; `year` is the first year, negative before the common era (153 BC → -153; there is
 * no year 0), `year_text` keeps what the page says. Known quirks of the scrape, handled
 * by name and counted in the coverage note:
 * - 18 events have their text in the year field ("2013 The band …", "1942 -World War
 *   II: …") and no description: the leading year is the year, the rest the description.
 * - 2 events (July 21) have only text in the year field and no year at all: skipped (their
 *   text also appears in the preceding 1925 event, which the scrape merged).
 * Any other shape fails the build naming the file, event and field.
 * Not served: `url_image` (added by the repository's own image scraper, not Wikipedia text).
 */
import { defineSource, type InputSpec } from '../contract.ts';
import { DAY_PINS } from './pins.ts';

export interface EventRecord {
  id: string; month: number; day: number; year: number; year_text: string; era: 'BCE' | 'CE'; date: string;
  text: string; articles: { title: string; url: string }[]; source_page: string;
}

const BASE = 'https://raw.githubusercontent.com/lukaskunn/wikipedia-on-this-day-db/master/src/db/events/';
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const inputName = (m: number, d: number) => `day_${m}_${d}`;

export const EVENT_INPUTS: Record<string, InputSpec> = Object.fromEntries(DAY_PINS.map((line) => {
  const [md, sha256] = line.split(' ');
  const [m, d] = md.split('/').map(Number);
  return [inputName(m, d), { kind: 'url', url: `${BASE}${m}/${d}.json`, sha256, format: 'json' }];
}));

function fail(where: string, field: string, value: unknown): never {
  throw new Error(`historical-events: ${where} field ${field}: unexpected ${JSON.stringify(value)?.slice(0, 160)}`);
}
const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** First year and era of a year field; null when the field holds no year form known here. */
export function parseYear(text: string): { year: number; era: 'BCE' | 'CE' } | null {
  const m = /^(?:AD )?(\d{1,4})(?: (BC|BCE|AD))?(?:\/\d{1,4}| \(or \d{1,4}\))?$/.exec(text);
  if (!m || Number(m[1]) === 0) return null;
  const bce = m[2] === 'BC' || m[2] === 'BCE';
  return { year: bce ? -Number(m[1]) : Number(m[1]), era: bce ? 'BCE' : 'CE' };
}

/** The quirk "year and text in the year field": "2013 The band …", "1942 -World War II: …". */
const YEAR_WITH_TEXT = /^(\d{3,4})(?:[\s\u00a0]*-+[\s\u00a0]*|[\s\u00a0]+)(\S[\s\S]*)$/;

export interface EventsQuirks { textInYearField: number; noYear: number }

export function readEvents(raw: Record<string, unknown>, quirks: EventsQuirks = { textInYearField: 0, noYear: 0 }): EventRecord[] {
  const out: EventRecord[] = [];
  for (const name of Object.keys(EVENT_INPUTS)) {
    const [, m, d] = name.split('_').map(Number);
    const file = `events/${m}/${d}.json`;
    const body = raw[name];
    if (body === undefined) continue; // an optional day absent from a test's raw
    if (!isObj(body)) fail(file, '(document)', body);
    for (const k of Object.keys(body)) if (!['wikipedia', 'date', 'events'].includes(k)) fail(file, k, body[k]);
    if (body.date !== `${MONTHS[m - 1]} ${d}`) fail(file, 'date', body.date);
    const page = typeof body.wikipedia === 'string' && body.wikipedia.startsWith('https://') ? body.wikipedia : fail(file, 'wikipedia', body.wikipedia);
    if (!Array.isArray(body.events)) fail(file, 'events', body.events);
    body.events.forEach((e, i) => {
      const at = `${file} event ${i}`;
      if (!isObj(e)) fail(at, '(event)', e);
      for (const k of Object.keys(e)) if (!['year', 'description', 'wikipedia', 'url_image'].includes(k)) fail(at, k, e[k]);
      const yearField = typeof e.year === 'string' ? e.year.trim() : fail(at, 'year', e.year);
      let parsed = parseYear(yearField);
      let yearText = yearField;
      let text: string;
      if (typeof e.description === 'string' && e.description.trim() !== '' && parsed) text = e.description.trim();
      else if (e.description === null && !parsed) {
        const q = YEAR_WITH_TEXT.exec(yearField);
        if (q) {
          parsed = parseYear(q[1]);
          yearText = q[1];
          text = q[2].trim();
          quirks.textInYearField++;
        } else if (!/^\d/.test(yearField) && yearField.length > 20) {
          quirks.noYear++;
          return;
        } else return fail(at, 'year', e.year);
      } else return fail(at, parsed ? 'description' : 'year', parsed ? e.description : e.year);
      if (!parsed) return fail(at, 'year', e.year);
      if (!Array.isArray(e.wikipedia)) fail(at, 'wikipedia', e.wikipedia);
      const articles = e.wikipedia.map((w, j) => {
        if (!isObj(w) || typeof w.title !== 'string' || typeof w.wikipedia !== 'string' || !w.wikipedia.startsWith('https://')) fail(`${at} wikipedia[${j}]`, '(article)', w);
        return { title: w.title as string, url: w.wikipedia as string };
      });
      out.push({
        id: `${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}-${i + 1}`,
        month: m, day: d, year: parsed.year, year_text: yearText, era: parsed.era,
        date: `${MONTHS[m - 1]} ${d}, ${parsed.era === 'BCE' ? `${-parsed.year} BC` : parsed.year}`,
        text, articles, source_page: page,
      });
    });
  }
  return out;
}

const properties = {
  id: { type: 'string', pattern: '^\\d{2}-\\d{2}-\\d+$', description: '<MM>-<DD>-<n>: the n-th event of that day\'s page' },
  month: { type: 'integer', minimum: 1, maximum: 12 },
  day: { type: 'integer', minimum: 1, maximum: 31 },
  year: { type: 'integer', description: 'Year; negative before the common era (-44 = 44 BC; there is no year 0). The first year where the page gives two ("309/310")' },
  year_text: { type: 'string', description: 'The year as the Wikipedia page gives it ("153 BC", "309/310")' },
  era: { type: 'string', enum: ['BCE', 'CE'] },
  date: { type: 'string', description: 'Readable date, e.g. "January 1, 45 BC" (Julian or Gregorian as Wikipedia gives it)' },
  text: { type: 'string', description: 'The event as Wikipedia\'s "On this day" list describes it' },
  articles: {
    type: 'array', description: 'Wikipedia articles the entry links to',
    items: { type: 'object', additionalProperties: false, required: ['title', 'url'], properties: { title: { type: 'string' }, url: { type: 'string' } } },
  },
  source_page: { type: 'string', description: 'The Wikipedia date page the event comes from' },
};

export default defineSource<EventRecord>({
  id: 'historical-events',
  title: 'Historical events',
  description: 'Events from English Wikipedia\'s "On this day" date pages: date with year (BCE handled), text and the '
    + 'articles it links. Filter by month and day, and by year with from/to (negative years are BCE).',
  coverage: 'A 2021 scrape (March–May 2021) of the English Wikipedia date pages as mirrored by '
    + 'lukaskunn/wikipedia-on-this-day-db: 17,054 events of 362 days. March 16, 17, 18 and 19 are missing from that copy, so '
    + 'those days have no events here. The pages select notable events; they are not a complete chronology. 2 entries of July 21 '
    + 'whose year the scrape lost are left out; 18 whose text landed in the year field are kept with the year split off.',
  contractVersion: '0.1.0',
  provenance: [{
    name: 'Wikipedia "On this day" events (English Wikipedia date pages), via lukaskunn/wikipedia-on-this-day-db (byabbe.se API scrape, 2021)',
    url: 'https://github.com/lukaskunn/wikipedia-on-this-day-db',
    licence: { spdx: 'CC-BY-SA-4.0', name: 'Creative Commons Attribution-ShareAlike 4.0', url: 'https://creativecommons.org/licenses/by-sa/4.0/' },
    attribution: 'Text from English Wikipedia ("January 1" … "December 31" pages), by Wikipedia contributors, CC BY-SA 4.0; '
      + 'share-alike: adaptations must carry the same licence. Collected by byabbe.se and lukaskunn/wikipedia-on-this-day-db',
  }],
  inputs: EVENT_INPUTS,
  schema: { type: 'object', properties, required: Object.keys(properties), additionalProperties: false },
  search: { fields: ['text', 'year_text'], boost: { text: 1 } },
  filters: [
    { param: 'month', field: 'month', description: 'Month, 1–12' },
    { param: 'day', field: 'day', description: 'Day of the month, 1–31' },
    { param: 'from', field: 'year', description: 'Year at least (negative = BCE, e.g. -500)', compare: { op: 'min', type: 'number' } },
    { param: 'to', field: 'year', description: 'Year at most (negative = BCE)', compare: { op: 'max', type: 'number' } },
  ],
  pathParamDescription: 'Event id <MM>-<DD>-<n>, e.g. 07-20-43.',
  // Calendar order, then the year, then page order.
  order: (a, b) => a.month - b.month || a.day - b.day || a.year - b.year || Number(a.id.split('-')[2]) - Number(b.id.split('-')[2]),
  normalise: (raw) => readEvents(raw),
});
