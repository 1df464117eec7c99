/** The keys CLI and the approval queue, against the real server. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PROJECT_ROOT } from '../pipeline/paths.ts';
import { runKeys } from '../server/cli/keys-commands.ts';
import { KeyStore } from '../server/state/keys.ts';
import { cleanup, startServer, tempDir, type Running } from './helpers.ts';

let dist: string;
let srv: Running;
const cli = (...args: string[]) => {
  const lines: string[] = [];
  const code = runKeys(args, { ALMANAC_STATE_DIR: srv.stateDir }, (l) => lines.push(l));
  return { code, lines, last: lines[lines.length - 1] };
};
const get = (key: string) => fetch(`${srv.base}/apis/elements/Fe`, { headers: { 'x-service-key': key } });

beforeAll(async () => {
  dist = inject('sharedDist');
  srv = await startServer(dist, tempDir('almanac-keys-'));
});
afterAll(async () => {
  await srv.close();
  cleanup(srv.stateDir);
});

describe('keys CLI', () => {
  it('`npm run keys -- create --plan basic` prints the key alone on the last line', () => {
    const out = execFileSync('npm', ['run', 'keys', '--', 'create', '--plan', 'basic'], {
      cwd: PROJECT_ROOT, env: { ...process.env, ALMANAC_STATE_DIR: srv.stateDir }, encoding: 'utf8',
    });
    const last = out.trimEnd().split('\n').pop()!;
    expect(last).toMatch(/^alm_[A-Za-z0-9_-]{32}$/);
    expect(new KeyStore(srv.stateDir).verify(last)?.plan).toBe('basic');
  });

  it('stores keys only as hashes', () => {
    const { last } = cli('create', '--plan', 'standard');
    const file = readFileSync(path.join(srv.stateDir, 'keys.json'), 'utf8');
    expect(file).not.toContain(last);
    expect(cli('list').lines.join('\n')).not.toContain(last);
  });

  it('issues a working key only when a request is approved', async () => {
    const req = cli('request', '--label', 'reading app', '--contact', 'dev@example.org');
    expect(req.last).toMatch(/^req_[0-9a-f]{12}$/);
    expect(cli('list').lines.some((l) => l.startsWith(req.last) && l.includes('pending'))).toBe(true);
    const approved = cli('approve', req.last, '--plan', 'standard');
    expect(approved.last).toMatch(/^alm_/);
    expect((await get(approved.last)).status).toBe(200);
    expect(() => cli('approve', req.last, '--plan', 'basic')).toThrow(/already approved/);
  });

  it('names the account and project of keys and usage; lists by account; a rejected request says why', async () => {
    const req = cli('request', '--project', 'psalter', '--account', 'Abbey', '--contact', 'abbot@example.org', '--use', 'daily office');
    const key = cli('approve', req.last, '--plan', 'basic').last;
    expect((await get(key)).status).toBe(200);
    const rec = new KeyStore(srv.stateDir).verify(key)!;
    expect(rec).toMatchObject({ account: expect.stringMatching(/^acc_/), project: expect.stringMatching(/^prj_/), label: 'psalter' });
    const listed = cli('list', '--account', rec.account!).lines;
    expect(listed).toEqual([`${rec.id}\tbasic\tactive\t${rec.created}\tpsalter\t${rec.account}\t${rec.project}`]);
    expect(cli('usage', rec.id).last).toMatch(new RegExp(`^${rec.id}\\t\\d{4}-\\d{2}\\t1/25000\\t.*\\t${rec.account}\\t${rec.project}$`));
    const no = cli('request', '--label', 'bulk mirror');
    expect(cli('reject', no.last, '--reason', 'bulk copies are served as downloads').last).toMatch(/is rejected: bulk copies/);
    expect(cli('request-status', no.last).last).toMatch(/^req_\w+\trejected on .*: bulk copies are served as downloads$/);
    expect(() => cli('approve', no.last, '--plan', 'basic')).toThrow(/already rejected/);
  });

  it('revokes and reactivates a key, taking effect on the running server', async () => {
    const { last: key } = cli('create', '--plan', 'basic');
    expect((await get(key)).status).toBe(200);
    const id = new KeyStore(srv.stateDir).verify(key)!.id;
    expect(cli('revoke', id).last).toBe(`${id} is now revoked`);
    await new Promise((r) => setTimeout(r, 1100)); // the server re-reads keys.json each second
    const res = await get(key);
    expect(res.status).toBe(401);
    expect((await res.json()).error.code).toBe('invalid_key');
    cli('reactivate', id);
    await new Promise((r) => setTimeout(r, 1100));
    expect((await get(key)).status).toBe(200);
  });

  it('reports usage this month and refuses unknown plans', async () => {
    const { last: key } = cli('create', '--plan', 'premium');
    for (let i = 0; i < 3; i++) await get(key);
    const id = new KeyStore(srv.stateDir).verify(key)!.id;
    expect(cli('usage', id).last).toMatch(new RegExp(`^${id}\\t\\d{4}-\\d{2}\\t3/500000\\tlast used 20`));
    expect(() => cli('create', '--plan', 'gold')).toThrow(/--plan must be one of/);
  });
});
