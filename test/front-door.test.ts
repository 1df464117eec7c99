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

  it('issue 38 item 9: a browser (Accept: text/html) gets a small HTML page with the links; API clients keep the JSON; both vary on Accept', async () => {
    const browser = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
    const page = await fetch(`${srv.base}/`, { headers: { accept: browser } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('vary')).toMatch(/\bAccept\b.*Accept-Encoding|Accept-Encoding.*\bAccept\b/);
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    const html = await page.text();
    expect(html).toMatch(/^<!doctype html>/i);
    expect(html).toContain(srv.app.release().id);
    for (const href of ['/docs/', '/apis/openapi.json', '/api/v1/openapi', '/healthz', '/readyz', '/apis', '/api/v1/translations', '/apis/downloads']) {
      expect(html, href).toContain(`href="${href}"`);
    }
    expect(html).toMatch(/X-Service-Key/);
    // HEAD: the same head, no body.
    const head = await fetch(`${srv.base}/`, { method: 'HEAD', headers: { accept: browser } });
    expect(head.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(Number(head.headers.get('content-length'))).toBe(Buffer.byteLength(html));
    // API clients, curl (*/*), no Accept, and a tie: JSON.
    for (const accept of [undefined, '*/*', 'application/json', 'application/json, text/html', 'text/html;q=0.5, application/json']) {
      const r = await fetch(`${srv.base}/`, { headers: accept ? { accept } : {} });
      expect(r.headers.get('content-type'), String(accept)).toMatch(/^application\/json/);
      expect(r.headers.get('vary'), String(accept)).toMatch(/\bAccept\b/);
      expect((await r.json()).links.docs).toBe('/docs/');
    }
  });
});
