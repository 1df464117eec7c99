/**
 * Chemical elements: masses and isotopes from chemical-elements (cheminfo), physical
 * properties from periodic-table (andrejewski), joined on atomic number; boiling points
 * from PubChem's periodic table (periodic-table-data), whose values periodic-table 0.0.8
 * (a 2015 snapshot) misses for 19 elements, among them Si (3173 K for 3538 K) and Cu
 * (3200 K for 2835 K). One field, one source: no per-element picking.
 *
 * Atomic weights: atomic_weight* from mendeleev's elements.db (elements-weights.ts, an
 * optional input); periodic-table's IUPAC 2007 text only as atomic_weight_2007_text, and
 * atomic_mass (chemical-elements' mean of its isotope masses) kept for existing clients.
 *
 * Units: periodic-table's README states none, so they were read off known values in
 * its data: H ionizationEnergy 1312 (kJ/mol), H atomicRadius 37 (pm), Fe meltingPoint
 * 1811 (K), Fe density 7.874 and H 0.0000899 (g/cm³; the README's sample shows 0.0899,
 * i.e. g/L, but the shipped data is g/cm³). electronAffinity keeps upstream's sign
 * (H: -73, i.e. energy released is negative).
 *
 * periodic-table's data.json was made by csvtojson from data.csv, which guessed types
 * per cell. Every quirk found in 0.0.8 is handled explicitly below; anything else
 * throws naming the row and field, so a changed upstream fails the build loudly.
 */
import { parse } from 'csv-parse/sync';
import { SMALL_DATASET_LIMIT, defineSource } from './contract.ts';
import { WEIGHTS_INPUT, WEIGHTS_PROVENANCE, WEIGHT_PROPERTIES, atomicWeights, type WeightFields } from './elements-weights.ts';
import { NAME_PROPERTIES, elementNames, type NameFields } from './elements-names.ts';

export interface Isotope { mass_number: number; mass: number; abundance: number | null }

export interface ElementRecord extends WeightFields, NameFields {
  id: string; symbol: string; name: string; atomic_number: number;
  atomic_weight_2007_text: string | null; atomic_mass: number | null; monoisotopic_mass: number | null;
  period: number; group: number | null; block: 's' | 'p' | 'd' | 'f'; group_block: string;
  standard_state: string | null; electron_configuration: string; electronegativity: number | null;
  atomic_radius_pm: number | null; ionization_energy_kj_mol: number | null;
  electron_affinity_kj_mol: number | null; oxidation_states: number[] | null;
  melting_point_k: number | null; boiling_point_k: number | null; density_g_cm3: number | null;
  year_discovered: string | null; cpk_hex_color: string | null; isotopes: Isotope[];
}

/** Atomic numbers of the noble gases: each closes a period of the table. */
const PERIOD_ENDS = [2, 10, 18, 36, 54, 86, 118];

/**
 * Period, group and block from the layout of the 18-column table (IUPAC numbering).
 * The lanthanoids (57–71) and actinoids (89–103) get group null, as in IUPAC's own
 * table, which shows the whole series under group 3. The f-block is 14 wide (La–Yb,
 * Ac–No), so Lu and Lr are d-block.
 */
export function layout(z: number): { period: number; group: number | null; block: ElementRecord['block'] } {
  const idx = PERIOD_ENDS.findIndex((end) => z <= end);
  if (!Number.isInteger(z) || z < 1 || idx < 0) throw new Error(`elements: no layout for atomic number ${z}`);
  const period = idx + 1;
  const start = idx === 0 ? 0 : PERIOD_ENDS[idx - 1];
  const pos = z - start; // 1-based column within the period's own row
  const len = PERIOD_ENDS[idx] - start; // 2, 8, 18 or 32
  if (len === 2) return { period, group: pos === 1 ? 1 : 18, block: 's' }; // H, He
  if (pos <= 2) return { period, group: pos, block: 's' };
  if (len === 8) return { period, group: pos + 10, block: 'p' };
  if (len === 18) return { period, group: pos, block: pos <= 12 ? 'd' : 'p' };
  if (pos <= 16) return { period, group: null, block: 'f' }; // La–Yb, Ac–No
  if (pos === 17) return { period, group: null, block: 'd' }; // Lu, Lr: still lanthanoid/actinoid
  return { period, group: pos - 14, block: pos <= 26 ? 'd' : 'p' };
}

