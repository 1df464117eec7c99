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
 * It goes through the core's own request path (core/app.ts rehearse: the target, the
 * handler's context, the response's encoding), with nothing billed and nothing cached but
 * the panels of the verses it reads (the last 100 of each canon group; no bench range
 * reads them).
 */
import { STUDY_DATASET } from '../../../sources/scripture/study/dataset.ts';
import type { TranslationSummary } from '../../../sources/scripture/dataset.ts';
import type { Release } from '../../release/release.ts';
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
 * The warm-up's ranges: the last MAX_STUDY_VERSES verses of each canon group the
 * translation has (old, new, apocrypha), in its order. One range of one group trained V8
 * on that group's layers and that one panels file only: the first real ranges of another
 * group (other layers, other token shapes, other files' readers) undid the optimized code
 * and compiled it again, 10–63 ms a function on a V8 thread, inside those ranges
 * (docs/benchmarks.md, "Cold study ranges, thirteenth pass").
 */
export function warmRanges(books: TranslationSummary['books']): [string, string][] {
  const out: [string, string][] = [];
  for (const group of [...new Set(books.map((b) => b.group))]) {
    const tail: string[] = [];
    const inGroup = books.filter((b) => b.group === group);
    for (let b = inGroup.length - 1; b >= 0 && tail.length < MAX_STUDY_VERSES; b--) {
      for (let c = inGroup[b].chapters.length - 1; c >= 0 && tail.length < MAX_STUDY_VERSES; c--) {
        const [chapter, , count] = inGroup[b].chapters[c];
        for (let v = count; v >= 1 && tail.length < MAX_STUDY_VERSES; v--) tail.push(`${inGroup[b].slug}.${chapter}.${v}`);
      }
    }
    if (tail.length) out.push([tail[tail.length - 1], tail[0]]);
  }
  return out;
}

/**
 * Composes and brotli-compresses studies of the release's first translation (KJV when
 * built): the last 100 verses of each of its canon groups (warmRanges), taken in turn, as
 * long a range as a client may ask, so its larger paths (a body streamed to the
 * compressor, the reused scratch buffer) have run too. Resolves with the first range
 * composed (its path), or undefined when the release has no study dataset or no
 * translation; never rejects.
 */
export async function warmStudy(release: Release, rehearse: (url: string, uncached: boolean) => Promise<void>): Promise<string | undefined> {
  try {
    if (!release.datasets.has(STUDY_DATASET)) return undefined;
    const slug = release.datasets.has('bible/kjv') ? 'kjv' : [...release.datasets.keys()].find((d) => d.startsWith('bible/'))?.slice('bible/'.length);
    if (!slug) return undefined;
    const ranges = warmRanges((release.datasets.get(`bible/${slug}`)!.summary as TranslationSummary).books);
    const passes = warmPasses();
    if (!ranges.length || passes === 0) return undefined;
    const urls = ranges.map(([from, to]) => `${ROUTE.path.replace('{translation}', slug)}?from=${from}&to=${to}`);
    // Several passes (warmPasses): V8 optimizes the path's functions only after they have
    // run a while, and that compiling, with the first full collections, otherwise landed in
    // the first real ranges. Each range's first pass fills the panel cache with its verses
    // (no bench range reads them); the later passes neither read nor fill it, so each takes
    // the cold path again and the caches hold one range's worth per group. Through the
    // core's own request path (rehearse), so what V8 learns is what requests bring.
    for (let pass = 0; pass < passes; pass++) await rehearse(urls[pass % urls.length], pass >= urls.length);
    warmed.set(release, urls[0]);
    return urls[0];
  } catch {
    return undefined; // a warm-up that fails leaves the first study to do the same work
  }
}
