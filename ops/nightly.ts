/**
 * `npm run nightly` (issue 29): the whole night's work as one job a scheduler runs —
 * fetch (retries with backoff, a deadline per source, conditional requests to live
 * feeds), build with the quality gate (pipeline/gate.ts: a dataset that shrank too much,
 * went stale or fails validation is held back, the rest move on), the offline downloads,
 * switch `current` (atomic; a failure at any step leaves the live release as it was),
 * publish to the edge when ALMANAC_EDGE_URL and ALMANAC_EDGE_TOKEN are set, keep the last
 * N releases and prune the rest, and a report (pipeline/report.ts) of what changed.
 *
 * Idempotent: with unchanged inputs the build gives the live release again (a release id
 * is the hash of its files), so nothing is written and the report says "no change".
 *
 * Exit codes, for the scheduler: 0 every dataset moved on; 3 the release moved on with
 * datasets held back, carried forward or absent (the report says which and why); 1 the
 * night failed and the live release is unchanged; 2 bad arguments or another nightly
 * running.
 */
import type { DatasetSource } from '../sources/contract.ts';
import { ALL_SOURCES } from '../sources/index.ts';
import { defaultWorkers } from '../pipeline/build.ts';
import { isMain, parseCli } from '../pipeline/cli.ts';
import { fetchAll } from '../pipeline/fetch.ts';
import { DEFAULT_MAX_DROP } from '../pipeline/gate.ts';
import { distDir } from '../pipeline/paths.ts';
import { markdown, nightlyReport, readManifest, writeReport, type NightlyReport } from '../pipeline/report.ts';
import { readCurrent } from '../pipeline/writer.ts';
import { prunedText, type Pruned } from '../pipeline/prune.ts';
import { build, buildHeapGrowth, withDownloads } from '../server/cli/build.ts';
import { LockBusy } from '../server/state/lock.ts';
import { leaseLock, type Lease } from '../server/state/lease.ts';
import { publishRelease } from '../edge/publish.ts';
import path from 'node:path';
import { mkdirSync } from 'node:fs';

export const EXIT = { ok: 0, failed: 1, usage: 2, heldBack: 3 } as const;
export const DEFAULT_KEEP = 7;
/** The lock's lease (ALMANAC_NIGHTLY_LEASE_S): a lock not renewed for this long is stale, whatever host wrote it. */
export const DEFAULT_LEASE_S = 600;

export interface NightlyOptions {
  env?: NodeJS.ProcessEnv;
  sources?: DatasetSource<any>[];
  /** Releases kept, the live one included (default ALMANAC_NIGHTLY_KEEP, else 7). */
  keep?: number;
  /** Default ALMANAC_NIGHTLY_MAX_DROP, else 0.1. */
  maxDrop?: number;
  /** Datasets the gate's count and staleness rules let through this once. */
  accept?: string[];
  /** Skip the fetch (inputs already cached). */
  fetch?: boolean;
  downloads?: boolean;
  workers?: number;
  now?: () => number;
  log?: (line: string) => void;
  /** Release the lock and exit on SIGTERM, SIGINT and SIGHUP (the command line; not in tests). */
  signals?: boolean;
}

/** One night. Resolves to the report and the exit code; throws nothing (a failure is exit 1). */
export async function nightly(o: NightlyOptions = {}): Promise<{ code: number; report: NightlyReport | null; error?: string }> {
  const env = o.env ?? process.env;
  const log = o.log ?? ((l: string) => console.log(l));
  const now = o.now ?? Date.now;
  const dist = distDir(env);
  const started = now();
  const sources = o.sources ?? ALL_SOURCES;
  // A typo in --accept would let nothing through and say nothing (issue 40): refused.
  const unknown = (o.accept ?? []).filter((id) => !sources.some((s) => s.id === id));
  if (unknown.length) {
    return { code: EXIT.usage, report: null, error: `--accept: no dataset ${unknown.map((u) => `'${u}'`).join(', ')}; the datasets are ${sources.map((s) => s.id).join(', ')}` };
  }
  mkdirSync(dist, { recursive: true });
  let lock: Lease | undefined;
  const leaseMs = (envNumber(env.ALMANAC_NIGHTLY_LEASE_S) ?? DEFAULT_LEASE_S) * 1000;
  let phase = 'fetch';
  // The handlers come before the lock: a signal between the lock file's write and them
  // would end the process by the default action, leaving the lock behind (CI caught the
  // test's SIGTERM in that window once).
  const stop = o.signals ? onSignals((signal) => {
    lock?.release();
    log(`nightly: stopped by ${signal} ${lock ? `during the ${phase}` : 'before taking the lock'}; the live release is ${readCurrent(dist) ?? 'none'}; ${lock ? 'the lock is released' : 'no lock was taken'}`);
  }) : () => {};
  try {
    lock = leaseLock(path.join(dist, 'nightly.lock'), { leaseMs, log });
  } catch (err) {
    stop();
    if (err instanceof LockBusy) return { code: EXIT.usage, report: null, error: `another nightly is running: ${err.message}` };
    throw err;
  }
  const held = lock;
  /** Nothing goes live, is published or pruned once another nightly holds the lock (this one's lease lapsed). */
  const stillOurs = (what: string) => {
    if (!held.held()) throw new Error(`the nightly lock is no longer this run's (its lease of ${leaseMs / 1000} s lapsed and another run took it over): not ${what}`);
  };
  try {
    buildHeapGrowth(env);
    const fetched = o.fetch === false ? [] : await fetchAll(sources, env, log);
    phase = 'build';
    const before = readManifest(dist, readCurrent(dist));
    const keep = Math.max(1, o.keep ?? envNumber(env.ALMANAC_NIGHTLY_KEEP) ?? DEFAULT_KEEP);
    const downloads = o.downloads === false ? undefined : withDownloads(env, log);
    const result = await build({
      env, sources, log, workers: o.workers ?? (o.sources ? 0 : defaultWorkers(env)), keep: keep - 1,
      gate: { maxDrop: o.maxDrop ?? envNumber(env.ALMANAC_NIGHTLY_MAX_DROP) ?? DEFAULT_MAX_DROP, accept: o.accept ?? [], now: started },
      beforeLive: async (d, release) => {
        phase = 'downloads';
        await downloads?.(d, release);
        stillOurs('switching current');
        phase = 'switch';
      },
    });
    const after = readManifest(dist, result.release)!;
    if (env.ALMANAC_EDGE_URL && env.ALMANAC_EDGE_TOKEN) {
      phase = 'publish';
      stillOurs('publishing');
      await publishRelease({ url: env.ALMANAC_EDGE_URL, token: env.ALMANAC_EDGE_TOKEN, dist, id: result.release, log });
    }
    phase = 'report';
    const report = nightlyReport({ dist, before, after, builds: result.reports, started, now: now(), fetch: fetched });
    if (report.new_release) writeReport(dist, report);
    const { renewals, longestGapMs } = held.stats();
    log(`nightly: lock renewed ${renewals} times, longest gap ${(longestGapMs / 1000).toFixed(1)} s (lease ${leaseMs / 1000} s)`);
    summarise(report, log, result.pruned);
    return { code: report.outcome === 'ok' ? EXIT.ok : EXIT.heldBack, report };
  } catch (err) {
    const message = (err as Error).message;
    log(`nightly failed, the live release is unchanged: ${message}`);
    return { code: EXIT.failed, report: null, error: message };
  } finally {
    stop();
    held.release();
  }
}