// Upstream shapes (only the fields we read).
interface CeIsotope { nominal: number; mass: number; abundance?: number }
interface CeElement { number: number; symbol: string; name: string; mass: number | null; monoisotopicMass?: number; isotopes: CeIsotope[] }
type PtRow = Record<string, unknown>;

const STATES = new Set(['solid', 'liquid', 'gas']);
// Every groupBlock value in 0.0.8; a new one should be looked at, not passed through.
const GROUP_BLOCKS = new Set(['nonmetal', 'noble gas', 'alkali metal', 'alkaline earth metal', 'metalloid',
  'halogen', 'metal', 'transition metal', 'lanthanoid', 'actinoid', 'post-transition metal']);

function fail(where: string, field: string, value: unknown): never {
  throw new Error(`elements: ${where} field ${field}: unexpected ${JSON.stringify(value)}`);
}

/** csvtojson leaves empty cells as "" (unknown) and numeric cells as numbers. */
function num(row: PtRow, where: string, field: string): number | null {
  const v = row[field];
  if (v === '') return null;
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  return fail(where, field, v);
}

function text(row: PtRow, where: string, field: string, allowed?: Set<string>): string | null {
  const v = row[field];
  if (v === '') return null;
  if (typeof v === 'string' && v.trim() !== '' && (!allowed || allowed.has(v.trim()))) return v.trim();
  return fail(where, field, v);
}

/** "55.845(2)" stays as is; csvtojson turned "[98]" (mass number of the longest-lived isotope) into [98]. */
function massText(v: unknown, where: string): string {
  if (typeof v === 'string' && /^\d+\.\d+\(\d+\)$/.test(v.trim())) return v.trim();
  if (Array.isArray(v) && v.length === 1 && Number.isInteger(v[0])) return `[${v[0]}]`;
  return fail(where, 'atomicMass', v);
}

/** "-1, 1" is a string, but a single state ("2") was turned into the number 2. */
function oxidationStates(v: unknown, where: string): number[] | null {
  if (v === '') return null;
  if (Number.isInteger(v)) return [v as number];
  if (typeof v === 'string' && /^-?\d+(, ?-?\d+)*$/.test(v.trim())) return v.split(',').map((s) => Number(s));
  return fail(where, 'oxidationStates', v);
}

/** "Ancient" or a year, which csvtojson turned into a number; kept as a string as given. */
function year(v: unknown, where: string): string | null {
  if (v === '') return null;
  if (v === 'Ancient') return v;
  if (Number.isInteger(v) && (v as number) > 1000 && (v as number) < 3000) return String(v);
  return fail(where, 'yearDiscovered', v);
}

/**
 * The colour code is hex text, but some were damaged: csvtojson read "90E050" (F) as
 * 9e51 and a spreadsheet had already stored Pd's "006985" as 6985 and Er's as
 * "0.00E+00" in data.csv. So the text comes from data.csv and must agree with the
 * json cell: hex kept, leading zeros a spreadsheet dropped restored, scientific
 * notation (the original is lost) → null.
 */
function cpk(csvCell: string | undefined, jsonCell: unknown, where: string): string | null {
  const t = (csvCell ?? '').trim();
  const agrees = jsonCell === t || (typeof jsonCell === 'number' && jsonCell === Number(t));
  if (csvCell === undefined || !agrees) return fail(where, 'cpkHexColor (data.json vs data.csv)', [jsonCell, csvCell]);
  if (t === '') return null;
  if (/^[0-9A-F]{6}$/i.test(t)) return t.toUpperCase();
  if (/^\d{1,5}$/.test(t)) return t.padStart(6, '0');
  if (/^\d(\.\d+)?E[+-]\d+$/i.test(t)) return null;
  return fail(where, 'cpkHexColor', t);
}

