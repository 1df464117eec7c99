/**
 * The client side of the Worker's operator endpoints (edge/admin.ts) that the keys and
 * review commands need: with ALMANAC_EDGE_URL and ALMANAC_EDGE_TOKEN set, every change
 * they make is pushed to the edge before they return, so a revoke applies there from the
 * next request. edge/publish.ts and edge/sync.ts use the same calls.
 */
import type { KeyDoc } from '../state/accounts.ts';

export interface EdgeTarget {
  /** The Worker's origin, e.g. https://api.example.com or http://127.0.0.1:8787. */
  url: string;
  /** Its ADMIN_TOKEN. */
  token: string;
}

/** The edge the CLIs push to, when the environment names one. */
export function edgeTarget(env: NodeJS.ProcessEnv): EdgeTarget | undefined {
  const url = env.ALMANAC_EDGE_URL;
  const token = env.ALMANAC_EDGE_TOKEN;
  return url && token ? { url, token } : undefined;
}

export async function edgeCall(t: EdgeTarget, method: string, p: string, body?: BodyInit, headers: Record<string, string> = {}): Promise<any> {
  const r = await fetch(`${t.url.replace(/\/+$/, '')}${p}`, { method, body, headers: { authorization: `Bearer ${t.token}`, ...headers }, duplex: 'half' } as RequestInit);
  const text = await r.text();
  if (!r.ok) throw new Error(`${method} ${p}: HTTP ${r.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

/** The keys document to the edge: changed project slices to their meters, then the key index (repeated until done). */
export async function pushKeys(t: EdgeTarget, doc: KeyDoc): Promise<{ pushed: number; keys: number }> {
  let pushed = 0;
  for (;;) {
    const r = await edgeCall(t, 'POST', '/_edge/keys', JSON.stringify(doc), { 'content-type': 'application/json' });
    pushed += r.pushed;
    if (!r.remaining) return { pushed, keys: r.keys };
  }
}

/** The reviews document (reviews.json's text) to the edge. */
export async function pushReviews(t: EdgeTarget, text: string): Promise<number> {
  return (await edgeCall(t, 'POST', '/_edge/reviews', text, { 'content-type': 'application/json' })).reviews;
}
