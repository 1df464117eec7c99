/**
 * Prints vitest's JSON results as the plain closing line CI reads ("N passed, N failed,
 * N skipped"), since vitest's own summary is not a format CI recognises. Exits non-zero
 * when the results file is missing or records no test, so "ran nothing" cannot pass.
 */
import { existsSync, readFileSync } from 'node:fs';

const file = process.argv[2] ?? '.cache/vitest-results.json';
if (!existsSync(file)) {
  console.error(`no test results at ${file}`);
  process.exit(1);
}
const r = JSON.parse(readFileSync(file, 'utf8'));
const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped`);
process.exit(r.numTotalTests > 0 && r.numFailedTests === 0 && r.success ? 0 : 1);
