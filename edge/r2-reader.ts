/**
 * The Worker's release reader (server/release/reader.ts) over an R2 bucket laid out as
 * dist/ is. R2 checked every file against the manifest's sha256 when it was published
 * (edge/admin.ts puts with `sha256`, which R2 refuses on a mismatch), so reads only check
 * sizes (Release does); an object's etag is its signature. Every get is counted: the
 * operator endpoint /_edge/stats reports it, and the tests hold the Cache API to it.
 */
import type { ReleaseReader } from '../server/release/reader.ts';
import type { R2Bucket } from './env.ts';

/** Thrown for a file the bucket does not have (Release answers release_corrupt for a listed one). */
class NotFound extends Error {
  override name = 'NotFound';
}

export class R2Reader implements ReleaseReader {
  readonly verified = true;
  /** Objects read from R2 since the isolate started (gets, whole or ranged). */
  reads = 0;
  constructor(private readonly bucket: R2Bucket, readonly where = 'R2 bucket RELEASES') {}

  async text(path: string): Promise<string | undefined> {
    this.reads++;
    const o = await this.bucket.get(path);
    return o ? o.text() : undefined;
  }

  async read(path: string) {
    this.reads++;
    const o = await this.bucket.get(path);
    if (!o) throw new NotFound(`${path} is not in ${this.where}`);
    return { bytes: Buffer.from(await o.arrayBuffer()), sig: o.etag };
  }

  async range(path: string, from: number, to: number, sig: string) {
    this.reads++;
    const o = await this.bucket.get(path, { range: { offset: from, length: to - from }, onlyIf: { etagMatches: sig } });
    if (!o || !('arrayBuffer' in o)) return undefined;
    const b = Buffer.from(await o.arrayBuffer());
    return b.length === to - from ? b : undefined;
  }

  async stream(path: string, start: number, end: number) {
    this.reads++;
    const o = await this.bucket.get(path, { range: { offset: start, length: end - start + 1 } });
    if (!o) throw new NotFound(`${path} is not in ${this.where}`);
    return o.body;
  }
}
