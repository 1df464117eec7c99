/**
 * Prints vitest's JSON results as the plain closing line CI reads ("N passed, N failed,
 * N skipped"), since vitest's own summary is not a format CI recognises. Exits non-zero
 * when the results file is missing or records no test, so "ran nothing" cannot pass.
 *
 * A file that failed outside its tests (a beforeAll that threw, an import that failed)
 * reports its tests as skipped and none as failed; they were not run because of a failure,
 * so they count as failed here (issue 38, item 12), a file with no test at all as one, and
 * such files are named on the line before the closing one.
 */
import { existsSync, readFileSync } from 'node:fs';

interface FileResult { name: string; status: string; message?: string; assertionResults: { status: string }[] }

const file = process.argv[2] ?? '.cache/vitest-results.json';
if (!existsSync(file)) {
  console.error(`no test results at ${file}`);
  process.exit(1);
}
const r = JSON.parse(readFileSync(file, 'utf8'));
let passed = 0, failed = 0, skipped = 0;
const outside: string[] = [];
for (const f of r.testResults as FileResult[]) {
  const tests = f.assertionResults;
  const own = tests.filter((t) => t.status === 'failed').length;
  passed += tests.filter((t) => t.status === 'passed').length;
  if (f.status === 'failed' && own === 0) {
    const notRun = tests.filter((t) => t.status !== 'passed').length;
    failed += Math.max(1, notRun);
    outside.push(`${f.name} (${notRun ? `${notRun} test${notRun > 1 ? 's' : ''} not run` : `no test ran${f.message ? `: ${f.message.split('\n')[0].slice(0, 120)}` : ''}`})`);
    continue;
  }
  failed += own;
  skipped += tests.filter((t) => t.status === 'skipped' || t.status === 'pending' || t.status === 'todo').length;
}
if (outside.length) console.log(`failed outside their tests: ${outside.join(', ')}`);
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(r.numTotalTests > 0 && failed === 0 && r.success ? 0 : 1);