/**
 * On SIGTERM (a cancelled GitHub run, `systemctl stop`), SIGINT or SIGHUP: `cleanup`, then
 * exit 128 + the signal's number. Returns the function that removes the handlers.
 */
function onSignals(cleanup: (signal: NodeJS.Signals) => void): () => void {
  const codes = { SIGTERM: 15, SIGINT: 2, SIGHUP: 1 } as const;
  const handlers = Object.entries(codes).map(([signal, n]) => {
    const h = () => {
      cleanup(signal as NodeJS.Signals);
      process.exit(128 + n);
    };
    process.once(signal, h);
    return [signal, h] as const;
  });
  return () => {
    for (const [signal, h] of handlers) process.off(signal, h);
  };
}

const envNumber = (v: string | undefined) => (v !== undefined && v !== '' && Number.isFinite(Number(v)) ? Number(v) : undefined);

function summarise(r: NightlyReport, log: (l: string) => void, pruned: Pruned) {
  const moved = r.datasets.filter((d) => d.status === 'built');
  // What pruning removed is said either way: a night with no change may still free gigabytes (--keep).
  const removed = pruned.releases.length ? `; pruned ${prunedText(pruned)}` : '';
  log(r.new_release
    ? `nightly: release ${r.release} is live (was ${r.previous ?? 'none'}); ${moved.length} datasets changed, ${r.datasets.filter((d) => d.status === 'unchanged').length} unchanged, ${r.held_back.length} held back / carried forward / absent${r.release_files.length ? `, ${r.release_files.length} release files changed (${r.release_files.slice(0, 3).join(', ')})` : ''}; report in dist/reports/${r.release}.md${removed}`
    : `nightly: no change — release ${r.release} is already live; no release written${removed}`);
  for (const d of moved) log(`  ${d.id}: +${d.added} -${d.removed} ~${d.changed} (${d.records} records)`);
  for (const d of r.datasets.filter((d) => d.reason)) log(`  ${d.id} ${d.status}: ${d.reason}`);
}

const USAGE = `usage: npm run nightly [-- --keep N] [--max-drop 0.1] [--accept <dataset>]... [--no-fetch] [--no-downloads] [--report]
  fetch, build with the quality gate, downloads, switch, publish (ALMANAC_EDGE_URL + ALMANAC_EDGE_TOKEN), prune to N releases (default ${DEFAULT_KEEP})
  --max-drop   largest fall in a dataset's record count let through (fraction, default ${DEFAULT_MAX_DROP})
  --accept     let this dataset through the count and staleness rules once (repeatable)
  --report     print the Markdown report
  exit: 0 all moved on, 3 some held back / carried forward / absent, 1 failed (live release unchanged), 2 usage or another nightly running`;

if (isMain(import.meta.url)) {
  const { values } = parseCli('nightly', USAGE, {
    keep: { type: 'string' }, 'max-drop': { type: 'string' }, accept: { type: 'string', multiple: true },
    'no-fetch': { type: 'boolean', default: false }, 'no-downloads': { type: 'boolean', default: false },
    report: { type: 'boolean', default: false },
  });
  const keep = values.keep === undefined ? undefined : Number(values.keep);
  const maxDrop = values['max-drop'] === undefined ? undefined : Number(values['max-drop']);
  if ((keep !== undefined && !(Number.isInteger(keep) && keep >= 1)) || (maxDrop !== undefined && !(maxDrop >= 0 && maxDrop <= 1))) {
    console.error(`nightly: ${keep !== undefined && !(Number.isInteger(keep) && keep >= 1) ? '--keep must be a whole number of at least 1' : '--max-drop must be a fraction from 0 to 1'}\n${USAGE}`);
    process.exit(EXIT.usage);
  }
  const { code, report, error } = await nightly({ keep, maxDrop, accept: values.accept, fetch: !values['no-fetch'], downloads: !values['no-downloads'], signals: true });
  if (error && code === EXIT.usage) console.error(error);
  if (values.report && report) console.log(markdown(report));
  process.exit(code);
}
