/**
 * Turns a translation into a dataset the generic pipeline builds like any other: one
 * record per verse, id = canonical reference (`gen.1.1`), in the translation's own canon
 * order, with a Strong's list where the source has one. The summary (books and chapters
 * as ordinal ranges) lets the server answer book, chapter and range requests by slicing
 * packs, without any per-request search.
 */
import { defineSource, type DatasetSource } from '../contract.ts';
import { BOOK_BY_SLUG, book, type CanonGroup } from './books.ts';
import type { TranslationSource } from './contract.ts';

export interface VerseRecord {
  id: string;
  book: string;
  chapter: number;
  verse: number;
  text: string;
  strongs?: string[];
}

export interface BookSummary {
  slug: string;
  osis: string;
  name: string;
  group: CanonGroup;
  /** [chapter number, ordinal of its first verse, verse count] in order. */
  chapters: [number, number, number][];
}

/** What the manifest records of a translation: its identity, books and chapters. */
export interface TranslationSummary extends Pick<TranslationSource, 'slug' | 'abbreviation' | 'name' | 'language' | 'edition' | 'versification'> {
  books: BookSummary[];
  verses: number;
}

export const datasetId = (slug: string) => `bible/${slug}`;

export function translationDataset(t: TranslationSource): DatasetSource<VerseRecord> {
  // Canon position of each reference, filled by normalise and read by order (same build).
  const position = new Map<string, number>();
  return defineSource<VerseRecord>({
    id: datasetId(t.slug),
    title: t.name,
    description: `${t.name} (${t.abbreviation}), ${t.edition}; versification ${t.versification}.`,
    contractVersion: '0.1.0',
    provenance: t.provenance,
    inputs: t.inputs,
    schema: {
      type: 'object',
      additionalProperties: false,
      required: ['id', 'book', 'chapter', 'verse', 'text'],
      properties: {
        id: { type: 'string', pattern: '^[0-9a-z]+\\.[1-9][0-9]*\\.[0-9]+$' },
        book: { type: 'string' },
        chapter: { type: 'integer', minimum: 1 },
        verse: { type: 'integer', minimum: 0 },
        text: { type: 'string' },
        strongs: { type: 'array', items: { type: 'string', pattern: '^[HG][1-9][0-9]*[a-z]?$' } },
      },
    },
    search: { fields: ['text'] },
    filters: [],
    order: (a, b) => position.get(a.id)! - position.get(b.id)!,
    normalise(raw) {
      position.clear();
      return t.read(raw).map((v, i) => {
        const slug = book(v.book).slug;
        const id = `${slug}.${v.chapter}.${v.verse}`;
        if (position.has(id)) throw new Error(`${t.slug}: verse ${id} appears twice`);
        position.set(id, i);
        const r: VerseRecord = { id, book: slug, chapter: v.chapter, verse: v.verse, text: v.text };
        if (v.strongs?.length) r.strongs = v.strongs;
        return r;
      });
    },
    summary(ordered): TranslationSummary {
      const books: BookSummary[] = [];
      ordered.forEach((r, ord) => {
        let b = books[books.length - 1];
        if (!b || b.slug !== r.book) {
          if (books.some((x) => x.slug === r.book)) throw new Error(`${t.slug}: book ${r.book} is not contiguous`);
          const info = BOOK_BY_SLUG.get(r.book)!;
          b = { slug: info.slug, osis: info.osis, name: info.name, group: info.group, chapters: [] };
          books.push(b);
        }
        const c = b.chapters[b.chapters.length - 1];
        if (c && c[0] === r.chapter) c[2]++;
        else b.chapters.push([r.chapter, ord, 1]);
      });
      const { slug, abbreviation, name, language, edition, versification } = t;
      return { slug, abbreviation, name, language, edition, versification, books, verses: ordered.length };
    },
  });
}
