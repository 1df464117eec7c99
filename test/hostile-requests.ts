/**
 * Generated hostile requests for both surfaces (issue 9): paths, query values, scripture
 * references, credential headers and methods, drawn by fast-check from a fixed seed so a
 * failure replays. test/hostile.test.ts sends 10,000 of them; bench/hostile.ts 100,000+.
 * The sender uses one keep-alive agent with bounded concurrency over loopback.
 */
import { Agent, request } from 'node:http';
import fc from 'fast-check';
import { ERROR_CATALOGUE } from '../server/http/errors.ts';

export interface HostileRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
}

const PREFIXES = [
  '/apis', '/apis/elements', '/apis/elements/search', '/apis/units', '/apis/units/convert', '/apis/geography/places', '/apis/geography/places/search',
  '/apis/holidays', '/apis/holidays/search', '/apis/currencies', '/apis/languages', '/apis/earthquakes', '/apis/openapi.json', '/healthz',
  '/api/v1/search', '/api/v1/translations', '/api/v1/books', '/api/v1/key', '/api/v1/text/kjv', '/api/v1/text/kjv/range', '/api/v1/kjv/john/3',
  '/api/v1/text/kjv/john', '/api/v1/openapi', '/', '/dist', '/api', '/api/v2',
];
const SEGMENTS = [
  '..', '.', '%2e%2e', '%2E%2E%2F', '%00', '%', '%zz', '%E0%A4%A', '%C0%AF', '~', '%7E', 'H', 'Fe', '1', '0', '-1', '99999999999999999999', 'john', '3', '16',
  'gen', 'ps', '119', 'kjv', 'web', 'search', 'packs', 'manifest.json', 'current', 'x'.repeat(300), '%F0%9F%98%80', 'US', 'GB', 'search%3Fq%3Dx', '%20', '+',
  'NaN', 'Infinity', '1e308', '0x1F', "'", '%22', '%3Cscript%3E', 'null', 'undefined', '__proto__', 'constructor',
];
const PARAMS = ['q', 'limit', 'offset', 'from', 'to', 'translation', 'key', 'bbox', 'near', 'radius_km', 'country', 'min_magnitude', 'include_expired', 'value', 'year', 'x', '__proto__'];
const WORDS = ['s', 'e', 'a', 'the', 'and', 'of', 'sta', 'san', 'new', 'day', 'saint', 'jesus', 'wept', 'london', 'paris', 'christmas', 'xylophone', 'ü', 'é', '日本', '%', '*', '"', "'", '\\'];
const VALUES: fc.Arbitrary<string>[] = [
  fc.constantFrom('', ' ', '0', '-1', '1', '100', '101', '1e3', '999999999999999999999', 'NaN', 'true', 'false', 'kjv', 'web-catholic', 'nope', 'john.3.16', 'kjv:gen.1.1',
    'asv:gen.1.1', 'gen.0.0', 'rev.22.21', 'gen.1.1-2', '1,2,3,4', '-180,-90,180,90', '190,0,0,0', '51.5,-0.1', '2024-02-30', '2024-05-01T12:00:00Z', 'US', 'us', '%00'),
  fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 120 }).map((w) => w.join(' ')),
  fc.string({ maxLength: 260 }),
  fc.string({ unit: 'grapheme', maxLength: 80 }),
];
const METHODS = [...Array(14).fill('GET'), 'HEAD', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'DELETE', 'PATCH', 'TRACE', 'PROPFIND'];

const encodeValue = (v: string) => encodeURIComponent(v).replace(/%20/g, '+');

