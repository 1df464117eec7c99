/**
 * The limits of every plan (state/plans.ts), applied per request: the per-second burst
 * (a token bucket per key, in memory) and the monthly quota (counted durably by the
 * QuotaStore). A request refused with 429 is not counted, nor is a 304 or a request to
 * /api/v1/key (README "Plans and limits"). The Node server applies them here (one process,
 * or the cluster primary); Redis (redis-limits.ts) and the edge's meter (edge/meter.ts)
 * apply the same rules where their counts live.
 */
import { ApiError } from '../http/errors.ts';
import { MONTHLY_WINDOW_SECONDS, PLANS, monthOf, secondsToMonthEnd } from './plans.ts';
import type { KeyRecord } from './keys.ts';
import { decimal } from '../http/decimal.ts';

/** Where the counts live (state/quota.ts QuotaStore; the edge's meter): read a month's count, count a batch. */
export interface Counts {
  usedIn(id: string, month: string): number;
  lastUsed(id: string): number | undefined;
  /** Counts every id once; throws StateWriteError when the count could not be written (nothing counted). */
  countMany(ids: readonly string[], nowMs?: number, month?: string): void;
}

/** A count could not be written: the request is not counted (answered 503 state_unavailable). */
export class StateWriteError extends Error {}

/**
 * What a charge does. `count` (the default): the burst token, the month check and one
 * count. A request that may end unbilled (/api/v1/key, a conditional request that may be a
 * 304) is only `admit`ted first (the burst token: it protects the server) and, when its
 * answer turns out billed, `bill`ed (the month check and the count, no second token).
 */
export type ChargeMode = 'count' | 'admit' | 'bill';
/** What a charge gives: the RateLimit headers to send and the key's count this month including it. */
export interface Charged {
  headers: string[];
  used: number;
  /** When the key was last counted (unix seconds), when the counter knows it. */
  lastUsed?: number;
}

/** The part of a key a charge needs (a worker sends just this to the primary). */
export type Chargeable = Pick<KeyRecord, 'id' | 'plan'> & { mode?: ChargeMode };

/** Anything that applies the limits: Limits in-process, or a worker asking the primary (server/cluster.ts). */
export interface Charger {
  charge(key: Chargeable, now?: number): Charged | Promise<Charged>;
}

export class Limits implements Charger {
  private buckets = new Map<string, { tokens: number; at: number }>();
  // Month and reset time change once a second at most; don't recompute them (or the
  // RateLimit-Policy strings built from them) per request.
  private clock = { second: -1, month: '', reset: 0, policy: new Map<string, string>() };
  constructor(private quota: Counts) {}

  private tick(now: number) {
    const second = Math.floor(now / 1000);
    if (second !== this.clock.second) this.clock = { second, month: monthOf(now), reset: secondsToMonthEnd(now), policy: new Map() };
    return this.clock;
  }

  /** Applies both limits and counts the request; returns the RateLimit headers to send. */
  charge(key: Chargeable, now = Date.now()): Charged {
    const [r] = this.chargeMany([key], now);
    if (r instanceof ApiError) throw r;
    return r;
  }

