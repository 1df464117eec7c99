/** The byte-budgeted LRU behind the shard and response caches. */
import { describe, expect, inject, it } from 'vitest';
import { Lru, Release } from '../server/release.ts';

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
    const r = new Release(dist);
    // Whole indexes: split ones (pipeline/search-parts.ts) load their parts on first use.
    return [...r.datasets.values()].filter((d) => d.search_fields?.length && d.search_kind !== 'terms' && (d.search_parts?.[0] ?? 1) === 1);
  };

  it('counts a loaded index at its heap estimate, never caches its JSON text, and warms only the whole indexes that fit', async () => {
    // Budget: room for the largest index and a little more, so warming must skip some.
    const probe = new Release(dist, 2 ** 40);
    await probe.warmSearch();
    const sizes = searchable().map((d) => probe.cacheStats().entries.find((e) => e.key === `s:${d.id}:0`)!.size);
    expect(sizes.length).toBeGreaterThan(3);
    // Every entry of the unbounded warm-up is an index, counted by indexHeapBytes (which is
    // well above the JSON's 4x for the term-heavy ones), and no JSON text is cached.
    expect(probe.cacheStats().entries.every((e) => /^s:[^:]+:\d+$/.test(e.key))).toBe(true);
    for (const d of searchable()) {
      const json = probe.entry(`${d.id}/search.json`)!.size;
      const held = probe.cacheStats().entries.find((e) => e.key === `s:${d.id}:0`)!.size;
      expect(held).toBeGreaterThanOrEqual(4.5 * json);
    }
    const budget = Math.max(...sizes) + Math.min(...sizes);
    const small = new Release(dist, budget);
    await small.warmSearch();
    const stats = small.cacheStats();
    expect(stats.bytes).toBeLessThanOrEqual(budget);
    expect(stats.entries.length).toBeGreaterThan(0);
    expect(stats.entries.length).toBeLessThan(sizes.length);
    // A search of an index that was not warmed loads it and answers all the same.
    const cold = searchable().find((d) => !stats.entries.some((e) => e.key === `s:${d.id}:0`))!;
    const first = await small.searchAsync(cold.id, 'a');
    expect(first).toEqual(probe.searchWithin(cold.id, 'a'));
    expect(small.cacheStats().bytes).toBeLessThanOrEqual(budget);
  });
});
