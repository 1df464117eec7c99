/**
 * What people type for a unit: CLDR's English names, plurals and symbols
 * (cldr-units-full main/en/units.json: "mile", "miles", "mi"; "mph"; "kWh"), and the
 * units CLDR names in English without listing them in convertUnits because they are
 * built from others ("kilometer-per-hour", "kilowatt-hour", "kilojoule", "square-foot").
 *
 * Those compounds are evaluated by CLDR's own unit-id grammar (UTS #35 part 6): an id is
 * numerator "-per-" denominator, each a product of components, each an optional power
 * (square, cubic, pow4), an optional prefix (unitPrefixes: kilo = 10³, kibi = 2¹⁰) and a
 * convertUnits id, or a number ("100" in liter-per-100-kilometer). The factor is the
 * product of the components' exact factors, so km/h → mph converts exactly. A component
 * with an offset (temperatures) cannot be part of a product and is refused.
 */
import * as R from './rational.ts';
import { ONE, type Rat } from './rational.ts';
import { dimKey, type Dims } from './quantity.ts';
import type { UnitRecord } from './schema.ts';

interface Pattern { displayName?: string; 'unitPattern-count-one'?: string; 'unitPattern-count-other'?: string }
export interface CldrEnglish { main: { en: { units: Record<'long' | 'short' | 'narrow', Record<string, Pattern>> } } }
export interface EnglishUnit { category: string; names: string[]; symbol: string | null }

/** CLDR's English entries that are not units: "temperature-generic" is a bare degree sign. */
const NOT_UNITS = new Set(['temperature-generic']);
const CATEGORY = /^([a-z]+)-([a-z0-9-]+)$/;
const strip = (p: string | undefined) => (p ?? '').replace('{0}', '').trim();

/** CLDR unit id → its English names (long, short, narrow display names and long/short plural patterns) and short symbol. */
export function englishUnits(raw: unknown): Map<string, EnglishUnit> {
  const units = (raw as CldrEnglish)?.main?.en?.units;
  if (!units?.long || !units.short || !units.narrow) throw new Error('cldr-units-full en/units.json: no main.en.units.{long,short,narrow}');
  const out = new Map<string, EnglishUnit>();
  for (const [key, long] of Object.entries(units.long)) {
    const m = CATEGORY.exec(key);
    if (!m || NOT_UNITS.has(key) || !long.displayName) continue; // "10p3", "per", "power2": patterns, not units
    const short = units.short[key] ?? {}, narrow = units.narrow[key] ?? {};
    const names = [long.displayName, strip(long['unitPattern-count-one']), strip(long['unitPattern-count-other']),
      short.displayName, strip(short['unitPattern-count-one']), strip(short['unitPattern-count-other']), narrow.displayName];
    out.set(m[2], { category: m[1], names: [...new Set(names.filter((n): n is string => !!n && n !== m[2]))], symbol: strip(short['unitPattern-count-other']) || null });
  }
  return out;
}

export interface Linear { f: Rat; exact: boolean; dims: Dims }
export const parseDims = (key: string): Dims =>
  key === '1' ? {} : Object.fromEntries(key.split('.').map((p) => { const m = /^([a-zA-Z]+)(-?\d+)?$/.exec(p)!; return [m[1], Number(m[2] ?? 1)]; }));

/**
 * A compound CLDR unit id → its factor and dimension, from the factors of the units it is
 * built of (`unit(id)`, null when unknown) and the prefixes. Throws on what it cannot read.
 */
export function evaluateCompound(id: string, unit: (id: string) => (Linear & { offset: boolean }) | null,
  prefixes: Record<string, { _power10?: string; _power2?: string }>): Linear {
  const byLength = Object.keys(prefixes).sort((a, b) => b.length - a.length);
  const pfx = (p: string) => (prefixes[p]._power10 !== undefined ? R.pow(R.rat(10n), Number(prefixes[p]._power10)) : R.pow(R.rat(2n), Number(prefixes[p]._power2)));
  let f = ONE, exact = true;
  const dims: Dims = {};
  const times = (x: Linear, k: number) => {
    f = R.mul(f, R.pow(x.f, k));
    exact &&= x.exact;
    for (const [b, e] of Object.entries(x.dims)) dims[b] = (dims[b] ?? 0) + k * e;
  };
  const simple = (w: string): Linear | null => {
    const u = unit(w);
    if (u) {
      if (u.offset) throw new Error(`CLDR unit '${id}': '${w}' has an offset and cannot be part of a product`);
      return u;
    }
    for (const p of byLength) {
      const rest = w.startsWith(p) ? unit(w.slice(p.length)) : null;
      if (rest && !rest.offset) return { ...rest, f: R.mul(pfx(p), rest.f) };
    }
    return null;
  };
  const [num, den, more] = id.split('-per-');
  if (more !== undefined) throw new Error(`CLDR unit '${id}': more than one '-per-'`);
  for (const [side, sign] of [[num, 1], [den, -1]] as const) {
    if (side === undefined) continue;
    const words = side.split('-');
    for (let i = 0; i < words.length;) {
      const power = ({ square: 2, cubic: 3, pow4: 4 } as Record<string, number>)[words[i]] ?? 1;
      if (power !== 1) i++;
      if (/^\d+(e\d+)?$/.test(words[i] ?? '')) { times({ f: R.parseDecimal(words[i])!, exact: true, dims: {} }, sign * power); i++; continue; }
      let j = words.length, x: Linear | null = null; // longest run of words that names a unit: "pound-force", "gallon-imperial"
      for (; j > i && !(x = simple(words.slice(i, j).join('-'))); j--);
      if (!x) throw new Error(`CLDR unit '${id}': cannot read '${words.slice(i).join('-')}'`);
      times(x, sign * power);
      i = j;
    }
  }
  dimKey(dims); // throws on an unknown base
  return { f, exact, dims };
}

type Prefixes = Record<string, { _power10?: string; _power2?: string }>;
type Draft = Omit<UnitRecord, 'code' | 'convertible' | 'equivalent_to'> & { code: string };

/** Records for the units CLDR names in English but does not list in convertUnits (km/h, kWh, kJ, square-foot …). */
export function compoundRecords(listed: Set<string>, prefixes: Prefixes, built: UnitRecord[], english: Map<string, EnglishUnit>, idFor: (code: string) => string): Draft[] {
  const byCode = new Map(built.filter((r) => r.source === 'CLDR' && r.convertible).map((r) => [r.code, r]));
  const unit = (code: string) => {
    const r = byCode.get(code);
    return r ? { f: R.parseRational(r.factor!)!, exact: r.exact, dims: parseDims(r.dimension), offset: r.offset !== null } : null;
  };
  return [...english].filter(([id]) => !listed.has(id)).map(([id, en]) => {
    const x = evaluateCompound(id, unit, prefixes);
    return {
      source: 'CLDR', id: idFor(id), code: id, ci_code: null, name: id.replace(/-/g, ' '), symbol: en.symbol,
      quantity: en.category === 'concentr' ? 'concentration' : en.category, dimension: dimKey(x.dims),
      factor: x.exact ? R.formatExact(x.f) : R.toDecimal(x.f, 20, true).text, offset: null, exact: x.exact, defined_by: null,
      not_convertible_reason: null, synonyms: [], common_names: en.names, systems: [],
    };
  });
}
