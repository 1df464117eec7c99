/**
 * A release built from fixtures: each url input of a source is replaced by a fixture
 * file placed in a temp fetch cache, with the source's pin swapped for the fixture's
 * sha256 (the only change to the source), then built and served on port 0.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { build } from '../pipeline/build.ts';
import { cachedLocation } from '../pipeline/paths.ts';
import type { DatasetSource } from '../sources/contract.ts';
import { cleanup, quiet, startServer, tempDir, type Running } from './helpers.ts';

export interface FixtureServer extends Running {
  get: (p: string) => Promise<{ status: number; body: any }>;
  reports: Awaited<ReturnType<typeof build>>['reports'];
  stop: () => Promise<void>;
}

/** `files` maps each source's url inputs (by input name) to fixture files. */
export async function serveFixtures(items: { source: DatasetSource<any>; files: Record<string, string> }[]): Promise<FixtureServer> {
  const cache = tempDir('almanac-fx-cache-');
  const dist = tempDir('almanac-fx-dist-');
  const env = { ...process.env, ALMANAC_CACHE: cache, ALMANAC_DIST: dist, ALMANAC_MIRROR: '' };
  const sources = items.map(({ source, files }) => {
    const inputs = { ...source.inputs };
    for (const [name, file] of Object.entries(files)) {
      const spec = inputs[name];
      if (spec?.kind !== 'url') throw new Error(`${source.id}: ${name} is not a url input`);
      const dest = cachedLocation(spec.url, env);
      mkdirSync(path.dirname(dest), { recursive: true });
      copyFileSync(file, dest);
      inputs[name] = { ...spec, sha256: createHash('sha256').update(readFileSync(file)).digest('hex') };
    }
    return { ...source, inputs };
  });
  const { reports } = await build({ env, sources, log: quiet });
  const srv = await startServer(dist);
  const key = srv.key();
  return {
    ...srv,
    reports,
    get: async (p: string) => {
      const res = await fetch(srv.base + p, { headers: { 'x-service-key': key } });
      return { status: res.status, body: await res.json() };
    },
    stop: async () => {
      await srv.close();
      cleanup(cache, dist, srv.stateDir);
    },
  };
}
