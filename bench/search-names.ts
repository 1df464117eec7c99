/**
 * The generated half of `npm run bench:search-quality` (issue 36): one query per name a
 * record is known by, made from the records themselves, never chosen by hand. Each
 * dataset names the fields holding such names (SearchSpec.names: a country's alternative
 * spellings and demonyms, a currency's symbols, an element's older name, a holiday's
 * name with its country's name); every distinct value becomes a query, and every record
 * carrying that same value (compared folded: case, spaces, diacritics) counts as a hit.
 * "Dutch" is the demonym of NL, BQ and SX: any of the three first is a success.
 *
 * All records of every such dataset are read (no sample); the set is deterministic for a
 * release. It can be written to a file and replayed against another release
 * (`--save-generated`, `--generated`), so that a release built by other code is measured
 * on the very same queries (expected records are found there by id, else alias).
 */
import type { Release } from '../server/release/release.ts';
import { ALL_SOURCES } from '../sources/index.ts';

export interface Query { dataset: string; q: string; expect: string[] }

/** Folded for comparing names: NFKD without marks, lower case, single spaces. */
const fold = (s: string) => s.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase().replace(/\s+/g, ' ').trim();

const values = (v: unknown): string[] => (Array.isArray(v) ? v : v == null ? [] : [v]).filter((x): x is string => typeof x === 'string' && x.trim() !== '');

const PAGE = 1000;

/** The generated queries of `release`: per dataset with names, one per distinct folded name, in first-seen order. */
export async function generatedQueries(release: Release): Promise<Query[]> {
  const out: Query[] = [];
  for (const source of ALL_SOURCES) {
    const names = source.search.names;
    const info = release.datasets.get(source.id);
    if (!names?.length || !info) continue;
    const byKey = new Map<string, { q: string; ids: Set<string> }>();
    for (let offset = 0; offset < info.records; offset += PAGE) {
      for (const line of await release.slice(source.id, offset, PAGE)) {
        const r = JSON.parse(line.toString()) as Record<string, unknown>;
        for (const { field, with: prefix } of names) {
          const head = prefix ? values(r[prefix])[0] : undefined;
          if (prefix && !head) continue;
          for (const name of values(r[field])) {
            const q = head ? `${head} ${name}` : name;
            const key = fold(q);
            if (!key) continue;
            const entry = byKey.get(key) ?? byKey.set(key, { q: q.trim(), ids: new Set() }).get(key)!;
            entry.ids.add(String(r.id));
          }
        }
      }
    }
    for (const { q, ids } of byKey.values()) out.push({ dataset: source.id, q, expect: [...ids].sort() });
  }
  return out;
}
