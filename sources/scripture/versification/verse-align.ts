/**
 * Aligns the verses of one book in two English translations that number verses
 * differently (the Douay-Rheims in the Vulgate's numbering against the KJV, the WEB
 * Catholic, Brenton's Septuagint…), by the words they share. Used only by pipeline/versification-maps.ts,
 * which writes the versification tables the build reads; the build never aligns texts.
 *
 * Why by text: SWORD's own KJV→Vulg rules have no rule for several shifts (Jonah 1:17 =
 * Vulg 2:1, 1 Sam 21, Mic 5:15…) and map 1 Sam 20:42 wrongly, and no published table
 * covers Brenton's or the WEB Catholic's numbering. Two English renderings of the same
 * verse share their content words (names, nouns, verbs) far more than neighbouring
 * verses do, so a monotone alignment (like sentence alignment of parallel texts) finds
 * where the numberings part, and where one verse is two of the other.
 *
 * Moves: 1–1, 2–1 and 1–2 (a verse split in one numbering), 1–0 and 0–1 (a verse only
 * one text has: the Greek additions, a verse the Vulgate lacks). A 1–1 pair whose words
 * barely agree is not trusted: the verse is left unplaced and a second pass looks for a
 * clear best match anywhere in the book (Brenton's Jeremiah follows the Septuagint's
 * order of chapters, which no monotone alignment can follow).
 */
export interface AlignVerse { ref: string; text: string }

const STOP = new Set(('a an and are as at be but by for from he her him his i in is it its me my not of on or our shall she so that the thee their them then there they thou thy to unto upon us was we were which who will with ye you your all also had has have hath into no nor now o out up what when also did do doth thereof this these those said saith say').split(' '));

/** Content words, lower-cased, accents removed, crude suffixes off (`blesseth`, `blessed` → `bless`). */
export function words(text: string): Set<string> {
  const out = new Set<string>();
  const plain = text.toLowerCase().normalize('NFD').replace(/\p{M}/gu, '').replace(/æ/g, 'ae');
  for (const w of plain.match(/[a-z]+/g) ?? []) {
    if (STOP.has(w) || w.length < 3) continue;
    out.add(w.length > 5 ? w.replace(/(eth|est|ed|es|ing|s)$/, '') : w.replace(/s$/, ''));
  }
  return out;
}

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
 * For each verse of `a`, the refs of `b` it corresponds to ([] when none): one ref for a
 * verse both number alike or shifted, two when `a`'s verse is two of `b`'s; two verses
 * of `a` that are one of `b` both get that ref.
 */
export function alignBook(a: AlignVerse[], b: AlignVerse[], sameRef: (ref: string) => string = (r) => r): Map<string, string[]> {
  const A = a.map((v) => words(v.text));
  const B = b.map((v) => words(v.text));
  const n = A.length, m = B.length;
  const band = 150 + Math.abs(n - m);
  const centre = (i: number) => (m * i) / Math.max(1, n);
  const inBand = (i: number, j: number) => Math.abs(centre(i) - j) <= band;
  // score[i][j]: best total aligning a[0..i) with b[0..j); move[i][j] how it was reached.
  const W = m + 1;
  const score = new Float64Array((n + 1) * W).fill(-Infinity);
  const move = new Uint8Array((n + 1) * W);
  score[0] = 0;
  const at = (i: number, j: number) => i * W + j;
  for (let i = 0; i <= n; i++) {
    for (let j = 0; j <= m; j++) {
      if ((i || j) && !inBand(i, j)) continue;
      const s = score[at(i, j)];
      if (s === -Infinity) continue;
      const relax = (di: number, dj: number, gain: number, code: number) => {
        const k = at(i + di, j + dj);
        if (s + gain > score[k]) { score[k] = s + gain; move[k] = code; }
      };
      if (i < n) relax(1, 0, 0, 1);
      if (j < m) relax(0, 1, 0, 2);
      if (i < n && j < m) {
        relax(1, 1, dice(A[i], B[j]), 3);
        if (i + 1 < n) relax(2, 1, dice(union(A[i], A[i + 1]), B[j]) - MERGE_COST, 4);
        if (j + 1 < m) relax(1, 2, dice(A[i], union(B[j], B[j + 1])) - MERGE_COST, 5);
      }
    }
  }
  const out = new Map<string, string[]>(a.map((v) => [v.ref, []]));
  for (let i = n, j = m; i > 0 || j > 0;) {
    const code = move[at(i, j)];
    if (code === 1) i--;
    else if (code === 2) j--;
    else if (code === 3) {
      if (dice(A[i - 1], B[j - 1]) >= MIN_PAIR) out.set(a[i - 1].ref, [b[j - 1].ref]);
      i--; j--;
    } else if (code === 4) { out.set(a[i - 2].ref, [b[j - 1].ref]); out.set(a[i - 1].ref, [b[j - 1].ref]); i -= 2; j--; }
    else if (code === 5) { out.set(a[i - 1].ref, [b[j - 2].ref, b[j - 1].ref]); i--; j -= 2; }
    else throw new Error(`alignment lost its way at ${i},${j}`);
  }
  keepNumber(a, b, out, sameRef);
  rescue(a, A, b, B, out);
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
 * nothing says it moved.
 */
function keepNumber(a: AlignVerse[], b: AlignVerse[], out: Map<string, string[]>, sameRef: (ref: string) => string) {
  const taken = new Set([...out.values()].flat());
  const inB = new Set(b.map((v) => v.ref));
  for (const v of a) {
    const own = sameRef(v.ref);
    if (!out.get(v.ref)!.length && inB.has(own) && !taken.has(own)) { out.set(v.ref, [own]); taken.add(own); }
  }
}

/** Unplaced verses of `a` with one clearly best verse of `b` anywhere in the book. */
function rescue(a: AlignVerse[], A: Set<string>[], b: AlignVerse[], B: Set<string>[], out: Map<string, string[]>) {
  const taken = new Set([...out.values()].flat());
  a.forEach((v, i) => {
    if (out.get(v.ref)!.length || A[i].size < 3) return;
    let best = -1, first = 0, second = 0;
    B.forEach((w, j) => {
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
