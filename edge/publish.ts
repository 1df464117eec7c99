/**
 * `npm run release:publish -- --url <worker URL>`: uploads a built release (the live one
 * of dist/, or `--id`) and its offline bundle, if one was made, to the Worker's R2 bucket
 * through its operator endpoints (edge/admin.ts), then switches the live pointer. Files
 * already in the bucket with their size are skipped, so a second run uploads nothing and
 * an interrupted one resumes. Every file goes up with its sha256, which R2 checks; the
 * switch is refused unless every file of the manifest is there, and until it happens the
 * previous release keeps serving. The token is ALMANAC_EDGE_TOKEN (the Worker's
 * ADMIN_TOKEN secret); locally, `npm run edge` publishes by itself. The nightly job's
 * publish step is this same function.
 *
 * Issue 39, item 1: every call is retried with backoff (server/cli/edge-push.ts); a large
 * file goes up in parts that survive a failed run (edge/multipart.ts: the next run resumes
 * the upload, skipping the parts already there with their sha256); once a publish
 * succeeds, uploads left open by earlier runs of other releases are aborted, so their parts
 * stop taking room. A failure ends in one line saying what failed, never a stack trace.
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseCli } from '../pipeline/cli.ts';
import { isMain } from '../pipeline/cli.ts';
import { MANIFEST, bundleDir, distDir, releaseDir } from '../pipeline/paths.ts';
import type { Manifest } from '../pipeline/writer.ts';
import { currentId } from '../server/release/fs-reader.ts';
import { edgeCall, type EdgeTarget } from '../server/cli/edge-push.ts';

/**
 * Files up to this size go up in one request; larger ones (bundle archives) in parts of
 * PART_BYTES, which the Worker hashes in memory (edge/multipart.ts PART_MAX) and a failed
 * run resumes part by part.
 */
export const MAX_UPLOAD_BYTES = 32 * 2 ** 20;
export const PART_BYTES = 16 * 2 ** 20;

