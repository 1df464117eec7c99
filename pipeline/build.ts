/**
 * `npm run build`: sources → dist/, offline and deterministic.
 *
 * Per dataset: resolve inputs (npm deps or the fetch cache), normalise, validate every
 * record (a bad one fails the whole build), order, generate shards. A dataset whose
 * input cannot be had is skipped with its reason; if the live release has it, its files
 * are carried forward unchanged (marked so in the manifest), so a failed upstream
 * never empties a dataset that was served yesterday.
 *
 * With `workers: 1` a worker thread builds the datasets no link check involves beside the
 * main thread (pipeline/build-worker.ts): the build uses both cores. The release is the
 * same either way (the manifest lists datasets in source order; tested).
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { moduleWorker } from './threads.ts';
import path from 'node:path';
import type { DatasetSource } from '../sources/contract.ts';
import { ALL_SOURCES } from '../sources/index.ts';
import { InputUnavailable } from './inputs.ts';
import { buildDataset } from './dataset-build.ts';
import type { WorkerReply } from './build-worker.ts';
import { LICENCES, MANIFEST, aliasKey, distDir, isDatasetFile, releaseDir } from './paths.ts';
import type { DatasetInfo, OutFile } from './shards.ts';
import { InvalidRecord } from './validate.ts';
import { ReleaseWriter, readCurrent, switchCurrent, type Manifest } from './writer.ts';
import { pruneReleases, prunedText } from './prune.ts';
import { SwitchRefused, datasetChanged, heldBack, holdBackReason, switchRefusals, uninstalledRefusals, type GateOptions, type GatedInfo } from './gate.ts';

/** Bump when the shard layout or record envelopes change (0.3.0: stems in search indexes, manifest search_stem). */
export const PIPELINE_VERSION = '0.3.0';

export interface DatasetReport {
  id: string;
  status: 'built' | 'carried-forward' | 'held-back' | 'absent';
  records: number;
  files: number;
  bytes: number;
  seconds: number;
  reason?: string;
}

export interface BuildOptions {
  env?: NodeJS.ProcessEnv;
  sources?: DatasetSource<any>[];
  log?: (line: string) => void;
  /**
   * Worker threads building datasets beside the main thread (0 or 1; `npm run build` and
   * `npm start` use 1 on a machine with two cores or more, ALMANAC_BUILD_WORKERS=0 turns it
   * off). Only for the real sources (the worker loads them by id).
   */
  workers?: number;
  /**
   * Files written from the release as built so far (its folder and a preview manifest):
   * the OpenAPI documents and the docs page, which only the server's route table can
   * describe. `npm run build` is server/cli/build.ts, which passes them; a build without
   * them makes a release that serves data but no /apis/openapi.json.
   */
  documents?: (preview: { dir: string; manifest: Manifest }) => Promise<OutFile[]>;
  /**
   * Work on the complete release before it goes live (its downloads: pipeline/bundle.ts).
   * If it fails the build fails and `current` stays where it was.
   */
  beforeLive?: (dist: string, release: string) => Promise<void>;
  /**
   * The nightly's quality gate (pipeline/gate.ts): a changed dataset that shrank too much,
   * whose live feed is stale, or whose records fail validation is held back (the live
   * version carried, marked `held_back`) instead of replacing the live one or failing the build.
   */
  gate?: GateOptions;
  /**
   * The gate's switch rules alone, for a build that is not the nightly's (`npm run build`,
   * `npm start`): a build that would drop a live dataset, shrink one by more than maxDrop, or
   * lack one for want of an installed npm package is not switched to (SwitchRefused). The
   * nightly's `gate` implies them.
   */
  guard?: GateOptions;
  /** Releases kept besides the live one (default 2). */
  keep?: number;
}

/** Workers for a command-line build: one where there is a second core. */
export const defaultWorkers = (env: NodeJS.ProcessEnv = process.env) =>
  env.ALMANAC_BUILD_WORKERS !== undefined ? Number(env.ALMANAC_BUILD_WORKERS) : availableParallelism() > 1 ? 1 : 0;

function previousRelease(dist: string): { dir: string; manifest: Manifest } | null {
  const id = readCurrent(dist);
  if (!id) return null;
  try {
    const dir = releaseDir(dist, id);
    return { dir, manifest: JSON.parse(readFileSync(path.join(dir, MANIFEST), 'utf8')) };
  } catch {
    return null;
  }
}

