/**
 * The one error catalogue for both surfaces (/apis and /api/v1). Every error response
 * is `{"error":{"code","message","status","details"}}`; codes are stable strings that
 * clients may branch on, messages are for people and may improve over time.
 */
export const ERROR_CATALOGUE = {
  invalid_parameter: { status: 400, summary: 'A query parameter has a malformed or out-of-range value.' },
  unknown_parameter: { status: 400, summary: 'A query parameter this endpoint does not define was sent.' },
  missing_parameter: { status: 400, summary: 'A required query parameter is absent.' },
  bad_request: { status: 400, summary: 'The HTTP request could not be parsed.' },
  malformed_path: { status: 400, summary: 'The request path is not valid percent-encoded UTF-8.' },
  incompatible_units: { status: 400, summary: 'The two units measure different quantities.' },
  unit_not_convertible: { status: 400, summary: 'A unit has no linear or affine conversion (logarithmic or arbitrary units).' },
  invalid_value: { status: 400, summary: 'The value to convert is not a decimal number.' },
  unknown_unit: { status: 400, summary: 'A unit to convert from or to is not in the units dataset; details name the parameter.' },
  authentication_required: { status: 401, summary: 'No X-Service-Key or Authorization: Bearer credential was sent.' },
  invalid_key: { status: 401, summary: 'The credential is unknown, revoked or malformed.' },
  conflicting_credentials: { status: 401, summary: 'Several credentials were sent (headers, repeated headers) and they carry different keys.' },
  api_key_required: { status: 401, summary: 'Scripture API: no key was sent (Authorization: Bearer, X-Scripture-Key or key=).' },
  invalid_api_key: { status: 403, summary: 'Scripture API: the key is unknown, malformed, or the credentials sent disagree.' },
  inactive_api_key: { status: 403, summary: 'Scripture API: the key has been revoked.' },
  // 401 on /apis (the platform spec answers every refused credential with 401), 403 on /api/v1 (its spec: invalid or inactive keys).
  subscription_inactive: { status: 403, apis_status: 401, summary: "The key is known and not revoked, but its project has no active subscription or approved, unexpired exception (cancelled plan, ended exception); details name the key, account and project." },
  invalid_reference: { status: 400, summary: 'A scripture reference is not of the form <book_slug>.<chapter>.<verse> (or a path chapter/verse is not a number).' },
  range_out_of_order: { status: 400, summary: '`from` comes after `to` in the translation\'s canon order.' },
  range_too_long: { status: 400, summary: 'The range has more verses than the documented maximum.' },
  range_translation_mismatch: { status: 400, summary: 'A range reference names a different translation than the one requested.' },
  ambiguous_id: { status: 400, summary: 'The id, code or alias names several records (a bare code several classification systems have, a time zone abbreviation); details.candidates lists their ids.' },
  not_found: { status: 404, summary: 'No endpoint matches this path.' },
  dataset_not_found: { status: 404, summary: 'No dataset has this name.' },
  record_not_found: { status: 404, summary: 'The dataset has no record with this id, code or alias.' },
  translation_not_found: { status: 404, summary: 'No translation has this slug.' },
  translation_unavailable: { status: 404, summary: 'The translation is listed but has no servable source; details.reason says why.' },
  book_not_found: { status: 404, summary: 'The translation has no book with this slug.' },
  chapter_not_found: { status: 404, summary: 'The book has no chapter with this number in this translation.' },
  verse_not_found: { status: 404, summary: 'The chapter has no verse with this number in this translation.' },
  download_not_found: { status: 404, summary: 'The live release has no bundle file of this name (see /apis/downloads).' },
  method_not_allowed: { status: 405, summary: 'Only GET, HEAD and OPTIONS are served.' },
  conflict: { status: 409, summary: "Operator endpoints of the edge: the request conflicts with what the bucket holds (a release switched to before all its files are there, an upload that is no longer open)." },
  request_timeout: { status: 408, summary: 'The request headers did not arrive within the server\'s header timeout.' },
  range_not_satisfiable: { status: 416, summary: 'The Range starts beyond the end of the file; Content-Range gives its size.' },
  monthly_quota_exceeded: { status: 429, summary: "The key's monthly request quota is used up." },
  rate_limited: { status: 429, summary: "The key's per-second burst limit was exceeded." },
  headers_too_large: { status: 431, summary: 'The request headers exceed the server limit.' },
  internal_error: { status: 500, summary: 'An unexpected fault; it is logged without credentials.' },
  state_unavailable: { status: 503, summary: 'The request could not be counted durably (the state folder refused a write); it was not billed. Retry later.' },
  release_corrupt: { status: 503, summary: 'A file of the live release does not match its manifest checksum; it is not served and the fault is logged.' },
  dataset_unavailable: { status: 503, summary: 'The dataset was not built: its upstream input could not be had. details.reason says why.' },
  not_ready: { status: 503, summary: 'Not ready to answer: the Node server is draining for a shutdown, loading its search indexes, or cannot count requests (its state folder or Redis), which only /readyz reports (details.reasons says which); the edge has no release or no key index yet, so no key can be checked, and answers keyed requests so with Retry-After. A key is never called invalid meanwhile.' },
  release_unavailable: { status: 503, summary: 'No release is published where this server reads them (the edge: nothing published to its bucket yet), or its manifest cannot be read.' },
} as const satisfies Record<string, { status: number; apis_status?: number; summary: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** The status a code answers with on a surface: most codes have one; a few differ on /apis (the two specs disagree). */
export function statusOf(code: ErrorCode, surface: 'apis' | 'v1' = 'v1'): number {
  const e: { status: number; apis_status?: number } = ERROR_CATALOGUE[code];
  return surface === 'apis' ? e.apis_status ?? e.status : e.status;
}

export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    /** Extra response headers, e.g. Retry-After on 429. */
    readonly headers?: Record<string, string>,
    /** The surface answering, for the codes whose status differs there (statusOf). */
    surface: 'apis' | 'v1' = 'v1',
  ) {
    super(message);
    this.status = statusOf(code, surface);
  }

  /** What the operator's log says about the fault (never sent: errorBody writes code, message, status, details). */
  logNote?: string;
  note(text: string): this {
    this.logNote = text;
    return this;
  }
}

