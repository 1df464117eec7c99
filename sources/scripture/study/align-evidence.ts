/**
 * Evidence for the generated English alignment: how well the whole parallel corpus of a
 * translation supports each link its Strong's tags make (english.ts), so that a link the
 * corpus contradicts is not served as `medium`.
 *
 * Why a model: the upstream tags are often wrong (CrossWire's ASV tags "but they that
 * wait for Jehovah shall…" as H3808 H3808 H3068 … H3068: function words inherit a
 * neighbour's number), and a shared number alone cannot tell. The model is IBM Model 1
 * (Brown et al. 1993), trained by EM in both directions over every verse of the
 * translation: the English words with Strong's markup on one side, the source tokens'
 * units on the other (align-units.ts: the Strong's number plus what the morphology
 * encodes that English renders as words, so "and" can be explained by a וְ and "of" by a
 * genitive). The tags are not used in training: the evidence is independent of what it
 * checks. A link's support is the geometric mean of its posterior in the two directions,
 * each with a diagonal prior on relative position (as in fast_align, Dyer et al. 2013),
 * which is what tells the two αὐτόν of a verse apart.
 *
 * Cost: typed arrays only (align-pairs.ts), under 100 MB for a whole Bible, garbage once
 * `judgeLinks` returns. Deterministic: fixed iteration count, verses in the order given.
 */
import type { TokenTuple } from './tokens.ts';
import type { PairTable } from './align-pairs.ts';
import { trainModel1 } from './align-model.ts';
import { unitsOf } from './align-units.ts';

export interface LinkVerse {
  /** Source tokens are OSHB (Hebrew/Aramaic morphology) rather than Byzantine Greek. */
  hebrew: boolean;
  /** The English words carrying Strong's markup, in order. */
  words: string[];
  /** Per word, the indexes into `source` its tag links (empty: no token has the number). */
  links: number[][];
  /** The verse's source tokens, in panel order. */
  source: TokenTuple[];
}

/** The verdicts on every English word of the verses judged, flat (typed: a Bible has ~650,000 words). */
export interface Judgement {
  /** Verse n's words are at[n] … at[n+1] - 1. */
  at: Int32Array;
  /** Support for the word's tagged link, 0–1 (the better-supported linked token when several; 0 with no link). */
  support: Float32Array;
  /**
   * The source token the model prefers, or -1: given where the tag is contradicted (not
   * `keep`) or links several tokens, and the preferred token's own support is `suggest`.
   */
  suggested: Int32Array;
}

export interface EvidenceOptions {
  /** EM iterations per direction. */
  iterations: number;
  /** Strength of the diagonal prior on relative position (0: plain Model 1). */
  diagonal: number;
  /** A tagged link is supported when its support is at least this. */
  keep: number;
  /** A token is suggested when its support is at least this. */
  suggest: number;
}
/** Chosen on the judged sample, test/fixtures/alignment-judged.json (docs/alignment.md). */
export const EVIDENCE_DEFAULTS: EvidenceOptions = { iterations: 4, diagonal: 12, keep: 0.3, suggest: 0.3 };

/** Trains the model on `verses` and judges every tagged link in them. Pure. */
export function judgeLinks(verses: LinkVerse[], opts: EvidenceOptions = EVIDENCE_DEFAULTS): Judgement {
  const wordIds = new Map<string, number>([['', 0]]), unitIds = new Map<string, number>([['', 0]]);
  const id = (m: Map<string, number>, k: string) => m.get(k) ?? (m.set(k, m.size), m.size - 1);
  const asWritten = new Map<string, number>(); // "The" and "the" are one word
  const wordId = (w: string) => asWritten.get(w) ?? (asWritten.set(w, id(wordIds, w.toLowerCase().replace(/’/g, "'"))), asWritten.get(w)!);
  // Typed lists sized up front: the build's heap is large, and big JS arrays grown by
  // push would be promoted garbage that costs full collections.
  let wordCount = 0, tokenCount = 0;
  for (const v of verses) { wordCount += v.words.length; tokenCount += v.source.length; }
  const wAt = new Int32Array(verses.length + 1), uAt = new Int32Array(verses.length + 1), tokAt = new Int32Array(verses.length + 1);
  const wordList = new Int32Array(wordCount), tokUnitAt = new Int32Array(tokenCount + 1);
  let unitList = new Int32Array(3 * tokenCount), nw = 0, nu = 0, nt = 0;
  verses.forEach((v, n) => {
    for (const w of v.words) wordList[nw++] = wordId(w);
    for (const t of v.source) {
      for (const u of unitsOf(t, v.hebrew)) {
        if (nu === unitList.length) { const b = new Int32Array(2 * nu); b.set(unitList); unitList = b; }
        unitList[nu++] = id(unitIds, u);
      }
      tokUnitAt[++nt] = nu;
    }
    wAt[n + 1] = nw; uAt[n + 1] = nu; tokAt[n + 1] = nt;
  });
  const { pairs, tf, tr, W, U } = trainModel1(wordList, wAt, wordIds.size, unitList.subarray(0, nu), uAt, unitIds.size, opts.iterations);
  const model: Model = { pairs, tf, tr, nU: U.side.start, wIds: W.side.ids, wEntry: W.side.start, rows: W.place, cols: U.place, wAt, tokAt, tokUnitAt };
  const out: Judgement = { at: wAt, support: new Float32Array(wAt[verses.length]), suggested: new Int32Array(wAt[verses.length]) };
  verses.forEach((v, n) => judgeVerse(v, n, model, opts, out));
  return out;
}

