/**
 * A study composed once while the server warms (node/server.ts, after the search indexes
 * and the panels check), so the first study a client asks for does not pay for the first
 * time through its code: the study dataset's lookup index opened, the numbering tables
 * built, every function of the path compiled, the brotli encoder's first run.
 *
 * Measured with `npm run bench:study-ranges` (docs/benchmarks.md, "Cold study ranges,
 * fourth pass"): a fresh process's first 100-verse range was the slowest of the fifteen in
 * most runs, 63–88 ms against 30–50 ms for the others.
 *
 * It goes through the study range route's own handler and the response's own encoding,
 * with nothing billed and nothing cached but the panels of the two verses it reads (the
 * last two of the translation, where no bench range and few readers start).
 */
import { STUDY_DATASET } from '../../../sources/scripture/study/dataset.ts';
import type { TranslationSummary } from '../../../sources/scripture/dataset.ts';
import { Encoded, joinedBody } from '../../http/encoding.ts';
import { parseQuery } from '../../http/query.ts';
import type { Release } from '../../release/release.ts';
import type { ReviewView } from '../../state/reviews.ts';
import type { Ctx } from '../handlers.ts';
import { V1_ROUTES } from './routes.ts';

const ROUTE = V1_ROUTES.find((r) => r.operationId === 'studyRange')!;
const warmed = new WeakMap<Release, string>();
/** The study a release was warmed with, if it was (tests). */
export const studyWarmed = (release: Release) => warmed.get(release);

/**
 * Composes and brotli-compresses the study of the last two verses of the release's first
 * translation (KJV when built). Resolves with what was composed (its path), or undefined
 * when the release has no study dataset or no translation; never rejects.
 */
export async function warmStudy(release: Release, reviews: () => ReviewView | Promise<ReviewView>): Promise<string | undefined> {
  try {
    if (!release.datasets.has(STUDY_DATASET)) return undefined;
    const slug = release.datasets.has('bible/kjv') ? 'kjv' : [...release.datasets.keys()].find((d) => d.startsWith('bible/'))?.slice('bible/'.length);
    if (!slug) return undefined;
    const books = (release.datasets.get(`bible/${slug}`)!.summary as TranslationSummary).books;
    const last = books[books.length - 1];
    const [chapter, , count] = last.chapters[last.chapters.length - 1];
    const from = `${last.slug}.${chapter}.${Math.max(1, count - 1)}`;
    const to = `${last.slug}.${chapter}.${count}`;
    const search = new URLSearchParams({ from, to });
    const path = ROUTE.path.replace('{translation}', slug);
    const ctx: Ctx = { release, params: { translation: slug }, query: parseQuery(search, ROUTE.query), path, reviews };
    const reply = await ROUTE.handler(ctx);
    if (reply.kind !== 'json') return undefined;
    const body = new Encoded(reply.body, reply.etag ?? 'warm');
    await body.get('br');
    joinedBody(reply.body);
    warmed.set(release, `${path}?${search}`);
    return `${path}?${search}`;
  } catch {
    return undefined; // a warm-up that fails leaves the first study to do the same work
  }
}
