/**
 * Book identities for every translation: OSIS book ids (as SWORD and eBible use them),
 * the lower-case slug used in URLs and canonical references (`gen.1.1`), the English
 * name from the SWORD versification tables, and the canon group.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export type CanonGroup = 'old' | 'new' | 'apocrypha';

export interface BookInfo {
  osis: string;
  slug: string;
  name: string;
  group: CanonGroup;
}

export interface Versification {
  system: string;
  books: { osis: string; name: string; testament: 1 | 2; verses: number[] }[];
}

export const SYSTEMS = ['KJV', 'KJVA', 'NRSV', 'NRSVA', 'Catholic', 'LXX', 'Vulg'] as const;
export type SystemName = (typeof SYSTEMS)[number];

const cache = new Map<string, Versification>();
/** A SWORD versification table (chapter → verse counts per book), from sources/scripture/versification. */
export function versification(system: SystemName): Versification {
  let v = cache.get(system);
  if (!v) {
    v = JSON.parse(readFileSync(fileURLToPath(new URL(`./versification/${system}.json`, import.meta.url)), 'utf8')) as Versification;
    cache.set(system, v);
  }
  return v;
}

const PROTESTANT_OT = new Set(versification('KJV').books.filter((b) => b.testament === 1).map((b) => b.osis));

/** Every book any supported versification knows, in first-seen order. */
export const BOOKS: BookInfo[] = (() => {
  const seen = new Map<string, BookInfo>();
  for (const system of SYSTEMS) {
    for (const b of versification(system).books) {
      if (seen.has(b.osis)) continue;
      const group: CanonGroup = b.testament === 2 ? 'new' : PROTESTANT_OT.has(b.osis) ? 'old' : 'apocrypha';
      seen.set(b.osis, { osis: b.osis, slug: b.osis.toLowerCase(), name: b.name, group });
    }
  }
  return [...seen.values()];
})();

export const BOOK_BY_OSIS = new Map(BOOKS.map((b) => [b.osis, b]));
export const BOOK_BY_SLUG = new Map(BOOKS.map((b) => [b.slug, b]));

/** The book for an OSIS id, or an error naming it (a reader met a book we do not know). */
export function book(osis: string): BookInfo {
  const b = BOOK_BY_OSIS.get(osis);
  if (!b) throw new Error(`unknown OSIS book id '${osis}'`);
  return b;
}
