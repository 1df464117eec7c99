/**
 * One Durable Object per project ("meter"): the edge's exact count. It holds the project's
 * slice of the keys document (edge/keys-doc.ts), its counts per month and its burst
 * bucket, and answers each request's question in one call — may this key be served now
 * (the same `accessOf` as the Node server), and if so charge it (the same `Limits`).
 *
 * Exact: a Durable Object runs one event at a time, the count changes in memory before the
 * answer is built and is written to its storage before the answer leaves (awaited here;
 * the output gate would hold it anyway), so two clients on two continents cannot both get
 * the month's last request. The burst bucket is in memory: an evicted object starts a
 * fresh bucket, as a restarted Node server does.
 */
import { DurableObject, type DurableObjectState } from 'cloudflare:workers';
import type { Admission } from '../server/core/state.ts';
import { ApiError } from '../server/http/errors.ts';
import { accessOf, emptyDoc, type KeyDoc } from '../server/state/accounts.ts';
import { Limits, type ChargeMode, type Charged } from '../server/state/limits.ts';
import type { PlanName } from '../server/state/plans.ts';
import type { Env } from './env.ts';
import { isWire, toWire, type MeterStub, type WireError } from './rpc.ts';

/** What a meter stores per month: the count and the last counted use (unix seconds). */
interface MonthRow { n: number; last?: number }
/** Rows `e:<month>`: what the Node server of the same state folder served (server/state/elsewhere.ts). */
const ELSEWHERE = 'e:';

export class Meter extends DurableObject<Env> implements MeterStub {
  private slice: KeyDoc = emptyDoc();
  private counts = new Map<string, number>();
  /** The Node server's count of a month, as last synced: one key has one quota, the sum. */
  private elsewhere = new Map<string, number>();
  private last: number | undefined;
  private writing: Promise<void> = Promise.resolve();
  private readonly limits: Limits;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    void ctx.blockConcurrencyWhile(async () => {
      this.slice = (await ctx.storage.get<KeyDoc>('slice')) ?? emptyDoc();
      for (const [k, m] of await ctx.storage.list<MonthRow>({ prefix: 'm:' })) {
        this.counts.set(k.slice(2), m.n);
        if (m.last !== undefined && m.last > (this.last ?? 0)) this.last = m.last;
      }
      for (const [k, n] of await ctx.storage.list<number>({ prefix: ELSEWHERE })) this.elsewhere.set(k.slice(ELSEWHERE.length), n);
    });
    // The quota store Limits expects, over this object's counts (it holds one meter's).
    this.limits = new Limits({
      usedIn: (_id, month) => (this.counts.get(month) ?? 0) + (this.elsewhere.get(month) ?? 0),
      lastUsed: () => this.last,
      countMany: (ids, now = Date.now(), month = new Date(now).toISOString().slice(0, 7)) => {
        const n = (this.counts.get(month) ?? 0) + ids.length;
        this.counts.set(month, n);
        this.last = Math.floor(now / 1000);
        // One row per counted request (a month's count and last use together): Cloudflare bills rows written.
        this.writing = this.ctx.storage.put(`m:${month}`, { n, last: this.last } satisfies MonthRow);
      },
    });
  }

  private async charged(meter: string, plan: PlanName, mode: ChargeMode, now: number): Promise<Charged | WireError> {
    const [r] = this.limits.chargeMany([{ id: meter, plan, mode }], now);
    if (r instanceof ApiError) return toWire(r);
    await this.writing;
    return r;
  }

  async admit(keyId: string, mode: ChargeMode, now: number): Promise<Admission | WireError> {
    const rec = this.slice.keys[keyId];
    // A key the index knows but this meter's slice does not: the slice has not arrived yet.
    if (!rec) return { ok: false, reason: 'inactive', why: 'the key is not known to its project yet (keys are being synced)', key_id: keyId };
    const access = accessOf(this.slice, rec, now);
    if (!access.ok && access.reason === 'revoked') return { ok: false, reason: 'revoked' };
    if (!access.ok) return { ok: false, reason: 'inactive', why: access.why, key_id: rec.id, account: access.account?.id, project: access.project?.id };
    const c = await this.charged(access.project.meter ?? rec.id, access.plan, mode, now);
    return isWire(c) ? c : { ok: true, access, charged: c };
  }

  bill(plan: PlanName, now: number): Promise<Charged | WireError> {
    // A bill takes no burst token, so the bucket's name does not matter; the count is this object's.
    return this.charged('bill', plan, 'bill', now);
  }

  async setSlice(slice: KeyDoc, hash: string): Promise<void> {
    this.slice = slice;
    await this.ctx.storage.put({ slice, slice_hash: hash });
  }

  /** This meter's own count of a month (not the Node server's), for the operator. */
  async usage(month: string): Promise<{ used: number; last_used: number | null }> {
    return { used: this.counts.get(month) ?? 0, last_used: this.last ?? null };
  }

  /** The Node server's count of a month, as it stands (the sync of `npm run edge`, `edge:sync`). */
  async setElsewhere(month: string, n: number): Promise<void> {
    this.elsewhere.set(month, n);
    await this.ctx.storage.put(ELSEWHERE + month, n);
  }

  /** Carries a month's count over (moving a deployment's usage to the edge; tests). */
  async setUsage(month: string, used: number, lastUsed?: number): Promise<void> {
    this.counts.set(month, used);
    if (lastUsed !== undefined) this.last = lastUsed;
    await this.ctx.storage.put(`m:${month}`, { n: used, last: lastUsed ?? this.last } satisfies MonthRow);
  }
}
