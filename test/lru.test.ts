/** The byte-budgeted LRU behind the shard and response caches, and records read without it. */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { build } from '../server/cli/build.ts';
import elements from '../sources/elements.ts';
import { Lru } from '../server/release/lru.ts';
import type { Release } from '../server/release/release.ts';
import { fsRelease } from '../server/release/fs-reader.ts';
import { BLOCK_BYTES, MAX_BLOCKS } from '../server/search/binary-index.ts';
import { cleanup, quiet, tempDir } from './helpers.ts';

describe('Lru', () => {
  it('evicts the least recently used entries past its budget', () => {
    const lru = new Lru<string>(10);
    lru.set('a', 'A', 4);
    lru.set('b', 'B', 4);
    expect(lru.get('a')).toBe('A'); // a is now the most recent
    lru.set('c', 'C', 4);
    expect(lru.get('b')).toBeUndefined();
    expect(lru.get('a')).toBe('A');
    expect(lru.get('c')).toBe('C');
    expect(lru.bytes).toBe(8);
  });
  it('counts a replaced entry once and ignores entries larger than the budget', () => {
    const lru = new Lru<string>(10);
    lru.set('a', 'A', 6);
    lru.set('a', 'A2', 6);
    expect(lru.bytes).toBe(6);
    expect(lru.get('a')).toBe('A2');
    lru.set('big', 'X', 11);
    expect(lru.get('big')).toBeUndefined();
    expect(lru.bytes).toBe(6);
  });
});

describe('search indexes in the shard cache', () => {
  const dist = inject('sharedDist');
  const searchable = () => {
    const r = fsRelease(dist);
    // One binary file per shard (pipeline/search-binary.ts), all warmed while they fit.
    return [...r.datasets.values()].filter((d) => d.search_fields?.length && d.search_kind !== 'terms');
  };

  it('counts a loaded index at what it holds (its file less the postings, read from disk), caches nothing else, and warms only the indexes that fit', async () => {
    // Budget: room for the largest index and a little more, so warming must skip some.
    const probe = fsRelease(dist, 2 ** 40);
    await probe.warmSearch();
    const sizes = searchable().map((d) => probe.cacheStats().entries.find((e) => e.key === `s:${d.id}:0`)!.size);
    expect(sizes.length).toBeGreaterThan(3);
    // Every entry of the unbounded warm-up is an index, counted by indexHeapBytes: on Node a
    // binary index holds its file's bytes up to the postings (read from the file when a
    // search needs them) and a few objects; nothing else is cached.
    expect(probe.cacheStats().entries.every((e) => /^s:[^:]+:\d+$/.test(e.key))).toBe(true);
    for (const d of searchable()) {
      const bytes = readFileSync(path.join(dist, 'releases', probe.id, `${d.id}/search.bin`));
      const [postAt] = JSON.parse(bytes.subarray(12, 12 + bytes.readUInt32LE(8)).toString()).sections.post as [number, number];
      const held = probe.cacheStats().entries.find((e) => e.key === `s:${d.id}:0`)!.size;
      expect(held).toBeGreaterThanOrEqual(postAt);
      // …and the few blocks of postings last read (binary-index.ts PostingsBlocks).
      expect(held).toBeLessThan(postAt + BLOCK_BYTES * MAX_BLOCKS + 64 * 1024);
    }
    const budget = Math.max(...sizes) + Math.min(...sizes);
    const small = fsRelease(dist, budget);
    await small.warmSearch();
    const stats = small.cacheStats();
    expect(stats.bytes).toBeLessThanOrEqual(budget);
    expect(stats.entries.length).toBeGreaterThan(0);
    expect(stats.entries.length).toBeLessThan(sizes.length);
    // A search of an index that was not warmed loads it and answers all the same.
    const cold = searchable().find((d) => !stats.entries.some((e) => e.key === `s:${d.id}:0`))!;
    const first = await small.searchAsync(cold.id, 'a');
    expect(first).toEqual(await probe.searchWithin(cold.id, 'a'));
    expect(small.cacheStats().bytes).toBeLessThanOrEqual(budget);
  });
});

describe('records read alone', () => {
  it('a record or list page of an uncached pack does not load the pack into the cache, and a record is the line a list page gives', async () => {
    const r = fsRelease(inject('sharedDist'));
    const ds = [...r.datasets.values()].find((d) => d.records > 2)!;
    const alone = await r.record(ds.id, 1);
    expect(r.cacheStats().entries.some((e) => e.key.startsWith('p:'))).toBe(false);
    const again = await r.record(ds.id, 2); // read at its offset now
    const page = await r.slice(ds.id, 0, 3); // a list page reads its run of lines alone too
    expect(r.cacheStats().entries.some((e) => e.key.startsWith('p:'))).toBe(false);
    expect(alone.equals(page[1])).toBe(true);
    expect(again.equals(page[2])).toBe(true);
    expect(JSON.parse(alone.toString())).toBeTypeOf('object');
  });

  it('records of a pack lying close together are read as one range, the same bytes as each alone, and a changed pack still answers release_corrupt (issue 41, item 4)', async () => {
    const dist = tempDir('almanac-records-near-');
    try {
      await build({ env: { ALMANAC_DIST: dist, ALMANAC_CACHE: path.join(dist, '.cache') }, sources: [elements], log: quiet });
      const r = fsRelease(dist);
      await r.record('elements', 0); // the pack scanned and checked once
      const range = r.reader.range!.bind(r.reader);
      let reads = 0;
      Object.assign(r.reader, { range: (...a: Parameters<typeof range>) => (reads++, range(...a)) });
      const ordinals = [5, 3, 7, 3, 6];
      const near = await r.records('elements', ordinals);
      // One read for the five (a v1 search's phrase window read its 200 texts one by one).
      expect(reads).toBe(1);
      for (const [k, o] of ordinals.entries()) expect(near[k].equals(await r.record('elements', o)), String(o)).toBe(true);
      const file = path.join(dist, 'releases', r.id, 'elements/packs/0.ndjson');
      const bytes = readFileSync(file);
      bytes[2] = bytes[2] === 0x61 ? 0x62 : 0x61;
      await new Promise((res) => setTimeout(res, 20));
      writeFileSync(file, bytes);
      await expect(r.records('elements', [1, 2])).rejects.toThrow(expect.objectContaining({ code: 'release_corrupt' }));
    } finally {
      cleanup(dist);
    }
  });

  it('a pack changed on disk after its first check is checked again, and answers release_corrupt', async () => {
    const dist = tempDir('almanac-record-alone-');
    try {
      await build({ env: { ALMANAC_DIST: dist, ALMANAC_CACHE: path.join(dist, '.cache') }, sources: [elements], log: quiet });
      const r = fsRelease(dist);
      const first = await r.record('elements', 0);
      expect(JSON.parse(first.toString()).id).toBeTruthy();
      // The same size, other bytes: only the sha256 tells (the mtime changes with the write).
      const file = path.join(dist, 'releases', r.id, 'elements/packs/0.ndjson');
      const bytes = readFileSync(file);
      bytes[2] = bytes[2] === 0x61 ? 0x62 : 0x61;
      await new Promise((res) => setTimeout(res, 20)); // a distinct mtime on coarse clocks
      writeFileSync(file, bytes);
      await expect(r.record('elements', 1)).rejects.toThrow(expect.objectContaining({ code: 'release_corrupt' }));
      expect(r.corrupt.has('elements/packs/0.ndjson')).toBe(true);
    } finally {
      cleanup(dist);
    }
  });
});
