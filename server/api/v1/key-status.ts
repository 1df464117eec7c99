/**
 * `/api/v1/key`: what the calling key may do and has done, from the plan table
 * (state/plans.ts) and the grant in force (state/accounts.ts `accessOf`). Only the
 * caller's own key, project and account are shown. The first seven fields are the ones
 * clients had before accounts and stay as they were; `tier` names the plan, or
 * `exception` while an exception grants the use (its reason and end in `exception`).
 */
import type { Caller } from '../../state/accounts.ts';
import { PLANS, monthOf, nextMonthStart } from '../../state/plans.ts';
import { meterOf } from '../../state/accounts.ts';
import type { Usage } from '../handlers.ts';

const iso = (s: number) => new Date(s * 1000).toISOString();

export function keyStatus(k: Caller, usage: Usage, now = k.at ?? Date.now()) {
  const plan = PLANS[k.plan];
  const used = usage.used;
  const last = usage.lastUsed;
  const a = k.access;
  const sub = a?.subscription;
  const exc = a?.exception;
  return {
    key_id: k.id, tier: a?.tier ?? k.plan, monthly_quota: plan.monthly, current_usage: used, remaining_calls: Math.max(0, plan.monthly - used),
    last_used: last ? iso(last) : null, status: k.status,
    plan: k.plan,
    // An exception is free use: it costs nothing whatever plan's limits it borrows.
    price: exc || !a ? { amount: 0, currency: 'USD' } : plan.price,
    burst_per_second: plan.burst,
    month: monthOf(now), resets_at: new Date(nextMonthStart(now)).toISOString(),
    revoke_at: k.revoke_at ?? null,
    account: a ? { id: a.account.id, name: a.account.name } : null,
    project: a ? { id: a.project.id, name: a.project.name } : null,
    subscription: sub ? { id: sub.id, plan: sub.plan, status: sub.status, started: sub.started, ends_at: sub.ends_at ?? null } : null,
    exception: exc ? { id: exc.id, reason: exc.reason, limits: exc.limits, granted: exc.granted, ends_at: exc.ends_at ?? null } : null,
  };
}
