/**
 * The route table: every endpoint once, with its parameters and response schema.
 * The router, the handlers and the OpenAPI document are all derived from it.
 *
 * Matching rule (the spec leaves it open): a literal segment wins over a path
 * parameter, so /apis/units/search is the search endpoint and never unit "search".
 */
import type { SchemaObject } from 'ajv';
import type { DatasetSource } from '../../sources/contract.ts';
import { SOURCES } from '../../sources/index.ts';
import { MAX_LIMIT, OFFSET, Q, filterParam, limitParam, type ParamSpec } from '../http/query.ts';
import * as h from './handlers.ts';
import { ApiError } from '../http/errors.ts';
import { CONVERT_PARAMS, CONVERT_SCHEMA, convertHandler } from './convert.ts';
import { GEO_PARAMS, INCLUDE_EXPIRED } from './filters.ts';
import { TAG_SCHEMA, tagReply } from './language-tags.ts';
import { getDownload, listDownloads } from './downloads.ts';
import { frontDoor } from './front-door.ts';
import { health, ready } from './probes.ts';
import { CATALOGUE_SCHEMA, DATASET_META, LIST_META } from './schemas.ts';
import type { ResponseKind } from '../http/cache-policy.ts';

/**
 * What a request of a route costs the server, and so which lane of the Node server's
 * admission it waits in (server/node/admission.ts): `free` never waits (/healthz,
 * /readyz), `lookup` (records, list pages, documents), `search`, `range` (study and
 * morphology ranges, text ranges, whole books: megabytes of composed body).
 */
export type Cost = 'free' | 'lookup' | 'search' | 'range';

export interface Route {
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  /** Dataset served; a route of a dataset missing from the release answers 503. */
  dataset?: string;
  /** Names of path parameters, in order. */
  pathParams: { name: string; description: string }[];
  query: ParamSpec[];
  /** Schema of the 200 body. */
  response: SchemaObject;
  /** False for the health check and the OpenAPI documents: no key, not counted. */
  auth: boolean;
  /** False when the body depends on the caller (e.g. /api/v1/key), so it must not be reused. */
  cache?: boolean;
  /** Row of the cache policy (server/cache-policy.ts); default: document when public, else live or reference by the dataset. */
  policy?: ResponseKind;
  /** False: never counted against the monthly quota (/api/v1/key: a key must always be able to see its usage). */
  billed?: boolean;
  /** Media type of the 200 body when it is not JSON (a download, served with Range support). */
  media?: string;
  /** Its cost class (default `lookup`); `q`: a list page, a `search` when the request has `q=`. */
  cost?: Cost | 'q';
  handler: h.Handler;
}

/** A list body; `meta.limit` at most the dataset's `limit` maximum (DatasetSource.maxLimit). */
const listOf = (record: SchemaObject, maxLimit = MAX_LIMIT): SchemaObject => ({
  type: 'object',
  required: ['data', 'meta'],
  properties: {
    data: { type: 'array', items: record },
    meta: maxLimit === MAX_LIMIT ? LIST_META : { ...LIST_META, properties: { ...LIST_META.properties, limit: { type: 'integer', minimum: 1, maximum: maxLimit } } },
  },
});
const one = (record: SchemaObject): SchemaObject => ({
  type: 'object', required: ['data', 'meta'], properties: { data: record, meta: DATASET_META },
});

const idParamName = (s: DatasetSource) => s.pathParam ?? 'id';

const OPTIONAL_Q: ParamSpec = { ...Q, required: false, description: `Optional search text; when given, matches are ranked by relevance. ${Q.description}` };

function filterDescription(f: DatasetSource['filters'][number]): string {
  if (f.range) return `${f.description} A single value or an inclusive span "A-B" of at most ${f.range.maxSpan}.`;
  if (f.compare?.type === 'date') {
    return `${f.description} ${f.compare.op === 'min' ? 'On or after' : 'On or before'} this date (YYYY-MM-DD, UTC${f.compare.op === 'max' ? ', the whole day included' : ''}) or date-time (ISO 8601).`;
  }
  if (f.compare) return `${f.description} ${f.compare.op === 'min' ? 'At least' : 'At most'} this number.`;
  return f.description;
}

