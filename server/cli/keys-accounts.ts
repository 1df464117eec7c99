/**
 * The account side of `npm run keys`: accounts, projects, subscriptions, exceptions,
 * rotation and the audit log. Each command is one transition (state/transitions.ts)
 * run by the store under its lock; ids are printed alone on the last line, and so is a
 * key when one is issued (the only time it is ever shown).
 */
import { currentSubscription, exceptionLive } from '../state/accounts.ts';
import type { KeyStore } from '../state/keys.ts';
import * as T from '../state/transitions.ts';

export interface CliContext {
  keys: KeyStore;
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
  out: (line: string) => void;
}

export const ACCOUNT_USAGE = `  account create --name text [--contact text]            a new account (prints its id)
  account list                                           accounts, their projects, subscriptions and exceptions
  project create --account acc_… --name text             a new project of the account (no key until subscribed or excepted)
  subscribe <prj_…> --plan <basic|standard|premium>      subscribe a project; issues its key if it has none
  change-plan <prj_…> --plan <plan>                      new plan at once; the month's count is kept
  cancel <prj_…> [--now]                                 at the end of the paid (UTC calendar) month, or at once
  grant-exception (--account acc_… | --project prj_…) --reason text [--ends time] [--limits plan]
                                                         free use (limits of a plan, default basic); issues a project's key if none
  end-exception <exc_…>                                  end an exception now
  rotate <prj_…> [--grace seconds]                       a new key for the project; the old one stops after the grace (default 0)
  audit [--account acc_…]                                the audit log, oldest first`;

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
const printKey = (c: CliContext, issued: T.Issued | undefined) => {
  if (issued) {
    c.out(`key ${issued.record.id} issued for project ${issued.record.project} (shown once; keep it)`);
    c.out(issued.secret);
  }
};
/** The project a command names, as `<prj_…>` or `--project`. */
const prj = (c: CliContext) => c.positionals[1] ?? str(c.values.project) ?? (() => { throw new Error(`${c.positionals[0]} needs a project id`); })();

export const accountCommands: Record<string, (c: CliContext) => number> = {
  account(c) {
    if (c.positionals[1] === 'create') {
      const acc = c.keys.run((doc, tx) => T.createAccount(doc, tx, { name: str(c.values.name) ?? '', contact: str(c.values.contact) }));
      c.out(`account ${acc.id} created: ${acc.name}`);
      c.out(acc.id);
      return 0;
    }
    if (c.positionals[1] === 'list') {
      const doc = c.keys.doc();
      const now = c.keys.now();
      for (const a of Object.values(doc.accounts)) {
        c.out(`${a.id}\t${a.name}\t${a.contact}\t${a.created}`);
        for (const p of Object.values(doc.projects).filter((p) => p.account === a.id)) {
          const s = currentSubscription(doc, p.id);
          c.out(`  ${p.id}\t${p.name}\tkey ${p.key ?? '-'}\t${s ? `${s.plan} ${s.status}${s.ends_at ? ` until ${s.ends_at}` : ''} (${s.id})` : 'no subscription'}`);
        }
        for (const e of Object.values(doc.exceptions).filter((e) => e.account === a.id)) {
          c.out(`  ${e.id}\texception ${exceptionLive(e, now) ? 'granted' : 'ended'}${e.project ? ` for ${e.project}` : ''}\tlimits ${e.limits}\t${e.ends_at ? `ends ${e.ends_at}` : 'no end'}\t${e.reason}`);
        }
      }
      return 0;
    }
    throw new Error('account needs create or list');
  },
  project(c) {
    if (c.positionals[1] !== 'create') throw new Error('project needs create');
    const p = c.keys.run((doc, tx) => T.createProject(doc, tx, { account: str(c.values.account) ?? '', name: str(c.values.name) ?? '' }));
    c.out(`project ${p.id} created in account ${p.account}: ${p.name}`);
    c.out(p.id);
    return 0;
  },
  subscribe(c) {
    const r = c.keys.run((doc, tx) => T.subscribe(doc, tx, { project: prj(c), plan: c.values.plan }));
    c.out(`${r.subscription.project} is subscribed to ${r.subscription.plan} (${r.subscription.id})`);
    printKey(c, r.issued);
    return 0;
  },
  'change-plan'(c) {
    const s = c.keys.run((doc, tx) => T.changePlan(doc, tx, { project: prj(c), plan: c.values.plan }));
    c.out(`${s.project} is now on ${s.plan} (${s.id}); this month's count is kept and the new quota applies from the next request`);
    return 0;
  },
  cancel(c) {
    const s = c.keys.run((doc, tx) => T.cancel(doc, tx, { project: prj(c), now: c.values.now === true }));
    c.out(`${s.id} (${s.project}) is ${s.status}; its key stops working at ${s.ends_at}`);
    return 0;
  },
  'grant-exception'(c) {
    const r = c.keys.run((doc, tx) => T.grantException(doc, tx, {
      account: str(c.values.account), project: str(c.values.project), reason: str(c.values.reason) ?? '', ends_at: str(c.values.ends), limits: str(c.values.limits),
    }));
    const e = r.exception;
    c.out(`exception ${e.id} granted to ${e.project ?? e.account} (limits ${e.limits}, ${e.ends_at ? `until ${e.ends_at}` : 'no end'}): ${e.reason}`);
    if (!r.issued) c.out(e.id);
    printKey(c, r.issued);
    return 0;
  },
  'end-exception'(c) {
    const id = c.positionals[1] ?? '';
    const e = c.keys.run((doc, tx) => T.endException(doc, tx, { id }));
    c.out(`exception ${e.id} ended at ${e.ends_at}`);
    return 0;
  },
  rotate(c) {
    const grace = c.values.grace === undefined ? 0 : Number(c.values.grace);
    const r = c.keys.run((doc, tx) => T.rotate(doc, tx, { project: prj(c), grace }));
    c.out(r.old ? `old key ${r.old.id} ${grace ? `works until ${r.old.revoke_at}` : 'is revoked'}` : 'the project had no working key');
    printKey(c, r);
    return 0;
  },
  audit(c) {
    const { events, skipped } = c.keys.audit();
    const acc = str(c.values.account);
    for (const e of events.filter((e) => !acc || e.account === acc)) c.out(JSON.stringify(e));
    if (skipped) c.out(`(${skipped} torn line(s) skipped: a crash cut a write short)`);
    return 0;
  },
};
