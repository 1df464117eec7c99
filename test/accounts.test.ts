/**
 * Issue 15: accounts, projects, plans, subscriptions, exceptions, the request queue and
 * the audit log — every transition on the store, the done-when flow over HTTP on a
 * fixture server with a movable clock (both surfaces), and durability across restart,
 * kill -9 and parallel CLI processes.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PROJECT_ROOT } from '../pipeline/paths.ts';
import { createApp, type App } from '../server/node/server.ts';
import { runKeys } from '../server/cli/keys-commands.ts';
import { readAudit } from '../server/state/audit.ts';
import { KeyStore } from '../server/state/keys.ts';
import { PLANS, nextMonthStart, planTableRows } from '../server/state/plans.ts';
import * as T from '../server/state/transitions.ts';
import { KEY_REPLY } from '../server/api/v1/schemas.ts';
import { quiet, runTsx } from './helpers.ts';
import { tempDirs } from './temp.ts';

const dir = tempDirs('almanac-accounts-');
const clock = { t: Date.parse('2026-11-20T12:00:00Z') };
const store = (d = dir()) => new KeyStore(d, quiet, { now: () => clock.t });
const cli = (d: string, ...args: string[]) => {
  const lines: string[] = [];
  const code = runKeys(args, { ALMANAC_STATE_DIR: d }, (l) => lines.push(l));
  return { code, lines, last: lines[lines.length - 1] };
};
const tsx = runTsx;

/** An account with one project subscribed to `plan`, and its key. */
function subscribed(s: KeyStore, plan = 'standard') {
  return s.run((doc, tx) => {
    const acc = T.createAccount(doc, tx, { name: 'Reading Co', contact: 'ops@example.org' });
    const prj = T.createProject(doc, tx, { account: acc.id, name: 'reader' });
    const r = T.subscribe(doc, tx, { project: prj.id, plan });
    return { acc, prj, sub: r.subscription, secret: r.issued!.secret, key: r.issued!.record };
  });
}
const accessAt = (s: KeyStore, secret: string, t = clock.t) => s.access(s.verify(secret)!, t);

describe('plans are one table', () => {
  it("the docs' plan table is the table in code", () => {
    const readme = readFileSync(path.join(PROJECT_ROOT, 'docs', 'platform-api.md'), 'utf8');
    const rows = readme.split('\n').filter((l) => /^\| `(basic|standard|premium|development)` \|/.test(l));
    expect(rows).toEqual(planTableRows());
  });
  it('the /api/v1/key schema lists every plan and `exception` as tiers, with prices in its description', () => {
    const data = (KEY_REPLY as any).properties.data;
    expect(data.properties.tier.enum).toEqual([...Object.keys(PLANS), 'exception']);
    expect(data.description).toContain(`| standard | 29 USD/month | 100000 | 25 |`);
    expect(PLANS.standard.price).toEqual({ amount: 29, currency: 'USD' });
  });
});

