/**
 * Excel workbooks (.xlsx) as plain rows of cell values, through `read-excel-file`
 * (MIT, maintained, pure JavaScript on fflate: no native addon, no network, no
 * SheetJS licence questions). The Census NAICS lists and concordances are published
 * only as .xlsx.
 *
 * The library is asynchronous, so the pipeline reads a workbook when it resolves an
 * input of format 'xlsx' and hands `normalise` the rows: sources stay pure and
 * synchronous, and tests read their .xlsx fixtures with the same function.
 *
 * Cells come as the library types them: numbers (a code like 111110 stored as a
 * number, an ISIC class 0111 stored as 111), strings, booleans, dates, or null for an
 * empty cell. Sources decide what a cell means; `cellText` and `codeText` help.
 */
import type readXlsxFileType from 'read-excel-file/node';

export type Cell = string | number | boolean | Date | null;
export interface Sheet { sheet: string; rows: Cell[][] }
export type Workbook = Sheet[];

/** Every sheet of the workbook, rows as the library reads them (trailing empty rows dropped by it). */
export async function readWorkbook(bytes: Buffer): Promise<Workbook> {
  // Imported here, not with this module: the server imports every source for its routes and
  // never reads a workbook, and the library with its zip reader was 2.2 MiB of its heap.
  const readXlsxFile: typeof readXlsxFileType = (await import('read-excel-file/node')).default;
  const sheets = await readXlsxFile(bytes);
  return sheets.map((s) => ({ sheet: s.sheet, rows: s.data.map((row) => row.map((c) => (c === undefined ? null : c as Cell))) }));
}

/** Is this value a workbook as readWorkbook returns it? (normalise checks its raw input.) */
export function isWorkbook(v: unknown): v is Workbook {
  return Array.isArray(v) && v.every((s) => s && typeof s === 'object' && typeof s.sheet === 'string' && Array.isArray(s.rows));
}

/** The named sheet, or an error naming the file and the sheets it has. */
export function sheetRows(workbook: unknown, name: string, file: string): Cell[][] {
  if (!isWorkbook(workbook)) throw new Error(`${file}: not a workbook`);
  const sheet = workbook.find((s) => s.sheet === name);
  if (!sheet) throw new Error(`${file}: no sheet '${name}' (has ${workbook.map((s) => `'${s.sheet}'`).join(', ')})`);
  return sheet.rows;
}

/** A cell as trimmed text ('' for empty); numbers in their plain decimal form. */
export function cellText(c: Cell): string {
  if (c === null) return '';
  if (c instanceof Date) return c.toISOString();
  return String(c).trim();
}

/**
 * A code cell as text, left-padded with zeros to `width` when the workbook stored it as
 * a number (Excel drops leading zeros: ISIC 0111 arrives as 111). Null when it is not a
 * whole number or digit string of at most `width` digits.
 */
export function codeText(c: Cell, width: number): string | null {
  const t = typeof c === 'number' ? (Number.isInteger(c) && c >= 0 ? String(c) : '') : cellText(c);
  if (!/^\d+$/.test(t) || t.length > width) return null;
  return typeof c === 'number' ? t.padStart(width, '0') : t;
}
