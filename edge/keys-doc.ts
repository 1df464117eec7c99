/**
 * How the keys document (server/state/accounts.ts, written by `npm run keys`) is laid out
 * at the edge, so that a key is checked without any key in clear and a revoke applies
 * from the next request:
 *
 * - the key index (KV `keys/index`): key sha256 → the key's record and its project's meter,
 *   read by every isolate (cached a few seconds) to learn who a presented key is;
 * - one slice per project (its Durable Object, edge/meter.ts): the project's keys, its
 *   account, subscriptions and exceptions — everything `accessOf` reads for a key of that
 *   project — so the meter decides access (revoked? subscribed?) and counts in one step.
 *
 * The sync (edge/admin.ts `/_edge/keys`) writes the changed slices first, then the index.
 */
import { createHash } from 'node:crypto';
import { emptyDoc, type KeyDoc, type KeyRecord } from '../server/state/accounts.ts';

/** A key as the edge knows it from the index: its record (hash only) and the meter its usage counts under. */
export type IndexEntry = KeyRecord & { meter: string };

/** The meter of a key: its project's (the project's first key), else its own id. */
export const meterOfKey = (doc: KeyDoc, k: KeyRecord) => (k.project && doc.projects[k.project]?.meter) || k.id;

export function keyIndex(doc: KeyDoc): Record<string, IndexEntry> {
  const out: Record<string, IndexEntry> = {};
  for (const k of Object.values(doc.keys)) out[k.hash] = { ...k, meter: meterOfKey(doc, k) };
  return out;
}

/** Every meter's slice of the document: what accessOf needs for that project's keys, and nothing of other projects. */
export function slices(doc: KeyDoc): Map<string, KeyDoc> {
  const out = new Map<string, KeyDoc>();
  for (const k of Object.values(doc.keys)) {
    const meter = meterOfKey(doc, k);
    let s = out.get(meter);
    if (!s) {
      s = { ...emptyDoc(), rev: doc.rev };
      const p = k.project ? doc.projects[k.project] : undefined;
      if (p) {
        s.projects[p.id] = p;
        if (doc.accounts[p.account]) s.accounts[p.account] = doc.accounts[p.account];
        for (const sub of Object.values(doc.subscriptions)) if (sub.project === p.id) s.subscriptions[sub.id] = sub;
        for (const e of Object.values(doc.exceptions)) if (e.account === p.account) s.exceptions[e.id] = e;
      }
      out.set(meter, s);
    }
    s.keys[k.id] = k;
  }
  return out;
}

/** What a slice says, without its revision (which every transition bumps): a slice is pushed only when this changes. */
export function sliceHash(s: KeyDoc): string {
  const { rev: _rev, last_events: _e, ...rest } = s;
  return createHash('sha256').update(JSON.stringify(rest)).digest('hex').slice(0, 32);
}
