/**
 * `npm run edge`: the Worker in workerd on this machine (Miniflare, from the npm registry:
 * no network), with its R2 bucket, KV namespace, Durable Objects and Cache API stored
 * under <state folder>/edge/. It bundles the Worker (edge/bundle.ts), publishes the live
 * release of dist/ to the local bucket and syncs the keys and reviews of the state folder
 * (the same operator endpoints a deployment uses), then keeps both current: a new release
 * in dist/ is published and switched to, a key created or revoked with `npm run keys` is
 * synced, within a second. The bindings come from edge/wrangler.jsonc.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Miniflare } from 'miniflare';
import { currentPointer, distDir, stateDir as defaultStateDir } from '../pipeline/paths.ts';
import { currentId } from '../server/release/fs-reader.ts';
import { bundleWorker, WORKER_BUNDLE } from './bundle.ts';
import { readWranglerConfig } from './config.ts';
import type { EdgeTarget } from '../server/cli/edge-push.ts';
import { publishRelease } from './publish.ts';
import { syncKeys, syncReviews } from './sync.ts';

export interface LocalEdge extends EdgeTarget {
  mf: Miniflare;
  close(): Promise<void>;
}

export interface LocalEdgeOptions {
  stateDir: string;
  dist?: string;
  host?: string;
  /** 0: any free port. */
  port?: number;
  /** Vars over wrangler.jsonc's (tests shrink the isolate caches). */
  vars?: Record<string, string>;
  /** Skip bundling when the bundle exists (tests bundle once). */
  bundled?: boolean;
  /** false: do not publish dist's live release at start (the caller publishes). */
  publish?: boolean;
  /** A port for workerd's V8 inspector (bench/edge.ts reads the isolate's heap through it). */
  inspectorPort?: number;
  log?: (m: string) => void;
}

/** The local operator token: made once, kept in the state folder beside the edge's storage. */
function adminToken(dir: string): string {
  const file = path.join(dir, 'admin-token');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const token = randomBytes(24).toString('base64url');
  writeFileSync(file, token + '\n', { mode: 0o600 });
  return token;
}

export async function startLocalEdge(o: LocalEdgeOptions): Promise<LocalEdge> {
  const log = o.log ?? ((m: string) => console.log(m));
  const dir = path.join(o.stateDir, 'edge');
  mkdirSync(dir, { recursive: true });
  if (!o.bundled || !existsSync(WORKER_BUNDLE)) await bundleWorker();
  const cfg = readWranglerConfig();
  const token = adminToken(dir);
  const mf = new Miniflare({
    name: cfg.name,
    modules: true,
    scriptPath: WORKER_BUNDLE,
    compatibilityDate: cfg.compatibility_date,
    compatibilityFlags: cfg.compatibility_flags,
    r2Buckets: cfg.r2_buckets.map((b) => b.binding),
    kvNamespaces: cfg.kv_namespaces.map((k) => k.binding),
    durableObjects: Object.fromEntries(cfg.durable_objects.bindings.map((d) => [d.name, { className: d.class_name, useSQLite: true }])),
    bindings: { ...cfg.vars, ...o.vars, ADMIN_TOKEN: token },
    r2Persist: path.join(dir, 'r2'),
    kvPersist: path.join(dir, 'kv'),
    durableObjectsPersist: path.join(dir, 'do'),
    cachePersist: path.join(dir, 'cache'),
    // Miniflare's own HTTP server (a random port, unused) re-encodes bodies and adds a
    // simulated Cloudflare front end; the Worker is served straight from workerd's socket,
    // so what a client receives is what the runtime sends.
    port: 0,
    ...(o.inspectorPort ? { inspectorPort: o.inspectorPort } : {}),
    unsafeDirectSockets: [{ host: o.host ?? '127.0.0.1', port: o.port ?? 8787, proxy: false }],
  });
  await mf.ready;
  const url = (await mf.unsafeGetDirectURL()).toString().replace(/\/$/, '');
  const edge: LocalEdge = { url, token, mf, close: () => mf.dispose() };
  const dist = o.dist ?? distDir();
  if (o.publish !== false && currentId(dist)) await publishRelease({ ...edge, dist, log });
  await syncKeys(edge, o.stateDir);
  await syncReviews(edge, o.stateDir);
  return edge;
}

/** Keeps the local edge current: publishes a new live release, syncs changed keys and reviews (a poll a second). */
export function follow(edge: LocalEdge, dist: string, dir: string, log: (m: string) => void): () => void {
  const stamp = (f: string) => (existsSync(f) ? `${statSync(f).mtimeMs}:${statSync(f).size}` : '');
  const files = { keys: path.join(dir, 'keys.json'), reviews: path.join(dir, 'reviews.json'), current: currentPointer(dist) };
  const seen = Object.fromEntries(Object.entries(files).map(([k, f]) => [k, stamp(f)])) as Record<keyof typeof files, string>;
  let busy = false;
  const timer = setInterval(async () => {
    if (busy) return;
    busy = true;
    try {
      for (const k of Object.keys(files) as (keyof typeof files)[]) {
        const now = stamp(files[k]);
        if (now === seen[k]) continue;
        seen[k] = now;
        if (k === 'keys') log(`keys changed: ${JSON.stringify(await syncKeys(edge, dir))}`);
        else if (k === 'reviews') log(`reviews changed: ${await syncReviews(edge, dir)} synced`);
        else await publishRelease({ ...edge, dist, log });
      }
    } catch (err) {
      log(`edge sync failed (retried in a second): ${(err as Error).message}`);
    } finally {
      busy = false;
    }
  }, 1000);
  return () => clearInterval(timer);
}

if (process.argv[1] && path.resolve(process.argv[1]).endsWith(path.join('edge', 'local.ts'))) {
  const { devKey } = await import('../server/cli/dev-key.ts');
  const dir = defaultStateDir();
  const dist = distDir();
  const edge = await startLocalEdge({ stateDir: dir, dist, port: Number(process.env.PORT ?? 8787), host: process.env.HOST });
  const key = devKey(process.env);
  await syncKeys(edge, dir);
  follow(edge, dist, dir, (m) => console.log(m));
  console.log(`edge: the Worker in workerd on ${edge.url} (R2, KV, Durable Objects and cache in ${path.join(dir, 'edge')})`);
  console.log(`development key (plan development): ${key}`);
  console.log(`try: curl -H 'X-Service-Key: ${key}' ${edge.url}/apis/elements/Fe`);
  const stop = () => edge.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
