/**
 * Every change to the keys document, as a function of (document, transaction) that
 * changes only the document it is given and records its audit events in the
 * transaction. The store (keys.ts) hands each a freshly read private copy under the lock
 * and writes the result atomically, so a transition is all-or-nothing; another backend
 * can run them unchanged inside an optimistic read–modify–write (a retry re-runs one on
 * a fresh copy: new random ids are drawn again, nothing was kept). A transition that
 * refuses throws before it has changed anything that will be written.
 */
import {
  currentSubscription, exceptionLive, hashKey, keyIdOf, keyRevoked, newId, newSecret, KEY_ID,
  type Account, type Exception, type KeyDoc, type KeyRecord, type KeyRequest, type Project, type Subscription,
} from './accounts.ts';
import { PLANS, SUBSCRIBABLE, isPlan, nextMonthStart, type PlanName } from './plans.ts';

export interface Tx {
  now: number;
  /** Who: the OS user, or `--by`. */
  by: string;
  events: { what: string; [id: string]: unknown }[];
}

export type Issued = { secret: string; record: KeyRecord };

const iso = (ms: number) => new Date(ms).toISOString();
const refuse = (msg: string): never => { throw new Error(msg); };
const need = <T>(v: T | undefined, what: string, id: string): T => v ?? refuse(`no ${what} '${id.slice(0, 40)}'`);

export const project = (doc: KeyDoc, id: string) => need(doc.projects[id], 'project', id);
export const account = (doc: KeyDoc, id: string) => need(doc.accounts[id], 'account', id);

function subscribablePlan(plan: unknown): PlanName {
  if (!isPlan(plan) || !PLANS[plan].subscribable) refuse(`plan must be one of ${SUBSCRIBABLE.join(', ')} (development is only an exception's limits)`);
  return plan as PlanName;
}

/** Materialises what time has decided (grace ends, paid months over) so listings read true. */
export function settle(doc: KeyDoc, now: number) {
  for (const k of Object.values(doc.keys)) if (k.status === 'active' && keyRevoked(k, now)) k.status = 'revoked';
  for (const s of Object.values(doc.subscriptions)) if (s.status === 'cancelling' && s.ends_at && Date.parse(s.ends_at) <= now) s.status = 'cancelled';
}

export function createAccount(doc: KeyDoc, tx: Tx, a: { name: string; contact?: string }): Account {
  if (!a.name?.trim()) refuse('an account needs a --name');
  const acc: Account = { id: newId('acc'), name: a.name.trim(), contact: a.contact ?? '', created: iso(tx.now) };
  doc.accounts[acc.id] = acc;
  tx.events.push({ what: 'account.create', account: acc.id });
  return acc;
}

export function createProject(doc: KeyDoc, tx: Tx, p: { account: string; name: string }): Project {
  account(doc, p.account);
  if (!p.name?.trim()) refuse('a project needs a --name');
  const prj: Project = { id: newId('prj'), name: p.name.trim(), account: p.account, created: iso(tx.now) };
  doc.projects[prj.id] = prj;
  tx.events.push({ what: 'project.create', account: prj.account, project: prj.id });
  return prj;
}

/** The project's key that works now (not revoked, not in a rotation grace). */
const activeKey = (doc: KeyDoc, prj: Project, now: number) => {
  const k = prj.key ? doc.keys[prj.key] : undefined;
  return k && !keyRevoked(k, now) && !k.revoke_at ? k : undefined;
};

/** A new key for the project, which becomes its one active key. The secret is returned once and never stored. */
function issueKey(doc: KeyDoc, tx: Tx, prj: Project, plan: PlanName, request?: string): Issued {
  const secret = newSecret();
  const hash = hashKey(secret);
  const record: KeyRecord = { id: keyIdOf(hash), hash, plan, status: 'active', label: prj.name, created: iso(tx.now), account: prj.account, project: prj.id };
  if (request) record.request = request;
  doc.keys[record.id] = record;
  prj.key = record.id;
  prj.meter ??= record.id;
  tx.events.push({ what: 'key.issue', account: prj.account, project: prj.id, key: record.id });
  return { secret, record };
}

/** Starts a subscription (or withdraws a pending cancellation); issues the project's key if it has none. */
export function subscribe(doc: KeyDoc, tx: Tx, a: { project: string; plan: unknown }): { subscription: Subscription; issued?: Issued } {
  const prj = project(doc, a.project);
  const plan = subscribablePlan(a.plan);
  const cur = currentSubscription(doc, prj.id);
  let sub: Subscription;
  if (cur?.status === 'active') return refuse(`project ${prj.id} already has an active ${cur.plan} subscription (${cur.id}); use change-plan`);
  if (cur && cur.status === 'cancelling' && Date.parse(cur.ends_at!) > tx.now) {
    // Subscribing again before the paid month ends withdraws the cancellation.
    if (cur.plan !== plan) cur.changes.push({ at: iso(tx.now), from: cur.plan, to: plan });
    Object.assign(cur, { status: 'active', plan });
    delete cur.ends_at;
    sub = cur;
  } else {
    if (cur) cur.status = 'cancelled';
    sub = { id: newId('sub'), account: prj.account, project: prj.id, plan, status: 'active', started: iso(tx.now), changes: [] };
    doc.subscriptions[sub.id] = sub;
  }
  tx.events.push({ what: 'subscription.start', account: prj.account, project: prj.id, subscription: sub.id, plan });
  return { subscription: sub, issued: activeKey(doc, prj, tx.now) ? undefined : issueKey(doc, tx, prj, plan) };
}

