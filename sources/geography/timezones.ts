/**
 * geography/timezones: one record per canonical zone of the IANA tz database (tzdata's
 * JSON of release 2026d); the database's links (backward-compatible names such as
 * "US/Pacific", and zones merged into another since 2022 such as "Europe/Oslo" →
 * Europe/Berlin) are the record's `aliases`, so /{code} finds a zone by either name.
 *
 * Offsets are never computed from the build's clock (the build is deterministic): each
 * record gives the standard and daylight-saving offsets of the zone's latest rule line
 * in this release, i.e. the rules that apply from `offsets_since` on (for a few
 * zones that is a change the release announces for later in 2026: Vancouver, Edmonton,
 * Casablanca). A daylight-saving rule is in force when its last year is the release's
 * year or later. tzdb's "negative DST" is kept: Europe/Dublin's standard time is IST
 * (+60) and its DST offset 0 (GMT in winter).
 *
 * tzdata's JSON format (tzdata-generate): a link is a string (its target); a zone is a
 * list of lines [gmtoff, rules, format, until], gmtoff in minutes with the sign
 * inverted ("-60" = UTC+1), rules "-", a rule name or a fixed "h:mm" save, until tzdb's
 * date and time (usually local wall-clock time; its u/s suffix is not kept) read as UTC
 * epoch milliseconds (null on the last line). A rule is
 * [from, to ("only" | "max" | year), "-", month, day, at, save minutes, letter].
 *
 * Countries, main cities and English names come from @vvo/tzdb: a zone belongs to the
 * country of a vvo entry that names it (its name, or a canonical zone in its group; link
 * names in vvo's groups are skipped, as their countries can differ: Atlantic/Jan_Mayen
 * sits in Europe/Berlin's group).
 */
import { SMALL_DATASET_LIMIT, defineSource } from '../contract.ts';
import { PROVENANCE, checker, cmp, nullable, stringArray, uniqueSorted } from './common.ts';
import { COUNTRY_CODES, COUNTRY_CODES_PROVENANCE, countryFilter } from '../vocabularies.ts';

const c = checker('timezones');
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

type Line = { gmtoff: number; rules: string; format: string; until: number | null };
type Rule = { from: number; to: number; month: number; save: number; letter: string };

export interface ZoneTable {
  version: string;
  zones: Map<string, Line[]>;
  /** link name → canonical zone */
  links: Map<string, string>;
  rules: Map<string, Rule[]>;
}

const NUM = /^-?\d+(\.\d+)?$/;

export function zoneTable(raw: unknown): ZoneTable {
  const where = 'tzdata timezone-data.json';
  const o = c.obj(where, '(file)', raw);
  const version = c.str(where, 'version', o.version, /^\d{4}[a-z]$/);
  const zones = new Map<string, Line[]>();
  const links = new Map<string, string>();
  for (const [name, v] of Object.entries(c.obj(where, 'zones', o.zones))) {
    const at = `${where} zone ${name}`;
    if (typeof v === 'string') { links.set(name, v); continue; }
    const lines = c.arr(at, '(lines)', v).map((l, i): Line => {
      const a = c.arr(at, `line ${i}`, l);
      if (a.length !== 4) c.fail(at, `line ${i}`, l);
      const until = a[3] === null ? null : Number(c.str(at, `line ${i} until`, a[3], /^-?\d+$/));
      return { gmtoff: 0 - Number(c.str(at, `line ${i} gmtoff`, a[0], NUM)), rules: c.str(at, `line ${i} rules`, a[1], /\S/), format: c.str(at, `line ${i} format`, a[2], /\S/), until };
    });
    if (lines.length === 0 || lines[lines.length - 1].until !== null) c.fail(at, 'last line until', lines[lines.length - 1]);
    zones.set(name, lines);
  }
  for (const [name, target] of links) if (!zones.has(target)) c.fail(`${where} link ${name}`, '(target)', target);
  const rules = new Map<string, Rule[]>();
  for (const [name, list] of Object.entries(c.obj(where, 'rules', o.rules))) {
    rules.set(name, c.arr(`${where} rule ${name}`, '(rows)', list).map((r, i): Rule => {
      const at = `${where} rule ${name} row ${i}`;
      const a = c.arr(at, '(row)', r);
      if (a.length !== 8 && !(a.length === 9 && a[8] === '')) c.fail(at, '(row length)', r);
      const from = Number(c.str(at, 'from', a[0], /^\d{4}$/));
      const toText = c.str(at, 'to', a[1], /^(\d{4}|only|max)$/);
      const month = MONTHS.indexOf(c.str(at, 'in', a[3]));
      if (month < 0) c.fail(at, 'in', a[3]);
      return {
        from, to: toText === 'max' ? Infinity : toText === 'only' ? from : Number(toText), month,
        save: Number(c.str(at, 'save', a[6], /^-?\d+$/)), letter: c.str(at, 'letter', a[7]),
      };
    }));
  }
  return { version, zones, links, rules };
}

