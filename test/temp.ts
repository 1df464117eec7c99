import { afterAll } from 'vitest';
import { cleanup, tempDir } from './helpers.ts';

/** A maker of temp folders for one test file; all of them are removed after its tests. */
export function tempDirs(prefix?: string): () => string {
  const made: string[] = [];
  afterAll(() => cleanup(...made));
  return () => {
    const d = tempDir(prefix);
    made.push(d);
    return d;
  };
}
