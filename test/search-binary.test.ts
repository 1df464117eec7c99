/**
 * The binary search index (pipeline/search-binary.ts, server/search/binary-index.ts):
 * every query answers exactly as minisearch does from the JSON index the build wrote
 * before (ids, scores to the last bit, order, ties), for whole words, prefixes and typos,
 * with field boosts and a document rank; the readings the cost bound and the ranked
 * match make of an index (indexEntries, matchRanked) agree too; and a file of another form
 * is refused rather than misread.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import MiniSearch, { type SearchOptions } from 'minisearch';
import { describe, expect, inject, it } from 'vitest';
import { encodeIndex } from '../pipeline/search-binary.ts';
import { searchOptions, searchText, searchTokenize } from '../pipeline/shards.ts';
import { BLOCK_BYTES, MAX_BLOCKS, freshPostings, openBinaryIndex } from '../server/search/binary-index.ts';
import { runSync } from '../server/search/search-bounds.ts';
import { MAX_READS, openRemoteIndex, predictedRanges, remoteOf, withPostings } from '../server/search/remote-postings.ts';
import { indexEntries, keepTypoPrefix, matchRanked, matchingTerms } from '../server/search/search-index.ts';
import { fsRelease } from '../server/release/fs-reader.ts';
import { openFile, signatureOf } from '../server/release/fs-files.ts';
import { cleanup, tempDir } from './helpers.ts';
import { build } from '../server/cli/build.ts';
import elements from '../sources/elements.ts';

const dist = inject('sharedDist');

/** The index the build builds from the first `n` records of a dataset, and the two forms the server can read of it. */
async function forms(ds: string, n: number, rank?: string) {
  const release = fsRelease(dist);
  const info = release.datasets.get(ds)!;
  const options = searchOptions(info.search_fields, rank);
  const built = new MiniSearch(options);
  const docs: Record<string, unknown>[] = [];
  for (let o = 0; o < Math.min(n, info.records); o++) {
    const r = JSON.parse((await release.record(ds, o)).toString()) as Record<string, unknown>;
    const doc: Record<string, unknown> = { __o: o };
    // Any number per document exercises boostDocument; some documents have none.
    if (rank && o % 5) doc.__rank = String(r.id).length * 100 + (o % 7);
    for (const f of info.search_fields) doc[f] = searchText(r, f);
    docs.push(doc);
  }
  built.addAll(docs);
  const json = keepTypoPrefix(MiniSearch.loadJSON(JSON.stringify(built), options));
  const file = encodeIndex(built);
  const binary = openBinaryIndex(file, options);
  // As the Node server opens it: postings left in the file, read by offset (release.ts readAt).
  const path = join(tempDir('almanac-search-bin-'), 'search.bin');
  writeFileSync(path, file);
  const opened = openFile(path, signatureOf(statSync(path)))!;
  const onDisk = openBinaryIndex(file, options, (from, to) => opened.read(from, to)!);
  return { json, binary, onDisk, docs, info, file };
}

/** Queries from the records' own words: pairs, prefixes (cut words) and typos after the second letter. */
function queries(docs: Record<string, unknown>[], field: string): string[] {
  const out: string[] = [];
  const step = Math.max(1, Math.floor(docs.length / 120));
  for (let i = 0; i < docs.length; i += step) {
    const words = searchTokenize(String(docs[i][field] ?? '')).map((w) => w.toLowerCase()).filter((w) => w.length > 1);
    if (!words.length) continue;
    const a = words[i % words.length], b = words[(i * 7 + 3) % words.length];
    out.push(a, `${a} ${b}`);
    if (a.length >= 4) out.push(a.slice(0, 3), a.slice(0, a.length - 1));
    if (a.length >= 5) out.push(a.slice(0, 3) + (a[3] === 'x' ? 'y' : 'x') + a.slice(4), a.slice(0, 2) + a.slice(3));
  }
  return out;
}

const scored = (ms: MiniSearch, q: string, o: SearchOptions) => ms.search(q, o).map((r) => [r.id, r.score]);