/** Every object under `prefix` in the bucket, with its size. */
async function listed(t: EdgeTarget, prefix: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  let cursor: string | null = null;
  do {
    const page: { objects: { key: string; size: number }[]; cursor: string | null } = await edgeCall(t, 'GET', `/_edge/list?prefix=${encodeURIComponent(prefix)}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    for (const o of page.objects) out.set(o.key, o.size);
    cursor = page.cursor;
  } while (cursor);
  return out;
}

export interface Published {
  id: string; uploaded: number; skipped: number; bytes: number; seconds: number; previous: string | null; switched: boolean;
  /** Calls sent again after a failure. */
  retries: number;
  /** Parts of large files found already uploaded by an earlier, failed run. */
  resumedParts: number;
  /** Uploads left open by earlier runs (of other releases) that were aborted. */
  abandoned: number;
}

export interface PublishOptions extends EdgeTarget {
  dist: string;
  id?: string;
  concurrency?: number;
  switch?: boolean;
  log?: (m: string) => void;
  /** Files above this go up in parts (default MAX_UPLOAD_BYTES; tests make it small). */
  maxSingle?: number;
  /** The size of those parts (default PART_BYTES; at least 5 MiB, R2's smallest part but the last). */
  partBytes?: number;
  /** false: the release alone, not its offline bundle (benches: the downloads are 0.7 of the 1.4 GB). */
  bundles?: boolean;
}

/** [bucket path, file on disk, size, sha256 when the manifest gives it] */
type Upload = [string, string, number, string | undefined];

function filesOf(dist: string, id: string, withBundles = true): Upload[] {
  const dir = releaseDir(dist, id);
  const manifest = JSON.parse(readFileSync(path.join(dir, MANIFEST), 'utf8')) as Manifest;
  const files: Upload[] = [];
  for (const [rel, e] of Object.entries(manifest.files)) {
    files.push([`releases/${id}/${rel}`, path.join(dir, rel), e.size, e.sha256]);
    if (e.br !== undefined) files.push([`releases/${id}/${rel}.br`, path.join(dir, `${rel}.br`), e.br, undefined]);
    if (e.gzip !== undefined) files.push([`releases/${id}/${rel}.gz`, path.join(dir, `${rel}.gz`), e.gzip, undefined]);
  }
  const bundles = bundleDir(dist, id);
  if (withBundles && existsSync(bundles)) for (const f of readdirSync(bundles)) files.push([`bundles/${id}/${f}`, path.join(bundles, f), statSync(path.join(bundles, f)).size, undefined]);
  // The manifest goes last: a release is listed by the bucket only once its files are there.
  const manifestFile = path.join(dir, MANIFEST);
  files.push([`releases/${id}/${MANIFEST}`, manifestFile, statSync(manifestFile).size, undefined]);
  return files;
}

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

export async function publishRelease(o: PublishOptions): Promise<Published> {
  const started = performance.now();
  const log = o.log ?? ((m: string) => console.log(m));
  let retries = 0;
  const t: EdgeTarget = { url: o.url, token: o.token, onRetry: (m) => (retries++ < 5 ? log(`retrying ${m}`) : undefined) };
  const id = o.id ?? currentId(o.dist);
  if (!id) throw new Error(`no release in ${o.dist}: run npm run build`);
  const files = filesOf(o.dist, id, o.bundles !== false);

  const have = new Map([...await listed(t, `releases/${id}/`), ...await listed(t, `bundles/${id}/`)]);
  const todo = files.filter(([key, , size]) => have.get(key) !== size);
  const last = todo.at(-1)?.[0] === `releases/${id}/${MANIFEST}` ? todo.pop() : undefined;
  const count = todo.length + (last ? 1 : 0);
  log(`publish ${id} to ${o.url}: ${count} of ${files.length} files to upload`);
  let bytes = 0;
  let resumedParts = 0;
  const put = async ([key, file, size, sha]: Upload) => {
    if (size > (o.maxSingle ?? MAX_UPLOAD_BYTES)) return putParts(key, file, size);
    const body = readFileSync(file);
    await edgeCall(t, 'PUT', `/_edge/files/${key.split('/').map(encodeURIComponent).join('/')}`, body, { 'x-sha256': sha ?? sha256(body), 'content-type': 'application/octet-stream' });
    bytes += body.length;
  };
  /** A large file in parts: begun, or resumed where an earlier run stopped (its parts there with their sha256 are not sent again). */
  const putParts = async (key: string, file: string, size: number) => {
    const q = `path=${encodeURIComponent(key)}`;
    const partBytes = o.partBytes ?? PART_BYTES;
    const open: { upload: string; parts: { part: number; sha256: string }[] } = await edgeCall(t, 'POST', `/_edge/multipart?${q}&size=${size}&part_bytes=${partBytes}`);
    const there = new Map(open.parts.map((p) => [p.part, p.sha256]));
    const fd = openSync(file, 'r');
    try {
      for (let n = 1, at = 0; at < size; n++, at += partBytes) {
        const chunk = Buffer.alloc(Math.min(partBytes, size - at));
        readSync(fd, chunk, 0, chunk.length, at);
        const sum = sha256(chunk);
        if (there.get(n) === sum) {
          resumedParts++;
          continue;
        }
        await edgeCall(t, 'PUT', `/_edge/multipart?${q}&upload=${encodeURIComponent(open.upload)}&part=${n}`, chunk, { 'x-sha256': sum, 'content-type': 'application/octet-stream' });
        bytes += chunk.length;
      }
    } finally {
      closeSync(fd);
    }
    await edgeCall(t, 'POST', `/_edge/multipart?${q}&upload=${encodeURIComponent(open.upload)}&done`);
  };
  let next = 0;
  let done = 0;
  let reported = performance.now();
  await Promise.all(Array.from({ length: o.concurrency ?? 8 }, async () => {
    while (next < todo.length) {
      await put(todo[next++]);
      done++;
      if (performance.now() - reported > 15_000) {
        reported = performance.now();
        log(`publish ${id}: ${done} of ${count} files (${(bytes / 2 ** 20).toFixed(0)} MiB)`);
      }
    }
  }));
  if (last) await put(last);
  let previous: string | null = null;
  const switched = o.switch !== false;
  if (switched) previous = (await edgeCall(t, 'PUT', '/_edge/current', id)).previous;
  // Uploads an earlier, failed run of another release left open: nobody will finish them.
  const mine = new Set(files.map(([key]) => key));
  const open: string[] = (await edgeCall(t, 'GET', '/_edge/multipart')).open;
  const abandoned = open.filter((p) => !mine.has(p));
  for (const p of abandoned) await edgeCall(t, 'DELETE', `/_edge/multipart?path=${encodeURIComponent(p)}`);
  const seconds = (performance.now() - started) / 1000;
  const notes = [retries && `${retries} call(s) retried`, resumedParts && `${resumedParts} part(s) resumed`, abandoned.length && `${abandoned.length} abandoned upload(s) aborted`].filter(Boolean);
  log(`published ${id}: ${count} uploaded (${(bytes / 2 ** 20).toFixed(1)} MiB), ${files.length - count} already there, ${seconds.toFixed(1)} s${switched ? `; live (was ${previous ?? 'none'})` : ''}${notes.length ? `; ${notes.join(', ')}` : ''}`);
  return { id, uploaded: count, skipped: files.length - count, bytes, seconds, previous, switched, retries, resumedParts, abandoned: abandoned.length };
}

if (isMain(import.meta.url)) {
  const usage = 'usage: ALMANAC_EDGE_TOKEN=<the Worker\'s ADMIN_TOKEN> npm run release:publish -- --url <worker URL> [--id <release>] [--no-switch]';
  const { values } = parseCli('release:publish', usage, { url: { type: 'string' }, id: { type: 'string' }, 'no-switch': { type: 'boolean', default: false } });
  const token = process.env.ALMANAC_EDGE_TOKEN;
  if (!values.url || !token) {
    console.error(`release:publish: ${!values.url ? '--url is required' : 'ALMANAC_EDGE_TOKEN is not set'}\n${usage}`);
    process.exit(2);
  }
  publishRelease({ url: values.url, token, dist: distDir(), id: values.id, switch: !values['no-switch'] }).catch((err) => {
    console.error(`publish failed, the live release is unchanged (run it again: it resumes): ${err.message}`);
    process.exit(1);
  });
}
