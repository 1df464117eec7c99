/**
 * The Census concordances, as the relations they state, and the codes they bring that
 * no code list here has (NAICS 2012 industries, ISIC Rev.4 classes):
 *
 * - 2017_to_2012_NAICS.xlsx: two title rows, header on row 3; one row per (2017, 2012)
 *   industry pair. The 2012 title cell names the piece of the 2012 industry concerned
 *   ("Discount Department Stores - significant perishable grocery sales"), kept as the
 *   relation's note. The file marks split industries only by bold and italic type,
 *   which the cell values do not carry, so these relations have no part flags (null).
 * - 2017_NAICS_to_ISIC_4.xlsx: "Part of NAICS US" and "Part of ISIC" flags ("*") and a
 *   notes column; two rows link ISIC 9810/9820 to "Multiple NAICS industries" (code 0),
 *   kept on the ISIC record as a relation without a code.
 * - 2012_NAICS_to_ISIC_4.xlsx: the same without part flags (null). It also links to
 *   three ISIC groups written "012X", "014X", "331X" (group 012 etc.), kept as written.
 *
 * Every relation is put on both records it joins, from each one's side (part_of_this
 * and part_of_other swap). ISIC codes arrive as numbers (0111 as 111) and are padded
 * to their four digits. Nothing is inferred: no relation here that a row does not state.
 */
import { cellText, codeText, sheetRows, type Cell } from '../readers/xlsx.ts';
import { type CodeRecord, type Relation, type System, fail, recordId } from './common.ts';

export const CONCORDANCES = {
  'census-naics-2017-to-2012': {
    file: '2017_to_2012_NAICS.xlsx', sheet: '2017 to 2012 NAICS U.S.', headerRow: 3,
    header: ['2017 NAICS Code', '2017 NAICS Title', '2012 NAICS Code', '2012 NAICS Title (and specific piece of the 2012 industry that is contained in the 2017 industry)'],
  },
  'census-naics-2017-to-isic-4': {
    file: '2017_NAICS_to_ISIC_4.xlsx', sheet: 'NAICS 17 to ISIC 4 technical', headerRow: 1,
    header: ['Part of NAICS US', '2017 NAICS US', '2017 NAICS US TITLE', 'Part of ISIC', 'ISIC 4.0', 'ISIC Revision 4.0 Title', 'Notes: link content based on NAICS definition, entire NAICS industry if blank'],
  },
  'census-naics-2012-to-isic-4': {
    file: '2012_NAICS_to_ISIC_4.xlsx', sheet: 'NAICS 12 to ISIC 4 technical', headerRow: 1,
    header: ['2012 NAICS US', '2012 NAICS US TITLE', 'ISIC 4.0', 'ISIC Revision 4.0 Title', 'Notes: link content based on NAICS definition, entire NAICS industry if blank'],
  },
} as const;
type Key = keyof typeof CONCORDANCES;

const words = (c: Cell) => cellText(c).replace(/\s+/g, ' ');

/** Data rows of one concordance after checking its sheet and header, each with its 1-based row number. */
function rowsOf(key: Key, book: unknown): { row: Cell[]; where: string }[] {
  const spec = CONCORDANCES[key];
  const rows = sheetRows(book, spec.sheet, spec.file);
  const head = rows[spec.headerRow - 1] ?? [];
  spec.header.forEach((h, i) => {
    if (words(head[i] ?? null) !== h) fail(`${spec.file} row ${spec.headerRow}`, `column ${i + 1}`, { expected: h, got: words(head[i] ?? null) });
  });
  return rows.slice(spec.headerRow).map((row, i) => ({ row, where: `${spec.file} row ${spec.headerRow + i + 1}` }))
    .filter(({ row }) => row.some((c) => cellText(c) !== ''));
}

const naics6 = (c: Cell, where: string, field: string) => codeText(c, 6) ?? fail(where, field, c);
/**
 * A 4-digit ISIC class; the 2012 file also names three ISIC groups as "012X", "014X",
 * "331X", kept as written. The 2017 file gives two groups as the numbers 12 and 14 (the
 * group codes 012 and 014 without their zero): no ISIC class is below 0111, so a number
 * under 100 is a group, written the 2012 file's way ("012X"), not padded into a class
 * ("0012", which ISIC does not have).
 */
const isic4 = (c: Cell, where: string, field: string) => {
  if (typeof c === 'number' && Number.isInteger(c) && c > 0 && c < 100) return `${String(c).padStart(3, '0')}X`;
  return codeText(c, 4) ?? (/^\d{3}X$/.test(cellText(c)) ? cellText(c) : fail(where, field, c));
};
const flag = (c: Cell, where: string, field: string) => (c === null || cellText(c) === '' ? false : cellText(c) === '*' ? true : fail(where, field, c));
const note = (c: Cell | undefined) => (c === undefined || cellText(c) === '' ? null : cellText(c));

interface Link { a: string; b: string | null; bSystem: System; bTitle: string | null; partA: boolean | null; partB: boolean | null; note: string | null; source: Key }

/**
 * Relations by record id and the naics-2012 and isic-4 records. `known` holds the ids
 * and titles of the records of the code lists (NAICS 2017): a relation to a code the
 * list lacks fails the build rather than dangle.
 */