/**
 * A filter's values (issue 13, "live feeds"). The source's own normaliser (FilterSpec.normalise)
 * first; then, when the filtered field's record schema is an enum of strings (a closed set
 * the build validates every record against), the value is matched to it in any case and
 * with `-`, `_` and spaces alike, the parameter's schema lists the values (OpenAPI), and
 * any other value is a 400 naming them — in live feeds too, where a value no current
 * record has is otherwise an empty list.
 */
function withValues(p: ParamSpec, s: DatasetSource<any>, f: DatasetSource['filters'][number]): ParamSpec {
  const own = f.normalise ? { ...p, normalise: f.normalise } : p;
  if (p.schema.type !== 'string' || f.valueAliases || f.range || f.compare) return own;
  const field = s.schema.properties?.[f.field] as SchemaObject | undefined;
  const values = ((field?.enum ?? field?.items?.enum) as unknown[] | undefined)?.filter((v): v is string => typeof v === 'string');
  if (!values?.length) return own;
  const fold = (v: string) => v.toLowerCase().replace(/[\s_-]+/g, ' ').trim();
  const canonical = new Map(values.map((v) => [fold(v), v]));
  const first = own.normalise;
  return {
    ...own,
    normalise: (raw) => {
      const v = first ? first(raw) : raw;
      return canonical.get(fold(v)) ?? v;
    },
    schema: { ...p.schema, enum: values },
  };
}

export function datasetRoutes(s: DatasetSource<any>): Route[] {
  const filters = [
    ...s.filters.map((f) => withValues(filterParam(f.param, filterDescription(f)), s, f)),
    ...(s.geo ? GEO_PARAMS : []),
    ...(s.expires ? [INCLUDE_EXPIRED] : []),
  ];
  const ref: SchemaObject = { $ref: `#/components/schemas/${schemaName(s.id)}` };
  const LIMIT = limitParam(s.maxLimit);
  // Datasets whose records expire (alerts) drop them at request time: such bodies are never reused.
  // Other live bodies are (their staleness is part of the cache key, server/app.ts).
  const base = { tag: s.id, dataset: s.id, auth: true, ...(s.expires ? { cache: false } : {}) };
  const routes: Route[] = [
    {
      ...base, path: `/apis/${s.id}`, operationId: `${camel(s.id)}List`, summary: `List ${s.title.toLowerCase()}`, cost: 'q',
      pathParams: [], query: [OPTIONAL_Q, LIMIT, OFFSET, ...filters], response: listOf(ref, s.maxLimit), handler: h.list(s.id),
    },
    {
      ...base, path: `/apis/${s.id}/search`, operationId: `${camel(s.id)}Search`, summary: `Search ${s.title.toLowerCase()}`, cost: 'search',
      pathParams: [], query: [Q, LIMIT, OFFSET, ...filters], response: listOf(ref, s.maxLimit), handler: h.search(s.id),
    },
  ];
  for (const v of s.views ?? []) {
    const fixed = new Set(Object.keys(v.filter));
    routes.push({
      ...base, path: `/apis/${s.id}/${v.segment}`, operationId: `${camel(s.id)}${camel(`-${v.segment}`)}`, summary: v.summary, cost: 'q',
      pathParams: [], query: [OPTIONAL_Q, LIMIT, OFFSET, ...filters.filter((f) => !fixed.has(f.name))], response: listOf(ref, s.maxLimit), handler: h.view(s.id, v.filter),
    });
    if (v.get) {
      routes.push({
        ...base, path: `/apis/${s.id}/${v.segment}/{${v.get.param}}`, operationId: `${camel(s.id)}${camel(`-${v.segment}`)}Get`,
        summary: `Get one record of ${v.segment}`, pathParams: [{ name: v.get.param, description: v.get.description }],
        query: [], response: one(ref), handler: h.viewGet(s.id, v.filter),
      });
    }
  }
  if (s.summaryView) {
    routes.push({
      ...base, path: `/apis/${s.id}/${s.summaryView.segment}`, operationId: `${camel(s.id)}${camel(`-${s.summaryView.segment}`)}`,
      summary: s.summaryView.summary, pathParams: [], query: [], handler: h.summary(s.id),
      response: one(s.summaryView.schema),
    });
  }
  for (const extra of EXTRA_ROUTES[s.id] ?? []) routes.push({ ...base, ...extra });
  routes.push({
    ...base, path: `/apis/${s.id}/{${idParamName(s)}}`, operationId: `${camel(s.id)}Get`, summary: `Get one record of ${s.title.toLowerCase()}`,
    pathParams: [{ name: idParamName(s), description: s.pathParamDescription ?? 'Record id, or an alias (case-insensitive).' }],
    query: [], response: one(ref), handler: h.get(s.id, s.ambiguousIds),
  });
  const fallback = GET_FALLBACK[s.id];
  if (fallback) {
    const route = routes[routes.length - 1], plain = route.handler;
    route.response = { oneOf: [route.response, fallback.schema] };
    route.pathParams = [{ ...route.pathParams[0], description: `${route.pathParams[0].description} ${fallback.description}` }];
    route.handler = async (ctx) => {
      try {
        return await plain(ctx);
      } catch (err) {
        if (!(err instanceof ApiError) || err.code !== 'record_not_found') throw err;
        const other = await fallback.handler(ctx, s.id, Object.values(ctx.params).join('/'));
        if (!other) throw err;
        return other;
      }
    };
  }
  // Ids with slashes (IANA zone names): /apis/geography/timezones/Europe/Berlin as well as Europe%2FBerlin.
  for (let n = 2; n <= (s.pathSegments ?? 1); n++) {
    const names = Array.from({ length: n }, (_, i) => `${idParamName(s)}${i + 1}`);
    routes.push({
      ...base, path: `/apis/${s.id}/${names.map((p) => `{${p}}`).join('/')}`, operationId: `${camel(s.id)}Get${n}`,
      summary: `Get one record of ${s.title.toLowerCase()} by an id of ${n} slash-separated parts`,
      pathParams: names.map((name, i) => ({ name, description: `Part ${i + 1} of the id (e.g. ${['Europe', 'Berlin', 'Buenos_Aires'][i] ?? 'x'})` })),
      query: [], response: one(ref), handler: h.get(s.id, s.ambiguousIds),
    });
  }
  return routes;
}

