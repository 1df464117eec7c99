/**
 * `npm run edge:sync -- --url <worker URL>`: the keys document and the token reviews of
 * the state folder (what `npm run keys` and `npm run review` write) to the edge: each
 * project's changed slice to its meter, then the key index; the reviews to KV. The keys
 * CLI calls it after every change when ALMANAC_EDGE_URL and ALMANAC_EDGE_TOKEN are set,
 * and `npm run edge` whenever the files change, so the state folder stays the one source
 * of truth. `--usage` also carries this month's counts over (moving a deployment's usage).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseCli } from '../pipeline/cli.ts';
import { isMain } from '../pipeline/cli.ts';
import { stateDir } from '../pipeline/paths.ts';
import { KeyStore } from '../server/state/keys.ts';
import { monthOf } from '../server/state/plans.ts';
import { QuotaStore } from '../server/state/quota.ts';
import { edgeCall, pushKeys, pushReviews, type EdgeTarget } from '../server/cli/edge-push.ts';
import { meterOfKey } from './keys-doc.ts';

/** The state folder's keys document to the edge; returns the project slices pushed. */
export const syncKeys = (t: EdgeTarget, dir: string) => pushKeys(t, new KeyStore(dir, () => {}).doc());

/** The state folder's reviews to the edge. */
export function syncReviews(t: EdgeTarget, dir: string): Promise<number> {
  const file = path.join(dir, 'reviews.json');
  return pushReviews(t, existsSync(file) ? readFileSync(file, 'utf8') : JSON.stringify({ version: 1, reviews: {} }));
}

/** This month's count of every meter in the state folder's journal, to the meters. */
export async function syncUsage(t: EdgeTarget, dir: string, now = Date.now()): Promise<number> {
  const doc = new KeyStore(dir, () => {}).doc();
  const quota = new QuotaStore(dir, { readOnly: true, log: () => {} });
  const month = monthOf(now);
  const meters = new Set(Object.values(doc.keys).map((k) => meterOfKey(doc, k)));
  for (const meter of meters) {
    await edgeCall(t, 'POST', '/_edge/usage', JSON.stringify({ meter, month, used: quota.usedIn(meter, month), last_used: quota.lastUsed(meter) }), { 'content-type': 'application/json' });
  }
  return meters.size;
}

if (isMain(import.meta.url)) {
  const usage = 'usage: ALMANAC_EDGE_TOKEN=<the Worker\'s ADMIN_TOKEN> npm run edge:sync -- --url <worker URL> [--usage]';
  const { values } = parseCli('edge:sync', usage, { url: { type: 'string' }, usage: { type: 'boolean', default: false } });
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
    console.log(`synced ${k.keys} keys (${k.pushed} project slices changed), ${r} reviews${values.usage ? `, this month's usage of ${u} projects` : ''} to ${t.url}`);
  })().catch((err) => {
    console.error(`sync failed: ${err.message}`);
    process.exit(1);
  });
}
