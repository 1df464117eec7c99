/**
 * `npm run serve`: serve the live release on HOST:PORT (defaults 127.0.0.1:8080).
 * `npm run serve -- --bundle <dir>` serves an extracted offline bundle instead (see
 * reader/index.ts), and `--open` turns keys and counting off (for local use only).
 */
import { parseArgs } from 'node:util';
import { isMain } from '../pipeline/cli.ts';
import { distDir, stateDir } from '../pipeline/paths.ts';
import type { Manifest } from '../pipeline/writer.ts';
import { readBundle } from '../reader/index.ts';
import { ALL_SOURCES } from '../sources/index.ts';
import { createApp } from './app.ts';
import { Release } from './release.ts';

/** An extracted bundle as a Release: its merged archive metadata is the manifest; datasets it lacks answer 503. */
export function bundleRelease(dir: string): Release {
  const b = readBundle(dir);
  const absent: Record<string, string> = {};
  for (const s of ALL_SOURCES) if (!b.datasets[s.id]) absent[s.id] = b.absent[s.id] ?? `not in this bundle (archives: ${b.archives.join(', ')})`;
  const manifest: Manifest = { release: b.release, pipeline_version: b.pipeline_version, files: b.files, datasets: b.datasets, absent };
  return new Release(b.root, undefined, { id: b.release, dir: b.root, manifest });
}

export async function serve(env: NodeJS.ProcessEnv = process.env, args: string[] = []) {
  const { values } = parseArgs({ args, options: { bundle: { type: 'string' }, open: { type: 'boolean', default: false } } });
  const app = createApp({
    dist: distDir(env), stateDir: stateDir(env), open: values.open,
    ...(values.bundle ? { release: bundleRelease(values.bundle) } : {}),
  });
  // Cold search indexes load before the first client arrives (README "Query rules").
  await app.release().warmSearch();
  const host = env.HOST ?? '127.0.0.1';
  const port = Number(env.PORT ?? 8080);
  await new Promise<void>((resolve) => app.server.listen(port, host, resolve));
  const addr = app.server.address();
  const bound = typeof addr === 'object' && addr ? addr.port : port;
  const what = values.bundle ? `bundle ${values.bundle} (release ${app.release().id})` : `release ${app.release().id}`;
  console.log(`serving ${what} on http://${host}:${bound}${values.open ? ' with no keys (--open)' : ` (state in ${stateDir(env)})`}`);
  const stop = () => app.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return app;
}

if (isMain(import.meta.url)) {
  serve(process.env, process.argv.slice(2)).catch((err) => {
    console.error(`cannot start: ${err.message}`);
    process.exit(1);
  });
}
