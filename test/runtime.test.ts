/**
 * Production without devDependencies (issue 12, "Runtime"; issue 28 item 5, "a production
 * install from a clone"): the deploy recipe of docs/operations.md, run as written. A bare
 * clone of the working tree (its tracked and unignored files: no lib/, no node_modules) is
 * installed with `npm ci --omit=dev` (install scripts on: better-sqlite3 builds, and
 * `prepare` compiles lib/ with the typescript dependency, transpiling only since
 * @types/node and the other devDependencies are absent); its JavaScript is the same byte
 * for byte as tsc's emit of the same sources with every type installed; every entry point
 * loads; a key made by
 * the compiled keys CLI reads a record from the documented `npm run serve`, which serves
 * the shared test release: /healthz, the docs page and a keyed record.
 * The install comes from npm's cache when it has the packages (--prefer-offline), else
 * from the registry (CI reaches it). better-sqlite3's native module is not compiled again:
 * its install script (prebuild-install) is given the project's own compiled module as a
 * local prebuild (`npm_config_better_sqlite3_local_prebuilds`), the way it would take a
 * downloaded one. Compiling it took ~80 s of this test's ~110 (issue 28: suite time), and
 * the compile itself is what `.ci/run`'s own `npm ci` in the fresh clone does.
 */
import { afterAll, describe, expect, inject, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { PROJECT_ROOT } from '../pipeline/paths.ts';
import { tempDir } from './helpers.ts';

const work = tempDir('almanac-runtime-');
// Asynchronously: the clone's node_modules is ~8,600 files, and a synchronous removal blocked
// the worker's event loop for ~20 s here (test/loop-watch.ts). `rm` unlinks the reference
// folder's node_modules link, never what it points to.
afterAll(() => rm(work, { recursive: true, force: true }));

/**
 * A folder holding the project's compiled better-sqlite3 as prebuild-install names and
 * packs a prebuilt binary (`<name>-v<version>-node-v<abi>-<platform>-<arch>.tar.gz`,
 * holding build/Release/better_sqlite3.node).
 */
function localPrebuilds(): string {
  const pkgDir = path.join(PROJECT_ROOT, 'node_modules', 'better-sqlite3');
  const { version } = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8')) as { version: string };
  const dir = path.join(work, 'prebuilds');
  mkdirSync(dir, { recursive: true });
  const tarball = path.join(dir, `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`);
  const tar = spawnSync('tar', ['-czf', tarball, '-C', pkgDir, 'build/Release/better_sqlite3.node'], { encoding: 'utf8' });
  if (tar.status !== 0) throw new Error(`packing the local prebuild failed: ${tar.stderr}`);
  return dir;
}

function run(cmd: string, args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    child.on('close', (code) => resolve({ code, out }));
  });
}

/** What a clone of the working tree holds: its tracked and unignored files, as they are now. */
function cloneTree(to: string): void {
  const ls = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: PROJECT_ROOT, encoding: 'utf8' });
  if (ls.status !== 0) throw new Error(`git ls-files failed (the test needs the project's git work tree): ${ls.stderr}`);
  for (const f of ls.stdout.split('\0').filter(Boolean)) {
    const from = path.join(PROJECT_ROOT, f);
    if (!existsSync(from)) continue; // deleted in the work tree, not yet committed
    mkdirSync(path.dirname(path.join(to, f)), { recursive: true });
    cpSync(from, path.join(to, f));
  }
}

/** Every file under dir (relative path → bytes), but lib/'s compile stamp. */
function files(dir: string, rel = ''): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const e of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const r = path.join(rel, e.name);
    if (e.isDirectory()) for (const [k, v] of files(dir, r)) out.set(k, v);
    else if (r !== '.compiled') out.set(r, readFileSync(path.join(dir, r)));
  }
  return out;
}

