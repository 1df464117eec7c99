/**
 * Key buckets (`<ds>/keys/<n>.json`, a JSON object written by JSON.stringify: id or folded
 * alias → ordinal, or → the ids that share an alias) held as their bytes plus where each
 * key starts, and one entry found without parsing the bucket.
 *
 * Why not parse: every lookup of every dataset reads a bucket, so the buckets of a busy
 * server are its largest working set (56 MiB of files in the full release). Parsed, they
 * were objects of 3–5 times their bytes on the V8 heap and did not fit the shard cache
 * beside the rest (issue 27: RSS; each eviction cost a parse on the next lookup). As bytes
 * they are counted at their size plus 4 bytes a key, and a lookup is an `indexOf`.
 *
 * Why it is exact: the needle is the key as JSON.stringify writes it, then `:`, and a
 * match counts only where a key of the object starts (found by one pass over the bytes
 * that follows the strings, `keyBucket`). From a key's opening quote the needle's escapes
 * read as the file's do, so its closing quote is that key's own: a match is that key,
 * whole. A match anywhere else (inside a key or an id: `{"":["{",":"]}` holds `",":`) is
 * skipped. test/key-bucket.test.ts checks this against JSON.parse for arbitrary keys.
 */
const QUOTE = 34, BACKSLASH = 92, COLON = 58, RBRACE = 125;

export type BucketEntry = number | string[];

/**
 * A key bucket as the shard cache holds it. `sorted`: its keys, as JSON strings, ascend by
 * their bytes, so a key is found by binary search over `starts` (the build sorts a
 * bucket's keys, but an object puts integer-like keys first, and JavaScript's order is not
 * the bytes' for every character: such a bucket is searched with `indexOf`).
 */
export interface KeyBucket { bytes: Buffer; starts: Uint32Array; sorted: boolean }

/** The bucket's bytes with the offset of each key's opening quote, ascending. */
export function keyBucket(bytes: Buffer): KeyBucket {
  const starts: number[] = [];
  let sorted = true;
  let prev = -1, prevEnd = -1;
  // Strings only: outside them nothing can look like a quote. A string followed by ':' is a key.
  for (let open = bytes.indexOf(QUOTE); open !== -1; open = bytes.indexOf(QUOTE, open + 1)) {
    let close = open;
    do close = bytes.indexOf(QUOTE, close + 1);
    while (close !== -1 && escaped(bytes, close));
    if (close === -1) break;
    if (bytes[close + 1] === COLON) {
      // Each key against the one before, as the bytes of their JSON strings (quotes included).
      if (sorted && prev !== -1 && bytes.compare(bytes, prev, prevEnd, open, close + 1) <= 0) sorted = false;
      starts.push(open);
      prev = open;
      prevEnd = close + 1;
    }
    open = close;
  }
  return { bytes, starts: Uint32Array.from(starts), sorted };
}

/** Whether the quote at `i` is escaped: an odd number of backslashes before it. */
function escaped(b: Buffer, i: number): boolean {
  let n = 0;
  while (b[i - 1 - n] === BACKSLASH) n++;
  return n % 2 === 1;
}

/** The value stored under `key`, or undefined when the bucket has none. */
export function bucketEntry(bucket: KeyBucket, key: string): BucketEntry | undefined {
  const { bytes, starts } = bucket;
  const needle = Buffer.from(`${JSON.stringify(key)}:`);
  const at = bucket.sorted ? search(bucket, needle) : scan(bucket, needle);
  if (at === -1) return undefined;
  const from = at + needle.length;
  // The value runs to the next key's opening quote less its comma, or to the closing brace.
  const k = upperBound(starts, at);
  const to = k < starts.length ? starts[k] - 1 : bytes.lastIndexOf(RBRACE);
  return JSON.parse(bytes.toString('utf8', from, to)) as BucketEntry;
}

/** Where `needle` (a key's JSON string and ':') starts a key, by `indexOf`, or -1. */
function scan({ bytes, starts }: KeyBucket, needle: Buffer): number {
  let at = bytes.indexOf(needle);
  while (at !== -1 && !isStart(starts, at)) at = bytes.indexOf(needle, at + 1);
  return at;
}

/**
 * The same by binary search, in a sorted bucket. Comparing the needle's bytes with the
 * bytes at a key's start orders the two keys without finding where that key ends: JSON
 * strings are prefix-free (a string's closing quote is its first unescaped quote, and the
 * bytes before it agree), so they differ before the shorter one ends, or are the same key.
 */
function search({ bytes, starts }: KeyBucket, needle: Buffer): number {
  const n = needle.length - 1; // the key's JSON string, without the ':'
  let lo = 0, hi = starts.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const s = starts[mid];
    const c = bytes.compare(needle, 0, n, s, Math.min(bytes.length, s + n));
    if (c === 0) return s;
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** Index of the first start greater than `at`. */
function upperBound(starts: Uint32Array, at: number): number {
  let lo = 0, hi = starts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (starts[mid] <= at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const isStart = (starts: Uint32Array, at: number) => {
  const k = upperBound(starts, at) - 1;
  return k >= 0 && starts[k] === at;
};