describe('transitions', () => {
  it('subscribe issues the project its one key; a second subscribe is refused; development is not sold', () => {
    const s = store();
    const { prj, secret, key } = subscribed(s);
    expect(key).toMatchObject({ account: prj.account, project: prj.id, status: 'active' });
    expect(JSON.parse(readFileSync(s.file, 'utf8')).projects[prj.id]).toMatchObject({ key: key.id, meter: key.id });
    expect(accessAt(s, secret)).toMatchObject({ ok: true, tier: 'standard', plan: 'standard' });
    expect(() => s.run((d, tx) => T.subscribe(d, tx, { project: prj.id, plan: 'basic' }))).toThrow(/already has an active standard subscription/);
    expect(() => s.run((d, tx) => T.subscribe(d, tx, { project: prj.id, plan: 'development' }))).toThrow(/plan must be one of basic, standard, premium/);
    expect(readFileSync(s.file, 'utf8')).not.toContain(secret);
  });

  it('change-plan applies at once; cancel lasts to the end of the paid month; --now ends at once; subscribing again withdraws a cancellation', () => {
    const s = store();
    const { prj, secret } = subscribed(s);
    s.run((d, tx) => T.changePlan(d, tx, { project: prj.id, plan: 'premium' }));
    expect(accessAt(s, secret)).toMatchObject({ ok: true, plan: 'premium' });
    const sub = s.run((d, tx) => T.cancel(d, tx, { project: prj.id }));
    expect(sub).toMatchObject({ status: 'cancelling', ends_at: '2026-12-01T00:00:00.000Z' });
    expect(accessAt(s, secret, nextMonthStart(clock.t) - 1).ok).toBe(true);
    expect(accessAt(s, secret, nextMonthStart(clock.t))).toMatchObject({ ok: false, reason: 'inactive' });
    s.run((d, tx) => T.subscribe(d, tx, { project: prj.id, plan: 'basic' }));
    expect(accessAt(s, secret, nextMonthStart(clock.t))).toMatchObject({ ok: true, plan: 'basic' });
    s.run((d, tx) => T.cancel(d, tx, { project: prj.id, now: true }));
    expect(accessAt(s, secret)).toMatchObject({ ok: false, reason: 'inactive', why: expect.stringMatching(/basic subscription ended/) });
    expect(() => s.run((d, tx) => T.changePlan(d, tx, { project: prj.id, plan: 'premium' }))).toThrow(/no active subscription/);
    // After cancellation a new subscription starts (the old one stays cancelled).
    s.run((d, tx) => T.subscribe(d, tx, { project: prj.id, plan: 'standard' }));
    expect(Object.values(s.doc().subscriptions).map((x) => x.status).sort()).toEqual(['active', 'cancelled']);
  });

  it('an exception grants use with its limits until it ends (by time or end-exception) and wins over a subscription', () => {
    const s = store();
    const { acc, prj, secret } = subscribed(s, 'basic');
    const exc = s.run((d, tx) => T.grantException(d, tx, { account: acc.id, reason: 'partner', limits: 'premium', ends_at: new Date(clock.t + 1000).toISOString() })).exception;
    expect(exc.granted_by).toBe(s.actor);
    expect(accessAt(s, secret)).toMatchObject({ ok: true, tier: 'exception', plan: 'premium' });
    expect(accessAt(s, secret, clock.t + 1000)).toMatchObject({ ok: true, tier: 'basic' });
    s.run((d, tx) => T.cancel(d, tx, { project: prj.id, now: true }));
    expect(accessAt(s, secret, clock.t + 1000)).toMatchObject({ ok: false, reason: 'inactive' });
    const open = s.run((d, tx) => T.grantException(d, tx, { project: prj.id, reason: 'school' })).exception;
    expect(open.limits).toBe('basic');
    expect(accessAt(s, secret, clock.t + 5e9)).toMatchObject({ ok: true, tier: 'exception' });
    s.run((d, tx) => T.endException(d, tx, { id: open.id }));
    expect(accessAt(s, secret, clock.t + 1000)).toMatchObject({ ok: false, reason: 'inactive' });
    expect(() => s.run((d, tx) => T.endException(d, tx, { id: open.id }))).toThrow(/already ended/);
    expect(() => s.run((d, tx) => T.grantException(d, tx, { project: prj.id, reason: 'x', ends_at: '2000-01-01T00:00:00Z' }))).toThrow(/in the future/);
    expect(() => s.run((d, tx) => T.grantException(d, tx, { project: prj.id, reason: ' ' }))).toThrow(/needs a --reason/);
  });

  it('rotate: the new key works, the old one until its grace ends; one working key per project on reactivate', () => {
    const s = store();
    const { prj, secret: old, key } = subscribed(s);
    const r = s.run((d, tx) => T.rotate(d, tx, { project: prj.id, grace: 60 }));
    expect(accessAt(s, r.secret).ok).toBe(true);
    expect(accessAt(s, old, clock.t + 59_000).ok).toBe(true);
    expect(accessAt(s, old, clock.t + 60_000)).toEqual({ ok: false, reason: 'revoked' });
    expect(s.doc().projects[prj.id]).toMatchObject({ key: r.record.id, meter: key.id });
    expect(() => s.setStatus(key.id, 'active')).toThrow(/already has a working key/);
    const r2 = s.run((d, tx) => T.rotate(d, tx, { project: prj.id }));
    expect(accessAt(s, r.secret)).toEqual({ ok: false, reason: 'revoked' });
    clock.t += 61_000; // past the first key's grace
    s.setStatus(r2.record.id, 'revoked');
    s.setStatus(r.record.id, 'active');
    expect(accessAt(s, r.secret).ok).toBe(true);
    expect(s.doc().projects[prj.id].key).toBe(r.record.id);
  });

  it('request → approve with a plan or an exception → key; reject with a reason; request-status tells each', () => {
    const d = dir();
    const s = store(d);
    const a = s.request('study app', 'me@example.org', { account_name: 'Chapel', use: 'daily readings' });
    const b = s.request('bible club', 'club@example.org');
    const c = s.request('scraper', 'x@example.org');
    expect(cli(d, 'request-status', a.id).last).toBe(`${a.id}\tpending since ${a.created}`);
    const ka = s.approve(a.id, 'standard');
    const kb = s.approve(b.id, { reason: 'nonprofit', limits: 'basic' });
    s.run((doc, tx) => T.reject(doc, tx, { request: c.id, reason: 'scraping is not an intended use' }));
    expect(accessAt(s, ka.secret)).toMatchObject({ ok: true, tier: 'standard', account: { name: 'Chapel', contact: 'me@example.org' }, project: { name: 'study app' } });
    expect(accessAt(s, kb.secret)).toMatchObject({ ok: true, tier: 'exception', exception: { reason: 'nonprofit' } });
    expect(cli(d, 'request-status', a.id).last).toMatch(new RegExp(`approved .*key ${ka.record.id} in account acc_\\w+, project prj_\\w+ \\(plan standard\\)`));
    expect(cli(d, 'request-status', b.id).last).toMatch(/approved .*\(exception exc_\w+\)/);
    expect(cli(d, 'request-status', c.id).last).toMatch(/rejected on .*: scraping is not an intended use/);
    expect(() => s.approve(c.id, 'basic')).toThrow(/already rejected/);
    expect(() => cli(d, 'request-status', 'req_000000000000')).toThrow(/no request/);
  });

  it('every step is in the audit log with who, what and when, and never a secret', () => {
    const d = dir();
    const acc = cli(d, 'account', 'create', '--name', 'Audit Co', '--by', 'alice').last;
    const prj = cli(d, 'project', 'create', '--account', acc, '--name', 'p', '--by', 'alice').last;
    const key = cli(d, 'subscribe', prj, '--plan', 'standard', '--by', 'alice').last;
    cli(d, 'change-plan', prj, '--plan', 'basic', '--by', 'bob');
    cli(d, 'cancel', prj, '--now', '--by', 'bob');
    const exc = cli(d, 'grant-exception', '--account', acc, '--reason', 'press', '--by', 'carol').last;
    cli(d, 'end-exception', exc, '--by', 'carol');
    cli(d, 'rotate', prj, '--grace', '10', '--by', 'carol');
    const { events } = readAudit(path.join(d, 'audit.log'));
    expect(events.map((e) => `${e.by} ${e.what}`)).toEqual([
      'alice account.create', 'alice project.create', 'alice subscription.start', 'alice key.issue', 'bob subscription.change-plan',
      'bob subscription.cancel-now', 'carol exception.grant', 'carol exception.end', 'carol key.issue', 'carol key.rotate',
    ]);
    for (const e of events) expect(Date.parse(e.at)).toBeGreaterThan(0);
    expect(events.every((e) => e.account === acc)).toBe(true);
    const log = readFileSync(path.join(d, 'audit.log'), 'utf8');
    expect(log).not.toContain(key);
    expect(cli(d, 'audit', '--account', acc).lines).toHaveLength(events.length);
  });

  it('a version-1 keys.json is read as version 2: each key its own legacy project, still working with its plan', () => {
    const d = dir();
    const s = store(d);
    const basic = s.create('basic', 'old app');
    const dev = s.create('development', 'old dev');
    const v1 = { keys: Object.fromEntries(Object.values(s.doc().keys).map((k) => [k.id, { id: k.id, hash: k.hash, plan: k.plan, status: k.status, label: k.label, created: k.created }])), requests: {} };
    writeFileSync(s.file, JSON.stringify(v1));
    const m = store(d);
    expect(accessAt(m, basic.secret)).toMatchObject({ ok: true, tier: 'basic', account: { id: 'acc_legacy' }, project: { meter: basic.record.id } });
    expect(accessAt(m, dev.secret)).toMatchObject({ ok: true, tier: 'exception', plan: 'development' });
    m.run((doc, tx) => T.changePlan(doc, tx, { project: m.verify(basic.secret)!.project!, plan: 'premium' }));
    expect(JSON.parse(readFileSync(s.file, 'utf8'))).toMatchObject({ version: 2, accounts: { acc_legacy: {} } });
    expect(readAudit(m.auditFile).events.slice(-2).map((e) => e.what)).toEqual(['document.migrate', 'subscription.change-plan']);
    expect(accessAt(store(d), basic.secret)).toMatchObject({ ok: true, tier: 'premium' });
  });
});

