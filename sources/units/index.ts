/**
 * units — units of measure from UCUM (the ucum-lhc table) and CLDR (supplemental
 * units.json), each with an exact factor (and offset) to one canonical SI-based
 * dimension system shared by both, so any two compatible units convert exactly.
 * The magnitude algebra and the conversion itself are in units-quantity.ts.
 */
import { SMALL_DATASET_LIMIT, defineSource } from '../contract.ts';
import * as R from './rational.ts';
import { ONE } from './rational.ts';
import { PI, dimKey, factorOf, q, qmul, type Dims, type Q } from './quantity.ts';
import { CLDR_CONSTANTS, CLDR_FACTORS, UCUM_DEFINITIONS } from './definitions.ts';
import { compoundRecords, englishUnits, type EnglishUnit } from './english.ts';
import { properties } from './schema.ts';

export { convert, type ConvertResult } from './quantity.ts';

/** One unit; field meanings are in `properties` below (which also fixes the key order). */
// The record type lives beside its schema (schema.ts), so quantity.ts and english.ts need not import this module.
export type { UnitRecord } from './schema.ts';
import type { UnitRecord } from './schema.ts';

// ---------- UCUM (ucum-lhc's columnar table) ----------
interface Table { config: unknown[]; data: unknown[][] }
interface UcumUnit {
  isBase_: boolean; name_: string; csCode_: string; ciCode_: string; property_: string; magnitude_: number;
  dimVec_: number[] | null; printSymbol_: string | null; class_: string | null; isMetric_: boolean; cnv_: string | null;
  isArbitrary_: boolean; moleExp_: number; synonyms_: string | null; source_: string; csUnitString_: string | null; baseFactorStr_: string | null;
}
interface UcumPrefix { code_: string; value_: number; exp_: string | null }
/** Rows → objects; a config entry [col, sub] is a nested column whose value is `sub` (dim_ → dimVec_). */
const columns = <T>(t: Table): T[] => {
  const names = t.config.map((c) => String(Array.isArray(c) ? c[1] : c));
  return t.data.map((row) => Object.fromEntries(names.map((n, i) => [n, row[i]])) as T);
};
const UCUM_BASE: Record<string, Q> = {
  m: q(ONE, { m: 1 }), s: q(ONE, { s: 1 }), rad: q(ONE, { rad: 1 }), K: q(ONE, { K: 1 }), cd: q(ONE, { cd: 1 }),
  g: q(R.rat(1n, 1000n), { kg: 1 }), // UCUM's mass base is the gram
  C: q(ONE, { A: 1, s: 1 }), // UCUM's charge base; C = A·s
  mol: q(ONE, { mol: 1 }), bit: q(ONE, { bit: 1 }), // numbers in UCUM, bases here (see BASES)
  '[pi]': q(ONE, {}, 1),
};
/** UCUM defines these by (1986 CODATA) measurements: flagged inexact, as CLDR flags AMU and G (those SI 2019 fixed are in definitions.ts). */
const UCUM_MEASURED = new Set(['[h]', '[k]', '[eps_0]', '[e]', '[m_e]', '[m_p]', '[G]', 'u']);
/** ucum-lhc gives the temperature scales as functions (cnv_); as affine maps to K they are exact. */
const AFFINE: Record<string, [string, string]> = { Cel: ['1', '273.15'], degF: ['5/9', '2298.35/9'], degRe: ['5/4', '273.15'] };
/** UCUM dimension vector [L,T,M,A,C,Q,F] → canonical dims (charge Q → A·s). */
const fromVec = (v: number[], mol = 0, bit = 0): Dims => ({ m: v[0], s: v[1] + v[5], kg: v[2], rad: v[3], K: v[4], A: v[5], cd: v[6], mol, bit });

/**
 * Evaluates UCUM codes exactly from their definitions (value × unit term), not from ucum-lhc's float magnitudes;
 * a code in UCUM_DEFINITIONS takes the current definition, and `definedBy` names those a code's value rests on.
 */