  /**
   * Applies both limits to several requests in order and counts the accepted ones with one
   * journal write. Each result is the request's headers and count, or the ApiError to answer
   * (429s and a failed write are not counted, and a failed write gives no burst token back).
   */
  chargeMany(keys: readonly Chargeable[], now = Date.now()): (Charged | ApiError)[] {
    const clock = this.tick(now);
    const { month, reset } = clock;
    const out: (Charged | ApiError)[] = new Array(keys.length);
    const accepted: number[] = [];
    const ids: string[] = [];
    const pending = new Map<string, number>();
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      const plan = PLANS[key.plan];
      let policy = clock.policy.get(key.plan);
      if (policy === undefined) clock.policy.set(key.plan, policy = `"monthly";q=${plan.monthly};w=${MONTHLY_WINDOW_SECONDS}, "burst";q=${plan.burst};w=1`);
      const mode = key.mode ?? 'count';
      let b = this.buckets.get(key.id);
      if (mode !== 'bill') {
        if (!b) this.buckets.set(key.id, b = { tokens: plan.burst, at: now });
        b.tokens = Math.min(plan.burst, b.tokens + ((now - b.at) / 1000) * plan.burst);
        b.at = now;
        if (b.tokens < 1) {
          const wait = Math.max(1, Math.ceil((1 - b.tokens) / plan.burst));
          out[i] = new ApiError('rate_limited', `more than ${plan.burst} requests per second`, { limit_per_second: plan.burst }, {
            'retry-after': String(wait), 'ratelimit-policy': policy, ratelimit: `"burst";r=0;t=${wait}`,
          });
          continue;
        }
      }
      const used = this.quota.usedIn(key.id, month) + (pending.get(key.id) ?? 0);
      if (mode === 'admit') {
        // No month check: /api/v1/key answers when the month is used up, a 304 is free.
        b!.tokens -= 1;
        out[i] = { headers: ['ratelimit-policy', policy, 'ratelimit', `"monthly";r=${decimal(Math.max(0, plan.monthly - used))};t=${reset}`], used, lastUsed: this.quota.lastUsed(key.id) };
        continue;
      }
      if (used >= plan.monthly) {
        out[i] = new ApiError('monthly_quota_exceeded', `the ${key.plan} plan's ${plan.monthly} requests for this month are used up`, {
          plan: key.plan, monthly_quota: plan.monthly, used,
        }, { 'retry-after': String(reset), 'ratelimit-policy': policy, ratelimit: `"monthly";r=0;t=${reset}` });
        continue;
      }
      if (mode === 'count') b!.tokens -= 1;
      pending.set(key.id, (pending.get(key.id) ?? 0) + 1);
      accepted.push(i);
      ids.push(key.id);
    }
    if (!accepted.length) return out;
    try {
      this.quota.countMany(ids, now, month);
    } catch (err) {
      if (!(err instanceof StateWriteError)) throw err;
      const e = new ApiError('state_unavailable', 'the request could not be counted, so it was not served or billed; retry later', undefined, { 'retry-after': '5' })
        .note(`the usage journal in the state folder refused the write (${(err as NodeJS.ErrnoException).code ?? err.message})`);
      for (const i of accepted) {
        if ((keys[i].mode ?? 'count') === 'count') this.buckets.get(keys[i].id)!.tokens += 1;
        out[i] = e;
      }
      return out;
    }
    // Counts as they stood after each request: walk the batch backwards from the final count.
    const after = new Map<string, number>();
    for (let j = accepted.length - 1; j >= 0; j--) {
      const i = accepted[j];
      const key = keys[i];
      const count = after.get(key.id) ?? this.quota.usedIn(key.id, month);
      after.set(key.id, count - 1);
      out[i] = { headers: ['ratelimit-policy', clock.policy.get(key.plan)!, 'ratelimit', `"monthly";r=${decimal(PLANS[key.plan].monthly - count)};t=${reset}`], used: count, lastUsed: Math.floor(now / 1000) };
    }
    return out;
  }
}

/**
 * Charges the requests of one event-loop turn together: each request's charge waits for a
 * setImmediate, which runs after every request node parsed in this turn, and one journal
 * write counts them all before any of their responses is sent (README "Plans and limits").
 */
export class TurnBatcher implements Charger {
  private queue: { key: Chargeable; resolve: (c: Charged) => void; reject: (e: unknown) => void }[] = [];
  /** The clock of the batch: the time its first request was charged at (a test clock, or now). */
  private at = 0;
  constructor(private flushBatch: (keys: Chargeable[], now: number) => (Charged | ApiError)[] | Promise<(Charged | ApiError)[]>) {}

  charge(key: Chargeable, now = Date.now()): Promise<Charged> {
    return new Promise((resolve, reject) => {
      if (this.queue.push({ key, resolve, reject }) === 1) {
        this.at = now;
        setImmediate(this.flush);
      }
    });
  }

  private flush = async () => {
    const batch = this.queue;
    this.queue = [];
    let results: (Charged | ApiError)[];
    try {
      const r = this.flushBatch(batch.map((b) => b.key), this.at);
      results = r instanceof Promise ? await r : r;
    } catch (err) {
      for (const b of batch) b.reject(err);
      return;
    }
    for (let i = 0; i < batch.length; i++) {
      const r = results[i];
      if (r instanceof ApiError) batch[i].reject(r);
      else batch[i].resolve(r);
    }
  };
}
