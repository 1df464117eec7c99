/**
 * Credentials and limits for /apis. A key arrives as `X-Service-Key: <key>` or
 * `Authorization: Bearer <key>`; if both are sent they must carry the same key.
 * Limits, in order: the per-second burst (token bucket, in memory) and the monthly
 * quota (durable journal). A request refused with 429 is not counted, nor is a 304 or
 * a request to /api/v1/key (README "Plans and limits").
 */
import type { IncomingMessage } from 'node:http';
import { ApiError } from './errors.ts';
import { MONTHLY_WINDOW_SECONDS, PLANS, monthOf, secondsToMonthEnd } from './state/plans.ts';

export { MONTHLY_WINDOW_SECONDS };
import { callerOf, type Caller } from './state/accounts.ts';
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
  // A scan of rawHeaders (already there) instead of req.headersDistinct, which builds an
  // object of arrays of every header on each request (issue 14: no avoidable allocation).
  const raw = req.rawHeaders;
  for (const n of names) {
    let first: string | undefined;
    for (let i = 0; i < raw.length; i += 2) {
      if (raw[i].length !== n.length || raw[i].toLowerCase() !== n) continue;
      const v = raw[i + 1].trim();
      if (first === undefined) first = v;
      else if (v !== first) return true;
    }
  }
  return false;
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
  return callerOf(rec, access, now);
}


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
  constructor(private quota: QuotaStore) {}

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
        out[i] = { headers: ['ratelimit-policy', policy, 'ratelimit', `"monthly";r=${Math.max(0, plan.monthly - used)};t=${reset}`], used };
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
      const e = new ApiError('state_unavailable', 'the request could not be counted, so it was not served or billed; retry later', undefined, { 'retry-after': '5' });
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
      out[i] = { headers: ['ratelimit-policy', clock.policy.get(key.plan)!, 'ratelimit', `"monthly";r=${PLANS[key.plan].monthly - count};t=${reset}`], used: count };
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
