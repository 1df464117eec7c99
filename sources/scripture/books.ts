/**
 * Book identities for every translation: OSIS book ids (as SWORD and eBible use them),
 * the lower-case slug used in URLs and canonical references (`gen.1.1`), the English
 * name from the SWORD versification tables, and the canon group.
 */
// The SWORD tables as JSON modules: the build reads them, and so does the edge's bundle (which has no files).
import Catholic from './versification/Catholic.json' with { type: 'json' };
import KJV from './versification/KJV.json' with { type: 'json' };
import KJVA from './versification/KJVA.json' with { type: 'json' };
import LXX from './versification/LXX.json' with { type: 'json' };
import NRSV from './versification/NRSV.json' with { type: 'json' };
import NRSVA from './versification/NRSVA.json' with { type: 'json' };
import Vulg from './versification/Vulg.json' with { type: 'json' };

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

const TABLES = { KJV, KJVA, NRSV, NRSVA, Catholic, LXX, Vulg } as unknown as Record<SystemName, Versification>;
/** A SWORD versification table (chapter → verse counts per book), from sources/scripture/versification. */
export function versification(system: SystemName): Versification {
  return TABLES[system];
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
