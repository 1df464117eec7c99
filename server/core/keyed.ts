/**
 * The core's authenticate and limit steps (core/app.ts): the key a request carries, checked
 * against the keys, then whether it may be served now (revoked, subscription), the burst
 * and the month, and the bill of a request admitted before its answer was known. Each
 * returns its result as it is when the state answered at once (the Node server's keys),
 * and a promise when it answers later (the count of a turn, the edge's state).
 */
import type { HeaderList } from '../http/request.ts';
import { callerOf, type Caller } from '../state/accounts.ts';
import type { ChargeMode, Charged } from '../state/limits.ts';
import { credentialOf } from './credentials.ts';
import type { Admission, StateStore } from './state.ts';
import { searchOf, type Turn } from './turn.ts';

/** The caller of every request in open mode (/api/v1/key describes it; nothing is counted). */
export const OPEN_KEY: Caller = { id: 'open', hash: '', plan: 'development', status: 'active', label: 'open mode (serve --open)', created: '1970-01-01T00:00:00.000Z' };

/** The steps over one state; `open`: every request is OPEN_KEY's (`serve --open`). */
export function keyed(state: StateStore, open: boolean | undefined) {
  /**
   * authenticate: the key the request carries, checked against the keys (before revealing
   * whether a path exists). The key, or a promise of it when the state answers later (the edge).
   */
  function authenticate(t: Turn): Caller | undefined | Promise<Caller> {
    // The OpenAPI documents are public (auth: false) although they sit under the surfaces.
    if (!t.surface.credentials || t.match?.route.auth === false) return undefined;
    if (open) return OPEN_KEY;
    state.refresh?.();
    const rec = state.verify(credentialOf(t.req, searchOf(t), t.surface.credentials));
    return rec instanceof Promise ? rec.then((r) => known(t, r)) : known(t, rec);
  }

  /**
   * limit: may the key be served now (revoked, subscription), then the burst and the month.
   * `billLater`: only admitted now (the burst), billed once its answer is known (it waits for a lane).
   * A promise when the count waits (the Node server counts a turn's requests together).
   */
  function limit(t: Turn, rec: Caller | undefined, billLater: boolean): void | Promise<void> {
    if (!rec || rec === OPEN_KEY) return void (t.key = rec);
    const now = state.now();
    // /api/v1/key is never billed; a conditional request may end as a free 304 (README
    // "Plans and limits"): both are admitted now and billed once their answer is known.
    const free = t.match?.route.billed === false;
    const mode: ChargeMode = free || billLater || t.req.header('if-none-match') ? 'admit' : 'count';
    const a = state.admit(rec, mode, now);
    if (a instanceof Promise) return a.then((x) => admitted(t, rec, x, mode === 'admit' && !free, now));
    return admitted(t, rec, a, mode === 'admit' && !free, now);
  }

  /** Bills the request (unless free) just before a billed answer is sent. */
  async function bill(t: Turn): Promise<HeaderList> {
    const k = t.billKey;
    t.billKey = undefined;
    if (!k) return t.limitHeaders;
    return (t.limitHeaders = (await state.bill(k, state.now())).headers);
  }

  return { authenticate, limit, bill };
}

/** The key found (or the surface's refusal); its id goes to the adapter's access log, never the key. */
function known(t: Turn, rec: Caller | undefined): Caller {
  if (!rec) throw t.surface.credentials!.invalid('the key is not recognised');
  t.req.keyId = rec.id;
  return rec;
}

/** What admit decided, applied to the request: refused (revoked, no subscription), or its caller, headers and count; `billLater`: billed once its answer is known. */
function admitted(t: Turn, rec: Caller, a: Admission, billLater: boolean, now: number): void | Promise<void> {
  const rules = t.surface.credentials!;
  if (!a.ok && a.reason === 'revoked') throw rules.inactive();
  if (!a.ok) {
    throw rules.unsubscribed(`${a.why}; the key works again once the project is subscribed to a plan or granted an exception`, {
      key_id: a.key_id, account: a.account, project: a.project,
    });
  }
  const { access, charged } = a;
  if (charged instanceof Promise) return charged.then((c) => counted(t, rec, access, c, billLater, now));
  counted(t, rec, access, charged, billLater, now);
}

/** The request's caller, limit headers and count once it is counted. */
function counted(t: Turn, rec: Caller, access: Extract<Admission, { ok: true }>['access'], c: Charged, billLater: boolean, now: number) {
  t.key = callerOf(rec, access, now);
  t.limitHeaders = c.headers;
  t.usage = { used: c.used, lastUsed: c.lastUsed };
  if (billLater) t.billKey = { meter: access.project.meter ?? rec.id, plan: access.plan };
}
