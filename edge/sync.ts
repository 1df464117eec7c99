/**
 * `npm run edge:sync -- --url <worker URL>`: the keys document and the token reviews of
 * the state folder (what `npm run keys` and `npm run review` write) to the edge: each
 * project's changed slice to its meter, then the key index; the reviews to KV. The keys
 * CLI calls it after every change when ALMANAC_EDGE_URL and ALMANAC_EDGE_TOKEN are set,
 * and `npm run edge` whenever the files change, so the state folder stays the one source
 * of truth. `--usage` also carries this month's counts over (moving a deployment's usage);
 * `--pull` exchanges the counts of a state folder served by both the Node server and the
 * edge (server/state/elsewhere.ts): the edge's pulled into the state folder, the Node
 * server's pushed to the meters, so each side checks a key's quota against the sum.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseCli } from '../pipeline/cli.ts';
import { isMain } from '../pipeline/cli.ts';
import { stateDir } from '../pipeline/paths.ts';
import { KeyStore } from '../server/state/keys.ts';
import { monthOf } from '../server/state/plans.ts';
import { QuotaStore } from '../server/state/quota.ts';
import { edgeCall, pullUsage, pushKeys, pushReviews, type EdgeTarget } from '../server/cli/edge-push.ts';

export { pullUsage };
import { SLICES_PER_CALL } from './admin.ts';
import { meterOfKey } from './keys-doc.ts';

/** The state folder's keys document to the edge; returns the project slices pushed. */
export const syncKeys = (t: EdgeTarget, dir: string) => pushKeys(t, new KeyStore(dir, () => {}).doc());

/** The state folder's reviews to the edge. */
export function syncReviews(t: EdgeTarget, dir: string): Promise<number> {
  const file = path.join(dir, 'reviews.json');
  return pushReviews(t, existsSync(file) ? readFileSync(file, 'utf8') : JSON.stringify({ version: 1, reviews: {} }));
}

const metersOf = (dir: string) => {
  const doc = new KeyStore(dir, () => {}).doc();
  return [...new Set(Object.values(doc.keys).map((k) => meterOfKey(doc, k)))];
};
const batches = <T>(xs: T[]) => Array.from({ length: Math.ceil(xs.length / SLICES_PER_CALL) }, (_, i) => xs.slice(i * SLICES_PER_CALL, (i + 1) * SLICES_PER_CALL));


/** This month's count of every meter in the state folder's journal, to the meters. */
export async function syncUsage(t: EdgeTarget, dir: string, now = Date.now()): Promise<number> {
  const quota = new QuotaStore(dir, { readOnly: true, log: () => {} });
  const month = monthOf(now);
  const meters = metersOf(dir);
  for (const meter of meters) {
    await edgeCall(t, 'POST', '/_edge/usage', JSON.stringify({ meter, month, used: quota.usedIn(meter, month), last_used: quota.lastUsed(meter) }), { 'content-type': 'application/json' });
  }
  return meters.length;
}

/**
 * The Node server's counts of this month (its journal, read-only) to the meters, only
 * those that changed since `sent` (kept by the caller between calls).
 */
export async function pushElsewhere(t: EdgeTarget, dir: string, sent = new Map<string, number>(), now = Date.now()): Promise<number> {
  const quota = new QuotaStore(dir, { readOnly: true, log: () => {} });
  const month = monthOf(now);
  const changed = metersOf(dir).map((m) => [m, quota.usedIn(m, month)] as const).filter(([m, n]) => sent.get(`${month} ${m}`) !== n && (n > 0 || sent.has(`${month} ${m}`)));
  for (const batch of batches(changed)) {
    await edgeCall(t, 'POST', '/_edge/usage', JSON.stringify({ month, elsewhere: Object.fromEntries(batch) }), { 'content-type': 'application/json' });
    for (const [m, n] of batch) sent.set(`${month} ${m}`, n);
  }
  return changed.length;
}

if (isMain(import.meta.url)) {
  const usage = 'usage: ALMANAC_EDGE_TOKEN=<the Worker\'s ADMIN_TOKEN> npm run edge:sync -- --url <worker URL> [--usage] [--pull]';
  const { values } = parseCli('edge:sync', usage, { url: { type: 'string' }, usage: { type: 'boolean', default: false }, pull: { type: 'boolean', default: false } });
  const token = process.env.ALMANAC_EDGE_TOKEN;
  if (!values.url || !token) {
    console.error(`edge:sync: ${!values.url ? '--url is required' : 'ALMANAC_EDGE_TOKEN is not set'}\n${usage}`);
    process.exit(2);
  }
  const t = { url: values.url, token };
  const dir = stateDir();
  (async () => {
    const k = await syncKeys(t, dir);
    const r = await syncReviews(t, dir);
    const u = values.usage ? await syncUsage(t, dir) : 0;
    const notes = [values.usage && `, this month's usage of ${u} projects`, values.pull && `; counts exchanged (${Object.keys((await pullUsage(t, dir)).meters).length} pulled, ${await pushElsewhere(t, dir)} pushed)`].filter(Boolean).join('');
    console.log(`synced ${k.keys} keys (${k.pushed} project slices changed), ${r} reviews${notes} to ${t.url}`);
  })().catch((err) => {
    console.error(`sync failed: ${err.message}`);
    process.exit(1);
  });
}