describe('over HTTP, both surfaces (the done-when flow, a movable clock)', () => {
  let app: App;
  let base: string;
  let d: string;
  beforeAll(async () => {
    d = dir();
    // Each step's CLI change is seen by the next request: keys.json checked every turn, not every second.
    app = createApp({ dist: inject('sharedDist'), stateDir: d, log: quiet, now: () => clock.t, keysCheckMs: 0 });
    await new Promise<void>((r) => app.server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  });
  afterAll(() => app.close());
  const v1 = async (key: string, p = '/api/v1/key') => {
    const r = await fetch(`${base}${p}`, { headers: { authorization: `Bearer ${key}` } });
    return { status: r.status, body: await r.json() as any };
  };
  const apis = async (key: string) => {
    const r = await fetch(`${base}/apis/elements/Fe`, { headers: { 'x-service-key': key } });
    return { status: r.status, body: await r.json() as any };
  };

  it('account → project → standard → key; price and quota on /key; change plan; cancel → 403 (v1) / 401 (/apis); exception → tier exception; its end → the same', async () => {
    const acc = cli(d, 'account', 'create', '--name', 'Reading Co', '--contact', 'ops@example.org').last;
    const prj = cli(d, 'project', 'create', '--account', acc, '--name', 'reader').last;
    const key = cli(d, 'subscribe', prj, '--plan', 'standard').last;
    expect((await apis(key)).status).toBe(200);
    let k = await v1(key);
    expect(k.status).toBe(200);
    expect(k.body.data).toMatchObject({
      tier: 'standard', plan: 'standard', price: { amount: 29, currency: 'USD' }, monthly_quota: 100000, current_usage: 1, remaining_calls: 99999, // /key itself is free
      account: { id: acc, name: 'Reading Co' }, project: { id: prj, name: 'reader' }, subscription: { plan: 'standard', status: 'active', ends_at: null }, exception: null,
    });
    expect(JSON.stringify(k.body)).not.toContain('ops@example.org');

    cli(d, 'change-plan', prj, '--plan', 'basic');
    k = await v1(key);
    expect(k.body.data).toMatchObject({ tier: 'basic', price: { amount: 12 }, monthly_quota: 25000, current_usage: 1, remaining_calls: 24999 });

    cli(d, 'cancel', prj);
    expect((await v1(key)).body.data.subscription).toMatchObject({ status: 'cancelling', ends_at: '2026-12-01T00:00:00.000Z' });
    clock.t = nextMonthStart(clock.t); // the first instant after the paid month
    // The scripture spec answers an inactive key 403; the platform spec answers every refused credential 401.
    for (const [r, status] of [[await v1(key), 403], [await v1(key, '/api/v1/translations'), 403], [await apis(key), 401]] as const) {
      expect(r.status).toBe(status);
      expect(r.body.error).toMatchObject({ code: 'subscription_inactive', status, details: { account: acc, project: prj } });
    }
    // Distinct from an unknown key's code on both surfaces.
    expect((await v1('alm_not-a-key-at-all-0000000000000')).body.error.code).toBe('invalid_api_key');
    expect((await apis('alm_not-a-key-at-all-0000000000000')).body.error).toMatchObject({ code: 'invalid_key', status: 401 });

    cli(d, 'grant-exception', '--account', acc, '--reason', 'partner library', '--limits', 'premium', '--ends', new Date(clock.t + 1000).toISOString());
    k = await v1(key);
    expect(k.body.data).toMatchObject({ tier: 'exception', plan: 'premium', monthly_quota: 500000, price: { amount: 0 }, exception: { reason: 'partner library', limits: 'premium' } });
    expect((await apis(key)).status).toBe(200);
    clock.t += 1000; // the exception's end
    expect((await v1(key)).body.error.code).toBe('subscription_inactive');
    expect((await apis(key)).body.error.code).toBe('subscription_inactive');

    const what = readAudit(path.join(d, 'audit.log')).events.map((e) => e.what);
    expect(what).toEqual(['account.create', 'project.create', 'subscription.start', 'key.issue', 'subscription.change-plan', 'subscription.cancel', 'exception.grant']);
  });

  it('a rotated key keeps the project month count; the old key stops at the end of its grace', async () => {
    // The store on the server's clock (the CLI runs on the real one, which the server's has passed).
    const { prj, secret: old } = subscribed(store(d), 'premium');
    await apis(old);
    const fresh = store(d).run((doc, tx) => T.rotate(doc, tx, { project: prj.id, grace: 30 })).secret;
    expect((await v1(old)).body.data.revoke_at).toBe(new Date(clock.t + 30_000).toISOString());
    const k = await v1(fresh);
    expect(k.body.data.current_usage).toBe(1); // the /apis call of the old key, on the project's meter (/key is free)
    clock.t += 30_000;
    expect((await v1(old)).body.error.code).toBe('inactive_api_key');
    expect((await apis(old)).status).toBe(401);
    expect((await v1(fresh)).status).toBe(200);
  });
});

describe('durability', () => {
  it('a writer killed with SIGKILL mid-run loses no completed transition; the audit log is repaired by the next writer', async () => {
    const d = dir();
    const child = spawn(process.execPath, ['--import', 'tsx', '-e', `
      const { KeyStore } = await import('./server/state/keys.ts');
      const T = await import('./server/state/transitions.ts');
      const s = new KeyStore(${JSON.stringify(d)}, () => {});
      for (let i = 0; ; i++) { s.run((doc, tx) => T.createAccount(doc, tx, { name: 'a' + i })); if (i === 5) console.log('going'); }
    `], { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((r) => child.stdout.on('data', (c) => String(c).includes('going') && r()));
    await new Promise((r) => setTimeout(r, 150));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const s = new KeyStore(d, quiet); // a restart: the file parses, every account is there
    const n = Object.keys(s.doc().accounts).length;
    expect(n).toBeGreaterThanOrEqual(6);
    expect(s.doc().rev).toBe(n);
    s.run((doc, tx) => T.createAccount(doc, tx, { name: 'after' })); // takes over the dead writer's lock if it held it
    const revs = readAudit(s.auditFile).events.map((e) => e.rev);
    expect(revs).toEqual(Array.from({ length: n + 1 }, (_, i) => i + 1));
  });

  it('parallel CLI processes lose nothing: every account, subscription and audit line lands', async () => {
    const d = dir();
    const s = store(d);
    const acc = s.run((doc, tx) => T.createAccount(doc, tx, { name: 'shared' }));
    const prjs = Array.from({ length: 4 }, (_, i) => s.run((doc, tx) => T.createProject(doc, tx, { account: acc.id, name: `p${i}` })));
    const runs = await Promise.all([
      ...prjs.map((p) => tsx(['server/cli/keys.ts', 'subscribe', p.id, '--plan', 'basic'], { ALMANAC_STATE_DIR: d })),
      ...[1, 2, 3].map((i) => tsx(['server/cli/keys.ts', 'account', 'create', '--name', `c${i}`], { ALMANAC_STATE_DIR: d })),
    ]);
    expect(runs.map((r) => r.code), runs.map((r) => r.err).join('\n')).toEqual(Array(7).fill(0));
    const after = store(d);
    expect(Object.keys(after.doc().accounts)).toHaveLength(4);
    expect(Object.values(after.doc().subscriptions).map((x) => x.status)).toEqual(Array(4).fill('active'));
    for (const r of runs.slice(0, 4)) expect(accessAt(after, r.out.trim().split('\n').pop()!)).toMatchObject({ ok: true, tier: 'basic' });
    const revs = readAudit(after.auditFile).events.map((e) => e.rev);
    expect(new Set(revs).size).toBe(after.doc().rev);
  });
});
