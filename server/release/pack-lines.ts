/**
 * The records of a release's packs, read by line (split out of release.ts, which owns the
 * manifest, the checked reads and the cache): one record, or a list page's run of lines,
 * is read alone at its offsets once its pack was checked, so single records do not load
 * whole packs into the cache. Whole packs are read and cached only where the reader cannot
 * scan (the Cloudflare Worker: a first read is one subrequest either way, and the pack
 * serves the next records of it), or when a pack is already held. `records` reads many at
 * once (a search page, a range of verses): one read per pack they are in; the Worker reads
 * the lines of a pack it read before and no longer holds as one range (issue 39, item 3). The cache, the verified signatures and the corrupt set are the release's
 * own, shared through PackFiles: nothing here keeps a second copy of them.
 */
import { PACK_SIZE, packOf, packPath } from '../../pipeline/paths.ts';
import type { DatasetInfo } from '../../pipeline/shards.ts';
import type { FileEntry } from '../../pipeline/writer.ts';
import type { ReleaseReader } from './reader.ts';

/** What the pack reads need of the release (release.ts): its reader, manifest, checked reads and shared cache. */
export interface PackFiles {
  reader: ReleaseReader;
  /** Prefix of the release's files in the reader. */
  base: string;
  datasets: Map<string, DatasetInfo>;
  entry(rel: string): FileEntry | undefined;
  /** A file's identity bytes, checked against the manifest (not cached). */
  read(rel: string): Promise<Buffer>;
  /** Through the release's LRU, loading once for concurrent requests. */
  cached<V>(key: string, load: () => Promise<[V, number]>): Promise<V>;
  /** What the release's LRU holds under `key` (marked recently used), without loading. */
  get(key: string): unknown;
  /** The release's files (by disk path) whose bytes matched, with the signature they had then. */
  verified: Map<string, string>;
  /** The release's files whose bytes did not match the manifest. */
  corrupt: Set<string>;
  /** Marks a file corrupt, reports it, and throws release_corrupt. */
  bad(rel: string, disk: string): never;
  /** The release_corrupt error for a file. */
  corruptError(rel: string): Error;
}

/** The longest run of lines `records` reads as one range rather than the whole pack. */
const RUN_BYTES = 256 * 1024;
/** On Node, lines of a pack at most this far apart are read as one range (`records`): bytes between them cost less than another read. */
const NEAR_BYTES = 16 * 1024;

/** Where each newline-ended line of `buf` starts, plus the offset after the last newline. */
export function lineStartsOf(buf: Buffer): Uint32Array {
  const starts: number[] = [0];
  for (let i = buf.indexOf(10); i !== -1; i = buf.indexOf(10, i + 1)) starts.push(i + 1);
  return Uint32Array.from(starts);
}

export class PackLines {
  constructor(private readonly r: PackFiles) {}

  /** The record lines of one pack, each a complete JSON object, cached (where the reader cannot scan, or a changed pack is read again whole). */
  private pack(ds: string, n: number): Promise<Buffer[]> {
    // Read past the file cache: the lines hold the pack's buffer, counted once here
    // (through file() each pack was counted twice, and aviation's 134 packs filled the cache).
    return this.r.cached(`p:${ds}/${n}`, async () => {
      const rel = packPath(ds, n);
      const buf = await this.r.read(rel);
      const starts = lineStartsOf(buf);
      this.lineStarts.set(rel, starts);
      const lines: Buffer[] = new Array(starts.length - 1);
      for (let k = 0; k + 1 < starts.length; k++) lines[k] = buf.subarray(starts[k], starts[k + 1] - 1);
      return [lines, buf.length + lines.length * 16];
    });
  }

  /**
   * Where each line of a pack read once starts (4 bytes a line), so that one record is
   * read alone: a search answer's 20 records from anywhere in a large dataset read 20
   * lines, not 20 packs of ~1 MB, and do not push the search index parts out of the cache
   * (issue 14: aviation's answers took 20–70 ms, most of it reloading the parts its own
   * pack reads had evicted).
   */
  private readonly lineStarts = new Map<string, Uint32Array>();

  /**
   * One record by ordinal: from its pack if cached; else, when the reader can scan, read
   * alone (its pack read and checked once, not cached, then single lines at their
   * offsets); else through its whole pack.
   */
  async record(ds: string, ordinal: number): Promise<Buffer> {
    const size = this.packSize(ds);
    const n = packOf(ordinal, size);
    const i = ordinal % size;
    const cached = this.r.get(`p:${ds}/${n}`) as Buffer[] | undefined;
    if (cached) return this.own(cached[i]);
    if (!this.r.reader.scan) return this.own((await this.pack(ds, n))[i]);
    const rel = packPath(ds, n);
    const known = this.lineStarts.get(rel);
    if (known && i + 1 < known.length) {
      const line = await this.readLine(rel, known[i], known[i + 1] - 1);
      if (line) return line;
    }
    const starts = await this.scanPack(rel);
    if (i + 1 >= starts.length) throw new Error(`${rel} has no record ${i}`);
    const line = await this.readLine(rel, starts[i], starts[i + 1] - 1);
    if (!line) throw this.r.corruptError(rel); // changed between the scan and the read
    return line;
  }

