/**
 * A study composed a few times (warmPasses) while the server warms (node/server.ts, after
 * the search indexes and the panels check), so the first study a client asks for does not
 * pay for the first times through its code: the study dataset's lookup index opened, the
 * numbering tables built, every function of the path compiled, the brotli encoder's first run.
 *
 * Measured with `npm run bench:study-ranges` (docs/benchmarks.md, "Cold study ranges,
 * fourth pass"): a fresh process's first 100-verse range was the slowest of the fifteen in
 * most runs, 63–88 ms against 30–50 ms for the others.
 *
 * It goes through the study range route's own handler and the response's own encoding,
 * with nothing billed and nothing cached but the panels of the verses it reads (the last
 * 100 of the translation; no bench range reads them).
 */
import { STUDY_DATASET } from '../../../sources/scripture/study/dataset.ts';
import type { TranslationSummary } from '../../../sources/scripture/dataset.ts';
import { Encoded } from '../../http/encoding.ts';
import { parseQuery } from '../../http/query.ts';
import type { Release } from '../../release/release.ts';
import type { ReviewView } from '../../state/reviews.ts';
import type { Ctx } from '../handlers.ts';
import { V1_ROUTES } from './routes.ts';
import { MAX_STUDY_VERSES } from './study.ts';

/**
 * Passes over the warm-up range. V8 optimizes the cold path's functions only after they
 * have run a while, and that compiling (on the other core, beside the brotli thread) with
 * the first full collections otherwise landed in a fresh server's first real ranges.
 * `npm run bench:study-ranges`, unpinned, each set of trees alternating run by run in one
 * sitting (docs/benchmarks.md, "Cold study ranges, sixth pass"): runs whose fifteen cold
 * ranges all took ≤ 60 ms, 4 of 8 with four passes, 8 of 8 with eight (run maxima
 * 37.8–54.2 ms); then eight against sixteen, 6 of 6 each, maxima 37.3–52.0 against
 * 29.8–47.1 ms. Sixteen passes make a fresh server ready ~1.1–1.3 s after its start
 * instead of ~0.8 s, with no change to /healthz under load meanwhile (bench:traffic).
 */
export const DEFAULT_WARM_PASSES = 16;
/**
 * ALMANAC_STUDY_WARM_PASSES, checked: a whole number from 0 (no warm-up study) to 50, unset
 * or empty the default. Throws on anything else; `serve` checks it before it starts, so the
 * server refuses to start rather than run with a setting nobody asked for.
 */
export function warmPasses(raw: string | undefined = process.env.ALMANAC_STUDY_WARM_PASSES): number {
  if (raw === undefined || raw === '') return DEFAULT_WARM_PASSES;
  if (!/^\d{1,2}$/.test(raw) || Number(raw) > 50) throw new Error(`ALMANAC_STUDY_WARM_PASSES must be a whole number from 0 to 50 (got ${JSON.stringify(raw)})`);
  return Number(raw);
}

const ROUTE = V1_ROUTES.find((r) => r.operationId === 'studyRange')!;
const warmed = new WeakMap<Release, string>();
/** The study a release was warmed with, if it was (tests). */
export const studyWarmed = (release: Release) => warmed.get(release);

/**
 * Composes and brotli-compresses the study of the last 100 verses of the release's first
 * translation (KJV when built): a range as long as a client may ask, so its larger paths
 * (a body streamed to the compressor, the reused scratch buffer) have run once too.
 * Resolves with what was composed (its path), or undefined when the release has no study
 * dataset or no translation; never rejects.
 */
export async function warmStudy(release: Release, reviews: () => ReviewView | Promise<ReviewView>): Promise<string | undefined> {
  try {
    if (!release.datasets.has(STUDY_DATASET)) return undefined;
    const slug = release.datasets.has('bible/kjv') ? 'kjv' : [...release.datasets.keys()].find((d) => d.startsWith('bible/'))?.slice('bible/'.length);
    if (!slug) return undefined;
    // The translation's last MAX_STUDY_VERSES verses, walking back from its end.
    const books = (release.datasets.get(`bible/${slug}`)!.summary as TranslationSummary).books;
    const tail: string[] = [];
    for (let b = books.length - 1; b >= 0 && tail.length < MAX_STUDY_VERSES; b--) {
      for (let c = books[b].chapters.length - 1; c >= 0 && tail.length < MAX_STUDY_VERSES; c--) {
        const [chapter, , count] = books[b].chapters[c];
        for (let v = count; v >= 1 && tail.length < MAX_STUDY_VERSES; v--) tail.push(`${books[b].slug}.${chapter}.${v}`);
      }
    }
    const passes = warmPasses();
    if (!tail.length || passes === 0) return undefined;
    const search = new URLSearchParams({ from: tail[tail.length - 1], to: tail[0] });
    const path = ROUTE.path.replace('{translation}', slug);
    // Several passes (warmPasses): V8 optimizes the path's functions only after they have
    // run a while, and that compiling, with the first full collections, otherwise landed in
    // the first real ranges. The later passes neither read nor fill the panel cache, so each
    // takes the cold path again over the same 100 verses and the caches hold one range's worth.
    for (let pass = 0; pass < passes; pass++) {
      const ctx: Ctx = { release, params: { translation: slug }, query: parseQuery(search, ROUTE.query), path, reviews, uncached: pass > 0 };
      const reply = await ROUTE.handler(ctx);
      if (reply.kind !== 'json') return undefined;
      const body = new Encoded(reply.body, reply.etag ?? 'warm');
      await body.get('br');
    }
    warmed.set(release, `${path}?${search}`);
    return `${path}?${search}`;
  } catch {
    return undefined; // a warm-up that fails leaves the first study to do the same work
  }
}
