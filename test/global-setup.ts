/**
 * Builds one release from the real npm sources before all test files and shares its
 * folder with them (read-only): a build takes seconds, and five suites need one.
 */
import type { TestProject } from 'vitest/node';
import { buildRelease, cleanup } from './helpers.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    sharedDist: string;
  }
}

export default async function setup(project: TestProject) {
  const { dist, cache } = await buildRelease();
  project.provide('sharedDist', dist);
  return () => cleanup(dist, cache);
}
