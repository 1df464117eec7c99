/**
 * The offline bundle (issue 12): `npm run bundle` on a small release of real sources
 * (elements and the KJV), its archives against download.json, the reader on an
 * extracted copy with no server running, /apis/downloads with Range resume, and
 * `serve --bundle <dir> --open` without keys.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { bundleComplete, writeBundle, type Downloads } from '../pipeline/bundle.ts';
import { DOWNLOADS, PROJECT_ROOT, SHA256SUMS, bundleRoot } from '../pipeline/paths.ts';
import { untar } from '../pipeline/tar.ts';
import { AmbiguousId, open } from '../reader/index.ts';
import { createApp } from '../server/node/server.ts';
import { bundleRelease } from '../server/cli/serve.ts';
import { withDownloads } from '../server/cli/build.ts';
import { parseRange } from '../server/api/downloads.ts';
import { OpenApiChecker } from './openapi-check.ts';
import { cleanup, quiet, startServer, tempDir, type Running } from './helpers.ts';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
let dist: string, cache: string, out: string, downloads: Downloads & { dir: string };
const extracted: string[] = [];

/** Extracts archives (read with pipeline/tar.ts, node:zlib only) into a fresh folder. */
function extract(...files: string[]): string {
  const dir = tempDir('almanac-bundle-x-');
  extracted.push(dir);
  for (const f of files) {
    for (const [p, content] of untar(readFileSync(path.join(out, f)))) {
      mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
      writeFileSync(path.join(dir, p), content);
    }
  }
  return dir;
}

/**
 * Build and bundle in a child process: the KJV build is seconds of synchronous work that,
 * on a loaded machine, would block this worker long enough for vitest's RPC to time out.
 */
async function buildAndBundle(env: Record<string, string>): Promise<Downloads & { dir: string }> {
  const script = `import { build } from './server/cli/build.ts';
import { writeBundle } from './pipeline/bundle.ts';
import { ALL_SOURCES } from './sources/index.ts';
await build({ sources: ALL_SOURCES.filter((s) => ['elements', 'bible/kjv'].includes(s.id)), log: () => {} });
process.stdout.write(JSON.stringify(await writeBundle({ log: () => {} })));`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: PROJECT_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '', stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`build and bundle failed (exit ${code}): ${stderr.slice(-2000)}`);
  return JSON.parse(stdout);
}

beforeAll(async () => {
  dist = tempDir('almanac-bundle-dist-');
  cache = tempDir('almanac-bundle-cache-');
  downloads = await buildAndBundle({ ALMANAC_DIST: dist, ALMANAC_CACHE: cache, ALMANAC_MIRROR: '' });
  out = downloads.dir;
});
afterAll(() => cleanup(dist, cache, ...extracted));

