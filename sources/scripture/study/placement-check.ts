/**
 * Every placement of a layer checked by its content (issue 36). A layer verse sits under
 * the KJV study keys its numbering table gives (versification.ts, ../versification/
 * numbering.ts); a table that places a verse one off, or under one of the two KJV verses
 * it covers, shows the wrong text, or none, with nothing to say so. The tables stay data;
 * this checks every placement they make, over the whole layer, with no list of known cases.
 *
 * Each (KJV verses, layer verse) pair is scored by the alignment model trained on the
 * layer itself (placement-score.ts). A placement is flagged when an alternative scores
 * clearly better (`gain` more and `ratio` times as much):
 * - `shifted`: the keys one verse earlier or later, where no other layer verse fits that
 *   KJV verse about as well (else it is a similar verse, not a shift);
 * - `spans-neighbour`: one more KJV verse, which no other layer verse fits about as
 *   well: the verse holds that KJV verse too and must be shown under both (`shared`).
 *   Beside a KJV verse no layer verse is placed under, judged with word order too
 *   (placement-score.ts `positional`), as a short verse's words are often its neighbour's;
 * - `boundary`: a shift or one more KJV verse where that verse has its own layer verse
 *   fitting it about as well: a verse division that differs by a clause, or words two
 *   verses share; not moved, and explained as such;
 * - `spans-fewer`: one KJV verse fewer, where another layer verse fits the one dropped
 *   clearly better;
 * - `elsewhere`: for placements scoring under the layer's median, the best KJV verse up
 *   to `near` verses off in the chapter and, under `low` times the median, anywhere in
 *   the book, kept in runs of `run` or more verses whose best
 *   verses follow one another (a block in another order, as the Septuagint's Jeremiah),
 *   or alone a few verses off in the same chapter where no layer verse fits that KJV
 *   verse about as well (the Peshitta's Rom 16:27 is the KJV's 16:24); other single hits
 *   are parallel passages and formulas.
 * A flag the layer's notes explain (a genuine textual difference) carries the reason.
 */
import { scorer } from './placement-score.ts';

/** A layer verse: its own reference, the study keys it is placed under ([] when unplaced), its words as the model's units. */
export interface PlacedVerse { ref: string; keys: string[]; units: string[] }
/** A KJV verse (study key) and its words, in canon order. */
export interface KeyText { key: string; words: string[] }

export type FlagKind = 'shifted' | 'spans-neighbour' | 'boundary' | 'spans-fewer' | 'elsewhere';
export interface PlacementFlag {
  ref: string;
  keys: string[];
  score: number;
  kind: FlagKind;
  better: string[];
  better_score: number;
  /** Why the flag is left standing: a clause boundary, a genuine textual difference… */
  reason?: string;
}
export interface PlacementCheck {
  /** Placements scored (layer verses placed under KJV verses, with words the model weighs). */
  checked: number;
  flagged: number;
  /** Flags left standing with a reason. */
  explained: number;
  by_kind: Partial<Record<FlagKind, number>>;
  flags: PlacementFlag[];
  median_score: number;
  /** KJV verses of the books the layer covers that none of its verses is placed under. */
  uncovered: number;
  uncovered_references: string[];
  /** Why a KJV verse has no verse of this layer (its text lacks it…), from the layer's notes. */
  uncovered_reasons: Record<string, string>;
}

/** Reasons written after reading the texts (maps/placement-notes.json): for a flagged layer verse, and for a KJV verse left uncovered. */
export interface PlacementNotes { flags?: Record<string, string>; uncovered?: Record<string, string> }

export interface CheckOptions {
  iterations: number; minVerses: number;
  /** An alternative is clearly better with this much more score and this many times as much. */
  gain: number; ratio: number;
  /** Placements under this share of the median are searched for in the whole book; such finds count in runs of `run`, or alone within `near` verses. */
  low: number; run: number; near: number;
  /** Beside an uncovered KJV verse: the diagonal prior's strength, and what a run-on must gain. */
  lambda: number; runOnGain: number; runOnRatio: number;
}
/** Chosen on the layers as built (docs/alignment.md, "Placement check"). */
export const CHECK_DEFAULTS: CheckOptions = { iterations: 4, minVerses: 3, gain: 0.1, ratio: 1.5, low: 0.7, run: 3, near: 4, lambda: 4, runOnGain: 0.03, runOnRatio: 1.25 };

const bookOf = (key: string) => key.slice(0, key.indexOf('.'));
const chapterOf = (key: string) => key.slice(0, key.lastIndexOf('.'));
const round = (x: number) => Math.round(x * 1000) / 1000;

/**
 * `alsoCovered`: KJV verses a sibling layer holds (the Aramaic of Ezra and Daniel for the
 * Hebrew layer): not counted as uncovered.
 */