function ucumEvaluator(units: UcumUnit[], prefixes: UcumPrefix[]): { code: (code: string) => Q; definedBy: (code: string) => string | null } {
  const byCode = new Map(units.map((u) => [u.csCode_.trim(), u]));
  const pfx = prefixes
    .map((p) => [p.code_, p.exp_ != null ? R.pow(R.rat(10n), Number(p.exp_)) : R.rat(BigInt(p.value_))] as const)
    .sort((a, b) => b[0].length - a[0].length);
  const memo = new Map<string, Q>();
  const busy = new Set<string>(); // a LOINC row "kg" is the expression k·g, not itself
  const cites = new Map<string, Set<string>>(); // code → the definitions its value used
  const note = (used: Iterable<string>) => {
    for (const b of busy) for (const c of used) (cites.get(b) ?? cites.set(b, new Set()).get(b)!).add(c);
  };
  const symbol = (s: string): Q => {
    if (byCode.has(s) && !busy.has(s)) return code(s);
    for (const [p, v] of pfx) {
      const u = byCode.get(s.slice(p.length)); // ucum-lhc leaves isMetric_ false on the (metric) base units
      if (s.startsWith(p) && (u?.isMetric_ || u?.isBase_)) return qmul(q(v), code(s.slice(p.length)));
    }
    throw new Error(`unknown UCUM symbol '${s}'`);
  };
  const atom = (tok: string): Q => {
    const t = tok.replace(/\{[^}]*\}/g, ''); // annotations are unity
    if (/^\d*$/.test(t)) return q(R.rat(BigInt(t || '1')));
    const m = /^(.*?)([+-]?\d+)?$/.exec(t)!; // trailing integer = exponent ("[in_i]2", "10*-3")
    return qmul(q(), symbol(m[1]), Number(m[2] ?? 1));
  };
  const expr = (s: string): Q => {
    let i = 0;
    const fail = (): never => { throw new Error(`cannot parse UCUM expression '${s}'`); };
    const term = (): Q => { // UCUM: '.' and '/' are equally binding, left to right
      let acc = q();
      let op = s[i] === '/' ? s[i++] : '.';
      for (;;) {
        let c: Q;
        if (s[i] === '(') (i++, (c = term()), s[i++] === ')' || fail());
        else {
          let j = i; // a symbol runs to the next operator outside [...] and {...}
          for (let depth = 0; j < s.length && (depth > 0 || !'./()'.includes(s[j])); j++) depth += +'[{'.includes(s[j]) - +']}'.includes(s[j]);
          c = atom(s.slice(i, (i = j)));
        }
        acc = qmul(acc, c, op === '/' ? -1 : 1);
        if (s[i] !== '.' && s[i] !== '/') return acc;
        op = s[i++];
      }
    };
    const r = term();
    return i === s.length ? r : fail();
  };
  function code(c: string): Q {
    const u = byCode.get(c)!;
    let r = memo.get(c);
    if (r) return note(cites.get(c) ?? []), r;
    busy.add(c);
    try {
      if (UCUM_DEFINITIONS[c]) (r = UCUM_DEFINITIONS[c].value), note([UCUM_DEFINITIONS[c].cite]);
      else if (UCUM_BASE[c]) r = UCUM_BASE[c];
      else if (u.isArbitrary_) r = q(ONE, {}, 0, false, 'arbitrary unit: no defined magnitude (UCUM isArbitrary)');
      else if (u.cnv_ && u.cnv_ !== 'inv') r = q(ONE, {}, 0, false, `non-linear scale (UCUM special conversion '${u.cnv_}')`);
      // UCUM's own rows are value × unit term; 'inv' rows are reciprocals (1 [diop] = 1 /m) stored un-inverted
      else if (u.source_ === 'UCUM' && u.csUnitString_)
        r = qmul(q(R.parseDecimal(u.baseFactorStr_ ?? '1')!), expr(u.cnv_ === 'inv' ? `/(${u.csUnitString_})` : u.csUnitString_));
      else r = expr(c); // rows ucum-lhc added from LOINC: the code is itself a UCUM expression
    } finally {
      busy.delete(c);
    }
    if (UCUM_MEASURED.has(c) && !UCUM_DEFINITIONS[c]) r = { ...r, approx: true };
    memo.set(c, r);
    return r;
  }
  return { code, definedBy: (c) => [...(cites.get(c) ?? [])].sort().join('; ') || null };
}

