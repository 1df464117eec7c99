/**
 * The server imports every source for its routes and never builds, so what only a build
 * needs must not load with it: the libraries below were 8.3 MiB (date-holidays with its
 * data) and 2.2 MiB (read-excel-file with its zip reader) of the server's heap, which every
 * full collection marks (issue 41; docs/benchmarks.md, "Cold study ranges, sixth pass").
 * Their ES imports are refused (refuse-import.mjs) while the server's modules load; the
 * build still reaches them (holidays through its CommonJS build, workbooks by a dynamic
 * import when one is read).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import source from '../sources/holidays.ts';
import { PROJECT_ROOT } from '../pipeline/paths.ts';

const BUILD_ONLY = ['date-holidays', 'read-excel-file'];
const fixtureText = readFileSync(new URL('./fixtures/holidays/holidays.json', import.meta.url), 'utf8');

describe('the server loads no build-only library', () => {
  it(`imports its route table and its Node server without ${BUILD_ONLY.join(' or ')}; a holidays build then loads date-holidays`, async () => {
    const script = `
      import { libraryLoaded } from './sources/holidays.ts';
      await import('./server/api/routes.ts');
      await import('./server/node/server.ts');
      const before = libraryLoaded();
      const { default: source } = await import('./sources/holidays.ts');
      const n = source.normalise({ holidays: JSON.parse(${JSON.stringify(fixtureText)}) }).length;
      process.stdout.write(JSON.stringify([before, libraryLoaded(), n]));`;
    const run = (refuse: string[]) => promisify(execFile)(process.execPath, ['--import', 'tsx', '--import', './test/refuse-import.mjs', '--input-type=module', '-e', script], {
      cwd: PROJECT_ROOT, encoding: 'utf8', env: { ...process.env, REFUSE_IMPORTS: refuse.join(',') },
    });
    const [before, after, n] = JSON.parse((await run(BUILD_ONLY)).stdout) as [boolean, boolean, number];
    expect(before).toBe(false);
    expect(after).toBe(true);
    expect(n).toBe(source.normalise({ holidays: JSON.parse(fixtureText) }).length);
    // The refusal itself works: a module that imports a refused package fails to load.
    await expect(promisify(execFile)(process.execPath, ['--import', './test/refuse-import.mjs', '--input-type=module', '-e', "await import('read-excel-file/node')"], {
      cwd: PROJECT_ROOT, env: { ...process.env, REFUSE_IMPORTS: 'read-excel-file' },
    })).rejects.toThrow(/refused import of read-excel-file\/node/);
  });
});
