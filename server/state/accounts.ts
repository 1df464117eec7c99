/**
 * The keys document (keys.json, version 2): keys, the request queue, accounts, projects,
 * subscriptions and exceptions in ONE JSON value, so one lock and one atomic replace
 * (or, with another backend, one optimistic read–modify–write) cover every transition.
 * This module is the model: types, checking and migrating a document as read, and the
 * request-time question "may this key be served, and with which limits?" (`accessOf`),
 * which compares times against the clock at each request, so a cancelled plan or an
 * ended exception refuses from the first request after its end, whether or not any CLI
 * ran. Transitions live in transitions.ts; file I/O in keys.ts.
 */
import { createHash, randomBytes } from 'node:crypto';
import { PLANS, isPlan, type PlanName } from './plans.ts';

export const DOC_VERSION = 2;

export interface KeyRecord {
  id: string;
  hash: string;
  /** The plan the key was issued under (informational: limits come from `accessOf`). */
  plan: PlanName;
  status: 'active' | 'revoked';
  label: string;
  created: string;
  /** Approval request this key was issued for, if any. */
  request?: string;
  account?: string;
  project?: string;
  /** Set by `rotate --grace`: the key stops working at this instant. */
  revoke_at?: string;
}

export interface Account { id: string; name: string; contact: string; created: string }

export interface Project {
  id: string;
  name: string;
  account: string;
  created: string;
  /** The project's one active key (absent until one is issued). */
  key?: string;
  /** Id its usage is counted under: its first key's id, so a rotation keeps the month's count. */
  meter?: string;
}

export interface Subscription {
  id: string;
  account: string;
  project: string;
  plan: PlanName;
  /** active → cancelling (until ends_at) → cancelled. */
  status: 'active' | 'cancelling' | 'cancelled';
  started: string;
  ends_at?: string;
  changes: { at: string; from: PlanName; to: PlanName }[];
}

export interface Exception {
  id: string;
  account: string;
  /** Absent: every project of the account. */
  project?: string;
  reason: string;
  /** The plan whose monthly quota and burst apply while the exception does. */
  limits: PlanName;
  granted_by: string;
  granted: string;
  /** Absent: open-ended. `end-exception` sets it to the time it ran. */
  ends_at?: string;
}

export interface KeyRequest {
  id: string;
  /** Project name. */
  label: string;
  contact: string;
  created: string;
  status: 'pending' | 'approved' | 'rejected';
  account_name?: string;
  use?: string;
  plan?: PlanName;
  exception?: string;
  key_id?: string;
  account?: string;
  project?: string;
  reason?: string;
  decided?: string;
}

export interface AuditEvent {
  rev: number;
  at: string;
  by: string;
  what: string;
  [id: string]: unknown;
}

export interface KeyDoc {
  version: typeof DOC_VERSION;
  /** Bumped by every transition; audit lines carry it (a crash between the two is repaired). */
  rev: number;
  keys: Record<string, KeyRecord>;
  requests: Record<string, KeyRequest>;
  accounts: Record<string, Account>;
  projects: Record<string, Project>;
  subscriptions: Record<string, Subscription>;
  exceptions: Record<string, Exception>;
  /** The events of the last transition, for that repair. */
  last_events?: AuditEvent[];
}

export const emptyDoc = (): KeyDoc => ({ version: DOC_VERSION, rev: 0, keys: {}, requests: {}, accounts: {}, projects: {}, subscriptions: {}, exceptions: {} });

export const hashKey = (key: string) => createHash('sha256').update(key).digest('hex');
export const newSecret = () => `alm_${randomBytes(24).toString('base64url')}`;
/** Public id of a key: derived from its hash, safe to show and log. */
export const keyIdOf = (hash: string) => `key_${hash.slice(0, 12)}`;
export const newId = (prefix: 'acc' | 'prj' | 'sub' | 'exc' | 'req') => `${prefix}_${randomBytes(6).toString('hex')}`;
export const KEY_ID = /^key_[0-9a-f]{12}$/;

/** A keys.json that cannot be trusted; the message names the file and the fault, never its contents. */
export class KeyFileError extends Error {}

/** Account of the keys issued before accounts existed (migration from version 1). */
export const LEGACY_ACCOUNT = 'acc_legacy';

/**
 * A version-1 document (keys and requests only) as version 2, deterministically (the
 * server migrates on every read until a writer saves it): one `acc_legacy` account; each
 * key its own project (`prj_<key hex>`, usage still counted under the key's id) with a
 * subscription to its plan, or for a `development` key an exception with development
 * limits — so every existing key keeps working exactly as before.
 */
