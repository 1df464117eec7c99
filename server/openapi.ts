/**
 * The platform's OpenAPI 3.1.0 document, generated from the route table and the
 * record schemas — never written by hand, so it cannot drift from what is served.
 */
import type { SchemaObject } from 'ajv';
import { SOURCES } from '../sources/index.ts';
import { ERROR_CATALOGUE, ERROR_SCHEMA } from './errors.ts';
import { ROUTES, schemaName, type Route } from './routes.ts';

export const PLATFORM_CONTRACT_VERSION = '0.9.0';

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

const codesFor = (status: number) =>
  Object.entries(ERROR_CATALOGUE).filter(([, v]) => v.status === status).map(([k]) => k).join(', ');

function operation(route: Route) {
  const parameters = [
    ...route.pathParams.map((p) => ({ name: p.name, in: 'path', required: true, description: p.description, schema: { type: 'string' } })),
    ...route.query.map((q) => ({ name: q.name, in: 'query', required: !!q.required, description: q.description, schema: q.schema })),
  ];
  const responses: Record<string, unknown> = {
    200: { description: 'Successful response', content: { 'application/json': { schema: route.response } } },
    304: { description: 'Not modified (If-None-Match matched the ETag)' },
    400: errorResponse(`Invalid parameters (${codesFor(400)})`),
    404: errorResponse(`Not found (${codesFor(404)})`),
    500: errorResponse('Unexpected fault (internal_error)'),
  };
  if (route.auth) {
    responses[401] = errorResponse(`Authentication failed (${codesFor(401)})`);
    responses[429] = errorResponse(`Quota or rate limit exceeded (${codesFor(429)}); see Retry-After`);
  }
  if (route.dataset) responses[503] = errorResponse('Dataset not in the live release (dataset_unavailable)');
  return {
    operationId: route.operationId,
    summary: route.summary,
    tags: [route.tag],
    ...(route.auth ? {} : { security: [] }),
    parameters,
    responses,
  };
}

export function platformOpenApi(): Record<string, unknown> {
  const schemas: Record<string, SchemaObject> = { Error: ERROR_SCHEMA as SchemaObject };
  for (const s of SOURCES) schemas[schemaName(s.id)] = s.schema;
  const paths: Record<string, unknown> = {};
  for (const route of ROUTES) paths[route.path] = { get: operation(route) };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Almanac Unified API Platform',
      version: PLATFORM_CONTRACT_VERSION,
      description: 'Read-only reference datasets under /apis. Each dataset carries its own contract version and data release (see meta). 1.0.0 is reserved for a complete, lab-ready API.',
    },
    servers: [{ url: '/' }],
    security: [{ serviceKey: [] }, { bearer: [] }],
    tags: [{ name: 'platform' }, ...SOURCES.map((s) => ({ name: s.id, description: s.title }))],
    paths,
    components: {
      securitySchemes: {
        serviceKey: { type: 'apiKey', in: 'header', name: 'X-Service-Key' },
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'API key' },
      },
      schemas,
    },
  };
}