function ucumRecords(raw: { prefixes: Table; units: Table }): UnitRecord[] {
  const units = columns<UcumUnit>(raw.units);
  const { code: evaluate, definedBy } = ucumEvaluator(units, columns<UcumPrefix>(raw.prefixes));
  const NA = R.parseDecimal(String(units.find((u) => u.csCode_ === 'mol')?.magnitude_ ?? 1))!;
  return units.map((u) => {
    const inv = u.cnv_ === 'inv';
    const vec = (u.dimVec_ ?? [0, 0, 0, 0, 0, 0, 0]).map((v) => (inv ? -v : v));
    const affine = AFFINE[u.cnv_ ?? ''];
    let x: Q | null = affine ? q(R.parseRational(affine[0])!, { K: 1 }) : null;
    let defined: string | null = null;
    if (!affine) {
      try { x = evaluate(u.csCode_.trim()); } catch { x = null; }
      defined = x && definedBy(u.csCode_.trim()); // a current definition differs from ucum-lhc's float by design
      // cross-check with ucum-lhc's float magnitude and dimension vector; where they disagree (e.g. [mu_0],
      // whose stored unit string lacks its 4π×10⁻⁷; [LPF]: factor 100, magnitude 1) use the float, which is what
      // ucum-lhc converts with, flagged inexact: upstream contradicts itself. Unparsable: fromDouble decides.
      const mag = x && R.toNumber(x.f) * 1000 ** (x.d.kg ?? 0) * R.toNumber(NA) ** (x.d.mol ?? 0) * Math.PI ** x.pi;
      if (!(x && (x.block || defined || (Math.abs((inv ? 1 / mag! : mag!) / u.magnitude_ - 1) < 1e-9 && dimKey(x.d) === dimKey(fromVec(vec, x.d.mol, x.d.bit)))))) {
        const fl = R.fromDouble(inv ? 1 / u.magnitude_ : u.magnitude_);
        const d = fromVec(vec, u.moleExp_);
        x = q(R.div(fl.r, R.mul(R.pow(R.rat(1000n), d.kg), R.pow(NA, d.mol))), d, 0, !fl.exact || x !== null);
      }
    }
    const { block } = x!;
    const f = factorOf(x!);
    return record({
      source: 'UCUM', id: u.csCode_.trim(), ci_code: u.ciCode_, name: u.name_ || u.csCode_.trim(), symbol: u.printSymbol_?.replace(/<[^>]*>/g, '') || null,
      quantity: u.property_ || null, dimension: dimKey(block ? fromVec(vec, u.moleExp_) : x!.d), factor: block ? null : f.text,
      offset: affine ? R.formatExact(R.parseRational(affine[1])!) : null, exact: !block && f.exact, defined_by: defined, not_convertible_reason: block,
      synonyms: (u.synonyms_ ?? '').split(';'), common_names: [], systems: u.class_ ? [u.class_] : [],
    });
  });
}

