/**
 * The Worker's release reader (server/release/reader.ts) over an R2 bucket laid out as
 * dist/ is. R2 checked every file against the manifest's sha256 when it was published
 * (edge/admin.ts puts with `sha256`, which R2 refuses on a mismatch), so reads only check
 * sizes (Release does); an object's etag is its signature. Every get is counted: the
 * operator endpoint /_edge/stats reports it, and the tests hold the Cache API to it.
 *
 * At most MAX_READING gets run at once per request (issue 39, item 3): a search page's
 * records from 100 packs of ~1 MB were all read at the same time, and the isolate held
 * 113 MiB of array buffers. Cloudflare opens at most 6 connections per request anyway.
 * (Per request: a queue shared by requests hangs them, request-context.ts says why.)
 */
import type { ReleaseReader } from '../server/release/reader.ts';
import type { R2Bucket } from './env.ts';
import { requestContext, subrequest } from './request-context.ts';

/** Gets in flight at once per request (Cloudflare's simultaneous connections); the others wait their turn. */
export const MAX_READING = 6;

/** Thrown for a file the bucket does not have (Release answers release_corrupt for a listed one). */
class NotFound extends Error {
  override name = 'NotFound';
}

export class R2Reader implements ReleaseReader {
  readonly verified = true;
  readonly isolated = true;
  /** Objects read from R2 since the isolate started (gets, whole or ranged). */
  reads = 0;
  /** Bytes read from R2 since the isolate started. */
  bytes = 0;
  constructor(private readonly bucket: R2Bucket, readonly where = 'R2 bucket RELEASES') {}

  /** One get, its body read whole, within the request's limit of gets at once. */
  private async get<T>(f: () => Promise<T>, size: (t: T) => number): Promise<T> {
    const c = requestContext.getStore() ?? { reading: 0, waiting: [] as (() => void)[] };
    // A slot is handed from a finished get to the next waiter, so never more than MAX_READING run.
    if (c.reading >= MAX_READING) await new Promise<void>((r) => c.waiting.push(r));
    else c.reading++;
    this.reads++;
    try {
      const t = await f();
      const n = size(t);
      this.bytes += n;
      subrequest(n);
      return t;
    } finally {
      const next = c.waiting.shift();
      if (next) next();
      else c.reading--;
    }
  }

  async text(path: string): Promise<string | undefined> {
    return this.get(async () => {
      const o = await this.bucket.get(path);
      return o ? o.text() : undefined;
    }, (t) => t?.length ?? 0);
  }

  async read(path: string) {
    return this.get(async () => {
      const o = await this.bucket.get(path);
      if (!o) throw new NotFound(`${path} is not in ${this.where}`);
      return { bytes: Buffer.from(await o.arrayBuffer()), sig: o.etag };
    }, (r) => r.bytes.length);
  }

  async range(path: string, from: number, to: number, sig: string) {
    return this.get(async () => {
      const o = await this.bucket.get(path, { range: { offset: from, length: to - from }, onlyIf: { etagMatches: sig } });
      if (!o || !('arrayBuffer' in o)) return undefined;
      const b = Buffer.from(await o.arrayBuffer());
      return b.length === to - from ? b : undefined;
    }, (b) => b?.length ?? 0);
  }

  async slice(path: string, from: number, to: number) {
    return this.get(async () => {
      const o = await this.bucket.get(path, { range: { offset: from, length: to - from } });
      if (!o) throw new NotFound(`${path} is not in ${this.where}`);
      return { bytes: Buffer.from(await o.arrayBuffer()), size: o.size, sig: o.etag };
    }, (r) => r.bytes.length);
  }

  async stream(path: string, start: number, end: number) {
    // A download's body streams to the client: not held, so not within the limit.
    this.reads++;
    subrequest();
    const o = await this.bucket.get(path, { range: { offset: start, length: end - start + 1 } });
    if (!o) throw new NotFound(`${path} is not in ${this.where}`);
    return o.body;
  }
}
