/** Fetch: mirror folders, mirror base URLs on loopback, checksum refusal. Never the real network. */
import { createServer } from 'node:http';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { resolveInputs } from '../pipeline/inputs.ts';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { fetchAll, fetchOne, USER_AGENT } from '../pipeline/fetch.ts';
import { cachedLocation, mirrorLocation } from '../pipeline/paths.ts';
import { MIRROR, TINY_SHA, TINY_URL, URL_PATH, tiny } from './fixtures/tiny-source.ts';
import { quiet } from './helpers.ts';
import { tempDirs } from './temp.ts';

const dir = tempDirs();

describe('mirror layout', () => {
  it('maps https://host/path onto <mirror>/<host>/<path> for folders and URLs', () => {
    expect(mirrorLocation('https://www.irs.gov/pub/irs-soi/eo_de.csv', '/m')).toBe('/m/www.irs.gov/pub/irs-soi/eo_de.csv');
    expect(mirrorLocation('https://www.irs.gov/pub/x.csv', 'http://127.0.0.1:9/mirror/')).toBe('http://127.0.0.1:9/mirror/www.irs.gov/pub/x.csv');
  });

  it('gives a URL ending in "/" (USAspending\'s award search) a file of its own in a folder, not the folder itself', () => {
    const url = 'https://api.usaspending.gov/api/v2/search/spending_by_award/';
    expect(mirrorLocation(url, '/m')).toBe('/m/api.usaspending.gov/api/v2/search/spending_by_award/index');
    expect(cachedLocation(url, { ALMANAC_CACHE: '/c' } as NodeJS.ProcessEnv)).toMatch(/spending_by_award\/index$/);
    expect(mirrorLocation(url, 'http://127.0.0.1:9/m')).toBe('http://127.0.0.1:9/m/api.usaspending.gov/api/v2/search/spending_by_award/');
  });
});

describe('fetch', () => {
  it('copies from a mirror folder into the cache and verifies the checksum', async () => {
    const env = { ALMANAC_CACHE: dir(), ALMANAC_MIRROR: MIRROR };
    expect(await fetchOne(TINY_URL, TINY_SHA, env)).toBe('fetched');
    expect(readFileSync(cachedLocation(TINY_URL, env))).toEqual(readFileSync(path.join(MIRROR, URL_PATH)));
    expect(await fetchOne(TINY_URL, TINY_SHA, env)).toBe('cached');
  });

  it('downloads from a mirror base URL on loopback, sending a descriptive User-Agent', async () => {
    const agents: string[] = [];
    const server = createServer((req, res) => {
      agents.push(String(req.headers['user-agent']));
      const file = path.join(MIRROR, decodeURIComponent(req.url!.replace(/^\/base\//, '')));
      if (!existsSync(file)) return res.writeHead(404).end();
      res.end(readFileSync(file));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/base`;
      const env = { ALMANAC_CACHE: dir(), ALMANAC_MIRROR: base };
      expect(await fetchOne(TINY_URL, TINY_SHA, env)).toBe('fetched');
      expect(agents).toEqual([USER_AGENT]);
      const missing = await fetchAll([{ ...tiny, inputs: { x: { kind: 'url', url: 'https://upstream.example/nope.json', sha256: TINY_SHA, format: 'json' } } }], env, quiet);
      expect(missing[0]).toMatchObject({ status: 'failed', reason: expect.stringMatching(/HTTP 404/) });
    } finally {
      server.close();
    }
  });

  it('refuses a file whose sha256 differs from the pin and leaves nothing in the cache', async () => {
    const env = { ALMANAC_CACHE: dir(), ALMANAC_MIRROR: MIRROR };
    await expect(fetchOne(TINY_URL, '0'.repeat(64), env)).rejects.toThrow(/sha256 mismatch/);
    expect(existsSync(cachedLocation(TINY_URL, env))).toBe(false);
    expect(readdirSync(env.ALMANAC_CACHE)).toEqual([]);
  });

  // Issue 40, item 6: the build said "not fetched: npm run fetch needs network" for a mirror file of other bytes.
  it('tells the build why an input was not fetched: a mirror file whose sha256 differs is named, with both checksums; a later fetch clears it', async () => {
    const env = { ALMANAC_CACHE: dir(), ALMANAC_MIRROR: MIRROR };
    const pinned = { ...tiny, inputs: { list: { kind: 'url' as const, url: TINY_URL, sha256: '0'.repeat(64), format: 'json' as const } } };
    await fetchAll([pinned], env, quiet);
    const because = `${TINY_URL} was not fetched: sha256 mismatch for ${TINY_URL} (the mirror's ${path.join(MIRROR, URL_PATH)}): got ${TINY_SHA}, pinned ${'0'.repeat(64)}`;
    await expect(resolveInputs(pinned, env)).rejects.toThrow(because);
    // Its reason does not change with the time of the fetch: the manifest holds it, and the same inputs give the same release.
    await fetchAll([pinned], env, quiet);
    await expect(resolveInputs(pinned, env)).rejects.toThrow(new RegExp(`^${because.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
    await fetchAll([tiny], env, quiet);
    await expect(resolveInputs(tiny, env)).resolves.toMatchObject({ missing: [] });
    rmSync(cachedLocation(TINY_URL, env));
    await expect(resolveInputs(tiny, env)).rejects.toThrow(/was not fetched: npm run fetch needs network to upstream\.example/);
  });

  it('reports an unreachable input with its reason instead of failing', async () => {
    const env = { ALMANAC_CACHE: dir(), ALMANAC_MIRROR: dir() };
    const lines: string[] = [];
    const out = await fetchAll([tiny], env, (l) => lines.push(l));
    expect(out[0]).toMatchObject({ dataset: 'tiny', status: 'failed', reason: expect.stringMatching(/not in mirror/) });
    expect(lines[0]).toMatch(/^fetch: tiny: skipped/);
  });
});
