/**
 * Plans: the scripture spec's three monthly quotas (25k / 100k / 500k), shared by both
 * surfaces, plus `development` for local use (printed by `npm start`). The burst limit
 * is a per-second token bucket per key; the spec leaves its value open, these are ours.
 */
export const PLANS = {
  basic: { monthly: 25_000, burst: 10, price_usd: 12 },
  standard: { monthly: 100_000, burst: 25, price_usd: 29 },
  premium: { monthly: 500_000, burst: 100, price_usd: 79 },
  development: { monthly: 10_000_000, burst: 100_000, price_usd: 0 },
} as const;

export type PlanName = keyof typeof PLANS;

export function isPlan(p: unknown): p is PlanName {
  return typeof p === 'string' && Object.hasOwn(PLANS, p);
}

/** UTC calendar month a request counts against, e.g. "2026-11". */
export const monthOf = (ms: number) => new Date(ms).toISOString().slice(0, 7);

/** Seconds until the next UTC month begins (the quota reset). */
export function secondsToMonthEnd(ms: number): number {
  const d = new Date(ms);
  const next = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  return Math.max(1, Math.ceil((next - ms) / 1000));
}
