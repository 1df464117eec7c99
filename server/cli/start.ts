/**
 * `npm start`: the newcomer's one command. Fetches missing inputs (skipping, with the
 * reason, what cannot be reached), builds when dist/ is missing or older than its
 * inputs, makes a development key on first run, prints it, and serves.
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fg from 'fast-glob';
import { serve } from './serve.ts';
import { KeyStore } from '../state/keys.ts';
import { devKey } from './dev-key.ts';
import { keysViaRedis } from './redis.ts';
import { connectState, keysDoc } from '../state/redis-state.ts';
import { ALL_SOURCES } from '../../sources/index.ts';
import { defaultWorkers } from '../../pipeline/build.ts';
import { SwitchRefused } from '../../pipeline/gate.ts';
import { build, buildHeapGrowth } from './build.ts';
import { parseCli } from '../../pipeline/cli.ts';
import { fetchAll } from '../../pipeline/fetch.ts';
import { PROJECT_ROOT, cacheDir, currentPointer, distDir, stateDir } from '../../pipeline/paths.ts';

/** Newest modification time among everything a build reads. */
function newestInput(env: NodeJS.ProcessEnv): number {
  const code = fg.sync(['sources/**/*.ts', 'pipeline/**/*.ts', 'server/**/*.ts', 'package-lock.json'], { cwd: PROJECT_ROOT, absolute: true });
  const cached = existsSync(cacheDir(env)) ? fg.sync('**/*', { cwd: cacheDir(env), absolute: true }) : [];
  return Math.max(0, ...[...code, ...cached].map((f) => statSync(f).mtimeMs));
}

/** ALMANAC_REDIS_URL: the same, with the keys document in Redis (README "Scale-out"). */
async function devKeyRedis(env: NodeJS.ProcessEnv): Promise<string> {
  const dir = stateDir(env);
  const file = path.join(dir, 'dev-key');
  if (existsSync(file)) {
    const secret = readFileSync(file, 'utf8').trim();
    const c = await connectState(env.ALMANAC_REDIS_URL!);
    const store = new KeyStore(dir, undefined, { external: true });
    store.adopt((await keysDoc(c).read()).doc);
    await c.close();
    const rec = store.verify(secret);
    if (rec && store.access(rec).ok) return secret;
  }
  const lines: string[] = [];
  if (await keysViaRedis(['create', '--plan', 'development', '--label', 'npm start development key'], env, (l) => lines.push(l))) throw new Error(lines.join('\n'));
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, lines.at(-1)! + '\n', { mode: 0o600 });
  return lines.at(-1)!;
}

parseCli('start', `usage: npm start
  fetches what is missing (ALMANAC_MIRROR=<folder> reads a mirror instead of the network), builds dist/ when it is
  missing or older than its inputs, makes and prints a development key on first run, and serves on HOST:PORT`, {});
const env = process.env;
await fetchAll(ALL_SOURCES, env);
const pointer = currentPointer(distDir(env));
if (!existsSync(pointer) || statSync(pointer).mtimeMs < newestInput(env)) {
  buildHeapGrowth(env);
  // The switch rules of every build (pipeline/gate.ts): a build that would drop or shrink a
  // live dataset is not made live; the live release, if any, is served as it is.
  await build({ env, workers: defaultWorkers(env), guard: {} }).catch((err: Error) => {
    if (!(err instanceof SwitchRefused) || !existsSync(pointer)) throw err;
    console.error(`build not made live, serving the live release: ${err.message}`);
  });
} else {
  console.log(`dist/ is up to date (release ${readFileSync(pointer, 'utf8').trim()})`);
}
const key = env.ALMANAC_REDIS_URL ? await devKeyRedis(env) : devKey(env);
const app = await serve(env).catch((err: Error) => {
  console.error(`cannot serve: ${err.message}`);
  process.exit(1);
});
const addr = app.server.address();
const port = typeof addr === 'object' && addr ? addr.port : env.PORT;
console.log(`development key (plan development): ${key}`);
console.log(`try: curl -H 'X-Service-Key: ${key}' http://${env.HOST ?? '127.0.0.1'}:${port}/apis/elements/Fe`);