export interface VvoZone { name: string; alternativeName: string; countryCode: string; mainCities: string[]; group: string[] }

export function vvoZones(raw: unknown): VvoZone[] {
  return c.arr('@vvo/tzdb raw-time-zones.json', '(file)', raw).map((z, i) => {
    const at = `@vvo/tzdb raw-time-zones.json row ${i}`;
    const o = c.obj(at, '(row)', z);
    return {
      name: c.str(at, 'name', o.name, /\S/),
      alternativeName: c.str(at, 'alternativeName', o.alternativeName),
      countryCode: c.str(at, 'countryCode', o.countryCode, /^[A-Z]{2}$/),
      mainCities: c.strings(at, 'mainCities', o.mainCities),
      group: c.strings(at, 'group', o.group),
    };
  });
}

/** tzdb's %z: "+05", "+0530", "-03". */
function numericAbbr(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const m = Math.abs(minutes);
  const hh = String(Math.floor(m / 60)).padStart(2, '0');
  return m % 60 ? `${sign}${hh}${String(m % 60).padStart(2, '0')}` : `${sign}${hh}`;
}

function abbreviation(format: string, letter: string, offset: number, dst: boolean): string {
  if (format.includes('/')) return format.split('/')[dst ? 1 : 0];
  if (format.includes('%s')) return format.replace('%s', letter === '-' ? '' : letter);
  if (format.includes('%z')) return format.replace('%z', numericAbbr(offset));
  return format;
}

/** An until as tzdata-generate stores it (tzdb's date and time read as if UTC) → "1893-04-01T00:00". */
const localTime = (ms: number) => new Date(ms).toISOString().slice(0, 16);

export interface ZoneOffsets { std: number; dst: number | null; abbreviations: string[]; since: string | null }