/** atomicNumber → cpkHexColor cell text of periodic-table's data.csv. */
function csvColours(csv: unknown): Map<number, string> {
  if (typeof csv !== 'string') return fail('periodic-table data.csv', '(file)', typeof csv);
  const rows: string[][] = parse(csv, { trim: true });
  const header = rows.shift() ?? [];
  if (header[0] !== 'atomicNumber' || header[4] !== 'cpkHexColor') fail('periodic-table data.csv', '(header)', header);
  return new Map(rows.map((r) => [Number(r[0]), r[4]]));
}

function isotopes(e: CeElement, where: string): Isotope[] {
  if (!Array.isArray(e.isotopes)) return fail(where, 'isotopes', e.isotopes);
  return e.isotopes.map((i) => {
    if (!Number.isInteger(i.nominal) || typeof i.mass !== 'number') fail(where, 'isotopes', i);
    if (i.abundance !== undefined && typeof i.abundance !== 'number') fail(where, 'isotopes.abundance', i);
    return { mass_number: i.nominal, mass: i.mass, abundance: i.abundance ?? null };
  }).sort((a, b) => a.mass_number - b.mass_number);
}

const nullable = (type: string) => ({ type: [type, 'null'] });

const properties = {
  id: { type: 'string', description: 'Element symbol' },
  symbol: { type: 'string' },
  name: { type: 'string', description: 'IUPAC spelling (e.g. Aluminium, Caesium)' },
  atomic_number: { type: 'integer', minimum: 1 },
  ...WEIGHT_PROPERTIES,
  atomic_weight_2007_text: { ...nullable('string'), description: 'The superseded IUPAC 2007 table as periodic-table 0.0.8 publishes it, e.g. "72.64(1)" (Ge; now 72.630(8)); "[98]" = mass number of the longest-lived isotope. Use atomic_weight' },
  atomic_mass: { ...nullable('number'), description: 'Mean of the isotope masses weighted by their abundances, as chemical-elements computes it (Da; H 1.0079407…); not an IUPAC value, use atomic_weight. Null without natural isotopes' },
  monoisotopic_mass: { ...nullable('number'), description: 'Mass of the most abundant isotope (Da)' },
  period: { type: 'integer', minimum: 1, maximum: 7 },
  group: { ...nullable('integer'), description: 'IUPAC group 1–18; null for lanthanoids and actinoids' },
  block: { type: 'string', enum: ['s', 'p', 'd', 'f'] },
  group_block: { type: 'string' },
  standard_state: { type: ['string', 'null'], enum: ['solid', 'liquid', 'gas', null] },
  electron_configuration: { type: 'string' },
  electronegativity: { ...nullable('number'), description: 'Pauling scale' },
  atomic_radius_pm: nullable('number'),
  ionization_energy_kj_mol: nullable('number'),
  electron_affinity_kj_mol: { ...nullable('number'), description: 'Sign as upstream: energy released is negative' },
  oxidation_states: { type: ['array', 'null'], items: { type: 'integer' } },
  melting_point_k: nullable('number'),
  boiling_point_k: { ...nullable('number'), description: 'Kelvin, from PubChem (periodic-table-data 1.1.1, retrieved 2023-09-25)' },
  density_g_cm3: nullable('number'),
  year_discovered: { ...nullable('string'), description: '"Ancient" or a year' },
  cpk_hex_color: { type: ['string', 'null'], pattern: '^[0-9A-F]{6}$' },
  ...NAME_PROPERTIES,
  isotopes: {
    type: 'array',
    items: { type: 'object', properties: { mass_number: { type: 'integer' }, mass: { type: 'number' }, abundance: nullable('number') },
      required: ['mass_number', 'mass', 'abundance'], additionalProperties: false },
  },
};

