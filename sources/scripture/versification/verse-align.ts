/**
 * Aligns the verses of one book in two English translations that number verses
 * differently (the Douay-Rheims in the Vulgate's numbering against the KJV, the WEB
 * Catholic, Brenton's Septuagint…), by the words they share. Used only by
 * pipeline/versification-maps.ts, which writes the versification tables the build reads;
 * the build never aligns texts.
 *
 * Why by text: SWORD's own KJV→Vulg rules have no rule for several shifts (Jonah 1:17 =
 * Vulg 2:1, 1 Sam 21, Mic 5:15…) and map 1 Sam 20:42 wrongly, and no published table
 * covers Brenton's or the WEB Catholic's numbering. Two English renderings of the same
 * verse share their content words (names, nouns, verbs) far more than neighbouring
 * verses do, so a best path through the two books (verse-path.ts, like sentence
 * alignment of parallel texts) finds where the numberings part, and where one verse is
 * two of the other.
 *
 * Moves: 1–1, 2–1 and 1–2 (a verse split in one numbering), 1–0 and 0–1 (a verse only
 * one text has: the Greek additions, a verse the Vulgate lacks), and for the Septuagint
 * (`jumps`) going back, for its blocks in another order (Jeremiah 25:14–51, Exodus
 * 36–39). A 1–1 pair whose words barely agree is not trusted: the verse is left
 * unplaced, and later passes keep its own number or find a clear match for it.
 */
import { bestPath, type Gains } from './verse-path.ts';

export interface AlignVerse { ref: string; text: string }

const STOP = new Set(('a an and are as at be but by for from he her him his i in is it its me my not of on or our shall she so that the thee their them then there they thou thy to unto upon us was we were which who will with ye you your all also had has have hath into no nor now o out up what when also did do doth thereof this these those said saith say').split(' '));

/** Content words in order, lower-cased, accents removed, crude suffixes off (`blesseth`, `blessed` → `bless`). */
export function contentWords(text: string): string[] {
  const out: string[] = [];
  const plain = text.toLowerCase().normalize('NFD').replace(/\p{M}/gu, '').replace(/æ/g, 'ae');
  for (const w of plain.match(/[a-z]+/g) ?? []) {
    if (STOP.has(w) || w.length < 3) continue;
    out.push(w.length > 5 ? w.replace(/(eth|est|ed|es|ing|s)$/, '') : w.replace(/s$/, ''));
  }
  return out;
}
/** The distinct content words of a verse. */
export const words = (text: string): Set<string> => new Set(contentWords(text));

export function dice(a: Set<string>, b: Set<string>): number {
  if (!a.size || !b.size) return 0;
  let n = 0;
  for (const w of a) if (b.has(w)) n++;
  return (2 * n) / (a.size + b.size);
}
const union = (a: Set<string>, b: Set<string>) => new Set([...a, ...b]);

/** Below this a 1–1 pair is not taken as the same verse. */
export const MIN_PAIR = 0.2;
/** The second pass places a verse elsewhere in the book only above this, and clearly ahead of the runner-up. */
const RESCUE = 0.45;
/** A merge must earn more than the pair it replaces by this much (merges are rarer than pairs). */
const MERGE_COST = 0.06;
/**
 * Going back in the KJV's book costs this much (verse-path.ts), and lands only on a clear
 * match (RESCUE): three or four verses that agree pay for it, one does not. Asked for the
 * Septuagint's table only (`jumps`): its Jeremiah, Exodus 36–39, Proverbs 24–31 and parts
 * of 3 Kingdoms are in another order. Elsewhere jumps only scattered verses the KJV lacks
 * (Susanna, Bel, the additions to Esther) onto KJV verses sharing a few words.
 */
const JUMP_COST = 1.5;

/**
 * Dice coefficients of every verse of `a` (or pair of verses) against every verse (or
 * pair) of `b`, a row at a time: counted through an index of `b`'s words, as a full row
 * of set intersections for every verse of a long book was the whole cost.
 */