  /** Scans under way, so concurrent reads of one pack's records check it once. */
  private readonly scanning = new Map<string, Promise<Uint32Array>>();

  /** Checks a pack against its sha256 and finds its line starts, without holding its bytes. */
  private scanPack(rel: string): Promise<Uint32Array> {
    let p = this.scanning.get(rel);
    if (!p) {
      p = (this.scanOnce(rel) as Promise<Uint32Array>).finally(() => this.scanning.delete(rel));
      this.scanning.set(rel, p);
    }
    return p;
  }

  private async scanOnce(rel: string, between?: () => Promise<void>): Promise<Uint32Array | undefined> {
    const e = this.r.entry(rel);
    if (!e) throw new Error(`not in manifest: ${rel}`); // as readChecked: never a path the manifest does not list
    if (this.r.corrupt.has(rel)) throw this.r.corruptError(rel);
    const scan = await this.r.reader.scan!(this.r.base + rel, between);
    if (!scan.sig) return undefined; // changed while checked in the background: left to its first read
    if (scan.size !== e.size || scan.sha256 !== e.sha256) this.r.bad(rel, rel);
    this.r.verified.set(rel, scan.sig);
    this.lineStarts.set(rel, scan.starts);
    return scan.starts;
  }

  /**
   * A pack checked in the background (release/background-check.ts) as its first read
   * checks it, recording what that read records, so that read neither hashes nor scans it.
   * False when it was read before, or changed while checked; a mismatch throws as there.
   * Not shared with a request's scan of the pack (`scanning`): a request never waits for
   * a background turn.
   */
  async checkInBackground(rel: string, between: () => Promise<void>): Promise<boolean> {
    if (!this.r.reader.scan || this.r.corrupt.has(rel) || (this.lineStarts.has(rel) && this.r.verified.has(rel))) return false;
    return (await this.scanOnce(rel, between)) !== undefined;
  }

  /**
   * Bytes [from, to) of a file verified before, or undefined (the caller reads and checks
   * the whole file) when it changed since: no line of a changed file is served unchecked.
   */
  private async readLine(rel: string, from: number, to: number): Promise<Buffer | undefined> {
    if (this.r.corrupt.has(rel)) throw this.r.corruptError(rel);
    const sig = this.r.verified.get(rel);
    return sig === undefined ? undefined : this.r.reader.range(this.r.base + rel, from, to, sig);
  }

  /**
   * Records by ordinal, many at once (a search page, a range of verses). Where the reader
   * can scan (Node), each as `record` reads it. Else (the Worker) grouped by pack, one
   * subrequest per pack at most: a pack held gives its lines; the lines of a pack read
   * before (its line starts known) and no longer held are read as one range when they lie
   * within RUN_BYTES of each other; any other pack is read whole (and held).
   */
  async records(ds: string, ordinals: number[]): Promise<Buffer[]> {
    if (this.r.reader.scan) return this.nearLines(ds, ordinals);
    const size = this.packSize(ds);
    const byPack = new Map<number, number[]>();
    ordinals.forEach((o, k) => {
      const n = packOf(o, size);
      (byPack.get(n) ?? byPack.set(n, []).get(n)!).push(k);
    });
    const out: Buffer[] = new Array(ordinals.length);
    await Promise.all([...byPack].map(async ([n, ks]) => {
      const rel = packPath(ds, n);
      const starts = this.r.get(`p:${ds}/${n}`) ? undefined : this.lineStarts.get(rel);
      const lines = ks.map((k) => ordinals[k] % size);
      const [lo, hi] = [Math.min(...lines), Math.max(...lines)];
      if (starts && hi + 1 < starts.length && starts[hi + 1] - starts[lo] <= RUN_BYTES) {
        const run = await this.readLine(rel, starts[lo], starts[hi + 1] - 1);
        if (run) {
          ks.forEach((k, j) => (out[k] = run.subarray(starts[lines[j]] - starts[lo], starts[lines[j] + 1] - 1 - starts[lo])));
          return;
        }
      }
      const whole = this.r.get(`p:${ds}/${n}`) as Buffer[] | undefined ?? await this.pack(ds, n);
      ks.forEach((k, j) => (out[k] = this.own(whole[lines[j]])));
    }));
    return out;
  }

