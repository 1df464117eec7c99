/**
 * How well a layer verse fits a KJV verse (or several), by the words each explains of
 * the other, for the placement check (placement-check.ts).
 *
 * IBM Model 1 (align-model.ts) is trained on the layer's placements as they stand: KJV
 * words against the layer verse's units (Strong's numbers, lemmas, plain words). A word
 * and a unit link as strongly as the geometric mean of t(word | unit) and t(unit | word),
 * each relative to that word's (unit's) best. The score of a pair of verses: each KJV
 * word's best link among the verse's units, each unit's best among the KJV words, each
 * side averaged with idf weights, and the two averages combined by their harmonic mean,
 * so a pair must explain both sides:
 * a KJV verse the layer verse does not cover lowers the first, a part of the layer verse
 * the KJV verses lack lowers the second. Words and units in fewer than `minVerses`
 * verses weigh nothing: the model learnt them from the very pair being judged.
 *
 * Several KJV verses are scored as one text by adding up each verse's part (a word two
 * of them share counts twice), so every (KJV verse, layer verse) part is computed once
 * however many alternatives reuse it.
 */
import { pairLookup, trainModel1 } from './align-model.ts';

export interface ScoreOptions { iterations: number; minVerses: number }

export interface Scorer {
  /** The score of layer verse n under the KJV verses `keys` (indexes); NaN when either side has nothing weighted. */
  score(keys: number[], n: number): number;
  /**
   * The same with word order: each link discounted by exp(-λ·|i/I − j/J|), the distance
   * between the two words' relative places (fast_align's diagonal prior, Dyer et al.
   * 2013). What tells a verse that runs on into the next KJV verse from one that merely
   * shares its words: the run-on part sits at its end, facing that verse's words.
   */
  positional(keys: number[], n: number, lambda: number): number;
  /** Up to `limit` of the KJV verses `among` sharing the most weighted translations with layer verse n. */
  candidates(n: number, among: number[], limit: number): number[];
}

/**
 * `kjv[k]`: the distinct word ids of KJV verse k; `units[n]`: the distinct unit ids of
 * layer verse n; `placed[n]`: the KJV verses it is placed under (training; [] to leave it out).
 */
