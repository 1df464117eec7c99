/**
 * Credentials and limits for /apis. A key arrives as `X-Service-Key: <key>` or
 * `Authorization: Bearer <key>`; if both are sent they must carry the same key.
 * Limits, in order: the per-second burst (token bucket, in memory) and the monthly
 * quota (durable journal). A request refused with 429 is not counted, nor is a 304 or
 * a request to /api/v1/key (README "Plans and limits").
 */
import type { IncomingMessage } from 'node:http';
import { ApiError } from './errors.ts';
import { PLANS, monthOf, secondsToMonthEnd } from './state/plans.ts';
import type { Caller } from './state/accounts.ts';
import type { KeyRecord, KeyStore } from './state/keys.ts';
import { StateWriteError, type QuotaStore } from './state/quota.ts';

function bearer(header: string | undefined, invalid: () => ApiError): string | undefined {
  if (header === undefined) return undefined;
  const m = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  if (!m) throw invalid();
  return m[1];
}

const first = (h: string | string[] | undefined) => (Array.isArray(h) ? h[0] : h)?.trim();

/**
 * Node keeps only the first of two Authorization headers (and joins repeated custom ones),
 * so a request carrying two different keys would be billed to the first one. The raw
 * distinct values tell: a header repeated with different values is a conflict.
 */
function repeatedConflict(req: IncomingMessage, names: string[]): boolean {
  return names.some((n) => new Set((req.headersDistinct[n] ?? []).map((v) => v.trim())).size > 1);
}

/** How a surface reads credentials and which catalogue codes its failures get. */
export interface CredentialRules {
  /** Every credential the request carries, in order of preference. */
  read(req: IncomingMessage, search: URLSearchParams, invalid: () => ApiError): (string | undefined)[];
  missing: ApiError;
  invalid: (why: string) => ApiError;
  inactive: () => ApiError;
  /** Credentials that disagree: always a 403 (README "Authentication"). */
  conflict: () => ApiError;
  /** The credential headers whose repetition is checked. */
  headers: string[];
}

/** /apis: X-Service-Key or Authorization: Bearer. */
/**
 * WWW-Authenticate of a 401 (RFC 9110 §11.6.1): the Bearer challenge (RFC 6750, with
 * `error="invalid_token"` when a key was sent but refused), then a `ServiceKey` challenge
 * naming the header (and query parameter) that carry a key the other way. Clients that do
 * not know the second scheme skip it.
 */
function challenge(other: string, invalid?: string): Record<string, string> {
  const bearerParams = invalid ? `realm="almanac", error="invalid_token", error_description="${invalid.replace(/["\\]/g, '')}"` : 'realm="almanac"';
  return { 'www-authenticate': `Bearer ${bearerParams}, ServiceKey realm="almanac", ${other}` };
}
const PLATFORM_OTHER = 'header="X-Service-Key"';
const SCRIPTURE_OTHER = 'header="X-Scripture-Key", query="key"';

export const PLATFORM_CREDENTIALS: CredentialRules = {
  read: (req, _s, invalid) => [first(req.headers['x-service-key']), bearer(req.headers.authorization, invalid)],
  missing: new ApiError('authentication_required', 'send a key in X-Service-Key or Authorization: Bearer', undefined, challenge(PLATFORM_OTHER)),
  invalid: (why) => new ApiError('invalid_key', why, undefined, challenge(PLATFORM_OTHER, why)),
  inactive: () => new ApiError('invalid_key', 'the key has been revoked', undefined, challenge(PLATFORM_OTHER, 'the key has been revoked')),
  conflict: () => new ApiError('conflicting_credentials', 'the credentials sent carry different keys; send one key'),
  headers: ['x-service-key', 'authorization'],
};

/** /api/v1: Authorization: Bearer (preferred), X-Scripture-Key, or the key= query parameter. */
export const SCRIPTURE_CREDENTIALS: CredentialRules = {
  read: (req, search, invalid) => [bearer(req.headers.authorization, invalid), first(req.headers['x-scripture-key']), search.get('key') ?? undefined],
  // 401 only when no key was sent; a refused key is a 403 here (scripture spec), which carries no challenge.
  missing: new ApiError('api_key_required', 'send a key as Authorization: Bearer <key>, X-Scripture-Key, or key=', undefined, challenge(SCRIPTURE_OTHER)),
  invalid: (why) => new ApiError('invalid_api_key', why),
  inactive: () => new ApiError('inactive_api_key', 'the key has been revoked or is not active'),
  conflict: () => new ApiError('invalid_api_key', 'the credentials sent carry different keys; send one key'),
  headers: ['authorization', 'x-scripture-key'],
};