/** What a get answers for a key that is no record but means something (a language tag: its subtags). */
const GET_FALLBACK: Record<string, { schema: SchemaObject; description: string; handler: (ctx: h.Ctx, ds: string, key: string) => Promise<h.Reply | null> }> = {
  languages: { schema: TAG_SCHEMA, handler: tagReply, description: 'A tag the registry does not list whole (en-US, sr-Latn-RS) is answered with each of its subtags.' },
};

/** Endpoints a dataset has beyond list/search/get. */
const EXTRA_ROUTES: Record<string, Omit<Route, 'tag' | 'dataset' | 'auth'>[]> = {
  units: [{
    path: '/apis/units/convert', operationId: 'unitsConvert', summary: 'Convert a value between compatible units',
    pathParams: [], query: CONVERT_PARAMS, response: CONVERT_SCHEMA, handler: (ctx) => convertHandler(ctx, 'units'),
  }],
};

export const schemaName = (ds: string) => `${camel(ds).replace(/^./, (c) => c.toUpperCase())}Record`;
function camel(s: string) {
  return s.replace(/[-/](.)/g, (_, c: string) => c.toUpperCase());
}

/** An archive of the bundle as /apis/downloads lists it (pipeline/bundle.ts ArchiveEntry). */
const ARCHIVE_SCHEMA: SchemaObject = {
  type: 'object', required: ['name', 'file', 'kind', 'datasets', 'records', 'size', 'sha256', 'links'],
  properties: {
    name: { type: 'string' }, file: { type: 'string' }, kind: { enum: ['all', 'dataset', 'translation'] },
    format: { enum: ['sqlite', 'tar.gz'], description: 'sqlite: a gzipped SQLite database (tables explained in its readme view); tar.gz: the release files, for serve --bundle and release:pull' },
    raw_size: { type: 'integer', description: 'The SQLite database\'s size once gunzipped' },
    datasets: { type: 'array', items: { type: 'string' } }, records: { type: 'integer' }, size: { type: 'integer' },
    sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' }, links: { type: 'object', required: ['download'], properties: { download: { type: 'string' } } },
  },
};
const DOWNLOADS_SCHEMA: SchemaObject = {
  type: 'object', required: ['data', 'meta'],
  properties: {
    data: { type: 'array', items: ARCHIVE_SCHEMA },
    meta: {
      type: 'object', required: ['release', 'total'],
      properties: { release: { type: 'string' }, built_at: { type: 'string' }, total: { type: 'integer' }, note: { type: 'string' } },
    },
  },
};

