/**
 * ingredients: the FDA "Substances Added to Food" inventory (formerly EAFUS), as its
 * download FoodSubstances.csv (file header: last updated 2022-01-20, downloaded
 * 2022-01-27). Four preamble lines (source, a blank, FDA's caveat that the inventory is
 * partial and not an approval, a blank), then a 37-column header.
 *
 * Cells carry the web page's markup: names and effects are lists joined by "<br />"
 * (a few by "</br >"), other names start with "&diams;". Only that markup is known;
 * any other tag or entity fails the build naming the line, so nothing is served with
 * markup in it.
 *
 * Ids: the "CAS Reg No (or other ID)" column. Numbers beginning 977 are FDA's own ids,
 * not CAS Registry Numbers (692 of the 693 fail the CAS check digit), so `cas_number` is
 * null for them. Regulations: every "Reg …" column holds 21 CFR sections ("172.780",
 * several joined by " , "); they are served as `cfr_sections` with their parts, the
 * sections from the "Reg prohibited189" column (21 CFR 189, substances prohibited from
 * use in human food) also as `prohibited_sections`, and `cfr_title` "title-21" links to
 * the laws-regulations dataset (eCFR title 21).
 */
import { defineSource } from './contract.ts';
import { fail, readCsv } from './readers/csv.ts';

export interface IngredientRecord {
  id: string; name: string; other_names: string[]; cas_number: string | null; fda_id: string | null;
  technical_effects: string[]; cfr_title: string | null; cfr_sections: string[]; cfr_parts: string[];
  prohibited_sections: string[]; fema_number: string | null; gras_publication: string | null;
  gras_publication_update: string | null; fema_status: string | null; jecfa_flavor_number: string | null;
}

export const FDA_FILE = 'FoodSubstances.csv';
const REG_COLUMNS = [
  ...[1, 2, 3, 4, 5, 6].map((n) => `Reg col0${n}`),
  ...[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 16, 17, 18, 19, 20].map((n) => `Reg add${String(n).padStart(2, '0')}`),
  'Reg prohibited189', 'Reg Administrative', 'regs Labeling & Standards ',
];
export const HEADER = ['CAS Reg No (or other ID)', 'Substance', 'Other Names', 'Used for (Technical Effect)', ...REG_COLUMNS,
  'FEMA No', 'GRAS Pub No', 'Most Recent GRAS Pub Update', 'FEMA status', 'JECFA Flavor Number'];
const PREAMBLE = /^Downloaded from FDA Substances Added to Food .*Last updated (\d{1,2})\/(\d{1,2})\/(\d{4})/;

