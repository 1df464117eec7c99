/**
 * `npm run release:publish -- --url <worker URL>`: uploads a built release (the live one
 * of dist/, or `--id`) and its offline bundle, if one was made, to the Worker's R2 bucket
 * through its operator endpoints (edge/admin.ts), then switches the live pointer. Files
 * already in the bucket with their size are skipped, so a second run uploads nothing and
 * an interrupted one resumes. Every file goes up with its sha256, which R2 checks; the
 * switch is refused unless every file of the manifest is there, and until it happens the
 * previous release keeps serving. The token is ALMANAC_EDGE_TOKEN (the Worker's
 * ADMIN_TOKEN secret); locally, `npm run edge` publishes by itself.
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
 * PART_BYTES: Cloudflare refuses request bodies over 100 MB on most plans, and R2 wants
 * every part but the last to be at least 5 MiB.
 */
export const MAX_UPLOAD_BYTES = 95 * 2 ** 20;
export const PART_BYTES = 64 * 2 ** 20;

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

export interface Published { id: string; uploaded: number; skipped: number; bytes: number; seconds: number; previous: string | null; switched: boolean }

export async function publishRelease(o: EdgeTarget & { dist: string; id?: string; concurrency?: number; switch?: boolean; log?: (m: string) => void; maxSingle?: number }): Promise<Published> {
  const started = performance.now();
  const log = o.log ?? ((m: string) => console.log(m));
  const id = o.id ?? currentId(o.dist);
  if (!id) throw new Error(`no release in ${o.dist}: run npm run build`);
  const dir = releaseDir(o.dist, id);
  const manifest = JSON.parse(readFileSync(path.join(dir, MANIFEST), 'utf8')) as Manifest;
  // [bucket path, file on disk, size, sha256 when the manifest gives it]
  const files: [string, string, number, string | undefined][] = [];
  for (const [rel, e] of Object.entries(manifest.files)) {
    files.push([`releases/${id}/${rel}`, path.join(dir, rel), e.size, e.sha256]);
    if (e.br !== undefined) files.push([`releases/${id}/${rel}.br`, path.join(dir, `${rel}.br`), e.br, undefined]);
    if (e.gzip !== undefined) files.push([`releases/${id}/${rel}.gz`, path.join(dir, `${rel}.gz`), e.gzip, undefined]);
  }
  const bundles = bundleDir(o.dist, id);
  if (existsSync(bundles)) for (const f of readdirSync(bundles)) files.push([`bundles/${id}/${f}`, path.join(bundles, f), statSync(path.join(bundles, f)).size, undefined]);
  // The manifest goes last: a release is listed by the bucket only once its files are there.
  const manifestFile = path.join(dir, MANIFEST);
  files.push([`releases/${id}/${MANIFEST}`, manifestFile, statSync(manifestFile).size, undefined]);

  const have = new Map([...await listed(o, `releases/${id}/`), ...await listed(o, `bundles/${id}/`)]);
  const todo = files.filter(([key, , size]) => have.get(key) !== size);
  const last = todo.at(-1)?.[0] === `releases/${id}/${MANIFEST}` ? todo.pop() : undefined;
  log(`publish ${id} to ${o.url}: ${todo.length + (last ? 1 : 0)} of ${files.length} files to upload`);
  let bytes = 0;
  const put = async ([key, file, size, sha]: (typeof files)[number]) => {
    if (size > (o.maxSingle ?? MAX_UPLOAD_BYTES)) return putParts(key, file, size);
    const body = readFileSync(file);
    const sha256 = sha ?? createHash('sha256').update(body).digest('hex');
    await edgeCall(o, 'PUT', `/_edge/files/${key.split('/').map(encodeURIComponent).join('/')}`, body, { 'x-sha256': sha256, 'content-type': 'application/octet-stream' });
    bytes += body.length;
  };
  /** A large file in parts (its sha256 is in the bundle's SHA256SUMS, which clients check). */
  const putParts = async (key: string, file: string, size: number) => {
    const q = `path=${encodeURIComponent(key)}`;
    const { upload } = await edgeCall(o, 'POST', `/_edge/multipart?${q}`);
    const parts: { partNumber: number; etag: string }[] = [];
    const fd = openSync(file, 'r');
    try {
      for (let n = 1, at = 0; at < size; n++, at += PART_BYTES) {
        const chunk = Buffer.alloc(Math.min(PART_BYTES, size - at));
        readSync(fd, chunk, 0, chunk.length, at);
        parts.push(await edgeCall(o, 'PUT', `/_edge/multipart?${q}&upload=${encodeURIComponent(upload)}&part=${n}`, chunk, { 'content-type': 'application/octet-stream' }));
        bytes += chunk.length;
      }
    } finally {
      closeSync(fd);
    }
    await edgeCall(o, 'POST', `/_edge/multipart?${q}&upload=${encodeURIComponent(upload)}&done`, JSON.stringify(parts), { 'content-type': 'application/json' });
  };
  let next = 0;
  await Promise.all(Array.from({ length: o.concurrency ?? 8 }, async () => {
    while (next < todo.length) await put(todo[next++]);
  }));
  if (last) await put(last);
  let previous: string | null = null;
  const switched = o.switch !== false;
  if (switched) previous = (await edgeCall(o, 'PUT', '/_edge/current', id)).previous;
  const seconds = (performance.now() - started) / 1000;
  log(`published ${id}: ${todo.length + (last ? 1 : 0)} uploaded (${(bytes / 2 ** 20).toFixed(1)} MiB), ${files.length - todo.length - (last ? 1 : 0)} already there, ${seconds.toFixed(1)} s${switched ? `; live (was ${previous ?? 'none'})` : ''}`);
  return { id, uploaded: todo.length + (last ? 1 : 0), skipped: files.length - todo.length - (last ? 1 : 0), bytes, seconds, previous, switched };
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
    console.error(`publish failed, the live release is unchanged: ${err.message}`);
    process.exit(1);
  });
}