/** Mid-month change: the month's count is kept and the new plan's quota applies from the next request. */
export function changePlan(doc: KeyDoc, tx: Tx, a: { project: string; plan: unknown }): Subscription {
  const prj = project(doc, a.project);
  const plan = subscribablePlan(a.plan);
  const sub = currentSubscription(doc, prj.id);
  if (!sub || sub.status !== 'active') return refuse(`project ${prj.id} has no active subscription to change${sub ? ` (it is ${sub.status})` : ''}`);
  if (sub.plan === plan) return refuse(`project ${prj.id} is already on ${plan}`);
  sub.changes.push({ at: iso(tx.now), from: sub.plan, to: plan });
  tx.events.push({ what: 'subscription.change-plan', account: prj.account, project: prj.id, subscription: sub.id, from: sub.plan, to: plan });
  sub.plan = plan;
  return sub;
}

/** Cancels at the end of the paid (calendar UTC) month, or at once with `now`. */
export function cancel(doc: KeyDoc, tx: Tx, a: { project: string; now?: boolean }): Subscription {
  const prj = project(doc, a.project);
  const sub = currentSubscription(doc, prj.id);
  if (!sub) return refuse(`project ${prj.id} has no subscription to cancel`);
  if (sub.status === 'cancelling' && !a.now) return refuse(`subscription ${sub.id} is already cancelling at ${sub.ends_at}`);
  Object.assign(sub, a.now ? { status: 'cancelled', ends_at: iso(tx.now) } : { status: 'cancelling', ends_at: iso(nextMonthStart(tx.now)) });
  tx.events.push({ what: a.now ? 'subscription.cancel-now' : 'subscription.cancel', account: prj.account, project: prj.id, subscription: sub.id, ends_at: sub.ends_at });
  return sub;
}

/** Free use granted by an administrator, to an account or one of its projects; issues the project's key if it has none. */
export function grantException(doc: KeyDoc, tx: Tx, a: { account?: string; project?: string; reason: string; ends_at?: string; limits?: unknown }): { exception: Exception; issued?: Issued } {
  const prj = a.project ? project(doc, a.project) : undefined;
  const acc = account(doc, prj?.account ?? a.account ?? refuse('grant-exception needs --account or --project'));
  if (a.account && prj && prj.account !== a.account) refuse(`project ${prj.id} does not belong to account ${a.account}`);
  if (!a.reason?.trim()) refuse('an exception needs a --reason');
  const limits = a.limits ?? 'basic';
  if (!isPlan(limits)) return refuse(`--limits must be one of ${Object.keys(PLANS).join(', ')}`);
  if (a.ends_at !== undefined && !(Date.parse(a.ends_at) > tx.now)) refuse(`--ends must be a time in the future (ISO 8601), not '${a.ends_at.slice(0, 40)}'`);
  const exc: Exception = { id: newId('exc'), account: acc.id, reason: a.reason.trim(), limits, granted_by: tx.by, granted: iso(tx.now) };
  if (prj) exc.project = prj.id;
  if (a.ends_at) exc.ends_at = iso(Date.parse(a.ends_at));
  doc.exceptions[exc.id] = exc;
  tx.events.push({ what: 'exception.grant', account: acc.id, project: prj?.id, exception: exc.id, limits, reason: exc.reason, ends_at: exc.ends_at });
  return { exception: exc, issued: prj && !activeKey(doc, prj, tx.now) ? issueKey(doc, tx, prj, limits) : undefined };
}

export function endException(doc: KeyDoc, tx: Tx, a: { id: string }): Exception {
  const exc = need(doc.exceptions[a.id], 'exception', a.id);
  if (!exceptionLive(exc, tx.now)) refuse(`exception ${exc.id} already ended at ${exc.ends_at}`);
  exc.ends_at = iso(tx.now);
  tx.events.push({ what: 'exception.end', account: exc.account, project: exc.project, exception: exc.id });
  return exc;
}

