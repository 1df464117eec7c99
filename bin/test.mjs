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

const tsc = run([bin('typescript', 'bin/tsc'), '-p', '.']);
if (tsc !== 0) process.exit(tsc);
const results = '.cache/vitest-results.json';
rmSync(results, { force: true }); // never report a previous run's numbers
const tests = run([bin('vitest', 'vitest.mjs'), 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${results}`, ...process.argv.slice(2)]);
const report = run(['--import', 'tsx', 'test/report.ts', results]);
process.exit(tests !== 0 ? tests : report);
