/**
 * Response examples for the OpenAPI documents, taken from the release being built: the
 * build (pipeline/build.ts) opens its not yet committed release, sends each route one
 * example request through the route's real handler, and the documents carry the bodies
 * it answered. Nothing is written by hand, so an example is a record the release really
 * serves, in the envelope the server really sends.
 *
 * Only routes whose body is a pure function of (release, URL) get one — the routes the
 * server's response cache may reuse (`cache !== false`) — so the release stays
 * byte-identical for the same inputs: not the live feeds (their meta has the data's age
 * at request time), the key, the catalogue, downloads or study panels (state-dependent).
 * Search is left out too (its example would need a query chosen for it); the health check
 * and the documents themselves (they would name the release id they are part of).
 */
import type { Manifest } from '../../pipeline/writer.ts';
import type { BookSummary, TranslationSummary } from '../../sources/scripture/dataset.ts';
import type { Ctx } from './handlers.ts';
import { parseQuery } from '../http/query.ts';
import { joinedBody } from '../http/encoding.ts';
import type { Release } from '../release/release.ts';
import { fsReleaseAt } from '../release/fs-reader.ts';
import { Router } from '../http/router.ts';
import type { Route } from './routes.ts';

export interface Example { request: string; body: unknown }

/** Bodies above this are left out: an example is for reading. */
const MAX_EXAMPLE_BYTES = 12 * 1024;
/** Declared example requests where the path alone does not say what to ask (README examples). */
const DECLARED: Record<string, string> = {
  unitsConvert: '/apis/units/convert?from=mile&to=km&value=26.2',
};

const skip = (r: Route) => !r.auth || r.cache === false || r.media || /search$/i.test(r.operationId) || r.path.endsWith('/search');

/**
 * The example request of each route (by operationId): lists and views ask for one record,
 * a get asks for the first record the list answered, scripture routes ask for the
 * shortest book of the first available translation (KJV when built).
 */
async function requests(release: Release, routes: Route[], run: (route: Route, url: string) => Promise<unknown>): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const firstIds = new Map<string, string[]>();
  const translation = release.datasets.has('bible/kjv') ? 'kjv' : [...release.datasets.keys()].find((d) => d.startsWith('bible/'))?.slice('bible/'.length);
  const summary = translation ? (release.datasets.get(`bible/${translation}`)!.summary as TranslationSummary) : undefined;
  const verses = (b: BookSummary) => b.chapters.reduce((n, c) => n + c[2], 0);
  const book = summary?.books.reduce((a, b) => (verses(b) < verses(a) ? b : a));
  for (const route of routes) {
    if (skip(route)) continue;
    if (DECLARED[route.operationId]) {
      out.set(route.operationId, DECLARED[route.operationId]);
      continue;
    }
    if (route.path.startsWith('/api/v1')) {
      if (!translation || !book) continue;
      const [chapter] = book.chapters[0];
      const fill: Record<string, string> = { translation, book: book.slug, chapter: String(chapter), verse: '1' };
      let url = route.path.replace(/\{(\w+)\}/g, (_, p: string) => fill[p] ?? `{${p}}`);
      if (url.includes('{')) continue;
      if (route.query.some((q) => q.name === 'translation')) url += `?translation=${translation}`;
      if (url.endsWith('/range')) url += `?from=${book.slug}.${chapter}.1&to=${book.slug}.${chapter}.3`;
      // The written-reference routes (`ref` required) ask for the same three verses as people write them.
      else if (route.query.some((q) => q.name === 'ref' && q.required)) url += `?ref=${encodeURIComponent(`${book.slug} ${chapter}:1-3`)}`;
      out.set(route.operationId, url);
      continue;
    }
    if (!route.dataset) continue;
    if (!route.pathParams.length) {
      out.set(route.operationId, route.query.some((q) => q.name === 'limit') ? `${route.path}?limit=1` : route.path);
      continue;
    }
    // A get: the first ids the dataset's list answers, split to the route's number of parts.
    let ids = firstIds.get(route.dataset);
    if (!ids) {
      const list = (await run(routes.find((r) => r.path === `/apis/${route.dataset}`)!, `/apis/${route.dataset}?limit=100`)) as { data?: { id: string }[] } | undefined;
      ids = (list?.data ?? []).map((r) => String(r.id));
      firstIds.set(route.dataset, ids);
    }
    // One parameter takes any id, a slash percent-encoded (Europe%2FBerlin); n parameters an id of n parts.
    const parts = route.pathParams.length;
    const id = parts === 1 ? ids[0] : ids.find((i) => i.split('/').length === parts && !i.split('/').some((s) => s === ''));
    if (id && route.path.split('/').filter((s) => s.startsWith('{')).length === parts) {
      const template = route.path.split('/').slice(0, -parts).join('/');
      out.set(route.operationId, `${template}/${id.split('/').map(encodeURIComponent).join(parts === 1 ? '%2F' : '/')}`);
    }
  }
  return out;
}

/**
 * Examples of every eligible route, answered by the release whose files are in `at.dir`
 * (the build's temporary folder) and listed by `at.manifest`.
 */
export async function responseExamples(at: { dir: string; manifest: Manifest }, routes: Route[]): Promise<Map<string, Example>> {
  const release = fsReleaseAt(at.dir, at.manifest, 64 * 2 ** 20);
  // No example route reads reviews or usage (the key and study routes are not cacheable).
  const reviews = () => ({ version: '', get: () => undefined, all: () => [] });
  const run = async (route: Route, url: string) => {
    if (route.dataset && !release.datasets.has(route.dataset)) return undefined;
    const qi = url.indexOf('?');
    const path = qi === -1 ? url : url.slice(0, qi);
    const match = new Router([route]).match(path);
    if (!match) throw new Error(`example request ${url} does not match its route ${route.path}`);
    try {
      const ctx: Ctx = { release, params: match.params, query: parseQuery(new URLSearchParams(qi === -1 ? '' : url.slice(qi + 1)), route.query), path, reviews };
      const reply = await route.handler(ctx);
      return reply.kind === 'json' ? JSON.parse(String(joinedBody(reply.body))) : undefined;
    } catch {
      return undefined; // e.g. a view with no record yet, or parameters it refuses: no example rather than an error body
    }
  };
  const out = new Map<string, Example>();
  for (const [op, url] of await requests(release, routes, run)) {
    // A macrotask turn per example: an in-process build (tests) must not hold its event loop.
    await new Promise((resolve) => setImmediate(resolve));
    const route = routes.find((r) => r.operationId === op)!;
    const body = await run(route, url);
    if (body === undefined || JSON.stringify(body).length > MAX_EXAMPLE_BYTES) continue;
    out.set(op, { request: url, body });
  }
  return out;
}
