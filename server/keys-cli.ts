/**
 * `npm run keys -- <command>`: manage keys and the approval queue in ALMANAC_STATE_DIR.
 * A new key is printed alone on the last line of stdout, so scripts can take `tail -1`.
 */
import { isMain } from '../pipeline/cli.ts';
import { parseArgs } from 'node:util';
import { stateDir } from '../pipeline/paths.ts';
import { KeyStore } from './state/keys.ts';
import { PLANS, isPlan, monthOf } from './state/plans.ts';
import { QuotaStore } from './state/quota.ts';

const USAGE = `usage: npm run keys -- <command>
  create --plan <${Object.keys(PLANS).join('|')}> [--label text]   issue a key now (printed on the last line)
  request --label text [--contact text]                  enter the approval queue (prints a request id)
  approve <request-id> --plan <plan>                     approve a request (prints the key)
  revoke <key-id|key>                                    deactivate a key
  reactivate <key-id|key>                                activate a revoked key
  list                                                   keys and pending requests (never the secrets)
  usage [key-id]                                         requests counted this month`;

export function runKeys(argv: string[], env: NodeJS.ProcessEnv = process.env, out = console.log): number {
  const { values, positionals } = parseArgs({
    args: argv, allowPositionals: true,
    options: { plan: { type: 'string' }, label: { type: 'string' }, contact: { type: 'string' } },
  });
  const [cmd, arg] = positionals;
  const dir = stateDir(env);
  const keys = new KeyStore(dir);
  const needPlan = () => {
    if (!isPlan(values.plan)) throw new Error(`--plan must be one of ${Object.keys(PLANS).join(', ')}`);
    return values.plan;
  };
  switch (cmd) {
    case 'create': {
      const { secret, record } = keys.create(needPlan(), values.label ?? '');
      out(`created ${record.id} (plan ${record.plan}, ${PLANS[record.plan].monthly} requests/month)`);
      out(secret);
      return 0;
    }
    case 'request': {
      if (!values.label) throw new Error('--label is required');
      const req = keys.request(values.label, values.contact ?? '');
      out(`request ${req.id} is pending approval`);
      out(req.id);
      return 0;
    }
    case 'approve': {
      if (!arg) throw new Error('approve needs a request id');
      const { secret, record } = keys.approve(arg, needPlan());
      out(`approved ${arg}: key ${record.id} (plan ${record.plan})`);
      out(secret);
      return 0;
    }
    case 'revoke':
    case 'reactivate': {
      if (!arg) throw new Error(`${cmd} needs a key id`);
      const rec = keys.setStatus(arg, cmd === 'revoke' ? 'revoked' : 'active');
      out(`${rec.id} is now ${rec.status}`);
      return 0;
    }
    case 'list': {
      for (const k of keys.keys()) out(`${k.id}\t${k.plan}\t${k.status}\t${k.created}\t${k.label}`);
      for (const r of keys.requests().filter((r) => r.status === 'pending')) out(`${r.id}\tpending\t${r.created}\t${r.label}\t${r.contact}`);
      return 0;
    }
    case 'usage': {
      const quota = new QuotaStore(dir, { readOnly: true });
      const month = monthOf(Date.now());
      for (const k of keys.keys().filter((k) => !arg || k.id === arg)) {
        const used = quota.used(k.id);
        const last = quota.lastUsed(k.id);
        out(`${k.id}\t${month}\t${used}/${PLANS[k.plan].monthly}\tlast used ${last ? new Date(last * 1000).toISOString() : 'never'}`);
      }
      return 0;
    }
    default:
      out(USAGE);
      return cmd ? 2 : 0;
  }
}

if (isMain(import.meta.url)) {
  try {
    process.exitCode = runKeys(process.argv.slice(2));
  } catch (err) {
    console.error(`keys: ${(err as Error).message}`);
    process.exitCode = 2;
  }
}
