/**
 * IBM Model 1 (Brown et al. 1993), trained by EM in both directions at once over a
 * parallel corpus of id lists: English word ids on one side, source unit ids on the other
 * (0 is NULL on both sides, in every verse). Shared by the two users of the model: the
 * judge of the generated English links (align-evidence.ts) and the content check of
 * every layer's verse placements (../versification/placement-check.ts), so one trainer,
 * one set of numerics.
 *
 * Cost: typed arrays only (align-pairs.ts numbers the co-occurring pairs densely).
 * Deterministic: fixed iteration count, verses in the order given.
 */
import { pairTable, type PairTable } from './align-pairs.ts';

/** Per verse, one side's distinct ids (0 = NULL, in every verse) and how often each occurs. */
export interface Side { ids: Int32Array; mul: Int32Array; start: Int32Array }

/**
 * Dedupes each verse's ids (flat `ids`, verse v at `at[v]…at[v+1]`) into a Side, and
 * returns for each occurrence its entry's place in the verse (its row or column).
 */
export function side(ids: Int32Array, at: Int32Array, vocab: number): { side: Side; place: Int32Array } {
  const verses = at.length - 1;
  const stamp = new Int32Array(vocab).fill(-1), slot = new Int32Array(vocab);
  const out = new Int32Array(ids.length + verses), mul = new Int32Array(ids.length + verses);
  const start = new Int32Array(verses + 1), place = new Int32Array(ids.length);
  let e = 0;
  for (let v = 0; v < verses; v++) {
    const s = e;
    out[e] = 0; mul[e++] = 1;
    stamp[0] = v; slot[0] = 0;
    for (let x = at[v]; x < at[v + 1]; x++) {
      const id = ids[x];
      if (stamp[id] !== v) { stamp[id] = v; slot[id] = e - s; out[e] = id; mul[e++] = 0; }
      mul[s + slot[id]]++;
      place[x] = slot[id];
    }
    start[v + 1] = e;
  }
  return { side: { ids: out.subarray(0, e), mul: mul.subarray(0, e), start }, place };
}

/**
 * One EM iteration of Model 1 in both directions at once (one read of each verse grid
 * for the sums, one for the counts). Forward, each unit (and NULL) generates the verse's
 * words: tf[p] = t(word | unit); reverse, each word (and NULL) generates the units:
 * tr[p] = t(unit | word). `cf`, `cr` are scratch counts.
 */
export function emIteration(pairs: PairTable, tf: Float32Array, tr: Float32Array, cf: Float32Array, cr: Float32Array, words: Side, units: Side) {
  const { cells, cellStart, wordStart } = pairs;
  cf.fill(0);
  cr.fill(0);
  let zf = new Float64Array(64), zr = new Float64Array(64);
  for (let v = 0; v + 1 < words.start.length; v++) {
    const w0 = words.start[v], nW = words.start[v + 1] - w0, u0 = units.start[v], nU = units.start[v + 1] - u0, base = cellStart[v];
    if (zr.length < nU) zr = new Float64Array(2 * nU);
    if (zf.length < nW) zf = new Float64Array(2 * nW);
    zr.fill(0, 0, nU);
    for (let a = 0; a < nW; a++) {
      const row = base + a * nU, wm = words.mul[w0 + a], off = wordStart[words.ids[w0 + a]];
      let z = 0;
      for (let b = 0; b < nU; b++) {
        const p = off + cells[row + b];
        z += units.mul[u0 + b] * tf[p];
        zr[b] += wm * tr[p];
      }
      zf[a] = z;
    }
    // Entry 0 of each side is NULL, which generates nothing.
    for (let a = 0; a < nW; a++) {
      const row = base + a * nU, wm = words.mul[w0 + a], off = wordStart[words.ids[w0 + a]];
      const gf = a > 0 && zf[a] > 0 ? wm / zf[a] : 0;
      for (let b = 0; b < nU; b++) {
        const p = off + cells[row + b], um = units.mul[u0 + b];
        cf[p] += gf * um * tf[p];
        if (b > 0 && zr[b] > 0) cr[p] += um / zr[b] * wm * tr[p];
      }
    }
  }
  // Normalise over what is generated: per unit (forward), per word (reverse: its pairs are contiguous).
  const { unit } = pairs, totF = new Float64Array(pairs.units);
  for (let p = 0; p < pairs.size; p++) totF[unit[p]] += cf[p];
  for (let w = 0; w + 1 < wordStart.length; w++) {
    let r = 0;
    for (let p = wordStart[w]; p < wordStart[w + 1]; p++) r += cr[p];
    for (let p = wordStart[w]; p < wordStart[w + 1]; p++) {
      const f = totF[unit[p]];
      tf[p] = f > 0 ? cf[p] / f : 0;
      tr[p] = r > 0 ? cr[p] / r : 0;
    }
  }
}

export interface Trained {
  pairs: PairTable;
  /** Forward t(word | unit) and reverse t(unit | word), by pair number. */
  tf: Float32Array;
  tr: Float32Array;
  /** Each side's distinct ids per verse, and where each occurrence sits in its verse's grid. */
  W: { side: Side; place: Int32Array };
  U: { side: Side; place: Int32Array };
}

/**
 * Trains Model 1 on verse n's words `wordList[wAt[n]…wAt[n+1])` against its units
 * `unitList[uAt[n]…uAt[n+1])`, ids below `wordCount` and `unitCount` (0 reserved for NULL).
 */
export function trainModel1(wordList: Int32Array, wAt: Int32Array, wordCount: number, unitList: Int32Array, uAt: Int32Array, unitCount: number, iterations: number): Trained {
  const W = side(wordList, wAt, wordCount), U = side(unitList, uAt, unitCount);
  const pairs = pairTable(W.side, U.side, wordCount, unitCount);
  const tf = new Float32Array(pairs.size).fill(1), tr = new Float32Array(pairs.size).fill(1);
  const cf = new Float32Array(pairs.size), cr = new Float32Array(pairs.size);
  for (let k = 0; k < iterations; k++) emIteration(pairs, tf, tr, cf, cr, W.side, U.side);
  return { pairs, tf, tr, W, U };
}

/**
 * The pair number of any (word, unit), or -1 when the two never met in a verse: for
 * scoring verse pairs the corpus did not hold (a placement's neighbours). An open-
 * addressing hash over typed arrays (a Map of ~2 million number keys would be ~100 MB
 * and slower; a binary search per word block was 4-5 times slower on the Vulgate).
 */
export function pairLookup(pairs: PairTable): (word: number, unit: number) => number {
  const { wordStart, unit, size } = pairs;
  let cap = 1;
  while (cap < 2 * size) cap <<= 1;
  const mask = cap - 1;
  const hw = new Int32Array(cap).fill(-1), hu = new Int32Array(cap), hp = new Int32Array(cap);
  const slot = (w: number, u: number) => (Math.imul(w, 0x9e3779b1) ^ Math.imul(u, 0x85ebca6b)) & mask;
  for (let w = 0; w + 1 < wordStart.length; w++) {
    for (let p = wordStart[w]; p < wordStart[w + 1]; p++) {
      let h = slot(w, unit[p]);
      while (hw[h] !== -1) h = (h + 1) & mask;
      hw[h] = w; hu[h] = unit[p]; hp[h] = p;
    }
  }
  return (w, u) => {
    for (let h = slot(w, u); hw[h] !== -1; h = (h + 1) & mask) if (hw[h] === w && hu[h] === u) return hp[h];
    return -1;
  };
}
