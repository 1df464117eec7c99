/**
 * The algebra of units: magnitudes over canonical base dimensions with exact rational
 * factors (π kept symbolic), and conversion between two unit records. Split from
 * units.ts, which reads the UCUM and CLDR tables into records.
 */
import * as R from './rational.ts';
import { ONE, ZERO, type Rat } from './rational.ts';
import type { UnitRecord } from './schema.ts';

export type Dims = Record<string, number>;
/**
 * Canonical bases: SI's seven, plus rad (UCUM keeps plane angle as a base, and so
 * tells rad/s from Hz), bit (UCUM and CLDR both count information), and CLDR's own
 * non-physical bases. Mole: UCUM makes mol a pure number (6.0221367e23, a superseded
 * Avogadro value) and CLDR an item count (6.02214076e23); we keep amount of substance
 * as SI's base `mol` so 1 UCUM mol = 1 CLDR mole exactly, and CLDR's item = 1/N_A mol.
 */
const BASES = ['m', 'kg', 's', 'A', 'K', 'mol', 'cd', 'rad', 'bit', 'em', 'night', 'pixel', 'year'];
export function dimKey(d: Dims): string {
  for (const b of Object.keys(d)) if (!BASES.includes(b)) throw new Error(`units: unknown base '${b}'`);
  return BASES.filter((b) => d[b]).map((b) => (d[b] === 1 ? b : `${b}${d[b]}`)).join('.') || '1';
}

/** A magnitude under construction: f × π^pi in canonical dims; `block` says why it cannot convert. */
export interface Q { f: Rat; d: Dims; pi: number; approx: boolean; block: string | null }
export const q = (f = ONE, d: Dims = {}, pi = 0, approx = false, block: string | null = null): Q => ({ f, d, pi, approx, block });
/** a × b^k */
export function qmul(a: Q, b: Q, k = 1): Q {
  const d = { ...a.d };
  for (const [x, e] of Object.entries(b.d)) d[x] = (d[x] ?? 0) + k * e;
  return q(R.mul(a.f, R.pow(b.f, k)), d, a.pi + k * b.pi, a.approx || b.approx, a.block ?? b.block);
}
/** π stays symbolic so it cancels exactly (CLDR radian = 1/(2π) rev); only a surviving power is rounded. */
export const PI = R.parseDecimal('3.14159265358979323846264338327950288419716939937510')!;
export function factorOf(x: Q): { text: string; exact: boolean } {
  const exact = x.pi === 0 && !x.approx;
  const v = R.mul(x.f, R.pow(PI, x.pi));
  return { text: exact ? R.formatExact(v) : R.toDecimal(v, 20, true).text, exact };
}

export type ConvertResult =
  | { ok: true; from: string; to: string; input: string; value: number; value_exact: string; exact: boolean }
  | { ok: false; code: 'incompatible_units' | 'unit_not_convertible' | 'invalid_value'; message: string };

/** base = v·factor + offset; out = (base − offset′)/factor′, all in exact rationals; rounded once at the end. */
export function convert(from: UnitRecord, to: UnitRecord, value: string): ConvertResult {
  for (const u of [from, to])
    if (!u.convertible || u.factor === null)
      return { ok: false, code: 'unit_not_convertible', message: `'${u.id}' cannot be converted: ${u.not_convertible_reason}` };
  const label = (u: UnitRecord) => u.quantity ?? `dimension ${u.dimension}`;
  if (from.dimension !== to.dimension)
    return { ok: false, code: 'incompatible_units', message: `cannot convert '${from.id}' (${label(from)}) to '${to.id}' (${label(to)})` };
  const v = typeof value === 'string' ? R.parseDecimal(value) : null; // plain decimals only: no NaN, Infinity, hex
  if (!v) return { ok: false, code: 'invalid_value', message: `value '${value}' is not a number` };
  const rat = (s: string | null) => (s === null ? ZERO : R.parseRational(s)!);
  const out = R.div(R.sub(R.add(R.mul(v, rat(from.factor)), rat(from.offset)), rat(to.offset)), rat(to.factor));
  const dec = R.toDecimal(out, 20);
  return { ok: true, from: from.id, to: to.id, input: value, value: R.toNumber(out), value_exact: dec.text, exact: from.exact && to.exact && dec.exact };
}