export function hostileRequests(key: string, other: string): fc.Arbitrary<HostileRequest> {
  const segment = fc.oneof(fc.constantFrom(...SEGMENTS), fc.string({ maxLength: 30 }).map(encodeURIComponent));
  const segments = fc.oneof(fc.constant([]), fc.array(segment, { maxLength: 4 }));
  const path = fc.tuple(fc.constantFrom(...PREFIXES), segments, fc.array(fc.tuple(fc.constantFrom(...PARAMS), fc.oneof(...VALUES)), { maxLength: 4 }))
    .map(([prefix, segs, params]) => {
      const p = [prefix, ...segs].join('/').replace(/\/{2,}/g, '/');
      const qs = params.map(([k, v]) => `${k}=${encodeValue(v)}`).join('&');
      return qs ? `${p}?${qs}` : p;
    });
  const auth = fc.constantFrom<Record<string, string>>(
    { 'x-service-key': key }, { authorization: `Bearer ${key}` }, { 'x-service-key': key }, { authorization: `Bearer ${key}` },
    { 'x-service-key': key }, { authorization: `Bearer ${key}` }, { 'x-service-key': key, authorization: `Bearer ${key}` }, { 'x-scripture-key': key }, {},
    { 'x-service-key': key, authorization: `Bearer ${other}` }, { authorization: `Bearer ${key}`, 'x-scripture-key': other },
    { authorization: 'Basic dXNlcjpwYXNz' }, { authorization: 'Bearer' }, { authorization: `Bearer ${'a'.repeat(500)}` }, { 'x-service-key': 'alm_nope' },
    { 'x-service-key': key, 'if-none-match': '*' }, { 'x-service-key': key, 'accept-encoding': 'br, gzip' }, { 'x-service-key': key, 'accept-encoding': 'gzip;q=0, identity' },
  );
  return fc.record({ method: fc.constantFrom(...METHODS), path, headers: auth });
}

export interface Outcome {
  req: HostileRequest;
  status: number;
  ms: number;
  body: string;
  /** Why the response breaks the rules, if it does. */
  fault?: string;
}

/** What every answer must satisfy: no 5xx but a named 503, the envelope on every error. */
export function judge(req: HostileRequest, status: number, body: string, absent: string[] = []): string | undefined {
  if (status >= 500) {
    let code = '';
    try {
      code = JSON.parse(body).error.code;
    } catch {
      // falls through
    }
    // A dataset the (npm-only) test release does not have is a stable, documented 503
    // (a HEAD answer has no body to name it, so its path must name an absent dataset).
    const absentPath = absent.some((ds) => req.path.startsWith(`/apis/${ds}`));
    if (!(status === 503 && (code === 'dataset_unavailable' || (req.method === 'HEAD' && absentPath)))) return `status ${status} ${code}`;
  }
  if (status >= 400 && req.method !== 'HEAD') {
    let e: { code?: string; status?: number } | undefined;
    try {
      e = JSON.parse(body).error;
    } catch {
      return 'error body is not JSON';
    }
    if (!e || !e.code || !(e.code in ERROR_CATALOGUE) || e.status !== status) return `not the envelope: ${body.slice(0, 120)}`;
  }
  return undefined;
}

/** Sends every request with `concurrency` in flight over one keep-alive agent. */
export async function sendAll(base: string, reqs: HostileRequest[], concurrency = 16, absent: string[] = []): Promise<Outcome[]> {
  const { hostname, port } = new URL(base);
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const out: Outcome[] = [];
  let next = 0;
  const one = (req: HostileRequest) => new Promise<Outcome>((resolve) => {
    const t0 = performance.now();
    const r = request({ host: hostname, port, method: req.method, path: req.path, headers: req.headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const status = res.statusCode ?? 0;
        resolve({ req, status, ms: performance.now() - t0, body, fault: judge(req, status, body, absent) });
      });
    });
    r.on('error', (err) => resolve({ req, status: 0, ms: performance.now() - t0, body: '', fault: `connection: ${err.message}` }));
    r.end();
  });
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < reqs.length) {
      const req = reqs[next++];
      let o: Outcome;
      try {
        o = await one(req);
      } catch {
        // The client refused to send it (a character Node will not put in a path): not the server's doing.
        o = { req, status: -1, ms: 0, body: '' };
      }
      out.push(o);
    }
  }));
  agent.destroy();
  return out;
}
