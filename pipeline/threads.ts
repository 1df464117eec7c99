/**
 * A worker thread running one of the pipeline's modules, from TypeScript (tsx) or
 * compiled alike: a worker does not inherit tsx's loader, so from a `.ts` module it
 * registers tsx before importing the worker's module; compiled, it loads the `.js` beside.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

export function moduleWorker(caller: string, module: string, workerData: unknown): Worker {
  if (!caller.endsWith('.ts')) return new Worker(new URL(`./${module}.js`, caller), { workerData });
  const tsx = JSON.stringify(tsxEsmApi(caller));
  const target = JSON.stringify(new URL(`./${module}.ts`, caller).href);
  return new Worker(`import(${tsx}).then((m) => { m.register(); return import(${target}); });`, { workerData, eval: true });
}

/**
 * The URL of tsx's ESM api. import.meta.resolve would say it, but vitest's module runner
 * (writeBundle runs inside tests) lacks it, and require.resolve gives the CommonJS build,
 * whose register() cannot be imported from ESM; so: tsx's package.json exports.
 */
function tsxEsmApi(caller: string): string {
  const pkg = createRequire(caller).resolve('tsx/package.json');
  const entry = (JSON.parse(readFileSync(pkg, 'utf8')) as { exports: Record<string, { import: { default: string } }> }).exports['./esm/api'].import.default;
  return pathToFileURL(path.join(path.dirname(pkg), entry)).href;
}
