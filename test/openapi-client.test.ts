/**
 * The OpenAPI documents as a client sees them: public (no key, not counted), clean under
 * a real linter (Redocly's recommended rules, 0 errors), and good enough to generate a
 * typed client (openapi-typescript + openapi-fetch) that compiles under `tsc --strict`
 * against test/client/program.ts and then calls this server.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import openapiTS from 'openapi-typescript';
import { PROJECT_ROOT } from '../pipeline/paths.ts';
import { ROUTES } from '../server/api/routes.ts';
import { cleanup, startServer, type Running } from './helpers.ts';

let srv: Running;
let key: string;
const docs: Record<'platform' | 'v1', any> = { platform: null, v1: null };
let work: string;

beforeAll(async () => {
  srv = await startServer(inject('sharedDist') ?? process.env.ALMANAC_TEST_DIST!);
  key = srv.key('development');
  mkdirSync(path.join(PROJECT_ROOT, '.cache'), { recursive: true });
  work = mkdtempSync(path.join(PROJECT_ROOT, '.cache', 'client-check-'));
});
afterAll(async () => {
  await srv?.close();
  cleanup(srv.stateDir, work);
});

describe('OpenAPI documents', () => {
  it('are served without a key, and a request with a key is not counted', async () => {
    for (const [name, p] of [['platform', '/apis/openapi.json'], ['v1', '/api/v1/openapi']] as const) {
      const res = await fetch(srv.base + p);
      expect(res.status, p).toBe(200);
      expect(res.headers.get('ratelimit')).toBeNull();
      docs[name] = await res.json();
      expect(docs[name].openapi).toBe('3.1.0');
    }
    const id = srv.app.keys.verify(key)!.id;
    const before = srv.app.quota.used(id);
    expect((await fetch(`${srv.base}/api/v1/openapi`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    expect(srv.app.quota.used(id)).toBe(before);
  });

  it('lint with 0 errors under Redocly recommended rules', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    for (const name of ['platform', 'v1'] as const) {
      const problems = await lintFromString({ source: JSON.stringify(docs[name]), absoluteRef: `/${name}.json`, config });
      const errors = problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
      expect(errors, name).toEqual([]);
    }
  });

  it('give every operation an example and typed meta', () => {
    for (const doc of [docs.platform, docs.v1]) {
      for (const [p, item] of Object.entries<any>(doc.paths)) {
        const examples = Object.values<any>(item.get.responses).filter((r) => Object.values<any>(r.content ?? {}).some((c) => c.examples || c.example));
        expect(examples.length, p).toBeGreaterThan(0);
        const ok = item.get.responses[200].content['application/json']?.schema;
        if (ok?.properties?.meta) expect(Object.keys(ok.properties.meta.properties ?? {}).length, `${p} meta`).toBeGreaterThan(0);
      }
    }
  });

  it('give a 200 example, answered by the release, to every list and get of a built fixed dataset and every v1 text route', async () => {
    const ok = (doc: any, op: string) => Object.values<any>(doc.paths).find((i) => i.get.operationId === op)?.get.responses[200].content['application/json'];
    const release = srv.app.release();
    const expected = [
      ...ROUTES.filter((r) => r.dataset && release.datasets.has(r.dataset) && r.cache !== false && /(List|Get)$/.test(r.operationId)).map((r) => r.operationId),
      'unitsConvert', 'v1Translations', 'v1Books', 'textVerse', 'textChapter', 'textBook', 'textRange', 'aliasVerse',
    ];
    expect(expected.length).toBeGreaterThan(20);
    for (const op of expected) {
      const doc = ROUTES.some((r) => r.operationId === op) ? docs.platform : docs.v1;
      expect(ok(doc, op)?.examples?.release, op).toBeTruthy();
    }
    // Every 200 example is what the server answers to the request its summary names.
    let checked = 0;
    for (const doc of [docs.platform, docs.v1]) {
      for (const item of Object.values<any>(doc.paths)) {
        const ex = item.get.responses[200].content['application/json']?.examples?.release;
        if (!ex) continue;
        const url = ex.summary.replace(/^GET /, '');
        const res = await fetch(srv.base + url, { headers: { authorization: `Bearer ${key}` } });
        expect(res.status, url).toBe(200);
        expect(await res.json(), url).toEqual(ex.value);
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(expected.length);
  });

  it('generate a typed client that compiles under tsc --strict and calls the server', async () => {
    for (const name of ['platform', 'v1'] as const) writeFileSync(path.join(work, `${name}.ts`), await openapiTS(docs[name]));
    copyFileSync(path.join(PROJECT_ROOT, 'test', 'client', 'program.ts'), path.join(work, 'program.ts'));
    writeFileSync(path.join(work, 'tsconfig.json'), JSON.stringify({
      compilerOptions: {
        strict: true, noEmit: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext',
        allowImportingTsExtensions: true, skipLibCheck: true, types: ['node'],
      },
      include: ['*.ts'],
    }));
    // Asynchronously: a blocked worker under load can time out vitest's RPC.
    const tsc = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = spawn(path.join(PROJECT_ROOT, 'node_modules', '.bin', 'tsc'), ['-p', work], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (c) => (out += c));
      child.stderr.on('data', (c) => (out += c));
      child.on('close', (code) => resolve({ code, out }));
    });
    expect(tsc.out).toBe('');
    expect(tsc.code).toBe(0);

    const { run } = await import(path.join(work, 'program.ts'));
    const out = await run(srv.base, key);
    expect(out).toMatchObject({ name: 'Iron', total: 118, next: expect.stringContaining('offset=2'), abbreviation: 'KJV', code: 'record_not_found', missingStatus: 404 });
    expect(out.text).toMatch(/only begotten Son/);
    expect(out.references).toHaveLength(3);
    for (const r of out.references) expect(r).toMatch(/^[0-9a-z]+\.\d+\.\d+$/);
    expect(out).toMatchObject({ layer: expect.any(String), position: 1, readableText: expect.stringMatching(/^In the beginning/) });
    expect(out.morphCode).toMatch(/^H/);
    expect(out.available).toContain(true);
    expect(out.wordTokens).toBeGreaterThan(0);
  });

  it('issue 38 item 11: no description points at the README (its sections moved to docs/)', () => {
    for (const name of ['platform', 'v1'] as const) expect(JSON.stringify(docs[name]).match(/.{0,60}README.{0,40}/g) ?? [], name).toEqual([]);
  });
});
