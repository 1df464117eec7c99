/**
 * A key bucket's entry found in its bytes (server/release/key-bucket.ts) is the entry
 * JSON.parse of the whole bucket gives, for any keys: quotes, backslashes, commas, colons,
 * braces, non-ASCII and lone surrogates in keys and ids, integer-like keys (which objects
 * order first), keys that are the suffix or prefix of another, keys that occur inside
 * another key or an id (`{"":["{",":"]}` holds `",":`), and keys that are absent.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bucketEntry, keyBucket } from '../server/release/key-bucket.ts';

// Keys drawn from characters that matter to JSON's syntax, so collisions and escapes are common.
const tricky = fc.constantFrom('"', '\\', ',', ':', '{', '}', '[', ']', 'a', 'b', '1', 'é', '\u2028', '\ud800', ' ');
const key = fc.oneof(fc.string({ unit: tricky, maxLength: 6 }), fc.string({ maxLength: 8 }), fc.nat(99_999).map(String), fc.constant('__proto__'));
const value = fc.oneof(fc.nat(1_000_000), fc.array(fc.string({ unit: tricky, maxLength: 5 }), { minLength: 2, maxLength: 3 }));

/** A bucket as the build writes it (pipeline/shards.ts: JSON.stringify of the entries sorted by key). */
const write = (entries: [string, unknown][]) =>
  Buffer.from(JSON.stringify(Object.fromEntries([...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))));

describe('key bucket entries read from bytes', () => {
  it('match JSON.parse for present and absent keys', () => {
    fc.assert(fc.property(fc.uniqueArray(fc.tuple(key, value), { selector: ([k]) => k, maxLength: 30 }), fc.array(key, { maxLength: 10 }), (entries, probes) => {
      const bytes = write(entries);
      const bucket = keyBucket(bytes);
      const parsed = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
      for (const k of [...entries.map(([k]) => k), ...probes]) {
        expect(bucketEntry(bucket, k), JSON.stringify(k)).toEqual(Object.hasOwn(parsed, k) ? parsed[k] : undefined);
      }
    }), { seed: 28, numRuns: 2_000 });
  });

  it('search sorted buckets by binary search and the others by indexOf, with the same entries', () => {
    // Keys as the build sorts them: sorted by their bytes when they are plain ASCII, not
    // when integer-like keys come first (the object's order) or JavaScript's order differs.
    expect(keyBucket(write([['gen.1.1', 0], ['gen.1.2', 1], ['exod.1.1', 2], ['a"b', 3]])).sorted).toBe(true);
    expect(keyBucket(write([['10', 0], ['9', 1]])).sorted).toBe(false); // {"9":1,"10":0}
    expect(keyBucket(Buffer.from('{"b":1,"a":2}')).sorted).toBe(false);
    fc.assert(fc.property(fc.uniqueArray(fc.tuple(fc.string({ unit: fc.constantFrom('a', 'b', '.', '1', '"', '\\'), maxLength: 5 }), fc.nat(9)), { selector: ([k]) => k, maxLength: 40 }), fc.array(fc.string({ maxLength: 4 }), { maxLength: 10 }), (entries, probes) => {
      const bytes = write(entries);
      const bucket = keyBucket(bytes);
      const unsorted = { ...bucket, sorted: false };
      const parsed = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
      for (const k of [...entries.map(([k]) => k), ...probes]) {
        const want = Object.hasOwn(parsed, k) ? parsed[k] : undefined;
        expect(bucketEntry(bucket, k), JSON.stringify(k)).toEqual(want);
        expect(bucketEntry(unsorted, k), JSON.stringify(k)).toEqual(want);
      }
    }), { seed: 29, numRuns: 2_000 });
  });

  it('finds a key that another key or an id contains, and reads a subarray of a larger buffer', () => {
    const bytes = write([['ab', 1], ['b', ['x","b":', 'y']], ['x,"b', 3], ['"b"', 4]]);
    const padded = Buffer.concat([Buffer.from('garbage"b":9,'), bytes, Buffer.from(',"b":7}')]).subarray(13, 13 + bytes.length);
    for (const buf of [keyBucket(bytes), keyBucket(padded)]) {
      expect(buf.starts).toHaveLength(4);
      expect(bucketEntry(buf, 'b')).toEqual(['x","b":', 'y']);
      expect(bucketEntry(buf, 'ab')).toBe(1);
      expect(bucketEntry(buf, 'x,"b')).toBe(3);
      expect(bucketEntry(buf, '"b"')).toBe(4);
      expect(bucketEntry(buf, 'a')).toBeUndefined();
      expect(bucketEntry(buf, 'x')).toBeUndefined();
    }
    // The shrunk counterexample that sank a check on the character before the match alone.
    const quirk = keyBucket(write([['', ['{', ':']]]));
    expect(bucketEntry(quirk, ',')).toBeUndefined();
    expect(bucketEntry(quirk, '')).toEqual(['{', ':']);
  });
});