export async function build(opts: BuildOptions = {}) {
  const env = opts.env ?? process.env;
  const log = opts.log ?? ((l: string) => console.log(l));
  const sources = opts.sources ?? ALL_SOURCES;
  const dist = distDir(env);
  const prev = previousRelease(dist);
  const started = performance.now();

  // The gate's switch rules (gate.ts): what this install can never build is refused before any work.
  const guard = opts.gate ?? opts.guard;
  const uninstalled = guard ? uninstalledRefusals(sources, prev?.manifest ?? null, guard) : [];
  if (uninstalled.length) throw new SwitchRefused(uninstalled);

  const writer = new ReleaseWriter(dist);
  const datasets: Record<string, GatedInfo> = {};
  const absent: Record<string, string> = {};
  const unfetched: string[] = [];
  const reports: DatasetReport[] = [];
  const built = new Map<string, { records: { id: string }[]; keys: Map<string, number> }>();
  const linkTargets = new Set(sources.flatMap((s) => (s.links ?? []).map((l) => l.dataset)));
  let bytes = 0;
  const add = (f: OutFile) => {
    bytes += f.content.length;
    writer.add(f);
  };

  type Outcome = { info: DatasetInfo; files: number; bytes: number; seconds: number } | { unavailable: string; seconds: number } | { invalid: string; seconds: number };
  const outcomes = new Map<string, Outcome>();
  const logLine = (r: DatasetReport) => log(`${r.id.padEnd(14)} ${r.status.padEnd(15)} ${String(r.records).padStart(8)} records ${String(r.files).padStart(5)} files ${kib(r.bytes).padStart(10)} ${r.seconds.toFixed(2).padStart(7)} s${r.reason ? `  (${r.reason})` : ''}`);
  const builtLine = (id: string, o: Outcome) => 'info' in o && logLine({ id, status: 'built', records: o.info.records, files: o.files, bytes: o.bytes, seconds: o.seconds });
  let failed = false;

  /** One dataset on this thread. */
  async function here(source: DatasetSource<any>) {
    // A macrotask turn between datasets: awaits of settled promises alone never let
    // timers and I/O run (nor the worker's replies be handled), so an in-process build
    // would hold its event loop for minutes.
    await new Promise((resolve) => setImmediate(resolve));
    if (failed) return;
    const t0 = performance.now();
    const step = (what: string) => process.stdout.isTTY && process.stdout.write(`\r\x1b[K${source.id}: ${what}`);
    const before = { files: writer.files, bytes };
    try {
      const keep = { records: !!source.links?.length, keys: linkTargets.has(source.id) };
      const b = await buildDataset(source, env, add, keep, step);
      if (keep.records || keep.keys) built.set(source.id, { records: b.records, keys: b.keys });
      outcomes.set(source.id, { info: b.info, files: writer.files - before.files, bytes: bytes - before.bytes, seconds: (performance.now() - t0) / 1000 });
    } catch (err) {
      const seconds = (performance.now() - t0) / 1000;
      if (err instanceof InputUnavailable) outcomes.set(source.id, { unavailable: err.message, seconds });
      else if (opts.gate) outcomes.set(source.id, { invalid: failure(err), seconds });
      else throw err;
    }
    if (process.stdout.isTTY) process.stdout.write('\r\x1b[K');
    builtLine(source.id, outcomes.get(source.id)!);
  }

  try {
    // With a worker, datasets that no link check involves are shared between this thread
    // and the worker (first come, first served, in source order); the rest stay here.
    const workers = Math.min(opts.workers ?? 0, 1);
    const shareable = workers && sources.every((s) => ALL_SOURCES.includes(s))
      ? sources.filter((s) => !s.links?.length && !linkTargets.has(s.id)) : [];
    // Slow ones first (DatasetSource.slow), else source order.
    const queue = [...shareable].sort((a, b) => Number(!!b.slow) - Number(!!a.slow));
    const mine = sources.filter((s) => !shareable.includes(s));
    const worker = queue.length ? startWorker(writer.dir, env) : null;
    const viaWorker = async () => {
      if (!worker) return;
      const send = () => {
        const s = queue.shift();
        const p = s && worker.run(s.id).then((r) => {
          if ('unavailable' in r) return void outcomes.set(r.id, { unavailable: r.unavailable, seconds: 0 });
          if (opts.gate && ('invalid' in r || 'error' in r)) return void outcomes.set(r.id, { invalid: 'invalid' in r ? `validation: ${r.invalid}` : `build error: ${r.error.split('\n')[0]}`, seconds: 0 });
          if ('invalid' in r) throw new InvalidRecord(r.invalid);
          if ('error' in r) throw new Error(`worker: source ${r.id}: ${r.error}`);
          for (const [p, e] of r.built.entries) writer.addWritten(p, e);
          bytes += r.built.bytes;
          const o = { info: r.built.info as DatasetInfo, files: r.built.entries.length, bytes: r.built.bytes, seconds: r.built.seconds };
          outcomes.set(r.id, o);
          builtLine(r.id, o);
        });
        p?.catch(() => {}); // the one queued ahead may fail while the first is awaited; it is awaited in turn
        return p;
      };
      // One queued ahead, so the worker goes on while this thread is busy with a dataset.
      let [a, b] = [send(), send()];
      while (a) {
        await a;
        [a, b] = [b, failed ? undefined : send()];
      }
    };
    const onThisThread = async () => {
      for (const source of mine) await here(source);
      for (let s = queue.shift(); s && !failed; s = queue.shift()) await here(s);
    };
    const settled = await Promise.allSettled([onThisThread().catch((e) => { failed = true; throw e; }), viaWorker().catch((e) => { failed = true; throw e; })]);
    await worker?.stop();
    const failure = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failure) throw failure.reason;

    // The manifest lists datasets in source order, however the threads finished.
    const old = (prev?.manifest.datasets ?? {}) as Record<string, GatedInfo>;
    /** The live release's files of a dataset in place of this build's, marked as `extra` says. */
    const carry = (id: string, extra: Partial<GatedInfo>) => {
      bytes -= writer.discard(id);
      built.delete(id);
      const files = Object.keys(prev!.manifest.files).filter((p) => isDatasetFile(id, p));
      const before = bytes;
      for (const p of files) add({ path: p, content: readFileSync(path.join(prev!.dir, p)) });
      const { held_back: _, ...info } = old[id];
      // Data carried twice is still the data of the release it was built in.
      datasets[id] = { ...info, carried_forward_from: old[id].carried_forward_from ?? prev!.manifest.release, ...extra };
      return { files: files.length, bytes: bytes - before };
    };
    for (const source of sources) {
      const id = source.id;
      const o = outcomes.get(id)!;
      const live = prev && old[id];
      let reason = 'info' in o ? null : 'invalid' in o ? o.invalid : o.unavailable;
      if ('info' in o && live && opts.gate && datasetChanged(id, writer.written(), prev.manifest.files)) reason = holdBackReason(id, o.info, live, opts.gate);
      if ('info' in o && !reason) {
        // (Built to exactly the files a held-back dataset kept: the upstream is back, the hold ends.)
        datasets[id] = o.info;
        reports.push({ id, status: 'built', records: o.info.records, files: o.files, bytes: o.bytes, seconds: o.seconds });
        continue;
      }
      if (!('info' in o) && 'invalid' in o) bytes -= writer.discard(id);
      if (live) {
        const hold = opts.gate && ('info' in o || 'invalid' in o);
        const kept = carry(id, hold ? { held_back: heldBack(reason!, live, opts.gate!) } : {});
        reports.push({ id, status: hold ? 'held-back' : 'carried-forward', records: live.records, ...kept, seconds: o.seconds, reason: reason! });
      } else {
        absent[id] = reason!;
        reports.push({ id, status: 'absent', records: 0, files: 0, bytes: 0, seconds: 0, reason: reason! });
        // Absent for want of fetched inputs (a first start offline: 26 of them): one line for
        // all after the build, not a line each; the manifest and /apis keep every reason.
        if (/ was not fetched: /.test(reason!)) {
          unfetched.push(id);
          continue;
        }
      }
      logLine(reports[reports.length - 1]);
    }
    if (unfetched.length) {
      log(`${unfetched.length} dataset${unfetched.length > 1 ? 's' : ''} absent, their upstream files not fetched (${unfetched.slice(0, 5).join(', ')}${unfetched.length > 5 ? ', …' : ''}): the reasons are in /apis; supply the files with npm run fetch (network) or ALMANAC_MIRROR=<folder> npm run fetch, then build again`);
    }

    const refusals = guard ? switchRefusals(prev?.manifest ?? null, datasets, absent, guard) : [];
    if (refusals.length) throw new SwitchRefused(refusals);
    checkLinks(sources, built);
    for (const f of (await opts.documents?.(writer.preview({ pipeline_version: PIPELINE_VERSION, datasets, absent }))) ?? []) {
      await new Promise((resolve) => setImmediate(resolve)); // compressing the 1.7 MB docs bundle: let timers and I/O run
      add(f);
    }
    add({ path: LICENCES, content: Buffer.from(JSON.stringify(licences(sources, datasets), null, 1) + '\n') });
  } catch (err) {
    writer.abort();
    throw err;
  }

  const files = writer.files;
  const release = writer.commit({ pipeline_version: PIPELINE_VERSION, datasets, absent }, !opts.beforeLive);
  if (opts.beforeLive) {
    await opts.beforeLive(dist, release);
    switchCurrent(dist, release);
  }
  const pruned = pruneReleases(dist, opts.keep);
  const seconds = (performance.now() - started) / 1000;
  log(`release ${release}: ${Object.keys(datasets).length} datasets, ${files} files (+ compressed variants), ${kib(bytes)}, ${seconds.toFixed(2)} s`);
  if (pruned.releases.length) log(`pruned ${prunedText(pruned)}, keeping the live release and ${opts.keep ?? 2} other${(opts.keep ?? 2) === 1 ? '' : 's'}`);
  if (pruned.temporary.length) log(`removed ${pruned.temporary.length} abandoned temporary folder${pruned.temporary.length === 1 ? '' : 's'} (${pruned.temporary.join(', ')})`);
  return { release, dist, reports, absent, seconds, pruned };
}

