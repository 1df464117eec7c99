/**
 * The SQLite downloads written on a thread of their own (pipeline/bundle.ts), so the
 * tar.gz archives are compressed on the other core meanwhile.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { writeSqlite } from './sqlite-files.ts';

writeSqlite(workerData).then(
  (dbs) => parentPort!.postMessage({ dbs }),
  (err: Error) => parentPort!.postMessage({ error: err.stack ?? String(err) }),
);