// ---------- CLDR (supplemental/units.json) ----------
interface CldrUnits {
  supplemental: {
    unitConstants: Record<string, { _value: string; _status?: string }>;
    unitQuantities: Record<string, { _quantity: string }>;
    convertUnits: Record<string, { _baseUnit: string; _factor?: string; _offset?: string; _systems?: string[]; _special?: string }>;
    unitPrefixes: Record<string, { _power10?: string; _power2?: string }>;
  };
}
function cldrRecords(raw: CldrUnits, taken: Set<string>, english: Map<string, EnglishUnit>): UnitRecord[] {
  const { unitConstants: consts, unitQuantities, convertUnits } = raw.supplemental;
  // "a*b/c*d" = (a·b)/(c·d): at most one '/', each side a product of numbers and constants
  const expr = (s: string): Q => {
    const sides = s.split('/');
    if (sides.length > 2) throw new Error(`CLDR expression '${s}' has more than one '/'`);
    const side = (t: string) => t.split('*').reduce((acc, w) => qmul(acc, number(w.trim())), q());
    return qmul(side(sides[0]), side(sides[1] ?? '1'), -1);
  };
  let used = new Set<string>(); // the definitions (definitions.ts) the current record's factor used
  const number = (w: string): Q => {
    const n = R.parseDecimal(w);
    if (n) return q(n);
    if (CLDR_CONSTANTS[w]) return used.add(CLDR_CONSTANTS[w].cite), CLDR_CONSTANTS[w].value;
    if (!consts[w]) throw new Error(`unknown CLDR constant '${w}'`);
    if (w === 'PI') return q(ONE, {}, 1);
    const v = expr(consts[w]._value);
    return { ...v, approx: v.approx || consts[w]._status === 'approximate' };
  };
  const atoms: Record<string, Q> = {
    meter: q(ONE, { m: 1 }), kilogram: q(ONE, { kg: 1 }), second: q(ONE, { s: 1 }), ampere: q(ONE, { A: 1 }),
    kelvin: q(ONE, { K: 1 }), candela: q(ONE, { cd: 1 }), bit: q(ONE, { bit: 1 }), part: q(), // a part is a pure ratio
    item: q(R.div(ONE, expr('item_per_mole').f), { mol: 1 }), revolution: q(R.rat(2n), { rad: 1 }, 1), // 1 rev = 2π rad
    em: q(ONE, { em: 1 }), night: q(ONE, { night: 1 }), pixel: q(ONE, { pixel: 1 }), year: q(ONE, { year: 1 }),
  };
  const base = (id: string, quantity: string | null): Q => {
    const parts: [string, number][] = [];
    const [num, den = ''] = id.startsWith('per-') ? ['', id.slice(4)] : id.split('-per-');
    for (const [side, sign] of [[num, 1], [den, -1]] as const) {
      let p = 1;
      for (const w of side.split('-').filter(Boolean)) {
        const k = ({ square: 2, cubic: 3, pow4: 4 } as Record<string, number>)[w];
        if (!k) parts.push([w, sign * p]);
        p = k ?? 1;
      }
    }
    let x = q();
    for (const [w, k] of parts) {
      if (!atoms[w]) throw new Error(`CLDR base unit '${id}': '${w}' not mapped`);
      // hertz is "revolution-per-second": next to other units a revolution counts cycles (SI: Hz = s⁻¹)
      if (w !== 'revolution' || parts.every(([o]) => o === 'revolution')) x = qmul(x, atoms[w], k);
    }
    // CLDR writes lumen as cd·m²/m², dropping the steradian that UCUM (lm = cd·sr) keeps as rad²
    return quantity === 'luminous-flux' || quantity === 'illuminance' ? qmul(x, q(ONE, { rad: 2 })) : x;
  };
  return Object.entries(convertUnits).map(([id, u]) => {
    const quantity = unitQuantities[u._baseUnit]?._quantity ?? null;
    used = new Set();
    const b = base(u._baseUnit, quantity);
    const own = CLDR_FACTORS[id];
    if (own) used.add(own.cite);
    const f = factorOf(qmul(own ? own.value : expr(u._factor ?? '1'), b));
    const off = u._offset ? factorOf(qmul(expr(u._offset), q(b.f, {}, b.pi, b.approx))) : null;
    const block = u._special ? `non-linear scale (CLDR special '${u._special}')` : null;
    return record({
      // on collision with a UCUM code ("bar", "bit") the CLDR id gets a prefix: deterministic, and keeps both records
      source: 'CLDR', id: taken.has(id) ? `cldr-${id}` : id, code: id, ci_code: null, name: id.replace(/-/g, ' '), symbol: english.get(id)?.symbol ?? null,
      quantity, dimension: dimKey(b.d), factor: block ? null : f.text, offset: block ? null : (off?.text ?? null),
      exact: !block && f.exact && (off?.exact ?? true), defined_by: [...used].sort().join('; ') || null, not_convertible_reason: block, synonyms: [], common_names: english.get(id)?.names ?? [], systems: u._systems ?? [],
    });
  });
}

/** Fills derived fields and fixes the key order to the schema's (deterministic output). */
function record(r: Omit<UnitRecord, 'code' | 'convertible' | 'equivalent_to'> & { code?: string }): UnitRecord {
  const full: UnitRecord = { ...r, code: r.code ?? r.id, name: r.name.trim(), convertible: !r.not_convertible_reason,
    synonyms: [...new Set(r.synonyms.map((s) => s.trim()).filter(Boolean))], equivalent_to: [] };
  return Object.fromEntries(Object.keys(properties).map((k) => [k, full[k as keyof UnitRecord]])) as unknown as UnitRecord;
}