  /**
   * `records` where the reader can scan (Node): the lines of a pack already scanned that
   * lie within NEAR_BYTES of each other are read as one range (each line copied out of
   * it), any other as `record` reads it. A v1 search's phrase window read its 200 texts
   * with an open, a signature check, a read and a close each: 2.5–7 ms of a two-word
   * translation search (issue 41, item 4).
   */
  private async nearLines(ds: string, ordinals: number[]): Promise<Buffer[]> {
    const size = this.packSize(ds);
    const out: Buffer[] = new Array(ordinals.length);
    const byPack = new Map<number, number[]>();
    ordinals.forEach((o, k) => {
      const n = packOf(o, size);
      (byPack.get(n) ?? byPack.set(n, []).get(n)!).push(k);
    });
    const alone = (ks: number[]) => Promise.all(ks.map(async (k) => void (out[k] = await this.record(ds, ordinals[k]))));
    await Promise.all([...byPack].map(async ([n, ks]) => {
      const rel = packPath(ds, n);
      const starts = this.r.get(`p:${ds}/${n}`) ? undefined : this.lineStarts.get(rel);
      const line = (k: number) => ordinals[k] % size;
      if (!starts || ks.length < 2 || ks.some((k) => line(k) + 1 >= starts.length)) return alone(ks);
      const sorted = [...ks].sort((a, b) => line(a) - line(b));
      const runs: number[][] = [];
      for (const k of sorted) {
        const run = runs.at(-1);
        const last = run && line(run[run.length - 1]);
        if (run && starts[line(k)] - starts[last! + 1] <= NEAR_BYTES && starts[line(k) + 1] - starts[line(run[0])] <= RUN_BYTES) run.push(k);
        else runs.push([k]);
      }
      await Promise.all(runs.map(async (run) => {
        if (run.length === 1) return alone(run);
        const from = starts[line(run[0])];
        const bytes = await this.readLine(rel, from, starts[line(run[run.length - 1]) + 1] - 1);
        if (!bytes) return alone(run); // changed since its scan: each line as record reads it (checked again)
        for (const k of run) out[k] = Buffer.from(bytes.subarray(starts[line(k)] - from, starts[line(k) + 1] - 1 - from));
      }));
    }));
    return out;
  }

  /**
   * Records [offset, offset+limit) in list order: at most two packs for a page. As a single
   * record is (`record`), a page's run of lines is read alone when the reader can scan, and
   * its pack is not cached: list pages over many datasets would otherwise keep whole packs
   * (~1 MB for 20 records) and push the key buckets out (issue 27, RSS).
   */
  async slice(ds: string, offset: number, limit: number): Promise<Buffer[]> {
    const info = this.r.datasets.get(ds)!;
    const end = Math.min(info.records, offset + limit);
    const out: Buffer[] = [];
    const size = this.packSize(ds);
    for (let o = offset; o < end;) {
      const n = packOf(o, size);
      const upto = Math.min(end, (n + 1) * size);
      out.push(...await this.packRun(ds, n, o % size, upto - n * size));
      o = upto;
    }
    return out;
  }

  /** Lines [from, to) of a pack: from the cache, else read as one range when the reader can scan, else through the pack. */
  private async packRun(ds: string, n: number, from: number, to: number): Promise<Buffer[]> {
    const cached = this.r.get(`p:${ds}/${n}`) as Buffer[] | undefined;
    const rel = packPath(ds, n);
    if (!cached && (this.r.reader.scan || this.lineStarts.has(rel))) {
      const starts = this.lineStarts.get(rel) ?? await this.scanPack(rel);
      if (to >= starts.length) throw new Error(`${rel} has no record ${to - 1}`);
      const run = await this.readLine(rel, starts[from], starts[to] - 1);
      if (run) {
        const lines: Buffer[] = new Array(to - from);
        for (let k = from; k < to; k++) lines[k - from] = run.subarray(starts[k] - starts[from], starts[k + 1] - 1 - starts[from]);
        return lines;
      }
    }
    return (cached ?? await this.pack(ds, n)).slice(from, to).map((l) => this.own(l));
  }

  /**
   * A line of a whole pack, as the caller may keep it. Where whole packs are read (the
   * Worker), a copy: a view would keep its pack's buffer alive as long as the answer is
   * being composed, cache or no cache (issue 39, item 3: a page of 100 search hits held
   * 100 packs, 113 MiB of array buffers). Node's lines are read alone: kept as they are.
   */
  private own(line: Buffer): Buffer {
    return this.r.reader.scan ? line : Buffer.from(line);
  }

  /** Records per pack of a dataset (its manifest's pack_size; releases have always written it). */
  private packSize(ds: string): number {
    return this.r.datasets.get(ds)?.pack_size ?? PACK_SIZE;
  }
}
