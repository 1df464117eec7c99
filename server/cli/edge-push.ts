/**
 * The client side of the Worker's operator endpoints (edge/admin.ts) that the keys and
 * review commands need: with ALMANAC_EDGE_URL and ALMANAC_EDGE_TOKEN set, every change
 * they make is pushed to the edge before they return, so a revoke applies there from the
 * next request. edge/publish.ts and edge/sync.ts use the same calls.
 *
 * Every call is retried (issue 39, item 1): a publish is thousands of calls, and one
 * dropped connection must not end it. Locally workerd closes an idle kept-alive
 * connection just as the client reuses it (ECONNRESET / EPIPE / "other side closed": 2–11
 * of 78 uploads per pass here, none without connection reuse); at Cloudflare a 5xx or a
 * 429 is answered now and then. Every operator endpoint is idempotent (a file, a part or a
 * pointer written again is the same), so a call is simply sent again after a backoff.
 *
 *   ALMANAC_EDGE_RETRIES      attempts per call (default 6)
 *   ALMANAC_EDGE_BACKOFF_MS   first wait, doubled each time, with jitter (default 250)
 */
import type { KeyDoc } from '../state/accounts.ts';
import { writeElsewhere, type ElsewhereFile } from '../state/elsewhere.ts';
import { KeyStore } from '../state/keys.ts';
import { monthOf } from '../state/plans.ts';

export interface EdgeTarget {
  /** The Worker's origin, e.g. https://api.example.com or http://127.0.0.1:8787. */
  url: string;
  /** Its ADMIN_TOKEN. */
  token: string;
  /** Told of every retry (the publish log counts them); default: silent. */
  onRetry?: (what: string) => void;
}

/** The edge the CLIs push to, when the environment names one. */
export function edgeTarget(env: NodeJS.ProcessEnv): EdgeTarget | undefined {
  const url = env.ALMANAC_EDGE_URL;
  const token = env.ALMANAC_EDGE_TOKEN;
  return url && token ? { url, token } : undefined;
}

/** A call that failed for good: `status` is the HTTP status when the edge answered (0: it never did). */
export class EdgeCallError extends Error {
  constructor(message: string, readonly status: number, readonly body = '') {
    super(message);
  }
}

const num = (v: string | undefined, d: number) => (v !== undefined && v !== '' && Number.isFinite(Number(v)) ? Number(v) : d);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sizeOf = (body: unknown) => (typeof body === 'string' ? Buffer.byteLength(body) : body instanceof Uint8Array ? body.byteLength : 0);

/** What went wrong with fetch(), with the network error's code rather than "fetch failed". */
function cause(err: unknown): string {
  const c = (err as { cause?: { code?: string; message?: string } }).cause;
  if ((err as Error).name === 'TimeoutError') return 'no answer in time';
  return c ? `${c.code ?? c.message}` : (err as Error).message;
}

/**
 * One operator call: the parsed JSON answer (undefined for an empty one). Retried with
 * exponential backoff (Retry-After honoured, up to 30 s) on a network error, a timeout, 408,
 * 429 and 5xx; any other status fails at once (a 4xx will not change on its own).
 */
export async function edgeCall(t: EdgeTarget, method: string, p: string, body?: string | Uint8Array, headers: Record<string, string> = {}): Promise<any> {
  const tries = Math.max(1, num(process.env.ALMANAC_EDGE_RETRIES, 6));
  const base = num(process.env.ALMANAC_EDGE_BACKOFF_MS, 250);
  // A minute, plus a second for every 256 KiB sent (a 16 MiB part on a slow uplink).
  const timeout = 60_000 + Math.ceil(sizeOf(body) / 262_144) * 1000;
  const url = `${t.url.replace(/\/+$/, '')}${p}`;
  for (let attempt = 1; ; attempt++) {
    let status = 0;
    let text = '';
    let why: string;
    let retryAfter = 0;
    try {
      const r = await fetch(url, { method, body: body as BodyInit | undefined, headers: { authorization: `Bearer ${t.token}`, ...headers }, signal: AbortSignal.timeout(timeout) });
      status = r.status;
      text = await r.text();
      if (r.ok) return text ? JSON.parse(text) : undefined;
      why = `HTTP ${status} ${text.slice(0, 300)}`;
      retryAfter = Number(r.headers.get('retry-after')) || 0;
    } catch (err) {
      if (status && err instanceof SyntaxError) throw new EdgeCallError(`${method} ${p}: the answer is not JSON: ${text.slice(0, 200)}`, status, text);
      why = cause(err);
    }
    const again = status === 0 || status === 408 || status === 429 || status >= 500;
    if (!again || attempt >= tries) {
      throw new EdgeCallError(`${method} ${p.split('?')[0]}: ${why}${attempt > 1 ? ` (after ${attempt} attempts)` : ''}`, status, text);
    }
    const wait = retryAfter > 0 ? Math.min(retryAfter * 1000, 30_000) : Math.min(base * 2 ** (attempt - 1), 30_000) * (0.5 + Math.random());
    t.onRetry?.(`${method} ${p.split('?')[0]}: ${why.slice(0, 120)}; attempt ${attempt + 1} of ${tries} in ${(wait / 1000).toFixed(1)} s`);
    await sleep(wait);
  }
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

/** Meters asked per call (the Worker's limit: edge/admin.ts SLICES_PER_CALL). */
const METERS_PER_CALL = 200;

/**
 * The edge meters' own counts of this month for every project of the state folder, into
 * <state folder>/edge/usage.json (state/elsewhere.ts): what `npm run keys -- usage` shows
 * beside the Node server's counts, and what a Node server on the same folder adds to its own.
 */
export async function pullUsage(t: EdgeTarget, dir: string, now = Date.now()): Promise<ElsewhereFile> {
  const doc = new KeyStore(dir, () => {}).doc();
  // A key's meter is its project's (edge/keys-doc.ts meterOfKey), else its own id.
  const meters = [...new Set(Object.values(doc.keys).map((k) => (k.project && doc.projects[k.project]?.meter) || k.id))];
  const month = monthOf(now);
  const out: ElsewhereFile = { month, at: now, meters: {} };
  for (let i = 0; i < meters.length; i += METERS_PER_CALL) {
    const batch = meters.slice(i, i + METERS_PER_CALL);
    Object.assign(out.meters, (await edgeCall(t, 'GET', `/_edge/usage?month=${month}&meters=${batch.map(encodeURIComponent).join(',')}`)).meters);
  }
  writeElsewhere(dir, out);
  return out;
}