describe('binary search indexes', () => {
  for (const [ds, n, rank] of [['bible/kjv', 5000, undefined], ['bible/kjv', 3000, '__rank'], ['languages', 5000, '__rank'], ['units', 1006, undefined]] as const) {
    it(`answer exactly as the JSON index: ${ds}, ${n} records${rank ? ', ranked' : ''}`, async () => {
      const { json, binary, onDisk, docs, info } = await forms(ds, n, rank);
      const boost = info.search_boost ? { boost: info.search_boost } : {};
      const byRank = rank ? { boostDocument: (_id: unknown, _t: string, stored?: Record<string, unknown>) => 1 + Math.log10(1 + Number(stored?.__rank ?? 0)) } : {};
      const variants: SearchOptions[] = [
        { prefix: (t) => t.length >= 3, fuzzy: (t) => (t.length >= 5 ? 1 : false), maxFuzzy: 1, combineWith: 'AND', ...boost, ...byRank },
        { prefix: false, fuzzy: false, combineWith: 'AND', ...boost },
        { prefix: true, fuzzy: 0.2, maxFuzzy: 2, combineWith: 'OR', ...byRank },
      ];
      const qs = queries(docs, info.search_fields[0]);
      expect(qs.length).toBeGreaterThan(200);
      let found = 0;
      for (const [k, q] of qs.entries()) {
        // Seconds of synchronous comparisons: give the worker's event loop back now and then (test/loop-watch.ts).
        if (k % 50 === 49) await new Promise((resolve) => setImmediate(resolve));
        for (const o of variants) {
          const expected = scored(json, q, o);
          found += expected.length;
          // Bit for bit: the same summation order (binary-index.ts reads matches in the radix tree's order).
          expect(scored(binary, q, o), `${q} ${JSON.stringify(o)}`).toEqual(expected);
          expect(scored(onDisk, q, o), `on disk: ${q} ${JSON.stringify(o)}`).toEqual(expected);
        }
      }
      expect(found).toBeGreaterThan(1000);
      expect(binary.termCount).toBe(json.termCount);
      expect(binary.documentCount).toBe(json.documentCount);
    });
  }

  it('gives the cost bound and the match-kind ranking the same postings', async () => {
    const { json, binary, onDisk, docs, info } = await forms('bible/kjv', 6000);
    for (const q of queries(docs, info.search_fields[0]).slice(0, 120)) {
      const words = q.split(' ');
      for (const w of words) for (const expand of [true, false]) {
        expect(indexEntries(binary, w, expand), w).toBe(indexEntries(json, w, expand));
        expect(indexEntries(onDisk, w, expand), w).toBe(indexEntries(json, w, expand));
      }
      const a = runSync(matchRanked(() => json, words, new Set()));
      const b = runSync(matchRanked(() => binary, words, new Set()));
      expect([...b], q).toEqual([...a]);
    }
  });

  it('reads the postings of an index kept on disk by blocks, and a word asked again reads nothing (issue 41, item 4)', async () => {
    const { json, file, info } = await forms('bible/kjv', 5000);
    const path = join(tempDir('almanac-search-blocks-'), 'search.bin');
    writeFileSync(path, file);
    const opened = openFile(path, signatureOf(statSync(path)))!;
    let reads = 0;
    const onDisk = openBinaryIndex(file, searchOptions(info.search_fields), (from, to) => (reads++, opened.read(from, to)!));
    // Words whose prefix and typo matches are many terms: one read per term and per pass before.
    // Not 'the': postings longer than a block are read alone each time, as before.
    for (const w of ['abide', 'thing', 'lord', 'comman', 'shall']) {
      reads = 0;
      const terms = [...matchingTerms(onDisk, w, true)].length;
      expect(indexEntries(onDisk, w, true), w).toBe(indexEntries(json, w, true));
      const first = reads;
      expect(terms, w).toBeGreaterThan(1);
      // A search reads a word's postings up to three times (cost bound, order, match): the later ones read nothing.
      expect(indexEntries(onDisk, w, true), w).toBe(indexEntries(json, w, true));
      runSync(matchRanked(() => onDisk, [w], new Set()));
      expect(reads - first, w).toBe(0);
      expect(first, w).toBeLessThan(terms);
      // A new search reads (and checks the file's signature) again.
      freshPostings(onDisk);
      indexEntries(onDisk, w, true);
      expect(reads - first, w).toBeGreaterThan(0);
    }
  });

  it('a Worker index (postings read by ranges before the search) reads only the spans it predicted: no blocks there', async () => {
    const { json, file, info } = await forms('bible/kjv', 5000);
    const options = searchOptions(info.search_fields);
    let reads = 0;
    const ms = await openRemoteIndex(file.length, options, async (from, to) => (reads++, file.subarray(from, to)));
    const o: SearchOptions = { prefix: (t) => t.length >= 3, fuzzy: (t) => (t.length >= 5 ? 1 : false), maxFuzzy: 1, combineWith: 'AND' };
    for (const q of ['abide', 'lord god', 'comman', 'thing shall']) {
      reads = 0;
      const got = await withPostings([ms], q.split(' '), () => scored(ms, q, o));
      expect(got, q).toEqual(scored(json, q, o));
      // The predicted ranges and not one more (a miss is a read more, then a run again).
      expect(reads, q).toBe(predictedRanges(ms, remoteOf(ms)!, q.split(' ')).length);
      expect(reads, q).toBeLessThanOrEqual(MAX_READS);
    }
  });

  it('refuses a file that is not a binary index, and one cut short', async () => {
    const { docs, info } = await forms('units', 200);
    const built = new MiniSearch(searchOptions(info.search_fields));
    built.addAll(docs);
    expect(() => openBinaryIndex(Buffer.from(JSON.stringify(built)), searchOptions(info.search_fields))).toThrow(/not a binary index/);
    const file = encodeIndex(built);
    expect(() => openBinaryIndex(file.subarray(0, file.length - 64), searchOptions(info.search_fields))).toThrow(/past the file's end/);
    // An unaligned copy (a pooled Buffer) reads the same.
    const offset = Buffer.alloc(file.length + 3);
    file.copy(offset, 3);
    expect(openBinaryIndex(offset.subarray(3), searchOptions(info.search_fields)).search('metre')).toEqual(openBinaryIndex(file, searchOptions(info.search_fields)).search('metre'));
  });

  it('the build writes one binary index per shard and no JSON index', () => {
    const release = fsRelease(dist);
    let seen = 0;
    for (const info of release.datasets.values()) {
      if (!info.search_fields?.length || info.search_kind === 'terms') continue;
      expect(info.search_format, info.id).toBe('binary');
      expect(info.search_parts, info.id).toBeUndefined();
      for (let n = 0; n < (info.search_shards ?? 1); n++) expect(release.entry(n ? `${info.id}/search.${n}.bin` : `${info.id}/search.bin`), `${info.id} ${n}`).toBeDefined();
      expect(release.entry(`${info.id}/search.json`), info.id).toBeUndefined();
      seen++;
    }
    expect(seen).toBeGreaterThan(10);
  });

  it('on the Node server keeps the postings on disk, and a search index changed on disk after its check answers release_corrupt', async () => {
    const d = tempDir('almanac-search-disk-');
    try {
      await build({ env: { ALMANAC_DIST: d, ALMANAC_CACHE: join(d, '.cache') }, sources: [elements], log: () => {} });
      const r = fsRelease(d);
      expect((await r.searchWithin('elements', 'iron')).ordinals.length).toBeGreaterThan(0);
      const file = join(d, 'releases', r.id, 'elements/search.bin');
      const bytes = readFileSync(file);
      const held = r.cacheStats().entries.find((e) => e.key === 's:elements:0')!;
      const hlen = bytes.readUInt32LE(8);
      const [postAt, postLength] = JSON.parse(bytes.subarray(12, 12 + hlen).toString()).sections.post as [number, number];
      // The postings are not held, but for the few blocks last read (binary-index.ts PostingsBlocks).
      expect(held.size).toBeLessThan(bytes.length - postLength + BLOCK_BYTES * MAX_BLOCKS + 8192);
      // The same size, other bytes in the postings: only the signature (a new mtime) tells.
      bytes[postAt + postLength - 1] ^= 0xff;
      await new Promise((res) => setTimeout(res, 20));
      writeFileSync(file, bytes);
      await expect(r.searchWithin('elements', 'gold')).rejects.toMatchObject({ code: 'release_corrupt' });
      expect([...r.corrupt]).toContain('elements/search.bin');
      // A file that cannot be opened (gone) is not kept open: the index keeps the postings it just checked.
      expect(openFile(join(d, 'no-such-file.bin'), 'x')).toBeUndefined();
    } finally {
      cleanup(d);
    }
  });
});
