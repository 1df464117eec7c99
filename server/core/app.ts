/**
 * The app core: one request path for both runtimes, in five named steps —
 *
 *   parse → authenticate → limit → resolve → send
 *
 * written against a CoreRequest (http/request.ts), a Release (release/, read through
 * whichever ReleaseReader the adapter gives it) and a StateStore (core/state.ts). The
 * Node server (server/node/server.ts) and the Worker (edge/worker.ts) only translate
 * their runtime's request and response and supply those two; no route, handler, error
 * or billing rule exists twice.
 */
import type { DatasetInfo } from '../../pipeline/shards.ts';
import { datasetRoutes, ROUTES, type Route } from '../api/routes.ts';
import { frontDoorHtml, prefersHtml } from '../api/front-door.ts';
import { gone, lanes } from './gate.ts';
import type { After, Core, CoreOptions } from './options.ts';
import { dataAge, staleSignature } from '../api/handlers.ts';
import { downloadResponse } from '../api/downloads.ts';
import { docsResponse } from '../api/docs.ts';
import { policyHeaders, type ResponseKind } from '../http/cache-policy.ts';
import { Encoded, formsBytes, type Coding, type Forms } from '../http/encoding.ts';
import { ApiError } from '../http/errors.ts';
import { parseQuery } from '../http/query.ts';
import type { CoreRequest, CoreResponse, HeaderList } from '../http/request.ts';
import { PREFLIGHT_HEADERS, errorResponse, hashOf, releaseFile, representation, select, wantedCoding, type Representable, type Sent } from '../http/respond.ts';
import { Lru } from '../release/lru.ts';
import type { Release } from '../release/release.ts';
import { SCRIPTURE_CREDENTIALS } from './credentials.ts';
import { SCRIPTURE, SURFACES, platformSurface } from './surfaces.ts';
import { NO_QUERY, Targets, cacheKeyOf } from './targets.ts';
import { OPEN_KEY, keyed } from './keyed.ts';
import { handlerContext, searchOf, type Turn } from './turn.ts';

export { OPEN_KEY };

/** Vary of the front door, which answers JSON or HTML by Accept. */
const FRONT_VARY = policyHeaders('front')[3];
export type { After, Core, CoreOptions, SharedBodies } from './options.ts';

/** The request id that begins every log line about a request (the same as its X-Request-Id and access log line). */
const about = (req: CoreRequest) => (req.id ? `request ${req.id}: ` : '');

/** Which row of the cache policy (http/cache-policy.ts) a route's answers follow. */
export function kindOf(route: Route, info: DatasetInfo | undefined): ResponseKind {
  return route.policy ?? (route.auth === false ? 'document' : info?.live ? 'live' : 'reference');
}