describe('npm run bundle', () => {
  it('writes one archive per dataset and translation plus all, each sha256 as download.json and SHA256SUMS say', () => {
    expect(downloads.archives.map((a) => [a.name, a.kind, a.format])).toEqual([
      ['all', 'all', 'tar.gz'], ['bible-kjv', 'translation', 'tar.gz'], ['elements', 'dataset', 'tar.gz'],
      ['all', 'all', 'sqlite'], ['bible-kjv', 'translation', 'sqlite'], ['elements', 'dataset', 'sqlite'],
    ]);
    const sums = readFileSync(path.join(out, SHA256SUMS), 'utf8');
    for (const a of downloads.archives) {
      const bytes = readFileSync(path.join(out, a.file));
      expect(bytes.length).toBe(a.size);
      expect(sha(bytes)).toBe(a.sha256);
      expect(sums).toContain(`${a.sha256}  ${a.file}\n`);
    }
    expect(JSON.parse(readFileSync(path.join(out, DOWNLOADS), 'utf8')).archives).toEqual(downloads.archives);
  });

  it('describes every dataset: contract version, data release, record count, licences, archive size and sha256', () => {
    const el = downloads.datasets.find((d) => d.id === 'elements')!;
    expect(el).toMatchObject({ kind: 'dataset', records: 118, contract_version: expect.any(String), data_release: expect.any(String) });
    expect(el.licences.map((l) => l.name).join(' ')).toMatch(/chemical-elements/);
    expect(el.archive).toEqual({ file: 'elements.tar.gz', size: downloads.archives.find((a) => a.name === 'elements')!.size, sha256: downloads.archives.find((a) => a.name === 'elements')!.sha256 });
    expect(downloads.datasets.find((d) => d.id === 'bible/kjv')).toMatchObject({ kind: 'translation', records: 31102 });
    expect(downloads.archives[0].records).toBe(118 + 31102);
    expect(el.sqlite).toEqual({ file: 'elements.sqlite.gz', size: downloads.archives.find((a) => a.file === 'elements.sqlite.gz')!.size, sha256: downloads.archives.find((a) => a.file === 'elements.sqlite.gz')!.sha256 });
    expect(Date.parse(downloads.built_at)).not.toBeNaN();
  });

  it('gives byte-identical archives when the same release is bundled again', async () => {
    const before = downloads.archives.map((a) => a.sha256);
    const again = await writeBundle({ env: { ALMANAC_DIST: dist }, log: quiet });
    expect(again.archives.map((a) => a.sha256)).toEqual(before);
    expect(readFileSync(path.join(out, DOWNLOADS), 'utf8')).toBe(JSON.stringify(again, (k, v) => (k === 'dir' ? undefined : v), 1) + '\n');
  });

  it('counts the downloads complete only while every file is whole (an identical rebuild keeps them, a cut file is written again)', async () => {
    expect(await bundleComplete(dist, downloads.release)).toBe(true);
    const file = path.join(out, 'elements.sqlite.gz');
    const whole = readFileSync(file);
    truncateSync(file, 100);
    expect(await bundleComplete(dist, downloads.release)).toBe(false);
    writeFileSync(file, whole);
    expect(await bundleComplete(dist, downloads.release)).toBe(true);
  });

  // Issue 40, item 4: sizes alone kept a same-size damaged file, served under its old sha256.
  it('does not keep a same-size damaged download: the build writes it again, saying which file and why', async () => {
    const file = path.join(out, 'elements.sqlite.gz');
    const whole = readFileSync(file);
    try {
      writeFileSync(file, damaged(whole));
      expect(readFileSync(file).length).toBe(whole.length);
      expect(await bundleComplete(dist, downloads.release)).toBe(false);
      const lines: string[] = [];
      await withDownloads({ ALMANAC_DIST: dist }, (l) => lines.push(l))!(dist, downloads.release);
      expect(lines[0]).toBe(`downloads of ${downloads.release}: written again: elements.sqlite.gz has sha256 ${sha(damaged(whole))}, download.json says ${sha(whole)}`);
      expect(sha(readFileSync(file))).toBe(sha(whole));
      lines.length = 0;
      await withDownloads({ ALMANAC_DIST: dist }, (l) => lines.push(l))!(dist, downloads.release);
      expect(lines).toEqual([`downloads of ${downloads.release}: already written, each file checked against its sha256, kept`]);
    } finally {
      writeFileSync(file, whole);
    }
  });
});

/** The same bytes with 64 of them in the middle turned over: same size, other sha256. */
const damaged = (b: Buffer) => {
  const d = Buffer.from(b);
  for (let i = d.length >> 1; i < (d.length >> 1) + 64; i++) d[i] ^= 0xff;
  return d;
};

describe('reader (no server running)', () => {
  it('opens all.tar.gz extracted and reads a record by id and by alias, a verse, and searches', () => {
    const b = open(extract('all.tar.gz'));
    expect(b.release).toBe(downloads.release);
    expect(b.list().map((d) => [d.id, d.records])).toEqual([['bible/kjv', 31102], ['elements', 118]]);
    expect(b.get('elements', 'Fe')).toMatchObject({ id: 'Fe', name: 'Iron', atomic_number: 26 });
    expect(b.get('elements', 'iron')?.id).toBe('Fe'); // alias by name, any case
    expect(b.get('elements', '26')?.id).toBe('Fe'); // alias by atomic number
    expect(b.get('elements', 'unobtainium')).toBeUndefined();
    expect(b.verse('kjv', 'john.3.16')?.text).toMatch(/^For God so loved the world, that he gave his only begotten Son/);
    expect(b.verse('kjv', 'kjv:gen.1.1')?.text).toBe('In the beginning God created the heaven and the earth.');
    expect(b.verse('kjv', 'gen.1.99')).toBeUndefined();
    expect(() => b.verse('kjv', 'web:gen.1.1')).toThrow(/names translation web/);
    const s = b.search('bible/kjv', 'only BEGOTTEN son', { limit: 10 });
    expect(s.results.map((r) => r.id)).toContain('john.3.16');
    expect(s.results.every((r) => /only/i.test(String(r.text)) && /begotten/i.test(String(r.text)))).toBe(true);
    expect(b.search('elements', 'iro').results.map((r) => r.id)).toEqual(['Fe']);
    expect(b.verify()).toEqual([]);
  });

  it('merges per-dataset archives extracted into one folder, and reports a tampered file', () => {
    const dir = extract('elements.tar.gz', 'bible-kjv.tar.gz');
    const b = open(dir);
    expect(b.archives.sort()).toEqual(['bible-kjv', 'elements']);
    expect(b.translations()).toEqual(['kjv']);
    expect(b.get('elements', 'HELIUM')?.id).toBe('He');
    const pack = path.join(dir, bundleRoot(downloads.release), 'elements', 'packs', '0.ndjson');
    writeFileSync(pack, readFileSync(pack, 'utf8').replace('Iron', 'Irn'));
    expect(b.verify()).toEqual(['elements/packs/0.ndjson']);
  });

  it('names the candidates of an ambiguous key instead of picking one', () => {
    expect(new AmbiguousId('x', 'k', ['a', 'b']).candidates).toEqual(['a', 'b']);
  });
});

