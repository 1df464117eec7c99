/**
 * The fetch step's HTTP requests (issue 29): each with its own timeout, retried with
 * backoff when the connection fails or the server answers 429 or 5xx (a night's job should
 * not lose a dataset to one dropped connection), honouring Retry-After up to 30 s, and
 * cut short by the source's deadline (a signal covering every request of one source).
 *
 *   ALMANAC_FETCH_RETRIES      attempts per request (default 3)
 *   ALMANAC_FETCH_BACKOFF_MS   first wait; each next one is 4 times longer (default 1000)
 *   ALMANAC_FETCH_TIMEOUT_S    one request (default 60)
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

/** A response that is not retried (any status but 429 and 5xx), after at most N attempts. */
export async function getWithRetries(url: string, init: RequestInit, o: GetOptions = {}): Promise<Response> {
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

async function attempts(url: string, init: RequestInit, o: GetOptions): Promise<Response> {
  const env = o.env ?? process.env;
  const tries = Math.max(1, num(env.ALMANAC_FETCH_RETRIES, 3));
  const base = num(env.ALMANAC_FETCH_BACKOFF_MS, 1000);
  const timeout = num(env.ALMANAC_FETCH_TIMEOUT_S, 60) * 1000;
  for (let attempt = 1; ; attempt++) {
    if (o.signal?.aborted) throw deadline();
    const signal = o.signal ? AbortSignal.any([AbortSignal.timeout(timeout), o.signal]) : AbortSignal.timeout(timeout);
    let res: Response | undefined;
    let error: Error | undefined;
    try {
      res = await fetchWithCause(url, { ...init, signal });
    } catch (err) {
      if (o.signal?.aborted) throw deadline();
      error = err as Error;
      if (PERMANENT.has((err as { code?: string }).code ?? '')) throw error;
    }
    const again = error !== undefined || res!.status === 429 || res!.status >= 500;
    if (!again || attempt >= tries) {
      if (error) throw Object.assign(new Error(`${error.message} (after ${attempt} attempt${attempt > 1 ? 's' : ''})`), { code: (error as { code?: string }).code });
      return res!;
    }
    const after = Number(res?.headers.get('retry-after'));
    await res?.arrayBuffer().catch(() => undefined); // let the connection go back to the pool
    await sleep(after > 0 ? Math.min(after * 1000, 30_000) : base * 4 ** (attempt - 1), o.signal);
  }
}
