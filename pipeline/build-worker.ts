/**
 * The build's second thread (pipeline/build.ts `workers`): builds the datasets the main
 * thread sends it, by id, one at a time, writing their files straight into the release's
 * temporary folder, and answers each with the manifest entries of the files it wrote and
 * the dataset's metadata. Only datasets that no link check involves are sent here (their
 * records and keys never need to reach the main thread).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ALL_SOURCES } from '../sources/index.ts';
import { buildDataset } from './dataset-build.ts';
import { InputUnavailable } from './inputs.ts';
import { InvalidRecord } from './validate.ts';
import { writeReleaseFile, type FileEntry } from './writer.ts';

export type WorkerReply =
  | { id: string; built: { info: unknown; entries: [string, FileEntry][]; bytes: number; seconds: number } }
  | { id: string; unavailable: string }
  /** A record failed validation (InvalidRecord): the build fails, or in gate mode holds the dataset back. */
  | { id: string; invalid: string }
  | { id: string; error: string };

const { dir, env } = workerData as { dir: string; env: NodeJS.ProcessEnv };
const port = parentPort!;

// One dataset at a time: the main thread keeps one queued ahead, so this thread never waits.
let chain = Promise.resolve();
port.on('message', (id: string) => {
  chain = chain.then(() => buildOne(id));
});

async function buildOne(id: string) {
  const source = ALL_SOURCES.find((s) => s.id === id);
  const t0 = performance.now();
  const entries: [string, FileEntry][] = [];
  let bytes = 0;
  let reply: WorkerReply;
  try {
    if (!source) throw new Error(`build worker: no source ${id}`);
    const { info } = await buildDataset(source, env, (f) => {
      bytes += f.content.length;
      entries.push([f.path, writeReleaseFile(dir, f)]);
    }, { records: false, keys: false });
    reply = { id, built: { info, entries, bytes, seconds: (performance.now() - t0) / 1000 } };
  } catch (err) {
    reply = err instanceof InputUnavailable ? { id, unavailable: err.message }
      : err instanceof InvalidRecord ? { id, invalid: err.message }
        : { id, error: (err as Error).stack ?? String(err) };
  }
  port.postMessage(reply);
}
