/**
 * Search indexes split by word (pipeline/search-parts.ts), the JSON form of releases built
 * before the binary index (pipeline/search-binary.ts), which the server still reads: a
 * query answered from the parts of its words equals minisearch's answer from the whole
 * index — ids, scores (to the last bit or two) and order — for exact, prefix and typo
 * words, with and without a rank; a whole index searched word by word (as the server's
 * tier 1 searches every index) equals minisearch's search exactly; a part loads in slices
 * into loadJSON's index.
 */
import MiniSearch, { type SearchOptions } from 'minisearch';
import { describe, expect, inject, it } from 'vitest';
import { partOf, splitIndex, typoKeepsPrefix } from '../pipeline/search-parts.ts';
import { searchOptions, searchText, searchTokenize } from '../pipeline/shards.ts';
import { keepTypoPrefix, loadIndexSliced, searchSplit, termQueries, type TermQuery } from '../server/search/search-index.ts';
import type { Release } from '../server/release/release.ts';
import { fsRelease } from '../server/release/fs-reader.ts';

const dist = inject('sharedDist');

/** An index built as the build builds it, from the first `n` records of a dataset of the shared release. */
async function wholeIndex(release: Release, ds: string, n: number, rank?: string) {
  const info = release.datasets.get(ds)!;
  const ms = new MiniSearch(searchOptions(info.search_fields, rank));
  const docs: Record<string, unknown>[] = [];
  for (let o = 0; o < Math.min(n, info.records); o++) {
    const r = JSON.parse((await release.record(ds, o)).toString()) as Record<string, unknown>;
    const doc: Record<string, unknown> = { __o: o };
    // A rank from the record's own text length: any number per document exercises boostDocument.
    if (rank) doc.__rank = String(r.id).length * 100;
    for (const f of info.search_fields) doc[f] = searchText(r, f);
    docs.push(doc);
  }
  ms.addAll(docs);
  // As the server has it: loaded from the build's JSON (its radix tree, hence the order in
  // which a word's prefix matches are summed, is the loaded one).
  return { ms: MiniSearch.loadJSON(JSON.stringify(ms), searchOptions(info.search_fields, rank)), docs, info };
}

/** The server's bounded matching (prefixes from 3 letters, one typo from 5, every word), with a rank boost when the index stores one. */
const boundedOptions = (rank?: string): SearchOptions => ({
  prefix: (t) => t.length >= 3, fuzzy: (t) => (t.length >= 5 ? 1 : false), maxFuzzy: 1, combineWith: 'AND',
  ...(rank ? { boostDocument: (_id, _t, stored) => 1 + Math.log10(1 + Number(stored?.__rank ?? 0)) } : {}),
});

