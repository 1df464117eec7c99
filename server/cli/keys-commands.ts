/**
 * The commands of `npm run keys -- <command>` (server/cli/keys.ts is the entry): keys, the request queue, accounts, projects, subscriptions
 * and exceptions in ALMANAC_STATE_DIR (README "Keys" and "Accounts, projects and
 * subscriptions"). Every change is one atomic transition of keys.json written to the
 * audit log with `--by` or the OS user. A new key is printed alone on the last line of
 * stdout, so scripts can take `tail -1`; it is never printed again.
 */
import { parseArgs } from 'node:util';
import { parseOrUsage, wantsHelp } from '../../pipeline/cli.ts';
import { stateDir } from '../../pipeline/paths.ts';
import { accountCommands, ACCOUNT_USAGE, type CliContext } from './keys-accounts.ts';
import { accessOf } from '../state/accounts.ts';
import { KeyStore } from '../state/keys.ts';
import { PLANS, isPlan, monthOf } from '../state/plans.ts';
import { QuotaStore } from '../state/quota.ts';
import { readElsewhere } from '../state/elsewhere.ts';
import * as T from '../state/transitions.ts';

const USAGE = `usage: npm run keys -- <command> [--by name]
  create --plan <${Object.keys(PLANS).join('|')}> [--label text]   a key in an account and project of its own (printed on the last line)
  request --project name [--account name] [--contact text] [--use text]   enter the approval queue (prints a request id; --label = --project)
  approve <request-id> (--plan <plan> | --exception --reason text [--ends time] [--limits plan]) [--account acc_…]
                                                         approve: account, project, subscription or exception, and the key (printed)
  reject <request-id> --reason text                      reject a request
  request-status <request-id>                            the state of a request (what a requester may be told)
  revoke <key-id|key>                                    deactivate a key
  reactivate <key-id|key>                                activate a revoked key (if its project has no other working key)
  list [--account acc_…]                                 keys and pending requests (never the secrets)
  usage [key-id]                                         requests counted this month (the Node server's and the edge's)
${ACCOUNT_USAGE}`;

/** `store`: a KeyStore over a document held elsewhere (ALMANAC_REDIS_URL: server/redis-cli.ts). */
export function runKeys(argv: string[], env: NodeJS.ProcessEnv = process.env, out = console.log, store?: KeyStore, counts?: Pick<QuotaStore, 'used' | 'lastUsed'>): number {
  if (wantsHelp(argv)) {
    out(USAGE);
    return 0;
  }
  const { values, positionals } = parseOrUsage(USAGE, () => parseArgs({
    args: argv, allowPositionals: true,
    options: {
      plan: { type: 'string' }, label: { type: 'string' }, contact: { type: 'string' }, by: { type: 'string' },
      account: { type: 'string' }, project: { type: 'string' }, name: { type: 'string' }, use: { type: 'string' },
      reason: { type: 'string' }, ends: { type: 'string' }, limits: { type: 'string' }, grace: { type: 'string' },
      exception: { type: 'boolean' }, now: { type: 'boolean' },
    },
  }));
  const [cmd, arg] = positionals;
  const dir = stateDir(env);
  const keys = store ?? new KeyStore(dir);
  if (values.by) keys.actor = values.by;
  const needPlan = () => {
    if (!isPlan(values.plan)) throw new Error(`--plan must be one of ${Object.keys(PLANS).join(', ')}`);
    return values.plan;
  };
  const ctx: CliContext = { keys, values, positionals, out };
  switch (cmd) {
    case 'create': {
      const { secret, record } = keys.create(needPlan(), values.label ?? '');
      out(`created ${record.id} (plan ${record.plan}, ${PLANS[record.plan].monthly} requests/month) in account ${record.account}, project ${record.project}`);
      out(secret);
      return 0;
    }
    case 'request': {
      const label = values.project ?? values.label;
      if (!label) throw new Error('--project (or --label) is required');
      const req = keys.request(label, values.contact ?? '', { account_name: values.account, use: values.use });
      out(`request ${req.id} is pending approval`);
      out(req.id);
      return 0;
    }
    case 'approve': {
      if (!arg) throw new Error('approve needs a request id');
      const exception = values.exception ? { reason: values.reason ?? '', ends_at: values.ends, limits: values.limits as never } : undefined;
      const { secret, record } = keys.approve(arg, exception ?? needPlan(), values.account);
      out(`approved ${arg}: key ${record.id} (${exception ? 'exception' : `plan ${values.plan}`}) in account ${record.account}, project ${record.project}`);
      out(secret);
      return 0;
    }
    case 'reject': {
      if (!arg) throw new Error('reject needs a request id');
      const req = keys.run((doc, tx) => T.reject(doc, tx, { request: arg, reason: values.reason ?? '' }));
      out(`${req.id} is rejected: ${req.reason}`);
      return 0;
    }
    case 'request-status': {
      const req = arg && keys.doc().requests[arg];
      if (!req) throw new Error(`no request '${(arg ?? '').slice(0, 40)}'`);
      const decided = req.status === 'approved'
        ? ` on ${req.decided ?? '?'}: key ${req.key_id} in account ${req.account}, project ${req.project} (${req.exception ? `exception ${req.exception}` : `plan ${req.plan}`})`
        : req.status === 'rejected' ? ` on ${req.decided}: ${req.reason}` : ` since ${req.created}`;
      out(`${req.id}\t${req.status}${decided}`);
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
      const doc = keys.doc();
      const now = keys.now();
      for (const k of Object.values(doc.keys).filter((k) => !values.account || k.account === values.account)) {
        const a = accessOf(doc, k, now);
        const state = a.ok ? (k.revoke_at ? `active until ${k.revoke_at}` : 'active') : a.reason === 'revoked' ? 'revoked' : 'inactive';
        out(`${k.id}\t${a.ok ? a.tier : k.plan}\t${state}\t${k.created}\t${k.label}\t${k.account}\t${k.project}`);
      }
      for (const r of Object.values(doc.requests).filter((r) => r.status === 'pending' && !values.account)) out(`${r.id}\tpending\t${r.created}\t${r.label}\t${r.contact}`);
      return 0;
    }
    case 'usage': {
      // With Redis the counts are Redis's, read beforehand (redis-cli.ts).
      const quota = counts ?? new QuotaStore(dir, { readOnly: true });
      const month = monthOf(Date.now());
      const doc = keys.doc();
      // What the edge counted for the same keys (state/elsewhere.ts): the quota is the sum.
      const edge = readElsewhere(dir);
      const edgeNow = edge?.month === month ? edge : undefined;
      for (const k of Object.values(doc.keys).filter((k) => !arg || k.id === arg)) {
        const a = accessOf(doc, k, keys.now());
        const meter = (k.project && doc.projects[k.project]?.meter) || k.id;
        const here = quota.used(meter);
        const there = edgeNow?.meters[meter];
        const last = Math.max(quota.lastUsed(meter) ?? 0, there?.last_used ?? 0);
        const plan = a.ok ? a.plan : k.plan;
        const split = edgeNow ? `\t(node ${here}, edge ${there?.used ?? 0} as of ${new Date(edgeNow.at).toISOString()})` : '';
        out(`${k.id}\t${month}\t${here + (there?.used ?? 0)}/${PLANS[plan].monthly}\tlast used ${last ? new Date(last * 1000).toISOString() : 'never'}\t${k.account}\t${k.project}${split}`);
      }
      return 0;
    }
    default:
      if (accountCommands[cmd]) return accountCommands[cmd](ctx);
      out(USAGE);
      return cmd ? 2 : 0;
  }
}

