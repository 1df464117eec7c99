/**
 * Query parameters, defined once and used by every dataset: pagination (`limit`,
 * `offset`), search (`q`) and per-dataset field filters. A parameter an endpoint does
 * not define, a repeated parameter, or a malformed value is a 400 naming it — a typo
 * should not silently return unfiltered data.
 */
import { ApiError } from './errors.ts';

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;
export const MAX_QUERY_LENGTH = 200;
export const MAX_FILTER_LENGTH = 100;

export interface ParamSpec {
  name: string;
  description: string;
  required?: boolean;
  /**
   * Rewrites a value into the spelling records use before it is checked against `enum`
   * (`completed` → `COMPLETED`, `3` → `PHASE3`, `320193` → `0000320193`; server/routes.ts
   * filterValues). Not part of the OpenAPI document.
   */
  normalise?: (value: string) => string;
  schema:
    | { type: 'integer'; minimum: number; maximum?: number; default?: number }
    | { type: 'string'; minLength: number; maxLength: number; enum?: string[] };
}

/**
 * `limit` with a dataset's own maximum (DatasetSource.maxLimit): the parser enforces the
 * schema's `maximum`, and the OpenAPI document states it per operation.
 */
export const limitParam = (max = MAX_LIMIT): ParamSpec => ({
  name: 'limit',
  description: max === MAX_LIMIT ? `Records per page, 1 to ${max}.` : `Records per page, 1 to ${max} (records of this dataset are small: a page of ${max} is under 1 MiB).`,
  schema: { type: 'integer', minimum: 1, maximum: max, default: DEFAULT_LIMIT },
});
export const LIMIT: ParamSpec = limitParam();
export const OFFSET: ParamSpec = {
  name: 'offset',
  description: 'Records to skip; meta.next gives the next page, meta.total the number of matches.',
  schema: { type: 'integer', minimum: 0, default: 0 },
};
export const Q: ParamSpec = {
  name: 'q',
  required: true,
  description: `Search text, 1 to ${MAX_QUERY_LENGTH} characters; words are matched by prefix and (from 5 letters) with small typos.`,
  schema: { type: 'string', minLength: 1, maxLength: MAX_QUERY_LENGTH },
};
export const filterParam = (name: string, description: string): ParamSpec => ({
  name,
  description,
  schema: { type: 'string', minLength: 1, maxLength: MAX_FILTER_LENGTH },
});

export type Query = Record<string, string | number | undefined>;

/** Checks the query string against the endpoint's parameter list. */
export function parseQuery(params: URLSearchParams, specs: ParamSpec[]): Query {
  const byName = new Map(specs.map((s) => [s.name, s]));
  const out: Query = {};
  for (const name of new Set(params.keys())) {
    const spec = byName.get(name);
    if (!spec) {
      throw new ApiError('unknown_parameter', `unknown query parameter '${name}'`, {
        parameter: name,
        allowed: specs.map((s) => s.name),
      });
    }
    const values = params.getAll(name);
    if (values.length > 1) throw new ApiError('invalid_parameter', `parameter '${name}' was given ${values.length} times`, { parameter: name });
    out[name] = parseValue(spec, values[0]);
  }
  for (const spec of specs) {
    if (out[spec.name] !== undefined) continue;
    if (spec.required) throw new ApiError('missing_parameter', `parameter '${spec.name}' is required`, { parameter: spec.name });
    if (spec.schema.type === 'integer' && spec.schema.default !== undefined) out[spec.name] = spec.schema.default;
  }
  return out;
}

function parseValue(spec: ParamSpec, raw: string): string | number {
  const bad = (why: string) => new ApiError('invalid_parameter', `parameter '${spec.name}' ${why}`, { parameter: spec.name, value: raw.slice(0, 100) });
  const s = spec.schema;
  if (s.type === 'integer') {
    if (!/^\d{1,15}$/.test(raw)) throw bad('must be a whole number');
    const n = Number(raw);
    if (n < s.minimum || (s.maximum !== undefined && n > s.maximum)) {
      throw bad(`must be between ${s.minimum} and ${s.maximum ?? 'any'}`);
    }
    return n;
  }
  const trimmed = raw.trim();
  if (trimmed.length < s.minLength) throw bad('must not be empty');
  if (trimmed.length > s.maxLength) throw bad(`must be at most ${s.maxLength} characters`);
  const v = spec.normalise ? spec.normalise(trimmed) : trimmed;
  if (s.enum && !s.enum.includes(v)) {
    throw new ApiError('invalid_parameter', `parameter '${spec.name}' must be one of ${s.enum.join(', ')}`, { parameter: spec.name, value: raw.slice(0, 100), allowed: s.enum });
  }
  return v;
}