/**
 * Every cross-dataset link must name a record that exists in the target dataset (by id,
 * or by alias in any case). A link into a dataset absent from this build cannot be
 * checked and is left as is; the target's absence is in the manifest.
 */
export function checkLinks(sources: DatasetSource<any>[], built: Map<string, { records: { id: string }[]; keys: Map<string, number> }>) {
  for (const source of sources) {
    const mine = built.get(source.id);
    if (!mine) continue;
    for (const link of source.links ?? []) {
      const target = built.get(link.dataset);
      if (!target) continue;
      for (const r of mine.records) {
        const raw = (r as Record<string, unknown>)[link.field];
        for (const v of Array.isArray(raw) ? raw : raw == null ? [] : [raw]) {
          if (!target.keys.has(String(v)) && !target.keys.has(aliasKey(String(v)))) {
            throw new InvalidRecord(`source ${source.id}: record ${JSON.stringify(r.id)}: field /${link.field}: '${v}' is not a record of ${link.dataset}`);
          }
        }
      }
    }
  }
}

function licences(sources: DatasetSource<any>[], datasets: Record<string, DatasetInfo>) {
  return sources
    .filter((s) => datasets[s.id])
    .map((s) => ({ dataset: s.id, title: s.title, sources: s.provenance }));
}

const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;

/** Why a dataset's build failed, in one line (gate mode holds it back with this reason). */
const failure = (err: unknown) => (err instanceof InvalidRecord ? 'validation: ' : 'build error: ') + String((err as Error)?.message ?? err).split('\n')[0];

/** The build's worker thread (pipeline/build-worker.ts): `run(id)` builds one dataset there. */
function startWorker(dir: string, env: NodeJS.ProcessEnv) {
  const worker = moduleWorker(import.meta.url, 'build-worker', { dir, env: { ...env } });
  const pending = new Map<string, { resolve: (r: WorkerReply) => void; reject: (e: Error) => void }>();
  const failAll = (e: Error) => {
    for (const p of pending.values()) p.reject(e);
    pending.clear();
  };
  worker.on('message', (r: WorkerReply) => {
    pending.get(r.id)?.resolve(r);
    pending.delete(r.id);
  });
  worker.on('error', failAll);
  worker.on('exit', (code) => failAll(new Error(`build worker exited with code ${code}`)));
  return {
    run: (id: string) => new Promise<WorkerReply>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker.postMessage(id);
    }),
    stop: () => worker.terminate(),
  };
}