export function scorer(kjvSeq: number[][], unitSeq: number[][], placed: number[][], wordCount: number, unitCount: number, opts: ScoreOptions): Scorer {
  const kjv = kjvSeq.map((l) => [...new Set(l)]), units = unitSeq.map((l) => [...new Set(l)]);
  const train = units.map((_, n) => n).filter((n) => placed[n].length);
  const wAt = new Int32Array(train.length + 1), uAt = new Int32Array(train.length + 1);
  const wl: number[] = [], ul: number[] = [];
  train.forEach((n, i) => {
    for (const k of placed[n]) for (const w of kjv[k]) wl.push(w);
    for (const u of units[n]) ul.push(u);
    wAt[i + 1] = wl.length; uAt[i + 1] = ul.length;
  });
  const { pairs, tf, tr } = trainModel1(Int32Array.from(wl), wAt, wordCount, Int32Array.from(ul), uAt, unitCount, opts.iterations);
  const pair = pairLookup(pairs);
  const idf = (lists: number[][], size: number) => {
    const df = new Int32Array(size);
    for (const l of lists) for (const x of l) df[x]++;
    return Float64Array.from(df, (d) => (d >= opts.minVerses ? Math.log(lists.length / d) : 0));
  };
  const wW = idf(kjv, wordCount), wU = idf(train.map((n) => units[n]), unitCount);
  // Each word's and unit's best translation probability anywhere: a pair's evidence is
  // taken relative to it in each direction, so a word the KJV renders many ways
  // ("assembly" for ἐκκλησία, mostly "church") still links to its own source word; and
  // the link is the geometric mean of the two directions (as the English alignment's
  // support, align-evidence.ts), so a frequent word that co-occurs with everything
  // ("should") links to nothing in particular.
  const maxF = new Float32Array(wordCount), maxR = new Float32Array(unitCount);
  for (let w = 0; w < wordCount; w++) {
    for (let p = pairs.wordStart[w]; p < pairs.wordStart[w + 1]; p++) {
      if (tf[p] > maxF[w]) maxF[w] = tf[p];
      if (tr[p] > maxR[pairs.unit[p]]) maxR[pairs.unit[p]] = tr[p];
    }
  }
  const relF = (x: number, w: number) => (maxF[w] > 0 ? x / maxF[w] : 0);
  const relR = (x: number, u: number) => (maxR[u] > 0 ? x / maxR[u] : 0);

  // One (KJV verse, layer verse) part: Σ w·best over the KJV words, their Σ w, and each unit's best.
  type Part = { sE: number; nE: number; bestF: Float64Array };
  const cache = new Map<number, Part>();
  const part = (k: number, n: number): Part => {
    const id = n * kjv.length + k;
    let p = cache.get(id);
    if (p) return p;
    const F = units[n], bestF = new Float64Array(F.length);
    let sE = 0, nE = 0;
    for (const e of kjv[k]) {
      if (!wW[e]) continue;
      let best = 0;
      for (let j = 0; j < F.length; j++) {
        const x = pair(e, F[j]);
        if (x < 0) continue;
        const l = Math.sqrt(relF(tf[x], e) * relR(tr[x], F[j]));
        if (l > best) best = l;
        if (l > bestF[j]) bestF[j] = l;
      }
      sE += wW[e] * best; nE += wW[e];
    }
    if (cache.size > 200_000) cache.clear();
    cache.set(id, (p = { sE, nE, bestF }));
    return p;
  };
  const score = (keys: number[], n: number) => {
    const F = units[n];
    let sE = 0, nE = 0, sF = 0, nF = 0;
    const best = new Float64Array(F.length);
    for (const k of keys) {
      const p = part(k, n);
      sE += p.sE; nE += p.nE;
      for (let j = 0; j < F.length; j++) if (p.bestF[j] > best[j]) best[j] = p.bestF[j];
    }
    for (let j = 0; j < F.length; j++) { sF += wU[F[j]] * best[j]; nF += wU[F[j]]; }
    if (!nE || !nF) return NaN;
    const a = sE / nE, b = sF / nF;
    return a + b > 0 ? (2 * a * b) / (a + b) : 0;
  };

  // For searches: each unit's three likeliest KJV words, and where each word occurs.
  const top = topWords(pairs.wordStart, pairs.unit, tf, unitCount, 3);
  const postings: number[][] = Array.from({ length: wordCount }, () => []);
  kjv.forEach((ws, k) => { for (const w of ws) if (wW[w]) postings[w].push(k); });
  const inSet = new Int32Array(kjv.length).fill(-1), acc = new Float64Array(kjv.length);
  let stamp = 0;
  const candidates = (n: number, among: number[], limit: number) => {
    stamp++;
    for (const k of among) { inSet[k] = stamp; acc[k] = 0; }
    for (const f of units[n]) {
      if (!wU[f]) continue;
      for (let t = 0; t < 3; t++) {
        const e = top.word[f * 3 + t];
        if (e < 0) continue;
        for (const k of postings[e]) if (inSet[k] === stamp) acc[k] += wU[f] * wW[e] * top.t[f * 3 + t];
      }
    }
    return among.filter((k) => acc[k] > 0).sort((a, b) => acc[b] - acc[a] || a - b).slice(0, limit);
  };
  // In order: each word's best link discounted by how far apart the two sit in their verses.
  const positional = (keys: number[], n: number, lambda: number) => {
    const E = keys.flatMap((k) => kjvSeq[k]), F = unitSeq[n], I = E.length, J = F.length;
    const bestF = new Float64Array(J);
    let sE = 0, nE = 0, sF = 0, nF = 0;
    E.forEach((e, i) => {
      if (!wW[e]) return;
      let best = 0;
      for (let j = 0; j < J; j++) {
        const x = pair(e, F[j]);
        if (x < 0) continue;
        const d = Math.exp(-lambda * Math.abs((i + 0.5) / I - (j + 0.5) / J));
        // Each side explained in its own direction: a KJV word by t(word | unit), a unit by
        // t(unit | word). Weaker evidence than the geometric mean, but beside an uncovered
        // verse it is what finds a short run-on verse whose words the KJV renders many ways
        // (SBLGNT Acts 19:40 ends with the KJV's 19:41, "he dismissed the assembly").
        const a = relF(tf[x], e) * d, b = relR(tr[x], F[j]) * d;
        if (a > best) best = a;
        if (b > bestF[j]) bestF[j] = b;
      }
      sE += wW[e] * best; nE += wW[e];
    });
    F.forEach((f, j) => { sF += wU[f] * bestF[j]; nF += wU[f]; });
    if (!nE || !nF) return NaN;
    const a = sE / nE, b = sF / nF;
    return a + b > 0 ? (2 * a * b) / (a + b) : 0;
  };
  return { score, positional, candidates };
}

/** Per unit, its `n` likeliest words by t(word | unit) (-1 where it has fewer). */
function topWords(wordStart: Int32Array, unit: Int32Array, tf: Float32Array, unitCount: number, n: number) {
  const word = new Int32Array(unitCount * n).fill(-1), t = new Float32Array(unitCount * n);
  for (let w = 0; w + 1 < wordStart.length; w++) {
    for (let p = wordStart[w]; p < wordStart[w + 1]; p++) {
      const base = unit[p] * n;
      let i = n - 1;
      if (tf[p] <= t[base + i] && word[base + i] >= 0) continue;
      while (i > 0 && (word[base + i - 1] < 0 || tf[p] > t[base + i - 1])) { word[base + i] = word[base + i - 1]; t[base + i] = t[base + i - 1]; i--; }
      word[base + i] = w; t[base + i] = tf[p];
    }
  }
  return { word, t };
}
