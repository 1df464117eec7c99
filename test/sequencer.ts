/**
 * The order test files start in (vitest.config.ts `sequence.sequencer`): the files whose
 * setup is long first, then vitest's own order. Vitest orders by the test time it cached
 * (setup hooks not counted) or, in a fresh clone, by file size, so the full build from the
 * fetched upstreams (mirror-build, ~100 s in its beforeAll, a small file) started last and
 * one worker waited ~50 s for it at the end (issue 28: suite time).
 */
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Longest first: wall time of each file with its hooks, in CI on 2026-11-26. */
export const HEAVY_FIRST = [
  'mirror-build.test.ts', 'edge.test.ts', 'pipeline.test.ts', 'redis.test.ts', 'alignment-evidence.test.ts', 'sqlite-bundle.test.ts',
  'search-binary.test.ts', 'aviation.test.ts', 'holidays.test.ts', 'runtime.test.ts', 'cluster.test.ts', 'cli-help.test.ts',
];

export default class HeavyFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const i = HEAVY_FIRST.indexOf(path.basename(f.moduleId));
      return i < 0 ? HEAVY_FIRST.length : i;
    };
    const sorted = await super.sort(files);
    return sorted.map((f, i) => ({ f, i })).sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i).map(({ f }) => f);
  }
}