export function createCore(opts: CoreOptions): Core {
  const { state, log } = opts;
  const surfaces = opts.extraSources?.length
    ? [platformSurface([...ROUTES.filter((r) => r.path.startsWith('/apis')), ...opts.extraSources.flatMap(datasetRoutes)]), SCRIPTURE]
    : SURFACES;
  // Handlers are pure functions of (release, URL), so a finished body and its ETag can be
  // reused for the next request of the same URL. bench/serve.ts measures what this buys.
  // Each entry holds the body and, once asked for, its br and gzip forms (http/encoding.ts).
  const responses = new Lru<Encoded>(opts.responseCacheBytes ?? 64 * 2 ** 20);
  const cacheResponse = (k: string, e: Encoded) => responses.set(k, e, e.bytes + k.length + 64);
  // Bodies of routes that are not response-cached but name their own identity (a study
  // range's ETag hashes its panels and the review version): the next request for the same
  // bytes reuses the compressed forms instead of compressing 3–5 MB again (issue 27, item 4).
  // Only the forms are kept, not the identity body the handler composes again anyway: a
  // 100-verse range is 4.6 MB, its br form 0.14 MB (32 MiB held 6 ranges; 16 MiB now holds ~45).
  const byEtag = new Lru<Forms>(opts.responseCacheBytes ? Math.min(opts.responseCacheBytes, 16 * 2 ** 20) : 16 * 2 ** 20);
  const keepByEtag = (e: Encoded) => {
    const forms = e.forms();
    byEtag.set(e.hash, forms, formsBytes(forms) + 64);
  };
  let stateWarned = 0;

  const targets = new Targets(surfaces);
  // One reviews function for every handler context, requests' and rehearsals' (handlerContext).
  const reviews = () => state.reviews();

  /**
   * A GET of `url` composed and br-encoded as a request's (target, query, handler context),
   * with no key, bill, lane or response cache: the study warm-up (api/v1/study-warm.ts).
   * `uncached`: the handler neither reads nor fills the study panel cache.
   */
  async function rehearse(url: string, uncached: boolean): Promise<void> {
    const target = targets.of(url);
    if (!target.match) return;
    const { route, params } = target.match;
    const query = parseQuery(target.query ? new URLSearchParams(target.query) : NO_QUERY, route.query);
    const reply = await route.handler(handlerContext(await opts.release(), params, query, target.rawPath, undefined, undefined, reviews, opts.ready, uncached));
    if (reply.kind === 'json') await new Encoded(reply.body, reply.etag ?? hashOf(reply.body)).get('br');
  }
  const { enter: enterLane, leave: leaveLane, busy: laneBusy } = lanes(opts.gate);
  const { authenticate, limit, bill } = keyed(state, opts.open);

  /** parse: method, path, query, surface and route; OPTIONS answered at once. */
  function parse(req: CoreRequest): Turn | CoreResponse {
    if (req.method === 'OPTIONS') return { status: 204, headers: [...PREFLIGHT_HEADERS] };
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      throw new ApiError('method_not_allowed', `method ${req.method} is not allowed`, undefined, { allow: 'GET, HEAD, OPTIONS' });
    }
    const target = targets.of(req.url || '/');
    return { req, target, rawPath: target.rawPath, surface: target.surface, match: target.match, limitHeaders: [], cost: 'free', admitted: 'free' };
  }

  /**
   * resolve and send: the body from a cache or the handler, in the representation the client
   * accepts. A body in the response cache, already counted, is answered in this call (no
   * promise: issue 41); composing one, waiting for a lane or a bill goes through compose().
   */
  function resolve(t: Turn, after: After): CoreResponse | Promise<CoreResponse> {
    const { match, rawPath } = t;
    // The key= credential is not a query parameter of any endpoint (nor part of any cache key).
    if (t.surface.credentials === SCRIPTURE_CREDENTIALS && t.target.query) searchOf(t).delete('key');
    if (!match) throw t.surface.notFound(rawPath);
    // The Node server's release is at hand: no await (a microtask per request) unless the adapter's is a promise.
    const held = opts.release();
    return held instanceof Promise ? held.then((rel) => resolveIn(t, rel, after)) : resolveIn(t, held, after);
  }

  function resolveIn(t: Turn, rel: Release, after: After): CoreResponse | Promise<CoreResponse> {
    const { route } = t.match!;
    if (route.dataset && !rel.datasets.has(route.dataset)) {
      throw new ApiError('dataset_unavailable', `dataset '${route.dataset}' is not in the live release`, {
        dataset: route.dataset, reason: rel.absent[route.dataset] ?? 'not built',
      });
    }
    const info = route.dataset ? rel.datasets.get(route.dataset) : undefined;
    const now = Date.now();
    const headers = policyHeaders(kindOf(route, info), info);
    if (info?.live) {
      const age = dataAge(info, now);
      if (age !== null) headers.push('data-age', String(age));
    }
    const cacheable = route.auth && route.cache !== false;
    // Staleness flips at most once per release and dataset: part of the key, so a cached body never says stale wrongly.
    const cacheKey = cacheable ? cacheKeyOf(t, rel.id, staleSignature(rel, now)) : '';
    const body = cacheable ? responses.get(cacheKey) : undefined;
    if (!body || t.billKey) return compose(t, rel, after, headers, cacheable, cacheKey, body);
    const sel = select(t.req, body);
    const size = body.bytes;
    const got = sent(t, body, sel, headers);
    if (got instanceof Promise) return got.then((g) => answered(body, size, cacheKey, undefined, false, '', g, after));
    return answered(body, size, cacheKey, undefined, false, '', got, after);
  }

  /** The rest of resolve() when there is work or waiting: the shared cache, the lane, the handler, the bill. */
  async function compose(t: Turn, rel: Release, after: After, headers: HeaderList, cacheable: boolean | undefined, cacheKey: string, cached: Encoded | undefined): Promise<CoreResponse> {
    const { req, rawPath } = t;
    const { route, params } = t.match!;
    let body: Representable | undefined = cached;
    const wanted = opts.shared && cacheable && !body ? wantedCoding(req) : '';
    if (!body && opts.shared && cacheable) {
      const hit = await opts.shared.get(cacheKey, wanted);
      if (hit) body = { hash: hit.hash, offered: hit.coding ? [hit.coding] : [], get: () => ({ body: hit.body, coding: hit.coding }) };
    }
    let fresh: Encoded | undefined;
    /** Not response-cached, but named by the handler's own ETag: its compressed forms are kept by ETag. */
    let etagged = false;
    // A body at hand is no work: only composing one waits for a slot of the request's lane.
    if (!body && !(await enterLane(t, t.cost))) return gone();
    if (!body) {
      const query = parseQuery(searchOf(t), route.query);
      const reply = await route.handler(handlerContext(rel, params, query, rawPath, t.key, t.usage, reviews, opts.ready, false));
      if (reply.kind === 'download') return downloadResponse(req, rel, reply, headers, t.limitHeaders, () => bill(t));
      if (reply.kind === 'file') {
        if (!rel.entry(reply.path)) throw new ApiError('not_found', 'this file is not part of the served release'); // a partial offline bundle
        body = releaseFile(rel, reply.path);
      } else {
        // A handler may know its body's identity more cheaply than hashing it (a 3 MB study range).
        body = fresh = new Encoded(reply.body, reply.etag ?? hashOf(reply.body));
        etagged = !cacheable && !!reply.etag;
        const known = etagged ? byEtag.get(fresh.hash) : undefined;
        if (known) fresh.adopt(known);
        if (cacheable) cacheResponse(cacheKey, fresh);
      }
    }
    const sel = select(req, body);
    const size = body instanceof Encoded ? body.bytes : 0;
    if (!sel.notModified && t.billKey) {
      // Compressed inside the lane, then the slot goes on: waiting for the count is not work
      // (held through it, a full lane fed itself: 0.3-0.6 s maxima at 256 connections).
      if (body instanceof Encoded) {
        const form = body.get(sel.coding);
        if (form instanceof Promise) await form;
      }
      leaveLane(t);
      await bill(t);
    }
    const got = sent(t, body, sel, headers);
    return answered(body, size, cacheable ? cacheKey : '', fresh, etagged, wanted, got instanceof Promise ? await got : got, after);
  }

  /** The selected representation with the policy and rate-limit headers. */
  function sent(t: Turn, body: Representable, sel: ReturnType<typeof select>, headers: HeaderList): Sent | Promise<Sent> {
    return representation(t.req, body, sel, headers, t.limitHeaders);
  }

  /** After a response is made: a compressed form just made is counted in the cache's budget, or kept by ETag, or shared. */
  function answered(body: Representable, size: number, cacheKey: string, fresh: Encoded | undefined, etagged: boolean, wanted: Coding, s: Sent, after: After): CoreResponse {
    if (body instanceof Encoded && cacheKey && body.bytes !== size) cacheResponse(cacheKey, body);
    else if (etagged && fresh && fresh.bytes !== size) keepByEtag(fresh);
    if (fresh && cacheKey && opts.shared && s.body !== undefined && s.response.status === 200) {
      after(opts.shared.put(cacheKey, wanted, { body: s.body, coding: s.coding, hash: fresh.hash }));
    }
    return s.response;
  }

  /** An error as the envelope, billed like any other answer to a key except the limits' own refusals. */
  async function failed(t: Turn | undefined, req: CoreRequest, thrown: unknown): Promise<CoreResponse> {
    let err = thrown;
    if (t) leaveLane(t);
    if (t?.billKey && err instanceof ApiError && err.status !== 429 && err.code !== 'state_unavailable') {
      try {
        await bill(t);
      } catch (billing) {
        err = billing; // a month used up turns it into the 429
      }
    }
    const headers = t?.limitHeaders ?? [];
    if (err instanceof ApiError) {
      if (err.code === 'state_unavailable' && Date.now() - stateWarned > 10_000) {
        stateWarned = Date.now();
        log(`${about(req)}the request could not be counted (${err.logNote ?? 'the quota store refused it'}); requests answer 503 state_unavailable and are not billed`);
      }
      return errorResponse(req, err, headers);
    }
    log(`${about(req)}internal error on ${req.method} ${(req.url ?? '').split('?')[0].slice(0, 200)}: ${(err as Error).stack}`);
    return errorResponse(req, new ApiError('internal_error', 'internal error'), headers);
  }

  const runAfter: After = (p) => void p.catch((err) => log(`after a response: ${(err as Error).message}`));
  /**
   * The five steps. Each returns its result as it is when it had nothing to wait for, so a
   * cached lookup is answered without a promise of its own; on the Node server only the
   * count waits (for the end of the event-loop turn), and the rest runs after it in one go.
   */
  function respond(req: CoreRequest, after: After = runAfter): CoreResponse | Promise<CoreResponse> {
    let t: Turn | undefined;
    try {
      const parsed = parse(req);
      if (!('rawPath' in parsed)) return parsed;
      t = parsed;
      const turn = t;
      const { cost, docs } = turn.target;
      req.cost = cost;
      // The docs page: static files of the release, public and never counted (api/docs.ts).
      // The front door for a browser: the same links as an HTML page (api/front-door.ts).
      if (docs || (turn.rawPath === '/' && prefersHtml(req))) return settle(turn, page(turn, docs));
      // The key and its count come before the lane (issue 41), which resolve() enters only
      // when there is work: the count waits for the end of the event-loop turn, and a slot
      // held through that wait let a lane of 4 lookups batch at most 4 requests a turn (one
      // journal write, one access log write, one setImmediate per 4 requests: +12 µs of CPU
      // per cached lookup). When the lane is full, the request is only admitted now and
      // billed once its turn comes (as a conditional request is), so one whose client
      // leaves while it waits is never billed.
      turn.cost = cost;
      const rec = authenticate(turn);
      const limited = rec instanceof Promise ? rec.then((r) => limit(turn, r, laneBusy(cost))) : limit(turn, rec, laneBusy(cost));
      if (limited) return settle(turn, limited, () => resolve(turn, after));
      const out = resolve(turn, after);
      if (out instanceof Promise) return settle(turn, out);
      leaveLane(turn);
      return out;
    } catch (thrown) {
      return settle(t, Promise.reject(thrown), undefined, req);
    }
  }

  /** The docs page or the front door's HTML, inside the request's lane. */
  async function page(t: Turn, docs: string | null): Promise<CoreResponse> {
    if (!(await enterLane(t, t.target.cost))) return gone();
    return docs ? await docsResponse(t.req, await opts.release(), docs) : frontDoorHtml(t.req, (await opts.release()).id, FRONT_VARY);
  }

  /**
   * A request's answer once it comes (`pending`, then `next` when given): errors as the
   * envelope, and its lane slot given back either way. One reaction per request, not an
   * async function's (a keyed lookup waits for its count, then answers: issue 41).
   */
  function settle(t: Turn | undefined, pending: Promise<unknown>, next?: () => CoreResponse | Promise<CoreResponse>, req = t!.req): Promise<CoreResponse> {
    const fail = (thrown: unknown) => failed(t, req, thrown);
    return pending.then((got) => {
      try {
        const out = next ? next() : (got as CoreResponse);
        if (out instanceof Promise) return out.then((o) => left(t, o), fail);
        return left(t, out);
      } catch (thrown) {
        return fail(thrown);
      }
    }, fail);
  }

  /** The answer, once the request's lane slot is given back. */
  function left(t: Turn | undefined, out: CoreResponse): CoreResponse {
    if (t) leaveLane(t);
    return out;
  }

  const handle = (req: CoreRequest, after?: After): Promise<CoreResponse> => {
    const out = respond(req, after);
    return out instanceof Promise ? out : Promise.resolve(out);
  };

  return { handle, respond, error: (req, err) => errorResponse(req, err), rehearse };
}
