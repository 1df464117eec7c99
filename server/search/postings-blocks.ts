/**
 * Postings of a binary search index kept on disk (binary-index.ts, the Node server), read
 * by blocks: split out of binary-index.ts, which answers minisearch from them.
 */

/** The postings read from the file in blocks of this size (the reads of a search fall close together), */
export const BLOCK_BYTES = 8 * 1024;
/** of which an index keeps this many, the least recently used dropped first (counted in its size). */
export const MAX_BLOCKS = 8;

/**
 * The postings of an index kept on disk, read by BLOCK_BYTES blocks and the last
 * MAX_BLOCKS kept. A search reads a word's postings up to three times (the cost bound, the
 * rarest-first order, the match) and its prefix and typo matches sit side by side in the
 * file (terms sort by prefix): one read (a signature check and a positional read, ~20 µs)
 * per term and pass was a third of geography/places "san marcos" (issue 41, item 4). A
 * term's postings longer than a block are read alone, as before, and not kept: they would
 * push out the blocks of every rarer word. The blocks last one search (release-search.ts
 * calls `fresh` as each begins): its first read checks the file's signature as every read
 * did, so a file changed since its check is still answered release_corrupt by the next
 * search (the blocks held meanwhile are counted in the index's size).
 */
export class PostingsBlocks {
  private readonly blocks = new Map<number, Uint8Array>();
  /** Reads from the file so far (tests count them). */
  reads = 0;
  constructor(private readonly read: (from: number, to: number) => Uint8Array, private readonly size: number) {}

  /** The most bytes the blocks can hold (counted in the index's size in the cache). */
  get most() {
    return Math.min(MAX_BLOCKS, Math.ceil(this.size / BLOCK_BYTES)) * BLOCK_BYTES;
  }

  at(from: number, to: number): Uint8Array {
    if (to - from > BLOCK_BYTES) {
      this.reads++;
      return this.read(from, to);
    }
    const a = Math.floor(from / BLOCK_BYTES), b = Math.floor((to - 1) / BLOCK_BYTES);
    if (a === b || to === from) return this.block(a).subarray(from - a * BLOCK_BYTES, to - a * BLOCK_BYTES);
    // Across two blocks: a copy of the two ends.
    const out = new Uint8Array(to - from);
    const first = this.block(a).subarray(from - a * BLOCK_BYTES);
    out.set(first);
    out.set(this.block(b).subarray(0, to - b * BLOCK_BYTES), first.length);
    return out;
  }

  /** Drops the blocks: the next search reads (and checks) the file again. */
  fresh() {
    this.blocks.clear();
  }

  private block(i: number): Uint8Array {
    let got = this.blocks.get(i);
    if (got) this.blocks.delete(i);
    else {
      this.reads++;
      got = this.read(i * BLOCK_BYTES, Math.min(this.size, (i + 1) * BLOCK_BYTES));
      if (this.blocks.size >= MAX_BLOCKS) this.blocks.delete(this.blocks.keys().next().value!);
    }
    this.blocks.set(i, got);
    return got;
  }
}
