/**
 * A binary search index (pipeline/search-binary.ts) opened as a MiniSearch whose maps are
 * views over the file's bytes: minisearch's own search and scoring run unchanged, and
 * what they read (`_index`, `_documentIds`, `_fieldLength`, `_storedFields`) is answered
 * from typed arrays, a word's postings decoded when it is looked up. Opening costs the
 * header's JSON.parse; memory is the file's bytes (a Buffer, outside the V8 heap) plus
 * the postings of the words being searched.
 *
 * minisearch does not export these internals as API (pinned 7.2.0, like
 * search-index.ts); test/search-binary.test.ts checks every query against the JSON index.
 */
import MiniSearch from 'minisearch';
import { LITTLE_ENDIAN, MAGIC, type BinaryHeader } from '../../pipeline/search-binary.ts';
import { typoKeepsPrefix } from '../../pipeline/search-parts.ts';
import { EditRows } from './edit-rows.ts';
import { PostingsBlocks } from './postings-blocks.ts';

export { BLOCK_BYTES, MAX_BLOCKS } from './postings-blocks.ts';

type LoadOptions = ConstructorParameters<typeof MiniSearch>[0];

/**
 * One field's postings of a word, in ascending document order; minisearch reads it as a
 * Map (keys, get, size). Decoded on first read: counting a word's postings (the cost
 * bound, search-index.ts indexEntries) reads only `size`.
 */
export class Postings {
  private at = 0;
  private ids_: Int32Array | null = null;
  private tfs_: Uint32Array | null = null;
  constructor(private readonly post: Uint8Array, private readonly start: number, readonly size: number) {}
  private decode() {
    const post = this.post;
    let i = this.start;
    const ids = new Int32Array(this.size), tfs = new Uint32Array(this.size);
    for (let d = 0, id = 0; d < this.size; d++) {
      let v = 0, mul = 1, b: number;
      do { b = post[i++]; v += (b & 0x7f) * mul; mul *= 128; } while (b & 0x80);
      id += v;
      ids[d] = id;
      v = 0, mul = 1;
      do { b = post[i++]; v += (b & 0x7f) * mul; mul *= 128; } while (b & 0x80);
      tfs[d] = v;
    }
    this.ids_ = ids;
    this.tfs_ = tfs;
  }
  get ids(): Int32Array { if (!this.ids_) this.decode(); return this.ids_!; }
  get tfs(): Uint32Array { if (!this.tfs_) this.decode(); return this.tfs_!; }
  keys() { return this.ids.values(); }
  has(id: number) { return this.find(id) >= 0; }
  get(id: number) {
    const k = this.find(id);
    return k < 0 ? undefined : this.tfs[k];
  }
  *entries(): IterableIterator<[number, number]> { const { ids, tfs } = this; for (let k = 0; k < ids.length; k++) yield [ids[k], tfs[k]]; }
  values() { return this.tfs.values(); }
  [Symbol.iterator]() { return this.entries(); }
  /** minisearch asks for the ids in the order keys() gave them: try the next one before searching. */
  private find(id: number): number {
    const ids = this.ids;
    if (ids[this.at] === id) return this.at;
    if (ids[this.at + 1] === id) return ++this.at;
    let lo = 0, hi = ids.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (ids[mid] < id) lo = mid + 1;
      else if (ids[mid] > id) hi = mid - 1;
      else return (this.at = mid);
    }
    return -1;
  }
}

type TermData = Map<number, Postings>;

/** The term dictionary and postings: what minisearch's radix tree answers (get, atPrefix, fuzzyGet, size). */
class TermTable {
  private readonly fuzzyMemo = new Map<string, [number, number][]>();
  private readonly edits = new EditRows();
  /** `post(from, to)`: bytes [from, to) of the postings section, a view of memory or a read from the file. */
  constructor(private readonly off: Uint32Array, private readonly chars: Uint16Array, private readonly rank: Uint32Array, private readonly postOff: Uint32Array, private readonly post: (from: number, to: number) => Uint8Array) {}

  get size() { return this.rank.length; }

  /** The k-th term (in sorted order) compared with `s` (of length n): <0, 0 or >0, JS string order. */
  private cmp(k: number, s: string, n: number): number {
    const a = this.off[k], len = this.off[k + 1] - a;
    const m = Math.min(len, n);
    for (let i = 0; i < m; i++) {
      const d = this.chars[a + i] - s.charCodeAt(i);
      if (d) return d;
    }
    return len - n;
  }