function migrate(v1: any): KeyDoc {
  const doc = emptyDoc();
  doc.keys = v1.keys;
  const keys = Object.values<KeyRecord>(v1.keys);
  if (keys.length) doc.accounts[LEGACY_ACCOUNT] = { id: LEGACY_ACCOUNT, name: 'keys issued before accounts', contact: '', created: keys.map((k) => k.created).sort()[0] };
  for (const k of keys) {
    const hex = k.id.slice(4);
    const project: Project = { id: `prj_${hex}`, name: k.label || k.id, account: LEGACY_ACCOUNT, created: k.created, key: k.id, meter: k.id };
    doc.projects[project.id] = project;
    Object.assign(k, { account: LEGACY_ACCOUNT, project: project.id });
    if (k.plan === 'development') {
      doc.exceptions[`exc_${hex}`] = { id: `exc_${hex}`, account: LEGACY_ACCOUNT, project: project.id, reason: 'development key issued before accounts', limits: 'development', granted_by: 'migration', granted: k.created };
    } else {
      doc.subscriptions[`sub_${hex}`] = { id: `sub_${hex}`, account: LEGACY_ACCOUNT, project: project.id, plan: k.plan, status: 'active', started: k.created, changes: [] };
    }
  }
  for (const r of Object.values<any>(v1.requests)) {
    const k = r.key_id && doc.keys[r.key_id];
    doc.requests[r.id] = { ...r, account_name: r.label, use: '', ...(k ? { account: k.account, project: k.project } : {}) };
  }
  return doc;
}

const isTime = (t: unknown) => typeof t === 'string' && !Number.isNaN(Date.parse(t));

/** Parses, checks and (from version 1) migrates keys.json; throws KeyFileError naming the file and what is wrong. */
export function parseKeyFile(text: string, file: string): KeyDoc {
  const bad = (why: string) => new KeyFileError(`${file}: ${why}; fix the file or restore it from a backup (the server keeps its last good copy)`);
  let data: any;
  try {
    data = JSON.parse(text);
  } catch (err) {
    // JSON.parse quotes the text around the fault, which may hold secrets: keep only the position.
    const at = /position (\d+)/.exec((err as Error).message)?.[1];
    throw bad(`is not valid JSON${at ? ` (at byte ${at})` : ''}`);
  }
  if (!data || typeof data !== 'object' || typeof data.keys !== 'object' || !data.keys || typeof data.requests !== 'object' || !data.requests) {
    throw bad('must be an object with "keys" and "requests" objects');
  }
  if (data.version !== undefined && data.version !== DOC_VERSION) throw bad(`has version ${JSON.stringify(data.version).slice(0, 20)}; this server reads version ${DOC_VERSION} (and 1, without a version)`);
  for (const [id, k] of Object.entries<any>(data.keys)) {
    const name = KEY_ID.test(id) ? id : 'an entry';
    if (!k || typeof k !== 'object' || k.id !== id || !KEY_ID.test(id)) throw bad(`${name} has an id that does not match its entry`);
    if (typeof k.hash !== 'string' || !/^[0-9a-f]{64}$/.test(k.hash)) throw bad(`key ${id} has no sha256 hash`);
    if (!isPlan(k.plan)) throw bad(`key ${id} has an unknown plan (plans: ${Object.keys(PLANS).join(', ')})`);
    if (k.status !== 'active' && k.status !== 'revoked') throw bad(`key ${id} has status other than active or revoked`);
    if (k.revoke_at !== undefined && !isTime(k.revoke_at)) throw bad(`key ${id} has an invalid revoke_at`);
  }
  for (const [id, r] of Object.entries<any>(data.requests)) {
    if (!r || typeof r !== 'object' || r.id !== id || !['pending', 'approved', 'rejected'].includes(r.status)) throw bad('a request entry is malformed');
  }
  if (data.version === undefined) return migrate(data);
  if (!Number.isSafeInteger(data.rev) || data.rev < 0) throw bad('has no valid "rev" counter');
  for (const part of ['accounts', 'projects', 'subscriptions', 'exceptions'] as const) {
    if (!data[part] || typeof data[part] !== 'object') throw bad(`has no "${part}" object`);
    for (const [id, e] of Object.entries<any>(data[part])) if (!e || typeof e !== 'object' || e.id !== id) throw bad(`a ${part} entry has an id that does not match its entry`);
  }
  for (const k of Object.values<any>(data.keys)) if (!data.projects[k.project] || !data.accounts[k.account]) throw bad(`key ${k.id} names no known project or account`);
  for (const p of Object.values<any>(data.projects)) if (!data.accounts[p.account]) throw bad(`project ${p.id} names no known account`);
  for (const s of Object.values<any>(data.subscriptions)) {
    if (!isPlan(s.plan) || !['active', 'cancelling', 'cancelled'].includes(s.status) || !data.projects[s.project]) throw bad(`subscription ${s.id} is malformed (plan, status or project)`);
    if (s.ends_at !== undefined && !isTime(s.ends_at)) throw bad(`subscription ${s.id} has an invalid ends_at`);
  }
  for (const e of Object.values<any>(data.exceptions)) {
    if (!isPlan(e.limits) || !data.accounts[e.account] || typeof e.reason !== 'string') throw bad(`exception ${e.id} is malformed (limits, account or reason)`);
    if (e.ends_at !== undefined && !isTime(e.ends_at)) throw bad(`exception ${e.id} has an invalid ends_at`);
  }
  return data as KeyDoc;
}

