/**
 * What one request of the Worker did, kept for its duration (AsyncLocalStorage, which
 * workerd gives with nodejs_compat): the Cache API misses it took (worker.ts lets go of
 * those it did not fill), and its subrequests — every R2 read, KV read, Durable Object
 * call and Cache API call, each of which counts against a request's 50 on Cloudflare's
 * free plan (1,000 on paid; issue 39, item 3). With EXPOSE_COUNTS=1 (local benches only)
 * the answer says how many, and how many bytes it read from R2.
 *
 * Per request, not per isolate: workerd cancels the continuation of a request that
 * awaits a promise another request made, once that one ends or is cancelled (a queue of
 * reads shared by the isolate hung every request after a client went away: "the Worker's
 * code had hung"). Nothing here is awaited across requests.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface RequestContext {
  misses: string[];
  subrequests: number;
  r2Bytes: number;
  /** R2 gets of this request under way, and those waiting for one of them to end (r2-reader.ts). */
  reading: number;
  waiting: (() => void)[];
}

export const newContext = (): RequestContext => ({ misses: [], subrequests: 0, r2Bytes: 0, reading: 0, waiting: [] });

export const requestContext = new AsyncLocalStorage<RequestContext>();

/** One subrequest of the request running now (none outside a request: the operator's endpoints count nothing). */
export function subrequest(r2Bytes = 0) {
  const c = requestContext.getStore();
  if (c) {
    c.subrequests++;
    c.r2Bytes += r2Bytes;
  }
}