  /** The first term not below `s`. */
  private lower(s: string): number {
    let lo = 0, hi = this.rank.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.cmp(mid, s, s.length) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The sorted range of terms starting with `p`. */
  private range(p: string): [number, number] {
    // Terms starting with p follow p itself in sorted order: the range ends where they stop.
    const lo = this.lower(p);
    let a = lo, b = this.rank.length;
    while (a < b) {
      const mid = (a + b) >>> 1;
      if (this.startsWith(mid, p)) a = mid + 1;
      else b = mid;
    }
    return [lo, a];
  }

  private startsWith(k: number, p: string): boolean {
    const a = this.off[k];
    if (this.off[k + 1] - a < p.length) return false;
    for (let i = 0; i < p.length; i++) if (this.chars[a + i] !== p.charCodeAt(i)) return false;
    return true;
  }

  /** Bytes [from, to) of the postings section holding every term that starts with `p` (terms sort by prefix, their postings follow). */
  prefixSpan(p: string): [number, number] {
    const [lo, hi] = this.range(p);
    return [this.postOff[lo], this.postOff[hi]];
  }

  term(k: number): string {
    return String.fromCharCode(...this.chars.subarray(this.off[k], this.off[k + 1]));
  }

  data(k: number): TermData {
    const post = this.post(this.postOff[k], this.postOff[k + 1]);
    let i = 0;
    const next = () => {
      let v = 0, mul = 1, b: number;
      do {
        b = post[i++];
        v += (b & 0x7f) * mul;
        mul *= 128;
      } while (b & 0x80);
      return v;
    };
    const out: TermData = new Map();
    for (let f = next(); f > 0; f--) {
      const field = next(), count = next(), bytes = next();
      out.set(field, new Postings(post, i, count));
      i += bytes;
    }
    return out;
  }

  get(term: string): TermData | undefined {
    const k = this.lower(term);
    return k < this.rank.length && this.cmp(k, term, term.length) === 0 ? this.data(k) : undefined;
  }

  has(term: string): boolean {
    const k = this.lower(term);
    return k < this.rank.length && this.cmp(k, term, term.length) === 0;
  }

  /** Terms starting with `p`, in the radix tree's order, postings decoded as they are reached. */
  *atPrefix(p: string): Generator<[string, TermData]> {
    for (const k of this.byRank(...this.range(p))) yield [this.term(k), this.data(k)];
  }

  /**
   * Terms within `max` edits of `w` (Levenshtein over UTF-16 code units, as minisearch's
   * fuzzyGet) that keep its first letters (the typo rule, search-parts.ts), in the order
   * minisearch's fuzzy search finds them, with their distance.
   */
  fuzzyGet(w: string, max: number): Map<string, [TermData, number]> {
    const out = new Map<string, [TermData, number]>();
    for (const [k, d] of this.fuzzyTerms(w, max)) out.set(this.term(k), [this.data(k), d]);
    return out;
  }

  /**
   * The terms fuzzyGet answers, as [position, distance] in its order. A search asks for
   * the same word's typos up to three times (the cost bound, the rarest-first order, the
   * match itself; minisearch once more when it scores), and each ask scanned every term
   * of the word's two-letter prefix (geography/places "marcos": ~10 ms of a 15 ms search):
   * the last FUZZY_MEMO answers are kept (a few positions each).
   */
  private fuzzyTerms(w: string, max: number): [number, number][] {
    const key = `${max}:${w}`;
    const hit = this.fuzzyMemo.get(key);
    if (hit) {
      this.fuzzyMemo.delete(key);
      this.fuzzyMemo.set(key, hit);
      return hit;
    }
    const [lo, hi] = this.range([...w].slice(0, 2).join(''));
    const found: number[] = [];
    const dist = new Map<number, number>();
    for (let k = lo; k < hi; k++) {
      const a = this.off[k], n = this.off[k + 1] - a;
      if (Math.abs(n - w.length) > max) continue;
      // The distance over the dictionary's own code units: no string per term scanned.
      const d = this.edits.within(w, this.chars, a, n, max);
      if (d <= max && typoKeepsPrefix(w, this.term(k))) found.push(k), dist.set(k, d);
    }
    // minisearch's fuzzy search walks the tree's children first to last, its iterator last to first.
    const list = this.byRank(0, 0, found).reverse().map((k): [number, number] => [k, dist.get(k)!]);
    this.fuzzyMemo.set(key, list);
    if (this.fuzzyMemo.size > FUZZY_MEMO) this.fuzzyMemo.delete(this.fuzzyMemo.keys().next().value!);
    return list;
  }

  /** Sorted positions lo..hi (or `list`) in the radix tree's iteration order. */
  private byRank(lo: number, hi: number, list?: number[]): number[] {
    const ks = list ?? Array.from({ length: hi - lo }, (_, i) => lo + i);
    return ks.sort((a, b) => this.rank[a] - this.rank[b]);
  }

  *keys(): Generator<string> { for (const k of this.byRank(0, this.rank.length)) yield this.term(k); }
  *[Symbol.iterator](): Generator<[string, TermData]> { for (const k of this.byRank(0, this.rank.length)) yield [this.term(k), this.data(k)]; }
}

/** fuzzyGet answers kept per index (each a few positions): a query has at most 8 words, with stems 16. */
const FUZZY_MEMO = 32;

/** Document short id → ordinal, as minisearch's `_documentIds` Map (has, get, size, iteration). */
export class DocumentIds {
  readonly size: number;
  constructor(readonly ord: Int32Array) {
    let n = 0;
    for (let i = 0; i < ord.length; i++) if (ord[i] >= 0) n++;
    this.size = n;
  }
  has(id: number) { return id >= 0 && id < this.ord.length && this.ord[id] >= 0; }
  get(id: number) { return this.has(id) ? this.ord[id] : undefined; }
  *entries(): Generator<[number, number]> { for (let i = 0; i < this.ord.length; i++) if (this.ord[i] >= 0) yield [i, this.ord[i]]; }
  *keys(): Generator<number> { for (const [i] of this.entries()) yield i; }
  *values(): Generator<number> { for (const [, o] of this.entries()) yield o; }
  [Symbol.iterator]() { return this.entries(); }
}

/**
 * Where a binary index file's postings start, from its first bytes (`head`, at least the
 * magic, the header's length and the header): undefined when `head` is too short (read
 * `needed` bytes). The Worker reads the bytes before the postings alone, then postings by
 * ranges (release-search.ts).
 */
export function binaryLayout(head: Uint8Array): { postAt: number; fileSize: number } | { needed: number } {
  if (head.length < MAGIC.length + 4 || new TextDecoder().decode(head.subarray(0, MAGIC.length)) !== MAGIC) throw new Error('search index: not a binary index file');
  const hlen = new DataView(head.buffer, head.byteOffset, head.byteLength).getUint32(MAGIC.length, true);
  if (head.length < MAGIC.length + 4 + hlen) return { needed: MAGIC.length + 4 + hlen };
  const h = JSON.parse(new TextDecoder().decode(head.subarray(MAGIC.length + 4, MAGIC.length + 4 + hlen))) as BinaryHeader;
  const [postAt, postLength] = h.sections.post;
  return { postAt, fileSize: postAt + postLength };
}

/**
 * The header and section views of a binary index file; throws on a file of another form.
 * With `readAt` and the postings last in the file (as pipeline/search-binary.ts writes
 * them), only the bytes before the postings are kept (copied: a view would hold the whole
 * file), and the postings are read from the file a word at a time. `buf` may then be just
 * those bytes (`fileSize` the whole file's): the Worker never holds the postings.
 */
function sections(buf: Uint8Array, readAt?: (from: number, to: number) => Uint8Array, fileSize = buf.byteLength, byBlocks = true) {
  if (!LITTLE_ENDIAN) throw new Error('search index: the binary form needs a little-endian machine');
  if (buf.length < MAGIC.length + 4 || new TextDecoder().decode(buf.subarray(0, MAGIC.length)) !== MAGIC) throw new Error('search index: not a binary index file');
  const hlen = new DataView(buf.buffer, buf.byteOffset, buf.byteLength).getUint32(MAGIC.length, true);
  const h = JSON.parse(new TextDecoder().decode(buf.subarray(MAGIC.length + 4, MAGIC.length + 4 + hlen))) as BinaryHeader;
  const [postAt] = h.sections.post;
  for (const [name, [o, l]] of Object.entries(h.sections)) {
    if (o + l > (name === 'post' ? fileSize : buf.byteLength)) throw new Error(`search index: section ${name} runs past the file's end`);
  }
  // The postings after every other section: all before them is what is kept.
  const onDisk = !!readAt && Object.entries(h.sections).every(([name, [o, l]]) => name === 'post' || o + l <= postAt);
  if (!onDisk && buf.byteLength < fileSize) throw new Error('search index: its postings are not last in the file');
  // Typed-array views need the bytes aligned to 8 (a pooled Buffer may not be; a fresh array is).
  const kept = onDisk ? buf.subarray(0, postAt) : buf;
  const bytes = (onDisk && kept.byteLength < buf.byteLength) || kept.byteOffset % 8 ? copyOf(kept) : kept;
  const at = <T>(name: keyof BinaryHeader['sections'], Kind: { new (b: ArrayBuffer, o: number, n: number): T; BYTES_PER_ELEMENT: number }) => {
    const [o, l] = h.sections[name];
    return new Kind(bytes.buffer as ArrayBuffer, bytes.byteOffset + o, l / Kind.BYTES_PER_ELEMENT);
  };
  const inMemory = onDisk ? undefined : at('post', Uint8Array);
  // By blocks where a read is a file's (Node); the Worker's reads answer only the spans read before the search (remote-postings.ts).
  const blocks = onDisk && byBlocks ? new PostingsBlocks((from, to) => readAt!(postAt + from, postAt + to), h.sections.post[1]) : undefined;
  const post = inMemory ? (from: number, to: number) => inMemory.subarray(from, to)
    : blocks ? (from: number, to: number) => blocks.at(from, to) : (from: number, to: number) => readAt!(postAt + from, postAt + to);
  return { h, at, post, held: bytes.byteLength + (blocks ? blocks.most : 0), blocks };
}

/** A copy in an array of its own (memcpy; starts at offset 0, so aligned). */
function copyOf(b: Uint8Array): Uint8Array {
  const out = new Uint8Array(b.byteLength);
  out.set(b);
  return out;
}

/**
 * A binary index file as a MiniSearch searching it in place (the options the index was
 * built with). `readAt` (Node: the checked file kept open, release.ts readAt) keeps the
 * postings, half of the release's 60 MiB of indexes, in the page cache instead of the
 * process (issue 27: RSS); a word's postings are then read by 8 KiB blocks (postings-blocks.ts).
 */
export function openBinaryIndex(buf: Uint8Array, options: LoadOptions, readAt?: (from: number, to: number) => Uint8Array, fileSize?: number, byBlocks = true): MiniSearch {
  const { h, at, post, held, blocks } = sections(buf, readAt, fileSize, byBlocks);
  const ms = (MiniSearch as unknown as { loadJS(js: unknown, o: LoadOptions): MiniSearch }).loadJS({
    documentCount: h.documentCount, nextId: h.nextId, documentIds: {}, fieldIds: h.fieldIds, fieldLength: {},
    averageFieldLength: h.averageFieldLength, storedFields: {}, dirtCount: h.dirtCount, index: [], serializationVersion: 2,
  }, options);
  const fields = Object.keys(h.fieldIds).length;
  const len = h.lengthBytes === 2 ? at('len', Uint16Array) : at('len', Uint32Array);
  // minisearch reads fieldLength.get(id)[fieldId] at once: one row array, refilled per call.
  const row: number[] = new Array(fields).fill(0);
  const fieldLength = { get: (id: number) => { for (let f = 0; f < fields; f++) row[f] = len[id * fields + f]; return row; }, has: (id: number) => documentIds.has(id) };
  const documentIds = new DocumentIds(at('ord', Int32Array));
  const rank = h.rank ? at('rank', Float64Array) : null;
  const storedFields = { get: (id: number) => (rank && !Number.isNaN(rank[id]) ? { __rank: rank[id] } : undefined), has: (id: number) => !!rank && !Number.isNaN(rank[id]) };
  const index = new TermTable(at('termOff', Uint32Array), at('termChars', Uint16Array), at('termRank', Uint32Array), at('postOff', Uint32Array), post);
  Object.assign(ms, { _documentIds: documentIds, _idToShortId: new Map(), _fieldLength: fieldLength, _storedFields: storedFields, _index: index });
  binaryBytes.set(ms, held);
  if (blocks) diskBlocks.set(ms, blocks);
  return ms;
}

const diskBlocks = new WeakMap<MiniSearch, PostingsBlocks>();
/** A search begins on `ms`: postings blocks kept by an earlier search are dropped (PostingsBlocks). */
export const freshPostings = (ms: MiniSearch) => diskBlocks.get(ms)?.fresh();

/** The postings bytes [from, to) (from the postings' start) of every term of `ms` starting with `prefix`; undefined for an index not opened here. */
export function prefixSpan(ms: MiniSearch, prefix: string): [number, number] | undefined {
  const index = (ms as unknown as { _index: unknown })._index;
  return index instanceof TermTable ? index.prefixSpan(prefix) : undefined;
}

const binaryBytes = new WeakMap<MiniSearch, number>();
/** The bytes an index opened here holds (the file, or the file less its postings), undefined for a JSON-loaded one. */
export const binaryIndexBytes = (ms: MiniSearch) => binaryBytes.get(ms);
