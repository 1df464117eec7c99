/**
 * `npm run build`: sources → dist/, offline and deterministic.
 *
 * Per dataset: resolve inputs (npm deps or the fetch cache), normalise, validate every
 * record (a bad one fails the whole build), order, generate shards. A dataset whose
 * input cannot be had is skipped with its reason; if the live release has it, its files
 * are carried forward unchanged (marked so in the manifest), so a failed upstream
 * never empties a dataset that was served yesterday.
 */
import { isMain } from './cli.ts';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { DatasetSource } from '../sources/contract.ts';
import { ALL_SOURCES } from '../sources/index.ts';
import { releaseOpenApi } from '../server/openapi.ts';
import { docsFiles } from './docs.ts';
import { InputUnavailable, resolveInputs } from './inputs.ts';
import { LICENCES, MANIFEST, SEARCH_SHARD_SIZE, OPENAPI, OPENAPI_V1, aliasKey, distDir, isDatasetFile, releaseDir } from './paths.ts';
import { DatasetGenerator, orderRecords, type DatasetInfo, type OutFile } from './shards.ts';
import { InvalidRecord, recordValidator, validateRecords } from './validate.ts';
import { ReleaseWriter, pruneReleases, readCurrent, type Manifest } from './writer.ts';

/** Bump when the shard layout or record envelopes change. */
export const PIPELINE_VERSION = '0.2.0';

