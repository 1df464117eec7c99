/**
 * One CLI convention (issue 28): every command answers --help with its usage and exit 0,
 * and refuses an option it does not know with one line naming it, the usage and exit 2,
 * never a stack trace. Run through tsx from the sources (the same modules npm runs from lib/).
 */
import { describe, expect, it } from 'vitest';
import { runTsx, tempDir } from './helpers.ts';

const COMMANDS: [string, string][] = [
  ['start', 'server/cli/start.ts'], ['fetch', 'pipeline/fetch-cli.ts'], ['build', 'server/cli/build.ts'],
  ['nightly', 'ops/nightly.ts'], ['bundle', 'pipeline/bundle.ts'], ['serve', 'server/cli/serve.ts'],
  ['keys', 'server/cli/keys.ts'], ['review', 'server/cli/review.ts'], ['release:pull', 'pipeline/release-pull.ts'],
  ['edge:sync', 'edge/sync.ts'], ['release:publish', 'edge/publish.ts'],
];

describe('every command', () => {
  // Sandboxed folders: --help must not need (or touch) a real dist, cache or state.
  const env = () => ({ ALMANAC_DIST: tempDir(), ALMANAC_CACHE: tempDir(), ALMANAC_STATE_DIR: tempDir(), ALMANAC_MIRROR: tempDir() });

  it.each(COMMANDS)('%s answers --help with its usage, exit 0', async (name, file) => {
    const r = await runTsx([file, '--help'], env());
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(new RegExp(`^usage: .*npm (run )?${name === 'start' ? 'start' : name.replace(':', ':')}`, 'm'));
    expect(r.err).not.toMatch(/\n\s+at /);
  }, 300_000);

  it.each(COMMANDS)('%s refuses an unknown option naming it, with the usage, exit 2, no stack trace', async (name, file) => {
    const r = await runTsx([file, '--bogus-option'], env());
    expect(r.code, r.out + r.err).toBe(2);
    expect(r.err + r.out).toMatch(/Unknown option '--bogus-option'/);
    expect(r.err + r.out).toMatch(/usage: /);
    expect(r.err).not.toMatch(/\n\s+at /);
  }, 300_000);
});

describe('a user error at start', () => {
  it('a port in use is one line naming the port and the fix, exit 1, no stack trace', async () => {
    const { createServer } = await import('node:net');
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    const port = String((busy.address() as { port: number }).port);
    try {
      const { inject } = await import('vitest');
      const r = await runTsx(['server/cli/serve.ts'], { ALMANAC_DIST: inject('sharedDist'), ALMANAC_STATE_DIR: tempDir(), PORT: port, HOST: '127.0.0.1' });
      expect(r.code).toBe(1);
      expect(r.err).toMatch(new RegExp(`^cannot start: 127\\.0\\.0\\.1:${port} is already in use \\(another server\\?\\): stop it, or set PORT`));
      expect(r.err).not.toMatch(/\n\s+at /);
    } finally {
      await new Promise<void>((r) => busy.close(() => r()));
    }
  }, 300_000);
});