describe('running without devDependencies', () => {
  it('a bare clone installed with npm ci --omit=dev compiles its lib/ and serves a release with npm run serve', { timeout: 600_000 }, async () => {
    const pkg = path.join(work, 'clone');
    cloneTree(pkg);
    expect(existsSync(path.join(pkg, 'lib')), 'lib/ is generated, not in a clone').toBe(false);
    // The reference: tsc's emit for the same sources where the devDependencies and their types are
    // (the project's node_modules, only read through a link). Its exit code is not asserted: a
    // type error is `npm run typecheck`'s to report, and tsc emits all the same.
    const ref = path.join(work, 'checked');
    cloneTree(ref);
    symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), path.join(ref, 'node_modules'), 'dir');
    const tsc = path.join(ref, 'node_modules', '.bin', process.platform === 'win32' ? 'tsc.cmd' : 'tsc');
    const checked = await run(tsc, ['-p', 'tsconfig.build.json', '--outDir', 'lib'], { cwd: ref });
    expect(existsSync(path.join(ref, 'lib', 'server', 'cli', 'serve.js')), checked.out).toBe(true);

    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const install = await run(npm, ['ci', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: pkg, env: { npm_config_better_sqlite3_local_prebuilds: localPrebuilds() } });
    expect(install.code, install.out).toBe(0);
    // The native module is in place and works (the offline bundle writes SQLite through it).
    const sqlite = await run(process.execPath, ['-e', "console.log(new (require('better-sqlite3'))(':memory:').prepare('select 6 * 7 as x').get().x)"], { cwd: pkg });
    expect(sqlite.out.trim(), sqlite.out).toBe('42');
    // `prepare` compiled lib/ with the typescript dependency, without the devDependencies' types.
    expect(install.out).toMatch(/compile: lib\/ written in [\d.]+ s \(transpiled only/);
    expect(existsSync(path.join(pkg, 'node_modules', 'typescript')), 'typescript (a dependency)').toBe(true);
    for (const dev of ['tsx', 'vitest', '@types/node', 'miniflare']) expect(existsSync(path.join(pkg, 'node_modules', dev)), dev).toBe(false);
    // The transpile-only lib/ is the checked emit, byte for byte (the JavaScript; the JSON files are copies).
    const js = (dir: string) => new Map([...files(dir)].filter(([f]) => f.endsWith('.js')));
    const built = js(path.join(pkg, 'lib'));
    const reference = js(path.join(ref, 'lib'));
    expect(built.size).toBeGreaterThan(100);
    expect([...built.keys()].sort()).toEqual([...reference.keys()].sort());
    expect([...built].filter(([f, bytes]) => !bytes.equals(reference.get(f)!)).map(([f]) => f), 'files that differ from the checked emit').toEqual([]);

    // Every production entry point loads with production dependencies alone (start.ts runs
    // on import, so it is covered by its parts: fetch, build, serve).
    for (const entry of ['server/cli/build.js', 'pipeline/fetch-cli.js', 'pipeline/bundle.js', 'server/cli/review.js']) {
      const r = await run(process.execPath, ['--input-type=module', '-e', `await import(${JSON.stringify(path.join(pkg, 'lib', entry))})`], { cwd: pkg });
      expect(r.code, `${entry}: ${r.out}`).toBe(0);
    }

    // Issue 38, item 5: `npm run build` here (the recipe's step 2 once suggested it) made a
    // release of 1 dataset live and exited 0. It reads devDependencies: refused, nothing live.
    const fresh = path.join(work, 'serving-dist');
    const building = await run(npm, ['run', '-s', 'build', '--', '--no-downloads'], { cwd: pkg, env: { ALMANAC_DIST: fresh, ALMANAC_CACHE: path.join(work, 'serving-cache') } });
    expect(building.code, building.out).toBe(1);
    expect(building.out).toMatch(/^build failed, live release unchanged: not switching to this build: \d+ datasets cannot be built in this install or would be dropped or shrink .*\n  elements: npm package chemical-elements is not installed \(run npm install\)\n/m);
    expect(building.out).toMatch(/a serving install \(npm ci --omit=dev\) cannot build; run npm ci, or copy a built release with npm run release:pull/);
    expect(existsSync(path.join(fresh, 'current'))).toBe(false);

    const dist = inject('sharedDist') ?? process.env.ALMANAC_TEST_DIST!;
    const state = path.join(work, 'state');
    mkdirSync(state);
    const env = { ALMANAC_DIST: dist, ALMANAC_STATE_DIR: state, HOST: '127.0.0.1', PORT: '0' };
    const keyRun = await run(process.execPath, ['lib/server/cli/keys.js', 'create', '--plan', 'basic', '--label', 'runtime test'], { cwd: pkg, env });
    expect(keyRun.code, keyRun.out).toBe(0);
    const key = keyRun.out.trim().split('\n').pop()!.trim();

    // The documented command, `npm run serve` (compile --if-stale finds lib/ newer than every source and runs it).
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
