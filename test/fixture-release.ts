/**
 * Builds a release from fixture files standing in for a source's pinned upstream files:
 * each fixture is copied into a temp fetch cache at its input's URL path and the input's
 * sha256 is re-pinned to the fixture's, so the real normalise, validation, shards and
 * server run on small data. URL inputs without a fixture are dropped (the source must
 * cope, e.g. days absent from historical-events); npm inputs stay as they are.
 * `serveFixtures` does the same with absolute fixture paths, keeps the other inputs, and
 * serves the release on port 0.
 */
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { build } from '../pipeline/build.ts';
import { sha256 } from '../pipeline/inputs.ts';
import { cachedLocation } from '../pipeline/paths.ts';
import type { DatasetSource, InputSpec } from '../sources/contract.ts';
import { cleanup, quiet, startServer, tempDir, type Running } from './helpers.ts';

export const FIXTURES = new URL('./fixtures/', import.meta.url).pathname;

export function fixtureSource<S extends DatasetSource<any>>(source: S, cache: string, files: Record<string, string>): S {
  const inputs: Record<string, InputSpec> = {};
  for (const [name, spec] of Object.entries(source.inputs)) {
    if (spec.kind !== 'url') {
      inputs[name] = spec;
      continue;
    }
    const file = files[name];
    if (!file) continue;
    const from = path.join(FIXTURES, file);
    const to = cachedLocation(spec.url, { ALMANAC_CACHE: cache });
    mkdirSync(path.dirname(to), { recursive: true });
    copyFileSync(from, to);
    inputs[name] = { ...spec, sha256: sha256(readFileSync(from)) };
  }
  return { ...source, inputs };
}

/** A release of the given (fixture) sources in a fresh dist folder. */
export async function fixtureRelease(sources: DatasetSource<any>[], cache: string) {
  const dist = tempDir('almanac-fixture-dist-');
  const result = await build({ env: { ALMANAC_DIST: dist, ALMANAC_CACHE: cache }, sources, log: quiet });
  return { ...result, dist };
}

/**
 * Builds the named sources of sources/index.ts (ids of ALL_SOURCES, or 'all') in a child
 * process with exactly `env`, so that a build of a large upstream (aviation: a minute of
 * synchronous work under load) never blocks the test worker's event loop long enough for
 * vitest's worker RPC to time out ("Timeout calling onTaskUpdate" fails the whole run).
 * `workers: 1` builds with the build's worker thread, as `npm run build` does.
 */
export async function buildInChild(ids: string[] | 'all', env: Record<string, string | undefined>, opts: { workers?: number } = {}): Promise<ChildBuild> {
  const { spawn } = await import('node:child_process');
  const { PROJECT_ROOT } = await import('../pipeline/paths.ts');
  const script = `import { build } from './pipeline/build.ts';
import { ALL_SOURCES } from './sources/index.ts';
const ids = ${JSON.stringify(ids)};
const sources = ids === 'all' ? ALL_SOURCES : ALL_SOURCES.filter((s) => ids.includes(s.id));
const r = await build({ env: ${JSON.stringify(env)}, sources, log: () => {}, workers: ${opts.workers ?? 0} });
process.stdout.write(JSON.stringify({ release: r.release, absent: r.absent, reports: r.reports }));`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (err += c));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`build of ${ids === 'all' ? 'all sources' : ids.join(', ')} failed (exit ${code}): ${err.slice(-2000)}`);
  return JSON.parse(out);
}

export interface ChildBuild {
  release: string;
  absent: Record<string, string>;
  reports: { id: string; status: string; records: number; seconds: number; reason?: string }[];
}

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
      inputs[name] = { ...spec, sha256: sha256(readFileSync(file)) };
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
