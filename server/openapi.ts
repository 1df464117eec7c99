/**
 * The OpenAPI 3.1.0 documents of both surfaces, generated from their route tables and
 * the record schemas — never written by hand, so they cannot drift from what is served.
 */
import type { SchemaObject } from 'ajv';
import { SOURCES } from '../sources/index.ts';
import { ERROR_CATALOGUE, ERROR_SCHEMA } from './errors.ts';
import { ROUTES, schemaName, type Route } from './routes.ts';
import { V1_ROUTES } from './v1/routes.ts';

export const PLATFORM_CONTRACT_VERSION = '0.9.0';
export const SCRIPTURE_CONTRACT_VERSION = '0.1.0';

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

const codesFor = (status: number, codes: string[]) =>
  codes.filter((c) => ERROR_CATALOGUE[c as keyof typeof ERROR_CATALOGUE].status === status).join(', ');

function operation(route: Route, codes: string[], authStatuses: number[]) {
  const parameters = [
    ...route.pathParams.map((p) => ({ name: p.name, in: 'path', required: true, description: p.description, schema: { type: 'string' } })),
    ...route.query.map((q) => ({ name: q.name, in: 'query', required: !!q.required, description: q.description, schema: q.schema })),
  ];
  const responses: Record<string, unknown> = {
    200: { description: 'Successful response', content: { [route.media ?? 'application/json']: { schema: route.response } } },
    ...(route.media ? {
      206: { description: 'Partial content: the part named by Range (Content-Range says which)', content: { [route.media]: { schema: route.response } } },
      416: errorResponse('The Range starts beyond the end of the file (range_not_satisfiable); Content-Range: bytes */<size>'),
    } : {}),
    304: { description: 'Not modified (If-None-Match matched the ETag)' },
    400: errorResponse(`Invalid parameters (${codesFor(400, codes)})`),
    404: errorResponse(`Not found (${codesFor(404, codes)})`),
    500: errorResponse('Unexpected fault (internal_error)'),
  };
  if (route.auth) {
    for (const s of [...authStatuses, 429]) responses[s] = errorResponse(`${s === 429 ? 'Quota or rate limit exceeded; see Retry-After' : 'Credential refused'} (${codesFor(s, codes)})`);
  }
  if (route.dataset) responses[503] = errorResponse('Dataset not in the live release (dataset_unavailable)');
  return { operationId: route.operationId, summary: route.summary, tags: [route.tag], ...(route.auth ? {} : { security: [] }), parameters, responses };
}

interface DocSpec {
  title: string;
  version: string;
  description: string;
  routes: Route[];
  schemas: Record<string, SchemaObject>;
  securitySchemes: Record<string, unknown>;
  /** Error codes this surface can answer with. */
  codes: string[];
  authStatuses: number[];
}

function document(spec: DocSpec): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const route of spec.routes) paths[route.path] = { get: operation(route, spec.codes, spec.authStatuses) };
  return {
    openapi: '3.1.0',
    info: { title: spec.title, version: spec.version, description: spec.description },
    servers: [{ url: '/' }],
    security: Object.keys(spec.securitySchemes).map((k) => ({ [k]: [] })),
    paths,
    components: { securitySchemes: spec.securitySchemes, schemas: { Error: ERROR_SCHEMA as SchemaObject, ...spec.schemas } },
  };
}

const ALL_CODES = Object.keys(ERROR_CATALOGUE);
const SCRIPTURE_ONLY = ['api_key_required', 'invalid_api_key', 'inactive_api_key', 'invalid_reference', 'range_out_of_order', 'range_too_long', 'range_translation_mismatch', 'translation_not_found', 'translation_unavailable', 'book_not_found', 'chapter_not_found', 'verse_not_found'];
const PLATFORM_ONLY = ['download_not_found', 'range_not_satisfiable', 'authentication_required', 'invalid_key', 'dataset_not_found', 'record_not_found', 'dataset_unavailable', 'incompatible_units', 'unit_not_convertible', 'invalid_value'];

export function platformOpenApi(): Record<string, unknown> {
  const schemas: Record<string, SchemaObject> = {};
  for (const s of SOURCES) schemas[schemaName(s.id)] = s.schema;
  return document({
    title: 'Almanac Unified API Platform',
    version: PLATFORM_CONTRACT_VERSION,
    description: 'Read-only reference datasets under /apis. Each dataset carries its own contract version and data release (see meta). 1.0.0 is reserved for a complete, lab-ready API.',
    routes: ROUTES,
    schemas,
    securitySchemes: {
      serviceKey: { type: 'apiKey', in: 'header', name: 'X-Service-Key' },
      bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'API key' },
    },
    codes: ALL_CODES.filter((c) => !SCRIPTURE_ONLY.includes(c)),
    authStatuses: [401],
  });
}

export function scriptureOpenApi(): Record<string, unknown> {
  return document({
    title: 'Almanac Scripture Text API',
    version: SCRIPTURE_CONTRACT_VERSION,
    description: 'Public-domain scripture text under /api/v1: translations, books, verses, chapters, ranges and search. Study and morphology namespaces are not served yet.',
    routes: V1_ROUTES,
    schemas: {},
    securitySchemes: {
      bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'API key' },
      scriptureKey: { type: 'apiKey', in: 'header', name: 'X-Scripture-Key' },
      keyQuery: { type: 'apiKey', in: 'query', name: 'key' },
    },
    codes: ALL_CODES.filter((c) => !PLATFORM_ONLY.includes(c)),
    authStatuses: [401, 403],
  });
}