export interface DatasetReport {
  id: string;
  status: 'built' | 'carried-forward' | 'absent';
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
}

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

  const writer = new ReleaseWriter(dist);
  const datasets: Record<string, DatasetInfo & { carried_forward_from?: string }> = {};
  const absent: Record<string, string> = {};
  const reports: DatasetReport[] = [];
  const built = new Map<string, { records: { id: string }[]; keys: Map<string, number> }>();
  const linkTargets = new Set(sources.flatMap((s) => (s.links ?? []).map((l) => l.dataset)));
  let bytes = 0;
  const add = (f: OutFile) => {
    bytes += f.content.length;
    writer.add(f);
  };

  try {
    for (const source of sources) {
      // A macrotask turn between datasets: awaits of settled promises alone never let
      // timers and I/O run, so an in-process build would hold its event loop for minutes.
      await new Promise((resolve) => setImmediate(resolve));
      const t0 = performance.now();
      const step = (what: string) => process.stdout.isTTY && process.stdout.write(`\r\x1b[K${source.id}: ${what}`);
      const before = { files: writer.files, bytes };
      try {
        step('resolving inputs');
        const { raw, resolved, missing } = await resolveInputs(source, env);
        const shardSize = Number(env.ALMANAC_SEARCH_SHARD_SIZE) || SEARCH_SHARD_SIZE;
        if (source.normaliseStream && (source.links?.length || linkTargets.has(source.id) || source.summary || source.order)) {
          throw new Error(`source ${source.id}: links, summary and order are not supported on streamed datasets`);
        }
        const gen = new DatasetGenerator(source, resolved, add, shardSize, { spillKeys: !!source.normaliseStream, raw });
        let records: { id: string }[] = [];
        if (source.normaliseStream) {
          // Streamed: validated and written as they arrive, in the source's own order.
          step('streaming');
          // Duplicate ids are caught by the generator's key map; no second set of ids here.
          const check = recordValidator(source, { duplicates: false });
          let i = 0;
          try {
            for await (const r of source.normaliseStream(raw)) {
              check(r, i++);
              gen.add(r);
            }
          } catch (err) {
            gen.discard(); // the spilled temporary files of a failed stream
            throw err;
          }
        } else {
          step('normalising');
          records = source.normalise(raw);
          step(`validating ${records.length} records`);
          validateRecords(source, records);
          step('generating shards');
          records = orderRecords(source, records);
          for (const r of records) gen.add(r);
        }
        const { info, keys } = gen.finish();
        if (source.summary) info.summary = source.summary(records);
        if (source.upstreamTime || info.live) info.upstream_time = upstreamTime(source, raw, resolved);
        if (missing.length) info.missing_inputs = missing;
        // Kept only where a link check needs them: large datasets must not pile up in memory.
        if (source.links?.length || linkTargets.has(source.id)) {
          built.set(source.id, { records: source.links?.length ? records : [], keys: linkTargets.has(source.id) ? keys : new Map() });
        }
        datasets[source.id] = info;
        reports.push({ id: source.id, status: 'built', records: info.records, files: writer.files - before.files, bytes: bytes - before.bytes, seconds: (performance.now() - t0) / 1000 });
      } catch (err) {
        if (!(err instanceof InputUnavailable)) throw err;
        const reason = err.message;
        const old = prev?.manifest.datasets as Record<string, DatasetInfo> | undefined;
        if (prev && old?.[source.id]) {
          for (const p of Object.keys(prev.manifest.files).filter((p) => isDatasetFile(source.id, p))) {
            add({ path: p, content: readFileSync(path.join(prev.dir, p)) });
          }
          datasets[source.id] = { ...old[source.id], carried_forward_from: prev.manifest.release };
          reports.push({ id: source.id, status: 'carried-forward', records: old[source.id].records, files: writer.files - before.files, bytes: bytes - before.bytes, seconds: (performance.now() - t0) / 1000, reason });
        } else {
          absent[source.id] = reason;
          reports.push({ id: source.id, status: 'absent', records: 0, files: 0, bytes: 0, seconds: 0, reason });
        }
      }
      if (process.stdout.isTTY) process.stdout.write('\r\x1b[K');
      const r = reports[reports.length - 1];
      log(`${r.id.padEnd(14)} ${r.status.padEnd(15)} ${String(r.records).padStart(8)} records ${String(r.files).padStart(5)} files ${kib(r.bytes).padStart(10)} ${r.seconds.toFixed(2).padStart(7)} s${r.reason ? `  (${r.reason})` : ''}`);
    }

    checkLinks(sources, built);
    const { platform, scripture } = await releaseOpenApi(writer.preview({ pipeline_version: PIPELINE_VERSION, datasets, absent }));
    add({ path: OPENAPI, content: Buffer.from(JSON.stringify(platform, null, 1) + '\n') });
    add({ path: OPENAPI_V1, content: Buffer.from(JSON.stringify(scripture, null, 1) + '\n') });
    for (const f of docsFiles({ platform, scripture })) add(f);
    add({ path: LICENCES, content: Buffer.from(JSON.stringify(licences(sources, datasets), null, 1) + '\n') });
  } catch (err) {
    writer.abort();
    throw err;
  }

  const files = writer.files;
  const release = writer.commit({ pipeline_version: PIPELINE_VERSION, datasets, absent });
  pruneReleases(dist);
  const seconds = (performance.now() - started) / 1000;
  log(`release ${release}: ${Object.keys(datasets).length} datasets, ${files} files (+ compressed variants), ${kib(bytes)}, ${seconds.toFixed(2)} s`);
  return { release, dist, reports, absent, seconds };
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

/**
 * The upstream's own timestamp: what the source reads from the data (a feed's
 * `generated`), else the newest Last-Modified the upstream sent, else null.
 */
function upstreamTime(source: DatasetSource<any>, raw: Record<string, unknown>, resolved: DatasetInfo['upstream']): string | null {
  const own = source.upstreamTime?.(raw) ?? null;
  if (own !== null) {
    if (Number.isNaN(Date.parse(own))) throw new InvalidRecord(`source ${source.id}: upstreamTime gave '${own}', not an ISO 8601 time`);
    return new Date(own).toISOString();
  }
  return resolved.map((u) => u.last_modified).filter((t): t is string => !!t).sort().pop() ?? null;
}
const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;

if (isMain(import.meta.url)) {
  build().catch((err) => {
    console.error(`build failed, live release unchanged: ${err.message}`);
    process.exit(1);
  });
}
