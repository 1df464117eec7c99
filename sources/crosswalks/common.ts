/**
 * Shared shapes of the classification-crosswalks dataset: a record is one code of one
 * classification system, identified as "<system>:<code>" because codes collide across
 * systems (311111 is a NAICS 2012, 2017 and 2022 industry and also a HS subheading).
 */
export const SYSTEMS = ['naics-2022', 'naics-2017', 'naics-2012', 'isic-4', 'hs-2022'] as const;
export type System = (typeof SYSTEMS)[number];

/** One relation a publisher's file states between this code and another (of another system, or named in a NAICS description). */
export interface Relation {
  /** Target record id, e.g. "isic-4:0111"; null only for a concordance row without a code ("Multiple NAICS industries"). */
  id: string | null;
  system: System;
  code: string | null;
  title: string;
  /** The concordance flags that only part of this record's code is concerned; null when the file has no such flags. */
  part_of_this: boolean | null;
  /** The concordance flags that only part of the other code is concerned; null when the file has no such flags. */
  part_of_other: boolean | null;
  /** The concordance's own words on the link (its notes column, or the piece of the industry it names). */
  note: string | null;
  /** Which file states it (a key of CONCORDANCES, or census-naics-<year>-descriptions: cross-references.ts). */
  source: string;
}

export interface CodeRecord {
  id: string; system: System; code: string; title: string; description: string | null;
  level: number; level_name: string; parent: string | null; section: string | null; section_title: string | null;
  trilateral: boolean | null; cross_references_omitted: boolean | null; defined_by: string; relations: Relation[]; related_systems: string[];
  /** Set by normaliseCrosswalks (index.ts). */
  prominence?: number;
}

export const recordId = (system: System, code: string) => `${system}:${code}`;

export function fail(where: string, field: string, value: unknown): never {
  const shown = JSON.stringify(value);
  throw new Error(`classification-crosswalks: ${where} field ${field}: unexpected ${shown === undefined ? 'undefined' : shown.slice(0, 200)}`);
}

/** NAICS levels by code length (a sector may be a range like 31-33). */
export function naicsLevel(code: string): { level: number; level_name: string } {
  const level = /^\d\d-\d\d$/.test(code) ? 2 : code.length;
  const names: Record<number, string> = { 2: 'sector', 3: 'subsector', 4: 'industry group', 5: 'NAICS industry', 6: 'national industry' };
  return { level, level_name: names[level] };
}

/**
 * Parent of a NAICS code from the code itself (NAICS is a strict prefix hierarchy; the
 * three range sectors 31-33, 44-45, 48-49 hold the subsectors starting with their
 * digits). Null for sectors. The caller checks the parent exists in the same list.
 */
export function naicsParent(code: string, codes: Set<string>): string | null {
  if (code.length <= 2 || code.includes('-')) return null;
  if (code.length > 3) return code.slice(0, -1);
  const two = code.slice(0, 2);
  if (codes.has(two)) return two;
  return [...codes].find((c) => c.includes('-') && two >= c.slice(0, 2) && two <= c.slice(3)) ?? null;
}

/**
 * Census titles mark codes that are the same in the US, Canadian and Mexican NAICS with a
 * trailing "T" ("Crop ProductionT"). Checked on the 2022 files: the clean 2–6 digit list
 * equals the descriptions file's title with that T removed, for all 2,125 codes.
 */
export function splitTrilateral(title: string): { title: string; trilateral: boolean } {
  const t = title.trim();
  return /[a-z)]T$/.test(t) ? { title: t.slice(0, -1).trim(), trilateral: true } : { title: t, trilateral: false };
}
