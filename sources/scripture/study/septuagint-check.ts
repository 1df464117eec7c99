/**
 * The Septuagint's placements checked by their content: is each Greek verse under the KJV
 * verse whose Hebrew it translates, or does a neighbour fit clearly better?
 *
 * The Greek lemmas and the Hebrew's Strong's numbers share no spelling, so what a Greek
 * word translates is learnt from the placements themselves: IBM Model 1 (the word model
 * the English alignment uses, align-evidence.ts) trained by EM on every placed verse and
 * the Hebrew under its study keys. Most placements are right, so the model learns θεός ↔
 * H430 whatever a few wrong ones say; a wrong placement then scores low against its own
 * Hebrew and high against the Hebrew it translates. Each placement's score is the mean
 * log-probability per Greek word of its words given that Hebrew (P(g|H), Model 1 with a
 * NULL word), against the Hebrew of the KJV verses before and after it in the same book; a
 * neighbour better by more than MARGIN is a flag. A placement whose own fit is poor (below
 * POOR: a verse under the Hebrew it translates scores about -3.4, one against an unrelated
 * verse about -7.9) is also compared with every KJV verse of its book, which catches a
 * misplaced chapter, where the neighbours are as wrong as the verse; and a verse the table
 * leaves unplaced is searched for in its book the same way: one that fits a KJV verse as
 * well as a placed verse does (FITS) is a flag too. Verses of fewer than MIN_WORDS words
 * say too little to judge and are counted, not scored.
 */
import { BOOKS } from '../books.ts';
import type { StudyRecord } from './dataset.ts';
import type { TokenTuple } from './tokens.ts';

/** Nats per Greek word: a neighbour must explain each word e^1.5 ≈ 4.5 times better on average. */
export const MARGIN = 1.5;
export const MIN_WORDS = 4;
/** Below this a placement is poorly supported; at or above it a verse fits (the tenth percentile of all placements is about -4.0). */
export const POOR = -5.5;
export const FITS = -4.5;
const ITERATIONS = 5;
const NULL = 0;

export interface Placement { layer: string; ref: string; keys: string[]; greek: number[] }
/** `neighbour`: the verse before or after fits clearly better; `elsewhere`: a poor fit, and a verse elsewhere in the book fits clearly better; `unplaced`: no KJV verse, but one fits. */
/** `runner_up`: the best score elsewhere in the book but for `better` and its neighbours (a verse the Hebrew has twice, Jer 10:13 = 51:16, ties). */
export interface PlacementFlag {
  kind: 'neighbour' | 'elsewhere' | 'unplaced'; layer: string; ref: string; under: string[]; own: number | null; better: string; score: number; runner_up?: number;
}
export interface CheckResult { placements: number; scored: number; tooShort: number; noHebrew: number; unplaced: number; flags: PlacementFlag[] }

const ORDER = new Map(BOOKS.map((b, i) => [b.osis.toLowerCase(), i]));
const sortKeys = (keys: string[]) => keys.map((k) => [k, ...k.split('.')] as const)
  .sort((a, b) => (ORDER.get(a[1])! - ORDER.get(b[1])!) || +a[2] - +b[2] || +a[3] - +b[3]).map((x) => x[0]);

/** Every placement of every Septuagint layer, and the Hebrew/Aramaic Strong's numbers under each KJV key, as word ids. */
export function collect(records: StudyRecord[]) {
  const ids = new Map<string, number>([['', NULL]]);
  const id = (w: string) => ids.get(w) ?? (ids.set(w, ids.size), ids.size - 1);
  const hebrew = new Map<string, number[]>();
  const placements = new Map<string, Placement>();
  for (const r of records) {
    if (r.id.startsWith('vulg:')) continue;
    for (const p of r.panels) {
      if (p.layer.startsWith('oshb-')) {
        const list = hebrew.get(r.id) ?? hebrew.set(r.id, []).get(r.id)!;
        for (const t of p.tokens) if (typeof t !== 'string' && t[3]) list.push(id(`h:${t[3]}`));
      } else if (p.layer.startsWith('septuagint')) {
        p.refs.forEach((ref, i) => {
          const k = `${p.layer}|${ref}`;
          let pl = placements.get(k);
          if (!pl) {
            const greek = p.tokens.filter((_, j) => (p.ref_of?.[j] ?? 0) === i).map((t) => id(`g:${(t as TokenTuple)[2]}`));
            placements.set(k, (pl = { layer: p.layer, ref, keys: [], greek }));
          }
          pl.keys.push(r.id);
        });
      }
    }
  }
  return { hebrew, placements: [...placements.values()], id };
}

/**
 * t(g | h) by EM over (Greek words, Hebrew words) pairs; h = NULL stands for "translates
 * nothing". Each (g, h) cell of every pair is numbered once, so the iterations run over
 * typed arrays (seven million cells: ~0.1 s an iteration, where maps took ~30 s).
 */