function diceGains(A: Set<string>[], B: Set<string>[]): Gains {
  const ids = new Map<string, number>();
  const id = (w: string) => ids.get(w) ?? (ids.set(w, ids.size), ids.size - 1);
  const a = A.map((s) => [...s].map(id)), b = B.map((s) => [...s].map(id));
  const both = b.map((s, j) => { const next = new Set(b[j + 1] ?? []); return s.filter((w) => next.has(w)); });
  const postings = (lists: number[][]) => {
    const out: number[][] = Array.from({ length: ids.size }, () => []);
    lists.forEach((l, j) => { for (const w of l) out[w].push(j); });
    return out;
  };
  const inB = postings(b), inBoth = postings(both);
  const count = new Int32Array(b.length), shared = new Int32Array(b.length);
  const countIn = (words: number[], index: number[][], into: Int32Array, lo: number, hi: number) => {
    into.fill(0, lo, Math.min(hi + 1, into.length));
    for (const w of words) for (const j of index[w]) if (j >= lo && j <= hi) into[j]++;
  };
  const fill = (words: number[], lo: number, hi: number, out: Float64Array) => {
    countIn(words, inB, count, lo, hi);
    for (let j = lo; j < hi; j++) out[j] = words.length && b[j].length ? (2 * count[j]) / (words.length + b[j].length) : 0;
  };
  return {
    pair: (i, lo, hi, out) => fill(a[i], lo, hi, out),
    merged: (i, lo, hi, out) => fill([...new Set([...a[i], ...a[i + 1]])], lo, hi, out),
    split(i, lo, hi, out) {
      // |a ∩ (b[j] ∪ b[j+1])| = |a ∩ b[j]| + |a ∩ b[j+1]| − |a ∩ b[j] ∩ b[j+1]|
      countIn(a[i], inB, count, lo, hi + 1);
      countIn(a[i], inBoth, shared, lo, hi);
      for (let j = lo; j < hi; j++) {
        const size = b[j].length + b[j + 1].length - both[j].length, n = count[j] + count[j + 1] - shared[j];
        out[j] = a[i].length && size ? (2 * n) / (a[i].length + size) : 0;
      }
    },
  };
}

export interface AlignOptions {
  /** Blocks may be in another order (the Septuagint): the path may go back (verse-path.ts). */
  jumps?: boolean;
  /** Chapters are numbered otherwise (the Vulgate's Psalms): a verse's own number is no fallback outside its neighbours' chapter. */
  otherChapters?: boolean;
}

/**
 * For each verse of `a`, the refs of `b` it corresponds to ([] when none): one ref for a
 * verse both number alike or shifted, two when `a`'s verse is two of `b`'s; two verses
 * of `a` that are one of `b` both get that ref.
 */
export function alignBook(a: AlignVerse[], b: AlignVerse[], sameRef: (ref: string) => string = (r) => r, opts: AlignOptions = {}): Map<string, string[]> {
  const A = a.map((v) => words(v.text));
  const B = b.map((v) => words(v.text));
  const out = new Map<string, string[]>(a.map((v) => [v.ref, []]));
  for (const st of bestPath(a.length, b.length, diceGains(A, B), { mergeCost: MERGE_COST, jumpCost: opts.jumps ? JUMP_COST : null, jumpMin: RESCUE, skipCost: opts.jumps ? JUMP_COST / 30 : 0 })) {
    if (st.da === 2) { out.set(a[st.i].ref, [b[st.j].ref]); out.set(a[st.i + 1].ref, [b[st.j].ref]); }
    else if (st.db === 2) out.set(a[st.i].ref, [b[st.j].ref, b[st.j + 1].ref]);
    else if (st.gain >= MIN_PAIR) out.set(a[st.i].ref, [b[st.j].ref]);
  }
  keepNumber(a, b, out, sameRef, !!(opts.jumps || opts.otherChapters));
  rescue(a, A, b, B, out, !!opts.jumps);
  attachLone(a, out);
  return out;
}

