/**
 * The fetch step's HTTP requests (issue 29): each with its own timeout, retried with
 * backoff when the connection fails or the server answers 429 or 5xx (a night's job should
 * not lose a dataset to one dropped connection), honouring Retry-After up to 30 s, and
 * cut short by the source's deadline (a signal covering every request of one source).
 *
 *   ALMANAC_FETCH_RETRIES      attempts per request (default 3)
 *   ALMANAC_FETCH_BACKOFF_MS   first wait; each next one is 4 times longer (default 1000)
 *   ALMANAC_FETCH_TIMEOUT_S    one attempt, until its whole body is read (default 60)
 *
 * So an upstream that hangs costs at most RETRIES × TIMEOUT plus the two waits (185 s by
 * default), then the request fails. The timeout is a timer this module owns and holds
 * until the attempt ends (issue 40, item 1): an `AbortSignal.timeout` combined with the
 * deadline through `AbortSignal.any` is held only weakly in Node 20, was collected before
 * it fired, and a hanging upstream then held the fetch for ~426 s.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export const USER_AGENT = 'almanac-data-build/0.1 (reference-data pipeline; contact: see README)';

export interface GetOptions {
  env?: NodeJS.ProcessEnv;
  /** The source's deadline: aborts the request and any wait before a retry. */
  signal?: AbortSignal;
}

/** fetch(), with the network error's code (ENOTFOUND, ECONNREFUSED…) in the message rather than "fetch failed". */
export async function fetchWithCause(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw Object.assign(new Error(`${(err as Error).message}${cause ? ` (${cause.code ?? cause.message})` : ''}: ${new URL(url).host}`), { code: cause?.code });
  }
}

const num = (v: string | undefined, d: number) => (v !== undefined && Number.isFinite(Number(v)) ? Number(v) : d);

function sleep(ms: number, signal?: AbortSignal) {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(deadline());
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(t);
      reject(deadline());
    };
    signal?.addEventListener('abort', stop, { once: true });
  });
}

const deadline = () => new Error("the source's fetch deadline passed");

/**
 * Network errors not worth a second try: no such host, nobody listening, a bad
 * certificate. Without them an offline machine (`npm start` with no network) would wait
 * out every backoff of every input.
 */
const PERMANENT = new Set(['ENOTFOUND', 'ECONNREFUSED', 'CERT_HAS_EXPIRED', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'ERR_TLS_CERT_ALTNAME_INVALID']);

/** Errors that say the host cannot be reached at all (no network, no DNS, nobody there). */
const UNREACHABLE = new Set(['ENOTFOUND', 'EAI_AGAIN', 'ECONNREFUSED', 'ENETUNREACH', 'EHOSTUNREACH']);

/**
 * Hosts found unreachable during one fetch run (fetchAll runs inside `unreachableHosts.run`):
 * the next URL of such a host fails at once with the same reason, so a machine without
 * network gives up in seconds (one try per host), not minutes (one per file: 720 inputs).
 */
export const unreachableHosts = new AsyncLocalStorage<Map<string, string>>();
export const isUnreachable = (reason: string) => /\((ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ENETUNREACH|EHOSTUNREACH)\)/.test(reason);

/** What an answered request gives: its status, headers and whole body (read within the attempt's timeout). */
export interface Got {
  status: number;
  ok: boolean;
  headers: Headers;
  body: Buffer;
}

/** A response that is not retried (any status but 429 and 5xx), after at most N attempts. */
export async function getWithRetries(url: string, init: RequestInit, o: GetOptions = {}): Promise<Got> {
  const memo = unreachableHosts.getStore();
  const host = new URL(url).host;
  const known = memo?.get(host);
  if (known) throw new Error(known);
  try {
    return await attempts(url, init, o);
  } catch (err) {
    const code = (err as { code?: string }).code ?? '';
    if (memo && UNREACHABLE.has(code)) memo.set(host, (err as Error).message);
    throw err;
  }
}

/**
 * One attempt, headers and body, under its own timer. The source's deadline aborts it too
 * (and is told apart: the caller sees the deadline, not a timeout to retry).
 */
async function attempt(url: string, init: RequestInit, timeoutMs: number, deadlineSignal?: AbortSignal): Promise<Got> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(Object.assign(new Error(`no answer within ${timeoutMs / 1000} s (ALMANAC_FETCH_TIMEOUT_S)`), { code: 'ETIMEDOUT' })), timeoutMs);
  const onDeadline = () => ac.abort(deadline());
  deadlineSignal?.addEventListener('abort', onDeadline, { once: true });
  try {
    const res = await fetchWithCause(url, { ...init, signal: ac.signal });
    let body: Buffer;
    try {
      body = Buffer.from(await res.arrayBuffer());
    } catch (err) {
      // The body cut by the timer or the deadline: say which, as for the headers.
      throw ac.signal.aborted ? ac.signal.reason : err;
    }
    return { status: res.status, ok: res.ok, headers: res.headers, body };
  } catch (err) {
    if (ac.signal.aborted && (ac.signal.reason as { code?: string })?.code === 'ETIMEDOUT') {
      throw Object.assign(new Error(`${(ac.signal.reason as Error).message}: ${new URL(url).host}`), { code: 'ETIMEDOUT' });
    }
    throw err;
  } finally {
    clearTimeout(timer);
    deadlineSignal?.removeEventListener('abort', onDeadline);
  }
}

async function attempts(url: string, init: RequestInit, o: GetOptions): Promise<Got> {
  const env = o.env ?? process.env;
  const tries = Math.max(1, num(env.ALMANAC_FETCH_RETRIES, 3));
  const base = num(env.ALMANAC_FETCH_BACKOFF_MS, 1000);
  const timeout = num(env.ALMANAC_FETCH_TIMEOUT_S, 60) * 1000;
  for (let n = 1; ; n++) {
    if (o.signal?.aborted) throw deadline();
    let res: Got | undefined;
    let error: Error | undefined;
    try {
      res = await attempt(url, init, timeout, o.signal);
    } catch (err) {
      if (o.signal?.aborted) throw deadline();
      error = err as Error;
      if (PERMANENT.has((err as { code?: string }).code ?? '')) throw error;
    }
    const again = error !== undefined || res!.status === 429 || res!.status >= 500;
    if (!again || n >= tries) {
      if (error) throw Object.assign(new Error(`${error.message} (after ${n} attempt${n > 1 ? 's' : ''})`), { code: (error as { code?: string }).code });
      return res!;
    }
    const after = Number(res?.headers.get('retry-after'));
    await sleep(after > 0 ? Math.min(after * 1000, 30_000) : base * 4 ** (n - 1), o.signal);
  }
}
