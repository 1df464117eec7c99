/**
 * Request targets kept by their string (core/targets.ts, issue 41): a kept parse must be
 * exactly what a fresh parse gives, for any target; a target that could carry a key is
 * never kept; the store stays bounded; and the core answers a cached lookup without a
 * promise of its own only where nothing had to wait, with the same bytes and headers as
 * the promise path.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../server/api/routes.ts';
import { V1_ROUTES } from '../server/api/v1/routes.ts';
import { SURFACES } from '../server/core/surfaces.ts';
import { Targets } from '../server/core/targets.ts';
import { createApp } from '../server/node/server.ts';
import { createCore } from '../server/core/app.ts';
import type { SharedBodies } from '../server/core/options.ts';
import { fsRelease } from '../server/release/fs-reader.ts';
import { inject } from 'vitest';
import { KeyStore } from '../server/state/keys.ts';
import { cleanup, quiet, tempDir } from './helpers.ts';

const view = (f: () => ReturnType<Targets['of']>) => {
  try {
    const t = f();
    return { rawPath: t.rawPath, query: t.query, route: t.match?.route.path ?? null, params: t.match?.params ?? null, cost: t.cost, docs: t.docs, surface: t.surface };
  } catch (err) {
    return { error: (err as { code?: string }).code };
  }
};

/** Paths from the route tables' own segments (parameters filled with any text), with and without queries. */
const segment = fc.oneof(fc.constantFrom(...new Set([...ROUTES, ...V1_ROUTES].flatMap((r) => r.path.split('/').filter((s) => s && !s.startsWith('{'))))), fc.string({ maxLength: 12 }).map(encodeURIComponent), fc.constantFrom('%zz', '%41', 'alm_x', 'KEY'));
const target = fc.tuple(fc.constantFrom('/apis', '/api/v1', '', '/docs'), fc.array(segment, { maxLength: 4 }), fc.option(fc.array(fc.tuple(fc.constantFrom('q', 'limit', 'key', 'Key', 'k%65y', 'page', 'x'), fc.string({ maxLength: 8 }).map(encodeURIComponent)), { maxLength: 3 })))
  .map(([root, segs, q]) => `${root}/${segs.join('/')}${q === null ? '' : `?${q.map(([k, v]) => `${k}=${v}`).join('&')}`}`);

describe('request targets kept by their string (issue 41)', () => {
  it('a kept parse is what a fresh parse gives, asked once or again, for 3,000 generated targets', () => {
    const kept = new Targets(SURFACES);
    fc.assert(fc.property(target, (url) => {
      const fresh = view(() => new Targets(SURFACES).of(url));
      expect(view(() => kept.of(url))).toEqual(fresh);
      expect(view(() => kept.of(url))).toEqual(fresh); // the second ask reads the kept one
    }), { numRuns: 3000 });
  });

  it('keeps no target that could carry a key, and keeps the others frozen', () => {
    const t = new Targets(SURFACES);
    for (const url of ['/api/v1/text/kjv/john/3?key=alm_secret', '/apis/elements/Fe?KEY=x', '/apis/elements/alm_secret', '/api/v1/search?q=%6Bey', '/api/v1/key']) {
      expect(t.of(url)).not.toBe(t.of(url));
    }
    const kept = t.of('/apis/elements/Fe');
    expect(t.of('/apis/elements/Fe')).toBe(kept);
    expect(Object.isFrozen(kept)).toBe(true);
    expect(Object.isFrozen(kept.match!.params)).toBe(true);
    expect(() => ((kept.match!.params as Record<string, string>).id = 'He')).toThrow(TypeError);
  });

  it('stays bounded: a flood of distinct targets is parsed each time, never held without limit', () => {
    const t = new Targets(SURFACES);
    for (let i = 0; i < 10_000; i++) t.of(`/apis/elements/E${i}`);
    expect((t as unknown as { kept: Map<string, unknown> }).kept.size).toBeLessThanOrEqual(4096);
    expect(t.of('/apis/elements/E9999').match!.params).toEqual({ id: 'E9999' });
  });
});

describe('the core answers without a promise only when nothing waited (issue 41)', () => {
  it('open mode: a cached lookup is answered in the call, with the bytes and headers of the promise path', async () => {
    const dir = tempDir('almanac-targets-');
    const app = createApp({ dist: inject('sharedDist'), stateDir: dir, open: true, verify: false, log: quiet });
    try {
      const req = { method: 'GET', url: '/apis/elements/Fe', header: (n: string) => (n === 'accept-encoding' ? 'br' : undefined) };
      const first = await app.core.handle(req);
      expect(first.status).toBe(200);
      const now = app.core.respond(req);
      expect(now).not.toBeInstanceOf(Promise);
      const later = await app.core.handle(req);
      expect((now as typeof later).headers).toEqual(later.headers);
      expect(Buffer.compare(Buffer.from((now as typeof later).body!), Buffer.from(later.body!))).toBe(0);
    } finally {
      await app.close();
      cleanup(dir);
    }
  });

  it('with a key: the count waits for the end of the turn, so the answer is a promise, counted once', async () => {
    const dir = tempDir('almanac-targets-');
    const key = new KeyStore(dir).create('development', 'targets').secret;
    const app = createApp({ dist: inject('sharedDist'), stateDir: dir, verify: false, log: quiet });
    try {
      const req = { method: 'GET', url: '/apis/elements/Fe', header: (n: string) => (n === 'x-service-key' ? key : undefined) };
      expect((await app.core.handle(req)).status).toBe(200);
      const out = app.core.respond(req);
      expect(out).toBeInstanceOf(Promise);
      const r = await out;
      expect(r.status).toBe(200);
      expect(app.quota.used(app.keys.verify(key)!.id)).toBe(2);
    } finally {
      await app.close();
      cleanup(dir);
    }
  });
});

describe('the shared body cache (the edge\'s Cache API)', () => {
  it('is asked and filled only for response-cached routes: never under an empty key for a composed answer that is not cached', async () => {
    const puts: string[] = [], gets: string[] = [];
    const shared: SharedBodies = {
      get: async (k) => void gets.push(k),
      put: async (k) => void puts.push(k),
    };
    const release = fsRelease(inject('sharedDist'));
    const open = { refresh: () => {}, now: () => Date.now(), verify: () => undefined, admit: () => { throw new Error('open mode counts nothing'); }, bill: () => { throw new Error('open mode bills nothing'); }, reviews: () => { throw new Error('no reviews'); } };
    const core = createCore({ release: () => release, state: open, log: quiet, open: true, shared });
    const pending: Promise<unknown>[] = [];
    const ask = (url: string) => core.handle({ method: 'GET', url, header: () => undefined }, (p) => void pending.push(p));
    expect((await ask('/healthz')).status).toBe(200); // composed, not response-cached
    expect((await ask('/apis/elements/Fe')).status).toBe(200); // response-cached
    await Promise.all(pending);
    expect(gets.length).toBe(1);
    expect(puts).toEqual(gets);
    expect(puts.every((k) => k.includes('/apis/elements/Fe'))).toBe(true);
  });
});
