/**
 * Issue 38 item 12: a long build in a test fails when it stalls, not when a loaded machine
 * makes it slow (test/fixture-release.ts watchStall); and the closing line of `npm test` (test/report.ts) counts the tests of a
 * file that failed outside its tests (a hook, an import) as failed, not skipped. The fixture
 * is vitest's own JSON report of three small files: a beforeAll that throws, a mix of
 * passed/failed/skipped, and an import that cannot be found.
 */
import { spawn, spawnSync } from 'node:child_process';
import { watchStall } from './fixture-release.ts';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../pipeline/paths.ts';

const report = (file: string) => spawnSync(process.execPath, ['--import', 'tsx', 'test/report.ts', file], { cwd: PROJECT_ROOT, encoding: 'utf8' });

describe('the closing line', () => {
  it('a file whose setup or import failed counts its tests (or itself) as failed, and names it', () => {
    const r = report('test/fixtures/report/vitest-results.json');
    const lines = r.stdout.trim().split('\n');
    expect(lines.at(-1)).toBe('1 passed, 5 failed, 1 skipped');
    expect(r.stdout).toMatch(/failed outside their tests: test\/broken-setup\.test\.ts \(3 tests not run\), test\/missing-import\.test\.ts \(no test ran: Cannot find module/);
    expect(r.status).toBe(1);
  });

  it('no results file, or none recorded: exit 1', () => {
    expect(report('test/fixtures/report/absent.json').status).toBe(1);
  });
});

describe('a build in a child: slow is not stalled', () => {
  const child = (code: string) => spawn(process.execPath, ['-e', code], { stdio: 'ignore' });
  const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('a child that keeps using CPU is left to run however long; one that uses none for the limit is killed', async () => {
    const busy = child('for (;;) {}');
    const idle = child('setTimeout(() => {}, 60000)');
    const kills: string[] = [];
    const w1 = watchStall(busy.pid!, 1500, () => kills.push('busy'), 200);
    const w2 = watchStall(idle.pid!, 1500, () => { kills.push('idle'); idle.kill('SIGKILL'); }, 200);
    try {
      await wait(6000);
      expect(kills).toEqual(['idle']);
      expect([w1.fired(), w2.fired()]).toEqual([false, true]);
    } finally {
      w1.stop();
      w2.stop();
      busy.kill('SIGKILL');
      idle.kill('SIGKILL');
    }
  });
});