/**
 * A single short verse left unplaced between two placed ones continues the verse before
 * it (Vulg Gen 38:28 "This shall come forth the first" is the end of KJV 38:28, which
 * the verse before already reached). A run of two or more unplaced verses is left alone:
 * those are verses the other text lacks (Dan 3:24–90).
 */
function attachLone(a: AlignVerse[], out: Map<string, string[]>) {
  for (let i = 1; i + 1 < a.length; i++) {
    const prev = out.get(a[i - 1].ref)!, here = out.get(a[i].ref)!, next = out.get(a[i + 1].ref)!;
    if (here.length || !prev.length || !next.length || words(a[i].text).size > 6) continue;
    out.set(a[i].ref, [prev[prev.length - 1]]);
  }
}

/**
 * A verse left unplaced whose own number is a verse of `b` nobody else took keeps that
 * number: the words disagree (names spelled otherwise, a verse one text brackets), but
 * nothing says it moved. Where whole chapters are numbered otherwise (`otherChapters`:
 * the Septuagint's Jeremiah 39 is the Hebrew's 32, the Douay-Rheims' Psalm 22 the KJV's
 * 23), not if its neighbours went to another chapter: its own number means nothing there.
 */
function keepNumber(a: AlignVerse[], b: AlignVerse[], out: Map<string, string[]>, sameRef: (ref: string) => string, otherChapters: boolean) {
  const taken = new Set([...out.values()].flat());
  const inB = new Set(b.map((v) => v.ref));
  const chapter = (ref: string) => ref.slice(0, ref.lastIndexOf('.'));
  a.forEach((v, i) => {
    const own = sameRef(v.ref);
    if (out.get(v.ref)!.length || !inB.has(own) || taken.has(own)) return;
    const near = [out.get(a[i - 1]?.ref)?.at(-1), out.get(a[i + 1]?.ref)?.[0]].filter((r): r is string => !!r);
    if (otherChapters && near.length && !near.some((r) => chapter(r) === chapter(own))) return;
    out.set(v.ref, [own]);
    taken.add(own);
  });
}

/** Unplaced verses of `a` with one clearly best verse of `b` anywhere in the book. */
function rescue(a: AlignVerse[], A: Set<string>[], b: AlignVerse[], B: Set<string>[], out: Map<string, string[]>, reordered: boolean) {
  const taken = new Set([...out.values()].flat());
  const chapter = (ref: string) => ref.slice(0, ref.lastIndexOf('.'));
  a.forEach((v, i) => {
    if (out.get(v.ref)!.length || A[i].size < 3) return;
    let best = -1, first = 0, second = 0;
    // Where blocks are in another order the path has followed them (verse-path.ts jumps):
    // a verse is looked for only in the chapters its neighbours went to, not in a parallel
    // passage elsewhere (the Septuagint's Exodus 39:12, "gold, silver, brass", is not 25:3).
    const around = new Set([out.get(a[i - 1]?.ref)?.at(-1), out.get(a[i + 1]?.ref)?.[0]].filter((r): r is string => !!r).map(chapter));
    B.forEach((w, j) => {
      if (reordered && !around.has(chapter(b[j].ref))) return;
      const s = dice(A[i], w);
      if (s > first) { second = first; first = s; best = j; } else if (s > second) second = s;
    });
    if (best >= 0 && first >= RESCUE && first >= second * 1.5 && !taken.has(b[best].ref)) { out.set(v.ref, [b[best].ref]); taken.add(b[best].ref); return; }
    // Two verses in swapped order (Phil 1:16–17 in the ASV): a free verse of `b` next to
    // where the neighbours went, if the words agree at all.
    const near = [out.get(a[i - 1]?.ref)?.at(-1), out.get(a[i + 1]?.ref)?.[0]].filter((r): r is string => !!r);
    for (const r of near) {
      const j = b.findIndex((w) => w.ref === r);
      for (const k of [j - 1, j + 1]) {
        if (k >= 0 && k < b.length && !taken.has(b[k].ref) && dice(A[i], B[k]) >= MIN_PAIR) { out.set(v.ref, [b[k].ref]); taken.add(b[k].ref); return; }
      }
    }
  });
}
