/**
 * Endpoint handlers. They assemble response bodies from precomputed record lines
 * (bytes, never re-serialized records) and the dataset's metadata; they never touch
 * the filesystem except through the Release, which only reads manifest-listed files.
 */
import { OPENAPI } from '../../pipeline/paths.ts';
import { DEFAULT_REFRESH, type DatasetInfo } from '../../pipeline/shards.ts';
import { dataTime, staleAt, type GatedInfo } from '../../pipeline/gate.ts';
import { ApiError } from '../http/errors.ts';
import { columnPredicate } from './filters.ts';
import { searchMeta } from '../search/search-bounds.ts';
import type { Query } from '../http/query.ts';
import type { Body } from '../http/encoding.ts';
import type { Release } from '../release/release.ts';
import type { Caller } from '../state/accounts.ts';
import type { ReviewView } from '../state/reviews.ts';

/** A key's count this month and when it was last counted (unix seconds), as its charge found them. */
export interface Usage { used: number; lastUsed?: number }

export interface Ctx {
  release: Release;
  params: Record<string, string>;
  query: Query;
  /** Path of the request, for building `next` links. */
  path: string;
  /** The calling key (absent on public routes). */
  key?: Caller;
  /** The calling key's count this month and its last counted use (unix seconds), as its charge found them. */
  usage?: Usage;
  /** The token reviews in force (state/reviews.ts), read when a study handler asks. */
  reviews: () => ReviewView | Promise<ReviewView>;
  /** Why the server is not ready (/readyz); absent where the runtime has no such state (the Worker). */
  ready?: () => string[];
  /**
   * Compose without reading or filling the study panel cache (api/v1/study.ts): the
   * warm-up's repeated passes over the same verses (api/v1/study-warm.ts). Never set by a request.
   */
  uncached?: boolean;
}

export type Reply =
  /**
   * `body`: parts are sent as the bytes they join into (a study range's cached panel
   * fragments, never joined unless a client asks for identity). `etag`: given when the
   * handler knows the body's identity more cheaply than hashing it (a 4 MB study range).
   */
  | { kind: 'json'; body: Body; etag?: string }
  | { kind: 'file'; path: string }
  /** A bundle archive outside the release (server/downloads.ts): streamed, with Range support. */
  | { kind: 'download'; /** dist-relative path (bundles/<id>/<name>) */ file: string; name: string; size: number; etag: string; type: string;
    /** download.json's sha256 of an archive, checked before its bytes are sent (server/api/downloads.ts). */ sha256?: string };

/** A handler answers at once, or (searches) with a promise so long work can yield to other requests. */
export type Handler = (ctx: Ctx) => Reply | Promise<Reply>;

/** Per-dataset `meta` prefix, computed once per release. */
const metaCache = new WeakMap<DatasetInfo, Record<string, unknown>>();
export function datasetMeta(info: DatasetInfo): Record<string, unknown> {
  let m = metaCache.get(info);
  if (!m) {
    m = {
      dataset: info.id,
      contract_version: info.contract_version,
      data_release: info.data_release,
      upstream: info.upstream.map((u) => u.ref),
      sources: info.provenance,
    };
    metaCache.set(info, m);
  }
  return m;
}

const info = (ctx: Ctx, ds: string) => ctx.release.datasets.get(ds)!;

/**
 * How fresh a live dataset's data is: the upstream's own timestamp, when it was fetched,
 * and whether it is stale — older (upstream time, else fetch time) than the dataset's
 * `refresh.stale_after_seconds`, or carried forward because the upstream could not be
 * reached. Nothing here changes from second to second, so a live body (and its ETag)
 * stays the same between fetches; the data's age in seconds travels in the `Data-Age`
 * header instead (dataAge below).
 */
export function freshness(i: GatedInfo, now = Date.now()): Record<string, unknown> {
  const held = i.held_back ? { held_back: { ...i.held_back, data_from: i.carried_forward_from ?? null } } : {};
  if (!i.live && i.upstream_time === undefined) return held;
  return {
    upstream_time: i.upstream_time ?? null,
    fetched_at: i.fetched_at ?? null,
    stale: isStale(i, now),
    ...(i.carried_forward_from ? { carried_forward_from: i.carried_forward_from } : {}),
    ...held,
  };
}

