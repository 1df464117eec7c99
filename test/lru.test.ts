/** The byte-budgeted LRU behind the shard and response caches. */
import { describe, expect, it } from 'vitest';
import { Lru } from '../server/release.ts';

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
