/**
 * What the app core needs of the state: who a key is, whether it may be served now and
 * with which limits, the counting, and the token reviews. The Node server answers from
 * the state folder or Redis (`localState` below, over KeyStore and a Charger); the Worker
 * from KV and a Durable Object per project (edge/state.ts), which runs the same access
 * rule (state/accounts.ts accessOf) and the same limits (state/limits.ts) beside its count.
 */
import type { Access, KeyRecord } from '../state/accounts.ts';
import { meterOf } from '../state/accounts.ts';
import type { KeyStore } from '../state/keys.ts';
import type { ChargeMode, Charged, Charger } from '../state/limits.ts';
import type { PlanName } from '../state/plans.ts';
import type { ReviewView } from '../state/reviews.ts';

/**
 * What `admit` decides: served (with the access in force and the charge's headers and count,
 * or the promise of them: the Node server's count of a turn), or refused and why.
 */
export type Admission =
  | { ok: true; access: Extract<Access, { ok: true }>; charged: Charged | Promise<Charged> }
  | { ok: false; reason: 'revoked' }
  | { ok: false; reason: 'inactive'; why: string; key_id: string; account?: string; project?: string };

/** The part of a request's key the counter needs: its meter (project) and the plan whose limits apply. */
export interface Metered { meter: string; plan: PlanName }

export interface StateStore {
  /** Called before the authentication of each request (the Node server: a stat of keys.json at most once a second). */
  refresh?(): void;
  /** The clock of access checks and limits (tests move it). */
  now(): number;
  /** The key record a presented secret belongs to, or undefined. */
  verify(secret: string): KeyRecord | undefined | Promise<KeyRecord | undefined>;
  /**
   * May this key be served at `now`, and if so charge it: `count` (the default), or only
   * `admit` a request whose billing waits for its answer (errors 429 and 503 are thrown
   * as ApiErrors, uncounted). One call, so the edge decides both in one round trip.
   */
  admit(rec: KeyRecord, mode: ChargeMode, now: number): Admission | Promise<Admission>;
  /** Bills a request admitted with `admit` once its answer turns out billed. */
  bill(key: Metered, now: number): Charged | Promise<Charged>;
  /** The token reviews in force (study panels, source coverage). */
  reviews(): ReviewView | Promise<ReviewView>;
}

/**
 * The Node server's state: keys from a KeyStore (keys.json, or Redis's copy), counts
 * through a Charger (in-process Limits, the cluster primary, or Redis).
 */
export function localState(keys: KeyStore, charger: Charger, reviews: () => ReviewView): StateStore {
  return {
    refresh: () => keys.reloadEachSecond(),
    now: () => keys.now(),
    verify: (secret) => keys.verify(secret),
    admit(rec, mode, now) {
      const access = keys.access(rec, now);
      if (!access.ok && access.reason === 'revoked') return { ok: false, reason: 'revoked' };
      if (!access.ok) return { ok: false, reason: 'inactive', why: access.why, key_id: rec.id, account: access.account?.id, project: access.project?.id };
      // Usage is counted per project (under its first key's id), so a rotation keeps the month's count.
      // The count's promise as it is: the core waits for it once (core/keyed.ts), not for a promise of it here too.
      return { ok: true, access, charged: charger.charge({ id: access.project.meter ?? rec.id, plan: access.plan, mode }, now) };
    },
    bill: (key, now) => charger.charge({ id: key.meter, plan: key.plan, mode: 'bill' }, now),
    reviews,
  };
}

export { meterOf };
