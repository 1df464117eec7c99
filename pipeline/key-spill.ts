/**
 * The id → ordinal map of a dataset: in memory (with aliases), or for a streamed
 * dataset on disk.
 *
 * Keys are appended to SPILL_PARTITIONS temporary files by hash as records stream past;
 * at the end the bucket count is chosen as a multiple of SPILL_PARTITIONS, so every
 * bucket's keys lie in exactly one partition (h % nb % P = h % P when P divides nb) and
 * the buckets are written one partition at a time. Memory: one partition, about
 * 1/256 of the keys (~15k of the full BMF's 3.8M id and lower-case keys).
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { KEYS_PER_BUCKET, aliasKey, bucketOf } from './paths.ts';

export const SPILL_PARTITIONS = 256;
const FLUSH_BYTES = 1 << 20;

export class KeySpill {
  private readonly dir = mkdtempSync(path.join(tmpdir(), 'almanac-keys-'));
  private readonly pending: string[][] = Array.from({ length: SPILL_PARTITIONS }, () => []);
  private pendingBytes = 0;
  private count = 0;

  constructor(private dataset: string) {}

  private file(p: number) {
    return path.join(this.dir, `${p}.ndjson`);
  }

  private put(key: string, ord: number) {
    const line = JSON.stringify([key, ord]) + '\n';
    this.pending[bucketOf(key, SPILL_PARTITIONS)].push(line);
    this.pendingBytes += line.length;
    this.count++;
    if (this.pendingBytes >= FLUSH_BYTES) this.flush();
  }

  /** A record's id and its case-insensitive form (as the in-memory key map has them). */
  add(id: string, ord: number) {
    this.put(id, ord);
    this.put(aliasKey(id), ord);
  }

  private flush() {
    this.pending.forEach((lines, p) => {
      if (lines.length) appendFileSync(this.file(p), lines.join(''));
      this.pending[p] = [];
    });
    this.pendingBytes = 0;
  }

  /** Removes the temporary files of a build that failed before `finish`. */
  discard() {
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** A bucket count that is a multiple of the partitions and keeps ~KEYS_PER_BUCKET per bucket. */
  buckets(): number {
    return SPILL_PARTITIONS * Math.max(1, Math.ceil(this.count / (KEYS_PER_BUCKET * SPILL_PARTITIONS)));
  }

  /**
   * Calls `emit` for every bucket (empty ones too: the server reads whichever bucket a
   * key hashes to). A duplicate id fails; a lower-case form two ids share is dropped,
   * counted in the returned `ambiguous`, like the in-memory map does.
   */
  finish(nb: number, emit: (bucket: number, entries: [string, number][]) => void): { ambiguous: number } {
    this.flush();
    let ambiguous = 0;
    try {
      for (let p = 0; p < SPILL_PARTITIONS; p++) {
        const owners = new Map<string, number | null>();
        let text = '';
        try {
          text = readFileSync(this.file(p), 'utf8');
        } catch {
          // no key fell into this partition
        }
        for (const line of text.split('\n')) {
          if (!line) continue;
          const [key, ord] = JSON.parse(line) as [string, number];
          const prev = owners.get(key);
          if (prev === undefined) owners.set(key, ord);
          else if (!key.startsWith('~')) throw new Error(`source ${this.dataset}: duplicate id ${JSON.stringify(key)}`);
          else if (prev !== null && prev !== ord) owners.set(key, null);
        }
        const byBucket = new Map<number, [string, number][]>();
        for (let b = p; b < nb; b += SPILL_PARTITIONS) byBucket.set(b, []);
        for (const [key, ord] of owners) {
          if (ord === null) ambiguous++;
          else byBucket.get(bucketOf(key, nb))!.push([key, ord]);
        }
        for (const [b, entries] of byBucket) emit(b, entries);
      }
    } finally {
      rmSync(this.dir, { recursive: true, force: true });
    }
    return { ambiguous };
  }
}

/**
 * Exact ids, then case-insensitive aliases. A record's own id, in any case, beats
 * another record's alias (/apis/languages/DE is German, not the region DE); aliases
 * two records share are not resolved arbitrarily: they are returned in `ambiguousKeys`
 * with every record claiming them, so a lookup can answer with the candidates.
 */
export function memoryKeyMap(ids: Map<string, number>, aliases: string[][]) {
  const keys = new Map(ids);
  const idOwners = new Map<string, number[]>();
  for (const [id, ord] of ids) {
    const k = aliasKey(id);
    idOwners.set(k, [...(idOwners.get(k) ?? []), ord]);
  }
  const aliasOwners = new Map<string, number[]>();
  aliases.forEach((list, ord) => {
    for (const a of new Set(list.map(aliasKey))) {
      if (idOwners.has(a)) continue;
      const prev = aliasOwners.get(a);
      if (!prev) aliasOwners.set(a, [ord]);
      else if (!prev.includes(ord)) prev.push(ord);
    }
  });
  const ambiguousKeys = new Map<string, number[]>();
  for (const owners of [idOwners, aliasOwners]) {
    for (const [a, ords] of owners) {
      if (ords.length > 1) ambiguousKeys.set(a, ords);
      else keys.set(a, ords[0]);
    }
  }
  return { keys, ambiguous: ambiguousKeys.size, ambiguousKeys };
}
