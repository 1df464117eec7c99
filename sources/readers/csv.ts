/**
 * A CSV file whose header the source knows exactly, read with csv-parse into one object
 * per row keyed by column name. The reader fails, naming the file, the line and the
 * field, on anything it was not told to expect: a different header, a row with more or
 * fewer fields, a stray byte-order mark. Sources then check values and fail the same way
 * (`CsvRow.where`), so a changed upstream stops the build instead of shifting columns.
 */
import { parse } from 'csv-parse/sync';

export interface CsvRow {
  /** Values by header name, untrimmed, exactly as in the file. */
  values: Record<string, string>;
  /** "file line N" (the line the row ends on), for error messages. */
  where: string;
}

export interface CsvOptions {
  /** Name used in errors, e.g. "WDISeries.csv". */
  file: string;
  /**
   * The expected header, in order; or, for a wide file pinned by sha256 (its header cannot
   * change under the pin), `{ includes }`: the file's own header, which must hold every
   * column the source reads (USAspending's legacy download has 225).
   */
  header: readonly string[] | { includes: readonly string[] };
  /** Lines before the header (e.g. FDA's preamble), skipped unread. */
  skipLines?: number;
  delimiter?: string;
}

export function fail(where: string, field: string, value: unknown): never {
  const shown = JSON.stringify(value);
  throw new Error(`${where} field ${field}: unexpected ${shown === undefined ? 'undefined' : shown.slice(0, 200)}`);
}

/** Every data row of the file; blank lines (all fields empty) are dropped. */
export function readCsv(text: unknown, opts: CsvOptions): CsvRow[] {
  if (typeof text !== 'string') fail(opts.file, '(file)', typeof text);
  const lines = (parse(text, {
    delimiter: opts.delimiter ?? ',', relax_column_count: true, from_line: (opts.skipLines ?? 0) + 1, info: true, bom: false,
  }) as { record: string[]; info: { lines: number } }[]);
  const head = lines.shift();
  const got = head?.record ?? [];
  const spec = opts.header;
  const want = Array.isArray(spec) ? spec : got;
  if (!Array.isArray(spec)) {
    for (const c of (spec as { includes: readonly string[] }).includes) if (!got.includes(c)) fail(`${opts.file} header`, `column ${c}`, '(missing)');
    if (new Set(got).size !== got.length) fail(`${opts.file} header`, '(repeated column)', got);
  }
  for (let i = 0; i < Math.max(got.length, want.length); i++) {
    if (got[i] !== want[i]) fail(`${opts.file} header`, `column ${i + 1}`, { expected: want[i] ?? '(none)', got: got[i] ?? '(none)' });
  }
  const rows: CsvRow[] = [];
  for (const { record, info } of lines) {
    // The file's own line number where the row ends (a quoted field may span lines).
    const where = `${opts.file} line ${info.lines}`;
    if (record.every((v) => v === '')) continue;
    if (record.length !== want.length) fail(where, '(field count)', { expected: want.length, got: record.length });
    rows.push({ values: Object.fromEntries(want.map((h, i) => [h, record[i]])), where });
  }
  return rows;
}
