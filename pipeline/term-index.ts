/**
 * A search index for streamed datasets (the 1.9M-record BMF), where a minisearch index
 * is too big to build or to serve: at full size its 39 shards took 18.7 s a query and
 * 2 GiB in the server (bench/stream-build.ts). Instead, a plain inverted index split by
 * the first two characters of each word: `terms/<prefix>.json` holds the sorted words
 * with that prefix and, per word, the ordinals of the records that contain it.
 *
 * Build: words are spilled to one temporary file per prefix as records stream past,
 * then each prefix file is grouped and written on its own (memory: one prefix).
 * Query: each query word loads the one prefix file it needs; words match by prefix and
 * all must match (as in minisearch searches); records matching a word exactly rank
 * before prefix-only matches, then list order. No typo tolerance at this size, and no
 * stems (pipeline/stem-fields.ts). When no record has every word, termSearchAny ranks
 * those with the most of them (server/search/match-tiers.ts tier 3).
 */
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export type TermShard = [string, number[]][];

/**
 * Apostrophes join a word rather than split it (issue 13): "Andrew's" is one word
 * `andrews`, "O'Brien" `obrien`, so `St. Andrew's` and `St Andrews` (and `children's` /
 * `childrens`) index and query alike. Any other punctuation separates words. Both the
 * word index (searchWords) and the minisearch indexes (shards.ts searchOptions) apply it,
 * at build and at query time.
 */