describe('/apis/downloads', () => {
  let srv: Running, key: string, oa: OpenApiChecker;
  const get = (p: string, headers: Record<string, string> = {}) => fetch(srv.base + p, { headers: { 'x-service-key': key, ...headers } });
  beforeAll(async () => {
    srv = await startServer(dist);
    // premium: these tests send a dozen requests within a second, over basic's burst of 10
    // on an idle machine (the burst itself is tested in quota.test.ts).
    key = srv.key('premium');
    oa = new OpenApiChecker(await (await get('/apis/openapi.json')).json());
  });
  afterAll(async () => {
    await srv.close();
    cleanup(srv.stateDir);
  });

  it('needs a key and lists the archives with links, as the OpenAPI document says', async () => {
    expect((await fetch(`${srv.base}/apis/downloads`)).status).toBe(401);
    const res = await get('/apis/downloads');
    const body = await res.json();
    oa.check('/apis/downloads', res.status, body);
    expect(body.meta).toMatchObject({ release: downloads.release, total: 6 });
    expect(body.data.map((a: { file: string; sha256: string; links: { download: string } }) => [a.file, a.sha256, a.links.download]))
      .toEqual(downloads.archives.map((a) => [a.file, a.sha256, `/apis/downloads/${a.file}`]));
  });

  it('serves a whole archive as one counted request, and resumes it with Range (206)', async () => {
    const a = downloads.archives.find((x) => x.name === 'bible-kjv')!;
    const id = srv.app.keys.verify(key)!.id;
    const before = srv.app.quota.used(id);
    const whole = await get(`/apis/downloads/${a.file}`);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    expect(whole.headers.get('content-type')).toBe('application/gzip');
    const wholeBytes = Buffer.from(await whole.arrayBuffer());
    expect(sha(wholeBytes)).toBe(a.sha256);
    expect(srv.app.quota.used(id)).toBe(before + 1);

    // A download broken after 100,000 bytes, resumed from there.
    const cut = 100_000;
    const rest = await get(`/apis/downloads/${a.file}`, { range: `bytes=${cut}-`, 'if-range': whole.headers.get('etag')! });
    expect(rest.status).toBe(206);
    expect(rest.headers.get('content-range')).toBe(`bytes ${cut}-${a.size - 1}/${a.size}`);
    const joined = Buffer.concat([wholeBytes.subarray(0, cut), Buffer.from(await rest.arrayBuffer())]);
    expect(sha(joined)).toBe(a.sha256);
    expect(srv.app.quota.used(id)).toBe(before + 2);

    const tail = await get(`/apis/downloads/${a.file}`, { range: 'bytes=-10' });
    expect(tail.status).toBe(206);
    expect(Buffer.from(await tail.arrayBuffer())).toEqual(wholeBytes.subarray(a.size - 10));
    // If-Range with another ETag: the file changed, so the whole new file comes back.
    const changed = await get(`/apis/downloads/${a.file}`, { range: `bytes=${cut}-`, 'if-range': '"something-else"' });
    expect(changed.status).toBe(200);
    expect(Number(changed.headers.get('content-length'))).toBe(a.size);
    await changed.arrayBuffer();
  });

  it('answers a Range past the end with 416, Content-Range and the error envelope', async () => {
    const a = downloads.archives.find((x) => x.name === 'elements')!;
    const res = await get(`/apis/downloads/${a.file}`, { range: `bytes=${a.size}-` });
    expect(res.status).toBe(416);
    expect(res.headers.get('content-range')).toBe(`bytes */${a.size}`);
    expect((await res.json()).error).toMatchObject({ code: 'range_not_satisfiable', status: 416, details: { size: a.size } });
    expect(parseRange('bytes=5-2', 10)).toBeNull(); // invalid: ignored, whole file
    expect(parseRange('bytes=0-1,4-5', 10)).toBeNull(); // several ranges: whole file
    expect(parseRange('bytes=3-100', 10)).toEqual([3, 9]);
    expect(() => parseRange('bytes=-0', 10)).toThrow();
  });

  it('never serves a download whose bytes differ from its sha256: a same-size damaged file answers 503 release_corrupt (for a Range too), /healthz says so, and the repaired file is served again', async () => {
    const a = downloads.archives.find((x) => x.file === 'bible-kjv.sqlite.gz')!;
    const file = path.join(out, a.file);
    const whole = readFileSync(file);
    expect((await get(`/apis/downloads/${a.file}`)).status).toBe(200); // checked once, kept by its signature
    try {
      writeFileSync(file, damaged(whole));
      for (const headers of [{}, { range: 'bytes=0-99' }] as Record<string, string>[]) {
        const res = await get(`/apis/downloads/${a.file}`, headers);
        expect(res.status).toBe(503);
        expect((await res.json()).error).toMatchObject({ code: 'release_corrupt', details: { file: `downloads/${a.file}` } });
      }
      expect(await (await fetch(`${srv.base}/healthz`)).json()).toMatchObject({ status: 'degraded', corrupt_files: [`downloads/${a.file}`] });
    } finally {
      writeFileSync(file, whole);
    }
    const res = await get(`/apis/downloads/${a.file}`);
    expect(res.status).toBe(200);
    expect(sha(Buffer.from(await res.arrayBuffer()))).toBe(a.sha256);
    expect(await (await fetch(`${srv.base}/healthz`)).json()).toMatchObject({ status: 'ok' });
  });

  it('serves download.json and SHA256SUMS, and nothing outside the list', async () => {
    const m = await get(`/apis/downloads/${DOWNLOADS}`);
    expect((await m.json()).release).toBe(downloads.release);
    expect(await (await get(`/apis/downloads/${SHA256SUMS}`)).text()).toBe(readFileSync(path.join(out, SHA256SUMS), 'utf8'));
    for (const p of ['/apis/downloads/..%2F..%2Fcurrent', '/apis/downloads/all.tar', '/apis/downloads/.parts']) {
      const res = await get(p);
      expect(res.status, p).toBe(404);
      expect((await res.json()).error.code).toBe('download_not_found');
    }
  });
});

