/**
 * Harmonized System 2022 from datasets/harmonized-system (Frictionless data package
 * 2022.0, PDDL; compiled from UN Comtrade): harmonized-system.csv (section, hscode,
 * description, parent, level) and sections.csv (section, name; starts with a UTF-8 BOM,
 * as upstream, which is removed here).
 *
 * Left out: the four rows of section "TOTAL" (the Comtrade aggregate "Total of all
 * HS2022 commodities" and its 99/9999/999999 "Commodities not specified according to
 * kind"), which are Comtrade reporting codes, not HS headings.
 */
import { readCsv } from '../readers/csv.ts';
import { type CodeRecord, fail, recordId } from './common.ts';

const LEVELS: Record<string, string> = { 2: 'chapter', 4: 'heading', 6: 'subheading' };
const ROMAN = /^[IVX]+$/;

export function sectionNames(text: unknown): Map<string, string> {
  const body = typeof text === 'string' && text.startsWith('\uFEFF') ? text.slice(1) : text;
  const out = new Map<string, string>();
  for (const { values: v, where } of readCsv(body, { file: 'sections.csv', header: ['section', 'name'] })) {
    if (!ROMAN.test(v.section) || out.has(v.section)) fail(where, 'section', v.section);
    out.set(v.section, v.name.trim() || fail(where, 'name', v.name));
  }
  return out;
}

export function harmonizedSystem(text: unknown, sectionsText: unknown): CodeRecord[] {
  const sections = sectionNames(sectionsText);
  const rows = readCsv(text, { file: 'harmonized-system.csv', header: ['section', 'hscode', 'description', 'parent', 'level'] })
    .filter(({ values }) => values.section !== 'TOTAL');
  const codes = new Set(rows.map(({ values }) => values.hscode));
  if (codes.size !== rows.length) fail('harmonized-system.csv', 'hscode (duplicate)', rows.length - codes.size);
  return rows.map(({ values: v, where }): CodeRecord => {
    const code = v.hscode;
    if (!/^(\d\d){1,3}$/.test(code)) fail(where, 'hscode', code);
    if (v.level !== String(code.length)) fail(where, 'level', v.level);
    const parent = code.length === 2 ? (v.parent === 'TOTAL' ? null : fail(where, 'parent', v.parent)) : v.parent;
    if (parent !== null && (parent !== code.slice(0, code.length - 2) || !codes.has(parent))) fail(where, 'parent', v.parent);
    const sectionTitle = sections.get(v.section) ?? fail(where, 'section', v.section);
    return {
      id: recordId('hs-2022', code), system: 'hs-2022', code, title: v.description.trim() || fail(where, 'description', v.description),
      description: null, cross_references_omitted: null, level: code.length, level_name: LEVELS[code.length], parent: parent === null ? null : recordId('hs-2022', parent),
      section: v.section, section_title: sectionTitle, trilateral: null, defined_by: 'HS 2022 nomenclature via datasets/harmonized-system 2022.0',
      relations: [], related_systems: [],
    };
  });
}
