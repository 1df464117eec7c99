/**
 * A minisearch index as one compact binary file (issue 27, "Search memory that fits the
 * working set"). The JSON form (serialized minisearch, split into parts by word) took 293
 * MiB for the release and 1,978 MiB of V8 heap once loaded, 7.7 times the server's index
 * cache, so a server searching several large datasets reparsed parts on every pass. This
 * form is read in place: typed-array views over the file's bytes, postings decoded per
 * word on use (server/search/binary-index.ts), so a loaded index costs its file size, off
 * the V8 heap, and loading it is a read.
 *
 * Layout, little-endian, every section aligned to 8 bytes:
 *   "ALMSIX01", u32 header length, header JSON (counts, field ids, average field
 *   lengths, section offsets), then the sections:
 *   ord       Int32[nextId]       the document's ordinal (minisearch's id), -1 when absent
 *   len       Uint16|32[nextId×F] field lengths in tokens (0 for a field the record lacks)
 *   rank      Float64[nextId]     stored __rank, NaN when none (ranked datasets only)
 *   termOff   Uint32[T+1]         each term's start in termChars; terms in JS string order
 *   termChars Uint16[]            the terms' UTF-16 code units
 *   termRank  Uint32[T]           each term's position in the order minisearch's radix tree
 *                                 iterates it once loaded from JSON (see below)
 *   postOff   Uint32[T+1]         each term's start in post
 *   post      Uint8[]             per term: fields, then per field (ascending id): field id,
 *                                 count, the byte length of its pairs, and per document
 *                                 (ascending) the id's delta and the term frequency, all as
 *                                 unsigned LEB128 varints (the length lets a reader count a
 *                                 word's postings, as the cost bound does, without decoding them)
 *
 * Why termRank: minisearch sums a word's prefix and typo matches in its tree's iteration
 * order, and breaks score ties by the order documents were first met; reading the
 * matches in that order keeps every score and tie exactly as the JSON index gave them
 * (test/search-binary.test.ts compares both on every query).
 */
import type MiniSearch from 'minisearch';

export const MAGIC = 'ALMSIX02';
/** Whether this machine holds typed arrays little-endian (every platform Node and workerd run on today). */
export const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

export interface BinaryHeader {
  documentCount: number;
  nextId: number;
  dirtCount: number;
  fieldIds: Record<string, number>;
  averageFieldLength: number[];
  terms: number;
  lengthBytes: 2 | 4;
  rank: boolean;
  /** Section name → [byte offset from the file's start, byte length]. */
  sections: Record<'ord' | 'len' | 'rank' | 'termOff' | 'termChars' | 'termRank' | 'postOff' | 'post', [number, number]>;
}

type TermData = Map<number, Map<number, number>>;
type Internals = {
  _index: Iterable<[string, TermData]> & { constructor: new () => { set(k: string, v: number): void; keys(): Iterable<string> } };
  _documentIds: Map<number, unknown>;
  _fieldLength: Map<number, (number | undefined)[]>;
  _storedFields: Map<number, Record<string, unknown> | undefined>;
  _documentCount: number;
  _nextId: number;
  _dirtCount: number;
  _fieldIds: Record<string, number>;
  _avgFieldLength: number[];
};