export const joinApostrophes = (text: string) => text.replace(/['’ʼ‘`´]/g, '');

/** Lower-case words of letters and digits, diacritics removed ("Café-Bar" → cafe, bar; "O'Brien" → obrien). */
export function searchWords(text: string): string[] {
  return joinApostrophes(text.normalize('NFKD').replace(/\p{M}+/gu, '')).toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
}

/** The prefix file a word lives in: its first two characters, hex-encoded unless [a-z0-9]. */
export function termPrefix(word: string): string {
  const p = [...word].slice(0, 2).join('');
  return /^[a-z0-9]{1,2}$/.test(p) ? p : `x${[...p].map((c) => c.codePointAt(0)!.toString(16)).join('-')}`;
}

const FLUSH_BYTES = 4 << 20;

export class TermSpill {
  private readonly dir = mkdtempSync(path.join(tmpdir(), 'almanac-terms-'));
  private pending = new Map<string, string[]>();
  private pendingBytes = 0;

  add(ord: number, texts: string[]) {
    const seen = new Set<string>();
    for (const t of texts) for (const w of searchWords(t)) seen.add(w);
    for (const w of seen) {
      const p = termPrefix(w);
      const line = `${w}\t${ord}\n`;
      (this.pending.get(p) ?? this.pending.set(p, []).get(p)!).push(line);
      this.pendingBytes += line.length;
    }
    if (this.pendingBytes >= FLUSH_BYTES) this.flush();
  }

  private flush() {
    for (const [p, lines] of this.pending) appendFileSync(path.join(this.dir, p), lines.join(''));
    this.pending = new Map();
    this.pendingBytes = 0;
  }

  /** Removes the temporary files of a build that failed before `finish`. */
  discard() {
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Emits every prefix's shard (sorted words, ascending ordinals), in prefix order. */
  finish(emit: (prefix: string, shard: TermShard) => void): number {
    this.flush();
    try {
      const prefixes = readdirSync(this.dir).sort();
      for (const p of prefixes) {
        const words = new Map<string, number[]>();
        for (const line of readFileSync(path.join(this.dir, p), 'utf8').split('\n')) {
          if (!line) continue;
          const tab = line.lastIndexOf('\t');
          const w = line.slice(0, tab);
          (words.get(w) ?? words.set(w, []).get(w)!).push(Number(line.slice(tab + 1)));
        }
        emit(p, [...words].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
      }
      return prefixes.length;
    } finally {
      rmSync(this.dir, { recursive: true, force: true });
    }
  }
}

export interface TermSearchBounds {
  /** Whether a word also matches by prefix (default: every word). */
  prefix?: (word: string) => boolean;
  /** At most this many records are ranked: the rarest word's first ones (in list order). */
  maxCandidates?: number;
  /** Checked between words; when true the search stops with what it has. */
  expired?: () => boolean;
}

/** The postings of every indexed word matching `w` (by prefix when long enough), with `exact` marks. */
export function postings(w: string, terms: TermShard, prefix: boolean): { lists: [number[], number][]; size: number } {
  // Binary search for the first word ≥ w; words with prefix w follow it.
  let lo = 0;
  let hi = terms.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (terms[mid][0] < w) lo = mid + 1;
    else hi = mid;
  }
  const lists: [number[], number][] = [];
  let size = 0;
  for (let i = lo; i < terms.length && terms[i][0].startsWith(w); i++) {
    const exact = terms[i][0] === w;
    if (!prefix && !exact) break;
    lists.push([terms[i][1], exact ? 2 : 1]);
    size += terms[i][1].length;
  }
  return { lists, size };
}

/**
 * Ordinals matching every word of `words` (by prefix), exact-word matches first, then list
 * order. Bounded (server/search-bounds.ts): the rarest word is read first and its
 * candidates capped, so later words only filter a bounded set; `truncated` says whether a
 * bound cut the result.
 */
export function termSearchBounded(words: string[], shard: (prefix: string) => TermShard | undefined, b: TermSearchBounds = {}): { ordinals: number[]; truncated: boolean } {
  const max = b.maxCandidates ?? Infinity;
  if (!words.length) return { ordinals: [], truncated: false };
  const matched = words.map((w) => postings(w, shard(termPrefix(w)) ?? [], b.prefix?.(w) ?? true)).sort((x, y) => x.size - y.size);
  let truncated = false;
  let scores: Map<number, number> | null = null;
  for (const { lists } of matched) {
    if (scores && b.expired?.()) {
      truncated = true;
      break;
    }
    if (scores === null) {
      const first = new Map<number, number>();
      for (const [list, mark] of lists) for (const o of list) first.set(o, Math.max(first.get(o) ?? 0, mark));
      if (first.size > max) {
        truncated = true;
        scores = new Map([...first].sort((x, y) => x[0] - y[0]).slice(0, max));
      } else scores = first;
    } else {
      const next = new Map<number, number>();
      for (const [list, mark] of lists) {
        for (const o of list) {
          const s = scores.get(o);
          if (s !== undefined) next.set(o, Math.max(next.get(o) ?? s, s + mark));
        }
      }
      scores = next;
    }
    if (!scores.size) return { ordinals: [], truncated };
  }
  return { ordinals: [...scores!].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([o]) => o), truncated };
}

/**
 * The partial-match fallback of the word index (server/search/match-tiers.ts has the
 * rule): when no record has every word, the records with the most of them, then the most
 * exact ones, then list order; `unmatched` names the words no record has. Reads the same
 * postings termSearchBounded reads (each once: the same budget bounds both), ranks by a
 * small integer key (bucketed, no comparison sort of keys) and answers at most
 * `maxCandidates` records, flagged `truncated` when it cut.
 */
export function termSearchAny(words: string[], shard: (prefix: string) => TermShard | undefined, b: TermSearchBounds = {}): { ordinals: number[]; truncated: boolean; unmatched: string[] } {
  const max = b.maxCandidates ?? Infinity;
  // Per record: 32 per word it has, plus the word's mark (exact 2, prefix 1): words first, then exactness.
  const keys = new Map<number, number>();
  const unmatched: string[] = [];
  let truncated = false;
  for (const w of words) {
    if (keys.size && b.expired?.()) {
      truncated = true;
      break;
    }
    const best = new Map<number, number>();
    for (const [list, mark] of postings(w, shard(termPrefix(w)) ?? [], b.prefix?.(w) ?? true).lists) {
      for (const o of list) if ((best.get(o) ?? 0) < mark) best.set(o, mark);
    }
    if (!best.size) unmatched.push(w);
    for (const [o, mark] of best) keys.set(o, (keys.get(o) ?? 0) + 32 + mark);
  }
  const buckets = new Map<number, number[]>();
  for (const [o, k] of keys) (buckets.get(k) ?? buckets.set(k, []).get(k)!).push(o);
  const ordinals: number[] = [];
  for (const k of [...buckets.keys()].sort((x, y) => y - x)) {
    for (const o of buckets.get(k)!.sort((x, y) => x - y)) {
      if (ordinals.length >= max) return { ordinals, truncated: true, unmatched };
      ordinals.push(o);
    }
  }
  return { ordinals, truncated, unmatched };
}

/** Ordinals matching every word of `q` (by prefix), exact-word matches first, then list order. */
export function termSearch(q: string, shard: (prefix: string) => TermShard | undefined): number[] {
  return termSearchBounded([...new Set(searchWords(q))], shard).ordinals;
}
