/**
 * One CLI convention (issue 28): every command answers --help with its usage and exit 0,
 * and refuses an option it does not know with one line naming it, the usage and exit 2,
 * never a stack trace. Run as npm runs them: the compiled modules in lib/ with plain node
 * (compiled first when a source is newer). Through tsx each start cost ~0.7 s of CPU,
 * 23 of them ~17 s of the suite (issue 28: suite time).
 */
import { spawn, spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../pipeline/paths.ts';
import { tempDir } from './helpers.ts';

beforeAll(() => {
  const r = spawnSync(process.execPath, ['bin/compile.mjs', '--if-stale'], { cwd: PROJECT_ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`compiling lib/ failed: ${r.stderr}`);
}, 300_000);

/** Runs a command's compiled module (`server/cli/serve.ts` → lib/server/cli/serve.js) with node. */
const runLib = (args: string[], env: Record<string, string>) =>
  new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    const [file, ...rest] = args;
    const child = spawn(process.execPath, [path.join('lib', file.replace(/\.ts$/, '.js')), ...rest], { cwd: PROJECT_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('exit', (code) => resolve({ code, out, err }));
  });

const COMMANDS: [string, string][] = [
  ['start', 'server/cli/start.ts'], ['fetch', 'pipeline/fetch-cli.ts'], ['build', 'server/cli/build.ts'],
  ['nightly', 'ops/nightly.ts'], ['bundle', 'pipeline/bundle.ts'], ['serve', 'server/cli/serve.ts'],
  ['keys', 'server/cli/keys.ts'], ['review', 'server/cli/review.ts'], ['release:pull', 'pipeline/release-pull.ts'],
  ['edge:sync', 'edge/sync.ts'], ['release:publish', 'edge/publish.ts'], ['versification:check', 'pipeline/versification-check.ts'],
];

describe('every command', () => {
  // Sandboxed folders: --help must not need (or touch) a real dist, cache or state.
  const env = () => ({ ALMANAC_DIST: tempDir(), ALMANAC_CACHE: tempDir(), ALMANAC_STATE_DIR: tempDir(), ALMANAC_MIRROR: tempDir() });

  it.each(COMMANDS)('%s answers --help with its usage, exit 0', async (name, file) => {
    const r = await runLib([file, '--help'], env());
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(new RegExp(`^usage: .*npm (run )?${name === 'start' ? 'start' : name.replace(':', ':')}`, 'm'));
    expect(r.err).not.toMatch(/\n\s+at /);
  }, 300_000);

  it.each(COMMANDS)('%s refuses an unknown option naming it, with the usage, exit 2, no stack trace', async (name, file) => {
    const r = await runLib([file, '--bogus-option'], env());
    expect(r.code, r.out + r.err).toBe(2);
    expect(r.err + r.out).toMatch(/Unknown option '--bogus-option'/);
    expect(r.err + r.out).toMatch(/usage: /);
    expect(r.err).not.toMatch(/\n\s+at /);
  }, 300_000);
});

describe('issue 38 item 10: npm run compile and npm test answer --help too', () => {
  const node = (args: string[]) => spawnSync(process.execPath, args, { cwd: PROJECT_ROOT, encoding: 'utf8' });
  const stamp = path.join(PROJECT_ROOT, 'lib', '.compiled');

  it('compile --help prints its usage and compiles nothing (lib/ untouched, even under a running server); an unknown option is refused, exit 2', () => {
    const before = statSync(stamp).mtimeMs;
    const help = node(['bin/compile.mjs', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^usage: npm run compile/m);
    expect(statSync(stamp).mtimeMs).toBe(before);
    const bad = node(['bin/compile.mjs', '--bogus']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/Unknown option '--bogus'\nusage: npm run compile/);
    expect(statSync(stamp).mtimeMs).toBe(before);
  });

  it('npm test -- --help prints its usage; an unknown option is one line and the usage, exit 2, no stack trace (checked before the type check runs)', () => {
    const help = node(['bin/test.mjs', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^usage: npm test/m);
    for (const bad of ['--bogus', '-Z', '--no-such-thing=1']) {
      const r = node(['bin/test.mjs', bad]);
      expect(r.status, bad).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`^npm test: Unknown option '${bad}'\nusage: npm test`));
      expect(r.stderr + r.stdout).not.toMatch(/\n\s+at /);
    }
  });
});

describe('a user error at start', () => {
  it('a port in use is one line naming the port and the fix, exit 1, no stack trace', async () => {
    const { createServer } = await import('node:net');
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    const port = String((busy.address() as { port: number }).port);
    try {
      const { inject } = await import('vitest');
      const r = await runLib(['server/cli/serve.ts'], { ALMANAC_DIST: inject('sharedDist'), ALMANAC_STATE_DIR: tempDir(), PORT: port, HOST: '127.0.0.1' });
      expect(r.code).toBe(1);
      expect(r.err).toMatch(new RegExp(`^cannot start: 127\\.0\\.0\\.1:${port} is already in use \\(another server\\?\\): stop it, or set PORT`));
      expect(r.err).not.toMatch(/\n\s+at /);
    } finally {
      await new Promise<void>((r) => busy.close(() => r()));
    }
  }, 300_000);
  it('a malformed ALMANAC_STUDY_WARM_PASSES is one line naming the variable, exit 1, before anything listens', async () => {
    const { inject } = await import('vitest');
    const r = await runLib(['server/cli/serve.ts'], { ALMANAC_DIST: inject('sharedDist'), ALMANAC_STATE_DIR: tempDir(), PORT: '0', ALMANAC_STUDY_WARM_PASSES: '99' });
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^cannot start: ALMANAC_STUDY_WARM_PASSES must be a whole number from 0 to 50 \(got "99"\)/);
    expect(r.err).not.toMatch(/\n\s+at /);
    expect(r.out).not.toMatch(/serving release/);
  }, 300_000);
});
