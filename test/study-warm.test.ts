/**
 * The study warm-up's ranges and its passes (api/v1/study-warm.ts): the last 100 verses of
 * each canon group, taken in turn through the core's own request path (rehearse), the
 * first pass of each filling the panel cache and the others not.
 */
import { describe, expect, inject, it } from 'vitest';
import type { TranslationSummary } from '../sources/scripture/dataset.ts';
import { warmRanges, warmStudy, DEFAULT_WARM_PASSES } from '../server/api/v1/study-warm.ts';
import { fsRelease } from '../server/release/fs-reader.ts';

type Books = TranslationSummary['books'];
/** A book of `chapters` chapters of `verses` verses each ([chapter, first ordinal, verses], as the summaries hold them). */
const book = (slug: string, group: 'old' | 'new' | 'apocrypha', chapters: number, verses: number) =>
  ({ slug, group, chapters: Array.from({ length: chapters }, (_, i) => [i + 1, 0, verses]) }) as unknown as Books[number];

describe('the study warm-up', () => {
  it('takes the last 100 verses of each canon group, across chapters and books, in the translation\'s order', () => {
    const books: Books = [book('gen', 'old', 3, 30), book('mal', 'old', 2, 40), book('tob', 'apocrypha', 1, 14), book('matt', 'new', 2, 25), book('rev', 'new', 1, 60)];
    expect(warmRanges(books)).toEqual([
      ['gen.3.11', 'mal.2.40'], // 20 of gen 3, then mal's 80
      ['tob.1.1', 'tob.1.14'], // a group shorter than 100 verses: all of it
      ['matt.1.11', 'rev.1.60'], // the last 40 of matt's 50, then rev's 60
    ]);
    expect(warmRanges([])).toEqual([]);
  });

  it('composes each range in turn through rehearse, the first pass of each cached and the rest not', async () => {
    const rel = fsRelease(inject('sharedDist'));
    const calls: [string, boolean][] = [];
    const first = await warmStudy(rel, async (url, uncached) => {
      calls.push([url, uncached]);
    });
    const groups = warmRanges((rel.datasets.get('bible/kjv')!.summary as TranslationSummary).books);
    expect(groups.length).toBeGreaterThan(0);
    const urls = groups.map(([from, to]) => `/api/v1/study/kjv/range?from=${from}&to=${to}`);
    expect(first).toBe(urls[0]);
    expect(calls).toHaveLength(DEFAULT_WARM_PASSES);
    calls.forEach(([url, uncached], i) => {
      expect(url).toBe(urls[i % urls.length]);
      expect(uncached).toBe(i >= urls.length);
    });
  });
});
