/**
 * Exact rational arithmetic on BigInt.
 *
 * Why: unit factors are defined exactly by their standards (1 ft = 0.3048 m,
 * 1 °F step = 5/9 K, Fahrenheit offset 2298.35/9 K). Doing the arithmetic in
 * binary floating point turns these into 1609.3440000000001 or 255.37222222222223
 * and loses the ability to say whether a result is exact. With p/q on BigInt we
 * keep every defined value exact and only round once, when formatting a result
 * whose decimal expansion does not terminate (and we say so).
 */

/** n/d in lowest terms, d > 0. */
export interface Rat {
  readonly n: bigint;
  readonly d: bigint;
}

const abs = (x: bigint): bigint => (x < 0n ? -x : x);
function gcd(a: bigint, b: bigint): bigint {
  a = abs(a);
  b = abs(b);
  while (b) [a, b] = [b, a % b];
  return a;
}

export function rat(n: bigint, d: bigint = 1n): Rat {
  if (d === 0n) throw new RangeError('rational with zero denominator');
  if (d < 0n) [n, d] = [-n, -d];
  const g = gcd(n, d) || 1n;
  return { n: n / g, d: d / g };
}

export const ZERO = rat(0n);
export const ONE = rat(1n);

export const add = (a: Rat, b: Rat): Rat => rat(a.n * b.d + b.n * a.d, a.d * b.d);
export const sub = (a: Rat, b: Rat): Rat => rat(a.n * b.d - b.n * a.d, a.d * b.d);
export const mul = (a: Rat, b: Rat): Rat => rat(a.n * b.n, a.d * b.d);
export const div = (a: Rat, b: Rat): Rat => rat(a.n * b.d, a.d * b.n);
export const cmp = (a: Rat, b: Rat): number => Math.sign(Number(a.n * b.d - b.n * a.d));
export const eq = (a: Rat, b: Rat): boolean => a.n === b.n && a.d === b.d;

/** a^k for integer k (negative k inverts). */
export function pow(a: Rat, k: number): Rat {
  const e = BigInt(Math.abs(k));
  const r = rat(a.n ** e, a.d ** e);
  return k < 0 ? div(ONE, r) : r;
}

/** Exponents beyond this are refused so a hostile "1e999999999" cannot stall BigInt. */
const MAX_EXP = 400;
const DECIMAL = /^([+-]?)(\d+)?(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/** Parses a plain decimal string ("-40", "1.5", "2e3", "1.66053878283E-27"); null if it is not one. */
export function parseDecimal(s: string): Rat | null {
  const m = DECIMAL.exec(s);
  if (!m || (!m[2] && !m[3])) return null; // needs at least one digit: rejects "", ".", "e5"
  const frac = m[3] ?? '';
  const exp = Number(m[4] ?? 0) - frac.length;
  if (Math.abs(exp) > MAX_EXP) return null;
  const n = BigInt((m[2] ?? '0') + frac) * (m[1] === '-' ? -1n : 1n);
  return exp >= 0 ? rat(n * 10n ** BigInt(exp)) : rat(n, 10n ** BigInt(-exp));
}

/** Parses "p/q" (integers or decimals on either side) or a plain decimal; null otherwise. */
export function parseRational(s: string): Rat | null {
  const parts = s.split('/');
  if (parts.length > 2) return null;
  const a = parseDecimal(parts[0]);
  const b = parts.length === 2 ? parseDecimal(parts[1]) : ONE;
  return a && b && b.n !== 0n ? div(a, b) : null;
}

/** value = m / 10^scale, written without exponent notation or trailing fractional zeros. */
function plain(m: bigint, scale: number): string {
  const neg = m < 0n;
  let digits = abs(m).toString();
  if (scale <= 0) return (neg ? '-' : '') + digits + '0'.repeat(-scale);
  digits = digits.padStart(scale + 1, '0');
  const int = digits.slice(0, -scale);
  const frac = digits.slice(-scale).replace(/0+$/, '');
  return (neg ? '-' : '') + int + (frac ? '.' + frac : '');
}

/**
 * Decimal form of r. Exact when the denominator has only the prime factors 2 and 5
 * (the expansion terminates); otherwise rounded half-up to `sig` significant digits
 * and reported with exact = false. `round` rounds even a terminating expansion (for values
 * already known to be approximate, whose full expansion would only show false precision).
 */
export function toDecimal(r: Rat, sig = 20, round = false): { text: string; exact: boolean } {
  let d = r.d;
  let twos = 0;
  let fives = 0;
  for (; d % 2n === 0n; twos++) d /= 2n;
  for (; d % 5n === 0n; fives++) d /= 5n;
  if (d === 1n && !round) {
    const k = Math.max(twos, fives);
    return { text: plain((r.n * 10n ** BigInt(k)) / r.d, k), exact: true };
  }
  const n = abs(r.n);
  // decimal exponent e of the leading digit: 10^e <= n/d < 10^(e+1)
  let e = n.toString().length - r.d.toString().length;
  if (e >= 0 ? n < r.d * 10n ** BigInt(e) : n * 10n ** BigInt(-e) < r.d) e--;
  const scale = sig - 1 - e; // result = m / 10^scale with `sig` digits in m
  const num = scale >= 0 ? n * 10n ** BigInt(scale) : n;
  const den = scale >= 0 ? r.d : r.d * 10n ** BigInt(-scale);
  const m = (2n * num + den) / (2n * den); // round half up (on the magnitude)
  return { text: plain(r.n < 0n ? -m : m, scale), exact: false };
}

/** Exact text: a terminating decimal when there is one, else "p/q". */
export function formatExact(r: Rat): string {
  const dec = toDecimal(r);
  return dec.exact ? dec.text : `${r.n}/${r.d}`;
}

/**
 * A double's exact intent, where it can be told: a p/q (q ≤ 10⁶) found by continued fractions
 * that round-trips to the very same double (0.5555555555555556 → 5/9), or a shortest decimal of
 * ≤ 12 significant digits (1609.344; accumulated float error shows as 16–17 digits) counts as
 * exact; anything else is the shortest decimal, flagged inexact.
 */
export function fromDouble(x: number): { r: Rat; exact: boolean } {
  let [h0, h1, k0, k1, y] = [0n, 1n, 1n, 0n, Math.abs(x)];
  for (let i = 0; i < 40 && Number.isFinite(y); i++) {
    const a = Math.floor(y);
    [h0, h1, k0, k1] = [h1, BigInt(a) * h1 + h0, k1, BigInt(a) * k1 + k0];
    if (k1 > 1_000_000n) break;
    if (Number(h1) / Number(k1) === Math.abs(x)) return { r: rat(x < 0 ? -h1 : h1, k1), exact: true };
    y = 1 / (y - a);
  }
  const s = String(x);
  return { r: parseDecimal(s)!, exact: s.replace(/e.*|\D/g, '').replace(/^0+|0+$/g, '').length <= 12 };
}

export function toNumber(r: Rat): number {
  return Number(toDecimal(r, 25).text);
}