export function isStale(i: GatedInfo, now = Date.now()): boolean {
  return !!i.carried_forward_from || staleAt(i, now);
}

/** Seconds since the data's own time, for the `Data-Age` header of live responses; null when unknown. */
export function dataAge(i: DatasetInfo, now = Date.now()): number | null {
  const t = dataTime(i);
  return t === null ? null : Math.max(0, Math.floor((now - t) / 1000));
}

async function page(ctx: Ctx, ds: string, ordinals: number[] | null, extraMeta: Record<string, unknown> = {}): Promise<Reply> {
  const { limit, offset } = ctx.query as { limit: number; offset: number };
  const i = info(ctx, ds);
  const total = ordinals ? ordinals.length : i.records;
  const lines = ordinals
    ? await ctx.release.records(ds, ordinals.slice(offset, offset + limit))
    : await ctx.release.slice(ds, offset, limit);
  let next: string | null = null;
  if (offset + limit < total) {
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(ctx.query)) if (v !== undefined) qs.set(k, String(v));
    qs.set('offset', String(offset + limit));
    next = `${ctx.path}?${qs}`;
  }
  const meta = { ...datasetMeta(i), ...freshness(i), ...extraMeta, total, limit, offset, next };
  const body = Buffer.concat([
    Buffer.from('{"data":['),
    ...lines.flatMap((l, n) => (n ? [COMMA, l] : [l])),
    Buffer.from(`],"meta":${JSON.stringify(meta)}}`),
  ]);
  return { kind: 'json', body };
}
const COMMA = Buffer.from(',');

/** The values a filter parameter asks for: one value, or every integer of an "A-B" span. */
function filterValues(f: DatasetInfo['filters'][number], raw: string): string[] {
  const span = f.max_span ? /^(-?\d{1,6})-(-?\d{1,6})$/.exec(raw) : null;
  if (!span) return [f.case_insensitive ? raw.toLowerCase() : raw];
  const [a, b] = [Number(span[1]), Number(span[2])];
  if (a > b || b - a + 1 > f.max_span!) {
    throw new ApiError('invalid_parameter', `parameter '${f.param}' spans ${b - a + 1} values; give A-B with A ≤ B and at most ${f.max_span}`, { parameter: f.param, value: raw, max_span: f.max_span });
  }
  return Array.from({ length: b - a + 1 }, (_, i) => String(a + i));
}

/** Ordinals matching every filter given in the query (and a view's fixed ones), or null when none applies. */
async function filtered(ctx: Ctx, ds: string, fixed: Record<string, string> = {}): Promise<number[] | null> {
  const result = await equalityFiltered(ctx, ds, fixed);
  const i = info(ctx, ds);
  const keep = await columnPredicate(ctx.release, i, ctx.query, Date.now());
  if (!keep) return result;
  if (result) return result.filter(keep);
  const all: number[] = [];
  for (let o = 0; o < i.records; o++) if (keep(o)) all.push(o);
  return all;
}

async function equalityFiltered(ctx: Ctx, ds: string, fixed: Record<string, string>): Promise<number[] | null> {
  let result: number[] | null = null;
  for (const f of info(ctx, ds).filters) {
    const raw = fixed[f.param] ?? ctx.query[f.param];
    if (raw === undefined || f.compare) continue;
    const values = filterValues(f, String(raw));
    const found = (await Promise.all(values.map((v) => ctx.release.filter(ds, f.param, v)))).filter((x): x is number[] => !!x);
    // A span may include values no record has; a single unknown value is a mistake worth a 400.
    const hits = values.length > 1 ? found.flat().sort((x, y) => x - y) : found[0];
    if (!hits) {
      // A feed that has no current record with a valid value (no alerts in KS today) is
      // an empty list; in fixed reference data an unknown value is a mistake worth a 400.
      // A view's own fixed value with no record: the caller never sent that parameter, so a
      // 400 would blame them. When an input of the dataset was not fetched (subcounties, an
      // optional Census file), say so (503, as for an absent dataset); else it is empty.
      if (fixed[f.param] !== undefined) {
        const missing = info(ctx, ds).missing_inputs;
        if (missing?.length) {
          throw new ApiError('dataset_unavailable', `${ds}: this view has no records because the release was built without the input ${missing.join(', ')} (its upstream could not be had)`, {
            dataset: ds, missing_inputs: missing, reason: `input ${missing.join(', ')} not fetched`,
          });
        }
        return [];
      }
      if (info(ctx, ds).live) return [];
      const values = await ctx.release.filterValues(ds, f.param);
      throw new ApiError('invalid_parameter', `parameter '${f.param}' has no record with value '${raw}'`, {
        parameter: f.param,
        value: raw,
        ...(values.length <= 60 ? { allowed: values } : { allowed_count: values.length }),
      });
    }
    if (result === null) result = hits;
    else {
      const keep = new Set(hits);
      result = result.filter((o) => keep.has(o));
    }
  }
  return result;
}