export function zoneOffsets(table: ZoneTable, name: string): ZoneOffsets {
  const lines = table.zones.get(name) ?? c.fail(`tzdata zone ${name}`, '(zone)', undefined);
  const at = `tzdata zone ${name} last line`;
  const last = lines[lines.length - 1];
  const std = last.gmtoff;
  if (!Number.isInteger(std)) c.fail(at, 'gmtoff', -std);
  const since = lines.length > 1 ? localTime(lines[lines.length - 2].until!) : null;
  const year = Number(table.version.slice(0, 4));
  let stdLetter = '';
  let save: number | null = null;
  let dstLetter = '';
  if (/^-?\d+:\d{2}$/.test(last.rules)) {
    // A fixed amount of saving all year (not used by any last line in 2026d).
    const [h, m] = last.rules.replace('-', '').split(':').map(Number);
    save = (last.rules.startsWith('-') ? -1 : 1) * (h * 60 + m);
    if (save === 0) save = null;
  } else if (last.rules !== '-') {
    const rules = table.rules.get(last.rules) ?? c.fail(at, 'rules', last.rules);
    const inForce = rules.filter((r) => r.to >= year);
    if (inForce.length) {
      const standard = inForce.find((r) => r.save === 0) ?? c.fail(at, `rules ${last.rules} (no standard-time rule in force)`, inForce);
      const saves = uniqueSorted(inForce.filter((r) => r.save !== 0).map((r) => String(r.save)));
      if (saves.length > 1) c.fail(at, `rules ${last.rules} (several savings in force)`, saves);
      stdLetter = standard.letter;
      if (saves.length) {
        save = Number(saves[0]);
        dstLetter = inForce.find((r) => r.save === save)!.letter;
      }
    } else {
      // DST abolished: the latest rule gives standard time's letter.
      const latest = [...rules].sort((a, b) => b.to - a.to || b.month - a.month)[0] ?? c.fail(at, 'rules', last.rules);
      if (latest.save !== 0) c.fail(at, `rules ${last.rules} (latest rule saves)`, latest);
      stdLetter = latest.letter;
    }
  }
  const dst = save === null ? null : std + save;
  const abbreviations = [abbreviation(last.format, stdLetter, std, false)];
  if (dst !== null) abbreviations.push(abbreviation(last.format, dstLetter, dst, true));
  for (const a of abbreviations) if (!/^[A-Za-z+\-0-9]{2,6}$/.test(a)) c.fail(at, 'format', [last.format, a]);
  return { std, dst, abbreviations: [...new Set(abbreviations)], since };
}

export interface TimezoneRecord {
  id: string; countries: string[]; std_offset_minutes: number; dst_offset_minutes: number | null;
  abbreviations: string[]; offsets_since: string | null; alternative_name: string | null;
  main_cities: string[]; aliases: string[]; tz_release: string;
}

