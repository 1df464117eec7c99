/**
 * The best path through two books' verses (a: the translation's or layer's, b: the
 * KJV's), given how well each verse of one fits each verse or pair of verses of the
 * other. Like sentence alignment of parallel texts (Gale and Church 1993), by dynamic
 * programming over (verses of a done, verses of b done), with the moves:
 *
 *   1–1, 2–1 and 1–2 (a verse split in one numbering: `mergeCost` less, as rarer), 1–0
 *   and 0–1 (a verse only one text has), and a jump: a[i] paired with any b[j], from the
 *   best state of the row before, for `jumpCost`. Moving forward past verses of b is
 *   free anyway; a jump is what lets the path go back, for a block of the book in
 *   another order (the Septuagint's Jeremiah: its chapters 26–31 are the Hebrew's 46–51
 *   in another order, its 32–51 the Hebrew's 25–45). It pays only when the block's
 *   verses gain more than `jumpCost` together: single verses do not jump.
 *
 * The fits come from the caller (`Gains`): shared English words for two translations
 * (verse-align.ts), the alignment model for a layer in another language
 * (pipeline/versification-layers.ts). `window` limits the verses of b a row may reach
 * (the model's fits cost more: a band around a first placement); jumps need the whole row.
 */
export interface Gains {
  /** Fills out[j] with the fit of a[i] and b[j], for j in [lo, hi). */
  pair(i: number, lo: number, hi: number, out: Float64Array): void;
  /** The same for a[i] + a[i+1] against b[j]. */
  merged(i: number, lo: number, hi: number, out: Float64Array): void;
  /** The same for a[i] against b[j] + b[j+1]. */
  split(i: number, lo: number, hi: number, out: Float64Array): void;
}

export interface PathOptions {
  mergeCost: number;
  /** null: no jumps (a monotone path). */
  jumpCost: number | null;
  /** A jump lands only on a pair that fits at least this well (a block in another order starts with a clear match). */
  jumpMin?: number;
  /**
   * What passing over a verse of b costs (0: free). With jumps, a long leap forward is as
   * much a reorder as one back: at 1/30 of a jump a leap of a chapter costs what a jump does.
   */
  skipCost?: number;
  /** The verses of b row i (a[0..i) done) may stand at: [lo, hi], within 0…m. */
  window?: (i: number) => [number, number];
}

/** One step of the path: a's verses [i, i+da) with b's [j, j+db); `gain` is what the step earned. */
export interface Step { i: number; da: number; j: number; db: number; gain: number; jump: boolean }

const SKIP_A = 1, SKIP_B = 2, PAIR = 3, MERGE = 4, SPLIT = 5, JUMP = 6;

/** The steps that pair verses (1–1, 2–1, 1–2, jumps), in a's order. */
export function bestPath(n: number, m: number, gains: Gains, opts: PathOptions): Step[] {
  const W = m + 1;
  const win = opts.window ?? (() => [0, m] as [number, number]);
  const move = new Uint8Array((n + 1) * W);
  const rows = [0, 1, 2].map(() => new Float64Array(W).fill(-Infinity));
  const row = (i: number) => rows[i % 3];
  const rowBest = new Int32Array(n + 1);
  // Each row reads the gains of a[i-1] (pairs, splits) and a[i-2] (merges) over its window
  // (the whole of b when jumping), each computed once per row.
  const pairPrev = new Float64Array(m), splitPrev = new Float64Array(m), mergedPrev2 = new Float64Array(m);
  const jumping = opts.jumpCost !== null, skip = opts.skipCost ?? 0;
  for (let i = 0; i <= n; i++) {
    const S = row(i), S1 = row(i - 1 + 3), S2 = row(i - 2 + 3);
    S.fill(-Infinity);
    const [lo, hi] = win(i);
    const from = jumping ? 0 : Math.max(0, lo - 2), to = jumping ? m : Math.min(m, hi);
    if (i > 0) { gains.pair(i - 1, from, to, pairPrev); gains.split(i - 1, from, Math.min(to, m - 1), splitPrev); }
    if (i > 1) gains.merged(i - 2, from, to, mergedPrev2);
    const jumpFrom = i > 0 && jumping ? S1[rowBest[i - 1]] - opts.jumpCost! : -Infinity;
    for (let j = lo; j <= hi; j++) {
      let best = i === 0 && j === 0 ? 0 : -Infinity, how = 0;
      const take = (s: number, code: number) => { if (s > best) { best = s; how = code; } };
      // Ties go to the first move taken: merges, splits, pairs, then skips (the order the
      // tables were first made in), jumps last.
      if (i > 1 && j > 0) take(S2[j - 1] + mergedPrev2[j - 1] - opts.mergeCost, MERGE);
      if (i > 0 && j > 1) take(S1[j - 2] + splitPrev[j - 2] - opts.mergeCost, SPLIT);
      if (i > 0 && j > 0) take(S1[j - 1] + pairPrev[j - 1], PAIR);
      if (i > 0) take(S1[j], SKIP_A);
      if (j > 0) take(S[j - 1] - skip, SKIP_B);
      if (i > 0 && j > 0 && pairPrev[j - 1] >= (opts.jumpMin ?? 0)) take(jumpFrom + pairPrev[j - 1], JUMP);
      S[j] = best;
      move[i * W + j] = how;
    }
    let b = lo;
    for (let j = lo; j <= hi; j++) if (S[j] > S[b]) b = j;
    rowBest[i] = b;
    if (i === n && S[m] === -Infinity) throw new Error(`verse path: no path reaches the end (window of row ${n} is ${lo}..${hi}, not ${m})`);
  }
  // Back from (n, m); the gains are asked again for the steps taken (a handful per row).
  const steps: Step[] = [];
  const one = new Float64Array(m);
  const gainAt = (fill: Gains['pair'], i: number, j: number) => { fill(i, j, j + 1, one); return one[j]; };
  for (let i = n, j = m; i > 0 || j > 0;) {
    const code = move[i * W + j];
    if (code === SKIP_A) i--;
    else if (code === SKIP_B) j--;
    else if (code === PAIR || code === JUMP) {
      steps.push({ i: i - 1, da: 1, j: j - 1, db: 1, gain: gainAt(gains.pair, i - 1, j - 1), jump: code === JUMP });
      i--; j = code === JUMP ? rowBest[i] : j - 1;
    } else if (code === MERGE) { steps.push({ i: i - 2, da: 2, j: j - 1, db: 1, gain: gainAt(gains.merged, i - 2, j - 1), jump: false }); i -= 2; j--; }
    else if (code === SPLIT) { steps.push({ i: i - 1, da: 1, j: j - 2, db: 2, gain: gainAt(gains.split, i - 1, j - 2), jump: false }); i--; j -= 2; }
    else throw new Error(`verse path lost its way at ${i},${j}`);
  }
  return steps.reverse();
}
