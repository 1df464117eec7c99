/**
 * Search indexes split by word (issue 14: a whole minisearch index took 0.7–2.3 s to load
 * on first use and ~1 GiB of heap for the full release). A shard's index whose JSON is
 * over PART_BYTES is written as several parts instead of one file: part b holds the terms
 * whose first two characters hash to b, with their postings, and the documents those
 * postings name (id, field lengths, stored fields). Every part keeps the whole shard's
 * document count, average field lengths and id numbering, so a word's scores from its part
 * are the whole index's (BM25 reads only those and the word's own postings; tested in
 * test/search-parts.test.ts), and a query loads the parts of its words only (a part loads
 * in 5–20 ms, the largest in about 100 ms: README "Search targets").
 *
 * What a split changes is typos: a word's typo matches are searched in its own part only,
 * so the rule everywhere (split or not, server/search-index.ts keepTypoPrefix) is that a
 * typo is never in the first TYPO_FREE_PREFIX letters — Elasticsearch's `prefix_length`
 * for fuzzy queries.
 */
import type MiniSearch from 'minisearch';

/** An index above this much JSON is split; parts come out at about this size (skew aside). */
export const PART_BYTES = 256 * 1024;
/** Letters of a word that a typo match must keep; also what a part is chosen by. */
export const TYPO_FREE_PREFIX = 2;

const keyOf = (term: string) => [...term].slice(0, TYPO_FREE_PREFIX).join('');

/** FNV-1a of the word's first letters: spreads common beginnings ("th", "co") over parts. */
export function partOf(term: string, parts: number): number {
  if (parts <= 1) return 0;
  const k = keyOf(term);
  let h = 0x811c9dc5;
  for (let i = 0; i < k.length; i++) h = Math.imul(h ^ k.charCodeAt(i), 0x01000193) >>> 0;
  return h % parts;
}

export const partCount = (jsonBytes: number) => Math.max(1, Math.ceil(jsonBytes / PART_BYTES));

/** A typo match is kept only when it starts like the word (applied to every loaded index). */
export const typoKeepsPrefix = (word: string, match: string) => keyOf(word) === keyOf(match);

type Serialized = ReturnType<MiniSearch['toJSON']>;

/** The JSON text of each part of a serialized index (minisearch's own format, loadJSON reads it). */
export function splitIndex(js: Serialized, parts: number): string[] {
  const buckets = Array.from({ length: parts }, () => ({ index: [] as Serialized['index'], docs: new Set<string>() }));
  for (const entry of js.index) {
    const b = buckets[partOf(entry[0], parts)];
    b.index.push(entry);
    for (const byDoc of Object.values(entry[1])) for (const d of Object.keys(byDoc)) b.docs.add(d);
  }
  return buckets.map(({ index, docs }) => {
    // Integer-like keys serialize in ascending order whatever the insertion order: deterministic.
    const pick = <V>(o: Record<string, V>) => Object.fromEntries(Object.keys(o).filter((d) => docs.has(d)).map((d) => [d, o[d]]));
    return JSON.stringify({ ...js, documentIds: pick(js.documentIds), fieldLength: pick(js.fieldLength), storedFields: pick(js.storedFields), index });
  });
}