export function checkPlacements(kjv: KeyText[], verses: PlacedVerse[], notes: PlacementNotes = {}, opts: CheckOptions = CHECK_DEFAULTS, alsoCovered: Set<string> = new Set()): PlacementCheck {
  const at = new Map(kjv.map((k, i) => [k.key, i]));
  const wordIds = new Map<string, number>([['', 0]]), unitIds = new Map<string, number>([['', 0]]);
  const id = (m: Map<string, number>, k: string) => m.get(k) ?? (m.set(k, m.size), m.size - 1);
  const kjvIds = kjv.map((k) => k.words.map((w) => id(wordIds, w)));
  const placed = verses.filter((v) => v.keys.length && v.keys.every((k) => at.has(k)));
  const units = placed.map((v) => v.units.map((u) => id(unitIds, u)));
  const keys = placed.map((v) => v.keys.map((k) => at.get(k)!));
  const s = scorer(kjvIds, units, keys, wordIds.size, unitIds.size, opts);

  const occupants = new Map<number, number[]>();
  keys.forEach((ks, n) => { for (const k of ks) (occupants.get(k) ?? occupants.set(k, []).get(k)!).push(n); });
  /** How well KJV verse k is fitted by the layer verses shown there, other than n (-1: none). */
  const held = (k: number, n: number) => Math.max(-1, ...(occupants.get(k) ?? []).filter((m) => m !== n).map((m) => s.score([k], m) || 0));
  const sameBook = (i: number, j: number) => j >= 0 && j < kjv.length && bookOf(kjv[i].key) === bookOf(kjv[j].key);
  const clearly = (alt: number, cur: number) => alt - cur >= opts.gain && alt >= opts.ratio * cur;

  const cur = placed.map((_, n) => s.score(keys[n], n));
  const known = cur.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  const median = known.length ? known[known.length >> 1] : 0;
  const bookKeys = new Map<string, number[]>();
  kjv.forEach((k, i) => (bookKeys.get(bookOf(k.key)) ?? bookKeys.set(bookOf(k.key), []).get(bookOf(k.key))!).push(i));

  const flags: (PlacementFlag & { n: number })[] = [];
  const flag = (n: number, kind: FlagKind, ks: number[], score: number, reason?: string, from = cur[n]) =>
    flags.push({ n, ref: placed[n].ref, keys: placed[n].keys, score: round(from), kind, better: ks.map((i) => kjv[i].key), better_score: round(score), ...(reason ? { reason } : {}) });
  /** The other layer verses shown under KJV verse k that fit it about as well as verse n would (not clearly worse). */
  const holders = (k: number, n: number) => {
    const mine = s.score([k], n);
    return (occupants.get(k) ?? []).filter((m) => m !== n && !clearly(mine, s.score([k], m) || 0));
  };
  const far: { n: number; k: number; score: number; near: boolean }[] = [];
  const boundaries = new Map<number, () => void>();
  placed.forEach((_, n) => {
    const c = cur[n], ks = keys[n];
    if (Number.isNaN(c)) return;
    const first = ks[0], last = ks[ks.length - 1];
    const alts: [FlagKind, number[], number, number[]][] = [];
    const consider = (to: number[], moved: FlagKind) => {
      const sc = s.score(to, n);
      if (!clearly(sc, c)) return;
      const held = to.filter((k) => !ks.includes(k)).flatMap((k) => holders(k, n));
      alts.push([held.length ? 'boundary' : moved, to, sc, held]);
    };
    for (const d of [-1, 1]) if (ks.every((i) => sameBook(i, i + d))) consider(ks.map((i) => i + d), 'shifted');
    if (sameBook(first, first - 1)) consider([first - 1, ...ks], 'spans-neighbour');
    if (sameBook(last, last + 1)) consider([...ks, last + 1], 'spans-neighbour');
    // One KJV verse fewer: where another layer verse fits the verse dropped clearly better
    // (it is that verse's), as long as this one fits the rest no worse.
    if (ks.length > 1) {
      for (const [to, dropped] of [[ks.slice(1), first], [ks.slice(0, -1), last]] as [number[], number][]) {
        const sc = s.score(to, n), mine = s.score([dropped], n) || 0;
        if (sc >= c && (occupants.get(dropped) ?? []).some((m) => m !== n && clearly(s.score([dropped], m) || 0, mine))) alts.push(['spans-fewer', to, sc, []]);
      }
    }
    // A misplacement before a boundary: the best of the others; a boundary only if the
    // verse is not found elsewhere either (below).
    const real = alts.filter((x) => x[0] !== 'boundary').sort((x, y) => y[2] - x[2]);
    if (real.length) { flag(n, real[0][0], real[0][1], real[0][2]); return; }
    const edge = alts.sort((x, y) => y[2] - x[2])[0];
    if (edge) {
      boundaries.set(n, () => flag(n, 'boundary', edge[1], edge[2],
        `not moved: the KJV verse it would reach has its own verse in this layer (${[...new Set(edge[3].map((m) => placed[m].ref))].join(', ')}), which fits it about as well; a verse division that differs by a clause, or words the two verses share`));
    }
    if (c < median) {
      // The best clearly better verse a few verses off in the chapter and, for a placement
      // scoring well under the median, in the whole book.
      const around = bookKeys.get(bookOf(kjv[first].key))!.filter((k) => Math.abs(k - first) <= opts.near && chapterOf(kjv[k].key) === chapterOf(kjv[first].key));
      const look = c < opts.low * median ? [...new Set([...around, ...s.candidates(n, bookKeys.get(bookOf(kjv[first].key))!, 20)])] : around;
      let best: { k: number; score: number; near: boolean } | null = null;
      for (const k of look) {
        if (k >= first - 1 && k <= last + 1) continue;
        const sc = s.score([k], n);
        if (!clearly(sc, c)) continue;
        // Alone it counts only a few verses off in the same chapter, where no layer verse
        // fits that KJV verse about as well (a verse moved: the Peshitta's Rom 16:27 is the
        // KJV's 16:24); further off it is a parallel passage or a formula.
        const near = chapterOf(kjv[k].key) === chapterOf(kjv[first].key) && Math.abs(k - first) <= opts.near && !holders(k, n).length;
        if (!best || sc > best.score) best = { k, score: sc, near };
      }
      if (best) far.push({ n, ...best });
    }
  });
  // A KJV verse no layer verse is placed under: does a neighbour run on into it? Judged
  // with word order (Scorer.positional), as a short verse's words are often found in
  // its neighbour too ("assembly" in Acts 19:39 and 19:41).
  const covered = new Set([...keys.flat().map((k) => kjv[k].key), ...alsoCovered]);
  const flagged = new Set(flags.map((f) => f.n));
  for (const g of kjv.keys()) {
    if (covered.has(kjv[g].key)) continue;
    for (const k of [g - 1, g + 1]) {
      if (!sameBook(g, k)) continue;
      const there = occupants.get(k) ?? [];
      // A gap beside a KJV verse two layer verses share: the one facing the gap (the last
      // of them before it, the first after it) moves into it when it fits the gap better
      // than where it is; the gap and the doubled verse are the evidence, so no clear margin
      // is asked (the Vulgate's Ps 22:2 under KJV 23:1 with 22:1, KJV 23:2 empty).
      if (there.length > 1) {
        const n = g > k ? Math.max(...there) : Math.min(...there);
        const stay = s.score([k], n), move = s.score([g], n);
        if (keys[n].length === 1 && !flagged.has(n) && move > stay && there.some((m) => m !== n && s.score([k], m) >= stay)) {
          flag(n, 'shifted', [g], move); flagged.add(n); boundaries.delete(n);
          continue;
        }
      }
      for (const n of there) {
        const ks = keys[n];
        if (flagged.has(n) || (g < ks[0] ? ks[0] !== g + 1 : ks[ks.length - 1] !== g - 1)) continue;
        const to = g < ks[0] ? [g, ...ks] : [...ks, g];
        const p0 = s.positional(ks, n, opts.lambda), p1 = s.positional(to, n, opts.lambda);
        if (p1 - p0 >= opts.runOnGain && p1 >= opts.runOnRatio * p0) { flag(n, 'spans-neighbour', to, p1, undefined, p0); flagged.add(n); boundaries.delete(n); }
      }
    }
  }
  // Far placements count only in runs whose best verses follow one another.
  for (let i = 0; i < far.length;) {
    let j = i + 1;
    // A run: consecutive layer verses whose best verses follow one another (not one verse
    // many point at: Num 33's "and they pitched in…").
    while (j < far.length && far[j].n === far[j - 1].n + 1 && far[j].k - far[j - 1].k >= 1 && far[j].k - far[j - 1].k <= 2 && sameBook(far[j].k, far[j - 1].k)) j++;
    for (const f of far.slice(i, j)) if ((j - i >= opts.run || f.near) && !flagged.has(f.n)) { flag(f.n, 'elsewhere', [f.k], f.score); boundaries.delete(f.n); }
    i = j;
  }
  for (const add of boundaries.values()) add();
  flags.sort((a, b) => a.n - b.n);
  const why = notes.flags ?? {};
  const out: PlacementFlag[] = flags.map(({ n, ...f }) => (Object.hasOwn(why, f.ref) && !f.reason ? { ...f, reason: why[f.ref] } : f));
  const by_kind: PlacementCheck['by_kind'] = {};
  for (const f of out) by_kind[f.kind] = (by_kind[f.kind] ?? 0) + 1;

  const books = new Set(placed.map((v) => bookOf(v.keys[0])));
  const uncovered = kjv.filter((k) => books.has(bookOf(k.key)) && !covered.has(k.key)).map((k) => k.key);
  return {
    checked: known.length, flagged: out.length, explained: out.filter((f) => f.reason).length, by_kind, flags: out,
    median_score: round(median), uncovered: uncovered.length, uncovered_references: uncovered,
    uncovered_reasons: Object.fromEntries(uncovered.filter((k) => Object.hasOwn(notes.uncovered ?? {}, k)).map((k) => [k, notes.uncovered![k]])),
  };
}