const before = (t: string | undefined, now: number) => t !== undefined && Date.parse(t) <= now;

export const keyRevoked = (k: KeyRecord, now: number) => k.status === 'revoked' || before(k.revoke_at, now);
/** An exception applies from its grant until its end (exclusive). */
export const exceptionLive = (e: Exception, now: number) => !before(e.ends_at, now);
/** A subscription serves while active, or cancelling until the end of its paid month. */
export const subscriptionLive = (s: Subscription, now: number) => s.status !== 'cancelled' && !before(s.ends_at, now);

/** The project's subscription that is not cancelled (at most one), if any. */
export const currentSubscription = (doc: KeyDoc, project: string) =>
  Object.values(doc.subscriptions).find((s) => s.project === project && s.status !== 'cancelled');

export const exceptionsOf = (doc: KeyDoc, p: Project) =>
  Object.values(doc.exceptions).filter((e) => e.account === p.account && (!e.project || e.project === p.id));

/**
 * Per-document lookups for the request path (one map lookup instead of a scan of every
 * subscription and exception). Built once per document read; a document the store holds
 * is never changed afterwards (transitions work on a copy), so the index stays true.
 */
const indexes = new WeakMap<KeyDoc, { subscriptions: Map<string, Subscription>; exceptions: Map<string, Exception[]> }>();
function indexOf(doc: KeyDoc) {
  let ix = indexes.get(doc);
  if (!ix) {
    ix = { subscriptions: new Map(), exceptions: new Map() };
    for (const s of Object.values(doc.subscriptions)) if (s.status !== 'cancelled') ix.subscriptions.set(s.project, s);
    for (const e of Object.values(doc.exceptions)) ix.exceptions.set(e.account, [...(ix.exceptions.get(e.account) ?? []), e]);
    indexes.set(doc, ix);
  }
  return ix;
}

export type Access =
  | { ok: true; tier: PlanName | 'exception'; plan: PlanName; account: Account; project: Project; subscription?: Subscription; exception?: Exception }
  | { ok: false; reason: 'revoked' }
  | { ok: false; reason: 'inactive'; account?: Account; project?: Project; why: string };

/**
 * May this key be served at `now`, and with which limits? A revoked key (or one past its
 * rotation grace) is `revoked`; otherwise its project needs a live exception (which wins:
 * it is an administrator's explicit decision, README "Subscriptions and exceptions") or a
 * live subscription, else `inactive`.
 */
export function accessOf(doc: KeyDoc, key: KeyRecord, now: number): Access {
  if (keyRevoked(key, now)) return { ok: false, reason: 'revoked' };
  const project = key.project ? doc.projects[key.project] : undefined;
  const account = project && doc.accounts[project.account];
  if (!project || !account) return { ok: false, reason: 'inactive', why: 'the key belongs to no project' };
  const ix = indexOf(doc);
  const exception = (ix.exceptions.get(project.account) ?? []).find((e) => (!e.project || e.project === project.id) && exceptionLive(e, now));
  if (exception) return { ok: true, tier: 'exception', plan: exception.limits, account, project, exception };
  const subscription = ix.subscriptions.get(project.id);
  if (subscription && subscriptionLive(subscription, now)) return { ok: true, tier: subscription.plan, plan: subscription.plan, account, project, subscription };
  const ended = subscription ?? Object.values(doc.subscriptions).filter((s) => s.project === project.id).pop();
  const why = ended
    ? `the project's ${ended.plan} subscription ended at ${ended.ends_at}`
    : exceptionsOf(doc, project).length ? 'the project\'s exception has ended and it has no subscription' : 'the project has no subscription or exception';
  return { ok: false, reason: 'inactive', account, project, why };
}

/** An authenticated key: `plan` is the limits plan in force now, `access` what grants it. */
export type Caller = KeyRecord & { access?: Extract<Access, { ok: true }>; /** When it was authenticated (ms). */ at?: number };

/**
 * The Caller of a request, field by field: `{ ...rec, … }` cost 2.2 µs per request (V8's
 * slow path for a spread of a parsed record plus new fields), ~7 % of the whole request
 * (issue 14); a literal of one fixed shape costs next to nothing.
 */
export const callerOf = (rec: KeyRecord, access: Extract<Access, { ok: true }>, at: number): Caller => ({
  id: rec.id, hash: rec.hash, plan: access.plan, status: rec.status, label: rec.label, created: rec.created,
  request: rec.request, account: rec.account, project: rec.project, revoke_at: rec.revoke_at, access, at,
});

/** Id a key's usage is counted under: its project's meter (its first key), so rotation keeps the count. */
export const meterOf = (k: Caller) => k.access?.project.meter ?? k.id;
