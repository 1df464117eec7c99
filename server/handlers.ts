/**
 * Endpoint handlers. They assemble response bodies from precomputed record lines
 * (bytes, never re-serialized records) and the dataset's metadata; they never touch
 * the filesystem except through the Release, which only reads manifest-listed files.
 */
import { OPENAPI } from '../pipeline/paths.ts';
import type { DatasetInfo } from '../pipeline/shards.ts';
import { ApiError } from './errors.ts';
import type { Query } from './query.ts';
import type { Release } from './release.ts';
import type { KeyRecord } from './state/keys.ts';
import type { QuotaStore } from './state/quota.ts';

export interface Ctx {
  release: Release;
  params: Record<string, string>;
  query: Query;
  /** Path of the request, for building `next` links. */
  path: string;
  /** The calling key (absent on public routes). */
  key?: KeyRecord;
  quota: QuotaStore;
}

export type Reply =
  | { kind: 'json'; body: Buffer | string }
  | { kind: 'file'; path: string };

export type Handler = (ctx: Ctx) => Reply;

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

function page(ctx: Ctx, ds: string, ordinals: number[] | null, extraMeta: Record<string, unknown> = {}): Reply {
  const { limit, offset } = ctx.query as { limit: number; offset: number };
  const i = info(ctx, ds);
  const total = ordinals ? ordinals.length : i.records;
  const lines = ordinals
    ? ordinals.slice(offset, offset + limit).map((o) => ctx.release.record(ds, o))
    : ctx.release.slice(ds, offset, limit);
  let next: string | null = null;
  if (offset + limit < total) {
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(ctx.query)) if (v !== undefined) qs.set(k, String(v));
    qs.set('offset', String(offset + limit));
    next = `${ctx.path}?${qs}`;
  }
  const meta = { ...datasetMeta(i), ...extraMeta, total, limit, offset, next };
  const body = Buffer.concat([
    Buffer.from('{"data":['),
    ...lines.flatMap((l, n) => (n ? [COMMA, l] : [l])),
    Buffer.from(`],"meta":${JSON.stringify(meta)}}`),
  ]);
  return { kind: 'json', body };
}
const COMMA = Buffer.from(',');

/** Ordinals matching every filter given in the query, or null when no filter was given. */
function filtered(ctx: Ctx, ds: string): number[] | null {
  let result: number[] | null = null;
  for (const f of info(ctx, ds).filters) {
    const raw = ctx.query[f.param];
    if (raw === undefined) continue;
    const value = f.case_insensitive ? String(raw).toLowerCase() : String(raw);
    const hits = ctx.release.filter(ds, f.param, value);
    if (!hits) {
      const values = ctx.release.filterValues(ds, f.param);
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

export const list = (ds: string): Handler => (ctx) => page(ctx, ds, filtered(ctx, ds));

export const search = (ds: string): Handler => (ctx) => {
  const q = String(ctx.query.q);
  let hits = ctx.release.search(ds, q);
  const f = filtered(ctx, ds);
  if (f) {
    const keep = new Set(f);
    hits = hits.filter((o) => keep.has(o));
  }
  return page(ctx, ds, hits, { q, order: 'relevance' });
};

export function recordOrdinal(ctx: Ctx, ds: string, key: string): number {
  const ord = ctx.release.lookup(ds, key);
  if (ord === undefined) {
    throw new ApiError('record_not_found', `${ds} has no record '${key.slice(0, 100)}'`, { dataset: ds, id: key.slice(0, 100) });
  }
  return ord;
}

export const get = (ds: string): Handler => (ctx) => {
  const key = Object.values(ctx.params)[0];
  const line = ctx.release.record(ds, recordOrdinal(ctx, ds, key));
  const body = Buffer.concat([Buffer.from('{"data":'), line, Buffer.from(`,"meta":${JSON.stringify(datasetMeta(info(ctx, ds)))}}`)]);
  return { kind: 'json', body };
};

export const convert = (ds: string): Handler => (ctx) => {
  // Imported lazily-by-reference to keep the handler table free of dataset logic.
  return convertHandler(ctx, ds);
};
import { convertHandler } from './convert.ts';

export const health: Handler = (ctx) => ({ kind: 'json', body: JSON.stringify({ status: 'ok', release: ctx.release.id }) });

export const openapi: Handler = () => ({ kind: 'file', path: OPENAPI });

export const catalogue: Handler = (ctx) => {
  const data = [...ctx.release.datasets.values()].map((i) => ({
    ...datasetMeta(i),
    title: i.title,
    description: i.description,
    records: i.records,
    status: 'available',
    endpoints: `/apis/${i.id}`,
  }));
  for (const [id, reason] of Object.entries(ctx.release.absent)) data.push({ dataset: id, status: 'absent', reason } as any);
  return { kind: 'json', body: JSON.stringify({ data, meta: { release: ctx.release.id, platform_contract_version: '0.9.0' } }) };
};
