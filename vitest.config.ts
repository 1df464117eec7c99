import { defineConfig } from 'vitest/config';
import HeavyFirst from './test/sequencer.ts';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // Names a test that blocks its worker for long (see the file for why it matters).
    setupFiles: ['test/loop-watch.ts'],
    // Generous deadlines, not speed targets: a test must pass on a busy machine (issue 28).
    testTimeout: 300_000,
    hookTimeout: 600_000,
    // Two cores: run files in parallel but keep it modest.
    maxWorkers: 2,
    // Files with long setup first, so the two workers finish together (test/sequencer.ts).
    sequence: { sequencer: HeavyFirst },
  },
});