describe('serve --bundle <dir> --open', () => {
  it('serves an extracted bundle with no key; datasets it lacks answer 503', async () => {
    const app = createApp({ dist, stateDir: tempDir('almanac-state-'), open: true, release: bundleRelease(extract('elements.tar.gz')), log: quiet });
    await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    try {
      const fe = await fetch(`${base}/apis/elements/iron`);
      expect(fe.status).toBe(200);
      expect((await fe.json()).data.id).toBe('Fe');
      const kjvRes = await fetch(`${base}/api/v1/text/kjv/john/3/16`);
      expect(kjvRes.status).toBe(404);
      expect((await kjvRes.json()).error.code).toBe('translation_unavailable');
      expect((await (await fetch(`${base}/apis/openapi.json`)).json()).error.code).toBe('not_found'); // only all.tar.gz carries it
      // Issue 40: it told the user of a bundle to run npm run build.
      expect((await (await fetch(`${base}/apis/downloads`)).json()).meta).toEqual({ release: downloads.release, total: 0,
        note: 'this server serves an extracted offline bundle (npm run serve -- --bundle), which holds no downloads: the server it came from lists them at /apis/downloads' });
    } finally {
      await app.close();
    }
  });

  it('runs from the command line: npm run serve -- --bundle <dir> --open', async () => {
    const dir = extract('all.tar.gz');
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/cli/serve.ts', '--bundle', dir, '--open'], {
      cwd: PROJECT_ROOT, env: { ...process.env, PORT: '0', ALMANAC_STATE_DIR: tempDir('almanac-state-') }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const base = await new Promise<string>((resolve, reject) => {
        let text = '';
        child.stdout.on('data', (c) => {
          text += c;
          const m = /on (http:\/\/127\.0\.0\.1:\d+) with no keys/.exec(text);
          if (m) resolve(m[1]);
        });
        child.on('exit', (code) => reject(new Error(`server exited with ${code}`)));
      });
      const v = await (await fetch(`${base}/api/v1/text/kjv/john/3/16`)).json();
      expect(v.data.text).toMatch(/only begotten Son/);
      const key = await (await fetch(`${base}/api/v1/key`)).json();
      expect(key.data).toMatchObject({ key_id: 'open', current_usage: 0 });
      expect((await fetch(`${base}/apis/openapi.json`)).status).toBe(200);
      const docs = await fetch(`${base}/docs`);
      expect(docs.status).toBe(200); // all.tar.gz carries the docs page
      for (const [, asset] of (await docs.text()).matchAll(/src="(\/docs\/[^"]+)"/g)) expect((await fetch(base + asset)).status, asset).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
