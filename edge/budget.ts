/**
 * One budget for every cache of a Worker isolate together (issue 39, item 3), out of the
 * 128 MB an isolate may use. (In its own module: whatever edge/worker.ts exports, workerd
 * takes for an entry point.)
 */
import type { Env } from './env.ts';

const MiB = 2 ** 20;
/** Default of ISOLATE_CACHE_MB: see cacheBudgets. */
export const ISOLATE_CACHE_MB = 48;

/**
 * ISOLATE_CACHE_MB (default 48): the shard cache (packs, key buckets, filter indexes,
 * search dictionaries) 5/8, composed bodies 1/8, their compressed forms kept by ETag 1/8
 * (the core bounds those by the bodies' budget), study panels 1/8. CACHE_MB,
 * RESPONSE_CACHE_MB and STUDY_CACHE_MB set a part on its own (tests turn caches off).
 * What else an isolate holds — the code, the manifest, the key index, the line starts of
 * packs read, the reads and answers under way — is measured by bench:edge (docs/edge.md).
 */
export function cacheBudgets(env: Env) {
  const total = Number(env.ISOLATE_CACHE_MB ?? ISOLATE_CACHE_MB) * MiB;
  const part = (v: string | undefined, share: number) => (v !== undefined ? Number(v) * MiB : Math.floor(total * share));
  return { shard: part(env.CACHE_MB, 5 / 8), responses: part(env.RESPONSE_CACHE_MB, 1 / 8), study: part(env.STUDY_CACHE_MB, 1 / 8) };
}
