/**
 * Multipart uploads that survive a failed publish (issue 39, item 1), for files too
 * large for one request body (bundle archives). The Worker keeps, in the bucket itself
 * (strongly consistent, unlike KV), one record per open upload and one per part sent:
 *
 *   multipart/uploads/<path>        {upload, size, part_bytes}
 *   multipart/parts/<path>/<n>      {etag, sha256, size}
 *
 * so that a publisher that died (a dropped connection, a killed process, a machine
 * restarted) resumes the upload where it stopped — beginning again answers the same
 * upload id and the parts already there with their sha256 — and so that uploads nobody
 * will finish can be listed and aborted (R2's binding cannot list them; at Cloudflare a
 * bucket's default lifecycle aborts them after 7 days, a local bucket never does: 4.9 GB
 * of abandoned parts for 1.65 GB of data before this). Every call is idempotent, so the
 * publisher may send any of them again after a failure.
 *
 * Each part is checked against the sha256 the publisher sends (R2 checks a whole file's,
 * not a part's): a part is buffered (at most PART_MAX bytes, within an isolate's memory)
 * and hashed before it is stored.
 */
import { ApiError } from '../server/http/errors.ts';
import type { R2Bucket } from './env.ts';

/** The largest part the Worker takes (it is held in memory while it is hashed: a quarter of an isolate's 128 MB). */
export const PART_MAX = 32 * 2 ** 20;
/** R2 wants every part but the last to be at least 5 MiB. */
export const PART_MIN = 5 * 2 ** 20;

const UPLOADS = 'multipart/uploads/';
const PARTS = 'multipart/parts/';

interface UploadRecord { upload: string; size: number; part_bytes: number }
interface PartRecord { etag: string; sha256: string; size: number }
export interface OpenUpload extends UploadRecord { path: string; parts: ({ part: number } & PartRecord)[] }

const bad = (message: string, details?: Record<string, unknown>) => new ApiError('bad_request', message, details);
const gone = (path: string) => new ApiError('conflict', `no open upload of ${path.slice(0, 200)}: begin it again`, { path: path.slice(0, 200) });

async function readJson<T>(bucket: R2Bucket, key: string): Promise<T | undefined> {
  const o = await bucket.get(key);
  return o ? (JSON.parse(await o.text()) as T) : undefined;
}

/** Every key under a prefix (R2 lists 1,000 a page). */
async function keysUnder(bucket: R2Bucket, prefix: string): Promise<string[]> {
  const out: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix, cursor });
    for (const o of page.objects) out.push(o.key);
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return out;
}

/** An open upload of `path` with the parts recorded so far, or undefined. */
export async function openUpload(bucket: R2Bucket, path: string): Promise<OpenUpload | undefined> {
  const rec = await readJson<UploadRecord>(bucket, UPLOADS + path);
  if (!rec) return undefined;
  const parts: OpenUpload['parts'] = [];
  for (const key of await keysUnder(bucket, `${PARTS}${path}/`)) {
    const p = await readJson<PartRecord>(bucket, key);
    if (p) parts.push({ part: Number(key.slice(key.lastIndexOf('/') + 1)), ...p });
  }
  return { path, ...rec, parts: parts.sort((a, b) => a.part - b.part) };
}

/** Every open upload's path (for the publisher's clean-up). */
export async function openUploads(bucket: R2Bucket): Promise<string[]> {
  return (await keysUnder(bucket, UPLOADS)).map((k) => k.slice(UPLOADS.length));
}

/**
 * Begins an upload of `size` bytes in parts of `partBytes`, or resumes the open one of the
 * same shape (its parts listed); an open upload of another shape is aborted first.
 */
