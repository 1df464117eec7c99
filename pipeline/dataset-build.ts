/**
 * One dataset of a build: resolve its inputs, normalise (or stream), validate, order and
 * generate its shards, handing each file to `add`. Shared by the build's main thread and
 * its worker thread (pipeline/build-worker.ts), which builds independent datasets on the
 * second core. Throws InputUnavailable when an input cannot be had (the caller decides
 * between carrying the last release's files forward and marking the dataset absent).
 */
import type { DatasetSource } from '../sources/contract.ts';
import { resolveInputs } from './inputs.ts';
import { SEARCH_SHARD_SIZE } from './paths.ts';
import { DatasetGenerator, orderRecords, type DatasetInfo, type OutFile } from './shards.ts';
import { stemmedFields } from './stem-fields.ts';
import { InvalidRecord, recordValidator, validateRecords } from './validate.ts';

export interface BuiltDataset {
  info: DatasetInfo;
  /** The ordered records, kept only when `keep.records` (a link check needs them). */
  records: { id: string }[];
  /** Id and alias keys, kept only when `keep.keys` (another dataset links here). */
  keys: Map<string, number>;
}

export async function buildDataset(
  source: DatasetSource<any>, env: NodeJS.ProcessEnv, add: (f: OutFile) => void,
  keep: { records: boolean; keys: boolean }, step: (what: string) => void = () => {},
): Promise<BuiltDataset> {
  const shardSize = Number(env.ALMANAC_SEARCH_SHARD_SIZE) || SEARCH_SHARD_SIZE;
  const prepared = await prepare(source, env, add, keep, shardSize, step);
  const { gen, missing, reasons, upstream, stream } = prepared;
  let records: { id: string }[] = [];
  let summary: unknown;
  if (stream) {
    // Streamed: validated and written as they arrive, in the source's own order.
    step('streaming');
    // Duplicate ids are caught by the generator's key map; no second set of ids here.
    const check = recordValidator(source, { duplicates: false });
    let i = 0;
    try {
      for await (const r of stream()) {
        check(r, i++);
        gen.add(r);
      }
    } catch (err) {
      gen.discard(); // the spilled temporary files of a failed stream
      throw err;
    }
  } else {
    records = prepared.normalised!;
    prepared.normalised = null;
    step(`validating ${records.length} records`);
    validateRecords(source, records);
    step('generating shards');
    const unordered = records;
    records = orderRecords(source, records);
    // The records are the pipeline's once normalised: the unordered list is emptied so
    // that only the ordered one (below) holds them.
    if (!keep.records) unordered.length = 0;
    if (source.summary) summary = source.summary(records);
    // Each record is let go once in its pack unless a link check needs it: the dataset's
    // memory shrinks as its packs are written, rather than all its records staying until
    // the last pack while the written packs' strings pile up as garbage.
    for (let i = 0; i < records.length; i++) {
      gen.add(records[i]);
      if (!keep.records) records[i] = null!;
    }
    if (!keep.records) records = [];
  }
  const { info, keys } = gen.finish();
  if (source.summary) info.summary = summary;
  if (source.upstreamTime || info.live) info.upstream_time = upstream;
  if (missing.length) {
    info.missing_inputs = missing;
    info.missing_reasons = reasons;
  }
  // Kept only where a link check needs them: large datasets must not pile up in memory.
  return { info, records: keep.records ? records : [], keys: keep.keys ? keys : new Map() };
}

/**
 * Inputs resolved, the generator set up and the records normalised (or, streamed, the
 * stream to read). Apart from buildDataset so that no variable of the build holds the raw
 * inputs: unless streamed they are garbage once this returns (the study layers' are
 * ~130 MB of text, which would otherwise stay through validation and every pack).
 */
async function prepare(
  source: DatasetSource<any>, env: NodeJS.ProcessEnv, add: (f: OutFile) => void,
  keep: { records: boolean; keys: boolean }, shardSize: number, step: (what: string) => void,
) {
  step('resolving inputs');
  const { raw, resolved, missing, reasons } = await resolveInputs(source, env);
  if (source.normaliseStream && (source.links?.length || keep.keys || source.summary || source.order)) {
    throw new Error(`source ${source.id}: links, summary and order are not supported on streamed datasets`);
  }
  const gen = new DatasetGenerator(source, resolved, add, shardSize, { spillKeys: !!source.normaliseStream, raw, stem: stemmedFields(source) });
  // What the dataset's metadata needs of the raw inputs, taken while there are any.
  const upstream = upstreamTime(source, raw, resolved);
  const base = { gen, missing, reasons, upstream };
  if (source.normaliseStream) return { ...base, stream: () => source.normaliseStream!(raw), normalised: null as { id: string }[] | null };
  step('normalising');
  return { ...base, stream: null, normalised: source.normalise(raw) as { id: string }[] | null };
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
