/**
 * The platform contract's statuses (issue 26, items 9 and 10): "a request with neither
 * credential, or with a credential that is not accepted, returns 401", and every endpoint
 * declares 200/400/401/429. So /apis answers a conflicting credential and an inactive
 * subscription with 401 (v1 keeps its 403s, as its spec says), a unit convert does not
 * know with 400, and every answer an /apis operation gives is one its OpenAPI entry
 * declares, with a body of that status's schema.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import population from '../sources/population.ts';
import units from '../sources/units/index.ts';
import { fixtureSource, serveSources, type FixtureServer } from './fixture-release.ts';
import { OpenApiChecker } from './openapi-check.ts';

let srv: FixtureServer;
let doc: any;
let key: string;
let other: string;

beforeAll(async () => {
  // Population from its counties file only: the optional subcounties feed is not fetched.
  srv = await serveSources((cache) => [units, fixtureSource(population, cache, { counties: 'population/co-est2024-alldata.csv' })]);
  key = srv.key();
  other = srv.key('basic');
  doc = await (await fetch(`${srv.base}/apis/openapi.json`)).json();
}, 300_000);
afterAll(() => srv?.stop());

const get = async (p: string, headers: Record<string, string> = { 'x-service-key': key }) => {
  const res = await fetch(srv.base + p, { headers });
  return { status: res.status, body: await res.json() };
};

describe('/apis statuses follow the platform spec', () => {
  it('a conflicting credential is 401 conflicting_credentials, with the challenge', async () => {
    const res = await fetch(`${srv.base}/apis/units/m`, { headers: { 'x-service-key': key, authorization: `Bearer ${other}` } });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="almanac", error="invalid_token"/);
    expect((await res.json()).error).toMatchObject({ code: 'conflicting_credentials', status: 401 });
  });

  it('a unit convert does not know is 400 unknown_unit naming the parameter, not a 404', async () => {
    const from = await get('/apis/units/convert?from=zz-nope&to=m&value=1');
    expect(from.status).toBe(400);
    expect(from.body.error).toMatchObject({ code: 'unknown_unit', details: { parameter: 'from', value: 'zz-nope' } });
    const to = await get('/apis/units/convert?from=m&to=furlongs-of-cheese&value=1');
    expect(to.body.error).toMatchObject({ code: 'unknown_unit', status: 400, details: { parameter: 'to' } });
    expect((await get('/apis/units/convert?from=m&to=ft&value=1')).status).toBe(200);
    // A record lookup by id still answers 404 for an unknown unit.
    expect((await get('/apis/units/zz-nope')).body.error).toMatchObject({ code: 'record_not_found', status: 404 });
  });

  it('a view whose input was not fetched says so (503 dataset_unavailable naming the input), not 200 with nothing', async () => {
    const r = await get('/apis/population-demographics/subcounties');
    expect(r.status).toBe(503);
    expect(r.body.error).toMatchObject({ code: 'dataset_unavailable', details: { dataset: 'population-demographics', missing_inputs: ['subcounties'] } });
    const counties = await get('/apis/population-demographics/counties?limit=2');
    expect(counties.status).toBe(200);
    expect(counties.body.data).toHaveLength(2);
  });

  it('the catalogue says which optional input a dataset was built without, and why (issue 37, item 7: subcounty populations)', async () => {
    const { body } = await get('/apis');
    const entry = body.data.find((d: any) => d.dataset === 'population-demographics');
    expect(entry).toMatchObject({ status: 'available', missing_inputs: [{ input: 'subcounties', reason: expect.stringMatching(/sub-est2024\.csv was not fetched.*no copy of it was reachable/) }] });
    expect(body.data.find((d: any) => d.dataset === 'units').missing_inputs).toBeUndefined();
  });

  it('one rule for repeated credentials on both surfaces: the same key any number of times is one credential, billed once; different keys are refused (item 11)', async () => {
    const twice = (name: string, a: string, b = a) => {
      const h = new Headers();
      h.append(name, a);
      h.append(name, b);
      return h;
    };
    const status = async (p: string, h: Headers) => (await fetch(srv.base + p, { headers: h })).status;
    const used = () => srv.app.quota.used(srv.app.keys.verify(key)!.id);
    let before = used();
    expect(await status('/apis/units/m', twice('x-service-key', key))).toBe(200);
    expect(await status('/apis/units/m', twice('authorization', `Bearer ${key}`))).toBe(200);
    expect(await status('/api/v1/translations', twice('x-scripture-key', key))).toBe(200);
    expect(await status(`/api/v1/translations?key=${key}&key=${key}`, new Headers())).toBe(200);
    expect(used() - before).toBe(4);
    before = used();
    expect(await status('/apis/units/m', twice('x-service-key', key, other))).toBe(401);
    expect(await status('/apis/units/m', twice('authorization', `Bearer ${key}`, `Bearer ${other}`))).toBe(401);
    expect(await status('/api/v1/translations', twice('x-scripture-key', key, other))).toBe(403);
    const q = await fetch(`${srv.base}/api/v1/translations?key=${other}&key=${key}`);
    expect([q.status, (await q.json()).error.code]).toEqual([403, 'invalid_api_key']);
    expect(used()).toBe(before);
  });

  it('no /apis operation declares 403, and 401 names every refused-credential code', () => {
    const ops = Object.entries<any>(doc.paths).filter(([, o]) => o.get.security === undefined || o.get.security.length);
    expect(ops.length).toBeGreaterThan(10);
    for (const [p, o] of ops) {
      expect(Object.keys(o.get.responses), p).not.toContain('403');
      expect(o.get.responses['401'].content['application/json'].schema.properties.error.properties.code.enum, p)
        .toEqual(expect.arrayContaining(['authentication_required', 'invalid_key', 'conflicting_credentials', 'subscription_inactive']));
    }
  });

  it('every /apis operation, asked without a key, with a wrong one, with two, with an unknown parameter and plainly, answers only what it declares', async () => {
    const checker = new OpenApiChecker(doc);
    const asked: string[] = [];
    for (const template of Object.keys(doc.paths)) {
      const p = template.replace(/\{[^}]+\}/g, 'zz-nope');
      const variants: [string, Record<string, string>][] = [
        [p, {}],
        [p, { 'x-service-key': 'alm_not-a-key-at-all-0000000000000' }],
        [p, { 'x-service-key': key, authorization: `Bearer ${other}` }],
        [`${p}?bogus=1`, { 'x-service-key': key }],
        [p, { 'x-service-key': key }],
      ];
      for (const [url, headers] of variants) {
        const r = await get(url, headers);
        expect(r.status, `${url}`).not.toBe(403);
        checker.check(url, r.status, r.body);
        asked.push(`${r.status} ${url}`);
      }
    }
    expect(checker.checked).toBe(asked.length);
    const seen = new Set(asked.map((a) => a.slice(0, 3)));
    for (const st of ['200', '400', '401', '404']) expect(seen.has(st), `some answer was ${st}`).toBe(true);
  });
});
