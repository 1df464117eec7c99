#!/usr/bin/env node
/**
 * `npm test [-- <vitest filters>]`: typecheck, the tests, then the closing line CI reads
 * ("N passed, N failed, N skipped", test/report.ts) — printed whether the tests passed or
 * not (issue 28: with `&&` a failing run never printed it). Exit: the first failure's code.
 */
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const bin = (pkg, file) => path.join(path.dirname(require.resolve(`${pkg}/package.json`)), file);
const run = (args) => spawnSync(process.execPath, args, { stdio: 'inherit' }).status ?? 1;

const USAGE = `usage: npm test [-- <file filters>] [-t <test name pattern>] [other options of vitest run]
  type-checks (tsc -p .), runs the suites (test/**/*.test.ts), then prints "N passed, N failed, N skipped"
  filters: parts of test file paths (npm test -- quota lifecycle); -t: only the tests whose names match
  every option of \`vitest run\` is accepted (npx vitest run --help lists them)`;
const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  console.log(USAGE);
  process.exit(0);
}
/**
 * vitest answers an option it does not know with a stack trace; check the options first
 * against the ones `vitest run --help` lists (asked only when an option is given).
 */
const given = args.filter((a) => /^-/.test(a));
if (given.length) {
  const help = spawnSync(process.execPath, [bin('vitest', 'vitest.mjs'), 'run', '--help'], { encoding: 'utf8' }).stdout;
  const camel = (name) => (name.startsWith('--') ? `--${name.slice(2).replace(/-([a-z])/g, (_, c) => c.toUpperCase())}` : name);
  const known = new Set([...help.matchAll(/^\s+(?:(-[a-zA-Z]), )?(--[a-zA-Z][\w-]*)/gm)].flatMap((m) => [m[1], camel(m[2])]).filter(Boolean));
  const unknown = given.find((a) => {
    const name = camel(a.split('=')[0].replace(/^--no-/, '--')).split('.')[0];
    return a !== '--' && !known.has(name);
  });
  if (unknown) {
    console.error(`npm test: Unknown option '${unknown.slice(0, 60)}'\n${USAGE}`);
    process.exit(2);
  }
}

const tsc = run([bin('typescript', 'bin/tsc'), '-p', '.']);
if (tsc !== 0) process.exit(tsc);
const results = '.cache/vitest-results.json';
rmSync(results, { force: true }); // never report a previous run's numbers
const tests = run([bin('vitest', 'vitest.mjs'), 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${results}`, ...args]);
const report = run(['--import', 'tsx', 'test/report.ts', results]);
process.exit(tests !== 0 ? tests : report);