export function errorBody(err: ApiError): string {
  const error: Record<string, unknown> = { code: err.code, message: err.message, status: err.status };
  if (err.details) error.details = err.details;
  return JSON.stringify({ error });
}

/**
 * The same error as RFC 9457 problem details (sent for `Accept: application/problem+json`):
 * `type` a stable URN per code (not dereferenceable; the code's meaning is README "Error
 * codes"), `title` the catalogue summary, `detail` the message, `instance` the request
 * path (never the query: it may carry `key=`), and `code` and `details` as extension members.
 */
export function problemBody(err: ApiError, instance: string): string {
  return JSON.stringify({
    type: `urn:almanac:error:${err.code}`,
    title: ERROR_CATALOGUE[err.code].summary,
    status: err.status,
    detail: err.message,
    instance,
    code: err.code,
    ...(err.details ? { details: err.details } : {}),
  });
}

/** JSON Schema of RFC 9457 problem details as problemBody writes them. */
export const PROBLEM_SCHEMA = {
  type: 'object',
  required: ['type', 'title', 'status', 'detail', 'instance', 'code'],
  properties: {
    type: { type: 'string', format: 'uri' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    instance: { type: 'string', format: 'uri-reference' },
    code: { type: 'string', enum: Object.keys(ERROR_CATALOGUE) },
    details: { type: 'object' },
  },
} as const;

/** JSON Schema of the envelope, shared by the OpenAPI documents. */
export const ERROR_SCHEMA = {
  type: 'object',
  required: ['error'],
  additionalProperties: false,
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message', 'status'],
      additionalProperties: false,
      properties: {
        code: { type: 'string', enum: Object.keys(ERROR_CATALOGUE) },
        message: { type: 'string' },
        status: { type: 'integer' },
        details: { type: 'object' },
      },
    },
  },
} as const;
