/**
 * /apis/downloads: the offline bundle of the live release (pipeline/bundle.ts), listed
 * and served. Only the names download.json lists can be asked for (plus download.json
 * and SHA256SUMS themselves), so a request never becomes an arbitrary path.
 *
 * Each HTTP request counts once against the key, whatever its size: a whole download is
 * one request, and resuming a broken one with `Range: bytes=<received>-` is one more
 * (206 Partial Content). A Range starting past the end is a 416 with `Content-Range:
 * bytes * /<size>` and the error envelope; a Range we do not serve (several ranges, other
 * units, malformed) is ignored and the whole file is sent, as RFC 9110 §14.2 allows.
 * `If-Range` with the file's ETag resumes only the same file.
 */
import { createHash } from 'node:crypto';
import type { Downloads } from '../../pipeline/bundle.ts';
import { DOWNLOADS, SHA256SUMS } from '../../pipeline/paths.ts';
import { ApiError } from '../http/errors.ts';
import type { Handler, Reply } from './handlers.ts';
import { bundleBase, type Release } from '../release/release.ts';
import { notModified } from '../http/respond.ts';
import type { CoreRequest, CoreResponse } from '../http/request.ts';

type DownloadReply = Extract<Reply, { kind: 'download' }>;
interface Served { downloads: Downloads; files: Map<string, DownloadReply> }

// download.json is read once per release; a release without a bundle is looked up again
// on the next request (npm run bundle may run while the server is up).
const byRelease = new WeakMap<Release, Served>();

async function served(rel: Release): Promise<Served | null> {
  const hit = byRelease.get(rel);
  if (hit) return hit;
  const text = await rel.bundleText(DOWNLOADS);
  if (text === undefined) return null;
  const downloads = JSON.parse(text) as Downloads;
  const base = bundleBase(rel.id);
  const files = new Map<string, DownloadReply>();
  for (const a of downloads.archives) {
    files.set(a.file, { kind: 'download', file: base + a.file, name: a.file, size: a.size, etag: `"${a.sha256.slice(0, 32)}"`, type: 'application/gzip', sha256: a.sha256 });
  }
  for (const [name, type] of [[DOWNLOADS, 'application/json; charset=utf-8'], [SHA256SUMS, 'text/plain; charset=utf-8']]) {
    const body = Buffer.from((name === DOWNLOADS ? text : await rel.bundleText(name)) ?? '');
    files.set(name, { kind: 'download', file: base + name, name, size: body.length, etag: `"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"`, type });
  }
  const s = { downloads, files };
  byRelease.set(rel, s);
  return s;
}

/**
 * A download's bytes are checked against download.json's sha256 before they are sent
 * (issue 40, item 4: a same-size damaged laws-regulations.sqlite.gz was served under its
 * old checksum). Hashed once per copy of the file: the result is kept with the file's
 * signature (inode, size, mtime, ctime), which any write changes, so each later request
 * costs one stat and a changed file is hashed again. A file that differs (or is missing)
 * answers 503 release_corrupt, is listed by /healthz, and is logged once; a store that
 * checked every file when it was written (R2) is not hashed again.
 */
const checked = new WeakMap<Release, Map<string, { sig: string; ok: Promise<boolean> }>>();

async function checkDownload(rel: Release, f: DownloadReply): Promise<void> {
  const { reader } = rel;
  if (!f.sha256 || reader.verified || !reader.hash || !reader.signature) return;
  const sig = reader.signature(f.file);
  let files = checked.get(rel);
  if (!files) checked.set(rel, (files = new Map()));
  let c = files.get(f.file);
  if (!c || c.sig !== sig) {
    const ok = sig === undefined ? Promise.resolve(false)
      : reader.hash(f.file).then((h) => h.sig === sig && h.sha256 === f.sha256, () => false);
    files.set(f.file, (c = { sig: sig ?? '', ok }));
  }
  const name = `downloads/${f.name}`;
  if (await c.ok) {
    rel.corrupt.delete(name); // repaired in place (a rebuild of the same release)
    return;
  }
  if (!rel.corrupt.has(name)) {
    rel.corrupt.add(name);
    rel.onCorrupt(name);
  }
  throw new ApiError('release_corrupt', `the download ${f.name} does not match its sha256 in download.json; it is not served and the operator has been told`, { file: name });
}