describe('split search indexes', () => {
  it('answer every query exactly as the whole index does (KJV verses, 7 parts, with and without a rank)', async () => {
    const release = fsRelease(dist);
    for (const rank of [undefined, '__rank']) {
      const { ms, docs, info } = await wholeIndex(release, 'bible/kjv', 6000, rank);
      keepTypoPrefix(ms);
      const parts = splitIndex(ms.toJSON(), 7).map((text) => keepTypoPrefix(MiniSearch.loadJSON(text, searchOptions(info.search_fields, rank))));
      expect(new Set(parts.map((p) => p.termCount)).size).toBeGreaterThan(1);
      const options = boundedOptions(rank);
      let queries = 0;
      let typos = 0;
      for (let i = 0; i < docs.length; i += 37) {
        const words = searchTokenize(String(docs[i][info.search_fields[0]])).map((w) => w.toLowerCase());
        const pick = [words[i % words.length], words[(i * 7 + 3) % words.length]].filter(Boolean);
        // Every other query misspells its first word after its second letter (a typo the split keeps).
        const first = pick[0];
        if (i % 2 === 0 && first.length >= 5) {
          pick[0] = first.slice(0, 3) + (first[3] === 'x' ? 'y' : 'x') + first.slice(4);
          typos++;
        }
        const q = [...new Set(pick)];
        const expected = new Map(ms.search(q.join(' '), options).map((r) => [r.id as number, r.score]));
        const got = searchSplit((t) => parts[partOf(t, parts.length)], q, options);
        // The same documents with the same scores, best first. Scores may differ in the last
        // bit: a part's radix tree can list a word's prefix matches in another order, so
        // their scores are summed in another order (ties within 1e-12 may swap places).
        expect(got.length, q.join(' ')).toBe(expected.size);
        for (const [i, r] of got.entries()) {
          expect(Math.abs(r.score - expected.get(r.id)!), `${q.join(' ')} #${r.id}`).toBeLessThanOrEqual(1e-12 * r.score);
          if (i) expect(got[i - 1].score).toBeGreaterThanOrEqual(r.score);
        }
        queries++;
      }
      expect(queries).toBeGreaterThan(150);
      expect(typos).toBeGreaterThan(20);
    }
  });

  it('answers a whole index word by word exactly as minisearch\'s own search, each word\'s query made once (the server\'s tiers 1 and 2)', async () => {
    const release = fsRelease(dist);
    for (const rank of [undefined, '__rank']) {
      const { ms, docs, info } = await wholeIndex(release, 'bible/kjv', 4000, rank);
      keepTypoPrefix(ms);
      const options = boundedOptions(rank);
      let made = 0;
      let multi = 0;
      for (let i = 0; i < docs.length; i += 41) {
        const words = searchTokenize(String(docs[i][info.search_fields[0]])).map((w) => w.toLowerCase());
        const q = [...new Set([words[i % words.length], words[(i * 5 + 1) % words.length], words[(i * 3 + 2) % words.length]].filter(Boolean).slice(0, 1 + (i % 3)))];
        if (q.length > 1) multi++;
        const expected = ms.search(q.join(' '), options).map((r) => [r.id, r.score]);
        const remembered = termQueries(options);
        const counted: TermQuery = (index, t) => (made++, remembered(index, t));
        // Ids, scores and order: the same computation, not merely close.
        expect(searchSplit(() => ms, q, options, counted).map((r) => [r.id, r.score]), q.join(' ')).toEqual(expected);
        // Tier 2 asks again after tier 1 combined the words: the same scores, nothing queried twice.
        const before = made;
        for (const t of q) {
          const again = remembered(ms, t);
          const fresh = (ms as unknown as { executeQuery(t: string, o: SearchOptions): Map<number, { score: number }> }).executeQuery(t, options);
          expect([...again].map(([id, r]) => [id, r.score])).toEqual([...fresh].map(([id, r]) => [id, r.score]));
        }
        expect(made).toBe(before);
      }
      expect(multi).toBeGreaterThan(30);
    }
  });

  it('keeps a typo match only when it starts like the word, on whole indexes too', async () => {
    expect(typoKeepsPrefix('shepherd', 'shepherds')).toBe(true);
    expect(typoKeepsPrefix('shepherd', 'chepherd')).toBe(false);
    const release = fsRelease(dist);
    const { ms } = await wholeIndex(release, 'bible/kjv', 3000);
    expect(ms.search('hte', { fuzzy: 1 }).length).toBeGreaterThan(0); // minisearch alone: "the"
    keepTypoPrefix(ms);
    expect(ms.search('hte', { fuzzy: 1 })).toEqual([]);
    expect(ms.search('beginnin', { fuzzy: 1 }).length).toBeGreaterThan(0);
  });

  it('loads a part in time slices into the same index that loadJSON builds', async () => {
    const release = fsRelease(dist);
    const { ms, info } = await wholeIndex(release, 'bible/kjv', 6000);
    const parts = splitIndex(ms.toJSON(), 7);
    const text = parts[partOf('the', parts.length)];
    const options = searchOptions(info.search_fields, info.search_rank);
    // A 0 ms slice yields as often as it can: the result must not depend on it.
    const sliced = await loadIndexSliced(text, options, 0);
    const whole = MiniSearch.loadJSON(text, options);
    expect(sliced.termCount).toBeGreaterThan(100);
    expect(JSON.stringify(sliced)).toBe(JSON.stringify(whole));
    expect(sliced.search('the', { prefix: true })).toEqual(whole.search('the', { prefix: true }));
  });
});