/** A growable byte buffer of LEB128 varints. */
class Bytes {
  buf = Buffer.alloc(256);
  n = 0;
  private room(k: number) {
    if (this.n + k <= this.buf.length) return;
    const next = Buffer.alloc(Math.max(this.buf.length * 2, this.n + k));
    this.buf.copy(next, 0, 0, this.n);
    this.buf = next;
  }
  bytes(b: Uint8Array) {
    this.room(b.length);
    this.buf.set(b, this.n);
    this.n += b.length;
  }
  varint(v: number) {
    if (!Number.isInteger(v) || v < 0) throw new Error(`search index: ${v} is not a non-negative integer`);
    this.room(10);
    while (v >= 0x80) {
      this.buf[this.n++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[this.n++] = v;
  }
}

/** The binary form of a built minisearch index (search fields, stems and __rank as built). */
export function encodeIndex(ms: MiniSearch): Buffer {
  // Typed arrays are written as the machine holds them; the format says little-endian.
  if (!LITTLE_ENDIAN) throw new Error('search index: writing the binary form needs a little-endian machine');
  const m = ms as unknown as Internals;
  const nextId = m._nextId;
  const fieldCount = Object.keys(m._fieldIds).length;
  // Terms in the order minisearch iterates the tree loadJSON builds: JSON lists them in
  // this tree's order, and loading inserts them in that order into a fresh tree.
  const built: [string, TermData][] = [...m._index];
  const reloaded = new m._index.constructor();
  built.forEach(([t], i) => reloaded.set(t, i));
  const rankOf = new Map<string, number>();
  let r = 0;
  for (const t of reloaded.keys()) rankOf.set(t, r++);
  const order = built.map((_, i) => i).sort((a, b) => (built[a][0] < built[b][0] ? -1 : built[a][0] > built[b][0] ? 1 : 0));

  const ord = new Int32Array(nextId).fill(-1);
  for (const [id, o] of m._documentIds) {
    if (typeof o !== 'number' || !Number.isInteger(o) || o < 0 || o > 0x7fffffff) throw new Error(`search index: document id ${String(o)} is not an ordinal`);
    ord[id] = o;
  }
  let maxLen = 0;
  for (const lens of m._fieldLength.values()) for (const l of lens) if (l !== undefined && l !== null) maxLen = Math.max(maxLen, l);
  const lengthBytes = maxLen < 0x10000 ? 2 : 4;
  const len = lengthBytes === 2 ? new Uint16Array(nextId * fieldCount) : new Uint32Array(nextId * fieldCount);
  for (const [id, lens] of m._fieldLength) {
    lens.forEach((l, f) => {
      if (l === undefined || l === null) return;
      if (!Number.isInteger(l) || l < 0) throw new Error(`search index: field length ${l} is not a count`);
      len[id * fieldCount + f] = l;
    });
  }
  const ranked = [...m._storedFields.values()].some((s) => s && Object.keys(s).length);
  for (const s of m._storedFields.values()) {
    const extra = s && Object.keys(s).find((k) => k !== '__rank');
    if (extra) throw new Error(`search index: stored field ${extra} has no binary form (only __rank)`);
  }
  const rank = new Float64Array(ranked ? nextId : 0).fill(NaN);
  if (ranked) for (const [id, s] of m._storedFields) if (s && s.__rank !== undefined) rank[id] = Number(s.__rank ?? 0);

  const termOff = new Uint32Array(built.length + 1);
  let chars = 0;
  order.forEach((i, k) => {
    termOff[k] = chars;
    chars += built[i][0].length;
  });
  termOff[built.length] = chars;
  const termChars = new Uint16Array(chars);
  const termRank = new Uint32Array(built.length);
  const postOff = new Uint32Array(built.length + 1);
  const post = new Bytes();
  order.forEach((i, k) => {
    const [term, data] = built[i];
    for (let c = 0; c < term.length; c++) termChars[termOff[k] + c] = term.charCodeAt(c);
    termRank[k] = rankOf.get(term)!;
    postOff[k] = post.n;
    const fields = [...data.keys()].sort((a, b) => a - b);
    post.varint(fields.length);
    for (const f of fields) {
      const docs = [...data.get(f)!].sort((a, b) => a[0] - b[0]);
      const pairs = new Bytes();
      let last = 0;
      for (const [id, tf] of docs) {
        pairs.varint(id - last);
        pairs.varint(tf);
        last = id;
      }
      post.varint(f);
      post.varint(docs.length);
      post.varint(pairs.n);
      post.bytes(pairs.buf.subarray(0, pairs.n));
    }
  });
  postOff[built.length] = post.n;

  const parts: [BinaryHeader['sections'] extends Record<infer K, unknown> ? K : never, Uint8Array][] = [
    ['ord', u8(ord)], ['len', u8(len)], ['rank', u8(rank)], ['termOff', u8(termOff)], ['termChars', u8(termChars)],
    ['termRank', u8(termRank)], ['postOff', u8(postOff)], ['post', post.buf.subarray(0, post.n)],
  ];
  // The sections start after the header, whose length depends on their offsets: place
  // them, measure the header, and again until it fits (it only grows, so this ends).
  let start = 0;
  for (;;) {
    let at = start;
    const sections = {} as BinaryHeader['sections'];
    for (const [name, bytes] of parts) {
      sections[name] = [at, bytes.length];
      at = align8(at + bytes.length);
    }
    const header = JSON.stringify({
      documentCount: m._documentCount, nextId, dirtCount: m._dirtCount ?? 0, fieldIds: m._fieldIds,
      averageFieldLength: m._avgFieldLength, terms: built.length, lengthBytes, rank: ranked, sections,
    } satisfies BinaryHeader);
    const need = align8(MAGIC.length + 4 + Buffer.byteLength(header));
    if (need > start) {
      start = need;
      continue;
    }
    const out = Buffer.alloc(at);
    out.write(MAGIC, 0, 'latin1');
    out.writeUInt32LE(Buffer.byteLength(header), MAGIC.length);
    out.write(header, MAGIC.length + 4, 'utf8');
    for (const [name, bytes] of parts) out.set(bytes, sections[name][0]);
    return out;
  }
}

const align8 = (n: number) => Math.ceil(n / 8) * 8;
const u8 = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
