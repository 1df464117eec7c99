/**
 * ALMANAC_REDIS_URL: quota counters (monthly and burst) in Redis, shared by any number of
 * servers (issue 14). One Lua script per request checks the burst bucket and the month and
 * counts, atomically on the Redis server; the requests of one event-loop turn are charged
 * together (TurnBatcher) and node-redis writes their scripts in one pipeline, so counting
 * costs one round trip per turn.
 *
 * Keys in Redis: `almanac:m:<key id>:<YYYY-MM>` (the month's count, kept for history),
 * `almanac:b:<key id>` (the burst bucket: tokens and time, on Redis's own clock, so
 * servers with skewed clocks share one bucket exactly; it expires after a minute idle),
 * `almanac:l:<key id>` (last use, unix seconds).
 *
 * Redis unreachable: a charge fails at once (no offline queue) and the request is answered
 * 503 `state_unavailable`, not served and not billed — the same as a journal write that
 * fails — and the client reconnects in the background. Counting locally to reconcile later
 * would let every server give away the month again during an outage.
 */
import { createHash } from 'node:crypto';
import { createClient } from '@redis/client';
import type { Chargeable, Charged } from './limits.ts';
import { ApiError } from '../http/errors.ts';
import { MONTHLY_WINDOW_SECONDS, PLANS, monthOf, secondsToMonthEnd } from './plans.ts';
import { decimal } from '../http/decimal.ts';

// ARGV[3] is the charge mode (auth.ts ChargeMode): count = burst + month + count,
// admit = burst only (answers {-3, used}), bill = month + count without a burst token.
const CHARGE = `
local monthly = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local mode = ARGV[3]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local tokens = burst
if mode ~= 'bill' then
  local b = redis.call('HMGET', KEYS[2], 'tokens', 'at')
  tokens = tonumber(b[1]) or burst
  local at = tonumber(b[2]) or now
  tokens = math.min(burst, tokens + ((now - at) / 1000) * burst)
  if tokens < 1 then
    redis.call('HSET', KEYS[2], 'tokens', tostring(tokens), 'at', tostring(now))
    redis.call('PEXPIRE', KEYS[2], 60000)
    return {-1, tostring(tokens)}
  end
end
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
if mode == 'admit' then
  redis.call('HSET', KEYS[2], 'tokens', tostring(tokens - 1), 'at', tostring(now))
  redis.call('PEXPIRE', KEYS[2], 60000)
  return {-3, tostring(used)}
end
if used >= monthly then return {-2, tostring(used)} end
used = redis.call('INCR', KEYS[1])
if mode ~= 'bill' then
  redis.call('HSET', KEYS[2], 'tokens', tostring(tokens - 1), 'at', tostring(now))
  redis.call('PEXPIRE', KEYS[2], 60000)
end
redis.call('SET', KEYS[3], t[1])
return {used, '0'}
`;
const SHA = createHash('sha1').update(CHARGE).digest('hex');

const down = () => new ApiError('state_unavailable', 'the request could not be counted, so it was not served or billed; retry later', undefined, { 'retry-after': '5' })
  .note('Redis did not take the count');

export interface RedisLimits {
  charge(keys: Chargeable[], now?: number): Promise<(Charged | ApiError)[]>;
  /** Why a count cannot be taken now (/readyz), undefined while connected. */
  ready(): string | undefined;
  close(): Promise<void>;
}

export async function redisLimits(url: string, log: (m: string) => void = (m) => console.error(m)): Promise<RedisLimits> {
  const client = createClient({
    url,
    // Fail at once while disconnected instead of queueing: the request answers 503.
    disableOfflineQueue: true,
    socket: { connectTimeout: 2000, reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 2000) },
  });
  let warned = 0;
  client.on('error', (err: Error) => {
    if (Date.now() - warned > 10_000) {
      warned = Date.now();
      log(`redis ${url.replace(/\/\/[^@]*@/, '//…@')}: ${err.message}; counted requests answer 503 state_unavailable until it is back`);
    }
  });
  await client.connect();
  await client.sendCommand(['SCRIPT', 'LOAD', CHARGE]);

  // When each key was last counted by this server (what /api/v1/key shows as last_used).
  const seen = new Map<string, number>();

  async function one(key: Chargeable, month: string, reset: number): Promise<Charged | ApiError> {
    const plan = PLANS[key.plan];
    const policy = `"monthly";q=${plan.monthly};w=${MONTHLY_WINDOW_SECONDS}, "burst";q=${plan.burst};w=1`;
    const args = ['3', `almanac:m:${key.id}:${month}`, `almanac:b:${key.id}`, `almanac:l:${key.id}`, String(plan.monthly), String(plan.burst), key.mode ?? 'count'];
    let r: [number, string];
    try {
      try {
        r = (await client.sendCommand(['EVALSHA', SHA, ...args])) as unknown as [number, string];
      } catch (err) {
        if (!/NOSCRIPT/.test((err as Error).message)) throw err;
        r = (await client.sendCommand(['EVAL', CHARGE, ...args])) as unknown as [number, string];
      }
    } catch {
      return down();
    }
    const [code, value] = r;
    if (code === -1) {
      const wait = Math.max(1, Math.ceil((1 - Number(value)) / plan.burst));
      return new ApiError('rate_limited', `more than ${plan.burst} requests per second`, { limit_per_second: plan.burst }, {
        'retry-after': String(wait), 'ratelimit-policy': policy, ratelimit: `"burst";r=0;t=${wait}`,
      });
    }
    if (code === -2) {
      return new ApiError('monthly_quota_exceeded', `the ${key.plan} plan's ${plan.monthly} requests for this month are used up`, {
        plan: key.plan, monthly_quota: plan.monthly, used: Number(value),
      }, { 'retry-after': String(reset), 'ratelimit-policy': policy, ratelimit: `"monthly";r=0;t=${reset}` });
    }
    if (code === -3) {
      // Admitted, not counted (/api/v1/key, a conditional request): the count as it stands.
      const used = Number(value);
      return { used, lastUsed: seen.get(key.id), headers: ['ratelimit-policy', policy, 'ratelimit', `"monthly";r=${decimal(Math.max(0, plan.monthly - used))};t=${reset}`] };
    }
    const at = Math.floor(Date.now() / 1000);
    seen.set(key.id, at);
    return { used: code, lastUsed: at, headers: ['ratelimit-policy', policy, 'ratelimit', `"monthly";r=${decimal(plan.monthly - code)};t=${reset}`] };
  }

  return {
    // Issued in one tick: node-redis writes them to the socket together (one round trip).
    charge: (keys, now = Date.now()) => {
      const month = monthOf(now), reset = secondsToMonthEnd(now);
      if (!client.isReady) return Promise.resolve(keys.map(down));
      return Promise.all(keys.map((k) => one(k, month, reset)));
    },
    ready: () => (client.isReady ? undefined : `Redis at ${url.replace(/\/\/[^@]*@/, '//…@')} is not reachable: nothing can be counted`),
    close: async () => {
      try {
        await client.close();
      } catch {
        client.destroy();
      }
    },
  };
}