export const OPENAPI_DOC_SCHEMA: SchemaObject = {
  type: 'object', required: ['openapi', 'info', 'paths'],
  properties: { openapi: { type: 'string' }, info: { type: 'object' }, paths: { type: 'object' }, components: { type: 'object' } },
};

/** `/`: where a newcomer (or a browser) lands, pointing at everything public (issue 28). */
const FRONT_DOOR_SCHEMA: SchemaObject = {
  type: 'object', required: ['name', 'release', 'links', 'credentials'],
  properties: {
    name: { type: 'string' }, release: { type: 'string' },
    links: { type: 'object', additionalProperties: { type: 'string' } },
    credentials: { type: 'object', additionalProperties: { type: 'string' } },
  },
};

export const ROUTES: Route[] = [
  {
    path: '/', operationId: 'frontDoor', summary: 'Links to the docs page, both OpenAPI documents, /healthz and /readyz, and which credential each surface reads (no key, not counted); a browser (Accept: text/html) gets them as an HTML page', tag: 'platform',
    pathParams: [], query: [], auth: false, policy: 'front', handler: frontDoor, response: FRONT_DOOR_SCHEMA,
  },
  {
    path: '/healthz', operationId: 'health', summary: 'Liveness and the live release id; "degraded" lists release files that failed their checksum (no key, not counted)', tag: 'platform',
    pathParams: [], query: [], auth: false, policy: 'health', cost: 'free', handler: health,
    response: {
      type: 'object', required: ['status', 'release'],
      properties: { status: { enum: ['ok', 'degraded'] }, release: { type: 'string' }, corrupt_files: { type: 'array', items: { type: 'string' } } },
    },
  },
  {
    path: '/readyz', operationId: 'ready', summary: 'Readiness: 200 when this server should get traffic; 503 not_ready (with the reasons) while it drains for a shutdown, loads its search indexes, or cannot count requests (no key, not counted)', tag: 'platform',
    pathParams: [], query: [], auth: false, policy: 'health', cost: 'free', handler: ready,
    response: { type: 'object', required: ['status', 'release'], properties: { status: { const: 'ready' }, release: { type: 'string' } } },
  },
  {
    path: '/apis', operationId: 'catalogue', summary: 'Datasets with contract version, data release, record count and sources', tag: 'platform',
    pathParams: [], query: [], auth: true, policy: 'changing', handler: h.catalogue,
    response: CATALOGUE_SCHEMA,
  },
  {
    path: '/apis/openapi.json', operationId: 'openapi', summary: 'This OpenAPI 3.1 document (no key, not counted)', tag: 'platform',
    pathParams: [], query: [], auth: false, handler: h.openapi, response: OPENAPI_DOC_SCHEMA,
  },
  {
    path: '/apis/downloads', operationId: 'downloads', summary: 'The offline downloads of the live release: a SQLite database per dataset and translation and one with everything, and the tar.gz archives, each with size and sha256', tag: 'downloads',
    pathParams: [], query: [], auth: true, cache: false, policy: 'changing', handler: listDownloads, response: DOWNLOADS_SCHEMA,
  },
  {
    path: '/apis/downloads/{file}', operationId: 'download', summary: 'One bundle archive (or download.json, SHA256SUMS); Range resumes a broken download', tag: 'downloads',
    pathParams: [{ name: 'file', description: 'A file name listed by /apis/downloads, e.g. all.sqlite.gz, elements.sqlite.gz, bible-kjv.sqlite.gz, all.tar.gz.' }],
    query: [], auth: true, cache: false, policy: 'download', media: 'application/gzip', handler: getDownload, response: { type: 'string', format: 'binary' },
  },
  ...SOURCES.flatMap(datasetRoutes),
];

export const SOURCE_BY_ID = new Map(SOURCES.map((s) => [s.id, s]));
