/**
 * Builds one release from the real npm sources before all test files and shares its
 * folder with them (read-only): a build takes seconds, and five suites need one.
 */
import type { TestProject } from 'vitest/node';
import { defaultWorkers } from '../pipeline/build.ts';
import { buildRelease, cleanup } from './helpers.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    sharedDist: string;
  }
}

export default async function setup(project: TestProject) {
  // Nothing else runs yet: the build's worker thread takes the second core (24 s → ~14 s here).
  const { dist, cache } = await buildRelease({}, defaultWorkers());
  project.provide('sharedDist', dist);
  return () => cleanup(dist, cache);
}