/** List order, or relevance order when `q` is given; filters narrow either. */
async function listOrSearch(ctx: Ctx, ds: string, fixed?: Record<string, string>): Promise<Reply> {
  const f = await filtered(ctx, ds, fixed);
  if (ctx.query.q === undefined) return page(ctx, ds, f);
  const q = String(ctx.query.q);
  const found = await ctx.release.searchAsync(ds, q);
  let hits = found.ordinals;
  if (f) {
    const keep = new Set(f);
    hits = hits.filter((o) => keep.has(o));
  }
  return page(ctx, ds, hits, { q, order: 'relevance', ...searchMeta(found) });
}

export const list = (ds: string): Handler => (ctx) => listOrSearch(ctx, ds);
export const search = list;
/** The dataset's build-time summary (e.g. holiday coverage), in the usual envelope. */
export const summary = (ds: string): Handler => (ctx) => {
  const i = info(ctx, ds);
  return { kind: 'json', body: JSON.stringify({ data: i.summary ?? null, meta: { ...datasetMeta(i), ...freshness(i) } }) };
};

export const view = (ds: string, fixed: Record<string, string>): Handler => (ctx) => listOrSearch(ctx, ds, fixed);

export async function recordOrdinal(ctx: Ctx, ds: string, key: string): Promise<number> {
  const ord = await ctx.release.lookup(ds, key);
  if (ord === undefined) {
    // A code several records share (naics-2017:311111 and naics-2022:311111 for a bare
    // 311111) is not a miss: say which records the client can choose from.
    const candidates = await ctx.release.candidates(ds, key);
    if (candidates) {
      throw new ApiError('ambiguous_id', `${ds}: '${key.slice(0, 100)}' matches ${candidates.length} records; use one of their ids`, {
        dataset: ds, id: key.slice(0, 100), candidates,
      });
    }
    throw new ApiError('record_not_found', `${ds} has no record '${key.slice(0, 100)}'`, { dataset: ds, id: key.slice(0, 100) });
  }
  return ord;
}

export const get = (ds: string, ambiguousIds?: string): Handler => async (ctx) => {
  const key = Object.values(ctx.params).join('/'); // a zone name may arrive as several segments (Europe/Berlin)
  const candidates = ambiguousIds && (await ctx.release.lookup(ds, key)) === undefined ? await ctx.release.filter(ds, ambiguousIds, key.toLowerCase()) : undefined;
  if (candidates) {
    const lines = await ctx.release.records(ds, candidates.slice(0, 100));
    const ids = lines.map((l) => (JSON.parse(l.toString('utf8')) as { id: string }).id);
    throw new ApiError('ambiguous_id', `'${key.slice(0, 100)}' names ${candidates.length} records of ${ds}; request one of them by id`, { dataset: ds, id: key.slice(0, 100), candidates: ids });
  }
  const ord = await recordOrdinal(ctx, ds, key);
  const line = await ctx.release.record(ds, ord);
  const i = info(ctx, ds);
  const now = Date.now();
  // An expired record (a cancelled or lapsed alert) is still answered by id, marked so.
  const expiry = i.expires_field ? (await ctx.release.column(ds, i.expires_field))[ord] : undefined;
  const meta = { ...datasetMeta(i), ...freshness(i, now), ...(expiry !== undefined ? { expired: expiry < now } : {}) };
  const body = Buffer.concat([Buffer.from('{"data":'), line, Buffer.from(`,"meta":${JSON.stringify(meta)}}`)]);
  return { kind: 'json', body };
};

