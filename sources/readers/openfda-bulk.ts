/**
 * An openFDA bulk download file (https://open.fda.gov/apis/downloads/): a zip holding one
 * JSON member, `{meta: {disclaimer, terms, license, last_updated, results: {skip, limit,
 * total}}, results: [...]}`, the same envelope and records as the API's, but every
 * record of the endpoint at once. The files are listed in
 * https://download.open.fda.gov/download.json (per endpoint, `partitions[].file`).
 *
 * Checked here, so a changed or torn file fails the build naming it: exactly one JSON
 * member, `meta.last_updated` a date, and `meta.results.total` equal to the number of
 * results (the file's own count; a partial file would serve fewer records silently).
 * fflate reads the zip: the project already uses it for SWORD modules and xlsx.
 */
import { unzipSync } from 'fflate';

export interface BulkFile {
  /** The zip member's name, for error messages. */
  member: string;
  /** meta.last_updated (YYYY-MM-DD): when openFDA last refreshed the endpoint's data. */
  lastUpdated: string;
  /** meta.results.total, equal to results.length. */
  total: number;
  results: unknown[];
}

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function fail(file: string, field: string, value: unknown): never {
  const shown = JSON.stringify(value);
  throw new Error(`${file}: field ${field}: unexpected ${shown === undefined ? 'undefined' : shown.slice(0, 200)}`);
}

/** Reads one bulk file; `file` names it in errors (e.g. the download URL). */
export function readOpenFdaBulk(zip: Uint8Array, file: string): BulkFile {
  let members: Record<string, Uint8Array>;
  try {
    members = unzipSync(zip);
  } catch (err) {
    throw new Error(`${file}: not a readable zip (${(err as Error).message})`);
  }
  const names = Object.keys(members);
  if (names.length !== 1 || !names[0].endsWith('.json')) fail(file, '(zip members)', names);
  const member = names[0];
  const at = `${file} ${member}`;
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(members[member]).toString('utf8'));
  } catch (err) {
    throw new Error(`${at}: not JSON (${(err as Error).message})`);
  }
  if (!isObj(body)) return fail(at, '(document)', body);
  const meta = isObj(body.meta) ? body.meta : fail(at, 'meta', body.meta);
  const lastUpdated = typeof meta.last_updated === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(meta.last_updated) ? meta.last_updated : fail(at, 'meta.last_updated', meta.last_updated);
  const counts = isObj(meta.results) ? meta.results : fail(at, 'meta.results', meta.results);
  const results = Array.isArray(body.results) ? body.results : fail(at, 'results', body.results);
  if (counts.total !== results.length) fail(at, `meta.results.total (the file holds ${results.length} results)`, counts.total);
  return { member, lastUpdated, total: results.length, results };
}

/** Only `meta.last_updated` of a bulk file, as midnight UTC (a live input's dataTime). */
export const bulkLastUpdated = (zip: unknown): string | null =>
  (zip instanceof Uint8Array ? `${readOpenFdaBulk(zip, 'openFDA bulk file').lastUpdated}T00:00:00Z` : null);
