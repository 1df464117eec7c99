/**
 * The SQLite downloads of a release (pipeline/bundle.ts calls this): one database per
 * dataset and per translation and one with everything, each gzipped for download
 * (`<name>.sqlite.gz`). Every record is read and parsed once, into its dataset's own
 * database; the one with everything is made from those by SQLite itself (mergeInto: rows
 * copied, indexes and search indexes rebuilt), and each file is gzipped on the thread
 * pool while the next one is written.
 */
import { closeSync, openSync, readSync, rmSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { datasetId } from '../sources/scripture/dataset.ts';
import { sqliteFile } from './paths.ts';
import type { DatasetInfo } from './shards.ts';
import { addDataset, describe, finishVerses, mergeInto, openDb } from './sqlite.ts';
import { moduleWorker } from './threads.ts';
import type { Manifest } from './writer.ts';
import type { SchemaObject } from 'ajv';

export interface SqliteDownload { name: string; file: string; datasets: string[]; rawSize: number }

export interface SqliteJob {
  dir: string; manifest: Manifest; out: string; builtAt: string; names: [string, string][];
  /** The name of the database with everything; none when absent. */
  all?: string;
  /** Each dataset's record schema (its source's), which types its columns (pipeline/sqlite-columns.ts). */
  schemas: Record<string, SchemaObject | null>;
  /** Leave the databases as they are, not gzipped (the mirror build's column check reads them). */
  raw?: boolean;
}

/** writeSqlite on a worker thread (pipeline/sqlite-worker.ts). */
export function writeSqliteInWorker(job: SqliteJob): Promise<SqliteDownload[]> {
  return new Promise((resolve, reject) => {
    const w = moduleWorker(import.meta.url, 'sqlite-worker', job);
    w.once('message', (m: { dbs?: SqliteDownload[]; error?: string }) => (m.dbs ? resolve(m.dbs) : reject(new Error(`SQLite downloads: ${m.error}`))));
    w.once('error', reject);
    w.once('exit', (code) => reject(new Error(`SQLite worker exited with code ${code}`)));
  });
}

/** Bytes a gzip member holds: a large database is compressed as several members at once. */
const MEMBER_BYTES = 32 * 2 ** 20;
const gzipAsync = promisify(gzip);
/**
 * zlib's default level (6). Level 4 compressed the 610 MB study database in 6.3 s instead of
 * 10.3 s, but across the whole bundle it saved 1 s of 94 (the SQLite writes, not gzip, are
 * the critical path on two cores) and made all.sqlite.gz 242.3 MiB instead of 229.6.
 */
const LEVEL = 6;
/** Members being compressed at once, across every file (libuv's thread pool has four threads). */
const PARALLEL = 4;
let running = 0;
const waiting: (() => void)[] = [];
async function limited<T>(fn: () => Promise<T>): Promise<T> {
  if (running >= PARALLEL) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await fn();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

/**
 * A file gzipped as consecutive members (RFC 1952 §2.2: gunzip, Python's gzip module and
 * node:zlib read them as one stream), compressed on the thread pool, at most PARALLEL
 * members at once across all files, so the 1.2 GB database with everything is not one
 * 25-second stream on one core, and memory stays at a few chunks.
 */
async function gzipFile(from: string, to: string) {
  const size = statSync(from).size;
  const fd = openSync(from, 'r');
  const out = openSync(to, 'w');
  try {
    const members = Math.max(1, Math.ceil(size / MEMBER_BYTES));
    const compress = (n: number) => limited(() => {
      const chunk = Buffer.allocUnsafe(Math.min(MEMBER_BYTES, size - n * MEMBER_BYTES));
      readSync(fd, chunk, 0, chunk.length, n * MEMBER_BYTES);
      return gzipAsync(chunk, { level: LEVEL });
    });
    const inFlight: Promise<Buffer>[] = [];
    for (let n = 0, next = 0; n < members; n++) {
      while (next < members && next < n + 4) inFlight[next] = compress(next++);
      writeSync(out, await inFlight[n]);
      delete inFlight[n];
    }
  } finally {
    closeSync(fd);
    closeSync(out);
  }
  rmSync(from);
}

export async function writeSqlite(o: SqliteJob): Promise<SqliteDownload[]> {
  const datasets = o.manifest.datasets as Record<string, DatasetInfo>;
  const allFile = o.all && path.join(o.out, `${o.all}.sqlite`);
  const all = allFile ? openDb(allFile) : null;
  const out: SqliteDownload[] = [];
  const gzips: Promise<void>[] = [];
  const finish = (from: string, name: string) => gzips.push(o.raw ? Promise.resolve() : gzipFile(from, path.join(o.out, sqliteFile(name))));
  try {
    for (const [id, name] of o.names) {
      const file = path.join(o.out, `${name}.sqlite`);
      const db = openDb(file);
      try {
        db.transaction(() => {
          addDataset(db, o.dir, datasets[id], o.schemas[id] ?? null);
          describe(db, o.manifest, sqliteFile(name), o.builtAt);
        })();
        // Statistics for the query planner: a query on several indexed columns (holidays by
        // country, year and type) otherwise takes the first index it finds (38 ms, not 1).
        db.exec('ANALYZE');
      } finally {
        db.close();
      }
      if (all) mergeInto(all, file);
      out.push({ name, file: sqliteFile(name), datasets: [id], rawSize: statSync(file).size });
      finish(file, name);
    }
    if (all) {
      all.transaction(() => {
        if (o.names.some(([id]) => id.startsWith(datasetId('')))) finishVerses(all);
        describe(all, o.manifest, sqliteFile(o.all!), o.builtAt);
      })();
      all.exec('ANALYZE');
    }
  } finally {
    all?.close();
  }
  if (allFile) {
    out.unshift({ name: o.all!, file: sqliteFile(o.all!), datasets: o.names.map(([id]) => id), rawSize: statSync(allFile).size });
    finish(allFile, o.all!);
  }
  await Promise.all(gzips);
  return out;
}
