/** Shared test plumbing: temp folders, a release built from the real npm sources, a real server on port 0. */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { build } from '../server/cli/build.ts';
import { PROJECT_ROOT } from '../pipeline/paths.ts';
import { createApp, type App } from '../server/node/server.ts';
import type { PlanName } from '../server/state/plans.ts';
import type { DatasetSource } from '../sources/contract.ts';

export function tempDir(prefix = 'almanac-test-'): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

export const quiet = () => {};

/**
 * Builds the real sources (npm inputs only need node_modules) into a fresh dist folder.
 * `workers: 1` adds the build's worker thread, as `npm run build` does on two cores.
 */
export async function buildRelease(env: NodeJS.ProcessEnv = {}, workers = 0) {
  const dist = env.ALMANAC_DIST ?? tempDir('almanac-dist-');
  const cache = env.ALMANAC_CACHE ?? tempDir('almanac-cache-');
  const result = await build({ env: { ...env, ALMANAC_DIST: dist, ALMANAC_CACHE: cache }, log: quiet, workers });
  return { ...result, dist, cache };
}

export interface Running {
  app: App;
  base: string;
  stateDir: string;
  key: (plan?: PlanName) => string;
  close: () => Promise<void>;
}

export async function startServer(dist: string, stateDir = tempDir('almanac-state-'), extraSources?: DatasetSource<any>[]): Promise<Running> {
  const app = createApp({ dist, stateDir, log: quiet, extraSources });
  await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
  const { port } = app.server.address() as AddressInfo;
  return {
    app,
    base: `http://127.0.0.1:${port}`,
    stateDir,
    key: (plan = 'development') => app.keys.create(plan, 'test').secret,
    close: () => app.close(),
  };
}

export function cleanup(...dirs: string[]) {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}

/**
 * The upstream mirror for tests that need real mirrored files: ALMANAC_MIRROR, else
 * ../shared/upstream beside the project. Undefined when neither exists; such tests skip
 * with the reason in their name (the project never needs ../shared to pass).
 */
export const MIRROR_ROOT: string | undefined = (() => {
  const candidates = [process.env.ALMANAC_MIRROR, path.resolve(PROJECT_ROOT, '..', 'shared', 'upstream')];
  return candidates.find((c): c is string => !!c && !/^https?:/.test(c) && existsSync(c));
})();
export const NEEDS_MIRROR = '(needs the upstream mirror: set ALMANAC_MIRROR or place ../shared/upstream)';

/**
 * A loopback HTTP server standing in for an upstream: `respond` maps each request
 * (method, path with query, body) to a status and body. Fetch tests use it so they
 * never touch the network. `requests` records what was asked, in order.
 */
export async function fakeUpstream(respond: (req: { method: string; url: string; body: string; headers: Record<string, string | string[] | undefined> }) => { status?: number; body: string | Buffer; type?: string; headers?: Record<string, string> }) {
  const { createServer } = await import('node:http');
  const requests: { method: string; url: string; body: string; headers: Record<string, string | string[] | undefined> }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const r = { method: req.method ?? 'GET', url: req.url ?? '/', body: Buffer.concat(chunks).toString('utf8'), headers: req.headers };
      requests.push(r);
      const out = respond(r);
      res.writeHead(out.status ?? 200, { 'content-type': out.type ?? 'application/json', ...out.headers });
      res.end(out.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * A PageGet (sources/contract.ts) that sends every request to `base` instead of the
 * upstream's origin, keeping host, path and query as <base>/<host><path>?<query> —
 * the same rewrite `npm run fetch` applies for an http(s) ALMANAC_MIRROR.
 */
export function loopbackGet(base: string) {
  return async (url: string, init: { method?: 'GET' | 'POST'; body?: string; headers?: Record<string, string> } = {}) => {
    const u = new URL(url);
    const res = await fetch(`${base}/${u.host}${u.pathname}${u.search}`, { method: init.method ?? 'GET', body: init.body, headers: init.headers });
    if (!res.ok) throw new Error(`HTTP ${res.status} from ${url}`);
    return Buffer.from(await res.arrayBuffer());
  };
}

/** Runs a project script through tsx in a child process (CLIs run concurrently, or killed). */
export const runTsx = (args: string[], env: Record<string, string>) =>
  new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ...args], { cwd: PROJECT_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('exit', (code) => resolve({ code, out, err }));
  });