export function trainModel1(pairs: [number[], number[]][], iterations = ITERATIONS): Map<number, number> {
  const key = (g: number, h: number) => g * 2 ** 20 + h;
  const index = new Map<number, number>();
  const hOf: number[] = [];
  let cells = 0;
  for (const [G, H] of pairs) cells += G.length * (H.length + 1);
  const cell = new Int32Array(cells);
  let c = 0;
  for (const [G, H] of pairs) {
    for (const g of G) for (const h of [NULL, ...H]) {
      const k = key(g, h);
      let i = index.get(k);
      if (i === undefined) { index.set(k, (i = index.size)); hOf.push(h); }
      cell[c++] = i;
    }
  }
  const t = new Float64Array(index.size).fill(1);
  const count = new Float64Array(index.size);
  const total = new Float64Array(hOf.reduce((m, h) => Math.max(m, h), 0) + 1);
  for (let it = 0; it < iterations; it++) {
    count.fill(0);
    total.fill(0);
    c = 0;
    for (const [G, H] of pairs) {
      const n = H.length + 1;
      for (let gi = 0; gi < G.length; gi++, c += n) {
        let z = 0;
        for (let j = 0; j < n; j++) z += t[cell[c + j]];
        for (let j = 0; j < n; j++) count[cell[c + j]] += t[cell[c + j]] / z;
      }
    }
    for (let i = 0; i < count.length; i++) total[hOf[i]] += count[i];
    for (let i = 0; i < count.length; i++) t[i] = count[i] / total[hOf[i]];
  }
  return new Map([...index].map(([k, i]) => [k, t[i]]));
}

/** Mean log P(g | H) per Greek word (Model 1; an unseen pair counts as a small floor). */
export function score(t: Map<number, number>, greek: number[], hebrew: number[]): number {
  const hs = [NULL, ...hebrew];
  let sum = 0;
  for (const g of greek) {
    let p = 0;
    for (const h of hs) p += t.get(g * 2 ** 20 + h) ?? 0;
    sum += Math.log(Math.max(p / hs.length, 1e-7));
  }
  return sum / greek.length;
}

/**
 * The check over a study dataset's records (those of the OSHB and Septuagint layers are
 * what it reads), and over the verses the table left unplaced (`book`: the KJV book to search).
 */
export function checkSeptuagint(records: StudyRecord[], unplaced: (Omit<Placement, 'keys' | 'greek'> & { lemmas: string[]; book: string })[] = [], margin = MARGIN): CheckResult {
  const { hebrew, placements, id } = collect(records);
  const heb = (keys: string[]) => keys.flatMap((k) => hebrew.get(k) ?? []);
  const judged = placements.filter((p) => p.greek.length >= MIN_WORDS && p.keys.every((k) => hebrew.has(k)));
  const t = trainModel1(judged.map((p) => [p.greek, heb(p.keys)]));
  // The KJV verses that have Hebrew, in canon order: a placement's neighbours are the ones before and after it in its book.
  const order = sortKeys([...hebrew.keys()]);
  const at = new Map(order.map((k, i) => [k, i]));
  const books = new Map<string, string[]>();
  for (const k of order) { const b = k.split('.')[0]; (books.get(b) ?? books.set(b, []).get(b)!).push(k); }
  const bestOf = (greek: number[], keys: string[]) => {
    const scored = keys.map((k) => [score(t, greek, hebrew.get(k)!), k] as const).sort((a, b) => b[0] - a[0]);
    const [best, k] = scored[0] ?? [-Infinity, ''];
    const i = at.get(k)!;
    const second = scored.find(([, x]) => Math.abs(at.get(x)! - i) > 1)?.[0] ?? -Infinity;
    return [best, k, second] as const;
  };
  const flags: PlacementFlag[] = [];
  for (const p of judged) {
    const keys = sortKeys(p.keys);
    const own = score(t, p.greek, heb(keys));
    const book = keys[0].split('.')[0];
    const near = [at.get(keys[0])! - 1, at.get(keys[keys.length - 1])! + 1].map((i) => order[i]).filter((n) => n && n.split('.')[0] === book);
    let [best, better] = bestOf(p.greek, near);
    if (best - own > margin) { flags.push({ kind: 'neighbour', layer: p.layer, ref: p.ref, under: keys, own: round(own), better, score: round(best) }); continue; }
    if (own >= POOR) continue;
    let second: number;
    [best, better, second] = bestOf(p.greek, books.get(book)!.filter((k) => !keys.includes(k)));
    if (best - own > margin) flags.push({ kind: 'elsewhere', layer: p.layer, ref: p.ref, under: keys, own: round(own), better, score: round(best), runner_up: round(second) });
  }
  let searched = 0;
  for (const u of unplaced) {
    const greek = u.lemmas.map((l) => id(`g:${l}`));
    if (greek.length < MIN_WORDS || !books.has(u.book)) continue;
    searched++;
    const [best, better, second] = bestOf(greek, books.get(u.book)!);
    if (best >= FITS) flags.push({ kind: 'unplaced', layer: u.layer, ref: u.ref, under: [], own: null, better, score: round(best), runner_up: round(second) });
  }
  return {
    placements: placements.length, scored: judged.length,
    tooShort: placements.filter((p) => p.greek.length < MIN_WORDS).length,
    noHebrew: placements.filter((p) => p.greek.length >= MIN_WORDS && !p.keys.every((k) => hebrew.has(k))).length,
    unplaced: searched, flags,
  };
}
const round = (x: number) => Math.round(x * 100) / 100;