/** A new key for the project; the old one stops working after `grace` seconds (0: at once). */
export function rotate(doc: KeyDoc, tx: Tx, a: { project: string; grace?: number }): Issued & { old?: KeyRecord } {
  const prj = project(doc, a.project);
  const grace = a.grace ?? 0;
  if (!Number.isSafeInteger(grace) || grace < 0) refuse('--grace must be a whole number of seconds ≥ 0');
  const old = activeKey(doc, prj, tx.now);
  if (old) {
    if (grace === 0) old.status = 'revoked';
    else old.revoke_at = iso(tx.now + grace * 1000);
  }
  const issued = issueKey(doc, tx, prj, old?.plan ?? 'basic');
  tx.events.push({ what: 'key.rotate', account: prj.account, project: prj.id, key: issued.record.id, old: old?.id, grace });
  return { ...issued, old };
}

/** Revoke, or reactivate (only while no other key of its project works: one active key per project). */
export function setKeyStatus(doc: KeyDoc, tx: Tx, a: { key: KeyRecord; status: KeyRecord['status'] }): KeyRecord {
  const rec = doc.keys[a.key.id];
  if (a.status === 'active' && rec.project) {
    const prj = project(doc, rec.project);
    const other = Object.values(doc.keys).find((k) => k.project === prj.id && k.id !== rec.id && !keyRevoked(k, tx.now));
    if (other) refuse(`project ${prj.id} already has a working key (${other.id}); revoke it first`);
    prj.key = rec.id;
  }
  rec.status = a.status;
  delete rec.revoke_at;
  tx.events.push({ what: a.status === 'active' ? 'key.reactivate' : 'key.revoke', account: rec.account, project: rec.project, key: rec.id });
  return rec;
}

export function request(doc: KeyDoc, tx: Tx, a: { label: string; contact?: string; account_name?: string; use?: string }): KeyRequest {
  if (!a.label?.trim()) refuse('a request needs a --project (or --label)');
  const req: KeyRequest = {
    id: newId('req'), label: a.label.trim(), contact: a.contact ?? '', created: iso(tx.now), status: 'pending',
    account_name: a.account_name?.trim() || a.label.trim(), use: a.use ?? '',
  };
  doc.requests[req.id] = req;
  tx.events.push({ what: 'request.create', request: req.id });
  return req;
}

const pending = (doc: KeyDoc, id: string) => {
  const req = need(doc.requests[id], 'request', id);
  if (req.status !== 'pending') refuse(`request '${id}' is already ${req.status}`);
  return req;
};

/**
 * Approves a request with a plan (a subscription) or an exception: a new account (or the
 * given one), a project named by the request, and its key, printed once.
 */
export function approve(doc: KeyDoc, tx: Tx, a: { request: string; plan?: unknown; exception?: { reason: string; ends_at?: string; limits?: unknown }; account?: string }): Issued {
  const req = pending(doc, a.request);
  if (!a.exception) subscribablePlan(a.plan);
  const acc = a.account ? account(doc, a.account) : createAccount(doc, tx, { name: req.account_name ?? req.label, contact: req.contact });
  const prj = createProject(doc, tx, { account: acc.id, name: req.label });
  let issued: Issued | undefined;
  if (a.exception) {
    const g = grantException(doc, tx, { project: prj.id, ...a.exception });
    issued = g.issued;
    req.exception = g.exception.id;
  } else {
    issued = subscribe(doc, tx, { project: prj.id, plan: a.plan }).issued;
    req.plan = a.plan as PlanName;
  }
  issued!.record.request = req.id;
  Object.assign(req, { status: 'approved', key_id: issued!.record.id, account: acc.id, project: prj.id, decided: iso(tx.now) });
  tx.events.push({ what: 'request.approve', request: req.id, account: acc.id, project: prj.id, key: issued!.record.id });
  return issued!;
}

export function reject(doc: KeyDoc, tx: Tx, a: { request: string; reason: string }): KeyRequest {
  const req = pending(doc, a.request);
  if (!a.reason?.trim()) refuse('a rejection needs a --reason');
  Object.assign(req, { status: 'rejected', reason: a.reason.trim(), decided: iso(tx.now) });
  tx.events.push({ what: 'request.reject', request: req.id });
  return req;
}

/**
 * `keys create --plan P`: an account and project of their own named by the label, and a
 * subscription to P — or, for `development`, an exception with its limits (npm start).
 */
export function quickCreate(doc: KeyDoc, tx: Tx, a: { plan: PlanName; label: string }): Issued {
  const name = a.label || `direct ${a.plan} key`;
  const acc = createAccount(doc, tx, { name });
  const prj = createProject(doc, tx, { account: acc.id, name });
  const issued = PLANS[a.plan].subscribable
    ? subscribe(doc, tx, { project: prj.id, plan: a.plan }).issued!
    : grantException(doc, tx, { project: prj.id, reason: `${a.plan} key (keys create)`, limits: a.plan }).issued!;
  return issued;
}

/** A key by its public id; the secret form is resolved by the store (it needs the hash index). */
export const isKeyId = (s: string) => KEY_ID.test(s);