const NO_DOWNLOADS_NOTE = 'no downloads were written for this release: npm run build writes them (npm start and npm run build -- --no-downloads do not); npm run bundle writes them for the live release';
/** An extracted offline bundle has no downloads of its own, and no build to run (issue 40). */
const BUNDLE_NOTE = 'this server serves an extracted offline bundle (npm run serve -- --bundle), which holds no downloads: the server it came from lists them at /apis/downloads';

export const listDownloads: Handler = async (ctx) => {
  const s = await served(ctx.release);
  const link = (f: string) => `/apis/downloads/${f}`;
  const body = s
    ? {
      data: s.downloads.archives.map((a) => ({ ...a, links: { download: link(a.file) } })),
      meta: {
        release: s.downloads.release, built_at: s.downloads.built_at, pipeline_version: s.downloads.pipeline_version, format: s.downloads.format,
        root: s.downloads.root, total: s.downloads.archives.length, links: { manifest: link(DOWNLOADS), sha256sums: link(SHA256SUMS) },
      },
    }
    : { data: [], meta: { release: ctx.release.id, total: 0, note: ctx.release.bundle ? BUNDLE_NOTE : NO_DOWNLOADS_NOTE } };
  return { kind: 'json', body: JSON.stringify(body) };
};

export const getDownload: Handler = async (ctx) => {
  const f = (await served(ctx.release))?.files.get(ctx.params.file);
  if (!f) throw new ApiError('download_not_found', `no download '${ctx.params.file.slice(0, 80)}' for release ${ctx.release.id}`, { file: ctx.params.file.slice(0, 80) });
  return f;
};

/** [start, end] inclusive, or null to send the whole file. Throws 416 for a satisfiable-looking range past the end. */
export function parseRange(header: string | undefined, size: number): [number, number] | null {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null;
  let start: number, end: number;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) throw unsatisfiable(size);
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
    if (m[2] !== '' && Number(m[2]) < start) return null; // an invalid range-spec: ignored
  }
  if (start >= size) throw unsatisfiable(size);
  return [start, end];
}

const unsatisfiable = (size: number) =>
  new ApiError('range_not_satisfiable', `the range starts at or beyond the end of the file (${size} bytes)`, { size }, { 'content-range': `bytes */${size}` });

const HEADERS = [
  'access-control-allow-origin', '*',
  'access-control-expose-headers', 'ETag, RateLimit, RateLimit-Policy, Retry-After, Content-Length, Content-Range, Accept-Ranges, Content-Disposition',
  'accept-ranges', 'bytes',
];

/**
 * `policy`: Cache-Control and Vary (http/cache-policy.ts, row `download`); `bill` counts
 * the request and returns its RateLimit headers — not called for a 304, which is free and
 * carries the `admitted` (uncounted) ones. The bytes stream from the release's store.
 * Archives are already gzip: never content-encoded, so Range offsets are file offsets.
 */
export async function downloadResponse(req: CoreRequest, release: Release, f: DownloadReply, policy: string[], admitted: string[], bill: () => Promise<string[]>): Promise<CoreResponse> {
  const base = [...HEADERS, ...policy, 'content-type', f.type, 'etag', f.etag, 'content-disposition', `attachment; filename="${f.name}"`];
  if (notModified(req, f.etag)) return { status: 304, headers: [...base, ...admitted] };
  await checkDownload(release, f);
  const headers = [...base, ...(await bill())];
  const ifRange = req.header('if-range');
  const range = ifRange && ifRange.trim() !== f.etag ? null : parseRange(req.header('range'), f.size);
  const [start, end] = range ?? [0, f.size - 1];
  const length = f.size === 0 ? 0 : end - start + 1;
  if (range) headers.push('content-range', `bytes ${start}-${end}/${f.size}`);
  headers.push('content-length', String(length));
  const status = range ? 206 : 200;
  if (req.method === 'HEAD' || length === 0) return { status, headers };
  return { status, headers, stream: await release.reader.stream(f.file, start, end) };
}