/**
 * The key a request authenticates with. Several credential forms may be sent at once
 * only if they carry the same key; different keys are refused with 403, since guessing
 * which one the client meant would bill the wrong key. A known key whose project has no
 * live subscription or exception at `now` is refused with 403 `subscription_inactive` on
 * both surfaces (README "Accounts, projects and subscriptions"). The caller carries the
 * limits plan in force (`plan`) and what grants it (`access`).
 */
export function authenticate(req: IncomingMessage, search: URLSearchParams, keys: KeyStore, rules: CredentialRules, now = keys.now()): Caller {
  const given = rules.read(req, search, () => rules.invalid('the Authorization header must have the form "Bearer <key>"')).filter((c): c is string => !!c);
  if (repeatedConflict(req, rules.headers)) throw rules.conflict();
  if (!given.length) throw rules.missing;
  if (given.some((c) => c !== given[0])) throw rules.conflict();
  const rec = keys.verify(given[0]);
  if (!rec) throw rules.invalid('the key is not recognised');
  const access = keys.access(rec, now);
  if (!access.ok && access.reason === 'revoked') throw rules.inactive();
  if (!access.ok) {
    throw new ApiError('subscription_inactive', `${access.why}; the key works again once the project is subscribed to a plan or granted an exception`, {
      key_id: rec.id, account: access.account?.id, project: access.project?.id,
    });
  }
  return { ...rec, plan: access.plan, access, at: now };
}

/**
 * The monthly policy's window in RateLimit-Policy: a fixed 30 days (2,592,000 s), so the
 * field stays the same on every response of a key as the IETF draft asks. The quota
 * itself is per UTC calendar month; the exact time to its reset is RateLimit's `t`.
 */
export const MONTHLY_WINDOW_SECONDS = 2_592_000;

/**
 * The two limits, applied in two steps so that some answers are not billed:
 * `admit` (every keyed request: the per-second burst, and a quick refusal when the month
 * is used up unless the request may be answered for free) and `bill` (counts the request
 * durably; called only for answers that are billed — not for a 304 or /api/v1/key).
 */
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

  private static policy(key: KeyRecord) {
    const plan = PLANS[key.plan];
    return `"monthly";q=${plan.monthly};w=${MONTHLY_WINDOW_SECONDS}, "burst";q=${plan.burst};w=1`;
  }

  /**
   * The burst limit (a token per request, every keyed request included: it protects the
   * server), then, when `mayBeFree` is false, a refusal if the month is used up.
   * Returns the RateLimit headers as they stand (nothing counted yet).
   */
  admit(key: KeyRecord, mayBeFree: boolean, now = Date.now()): string[] {
    const plan = PLANS[key.plan];
    const { month, reset } = this.tick(now);
    const policy = Limits.policy(key);
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
    b.tokens -= 1;
    const used = this.quota.usedIn(key.id, month);
    if (!mayBeFree && used >= plan.monthly) throw this.exhausted(key, used, reset);
    return ['ratelimit-policy', policy, 'ratelimit', `"monthly";r=${Math.max(0, plan.monthly - used)};t=${reset}`];
  }

  /** Counts the request against the key's month (durably); throws 429 when the month is used up, 503 when the count cannot be written. */
  bill(key: KeyRecord, now = Date.now()): string[] {
    const plan = PLANS[key.plan];
    const { month, reset } = this.tick(now);
    const used = this.quota.usedIn(key.id, month);
    if (used >= plan.monthly) throw this.exhausted(key, used, reset);
    let count: number;
    try {
      count = this.quota.count(key.id, now, month);
    } catch (err) {
      if (!(err instanceof StateWriteError)) throw err;
      throw new ApiError('state_unavailable', 'the request could not be counted, so it was not served or billed; retry later', undefined, { 'retry-after': '5' });
    }
    return ['ratelimit-policy', Limits.policy(key), 'ratelimit', `"monthly";r=${plan.monthly - count};t=${reset}`];
  }

  /** admit + bill: a request that is always billed (kept for benches and tests). */
  charge(key: KeyRecord, now = Date.now()): string[] {
    this.admit(key, false, now);
    return this.bill(key, now);
  }

  private exhausted(key: KeyRecord, used: number, reset: number) {
    const plan = PLANS[key.plan];
    return new ApiError('monthly_quota_exceeded', `the ${key.plan} plan's ${plan.monthly} requests for this month are used up`, {
      plan: key.plan, monthly_quota: plan.monthly, used,
    }, { 'retry-after': String(reset), 'ratelimit-policy': Limits.policy(key), ratelimit: `"monthly";r=0;t=${reset}` });
  }
}