interface Model {
  pairs: PairTable; tf: Float32Array; tr: Float32Array;
  /** Per verse, where its unit entries start (Side.start): the width of its grid. */
  nU: Int32Array;
  /** The word entries (Side.ids) and where each verse's start: the rows of its grid. */
  wIds: Int32Array; wEntry: Int32Array;
  /** Row of each English word, column of each token unit, in its verse's grid. */
  rows: Int32Array; cols: Int32Array;
  /** Where each verse's words and tokens start; where each token's units start. */
  wAt: Int32Array; tokAt: Int32Array; tokUnitAt: Int32Array;
}

/** Scratch for judgeVerse, grown as needed: one verse at a time, no allocation per verse. */
let scratch = new Float64Array(0), rowAt = new Int32Array(0);

/** Each source token's support for each English word, and the verdict on the word's tagged link. */
function judgeVerse(v: LinkVerse, n: number, m: Model, opts: EvidenceOptions, out: Judgement) {
  const I = v.words.length, K = v.source.length, IK = I * K, nU = m.nU[n + 1] - m.nU[n], base = m.pairs.cellStart[n];
  const { tf, tr } = m, { cells, wordStart } = m.pairs, w0 = m.wAt[n], t0 = m.tokAt[n], e0 = m.wEntry[n];
  if (scratch.length < 4 * IK + I) scratch = new Float64Array(8 * IK + 2 * I);
  if (rowAt.length < 2 * (I + 1)) rowAt = new Int32Array(4 * (I + 1));
  // Where each English word's row (and, last, the NULL row) starts in the grid, and its block of pairs.
  for (let i = 0; i <= I; i++) {
    const r = i < I ? m.rows[w0 + i] : 0;
    rowAt[2 * i] = base + r * nU;
    rowAt[2 * i + 1] = wordStart[m.wIds[e0 + r]];
  }
  const pair = (i: number, c: number) => rowAt[2 * i + 1] + cells[rowAt[2 * i] + c];
  // Diagonal prior d(i,k), normalised per English word (forward weights) and per token
  // (reverse weights); NULL keeps Model 1's 1/(n+1).
  const fwdW = scratch.subarray(0, IK), revW = scratch.subarray(IK, 2 * IK);
  const lex = scratch.subarray(2 * IK, 3 * IK).fill(0), rev = scratch.subarray(3 * IK, 4 * IK).fill(0);
  for (let i = 0; i < I; i++) {
    for (let k = 0; k < K; k++) fwdW[i * K + k] = revW[i * K + k] = Math.exp(-opts.diagonal * Math.abs((i + 0.5) / I - (k + 0.5) / K));
  }
  for (let i = 0; i < I; i++) {
    let s = 0;
    for (let k = 0; k < K; k++) s += fwdW[i * K + k];
    for (let k = 0; k < K; k++) fwdW[i * K + k] *= K / (K + 1) / s;
  }
  for (let k = 0; k < K; k++) {
    let s = 0;
    for (let i = 0; i < I; i++) s += revW[i * K + k];
    for (let i = 0; i < I; i++) revW[i * K + k] *= I / (I + 1) / s;
  }
  // lex: Σ t(word | unit) over the token's units; rev: the best unit's reverse posterior.
  const back = scratch.subarray(4 * IK, 4 * IK + I);
  for (let k = 0; k < K; k++) {
    for (let x = m.tokUnitAt[t0 + k]; x < m.tokUnitAt[t0 + k + 1]; x++) {
      const c = m.cols[x];
      let zr = tr[pair(I, c)] / (I + 1);
      for (let i = 0; i < I; i++) {
        const p = pair(i, c);
        lex[i * K + k] += tf[p];
        zr += (back[i] = tr[p] * revW[i * K + k]);
      }
      if (zr > 0) for (let i = 0; i < I; i++) rev[i * K + k] = Math.max(rev[i * K + k], back[i] / zr);
    }
  }
  for (let i = 0; i < I; i++) {
    let z = tf[pair(i, 0)] / (K + 1);
    for (let k = 0; k < K; k++) z += lex[i * K + k] * fwdW[i * K + k];
    // Support: the geometric mean of the two posteriors (both directions must agree).
    for (let k = 0; k < K; k++) lex[i * K + k] = z > 0 ? Math.sqrt(Math.min(1, lex[i * K + k] * fwdW[i * K + k] / z) * Math.min(1, rev[i * K + k])) : 0;
    let best = -1, linked = 0;
    for (let k = 0; k < K; k++) if (lex[i * K + k] > (best < 0 ? 0 : lex[i * K + best])) best = k;
    const links = v.links[i];
    for (const l of links) linked = Math.max(linked, lex[i * K + l]);
    // A suggestion where the tag is contradicted, or where it narrows several candidates to one.
    const suggest = best >= 0 && lex[i * K + best] >= opts.suggest && (links.length > 1 || (linked < opts.keep && links[0] !== best));
    out.support[w0 + i] = linked;
    out.suggested[w0 + i] = suggest ? best : -1;
  }
}
