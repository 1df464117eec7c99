/**
 * Reader of the Index to Roscher's Lexicon of Mythology, v1.0 (Jonathan Groß, 2024,
 * Zenodo record 11113695, CC0): tab A "main alphabet" (RLM_Index_tab_A.csv: tab-separated
 * despite the name, CRLF, UTF-8). The header must be exactly ROSCHER_HEADER; rows are
 * checked field by field, failing with file, row (1 = first data row) and field.
 */
export const ROSCHER_HEADER = ['id', 'headword', 'subject_type', 'vol', 'fascicle', 'date', 'col1', 'col2', 'colspan', 'author1', 'author2',
  'author3', 'author4', 'entry_type', 'scan', 'Wikidata', 'FactGrid', 'Mythogram', 'redirect_target', 'remarks'] as const;

export interface RoscherRow {
  id: string; headword: string; types: string[]; volume: string; published: string; columns: string; authors: string[];
  entryType: string; scan: string; wikidata: string[]; redirectTarget: string | null; remarks: string | null;
}

const FILE = 'RLM_Index_tab_A.csv';
const ENTRY_TYPES = ['article', 'cross-reference', 'particle', 'addendum'];

function fail(where: string, field: string, value: unknown): never {
  throw new Error(`mythology: ${where} field ${field}: unexpected ${JSON.stringify(value)?.slice(0, 160)}`);
}

export function roscherRows(text: unknown): RoscherRow[] {
  if (typeof text !== 'string') fail(FILE, '(input)', typeof text);
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  const head = lines[0].split('\t');
  const bad = ROSCHER_HEADER.findIndex((c, i) => head[i] !== c);
  if (bad >= 0 || head.length !== ROSCHER_HEADER.length) fail(`${FILE} header`, ROSCHER_HEADER[bad] ?? `(column ${head.length + 1})`, lines[0]);
  return lines.slice(1).map((line, i) => {
    const at = `${FILE} row ${i + 1}`;
    const c = line.split('\t');
    if (c.length !== ROSCHER_HEADER.length) fail(at, '(row)', `${c.length} columns`);
    const v = Object.fromEntries(ROSCHER_HEADER.map((h, j) => [h, c[j].trim()])) as Record<(typeof ROSCHER_HEADER)[number], string>;
    const need = (f: keyof typeof v, re: RegExp) => (re.test(v[f]) ? v[f] : fail(at, f, v[f]));
    // Publication date: a year, or DD.MM.YYYY for fascicles whose day is known.
    const date = need('date', /^(\d{4}|\d{2}\.\d{2}\.\d{4})$/);
    const published = date.length === 4 ? date : `${date.slice(6)}-${date.slice(3, 5)}-${date.slice(0, 2)}`;
    return {
      id: need('id', /^RLM\d{5}$/),
      headword: need('headword', /\S/),
      // "river,deity": the index gives two types to a few entries.
      types: v.subject_type === '' ? [] : need('subject_type', /^[a-z_]+(,[a-z_]+)*$/).split(','),
      volume: need('vol', /^\d(\.\d)?$/),
      published,
      columns: need('colspan', /^\d+(–\d+)?$/),
      authors: [v.author1, v.author2, v.author3, v.author4].filter((a) => a !== ''),
      entryType: ENTRY_TYPES.includes(v.entry_type) ? v.entry_type : fail(at, 'entry_type', v.entry_type),
      scan: need('scan', /^https:\/\/www\.archive\.org\//),
      wikidata: v.Wikidata === '' ? [] : need('Wikidata', /^Q\d+(,Q\d+)*$/).split(','),
      redirectTarget: v.redirect_target || null,
      remarks: v.remarks || null,
    };
  });
}