export async function begin(bucket: R2Bucket, path: string, size: number, partBytes: number): Promise<OpenUpload> {
  if (!Number.isSafeInteger(size) || size <= 0) throw bad('size must be the file\'s size in bytes', { parameter: 'size' });
  if (!Number.isSafeInteger(partBytes) || partBytes < PART_MIN || partBytes > PART_MAX) throw bad(`part_bytes must be from ${PART_MIN} to ${PART_MAX}`, { parameter: 'part_bytes' });
  const open = await openUpload(bucket, path);
  if (open && open.size === size && open.part_bytes === partBytes) return open;
  if (open) await abort(bucket, path);
  const upload = (await bucket.createMultipartUpload(path)).uploadId;
  await bucket.put(UPLOADS + path, JSON.stringify({ upload, size, part_bytes: partBytes } satisfies UploadRecord));
  return { path, upload, size, part_bytes: partBytes, parts: [] };
}

/** One part, checked against its sha256 (hex) before it is stored and recorded. */
export async function putPart(bucket: R2Bucket, path: string, upload: string, n: number, body: ArrayBuffer, sha256: string): Promise<{ partNumber: number; etag: string }> {
  const rec = await readJson<UploadRecord>(bucket, UPLOADS + path);
  if (!rec || rec.upload !== upload) throw gone(path);
  const parts = Math.ceil(rec.size / rec.part_bytes);
  if (!Number.isInteger(n) || n < 1 || n > parts) throw bad(`part must be from 1 to ${parts}`, { parameter: 'part' });
  const want = n < parts ? rec.part_bytes : rec.size - rec.part_bytes * (parts - 1);
  if (body.byteLength !== want) throw bad(`part ${n} must be ${want} bytes, not ${body.byteLength}`, { parameter: 'part' });
  const got = Buffer.from(await crypto.subtle.digest('SHA-256', body)).toString('hex');
  if (got !== sha256) throw bad(`part ${n} does not match its X-Sha256 (the body was damaged on the way): send it again`, { reason: 'checksum_mismatch' });
  const done = await bucket.resumeMultipartUpload(path, upload).uploadPart(n, body);
  await bucket.put(`${PARTS}${path}/${n}`, JSON.stringify({ etag: done.etag, sha256, size: body.byteLength } satisfies PartRecord));
  return { partNumber: n, etag: done.etag };
}

/**
 * Completes the upload from its recorded parts (all of them, each of its size). A second
 * call after the first completed finds the object in place and answers the same.
 */
export async function complete(bucket: R2Bucket, path: string, upload: string): Promise<{ path: string; size: number }> {
  const open = await openUpload(bucket, path);
  if (!open || open.upload !== upload) {
    const there = await bucket.head(path);
    if (!open && there) return { path, size: there.size };
    throw gone(path);
  }
  const count = Math.ceil(open.size / open.part_bytes);
  const have = new Set(open.parts.map((p) => p.part));
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((n) => !have.has(n));
  if (missing.length) throw bad(`parts not sent yet: ${missing.slice(0, 10).join(', ')}`, { missing_parts: missing.slice(0, 100) });
  const done = await bucket.resumeMultipartUpload(path, upload).complete(open.parts.map((p) => ({ partNumber: p.part, etag: p.etag })));
  await forget(bucket, path);
  return { path, size: done.size };
}

/** Aborts the open upload of `path` (its parts are deleted) and forgets it; nothing open is fine. */
export async function abort(bucket: R2Bucket, path: string): Promise<boolean> {
  const rec = await readJson<UploadRecord>(bucket, UPLOADS + path);
  if (!rec) return false;
  try {
    await bucket.resumeMultipartUpload(path, rec.upload).abort();
  } catch {
    // Already completed or aborted elsewhere: nothing left to free.
  }
  await forget(bucket, path);
  return true;
}

async function forget(bucket: R2Bucket, path: string) {
  const keys = await keysUnder(bucket, `${PARTS}${path}/`);
  for (let i = 0; i < keys.length; i += 1000) await bucket.delete(keys.slice(i, i + 1000));
  await bucket.delete(UPLOADS + path);
}
