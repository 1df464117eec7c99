/**
 * Numbers written as decimal text without V8's number-string cache.
 *
 * `${n}` and String(n) keep each new number's text in an isolate-wide cache held in the old
 * generation, so the text of a number made once per request (a RateLimit remaining count,
 * an access log line's duration) outlives two scavenges and is promoted: 24 bytes a
 * request, a full collection every 10–20 s under load, and the slowest 256-connection
 * rounds were the ones that held one (docs/benchmarks.md, "Hot path, tenth pass"). Made
 * from a table of three-digit strings instead, the text dies young with the request.
 */
const SMALL = Array.from({ length: 1000 }, (_, i) => String(i));
const TRIPLES = SMALL.map((s) => s.padStart(3, '0'));

/** A number as String() writes it; a non-negative safe integer without the cache. */
export function decimal(n: number): string {
  if (!(n >= 0) || !Number.isSafeInteger(n)) return String(n);
  if (n < 1000) return SMALL[n];
  let s = TRIPLES[n % 1000];
  n = Math.floor(n / 1000);
  while (n >= 1000) {
    s = TRIPLES[n % 1000] + s;
    n = Math.floor(n / 1000);
  }
  return SMALL[n] + s;
}

/** `x` rounded to hundredths, as String(Math.round(x * 100) / 100) writes it (12, 1.5, 0.05). */
export function hundredths(x: number): string {
  const c = Math.round(x * 100);
  // Negative, huge or not a number: rare, so the plain way.
  if (!(c >= 0) || c > 1e15) return String(c / 100);
  const whole = decimal(Math.floor(c / 100));
  const f = c % 100;
  if (f === 0) return whole;
  return f % 10 === 0 ? `${whole}.${SMALL[f / 10]}` : `${whole}.${f < 10 ? '0' : ''}${SMALL[f]}`;
}
