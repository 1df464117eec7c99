/**
 * Production without devDependencies (issue 12, "Runtime"): the package with its compiled
 * lib/ is copied into an empty folder, installed with `npm ci --omit=dev --ignore-scripts`
 * (no tsx, no typescript), and the compiled server serves the shared test release there:
 * /healthz, the docs page and a keyed record, with a key made by the compiled keys CLI.
 * The install comes from npm's cache when it has the packages (--prefer-offline), else
 * from the registry (CI reaches it).
 */
import { afterAll, describe, expect, inject, it } from 'vitest';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../pipeline/paths.ts';
import { cleanup, tempDir } from './helpers.ts';

const work = tempDir('almanac-runtime-');
afterAll(() => cleanup(work));

function run(cmd: string, args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    child.on('close', (code) => resolve({ code, out }));
  });
}

describe('running without devDependencies', () => {
  it('npm ci --omit=dev installs the package with lib/, and the compiled server serves a release', { timeout: 400_000 }, async () => {
    // lib/ as a deployment would ship it (compiled now when a source is newer).
    const compiled = await run(process.execPath, [path.join(PROJECT_ROOT, 'bin', 'compile.mjs'), '--if-stale'], { cwd: PROJECT_ROOT });
    expect(compiled.code, compiled.out).toBe(0);
    const pkg = path.join(work, 'pkg');
    mkdirSync(pkg);
    // bin/ too: every npm script runs bin/compile.mjs --if-stale first (issue 28: without it `npm run serve` failed).
    for (const f of ['package.json', 'package-lock.json', 'lib', 'bin']) cpSync(path.join(PROJECT_ROOT, f), path.join(pkg, f), { recursive: true });
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const install = await run(npm, ['ci', '--omit=dev', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: pkg });
    expect(install.code, install.out).toBe(0);
    for (const dev of ['tsx', 'typescript', 'vitest']) expect(existsSync(path.join(pkg, 'node_modules', dev)), dev).toBe(false);

    // Every production entry point loads with production dependencies alone (start.ts runs
    // on import, so it is covered by its parts: fetch, build, serve).
    for (const entry of ['server/cli/build.js', 'pipeline/fetch-cli.js', 'pipeline/bundle.js', 'server/cli/review.js']) {
      const r = await run(process.execPath, ['--input-type=module', '-e', `await import(${JSON.stringify(path.join(pkg, 'lib', entry))})`], { cwd: pkg });
      expect(r.code, `${entry}: ${r.out}`).toBe(0);
    }

    const dist = inject('sharedDist') ?? process.env.ALMANAC_TEST_DIST!;
    const state = path.join(work, 'state');
    mkdirSync(state);
    const env = { ALMANAC_DIST: dist, ALMANAC_STATE_DIR: state, HOST: '127.0.0.1', PORT: '0' };
    const keyRun = await run(process.execPath, ['lib/server/cli/keys.js', 'create', '--plan', 'basic', '--label', 'runtime test'], { cwd: pkg, env });
    expect(keyRun.code, keyRun.out).toBe(0);
    const key = keyRun.out.trim().split('\n').pop()!.trim();

    // The documented command, `npm run serve` (compile --if-stale finds no sources and no typescript: lib/ as shipped).
    const child = spawn(npm, ['run', '-s', 'serve'], { cwd: pkg, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    try {
      const base = await new Promise<string>((resolve, reject) => {
        let out = '';
        const timer = setTimeout(() => reject(new Error(`no "serving" line within 120 s: ${out}`)), 120_000);
        const onData = (c: Buffer) => {
          out += c;
          const m = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
          if (m) {
            clearTimeout(timer);
            resolve(m[1]);
          }
        };
        child.stdout.on('data', onData);
        child.stderr.on('data', onData);
        child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`)));
      });
      const health = await fetch(`${base}/healthz`);
      expect(health.status).toBe(200);
      expect((await health.json()).status).toBe('ok');
      expect((await fetch(`${base}/docs`)).status).toBe(200);
      const iron = await fetch(`${base}/apis/elements/Fe`, { headers: { 'x-service-key': key } });
      expect(iron.status).toBe(200);
      expect((await iron.json()).data.name).toBe('Iron');
    } finally {
      // npm, its shell and the server are one process group.
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch { /* already gone */ }
    }
  });
});
