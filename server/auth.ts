/**
 * Credentials and limits for /apis. A key arrives as `X-Service-Key: <key>` or
 * `Authorization: Bearer <key>`; if both are sent they must carry the same key.
 * Limits, in order: the per-second burst (token bucket, in memory) and the monthly
 * quota (durable journal). A request refused with 429 is not counted.
 */
import type { IncomingMessage } from 'node:http';
import { ApiError } from './errors.ts';
import { PLANS, monthOf, secondsToMonthEnd } from './state/plans.ts';
import type { KeyRecord, KeyStore } from './state/keys.ts';
import type { QuotaStore } from './state/quota.ts';

function bearer(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const m = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  if (!m) throw new ApiError('invalid_key', 'the Authorization header must have the form "Bearer <key>"');
  return m[1];
}

export function authenticate(req: IncomingMessage, keys: KeyStore): KeyRecord {
  const fromHeader = req.headers['x-service-key'];
  const service = Array.isArray(fromHeader) ? fromHeader[0] : fromHeader;
  const token = bearer(req.headers.authorization);
  if (service === undefined && token === undefined) {
    throw new ApiError('authentication_required', 'send a key in X-Service-Key or Authorization: Bearer');
  }
  if (service !== undefined && token !== undefined && service.trim() !== token) {
    throw new ApiError('invalid_key', 'X-Service-Key and Authorization carry different keys');
  }
  const rec = keys.verify((service ?? token)!.trim());
  if (!rec) throw new ApiError('invalid_key', 'the key is not recognised');
  if (rec.status !== 'active') throw new ApiError('invalid_key', 'the key has been revoked');
  return rec;
}

export class Limits {
  private buckets = new Map<string, { tokens: number; at: number }>();
  // Month and reset time change once a second at most; don't recompute them per request.
  private clock = { second: -1, month: '', reset: 0 };
  constructor(private quota: QuotaStore) {}

  private tick(now: number) {
    const second = Math.floor(now / 1000);
    if (second !== this.clock.second) this.clock = { second, month: monthOf(now), reset: secondsToMonthEnd(now) };
    return this.clock;
  }

  /** Applies both limits and counts the request; returns the RateLimit headers to send. */
  charge(key: KeyRecord, now = Date.now()): string[] {
    const plan = PLANS[key.plan];
    const { month, reset } = this.tick(now);
    const policy = `"monthly";q=${plan.monthly};w=${reset}, "burst";q=${plan.burst};w=1`;

    const b = this.buckets.get(key.id) ?? { tokens: plan.burst, at: now };
    b.tokens = Math.min(plan.burst, b.tokens + ((now - b.at) / 1000) * plan.burst);
    b.at = now;
    this.buckets.set(key.id, b);
    if (b.tokens < 1) {
      const wait = Math.max(1, Math.ceil((1 - b.tokens) / plan.burst));
      throw new ApiError('rate_limited', `more than ${plan.burst} requests per second`, { limit_per_second: plan.burst }, {
        'retry-after': String(wait), 'ratelimit-policy': policy, ratelimit: `"burst";r=0;t=${wait}`,
      });
    }
    const used = this.quota.usedIn(key.id, month);
    if (used >= plan.monthly) {
      throw new ApiError('monthly_quota_exceeded', `the ${key.plan} plan's ${plan.monthly} requests for this month are used up`, {
        plan: key.plan, monthly_quota: plan.monthly, used,
      }, { 'retry-after': String(reset), 'ratelimit-policy': policy, ratelimit: `"monthly";r=0;t=${reset}` });
    }
    b.tokens -= 1;
    const count = this.quota.count(key.id, now, month);
    return ['ratelimit-policy', policy, 'ratelimit', `"monthly";r=${plan.monthly - count};t=${reset}`];
  }
}
