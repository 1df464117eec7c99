/**
 * Edit distance for the typo matches of a binary search index (binary-index.ts fuzzyGet),
 * computed over its term dictionary's code units in place.
 */

/** Levenshtein distances over UTF-16 code units, two rows reused from call to call. */
export class EditRows {
  private prev = new Int32Array(64);
  private row = new Int32Array(64);

  /** The distance of `a` and the `n` code units of `chars` from `at` when at most `max`, else max + 1 (stops once a row is all over). */
  within(a: string, chars: Uint16Array, at: number, n: number, max: number): number {
    if (Math.abs(a.length - n) > max) return max + 1;
    if (this.prev.length <= n) (this.prev = new Int32Array(2 * n + 2)), (this.row = new Int32Array(2 * n + 2));
    let prev = this.prev, row = this.row;
    for (let j = 0; j <= n; j++) prev[j] = j;
    for (let i = 1; i <= a.length; i++) {
      const c = a.charCodeAt(i - 1);
      row[0] = i;
      let best = i;
      for (let j = 1; j <= n; j++) {
        const v = Math.min(prev[j - 1] + (c === chars[at + j - 1] ? 0 : 1), prev[j] + 1, row[j - 1] + 1);
        row[j] = v;
        if (v < best) best = v;
      }
      if (best > max) return max + 1;
      const t = prev;
      prev = row;
      row = t;
    }
    return Math.min(prev[n], max + 1);
  }
}