/** A list cell: items split at the page's line breaks, the diamond bullets and trailing commas removed. */
function items(cell: string, where: string, field: string): string[] {
  const out: string[] = [];
  for (const part of cell.split(/<br \/>|<\/br >/)) {
    const t = part.replace(/&diams;/g, '').trim().replace(/,$/, '').trim();
    if (/<\/?[a-zA-Z][^>]*>|&[#a-zA-Z0-9]+;/.test(t)) fail(where, field, part);
    if (t && !out.includes(t)) out.push(t);
  }
  return out;
}

/** "133.123 ,  133.124" → ["133.123", "133.124"]: 21 CFR part.section. */
function sections(cell: string, where: string, field: string): string[] {
  return cell.split(',').map((s) => s.trim()).filter(Boolean).map((s) => (/^\d{1,3}\.\d{1,4}[a-z]?$/.test(s) ? s : fail(where, field, cell)));
}

/** The preamble's "Last updated M/D/YYYY" as an ISO date: the inventory's own date. */
export function inventoryDate(text: unknown): string | null {
  const m = typeof text === 'string' ? PREAMBLE.exec(text.slice(0, 400)) : null;
  return m ? `${m[3]}-${m[1].padStart(2, '0')}-${m[2].padStart(2, '0')}` : null;
}

export function normaliseIngredients(text: unknown): IngredientRecord[] {
  if (typeof text !== 'string' || !PREAMBLE.test(text.slice(0, 400))) fail(`${FDA_FILE} line 1`, '(preamble)', typeof text === 'string' ? text.slice(0, 120) : typeof text);
  const seen = new Set<string>();
  return readCsv(text, { file: FDA_FILE, header: HEADER, skipLines: 4 }).map(({ values: v, where }): IngredientRecord => {
    const opt = (h: string, pattern?: RegExp) => {
      const t = v[h].trim();
      if (t === '') return null;
      return !pattern || pattern.test(t) ? t : fail(where, h, t);
    };
    const id = opt('CAS Reg No (or other ID)', /^\d{2,7}-\d{2}-\d$/) ?? fail(where, 'CAS Reg No (or other ID)', '');
    if (seen.has(id)) fail(where, 'CAS Reg No (or other ID) (duplicate)', id);
    seen.add(id);
    const [name, ...more] = items(v.Substance, where, 'Substance');
    if (!name || more.length) fail(where, 'Substance', v.Substance);
    const cfr: string[] = [];
    for (const col of REG_COLUMNS) for (const s of sections(v[col], where, col)) if (!cfr.includes(s)) cfr.push(s);
    const fda = id.startsWith('977');
    return {
      id, name,
      other_names: items(v['Other Names'], where, 'Other Names'),
      cas_number: fda ? null : id, fda_id: fda ? id : null,
      technical_effects: items(v['Used for (Technical Effect)'], where, 'Used for (Technical Effect)'),
      cfr_title: cfr.length ? 'title-21' : null,
      cfr_sections: cfr,
      cfr_parts: [...new Set(cfr.map((s) => s.split('.')[0]))],
      prohibited_sections: sections(v['Reg prohibited189'], where, 'Reg prohibited189'),
      fema_number: opt('FEMA No', /^(NLFG-)?\d+$/), gras_publication: opt('GRAS Pub No', /^\d+(, \d+)*$/),
      gras_publication_update: opt('Most Recent GRAS Pub Update', /^\d+$/), fema_status: opt('FEMA status'),
      jecfa_flavor_number: opt('JECFA Flavor Number', /^\d+( \([^)]+\))?$/),
    };
  });
}

const strings = (description: string) => ({ type: 'array', items: { type: 'string' }, description });
const text = (description: string) => ({ type: ['string', 'null'], description });
const properties = {
  id: { type: 'string', pattern: '^\\d{2,7}-\\d{2}-\\d$', description: 'The inventory\'s "CAS Reg No (or other ID)": a CAS Registry Number, or an FDA id beginning 977' },
  name: { type: 'string', description: 'Substance name as FDA lists it (upper case)' },
  other_names: strings('Other names (synonyms); each also finds the record by /{id}, case-insensitively'),
  cas_number: text('CAS Registry Number; null for FDA-assigned ids (977…)'),
  fda_id: text('FDA-assigned id (977…) where the substance has no CAS number in the inventory'),
  technical_effects: strings('Used for (technical effect), e.g. FLAVORING AGENT OR ADJUVANT'),
  cfr_title: text('"title-21" (a laws-regulations record: eCFR title 21) when the inventory cites 21 CFR sections; else null'),
  cfr_sections: strings('21 CFR sections the inventory cites (part.section), e.g. 172.780: https://www.ecfr.gov/current/title-21/section-172.780'),
  cfr_parts: strings('21 CFR parts of those sections, e.g. 172 (food additives permitted for direct addition)'),
  prohibited_sections: strings('Sections of 21 CFR 189 (substances prohibited from use in human food) cited for it'),
  fema_number: text('FEMA number (Flavor and Extract Manufacturers Association); "NLFG-<n>" as the inventory marks those no longer FEMA GRAS'),
  gras_publication: text('FEMA GRAS publication number(s), e.g. "3" or "3, 24"'),
  gras_publication_update: text('Most recent FEMA GRAS publication update'),
  fema_status: text('FEMA status note, e.g. "No longer FEMA GRAS (GRAS Pub. 27, 2015)"'),
  jecfa_flavor_number: text('JECFA flavour number, with the inventory\'s note where it has one'),
};

export default defineSource<IngredientRecord>({
  id: 'ingredients',
  title: 'Food substances',
  description: 'FDA\'s inventory of substances added to food: names and synonyms, CAS numbers, technical effects and the 21 CFR sections that regulate them.',
  coverage: 'All 3,972 substances of the FDA "Substances Added to Food" inventory as downloaded on 2022-01-27 (inventory last updated '
    + '2022-01-20); FDA has updated it since. FDA: the inventory is a partial list of food ingredients, and inclusion of information '
    + 'from non-FDA entities is not an FDA approval or evaluation of the use. CFR sections are as cited in the inventory (their text '
    + 'is on eCFR); cfr_title links to laws-regulations title-21.',
  contractVersion: '0.1.0',
  provenance: [{
    name: 'FDA Substances Added to Food inventory (FoodSubstances.csv, last updated 2022-01-20)',
    url: 'https://www.fda.gov/food/food-additives-petitions/substances-added-food-formerly-eafus',
    licence: { spdx: 'LicenseRef-US-Gov-PD', name: 'Public domain (US government work, 17 USC 105)', url: 'https://www.usa.gov/government-copyright' },
    attribution: 'U.S. Food and Drug Administration, Substances Added to Food inventory. A partial list; inclusion is not an FDA approval or evaluation. Always check the FDA regulations.',
  }],
  inputs: {
    substances: {
      kind: 'url', url: 'https://www.cfsanappsexternal.fda.gov/scripts/fdcc/FoodSubstances.csv',
      sha256: 'd16427b5763456b60616ec7fb4efaeb61164aa570ea35f89f79fab628ab79218', format: 'text',
    },
  },
  schema: { type: 'object', properties, required: Object.keys(properties), additionalProperties: false },
  search: { fields: ['name', 'other_names', 'id', 'technical_effects'], boost: { name: 3, other_names: 2 }, names: [{ field: 'other_names' }] },
  filters: [
    { param: 'technical_effect', field: 'technical_effects', description: 'Technical effect, e.g. "FLAVORING AGENT OR ADJUVANT"', caseInsensitive: true },
    { param: 'cfr_part', field: 'cfr_parts', description: '21 CFR part cited, e.g. 172, 184 (GRAS), 189 (prohibited)' },
    { param: 'cfr_section', field: 'cfr_sections', description: '21 CFR section cited, e.g. 184.1330' },
  ],
  links: [{ field: 'cfr_title', dataset: 'laws-regulations' }],
  aliases: (r) => [r.name, ...r.other_names],
  pathParamDescription: 'CAS number or FDA id (e.g. 55589-62-3), or the substance name or any of its other names, case-insensitively (URL-encoded).',
  normalise: (raw) => normaliseIngredients(raw.substances),
});