/**
 * One record of a view (/apis/aviation/airports/{ident}): looked up like `get`, then
 * checked against the view's fixed filters on the record itself, so the request reads
 * one key bucket and one pack, never a filter index.
 */
export const viewGet = (ds: string, fixed: Record<string, string>): Handler => async (ctx) => {
  const key = Object.values(ctx.params)[0];
  const i = info(ctx, ds);
  // A miss falls through to recordOrdinal, which names the candidates of a shared code.
  const ord = (await ctx.release.lookup(ds, key, true)) ?? (await recordOrdinal(ctx, ds, key));
  const line = await ctx.release.record(ds, ord);
  const record = JSON.parse(line.toString('utf8')) as Record<string, unknown>;
  const inView = Object.entries(fixed).every(([param, want]) => {
    const f = i.filters.find((x) => x.param === param)!;
    const v = record[f.field];
    const norm = (x: unknown) => (f.case_insensitive ? String(x).toLowerCase() : String(x));
    return (Array.isArray(v) ? v : [v]).some((x) => x !== null && norm(x) === norm(want));
  });
  if (!inView) throw new ApiError('record_not_found', `${ds} has no record '${key.slice(0, 100)}' here`, { dataset: ds, id: key.slice(0, 100) });
  const body = Buffer.concat([Buffer.from('{"data":'), line, Buffer.from(`,"meta":${JSON.stringify({ ...datasetMeta(i), ...freshness(i) })}}`)]);
  return { kind: 'json', body };
};

export const openapi: Handler = () => ({ kind: 'file', path: OPENAPI });

/** Where a catalogue entry is served: translations and the study layers live under /api/v1, not /apis. */
function endpointOf(id: string): string {
  if (id.startsWith('bible/')) return `/api/v1/books?translation=${encodeURIComponent(id.slice('bible/'.length))}`;
  if (id === 'bible-study') return '/api/v1/source-texts';
  return `/apis/${id}`;
}

/** The date of a dataset's data: the upstream's own time, else its fetch time (live feeds); null for fixed data. */
const dataDate = (i: DatasetInfo) => {
  const t = dataTime(i);
  return t === null ? null : new Date(t).toISOString();
};

export const catalogue: Handler = (ctx) => {
  const data = [...ctx.release.datasets.values()].map((i) => ({
    ...datasetMeta(i),
    ...freshness(i),
    ...(i.live ? { refresh: i.refresh ?? DEFAULT_REFRESH } : {}),
    data_date: dataDate(i),
    title: i.title,
    description: i.description,
    coverage: i.coverage ?? null,
    records: i.records,
    status: 'available',
    endpoints: endpointOf(i.id),
    // Optional inputs this release was built without, and why (issue 37: the food and device
    // recall files, the subcounty populations): a partial dataset says what it lacks.
    ...(i.missing_inputs?.length ? { missing_inputs: i.missing_inputs.map((input) => ({ input, reason: i.missing_reasons?.[input] ?? 'not fetched' })) } : {}),
  }));
  for (const [id, reason] of Object.entries(ctx.release.absent)) data.push({ dataset: id, status: 'absent', reason } as any);
  return { kind: 'json', body: JSON.stringify({ data, meta: { release: ctx.release.id, platform_contract_version: '0.9.0' } }) };
};

/** Which live datasets of the release are stale right now, as a short string (recomputed once a second). */
const staleMemo = new WeakMap<Release, { second: number; sig: string }>();
export function staleSignature(rel: Release, now: number): string {
  const second = Math.floor(now / 1000);
  const m = staleMemo.get(rel);
  if (m && m.second === second) return m.sig;
  let sig = '';
  for (const i of rel.datasets.values()) if (i.live) sig += isStale(i, now) ? '1' : '0';
  staleMemo.set(rel, { second, sig });
  return sig;
}
