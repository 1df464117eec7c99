/**
 * `npm run fetch`: the only stage that touches the network. Downloads every URL input
 * of every source into the cache (<cache>/<host>/<path>) and verifies its sha256.
 * ALMANAC_MIRROR (a folder or an http(s) base URL laid out as <host>/<path>) replaces
 * every upstream origin. An input that cannot be had is reported with its reason and
 * skipped; the build will then mark its dataset absent.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { DatasetSource } from '../sources/contract.ts';
import { sha256 } from './inputs.ts';
import { cachedLocation, mirrorLocation } from './paths.ts';

export const USER_AGENT = 'almanac-data-build/0.1 (reference-data pipeline; contact: see README)';

export interface FetchOutcome {
  dataset: string;
  url: string;
  status: 'cached' | 'fetched' | 'failed';
  reason?: string;
}

async function download(location: string): Promise<Buffer> {
  if (!/^https?:\/\//.test(location)) {
    if (!existsSync(location)) throw new Error(`not in mirror (${location})`);
    return readFileSync(location);
  }
  const res = await fetch(location, { headers: { 'user-agent': USER_AGENT }, signal: AbortSignal.timeout(60_000) });
  if (!res.ok) throw new Error(`HTTP ${res.status} from ${location}`);
  return Buffer.from(await res.arrayBuffer());
}

/** Fetch one pinned URL into the cache; never leaves a partial or unverified file behind. */
export async function fetchOne(url: string, expected: string, env: NodeJS.ProcessEnv = process.env) {
  const dest = cachedLocation(url, env);
  if (existsSync(dest) && sha256(readFileSync(dest)) === expected) return 'cached' as const;
  const mirror = env.ALMANAC_MIRROR;
  const location = mirror ? mirrorLocation(url, mirror) : url;
  const body = await download(location);
  const got = sha256(body);
  if (got !== expected) throw new Error(`sha256 mismatch for ${url}: got ${got}, pinned ${expected}`);
  mkdirSync(path.dirname(dest), { recursive: true });
  const tmp = `${dest}.part-${process.pid}`;
  try {
    writeFileSync(tmp, body);
    renameSync(tmp, dest);
  } finally {
    rmSync(tmp, { force: true });
  }
  return 'fetched' as const;
}

export async function fetchAll(sources: DatasetSource<any>[], env: NodeJS.ProcessEnv = process.env, log = console.log) {
  const outcomes: FetchOutcome[] = [];
  for (const source of sources) {
    for (const spec of Object.values(source.inputs)) {
      if (spec.kind !== 'url') continue;
      try {
        const status = await fetchOne(spec.url, spec.sha256, env);
        outcomes.push({ dataset: source.id, url: spec.url, status });
      } catch (err) {
        const reason = (err as Error).message;
        outcomes.push({ dataset: source.id, url: spec.url, status: 'failed', reason });
        log(`fetch: ${source.id}: skipped ${spec.url}: ${reason}`);
      }
    }
  }
  return outcomes;
}
