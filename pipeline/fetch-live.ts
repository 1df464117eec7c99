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
 *  - a folder mirror: static files only: the input's URL, its published `variants` and
 *    its pinned snapshots (`copies`), whichever of those the folder holds has the newest
 *    data by the input's `dataTime` (else the first, in that order); a paged input stores
 *    it as a one-page array.
 * Over the network a snapshot stands in only for a publisher that failed when there is
 * no last good copy (the record's `via` then says `copy:<url>`).
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

/**
 * When each upstream host may be asked next: the spacing holds per host across every
 * input, since a source's inputs are fetched a few at once (pipeline/fetch.ts).
 */
const nextByHost = new Map<string, number>();

async function spaced(host: string) {
  const now = Date.now();
  const at = Math.max(now, nextByHost.get(host) ?? 0);
  nextByHost.set(host, at + MIN_INTERVAL_MS);
  if (at > now) await new Promise((r) => setTimeout(r, at - now));
}

function httpGetter(mirror: string | undefined, o: GetOptions): { get: PageGet; last: () => Got | null; requests: () => number } {
  let last: Got | null = null;
  let count = 0;
  const get: PageGet = async (url, init = {}) => {
    await spaced(new URL(url).host);
    const target = mirror ? rewriteOnto(url, mirror) : url;
    count++;
    const res = await getWithRetries(target, {
      method: init.method ?? 'GET',
      body: init.body,
      headers: { 'user-agent': USER_AGENT, accept: 'application/json, */*', ...(init.body ? { 'content-type': 'application/json' } : {}), ...init.headers },
    }, o);
    const notModified = res.status === 304 && !!(init.headers?.['if-none-match'] || init.headers?.['if-modified-since']);
    if (!res.ok && !notModified) throw new Error(`HTTP ${res.status} from ${url}`);
    last = { body: res.body, lastModified: res.headers.get('last-modified'), etag: res.headers.get('etag'), notModified };
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

interface Form { url: string; body: Buffer; via: string }

/** A form's own data time (the input's `dataTime` over its decoded body), as ms; -Infinity when unknown or unreadable. */
function timeOf(spec: LiveInput, body: Buffer): number {
  if (!spec.dataTime) return -Infinity;
  let value: unknown = body;
  try {
    if (spec.format === 'json' || spec.format === 'text') {
      const text = body.toString(spec.encoding ?? 'utf8');
      value = spec.format === 'json' ? JSON.parse(text) : text;
    }
    const t = spec.dataTime(value);
    return t === null || Number.isNaN(Date.parse(t)) ? -Infinity : Date.parse(t);
  } catch {
    return -Infinity; // a form the source cannot read loses; the build then says what is wrong with it
  }
}

/** The form whose data is newest; ties (and inputs without dataTime) keep the first. */
function newest(spec: LiveInput, forms: Form[]): Form {
  if (forms.length < 2) return forms[0];
  let best = forms[0];
  let bestTime = timeOf(spec, best.body);
  for (const f of forms.slice(1)) {
    const t = timeOf(spec, f.body);
    if (t > bestTime) [best, bestTime] = [f, t];
  }
  return best;
}

/** A known snapshot's bytes, or why not: it must be the pinned ones. */
function pinned(copy: { url: string; sha256: string }, body: Buffer): Buffer {
  const got = sha256(body);
  if (got !== copy.sha256) throw new Error(`sha256 mismatch for ${copy.url}: got ${got}, pinned ${copy.sha256}`);
  return body;
}

function fromFolder(spec: LiveInput, mirror: string) {
  const forms: Form[] = [];
  const problems: string[] = [];
  for (const url of [spec.url, ...(spec.variants ?? [])]) {
    const loc = mirrorLocation(url, mirror);
    if (existsSync(loc) && statSync(loc).isFile()) forms.push({ url, body: readFileSync(loc), via: `mirror:${url}` });
  }
  for (const copy of spec.copies ?? []) {
    const loc = mirrorLocation(copy.url, mirror);
    if (!existsSync(loc) || !statSync(loc).isFile()) continue;
    try {
      forms.push({ url: copy.url, body: pinned(copy, readFileSync(loc)), via: `mirror:${copy.url}` });
    } catch (err) {
      problems.push((err as Error).message);
    }
  }
  if (!forms.length) {
    throw new Error(problems[0] ?? `not in mirror (${mirrorLocation(spec.url, mirror)}${spec.variants?.length || spec.copies?.length ? ' or its variants and copies' : ''})`);
  }
  const { body, via } = newest(spec, forms);
  return { body: spec.pages ? pageArray([body]) : body, via, lastModified: null, etag: null, pages: spec.pages ? 1 : null };
}

/**
 * The publisher failed and no earlier fetch left a copy: the newest known snapshot that
 * can be had with its pinned bytes, or the publisher's error (with the snapshots' own).
 */
async function fromCopies(spec: LiveInput, mirror: string | undefined, o: GetOptions, publisher: Error) {
  const forms: Form[] = [];
  const problems: string[] = [];
  for (const copy of spec.copies ?? []) {
    try {
      const http = httpGetter(mirror, o);
      forms.push({ url: copy.url, body: pinned(copy, await http.get(copy.url)), via: `copy:${copy.url}` });
    } catch (err) {
      if (o.signal?.aborted) throw err;
      problems.push((err as Error).message);
    }
  }
  if (!forms.length) throw problems.length ? new Error(`${publisher.message}; known copies: ${problems.join('; ')}`) : publisher;
  const { body, via } = newest(spec, forms);
  return { body: spec.pages ? pageArray([body]) : body, via, lastModified: null, etag: null, pages: spec.pages ? 1 : null, publisher: publisher.message };
}

function atomicWrite(file: string, text: string) {
  const tmp = `${file}.part-${process.pid}`;
  try {
    writeFileSync(tmp, text);
    renameSync(tmp, file);
  } finally {
    rmSync(tmp, { force: true });
  }
}

/**
 * Fetches one live input into the cache. `onCopy` hears when a known snapshot stood in
 * for a publisher that failed (its URL and the publisher's error), for the fetch's log.
 */
export async function fetchLive(
  spec: LiveInput, env: NodeJS.ProcessEnv = process.env, signal?: AbortSignal, onCopy?: (copy: string, publisher: string) => void,
): Promise<'fetched' | 'cached'> {
  const mirror = env.ALMANAC_MIRROR;
  const dest = cachedLocation(spec.url, env);
  let old: FetchRecord | null = null;
  try {
    old = existsSync(dest) ? JSON.parse(readFileSync(fetchRecordPath(dest), 'utf8')) : null;
  } catch {
    // no previous record: write one
  }
  let got: Awaited<ReturnType<typeof fromUpstream>> & { publisher?: string };
  if (mirror && !isHttp(mirror)) got = fromFolder(spec, mirror);
  else {
    try {
      got = await fromUpstream(spec, mirror, { env, signal }, old);
    } catch (err) {
      // The last good copy outranks any snapshot: only a cache without one takes a snapshot.
      if (old || !spec.copies?.length || signal?.aborted) throw err;
      got = await fromCopies(spec, mirror, { env, signal }, err as Error);
    }
  }
  if (!got.body) return 'cached'; // 304 Not Modified
  if (got.publisher) onCopy?.(got.via.replace(/^copy:/, ''), got.publisher);
  // Unchanged upstream: keep the copy and its record (fetched_at = when these bytes were
  // first seen, last_modified as then: the build reads both), so an unchanged feed does not
  // make `npm start` rebuild. Its ETag is recorded all the same (issue 40: an ETag first sent
  // with bytes already cached was never kept, so the feed was never asked conditionally);
  // the build does not read it.
  const digest = sha256(got.body);
  if (old?.sha256 === digest) {
    if (got.etag && got.etag !== old.etag) atomicWrite(fetchRecordPath(dest), JSON.stringify({ ...old, etag: got.etag }, null, 1) + '\n');
    return 'cached';
  }
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
