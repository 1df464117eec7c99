/**
 * The OpenAPI 3.1.0 documents of both surfaces, generated from their route tables and
 * the record schemas — never written by hand, so they cannot drift from what is served.
 */
import type { SchemaObject } from 'ajv';
import { SOURCES } from '../../sources/index.ts';
import { ERROR_CATALOGUE, ERROR_SCHEMA, statusOf } from '../http/errors.ts';
import { ROUTES, schemaName, type Route } from './routes.ts';
import { V1_ROUTES } from './v1/routes.ts';
import { responseExamples, type Example } from './examples.ts';
import type { Manifest } from '../../pipeline/writer.ts';

type Surface = 'apis' | 'v1';

export const PLATFORM_CONTRACT_VERSION = '0.9.0';
export const SCRIPTURE_CONTRACT_VERSION = '0.1.0';

type Code = keyof typeof ERROR_CATALOGUE;
const inStatus = (status: number, codes: string[], surface: Surface) => codes.filter((c) => statusOf(c as Code, surface) === status) as Code[];

const HEADER = (description: string, type = 'string') => ({ description, schema: { type } });
const RATE_HEADERS = {
  RateLimit: HEADER('Remaining requests of the month and seconds to its end: "monthly";r=<remaining>;t=<seconds>'),
  'RateLimit-Policy': HEADER('The key\'s limits, the same on every response of a key: "monthly";q=<quota>;w=2592000, "burst";q=<per second>;w=1 (the quota is per UTC calendar month; RateLimit\'s t is the exact time to its reset)'),
};
/** Datasets with live inputs: their answers carry Data-Age (docs/platform-api.md, "Responses: compression, ETags, cache policy"). */
const LIVE = new Set(SOURCES.filter((s) => !!s.expires || Object.values(s.inputs).some((i) => i.kind === 'live')).map((s) => s.id));

/** The envelope with `code` narrowed to this status's codes (a copy: Error forbids extra properties, so allOf cannot narrow it). */
function errorSchema(status: number, codes: Code[]) {
  const inner = ERROR_SCHEMA.properties.error;
  return { ...ERROR_SCHEMA, properties: { error: { ...inner, properties: { ...inner.properties, code: { type: 'string', enum: codes }, status: { const: status } } } } };
}

/**
 * An error response whose `code` is one of the codes this status can carry on this
 * surface, with an example built from the catalogue (so every operation has examples).
 */
function errorResponse(status: number, codes: string[], surface: Surface, description: string, auth = false) {
  const mine = inStatus(status, codes, surface);
  const example = (c: Code) => ({ error: { code: c, message: ERROR_CATALOGUE[c].summary, status } });
  return {
    // Problem details (RFC 9457) are named here rather than as a second media type: a
    // generated client would then type every error as a union and lose `error.code`.
    description: `${description}${mine.length ? ` (${mine.join(', ')})` : ''}. With \`Accept: application/problem+json\` the same error comes as RFC 9457 problem details (\`type\` urn:almanac:error:<code>, \`code\`, \`details\`).`,
    ...(status === 429 ? { headers: { 'Retry-After': HEADER('Seconds to wait', 'integer'), ...RATE_HEADERS } }
      : status === 401 ? { headers: { 'WWW-Authenticate': HEADER('The accepted credentials: Bearer realm="almanac" (error="invalid_token" when a key was refused) and the service-key header') } }
        : auth && status !== 403 ? { headers: RATE_HEADERS } : {}),
    content: {
      'application/json': {
        schema: mine.length ? errorSchema(status, mine) : { $ref: '#/components/schemas/Error' },
        ...(mine.length ? { examples: Object.fromEntries(mine.map((c) => [c, { summary: ERROR_CATALOGUE[c].summary, value: example(c) }])) } : {}),
      },
    },
  };
}