/** atomicNumber → boiling point (K) from PubChem's table as periodic-table-data ships it (null = unknown). */
function pubchemBoiling(data: unknown, count: number): (z: number, symbol: string) => number | null {
  if (!Array.isArray(data) || data.length !== count) return fail('periodic-table-data', '(row count)', Array.isArray(data) ? data.length : typeof data);
  const rows = new Map((data as PtRow[]).map((r) => [r.atomicNumber, r]));
  return (z, symbol) => {
    const r = rows.get(z) ?? fail('periodic-table-data', `row ${z}`, undefined);
    if (r.symbol !== symbol) fail(`periodic-table-data row ${z}`, 'symbol', r.symbol);
    const v = r.boilingPoint;
    if (v === null) return null;
    return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : fail(`periodic-table-data row ${z} (${symbol})`, 'boilingPoint', v);
  };
}

export default defineSource<ElementRecord>({
  id: 'elements',
  maxLimit: SMALL_DATASET_LIMIT, // small records: the whole dataset in one call (issue 13)
  title: 'Chemical elements',
  description: 'The 118 chemical elements: standard atomic weights (IUPAC/CIAAW, with uncertainty and source), isotopes, periodic-table position and physical properties.',
  // 0.3.0: atomic_weight* from IUPAC/CIAAW via mendeleev; atomic_mass_text renamed atomic_weight_2007_text.
  // 0.4.0: series, name_origin, symbol_name from mendeleev (searched: "wolfram", "lanthanides").
  contractVersion: '0.4.0',
  provenance: [
    {
      name: 'chemical-elements 2.3.3',
      url: 'https://github.com/cheminfo/chemical-elements',
      licence: { spdx: 'MIT', name: 'MIT License', url: 'https://opensource.org/licenses/MIT' },
      attribution: 'chemical-elements by Luc Patiny, Copyright (c) 2017 cheminfo',
    },
    {
      name: 'periodic-table 0.0.8',
      url: 'https://github.com/andrejewski/periodic-table',
      licence: { spdx: 'ISC', name: 'ISC License', url: 'https://opensource.org/licenses/ISC' },
      attribution: 'periodic-table, Copyright (c) 2015 Chris Andrejewski',
    },
    {
      name: 'PubChem Periodic Table of Elements via periodic-table-data 1.1.1 (retrieved 2023-09-25): boiling points',
      url: 'https://pubchem.ncbi.nlm.nih.gov/periodic-table/',
      licence: { spdx: 'MIT', name: 'MIT License (package); PubChem data is U.S. government work, see https://www.ncbi.nlm.nih.gov/home/about/policies/', url: 'https://github.com/sjf8203/periodic-table-data' },
      attribution: 'National Center for Biotechnology Information, PubChem Periodic Table of Elements; packaged by periodic-table-data (sjf8203)',
    },
    WEIGHTS_PROVENANCE,
  ],
  inputs: {
    chemicalElements: { kind: 'npm-export', package: 'chemical-elements', export: 'elementsAndIsotopes' },
    periodicTable: { kind: 'npm-file', package: 'periodic-table', file: 'data.json', format: 'json' },
    // Only for colour codes that csvtojson damaged in data.json (see cpk()).
    periodicTableCsv: { kind: 'npm-file', package: 'periodic-table', file: 'data.csv', format: 'text' },
    pubchem: { kind: 'npm-file', package: 'periodic-table-data', file: 'periodicTableData.json', format: 'json' },
    atomicWeights: WEIGHTS_INPUT, // optional: absent → the atomic_weight* fields are null
  },
  pathParamDescription: 'Element symbol (Fe) or atomic number (26); also the English name, case-insensitively.',
  schema: { type: 'object', properties, required: Object.keys(properties), additionalProperties: false },
  search: {
    fields: ['id', 'name', 'symbol', 'group_block', 'series', 'symbol_name'], boost: { name: 3, symbol: 3, symbol_name: 2 },
    names: [{ field: 'symbol_name' }],
  },
  // The index compares filter values as strings, so numeric fields work as ?period=4 / ?group=8.
  filters: [
    { param: 'block', field: 'block', description: 'Block: s, p, d or f', caseInsensitive: true },
    { param: 'period', field: 'period', description: 'Period 1–7' },
    { param: 'group', field: 'group', description: 'IUPAC group 1–18' },
    { param: 'group_block', field: 'group_block', description: 'Category, e.g. "transition metal"', caseInsensitive: true },
    { param: 'standard_state', field: 'standard_state', description: 'solid, liquid or gas', caseInsensitive: true },
  ],
  aliases: (r) => [String(r.atomic_number), r.name.toLowerCase()],
  // Readers expect the periodic table's order, not alphabetical symbols.
  order: (a, b) => a.atomic_number - b.atomic_number,
  normalise(raw) {
    const ce = raw.chemicalElements;
    const pt = raw.periodicTable;
    if (!Array.isArray(ce)) return fail('chemical-elements', 'elementsAndIsotopes', typeof ce);
    if (!Array.isArray(pt)) return fail('periodic-table data.json', '(file)', typeof pt);
    const colours = csvColours(raw.periodicTableCsv);
    const rows = new Map<number, PtRow>();
    for (const r of pt as PtRow[]) {
      if (!Number.isInteger(r.atomicNumber) || rows.has(r.atomicNumber as number)) fail('periodic-table row', 'atomicNumber', r.atomicNumber);
      rows.set(r.atomicNumber as number, r);
    }
    if (rows.size !== ce.length) fail('periodic-table vs chemical-elements', '(row count)', [rows.size, ce.length]);
    const pubchem = pubchemBoiling(raw.pubchem, ce.length);
    const weights = atomicWeights(raw.atomicWeights);
    const names = elementNames(raw.atomicWeights);

    return (ce as CeElement[]).map((e): ElementRecord => {
      const where = `element ${e.number} (${e.symbol})`;
      if (typeof e.symbol !== 'string' || !/^[A-Z][a-z]{0,2}$/.test(e.symbol)) fail(where, 'symbol', e.symbol);
      if (typeof e.name !== 'string' || e.name === '') fail(where, 'name', e.name);
      if (e.mass !== null && typeof e.mass !== 'number') fail(where, 'mass', e.mass);
      if (e.monoisotopicMass !== undefined && typeof e.monoisotopicMass !== 'number') fail(where, 'monoisotopicMass', e.monoisotopicMass);
      const r = rows.get(e.number) ?? fail(where, 'periodic-table row', undefined);
      const at = `periodic-table row ${e.number} (${e.symbol})`;
      if (r.symbol !== e.symbol) fail(at, 'symbol', r.symbol);
      return {
        id: e.symbol,
        symbol: e.symbol,
        // chemical-elements uses IUPAC spellings (periodic-table has "Aluminum", "Cesium").
        name: e.name,
        atomic_number: e.number,
        ...weights(e.number, e.symbol),
        atomic_weight_2007_text: massText(r.atomicMass, at),
        atomic_mass: e.mass,
        monoisotopic_mass: e.monoisotopicMass ?? null,
        ...layout(e.number),
        group_block: text(r, at, 'groupBlock', GROUP_BLOCKS) ?? fail(at, 'groupBlock', ''),
        standard_state: text(r, at, 'standardState', STATES),
        electron_configuration: text(r, at, 'electronicConfiguration') ?? fail(at, 'electronicConfiguration', ''),
        electronegativity: num(r, at, 'electronegativity'),
        atomic_radius_pm: num(r, at, 'atomicRadius'),
        ionization_energy_kj_mol: num(r, at, 'ionizationEnergy'),
        electron_affinity_kj_mol: num(r, at, 'electronAffinity'),
        oxidation_states: oxidationStates(r.oxidationStates, at),
        melting_point_k: num(r, at, 'meltingPoint'),
        boiling_point_k: pubchem(e.number, e.symbol),
        density_g_cm3: num(r, at, 'density'),
        year_discovered: year(r.yearDiscovered, at),
        cpk_hex_color: cpk(colours.get(e.number), r.cpkHexColor, at),
        ...names(e.number, e.symbol),
        isotopes: isotopes(e, where),
      };
    });
  },
});
