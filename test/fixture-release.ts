/**
 * Builds a release from fixture files standing in for a source's pinned upstream files:
 * each fixture is copied into a temp fetch cache at its input's URL path and the input's
 * sha256 is re-pinned to the fixture's, so the real normalise, validation, shards and
 * server run on small data. URL inputs without a fixture are dropped (the source must
 * cope, e.g. days absent from historical-events); npm inputs stay as they are.
 * `serveSources` serves such a release on port 0; `serveFixtures` does it keeping the
 * unlisted inputs.
 */
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { build } from '../server/cli/build.ts';
import { sha256 } from '../pipeline/inputs.ts';
import { cachedLocation } from '../pipeline/paths.ts';
import type { DatasetSource, InputSpec } from '../sources/contract.ts';
import { cleanup, quiet, startServer, tempDir, type Running } from './helpers.ts';
import { OpenApiChecker } from './openapi-check.ts';

export const FIXTURES = new URL('./fixtures/', import.meta.url).pathname;

export function fixtureSource<S extends DatasetSource<any>>(source: S, cache: string, files: Record<string, string>): S {
  return pinFixtures(source, cache, files, true);
}

/**
 * Copies each fixture (relative to test/fixtures, or absolute) to its input's cached URL
 * path and re-pins the sha256; URL inputs without a fixture are dropped or kept as they are.
 */
function pinFixtures<S extends DatasetSource<any>>(source: S, cache: string, files: Record<string, string>, dropUnlisted: boolean): S {
  const inputs: Record<string, InputSpec> = {};
  for (const [name, spec] of Object.entries(source.inputs)) {
    const file = files[name];
    if (spec.kind !== 'url' || !file) {
      if (spec.kind !== 'url' || !dropUnlisted) inputs[name] = spec;
      continue;
    }
    const from = path.resolve(FIXTURES, file);
    const to = cachedLocation(spec.url, { ALMANAC_CACHE: cache });
    mkdirSync(path.dirname(to), { recursive: true });
    copyFileSync(from, to);
    inputs[name] = { ...spec, sha256: sha256(readFileSync(from)) };
  }
  for (const name of Object.keys(files)) if (source.inputs[name]?.kind !== 'url') throw new Error(`${source.id}: ${name} is not a url input`);
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
export async function buildInChild(ids: string[] | 'all', env: Record<string, string | undefined>, opts: { workers?: number; downloads?: boolean; stallMs?: number } = {}): Promise<ChildBuild> {
  const { spawn } = await import('node:child_process');
  const { PROJECT_ROOT } = await import('../pipeline/paths.ts');
  const script = `import { build, withDownloads } from './server/cli/build.ts';
import { ALL_SOURCES } from './sources/index.ts';
const ids = ${JSON.stringify(ids)};
const sources = ids === 'all' ? ALL_SOURCES : ALL_SOURCES.filter((s) => ids.includes(s.id));
const env = ${JSON.stringify(env)};
const r = await build({ env, sources, log: () => {}, workers: ${opts.workers ?? 0}${opts.downloads ? ', beforeLive: withDownloads(env, () => {})' : ''} });
process.stdout.write(JSON.stringify({ release: r.release, absent: r.absent, reports: r.reports }));`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (err += c));
  const stalled = opts.stallMs ? watchStall(child.pid!, opts.stallMs, () => child.kill('SIGKILL')) : undefined;
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  stalled?.stop();
  if (stalled?.fired()) throw new Error(`build of ${ids === 'all' ? 'all sources' : ids.join(', ')} used no CPU for ${opts.stallMs! / 1000} s: stalled, killed. ${err.slice(-2000)}`);
  if (code !== 0) throw new Error(`build of ${ids === 'all' ? 'all sources' : ids.join(', ')} failed (exit ${code}): ${err.slice(-2000)}`);
  return JSON.parse(out);
}

export interface ChildBuild {
  release: string;
  absent: Record<string, string>;
  reports: { id: string; status: string; records: number; seconds: number; reason?: string }[];
}

export interface FixtureServer extends Running {
  dist: string;
  get: (p: string) => Promise<{ status: number; body: any }>;
  reports: Awaited<ReturnType<typeof build>>['reports'];
  stop: () => Promise<void>;
}

/** `files` maps each source's url inputs (by input name) to fixture files; other inputs stay. */
export async function serveFixtures(items: { source: DatasetSource<any>; files: Record<string, string> }[]): Promise<FixtureServer> {
  return serveSources((cache) => items.map(({ source, files }) => pinFixtures(source, cache, files, false)));
}

/**
 * Builds the sources `make` returns for a fresh fetch cache (usually fixtureSource calls)
 * and serves the release on port 0 with a key. With `openapi`, every answer of `get` is
 * also checked against the served OpenAPI document (what the route table declares).
 */
export async function serveSources(make: (cache: string) => DatasetSource<any>[], opts: { openapi?: boolean } = {}): Promise<FixtureServer> {
  const cache = tempDir('almanac-fx-cache-');
  const { dist, reports } = await fixtureRelease(make(cache), cache);
  const srv = await startServer(dist);
  const headers = { 'x-service-key': srv.key() };
  let checker: OpenApiChecker | undefined;
  return {
    ...srv,
    dist,
    reports,
    get: async (p: string) => {
      const res = await fetch(srv.base + p, { headers });
      const out = { status: res.status, body: await res.json() };
      if (opts.openapi) {
        checker ??= new OpenApiChecker(await (await fetch(`${srv.base}/apis/openapi.json`, { headers })).json());
        checker.check(p, out.status, out.body);
      }
      return out;
    },
    stop: async () => {
      await srv.close();
      cleanup(cache, dist, srv.stateDir);
    },
  };
}

/**
 * A child that is slow is not a child that is stuck (issue 38, item 12: the full mirror
 * build's fixed 600 s deadline failed on a loaded machine). Every 10 s the child's CPU time
 * (/proc/<pid>/stat, every thread) is read; `stallMs` without any is a stall and `kill` runs.
 * A busy machine slows the build down but it keeps using CPU; a hung one does not.
 */
export function watchStall(pid: number, stallMs: number, kill: () => void, everyMs = 10_000) {
  const cpu = () => {
    try {
      const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      return Number(f[11]) + Number(f[12]);
    } catch {
      return -1; // not Linux, or gone: no verdict
    }
  };
  let last = cpu(), since = Date.now(), fired = false;
  const timer = setInterval(() => {
    const now = cpu();
    if (now < 0 || now !== last) {
      last = now;
      since = Date.now();
    } else if (Date.now() - since >= stallMs) {
      fired = true;
      clearInterval(timer);
      kill();
    }
  }, everyMs);
  return { stop: () => clearInterval(timer), fired: () => fired };
}