function operation(route: Route, codes: string[], surface: Surface, authStatuses: number[], example?: Example) {
  const parameters = [
    ...route.pathParams.map((p) => ({ name: p.name, in: 'path', required: true, description: p.description, schema: { type: 'string' } })),
    ...route.query.map((q) => ({ name: q.name, in: 'query', required: !!q.required, description: q.description, schema: q.schema })),
  ];
  const okHeaders = {
    ETag: HEADER('Content hash of this representation ("<hash>", "<hash>-br", "<hash>-gz"); send it back in If-None-Match for a 304'),
    'Cache-Control': HEADER('How long and by whom the response may be cached (keyed data is private; docs/platform-api.md, "Responses: compression, ETags, cache policy")'),
    Vary: HEADER('Accept-Encoding, where the body may be sent compressed (br, gzip), and the credential headers on keyed answers'),
    'Content-Encoding': HEADER('br or gzip when the request\'s Accept-Encoding allowed it and the body is over 1 KiB; absent for identity'),
    ...(route.dataset && LIVE.has(route.dataset) ? { 'Data-Age': HEADER('Seconds since the feed\'s data was published upstream (or fetched); meta.stale says whether that is past the feed\'s refresh', 'integer') } : {}),
    ...(route.auth ? RATE_HEADERS : {}),
  };
  const a = route.auth;
  const responses: Record<string, unknown> = {
    200: {
      description: 'Successful response', headers: okHeaders,
      content: {
        [route.media ?? 'application/json']: {
          schema: route.response,
          // A real answer of the release this document was built with (server/examples.ts).
          ...(example ? { examples: { release: { summary: `GET ${example.request}`, value: example.body } } } : {}),
        },
      },
    },
    ...(route.media ? {
      206: { description: 'Partial content: the part named by Range (Content-Range says which)', headers: { ...okHeaders, 'Content-Range': HEADER('bytes <first>-<last>/<size>') }, content: { [route.media]: { schema: route.response } } },
      416: errorResponse(416, codes, surface, 'The Range starts beyond the end of the file; Content-Range: bytes */<size>', a),
    } : {}),
    304: { description: 'Not modified (If-None-Match matched the ETag); not counted against the quota', headers: okHeaders },
    400: errorResponse(400, codes, surface, 'Invalid parameters', a),
    404: errorResponse(404, codes, surface, 'Not found', a),
    500: errorResponse(500, codes, surface, 'Unexpected fault', a),
  };
  if (route.auth) {
    for (const s of [...authStatuses, 429]) responses[s] = errorResponse(s, codes, surface, s === 429 ? 'Quota or rate limit exceeded; see Retry-After' : 'Credential refused', a);
  }
  // Any route may meet a damaged release file (release_corrupt); a counted one, a state write failure; a dataset route, an absent dataset.
  responses[503] = errorResponse(503, codes, surface, 'Service unavailable', a);
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
  surface: Surface;
  authStatuses: number[];
  examples?: Map<string, Example>;
}

function document(spec: DocSpec): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const route of spec.routes) paths[route.path] = { get: operation(route, spec.codes, spec.surface, spec.authStatuses, spec.examples?.get(route.operationId)) };
  return {
    openapi: '3.1.0',
    info: {
      title: spec.title, version: spec.version, description: spec.description,
      // The code's licence; each dataset's data licence travels in meta.sources.
      license: { name: 'MIT (code); data under each source\'s licence, see meta.sources', identifier: 'MIT' },
    },
    servers: [{ url: '/' }],
    security: Object.keys(spec.securitySchemes).map((k) => ({ [k]: [] })),
    paths,
    components: { securitySchemes: spec.securitySchemes, schemas: { Error: ERROR_SCHEMA as SchemaObject, ...spec.schemas } },
  };
}

const ALL_CODES = Object.keys(ERROR_CATALOGUE);
const SCRIPTURE_ONLY = ['api_key_required', 'invalid_api_key', 'inactive_api_key', 'invalid_reference', 'range_out_of_order', 'range_too_long', 'range_translation_mismatch', 'translation_not_found', 'translation_unavailable', 'book_not_found', 'chapter_not_found', 'verse_not_found'];
const PLATFORM_ONLY = ['not_ready', 'download_not_found', 'range_not_satisfiable', 'authentication_required', 'invalid_key', 'conflicting_credentials', 'dataset_not_found', 'record_not_found', 'dataset_unavailable', 'incompatible_units', 'unit_not_convertible', 'invalid_value', 'unknown_unit'];

export function platformOpenApi(examples?: Map<string, Example>): Record<string, unknown> {
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
    surface: 'apis',
    // The platform spec: every refused credential is a 401 (conflicting ones and an inactive subscription too).
    authStatuses: [401],
    examples,
  });
}

export function scriptureOpenApi(examples?: Map<string, Example>): Record<string, unknown> {
  return document({
    title: 'Almanac Scripture Text API',
    version: SCRIPTURE_CONTRACT_VERSION,
    description: 'Public-domain scripture text under /api/v1: translations, books, verses, chapters, ranges and search; study and morphology panels of the Hebrew, Aramaic, Greek, Latin and Syriac source layers.',
    routes: V1_ROUTES,
    schemas: {},
    securitySchemes: {
      bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'API key' },
      scriptureKey: { type: 'apiKey', in: 'header', name: 'X-Scripture-Key' },
      keyQuery: { type: 'apiKey', in: 'query', name: 'key' },
    },
    codes: ALL_CODES.filter((c) => !PLATFORM_ONLY.includes(c)),
    surface: 'v1',
    authStatuses: [401, 403],
    examples,
  });
}

/**
 * Both documents for a release being built, with a real response example per eligible
 * operation answered by that release (`at`: its folder and manifest so far).
 */
export async function releaseOpenApi(at: { dir: string; manifest: Manifest }) {
  const examples = await responseExamples(at, [...ROUTES, ...V1_ROUTES]);
  return { platform: platformOpenApi(examples), scripture: scriptureOpenApi(examples) };
}
