/**
 * The read server against a release built from the real npm sources: every route,
 * every auth outcome, caching, CORS, hostile input. Every JSON response is checked
 * against the OpenAPI document the server itself serves.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { request as httpRequest } from 'node:http';
import { OpenApiChecker } from './openapi-check.ts';
import { cleanup, startServer, type Running } from './helpers.ts';

let srv: Running;
let dist: string;
let key: string;
let oa: OpenApiChecker;

async function call(path: string, headers: Record<string, string> = { 'x-service-key': key }, method = 'GET') {
  const res = await fetch(srv.base + path, { headers, method });
  const text = await res.text();
  const body = text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text;
  if (oa && method === 'GET' && res.status !== 304) oa.check(path, res.status, body);
  return { status: res.status, headers: res.headers, body, text };
}

beforeAll(async () => {
  dist = inject('sharedDist');
  srv = await startServer(dist);
  key = srv.key('development');
  const doc = await call('/apis/openapi.json');
  oa = new OpenApiChecker(doc.body);
});
afterAll(async () => {
  await srv?.close();
  cleanup(srv.stateDir);
});

describe('OpenAPI document', () => {
  it('is OpenAPI 3.1.0 titled as the unified platform, version 0.9.0, with both security schemes', async () => {
    const { body } = await call('/apis/openapi.json');
    expect(body.openapi).toBe('3.1.0');
    expect(body.info.version).toBe('0.9.0');
    expect(body.info.title).toMatch(/unified api platform/i);
    expect(Object.keys(body.components.securitySchemes).sort()).toEqual(['bearer', 'serviceKey']);
    for (const p of ['/apis/units', '/apis/units/{id}', '/apis/units/search', '/apis/units/convert', '/apis/elements', '/apis/elements/{id}', '/apis/elements/search']) {
      expect(body.paths[p], p).toBeTruthy();
    }
  });
  it('serves the prebuilt brotli variant under its own ETag (issue 12: one ETag per representation)', async () => {
    const a = await fetch(`${srv.base}/apis/openapi.json`, { headers: { 'x-service-key': key, 'accept-encoding': 'br' } });
    const b = await fetch(`${srv.base}/apis/openapi.json`, { headers: { 'x-service-key': key, 'accept-encoding': 'identity' } });
    expect(a.headers.get('content-encoding')).toBe('br');
    expect(b.headers.get('content-encoding')).toBeNull();
    expect(a.headers.get('etag')).toBe(b.headers.get('etag')!.replace(/"$/, '-br"'));
    expect(a.headers.get('vary')).toBe('Accept-Encoding');
    expect(a.headers.get('cache-control')).toBe('public, max-age=300');
    expect(await a.json()).toEqual(await b.json());
  });
});

describe('elements', () => {
  it('lists elements in atomic-number order with pagination meta', async () => {
    const { status, body } = await call('/apis/elements?limit=3');
    expect(status).toBe(200);
    expect(body.data.map((e: any) => e.symbol)).toEqual(['H', 'He', 'Li']);
    expect(body.meta).toMatchObject({ dataset: 'elements', total: 118, limit: 3, offset: 0, next: '/apis/elements?limit=3&offset=3' });
    expect(body.meta.sources.map((s: any) => s.licence.spdx)).toEqual(expect.arrayContaining(['MIT', 'ISC']));
    const next = await call(body.meta.next);
    expect(next.body.data[0].symbol).toBe('Be');
  });
  it('pages past the end with an empty page and no next link', async () => {
    const { body } = await call('/apis/elements?offset=117&limit=5');
    expect(body.data.map((e: any) => e.symbol)).toEqual(['Og']);
    expect(body.meta.next).toBeNull();
  });
  it('gets an element by symbol, by atomic number and case-insensitively', async () => {
    for (const id of ['Fe', '26', 'fe', 'FE', 'iron']) {
      const { status, body } = await call(`/apis/elements/${id}`);
      expect(status, id).toBe(200);
      expect(body.data).toMatchObject({ symbol: 'Fe', atomic_number: 26, name: 'Iron' });
    }
  });
  it('filters by block and period', async () => {
    const { body } = await call('/apis/elements?block=f&limit=100');
    expect(body.meta.total).toBe(28);
    const p2 = await call('/apis/elements?period=2');
    expect(p2.body.data.map((e: any) => e.symbol)).toEqual(['Li', 'Be', 'B', 'C', 'N', 'O', 'F', 'Ne']);
  });
  it('searches by name with prefix matching', async () => {
    const { body } = await call('/apis/elements/search?q=oxyg');
    expect(body.data[0].symbol).toBe('O');
    expect(body.meta.q).toBe('oxyg');
  });
  it('answers 404 record_not_found for an unknown element', async () => {
    const { status, body } = await call('/apis/elements/Xx');
    expect(status).toBe(404);
    expect(body.error).toMatchObject({ code: 'record_not_found', status: 404 });
  });
});

describe('units', () => {
  it('lists, gets and searches units', async () => {
    const list = await call('/apis/units?limit=5');
    expect(list.body.meta.total).toBeGreaterThan(700);
    const mile = await call('/apis/units/mile');
    expect(mile.body.data).toMatchObject({ id: 'mile', source: 'CLDR' });
    const ucum = await call(`/apis/units/${encodeURIComponent('[mi_i]')}`);
    expect(ucum.body.data).toMatchObject({ id: '[mi_i]', source: 'UCUM' });
    const found = await call('/apis/units/search?q=fahrenheit');
    expect(found.body.data.map((u: any) => u.id)).toEqual(expect.arrayContaining(['fahrenheit', '[degF]']));
  });
  it('filters units by source', async () => {
    const { body } = await call('/apis/units?source=CLDR&limit=1');
    expect(body.meta.total).toBeGreaterThan(100);
    expect(body.data[0].source).toBe('CLDR');
  });
  it('converts exactly: 1 mile = 1.609344 km, 100 Cel = 212 degF', async () => {
    const a = await call('/apis/units/convert?from=mile&to=km&value=1');
    expect(a.status).toBe(200);
    expect(a.body.data).toMatchObject({ result: 1.609344, result_exact: '1.609344', exact: true });
    const b = await call(`/apis/units/convert?from=Cel&to=${encodeURIComponent('[degF]')}&value=100`);
    expect(b.body.data).toMatchObject({ result: 212, result_exact: '212', exact: true });
    const c = await call('/apis/units/convert?from=celsius&to=fahrenheit&value=-40');
    expect(c.body.data.result_exact).toBe('-40');
  });
  it('refuses incompatible units, unknown units and non-numeric values with a 400 naming the problem', async () => {
    const a = await call('/apis/units/convert?from=mile&to=kilogram&value=1');
    expect(a.status).toBe(400);
    expect(a.body.error.code).toBe('incompatible_units');
    expect(a.body.error.message).toMatch(/mile/);
    const b = await call('/apis/units/convert?from=mile&to=km&value=abc');
    expect(b.body.error).toMatchObject({ code: 'invalid_value', status: 400 });
    const c = await call('/apis/units/convert?from=furlongz&to=km&value=1');
    // A unit convert does not know is a bad parameter (the spec's 400), not a missing page.
    expect(c.status).toBe(400);
    expect(c.body.error).toMatchObject({ code: 'unknown_unit', details: { parameter: 'from', value: 'furlongz' } });
    const d = await call('/apis/units/convert?from=mile&value=1');
    expect(d.body.error).toMatchObject({ code: 'missing_parameter', details: { parameter: 'to' } });
  });
  it('resolves typed symbols and plurals (mi, feet, km/h, mph, kWh) and converts compounds exactly', async () => {
    expect((await call('/apis/units/mi')).body.data).toMatchObject({ id: 'mile', symbol: 'mi' });
    expect((await call('/apis/units/feet')).body.data).toMatchObject({ id: 'foot' });
    expect((await call('/apis/units/kWh')).body.data).toMatchObject({ id: 'kilowatt-hour', factor: '3600000' });
    const a = await call(`/apis/units/convert?from=${encodeURIComponent('km/h')}&to=mph&value=100`);
    expect(a.body.data).toMatchObject({ from: { id: 'kilometer-per-hour' }, to: { id: 'mile-per-hour' }, result_exact: '62.137119223733396962', exact: false });
    expect((await call('/apis/units/convert?from=kWh&to=kJ&value=1')).body.data).toMatchObject({ result_exact: '3600', exact: true });
    expect((await call('/apis/units/convert?from=lb&to=kg&value=1')).body.data).toMatchObject({ result_exact: '0.45359237', exact: true });
  });
  it('lets the literal segment win over the path parameter', async () => {
    expect((await call('/apis/units/search?q=meter')).body.meta.q).toBe('meter');
    expect((await call('/apis/units/convert?from=m&to=km&value=1')).body.data.result_exact).toBe('0.001');
  });
});

describe('authentication', () => {
  it('accepts X-Service-Key and Authorization: Bearer', async () => {
    expect((await call('/apis/elements/H', { 'x-service-key': key })).status).toBe(200);
    expect((await call('/apis/elements/H', { authorization: `Bearer ${key}` })).status).toBe(200);
  });
  it('answers 401 authentication_required without a credential', async () => {
    const r = await call('/apis/elements/H', {});
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('authentication_required');
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
  });
  it('answers 401 invalid_key for an unknown key, a malformed header and a revoked key, 401 conflicting_credentials for conflicting keys', async () => {
    expect((await call('/apis/elements/H', { 'x-service-key': 'alm_nope_nope_nope' })).body.error.code).toBe('invalid_key');
    expect((await call('/apis/elements/H', { authorization: `Basic ${key}` })).body.error.code).toBe('invalid_key');
    const other = srv.key('development');
    const conflict = await call('/apis/elements/H', { 'x-service-key': key, authorization: `Bearer ${other}` });
    expect([conflict.status, conflict.body.error.code]).toEqual([401, 'conflicting_credentials']);
    const revoked = srv.key('basic');
    srv.app.keys.setStatus(revoked, 'revoked');
    const r = await call('/apis/elements/H', { 'x-service-key': revoked });
    expect(r.status).toBe(401);
    expect(r.body.error.message).toMatch(/revoked/);
  });
  it('keeps the health check open and uncounted', async () => {
    const r = await call('/healthz', {});
    expect(r.body).toEqual({ status: 'ok', release: srv.app.release().id });
  });
});

describe('HTTP behaviour', () => {
  it('answers 304 to a matching If-None-Match, and HEAD without a body', async () => {
    const first = await call('/apis/elements/Fe');
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^".+"$/);
    const again = await call('/apis/elements/Fe', { 'x-service-key': key, 'if-none-match': etag });
    expect(again.status).toBe(304);
    const head = await call('/apis/elements/Fe', { 'x-service-key': key }, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    // fetch asks for gzip: HEAD gives the length of the same (compressed) representation as GET.
    expect(head.headers.get('content-length')).toBe(first.headers.get('content-length'));
    expect(head.headers.get('etag')).toBe(etag);
    expect(first.headers.get('cache-control')).toBe('private, max-age=86400');
  });
  it('answers a CORS preflight without a key and without counting it', async () => {
    const before = srv.app.quota.used(srv.app.keys.verify(key)!.id);
    const r = await fetch(`${srv.base}/apis/elements/Fe`, { method: 'OPTIONS', headers: { origin: 'https://example.org', 'access-control-request-headers': 'x-service-key' } });
    expect(r.status).toBe(204);
    expect(r.headers.get('access-control-allow-headers')).toMatch(/X-Service-Key/);
    expect(srv.app.quota.used(srv.app.keys.verify(key)!.id)).toBe(before);
  });
  it('sends rate-limit headers on success', async () => {
    const r = await call('/apis/elements/H');
    expect(r.headers.get('ratelimit-policy')).toMatch(/"monthly";q=10000000/);
    expect(r.headers.get('ratelimit')).toMatch(/^"monthly";r=\d+;t=\d+$/);
  });
  it('refuses other methods with 405', async () => {
    const r = await call('/apis/elements/H', { 'x-service-key': key }, 'POST');
    expect(r.status).toBe(405);
    expect(r.body.error.code).toBe('method_not_allowed');
  });
});

describe('bad input', () => {
  const cases: [string, number, string][] = [
    ['/apis/elements?limit=0', 400, 'invalid_parameter'],
    ['/apis/elements?limit=1001', 400, 'invalid_parameter'], // elements take up to 1000 (maxLimit)
    ['/apis/holidays?limit=101', 400, 'invalid_parameter'],
    ['/apis/elements?limit=abc', 400, 'invalid_parameter'],
    ['/apis/elements?offset=-1', 400, 'invalid_parameter'],
    ['/apis/elements?limit=1&limit=2', 400, 'invalid_parameter'],
    ['/apis/elements?colour=red', 400, 'unknown_parameter'],
    ['/apis/elements?block=z', 400, 'invalid_parameter'],
    ['/apis/elements/search', 400, 'missing_parameter'],
    ['/apis/elements/search?q=', 400, 'invalid_parameter'],
    [`/apis/elements/search?q=${'a'.repeat(201)}`, 400, 'invalid_parameter'],
    ['/apis/nonesuch', 404, 'dataset_not_found'],
    ['/apis/elements/Fe/extra', 404, 'not_found'],
    ['/apis/elements/%E0%A4%A', 400, 'malformed_path'],
  ];
  for (const [path, status, code] of cases) {
    it(`${path.slice(0, 60)} → ${status} ${code}`, async () => {
      const r = await call(path);
      expect(r.status).toBe(status);
      expect(r.body.error).toMatchObject({ code, status });
      expect(typeof r.body.error.message).toBe('string');
    });
  }

  const traversal = [
    '/apis/elements/..%2F..%2F..%2Fetc%2Fpasswd',
    '/apis/elements/%2e%2e%2fmanifest.json',
    '/apis/elements/..',
    '/apis/../../etc/passwd',
    '/apis/elements/packs%2F0.ndjson',
    '/dist/current',
    '/manifest.json',
    '/apis/elements/%00',
  ];
  for (const path of traversal) {
    it(`traversal ${path} → 404`, async () => {
      // fetch() would normalise dot segments; send the raw path.
      const r = await rawGet(path, { 'x-service-key': key });
      expect(r.status).toBe(404);
      expect(JSON.parse(r.body).error.status).toBe(404);
      expect(r.body).not.toMatch(/root:|"files"/);
    });
  }

  it('answers oversized headers with 431 and the envelope', async () => {
    const r = await rawGet('/apis/elements/H', { 'x-service-key': key, 'x-padding': 'a'.repeat(20_000) });
    expect(r.status).toBe(431);
    expect(JSON.parse(r.body).error.code).toBe('headers_too_large');
  });
});

function rawGet(path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const url = new URL(srv.base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path, headers }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });
}