/** Zone name (canonical or link) → countries naming it in @vvo/tzdb, as described above. */
export function zoneCountries(table: ZoneTable, vvo: VvoZone[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const add = (zone: string, cc: string) => (out.get(zone) ?? out.set(zone, new Set()).get(zone)!).add(cc);
  for (const z of vvo) {
    if (!table.zones.has(z.name) && !table.links.has(z.name)) c.fail(`@vvo/tzdb zone ${z.name}`, 'name', 'not a tzdata zone or link');
    add(z.name, z.countryCode);
    for (const g of z.group) if (table.zones.has(g)) add(g, z.countryCode);
  }
  return out;
}

export function normaliseTimezones(raw: Record<string, unknown>): TimezoneRecord[] {
  const table = zoneTable(raw.tzdata);
  const vvo = vvoZones(raw.vvoTzdb);
  const countries = zoneCountries(table, vvo);
  const canonical = (n: string) => table.links.get(n) ?? n;
  const aliases = new Map<string, string[]>();
  for (const [link, target] of table.links) aliases.set(target, [...(aliases.get(target) ?? []), link]);
  const own = new Map(vvo.map((z) => [z.name, z]));
  return [...table.zones.keys()].map((id): TimezoneRecord => {
    const o = zoneOffsets(table, id);
    const entry = own.get(id) ?? vvo.find((z) => z.group.includes(id));
    return {
      id,
      countries: uniqueSorted([...countries].filter(([n]) => canonical(n) === id).flatMap(([, cs]) => [...cs])),
      std_offset_minutes: o.std,
      dst_offset_minutes: o.dst,
      abbreviations: o.abbreviations,
      offsets_since: o.since,
      alternative_name: entry?.alternativeName || null,
      main_cities: own.get(id)?.mainCities ?? [],
      aliases: (aliases.get(id) ?? []).sort(cmp),
      tz_release: table.version,
    };
  });
}

const properties = {
  id: { type: 'string', description: 'IANA zone name, e.g. "Europe/Berlin" (request it as Europe%2FBerlin)' },
  countries: stringArray('Countries using this zone, under its own name or a link name (alpha-2 ids of /apis/geography/countries)', '^[A-Z]{2}$'),
  std_offset_minutes: { type: 'integer', description: 'Standard offset from UTC in minutes under the zone\'s latest rules in this release (not the offset at build time)' },
  dst_offset_minutes: nullable('integer', { description: 'Offset in minutes while daylight saving applies; null for zones without DST. May be below the standard offset where tzdb uses negative DST (Europe/Dublin)' }),
  abbreviations: stringArray('tzdb abbreviations: standard first, then daylight ("CET", "CEST"); numeric ones like "+04" where tzdb has no letters'),
  offsets_since: nullable('string', { description: 'When these offsets took or take effect, as tzdb\'s "until" of the line before (ISO date and time without zone: usually local wall-clock time, sometimes UTC or standard time, as tzdb states it); null for zones with a single line' }),
  alternative_name: nullable('string', { description: 'English name from @vvo/tzdb, e.g. "Central European Time"' }),
  main_cities: stringArray('Main cities of the zone per @vvo/tzdb'),
  aliases: stringArray('tzdb link names that resolve to this zone (backward-compatible or merged zones, e.g. "Europe/Oslo", "US/Pacific")'),
  tz_release: { type: 'string', pattern: '^\\d{4}[a-z]$', description: 'IANA tz database release, e.g. "2026d"' },
};

export const timezonesSource = defineSource<TimezoneRecord>({
  id: 'geography/timezones',
  maxLimit: SMALL_DATASET_LIMIT, // small records: the whole dataset in one call (issue 13)
  title: 'Time zones',
  description: 'The canonical zones of the IANA time zone database (tz release in each record), with their standard and '
    + 'daylight-saving offsets under the latest rules of the release (not computed from any clock), abbreviations, '
    + 'countries and main cities. Zone names contain "/": request /apis/geography/timezones/Europe%2FBerlin. '
    + 'Link names (US/Pacific, Europe/Oslo) resolve to their zone.',
  contractVersion: '0.2.0',
  provenance: [PROVENANCE.tzdata, PROVENANCE.vvoTzdb, COUNTRY_CODES_PROVENANCE],
  inputs: {
    countryCodes: COUNTRY_CODES,
    tzdata: { kind: 'npm-file', package: 'tzdata', file: 'timezone-data.json', format: 'json' },
    vvoTzdb: { kind: 'npm-file', package: '@vvo/tzdb', file: 'raw-time-zones.json', format: 'json' },
  },
  pathParam: 'code',
  pathParamDescription: 'IANA zone name, with "/" percent-encoded (Europe%2FBerlin) or as it is (Europe/Berlin), or a link name (US%2FPacific, CET), case-insensitively. '
    + 'An abbreviation that is no tzdb name (PST, CEST) is a 400 ambiguous_id listing the zones that use it.',
  pathSegments: 3, // America/Argentina/Buenos_Aires
  ambiguousIds: 'abbreviation',
  schema: { type: 'object', properties, required: Object.keys(properties), additionalProperties: false },
  search: {
    fields: ['id', 'aliases', 'alternative_name', 'main_cities', 'abbreviations'], boost: { id: 3, main_cities: 2 },
    names: [{ field: 'aliases' }, { field: 'alternative_name' }, { field: 'abbreviations' }],
  },
  filters: [
    countryFilter('country', 'countries', 'Alpha-2 country code, e.g. DE.'),
    { param: 'abbreviation', field: 'abbreviations', description: 'tzdb abbreviation, e.g. CET or PST (the zones that use it)', caseInsensitive: true },
    { param: 'std_offset_minutes', field: 'std_offset_minutes', description: 'Standard offset in minutes, e.g. 60 or -300' },
  ],
  links: [{ field: 'countries', dataset: 'geography/countries' }],
  aliases: (r) => r.aliases,
  normalise: normaliseTimezones,
});