export function normaliseUnits(raw: { ucum: unknown; cldr: unknown; english: unknown }): UnitRecord[] {
  const ucum = ucumRecords(raw.ucum as { prefixes: Table; units: Table });
  const english = englishUnits(raw.english);
  const taken = new Set(ucum.map((r) => r.id));
  const cldr = cldrRecords(raw.cldr as CldrUnits, taken, english);
  const { convertUnits, unitPrefixes } = (raw.cldr as CldrUnits).supplemental;
  const all = [...ucum, ...cldr, ...compoundRecords(new Set(Object.keys(convertUnits)), unitPrefixes, cldr, english, (id) => taken.has(id) ? `cldr-${id}` : id).map(record)];
  if (new Set(all.map((r) => r.id)).size !== all.length) throw new Error('units: duplicate ids');
  const groups = new Map<string, UnitRecord[]>();
  for (const r of all.filter((r) => r.convertible)) {
    const k = `${r.dimension}|${r.factor}|${r.offset}`;
    groups.set(k, [...(groups.get(k) ?? []), r]);
  }
  for (const g of groups.values()) for (const r of g) r.equivalent_to = g.filter((o) => o.source !== r.source).map((o) => o.id).sort();
  return all;
}

/** A UCUM code in square brackets ("[gal_us]", "[mi_i]") without them; '' for other codes. */
export const unbracketed = (id: string) => (/^\[[^\[\]]+\]$/.test(id) ? id.slice(1, -1) : '');

export default defineSource<UnitRecord>({
  id: 'units',
  maxLimit: SMALL_DATASET_LIMIT, // small records: the whole dataset in one call (issue 13)
  title: 'Units of measure',
  description: 'Units from UCUM (ucum-lhc table) and CLDR with exact conversion factors and offsets to one canonical SI-based dimension system.',
  contractVersion: '0.2.0',
  provenance: [
    {
      name: 'UCUM table via @lhncbc/ucum-lhc 7.1.9 (data/ucumDefs.min.json)',
      url: 'https://github.com/lhncbc/ucum-lhc',
      licence: { spdx: 'LicenseRef-UCUM-LHC', name: 'ucum-lhc licence (BSD-style) with the UCUM and LOINC terms of use', url: 'https://github.com/lhncbc/ucum-lhc/blob/master/LICENSE.md' },
      attribution: 'ucum-lhc by the Lister Hill National Center for Biomedical Communications (LHNCBC), U.S. National Library of Medicine. ' +
        'UCUM table and codes © 1995-2009 Regenstrief Institute, Inc. and the UCUM Organization, under https://ucum.org/license (https://ucum.org). ' +
        'Contains content from LOINC® (http://loinc.org), © Regenstrief Institute, Inc., under https://loinc.org/terms-of-use.',
    },
    {
      name: 'Unicode CLDR 48 via cldr-core 48.2.0 (supplemental/units.json)',
      url: 'https://github.com/unicode-org/cldr-json',
      licence: { spdx: 'Unicode-3.0', name: 'Unicode License v3', url: 'https://www.unicode.org/license.txt' },
      attribution: 'Unicode CLDR, © Unicode, Inc.',
    },
  ],
  inputs: {
    ucum: { kind: 'npm-file', package: '@lhncbc/ucum-lhc', file: 'data/ucumDefs.min.json', format: 'json' },
    cldr: { kind: 'npm-file', package: 'cldr-core', file: 'supplemental/units.json', format: 'json' },
    english: { kind: 'npm-file', package: 'cldr-units-full', file: 'main/en/units.json', format: 'json' },
  },
  schema: { type: 'object', properties, required: Object.keys(properties), additionalProperties: false },
  search: { fields: ['id', 'name', 'symbol', 'synonyms', 'quantity'], boost: { id: 4, symbol: 3, name: 2, synonyms: 1.5 }, names: [{ field: 'symbol' }, { field: 'synonyms' }] },
  filters: [
    { param: 'quantity', field: 'quantity', description: 'Quantity name, e.g. length (UCUM) or duration (CLDR)', caseInsensitive: true },
    { param: 'source', field: 'source', description: 'UCUM or CLDR', caseInsensitive: true },
    { param: 'dimension', field: 'dimension', description: 'Canonical dimension key, e.g. m or m.s-1' },
  ],
  // UCUM: case-insensitive code and name, and a bracketed code without its brackets (gal_us for [gal_us], as
  // people write it in a path: issue 36, item 11); CLDR: its spaced name, and its English names, plurals and
  // symbols (mi, miles, mph, kWh). The pipeline drops aliases two units share.
  aliases: (r) => [...new Set(r.source === 'UCUM' ? [r.ci_code ?? '', r.name, unbracketed(r.id)] : [r.name, ...r.common_names])].filter((a) => a && a !== r.id),
  normalise: (raw) => normaliseUnits({ ucum: raw.ucum, cldr: raw.cldr, english: raw.english }),
});
