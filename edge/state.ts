/**
 * The Worker's state (server/core/state.ts StateStore): who a key is from the key index
 * in KV (cached in the isolate for REFRESH_SECONDS, re-read at most once a second on a
 * miss so a new key works once KV has it), and everything else from the key's meter
 * (edge/meter.ts): access, limits and counts in one call. The reviews document comes
 * from KV like the index.
 *
 * Bounds: a revoke, a cancelled subscription or an ended exception applies from the next
 * request after the sync reached the meter (the meter decides, not the cached index); a
 * new key works once KV serves the new index (at once locally; Cloudflare says KV changes
 * reach every location within about 60 s); a review shows within REFRESH_SECONDS plus KV's
 * propagation.
 */
import { createHash } from 'node:crypto';
import { ApiError } from '../server/http/errors.ts';
import type { Admission, Metered, StateStore } from '../server/core/state.ts';
import type { KeyRecord } from '../server/state/accounts.ts';
import type { ChargeMode, Charged } from '../server/state/limits.ts';
import type { ReviewFile, ReviewView } from '../server/state/reviews.ts';
import type { Env } from './env.ts';
import type { IndexEntry } from './keys-doc.ts';
import { fromWire, isWire, type MeterStub } from './rpc.ts';
import { subrequest } from './request-context.ts';

export const KEY_INDEX = 'keys/index';
export const SLICE_HASHES = 'keys/slice-hashes';
export const REVIEWS = 'reviews';

/** A value read from KV, kept for `ttlMs` (and re-read sooner on demand, at most once a second). */
class Cached<T> {
  private at = 0;
  private value: T | undefined;
  constructor(private read: () => Promise<T>, private ttlMs: number) {}
  async get(fresh = false): Promise<T> {
    const age = Date.now() - this.at;
    if (this.value === undefined || age > this.ttlMs || (fresh && age > 1000)) {
      this.value = await this.read();
      this.at = Date.now();
    }
    return this.value;
  }
}

export class EdgeState implements StateStore {
  /** The key index; null while KV has none (no sync has reached this deployment yet). */
  private index: Cached<Record<string, IndexEntry> | null>;
  private reviewDoc: Cached<ReviewView>;
  /**
   * `releaseReady`: whether a release is live (the isolate reads `current`). Until it is and
   * the key index is in KV, no key can be checked: keyed requests are answered 503
   * not_ready, never 401 (issue 39, item 2: a valid key was called "not recognised" while
   * `npm run edge` was still publishing).
   */
  constructor(private env: Env, private refreshMs: number, private releaseReady: () => Promise<boolean> = async () => true) {
    this.index = new Cached(async () => {
      subrequest();
      const text = await env.KEYS.get(KEY_INDEX);
      return text === null ? null : JSON.parse(text);
    }, refreshMs);
    this.reviewDoc = new Cached(async () => {
      subrequest();
      const text = await env.KEYS.get(REVIEWS);
      const data: ReviewFile = text ? JSON.parse(text) : { version: 1, reviews: {} };
      // Its version keys the cached study panels (api/v1/study.ts), so a new copy is never hidden.
      const version = text ? `kv:${createHash('sha1').update(text).digest('base64url')}` : '';
      const reviews = data.reviews;
      return { version, get: (t: string) => (Object.hasOwn(reviews, t) ? reviews[t] : undefined), all: () => Object.values(reviews) };
    }, refreshMs);
  }

  now = () => Date.now();

  async verify(secret: string): Promise<KeyRecord | undefined> {
    // Not ready: re-read at most once a second until it is.
    const index = (await this.index.get()) ?? (await this.index.get(true));
    if (!index || !(await this.releaseReady())) {
      const seconds = String(Math.max(1, Math.ceil(this.refreshMs / 1000)));
      throw new ApiError('not_ready', `this deployment has ${index ? 'no release' : 'no key index'} yet (being published or synced); no key can be checked until then`, undefined, { 'retry-after': seconds });
    }
    if (secret.length < 8 || secret.length > 200) return undefined;
    // Only the key's sha256 is looked up: the edge never holds a key in clear.
    const hash = createHash('sha256').update(secret).digest('hex');
    return index[hash] ?? (await this.index.get(true))?.[hash];
  }

  private meter(name: string): MeterStub {
    subrequest(); // each call on the stub is one
    return this.env.METER.get(this.env.METER.idFromName(name));
  }

  async admit(rec: KeyRecord, mode: ChargeMode, now: number): Promise<Admission> {
    const r = await this.meter((rec as IndexEntry).meter).admit(rec.id, mode, now);
    if (isWire(r)) throw fromWire(r);
    return r;
  }

  async bill(key: Metered, now: number): Promise<Charged> {
    const r = await this.meter(key.meter).bill(key.plan, now);
    if (isWire(r)) throw fromWire(r);
    return r;
  }

  reviews(): Promise<ReviewView> {
    return this.reviewDoc.get();
  }
}