export function concordances(books: Record<Key, unknown>, known: Map<string, string>): { records: CodeRecord[]; relations: Map<string, Relation[]> } {
  const titles2012 = new Map<string, string>();
  const isic = new Map<string, string>();
  const links: Link[] = [];
  const title = (map: Map<string, string>, code: string, t: string, where: string) => {
    const prev = map.get(code);
    if (prev === undefined) map.set(code, t || fail(where, 'title', t));
  };

  // NAICS 2012 → ISIC first: it gives the 2012 industries their clean titles.
  for (const { row, where } of rowsOf('census-naics-2012-to-isic-4', books['census-naics-2012-to-isic-4'])) {
    const n = naics6(row[0], where, '2012 NAICS US');
    const i = isic4(row[2], where, 'ISIC 4.0');
    title(isic, i, words(row[3]), where);
    if (n === '000000') {
      links.push({ a: recordId('isic-4', i), b: null, bSystem: 'naics-2012', bTitle: words(row[1]), partA: null, partB: null, note: note(row[4]), source: 'census-naics-2012-to-isic-4' });
      continue;
    }
    title(titles2012, n, words(row[1]), where);
    links.push({ a: recordId('naics-2012', n), b: recordId('isic-4', i), bSystem: 'isic-4', bTitle: null, partA: null, partB: null, note: note(row[4]), source: 'census-naics-2012-to-isic-4' });
  }
  for (const { row, where } of rowsOf('census-naics-2017-to-isic-4', books['census-naics-2017-to-isic-4'])) {
    const n = naics6(row[1], where, '2017 NAICS US');
    const i = isic4(row[4], where, 'ISIC 4.0');
    title(isic, i, words(row[5]), where);
    const partN = flag(row[0], where, 'Part of NAICS US');
    const partI = flag(row[3], where, 'Part of ISIC');
    if (n === '000000') {
      links.push({ a: recordId('isic-4', i), b: null, bSystem: 'naics-2017', bTitle: words(row[2]), partA: partI, partB: partN, note: note(row[6]), source: 'census-naics-2017-to-isic-4' });
      continue;
    }
    links.push({ a: recordId('naics-2017', n), b: recordId('isic-4', i), bSystem: 'isic-4', bTitle: null, partA: partN, partB: partI, note: note(row[6]), source: 'census-naics-2017-to-isic-4' });
  }
  for (const { row, where } of rowsOf('census-naics-2017-to-2012', books['census-naics-2017-to-2012'])) {
    const n17 = naics6(row[0], where, '2017 NAICS Code');
    const n12 = naics6(row[2], where, '2012 NAICS Code');
    const piece = words(row[3]);
    title(titles2012, n12, piece, where);
    links.push({ a: recordId('naics-2017', n17), b: recordId('naics-2012', n12), bSystem: 'naics-2012', bTitle: null, partA: null, partB: null, note: piece, source: 'census-naics-2017-to-2012' });
  }

  const records: CodeRecord[] = [
    ...[...titles2012].map(([code, t]): CodeRecord => ({
      id: recordId('naics-2012', code), system: 'naics-2012', code, title: t, description: null, cross_references_omitted: null, level: 6, level_name: 'national industry',
      parent: null, section: null, section_title: null, trilateral: null, defined_by: 'Census NAICS 2012 concordances (2012 to ISIC 4, 2017 to 2012)',
      relations: [], related_systems: [],
    })),
    ...[...isic].map(([code, t]): CodeRecord => ({
      id: recordId('isic-4', code), system: 'isic-4', code, title: t, description: null, cross_references_omitted: null,
      ...(code.endsWith('X') ? { level: 3, level_name: 'group' } : { level: 4, level_name: 'class' }),
      parent: null, section: null, section_title: null, trilateral: null, defined_by: 'Census NAICS to ISIC 4 concordances (class titles as given there)',
      relations: [], related_systems: [],
    })),
  ];
  const titleOf = new Map([...known, ...records.map((r) => [r.id, r.title] as const)]);
  const relations = new Map<string, Relation[]>();
  // One relation per (record, other record, concordance): the 2012 file gives NAICS 238310
  // → ISIC 4330 as two rows with two notes, which the 2017 file writes as one row with the
  // notes joined by "; ". Joined the same way here; an identical row adds nothing.
  const put = (id: string, rel: Relation) => {
    const list = relations.get(id) ?? relations.set(id, []).get(id)!;
    const same = rel.id !== null && list.find((r) => r.id === rel.id && r.source === rel.source && r.part_of_this === rel.part_of_this && r.part_of_other === rel.part_of_other);
    if (!same) {
      if (!list.some((r) => JSON.stringify(r) === JSON.stringify(rel))) list.push(rel);
    } else if (rel.note !== null && same.note !== rel.note && !(same.note ?? '').split('; ').includes(rel.note)) {
      same.note = same.note === null ? rel.note : `${same.note}; ${rel.note}`;
    }
  };
  for (const l of links) {
    const aSystem = l.a.split(':')[0] as System;
    if (!titleOf.has(l.a)) fail(CONCORDANCES[l.source].file, 'code (not in its code list)', l.a);
    if (l.b !== null && !titleOf.has(l.b)) fail(CONCORDANCES[l.source].file, 'code (not in its code list)', l.b);
    // The 2012 piece text is a note only where it says more than the 2012 title.
    const text = l.source === 'census-naics-2017-to-2012' && l.note === titleOf.get(l.b!) ? null : l.note;
    put(l.a, { id: l.b, system: l.bSystem, code: l.b?.split(':')[1] ?? null, title: l.b ? titleOf.get(l.b)! : l.bTitle!, part_of_this: l.partA, part_of_other: l.partB, note: text, source: l.source });
    if (l.b !== null) put(l.b, { id: l.a, system: aSystem, code: l.a.split(':')[1], title: titleOf.get(l.a)!, part_of_this: l.partB, part_of_other: l.partA, note: text, source: l.source });
  }
  return { records, relations };
}
