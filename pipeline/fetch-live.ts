/**
 * Fetching a live upstream: a rolling feed, a monthly extract or a paged API, whose
 * bytes change, so there is no sha256 to pin. The cached copy is written atomically
 * together with a fetch record (when, from where, sha256, Last-Modified), which the
 * build checks the copy against and serves as the data's age. A failed fetch leaves
 * the previous copy and record untouched, so the last good data keeps building.
 *
 * Where the bytes come from:
 *  - no ALMANAC_MIRROR: the real upstream (paged APIs through the source's `pages`);
 *  - an http(s) mirror (tests: a loopback server): every request, query string kept,
 *    rewritten as <mirror>/<host><path>?<query>, so `pages` runs unchanged;
 *  - a folder mirror: static files only, so the input's URL or else the first of its
 *    `variants` the folder holds (a paged input stores it as a one-page array).
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { LiveInput, PageGet } from '../sources/contract.ts';
import { sha256, type FetchRecord } from './inputs.ts';
import { cachedLocation, fetchRecordPath, mirrorLocation } from './paths.ts';
import { USER_AGENT, getWithRetries, type GetOptions } from './http-get.ts';

export { USER_AGENT };
const isHttp = (s: string) => /^https?:\/\//.test(s);
// The SEC asks for at most 10 requests a second; stay well under it for every host.
const MIN_INTERVAL_MS = 150;

/** The origin-rewrite an http(s) mirror applies: host, path and query kept. */
export function rewriteOnto(url: string, base: string): string {
  const u = new URL(url);
  return `${base.replace(/\/+$/, '')}/${u.host}${u.pathname}${u.search}`;
}

interface Got { body: Buffer; lastModified: string | null; etag: string | null; notModified: boolean }

function httpGetter(mirror: string | undefined, o: GetOptions): { get: PageGet; last: () => Got | null; requests: () => number } {
  let last: Got | null = null;
  let count = 0;
  let next = 0;
  const get: PageGet = async (url, init = {}) => {
    const wait = next - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    next = Date.now() + MIN_INTERVAL_MS;
    const target = mirror ? rewriteOnto(url, mirror) : url;
    count++;
    const res = await getWithRetries(target, {
      method: init.method ?? 'GET',
      body: init.body,
      headers: { 'user-agent': USER_AGENT, accept: 'application/json, */*', ...(init.body ? { 'content-type': 'application/json' } : {}), ...init.headers },
    }, o);
    const notModified = res.status === 304 && !!(init.headers?.['if-none-match'] || init.headers?.['if-modified-since']);
    if (!res.ok && !notModified) throw new Error(`HTTP ${res.status} from ${url}`);
    last = { body: Buffer.from(await res.arrayBuffer()), lastModified: res.headers.get('last-modified'), etag: res.headers.get('etag'), notModified };
    return last.body;
  };
  return { get, last: () => last, requests: () => count };
}

/** Page bodies as one JSON array, without re-parsing them (each must itself be JSON). */
function pageArray(pages: Buffer[]): Buffer {
  const parts: Buffer[] = [Buffer.from('[')];
  pages.forEach((p, i) => parts.push(...(i ? [Buffer.from(',\n')] : []), p));
  parts.push(Buffer.from(']\n'));
  return Buffer.concat(parts);
}

/**
 * One GET, or every page. A single GET is conditional when the last fetch recorded an
 * ETag or Last-Modified: 304 means the copy in the cache is current (`body: null`).
 */
async function fromUpstream(spec: LiveInput, mirror: string | undefined, o: GetOptions, previous: FetchRecord | null) {
  const http = httpGetter(mirror, o);
  if (!spec.pages) {
    const headers: Record<string, string> = {};
    if (previous?.etag) headers['if-none-match'] = previous.etag;
    if (previous?.last_modified) headers['if-modified-since'] = new Date(previous.last_modified).toUTCString();
    await http.get(spec.url, { headers });
    const got = http.last()!;
    return { body: got.notModified ? null : got.body, via: mirror ? `mirror:${rewriteOnto(spec.url, mirror)}` : 'upstream', lastModified: got.lastModified, etag: got.etag, pages: null };
  }
  const pages: Buffer[] = [];
  for await (const page of spec.pages(http.get)) pages.push(page);
  if (!pages.length) throw new Error(`${spec.url}: the upstream returned no pages`);
  for (const [i, p] of pages.entries()) {
    try {
      JSON.parse(p.toString('utf8'));
    } catch {
      throw new Error(`${spec.url}: page ${i + 1} is not JSON`);
    }
  }
  return { body: pageArray(pages), via: mirror ? `mirror:${mirror}` : 'upstream', lastModified: null, etag: null, pages: pages.length };
}

function fromFolder(spec: LiveInput, mirror: string) {
  for (const url of [spec.url, ...(spec.variants ?? [])]) {
    const loc = mirrorLocation(url, mirror);
    if (!existsSync(loc) || !statSync(loc).isFile()) continue;
    const file = readFileSync(loc);
    return { body: spec.pages ? pageArray([file]) : file, via: `mirror:${url}`, lastModified: null, etag: null, pages: spec.pages ? 1 : null };
  }
  throw new Error(`not in mirror (${mirrorLocation(spec.url, mirror)}${spec.variants?.length ? ' or its variants' : ''})`);
}

export async function fetchLive(spec: LiveInput, env: NodeJS.ProcessEnv = process.env, signal?: AbortSignal): Promise<'fetched' | 'cached'> {
  const mirror = env.ALMANAC_MIRROR;
  const dest = cachedLocation(spec.url, env);
  let old: FetchRecord | null = null;
  try {
    old = existsSync(dest) ? JSON.parse(readFileSync(fetchRecordPath(dest), 'utf8')) : null;
  } catch {
    // no previous record: write one
  }
  const got = mirror && !isHttp(mirror) ? fromFolder(spec, mirror) : await fromUpstream(spec, mirror, { env, signal }, old);
  if (!got.body) return 'cached'; // 304 Not Modified
  // Unchanged upstream: keep the copy and its record (fetched_at = when these bytes were
  // first seen), so an unchanged feed does not make `npm start` rebuild.
  const digest = sha256(got.body);
  if (old?.sha256 === digest) return 'cached';
  const record: FetchRecord = {
    url: spec.url,
    fetched_at: new Date().toISOString(),
    sha256: digest,
    bytes: got.body.length,
    via: got.via,
    last_modified: got.lastModified ? new Date(got.lastModified).toISOString() : null,
    pages: got.pages,
    ...(got.etag ? { etag: got.etag } : {}),
  };
  mkdirSync(path.dirname(dest), { recursive: true });
  // Data first, then its record: a crash in between leaves a record that no longer
  // matches, which the build reports as unavailable rather than serving torn data.
  const tmp = `${dest}.part-${process.pid}`;
  const tmpRecord = `${fetchRecordPath(dest)}.part-${process.pid}`;
  try {
    writeFileSync(tmp, got.body);
    writeFileSync(tmpRecord, JSON.stringify(record, null, 1) + '\n');
    renameSync(tmp, dest);
    renameSync(tmpRecord, fetchRecordPath(dest));
  } finally {
    rmSync(tmp, { force: true });
    rmSync(tmpRecord, { force: true });
  }
  return 'fetched';
}
