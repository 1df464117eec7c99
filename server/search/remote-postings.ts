/**
 * Binary search indexes read by ranges, where every read is a subrequest (the Worker:
 * each R2 get counts against a request's 50 on the free plan) and the whole file would
 * not stay in memory (issue 39, item 3: with every dataset searched in turn, the 32 MiB
 * isolate cache evicted aviation's 9 MB index, and each aviation search read it again).
 * As the Node server keeps postings on disk (binary-index.ts readAt), the Worker keeps
 * only the bytes before the postings (the term dictionary and the per-record tables: 30 of
 * the release's 60 MiB) and reads, before a query runs, the postings it can touch:
 *
 * - every term a word can match — itself, its prefix matches, its typo matches — starts
 *   with the word's first two letters (the typo rule, pipeline/search-parts.ts), and
 *   terms sort by prefix with their postings in the same order: one contiguous span per
 *   two-letter prefix (the largest: population's "co", 0.8 MB; most are a few KiB);
 * - the spans of a query's words (and their stems) are joined into at most MAX_READS
 *   ranges per index, the nearest first;
 * - the search then runs at once (not in slices: the spans are installed for its
 *   duration only); should it touch a byte not read (a word the prediction missed), it
 *   stops, that range is read, and it runs again; after MISS_RETRIES, the whole postings.
 *
 * So a search's reads are bounded by construction: per index at most 2 (header, then
 * the dictionary, once per isolate while cached) + MAX_READS (+ MISS_RETRIES).
 */
import type MiniSearch from 'minisearch';
import { binaryLayout, openBinaryIndex, prefixSpan } from './binary-index.ts';

/** Ranges of postings read per index and query, before a miss. */
export const MAX_READS = 4;
/** Runs again after a miss at most this often; then the whole postings are read. */
export const MISS_RETRIES = 2;
/** Index files up to this size are read whole (one read; their postings are small). */
export const WHOLE_BELOW = 512 * 1024;

type LoadOptions = Parameters<typeof openBinaryIndex>[1];
/** Bytes [from, to) of a file (absolute offsets), checked (release.ts readRange). */
export type ReadRange = (from: number, to: number) => Promise<Uint8Array>;

interface Span { from: number; to: number; bytes: Uint8Array }

/** What a remote index keeps: where its postings are, and the spans installed for the search running now. */
export class RemotePostings {
  window: Span[] | null = null;
  constructor(readonly postAt: number, readonly fileSize: number, readonly read: ReadRange) {}

  /** Postings bytes [from, to) (absolute): from the spans installed, else a PostingsMiss. */
  at(from: number, to: number): Uint8Array {
    for (const s of this.window ?? []) if (s.from <= from && to <= s.to) return s.bytes.subarray(from - s.from, to - s.from);
    throw new PostingsMiss(this, from, to);
  }
}

/** A search touched postings not read before it ran. */
export class PostingsMiss extends Error {
  constructor(readonly index: RemotePostings, readonly from: number, readonly to: number) {
    super('search postings not read before the search ran');
  }
}

const remote = new WeakMap<MiniSearch, RemotePostings>();
export const remoteOf = (ms: MiniSearch) => remote.get(ms);

/** A binary index opened from its header and dictionary only (2 reads; 1 when the header came with the first). */
export async function openRemoteIndex(size: number, options: LoadOptions, read: ReadRange): Promise<MiniSearch> {
  let head = await read(0, Math.min(size, 4096));
  let layout = binaryLayout(head);
  if ('needed' in layout) layout = binaryLayout((head = await read(0, layout.needed)));
  if ('needed' in layout) throw new Error('search index: its header is longer than it says');
  const { postAt, fileSize } = layout;
  const pre = postAt <= head.length ? head.subarray(0, postAt) : await read(0, postAt);
  const r = new RemotePostings(postAt, fileSize, read);
  // Not by blocks (binary-index.ts): a block would reach past the spans read for the query, a miss and a read more.
  const ms = openBinaryIndex(pre, options, (from, to) => r.at(from, to), fileSize, false);
  remote.set(ms, r);
  return ms;
}

/** The first two letters of a word (code points, as the typo rule counts them). */
const twoLetters = (w: string) => [...w].slice(0, 2).join('');

/** The absolute byte ranges of `ms`'s postings that `words` can touch, joined into at most MAX_READS. */
export function predictedRanges(ms: MiniSearch, r: RemotePostings, words: string[]): [number, number][] {
  const spans: [number, number][] = [];
  for (const w of new Set(words.map(twoLetters))) {
    const s = prefixSpan(ms, w);
    if (s && s[1] > s[0]) spans.push([r.postAt + s[0], r.postAt + s[1]]);
  }
  return join(spans, MAX_READS);
}

/** Overlapping ranges merged, then the nearest joined until at most `max` are left. */
export function join(ranges: [number, number][], max: number): [number, number][] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const [a, b] of sorted) {
    const last = out.at(-1);
    if (last && a <= last[1]) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  while (out.length > max) {
    let k = 0;
    for (let i = 1; i < out.length - 1; i++) if (out[i + 1][0] - out[i][1] < out[k + 1][0] - out[k][1]) k = i;
    out.splice(k, 2, [out[k][0], out[k + 1][1]]);
  }
  return out;
}

/** Reads the ranges of `want` not already in `have` (each index's list of spans), concurrently. */
export async function readRanges(want: Map<RemotePostings, [number, number][]>, have: Map<RemotePostings, Span[]>): Promise<number> {
  const jobs: Promise<void>[] = [];
  for (const [r, ranges] of want) {
    const spans = have.get(r) ?? have.set(r, []).get(r)!;
    for (const [from, to] of ranges) {
      if (spans.some((s) => s.from <= from && to <= s.to)) continue;
      jobs.push(r.read(from, to).then((bytes) => void spans.push({ from, to, bytes })));
    }
  }
  await Promise.all(jobs);
  return jobs.length;
}

/**
 * Runs `search` (synchronous) with the postings it needs installed: the predicted ranges
 * first, then whatever it missed (MISS_RETRIES times), then the whole postings of the
 * index that missed.
 */
export async function withPostings<T>(indexes: Iterable<MiniSearch>, words: string[], search: () => T): Promise<T> {
  const want = new Map<RemotePostings, [number, number][]>();
  for (const ms of new Set(indexes)) {
    const r = remote.get(ms);
    if (r) want.set(r, predictedRanges(ms, r, words));
  }
  const have = new Map<RemotePostings, Span[]>();
  for (let attempt = 0; ; attempt++) {
    await readRanges(want, have);
    for (const [r, spans] of have) r.window = spans;
    try {
      return search();
    } catch (err) {
      if (!(err instanceof PostingsMiss)) throw err;
      want.clear();
      want.set(err.index, attempt < MISS_RETRIES ? [[err.from, err.to]] : [[err.index.postAt, err.index.fileSize]]);
      if (attempt > MISS_RETRIES) throw new Error('search postings: read whole, still missed');
    } finally {
      for (const r of have.keys()) r.window = null;
    }
  }
}
