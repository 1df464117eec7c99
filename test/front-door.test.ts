/**
 * The first requests of a newcomer (issue 28): `/` points at everything public, and a key
 * sent in the other surface's header is refused with a message naming the right one.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startServer, type Running } from './helpers.ts';

let srv: Running;
let key: string;
beforeAll(async () => {
  srv = await startServer(inject('sharedDist'));
  key = srv.key();
});
afterAll(() => srv?.close());

describe('the front door', () => {
  it('/ answers with links to the docs page, both OpenAPI documents and /healthz, each of which answers without a key', async () => {
    const res = await fetch(`${srv.base}/`);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.links).toMatchObject({ docs: '/docs/', platform_openapi: '/apis/openapi.json', scripture_openapi: '/api/v1/openapi', health: '/healthz' });
    expect(body.credentials['/apis']).toMatch(/X-Service-Key/);
    expect(body.credentials['/api/v1']).toMatch(/X-Scripture-Key/);
    for (const p of ['docs', 'platform_openapi', 'scripture_openapi', 'health']) {
      expect((await fetch(srv.base + body.links[p])).status, p).toBe(200);
    }
    // With a key, the keyed links answer too.
    for (const p of ['catalogue', 'translations', 'downloads']) {
      expect((await fetch(srv.base + body.links[p], { headers: { authorization: `Bearer ${key}` } })).status, p).toBe(200);
    }
  });

  it('a key in X-Service-Key on /api/v1 is refused naming the headers v1 reads; X-Scripture-Key or key= on /apis likewise', async () => {
    const v1 = await (await fetch(`${srv.base}/api/v1/translations`, { headers: { 'x-service-key': key } })).json();
    expect(v1.error).toMatchObject({ code: 'api_key_required' });
    expect(v1.error.message).toMatch(/does not read X-Service-Key .*Authorization: Bearer <key>, X-Scripture-Key, or key=/);
    const apis = await (await fetch(`${srv.base}/apis/elements/Fe`, { headers: { 'x-scripture-key': key } })).json();
    expect(apis.error).toMatchObject({ code: 'authentication_required' });
    expect(apis.error.message).toMatch(/does not read X-Scripture-Key .*X-Service-Key or Authorization: Bearer/);
    const query = await (await fetch(`${srv.base}/apis/elements/Fe?key=${key}`)).json();
    expect(query.error.message).toMatch(/does not read the key= parameter/);
    // No credential at all: the plain message.
    expect((await (await fetch(`${srv.base}/apis/elements/Fe`)).json()).error.message).toBe('send a key in X-Service-Key or Authorization: Bearer');
  });
});
