/**
 * Reading a built release's records back from its packs (the SQLite downloads and the
 * nightly's report both need them), in list order, each with its line of JSON.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PACK_SIZE, packPath } from './paths.ts';
import type { DatasetInfo } from './shards.ts';

/** The records of a dataset, in list order, with their line of JSON as the API serves it. */
export function* records(dir: string, info: DatasetInfo): Generator<{ ordinal: number; rec: Record<string, unknown>; line: string }> {
  for (let n = 0; n < info.packs; n++) {
    const text = readFileSync(path.join(dir, packPath(info.id, n)), 'utf8');
    let ordinal = n * (info.pack_size ?? PACK_SIZE);
    for (const line of text.split('\n')) {
      if (!line) continue;
      yield { ordinal: ordinal++, rec: JSON.parse(line) as Record<string, unknown>, line };
    }
  }
}
