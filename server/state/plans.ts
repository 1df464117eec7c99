/**
 * Plans as data: the one table from which the README's plan table (test/accounts.test.ts
 * checks it), the OpenAPI documents (the /api/v1/key schema) and /api/v1/key read.
 * The scripture spec's three monthly plans (25k / 100k / 500k requests for 12 / 29 / 79
 * dollars), shared by both surfaces, plus the internal `development` plan: never sold
 * (no subscription), only named as the limits of an exception — `npm start`'s key. The
 * burst limit is a per-second token bucket per key; the spec leaves its value open,
 * these are ours.
 */
export interface Price {
  amount: number;
  currency: 'USD';
}

export interface Plan {
  monthly: number;
  burst: number;
  price: Price;
  /** Sold to subscribers; `development` is not (README "Plans and limits"). */
  subscribable: boolean;
}

const usd = (amount: number): Price => ({ amount, currency: 'USD' });

export const PLANS = {
  basic: { monthly: 25_000, burst: 10, price: usd(12), subscribable: true },
  standard: { monthly: 100_000, burst: 25, price: usd(29), subscribable: true },
  premium: { monthly: 500_000, burst: 100, price: usd(79), subscribable: true },
  development: { monthly: 10_000_000, burst: 100_000, price: usd(0), subscribable: false },
} as const satisfies Record<string, Plan>;

export type PlanName = keyof typeof PLANS;

export function isPlan(p: unknown): p is PlanName {
  return typeof p === 'string' && Object.hasOwn(PLANS, p);
}

/** Plans a project can subscribe to. */
export const SUBSCRIBABLE = (Object.keys(PLANS) as PlanName[]).filter((p) => PLANS[p].subscribable);

/** UTC calendar month a request counts against, e.g. "2026-11". */
export const monthOf = (ms: number) => new Date(ms).toISOString().slice(0, 7);

/** First instant of the next UTC month: the quota reset and the end of a paid month. */
export function nextMonthStart(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

/** Seconds until the next UTC month begins (the quota reset). */
export function secondsToMonthEnd(ms: number): number {
  return Math.max(1, Math.ceil((nextMonthStart(ms) - ms) / 1000));
}

/** The plan table as README markdown rows (the README's table must equal this). */
export function planTableRows(): string[] {
  const n = (x: number) => x.toLocaleString('en-US');
  return (Object.keys(PLANS) as PlanName[]).map((name) => {
    const p = PLANS[name];
    const price = p.subscribable ? `${p.price.amount} ${p.price.currency} / month` : 'not sold (exceptions only)';
    return `| \`${name}\` | ${price} | ${n(p.monthly)} | ${n(p.burst)} |`;
  });
}

/**
 * The monthly policy's window in RateLimit-Policy: a fixed 30 days (2,592,000 s), so the
 * field stays the same on every response of a key as the IETF draft asks. The quota
 * itself is per UTC calendar month; the exact time to its reset is RateLimit's `t`.
 */
export const MONTHLY_WINDOW_SECONDS = 2_592_000;
